// SPDX-License-Identifier: GPL-2.0
/*
 * hzrig-rawdev - many devices described as data, presented at once through
 * raw-gadget, one per dummy_hcd instance, for the driver sweep
 * (docs/sweep.md).
 *
 *   hzrig-rawdev [-k K] [-w PASSES] [-d MS] [-u UDC_BASE] [-l LOG] [-c FILE]
 *                [-p FILE] DEVICE_FILE...
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
 *   rawdev=I t_us=T ep=0xEE xfer=bulk|int action=nak|stall|answer|unplug
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
 * and, when the device saw its driver clear a halt in the second before
 * (a STALL / clear-halt loop that the guest's counts caught first), the
 * loop's ep=0xEE clear_halts=C as well.
 * With -w PASSES (the walk, loop.h) K gives way: each pass NAKs one
 * counted request (the first of a kind no pass NAKed before; once a pass
 * brings no new kind, the others in order), answers the ones before it
 * (zeros of the length asked for; an endpoint's first bulk or interrupt
 * transfer a plug gets zeros, or its data taken, in a thread of its own,
 * and the endpoint's later ones are stalled) and stalls the rest:
 *   rawdev=I t_us=T walk=nak pass=P request=J
 * once that request is over and the device quiet, it is plugged in again
 * (its raw-gadget file closed and opened anew) and its driver probes
 * again, for the next pass:
 *   rawdev=I t_us=T walk=replug pass=P
 * until the requests run out, PASSES passes or the walk's time is spent:
 *   rawdev=I t_us=T walk=done passes=P
 * (P: the passes that NAKed a request). With -w and -d both, the unplug
 * pass walks: each pass's request is unplugged under (MS milliseconds
 * into it), the device stays away until it is quiet, and is plugged in
 * again for the next pass; a kernel report is
 * then put down to the request of the pass it came in. A device plugged in
 * again in its next shape ("shape I" in FILE) first answers all (loop.h,
 * HZG_WALK_TRIAL): the shape is walked ("walk=replug pass=1") when that
 * made more requests than any pass before, or when the guest, which saw
 * it bind, asks ("walk I" in FILE); else its walk is done at once
 * ("walk=done passes=0").
 * With -p FILE a line "I" is appended to FILE for each event of device I
 * that is news: a request not seen since it was last plugged in, or a
 * pass, a shape, an unplug; a driver's poll is not news, so the guest's
 * settle waits for FILE to stand still, not for the log to.
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
	bool ep_answered[EP_SLOTS];	/* the walk's one answer, given */
	unsigned int plugs;		/* plugged in again so many times */
	/* the watcher's alone: the driver's refusals, for a loop */
	struct hzg_loop loop;
	uint8_t refused_ep;		/* the last endpoint refused on */
	unsigned int clear_halts;
	uint64_t clear_halt_us;		/* the last one's time */
	/*
	 * A contained device: why ("loop", "flood"), how many, since when;
	 * set before unplug_now, read by serve() when it unplugs.
	 */
	const char *contain;
	unsigned int contain_count;
	uint64_t contain_since_us;
	bool contain_halting;		/* clearing a halt as it was contained */
	volatile sig_atomic_t contained;	/* once: loop or flood */
	/* the walk (-w): under lock, but for replug_now */
	struct hzg_walk walk;
	bool walk_done;
	/* -w with -d: unplugged under this pass's request, to come back */
	volatile sig_atomic_t walk_away;
	volatile sig_atomic_t replug_now;
	/*
	 * Devices that do not bind: the shape presented (0: the device
	 * file), and the next one, loaded by read_control(), put in by
	 * replug() (serve()'s thread, the one that reads dev)
	 */
	unsigned int shape;
	struct hzg_device_file next_dev;
	unsigned int next_shape;
	bool have_next;
	/* the requests seen since the last plug (-p), under log_lock */
	struct hzg_seen seen;
	/* the counted requests of all its plugs (a trial's fresh ones), lock */
	struct hzg_known known;
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
static FILE *newsf;	/* -p: a line for each event that is news */
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/*
 * -p FILE: a line "I" for an event of device @r that is news (log_lock
 * held): a request with @key it has not made since it was last plugged
 * in, or (@key 0) what the device itself did (a pass, a shape, an unplug).
 * The guest's settle watches FILE's size, which a driver's poll does not
 * move (loop.h, hzg_seen_new()). Called after the event's line is in the
 * log: a reader that saw the news finds the line.
 */
