// SPDX-License-Identifier: GPL-2.0
/*
 * The userspace paths (userpath.h): usbfs ioctls and libusb-1.0, the same
 * arming protocol as the host driver, two clocks per call.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <endian.h>
#include <libusb.h>
#include <linux/usbdevice_fs.h>

#include "userpath.h"

/* A DELAY's start: this far ahead of the ARM, and at most this late. */
#define START_GUARD_NS		4000000
#define START_SLACK_NS		1000000
/* Userspace seqs: far from the driver's, which restart at 1 on each bind. */
#define USER_SEQ_BASE		0x40000000u
#define VENDOR_OUT		(LIBUSB_ENDPOINT_OUT | LIBUSB_REQUEST_TYPE_VENDOR | \
				 LIBUSB_RECIPIENT_DEVICE)
#define VENDOR_IN		(LIBUSB_ENDPOINT_IN | LIBUSB_REQUEST_TYPE_VENDOR | \
				 LIBUSB_RECIPIENT_DEVICE)

int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_until(int64_t t)
{
	struct timespec ts = { t / 1000000000, t % 1000000000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

void userpath_init(struct userpath *u, unsigned int hz, uint64_t grid_ns)
{
	const struct libusb_version *v = libusb_get_version();

	memset(u, 0, sizeof(*u));
	u->fd = -1;
	u->mon.fd = -1;
	u->seq = USER_SEQ_BASE;
	u->tick_ns = hz ? (1000000000u + hz / 2) / hz : 0;
	u->grid_ns = u->tick_ns ? grid_ns % u->tick_ns : 0;
	snprintf(u->libusb_version, sizeof(u->libusb_version), "%u.%u.%u.%u",
		 v->major, v->minor, v->micro, v->nano);
}

static unsigned long sysfs_ul(const char *dir, const char *name, int base)
{
	char path[512], buf[32] = "";
	unsigned long v;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/bus/usb/devices/%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	v = strtoul(buf, NULL, base);
	return v;
}

/* The endpoints of interface 0, from the descriptors usbfs hands out. */
static int read_endpoints(struct userpath *u, int fd)
{
	uint8_t d[1024];
	ssize_t n = read(fd, d, sizeof(d));
	ssize_t i;

	if (n < 18)
		return -EIO;
	for (i = 18; i + 2 <= n && d[i] >= 2 && i + d[i] <= n; i += d[i]) {
		if (d[i + 1] != LIBUSB_DT_ENDPOINT || d[i] < 7)
			continue;
		if ((d[i + 3] & 3) == LIBUSB_TRANSFER_TYPE_BULK)
			*(d[i + 2] & 0x80 ? &u->ep_bulk_in : &u->ep_bulk_out) =
				d[i + 2];
		else if ((d[i + 3] & 3) == LIBUSB_TRANSFER_TYPE_INTERRUPT &&
			 d[i + 2] & 0x80)
			u->ep_int_in = d[i + 2];
	}
	return 0;
}

int usb_sysfs_find(uint16_t vid, uint16_t pid, unsigned int *busnum,
		   unsigned int *devnum, char *name, size_t namelen)
{
	struct dirent *de;
	DIR *d = opendir("/sys/bus/usb/devices");
	bool found = false;

	if (!d)
		return -errno;
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] == '.' || strchr(de->d_name, ':'))
			continue;
		if (sysfs_ul(de->d_name, "idVendor", 16) != vid ||
		    sysfs_ul(de->d_name, "idProduct", 16) != pid)
			continue;
		*busnum = sysfs_ul(de->d_name, "busnum", 10);
		*devnum = sysfs_ul(de->d_name, "devnum", 10);
		found = *busnum && *devnum && (!name ||
			(size_t)snprintf(name, namelen, "%s", de->d_name) < namelen);
	}
	closedir(d);
	return found ? 0 : -ENODEV;
}

