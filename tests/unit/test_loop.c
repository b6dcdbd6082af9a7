// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of gadget/loop.c: when hzrig-rawdev takes a driver's
 * refusals for a loop and unplugs its device.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "loop.h"

/* @n refusals evenly over [@from_us, @from_us + @span_us): the first true's index, or -1. */
static int feed(struct hzg_loop *l, uint64_t from_us, uint64_t span_us,
		unsigned int n)
{
	int hit = -1;

	for (unsigned int i = 0; i < n; i++)
		if (hzg_loop_note(l, from_us + span_us * i / n, HZG_LOOP_RATE,
				  HZG_LOOP_SECS) && hit < 0)
			hit = (int)i;
	return hit;
}

/* 400 a second (STALL and clear-halt every 5 ms): a loop in the second second. */
static void loop_found_in_second_second(void **state)
{
	struct hzg_loop l = { 0 };

	(void)state;
	assert_int_equal(feed(&l, 5000000, 1000000, 400), -1);
	assert_int_equal(feed(&l, 6000000, 1000000, 400), HZG_LOOP_RATE);
	/* since the first hot second, all of them counted */
	assert_int_equal(l.hot_us, 5000000);
	assert_int_equal(l.total, 800);
}

/* Exactly the rate a second is not more than it. */
static void at_the_rate_is_no_loop(void **state)
{
	struct hzg_loop l = { 0 };

	(void)state;
	for (int s = 0; s < 10; s++)
		assert_int_equal(feed(&l, 1000000ULL * (uint64_t)(s + 1), 1000000,
				      HZG_LOOP_RATE), -1);
}

/* A burst of one second (a firmware's refusals), then quiet: no loop. */
static void one_busy_second_is_no_loop(void **state)
{
	struct hzg_loop l = { 0 };

	(void)state;
	assert_int_equal(feed(&l, 0, 1000000, 1000), -1);
	assert_int_equal(feed(&l, 1000000, 1000000, 10), -1);
	assert_int_equal(feed(&l, 2000000, 1000000, 1000), -1);
	/* but a second busy one right after is */
	assert_int_equal(feed(&l, 3000000, 1000000, 1000), HZG_LOOP_RATE);
	assert_int_equal(l.hot_us, 2000000);
}

/* Two busy seconds with a silent one between: no loop. */
static void a_gap_breaks_the_run(void **state)
{
	struct hzg_loop l = { 0 };

	(void)state;
	assert_int_equal(feed(&l, 0, 1000000, 500), -1);
	assert_int_equal(feed(&l, 2500000, 1000000, 150), -1);
	assert_int_equal(l.hot, 0);
}

/* A clock that goes back starts over instead of counting a loop. */
static void clock_back_starts_over(void **state)
{
	struct hzg_loop l = { 0 };

	(void)state;
	assert_int_equal(feed(&l, 9000000, 1000000, 500), -1);
	assert_int_equal(feed(&l, 1000000, 1000000, 150), -1);
	assert_int_equal(l.hot, 0);
	assert_int_equal(l.win_us, 1000000);
}

#define CTL(type, req, value)	((uint64_t)(type) << 48 | (uint64_t)(req) << 40 | \
				 (uint64_t)(value) << 24)
#define EP(ep)			(1ULL << 62 | (ep))

/* One pass of @w over requests @keys (@n of them): each one's action. */
static void pass_over(struct hzg_walk *w, const uint64_t *keys, unsigned int n,
		      enum hzg_walk_act *act)
{
	for (unsigned int i = 0; i < n; i++)
		act[i] = hzg_walk_decide(w, hzg_walk_kind(keys[i]));
}

/*
 * Round 1 NAKs the first request of each kind in turn (a register
 * helper's writes are one kind, whatever register), answering those
 * before and stalling those after; a pass with no new kind answers all,
 * and round 2 then NAKs in order the requests round 1 did not.
 */
