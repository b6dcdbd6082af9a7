/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's own view of a URB: usbmon's binary interface
 * (Documentation/usb/usbmon.rst, "Raw binary format and API"), one bus.
 * Each URB gives an 'S' event when submitted (usbmon_urb_submit(), from
 * usb_hcd_submit_urb()) and a 'C' event when given back
 * (usbmon_urb_complete(), from __usb_hcd_giveback_urb()), both stamped with
 * ktime_get_real_ts64() in microseconds. The runner drains the events after
 * each call and pairs them to the call's test URB.
 */
#ifndef HZRIG_RUNNER_USBMON_H
#define HZRIG_RUNNER_USBMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One URB of the device under test, as usbmon saw it. */
struct usbmon_urb {
	uint64_t id;		/* the kernel's URB address */
	uint8_t epnum;		/* endpoint address, bit 7 = IN */
	uint8_t xfer_type;	/* 0 iso, 1 intr, 2 control, 3 bulk */
	bool setup_seen;	/* setup[] is valid (control submissions) */
	uint8_t setup[8];
	int64_t submit_us;	/* realtime of 'S' */
	int64_t complete_us;	/* realtime of 'C'; -1 while in flight */
	int status;		/* of 'C' */
};

struct usbmon {
	int fd;			/* -1: not available */
	unsigned int devnum;	/* only this device's URBs are kept */
	struct usbmon_urb *urbs;
	size_t n, cap;
	uint32_t dropped;	/* events the ring lost (MON_IOCG_STATS) */
};

/*
 * Open /dev/usbmon<@busnum> and keep the URBs of device @devnum. Returns 0,
 * or -errno (no CONFIG_USB_MON, no node): then every lookup finds nothing.
 */
int usbmon_open(struct usbmon *m, unsigned int busnum, unsigned int devnum);
void usbmon_close(struct usbmon *m);

/* One event as usbmon gives it: any bus, any device. */
struct usbmon_event {
	uint64_t id;		/* the URB's address */
	char type;		/* 'S', 'C', 'E' */
	uint8_t xfer_type, epnum, devnum;
	uint16_t busnum;
	bool setup_seen;
	uint8_t setup[8];
	int64_t us;		/* realtime */
	int status;
	unsigned int length;	/* the URB's: asked for ('S'), done (else) */
};

/*
 * Hand every pending event to @fn (non-blocking); usbmon_open() with bus
 * 0 sees every bus. False if events were dropped.
 */
bool usbmon_drain_to(struct usbmon *m,
		     void (*fn)(const struct usbmon_event *e, void *ctx),
		     void *ctx);
/* The ring's size in bytes (MON_IOCT_RING_SIZE); 0 or -errno. */
int usbmon_ring_size(struct usbmon *m, unsigned int bytes);

/* Forget what was collected, then read the events pending now. */
void usbmon_reset(struct usbmon *m);
/* Read every pending event (non-blocking). False if events were dropped. */
bool usbmon_drain(struct usbmon *m);

/*
 * The @nth (from 0) completed URB on endpoint @epnum, and for control
 * endpoints (@epnum & 0x7f == 0) only those whose setup has bRequest
 * @request and wValue @value. NULL if there is none.
 */
const struct usbmon_urb *usbmon_find(const struct usbmon *m, uint8_t epnum,
				     int request, int value, size_t nth);

/*
 * CLOCK_REALTIME (usbmon's stamps) less CLOCK_MONOTONIC (the trace's, the
 * guest's marks'), read now, in ns: what turns a usbmon stamp into
 * monotonic time.
 */
int64_t usbmon_real_minus_mono_ns(void);

/* Lifetime of a URB in ns, from its 'S' to its 'C'. */
static inline int64_t usbmon_urb_ns(const struct usbmon_urb *u)
{
	return (u->complete_us - u->submit_us) * 1000;
}

#endif /* HZRIG_RUNNER_USBMON_H */
