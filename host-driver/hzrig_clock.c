// SPDX-License-Identifier: GPL-2.0
/*
 * hzrig_host's clock: where the jiffy grid lies in ktime, learnt once at
 * load, the jiffy rate measured against HZ, and the helpers that start a
 * call at a chosen point of a tick (docs/measurement.md).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "hzrig_host.h"

/* Jiffies per second x 1000, measured at load: hzrig_clock_init(). */
unsigned int hzrig_jiffy_rate;

/*
 * Where jiffies advances, as ktime_get() modulo TICK_NSEC: the tick runs on
 * an exact TICK_NSEC grid of CLOCK_MONOTONIC (tick_init_jiffy_update()
 * aligns it to a multiple of TICK_NSEC, and the tick hrtimer is forwarded by
 * TICK_NSEC, also across NO_HZ idle). Learnt once at load; see
 * hzrig_learn_grid().
 */
static u32 hzrig_grid_ns;
static u32 hzrig_grid_spread_ns;	/* how far the sightings scattered */
static u32 hzrig_grid_latency_ns;	/* the earliest one after the grid */
static u32 hzrig_highres_wait_ms;	/* hzrig_wait_highres() */
/*
 * One edge of the grid and the jiffies value the tick gave it: from these,
 * the jiffies value any ktime should see (hzrig_jiffies_lag()).
 */
static ktime_t hzrig_ref_edge;
static u64 hzrig_ref_jiffies;
/* The same edge in ns, for userspace that reads jiffies in a trace. */
static u64 hzrig_ref_edge_ns;

static const struct kernel_param_ops hzrig_param_ro_u64_ops = {
	.set	= hzrig_param_set_ro,
	.get	= param_get_ullong,
};

module_param_cb(tick_ref_ns, &hzrig_param_ro_u64_ops, &hzrig_ref_edge_ns,
		0444);
MODULE_PARM_DESC(tick_ref_ns,
		 "ktime_get() of one tick edge seen at load, ns (read-only)");
module_param_cb(tick_ref_jiffies, &hzrig_param_ro_u64_ops,
		&hzrig_ref_jiffies, 0444);
MODULE_PARM_DESC(tick_ref_jiffies,
		 "the jiffies value that edge's tick gave (read-only)");

module_param_cb(jiffy_rate_mhz, &hzrig_param_ro_ops, &hzrig_jiffy_rate,
		0444);
MODULE_PARM_DESC(jiffy_rate_mhz,
		 "jiffies per second measured at load, x1000 (read-only)");
module_param_cb(tick_grid_ns, &hzrig_param_ro_ops, &hzrig_grid_ns, 0444);
MODULE_PARM_DESC(tick_grid_ns,
		 "where jiffies advance, ktime mod TICK_NSEC (read-only)");
module_param_cb(tick_grid_spread_ns, &hzrig_param_ro_ops,
		&hzrig_grid_spread_ns, 0444);
MODULE_PARM_DESC(tick_grid_spread_ns,
		 "spread of the tick edges seen at load around it (read-only)");
module_param_cb(tick_latency_ns, &hzrig_param_ro_ops, &hzrig_grid_latency_ns,
		0444);
MODULE_PARM_DESC(tick_latency_ns,
		 "how long after the grid jiffies advanced, at the soonest (read-only)");
module_param_cb(highres_wait_ms, &hzrig_param_ro_ops, &hzrig_highres_wait_ms,
		0444);
MODULE_PARM_DESC(highres_wait_ms,
		 "how long the load waited for high-resolution timers (read-only)");

/*
 * Busy-wait until jiffies advances and return when it did, as close to the
 * tick as we can see it. Waits at most one tick. Only at load: a spin keeps
 * the one CPU from every other thread.
 */
static ktime_t hzrig_tick_edge(u64 *jiffies_now)
{
	u64 start = get_jiffies_64();
	u64 now;

	do {
		cpu_relax();
		now = get_jiffies_64();
	} while (now == start);

	if (jiffies_now)
		*jiffies_now = now;
	return ktime_get();
}