int userpath_find(struct userpath *u, char *err, size_t errlen)
{
	int fd, ret;

	ret = usb_sysfs_find(HZRIG_VID, HZRIG_PID, &u->busnum, &u->devnum,
			     NULL, 0);
	if (ret == -ENODEV) {
		snprintf(err, errlen, "no %04x:%04x device in /sys/bus/usb/devices",
			 HZRIG_VID, HZRIG_PID);
		return ret;
	}
	if (ret) {
		snprintf(err, errlen, "/sys/bus/usb/devices: %s", strerror(-ret));
		return ret;
	}
	snprintf(u->node, sizeof(u->node), "/dev/bus/usb/%03u/%03u",
		 u->busnum, u->devnum);
	fd = open(u->node, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", u->node, strerror(errno));
		return -errno;
	}
	ret = read_endpoints(u, fd);
	close(fd);
	if (ret) {
		snprintf(err, errlen, "%s: no descriptors", u->node);
		return ret;
	}
	usbmon_close(&u->mon);
	u->mon_err = usbmon_open(&u->mon, u->busnum, u->devnum);
	return 0;
}

/* USBDEVFS_IOCTL on interface 0: USBDEVFS_DISCONNECT or USBDEVFS_CONNECT. */
static int driver_ioctl(int fd, int code)
{
	struct usbdevfs_ioctl c = { .ifno = 0, .ioctl_code = code };

	return ioctl(fd, USBDEVFS_IOCTL, &c) < 0 ? -errno : 0;
}

int userpath_acquire(struct userpath *u, char *err, size_t errlen)
{
	unsigned int ifno = 0;
	int ret;

	if (u->fd >= 0)
		return 0;
	u->fd = open(u->node, O_RDWR | O_CLOEXEC);
	if (u->fd < 0) {
		snprintf(err, errlen, "%s: %s", u->node, strerror(errno));
		return -errno;
	}
	/* ENODATA: no driver bound, nothing to detach. */
	ret = driver_ioctl(u->fd, USBDEVFS_DISCONNECT);
	if (ret && ret != -ENODATA) {
		snprintf(err, errlen, "%s: detaching hzrig_host: %s", u->node,
			 strerror(-ret));
		goto fail;
	}
	if (ioctl(u->fd, USBDEVFS_CLAIMINTERFACE, &ifno) < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: claiming interface 0: %s", u->node,
			 strerror(errno));
		goto fail;
	}
	if (!u->ctx) {
		/*
		 * No udev in the guest: no device discovery, the device comes
		 * from the node opened above (libusb_wrap_sys_device()).
		 */
		libusb_set_option(NULL, LIBUSB_OPTION_NO_DEVICE_DISCOVERY);
		ret = libusb_init(&u->ctx);
		if (ret) {
			u->ctx = NULL;
			snprintf(err, errlen, "libusb_init: %s", libusb_error_name(ret));
			ret = -EIO;
			goto fail;
		}
	}
	ret = libusb_wrap_sys_device(u->ctx, (intptr_t)u->fd, &u->handle);
	if (!ret)
		ret = libusb_claim_interface(u->handle, 0);
	if (ret) {
		snprintf(err, errlen, "libusb on %s: %s", u->node,
			 libusb_error_name(ret));
		ret = -EIO;
		goto fail;
	}
	return 0;
fail:
	userpath_release(u);
	return ret;
}

void userpath_release(struct userpath *u)
{
	unsigned int ifno = 0;

	if (u->fd < 0)
		return;
	if (u->handle) {
		libusb_release_interface(u->handle, 0);
		libusb_close(u->handle);
		u->handle = NULL;
	}
	ioctl(u->fd, USBDEVFS_RELEASEINTERFACE, &ifno);
	driver_ioctl(u->fd, USBDEVFS_CONNECT);
	close(u->fd);
	u->fd = -1;
}

int userpath_libusb_errno(int err)
{
	switch (err) {
	case LIBUSB_SUCCESS:
		return 0;
	case LIBUSB_ERROR_TIMEOUT:
		return -ETIMEDOUT;
	case LIBUSB_ERROR_PIPE:
		return -EPIPE;
	case LIBUSB_ERROR_OVERFLOW:
		return -EOVERFLOW;
	case LIBUSB_ERROR_NO_DEVICE:
		return -ENODEV;
	case LIBUSB_ERROR_INTERRUPTED:
		return -EINTR;
	case LIBUSB_ERROR_NO_MEM:
		return -ENOMEM;
	case LIBUSB_ERROR_INVALID_PARAM:
		return -EINVAL;
	case LIBUSB_ERROR_BUSY:
		return -EBUSY;
	case LIBUSB_ERROR_IO:
		return -EIO;
	default:
		return -EPROTO;
	}
}

