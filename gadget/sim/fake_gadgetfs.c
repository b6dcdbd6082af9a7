// SPDX-License-Identifier: GPL-2.0
/*
 * fake_gadgetfs.c - run hzrig-gadget against a model of gadgetfs and
 * dummy_hcd, on the build machine, with a scripted host.
 *
 * Linked into the gadget with ld --wrap for open/read/write/close/fcntl/
 * poll/ppoll/access, so that paths under SIM_DIR reach the model and all
 * else the real calls. The ep0 model follows drivers/usb/gadget/legacy/
 * inode.c (6.1) closely - state, event queue with its de-duplication, the
 * setup_abort report, what read()/write()/poll() mean in each state - and
 * the endpoint model the parts of dummy_hcd the gadget depends on: NAK when
 * nothing is queued, the single-request IN FIFO, halts, maxpacket checks.
 * It is a model: it catches the gadget mishandling those semantics, not
 * the semantics being modelled wrongly. The guest boot stays the real test.
 *
 * The host thread starts when the descriptors are written, runs the
 * scenarios in host_main(), prints KTAP and sends SIGTERM; the exit code is
 * the number of failed checks (capped), or 99 if the host never finished.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <linux/usb/gadgetfs.h>

#include "hzrig/wire.h"

#define SIM_DIR		"/hzrig-sim"
#define UDC_NAME	"dummy_udc"
#define RBUF_SIZE	256
#define N_EVENT		5
#define FIFO_SIZE	64
#define MAX_FDS		1024

int __real_open(const char *path, int flags, ...);
ssize_t __real_read(int fd, void *buf, size_t n);
ssize_t __real_write(int fd, const void *buf, size_t n);
int __real_close(int fd);
int __real_fcntl(int fd, int cmd, ...);
int __real_access(const char *path, int mode);
int __real_poll(struct pollfd *p, nfds_t n, int timeout);
int __real_ppoll(struct pollfd *p, nfds_t n, const struct timespec *ts,
		 const sigset_t *mask);

static pthread_mutex_t M = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t C;		/* host side waits; CLOCK_MONOTONIC */

/* ---------------------------------------------------------------- */
/* ep0 and the device: inode.c's struct dev_data, reduced */

enum {
	ST_DISABLED, ST_OPENED, ST_UNCONNECTED, ST_CONNECTED, ST_SETUP,
};

static struct {
	int		state;
	int		wake;		/* eventfd: ep0_readable() */
	struct usb_gadgetfs_event ev[N_EVENT];
	unsigned int	ev_next;
	bool		usermode_setup, setup_in, setup_can_stall;
	bool		setup_out_ready, setup_out_error, setup_abort;
	unsigned int	setup_wlength;
	int		speed;
	bool		hs;
	uint8_t		rbuf[RBUF_SIZE];
	unsigned int	actual;
	bool		req_busy;	/* queued, not given back yet */
	uint8_t		config_value;
	uint8_t		fs_eps[8][7], hs_eps[8][7];	/* from the configs */
	int		n_eps;
} dev;

/* the host's control transfer in flight on ep0 */
static struct {
	bool		active, done;
	struct usb_ctrlrequest setup;
	uint8_t		data[4096];
	unsigned int	len, actual;
	int		status;
} hx;

/* ---------------------------------------------------------------- */
/* endpoints: what dummy_hcd and inode.c's ep files do */

enum { EP_DISABLED, EP_READY, EP_ENABLED };

struct fep {
	const char	*name;
	int		wake;
	int		state;
	uint8_t		desc[7];	/* the enabled one */
	bool		halted;
	/* the gadget's one blocking request */
	bool		req_active, req_done;
	uint8_t		*req_buf;
	unsigned int	req_len, req_actual;
	int		req_status;
	/* dummy_hcd's single-request FIFO: IN data taken at once */
	uint8_t		fifo[FIFO_SIZE];
	unsigned int	fifo_len;
	bool		fifo_full;
	unsigned int	enables;	/* how often enabled */
};

/* dummy_hcd's fixed endpoints, a few more than the gadget uses */
static struct fep eps[] = {
	{ .name = "ep1in-bulk" }, { .name = "ep2out-bulk" },
	{ .name = "ep5in-int" }, { .name = "ep6in-bulk" },
	{ .name = "ep7out-bulk" }, { .name = "ep10in-int" },
};
#define N_EPS	((int)(sizeof(eps) / sizeof(eps[0])))

static struct {
	int	kind;		/* 0 none, 1 ep0, 2 ep */
	int	ep;
	bool	nonblock;
} fds[MAX_FDS];

static bool bound;
static pthread_t host_thread;
static volatile int host_finished;
static int failures, checks;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void wake(int efd)
{
	uint64_t one = 1;

	if (__real_write(efd, &one, sizeof(one)) < 0)
		abort();
}

static void drain(int efd)
{
	uint64_t v;

	while (__real_read(efd, &v, sizeof(v)) > 0)
		;
}

static int fail(int err)
{
	errno = err;
	return -1;
}

/* Sleep until @efd is woken, or a signal comes (-EINTR). M is dropped. */
static int wait_woken(int efd)
{
	struct pollfd p = { .fd = efd, .events = POLLIN };
	int r;

	pthread_mutex_unlock(&M);
	r = __real_ppoll(&p, 1, NULL, NULL);
	if (r < 0)
		r = -errno;		/* before drain() changes errno */
	pthread_mutex_lock(&M);
	drain(efd);
	return r == -EINTR ? -EINTR : 0;
}

/* ---- ep0: inode.c next_event(), ep0_readable() ---- */

static struct usb_gadgetfs_event *next_event(int type)
{
	struct usb_gadgetfs_event *e;
	unsigned int i;

	switch (type) {
	case GADGETFS_DISCONNECT:
		if (dev.state == ST_SETUP)
			dev.setup_abort = 1;
		__attribute__((fallthrough));
	case GADGETFS_CONNECT:
		dev.ev_next = 0;
		break;
	case GADGETFS_SETUP:
	case GADGETFS_SUSPEND:
		/* these events can't be repeated: the old one is dropped */
		for (i = 0; i != dev.ev_next; i++) {
			if (dev.ev[i].type != (unsigned int)type)
				continue;
			dev.ev_next--;
			if (i == dev.ev_next)
				break;
			memmove(&dev.ev[i], &dev.ev[i + 1],
				sizeof(dev.ev[0]) * (dev.ev_next - i));
		}
		break;
	}
	if (dev.ev_next >= N_EVENT)
		abort();
	e = &dev.ev[dev.ev_next++];
	memset(e, 0, sizeof(*e));
	e->type = type;
	return e;
}

static void host_ctrl_done(int status, unsigned int actual)
{
	if (!hx.active)
		return;		/* killed: dummy_hcd nukes it at next setup */
	hx.done = true;
	hx.active = false;
	hx.status = status;
	hx.actual = actual;
	pthread_cond_broadcast(&C);
}

/* OUT data stage arrives (dummy_hcd transfer(), then ep0_complete()) */
static void deliver_out_data(void)
{
	unsigned int n = hx.setup.wLength;

	memcpy(dev.rbuf, hx.data, n);
	dev.actual = n;
	dev.setup_out_error = 0;
	dev.setup_out_ready = 1;
	wake(dev.wake);
	host_ctrl_done(0, n);
}

/* inode.c gadgetfs_setup(); returns < 0 to stall, 1 if the data stage
 * is still to be delivered (OUT data, held back by the host).
 */
