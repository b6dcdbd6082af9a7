// SPDX-License-Identifier: GPL-2.0
/*
 * The model: gadgetfs's ep0 (drivers/usb/gadget/legacy/inode.c, 6.1) with
 * its states, event queue and setup_abort, and its endpoint files over the
 * parts of dummy_hcd the gadget relies on.
 */
#include "sim.h"

pthread_mutex_t sim_mutex = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t sim_cond;		/* host side waits; CLOCK_MONOTONIC */

struct sim_dev sim_dev;

struct sim_hx sim_hx;

/* ---------------------------------------------------------------- */
/* endpoints: what dummy_hcd and inode.c's ep files do */

/* dummy_hcd's fixed endpoints, a few more than the gadget uses */
struct fep sim_eps[N_EPS] = {
	{ .name = "ep1in-bulk" }, { .name = "ep2out-bulk" },
	{ .name = "ep5in-int" }, { .name = "ep6in-bulk" },
	{ .name = "ep7out-bulk" }, { .name = "ep10in-int" },
};

struct sim_fd sim_fds[MAX_FDS];

bool sim_bound;
bool sim_race_read, sim_race_in_read;
pthread_t sim_host_thread;
volatile int sim_host_finished;
bool sim_device;
int sim_failures, sim_checks;

uint64_t sim_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

void sim_wake(int efd)
{
	uint64_t one = 1;

	if (__real_write(efd, &one, sizeof(one)) < 0)
		abort();
}

void sim_drain(int efd)
{
	uint64_t v;

	while (__real_read(efd, &v, sizeof(v)) > 0)
		;
}

int sim_fail(int err)
{
	errno = err;
	return -1;
}

/* Sleep until @efd is woken, or a signal comes (-EINTR). M is dropped. */
static int wait_woken(int efd)
{
	struct pollfd p = { .fd = efd, .events = POLLIN };
	int r;

	pthread_mutex_unlock(&sim_mutex);
	r = __real_ppoll(&p, 1, NULL, NULL);
	if (r < 0)
		r = -errno;		/* before drain() changes errno */
	pthread_mutex_lock(&sim_mutex);
	sim_drain(efd);
	return r == -EINTR ? -EINTR : 0;
}

/* ---- ep0: inode.c next_event(), ep0_readable() ---- */

struct usb_gadgetfs_event *sim_next_event(int type)
{
	struct usb_gadgetfs_event *e;
	unsigned int i;

	switch (type) {
	case GADGETFS_DISCONNECT:
		if (sim_dev.state == ST_SETUP)
			sim_dev.setup_abort = 1;
		__attribute__((fallthrough));
	case GADGETFS_CONNECT:
		sim_dev.ev_next = 0;
		break;
	case GADGETFS_SETUP:
	case GADGETFS_SUSPEND:
		/* these events can't be repeated: the old one is dropped */
		for (i = 0; i != sim_dev.ev_next; i++) {
			if (sim_dev.ev[i].type != (unsigned int)type)
				continue;
			sim_dev.ev_next--;
			if (i == sim_dev.ev_next)
				break;
			memmove(&sim_dev.ev[i], &sim_dev.ev[i + 1],
				sizeof(sim_dev.ev[0]) * (sim_dev.ev_next - i));
		}
		break;
	}
	if (sim_dev.ev_next >= N_EVENT)
		abort();
	e = &sim_dev.ev[sim_dev.ev_next++];
	memset(e, 0, sizeof(*e));
	e->type = type;
	return e;
}

static void host_ctrl_done(int status, unsigned int actual)
{
	if (!sim_hx.active)
		return;		/* killed: dummy_hcd nukes it at next setup */
	sim_hx.done = true;
	sim_hx.active = false;
	sim_hx.status = status;
	sim_hx.actual = actual;
	pthread_cond_broadcast(&sim_cond);
}

/* OUT data stage arrives (dummy_hcd transfer(), then ep0_complete()) */
void sim_deliver_out_data(void)
{
	unsigned int n = sim_hx.setup.wLength;

	memcpy(sim_dev.rbuf, sim_hx.data, n);
	sim_dev.actual = n;
	sim_dev.setup_out_error = 0;
	sim_dev.setup_out_ready = 1;
	sim_wake(sim_dev.wake);
	host_ctrl_done(0, n);
}

/* inode.c gadgetfs_setup(); returns < 0 to stall, 1 if the data stage
 * is still to be delivered (OUT data, held back by the host).
 */
