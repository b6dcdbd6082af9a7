// SPDX-License-Identifier: GPL-2.0
/*
 * hzrig-rawdev - many devices described as data, presented at once through
 * raw-gadget, one per dummy_hcd instance, for the driver sweep
 * (docs/sweep.md).
 *
 *   hzrig-rawdev [-k K] [-w PASSES] [-d MS] [-u UDC_BASE] [-l LOG] [-c FILE]
 *                DEVICE_FILE...
 *
 * Device file i goes to UDC "dummy_udc.<UDC_BASE + i>" (dummy_hcd loaded
 * with num= at least that many). Unlike gadgetfs, raw-gadget hands every
 * ep0 request to userspace, so this program answers enumeration itself:
 * GET_DESCRIPTOR (device, configuration), SET_CONFIGURATION,
 * GET_CONFIGURATION, SET_INTERFACE, GET_INTERFACE, GET_STATUS and
 * CLEAR/SET_FEATURE, as a device does; string and other descriptors are
 * refused (STALL). Once configured, a class or vendor request is decided
 * by the device file's request line when one matches and says answer or
 * stall; otherwise (a "nak" line counts as none) the first K (default 2)
 * are NAKed (never
 * answered: the host's call waits for its timeout) and the rest STALLed.
 * K = 0 refuses everything at once (the sweep's stall pass). With -d MS
 * (the unplug pass, on a debug kernel), a device is unplugged MS
 * milliseconds into its first NAKed request (control, bulk or interrupt),
 * while the driver waits on it: its raw-gadget file is closed, so
 * dummy_hcd reports a disconnect.
 *
 * Bulk and interrupt endpoints are enabled but never given a request, so a
 * transfer on them NAKs. A gadget does not see a transfer it has not
 * answered, so a thread watches usbmon (/dev/usbmon0, every bus) for the
 * host's submissions on each device's bus: they count toward the same K
 * as its control requests, and once K are spent the endpoint is halted
 * (USB_RAW_IOCTL_EP_SET_HALT), so that transfer and the next end at once
 * with a STALL (-EPIPE), as a control request would. A clear-halt from the
 * host is answered by dummy_hcd itself; the next transfer is halted again.
 *
 * Every request, with what was done, is a line of LOG (default stdout):
 *   rawdev=I t_us=T type=0xTT request=0xRR value=V index=X length=L action=A
 * where T is CLOCK_MONOTONIC in microseconds and A is answer, nak, stall or
 * unplug (the request the device was unplugged under); a bulk or
 * interrupt transfer the watcher saw (at most EP_LINES_MAX an endpoint):
 *   rawdev=I t_us=T ep=0xEE xfer=bulk|int action=nak|stall|unplug
 * A NAKed request ends when the host gives up and sends the next SETUP;
 * raw-gadget needs kernel/patches/0005-* to take that SETUP (docs/sweep.md).
 *
 * A looping driver is contained (loop.h): the watcher counts each
 * device's refusals (transfers ended in an error, clear-halts); past
 * HZG_LOOP_RATE a second for HZG_LOOP_SECS seconds the device is
 * unplugged, and its line says so:
 *   rawdev=I t_us=T contain=loop count=N since_us=T0 ep=0xEE clear_halts=C
 * With -c FILE the guest asks for the same of a device whose driver floods
 * the kernel log, or makes synchronous calls without end: a line "unplug
 * I COUNT SINCE_US [flood|calls]" appended to FILE gives
 *   rawdev=I t_us=T contain=flood|calls count=COUNT since_us=SINCE_US
 * With -w PASSES (the walk, loop.h) K gives way: pass p answers the
 * counted requests 1 .. p-1 (zeros of the length asked for, a bulk or
 * interrupt transfer is stalled: the device has no data for it), NAKs
 * request p and stalls the rest; once request p is over and the device
 * quiet, it is plugged in again (its raw-gadget file closed and opened
 * anew) and its driver probes again, for pass p + 1:
 *   rawdev=I t_us=T walk=replug pass=P
 * until a pass makes fewer than p requests, PASSES passes or the walk's
 * time is spent:
 *   rawdev=I t_us=T walk=done passes=P
 * SIGTERM or SIGINT ends it.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/usb/ch9.h>
#include <linux/usb/raw_gadget.h>

#include "device_file.h"
#include "loop.h"
#include "usbmon.h"

#define RAWDEV_MAX	32	/* dummy_hcd's num= limit */
#define DATA_MAX	4096
#define EP_SLOTS	32	/* endpoint number, and 16 more for IN */
#define EP_LINES_MAX	8	/* log lines per endpoint: a resubmitting driver */