static int gadgetfs_setup(const struct usb_ctrlrequest *ctrl, bool hold_data)
{
	uint16_t w_value = le16toh(ctrl->wValue);
	uint16_t w_length = le16toh(ctrl->wLength);
	struct usb_gadgetfs_event *e;
	int value = -EOPNOTSUPP;

	if (w_length > RBUF_SIZE) {
		if (!(ctrl->bRequestType & USB_DIR_IN))
			return value;
		hx.setup.wLength = htole16(RBUF_SIZE);
		w_length = RBUF_SIZE;
	}
	dev.req_busy = false;		/* dummy_hcd: "stale req" */
	dev.setup_abort = 0;
	if (dev.state == ST_UNCONNECTED) {
		dev.state = ST_CONNECTED;
		e = next_event(GADGETFS_CONNECT);
		e->u.speed = dev.speed;
		wake(dev.wake);
	} else if (dev.state == ST_SETUP) {
		dev.setup_abort = 1;
	}

	switch (ctrl->bRequest) {
	case USB_REQ_GET_DESCRIPTOR:
		if (ctrl->bRequestType != USB_DIR_IN)
			goto unrecognized;
		if (w_value >> 8 == USB_DT_STRING)
			goto unrecognized;
		if (w_value >> 8 == USB_DT_DEVICE)
			value = w_length < 18 ? w_length : 18;
		break;
	case USB_REQ_SET_CONFIGURATION:
		if (ctrl->bRequestType != 0)
			goto unrecognized;
		if ((uint8_t)w_value == 0 ||
		    (uint8_t)w_value == dev.config_value)
			value = 0;
		if (value == 0 && dev.usermode_setup) {
			dev.setup_can_stall = 0;
			goto delegate;
		}
		break;
	default:
unrecognized:
		if (dev.usermode_setup) {
			dev.setup_can_stall = 1;
delegate:
			dev.setup_in = !!(ctrl->bRequestType & USB_DIR_IN);
			dev.setup_wlength = w_length;
			dev.setup_out_ready = 0;
			dev.setup_out_error = 0;
			if (!dev.setup_in && w_length)
				dev.setup_can_stall = 0;
			e = next_event(GADGETFS_SETUP);
			e->u.setup = *ctrl;
			e->u.setup.wLength = htole16(w_length);
			wake(dev.wake);
			/* dummy_hcd moves the data once setup() returned */
			if (!dev.setup_in && w_length) {
				if (hold_data)
					return 1;
				deliver_out_data();
			}
			return 0;
		}
	}
	/* answered in the kernel, unless ep0 is in setup state */
	if (value >= 0 && dev.state != ST_SETUP)
		host_ctrl_done(0, value);
	return value;
}

/*
 * usb_ep_queue(ep0) of an IN answer or a status stage. gadgetfs has one
 * ep0 request; dummy_hcd gives it back on its next tick, or drops it as
 * stale when the next setup comes. Queueing it again before: -EINVAL.
 */
static int ep0_queue(const void *buf, unsigned int len)
{
	unsigned int n;

	if (dev.req_busy)
		return -EINVAL;
	dev.req_busy = true;
	if (!hx.active)
		return 0;
	if (hx.setup.bRequestType & USB_DIR_IN) {
		n = len < hx.len ? len : hx.len;
		memcpy(hx.data, buf, n);
		host_ctrl_done(0, n);
	} else {
		host_ctrl_done(0, 0);
	}
	return 0;
}

static void ep0_set_halt(void)
{
	host_ctrl_done(-EPIPE, 0);
}

static bool valid_config(const uint8_t *c, unsigned int total)
{
	return c[1] == USB_DT_CONFIG && c[0] == USB_DT_CONFIG_SIZE &&
	       total >= USB_DT_CONFIG_SIZE && c[5] != 0 &&
	       (c[7] & USB_CONFIG_ATT_ONE) && !(c[7] & USB_CONFIG_ATT_WAKEUP);
}

/* collect the endpoint descriptors a config declares */
static int config_eps(const uint8_t *c, unsigned int total, uint8_t (*out)[7])
{
	int n = 0;

	for (unsigned int i = c[0]; i + 2 <= total && c[i]; i += c[i])
		if (c[i + 1] == USB_DT_ENDPOINT && n < 8)
			memcpy(out[n++], c + i, 7);
	return n;
}

static void *host_main(void *arg);

/* inode.c dev_config() and gadgetfs_bind() */
static ssize_t dev_config(const uint8_t *buf, size_t len)
{
	const uint8_t *k = buf + 4;
	size_t length = len - 4;
	unsigned int total;
	uint32_t tag;

	if (len < USB_DT_CONFIG_SIZE + USB_DT_DEVICE_SIZE + 4)
		return fail(EINVAL);
	memcpy(&tag, buf, 4);
	if (tag != 0 || bound)
		return fail(EINVAL);
	total = k[2] | k[3] << 8;
	if (!valid_config(k, total) || total > length - USB_DT_DEVICE_SIZE)
		return fail(EINVAL);
	dev.config_value = k[5];
	dev.n_eps = config_eps(k, total, dev.fs_eps);
	k += total;
	length -= total;
	dev.hs = k[1] == USB_DT_CONFIG;
	if (dev.hs) {
		total = k[2] | k[3] << 8;
		if (!valid_config(k, total) ||
		    total > length - USB_DT_DEVICE_SIZE)
			return fail(EINVAL);
		if (config_eps(k, total, dev.hs_eps) != dev.n_eps)
			return fail(EINVAL);
		k += total;
		length -= total;
	}
	if (length != USB_DT_DEVICE_SIZE || k[0] != USB_DT_DEVICE_SIZE ||
	    k[1] != USB_DT_DEVICE || k[17] != 1)
		return fail(EINVAL);
	if ((k[8] | k[9] << 8) != HZRIG_VID || (k[10] | k[11] << 8) !=
	    HZRIG_PID)
		return fail(EINVAL);	/* not gadgetfs, but our own check */

	/* dummy_hcd connects at high speed if the driver can */
	dev.speed = dev.hs ? USB_SPEED_HIGH : USB_SPEED_FULL;
	dev.state = ST_UNCONNECTED;
	bound = true;
	if (pthread_create(&host_thread, NULL, host_main, NULL))
		abort();
	return len;
}

static ssize_t ep0_read(bool nonblock, void *buf, size_t len)
{
	unsigned int i, n;

	if (dev.state <= ST_OPENED)
		return fail(EINVAL);
	if (dev.setup_abort) {
		dev.setup_abort = 0;
		return fail(EIDRM);
	}
	if (dev.state == ST_SETUP) {
		if (dev.setup_in) {		/* stall IN */
			ep0_set_halt();
			dev.state = ST_CONNECTED;
			return fail(EL2HLT);
		}
		if (len == 0) {			/* ack */
			int r = dev.setup_out_ready ? -EBUSY :
				ep0_queue(NULL, 0);

			dev.state = ST_CONNECTED;
			return r ? fail(-r) : 0;
		}
		if (nonblock && !dev.setup_out_ready)
			return fail(EAGAIN);
		while (!dev.setup_out_ready)
			if (wait_woken(dev.wake) < 0)
				return fail(EINTR);
		if (dev.state != ST_SETUP)
			return fail(ECANCELED);
		dev.state = ST_CONNECTED;
		if (dev.setup_out_error)
			return fail(EIO);
		n = len < dev.actual ? len : dev.actual;
		memcpy(buf, dev.rbuf, n);
		dev.setup_out_ready = 0;	/* clean_req() */
		return n;
	}

	if (len < sizeof(dev.ev[0]))
		return fail(EINVAL);
	len -= len % sizeof(dev.ev[0]);
	dev.usermode_setup = 1;
	while (dev.ev_next == 0) {
		if (nonblock)
			return fail(EAGAIN);
		if (wait_woken(dev.wake) < 0)
			return fail(EINTR);
	}
	n = len / sizeof(dev.ev[0]);
	if (dev.ev_next < n)
		n = dev.ev_next;
	for (i = 0; i < n; i++) {
		if (dev.ev[i].type == GADGETFS_SETUP) {
			dev.state = ST_SETUP;
			n = i + 1;
			break;
		}
	}
	memcpy(buf, dev.ev, n * sizeof(dev.ev[0]));
	memmove(&dev.ev[0], &dev.ev[n], sizeof(dev.ev[0]) * (dev.ev_next - n));
	dev.ev_next -= n;
	return n * sizeof(dev.ev[0]);
}

static ssize_t ep0_write(const void *buf, size_t len)
{
	if (!bound)
		return dev_config(buf, len);
	if (dev.setup_abort) {
		dev.setup_abort = 0;
		return fail(EIDRM);
	}
	if (dev.state != ST_SETUP)
		return fail(ESRCH);
	if (len > dev.setup_wlength)
		len = dev.setup_wlength;
	if (dev.setup_in) {
		int r;

		dev.state = ST_CONNECTED;
		r = ep0_queue(buf, len);
		return r ? fail(-r) : (ssize_t)len;
	}
	if (dev.setup_can_stall) {
		ep0_set_halt();
		dev.state = ST_CONNECTED;
		return fail(EL2HLT);
	}
	return fail(ESRCH);			/* "bogus ep0out stall" */
}

static short ep0_poll(void)
{
	if (dev.state <= ST_OPENED)
		return POLLIN | POLLOUT;
	if (dev.setup_abort) {
		dev.setup_abort = 0;
		return POLLHUP;
	}
	if (dev.state == ST_SETUP)
		return dev.setup_in || dev.setup_can_stall ? POLLOUT : 0;
	return dev.ev_next ? POLLIN : 0;
}

