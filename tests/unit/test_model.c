// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the analytical model (rig/model/model.c).
 *
 * The expected numbers below were derived by hand from the 6.1.192 source,
 * not computed by the code under test. The rules used (docs/model.md has the
 * line references):
 *
 *  clamp   drivers/usb/core/message.c:65-67: !killable and (T <= 0 or
 *          T > 60000) -> 60000; killable and T <= 0 -> MAX_SCHEDULE_TIMEOUT.
 *  n       include/linux/jiffies.h:308-311: HZ | 1000 -> n = ceil(T / (1000/HZ));
 *          jiffies.h:330-336 otherwise, which for HZ=300 is ceil(3T/10)
 *          (checked below against the constants bc prints for HZ=300).
 *  level   kernel/time/timer.c:164 LVL_START(l) = 63 << 3(l-1):
 *          63, 504, 4032, 32256, 258048, 2064384, 16515072, 132120576,
 *          1056964608; timer.c:533-566 level = first l with n < LVL_START(l+1);
 *          LVL_DEPTH 9 above HZ=100, 8 at HZ=100 (timer.c:173-177).
 *  g       timer.c:157 LVL_GRAN(l) = 8^l; timer.c:516-531 rounds the absolute
 *          expiry up to the next multiple of g, strictly after it.
 *  window  tau = TICK_NSEC = (1e9 + HZ/2) / HZ (include/vdso/jiffies.h:9):
 *          10 ms at 100, 4 ms at 250, 3333333 ns at 300, 1 ms at 1000;
 *          wait in (n*tau, (n+g)*tau].
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include <hzrig/ioctl.h>
#include <hzrig/wire.h>

#include "model/model.h"

#define MS	1000000ULL

struct row {
	int hz;
	int t;			/* timeout_arg */
	bool killable;
	int eff_ms;
	uint64_t n;
	unsigned int level;
	uint64_t g;
	uint64_t lo_ns, hi_ns;
	bool lag_edge;
	unsigned int rearms;
};

static const struct row table[] = {
	/* HZ=1000: n = T, tau = 1 ms. Level starts 63, 504, 4032, 32256. */
	{ 1000, 1, false, 1, 1, 0, 1, 1 * MS, 2 * MS, false, 0 },
	{ 1000, 10, false, 10, 10, 0, 1, 10 * MS, 11 * MS, false, 0 },
	/* 62 < 63: level 0; one jiffy below level 1, so lag-sensitive. */
	{ 1000, 62, false, 62, 62, 0, 1, 62 * MS, 63 * MS, true, 0 },
	/* 63 = LVL_START(1): level 1, g = 8: up to 8 ms late. */
	{ 1000, 63, false, 63, 63, 1, 8, 63 * MS, 71 * MS, false, 0 },
	{ 1000, 64, false, 64, 64, 1, 8, 64 * MS, 72 * MS, false, 0 },
	{ 1000, 100, false, 100, 100, 1, 8, 100 * MS, 108 * MS, false, 0 },
	{ 1000, 503, false, 503, 503, 1, 8, 503 * MS, 511 * MS, true, 0 },
	/* 504 = LVL_START(2): level 2, g = 64. */
	{ 1000, 504, false, 504, 504, 2, 64, 504 * MS, 568 * MS, false, 0 },
	{ 1000, 512, false, 512, 512, 2, 64, 512 * MS, 576 * MS, false, 0 },
	{ 1000, 1000, false, 1000, 1000, 2, 64, 1000 * MS, 1064 * MS, false, 0 },
	{ 1000, 4031, false, 4031, 4031, 2, 64, 4031 * MS, 4095 * MS, true, 0 },
	/* 4032 = LVL_START(3): level 3, g = 512. */
	{ 1000, 4032, false, 4032, 4032, 3, 512, 4032 * MS, 4544 * MS, false, 0 },
	{ 1000, 5000, false, 5000, 5000, 3, 512, 5000 * MS, 5512 * MS, false, 0 },
	/* 32256 <= 60000 < 258048: level 4, g = 4096. */
	{ 1000, 60000, false, 60000, 60000, 4, 4096, 60000 * MS, 64096 * MS, false, 0 },
	/* Non-killable clamps: 0, negative and > 60000 all become 60000. */
	{ 1000, 0, false, 60000, 60000, 4, 4096, 60000 * MS, 64096 * MS, false, 0 },
	{ 1000, -5, false, 60000, 60000, 4, 4096, 60000 * MS, 64096 * MS, false, 0 },
	{ 1000, 70000, false, 60000, 60000, 4, 4096, 60000 * MS, 64096 * MS, false, 0 },
	{ 1000, 60001, false, 60000, 60000, 4, 4096, 60000 * MS, 64096 * MS, false, 0 },
	/* Killable: no clamp above 60000. */
	{ 1000, 70000, true, 70000, 70000, 4, 4096, 70000 * MS, 74096 * MS, false, 0 },
	/*
	 * Killable INT_MAX at HZ=1000: n = 2147483647 >= cutoff 1056964608.
	 * WHEEL_TIMEOUT_MAX = 1056964608 - 2^24 = 1040187392. Remainders:
	 * after one force-expiry [n - 1056964608, n - 1040187393] =
	 * [1090519039, 1107296254], still >= cutoff; after a second
	 * [33554431, 67108861]: level 7 (16515072 <= r < 132120576), g = 2^21.
	 */
	{ 1000, INT_MAX, true, INT_MAX, 2147483647ULL, 7, 2097152,
	  2147483647ULL * MS, (2147483647ULL + 2097152) * MS, false, 2 },

	/* HZ=250: n = ceil(T/4), tau = 4 ms. */
	{ 250, 1, false, 1, 1, 0, 1, 4 * MS, 8 * MS, false, 0 },
	{ 250, 10, false, 10, 3, 0, 1, 12 * MS, 16 * MS, false, 0 },
	{ 250, 248, false, 248, 62, 0, 1, 248 * MS, 252 * MS, true, 0 },
	/* 249 ms -> ceil(62.25) = 63 jiffies: already level 1. */
	{ 250, 249, false, 249, 63, 1, 8, 252 * MS, 284 * MS, false, 0 },
	{ 250, 252, false, 252, 63, 1, 8, 252 * MS, 284 * MS, false, 0 },
	{ 250, 256, false, 256, 64, 1, 8, 256 * MS, 288 * MS, false, 0 },
	{ 250, 1000, false, 1000, 250, 1, 8, 1000 * MS, 1032 * MS, false, 0 },
	/* 2015 ms -> ceil(503.75) = 504: level 2, g = 64 jiffies = 256 ms. */
	{ 250, 2015, false, 2015, 504, 2, 64, 2016 * MS, 2272 * MS, false, 0 },
	{ 250, 5000, false, 5000, 1250, 2, 64, 5000 * MS, 5256 * MS, false, 0 },
	/* 15000 jiffies: 4032 <= n < 32256, level 3, g = 512 = 2048 ms. */
	{ 250, 60000, false, 60000, 15000, 3, 512, 60000 * MS, 62048 * MS, false, 0 },

	/* HZ=100: n = ceil(T/10), tau = 10 ms; LVL_DEPTH = 8. */
	{ 100, 1, false, 1, 1, 0, 1, 10 * MS, 20 * MS, false, 0 },
	{ 100, 5, false, 5, 1, 0, 1, 10 * MS, 20 * MS, false, 0 },
	{ 100, 10, false, 10, 1, 0, 1, 10 * MS, 20 * MS, false, 0 },
	{ 100, 11, false, 11, 2, 0, 1, 20 * MS, 30 * MS, false, 0 },
	{ 100, 620, false, 620, 62, 0, 1, 620 * MS, 630 * MS, true, 0 },
	{ 100, 621, false, 621, 63, 1, 8, 630 * MS, 710 * MS, false, 0 },
	{ 100, 630, false, 630, 63, 1, 8, 630 * MS, 710 * MS, false, 0 },
	{ 100, 640, false, 640, 64, 1, 8, 640 * MS, 720 * MS, false, 0 },
	{ 100, 1000, false, 1000, 100, 1, 8, 1000 * MS, 1080 * MS, false, 0 },
	/* 500 jiffies < 504: still level 1, 80 ms granule. */
	{ 100, 5000, false, 5000, 500, 1, 8, 5000 * MS, 5080 * MS, false, 0 },
	{ 100, 5030, false, 5030, 503, 1, 8, 5030 * MS, 5110 * MS, true, 0 },
	{ 100, 5040, false, 5040, 504, 2, 64, 5040 * MS, 5680 * MS, false, 0 },
	/* 6000 jiffies: level 3, g = 512 jiffies = 5.12 s. */
	{ 100, 60000, false, 60000, 6000, 3, 512, 60000 * MS, 65120 * MS, false, 0 },
	{ 100, 0, false, 60000, 6000, 3, 512, 60000 * MS, 65120 * MS, false, 0 },
	/*
	 * Killable 2e9 ms at HZ=100: n = 2e8 >= cutoff 132120576 (= LVL_START(8),
	 * depth 8); WHEEL_TIMEOUT_MAX = 132120576 - 2^21 = 130023424. One
	 * force-expiry leaves [67879424, 69976575]: level 7 (the last), 2^21.
	 */
	{ 100, 2000000000, true, 2000000000, 200000000, 7, 2097152,
	  2000000000ULL * MS, (2000000000ULL + 20971520ULL) * MS, false, 1 },
	/*
	 * Killable 1321205760 ms: n = 132120576, exactly the cutoff. If the
	 * first timer was armed on a 2^21 boundary, it fires exactly at n
	 * (remainder 0), ending the wait inside the last jiffy: lo = (n-1)*tau.
	 * Otherwise the remainder is at most n - 130023425 = 2097151, level 6
	 * (2064384 <= r < 16515072), g = 2^18 = 262144.
	 */
	{ 100, 1321205760, true, 1321205760, 132120576, 6, 262144,
	  (132120576ULL - 1) * 10 * MS, (132120576ULL + 262144) * 10 * MS,
	  false, 1 },

	/* HZ=300: n = ceil(3T/10), tau = 3333333 ns (TICK_NSEC rounds). */
	{ 300, 1, false, 1, 1, 0, 1, 3333333, 6666666, false, 0 },
	{ 300, 10, false, 10, 3, 0, 1, 9999999, 13333332, false, 0 },
	{ 300, 100, false, 100, 30, 0, 1, 99999990, 103333323, false, 0 },
	/* 206 -> ceil(61.8) = 62; 207 -> ceil(62.1) = 63: level 1. */
	{ 300, 206, false, 206, 62, 0, 1, 206666646, 209999979, true, 0 },
	{ 300, 207, false, 207, 63, 1, 8, 209999979, 236666643, false, 0 },
	{ 300, 210, false, 210, 63, 1, 8, 209999979, 236666643, false, 0 },
	{ 300, 1000, false, 1000, 300, 1, 8, 999999900, 1026666564, false, 0 },
	{ 300, 60000, false, 60000, 18000, 3, 512, 59999994000ULL,
	  61706660496ULL, false, 0 },
};