struct rawdev {
	unsigned int index, udc;
	bool hs;		/* high speed, unless a bulk endpoint is < 512 */
	const char *path;
	struct hzg_device_file dev;
	int fd;
	bool configured, unplugged, unplug_begun;
	volatile sig_atomic_t unplug_now;	/* set by unplug_later() */
	uint8_t unplug_ep, unplug_xfer;	/* the transfer unplugged under */
	unsigned int naked;
	uint8_t alt[HZG_DEV_MAX_INTF];	/* by interface number order */
	pthread_t thread;
	/*
	 * lock guards what the usbmon watcher shares with serve(): fd (the
	 * unplug closes it), configured, naked, ep_handle and ep_lines.
	 */
	pthread_mutex_t lock;
	unsigned int busnum;		/* the host side's bus */
	int ep_handle[EP_SLOTS];	/* USB_RAW_IOCTL_EP_ENABLE's; -1 none */
	unsigned int ep_lines[EP_SLOTS];
	/* the watcher's alone: the driver's refusals, for a loop */
	struct hzg_loop loop;
	uint8_t refused_ep;		/* the last endpoint refused on */
	unsigned int clear_halts;
	/*
	 * A contained device: why ("loop", "flood"), how many, since when;
	 * set before unplug_now, read by serve() when it unplugs.
	 */
	const char *contain;
	unsigned int contain_count;
	uint64_t contain_since_us;
	volatile sig_atomic_t contained;	/* once: loop or flood */
	/* the walk (-w): under lock, but for replug_now */
	struct hzg_walk walk;
	bool walk_done;
	volatile sig_atomic_t replug_now;
};

struct ep0_io {
	struct usb_raw_ep_io io;
	uint8_t data[DATA_MAX];
};

struct event_buf {
	struct usb_raw_event ev;
	uint8_t data[sizeof(struct usb_ctrlrequest)];
};

static unsigned int nak_first = 2;
static unsigned int walk_passes;	/* -w: 0, no walk */
static unsigned int unplug_ms;		/* 0: no unplug pass */
static FILE *logf;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static void note(const struct rawdev *r, const struct usb_ctrlrequest *c,
		 const char *action)
{
	pthread_mutex_lock(&log_lock);
	fprintf(logf, "rawdev=%u t_us=%llu type=0x%02x request=0x%02x value=%u index=%u length=%u action=%s\n",
		r->index, (unsigned long long)mono_us(), c->bRequestType,
		c->bRequest, le16toh(c->wValue), le16toh(c->wIndex),
		le16toh(c->wLength), action);
	fflush(logf);
	pthread_mutex_unlock(&log_lock);
}

static void note_ep(const struct rawdev *r, uint8_t ep, uint8_t xfer,
		    const char *action)
{
	pthread_mutex_lock(&log_lock);
	fprintf(logf, "rawdev=%u t_us=%llu ep=0x%02x xfer=%s action=%s\n",
		r->index, (unsigned long long)mono_us(), ep,
		xfer == 1 ? "int" : "bulk", action);
	fflush(logf);
	pthread_mutex_unlock(&log_lock);
}

static void note_contain(const struct rawdev *r)
{
	pthread_mutex_lock(&log_lock);
	fprintf(logf, "rawdev=%u t_us=%llu contain=%s count=%u since_us=%llu",
		r->index, (unsigned long long)mono_us(), r->contain,
		r->contain_count, (unsigned long long)r->contain_since_us);
	if (!strcmp(r->contain, "loop"))
		fprintf(logf, " ep=0x%02x clear_halts=%u", r->refused_ep,
			r->clear_halts);
	fputc('\n', logf);
	fflush(logf);
	pthread_mutex_unlock(&log_lock);
}

static void say(const struct rawdev *r, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&log_lock);
	fprintf(logf, "rawdev=%u note=\"", r->index);
	va_start(ap, fmt);
	vfprintf(logf, fmt, ap);
	va_end(ap);
	fprintf(logf, "\"\n");
	fflush(logf);
	pthread_mutex_unlock(&log_lock);
}

/* The data stage of an IN request: at most wLength bytes of @p. */
static int ep0_in(struct rawdev *r, const struct usb_ctrlrequest *c,
		  const void *p, size_t len)
{
	struct ep0_io x = { 0 };
	size_t want = le16toh(c->wLength);

	if (len > want)
		len = want;
	if (len > DATA_MAX)
		len = DATA_MAX;
	x.io.ep = 0;
	x.io.length = (uint32_t)len;
	memcpy(x.data, p, len);
	return ioctl(r->fd, USB_RAW_IOCTL_EP0_WRITE, &x) < 0 ? -errno : 0;
}