/* ---- endpoints ---- */

static bool ep_in(const struct fep *e)
{
	return e->desc[2] & USB_DIR_IN;
}

static unsigned int ep_maxp(const struct fep *e)
{
	return (e->desc[4] | e->desc[5] << 8) & 0x7ff;
}

/* inode.c ep_config() and dummy_hcd dummy_enable() */
static ssize_t ep_config(struct fep *e, const uint8_t *buf, size_t len)
{
	const uint8_t *d;
	unsigned int max;
	uint32_t tag;
	bool found = false;

	if (e->state != EP_READY)
		return fail(EL2HLT);
	if (len != 4 + 7 && len != 4 + 14)
		return fail(EINVAL);
	memcpy(&tag, buf, 4);
	if (tag != 1 || buf[4] != 7 || buf[5] != USB_DT_ENDPOINT)
		return fail(EINVAL);
	if (len == 18 && (buf[11] != 7 || buf[12] != USB_DT_ENDPOINT))
		return fail(EINVAL);
	if (!dev.speed || dev.state < ST_CONNECTED)
		return fail(EINVAL);		/* unconnected */
	if (dev.speed == USB_SPEED_HIGH && len != 18)
		return fail(EINVAL);		/* no hs descriptor */
	d = dev.speed == USB_SPEED_HIGH ? buf + 11 : buf + 4;
	max = (d[4] | d[5] << 8) & 0x7ff;
	switch (d[3] & 3) {
	case USB_ENDPOINT_XFER_BULK:
		if (strstr(e->name, "-int") || strstr(e->name, "-iso"))
			return fail(EINVAL);
		if (dev.speed == USB_SPEED_HIGH ? max != 512 :
		    (max != 8 && max != 16 && max != 32 && max != 64))
			return fail(EINVAL);
		break;
	case USB_ENDPOINT_XFER_INT:
		if (max > (dev.speed == USB_SPEED_HIGH ? 1024u : 64u))
			return fail(EINVAL);
		break;
	default:
		return fail(EINVAL);
	}
	/* ours: the endpoint must be the one the configuration declares */
	for (int i = 0; i < dev.n_eps; i++)
		if (!memcmp(dev.speed == USB_SPEED_HIGH ? dev.hs_eps[i] :
			    dev.fs_eps[i], d, 7))
			found = true;
	if (!found)
		return fail(EINVAL);
	memcpy(e->desc, d, 7);
	e->state = EP_ENABLED;
	e->halted = false;
	e->enables++;
	return len;
}

static void ep_disable(struct fep *e)
{
	if (e->req_active) {
		e->req_active = false;
		e->req_done = true;
		e->req_status = -ESHUTDOWN;
		wake(e->wake);
	}
	e->fifo_full = false;
	e->fifo_len = 0;
	e->state = EP_DISABLED;
	memset(e->desc, 0, sizeof(e->desc));
}

/* inode.c ep_io(): queue, wait, dequeue on a signal */
static ssize_t ep_io(struct fep *e, void *buf, size_t len, bool in)
{
	if (in && !e->fifo_full && !e->req_active && len <= FIFO_SIZE) {
		/* dummy_queue(): done at once */
		memcpy(e->fifo, buf, len);
		e->fifo_len = len;
		e->fifo_full = true;
		pthread_cond_broadcast(&C);
		return len;
	}
	e->req_active = true;
	e->req_done = false;
	e->req_buf = buf;
	e->req_len = len;
	e->req_actual = 0;
	e->req_status = 0;
	pthread_cond_broadcast(&C);
	while (!e->req_done) {
		if (wait_woken(e->wake) < 0 && !e->req_done) {
			e->req_active = false;	/* usb_ep_dequeue() */
			return fail(EINTR);
		}
	}
	if (e->req_status)
		return fail(-e->req_status);
	return e->req_actual;
}

static ssize_t ep_rw(struct fep *e, void *buf, size_t len, bool write)
{
	if (e->state == EP_READY && write)
		return ep_config(e, buf, len);
	if (e->state != EP_ENABLED)
		return fail(ENODEV);
	if (write != ep_in(e)) {
		/* wrong direction: halt; dummy_hcd refuses if IN is busy */
		if (!(ep_in(e) && (e->fifo_full || e->req_active)))
			e->halted = true;
		pthread_cond_broadcast(&C);
		return fail(EBADMSG);
	}
	return ep_io(e, buf, len, ep_in(e));
}

/* ---------------------------------------------------------------- */
/* the wrapped calls */

static int fake_index(const char *path)
{
	const char *name;

	if (strncmp(path, SIM_DIR "/", sizeof(SIM_DIR)))
		return -2;
	name = path + sizeof(SIM_DIR);
	if (!strcmp(name, UDC_NAME))
		return -1;
	for (int i = 0; bound && i < N_EPS; i++)
		if (!strcmp(name, eps[i].name))
			return i;
	return -3;
}

int __wrap_open(const char *path, int flags, ...)
{
	va_list ap;
	int mode = 0, idx, fd, err = 0;

	va_start(ap, flags);
	if (flags & O_CREAT)
		mode = va_arg(ap, int);
	va_end(ap);
	idx = fake_index(path);
	if (idx == -2)
		return __real_open(path, flags, mode);
	if (idx == -3)
		return fail(ENOENT);

	pthread_mutex_lock(&M);
	if (idx == -1 && dev.state != ST_DISABLED)
		err = EBUSY;
	else if (idx >= 0 && eps[idx].state != EP_DISABLED)
		err = EBUSY;
	fd = err ? -1 : __real_open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd >= MAX_FDS)
		abort();
	if (fd >= 0) {
		fds[fd].kind = idx == -1 ? 1 : 2;
		fds[fd].ep = idx;
		fds[fd].nonblock = flags & O_NONBLOCK;
		if (idx == -1)
			dev.state = ST_OPENED;
		else
			eps[idx].state = EP_READY;
	}
	pthread_mutex_unlock(&M);
	return err ? fail(err) : fd;
}

int __wrap_access(const char *path, int mode)
{
	int idx = fake_index(path);

	if (idx == -2)
		return __real_access(path, mode);
	return idx == -3 ? fail(ENOENT) : 0;
}

static bool is_fake(int fd)
{
	return fd >= 0 && fd < MAX_FDS && fds[fd].kind;
}

ssize_t __wrap_read(int fd, void *buf, size_t n)
{
	ssize_t r;

	if (!is_fake(fd))
		return __real_read(fd, buf, n);
	pthread_mutex_lock(&M);
	if (fds[fd].kind == 1)
		r = ep0_read(fds[fd].nonblock, buf, n);
	else
		r = ep_rw(&eps[fds[fd].ep], buf, n, false);
	pthread_mutex_unlock(&M);
	return r;
}

ssize_t __wrap_write(int fd, const void *buf, size_t n)
{
	ssize_t r;

	if (!is_fake(fd))
		return __real_write(fd, buf, n);
	pthread_mutex_lock(&M);
	if (fds[fd].kind == 1)
		r = ep0_write(buf, n);
	else
		r = ep_rw(&eps[fds[fd].ep], (void *)buf, n, true);
	pthread_mutex_unlock(&M);
	return r;
}

int __wrap_close(int fd)
{
	if (!is_fake(fd))
		return __real_close(fd);
	pthread_mutex_lock(&M);
	if (fds[fd].kind == 1)
		dev.state = ST_DISABLED;	/* unbinds; enough here */
	else
		ep_disable(&eps[fds[fd].ep]);
	fds[fd].kind = 0;
	pthread_mutex_unlock(&M);
	return __real_close(fd);
}

int __wrap_fcntl(int fd, int cmd, ...)
{
	va_list ap;
	long arg;

	va_start(ap, cmd);
	arg = va_arg(ap, long);
	va_end(ap);
	if (!is_fake(fd))
		return __real_fcntl(fd, cmd, arg);
	if (cmd == F_GETFL)
		return O_RDWR | (fds[fd].nonblock ? O_NONBLOCK : 0);
	if (cmd == F_SETFL) {
		fds[fd].nonblock = arg & O_NONBLOCK;
		return 0;
	}
	return fail(EINVAL);
}

static short fake_revents(int fd, short events)
{
	short m;

	if (fds[fd].kind == 1)
		m = ep0_poll();
	else
		m = POLLIN | POLLOUT;		/* DEFAULT_POLLMASK */
	return m & (events | POLLHUP | POLLERR);
}