/* The last tick edge at or before @t. */
ktime_t hzrig_edge_before(ktime_t t)
{
	u32 rem;

	div_u64_rem(ktime_to_ns(t) + TICK_NSEC - hzrig_grid_ns, TICK_NSEC,
		    &rem);
	return ktime_sub_ns(t, rem);
}

/* The first tick edge after @t. */
ktime_t hzrig_edge_after(ktime_t t)
{
	return ktime_add_ns(hzrig_edge_before(t), TICK_NSEC);
}

/*
 * How many ticks @j, read at or just before @t, is behind the jiffies value
 * the grid gives @t: 0 when the tick came on time; 1 or more when @t is past
 * an edge whose tick interrupt had not run yet (late under TCG). A call
 * started then arms its timer against the old jiffies and ends that many
 * ticks early (docs/model.md, section 10).
 */
s32 hzrig_jiffies_lag(ktime_t t, u64 j)
{
	s64 ticks = div_s64(ktime_to_ns(ktime_sub(hzrig_edge_before(t),
						  hzrig_ref_edge)), TICK_NSEC);

	return clamp_t(s64, (s64)(hzrig_ref_jiffies + ticks - j), S32_MIN,
		       S32_MAX);
}

/*
 * Sleep on an hrtimer until @spin_ns before @when, then spin the rest. No
 * slack: the point is to start on time. The lane's planner may put @when
 * up to HZRIG_SPAN_TRIES ticks ahead (0.64 s at HZ=100), so the sleep is
 * killable: -EINTR when a fatal signal ends it early, else 0.
 */
int hzrig_wait_until(ktime_t when, u64 spin_ns)
{
	ktime_t wake = ktime_sub_ns(when, spin_ns);

	while (ktime_before(ktime_get(), wake)) {
		if (fatal_signal_pending(current))
			return -EINTR;
		set_current_state(TASK_KILLABLE);
		schedule_hrtimeout_range(&wake, 0, HRTIMER_MODE_ABS);
	}
	while (ktime_before(ktime_get(), when))
		cpu_relax();
	return 0;
}

/*
 * Where the jiffy grid lies: watch HZRIG_GRID_EDGES jiffies changes and take
 * the earliest one seen, modulo TICK_NSEC (each sighting comes after the
 * edge, by the tick interrupt's latency and the polling). The sightings lie
 * on a circle of TICK_NSEC: the earliest is the one after the largest gap
 * between neighbours, which holds however they scatter around the wrap.
 * Their spread (TICK_NSEC less that gap) is logged: a few us show the grid
 * is exact, more is the latency of the tick interrupt. Even the earliest
 * comes after the edge, by that latency: once the tick runs one-shot it is
 * on multiples of TICK_NSEC (tick_init_jiffy_update()), so when at least
 * half the sightings lie just after one, that multiple is the grid. The
 * earliest sighting alone can mislead: one delayed by most of a jiffy (the
 * vCPU off the host's CPU under TCG) looks, modulo TICK_NSEC, like one just
 * before an edge. Otherwise (a periodic tick, a kernel that does not align
 * it) the earliest sighting is the best guess. The last sighting, with the
 * jiffies value it saw, anchors jiffies to the grid: a late tick catches
 * jiffies up to the last edge passed, so the value belongs to the edge at
 * or before the sighting.
 */
