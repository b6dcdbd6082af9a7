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

#include <limits.h>
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

/*
 * A shape's trial (docs/sweep.md, "Devices that do not bind"): a device
 * plugged in again in its next shape first answers every request; the
 * shape is walked only when that trial made more counted requests than
 * any pass of the device before it (its probe, or its open, got further
 * in this shape) and at least one of them no plug of the device made
 * before (fresh: a trial that answers all goes further than passes that
 * stalled, and a driver that never binds goes as far in every shape:
 * gspca_m5602's five shapes were walked to the same sensor probe, 255 s
 * of its batch), so a shape that changes nothing costs one quiet pass
 * where it cost a whole walk.
 */
#define HZG_WALK_TRIAL	UINT_MAX

#define HZG_WALK_QUIET_US	1500000ULL	/* a pass is over this long quiet */
/*
 * A pass that answered all its requests (the last of a walk: its driver
 * most likely bound) waits this long quiet before the walk is over: the
 * guest opens what the driver made (a network interface up, a tty), and
 * open()'s requests are the walk's too; in a batch of 32 the guest's
 * opener comes seconds after the probe (ipheth's rx URB came after the
 * walk was over). The guest's "hold I" (it saw the driver bind) counts
 * as the device's activity.
 */
#define HZG_WALK_OPEN_US	5000000ULL
#define HZG_WALK_PASS_US	30000000ULL	/* a pass's longest: a poll that NAKs */
#define HZG_WALK_TOTAL_US	90000000ULL	/* a device's walk, all passes */

struct hzg_walk {
	unsigned int pass;	/* from 1; HZG_WALK_TRIAL a shape's trial */
	unsigned int max_pass;
	unsigned int in_pass;	/* requests counted this pass */
	bool nak_pending;	/* request pass NAKed, the host still waits */
	uint64_t start_us;	/* the walk's start (its first plug) */
	uint64_t pass_us;	/* this pass's plug */
	uint64_t active_us;	/* the device's last event */
	unsigned int most;	/* the most requests a pass counted before this one */
	unsigned int fresh;	/* this pass's requests no plug made before */
};

enum hzg_walk_next { HZG_WALK_WAIT, HZG_WALK_REPLUG, HZG_WALK_DONE };

/*
 * At @now_us: go on waiting, plug in again for the next pass, or stop. A
 * trial's next pass is pass 1 of its shape's walk.
 */
enum hzg_walk_next hzg_walk_next(const struct hzg_walk *w, uint64_t now_us);

/*
 * What a device did that is news (hzrig-rawdev -p; the sweep's settle
 * waits until none comes): a request it has not seen since it was last
 * plugged in. A driver's poll, the same request again and again, is not;
 * past HZG_SEEN_MAX different ones, everything is.
 */
#define HZG_SEEN_MAX	64

struct hzg_seen {
	uint64_t key[HZG_SEEN_MAX];
	unsigned int n;
};

/* True when @key is news to @s (and is then remembered). */
bool hzg_seen_new(struct hzg_seen *s, uint64_t key);

/*
 * Every counted request a device made, all its plugs (a trial's fresh
 * ones); past HZG_KNOWN_MAX, each is fresh.
 */
#define HZG_KNOWN_MAX	512

struct hzg_known {
	uint64_t key[HZG_KNOWN_MAX];
	unsigned int n;
};

/* True when no plug of the device made @key before (now remembered). */
bool hzg_known_new(struct hzg_known *k, uint64_t key);

#endif /* HZRIG_GADGET_LOOP_H */