int __wrap_ppoll(struct pollfd *p, nfds_t n, const struct timespec *ts,
		 const sigset_t *mask)
{
	struct pollfd q[8];
	uint64_t deadline = 0;
	int ready, r;

	if (n > 8)
		abort();
	if (ts)
		deadline = now_ns() + ts->tv_sec * 1000000000ull + ts->tv_nsec;
	for (;;) {
		struct timespec left, *lp = NULL;

		ready = 0;
		pthread_mutex_lock(&M);
		for (nfds_t i = 0; i < n; i++) {
			q[i] = p[i];
			p[i].revents = 0;
			if (!is_fake(p[i].fd))
				continue;
			drain(dev.wake);
			p[i].revents = fake_revents(p[i].fd, p[i].events);
			ready += !!p[i].revents;
			q[i].fd = dev.wake;
			q[i].events = POLLIN;
		}
		pthread_mutex_unlock(&M);
		if (ready) {
			/* add what the real fds have right now */
			for (nfds_t i = 0; i < n; i++) {
				if (is_fake(p[i].fd))
					continue;
				r = __real_poll(&p[i], 1, 0);
				ready += r > 0;
			}
			return ready;
		}
		if (ts) {
			uint64_t t = now_ns();
			uint64_t d = t < deadline ? deadline - t : 0;

			left.tv_sec = d / 1000000000;
			left.tv_nsec = d % 1000000000;
			lp = &left;
		}
		r = __real_ppoll(q, n, lp, mask);
		if (r <= 0)
			return r;
		ready = 0;
		for (nfds_t i = 0; i < n; i++) {
			if (is_fake(p[i].fd))
				continue;
			p[i].revents = q[i].revents;
			ready += !!q[i].revents;
		}
		if (ready)
			return ready;
		/* only a fake fd was woken: evaluate again */
	}
}

int __wrap_poll(struct pollfd *p, nfds_t n, int timeout)
{
	struct timespec ts = {
		.tv_sec = timeout / 1000,
		.tv_nsec = (timeout % 1000) * 1000000L,
	};

	return __wrap_ppoll(p, n, timeout < 0 ? NULL : &ts, NULL);
}

/* ---------------------------------------------------------------- */
/* the host: usbcore, the hzrig host driver and the HCD half of dummy_hcd */

#define VOUT	(USB_DIR_OUT | USB_TYPE_VENDOR | USB_RECIP_DEVICE)
#define VIN	(USB_DIR_IN | USB_TYPE_VENDOR | USB_RECIP_DEVICE)

static bool configured;