static void news(struct rawdev *r, uint64_t key)
{
	if (newsf && (!key || hzg_seen_new(&r->seen, key))) {
		fprintf(newsf, "%u\n", r->index);
		fflush(newsf);
	}
}

/*
 * A line of what device @r itself did ("walk=...", "shape=..."), after
 * "rawdev=I t_us=T ": always news.
 */
static void __attribute__((format(printf, 2, 3)))
event(struct rawdev *r, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&log_lock);
	fprintf(logf, "rawdev=%u t_us=%llu ", r->index,
		(unsigned long long)mono_us());
	va_start(ap, fmt);
	vfprintf(logf, fmt, ap);
	va_end(ap);
	fputc('\n', logf);
	fflush(logf);
	news(r, 0);
	pthread_mutex_unlock(&log_lock);
}

static void note(struct rawdev *r, const struct usb_ctrlrequest *c,
		 const char *action)
{
	pthread_mutex_lock(&log_lock);
	fprintf(logf, "rawdev=%u t_us=%llu type=0x%02x request=0x%02x value=%u index=%u length=%u action=%s\n",
		r->index, (unsigned long long)mono_us(), c->bRequestType,
		c->bRequest, le16toh(c->wValue), le16toh(c->wIndex),
		le16toh(c->wLength), action);
	fflush(logf);
	/* the request and what was done: the same again is a poll */
	news(r, 1ULL << 63 | (uint64_t)c->bRequestType << 48 |
		(uint64_t)c->bRequest << 40 | (uint64_t)le16toh(c->wValue) << 24 |
		(uint64_t)le16toh(c->wIndex) << 8 | (uint64_t)action[0]);
	pthread_mutex_unlock(&log_lock);
}

static void note_ep(struct rawdev *r, uint8_t ep, uint8_t xfer,
		    const char *action)
{
	pthread_mutex_lock(&log_lock);
	fprintf(logf, "rawdev=%u t_us=%llu ep=0x%02x xfer=%s action=%s\n",
		r->index, (unsigned long long)mono_us(), ep,
		xfer == 1 ? "int" : "bulk", action);
	fflush(logf);
	news(r, 1ULL << 62 | (uint64_t)ep << 8 | (uint64_t)action[0]);
	pthread_mutex_unlock(&log_lock);
}

static void note_contain(struct rawdev *r)
{
	pthread_mutex_lock(&log_lock);
	fprintf(logf, "rawdev=%u t_us=%llu contain=%s count=%u since_us=%llu",
		r->index, (unsigned long long)mono_us(), r->contain,
		r->contain_count, (unsigned long long)r->contain_since_us);
	if (!strcmp(r->contain, "loop") || r->contain_halting)
		fprintf(logf, " ep=0x%02x clear_halts=%u", r->refused_ep,
			r->clear_halts);
	fputc('\n', logf);
	fflush(logf);
	news(r, 0);
	pthread_mutex_unlock(&log_lock);
}

static void say(struct rawdev *r, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&log_lock);
	fprintf(logf, "rawdev=%u note=\"", r->index);
	va_start(ap, fmt);
	vfprintf(logf, fmt, ap);
	va_end(ap);
	fprintf(logf, "\"\n");
	fflush(logf);
	news(r, 0);
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

/*
 * Enable (@on) or disable the endpoints of interface @in (r->lock held):
 * an alternate setting's endpoints are the gadget's only while it is the
 * one selected, so that a transfer on them reaches the watcher.
 */