/* The data stage of an OUT request (or its status stage when wLength 0). */
static int ep0_out(struct rawdev *r, const struct usb_ctrlrequest *c)
{
	struct ep0_io x = { 0 };

	x.io.ep = 0;
	x.io.length = le16toh(c->wLength) < DATA_MAX ? le16toh(c->wLength) :
		      DATA_MAX;
	return ioctl(r->fd, USB_RAW_IOCTL_EP0_READ, &x) < 0 ? -errno : 0;
}

static int ep0_ack(struct rawdev *r, const struct usb_ctrlrequest *c)
{
	if (c->bRequestType & USB_DIR_IN)
		return ep0_in(r, c, NULL, 0);
	return ep0_out(r, c);
}

static int ep0_stall(struct rawdev *r)
{
	return ioctl(r->fd, USB_RAW_IOCTL_EP0_STALL, 0) < 0 ? -errno : 0;
}

static unsigned int ep_slot(uint8_t address)
{
	return (address & 0x0f) | (address & USB_DIR_IN ? 16 : 0);
}

/* Enable the endpoints of every interface's alternate setting 0. */
static int configure(struct rawdev *r)
{
	for (size_t i = 0; i < r->dev.n_intf; i++) {
		const struct hzg_dev_intf *in = &r->dev.intf[i];

		if (in->alt)
			continue;
		for (unsigned int e = 0; e < in->n_ep; e++) {
			const struct hzg_dev_ep *ep = &r->dev.ep[in->first_ep + e];
			struct usb_endpoint_descriptor d = {
				.bLength = USB_DT_ENDPOINT_SIZE,
				.bDescriptorType = USB_DT_ENDPOINT,
				.bEndpointAddress = ep->address,
				.bmAttributes = ep->attributes,
				.wMaxPacketSize = htole16(r->hs ? ep->hs_maxp : ep->fs_maxp),
				.bInterval = r->hs ? ep->hs_interval : ep->fs_interval,
			};

			int h = ioctl(r->fd, USB_RAW_IOCTL_EP_ENABLE, &d);

			if (h < 0)
				say(r, "endpoint 0x%02x: enable: %s",
				    ep->address, strerror(errno));
			else
				r->ep_handle[ep_slot(ep->address)] = h;
		}
	}
	if (ioctl(r->fd, USB_RAW_IOCTL_VBUS_DRAW, 50) < 0 ||
	    ioctl(r->fd, USB_RAW_IOCTL_CONFIGURE, 0) < 0)
		return -errno;
	return 0;
}

/* Chapter 9's requests: true when handled (answered or refused). */
static bool standard(struct rawdev *r, const struct usb_ctrlrequest *c)
{
	uint8_t buf[HZG_DEV_MAX_BYTES];
	uint16_t value = le16toh(c->wValue), index = le16toh(c->wIndex);
	size_t n;
	int ret = -EOPNOTSUPP;

	if ((c->bRequestType & USB_TYPE_MASK) != USB_TYPE_STANDARD)
		return false;
	r->walk.active_us = mono_us();
	switch (c->bRequest) {
	case USB_REQ_GET_DESCRIPTOR:
		if (value >> 8 == USB_DT_DEVICE)
			n = hzg_dev_device_desc(&r->dev, buf, sizeof(buf));
		else if (value >> 8 == USB_DT_CONFIG && !(value & 0xff))
			n = hzg_dev_config_desc(&r->dev, buf, sizeof(buf), r->hs);
		else
			n = 0;
		if (n)
			ret = ep0_in(r, c, buf, n);
		break;
	case USB_REQ_SET_CONFIGURATION:
		pthread_mutex_lock(&r->lock);
		ret = (value & 0xff) == 1 && !r->configured ? configure(r) : 0;
		if (!ret && (value & 0xff) == 1)
			r->configured = true;
		pthread_mutex_unlock(&r->lock);
		if (!ret)
			ret = ep0_ack(r, c);
		break;
	case USB_REQ_GET_CONFIGURATION:
		buf[0] = r->configured;
		ret = ep0_in(r, c, buf, 1);
		break;
	case USB_REQ_SET_INTERFACE:
		if (hzg_dev_has_alt(&r->dev, index, value)) {
			if (index < HZG_DEV_MAX_INTF)
				r->alt[index] = (uint8_t)value;
			ret = ep0_ack(r, c);
		}
		break;
	case USB_REQ_GET_INTERFACE:
		buf[0] = index < HZG_DEV_MAX_INTF ? r->alt[index] : 0;
		ret = ep0_in(r, c, buf, 1);
		break;
	case USB_REQ_GET_STATUS:
		buf[0] = buf[1] = 0;
		ret = ep0_in(r, c, buf, 2);
		break;
	case USB_REQ_CLEAR_FEATURE:
	case USB_REQ_SET_FEATURE:
		ret = ep0_ack(r, c);
		break;
	}
	if (ret == -EOPNOTSUPP) {
		ep0_stall(r);
		note(r, c, "stall");
	} else {
		if (ret)
			say(r, "answering request 0x%02x: %s", c->bRequest,
			    strerror(-ret));
		note(r, c, "answer");
	}
	return true;
}