/* Compare one field of a row, naming the row when it differs. */
#define CHECK_ROW(r, got, want)						\
	do {								\
		if ((uint64_t)(got) != (uint64_t)(want))		\
			fail_msg("HZ=%d T=%d%s: %s = %llu, want %llu",	\
				 (r)->hz, (r)->t,			\
				 (r)->killable ? " killable" : "", #want, \
				 (unsigned long long)(got),		\
				 (unsigned long long)(want));		\
	} while (0)

static void test_table(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		const struct row *r = &table[i];
		struct hzrig_window w;

		assert_int_equal(hzrig_model_window(r->hz, r->t, r->killable,
						    &w), 0);
		CHECK_ROW(r, w.forever, false);
		CHECK_ROW(r, w.effective_ms, r->eff_ms);
		CHECK_ROW(r, w.jiffies, r->n);
		CHECK_ROW(r, w.level, r->level);
		CHECK_ROW(r, w.granule, r->g);
		CHECK_ROW(r, w.lo_ns, r->lo_ns);
		CHECK_ROW(r, w.hi_ns, r->hi_ns);
		CHECK_ROW(r, w.lag_edge, r->lag_edge);
		CHECK_ROW(r, w.rearms, r->rearms);
	}
}

static void test_tick_ns(void **state)
{
	(void)state;
	assert_int_equal(hzrig_tick_ns(100), 10000000);
	assert_int_equal(hzrig_tick_ns(250), 4000000);
	assert_int_equal(hzrig_tick_ns(300), 3333333);
	assert_int_equal(hzrig_tick_ns(1000), 1000000);
	/* TICK_NSEC rounds to nearest: 1e9/24 = 41666666.67 -> 41666667. */
	assert_int_equal(hzrig_tick_ns(24), 41666667);
	assert_int_equal(hzrig_tick_ns(0), 0);
}

static void test_bad_hz(void **state)
{
	struct hzrig_window w;

	(void)state;
	assert_int_equal(hzrig_model_window(0, 10, false, &w), -EINVAL);
	assert_int_equal(hzrig_model_window(1, 10, false, &w), -EINVAL);
	assert_int_equal(hzrig_model_window(-100, 10, false, &w), -EINVAL);
	assert_int_equal(hzrig_model_window(1001, 10, false, &w), -EINVAL);
	assert_int_equal(hzrig_model_window(1024, 10, false, &w), -EINVAL);
	assert_int_equal(hzrig_model_window(100, 10, false, NULL), -EINVAL);
	assert_int_equal(hzrig_model_window(2, 10, false, &w), 0);
}

/* Killable with timeout <= 0: MAX_SCHEDULE_TIMEOUT, no timer, no window. */
static void test_killable_forever(void **state)
{
	struct hzrig_window w;

	(void)state;
	assert_int_equal(hzrig_model_window(250, 0, true, &w), 0);
	assert_true(w.forever);
	assert_int_equal(w.lo_ns, UINT64_MAX);
	assert_int_equal(w.hi_ns, UINT64_MAX);
	assert_int_equal(hzrig_model_window(250, -1, true, &w), 0);
	assert_true(w.forever);
	/* Any timeout is early against a wait that has none. */
	assert_int_equal(hzrig_verdict(&w, 0, -ETIMEDOUT, -ETIMEDOUT,
				       INT64_MAX), HZRIG_EARLY);
}

/*
 * Each path's window (docs/model.md §11): usbfs is the kernel's wheel
 * without the 60 s clamp and with 0 meaning forever; libusb is T on its own
 * timerfd, at any HZ.
 */