/* A transfer's end status, as the kernel path would report it. */
static int transfer_errno(enum libusb_transfer_status st)
{
	switch (st) {
	case LIBUSB_TRANSFER_COMPLETED:
		return 0;
	case LIBUSB_TRANSFER_TIMED_OUT:
		return -ETIMEDOUT;
	case LIBUSB_TRANSFER_STALL:
		return -EPIPE;
	case LIBUSB_TRANSFER_OVERFLOW:
		return -EOVERFLOW;
	case LIBUSB_TRANSFER_NO_DEVICE:
		return -ENODEV;
	case LIBUSB_TRANSFER_CANCELLED:
		return -ECONNRESET;
	default:
		return -EIO;
	}
}

/* A synchronous control transfer through usbfs: length or -errno. */
static int usbfs_control(struct userpath *u, uint8_t type, uint8_t req,
			 uint16_t value, uint16_t index, void *data,
			 uint16_t len, unsigned int timeout)
{
	struct usbdevfs_ctrltransfer c = {
		.bRequestType = type, .bRequest = req, .wValue = value,
		.wIndex = index, .wLength = len, .timeout = timeout,
		.data = data,
	};
	int ret = ioctl(u->fd, USBDEVFS_CONTROL, &c);

	return ret < 0 ? -errno : ret;
}

static const uint8_t target_of[HZRIG_XFER_COUNT] = HZRIG_TRANSFER_TARGETS;

/* HZRIG_REQ_ARM, then HZRIG_REQ_SYNC until the gadget echoes @seq. */
static int arm(struct userpath *u, const struct hzrig_plan_case *pc,
	       uint32_t seq, int64_t start_ns)
{
	struct hzrig_arm a = hzrig_arm_make(target_of[pc->transfer],
					    pc->behaviour, seq, pc->delay_us,
					    pc->length, pc->short_length,
					    (uint64_t)start_ns);
	uint32_t echo = 0;
	int tries, ret;

	for (tries = 0; tries < HZRIG_ARM_TRIES; tries++) {
		ret = usbfs_control(u, VENDOR_OUT, HZRIG_REQ_ARM, 0, 0, &a,
				    sizeof(a), HZRIG_SETUP_TIMEOUT_MS);
		if (ret < 0)
			return ret;
		/* As the driver: let the gadget read the ARM before SYNC. */
		usleep(HZRIG_ARM_WAIT_US(tries));
		ret = usbfs_control(u, VENDOR_IN, HZRIG_REQ_SYNC, 0, 0, &echo,
				    sizeof(echo), HZRIG_SETUP_TIMEOUT_MS);
		if (ret < 0 && ret != -EPIPE)
			return ret;
		if (ret == (int)sizeof(echo) && le32toh(echo) == seq)
			return 0;
	}
	return -EPROTO;
}

static uint8_t case_ep(const struct userpath *u, uint32_t transfer)
{
	switch (transfer) {
	case HZRIG_XFER_BULK_OUT:
		return u->ep_bulk_out;
	case HZRIG_XFER_INT_IN:
		return u->ep_int_in;
	case HZRIG_XFER_CTRL_IN:
		return 0x80;
	case HZRIG_XFER_CTRL_OUT:
		return 0x00;
	default:
		return u->ep_bulk_in;
	}
}

static bool is_ctrl(uint32_t transfer)
{
	return transfer == HZRIG_XFER_CTRL_IN || transfer == HZRIG_XFER_CTRL_OUT;
}