static const uint8_t zeros[DATA_MAX];

/*
 * The walk's word on the next counted request of @r (r->lock held): a NAK
 * is the pass's one, pending until the host gives up (watch_usbmon()).
 */
static enum hzg_dev_action walk_decide(struct rawdev *r)
{
	switch (hzg_walk_action(r->walk.pass, ++r->walk.in_pass)) {
	case HZG_WALK_ANSWER:
		return HZG_DEV_ANSWER;
	case HZG_WALK_NAK:
		r->walk.nak_pending = true;
		return HZG_DEV_NAK;
	default:
		return HZG_DEV_STALL;
	}
}

/* A class or vendor request, once configured: the file's rule, or K NAKs. */
static void other(struct rawdev *r, const struct usb_ctrlrequest *c)
{
	const struct hzg_dev_rule *rule = hzg_dev_match(&r->dev, c);
	enum hzg_dev_action a;
	int ret = 0;

	/*
	 * A file's "nak" names a request the sweep NAKs anyway: it counts
	 * toward K like any other, so that K = 0 stalls it too.
	 */
	bool unplug = false;

	pthread_mutex_lock(&r->lock);
	r->walk.active_us = mono_us();
	if (rule && rule->action != HZG_DEV_NAK)
		a = rule->action;
	else if (walk_passes)
		a = walk_decide(r);
	else if (r->naked < nak_first)
		a = HZG_DEV_NAK;
	else
		a = HZG_DEV_STALL;
	if (a == HZG_DEV_NAK) {
		r->naked++;
		/* the first NAKed request is the one unplugged under */
		unplug = unplug_ms && !r->unplug_begun;
		r->unplug_begun |= unplug;
	}
	pthread_mutex_unlock(&r->lock);
	switch (a) {
	case HZG_DEV_NAK:
		note(r, c, "nak");
		if (unplug) {
			/* the driver is now waiting on this request */
			usleep(unplug_ms * 1000);
			note(r, c, "unplug");
			pthread_mutex_lock(&r->lock);
			close(r->fd);
			r->fd = -1;
			r->unplugged = true;
			pthread_mutex_unlock(&r->lock);
		}
		return;
	case HZG_DEV_ANSWER:
		/* the walk's answers: zeros of the length asked for */
		if (c->bRequestType & USB_DIR_IN)
			ret = rule && rule->action == HZG_DEV_ANSWER ?
			      ep0_in(r, c, rule->data, rule->len) :
			      ep0_in(r, c, zeros, sizeof(zeros));
		else
			ret = ep0_out(r, c);
		note(r, c, "answer");
		break;
	case HZG_DEV_STALL:
		ret = ep0_stall(r);
		note(r, c, "stall");
		break;
	}
	if (ret)
		say(r, "request 0x%02x: %s", c->bRequest, strerror(-ret));
}

/* unplug_later()'s, contain()'s: only serve() closes the file it waits in */
static void unplug_now(struct rawdev *r)
{
	if (r->contain)
		note_contain(r);
	else
		note_ep(r, r->unplug_ep, r->unplug_xfer, "unplug");
	pthread_mutex_lock(&r->lock);
	close(r->fd);
	r->fd = -1;
	r->unplugged = true;
	pthread_mutex_unlock(&r->lock);
}

/*
 * The walk's next pass (watch_usbmon() asked): the device unplugged and
 * plugged in again, as it was before SET_CONFIGURATION. 0, or -1 when it
 * could not be plugged in again (the walk ends there).
 */
