// SPDX-License-Identifier: GPL-2.0
/*
 * hzrig_host's lane planner: cases on independent endpoints run at once,
 * and each lane keeps its ARM traffic, its call's start and its expected
 * end out of the others' way (the quiet spans, docs/measurement.md). The
 * planner predicts each call's end from the kernel's code and counts how
 * often it was right (the planner_* parameters, the runner's lane_planner
 * test).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "hzrig_host.h"

/*
 * The kernel under the module takes the synchronous calls' timeout as
 * jiffies, not milliseconds: true only on the regression demo's kernel
 * (kernel/patches/0001-*), whose variant loads the module with it. The lane
 * planner predicts when a timed-out call ends from it; nothing else uses it
 * (the calls and the samples are the same on every kernel).
 */
static bool hzrig_sync_timeout_jiffies;
/*
 * How well the planner foresaw the calls: each call it predicted an end
 * for (hzrig_end_span()) counts, and a miss when it ended outside that
 * window; how long arming slept for a quiet moment at the most (not
 * counting waits for ep0_mutex, which a control case holds for its whole
 * call), and how often that wait hit its bound (HZRIG_EP0_WAIT_MAX_NS).
 * Module-wide, since load; the runner reads them after a plan.
 */
static atomic_t hzrig_ends_predicted = ATOMIC_INIT(0);
static atomic_t hzrig_ends_missed = ATOMIC_INIT(0);
static atomic_t hzrig_ends_missed_far = ATOMIC_INIT(0);
static atomic_t hzrig_ends_miss_max_us = ATOMIC_INIT(0);
static atomic_t hzrig_ep0_quiet_max_us = ATOMIC_INIT(0);
static atomic_t hzrig_ep0_waits_capped = ATOMIC_INIT(0);

module_param_named(sync_timeout_jiffies, hzrig_sync_timeout_jiffies, bool,
		   0444);
MODULE_PARM_DESC(sync_timeout_jiffies,
		 "the kernel takes usb_*_msg() timeouts as jiffies (regression demo kernel only)");

static int hzrig_param_get_atomic(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(kp->arg));
}

static const struct kernel_param_ops hzrig_param_stat_ops = {
	.set	= hzrig_param_set_ro,
	.get	= hzrig_param_get_atomic,
};

module_param_cb(planner_ends_predicted, &hzrig_param_stat_ops,
		&hzrig_ends_predicted, 0444);
MODULE_PARM_DESC(planner_ends_predicted,
		 "calls whose end the lane planner predicted (read-only)");
module_param_cb(planner_ends_missed, &hzrig_param_stat_ops,
		&hzrig_ends_missed, 0444);
MODULE_PARM_DESC(planner_ends_missed,
		 "of those, calls that ended outside the predicted window (read-only)");
module_param_cb(planner_ends_missed_far, &hzrig_param_stat_ops,
		&hzrig_ends_missed_far, 0444);
MODULE_PARM_DESC(planner_ends_missed_far,
		 "of those, calls that ended over 20 ms outside it (read-only)");
module_param_cb(planner_ends_miss_max_us, &hzrig_param_stat_ops,
		&hzrig_ends_miss_max_us, 0444);
MODULE_PARM_DESC(planner_ends_miss_max_us,
		 "the farthest a call ended outside its predicted window (read-only)");
module_param_cb(planner_ep0_quiet_max_us, &hzrig_param_stat_ops,
		&hzrig_ep0_quiet_max_us, 0444);
MODULE_PARM_DESC(planner_ep0_quiet_max_us,
		 "longest a lane slept waiting for a quiet moment to use ep0 (read-only)");
module_param_cb(planner_ep0_waits_capped, &hzrig_param_stat_ops,
		&hzrig_ep0_waits_capped, 0444);
MODULE_PARM_DESC(planner_ep0_waits_capped,
		 "waits for ep0 that hit their bound and went ahead (read-only)");

/*
 * The end of the latest span of another lane than @self that overlaps
 * [@lo, @hi], 0 if none. A busy span (@busy) only conflicts with critical
 * ones. Needs dev->span_lock.
 */