static void test_path_windows(void **state)
{
	struct hzrig_window k, u;
	static const int hzs[] = { 100, 250, 1000 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(hzs) / sizeof(hzs[0]); i++) {
		/* usbfs: the same jiffies and wheel as the kernel path. */
		assert_int_equal(hzrig_path_window(hzs[i], HZRIG_PATH_KERNEL, 1, false, &k), 0);
		assert_int_equal(hzrig_path_window(hzs[i], HZRIG_PATH_USBFS, 1, false, &u), 0);
		assert_int_equal(u.lo_ns, k.lo_ns);
		assert_int_equal(u.hi_ns, k.hi_ns);
		assert_int_equal(u.jiffies, k.jiffies);
		/* libusb: T, whatever HZ. */
		assert_int_equal(hzrig_path_window(hzs[i], HZRIG_PATH_LIBUSB_SYNC, 1, false, &u), 0);
		assert_int_equal(u.lo_ns, 1000000);
		assert_int_equal(u.hi_ns, 1000000);
		assert_int_equal(u.jiffies, 0);
		assert_int_equal(u.granule, 0);
		assert_false(u.forever);
		assert_int_equal(hzrig_path_window(hzs[i], HZRIG_PATH_LIBUSB_ASYNC, 1000, false, &u), 0);
		assert_int_equal(u.hi_ns, 1000000000);
	}
	/* HZ=100, 1 ms: kernel and usbfs (10, 20] ms, libusb 1 ms. */
	assert_int_equal(hzrig_path_window(100, HZRIG_PATH_USBFS, 1, false, &u), 0);
	assert_int_equal(u.lo_ns, 10000000);
	assert_int_equal(u.hi_ns, 20000000);
	/* usbfs has no clamp: 70 s is 70 s, where the kernel path waits 60. */
	assert_int_equal(hzrig_path_window(1000, HZRIG_PATH_KERNEL, 70000, false, &k), 0);
	assert_int_equal(k.effective_ms, 60000);
	assert_int_equal(hzrig_path_window(1000, HZRIG_PATH_USBFS, 70000, false, &u), 0);
	assert_int_equal(u.effective_ms, 70000);
	assert_true(u.lo_ns >= 70000000000ull);
	/* Timeout 0: the kernel clamps to 60 s, usbfs and libusb wait forever. */
	assert_int_equal(hzrig_path_window(250, HZRIG_PATH_KERNEL, 0, false, &k), 0);
	assert_false(k.forever);
	assert_int_equal(hzrig_path_window(250, HZRIG_PATH_USBFS, 0, false, &u), 0);
	assert_true(u.forever);
	assert_int_equal(hzrig_path_window(250, HZRIG_PATH_LIBUSB_ASYNC, 0, false, &u), 0);
	assert_true(u.forever);
	assert_int_equal(u.hi_ns, UINT64_MAX);
	/* A late libusb call is late by its own clock. */
	assert_int_equal(hzrig_path_window(100, HZRIG_PATH_LIBUSB_SYNC, 1, false, &u), 0);
	assert_int_equal(hzrig_verdict(&u, 500000, -ETIMEDOUT, -ETIMEDOUT, 1400000),
			 HZRIG_INSIDE);
	assert_int_equal(hzrig_verdict(&u, 500000, -ETIMEDOUT, -ETIMEDOUT, 10000000),
			 HZRIG_LATE);
	assert_int_equal(hzrig_verdict(&u, 0, -ETIMEDOUT, -ETIMEDOUT, 900000),
			 HZRIG_EARLY);
	/* The cancel round trip moves libusb's upper edge only. */
	hzrig_window_cancel(&u, 600000);
	assert_int_equal(u.lo_ns, 1000000);
	assert_int_equal(u.hi_ns, 1600000);
	assert_int_equal(u.cancel_ns, 600000);
	assert_int_equal(hzrig_verdict(&u, 500000, -ETIMEDOUT, -ETIMEDOUT, 2000000),
			 HZRIG_INSIDE);
	/* ... and nothing of a wheel-timed or timerless window. */
	assert_int_equal(hzrig_path_window(100, HZRIG_PATH_USBFS, 1, false, &k), 0);
	hzrig_window_cancel(&k, 600000);
	assert_int_equal(k.hi_ns, 20000000);
	assert_int_equal(k.cancel_ns, 0);
	assert_int_equal(hzrig_path_window(100, HZRIG_PATH_LIBUSB_SYNC, 0, false, &k), 0);
	hzrig_window_cancel(&k, 600000);
	assert_int_equal(k.hi_ns, UINT64_MAX);
	/* An in-tree driver's call timed by usbmon: the kernel window. */
	assert_int_equal(hzrig_model_window(250, 1250, false, &k), 0);
	assert_int_equal(hzrig_path_window(250, HZRIG_PATH_USBMON, 1250, false, &u), 0);
	assert_int_equal(u.lo_ns, k.lo_ns);
	assert_int_equal(u.hi_ns, k.hi_ns);
	assert_false(u.own_clock);
	/* Bad input. */
	assert_int_equal(hzrig_path_window(250, HZRIG_PATH_COUNT, 1, false, &u), -EINVAL);
	assert_int_equal(hzrig_path_window(0, HZRIG_PATH_LIBUSB_SYNC, 1, false, &u), -EINVAL);
	assert_int_equal(hzrig_path_window(250, HZRIG_PATH_LIBUSB_SYNC, 1, false, NULL), -EINVAL);
	assert_true(hzrig_path_own_clock(HZRIG_PATH_LIBUSB_ASYNC));
	assert_false(hzrig_path_own_clock(HZRIG_PATH_USBFS));
}

/*
 * timeconst.bc for HZ=300, as `echo 300 | bc -q kernel/time/timeconst.bc`
 * prints: MSEC_TO_HZ_MUL32 0x9999999A, MSEC_TO_HZ_ADJ32 0x1CCCCCCCC,
 * MSEC_TO_HZ_SHR32 33. For HZ=250 (not used by the kernel, which divides):
 * 0x80000000, 0x180000000, 33.
 */
static void test_timeconst(void **state)
{
	uint64_t mul, adj;
	unsigned int shr;

	(void)state;
	assert_int_equal(hzrig_msec_to_hz_consts(300, &mul, &adj, &shr), 0);
	assert_int_equal(mul, 0x9999999AULL);
	assert_int_equal(adj, 0x1CCCCCCCCULL);
	assert_int_equal(shr, 33);
	assert_int_equal(hzrig_msec_to_hz_consts(250, &mul, &adj, &shr), 0);
	assert_int_equal(mul, 0x80000000ULL);
	assert_int_equal(adj, 0x180000000ULL);
	assert_int_equal(shr, 33);
	assert_int_equal(hzrig_msec_to_hz_consts(5000, &mul, &adj, &shr),
			 -EINVAL);
}

/*
 * Every msecs_to_jiffies() the model computes is the ceiling of T*HZ/1000,
 * the rounding jiffies.h promises; checked by plain integer arithmetic over
 * the plan's whole range and at the top of the int range.
 */
static void test_msecs_round_up(void **state)
{
	static const int hzs[] = { 100, 250, 300, 1000 };
	size_t i;
	int m;

	(void)state;
	for (i = 0; i < 4; i++) {
		uint64_t hz = (uint64_t)hzs[i];

		for (m = 0; m <= 130000; m++) {
			uint64_t want = ((uint64_t)m * hz + 999) / 1000;

			if (hzrig_msecs_to_jiffies(hzs[i], m) != want)
				fail_msg("HZ=%d m=%d: %llu, want %llu",
					 hzs[i], m, (unsigned long long)
					 hzrig_msecs_to_jiffies(hzs[i], m),
					 (unsigned long long)want);
		}
	}
	/* ceil(0.3 * 2147483647) = ceil(644245094.1) */
	assert_int_equal(hzrig_msecs_to_jiffies(300, INT_MAX), 644245095);
	assert_int_equal(hzrig_msecs_to_jiffies(100, INT_MAX), 214748365);
	assert_int_equal(hzrig_msecs_to_jiffies(1000, INT_MAX), INT_MAX);
	assert_int_equal(hzrig_msecs_to_jiffies(100, -1), 0);
}

/*
 * The analytical window against the wheel itself: arm a timer at every
 * start jiffy of one granule's worth (base clock = jiffies, the forwarded
 * case) and check the tick that runs it is n+1..n+g jiffies later, both
 * ends reached; with the caller's phase inside the start jiffy, that is the
 * (n*tau, (n+g)*tau] window.
 */