static int replug(struct rawdev *r, struct usb_raw_init *init)
{
	int fd;

	/* replug_now stays set until the new file is in: walk_step() waits */
	pthread_mutex_lock(&r->lock);
	close(r->fd);
	r->fd = -1;
	r->configured = false;
	memset(r->ep_handle, -1, sizeof(r->ep_handle));
	memset(r->ep_lines, 0, sizeof(r->ep_lines));
	memset(r->alt, 0, sizeof(r->alt));
	r->walk.pass++;
	r->walk.in_pass = 0;
	r->walk.nak_pending = false;
	r->walk.pass_us = r->walk.active_us = mono_us();
	pthread_mutex_unlock(&r->lock);
	pthread_mutex_lock(&log_lock);
	fprintf(logf, "rawdev=%u t_us=%llu walk=replug pass=%u\n", r->index,
		(unsigned long long)mono_us(), r->walk.pass);
	fflush(logf);
	pthread_mutex_unlock(&log_lock);
	fd = open("/dev/raw-gadget", O_RDWR | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, USB_RAW_IOCTL_INIT, init) < 0 ||
	    ioctl(fd, USB_RAW_IOCTL_RUN, 0) < 0) {
		say(r, "walk: plugging in again: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		pthread_mutex_lock(&r->lock);
		r->unplugged = true;
		r->replug_now = 0;
		pthread_mutex_unlock(&r->lock);
		return -1;
	}
	pthread_mutex_lock(&r->lock);
	r->fd = fd;
	r->replug_now = 0;
	pthread_mutex_unlock(&r->lock);
	return 0;
}

static void *serve(void *arg)
{
	struct rawdev *r = arg;
	struct usb_raw_init init = { 0 };
	struct event_buf e;

	/*
	 * A high-speed bulk endpoint takes 512-byte packets only: a device
	 * file that says less (orinoco_usb's 64) is a full-speed device.
	 */
	r->hs = true;
	for (size_t i = 0; i < r->dev.n_ep; i++)
		if ((r->dev.ep[i].attributes & USB_ENDPOINT_XFERTYPE_MASK) ==
		    USB_ENDPOINT_XFER_BULK && r->dev.ep[i].hs_maxp != 512)
			r->hs = false;
	init.speed = r->hs ? USB_SPEED_HIGH : USB_SPEED_FULL;

	snprintf((char *)init.driver_name, sizeof(init.driver_name), "dummy_udc");
	snprintf((char *)init.device_name, sizeof(init.device_name),
		 "dummy_udc.%u", r->udc);
	if (ioctl(r->fd, USB_RAW_IOCTL_INIT, &init) < 0 ||
	    ioctl(r->fd, USB_RAW_IOCTL_RUN, 0) < 0) {
		say(r, "%s on dummy_udc.%u: %s", r->path, r->udc, strerror(errno));
		return NULL;
	}
	say(r, "%s on dummy_udc.%u, %04x:%04x", r->path, r->udc,
	    r->dev.vendor, r->dev.product);
	for (;;) {
		const struct usb_ctrlrequest *c = (const void *)e.ev.data;

		memset(&e, 0, sizeof(e));
		e.ev.length = sizeof(e.data);
		/* a wake-up that came while a request was being served */
		if (r->unplug_now) {
			unplug_now(r);
			return NULL;
		}
		if (r->replug_now && replug(r, &init))
			return NULL;
		if (ioctl(r->fd, USB_RAW_IOCTL_EVENT_FETCH, &e) < 0) {
			if (errno == EINTR && r->unplug_now) {
				unplug_now(r);
				return NULL;
			}
			if (errno == EINTR)
				continue;
			say(r, "event: %s", strerror(errno));
			return NULL;
		}
		if (e.ev.type != USB_RAW_EVENT_CONTROL)
			continue;
		if (e.ev.length < sizeof(*c))
			continue;
		if (!standard(r, c)) {
			if (r->configured) {
				other(r, c);
			} else {
				ep0_stall(r);
				note(r, c, "stall");
			}
		}
		if (r->unplugged)
			return NULL;
	}
	return NULL;
}

/*
 * The host side of dummy_udc.@udc: the bus of dummy_hcd.@udc's root hub
 * (/sys/devices/platform/dummy_hcd.N/usbB); dummy_hcd numbers its buses in
 * order, so UDC N + 1 when sysfs does not say.
 */
static unsigned int bus_of(unsigned int udc)
{
	char path[64];
	unsigned int bus = 0;
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/devices/platform/dummy_hcd.%u", udc);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		char *end;
		unsigned long b;

		if (strncmp(e->d_name, "usb", 3))
			continue;
		b = strtoul(e->d_name + 3, &end, 10);
		if (*end || !b || b > 0xffff)
			continue;
		if (!bus || b < bus)
			bus = (unsigned int)b;
	}
	if (d)
		closedir(d);
	return bus ? bus : udc + 1;
}

static void *unplug_timer(void *arg)
{
	struct rawdev *r = arg;

	usleep(unplug_ms * 1000);
	r->unplug_now = 1;
	/* serve() is in USB_RAW_IOCTL_EVENT_FETCH: EINTR brings it out */
	pthread_kill(r->thread, SIGUSR1);
	return NULL;
}