static void endpoints(struct rawdev *r, const struct hzg_dev_intf *in, bool on)
{
	for (unsigned int e = 0; e < in->n_ep; e++) {
		const struct hzg_dev_ep *ep = &r->dev.ep[in->first_ep + e];
		unsigned int slot = ep_slot(ep->address);
		struct usb_endpoint_descriptor d = {
			.bLength = USB_DT_ENDPOINT_SIZE,
			.bDescriptorType = USB_DT_ENDPOINT,
			.bEndpointAddress = ep->address,
			.bmAttributes = ep->attributes,
			.wMaxPacketSize = htole16(r->hs ? ep->hs_maxp : ep->fs_maxp),
			.bInterval = r->hs ? ep->hs_interval : ep->fs_interval,
		};
		int h;

		if (!on) {
			if (r->ep_handle[slot] >= 0 &&
			    ioctl(r->fd, USB_RAW_IOCTL_EP_DISABLE, r->ep_handle[slot]) < 0)
				say(r, "endpoint 0x%02x: disable: %s",
				    ep->address, strerror(errno));
			r->ep_handle[slot] = -1;
			continue;
		}
		h = ioctl(r->fd, USB_RAW_IOCTL_EP_ENABLE, &d);
		if (h < 0)
			say(r, "endpoint 0x%02x: enable: %s",
			    ep->address, strerror(errno));
		else
			r->ep_handle[slot] = h;
	}
}

/*
 * SET_INTERFACE @number to @alt, once configured (r->lock held): the
 * endpoints of the alternate it leaves off, the new one's on (ipheth's
 * bulk pair is in alternate 1 of its interface, and its open() selects
 * it).
 */
static void select_alt(struct rawdev *r, unsigned int number, unsigned int alt)
{
	unsigned int cur = number < HZG_DEV_MAX_INTF ? r->alt[number] : 0;

	for (size_t i = 0; r->configured && i < r->dev.n_intf; i++)
		if (r->dev.intf[i].number == number && r->dev.intf[i].alt == cur)
			endpoints(r, &r->dev.intf[i], false);
	for (size_t i = 0; r->configured && i < r->dev.n_intf; i++)
		if (r->dev.intf[i].number == number && r->dev.intf[i].alt == alt)
			endpoints(r, &r->dev.intf[i], true);
	if (number < HZG_DEV_MAX_INTF)
		r->alt[number] = (uint8_t)alt;
}