static ktime_t hzrig_span_conflict(struct hzrig_dev *dev,
				   struct hzrig_lane *self, ktime_t lo,
				   ktime_t hi, bool busy)
{
	ktime_t end = 0;
	int i, k;

	lockdep_assert_held(&dev->span_lock);
	for (i = 0; i < HZRIG_SLOT_COUNT; i++) {
		struct hzrig_lane *l = &dev->lane[i];

		if (l == self)
			continue;
		for (k = busy ? HZRIG_SPAN_START : 0; k < HZRIG_SPAN_COUNT;
		     k++) {
			const struct hzrig_span *sp = &l->span[k];

			if (sp->hi && ktime_before(lo, sp->hi) &&
			    ktime_before(sp->lo, hi) && ktime_after(sp->hi, end))
				end = sp->hi;
		}
	}
	return end;
}

static void hzrig_span_set(struct hzrig_lane *lane, int id, ktime_t lo,
			   ktime_t hi)
{
	lane->span[id].lo = lo;
	lane->span[id].hi = hi;
}

void hzrig_span_clear(struct hzrig_dev *dev, struct hzrig_lane *lane)
{
	spin_lock(&dev->span_lock);
	memset(lane->span, 0, sizeof(lane->span));
	spin_unlock(&dev->span_lock);
}

/* Raise @v to @x if it is lower. */
static void hzrig_atomic_max(atomic_t *v, int x)
{
	int old = atomic_read(v);

	while (old < x && !atomic_try_cmpxchg(v, &old, x))
		;
}

/*
 * Take ep0 for arming (or a RESET, or clearing a halt) at a moment no other
 * lane's call starts or ends, and say so. Sleeps without ep0 while waiting.
 * Alone (serial runs) it never waits. The other lanes may keep starting and
 * ending calls back to back: once it has slept HZRIG_EP0_WAIT_MAX_NS for a
 * quiet moment this lane goes ahead anyway (its busy span then tells the
 * others' planners to keep their next starts off it), so no lane starves.
 * Waiting for ep0_mutex does not count: a control case holds it for its
 * call, and the quiet moment is still worth finding after that.
 */
int hzrig_ep0_lock_quiet(struct hzrig_dev *dev, struct hzrig_lane *lane)
{
	s64 quiet_ns = 0;	/* slept so far waiting for a quiet moment */
	int ret;

	for (;;) {
		ktime_t now, end, wake;
		bool go;

		ret = mutex_lock_killable(&dev->ep0_mutex);
		if (ret)
			return ret;
		now = ktime_get();
		go = quiet_ns >= HZRIG_EP0_WAIT_MAX_NS;
		spin_lock(&dev->span_lock);
		end = hzrig_span_conflict(dev, lane, now,
					  ktime_add_ns(now, HZRIG_SPAN_BUSY_NS),
					  true);
		if (!end || go)
			hzrig_span_set(lane, HZRIG_SPAN_BUSY, now,
				       ktime_add_ns(now, HZRIG_SPAN_BUSY_NS));
		spin_unlock(&dev->span_lock);
		if (!end || go) {
			hzrig_atomic_max(&hzrig_ep0_quiet_max_us,
					 div_s64(quiet_ns, NSEC_PER_USEC));
			if (end)
				atomic_inc(&hzrig_ep0_waits_capped);
			return 0;
		}
		mutex_unlock(&dev->ep0_mutex);
		wake = ktime_add_ns(now, HZRIG_EP0_WAIT_MAX_NS - quiet_ns);
		ret = hzrig_wait_until(ktime_before(end, wake) ? end : wake, 0);
		if (ret)
			return ret;
		quiet_ns += ktime_to_ns(ktime_sub(ktime_get(), now));
	}
}

void hzrig_ep0_unlock_quiet(struct hzrig_dev *dev, struct hzrig_lane *lane)
{
	spin_lock(&dev->span_lock);
	hzrig_span_set(lane, HZRIG_SPAN_BUSY, 0, 0);
	spin_unlock(&dev->span_lock);
	mutex_unlock(&dev->ep0_mutex);
}

/*
 * Where a call started at @start (tick edge @edge) can end, as a span: NAK
 * calls between the ticks the timer wheel may expire them on, DELAY calls
 * when the gadget answers. False when it ends right after its start (the
 * start span covers that), never, or anywhere in a window wider than
 * HZRIG_SPAN_MAX_NS, where a few ms do not matter.
 */