/*
 * Unplug @r unplug_ms from now, while its driver waits on a bulk or
 * interrupt transfer: only serve(), which sits in the file's ioctl, can
 * close it so that raw-gadget lets go of the device, so a timer wakes it.
 */
static void unplug_later(struct rawdev *r)
{
	pthread_t t;
	pthread_attr_t a;

	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &a, unplug_timer, r))
		say(r, "unplug: thread: %s", strerror(errno));
	pthread_attr_destroy(&a);
}

/*
 * Unplug @r now, its driver looping (@why "loop") or flooding the log
 * ("flood"): @count of it since @since_us. Once a device.
 */
static void contain(struct rawdev *r, const char *why, unsigned int count,
		    uint64_t since_us)
{
	pthread_mutex_lock(&r->lock);
	if (r->contained || r->unplugged || r->fd < 0) {
		pthread_mutex_unlock(&r->lock);
		return;
	}
	r->contained = 1;
	r->contain_count = count;
	r->contain_since_us = since_us;
	r->contain = why;
	r->unplug_now = 1;
	pthread_mutex_unlock(&r->lock);
	pthread_kill(r->thread, SIGUSR1);
}

struct watch {
	struct rawdev *devs;
	unsigned int n;
};

/* A refusal the host saw from @r (loop.h): a loop is contained. */
static void refused(struct rawdev *r, uint8_t ep)
{
	r->refused_ep = ep;
	if (hzg_loop_note(&r->loop, mono_us(), HZG_LOOP_RATE, HZG_LOOP_SECS))
		contain(r, "loop", r->loop.total, r->loop.hot_us);
}

/*
 * A host's bulk or interrupt submission to one of our devices: within the
 * device's K it NAKs (nothing to do: no request is queued), after it the
 * endpoint is halted, so dummy_hcd ends the transfer with a STALL.
 */
static void on_urb(const struct usbmon_event *e, void *ctx)
{
	const struct watch *w = ctx;
	struct rawdev *r = NULL;
	const char *action = "nak";
	unsigned int slot, i;
	bool line, unplug = false;
	int err = 0;

	/* the root hub is device 1 of each bus */
	if (e->devnum <= 1)
		return;
	for (i = 0; i < w->n && !r; i++)
		if (w->devs[i].busnum == e->busnum)
			r = &w->devs[i];
	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	r->walk.active_us = mono_us();
	/* the NAKed one killed at its timeout: the host gave up */
	if (e->type != 'S' && (e->status == -ENOENT || e->status == -ECONNRESET))
		r->walk.nak_pending = false;
	pthread_mutex_unlock(&r->lock);
	/* a transfer ended in an error, or a clear-halt: a refusal */
	if (e->type != 'S' && e->status < 0) {
		refused(r, e->epnum);
	} else if (e->type == 'S' && e->xfer_type == 2 && e->setup_seen &&
		   e->setup[0] == USB_RECIP_ENDPOINT &&
		   e->setup[1] == USB_REQ_CLEAR_FEATURE &&
		   !e->setup[2] && !e->setup[3]) {
		r->clear_halts++;
		refused(r, e->setup[4]);
	}
	if (e->type != 'S' || (e->xfer_type != 1 && e->xfer_type != 3))
		return;
	slot = ep_slot(e->epnum);
	pthread_mutex_lock(&r->lock);
	if (!r->configured || r->fd < 0 || r->ep_handle[slot] < 0) {
		pthread_mutex_unlock(&r->lock);
		return;
	}
	if (walk_passes) {
		/* the walk: no data to answer with, so what comes before request p stalls */
		if (walk_decide(r) == HZG_DEV_NAK) {
			r->naked++;
			/*
			 * An interrupt transfer NAKed is most often a poll
			 * that waits for good: the pass ends when the device
			 * is quiet, and the plug pulled kills it.
			 */
			if (e->xfer_type == 1)
				r->walk.nak_pending = false;
		}
		else if (ioctl(r->fd, USB_RAW_IOCTL_EP_SET_HALT, r->ep_handle[slot]) < 0)
			err = errno;
		else
			action = "stall";
	} else if (r->naked < nak_first) {
		r->naked++;
		if (unplug_ms && !r->unplug_begun) {
			r->unplug_begun = true;
			r->unplug_ep = e->epnum;
			r->unplug_xfer = e->xfer_type;
			unplug = true;
		}
	} else if (ioctl(r->fd, USB_RAW_IOCTL_EP_SET_HALT, r->ep_handle[slot]) < 0)
		err = errno;
	else
		action = "stall";
	line = r->ep_lines[slot] < EP_LINES_MAX;
	r->ep_lines[slot] += line;
	pthread_mutex_unlock(&r->lock);
	if (err)
		say(r, "endpoint 0x%02x: halt: %s", e->epnum, strerror(err));
	if (line || unplug)
		note_ep(r, e->epnum, e->xfer_type, action);
	if (unplug)
		unplug_later(r);
}