static void check(bool ok, const char *fmt, ...)
{
	va_list ap;

	checks++;
	if (!ok)
		failures++;
	fprintf(stderr, "%s %d - ", ok ? "ok" : "not ok", checks);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void msleep(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * dummy_hcd works on a 125 us hrtimer: an URB is looked at on the next
 * tick after submission and given back on a tick. Without this the model
 * would be harsher than the hardware (a setup could follow the previous
 * request's completion within microseconds).
 */
static void dummy_tick(void)
{
	struct timespec ts = { 0, 125000 };

	nanosleep(&ts, NULL);
}

/* One wait for any change; false once @deadline has passed. */
static bool wait_step(uint64_t deadline)
{
	struct timespec ts = {
		.tv_sec = deadline / 1000000000ull,
		.tv_nsec = deadline % 1000000000ull,
	};

	if (now_ns() >= deadline)
		return false;
	pthread_cond_timedwait(&C, &M, &ts);
	return true;
}

static bool wait_until(bool *flag, uint64_t deadline)
{
	struct timespec ts = {
		.tv_sec = deadline / 1000000000ull,
		.tv_nsec = deadline % 1000000000ull,
	};

	while (!*flag)
		if (pthread_cond_timedwait(&C, &M, &ts) == ETIMEDOUT)
			return *flag;
	return true;
}

/*
 * usb_control_msg(): returns bytes or -errno. @data_delay_ms holds the
 * OUT data stage back, as a slow controller would.
 */
static int ctrl_data(uint8_t type, uint8_t req, uint16_t value,
		     uint16_t index, void *data, uint16_t len,
		     unsigned int timeout_ms, unsigned int data_delay_ms)
{
	uint64_t deadline = now_ns() + timeout_ms * 1000000ull;
	int r;

	dummy_tick();
	pthread_mutex_lock(&M);
	memset(&hx, 0, sizeof(hx));
	hx.setup.bRequestType = type;
	hx.setup.bRequest = req;
	hx.setup.wValue = htole16(value);
	hx.setup.wIndex = htole16(index);
	hx.setup.wLength = htole16(len);
	hx.len = len;
	if (!(type & USB_DIR_IN) && len)
		memcpy(hx.data, data, len);
	hx.active = true;
	r = gadgetfs_setup(&hx.setup, data_delay_ms > 0);
	if (r < 0) {
		hx.active = false;
		pthread_mutex_unlock(&M);
		return -EPIPE;
	}
	if (r == 1) {
		pthread_mutex_unlock(&M);
		msleep(data_delay_ms);
		pthread_mutex_lock(&M);
		deliver_out_data();
	}
	if (!wait_until(&hx.done, deadline)) {
		hx.active = false;		/* usb_kill_urb() */
		pthread_mutex_unlock(&M);
		return -ETIMEDOUT;
	}
	r = hx.status ? hx.status : (int)hx.actual;
	if ((type & USB_DIR_IN) && r > 0)
		memcpy(data, hx.data, r);
	pthread_mutex_unlock(&M);
	dummy_tick();
	pthread_mutex_lock(&M);
	dev.req_busy = false;		/* given back on the tick */
	pthread_mutex_unlock(&M);
	return r;
}

static int ctrl(uint8_t type, uint8_t req, uint16_t value, void *data,
		uint16_t len, unsigned int timeout_ms)
{
	return ctrl_data(type, req, value, 0, data, len, timeout_ms, 0);
}

/* ARM with the host's start time (CLOCK_MONOTONIC ns, 0: none) */
static int arm_at(unsigned int target, unsigned int beh, uint32_t seq,
		  uint32_t delay_us, uint32_t length, uint64_t start_ns)
{
	struct hzrig_arm a = {
		.version = HZRIG_WIRE_VERSION,
		.target = target,
		.behaviour = beh,
		.seq = htole32(seq),
		.delay_us = htole32(delay_us),
		.length = htole32(length),
		.start_ns = htole64(start_ns),
	};

	int r = ctrl(VOUT, HZRIG_REQ_ARM, 0, &a, sizeof(a), 1000);

	/*
	 * A well-behaved host lets the gadget read the ARM before its next
	 * control request: gadgetfs drops a SETUP event nobody read when
	 * the next one comes (see scenario_race()).
	 */
	msleep(3);
	return r;
}

static int arm(unsigned int target, unsigned int beh, uint32_t seq,
	       uint32_t delay_us, uint32_t length)
{
	return arm_at(target, beh, seq, delay_us, length, 0);
}

static uint32_t hdr_seq(const uint8_t *b)
{
	struct hzrig_payload_hdr h;

	memcpy(&h, b, sizeof(h));
	return le32toh(h.magic) == HZRIG_PAYLOAD_MAGIC ? le32toh(h.seq) :
	       0xdeadbeef;
}

static void fill_out(uint8_t *b, unsigned int len, uint32_t seq)
{
	struct hzrig_payload_hdr h = {
		.magic = htole32(HZRIG_PAYLOAD_MAGIC),
		.seq = htole32(seq),
	};

	memset(b, 0x5a, len);
	memcpy(b, &h, len < sizeof(h) ? len : sizeof(h));
}

static struct fep *ep_by_addr(uint8_t addr)
{
	for (int i = 0; i < N_EPS; i++)
		if (eps[i].state == EP_ENABLED && eps[i].desc[2] == addr)
			return &eps[i];
	return NULL;
}

static bool ep_has_data(struct fep *e)
{
	return e->halted || e->fifo_full || (e->req_active && !e->req_done);
}

/* usb_bulk_msg()/usb_interrupt_msg() IN: bytes or -errno */
static int xfer_in(uint8_t addr, uint8_t *buf, unsigned int len,
		   unsigned int timeout_ms)
{
	uint64_t deadline = now_ns() + timeout_ms * 1000000ull;
	unsigned int got = 0, n, maxp;
	struct fep *e;

	pthread_mutex_lock(&M);
	for (;;) {
		e = ep_by_addr(addr);
		if (!e) {
			pthread_mutex_unlock(&M);
			return -EPROTO;		/* "no ep configured" */
		}
		if (!ep_has_data(e)) {
			if (!wait_step(deadline)) {
				pthread_mutex_unlock(&M);
				return -ETIMEDOUT;	/* usb_kill_urb() */
			}
			continue;
		}
		if (e->halted) {
			pthread_mutex_unlock(&M);
			return -EPIPE;
		}
		maxp = ep_maxp(e);
		if (e->fifo_full) {
			n = e->fifo_len < len - got ? e->fifo_len : len - got;
			memcpy(buf + got, e->fifo, n);
			e->fifo_full = false;
		} else {
			n = e->req_len < len - got ? e->req_len : len - got;
			memcpy(buf + got, e->req_buf, n);
			e->req_actual = n;
			e->req_done = true;
			e->req_active = false;
			wake(e->wake);
		}
		got += n;
		/* a short packet or a full buffer ends the transfer */
		if (n % maxp || n == 0 || got == len)
			break;
	}
	pthread_mutex_unlock(&M);
	return got;
}

/* usb_bulk_msg() OUT */
static int xfer_out(uint8_t addr, const uint8_t *buf, unsigned int len,
		    unsigned int timeout_ms)
{
	uint64_t deadline = now_ns() + timeout_ms * 1000000ull;
	struct fep *e;
	unsigned int n;

	pthread_mutex_lock(&M);
	for (;;) {
		e = ep_by_addr(addr);
		if (!e) {
			pthread_mutex_unlock(&M);
			return -EPROTO;
		}
		if (e->halted) {
			pthread_mutex_unlock(&M);
			return -EPIPE;
		}
		if (e->req_active && !e->req_done)
			break;
		if (!wait_step(deadline)) {
			pthread_mutex_unlock(&M);
			return -ETIMEDOUT;
		}
	}
	n = len < e->req_len ? len : e->req_len;
	memcpy(e->req_buf, buf, n);
	e->req_actual = n;
	e->req_status = len > e->req_len ? -EOVERFLOW : 0;
	e->req_done = true;
	e->req_active = false;
	wake(e->wake);
	pthread_mutex_unlock(&M);
	return n;
}

static void clear_halt(uint8_t addr)
{
	struct fep *e;

	pthread_mutex_lock(&M);
	e = ep_by_addr(addr);
	if (e)
		e->halted = false;	/* dummy_hcd, CLEAR_FEATURE(HALT) */
	pthread_mutex_unlock(&M);
}

/* bus reset: dummy_hcd stop_activity() and gadgetfs_disconnect() */
static void disconnect(void)
{
	pthread_mutex_lock(&M);
	for (int i = 0; i < N_EPS; i++) {
		struct fep *e = &eps[i];

		if (e->req_active) {
			e->req_active = false;
			e->req_done = true;
			e->req_status = -ESHUTDOWN;
			wake(e->wake);
		}
		e->fifo_full = false;
	}
	if (dev.state != ST_UNCONNECTED) {
		dev.state = ST_UNCONNECTED;
		next_event(GADGETFS_DISCONNECT);
		wake(dev.wake);
	}
	configured = false;
	pthread_mutex_unlock(&M);
}

static bool all_enabled(unsigned int min_enables)
{
	bool ok = true;

	pthread_mutex_lock(&M);
	for (int i = 0; i < 3; i++)
		ok = ok && eps[i].state == EP_ENABLED &&
		     eps[i].enables >= min_enables;
	pthread_mutex_unlock(&M);
	return ok;
}

static void enumerate(unsigned int round)
{
	uint8_t d[18];
	int r;

	r = ctrl(0x80, USB_REQ_GET_DESCRIPTOR, USB_DT_DEVICE << 8, d, 18,
		 1000);
	check(r == 18, "enumeration %u: device descriptor in the kernel (%d)",
	      round, r);
	r = ctrl(0x00, USB_REQ_SET_CONFIGURATION, 1, NULL, 0, 1000);
	check(r == 0 && all_enabled(round),
	      "enumeration %u: SET_CONFIGURATION acked after endpoints enabled"
	      " (%d)", round, r);
	configured = r == 0;
}

static uint64_t t_ms(uint64_t t0)
{
	return (now_ns() - t0) / 1000000;
}

/*
 * ep0 as the host driver uses it, step by step.
 * Long: a scenario is a script of checks read top to bottom, each step
 * building on the state the one before left.
 */
static void scenario_ep0(void)
{
	uint8_t b[256];
	uint64_t t0;
	int r;

	r = ctrl(0x80, USB_REQ_GET_DESCRIPTOR, USB_DT_STRING << 8 | 1, b, 255,
		 1000);
	check(r == 12 && b[0] == 12 && b[1] == USB_DT_STRING &&
	      !memcmp(b + 2, "h\0z\0r\0i\0g\0", 10),
	      "string 1 answered by the gadget (%d)", r);
	r = ctrl(0x80, USB_REQ_GET_DESCRIPTOR, USB_DT_STRING << 8 | 9, b, 255,
		 1000);
	check(r == -EPIPE, "unknown string stalled (%d)", r);
	r = ctrl(VOUT, 0x77, 0, NULL, 0, 1000);
	check(r == -EPIPE, "unknown vendor OUT stalled (%d)", r);
	r = ctrl(VIN, 0x77, 0, b, 8, 1000);
	check(r == -EPIPE, "unknown vendor IN stalled (%d)", r);
	r = ctrl(VOUT, HZRIG_REQ_RESET, 0, NULL, 0, 1000);
	check(r == 0, "RESET acked (%d)", r);

	r = ctrl(VIN, HZRIG_REQ_TEST_IN, 1, b, 64, 1000);
	check(r == 64 && hdr_seq(b) == 1, "unarmed TEST_IN answered (%d)", r);

	check(arm(HZRIG_TARGET_EP0_IN, HZRIG_BEH_STALL, 2, 0, 0) ==
	      (int)sizeof(struct hzrig_arm), "ARM accepted");
	r = ctrl(VIN, HZRIG_REQ_TEST_IN, 2, b, 64, 1000);
	check(r == -EPIPE, "ep0 IN STALL (%d)", r);

	arm(HZRIG_TARGET_EP0_IN, HZRIG_BEH_DELAY, 3, 30000, 0);
	t0 = now_ns();
	r = ctrl(VIN, HZRIG_REQ_TEST_IN, 3, b, 64, 1000);
	check(r == 64 && hdr_seq(b) == 3 && t_ms(t0) >= 30,
	      "ep0 IN DELAY 30 ms answered after %llu ms (%d)",
	      (unsigned long long)t_ms(t0), r);

	arm(HZRIG_TARGET_EP0_IN, HZRIG_BEH_SHORT, 4, 0, 10);
	r = ctrl(VIN, HZRIG_REQ_TEST_IN, 4, b, 64, 1000);
	check(r == 10 && hdr_seq(b) == 4, "ep0 IN SHORT 10 (%d)", r);

	/* NAK, the host gives up, its next ARM arrives while ep0 holds */
	arm(HZRIG_TARGET_EP0_IN, HZRIG_BEH_NAK, 5, 0, 0);
	t0 = now_ns();
	r = ctrl(VIN, HZRIG_REQ_TEST_IN, 5, b, 64, 50);
	check(r == -ETIMEDOUT && t_ms(t0) >= 50, "ep0 IN NAK times out (%d)",
	      r);
	r = arm(HZRIG_TARGET_EP0_IN, HZRIG_BEH_ANSWER, 6, 0, 0);
	check(r == (int)sizeof(struct hzrig_arm),
	      "ARM after a killed NAK: data stage done (%d)", r);
	msleep(5);
	r = ctrl(VIN, HZRIG_REQ_TEST_IN, 6, b, 64, 200);
	check(r == 64 && hdr_seq(b) == 6,
	      "... and that ARM was applied: TEST_IN answered (%d)", r);

	/* same, with the ARM's data stage late */
	arm(HZRIG_TARGET_EP0_IN, HZRIG_BEH_NAK, 7, 0, 0);
	r = ctrl(VIN, HZRIG_REQ_TEST_IN, 7, b, 64, 30);
	arm(HZRIG_TARGET_EP0_IN, HZRIG_BEH_NAK, 8, 0, 0);
	r = ctrl(VIN, HZRIG_REQ_TEST_IN, 8, b, 64, 30);
	check(r == -ETIMEDOUT, "second NAK in a row (%d)", r);
	{
		struct hzrig_arm a = {
			.version = HZRIG_WIRE_VERSION,
			.target = HZRIG_TARGET_EP0_IN,
			.behaviour = HZRIG_BEH_DELAY,
			.seq = htole32(9),
			.delay_us = htole32(10000),
		};

		r = ctrl_data(VOUT, HZRIG_REQ_ARM, 0, 0, &a, sizeof(a), 1000,
			      5);
	}
	msleep(5);
	t0 = now_ns();
	r = ctrl(VIN, HZRIG_REQ_TEST_IN, 9, b, 64, 500);
	check(r == 64 && hdr_seq(b) == 9 && t_ms(t0) >= 10,
	      "ARM with a late data stage after a held NAK applied (%d)", r);

	/* ep0 OUT without data stage: NAK, then RESET (no data either) */
	arm(HZRIG_TARGET_EP0_OUT, HZRIG_BEH_NAK, 10, 0, 0);
	r = ctrl(VOUT, HZRIG_REQ_TEST_OUT, 10, NULL, 0, 50);
	check(r == -ETIMEDOUT, "ep0 OUT (no data) NAK times out (%d)", r);
	r = ctrl(VOUT, HZRIG_REQ_RESET, 0, NULL, 0, 500);
	check(r == 0, "RESET arriving while ep0 holds is acked (%d)", r);
	r = ctrl(VOUT, HZRIG_REQ_TEST_OUT, 11, NULL, 0, 500);
	check(r == 0, "... RESET disarmed ep0 OUT: TEST_OUT acked (%d)", r);

	/* NAK, then a test the host did not arm: an unseen IN is stalled */
	arm(HZRIG_TARGET_EP0_IN, HZRIG_BEH_NAK, 12, 0, 0);
	r = ctrl(VIN, HZRIG_REQ_TEST_IN, 12, b, 64, 30);
	r = ctrl(VIN, HZRIG_REQ_TEST_IN, 13, b, 64, 300);
	check(r == -EPIPE, "IN arriving while ep0 holds is stalled (%d)", r);
	r = ctrl(VIN, HZRIG_REQ_TEST_IN, 14, b, 64, 300);
	check(r == 64 && hdr_seq(b) == 14, "... and ep0 works after (%d)", r);

	arm(HZRIG_TARGET_EP0_OUT, HZRIG_BEH_STALL, 15, 0, 0);
	r = ctrl(VOUT, HZRIG_REQ_TEST_OUT, 15, NULL, 0, 1000);
	check(r == -EPIPE, "ep0 OUT (no data) STALL (%d)", r);
	arm(HZRIG_TARGET_EP0_OUT, HZRIG_BEH_DELAY, 16, 20000, 0);
	t0 = now_ns();
	r = ctrl(VOUT, HZRIG_REQ_TEST_OUT, 16, NULL, 0, 1000);
	check(r == 0 && t_ms(t0) >= 20, "ep0 OUT DELAY 20 ms: %llu ms (%d)",
	      (unsigned long long)t_ms(t0), r);

	/* with a data stage the kernel answers; the gadget still reads */
	arm(HZRIG_TARGET_EP0_OUT, HZRIG_BEH_NAK, 17, 0, 0);
	fill_out(b, 32, 17);
	r = ctrl(VOUT, HZRIG_REQ_TEST_OUT, 17, b, 32, 1000);
	check(r == 32, "ep0 OUT with data cannot be NAKed (%d)", r);
	r = ctrl(VIN, HZRIG_REQ_TEST_IN, 18, b, 64, 300);
	check(r == 64, "... and its data was collected: ep0 works (%d)", r);

	/* DELAY longer than the host waits: answered late, then flushed */
	arm(HZRIG_TARGET_EP0_IN, HZRIG_BEH_DELAY, 19, 60000, 0);
	r = ctrl(VIN, HZRIG_REQ_TEST_IN, 19, b, 64, 20);
	check(r == -ETIMEDOUT, "ep0 DELAY beyond the timeout (%d)", r);
	r = arm(HZRIG_TARGET_EP0_IN, HZRIG_BEH_ANSWER, 20, 0, 0);
	msleep(5);
	r = ctrl(VIN, HZRIG_REQ_TEST_IN, 20, b, 64, 300);
	check(r == 64 && hdr_seq(b) == 20, "... next seq answered (%d)", r);
	msleep(60);
	r = ctrl(VIN, HZRIG_REQ_TEST_IN, 21, b, 64, 300);
	check(r == 64 && hdr_seq(b) == 21,
	      "... and the dead DELAY never answered later (%d)", r);

	/* invalid arms are ignored: the target stays unarmed */
	{
		struct hzrig_arm a = {
			.version = 9,
			.target = HZRIG_TARGET_EP0_IN,
			.behaviour = HZRIG_BEH_STALL,
			.seq = htole32(22),
		};

		r = ctrl(VOUT, HZRIG_REQ_ARM, 0, &a, sizeof(a), 1000);
		msleep(5);
		r = ctrl(VIN, HZRIG_REQ_TEST_IN, 22, b, 64, 300);
		check(r == 64, "ARM with a bad version ignored (%d)", r);
	}
}

#define BULK_IN		0x81
#define BULK_OUT	0x02
#define INT_IN		0x85

/*
 * The bulk and interrupt endpoints, step by step.
 * Long: a scenario is a script of checks read top to bottom, each step
 * building on the state the one before left.
 */
static void scenario_bulk(void)
{
	uint8_t b[4096];
	uint64_t t0;
	int r;

	arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_ANSWER, 100, 0, 100);
	r = xfer_in(BULK_IN, b, 100, 500);
	check(r == 100 && hdr_seq(b) == 100, "bulk IN ANSWER 100 (%d)", r);

	arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_ANSWER, 101, 0, 1024);
	r = xfer_in(BULK_IN, b, 1024, 500);
	check(r == 1024 && hdr_seq(b) == 101, "bulk IN ANSWER 1024 (%d)", r);

	arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_NAK, 102, 0, 8);
	r = xfer_in(BULK_IN, b, 8, 50);
	check(r == -ETIMEDOUT, "bulk IN NAK (%d)", r);
	arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_ANSWER, 103, 0, 8);
	r = xfer_in(BULK_IN, b, 8, 500);
	check(r == 8 && hdr_seq(b) == 103, "bulk IN after NAK (%d)", r);

	/* bulk DELAY runs from the ARM: the gadget cannot see more */
	t0 = now_ns();
	arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_DELAY, 104, 25000, 8);
	r = xfer_in(BULK_IN, b, 8, 500);
	check(r == 8 && hdr_seq(b) == 104 && t_ms(t0) >= 25,
	      "bulk IN DELAY 25 ms: %llu ms (%d)",
	      (unsigned long long)t_ms(t0), r);

	/* a DELAY the host gave up on must not answer the next seq */
	arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_DELAY, 105, 200000, 8);
	r = xfer_in(BULK_IN, b, 8, 30);
	check(r == -ETIMEDOUT, "bulk IN DELAY beyond the timeout (%d)", r);
	arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_ANSWER, 106, 0, 8);
	r = xfer_in(BULK_IN, b, 8, 500);
	check(r == 8 && hdr_seq(b) == 106, "... next seq gets its own (%d)",
	      r);
	arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_NAK, 107, 0, 8);
	r = xfer_in(BULK_IN, b, 8, 300);
	check(r == -ETIMEDOUT, "... the superseded DELAY never wrote (%d)",
	      r);

	arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_STALL, 108, 0, 0);
	r = xfer_in(BULK_IN, b, 8, 500);
	check(r == -EPIPE, "bulk IN STALL (%d)", r);
	clear_halt(BULK_IN);
	arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_ANSWER, 109, 0, 8);
	r = xfer_in(BULK_IN, b, 8, 500);
	check(r == 8 && hdr_seq(b) == 109, "bulk IN after clear halt (%d)",
	      r);

	/* SHORT of whole packets needs the ZLP to end the transfer */
	arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_SHORT, 110, 0, 512);
	r = xfer_in(BULK_IN, b, 1024, 300);
	check(r == 512 && hdr_seq(b) == 110, "bulk IN SHORT 512 + ZLP (%d)",
	      r);
	arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_SHORT, 111, 0, 5);
	r = xfer_in(BULK_IN, b, 64, 300);
	check(r == 5, "bulk IN SHORT 5 (%d)", r);

	arm(HZRIG_TARGET_BULK_OUT, HZRIG_BEH_ANSWER, 120, 0, 100);
	fill_out(b, 100, 120);
	r = xfer_out(BULK_OUT, b, 100, 500);
	check(r == 100, "bulk OUT ANSWER 100 (%d)", r);
	arm(HZRIG_TARGET_BULK_OUT, HZRIG_BEH_NAK, 121, 0, 100);
	r = xfer_out(BULK_OUT, b, 100, 50);
	check(r == -ETIMEDOUT, "bulk OUT NAK (%d)", r);
	fill_out(b, 64, 122);
	t0 = now_ns();
	arm(HZRIG_TARGET_BULK_OUT, HZRIG_BEH_DELAY, 122, 20000, 64);
	r = xfer_out(BULK_OUT, b, 64, 500);
	check(r == 64 && t_ms(t0) >= 20, "bulk OUT DELAY 20 ms: %llu (%d)",
	      (unsigned long long)t_ms(t0), r);
	arm(HZRIG_TARGET_BULK_OUT, HZRIG_BEH_STALL, 123, 0, 0);
	r = xfer_out(BULK_OUT, b, 64, 500);
	check(r == -EPIPE, "bulk OUT STALL (%d)", r);
	clear_halt(BULK_OUT);

	/* a read pending for one arm is cancelled (signal) by the next */
	arm(HZRIG_TARGET_BULK_OUT, HZRIG_BEH_ANSWER, 124, 0, 100);
	msleep(10);
	arm(HZRIG_TARGET_BULK_OUT, HZRIG_BEH_ANSWER, 125, 0, 64);
	msleep(10);
	pthread_mutex_lock(&M);
	r = eps[1].req_active ? (int)eps[1].req_len : -1;
	pthread_mutex_unlock(&M);
	check(r == 64, "pending bulk OUT read replaced by the new arm's (%d)",
	      r);
	fill_out(b, 64, 125);
	r = xfer_out(BULK_OUT, b, 64, 500);
	check(r == 64, "... which gets the data (%d)", r);

	arm(HZRIG_TARGET_INT_IN, HZRIG_BEH_ANSWER, 130, 0, 16);
	r = xfer_in(INT_IN, b, 16, 500);
	check(r == 16 && hdr_seq(b) == 130, "interrupt IN ANSWER (%d)", r);
	arm(HZRIG_TARGET_INT_IN, HZRIG_BEH_NAK, 131, 0, 16);
	r = xfer_in(INT_IN, b, 16, 50);
	check(r == -ETIMEDOUT, "interrupt IN NAK (%d)", r);

	/* RESET flushes: an answer nobody took is gone */
	arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_ANSWER, 140, 0, 8);
	msleep(10);
	r = ctrl(VOUT, HZRIG_REQ_RESET, 0, NULL, 0, 1000);
	check(r == 0, "RESET (%d)", r);
	arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_NAK, 141, 0, 8);
	r = xfer_in(BULK_IN, b, 8, 50);
	check(r == -ETIMEDOUT, "... dropped the unread answer (%d)", r);
}