/* OUT payloads start with the header, as the driver's (wire.h). */
static void fill_out(uint8_t *buf, uint32_t len, uint32_t seq)
{
	struct hzrig_payload_hdr hdr = {
		.magic = htole32(HZRIG_PAYLOAD_MAGIC),
		.seq = htole32(seq),
	};
	uint32_t i;

	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)i;
	memcpy(buf, &hdr, len < sizeof(hdr) ? len : sizeof(hdr));
}

struct call {
	const struct hzrig_plan_case *pc;
	uint8_t ep;
	bool in, ctrl;
	uint16_t ctrl_len;	/* control data stage (0: none) */
	unsigned int timeout;	/* what is passed */
	uint32_t seq;
	uint8_t *buf;		/* LIBUSB_CONTROL_SETUP_SIZE + data */
	int64_t t0, t1;
	int status, actual;
};

static void usbfs_call(struct userpath *u, struct call *c)
{
	uint8_t *data = c->buf + LIBUSB_CONTROL_SETUP_SIZE;
	int ret;

	if (c->ctrl) {
		c->t0 = now_ns();
		ret = usbfs_control(u, c->in ? VENDOR_IN : VENDOR_OUT,
				    c->in ? HZRIG_REQ_TEST_IN : HZRIG_REQ_TEST_OUT,
				    c->seq & 0xffff, 0, data, c->ctrl_len,
				    c->timeout);
		c->t1 = now_ns();
	} else {
		struct usbdevfs_bulktransfer b = {
			.ep = c->ep, .len = c->pc->length,
			.timeout = c->timeout, .data = data,
		};

		c->t0 = now_ns();
		ret = ioctl(u->fd, USBDEVFS_BULK, &b);
		c->t1 = now_ns();
		if (ret < 0)
			ret = -errno;
	}
	c->status = ret < 0 ? ret : 0;
	c->actual = ret < 0 ? 0 : ret;
}

static void libusb_sync_call(struct userpath *u, struct call *c)
{
	uint8_t *data = c->buf + LIBUSB_CONTROL_SETUP_SIZE;
	int ret, actual = 0;

	c->t0 = now_ns();
	if (c->ctrl)
		ret = libusb_control_transfer(u->handle,
					      c->in ? VENDOR_IN : VENDOR_OUT,
					      c->in ? HZRIG_REQ_TEST_IN :
					      HZRIG_REQ_TEST_OUT,
					      c->seq & 0xffff, 0, data,
					      c->ctrl_len, c->timeout);
	else if (c->pc->transfer == HZRIG_XFER_INT_IN)
		ret = libusb_interrupt_transfer(u->handle, c->ep, data,
						(int)c->pc->length, &actual,
						c->timeout);
	else
		ret = libusb_bulk_transfer(u->handle, c->ep, data,
					   (int)c->pc->length, &actual,
					   c->timeout);
	c->t1 = now_ns();
	if (c->ctrl) {
		c->status = ret < 0 ? userpath_libusb_errno(ret) : 0;
		c->actual = ret < 0 ? 0 : ret;
	} else {
		c->status = userpath_libusb_errno(ret);
		c->actual = actual;
	}
}

/* The async transfer's callback: the moment the program learns the end. */
static void LIBUSB_CALL async_done(struct libusb_transfer *t)
{
	struct call *c = t->user_data;

	c->t1 = now_ns();
	c->status = transfer_errno(t->status);
	c->actual = t->actual_length;
	c->pc = NULL;		/* done */
}