static void test_window_vs_wheel(void **state)
{
	static const int hzs[] = { 100, 250, 300, 1000 };
	static const int ts[] = { 1, 10, 62, 63, 100, 503, 504, 630, 1000,
				  5000, 60000 };
	size_t i, k;

	(void)state;
	for (i = 0; i < 4; i++) {
		for (k = 0; k < sizeof(ts) / sizeof(ts[0]); k++) {
			struct hzrig_window w;
			uint64_t j0, base = 4294667296ULL; /* INITIAL_JIFFIES at HZ=1000 */
			uint64_t dmin = UINT64_MAX, dmax = 0;
			unsigned int lvl;

			assert_int_equal(hzrig_model_window(hzs[i], ts[k],
							    false, &w), 0);
			for (j0 = base; j0 < base + w.granule * 2; j0++) {
				uint64_t d = hzrig_wheel_bucket_expiry(hzs[i],
					j0 + w.jiffies, j0, &lvl) - j0;

				assert_int_equal(lvl, w.level);
				dmin = d < dmin ? d : dmin;
				dmax = d > dmax ? d : dmax;
			}
			assert_int_equal(dmin, w.jiffies + 1);
			assert_int_equal(dmax, w.jiffies + w.granule);
			assert_int_equal(w.lo_ns, (dmin - 1) * w.tick_ns);
			assert_int_equal(w.hi_ns, dmax * w.tick_ns);
		}
	}
}

/*
 * The model assumes base->clk == jiffies when the timer is armed (the
 * forward_timer_base() case). Document what happens otherwise:
 *  - clk one ahead (timers just ran this jiffy, timer.c:2019): n = 63 at
 *    HZ=1000 lands on level 0 and fires at n+1: inside the model's window.
 *  - clk one behind (a due timer not yet run, forward stops at next_expiry,
 *    timer.c:961-966): n = 62 lands on level 1 and can fire at 62+8 = 70,
 *    beyond the window (62, 63]. This is the lag_edge flag's meaning.
 */
static void test_base_clock_offsets(void **state)
{
	uint64_t j0 = 4294667296ULL, worst = 0, k;
	unsigned int lvl;

	(void)state;
	assert_int_equal(hzrig_wheel_bucket_expiry(1000, j0 + 63, j0 + 1, &lvl),
			 j0 + 64);
	assert_int_equal(lvl, 0);
	for (k = 0; k < 8; k++) {
		uint64_t d = hzrig_wheel_bucket_expiry(1000, j0 + k + 62,
						       j0 + k - 1, &lvl) - (j0 + k);

		assert_int_equal(lvl, 1);
		worst = d > worst ? d : worst;
	}
	assert_int_equal(worst, 70);
	/* An already expired timer runs at the base clock's next tick. */
	assert_int_equal(hzrig_wheel_bucket_expiry(1000, j0 - 5, j0, &lvl), j0);
}

/* The force-expiry at WHEEL_TIMEOUT_CUTOFF, straight from calc_wheel_index. */
static void test_wheel_cutoff(void **state)
{
	uint64_t cut100 = 132120576ULL, max100 = cut100 - 2097152;
	uint64_t j0 = 2097152ULL * 10;	/* a 2^21 boundary */
	unsigned int lvl;

	(void)state;
	assert_int_equal(hzrig_wheel_depth(100), 8);
	assert_int_equal(hzrig_wheel_depth(250), 9);
	assert_int_equal(hzrig_wheel_lvl_start(8), cut100);
	assert_int_equal(hzrig_wheel_lvl_start(9), 1056964608ULL);
	/* Far beyond the cutoff: expires at clk + WHEEL_TIMEOUT_MAX, rounded. */
	assert_int_equal(hzrig_wheel_bucket_expiry(100, j0 + 5 * cut100, j0, &lvl),
			 j0 + max100 + 2097152);
	assert_int_equal(lvl, 7);
	/* Exactly at the cutoff on a boundary: fires at n itself (remainder 0). */
	assert_int_equal(hzrig_wheel_bucket_expiry(100, j0 + cut100, j0, &lvl),
			 j0 + cut100);
	/* One below the cutoff: not capped, rounded up past n. */
	assert_int_equal(hzrig_wheel_bucket_expiry(100, j0 + cut100 - 1, j0, &lvl),
			 j0 + cut100);
}

/*
 * Verdict edges, HZ=1000 T=10: window (10 ms, 11 ms], allowance 0.5 ms:
 * inside is [9.5 ms, 11.5 ms], both ends included.
 */
static void test_verdict_edges(void **state)
{
	struct hzrig_window w;
	const uint64_t a = 500000;

	(void)state;
	assert_int_equal(hzrig_model_window(1000, 10, false, &w), 0);
	assert_int_equal(hzrig_verdict(&w, a, -ETIMEDOUT, -ETIMEDOUT, 9500000),
			 HZRIG_INSIDE);
	assert_int_equal(hzrig_verdict(&w, a, -ETIMEDOUT, -ETIMEDOUT, 9499999),
			 HZRIG_EARLY);
	assert_int_equal(hzrig_verdict(&w, a, -ETIMEDOUT, -ETIMEDOUT, 11500000),
			 HZRIG_INSIDE);
	assert_int_equal(hzrig_verdict(&w, a, -ETIMEDOUT, -ETIMEDOUT, 11500001),
			 HZRIG_LATE);
	assert_int_equal(hzrig_verdict(&w, 0, -ETIMEDOUT, -ETIMEDOUT, 10000000),
			 HZRIG_INSIDE);
	assert_int_equal(hzrig_verdict(&w, 0, -ETIMEDOUT, -ETIMEDOUT, 9999999),
			 HZRIG_EARLY);
	assert_int_equal(hzrig_verdict(&w, 0, -ETIMEDOUT, -ETIMEDOUT, 11000001),
			 HZRIG_LATE);
	assert_int_equal(hzrig_verdict(&w, a, -ETIMEDOUT, -ETIMEDOUT, -1),
			 HZRIG_EARLY);
	/* Status first: a late success is a wrong status, not late. */
	assert_int_equal(hzrig_verdict(&w, a, -ETIMEDOUT, 0, 10500000),
			 HZRIG_WRONG_STATUS);
	assert_int_equal(hzrig_verdict(&w, a, -ETIMEDOUT, -EPIPE, 10500000),
			 HZRIG_WRONG_STATUS);
	/* An answered call only has to beat the timer. */
	assert_int_equal(hzrig_verdict(&w, a, 0, 0, 100000), HZRIG_INSIDE);
	assert_int_equal(hzrig_verdict(&w, a, 0, 0, 11500001), HZRIG_LATE);
	assert_int_equal(hzrig_verdict(&w, a, 0, -ETIMEDOUT, 10500000),
			 HZRIG_WRONG_STATUS);
	/* Allowance above lo, and a huge allowance: no wrap-around. */
	assert_int_equal(hzrig_verdict(&w, 20 * MS, -ETIMEDOUT, -ETIMEDOUT, 0),
			 HZRIG_INSIDE);
	assert_int_equal(hzrig_verdict(&w, UINT64_MAX, -ETIMEDOUT, -ETIMEDOUT,
				       INT64_MAX), HZRIG_INSIDE);
}

/* A start on stale jiffies lowers lo by whole ticks, never hi. */
static void test_stale_jiffies(void **state)
{
	static const struct {
		int hz, timeout_arg;
		int64_t ticks;
		uint64_t lo_ns;
		unsigned int stale_ticks;
	} t[] = {
		{ 100, 250, 0, 250 * MS, 0 },
		{ 100, 250, -1, 250 * MS, 0 },
		{ 100, 250, 1, 240 * MS, 1 },
		{ 250, 252, 2, 244 * MS, 2 },
		{ 1000, 2, 5, 0, 2 },	/* not below 0 */
	};
	struct hzrig_window w;
	uint64_t hi;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_int_equal(hzrig_model_window(t[i].hz, t[i].timeout_arg,
						    false, &w), 0);
		hi = w.hi_ns;
		hzrig_window_stale_jiffies(&w, t[i].ticks);
		assert_int_equal(w.lo_ns, t[i].lo_ns);
		assert_int_equal(w.hi_ns, hi);
		assert_int_equal(w.stale_ticks, t[i].stale_ticks);
	}
	/* One tick early is EARLY on a fresh start, INSIDE on a stale one. */
	assert_int_equal(hzrig_model_window(100, 250, false, &w), 0);
	assert_int_equal(hzrig_verdict(&w, 0, -ETIMEDOUT, -ETIMEDOUT,
				       245 * MS), HZRIG_EARLY);
	hzrig_window_stale_jiffies(&w, 1);
	assert_int_equal(hzrig_verdict(&w, 0, -ETIMEDOUT, -ETIMEDOUT,
				       245 * MS), HZRIG_INSIDE);
	assert_int_equal(hzrig_verdict(&w, 0, -ETIMEDOUT, -ETIMEDOUT,
				       239 * MS), HZRIG_EARLY);
	/* No timer, no window to move. */
	assert_int_equal(hzrig_model_window(1000, 0, true, &w), 0);
	hzrig_window_stale_jiffies(&w, 1);
	assert_true(w.forever);
	assert_int_equal(w.lo_ns, UINT64_MAX);
}