/* wire v2: a DELAY is answered at start_ns + delay_us */
static void scenario_start_ns(void)
{
	uint64_t t0, start;
	uint8_t b[64];
	int r;

	/* ep0: the host started 15 ms ago: 20 ms are 5 ms from now */
	start = now_ns() - 15000000ull;
	arm_at(HZRIG_TARGET_EP0_IN, HZRIG_BEH_DELAY, 500, 20000, 0, start);
	t0 = now_ns();
	r = ctrl(VIN, HZRIG_REQ_TEST_IN, 500, b, 64, 500);
	check(r == 64 && hdr_seq(b) == 500 && now_ns() >= start + 20000000ull &&
	      t_ms(t0) < 20, "ep0 IN DELAY counts from start_ns: %llu ms "
	      "after the setup (%d)", (unsigned long long)t_ms(t0), r);

	/* bulk: start 30 ms ahead, 10 ms delay: not before 40 ms */
	t0 = now_ns();
	start = t0 + 30000000ull;
	arm_at(HZRIG_TARGET_BULK_IN, HZRIG_BEH_DELAY, 501, 10000, 8, start);
	r = xfer_in(BULK_IN, b, 8, 500);
	check(r == 8 && hdr_seq(b) == 501 && t_ms(t0) >= 40,
	      "bulk IN DELAY answered at start_ns + delay: %llu ms (%d)",
	      (unsigned long long)t_ms(t0), r);

	/* a DELAY with start_ns that a RESET overtakes never answers */
	start = now_ns() + 5000000ull;
	arm_at(HZRIG_TARGET_INT_IN, HZRIG_BEH_DELAY, 502, 20000, 16, start);
	r = xfer_in(INT_IN, b, 16, 10);
	check(r == -ETIMEDOUT, "int IN DELAY past the timeout (%d)", r);
	ctrl(VOUT, HZRIG_REQ_RESET, 0, NULL, 0, 1000);
	msleep(30);
	r = xfer_in(INT_IN, b, 16, 10);
	check(r == -ETIMEDOUT, "... no late answer after RESET (%d)", r);
}

