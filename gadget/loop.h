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

/*
 * The walk (hzrig-rawdev -w; docs/sweep.md, "Each request in turn"): pass
 * p answers a probe's requests 1 .. p-1, NAKs request p and stalls the
 * rest; then the device is plugged in again for pass p + 1, until a pass
 * sees fewer than p requests (the probe makes no request p) or the walk's
 * bounds are hit. Counted requests are the class and vendor control
 * requests no device-file rule decides, and bulk and interrupt transfers.
 */
enum hzg_walk_act { HZG_WALK_ANSWER, HZG_WALK_NAK, HZG_WALK_STALL };

/* What request @j (from 1) of pass @p gets. */
enum hzg_walk_act hzg_walk_action(unsigned int p, unsigned int j);

#define HZG_WALK_QUIET_US	1500000ULL	/* a pass is over this long quiet */
#define HZG_WALK_PASS_US	30000000ULL	/* a pass's longest: a poll that NAKs */
#define HZG_WALK_TOTAL_US	90000000ULL	/* a device's walk, all passes */

struct hzg_walk {
	unsigned int pass;	/* from 1 */
	unsigned int max_pass;
	unsigned int in_pass;	/* requests counted this pass */
	bool nak_pending;	/* request pass NAKed, the host still waits */
	uint64_t start_us;	/* the walk's start (its first plug) */
	uint64_t pass_us;	/* this pass's plug */
	uint64_t active_us;	/* the device's last event */
};

enum hzg_walk_next { HZG_WALK_WAIT, HZG_WALK_REPLUG, HZG_WALK_DONE };

/* At @now_us: go on waiting, plug in again for the next pass, or stop. */
enum hzg_walk_next hzg_walk_next(const struct hzg_walk *w, uint64_t now_us);

#endif /* HZRIG_GADGET_LOOP_H */