/* timer_expire_entry: when schedule_timeout()'s timer ran, by its address. */
static void test_timer_expire_parse(void **state)
{
	struct hzrig_timer_expire ev;

	(void)state;
	assert_int_equal(hzrig_timer_expire_parse(
		"          <idle>-0       [000] ..s1.    13.597678: timer_expire_entry: timer=000000008f0c0b1e function=process_timeout now=4294668613 baseclk=4294668613\n",
		&ev), 0);
	assert_int_equal(ev.t_ns, 13597678000LL);
	assert_int_equal(ev.now, 4294668613ULL);
	assert_string_equal(ev.timer, "000000008f0c0b1e");
	assert_int_equal(hzrig_timer_expire_parse(
		"  <idle>-0 [000] ..s1. 1.000001: timer_expire_entry: timer=0 function=delayed_work_timer_fn now=5 baseclk=5\n",
		&ev), -ENOENT);
	assert_int_equal(hzrig_timer_expire_parse(
		"  a-1 [000] ..... 1.000001: timer_start: timer=0 function=process_timeout expires=5 [timeout=1]\n",
		&ev), -ENOENT);
	assert_int_equal(hzrig_timer_expire_parse(
		"  <idle>-0 [000] ..s1. 1.000001: timer_expire_entry: timer=0 function=process_timeout now=x\n",
		&ev), -EINVAL);
	assert_int_equal(hzrig_timer_expire_parse(
		"  <idle>-0 [000] ..s1. 1.0001: timer_expire_entry: timer=0 function=process_timeout now=5\n",
		&ev), -EINVAL);
	assert_int_equal(hzrig_timer_expire_parse(
		"  <idle>-0 [000] ..s1. 1.000001: timer_expire_entry: function=process_timeout now=5\n",
		&ev), -EINVAL);
}

/* tracefs' timer_start lines: only schedule_timeout()'s timers count. */
static void test_timer_start_parse(void **state)
{
	struct hzrig_timer_start ev;

	(void)state;
	assert_int_equal(hzrig_timer_start_parse(
		"     kworker/0:1-usb-95      [000] d..1.    12.345678: timer_start: timer=000000008f0c0b1e function=process_timeout expires=4294668613 [timeout=313] cpu=0 idx=98 flags=\n",
		&ev), 0);
	assert_int_equal(ev.t_ns, 12345678000LL);
	assert_int_equal(ev.pid, 95);
	assert_int_equal(ev.expires, 4294668613ULL);
	assert_int_equal(ev.timeout, 313);
	assert_string_equal(ev.timer, "000000008f0c0b1e");
	assert_int_equal(hzrig_timer_start_parse(
		"        modprobe-7       [000] .....  1234.000001: timer_start: timer=0000000 function=process_timeout expires=18446744073709521616 [timeout=312] cpu=0 idx=3 flags=D\n",
		&ev), 0);
	assert_int_equal(ev.t_ns, 1234000001000LL);
	assert_int_equal(ev.pid, 7);
	assert_int_equal(ev.expires, 18446744073709521616ULL);
	assert_int_equal(ev.timeout, 312);
	/* another timer, another event, the header: not ours */
	assert_int_equal(hzrig_timer_start_parse(
		"  <idle>-0 [000] d.h2. 1.000001: timer_start: timer=0 function=delayed_work_timer_fn expires=5 [timeout=1] cpu=0 idx=0 flags=I\n",
		&ev), -ENOENT);
	assert_int_equal(hzrig_timer_start_parse(
		"  <idle>-0 [000] d.h2. 1.000001: timer_expire_entry: timer=0 function=process_timeout now=5\n",
		&ev), -ENOENT);
	assert_int_equal(hzrig_timer_start_parse("# tracer: nop\n", &ev), -ENOENT);
	/* ours, but cut or garbled */
	assert_int_equal(hzrig_timer_start_parse(
		"  a-1 [000] ..... 1.00001: timer_start: timer=0 function=process_timeout expires=5 [timeout=1]",
		&ev), -EINVAL);		/* five digits of microseconds */
	assert_int_equal(hzrig_timer_start_parse(
		"  a [000] ..... 1.000001: timer_start: timer=0 function=process_timeout expires=5 [timeout=1]",
		&ev), -EINVAL);		/* no pid */
	assert_int_equal(hzrig_timer_start_parse(
		"  a-1 [000] ..... 1.000001: timer_start: timer=0 function=process_timeout expires=x [timeout=1]",
		&ev), -EINVAL);
	assert_int_equal(hzrig_timer_start_parse(
		"  a-1 [000] ..... 1.000001: timer_start: timer=0 function=process_timeout expires=5 [timeout=1",
		&ev), -EINVAL);
	assert_int_equal(hzrig_timer_start_parse(
		"1.000001: timer_start: timer=0 function=process_timeout expires=5 [timeout=1]",
		&ev), -EINVAL);
}