/*
 * An answer that sits in dummy_hcd's FIFO after its transfer was given up
 * (or never started) must not reach a later seq, even without RESET.
 */
static void scenario_stale_fifo(void)
{
	uint8_t b[64];
	int r;

	/* the host armed, then re-armed a new seq before any transfer */
	arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_ANSWER, 600, 0, 8);
	msleep(5);
	arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_ANSWER, 601, 0, 8);
	r = xfer_in(BULK_IN, b, 8, 200);
	check(r == 8 && hdr_seq(b) == 601,
	      "re-armed bulk IN gets the new seq, not the unread %u (%d)",
	      r >= 8 ? hdr_seq(b) : 0, r);

	/* a late DELAY answer, then a NAK armed without RESET */
	arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_DELAY, 602, 15000, 8);
	r = xfer_in(BULK_IN, b, 8, 5);
	check(r == -ETIMEDOUT, "bulk IN DELAY 15 ms, T 5 ms (%d)", r);
	msleep(25);
	arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_NAK, 603, 0, 8);
	r = xfer_in(BULK_IN, b, 8, 20);
	check(r == -ETIMEDOUT, "... the late answer is withdrawn by the next "
	      "ARM (%d, seq %u)", r, r >= 8 ? hdr_seq(b) : 0);

	/* the same on interrupt IN, answered by the next seq */
	arm(HZRIG_TARGET_INT_IN, HZRIG_BEH_DELAY, 604, 15000, 16);
	r = xfer_in(INT_IN, b, 16, 5);
	check(r == -ETIMEDOUT, "int IN DELAY 15 ms, T 5 ms (%d)", r);
	msleep(25);
	arm(HZRIG_TARGET_INT_IN, HZRIG_BEH_ANSWER, 605, 0, 16);
	r = xfer_in(INT_IN, b, 16, 200);
	check(r == 16 && hdr_seq(b) == 605,
	      "... next int IN seq gets its own answer (%d, seq %u)", r,
	      r >= 8 ? hdr_seq(b) : 0);
}

/* A bulk IN transfer run from its own thread, as a second lane would. */
struct bg_in {
	pthread_t	thread;
	uint8_t		addr;
	unsigned int	len, timeout_ms;
	uint8_t		buf[64];
	int		r;
	uint64_t	t0, t1;
	bool		done;
};

static void *bg_in_main(void *arg)
{
	struct bg_in *x = arg;

	x->t0 = now_ns();
	x->r = xfer_in(x->addr, x->buf, x->len, x->timeout_ms);
	x->t1 = now_ns();
	__atomic_store_n(&x->done, true, __ATOMIC_RELEASE);
	return NULL;
}

static bool bg_done(struct bg_in *x)
{
	return __atomic_load_n(&x->done, __ATOMIC_ACQUIRE);
}

/*
 * Lanes: the host runs transfers on several endpoints at once and arms and
 * resets one target while another endpoint has a transfer in flight.
 */