static void walk_kinds(void **state)
{
	/* write, write, read, write, read, an interrupt endpoint */
	static const uint64_t probe[] = {
		CTL(0x40, 1, 16), CTL(0x40, 1, 2), CTL(0xc0, 0, 513),
		CTL(0x40, 1, 160), CTL(0xc0, 0, 514), EP(0x81),
	};
	enum hzg_walk_act act[6];
	struct hzg_walk w = { .pass = 1, .max_pass = 10 };

	(void)state;
	/* kinds differ by bRequestType and bRequest, not wValue or wIndex */
	assert_true(hzg_walk_kind(CTL(0x40, 1, 16)) == hzg_walk_kind(CTL(0x40, 1, 2) | 7 << 8));
	assert_true(hzg_walk_kind(CTL(0x40, 1, 16)) != hzg_walk_kind(CTL(0xc0, 1, 16)));
	assert_true(hzg_walk_kind(EP(0x81)) != hzg_walk_kind(EP(0x02)));
	/* pass 1: the first write NAKed, the rest stalled */
	pass_over(&w, probe, 1, act);
	assert_int_equal(act[0], HZG_WALK_NAK);
	assert_int_equal(w.naked_j, 1);
	assert_true(w.nak_pending);
	pass_over(&w, probe + 1, 1, act);
	assert_int_equal(act[0], HZG_WALK_STALL);
	/* pass 2: writes answered, the first read NAKed */
	hzg_walk_advance(&w);
	assert_int_equal(w.pass, 2);
	pass_over(&w, probe, 4, act);
	assert_int_equal(act[0], HZG_WALK_ANSWER);
	assert_int_equal(act[1], HZG_WALK_ANSWER);
	assert_int_equal(act[2], HZG_WALK_NAK);
	assert_int_equal(act[3], HZG_WALK_STALL);
	/* pass 3: the endpoint, request 6 */
	hzg_walk_advance(&w);
	pass_over(&w, probe, 6, act);
	for (int i = 0; i < 5; i++)
		assert_int_equal(act[i], HZG_WALK_ANSWER);
	assert_int_equal(act[5], HZG_WALK_NAK);
	assert_int_equal(w.naked_j, 6);
	/* pass 4: no new kind; all answered, nothing NAKed */
	hzg_walk_advance(&w);
	pass_over(&w, probe, 6, act);
	for (int i = 0; i < 6; i++)
		assert_int_equal(act[i], HZG_WALK_ANSWER);
	assert_int_equal(w.naked_j, 0);
	assert_int_equal(w.naked_passes, 3);
	/* round 2: requests 2, 4, 5 in turn (1, 3, 6 were round 1's) */
	hzg_walk_advance(&w);
	assert_true(w.in_order);
	assert_int_equal(w.target, 2);
	pass_over(&w, probe, 3, act);
	assert_int_equal(act[0], HZG_WALK_ANSWER);
	assert_int_equal(act[1], HZG_WALK_NAK);
	assert_int_equal(act[2], HZG_WALK_STALL);
	hzg_walk_advance(&w);
	assert_int_equal(w.target, 4);
	hzg_walk_advance(&w);
	assert_int_equal(w.target, 5);
	hzg_walk_advance(&w);
	assert_int_equal(w.target, 7);
	/* restarted (a shape's walk): round 1 anew */
	hzg_walk_restart(&w);
	assert_int_equal(w.pass, 1);
	pass_over(&w, probe, 2, act);
	assert_int_equal(act[0], HZG_WALK_NAK);
	assert_int_equal(w.naked_passes, 1);
}

