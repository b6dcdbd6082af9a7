/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Path usbmon: an unmodified in-tree driver's own call, timed by usbmon
 * (docs/checker.md, "Measuring the drivers"). The gadget presents the
 * driver's device from /etc/hzrig/devices/<driver>.device and NAKs the
 * request the checker flagged; each repetition binds the driver to the
 * device once (the first by loading its module), its probe makes the call,
 * and usbmon's submit and completion stamps of that URB are the sample.
 */
#ifndef HZRIG_RUNNER_DRIVERS_H
#define HZRIG_RUNNER_DRIVERS_H

#include <stddef.h>
#include <stdint.h>

#include <hzrig/ioctl.h>

#include "plan/plan.h"

#define DRIVERS_DIR	"/etc/hzrig/devices"
#define DRIVERS_RTT_N	200	/* answered round trips timed per case */

/* jiffies_lag of a usbmon sample whose timer the trace did not show */
#define DRIVERS_LAG_NONE	INT32_MIN

/*
 * Stale jiffies for the drivers' own calls (docs/model.md §10): the tick
 * grid hzrig_host learnt at load (@ref_ns, @ref_jiffies, @tick_ns) and
 * tracefs' timer:timer_start events. 0 when both are there, else -errno
 * with @err saying what is missing; then samples carry no jiffies_lag.
 */
int drivers_ticks_init(int64_t ref_ns, uint64_t ref_jiffies, uint64_t tick_ns,
		       char *err, size_t errlen);

/*
 * Run the @pc->reps repetitions of a usbmon case at @hz; the file:line
 * of the driver's call (the device file's site=) goes to @site. Fills
 * s[0..*filled): elapsed_ns and urb_ns[] are usbmon's S..C, status the
 * call's (-ETIMEDOUT for a URB killed at its timeout), timeout_arg what
 * @pc's mode and timeout make of it at @hz, and with drivers_ticks_init()
 * done start_jiffies and jiffies_lag from the timer the call armed
 * (DRIVERS_LAG_NONE when the trace did not show it). 0 or -errno, with
 * @err saying what went wrong.
 */
int drivers_run_case(const struct hzrig_plan_case *pc, unsigned int hz,
		     struct hzrig_sample *s, int64_t *urb_ns, uint32_t *filled,
		     char *site, size_t sitelen, char *err, size_t errlen);

/*
 * The round trips of the last case's device before its first probe: a
 * usbfs GET_DESCRIPTOR, answered at once (gadgetfs has the descriptors),
 * timed from userspace like the kernel path's noise probe. Fills up to
 * DRIVERS_RTT_N into @rtt; returns how many.
 */
size_t drivers_last_rtt(int64_t *rtt);

#endif /* HZRIG_RUNNER_DRIVERS_H */