static bool hzrig_end_span(const struct hzrig_case *c, int timeout,
			   ktime_t start, ktime_t edge, struct hzrig_span *sp)
{
	unsigned long n, g, lvl_start;
	u64 wait_us;
	u32 ms;

	if (c->behaviour != HZRIG_BEH_NAK && c->behaviour != HZRIG_BEH_DELAY)
		return false;
	/* usb_start_wait_urb(): what the kernel waits for the int passed */
	if (c->transfer == HZRIG_XFER_BULK_IN_KILLABLE)
		ms = max(timeout, 0);
	else if (timeout <= 0 || timeout > USB_MAX_SYNCHRONOUS_TIMEOUT)
		ms = USB_MAX_SYNCHRONOUS_TIMEOUT;
	else
		ms = timeout;
	/* the kernel's wait; the regression demo's kernel waits @ms jiffies */
	wait_us = hzrig_sync_timeout_jiffies ? (u64)ms * TICK_NSEC / NSEC_PER_USEC :
					       (u64)ms * USEC_PER_MSEC;
	if (c->behaviour == HZRIG_BEH_DELAY && (!ms || c->delay_us < wait_us)) {
		sp->lo = ktime_add_us(start, c->delay_us);
		sp->hi = sp->lo;
		goto widen;
	}
	if (!ms)
		return false;
	/* timer wheel levels: granularity 8^level, levels from 63 jiffies */
	n = hzrig_sync_timeout_jiffies ? ms : msecs_to_jiffies(ms);
	for (g = 1, lvl_start = 63; n >= lvl_start; g <<= 3, lvl_start <<= 3)
		;
	if ((u64)g * TICK_NSEC > HZRIG_SPAN_MAX_NS)
		return false;
	sp->lo = ktime_add_ns(edge, (u64)(n + 1) * TICK_NSEC);
	sp->hi = ktime_add_ns(edge, (u64)(n + g) * TICK_NSEC);
widen:
	sp->lo = ktime_sub_ns(sp->lo, HZRIG_SPAN_PRE_NS);
	sp->hi = ktime_add_ns(sp->hi, HZRIG_SPAN_END_NS);
	return true;
}

/*
 * Move @start on by whole ticks (same phase) until neither its start nor
 * its end overlaps another lane's span, and publish both. Gives up after
 * HZRIG_SPAN_TRIES ticks and starts anyway. Returns the start.
 */
ktime_t hzrig_plan_quiet(struct hzrig_dev *dev, struct hzrig_lane *lane,
			 const struct hzrig_case *c, int timeout, ktime_t start)
{
	struct hzrig_span st = { 0 }, end = { 0 };
	bool has_end = false;
	int i;

	spin_lock(&dev->span_lock);
	for (i = 0; i < HZRIG_SPAN_TRIES; i++) {
		st.lo = ktime_sub_ns(start, HZRIG_SPAN_PRE_NS);
		st.hi = ktime_add_ns(start, HZRIG_SPAN_START_NS);
		has_end = hzrig_end_span(c, timeout, start,
					 hzrig_edge_before(start), &end);
		if (!hzrig_span_conflict(dev, lane, st.lo, st.hi, false) &&
		    (!has_end ||
		     !hzrig_span_conflict(dev, lane, end.lo, end.hi, false)))
			break;
		start = ktime_add_ns(start, TICK_NSEC);
	}
	lane->span[HZRIG_SPAN_START] = st;
	if (has_end)
		lane->span[HZRIG_SPAN_END] = end;
	else
		hzrig_span_set(lane, HZRIG_SPAN_END, 0, 0);
	spin_unlock(&dev->span_lock);
	return start;
}

/*
 * Hold a call's end at @t1 against the window the planner published for it,
 * if any: a NAK that timed out or a DELAY that was answered. A miss by a
 * few ms is the guest's noise (the window's slack is HZRIG_SPAN_END_NS); a
 * far one means the planner kept the other lanes away from the wrong
 * moment (as it did on the regression demo's kernel before it knew the
 * unit).
 */
void hzrig_check_end(struct hzrig_dev *dev, struct hzrig_lane *lane,
		     ktime_t t1, int status)
{
	struct hzrig_span end;
	ktime_t off;

	spin_lock(&dev->span_lock);
	end = lane->span[HZRIG_SPAN_END];
	spin_unlock(&dev->span_lock);
	if (!end.hi || (status && status != -ETIMEDOUT))
		return;
	atomic_inc(&hzrig_ends_predicted);
	if (ktime_before(t1, end.lo))
		off = ktime_sub(end.lo, t1);
	else if (ktime_after(t1, end.hi))
		off = ktime_sub(t1, end.hi);
	else
		return;
	atomic_inc(&hzrig_ends_missed);
	if (off > HZRIG_PLANNER_FAR_NS)
		atomic_inc(&hzrig_ends_missed_far);
	hzrig_atomic_max(&hzrig_ends_miss_max_us,
			 min_t(s64, ktime_to_us(off), INT_MAX));
}