int sim_gadgetfs_setup(const struct usb_ctrlrequest *sim_ctrl, bool hold_data)
{
	uint16_t w_value = le16toh(sim_ctrl->wValue);
	uint16_t w_length = le16toh(sim_ctrl->wLength);
	struct usb_gadgetfs_event *e;
	int value = -EOPNOTSUPP;

	if (w_length > RBUF_SIZE) {
		if (!(sim_ctrl->bRequestType & USB_DIR_IN))
			return value;
		sim_hx.setup.wLength = htole16(RBUF_SIZE);
		w_length = RBUF_SIZE;
	}
	sim_dev.req_busy = false;		/* dummy_hcd: "stale req" */
	sim_dev.setup_abort = 0;
	if (sim_dev.state == ST_UNCONNECTED) {
		sim_dev.state = ST_CONNECTED;
		e = sim_next_event(GADGETFS_CONNECT);
		e->u.speed = sim_dev.speed;
		sim_wake(sim_dev.wake);
	} else if (sim_dev.state == ST_SETUP) {
		sim_dev.setup_abort = 1;
	}

	switch (sim_ctrl->bRequest) {
	case USB_REQ_GET_DESCRIPTOR:
		if (sim_ctrl->bRequestType != USB_DIR_IN)
			goto unrecognized;
		if (w_value >> 8 == USB_DT_STRING)
			goto unrecognized;
		if (w_value >> 8 == USB_DT_DEVICE)
			value = w_length < 18 ? w_length : 18;
		break;
	case USB_REQ_SET_CONFIGURATION:
		if (sim_ctrl->bRequestType != 0)
			goto unrecognized;
		if ((uint8_t)w_value == 0 ||
		    (uint8_t)w_value == sim_dev.config_value)
			value = 0;
		if (value == 0 && sim_dev.usermode_setup) {
			sim_dev.setup_can_stall = 0;
			goto delegate;
		}
		break;
	default:
unrecognized:
		if (sim_dev.usermode_setup) {
			sim_dev.setup_can_stall = 1;
delegate:
			sim_dev.setup_in = !!(sim_ctrl->bRequestType & USB_DIR_IN);
			sim_dev.setup_wlength = w_length;
			sim_dev.setup_out_ready = 0;
			sim_dev.setup_out_error = 0;
			if (!sim_dev.setup_in && w_length)
				sim_dev.setup_can_stall = 0;
			e = sim_next_event(GADGETFS_SETUP);
			e->u.setup = *sim_ctrl;
			e->u.setup.wLength = htole16(w_length);
			sim_wake(sim_dev.wake);
			/* dummy_hcd moves the data once setup() returned */
			if (!sim_dev.setup_in && w_length) {
				if (hold_data)
					return 1;
				sim_deliver_out_data();
			}
			return 0;
		}
	}
	/* answered in the kernel, unless ep0 is in setup state */
	if (value >= 0 && sim_dev.state != ST_SETUP)
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

	if (sim_dev.req_busy)
		return -EINVAL;
	sim_dev.req_busy = true;
	if (!sim_hx.active)
		return 0;
	if (sim_hx.setup.bRequestType & USB_DIR_IN) {
		n = len < sim_hx.len ? len : sim_hx.len;
		memcpy(sim_hx.data, buf, n);
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

void *sim_host_main(void *arg);

/* inode.c dev_config() and gadgetfs_bind() */
static ssize_t dev_config(const uint8_t *buf, size_t len)
{
	const uint8_t *k = buf + 4;
	size_t length = len - 4;
	unsigned int total;
	uint32_t tag;

	if (len < USB_DT_CONFIG_SIZE + USB_DT_DEVICE_SIZE + 4)
		return sim_fail(EINVAL);
	memcpy(&tag, buf, 4);
	if (tag != 0 || sim_bound)
		return sim_fail(EINVAL);
	total = k[2] | k[3] << 8;
	if (!valid_config(k, total) || total > length - USB_DT_DEVICE_SIZE)
		return sim_fail(EINVAL);
	sim_dev.config_value = k[5];
	sim_dev.n_eps = config_eps(k, total, sim_dev.fs_eps);
	k += total;
	length -= total;
	sim_dev.hs = k[1] == USB_DT_CONFIG;
	if (sim_dev.hs) {
		total = k[2] | k[3] << 8;
		if (!valid_config(k, total) ||
		    total > length - USB_DT_DEVICE_SIZE)
			return sim_fail(EINVAL);
		if (config_eps(k, total, sim_dev.hs_eps) != sim_dev.n_eps)
			return sim_fail(EINVAL);
		k += total;
		length -= total;
	}
	if (length != USB_DT_DEVICE_SIZE || k[0] != USB_DT_DEVICE_SIZE ||
	    k[1] != USB_DT_DEVICE || k[17] != 1)
		return sim_fail(EINVAL);
	/* not gadgetfs, but our own check (another device: its own IDs) */
	if (!sim_device && ((k[8] | k[9] << 8) != HZRIG_VID ||
				      (k[10] | k[11] << 8) != HZRIG_PID))
		return sim_fail(EINVAL);

	/* dummy_hcd connects at high speed if the driver can */
	sim_dev.speed = sim_dev.hs ? USB_SPEED_HIGH : USB_SPEED_FULL;
	sim_dev.state = ST_UNCONNECTED;
	sim_bound = true;
	if (pthread_create(&sim_host_thread, NULL, sim_host_main, NULL))
		abort();
	return len;
}

/*
 * inode.c ep0_read() drops its lock between the O_NONBLOCK check and its
 * sleep on setup_out_ready. With sim_race_read set, the next data read
 * waits right there (up to 2 s) for the host's newer setup, which clears
 * setup_out_ready again: the race that wedged ep0 (docs/robustness.md).
 */
static void race_window(void)
{
	uint64_t end = sim_now_ns() + 2000000000ull;

	sim_race_read = false;
	sim_race_in_read = true;
	while (!sim_dev.setup_abort && sim_now_ns() < end) {
		pthread_mutex_unlock(&sim_mutex);
		sim_msleep(1);
		pthread_mutex_lock(&sim_mutex);
	}
}

ssize_t sim_ep0_read(bool nonblock, void *buf, size_t len)
{
	unsigned int i, n;

	if (sim_dev.state <= ST_OPENED)
		return sim_fail(EINVAL);
	if (sim_dev.setup_abort) {
		sim_dev.setup_abort = 0;
		return sim_fail(EIDRM);
	}
	if (sim_dev.state == ST_SETUP) {
		if (sim_dev.setup_in) {		/* stall IN */
			ep0_set_halt();
			sim_dev.state = ST_CONNECTED;
			return sim_fail(EL2HLT);
		}
		if (len == 0) {			/* ack */
			int r = sim_dev.setup_out_ready ? -EBUSY :
				ep0_queue(NULL, 0);

			sim_dev.state = ST_CONNECTED;
			return r ? sim_fail(-r) : 0;
		}
		if (nonblock && !sim_dev.setup_out_ready)
			return sim_fail(EAGAIN);
		if (sim_race_read)
			race_window();
		while (!sim_dev.setup_out_ready)
			if (wait_woken(sim_dev.wake) < 0)
				return sim_fail(EINTR);
		if (sim_dev.state != ST_SETUP)
			return sim_fail(ECANCELED);
		sim_dev.state = ST_CONNECTED;
		if (sim_dev.setup_out_error)
			return sim_fail(EIO);
		n = len < sim_dev.actual ? len : sim_dev.actual;
		memcpy(buf, sim_dev.rbuf, n);
		sim_dev.setup_out_ready = 0;	/* clean_req() */
		return n;
	}

	if (len < sizeof(sim_dev.ev[0]))
		return sim_fail(EINVAL);
	len -= len % sizeof(sim_dev.ev[0]);
	sim_dev.usermode_setup = 1;
	while (sim_dev.ev_next == 0) {
		if (nonblock)
			return sim_fail(EAGAIN);
		if (wait_woken(sim_dev.wake) < 0)
			return sim_fail(EINTR);
	}
	n = len / sizeof(sim_dev.ev[0]);
	if (sim_dev.ev_next < n)
		n = sim_dev.ev_next;
	for (i = 0; i < n; i++) {
		if (sim_dev.ev[i].type == GADGETFS_SETUP) {
			sim_dev.state = ST_SETUP;
			n = i + 1;
			break;
		}
	}
	memcpy(buf, sim_dev.ev, n * sizeof(sim_dev.ev[0]));
	memmove(&sim_dev.ev[0], &sim_dev.ev[n], sizeof(sim_dev.ev[0]) * (sim_dev.ev_next - n));
	sim_dev.ev_next -= n;
	return n * sizeof(sim_dev.ev[0]);
}

ssize_t sim_ep0_write(const void *buf, size_t len)
{
	if (!sim_bound)
		return dev_config(buf, len);
	if (sim_dev.setup_abort) {
		sim_dev.setup_abort = 0;
		return sim_fail(EIDRM);
	}
	if (sim_dev.state != ST_SETUP)
		return sim_fail(ESRCH);
	if (len > sim_dev.setup_wlength)
		len = sim_dev.setup_wlength;
	if (sim_dev.setup_in) {
		int r;

		sim_dev.state = ST_CONNECTED;
		r = ep0_queue(buf, len);
		return r ? sim_fail(-r) : (ssize_t)len;
	}
	if (sim_dev.setup_can_stall) {
		ep0_set_halt();
		sim_dev.state = ST_CONNECTED;
		return sim_fail(EL2HLT);
	}
	return sim_fail(ESRCH);			/* "bogus ep0out stall" */
}

short sim_ep0_poll(void)
{
	if (sim_dev.state <= ST_OPENED)
		return POLLIN | POLLOUT;
	if (sim_dev.setup_abort) {
		sim_dev.setup_abort = 0;
		return POLLHUP;
	}
	if (sim_dev.state == ST_SETUP)
		return sim_dev.setup_in || sim_dev.setup_can_stall ? POLLOUT : 0;
	return sim_dev.ev_next ? POLLIN : 0;
}

/* ---- endpoints ---- */

static bool ep_in(const struct fep *e)
{
	return e->desc[2] & USB_DIR_IN;
}

unsigned int sim_ep_maxp(const struct fep *e)
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
		return sim_fail(EL2HLT);
	if (len != 4 + 7 && len != 4 + 14)
		return sim_fail(EINVAL);
	memcpy(&tag, buf, 4);
	if (tag != 1 || buf[4] != 7 || buf[5] != USB_DT_ENDPOINT)
		return sim_fail(EINVAL);
	if (len == 18 && (buf[11] != 7 || buf[12] != USB_DT_ENDPOINT))
		return sim_fail(EINVAL);
	if (!sim_dev.speed || sim_dev.state < ST_CONNECTED)
		return sim_fail(EINVAL);		/* unconnected */
	if (sim_dev.speed == USB_SPEED_HIGH && len != 18)
		return sim_fail(EINVAL);		/* no hs descriptor */
	d = sim_dev.speed == USB_SPEED_HIGH ? buf + 11 : buf + 4;
	max = (d[4] | d[5] << 8) & 0x7ff;
	switch (d[3] & 3) {
	case USB_ENDPOINT_XFER_BULK:
		if (strstr(e->name, "-int") || strstr(e->name, "-iso"))
			return sim_fail(EINVAL);
		if (sim_dev.speed == USB_SPEED_HIGH ? max != 512 :
		    (max != 8 && max != 16 && max != 32 && max != 64))
			return sim_fail(EINVAL);
		break;
	case USB_ENDPOINT_XFER_INT:
		if (max > (sim_dev.speed == USB_SPEED_HIGH ? 1024u : 64u))
			return sim_fail(EINVAL);
		break;
	default:
		return sim_fail(EINVAL);
	}
	/* ours: the endpoint must be the one the configuration declares */
	for (int i = 0; i < sim_dev.n_eps; i++)
		if (!memcmp(sim_dev.speed == USB_SPEED_HIGH ? sim_dev.hs_eps[i] :
			    sim_dev.fs_eps[i], d, 7))
			found = true;
	if (!found)
		return sim_fail(EINVAL);
	memcpy(e->desc, d, 7);
	e->state = EP_ENABLED;
	e->halted = false;
	e->enables++;
	return len;
}

void sim_ep_disable(struct fep *e)
{
	if (e->req_active) {
		e->req_active = false;
		e->req_done = true;
		e->req_status = -ESHUTDOWN;
		sim_wake(e->wake);
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
		pthread_cond_broadcast(&sim_cond);
		return len;
	}
	e->req_active = true;
	e->req_done = false;
	e->req_buf = buf;
	e->req_len = len;
	e->req_actual = 0;
	e->req_status = 0;
	pthread_cond_broadcast(&sim_cond);
	while (!e->req_done) {
		if (wait_woken(e->wake) < 0 && !e->req_done) {
			e->req_active = false;	/* usb_ep_dequeue() */
			return sim_fail(EINTR);
		}
	}
	if (e->req_status)
		return sim_fail(-e->req_status);
	return e->req_actual;
}

ssize_t sim_ep_rw(struct fep *e, void *buf, size_t len, bool write)
{
	if (e->state == EP_READY && write)
		return ep_config(e, buf, len);
	if (e->state != EP_ENABLED)
		return sim_fail(ENODEV);
	if (write != ep_in(e)) {
		/* wrong direction: halt; dummy_hcd refuses if IN is busy */
		if (!(ep_in(e) && (e->fifo_full || e->req_active)))
			e->halted = true;
		pthread_cond_broadcast(&sim_cond);
		return sim_fail(EBADMSG);
	}
	return ep_io(e, buf, len, ep_in(e));
}