/* Enable the endpoints of every interface's alternate setting 0. */
static int configure(struct rawdev *r)
{
	for (size_t i = 0; i < r->dev.n_intf; i++)
		if (!r->dev.intf[i].alt)
			endpoints(r, &r->dev.intf[i], true);
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
			pthread_mutex_lock(&r->lock);
			select_alt(r, index, value);
			pthread_mutex_unlock(&r->lock);
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
 * The walk's word on the next counted request of @r (r->lock held), @key
 * naming it (the same request, or endpoint, gets the same key): a NAK is
 * the pass's one, pending until the host gives up (watch_usbmon()).
 */
static enum hzg_dev_action walk_decide(struct rawdev *r, uint64_t key)
{
	if (hzg_known_new(&r->known, key))
		r->walk.fresh++;
	switch (hzg_walk_decide(&r->walk, hzg_walk_kind(key))) {
	case HZG_WALK_ANSWER:
		return HZG_DEV_ANSWER;
	case HZG_WALK_NAK:
		return HZG_DEV_NAK;
	default:
		return HZG_DEV_STALL;
	}
}

/*
 * The walk's NAK of this pass (@pass, its request @j), after the
 * request's own line: "walk=nak pass=P request=J" (a kernel report in
 * the unplug pass is put down to request J of pass P).
 */
static void walk_naked(struct rawdev *r, unsigned int pass, unsigned int j)
{
	if (walk_passes && j)
		event(r, "walk=nak pass=%u request=%u", pass, j);
}

/*
 * @r's file just closed (r->lock held): for good, or, walking, until the
 * walk plugs it in again for its next pass (walk_step()).
 */
static void away(struct rawdev *r)
{
	if (walk_passes && !r->contained) {
		r->walk_away = 1;
		r->walk.nak_pending = false;
		r->walk.active_us = mono_us();
	} else {
		r->unplugged = true;
	}
}

/* A class or vendor request, once configured: the file's rule, or K NAKs. */
static void other(struct rawdev *r, const struct usb_ctrlrequest *c)
{
	const struct hzg_dev_rule *rule = hzg_dev_match(&r->dev, c);
	enum hzg_dev_action a;
	int ret = 0;
	unsigned int pass = 0, j = 0;

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
		a = walk_decide(r, (uint64_t)c->bRequestType << 48 |
				   (uint64_t)c->bRequest << 40 |
				   (uint64_t)le16toh(c->wValue) << 24 |
				   (uint64_t)le16toh(c->wIndex) << 8);
	else if (r->naked < nak_first)
		a = HZG_DEV_NAK;
	else
		a = HZG_DEV_STALL;
	if (a == HZG_DEV_NAK) {
		r->naked++;
		/*
		 * the first NAKed request is the one unplugged under; the
		 * walk's, each pass's
		 */
		unplug = unplug_ms && (walk_passes || !r->unplug_begun);
		r->unplug_begun |= unplug;
		pass = r->walk.pass;
		j = r->walk.naked_j;
	}
	pthread_mutex_unlock(&r->lock);
	switch (a) {
	case HZG_DEV_NAK:
		note(r, c, "nak");
		walk_naked(r, pass, j);
		if (unplug) {
			/* the driver is now waiting on this request */
			usleep(unplug_ms * 1000);
			note(r, c, "unplug");
			pthread_mutex_lock(&r->lock);
			close(r->fd);
			r->fd = -1;
			away(r);
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
	r->unplug_now = 0;
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	away(r);
	pthread_mutex_unlock(&r->lock);
}

/*
 * Unplugged under a pass's request (-w with -d): wait, away, for the
 * walk's next pass. False when the walk ended while away, or the device
 * was contained: it stays unplugged.
 */
static bool wait_away(struct rawdev *r)
{
	while (r->walk_away && !r->replug_now) {
		if (r->walk_done || r->contained)
			return false;
		usleep(10000);
	}
	return true;
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
	bool shaped = r->have_next;

	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	r->walk_away = 0;
	r->configured = false;
	memset(r->ep_handle, -1, sizeof(r->ep_handle));
	memset(r->ep_lines, 0, sizeof(r->ep_lines));
	memset(r->ep_answered, 0, sizeof(r->ep_answered));
	memset(r->alt, 0, sizeof(r->alt));
	r->plugs++;
	if (shaped) {
		/* its next shape, tried first (loop.h, HZG_WALK_TRIAL) */
		r->dev = r->next_dev;
		r->have_next = false;
		r->shape = r->next_shape;
		r->walk.pass = HZG_WALK_TRIAL;
		r->naked = 0;
		r->walk.start_us = mono_us();
	} else if (r->walk.pass == HZG_WALK_TRIAL) {
		/* the trial got further: the shape's walk */
		hzg_walk_restart(&r->walk);
		r->walk.start_us = mono_us();
	} else {
		hzg_walk_advance(&r->walk);
	}
	r->walk.in_pass = 0;
	r->walk.fresh = 0;
	r->walk.nak_pending = false;
	r->walk.pass_us = r->walk.active_us = mono_us();
	pthread_mutex_unlock(&r->lock);
	pthread_mutex_lock(&log_lock);
	r->seen.n = 0;	/* a new plug: every request is news again */
	pthread_mutex_unlock(&log_lock);
	if (shaped)
		event(r, "shape=%u", r->shape);
	else
		event(r, "walk=replug pass=%u", r->walk.pass);
	/*
	 * the UDC may still be held by the file just closed (its release
	 * unbinds the gadget): EBUSY for a while, so a few tries
	 */
	for (int tries = 0;; tries++) {
		fd = open("/dev/raw-gadget", O_RDWR | O_CLOEXEC);
		if (fd >= 0 && !ioctl(fd, USB_RAW_IOCTL_INIT, init) &&
		    !ioctl(fd, USB_RAW_IOCTL_RUN, 0))
			break;
		if (fd >= 0) {
			int e = errno;

			close(fd);
			errno = e;
		}
		fd = -1;
		if (errno != EBUSY || tries >= 20)
			break;
		usleep(100000);
	}
	if (fd < 0) {
		say(r, "walk: plugging in again: %s", strerror(errno));
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
		if (r->unplug_now)
			unplug_now(r);
		if (r->unplugged || !wait_away(r))
			return NULL;
		if (r->replug_now && replug(r, &init))
			return NULL;
		if (ioctl(r->fd, USB_RAW_IOCTL_EVENT_FETCH, &e) < 0) {
			if (errno == EINTR && r->unplug_now)
				continue;	/* unplugged at the loop's top */
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

/* @fn(@arg) in a detached thread of its own; false when none could start. */
static bool detached(void *(*fn)(void *), void *arg)
{
	pthread_attr_t a;
	pthread_t t;
	bool ok;

	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	ok = !pthread_create(&t, &a, fn, arg);
	pthread_attr_destroy(&a);
	return ok;
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
	if (!detached(unplug_timer, r))
		say(r, "unplug: thread: %s", strerror(errno));
}

/* a clear-halt this recent: the device is in a STALL / clear-halt loop */
#define HALTING_US	1000000ULL

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
	r->contain_halting = r->clear_halts &&
			     mono_us() - r->clear_halt_us < HALTING_US;
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

/* One bulk or interrupt transfer the walk answers (answer_ep()). */
struct ep_answer {
	struct rawdev *r;
	int fd, handle;
	unsigned int plugs, len;
	bool in;
	uint8_t ep;
};

/*
 * The walk's answer to a bulk or interrupt transfer: an IN one gets @len
 * zeros (at most DATA_MAX), an OUT one's data is taken. Its own thread:
 * the ioctl waits until the host's transfer takes it, and returns with an
 * error when the device is unplugged meanwhile.
 */
static void *answer_ep(void *arg)
{
	struct ep_answer *a = arg;
	struct {
		struct usb_raw_ep_io io;
		uint8_t data[DATA_MAX];
	} *b = calloc(1, sizeof(*b));
	bool same;
	int ret = -1;

	if (b) {
		b->io.ep = (uint16_t)a->handle;
		b->io.length = a->len < DATA_MAX ? a->len : DATA_MAX;
		/* still the plug it was decided in (replug() closes fd) */
		pthread_mutex_lock(&a->r->lock);
		same = a->r->plugs == a->plugs && a->r->fd == a->fd;
		pthread_mutex_unlock(&a->r->lock);
		if (same)
			ret = ioctl(a->fd, a->in ? USB_RAW_IOCTL_EP_WRITE :
				    USB_RAW_IOCTL_EP_READ, &b->io);
	}
	if (ret < 0 && b && same && errno != ESHUTDOWN && errno != ENODEV &&
	    errno != EINTR)
		say(a->r, "endpoint 0x%02x: answer: %s", a->ep, strerror(errno));
	free(b);
	free(a);
	return NULL;
}

/* Answer @e's transfer on @slot in a thread of its own (r->lock held). */
static bool answer_later(struct rawdev *r, const struct usbmon_event *e,
			 unsigned int slot)
{
	struct ep_answer *a = malloc(sizeof(*a));

	if (!a)
		return false;
	*a = (struct ep_answer){ .r = r, .fd = r->fd, .handle = r->ep_handle[slot],
				 .plugs = r->plugs, .len = e->length,
				 .in = e->epnum & USB_DIR_IN, .ep = e->epnum };
	if (detached(answer_ep, a))
		return true;
	free(a);
	say(r, "endpoint 0x%02x: answer: no thread for it (%s): stalled",
	    e->epnum, strerror(errno));
	return false;
}

/*
 * A host's bulk or interrupt submission to one of our devices: within the
 * device's K it NAKs (nothing to do: no request is queued), after it the
 * endpoint is halted, so dummy_hcd ends the transfer with a STALL. The
 * walk answers the first transfer of each endpoint that comes before the
 * pass's request p, a plug (zeros in, data taken out: ipheth's pairing
 * waits for one received frame), and stalls the rest before p.
 */
static void on_urb(const struct usbmon_event *e, void *ctx)
{
	const struct watch *w = ctx;
	struct rawdev *r = NULL;
	enum hzg_dev_action act;
	const char *action = "nak";
	unsigned int slot, i, pass = 0, j = 0;
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
		pthread_mutex_lock(&r->lock);
		r->clear_halts++;
		r->clear_halt_us = mono_us();
		pthread_mutex_unlock(&r->lock);
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
	act = walk_passes ? walk_decide(r, 1ULL << 62 | (uint64_t)e->epnum) :
	      r->naked < nak_first ? HZG_DEV_NAK : HZG_DEV_STALL;
	if (act == HZG_DEV_NAK) {
		r->naked++;
		/*
		 * An interrupt transfer NAKed is most often a poll that waits
		 * for good: the pass ends when the device is quiet, and the
		 * plug pulled kills it.
		 */
		if (walk_passes && e->xfer_type == 1)
			r->walk.nak_pending = false;
		pass = r->walk.pass;
		j = r->walk.naked_j;
		/* as other(): the first NAKed request unplugged under; walking, each pass's */
		if (unplug_ms && (walk_passes || !r->unplug_begun)) {
			r->unplug_begun = true;
			r->unplug_ep = e->epnum;
			r->unplug_xfer = e->xfer_type;
			unplug = true;
		}
	} else if (act == HZG_DEV_ANSWER && !r->ep_answered[slot] &&
		   answer_later(r, e, slot)) {
		r->ep_answered[slot] = true;
		action = "answer";
	} else if (ioctl(r->fd, USB_RAW_IOCTL_EP_SET_HALT, r->ep_handle[slot]) < 0) {
		err = errno;
	} else {
		action = "stall";
	}
	line = r->ep_lines[slot] < EP_LINES_MAX;
	r->ep_lines[slot] += line;
	pthread_mutex_unlock(&r->lock);
	if (err)
		say(r, "endpoint 0x%02x: halt: %s", e->epnum, strerror(err));
	if (line || unplug)
		note_ep(r, e->epnum, e->xfer_type, action);
	if (act == HZG_DEV_NAK)
		walk_naked(r, pass, j);
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
	/*
	 * unplugged for good (a loop contained): its walk ends there; away
	 * under a pass's request (the unplug pass), it comes back
	 */
	next = (r->fd < 0 && !r->walk_away) || r->contained ?
	       HZG_WALK_DONE : hzg_walk_next(&r->walk, mono_us());
	if (next == HZG_WALK_DONE)
		r->walk_done = true;
	else if (next == HZG_WALK_REPLUG)
		r->replug_now = 1;
	/* the passes that NAKed a request; a trial's shape not walked, none */
	passes = r->walk.pass == HZG_WALK_TRIAL ? 0 : r->walk.naked_passes;
	if (next != HZG_WALK_WAIT && r->walk.in_pass > r->walk.most)
		r->walk.most = r->walk.in_pass;
	pthread_mutex_unlock(&r->lock);
	if (next == HZG_WALK_REPLUG) {
		/* serve() sits in the file's ioctl: EINTR brings it out */
		pthread_kill(r->thread, SIGUSR1);
	} else if (next == HZG_WALK_DONE) {
		event(r, "walk=done passes=%u", passes);
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

static int parse_file(const char *path, struct hzg_device_file *d);

/*
 * r->lock held: @r may be plugged in again on the guest's word (not gone,
 * not contained, no replug or next shape already under way).
 */
static bool replug_free(const struct rawdev *r)
{
	return !r->unplugged && !r->contained && !r->walk_away &&
	       !r->replug_now && !r->have_next;
}

/*
 * r->lock held, and released here: @r is plugged in again (serve() sits
 * in the file's ioctl: EINTR brings it out).
 */
static void replug_unlock(struct rawdev *r)
{
	r->walk_done = false;
	r->replug_now = 1;
	pthread_mutex_unlock(&r->lock);
	pthread_kill(r->thread, SIGUSR1);
}

#define SHAPE_MAX	9	/* MODULE.shape1 .. MODULE.shape9 */

/*
 * "shape I": device I did not bind; its walk is over. Its next shape (the
 * device file's name with ".shapeN" for ".device", the next N there is a
 * file for: an entry has no shape of some kinds) is loaded, and the device
 * plugged in again in it, tried and perhaps walked anew; "rawdev=I
 * shape=none" when there is none, or the device is gone for good
 * (contained).
 */
static void next_shape(struct rawdev *r)
{
	char path[4096];
	size_t l = strlen(r->path);
	unsigned int k;
	bool ok;

	if (l > 7 && !strcmp(r->path + l - 7, ".device"))
		l -= 7;
	for (k = r->shape + 1; k <= SHAPE_MAX; k++) {
		snprintf(path, sizeof(path), "%.*s.shape%u", (int)l, r->path, k);
		if (!access(path, R_OK))
			break;
	}
	pthread_mutex_lock(&r->lock);
	ok = replug_free(r) && k <= SHAPE_MAX && !parse_file(path, &r->next_dev);
	if (ok) {
		r->next_shape = k;
		r->have_next = true;
		replug_unlock(r);
		return;
	}
	pthread_mutex_unlock(&r->lock);
	event(r, "shape=none tried=%u", r->shape);
}

/*
 * "walk I": device I's shape bound in its trial, which made no more
 * requests than a pass before it, so it was not walked; the guest, which
 * sees it bound, asks for its walk all the same (a shape that binds
 * reaches code the passes before did not). Plugged in again at pass 1.
 */
static void walk_shape(struct rawdev *r)
{
	bool ok;

	pthread_mutex_lock(&r->lock);
	ok = r->walk_done && r->walk.pass == HZG_WALK_TRIAL && replug_free(r);
	if (ok) {
		replug_unlock(r);
		return;
	}
	pthread_mutex_unlock(&r->lock);
	/* refused: its walk is over again, so that the guest counts it */
	say(r, "walk: not walked again (its shape's trial was walked, or it is gone)");
	event(r, "walk=done passes=0");
}

/* "hold I": the guest saw device I's driver bind; its open() comes. */
static void hold(struct rawdev *r)
{
	pthread_mutex_lock(&r->lock);
	r->walk.active_us = mono_us();
	pthread_mutex_unlock(&r->lock);
}

/* The -c file's "WORD I" lines, and what each does to device I. */
static const struct {
	const char *word;
	void (*fn)(struct rawdev *r);
} commands[] = {
	{ "probed", walk_begin },
	{ "shape", next_shape },
	{ "walk", walk_shape },
	{ "hold", hold },
};

/* @line's "WORD I" command for one of ours: done, true; else false. */
static bool command(const struct control *c, const char *line)
{
	char word[16];
	unsigned int i;

	if (sscanf(line, "%15s %u", word, &i) != 2 || i < c->base || i - c->base >= c->n)
		return false;
	for (size_t k = 0; k < sizeof(commands) / sizeof(commands[0]); k++)
		if (!strcmp(word, commands[k].word)) {
			commands[k].fn(&c->devs[i - c->base]);
			return true;
		}
	return false;
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
				if (command(c, line))
					continue;
				if (sscanf(line, "unplug %u %u %llu %15s", &i, &count, &since, kind) < 3 ||
				    (strcmp(kind, "flood") && strcmp(kind, "calls")) ||
				    i < c->base || i - c->base >= c->n) {
					fprintf(stderr, "hzrig-rawdev: %s: not 'unplug I COUNT SINCE_US', 'probed I', 'shape I', 'walk I' or 'hold I' with I one of ours: %.60s",
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

/* Device file @path into @d; -1 (said on stderr) when it cannot be. */
static int parse_file(const char *path, struct hzg_device_file *d)
{
	static char text[16384];	/* one reader at a time: load(), next_shape() */
	char err[160];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f) {
		fprintf(stderr, "hzrig-rawdev: %s: %s\n", path, strerror(errno));
		return -1;
	}
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = 0;
	if (hzg_dev_parse(d, text, err, sizeof(err))) {
		fprintf(stderr, "hzrig-rawdev: %s: %s\n", path, err);
		return -1;
	}
	return 0;
}

static int load(struct rawdev *r)
{
	return parse_file(r->path, &r->dev);
}

static void on_wake(int sig)
{
	(void)sig;
}

static void usage(void)
{
	fprintf(stderr, "usage: hzrig-rawdev [-k K] [-w PASSES] [-d MS] [-u UDC_BASE] [-l LOG] [-c FILE] [-p FILE] DEVICE_FILE...\n"
		"Presents each device file on its own dummy_hcd UDC through\n"
		"raw-gadget; NAKs the first K (default 2) unanswered class or\n"
		"vendor requests of each device, STALLs the rest. -d MS unplugs\n"
		"a device MS ms into its first NAKed request. A device whose\n"
		"driver loops on its refusals is unplugged; -c FILE takes\n"
		"'unplug I COUNT SINCE_US' lines for a driver that floods the log.\n"
		"-w PASSES walks each probe's requests; -p FILE gets a line for\n"
		"each event that is news (not a request seen since the last plug).\n");
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

/* @path opened to append to (-l, -p), or exit 2 saying why. */
static FILE *append_to(const char *path)
{
	FILE *f = fopen(path, "a");

	if (!f) {
		fprintf(stderr, "hzrig-rawdev: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	return f;
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
	while ((opt = getopt(argc, argv, "k:w:d:u:l:c:p:h")) != -1) {
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
		case 'p':
			newsf = append_to(optarg);
			break;
		case 'l':
			logf = append_to(optarg);
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