/* When a pass is over, and when the walk is. */
static void walk_next(void **state)
{
	struct hzg_walk w = { .pass = 2, .max_pass = 6, .in_pass = 2, .naked_j = 2,
			      .start_us = 1000000, .pass_us = 5000000,
			      .active_us = 6000000 };

	(void)state;
	/* request 2 NAKed and pending: wait, however quiet */
	w.nak_pending = true;
	assert_int_equal(hzg_walk_next(&w, 6000000 + 10 * HZG_WALK_QUIET_US), HZG_WALK_WAIT);
	/* the host gave up; quiet not yet long enough */
	w.nak_pending = false;
	assert_int_equal(hzg_walk_next(&w, 6000000 + HZG_WALK_QUIET_US - 1), HZG_WALK_WAIT);
	/* quiet: the next pass */
	assert_int_equal(hzg_walk_next(&w, 6000000 + HZG_WALK_QUIET_US), HZG_WALK_REPLUG);
	/*
	 * round 1, a pass that NAKed nothing (no new kind): it answered all;
	 * its open may still come (the guest opens what the driver made):
	 * over only once quiet for HZG_WALK_OPEN_US; then round 2 when it
	 * saw a request round 1 did not NAK, else done
	 */
	w.naked_j = 0;
	w.nkinds = 2;
	w.kind_j[0] = 1;
	w.kind_j[1] = 2;
	w.in_pass = 3;
	assert_int_equal(hzg_walk_next(&w, 6000000 + HZG_WALK_QUIET_US), HZG_WALK_WAIT);
	assert_int_equal(hzg_walk_next(&w, 6000000 + HZG_WALK_OPEN_US - 1), HZG_WALK_WAIT);
	assert_int_equal(hzg_walk_next(&w, 6000000 + HZG_WALK_OPEN_US), HZG_WALK_REPLUG);
	w.in_pass = 2;
	assert_int_equal(hzg_walk_next(&w, 6000000 + HZG_WALK_OPEN_US), HZG_WALK_DONE);
	/* round 2, its request never came: the probe has no more, done */
	w.in_order = true;
	w.in_pass = 9;
	assert_int_equal(hzg_walk_next(&w, 6000000 + HZG_WALK_QUIET_US), HZG_WALK_WAIT);
	assert_int_equal(hzg_walk_next(&w, 6000000 + HZG_WALK_OPEN_US), HZG_WALK_DONE);
	w.in_order = false;
	/* the last pass (its request NAKed), or the walk's time spent: done */
	w.naked_j = 2;
	w.pass = w.max_pass;
	assert_int_equal(hzg_walk_next(&w, 6000000 + HZG_WALK_QUIET_US), HZG_WALK_DONE);
	w.pass = 2;
	w.active_us = w.start_us + HZG_WALK_TOTAL_US;
	w.pass_us = w.active_us - 1;
	assert_int_equal(hzg_walk_next(&w, w.active_us + HZG_WALK_QUIET_US), HZG_WALK_DONE);
	/* a NAK pending past the pass's limit (a poll): the next pass anyway */
	w.start_us = 1000000;
	w.pass_us = 5000000;
	w.active_us = 6000000;
	w.nak_pending = true;
	assert_int_equal(hzg_walk_next(&w, 5000000 + HZG_WALK_PASS_US), HZG_WALK_REPLUG);
}

/*
 * A shape's trial answers all; quiet, its shape is walked when it made
 * more requests than any pass before and one no plug made before, else
 * its walk is done at once.
 */