static void __init hzrig_learn_grid(void)
{
	u32 off[HZRIG_GRID_EDGES], gap, best_gap = 0;
	int i, j, best = 0, aligned = 0;
	ktime_t seen = 0;
	u64 seen_jiffies = 0;

	for (i = 0; i < HZRIG_GRID_EDGES; i++) {
		u32 o;

		seen = hzrig_tick_edge(&seen_jiffies);
		div_u64_rem(ktime_to_ns(seen), TICK_NSEC, &o);
		/* insertion sort: a handful of values */
		for (j = i; j > 0 && off[j - 1] > o; j--)
			off[j] = off[j - 1];
		off[j] = o;
	}
	for (i = 0; i < HZRIG_GRID_EDGES; i++) {
		gap = i ? off[i] - off[i - 1] :
		      off[0] + TICK_NSEC - off[HZRIG_GRID_EDGES - 1];
		if (gap >= best_gap) {
			best_gap = gap;
			best = i;
		}
	}
	hzrig_grid_spread_ns = TICK_NSEC - best_gap;
	while (aligned < HZRIG_GRID_EDGES &&
	       off[aligned] < HZRIG_GRID_ALIGNED_NS)
		aligned++;
	if (2 * aligned >= HZRIG_GRID_EDGES) {
		hzrig_grid_ns = 0;
		hzrig_grid_latency_ns = off[0];	/* sorted */
	} else {
		hzrig_grid_ns = off[best];
		pr_warn("tick edges not just after multiples of TICK_NSEC: a periodic tick?\n");
	}
	hzrig_ref_edge = hzrig_edge_before(seen);
	hzrig_ref_jiffies = seen_jiffies;
	hzrig_ref_edge_ns = ktime_to_ns(hzrig_ref_edge);
	pr_info("jiffies advance at %u ns mod TICK_NSEC %lu, first seen %u ns after (%d edges, spread %u ns)\n",
		hzrig_grid_ns, TICK_NSEC, hzrig_grid_latency_ns,
		HZRIG_GRID_EDGES, hzrig_grid_spread_ns);
}

/* Jiffies per second x 1000, timed with ktime_get() between tick edges. */
static u32 __init hzrig_measure_jiffy_rate(void)
{
	u64 j0, j1;
	ktime_t t0, t1;
	s64 ns;

	t0 = hzrig_tick_edge(&j0);
	msleep(HZRIG_RATE_SAMPLE_MS);
	t1 = hzrig_tick_edge(&j1);

	ns = ktime_to_ns(ktime_sub(t1, t0));
	if (ns <= 0)
		return 0;
	return div64_u64((u64)(j1 - j0) * NSEC_PER_SEC * 1000, ns);
}

/*
 * The tick goes one-shot, on its final TICK_NSEC-aligned grid, when the
 * timers switch to high resolution (hrtimer_switch_to_hres() sets
 * hrtimer_resolution, then tick_setup_sched_timer()). That needs a
 * clocksource valid for it and comes on a tick after the clocksource
 * change: under TCG, at times a second or more into boot, after /init has
 * started. A grid learnt before it is the periodic tick's and moves.
 */
static void __init hzrig_wait_highres(void)
{
#ifdef CONFIG_HIGH_RES_TIMERS
	while (READ_ONCE(hrtimer_resolution) != HIGH_RES_NSEC) {
		if (hzrig_highres_wait_ms >= HZRIG_HIGHRES_WAIT_MS) {
			pr_warn("timers still low-resolution after %u ms: the tick grid may move\n",
				hzrig_highres_wait_ms);
			return;
		}
		msleep(20);
		hzrig_highres_wait_ms += 20;
	}
#endif
}

/*
 * Wait for the one-shot tick, measure the jiffy rate and learn the grid.
 * -EINVAL when the rate is not HZ's: HZ is inlined at compile time, so a
 * module built against another variant's tree would convert and report
 * every timeout wrongly.
 */
int __init hzrig_clock_init(void)
{
	u64 want = HZ * 1000ULL;
	u64 off;
	u32 rate;

	hzrig_wait_highres();
	rate = hzrig_measure_jiffy_rate();
	off = rate > want ? rate - want : want - rate;
	if (off * 100 > want * HZRIG_RATE_TOLERANCE) {
		pr_err("compiled for HZ=%d but measured %u.%03u jiffies/s (more than %d%% off): built against another kernel's tree?\n",
		       HZ, rate / 1000, rate % 1000, HZRIG_RATE_TOLERANCE);
		return -EINVAL;
	}
	hzrig_jiffy_rate = rate;
	pr_info("HZ=%d measured %u.%03u jiffies/s\n", HZ, rate / 1000,
		rate % 1000);
	hzrig_learn_grid();
	return 0;
}