static void scenario_lanes(void)
{
	struct bg_in x = { .addr = BULK_IN, .len = 8, .timeout_ms = 400 };
	uint8_t b[64];
	uint64_t start;
	int r;

	/* bulk IN answers 60 ms after its start; meanwhile the other lanes */
	start = now_ns();
	arm_at(HZRIG_TARGET_BULK_IN, HZRIG_BEH_DELAY, 700, 60000, 8, start);
	pthread_create(&x.thread, NULL, bg_in_main, &x);

	arm(HZRIG_TARGET_BULK_OUT, HZRIG_BEH_ANSWER, 701, 0, 64);
	fill_out(b, 64, 701);
	r = xfer_out(BULK_OUT, b, 64, 200);
	check(r == 64 && !bg_done(&x),
	      "lanes: bulk OUT answered while bulk IN waits for its DELAY (%d)",
	      r);
	arm(HZRIG_TARGET_INT_IN, HZRIG_BEH_ANSWER, 702, 0, 16);
	r = xfer_in(INT_IN, b, 16, 200);
	check(r == 16 && hdr_seq(b) == 702 && !bg_done(&x),
	      "lanes: int IN answered meanwhile (%d)", r);
	r = ctrl_data(VOUT, HZRIG_REQ_RESET, 1u << HZRIG_TARGET_INT_IN, 0,
		      NULL, 0, 1000, 0);
	check(r == 0 && !bg_done(&x),
	      "lanes: RESET of int IN alone acked, bulk IN still waiting (%d)",
	      r);
	r = ctrl(VIN, HZRIG_REQ_TEST_IN, 703, b, 64, 300);
	check(r == 64 && hdr_seq(b) == 703, "lanes: ep0 IN meanwhile (%d)", r);
	pthread_join(x.thread, NULL);
	check(x.r == 8 && hdr_seq(x.buf) == 700 &&
	      x.t1 >= start + 60000000ull,
	      "lanes: ... bulk IN got its DELAY answer at %llu ms (%d)",
	      (unsigned long long)((x.t1 - start) / 1000000), x.r);

	/* RESET of one target leaves another's unread answer alone */
	arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_ANSWER, 710, 0, 8);
	msleep(10);
	r = ctrl(VOUT, HZRIG_REQ_RESET, 1u << HZRIG_TARGET_BULK_OUT, NULL, 0,
		 1000);
	check(r == 0, "lanes: RESET of bulk OUT (%d)", r);
	r = xfer_in(BULK_IN, b, 8, 200);
	check(r == 8 && hdr_seq(b) == 710,
	      "lanes: ... bulk IN's answer survived it (%d)", r);
	arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_ANSWER, 711, 0, 8);
	msleep(10);
	r = ctrl(VOUT, HZRIG_REQ_RESET, 1u << HZRIG_TARGET_BULK_IN, NULL, 0,
		 1000);
	check(r == 0, "lanes: RESET of bulk IN (%d)", r);
	r = xfer_in(BULK_IN, b, 8, 50);
	check(r == -ETIMEDOUT, "lanes: ... dropped its unread answer (%d)", r);

	/* ep0 targets: armed state survives another target's RESET */
	arm(HZRIG_TARGET_EP0_IN, HZRIG_BEH_STALL, 720, 0, 0);
	ctrl(VOUT, HZRIG_REQ_RESET, 1u << HZRIG_TARGET_BULK_IN, NULL, 0, 1000);
	r = ctrl(VIN, HZRIG_REQ_TEST_IN, 720, b, 64, 300);
	check(r == -EPIPE, "lanes: ep0 IN arm survives a bulk IN RESET (%d)",
	      r);
	arm(HZRIG_TARGET_EP0_IN, HZRIG_BEH_STALL, 721, 0, 0);
	ctrl(VOUT, HZRIG_REQ_RESET, (1u << HZRIG_TARGET_EP0_IN) |
	     (1u << HZRIG_TARGET_EP0_OUT), NULL, 0, 1000);
	r = ctrl(VIN, HZRIG_REQ_TEST_IN, 721, b, 64, 300);
	check(r == 64 && hdr_seq(b) == 721,
	      "lanes: ... and is dropped by its own (%d)", r);

	/* a mask naming no target is refused */
	r = ctrl(VOUT, HZRIG_REQ_RESET, 1u << HZRIG_TARGET_COUNT, NULL, 0,
		 1000);
	check(r == -EPIPE, "lanes: RESET of an unknown target stalled (%d)",
	      r);
}

static void scenario_misc(void)
{
	uint8_t b[64];
	int r;

	r = ctrl(0x81, USB_REQ_GET_INTERFACE, 0, b, 1, 1000);
	check(r == 1 && b[0] == 0, "GET_INTERFACE answers alt 0 (%d)", r);
	r = ctrl(0x01, USB_REQ_SET_INTERFACE, 0, NULL, 0, 1000);
	check(r == 0 && all_enabled(2), "SET_INTERFACE 0 re-enables (%d)", r);
	r = ctrl(0x01, USB_REQ_SET_INTERFACE, 1, NULL, 0, 1000);
	check(r == -EPIPE, "SET_INTERFACE alt 1 stalled (%d)", r);
	memset(b, 0, sizeof(b));
	r = ctrl(VOUT, 0x78, 0, b, 20, 1000);
	check(r == 20, "unknown OUT with data: the kernel answered (%d)", r);
	r = ctrl(VIN, HZRIG_REQ_TEST_IN, 300, b, 64, 300);
	check(r == 64, "... and the gadget collected it (%d)", r);
}

/*
 * ARM and then the test at once, as hzrig_host does on a one-CPU guest
 * (it busy-waits for the tick, so the gadget cannot run in between):
 * gadgetfs drops the ARM's SETUP event if it was not read before the test
 * setup came. Whatever happens, ep0 must never hang and must recover.
 */
static void scenario_race(void)
{
	struct hzrig_arm a = {
		.version = HZRIG_WIRE_VERSION,
		.target = HZRIG_TARGET_EP0_IN,
		.behaviour = HZRIG_BEH_NAK,
	};
	int applied = 0, lost = 0, stalled = 0, other = 0;
	uint8_t b[64];
	int r;

	for (uint32_t seq = 400; seq < 420; seq++) {
		a.seq = htole32(seq);
		ctrl(VOUT, HZRIG_REQ_ARM, 0, &a, sizeof(a), 1000);
		r = ctrl(VIN, HZRIG_REQ_TEST_IN, seq, b, 64, 20);
		if (r == -ETIMEDOUT)
			applied++;
		else if (r == 64)
			lost++;
		else if (r == -EPIPE)
			stalled++;
		else
			other++;
	}
	fprintf(stderr, "# ARM+TEST back to back: %d applied, %d lost and "
		"answered, %d stalled\n", applied, lost, stalled);
	check(other == 0, "back-to-back ARM+TEST: only known outcomes");
	r = arm(HZRIG_TARGET_EP0_IN, HZRIG_BEH_STALL, 420, 0, 0);
	r = ctrl(VIN, HZRIG_REQ_TEST_IN, 420, b, 64, 300);
	check(r == -EPIPE, "... and the next well-spaced ARM works (%d)", r);
}

static void scenario_reconnect(void)
{
	uint8_t b[64];
	int r;

	arm(HZRIG_TARGET_EP0_IN, HZRIG_BEH_NAK, 200, 0, 0);
	arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_DELAY, 201, 500000, 8);
	ctrl(VIN, HZRIG_REQ_TEST_IN, 200, b, 64, 20);
	disconnect();
	msleep(20);
	enumerate(2);
	arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_ANSWER, 202, 0, 8);
	r = xfer_in(BULK_IN, b, 8, 500);
	check(r == 8 && hdr_seq(b) == 202, "bulk IN after reconnect (%d)", r);
	r = ctrl(VIN, HZRIG_REQ_TEST_IN, 203, b, 64, 300);
	check(r == 64 && hdr_seq(b) == 203, "ep0 after reconnect (%d)", r);
}

static void *host_main(void *arg)
{
	sigset_t all;

	(void)arg;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	fprintf(stderr, "KTAP version 1\n");
	msleep(20);		/* enumeration does not start at once */
	enumerate(1);
	if (configured) {
		scenario_ep0();
		scenario_bulk();
		scenario_start_ns();
		scenario_stale_fifo();
		scenario_lanes();
		scenario_race();
		scenario_reconnect();
		scenario_misc();
	}
	fprintf(stderr, "1..%d\n# %d of %d checks failed\n", checks, failures,
		checks);
	host_finished = 1;
	kill(getpid(), SIGTERM);
	return NULL;
}

__attribute__((constructor))
static void sim_init(void)
{
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&C, &ca);
	dev.wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	for (int i = 0; i < N_EPS; i++)
		eps[i].wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

/* the gadget's own exit code is replaced by the verdict */
__attribute__((destructor))
static void sim_exit(void)
{
	if (!host_finished) {
		fprintf(stderr, "# host scenario did not finish\n");
		_exit(99);
	}
	_exit(failures > 90 ? 90 : failures);
}