/* The lag against a grid, and a grid fitted from events alone. */
static void test_jiffies_lag(void **state)
{
	const uint64_t tau = 4000000;	/* HZ=250 */
	/* jiffies 1000 at the edge 1 s; 1 ms and 3.9 ms into the jiffy */
	struct hzrig_timer_start ev[] = {
		{ .t_ns = 1001000000, .expires = 1313, .timeout = 313 },
		{ .t_ns = 1011900000, .expires = 1315, .timeout = 313 },
		/* 0.1 ms past edge 1005, jiffies still 1004: stale by 1 */
		{ .t_ns = 1020100000, .expires = 1317, .timeout = 313 },
		/* 0.05 ms past edge 1010: the nearest to its edge */
		{ .t_ns = 1040050000, .expires = 1323, .timeout = 313 },
	};
	int64_t ref_ns;
	uint64_t ref_j;
	size_t i;
	static const int64_t lag[] = { 0, 0, 1, 0 };

	(void)state;
	assert_int_equal(hzrig_jiffies_lag_at(1000000000, 1000, tau,
					      1003999999, 1000), 0);
	assert_int_equal(hzrig_jiffies_lag_at(1000000000, 1000, tau,
					      1004000000, 1000), 1);
	assert_int_equal(hzrig_jiffies_lag_at(1000000000, 1000, tau,
					      1012000000, 1001), 2);
	/* before the reference edge, and a read ahead of the grid */
	assert_int_equal(hzrig_jiffies_lag_at(1000000000, 1000, tau,
					      999000000, 999), 0);
	assert_int_equal(hzrig_jiffies_lag_at(1000000000, 1000, tau,
					      999000000, 1000), -1);
	assert_int_equal(hzrig_jiffy_grid_fit(ev, 4, tau, &ref_ns, &ref_j), 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(hzrig_jiffies_lag_at(ref_ns, ref_j, tau, ev[i].t_ns,
						      ev[i].expires - (uint64_t)ev[i].timeout),
				 lag[i]);
	/* a call of 313 jiffies: its timer, or one a tick short; not others */
	{
		struct hzrig_timer_start t = ev[2];
		uint64_t armed;
		int64_t l;

		assert_int_equal(hzrig_timer_lag(&t, 313, ref_ns, ref_j, tau, &armed, &l), 0);
		assert_int_equal(armed, 1004);
		assert_int_equal(l, 1);
		t.timeout = 312;
		assert_int_equal(hzrig_timer_lag(&t, 313, ref_ns, ref_j, tau, &armed, &l), 0);
		assert_int_equal(armed, 1004);
		t.timeout = 311;
		assert_int_equal(hzrig_timer_lag(&t, 313, ref_ns, ref_j, tau, &armed, &l), -ENOENT);
	}
	assert_int_equal(hzrig_jiffy_grid_fit(ev, 0, tau, &ref_ns, &ref_j), -EINVAL);
	assert_int_equal(hzrig_jiffy_grid_fit(ev, 4, 0, &ref_ns, &ref_j), -EINVAL);
}

static void test_verdict_names(void **state)
{
	(void)state;
	assert_string_equal(hzrig_verdict_name(HZRIG_INSIDE), "inside");
	assert_string_equal(hzrig_verdict_name(HZRIG_WRONG_STATUS),
			    "wrong-status");
	assert_string_equal(hzrig_verdict_name(HZRIG_REFUSED), "refused");
	assert_null(hzrig_verdict_name(HZRIG_VERDICT_COUNT));
	assert_int_equal(hzrig_verdict_parse("late"), HZRIG_LATE);
	assert_int_equal(hzrig_verdict_parse("LATE"), -1);
	assert_int_equal(hzrig_verdict_parse(NULL), -1);
}

/*
 * The int each mode passes (include/hzrig/ioctl.h): legacy-jiffies is
 * msecs_to_jiffies(T), hz-constant HZ*T/1000 truncated.
 */
static void test_mode_args(void **state)
{
	(void)state;
	assert_int_equal(hzrig_mode_timeout_arg(250, HZRIG_MODE_MS, 100), 100);
	assert_int_equal(hzrig_mode_timeout_arg(250, HZRIG_MODE_LEGACY_JIFFIES,
						100), 25);
	assert_int_equal(hzrig_mode_timeout_arg(250, HZRIG_MODE_LEGACY_JIFFIES,
						1), 1);
	assert_int_equal(hzrig_mode_timeout_arg(250, HZRIG_MODE_HZ_CONSTANT,
						1), 0);
	assert_int_equal(hzrig_mode_timeout_arg(300, HZRIG_MODE_LEGACY_JIFFIES,
						10), 3);
	assert_int_equal(hzrig_mode_timeout_arg(300, HZRIG_MODE_HZ_CONSTANT,
						1000), 300);
	assert_int_equal(hzrig_mode_timeout_arg(100, HZRIG_MODE_ZERO, 500), 0);
	assert_int_equal(hzrig_mode_timeout_arg(100, 99, 500), -1);
	assert_int_equal(hzrig_mode_timeout_arg(7, HZRIG_MODE_MS, 500), 500);
	assert_int_equal(hzrig_mode_timeout_arg(0, HZRIG_MODE_MS, 500), -1);
}

/*
 * The legacy bug end to end: HZ=100, a driver wanting 1000 ms passes
 * msecs_to_jiffies(1000) = 100, taken as 100 ms: n = 10, window (100, 110] ms.
 * And HZ*T/1000 for T=1 at HZ=100 is 0: clamped to a whole minute.
 */
/* A delayed answer is judged by the delay, with the allowance either side. */
static void test_verdict_delay(void **state)
{
	(void)state;
	/* 20 ms delay, 1 ms allowance: [19, 21] ms is inside. */
	assert_int_equal(hzrig_verdict_delay(20000000, 1000000, 19000000), HZRIG_INSIDE);
	assert_int_equal(hzrig_verdict_delay(20000000, 1000000, 21000000), HZRIG_INSIDE);
	assert_int_equal(hzrig_verdict_delay(20000000, 1000000, 18999999), HZRIG_EARLY);
	assert_int_equal(hzrig_verdict_delay(20000000, 1000000, 21000001), HZRIG_LATE);
	/* A stale answer that came at once is early, not inside. */
	assert_int_equal(hzrig_verdict_delay(20000000, 1000000, 300000), HZRIG_EARLY);
	assert_int_equal(hzrig_verdict_delay(0, 0, -5), HZRIG_INSIDE);
}

/* A stall must come back within two jiffies plus the allowance. */
static void test_verdict_stall(void **state)
{
	(void)state;
	/* HZ=250: 8 ms, +1 ms allowance. */
	assert_int_equal(hzrig_verdict_stall(250, MS, 9 * MS), HZRIG_INSIDE);
	assert_int_equal(hzrig_verdict_stall(250, MS, 9 * MS + 1), HZRIG_LATE);
	assert_int_equal(hzrig_verdict_stall(250, 0, 300000), HZRIG_INSIDE);
	/* HZ=1000: 2 ms; a stall as slow as a 100 ms timeout is late. */
	assert_int_equal(hzrig_verdict_stall(1000, MS, 3 * MS), HZRIG_INSIDE);
	assert_int_equal(hzrig_verdict_stall(1000, MS, 100 * MS), HZRIG_LATE);
	/* No model for a bad HZ: never inside. */
	assert_int_equal(hzrig_verdict_stall(1, MS, MS), HZRIG_LATE);
	assert_int_equal(hzrig_verdict_stall(2000, MS, MS), HZRIG_LATE);
}

/* hzrig_verdict_sample() on a sample whose timings count. */
static enum hzrig_verdict judge(const struct hzrig_window *w,
				unsigned int behaviour, uint64_t delay_ns,
				uint64_t a, int expected, int status,
				uint64_t elapsed)
{
	return hzrig_verdict_sample(w, behaviour, delay_ns, a, expected, status,
				    (int64_t)elapsed, false);
}

/*
 * The whole per-sample rule, behaviour by behaviour, on the window the
 * model gives (@hz, @t) and allowance @a. Every edge is computed from the
 * window: inside is [lo - a, hi + a] for a timeout, [0, hi + a] for a call
 * that completes, [delay - a, delay + a] for an answered delay and
 * [0, HZRIG_STALL_TICKS * tau + a] for a stall. The window must be wider
 * than the allowance, a stall's limit and a delay of lo / 2.
 */
static void check_sample_rule(int hz, int t, uint64_t a)
{
	struct hzrig_window w;
	uint64_t lo, hi, mid, stall, d;

	assert_int_equal(hzrig_model_window(hz, t, false, &w), 0);
	lo = w.lo_ns - a;
	hi = w.hi_ns + a;
	mid = (w.lo_ns + w.hi_ns) / 2;
	stall = HZRIG_STALL_TICKS * w.tick_ns + a;
	assert_true(w.lo_ns > a && stall < lo && w.lo_ns / 2 + a < lo);

	/* nak: a timeout, held to both edges. */
	assert_int_equal(judge(&w, HZRIG_BEH_NAK, 0, a, -ETIMEDOUT, -ETIMEDOUT,
			       mid), HZRIG_INSIDE);
	assert_int_equal(judge(&w, HZRIG_BEH_NAK, 0, a, -ETIMEDOUT, -ETIMEDOUT,
			       lo), HZRIG_INSIDE);
	assert_int_equal(judge(&w, HZRIG_BEH_NAK, 0, a, -ETIMEDOUT, -ETIMEDOUT,
			       hi), HZRIG_INSIDE);
	assert_int_equal(judge(&w, HZRIG_BEH_NAK, 0, a, -ETIMEDOUT, -ETIMEDOUT,
			       lo - 1), HZRIG_EARLY);
	assert_int_equal(judge(&w, HZRIG_BEH_NAK, 0, a, -ETIMEDOUT, -ETIMEDOUT,
			       hi + 1), HZRIG_LATE);
	assert_int_equal(judge(&w, HZRIG_BEH_NAK, 0, a, -ETIMEDOUT, 0, mid),
			 HZRIG_WRONG_STATUS);
	assert_int_equal(judge(&w, HZRIG_BEH_NAK, 0, a, -ETIMEDOUT, -EPIPE,
			       mid), HZRIG_WRONG_STATUS);

	/*
	 * answer and short: only the upper edge, never early; a delay given
	 * with them is not looked at.
	 */
	assert_int_equal(judge(&w, HZRIG_BEH_ANSWER, 0, a, 0, 0, 0),
			 HZRIG_INSIDE);
	assert_int_equal(judge(&w, HZRIG_BEH_ANSWER, mid, a, 0, 0, 1),
			 HZRIG_INSIDE);
	assert_int_equal(judge(&w, HZRIG_BEH_ANSWER, 0, a, 0, 0, hi),
			 HZRIG_INSIDE);
	assert_int_equal(judge(&w, HZRIG_BEH_ANSWER, 0, a, 0, 0, hi + 1),
			 HZRIG_LATE);
	assert_int_equal(judge(&w, HZRIG_BEH_ANSWER, 0, a, 0, -ETIMEDOUT, mid),
			 HZRIG_WRONG_STATUS);
	assert_int_equal(judge(&w, HZRIG_BEH_SHORT, 0, a, 0, 0, 0),
			 HZRIG_INSIDE);
	assert_int_equal(judge(&w, HZRIG_BEH_SHORT, mid, a, 0, 0, hi),
			 HZRIG_INSIDE);
	assert_int_equal(judge(&w, HZRIG_BEH_SHORT, 0, a, 0, 0, hi + 1),
			 HZRIG_LATE);
	assert_int_equal(judge(&w, HZRIG_BEH_SHORT, 0, a, 0, -EPIPE, 0),
			 HZRIG_WRONG_STATUS);

	/*
	 * delay shorter than the timeout, answered: held to the delay, which
	 * is tighter than the window on both sides.
	 */
	d = w.lo_ns / 2;
	assert_int_equal(judge(&w, HZRIG_BEH_DELAY, d, a, 0, 0, d),
			 HZRIG_INSIDE);
	assert_int_equal(judge(&w, HZRIG_BEH_DELAY, d, a, 0, 0, d - a),
			 HZRIG_INSIDE);
	assert_int_equal(judge(&w, HZRIG_BEH_DELAY, d, a, 0, 0, d + a),
			 HZRIG_INSIDE);
	assert_int_equal(judge(&w, HZRIG_BEH_DELAY, d, a, 0, 0, d - a - 1),
			 HZRIG_EARLY);
	assert_int_equal(judge(&w, HZRIG_BEH_DELAY, d, a, 0, 0, d + a + 1),
			 HZRIG_LATE);
	assert_int_equal(judge(&w, HZRIG_BEH_DELAY, d, a, 0, 0, hi + 1),
			 HZRIG_LATE);
	assert_int_equal(judge(&w, HZRIG_BEH_DELAY, d, a, 0, -ETIMEDOUT, mid),
			 HZRIG_WRONG_STATUS);

	/* delay longer than the timeout: a timeout, the delay plays no part. */
	d = hi + 10 * MS;
	assert_int_equal(judge(&w, HZRIG_BEH_DELAY, d, a, -ETIMEDOUT,
			       -ETIMEDOUT, mid), HZRIG_INSIDE);
	assert_int_equal(judge(&w, HZRIG_BEH_DELAY, d, a, -ETIMEDOUT,
			       -ETIMEDOUT, lo), HZRIG_INSIDE);
	assert_int_equal(judge(&w, HZRIG_BEH_DELAY, d, a, -ETIMEDOUT,
			       -ETIMEDOUT, hi), HZRIG_INSIDE);
	assert_int_equal(judge(&w, HZRIG_BEH_DELAY, d, a, -ETIMEDOUT,
			       -ETIMEDOUT, lo - 1), HZRIG_EARLY);
	assert_int_equal(judge(&w, HZRIG_BEH_DELAY, d, a, -ETIMEDOUT,
			       -ETIMEDOUT, hi + 1), HZRIG_LATE);
	assert_int_equal(judge(&w, HZRIG_BEH_DELAY, d, a, -ETIMEDOUT, 0, d),
			 HZRIG_WRONG_STATUS);

	/*
	 * delay inside the window: the caller takes the status seen as
	 * expected. Answered, it is held to the delay; timed out, to the
	 * window.
	 */
	d = w.lo_ns;
	assert_int_equal(judge(&w, HZRIG_BEH_DELAY, d, a, 0, 0, d),
			 HZRIG_INSIDE);
	assert_int_equal(judge(&w, HZRIG_BEH_DELAY, d, a, 0, 0, d + a + 1),
			 HZRIG_LATE);
	assert_int_equal(judge(&w, HZRIG_BEH_DELAY, d, a, 0, 0, d - a - 1),
			 HZRIG_EARLY);
	assert_int_equal(judge(&w, HZRIG_BEH_DELAY, d, a, -ETIMEDOUT,
			       -ETIMEDOUT, hi), HZRIG_INSIDE);
	assert_int_equal(judge(&w, HZRIG_BEH_DELAY, d, a, -ETIMEDOUT,
			       -ETIMEDOUT, lo - 1), HZRIG_EARLY);

	/* stall: -EPIPE within a few ticks, whatever the timeout. */
	assert_int_equal(judge(&w, HZRIG_BEH_STALL, 0, a, -EPIPE, -EPIPE, 0),
			 HZRIG_INSIDE);
	assert_int_equal(judge(&w, HZRIG_BEH_STALL, 0, a, -EPIPE, -EPIPE,
			       w.tick_ns), HZRIG_INSIDE);
	assert_int_equal(judge(&w, HZRIG_BEH_STALL, 0, a, -EPIPE, -EPIPE,
			       stall), HZRIG_INSIDE);
	assert_int_equal(judge(&w, HZRIG_BEH_STALL, 0, a, -EPIPE, -EPIPE,
			       stall + 1), HZRIG_LATE);
	/* As slow as the timeout: inside the window, but late for a stall. */
	assert_int_equal(judge(&w, HZRIG_BEH_STALL, 0, a, -EPIPE, -EPIPE,
			       mid), HZRIG_LATE);
	assert_int_equal(judge(&w, HZRIG_BEH_STALL, 0, a, -EPIPE, -EPIPE,
			       hi + 1), HZRIG_LATE);
	assert_int_equal(judge(&w, HZRIG_BEH_STALL, 0, a, -EPIPE, -ETIMEDOUT,
			       mid), HZRIG_WRONG_STATUS);
	assert_int_equal(judge(&w, HZRIG_BEH_STALL, 0, a, -EPIPE, 0, 0),
			 HZRIG_WRONG_STATUS);

	/* A refused capture: nothing is judged, not even the status. */
	assert_int_equal(hzrig_verdict_sample(&w, HZRIG_BEH_NAK, 0, a,
					      -ETIMEDOUT, -ETIMEDOUT,
					      (int64_t)mid, true),
			 HZRIG_REFUSED);
	assert_int_equal(hzrig_verdict_sample(&w, HZRIG_BEH_STALL, 0, a,
					      -EPIPE, 0, (int64_t)(hi + 1),
					      true), HZRIG_REFUSED);
	assert_int_equal(hzrig_verdict_sample(&w, HZRIG_BEH_DELAY, w.lo_ns / 2,
					      a, 0, 0, 0, true),
			 HZRIG_REFUSED);
}

/*
 * Level 0 at HZ=250, level 1 at HZ=1000 and HZ=100 (granule 8 jiffies), a
 * rounded-up n at HZ=300; the allowances like those the noise records give.
 */
static void test_verdict_sample(void **state)
{
	struct hzrig_window w;

	(void)state;
	check_sample_rule(250, 100, 1680234);
	check_sample_rule(1000, 100, 500000);
	check_sample_rule(100, 1000, 2 * MS);
	check_sample_rule(300, 101, 0);
	/*
	 * A killable call without timeout has no upper edge: an answer is
	 * inside whenever it comes, a stall still only within its ticks.
	 */
	assert_int_equal(hzrig_model_window(250, 0, true, &w), 0);
	assert_true(w.forever);
	assert_int_equal(judge(&w, HZRIG_BEH_ANSWER, 0, MS, 0, 0, INT64_MAX),
			 HZRIG_INSIDE);
	assert_int_equal(judge(&w, HZRIG_BEH_DELAY, 50 * MS, MS, 0, 0, 50 * MS),
			 HZRIG_INSIDE);
	assert_int_equal(judge(&w, HZRIG_BEH_DELAY, 50 * MS, MS, 0, 0, 60 * MS),
			 HZRIG_LATE);
	assert_int_equal(judge(&w, HZRIG_BEH_STALL, 0, MS, -EPIPE, -EPIPE,
			       HZRIG_STALL_TICKS * w.tick_ns + MS + 1),
			 HZRIG_LATE);
}

static void test_legacy_consequences(void **state)
{
	struct hzrig_window w;
	int64_t arg;

	(void)state;
	arg = hzrig_mode_timeout_arg(100, HZRIG_MODE_LEGACY_JIFFIES, 1000);
	assert_int_equal(arg, 100);
	assert_int_equal(hzrig_model_window(100, (int)arg, false, &w), 0);
	assert_int_equal(w.lo_ns, 100 * MS);
	assert_int_equal(w.hi_ns, 110 * MS);
	arg = hzrig_mode_timeout_arg(100, HZRIG_MODE_HZ_CONSTANT, 1);
	assert_int_equal(hzrig_model_window(100, (int)arg, false, &w), 0);
	assert_int_equal(w.effective_ms, 60000);
}


/*
 * The trees the model was derived from, and which one a release is judged
 * by: its own line's, else the newest older line's; nothing before 6.1.
 */
static void test_tree_lookup(void **state)
{
	static const struct {
		const char *release, *tree;
		bool exact;
	} cases[] = {
		{ "6.1.192", "6.1", true },
		{ "6.1.0-28-amd64", "6.1", true },
		{ "6.12.118", "6.12", true },
		{ "6.12.118+", "6.12", true },
		{ "6.6.63", "6.1", false },	/* between: the older model */
		{ "6.11", "6.1", false },
		{ "6.14.2-rc1", "6.12", false },
		{ "7.0.1", "6.12", false },
		{ "5.10.0", NULL, false },	/* before every derived tree */
		{ "6.0.19", NULL, false },
		{ "6", NULL, false },
		{ "6.x", NULL, false },
		{ "6.12abc", NULL, false },
		{ "", NULL, false },
	};
	const struct hzrig_tree_model *t;
	unsigned long maj, min;
	size_t i;
	bool exact;

	(void)state;
	assert_string_equal(hzrig_tree_model_at(0)->name, "6.1");
	assert_string_equal(hzrig_tree_model_at(1)->name, "6.12");
	assert_null(hzrig_tree_model_at(2));
	assert_ptr_equal(hzrig_tree_default(), hzrig_tree_model_at(0));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		exact = !cases[i].exact;
		t = hzrig_tree_model_for(cases[i].release, &exact);
		if (!cases[i].tree) {
			assert_null(t);
			continue;
		}
		assert_non_null(t);
		assert_string_equal(t->name, cases[i].tree);
		assert_int_equal(exact, cases[i].exact);
	}
	assert_null(hzrig_tree_model_for(NULL, NULL));
	assert_true(hzrig_release_line("6.12.118", &maj, &min));
	assert_int_equal(maj, 6);
	assert_int_equal(min, 12);
}

