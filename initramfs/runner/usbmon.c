// SPDX-License-Identifier: GPL-2.0
/*
 * usbmon's binary interface, read with MON_IOCX_GETX. The kernel keeps the
 * structures in drivers/usb/mon/mon_bin.c rather than in a uapi header;
 * Documentation/usb/usbmon.rst documents them as the interface, and they are
 * declared here from that description.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "usbmon.h"

struct mon_hdr {
	uint64_t id;
	unsigned char type;		/* 'S', 'C', 'E' */
	unsigned char xfer_type;
	unsigned char epnum;
	unsigned char devnum;
	unsigned short busnum;
	char flag_setup;		/* 0: setup[] holds the setup packet */
	char flag_data;
	int64_t ts_sec;
	int32_t ts_usec;
	int status;
	unsigned int len_urb;
	unsigned int len_cap;
	unsigned char setup[8];
	int interval;
	int start_frame;
	unsigned int xfer_flags;
	unsigned int ndesc;
};

_Static_assert(sizeof(struct mon_hdr) == 64, "usbmon's extended header is 64 bytes");

struct mon_get {
	struct mon_hdr *hdr;
	void *data;
	size_t alloc;
};

struct mon_stats {
	uint32_t queued;
	uint32_t dropped;
};

#define MON_IOC_MAGIC		0x92
#define MON_IOCG_STATS		_IOR(MON_IOC_MAGIC, 3, struct mon_stats)
#define MON_IOCT_RING_SIZE	_IO(MON_IOC_MAGIC, 4)
#define MON_IOCX_GETX		_IOW(MON_IOC_MAGIC, 10, struct mon_get)

int usbmon_open(struct usbmon *m, unsigned int busnum, unsigned int devnum)
{
	char path[32];

	memset(m, 0, sizeof(*m));
	m->devnum = devnum;
	snprintf(path, sizeof(path), "/dev/usbmon%u", busnum);
	m->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	return m->fd < 0 ? -errno : 0;
}

void usbmon_close(struct usbmon *m)
{
	if (m->fd >= 0)
		close(m->fd);
	free(m->urbs);
	memset(m, 0, sizeof(*m));
	m->fd = -1;
}

static struct usbmon_urb *find_open(struct usbmon *m, uint64_t id)
{
	size_t i;

	for (i = m->n; i-- > 0;)
		if (m->urbs[i].id == id && m->urbs[i].complete_us < 0)
			return &m->urbs[i];
	return NULL;
}

static void record(struct usbmon *m, const struct usbmon_event *e)
{
	struct usbmon_urb *u;

	if (e->devnum != m->devnum)
		return;
	if (e->type == 'S') {
		if (m->n == m->cap) {
			size_t cap = m->cap ? 2 * m->cap : 64;
			void *p = realloc(m->urbs, cap * sizeof(*m->urbs));

			if (!p)
				return;
			m->urbs = p;
			m->cap = cap;
		}
		u = &m->urbs[m->n++];
		memset(u, 0, sizeof(*u));
		u->id = e->id;
		u->epnum = e->epnum;
		u->xfer_type = e->xfer_type;
		u->setup_seen = e->setup_seen;
		memcpy(u->setup, e->setup, sizeof(u->setup));
		u->submit_us = e->us;
		u->complete_us = -1;
	} else if (e->type == 'C' || e->type == 'E') {
		u = find_open(m, e->id);
		if (u) {
			u->complete_us = e->us;
			u->status = e->status;
		}
	}
}

bool usbmon_drain_to(struct usbmon *m,
		     void (*fn)(const struct usbmon_event *e, void *ctx),
		     void *ctx)
{
	struct mon_stats st = { 0 };
	struct mon_hdr h;
	struct mon_get g = { .hdr = &h, .data = NULL, .alloc = 0 };

	if (m->fd < 0)
		return false;
	while (!ioctl(m->fd, MON_IOCX_GETX, &g)) {
		struct usbmon_event e = {
			.id = h.id, .type = (char)h.type,
			.xfer_type = h.xfer_type, .epnum = h.epnum,
			.devnum = h.devnum, .busnum = h.busnum,
			.setup_seen = h.flag_setup == 0,
			.us = h.ts_sec * 1000000 + h.ts_usec, .status = h.status,
			.length = h.len_urb,
		};

		memcpy(e.setup, h.setup, sizeof(e.setup));
		fn(&e, ctx);
	}
	if (!ioctl(m->fd, MON_IOCG_STATS, &st) && st.dropped) {
		m->dropped += st.dropped;
		return false;
	}
	return true;
}

static void record_cb(const struct usbmon_event *e, void *ctx)
{
	record(ctx, e);
}

bool usbmon_drain(struct usbmon *m)
{
	return usbmon_drain_to(m, record_cb, m);
}

int usbmon_ring_size(struct usbmon *m, unsigned int bytes)
{
	return ioctl(m->fd, MON_IOCT_RING_SIZE, bytes) < 0 ? -errno : 0;
}

void usbmon_reset(struct usbmon *m)
{
	m->n = 0;
}

const struct usbmon_urb *usbmon_find(const struct usbmon *m, uint8_t epnum,
				     int request, int value, size_t nth)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		const struct usbmon_urb *u = &m->urbs[i];

		if (u->epnum != epnum || u->complete_us < 0)
			continue;
		if (!(epnum & 0x7f) &&
		    (!u->setup_seen || u->setup[1] != request ||
		     (u->setup[2] | u->setup[3] << 8) != value))
			continue;
		if (!nth--)
			return u;
	}
	return NULL;
}

int64_t usbmon_real_minus_mono_ns(void)
{
	struct timespec a, r, b;

	/* the realtime read bracketed by two monotonic ones */
	clock_gettime(CLOCK_MONOTONIC, &a);
	clock_gettime(CLOCK_REALTIME, &r);
	clock_gettime(CLOCK_MONOTONIC, &b);
	return (r.tv_sec * 1000000000LL + r.tv_nsec) -
	       ((a.tv_sec + b.tv_sec) * 1000000000LL + a.tv_nsec + b.tv_nsec) / 2;
}