/* The walk of @r: its next pass when this one is over, or its end. */
static void walk_step(struct rawdev *r)
{
	enum hzg_walk_next next;
	unsigned int passes;

	pthread_mutex_lock(&r->lock);
	if (r->walk_done || r->replug_now || !r->walk.start_us) {
		pthread_mutex_unlock(&r->lock);
		return;
	}
	/* unplugged for good (a loop contained): its walk ends there */
	next = r->fd < 0 || r->contained ? HZG_WALK_DONE : hzg_walk_next(&r->walk, mono_us());
	if (next == HZG_WALK_DONE)
		r->walk_done = true;
	else if (next == HZG_WALK_REPLUG)
		r->replug_now = 1;
	/* the passes that NAKed a request: the last made none, if it ended short */
	passes = r->walk.in_pass >= r->walk.pass ? r->walk.pass : r->walk.pass - 1;
	pthread_mutex_unlock(&r->lock);
	if (next == HZG_WALK_REPLUG) {
		/* serve() sits in the file's ioctl: EINTR brings it out */
		pthread_kill(r->thread, SIGUSR1);
	} else if (next == HZG_WALK_DONE) {
		pthread_mutex_lock(&log_lock);
		fprintf(logf, "rawdev=%u t_us=%llu walk=done passes=%u\n", r->index,
			(unsigned long long)mono_us(), passes);
		fflush(logf);
		pthread_mutex_unlock(&log_lock);
	}
}

static void *watch_usbmon(void *arg)
{
	struct watch *w = arg;
	struct usbmon m;
	int ret = usbmon_open(&m, 0, 0);

	if (ret) {
		for (unsigned int i = 0; i < w->n; i++)
			say(&w->devs[i], "usbmon: %s: bulk and interrupt transfers NAK until the host gives up",
			    strerror(-ret));
		return NULL;
	}
	/*
	 * hzrig-usbmon-dump's pace: the guest has one CPU, which the drivers'
	 * waits are measured on; a STALL comes within 5 ms (a frame or five)
	 */
	for (;;) {
		usbmon_drain_to(&m, on_urb, w);
		for (unsigned int i = 0; walk_passes && i < w->n; i++)
			walk_step(&w->devs[i]);
		usleep(5000);
	}
	return NULL;
}

struct control {
	struct rawdev *devs;
	unsigned int n, base;
	const char *path;
};

/* "probed I": device I's driver came back from its first probe: walk on. */
static void walk_begin(struct rawdev *r)
{
	pthread_mutex_lock(&r->lock);
	if (!r->walk.start_us)
		r->walk.start_us = r->walk.pass_us = r->walk.active_us = mono_us();
	pthread_mutex_unlock(&r->lock);
}

/*
 * -c FILE: "unplug I COUNT SINCE_US" lines the guest's log watcher appends
 * (and, for the walk, "probed I" once device I's modprobe returned)
 * (a plain file, read every 200 ms from where the last read ended: a
 * writer never blocks on it, whether this program runs or not).
 */
static void *read_control(void *arg)
{
	struct control *c = arg;
	char line[128];
	long off = 0;

	for (;;) {
		FILE *f = fopen(c->path, "r");

		if (f && !fseek(f, off, SEEK_SET)) {
			while (fgets(line, sizeof(line), f) && strchr(line, '\n')) {
				unsigned int i, count;
				unsigned long long since;
				char kind[16] = "flood";

				off = ftell(f);
				if (sscanf(line, "probed %u", &i) == 1 && i >= c->base &&
				    i - c->base < c->n) {
					walk_begin(&c->devs[i - c->base]);
					continue;
				}
				if (sscanf(line, "unplug %u %u %llu %15s", &i, &count, &since, kind) < 3 ||
				    (strcmp(kind, "flood") && strcmp(kind, "calls")) ||
				    i < c->base || i - c->base >= c->n) {
					fprintf(stderr, "hzrig-rawdev: %s: not 'unplug I COUNT SINCE_US' or 'probed I' with I one of ours: %.60s",
						c->path, line);
					continue;
				}
				contain(&c->devs[i - c->base], strcmp(kind, "calls") ? "flood" : "calls",
					count, since);
			}
		}
		if (f)
			fclose(f);
		usleep(200000);
	}
	return NULL;
}

