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
 * The walk (hzrig-rawdev -w; docs/sweep.md, "Each request in turn"): each
 * pass NAKs one request of a probe (or of its open), answers the ones
 * before it (zeros) and stalls the rest; then the device is plugged in
 * again for the next pass, until the walk runs out of requests or its
 * bounds are hit. Counted requests are the class and vendor control
 * requests no device-file rule decides, and bulk and interrupt transfers.
 * Which request a pass NAKs, in two rounds:
 *   1. by kind: the first request of a kind no pass NAKed before (a
 *      control request's bRequestType and bRequest, a transfer's
 *      endpoint). A driver's register helper makes most requests of a
 *      probe, all of one kind and from one call site: au0828's six
 *      passes NAKed six register writes of one helper, one site, where
 *      by kind its second pass NAKs its first read. A pass in which no
 *      new kind came answered all, and ends the round;
 *   2. in order: the first request, then the next, and so on, that round
 *      1 did not NAK (two call sites that make requests of one kind:
 *      mos7840's six sites of two kinds).
 * The walk is done when a pass of round 2 never saw its request, or
 * after its passes or its time.
 */
enum hzg_walk_act { HZG_WALK_ANSWER, HZG_WALK_NAK, HZG_WALK_STALL };

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
#define HZG_WALK_KINDS_MAX	64	/* -w's limit on passes */

struct hzg_walk {
	unsigned int pass;	/* from 1; HZG_WALK_TRIAL a shape's trial */
	unsigned int max_pass;
	unsigned int in_pass;	/* requests counted this pass */
	unsigned int naked_j;	/* the request this pass NAKed; 0 none yet */
	bool nak_pending;	/* that request NAKed, the host still waits */
	bool in_order;		/* round 2: every kind NAKed once */
	unsigned int target;	/* round 2: the request this pass NAKs */
	unsigned int naked_passes;	/* the passes that NAKed a request */
	/* round 1's kinds NAKed, and which request of its pass each was */
	uint64_t kind[HZG_WALK_KINDS_MAX];
	unsigned int kind_j[HZG_WALK_KINDS_MAX];
	unsigned int nkinds;
	uint64_t start_us;	/* the walk's start (its first plug) */
	uint64_t pass_us;	/* this pass's plug */
	uint64_t active_us;	/* the device's last event */
	unsigned int most;	/* the most requests a pass counted before this one */
	unsigned int fresh;	/* this pass's requests no plug made before */
};

enum hzg_walk_next { HZG_WALK_WAIT, HZG_WALK_REPLUG, HZG_WALK_DONE };

/*
 * The kind of a counted request (its walk key: a control request's
 * bRequestType << 48 | bRequest << 40 | wValue << 24 | wIndex << 8, a
 * transfer's 1 << 62 | endpoint): what round 1 NAKs one of.
 */
uint64_t hzg_walk_kind(uint64_t key);

/*
 * What the next counted request of this pass, of kind @kind, gets (it is
 * counted, and a NAK is the pass's one: naked_j, nak_pending). A trial
 * answers all.
 */
enum hzg_walk_act hzg_walk_decide(struct hzg_walk *w, uint64_t kind);

/*
 * The next pass begins (hzg_walk_next() said HZG_WALK_REPLUG on a pass
 * that was not a trial): round 2 when this pass NAKed nothing, and its
 * target; the pass's counts start again.
 */
void hzg_walk_advance(struct hzg_walk *w);

/* A shape's walk begins (its trial got further): pass 1 of round 1. */
void hzg_walk_restart(struct hzg_walk *w);

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
