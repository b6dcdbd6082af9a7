/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The userspace paths: the same cases the host driver runs, made from this
 * program through usbfs (/dev/bus/usb/BBB/DDD, synchronous ioctls) or
 * through Debian's libusb-1.0 (synchronous wrappers or one asynchronous
 * transfer completed by the library's event loop).
 *
 * Sharing the device with the host driver: the driver is detached from
 * interface 0 (USBDEVFS_DISCONNECT) while a userspace path runs and bound
 * again (USBDEVFS_CONNECT) before the next kernel case or noise probe; the
 * gadget keeps one interface. See docs/measurement.md, "Userspace paths".
 *
 * The protocol is the driver's (include/hzrig/wire.h): RESET the case's
 * target, then for each repetition ARM + SYNC over ep0 and the call.
 */
#ifndef HZRIG_RUNNER_USERPATH_H
#define HZRIG_RUNNER_USERPATH_H

#include <stdbool.h>
#include <stdint.h>

#include "plan/plan.h"
#include "usbmon.h"

struct libusb_context;
struct libusb_device_handle;

struct userpath {
	int fd;				/* usbfs node, interface 0 claimed; -1 */
	unsigned int busnum, devnum;
	char node[64];
	uint8_t ep_bulk_in, ep_bulk_out, ep_int_in;	/* 0: absent */
	uint32_t seq;			/* last seq armed from userspace */
	uint64_t tick_ns;		/* TICK_NSEC of the guest's HZ */
	uint64_t grid_ns;		/* where ticks fall, mod tick_ns */
	struct libusb_context *ctx;	/* created once, kept */
	struct libusb_device_handle *handle;	/* wraps fd */
	struct usbmon mon;
	int mon_err;			/* usbmon_open()'s -errno, 0: open */
	char libusb_version[32];	/* "1.0.26.11724" */
};

/* CLOCK_MONOTONIC in ns: the clock every timing of the runner is read on. */
int64_t now_ns(void);

/*
 * The device @vid:@pid in /sys/bus/usb/devices: its bus and address, and
 * (if @name) its sysfs name ("1-1"). 0, -ENODEV, or -errno of the listing.
 */
int usb_sysfs_find(uint16_t vid, uint16_t pid, unsigned int *busnum,
		   unsigned int *devnum, char *name, size_t namelen);

/* Prepare (no device access yet): @hz and the driver's tick grid. */
void userpath_init(struct userpath *u, unsigned int hz, uint64_t grid_ns);

/*
 * Find the device (sysfs: idVendor/idProduct of include/hzrig/wire.h), read
 * its endpoints from the usbfs node's descriptors and open usbmon on its
 * bus. Needs no claim: the host driver may stay bound. 0 or -errno.
 */
int userpath_find(struct userpath *u, char *err, size_t errlen);

/*
 * Take the device from the host driver: find it in sysfs, open its usbfs
 * node, detach the driver, claim interface 0, wrap the node for libusb.
 * 0 or -errno, with what went wrong in @err.
 */
int userpath_acquire(struct userpath *u, char *err, size_t errlen);

/* Give it back: release, close, bind the host driver again. */
void userpath_release(struct userpath *u);

/*
 * Run the @pc->reps repetitions of @pc on its path, as the driver's
 * HZRIG_IOC_RUN_CASE would: fills @s (elapsed_ns from this program's
 * CLOCK_MONOTONIC around the call) and @urb_ns (the test URB's lifetime
 * from usbmon, -1 when not seen). 0, or -errno when the case cannot run.
 */
int userpath_run_case(struct userpath *u, const struct hzrig_plan_case *pc,
		      struct hzrig_sample *s, int64_t *urb_ns);

/* Before a kernel-path case: forget earlier URBs. */
void userpath_kernel_mark(struct userpath *u);
/* Pair the URBs of a kernel-path case (just run) to its samples. */
void userpath_kernel_urbs(struct userpath *u, const struct hzrig_plan_case *pc,
			  const struct hzrig_sample *s, int64_t *urb_ns);

/* -errno for a libusb error code (what the kernel path would return). */
int userpath_libusb_errno(int err);

#endif /* HZRIG_RUNNER_USERPATH_H */