static void walk_trial(void **state)
{
	struct hzg_walk w = { .pass = HZG_WALK_TRIAL, .max_pass = 6,
			      .in_pass = 5, .most = 5, .fresh = 1, .start_us = 1000000,
			      .pass_us = 1000000, .active_us = 3000000 };

	(void)state;
	/* every request of a trial is answered, and none NAKed */
	assert_int_equal(hzg_walk_decide(&w, 1), HZG_WALK_ANSWER);
	assert_int_equal(hzg_walk_decide(&w, 2), HZG_WALK_ANSWER);
	assert_int_equal(w.naked_j, 0);
	w.in_pass = 5;
	/* not quiet yet */
	assert_int_equal(hzg_walk_next(&w, 3000000 + HZG_WALK_QUIET_US - 1), HZG_WALK_WAIT);
	/*
	 * as many as before: nothing new in this shape yet; its probe may
	 * still be on its way (a busy guest), so open()'s wait, then done
	 */
	assert_int_equal(hzg_walk_next(&w, 3000000 + HZG_WALK_QUIET_US), HZG_WALK_WAIT);
	assert_int_equal(hzg_walk_next(&w, 3000000 + HZG_WALK_OPEN_US - 1), HZG_WALK_WAIT);
	assert_int_equal(hzg_walk_next(&w, 3000000 + HZG_WALK_OPEN_US), HZG_WALK_DONE);
	/* one more: walked, as soon as it is quiet */
	w.in_pass = 6;
	assert_int_equal(hzg_walk_next(&w, 3000000 + HZG_WALK_QUIET_US - 1), HZG_WALK_WAIT);
	assert_int_equal(hzg_walk_next(&w, 3000000 + HZG_WALK_QUIET_US), HZG_WALK_REPLUG);
	/*
	 * more, but every one made by a plug before (a probe that fails the
	 * same way in every shape, past the passes that stalled): done
	 */
	w.fresh = 0;
	assert_int_equal(hzg_walk_next(&w, 3000000 + HZG_WALK_QUIET_US), HZG_WALK_WAIT);
	assert_int_equal(hzg_walk_next(&w, 3000000 + HZG_WALK_OPEN_US), HZG_WALK_DONE);
	w.fresh = 1;
	/* a trial never quiet ends at the pass's limit all the same */
	w.active_us = w.pass_us + HZG_WALK_PASS_US;
	assert_int_equal(hzg_walk_next(&w, w.pass_us + HZG_WALK_PASS_US), HZG_WALK_REPLUG);
	w.in_pass = 0;
	assert_int_equal(hzg_walk_next(&w, w.pass_us + HZG_WALK_PASS_US), HZG_WALK_DONE);
	/* the trial's own pass count is not bounded by max_pass */
	w.in_pass = 7;
	w.max_pass = 1;
	assert_int_equal(hzg_walk_next(&w, w.pass_us + HZG_WALK_PASS_US), HZG_WALK_REPLUG);
}

/* Known: all a device's plugs; a full set takes every key as fresh. */
static void known_fresh(void **state)
{
	static struct hzg_known k;
	unsigned int i;

	(void)state;
	assert_true(hzg_known_new(&k, 7));
	assert_false(hzg_known_new(&k, 7));
	for (i = 0; k.n < HZG_KNOWN_MAX; i++)
		assert_true(hzg_known_new(&k, 100 + i));
	assert_false(hzg_known_new(&k, 7));
	assert_false(hzg_known_new(&k, 100 + i - 1));
	assert_true(hzg_known_new(&k, 9));
	assert_true(hzg_known_new(&k, 9));
	assert_int_equal(k.n, HZG_KNOWN_MAX);
}

/* News: a request not seen before; a poll is not; a full set takes all as news. */
static void seen_news(void **state)
{
	struct hzg_seen s = { .n = 0 };
	unsigned int i;

	(void)state;
	assert_true(hzg_seen_new(&s, 42));
	assert_false(hzg_seen_new(&s, 42));
	assert_true(hzg_seen_new(&s, 43));
	assert_false(hzg_seen_new(&s, 42));
	for (i = 0; s.n < HZG_SEEN_MAX; i++)
		assert_true(hzg_seen_new(&s, 1000 + i));
	/* remembered to the last */
	assert_false(hzg_seen_new(&s, 1000 + i - 1));
	/* full: a new key is news each time */
	assert_true(hzg_seen_new(&s, 5));
	assert_true(hzg_seen_new(&s, 5));
	assert_int_equal(s.n, HZG_SEEN_MAX);
	/* a plug forgets */
	s.n = 0;
	assert_true(hzg_seen_new(&s, 42));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(loop_found_in_second_second),
		cmocka_unit_test(at_the_rate_is_no_loop),
		cmocka_unit_test(one_busy_second_is_no_loop),
		cmocka_unit_test(a_gap_breaks_the_run),
		cmocka_unit_test(clock_back_starts_over),
		cmocka_unit_test(walk_kinds),
		cmocka_unit_test(walk_next),
		cmocka_unit_test(walk_trial),
		cmocka_unit_test(known_fresh),
		cmocka_unit_test(seen_news),
	};

	return cmocka_run_group_tests_name("loop", tests, NULL, NULL);
}