/*
 * 6.1.192 and 6.12.118 read the same (docs/model.md, "6.1 and 6.12"): every
 * window agrees on both trees, for every HZ, path and kind of call, over
 * the whole clamp range and past it.
 */
static void test_trees_agree(void **state)
{
	static const int hzs[] = { 100, 250, 300, 1000 };
	const struct hzrig_tree_model *a = hzrig_tree_model_at(0);
	const struct hzrig_tree_model *b = hzrig_tree_model_at(1);
	struct hzrig_window wa, wb;
	unsigned int path;
	size_t h;
	int t, k;

	(void)state;
	for (h = 0; h < sizeof(hzs) / sizeof(hzs[0]); h++)
		for (path = 0; path <= HZRIG_PATH_USBMON; path++)
			for (k = 0; k < 2; k++)
				for (t = -1; t <= 70000; t += t < 2000 ? 1 : 97) {
					assert_int_equal(hzrig_tree_path_window(a, hzs[h], path, t, k, &wa), 0);
					assert_int_equal(hzrig_tree_path_window(b, hzs[h], path, t, k, &wb), 0);
					assert_ptr_equal(wa.tree, a);
					assert_ptr_equal(wb.tree, b);
					assert_int_equal(wa.lo_ns, wb.lo_ns);
					assert_int_equal(wa.hi_ns, wb.hi_ns);
					assert_int_equal(wa.level, wb.level);
					assert_int_equal(wa.effective_ms, wb.effective_ms);
				}
}