static void libusb_async_call(struct userpath *u, struct call *c)
{
	const struct hzrig_plan_case *pc = c->pc;
	struct libusb_transfer *t = libusb_alloc_transfer(0);
	int ret;

	if (!t) {
		c->status = -ENOMEM;
		return;
	}
	if (c->ctrl) {
		libusb_fill_control_setup(c->buf, c->in ? VENDOR_IN : VENDOR_OUT,
					  c->in ? HZRIG_REQ_TEST_IN :
					  HZRIG_REQ_TEST_OUT,
					  c->seq & 0xffff, 0, c->ctrl_len);
		libusb_fill_control_transfer(t, u->handle, c->buf, async_done,
					     c, c->timeout);
	} else if (pc->transfer == HZRIG_XFER_INT_IN) {
		libusb_fill_interrupt_transfer(t, u->handle, c->ep,
					       c->buf + LIBUSB_CONTROL_SETUP_SIZE,
					       (int)pc->length, async_done, c,
					       c->timeout);
	} else {
		libusb_fill_bulk_transfer(t, u->handle, c->ep,
					  c->buf + LIBUSB_CONTROL_SETUP_SIZE,
					  (int)pc->length, async_done, c,
					  c->timeout);
	}
	c->t0 = now_ns();
	ret = libusb_submit_transfer(t);
	if (ret) {
		c->t1 = now_ns();
		c->status = userpath_libusb_errno(ret);
		c->pc = pc;
		libusb_free_transfer(t);
		return;
	}
	while (c->pc) {
		ret = libusb_handle_events(u->ctx);
		if (ret && ret != LIBUSB_ERROR_INTERRUPTED) {
			libusb_cancel_transfer(t);
			c->status = userpath_libusb_errno(ret);
		}
	}
	c->pc = pc;
	libusb_free_transfer(t);
}

/*
 * Arm repetition @c and, for a DELAY, wait for the start announced in the
 * ARM (the gadget answers at start + delay_us); a wakeup later than
 * START_SLACK_NS is given up for a later start with a new seq. Other
 * behaviours start at a random point of the jiffy when the plan asks
 * (the driver's phase), or at once.
 */
static int arm_and_wait(struct userpath *u, struct call *c)
{
	const struct hzrig_plan_case *pc = c->pc;
	bool delay = pc->behaviour == HZRIG_BEH_DELAY;
	int tries, ret;

	for (tries = 0; tries < HZRIG_ARM_TRIES; tries++) {
		int64_t start = delay ? now_ns() + ((int64_t)START_GUARD_NS << tries) : 0;

		c->seq = ++u->seq;
		ret = arm(u, pc, c->seq, start);
		if (ret)
			return ret;
		if (!delay && (pc->flags & HZRIG_CASE_RANDOM_PHASE) && u->tick_ns) {
			int64_t now = now_ns();
			uint64_t since = ((uint64_t)now - u->grid_ns) % u->tick_ns;

			start = now + (int64_t)(u->tick_ns - since) +
				(int64_t)((uint64_t)random() % u->tick_ns);
		}
		if (!c->in)
			fill_out(c->buf + LIBUSB_CONTROL_SETUP_SIZE,
				 pc->length, c->seq);
		if (!start)
			return 0;
		sleep_until(start);
		if (!delay || now_ns() - start < START_SLACK_NS)
			return 0;
	}
	return -ETIME;
}

static void path_call(struct userpath *u, struct call *c)
{
	if (c->pc->path == HZRIG_PATH_USBFS)
		usbfs_call(u, c);
	else if (c->pc->path == HZRIG_PATH_LIBUSB_SYNC)
		libusb_sync_call(u, c);
	else
		libusb_async_call(u, c);
}

/*
 * One untimed call of the case's transfer on its path, answered at once,
 * before the timed ones. Under TCG the first run of a code path costs its
 * translation (milliseconds for a libusb transfer the first time): that is
 * QEMU's, not the timeout's. Measured before this: the first libusb-sync
 * case ended 3-6 ms late on every variant.
 */
static void warm_up(struct userpath *u, const struct call *timed)
{
	struct hzrig_plan_case pc = *timed->pc;
	struct call c = *timed;

	pc.behaviour = HZRIG_BEH_ANSWER;
	pc.delay_us = 0;
	pc.flags &= ~HZRIG_CASE_RANDOM_PHASE;
	c.pc = &pc;
	c.ctrl_len = pc.length;
	if (arm_and_wait(u, &c))
		return;
	path_call(u, &c);
}

/* The test URB of a call on @ep (for ep0: the test request with @seq). */
static int64_t urb_lifetime(struct userpath *u, uint8_t ep, bool in,
			    uint32_t seq, size_t nth)
{
	const struct usbmon_urb *m;

	if (!usbmon_drain(&u->mon))
		return -1;	/* no usbmon, or events lost */
	m = usbmon_find(&u->mon, ep,
			in ? HZRIG_REQ_TEST_IN : HZRIG_REQ_TEST_OUT,
			(int)(seq & 0xffff), nth);
	return m ? usbmon_urb_ns(m) : -1;
}