static int load(struct rawdev *r)
{
	char text[16384], err[160];
	FILE *f = fopen(r->path, "r");
	size_t n;

	if (!f) {
		fprintf(stderr, "hzrig-rawdev: %s: %s\n", r->path, strerror(errno));
		return -1;
	}
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = 0;
	if (hzg_dev_parse(&r->dev, text, err, sizeof(err))) {
		fprintf(stderr, "hzrig-rawdev: %s: %s\n", r->path, err);
		return -1;
	}
	return 0;
}

static void on_wake(int sig)
{
	(void)sig;
}

static void usage(void)
{
	fprintf(stderr, "usage: hzrig-rawdev [-k K] [-d MS] [-u UDC_BASE] [-l LOG] [-c FILE] DEVICE_FILE...\n"
		"Presents each device file on its own dummy_hcd UDC through\n"
		"raw-gadget; NAKs the first K (default 2) unanswered class or\n"
		"vendor requests of each device, STALLs the rest. -d MS unplugs\n"
		"a device MS ms into its first NAKed request. A device whose\n"
		"driver loops on its refusals is unplugged; -c FILE takes\n"
		"'unplug I COUNT SINCE_US' lines for a driver that floods the log.\n");
}

static unsigned int number(const char *s, const char *what, unsigned int max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v > max) {
		fprintf(stderr, "hzrig-rawdev: %s: '%s' is not a number 0..%u\n",
			what, s, max);
		exit(2);
	}
	return (unsigned int)v;
}

int main(int argc, char **argv)
{
	static struct rawdev devs[RAWDEV_MAX];
	static struct watch watch;
	static struct control ctl;
	struct sigaction wake;
	pthread_t watcher, reader;
	unsigned int base = 0, n, i;
	sigset_t set;
	int opt, sig;

	logf = stdout;
	while ((opt = getopt(argc, argv, "k:w:d:u:l:c:h")) != -1) {
		switch (opt) {
		case 'k':
			nak_first = number(optarg, "-k", 1000);
			break;
		case 'w':
			walk_passes = number(optarg, "-w", 64);
			break;
		case 'd':
			unplug_ms = number(optarg, "-d", 60000);
			break;
		case 'u':
			base = number(optarg, "-u", RAWDEV_MAX - 1);
			break;
		case 'c':
			ctl.path = optarg;
			break;
		case 'l':
			logf = fopen(optarg, "a");
			if (!logf) {
				fprintf(stderr, "hzrig-rawdev: %s: %s\n", optarg,
					strerror(errno));
				return 2;
			}
			break;
		default:
			usage();
			return opt == 'h' ? 0 : 2;
		}
	}
	n = (unsigned int)(argc - optind);
	if (!n || base + n > RAWDEV_MAX) {
		fprintf(stderr, "hzrig-rawdev: %u device files from UDC %u: between 1 and %u in all\n",
			n, base, RAWDEV_MAX);
		usage();
		return 2;
	}
	/* SIGUSR1 interrupts a serve() in its ioctl (unplug_later()) */
	sigemptyset(&wake.sa_mask);
	wake.sa_handler = on_wake;
	wake.sa_flags = 0;	/* no SA_RESTART: the ioctl returns EINTR */
	sigaction(SIGUSR1, &wake, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	for (i = 0; i < n; i++) {
		struct rawdev *r = &devs[i];

		r->index = base + i;
		r->udc = base + i;
		r->path = argv[optind + i];
		pthread_mutex_init(&r->lock, NULL);
		memset(r->ep_handle, -1, sizeof(r->ep_handle));
		r->busnum = bus_of(r->udc);
		/* the walk starts when the guest says its probe returned */
		r->walk.pass = 1;
		r->walk.max_pass = walk_passes;
		if (load(r))
			return 2;
		r->fd = open("/dev/raw-gadget", O_RDWR | O_CLOEXEC);
		if (r->fd < 0) {
			fprintf(stderr, "hzrig-rawdev: /dev/raw-gadget: %s\n",
				strerror(errno));
			return 1;
		}
		if (pthread_create(&r->thread, NULL, serve, r)) {
			fprintf(stderr, "hzrig-rawdev: thread: %s\n", strerror(errno));
			return 1;
		}
	}
	watch.devs = devs;
	watch.n = n;
	if (pthread_create(&watcher, NULL, watch_usbmon, &watch)) {
		fprintf(stderr, "hzrig-rawdev: thread: %s\n", strerror(errno));
		return 1;
	}
	ctl.devs = devs;
	ctl.n = n;
	ctl.base = base;
	if (ctl.path && pthread_create(&reader, NULL, read_control, &ctl)) {
		fprintf(stderr, "hzrig-rawdev: thread: %s\n", strerror(errno));
		return 1;
	}
	sigwait(&set, &sig);
	return 0;
}