/*
 * A tree whose constants differ gets its own windows: the clamp and the
 * wheel's geometry are read from the tree, not assumed.
 */
static void test_tree_constants_used(void **state)
{
	struct hzrig_tree_model t = *hzrig_tree_model_at(1);
	struct hzrig_window w;

	(void)state;
	t.sync_max_timeout_ms = 30000;
	assert_int_equal(hzrig_tree_window(&t, 250, 0, false, &w), 0);
	assert_int_equal(w.effective_ms, 30000);
	assert_int_equal(hzrig_tree_window(&t, 250, 45000, false, &w), 0);
	assert_int_equal(w.effective_ms, 30000);
	assert_int_equal(hzrig_tree_window(&t, 250, 45000, true, &w), 0);
	assert_int_equal(w.effective_ms, 45000);
	/* 4 bits a level: level 1 starts at 15 jiffies, not 63 */
	t = *hzrig_tree_model_at(1);
	t.lvl_bits = 4;
	assert_int_equal(hzrig_tree_window(&t, 1000, 14, false, &w), 0);
	assert_int_equal(w.level, 0);
	assert_int_equal(hzrig_tree_window(&t, 1000, 15, false, &w), 0);
	assert_int_equal(w.level, 1);
	assert_int_equal(w.hi_ns, (15 + 8) * MS);
	assert_int_equal(hzrig_tree_model_at(1)->lvl_bits, 6);
	assert_int_equal(hzrig_tree_window(NULL, 250, 100, false, &w), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_tick_ns),
		cmocka_unit_test(test_bad_hz),
		cmocka_unit_test(test_killable_forever),
		cmocka_unit_test(test_timeconst),
		cmocka_unit_test(test_msecs_round_up),
		cmocka_unit_test(test_window_vs_wheel),
		cmocka_unit_test(test_base_clock_offsets),
		cmocka_unit_test(test_wheel_cutoff),
		cmocka_unit_test(test_verdict_edges),
		cmocka_unit_test(test_stale_jiffies),
		cmocka_unit_test(test_verdict_names),
		cmocka_unit_test(test_mode_args),
		cmocka_unit_test(test_legacy_consequences),
		cmocka_unit_test(test_verdict_delay),
		cmocka_unit_test(test_verdict_stall),
		cmocka_unit_test(test_verdict_sample),
		cmocka_unit_test(test_path_windows),
		cmocka_unit_test(test_timer_start_parse),
		cmocka_unit_test(test_timer_expire_parse),
		cmocka_unit_test(test_jiffies_lag),
		cmocka_unit_test(test_tree_lookup),
		cmocka_unit_test(test_trees_agree),
		cmocka_unit_test(test_tree_constants_used),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
