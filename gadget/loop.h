/* SPDX-License-Identifier: GPL-2.0 */
/*
 * loop.h - is a driver looping on its device? (hzrig-rawdev; docs/sweep.md,
 * "A looping driver is contained"). The device counts what it refuses:
 * each transfer that ended in an error and each clear-halt the host sent.
 * A driver that resubmits on STALL after clearing the halt makes two a
 * cycle, as fast as the device refuses; a firmware download's answered
 * requests do not count. More than @rate in each of @secs whole seconds
 * running is a loop, and the device is unplugged. Free of I/O, so that
 * tests/unit/test_loop.c can run it on the build machine.
 */
#ifndef HZRIG_GADGET_LOOP_H
#define HZRIG_GADGET_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#define HZG_LOOP_RATE	200	/* refusals a second, in ... */
#define HZG_LOOP_SECS	2	/* ... this many seconds running */

struct hzg_loop {
	uint64_t win_us;	/* the current one-second window's start */
	unsigned int in_win;	/* refusals in it */
	unsigned int hot;	/* whole windows before it over the rate */
	uint64_t hot_us;	/* the first hot window's start */
	unsigned int total;	/* refusals since then */
	bool started;
};

/*
 * One refusal at @now_us (a monotonic clock). True when it completes a
 * loop: more than @rate refusals in each of @secs one-second windows in a
 * row; then @l says since when (hot_us) and how many (total).
 */
bool hzg_loop_note(struct hzg_loop *l, uint64_t now_us, unsigned int rate,
		   unsigned int secs);

#endif /* HZRIG_GADGET_LOOP_H */