int userpath_run_case(struct userpath *u, const struct hzrig_plan_case *pc,
		      struct hzrig_sample *s, int64_t *urb_ns)
{
	static uint8_t buf[LIBUSB_CONTROL_SETUP_SIZE + HZRIG_MAX_LENGTH];
	struct call c = {
		.pc = pc, .buf = buf, .ctrl = is_ctrl(pc->transfer),
		.timeout = pc->mode == HZRIG_MODE_ZERO ? 0 : pc->timeout_ms,
	};
	uint32_t k;
	int ret;

	if (u->fd < 0)
		return -ENODEV;
	if (pc->transfer >= HZRIG_XFER_COUNT ||
	    pc->transfer == HZRIG_XFER_BULK_IN_KILLABLE ||
	    pc->length > HZRIG_MAX_LENGTH)
		return -EINVAL;
	c.ep = case_ep(u, pc->transfer);
	c.in = c.ctrl ? pc->transfer == HZRIG_XFER_CTRL_IN : !!(c.ep & 0x80);
	if (!c.ctrl && !c.ep)
		return -EOPNOTSUPP;
	/* A control OUT data stage is the kernel's to complete (wire.h). */
	c.ctrl_len = c.in || pc->behaviour == HZRIG_BEH_ANSWER ? pc->length : 0;
	ret = usbfs_control(u, VENDOR_OUT, HZRIG_REQ_RESET,
			    1u << target_of[pc->transfer], 0, NULL, 0,
			    HZRIG_SETUP_TIMEOUT_MS);
	if (ret < 0)
		return ret;
	warm_up(u, &c);
	for (k = 0; k < pc->reps; k++) {
		struct hzrig_sample *sk = &s[k];

		usbmon_drain(&u->mon);
		usbmon_reset(&u->mon);
		ret = arm_and_wait(u, &c);
		if (ret)
			return ret;
		path_call(u, &c);
		memset(sk, 0, sizeof(*sk));
		sk->elapsed_ns = c.t1 - c.t0;
		sk->status = c.status;
		sk->actual_length = (uint32_t)c.actual;
		sk->timeout_arg = (int32_t)c.timeout;
		sk->seq = c.seq;
		sk->phase_ns = u->tick_ns ? (uint32_t)(((uint64_t)c.t0 - u->grid_ns) %
						       u->tick_ns) : 0;
		if (c.status == -EPIPE && !c.ctrl) {
			unsigned int ep = c.ep;

			ioctl(u->fd, USBDEVFS_CLEAR_HALT, &ep);
		}
		urb_ns[k] = urb_lifetime(u, c.ep, c.in, c.seq, 0);
	}
	return 0;
}

void userpath_kernel_urbs(struct userpath *u, const struct hzrig_plan_case *pc,
			  const struct hzrig_sample *s, int64_t *urb_ns)
{
	bool ctrl = is_ctrl(pc->transfer);
	uint8_t ep = case_ep(u, pc->transfer);
	bool in = ctrl ? pc->transfer == HZRIG_XFER_CTRL_IN : !!(ep & 0x80);
	bool ok = usbmon_drain(&u->mon);
	uint32_t k;

	for (k = 0; k < pc->reps; k++) {
		const struct usbmon_urb *m = NULL;

		if (ok && (ctrl || ep))
			m = usbmon_find(&u->mon, ep,
					in ? HZRIG_REQ_TEST_IN : HZRIG_REQ_TEST_OUT,
					(int)(s[k].seq & 0xffff), ctrl ? 0 : k);
		urb_ns[k] = m ? usbmon_urb_ns(m) : -1;
	}
}

/* Before a kernel-path case: forget earlier URBs. */
void userpath_kernel_mark(struct userpath *u)
{
	usbmon_drain(&u->mon);
	usbmon_reset(&u->mon);
}
