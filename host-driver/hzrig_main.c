// SPDX-License-Identifier: GPL-2.0
/*
 * hzrig_host - time synchronous USB transfers against the hzrig gadget
 *
 * The hzrig gadget (a gadgetfs device on dummy_hcd) NAKs, delays, stalls or
 * answers short on command. For every repetition of a case this driver arms
 * the gadget over ep0, then issues exactly one synchronous call -
 * usb_bulk_msg(), usb_control_msg(), usb_interrupt_msg() or
 * usb_bulk_msg_killable() - and times it with ktime_get(). The timeout it
 * passes is computed the way drivers in the wild compute it, in milliseconds
 * as the API wants or in jiffies as it wanted before 2.6.12, so the rig can
 * show what each costs at a given HZ.
 *
 * Userspace drives it through /dev/hzrig<n>: see include/hzrig/ioctl.h for
 * the ABI and include/hzrig/wire.h for what goes over the wire. Cases on
 * independent endpoints ("lanes": ep0, bulk IN, bulk OUT, interrupt IN) may
 * run at once from several threads; docs/measurement.md has the details.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "hzrig_host.h"

static struct usb_driver hzrig_driver;

static const u8 hzrig_lane_of[HZRIG_XFER_COUNT] = {
	[HZRIG_XFER_BULK_IN]		= HZRIG_LANE_BULK_IN,
	[HZRIG_XFER_BULK_OUT]		= HZRIG_LANE_BULK_OUT,
	[HZRIG_XFER_CTRL_IN]		= HZRIG_LANE_EP0,
	[HZRIG_XFER_CTRL_OUT]		= HZRIG_LANE_EP0,
	[HZRIG_XFER_INT_IN]		= HZRIG_LANE_INT_IN,
	[HZRIG_XFER_BULK_IN_KILLABLE]	= HZRIG_LANE_BULK_IN,
};

/* What a lane's RESET drops on the gadget. */
static const u16 hzrig_lane_targets[HZRIG_LANE_COUNT] = {
	[HZRIG_LANE_EP0]	= BIT(HZRIG_TARGET_EP0_IN) |
				  BIT(HZRIG_TARGET_EP0_OUT),
	[HZRIG_LANE_BULK_IN]	= BIT(HZRIG_TARGET_BULK_IN),
	[HZRIG_LANE_BULK_OUT]	= BIT(HZRIG_TARGET_BULK_OUT),
	[HZRIG_LANE_INT_IN]	= BIT(HZRIG_TARGET_INT_IN),
};

/* Where the gadget applies what is armed for each transfer. */
static const u8 hzrig_target[HZRIG_XFER_COUNT] = {
	[HZRIG_XFER_BULK_IN]		= HZRIG_TARGET_BULK_IN,
	[HZRIG_XFER_BULK_OUT]		= HZRIG_TARGET_BULK_OUT,
	[HZRIG_XFER_CTRL_IN]		= HZRIG_TARGET_EP0_IN,
	[HZRIG_XFER_CTRL_OUT]		= HZRIG_TARGET_EP0_OUT,
	[HZRIG_XFER_INT_IN]		= HZRIG_TARGET_INT_IN,
	[HZRIG_XFER_BULK_IN_KILLABLE]	= HZRIG_TARGET_BULK_IN,
};

/*
 * Read-only module parameters: the HZ this module was compiled with and the
 * jiffy rate measured at load (jiffies per second x 1000), for anyone
 * checking /sys/module/hzrig_host/parameters without opening the device.
 */
static unsigned int hzrig_hz = HZ;
static unsigned int hzrig_heartbeat_ms;
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
static unsigned int hzrig_jiffy_rate_mhz;

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

static int hzrig_param_set_ro(const char *val, const struct kernel_param *kp)
{
	return -EPERM;
}

static const struct kernel_param_ops hzrig_param_ro_ops = {
	.set	= hzrig_param_set_ro,
	.get	= param_get_uint,
};

module_param_cb(hz, &hzrig_param_ro_ops, &hzrig_hz, 0444);
MODULE_PARM_DESC(hz, "HZ the module was compiled with (read-only)");
module_param_named(heartbeat_ms, hzrig_heartbeat_ms, uint, 0444);
MODULE_PARM_DESC(heartbeat_ms,
		 "poll each device's status every this many ms (0: never)");
module_param_cb(jiffy_rate_mhz, &hzrig_param_ro_ops, &hzrig_jiffy_rate_mhz,
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
		 "of those, calls that ended over 10 ms outside it (read-only)");
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
static ktime_t hzrig_edge_before(ktime_t t)
{
	u32 rem;

	div_u64_rem(ktime_to_ns(t) + TICK_NSEC - hzrig_grid_ns, TICK_NSEC,
		    &rem);
	return ktime_sub_ns(t, rem);
}

/* The first tick edge after @t. */
static ktime_t hzrig_edge_after(ktime_t t)
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
static s32 hzrig_jiffies_lag(ktime_t t, u64 j)
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
static int hzrig_wait_until(ktime_t when, u64 spin_ns)
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
	for (i = 0; i < HZRIG_LANE_COUNT; i++) {
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

static void hzrig_span_clear(struct hzrig_dev *dev, struct hzrig_lane *lane)
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
static int hzrig_ep0_lock_quiet(struct hzrig_dev *dev, struct hzrig_lane *lane)
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

static void hzrig_ep0_unlock_quiet(struct hzrig_dev *dev,
				   struct hzrig_lane *lane)
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
static ktime_t hzrig_plan_quiet(struct hzrig_dev *dev, struct hzrig_lane *lane,
				const struct hzrig_case *c, int timeout,
				ktime_t start)
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

static void hzrig_delete(struct kref *kref)
{
	struct hzrig_dev *dev = container_of(kref, struct hzrig_dev, kref);
	int i;

	usb_put_dev(dev->udev);
	kfree(dev->hb_buf);
	hzrig_rwsem_free(dev);
	for (i = 0; i < HZRIG_LANE_COUNT; i++)
		kfree(dev->lane[i].buf);
	kfree(dev);
}

static int hzrig_open(struct inode *inode, struct file *file)
{
	struct usb_interface *intf;
	struct hzrig_dev *dev;

	intf = usb_find_interface(&hzrig_driver, iminor(inode));
	if (!intf)
		return -ENODEV;

	dev = usb_get_intfdata(intf);
	if (!dev)
		return -ENODEV;

	kref_get(&dev->kref);
	file->private_data = dev;
	return nonseekable_open(inode, file);
}

static int hzrig_release(struct inode *inode, struct file *file)
{
	struct hzrig_dev *dev = file->private_data;

	kref_put(&dev->kref, hzrig_delete);
	return 0;
}

int hzrig_invalid(struct hzrig_dev *dev, const char *what, u32 val)
{
	dev_info_ratelimited(&dev->udev->dev, "invalid argument: %s %u\n",
			     what, val);
	return -EINVAL;
}

static_assert(sizeof(struct hzrig_info) == HZRIG_INFO_SIZE_V1);
static_assert(sizeof(struct hzrig_sample) == HZRIG_SAMPLE_SIZE_V1);
static_assert(sizeof(struct hzrig_rwsem_test) == HZRIG_RWSEM_TEST_SIZE_V1);
static_assert(offsetofend(struct hzrig_case, samples) == HZRIG_CASE_SIZE_V1);
/* sample_size beyond this is not a sample but a mistake */
#define HZRIG_SAMPLE_SIZE_MAX	4096

/*
 * The caller's struct at @argp: its version and size first, then the whole
 * of it by copy_struct_from_user() (include/hzrig/ioctl.h). *@usize gets
 * the caller's size. -EINVAL (logged) for an unknown version or a size
 * below @min, -E2BIG for a longer struct whose unknown tail is not zero.
 */
int hzrig_get_struct(struct hzrig_dev *dev, void *dst, size_t ksize,
		     const void __user *argp, size_t min, u32 *usize,
		     const char *what)
{
	u32 head[2];
	int ret;

	if (copy_from_user(head, argp, sizeof(head)))
		return -EFAULT;
	if (head[0] != HZRIG_ABI_VERSION)
		return hzrig_invalid(dev, what, head[0]);
	if (head[1] < min || head[1] > PAGE_SIZE)
		return hzrig_invalid(dev, "struct size", head[1]);
	ret = copy_struct_from_user(dst, ksize, argp, head[1]);
	if (ret == -E2BIG)
		dev_info_ratelimited(&dev->udev->dev,
				     "%s: %u bytes with an unknown non-zero tail\n",
				     what, head[1]);
	*usize = head[1];
	return ret;
}

static long hzrig_ioctl_info(struct hzrig_dev *dev, void __user *argp)
{
	struct hzrig_info info;
	u32 usize;
	int ret;

	ret = hzrig_get_struct(dev, &info, sizeof(info), argp,
			       HZRIG_INFO_SIZE_V1, &usize, "info version");
	if (ret)
		return ret;

	memset(&info, 0, sizeof(info));
	info.version = HZRIG_ABI_VERSION;
	info.size = sizeof(info);
	info.hz = HZ;
	info.jiffy_rate_mhz = hzrig_jiffy_rate_mhz;
	info.usb_max_sync_timeout_ms = USB_MAX_SYNCHRONOUS_TIMEOUT;
	info.wire_version = HZRIG_WIRE_VERSION;
	info.bulk_in_maxp = dev->bulk_in_maxp;
	info.bulk_out_maxp = dev->bulk_out_maxp;
	info.int_in_maxp = dev->has_int_in ? dev->int_in_maxp : 0;
	strscpy(info.release, utsname()->release, sizeof(info.release));

	/* info.size says what this driver wrote; the caller's size bounds it */
	if (copy_to_user(argp, &info, min_t(size_t, usize, sizeof(info))))
		return -EFAULT;
	return 0;
}

static bool hzrig_is_ctrl(u32 transfer)
{
	return transfer == HZRIG_XFER_CTRL_IN ||
	       transfer == HZRIG_XFER_CTRL_OUT;
}

static int hzrig_check_case(struct hzrig_dev *dev, const struct hzrig_case *c)
{
	if (c->sample_size < HZRIG_SAMPLE_SIZE_V1 ||
	    c->sample_size > HZRIG_SAMPLE_SIZE_MAX)
		return hzrig_invalid(dev, "sample_size", c->sample_size);
	if (c->reserved)
		return hzrig_invalid(dev, "reserved", c->reserved);
	if (c->transfer >= HZRIG_XFER_COUNT)
		return hzrig_invalid(dev, "transfer", c->transfer);
	if (c->behaviour >= HZRIG_BEH_COUNT)
		return hzrig_invalid(dev, "behaviour", c->behaviour);
	if (c->mode >= HZRIG_MODE_COUNT)
		return hzrig_invalid(dev, "mode", c->mode);
	if (c->reps < 1 || c->reps > HZRIG_MAX_REPS)
		return hzrig_invalid(dev, "reps", c->reps);
	if (c->timeout_ms > HZRIG_MAX_TIMEOUT_MS)
		return hzrig_invalid(dev, "timeout_ms", c->timeout_ms);
	if (c->length < 1 || c->length > HZRIG_BUF_SIZE)
		return hzrig_invalid(dev, "length", c->length);
	if (hzrig_is_ctrl(c->transfer) && c->length > HZRIG_MAX_CTRL_XFER)
		return hzrig_invalid(dev, "control length", c->length);
	if (c->behaviour == HZRIG_BEH_SHORT && c->short_length >= c->length)
		return hzrig_invalid(dev, "short_length", c->short_length);
	if (c->flags & ~HZRIG_CASE_FLAGS)
		return hzrig_invalid(dev, "flags", c->flags);
	if (c->transfer == HZRIG_XFER_INT_IN && !dev->has_int_in)
		return -EOPNOTSUPP;
	return 0;
}

/* The int the caller passes as timeout, computed as the mode says. */
static int hzrig_timeout_arg(const struct hzrig_case *c)
{
	switch (c->mode) {
	case HZRIG_MODE_LEGACY_JIFFIES:
		return msecs_to_jiffies(c->timeout_ms);
	case HZRIG_MODE_HZ_CONSTANT:
		return HZ * c->timeout_ms / 1000;
	case HZRIG_MODE_ZERO:
		return 0;
	default:
		return c->timeout_ms;
	}
}

/*
 * May the next request go out? -ENODEV once disconnected, -ECONNRESET while
 * the device is being reset (the repetition in flight is over: the reset
 * flushes its endpoints), else 0.
 */
int hzrig_io_check(struct hzrig_dev *dev)
{
	if (test_bit(HZRIG_GONE, &dev->io_flags))
		return -ENODEV;
	if (test_bit(HZRIG_RESETTING, &dev->io_flags))
		return -ECONNRESET;
	return 0;
}

/* Before a repetition or a RESET: wait out a device reset, killably. */
static int hzrig_io_enter(struct hzrig_dev *dev)
{
	int ret;

	ret = wait_event_killable(dev->io_wait,
				  !test_bit(HZRIG_RESETTING, &dev->io_flags) ||
				  test_bit(HZRIG_GONE, &dev->io_flags));
	return ret ? ret : hzrig_io_check(dev);
}

/*
 * At the start of a case: drop whatever a previous case left armed or queued
 * on the lane's targets (HZRIG_REQ_RESET, wValue = mask of targets), and
 * nothing else: the other lanes may be in the middle of a call.
 */
static int hzrig_reset_lane(struct hzrig_dev *dev, struct hzrig_lane *lane)
{
	int ret;

	ret = hzrig_io_enter(dev);
	if (ret)
		return ret;
	ret = hzrig_ep0_lock_quiet(dev, lane);
	if (ret)
		return ret;
	ret = hzrig_io_check(dev);
	if (!ret)
		ret = usb_control_msg_send(dev->udev, 0, HZRIG_REQ_RESET,
					   USB_DIR_OUT | USB_TYPE_VENDOR |
					   USB_RECIP_DEVICE, lane->targets, 0,
					   NULL, 0, HZRIG_SETUP_TIMEOUT_MS,
					   GFP_KERNEL);
	hzrig_ep0_unlock_quiet(dev, lane);
	if (ret)
		dev_warn(&dev->udev->dev, "reset request failed: %d\n", ret);
	return ret;
}

/*
 * HZRIG_REQ_ARM: tell the gadget what to do with transfer @seq, then make
 * sure it heard: gadgetfs drops an unread SETUP event when the next setup
 * arrives, so an ARM the gadget had not read yet would be lost silently.
 * HZRIG_REQ_SYNC echoes the last ARM the gadget applied; resend until it
 * matches. Needs ep0_mutex: another lane's ARM between ours and its SYNC
 * would change the echo.
 */
static int hzrig_arm(struct hzrig_dev *dev, const struct hzrig_case *c,
		     u32 seq, ktime_t start)
{
	struct hzrig_arm arm = {
		.version	= HZRIG_WIRE_VERSION,
		.target		= hzrig_target[c->transfer],
		.behaviour	= c->behaviour,
		.seq		= cpu_to_le32(seq),
		.delay_us	= cpu_to_le32(c->delay_us),
		/* SHORT answers short_length bytes, the others all of them */
		.length		= cpu_to_le32(c->behaviour == HZRIG_BEH_SHORT ?
					      c->short_length : c->length),
		.start_ns	= cpu_to_le64(ktime_to_ns(start)),
	};
	__le32 echo = 0;
	int tries, ret;

	for (tries = 0; tries < HZRIG_ARM_TRIES; tries++) {
		ret = hzrig_io_check(dev);
		if (ret)
			return ret;
		ret = usb_control_msg_send(dev->udev, 0, HZRIG_REQ_ARM,
					   USB_DIR_OUT | USB_TYPE_VENDOR |
					   USB_RECIP_DEVICE, 0, 0, &arm,
					   sizeof(arm), HZRIG_SETUP_TIMEOUT_MS,
					   GFP_KERNEL);
		if (ret)
			return ret;
		/*
		 * Let the gadget read the ARM's event and data before SYNC
		 * arrives: a SYNC that beats it replaces the ARM's event in
		 * gadgetfs, and the ARM is lost. Longer on each retry.
		 */
		usleep_range(200 << tries, 400 << tries);
		ret = usb_control_msg_recv(dev->udev, 0, HZRIG_REQ_SYNC,
					   USB_DIR_IN | USB_TYPE_VENDOR |
					   USB_RECIP_DEVICE, 0, 0, &echo,
					   sizeof(echo), HZRIG_SETUP_TIMEOUT_MS,
					   GFP_KERNEL);
		/*
		 * -EPIPE: the SYNC came while the gadget was still finishing
		 * a request held by the previous repetition, and it had to
		 * stall it unread. -EREMOTEIO: the SYNC got a short answer,
		 * one the gadget wrote for an earlier IN request that the
		 * host had given up on: gadgetfs' ep0_write() drops its lock
		 * between taking the request and queueing it
		 * (drivers/usb/gadget/legacy/inode.c:1136-1148), so a setup
		 * that comes in between gets the stale answer. Either way,
		 * let the gadget run, then try again.
		 */
		if (ret && ret != -EPIPE && ret != -EREMOTEIO)
			return ret;
		if (!ret && le32_to_cpu(echo) == seq)
			return 0;
	}
	dev_warn(&dev->udev->dev, "seq %u: gadget did not take the ARM (%d tries, last echo %u)\n",
		 seq, tries, le32_to_cpu(echo));
	return -EPROTO;
}

/* OUT payloads start with the header (as much of it as fits). */
static void hzrig_fill_out(u8 *buf, u32 len, u32 seq)
{
	struct hzrig_payload_hdr hdr = {
		.magic	= cpu_to_le32(HZRIG_PAYLOAD_MAGIC),
		.seq	= cpu_to_le32(seq),
	};
	u32 i;

	for (i = 0; i < len; i++)
		buf[i] = i;
	memcpy(buf, &hdr, min_t(u32, len, sizeof(hdr)));
}

/* A bulk/interrupt IN answer must carry the sequence number we armed. */
static void hzrig_check_in(struct hzrig_dev *dev, const u8 *buf, u32 len,
			   u32 seq)
{
	const struct hzrig_payload_hdr *hdr = (const void *)buf;

	if (len < sizeof(*hdr))
		return;
	if (le32_to_cpu(hdr->magic) != HZRIG_PAYLOAD_MAGIC)
		dev_warn_ratelimited(&dev->udev->dev,
				     "seq %u: answer without payload header\n",
				     seq);
	else if (le32_to_cpu(hdr->seq) != seq)
		dev_warn_ratelimited(&dev->udev->dev,
				     "seq %u: stale answer for seq %u\n",
				     seq, le32_to_cpu(hdr->seq));
}

static unsigned int hzrig_pipe(struct hzrig_dev *dev, u32 transfer)
{
	switch (transfer) {
	case HZRIG_XFER_BULK_OUT:
		return usb_sndbulkpipe(dev->udev, dev->bulk_out_ep);
	case HZRIG_XFER_CTRL_IN:
		return usb_rcvctrlpipe(dev->udev, 0);
	case HZRIG_XFER_CTRL_OUT:
		return usb_sndctrlpipe(dev->udev, 0);
	case HZRIG_XFER_INT_IN:
		return usb_rcvintpipe(dev->udev, dev->int_in_ep);
	default:
		return usb_rcvbulkpipe(dev->udev, dev->bulk_in_ep);
	}
}

/*
 * The timed call: exactly one synchronous call between the two ktime_get(),
 * the jiffies it started at into @s. Returns the call's status (<= 0).
 */
static int hzrig_timed_call(struct usb_device *udev, const struct hzrig_case *c,
			    unsigned int pipe, u8 *buf, u16 ctrl_len,
			    int timeout, u32 seq, struct hzrig_sample *s,
			    int *actual, ktime_t *t0, ktime_t *t1)
{
	bool in = usb_pipein(pipe);
	u8 request = in ? HZRIG_REQ_TEST_IN : HZRIG_REQ_TEST_OUT;
	u8 reqtype = (in ? USB_DIR_IN : USB_DIR_OUT) | USB_TYPE_VENDOR |
		     USB_RECIP_DEVICE;
	int ret;

	s->start_jiffies = get_jiffies_64();
	switch (c->transfer) {
	case HZRIG_XFER_CTRL_IN:
	case HZRIG_XFER_CTRL_OUT:
		*t0 = ktime_get();
		ret = usb_control_msg(udev, pipe, request, reqtype, seq & 0xffff,
				      0, buf, ctrl_len, timeout);
		*t1 = ktime_get();
		*actual = max(ret, 0);
		return min(ret, 0);
	case HZRIG_XFER_INT_IN:
		*t0 = ktime_get();
		ret = usb_interrupt_msg(udev, pipe, buf, c->length, actual,
					timeout);
		*t1 = ktime_get();
		return ret;
	case HZRIG_XFER_BULK_IN_KILLABLE:
		*t0 = ktime_get();
		ret = usb_bulk_msg_killable(udev, pipe, buf, c->length, actual,
					    timeout);
		*t1 = ktime_get();
		return ret;
	default:
		*t0 = ktime_get();
		ret = usb_bulk_msg(udev, pipe, buf, c->length, actual, timeout);
		*t1 = ktime_get();
		return ret;
	}
}

/*
 * Arm the gadget for one repetition of @c and sleep until its start (the
 * call is then made at once). @seqp gets the ARM's sequence number and
 * @ep0_held says whether ep0_mutex is held on return, either way: the
 * caller's exit path releases it. Returns 0, or an error that ends the case.
 */
static int hzrig_arm_and_wait(struct hzrig_dev *dev, struct hzrig_lane *lane,
			      const struct hzrig_case *c, int timeout,
			      u32 *seqp, bool *ep0_held)
{
	bool in = usb_pipein(hzrig_pipe(dev, c->transfer));
	bool ctrl = hzrig_is_ctrl(c->transfer);
	bool delay = c->behaviour == HZRIG_BEH_DELAY;
	ktime_t start = 0;
	u32 phase;
	int ret, tries;

	/*
	 * The start is a tick edge plus a random part of the jiffy, reached
	 * by sleeping on an hrtimer: a busy-wait would keep the one CPU from
	 * the other lanes. A DELAY is timed by the gadget from the planned
	 * start, so that start goes into the ARM: an edge far enough ahead for
	 * ARM + SYNC. An ARM that overran it, or a wakeup more than
	 * HZRIG_START_SLACK_NS late, is replaced by one for a later start (a
	 * new seq, so that SYNC tells the two apart) with twice the guard (up
	 * to 16 times). The other behaviours don't care when the call begins:
	 * they are armed first and started at the next tick edge plus the
	 * phase, so a slow ARM costs nothing, and record the phase they got.
	 * With other lanes running, arming waits for a moment when no other
	 * call starts or ends, and the start moves on by whole ticks until
	 * neither it nor the call's expected end meets another lane's
	 * (hzrig_ep0_lock_quiet(), hzrig_plan_quiet()).
	 */
	for (tries = 0; ; tries++) {
		u64 guard = (u64)HZRIG_START_GUARD_NS << min(tries, 4);

		ret = hzrig_ep0_lock_quiet(dev, lane);
		if (ret)
			return ret;
		*ep0_held = true;
		*seqp = atomic_inc_return(&dev->seq);
		phase = c->flags & HZRIG_CASE_RANDOM_PHASE ?
			get_random_u32_below(TICK_NSEC) : 0;
		if (delay) {
			start = hzrig_edge_after(ktime_add_ns(ktime_get(),
							      guard));
			start = hzrig_plan_quiet(dev, lane, c, timeout,
						 ktime_add_ns(start, phase));
		}
		ret = hzrig_arm(dev, c, *seqp, delay ? start : 0);
		if (ret) {
			dev_warn(&dev->udev->dev, "arming seq %u failed: %d\n",
				 *seqp, ret);
			return ret;
		}
		/*
		 * Other lanes may arm while this one waits for its start; the
		 * gadget keeps what is armed per target. A control call takes
		 * ep0 back for itself: another lane's ARM must not queue
		 * behind a control transfer held for the whole timeout.
		 */
		hzrig_ep0_unlock_quiet(dev, lane);
		*ep0_held = false;
		if (!delay) {
			start = hzrig_edge_after(ktime_get());
			start = hzrig_plan_quiet(dev, lane, c, timeout,
						 ktime_add_ns(start, phase));
		}
		if (!in)
			hzrig_fill_out(lane->buf, c->length, *seqp);
		ret = hzrig_wait_until(start, delay ? HZRIG_DELAY_SPIN_NS : 0);
		if (ret)
			return ret;
		if (ctrl) {
			ret = mutex_lock_killable(&dev->ep0_mutex);
			if (ret)
				return ret;
			*ep0_held = true;
		}
		/*
		 * A guest that stalls (its vCPU preempted on the host, a slow
		 * interrupt under TCG) or another lane holding ep0 past a
		 * DELAY's start would skew the sample: such a start is given
		 * up for a later one.
		 */
		if (!delay || ktime_to_ns(ktime_sub(ktime_get(), start)) <
		    HZRIG_START_SLACK_NS)
			return 0;
		if (*ep0_held) {
			mutex_unlock(&dev->ep0_mutex);
			*ep0_held = false;
		}
		hzrig_span_clear(dev, lane);
		if (tries == HZRIG_ARM_TRIES) {
			dev_warn(&dev->udev->dev, "seq %u: could not start within %ld us of the planned start\n",
				 *seqp, HZRIG_START_SLACK_NS / NSEC_PER_USEC);
			return -ETIME;
		}
	}
}

/*
 * Hold a call's end at @t1 against the window the planner published for it,
 * if any: a NAK that timed out or a DELAY that was answered. A miss by a
 * few ms is the guest's noise (the window's slack is HZRIG_SPAN_END_NS); a
 * far one means the planner kept the other lanes away from the wrong
 * moment (as it did on the regression demo's kernel before it knew the
 * unit).
 */
static void hzrig_check_end(struct hzrig_dev *dev, struct hzrig_lane *lane,
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

/*
 * One repetition: arm, sleep until the planned start, time the call. Fills
 * @s (and sets *@timed) once the call was made, and returns 0 whatever the
 * call returned; an error return means the
 * case cannot go on (disconnect, reset, signal, arming or halt clearing
 * failed). The gate is checked before every request: once disconnect or
 * pre_reset has closed it, nothing new goes out. A call already started is
 * not waited for there; usbcore flushes its endpoint (the interface's are
 * flushed before disconnect, drivers/usb/core/driver.c:455; a reset
 * flushes ep0 and the interface, hub.c:6166 and :6195), so it ends at once,
 * except a control call during a plain unbind, which runs on to its
 * timeout on memory the open file keeps (kref). ep0_mutex is held while
 * arming and, for a control case, again for the timed call.
 */
static int hzrig_run_one(struct hzrig_dev *dev, struct hzrig_lane *lane,
			 const struct hzrig_case *c, struct hzrig_sample *s,
			 bool *timed)
{
	struct usb_device *udev = dev->udev;
	int timeout = hzrig_timeout_arg(c);
	unsigned int pipe = hzrig_pipe(dev, c->transfer);
	bool in = usb_pipein(pipe);
	bool ctrl = hzrig_is_ctrl(c->transfer);
	/*
	 * A control OUT data stage is completed by gadgetfs itself: only a
	 * request without one can be held or stalled (include/hzrig/wire.h).
	 */
	u16 ctrl_len = in || c->behaviour == HZRIG_BEH_ANSWER ? c->length : 0;
	u8 *buf = lane->buf;
	bool ep0_held = false;
	ktime_t t0, t1;
	int actual = 0;
	u32 seq;
	int ret;

	ret = hzrig_io_enter(dev);
	if (ret)
		return ret;

	ret = hzrig_arm_and_wait(dev, lane, c, timeout, &seq, &ep0_held);
	if (!ret)
		ret = hzrig_io_check(dev);
	if (ret)
		goto out;
	ret = hzrig_timed_call(udev, c, pipe, buf, ctrl_len, timeout, seq, s,
			       &actual, &t0, &t1);
	*timed = true;
	if (ep0_held) {
		mutex_unlock(&dev->ep0_mutex);
		ep0_held = false;
	}
	hzrig_check_end(dev, lane, t1, ret);
	hzrig_span_clear(dev, lane);

	s->elapsed_ns = ktime_to_ns(ktime_sub(t1, t0));
	s->status = ret;
	s->actual_length = actual;
	s->timeout_arg = timeout;
	s->seq = seq;
	/* The phase the call really started at, not the one planned. */
	s->phase_ns = ktime_to_ns(ktime_sub(t0, hzrig_edge_before(t0)));
	s->jiffies_lag = hzrig_jiffies_lag(t0, s->start_jiffies);

	if (in && !ret && !ctrl)
		hzrig_check_in(dev, buf, actual, seq);

	/*
	 * An IN answer that came too late and sits in dummy_hcd's FIFO is
	 * flushed by the gadget when the next ARM for the endpoint arrives
	 * (gadget/README.md), before SYNC lets the next call start.
	 */
	ret = 0;
	/* ep0 recovers from a stall by itself; the others need clearing. */
	if (s->status == -EPIPE && !ctrl) {
		ret = hzrig_ep0_lock_quiet(dev, lane);
		if (ret)
			goto out;
		ret = hzrig_io_check(dev);
		if (!ret)
			ret = usb_clear_halt(udev, pipe);
		hzrig_ep0_unlock_quiet(dev, lane);
		if (ret)
			dev_warn(&dev->udev->dev,
				 "seq %u: clearing halt failed: %d\n", seq,
				 ret);
	}
out:
	hzrig_span_clear(dev, lane);
	if (ep0_held)
		mutex_unlock(&dev->ep0_mutex);
	return ret;
}

/*
 * Can take minutes (reps x timeout): disconnect and reset close the gate
 * between repetitions (and abort the call in flight, see hzrig_run_one()),
 * and a fatal signal stops the case between repetitions. Every repetition
 * whose call was made is in the caller's array, also when the case fails
 * after it (a halt that could not be cleared), and c.filled says how many
 * (for callers whose struct has it). Cases on
 * different lanes (hzrig_lane_of) run concurrently when several threads
 * call this; a second case on a busy lane waits for the first.
 */
/* Sample @i of the caller's array: what fits, and zeros after it. */
static int hzrig_put_sample(const struct hzrig_case *c, u32 i,
			    const struct hzrig_sample *s)
{
	u8 __user *out = u64_to_user_ptr(c->samples) + (size_t)i * c->sample_size;
	size_t n = min_t(size_t, c->sample_size, sizeof(*s));

	if (copy_to_user(out, s, n))
		return -EFAULT;
	if (c->sample_size > n && clear_user(out + n, c->sample_size - n))
		return -EFAULT;
	return 0;
}

static long hzrig_ioctl_run_case(struct hzrig_dev *dev, void __user *argp)
{
	struct hzrig_lane *lane;
	struct hzrig_sample s;
	struct hzrig_case c;
	u32 i, usize, filled = 0;
	bool timed;
	int ret, put;

	ret = hzrig_get_struct(dev, &c, sizeof(c), argp, HZRIG_CASE_SIZE_V1,
			       &usize, "case version");
	if (ret)
		return ret;
	ret = hzrig_check_case(dev, &c);
	if (ret)
		return ret;
	if (!access_ok(u64_to_user_ptr(c.samples),
		       (size_t)c.reps * c.sample_size))
		return -EFAULT;

	lane = &dev->lane[hzrig_lane_of[c.transfer]];
	if (mutex_lock_killable(&lane->mutex))
		return -EINTR;

	ret = hzrig_reset_lane(dev, lane);
	for (i = 0; !ret && i < c.reps; i++) {
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		memset(&s, 0, sizeof(s));
		timed = false;
		ret = hzrig_run_one(dev, lane, &c, &s, &timed);
		if (!timed)
			continue;
		put = hzrig_put_sample(&c, i, &s);
		if (put)
			ret = put;
		else
			filled++;
	}

	mutex_unlock(&lane->mutex);
	if (usize >= offsetofend(struct hzrig_case, filled) &&
	    put_user(filled, (u32 __user *)(argp +
					    offsetof(struct hzrig_case, filled))))
		return -EFAULT;
	return ret;
}

static long hzrig_ioctl(struct file *file, unsigned int cmd,
			unsigned long arg)
{
	struct hzrig_dev *dev = file->private_data;
	void __user *argp = (void __user *)arg;

	if (!READ_ONCE(dev->intf))
		return -ENODEV;

	/*
	 * The struct's own size field says which version the caller has:
	 * the size in the number is not compared (include/hzrig/ioctl.h).
	 */
	if (_IOC_TYPE(cmd) != HZRIG_IOC_MAGIC ||
	    _IOC_DIR(cmd) != (_IOC_READ | _IOC_WRITE))
		return -ENOTTY;
	switch (_IOC_NR(cmd)) {
	case _IOC_NR(HZRIG_IOC_INFO):
		return hzrig_ioctl_info(dev, argp);
	case _IOC_NR(HZRIG_IOC_RUN_CASE):
		return hzrig_ioctl_run_case(dev, argp);
	case _IOC_NR(HZRIG_IOC_RWSEM_TEST):
		return hzrig_ioctl_rwsem_test(dev, argp);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations hzrig_fops = {
	.owner		= THIS_MODULE,
	.open		= hzrig_open,
	.release	= hzrig_release,
	.unlocked_ioctl	= hzrig_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= no_llseek,
};

static struct usb_class_driver hzrig_class = {
	.name		= "hzrig%d",
	.fops		= &hzrig_fops,
	.minor_base	= HZRIG_MINOR_BASE,
};

/*
 * Poll the device with a control request, then queue the next poll. It uses
 * dev and dev->hb_buf: teardown must stop it for good before they go
 * (hzrig_heartbeat_stop()).
 */
static void hzrig_heartbeat(struct work_struct *work)
{
	struct hzrig_dev *dev = container_of(to_delayed_work(work),
					     struct hzrig_dev, heartbeat);
	int ret;

	/*
	 * ep0 is shared with the ARM + SYNC protocol and the control cases:
	 * a heartbeat between an ARM and its SYNC makes the gadget finish the
	 * ARM blind (docs/robustness.md), and one queued behind a control
	 * case's timed call would wait out its timeout. A beat that finds ep0
	 * taken is skipped, not waited for.
	 */
	if (!mutex_trylock(&dev->ep0_mutex)) {
		dev->hb_skipped++;
		goto again;
	}
	ret = usb_control_msg(dev->udev, usb_rcvctrlpipe(dev->udev, 0),
			      HZRIG_REQ_HEARTBEAT,
			      USB_DIR_IN | USB_TYPE_VENDOR | USB_RECIP_DEVICE,
			      0, 0, dev->hb_buf, sizeof(*dev->hb_buf),
			      HZRIG_HEARTBEAT_TIMEOUT_MS);
	mutex_unlock(&dev->ep0_mutex);
	if (ret == sizeof(*dev->hb_buf))
		dev->hb_answered++;
	else
		dev->hb_failed++;
again:
	schedule_delayed_work(&dev->heartbeat,
			      msecs_to_jiffies(hzrig_heartbeat_ms));
}

static void hzrig_heartbeat_start(struct hzrig_dev *dev)
{
	if (hzrig_heartbeat_ms)
		schedule_delayed_work(&dev->heartbeat,
				      msecs_to_jiffies(hzrig_heartbeat_ms));
}

/*
 * Stop the heartbeat for good: on return it is neither queued nor running
 * and cannot queue itself again. A plain cancel_delayed_work() returns while
 * an instance runs, which then re-queues itself on memory about to be freed:
 * the bug of old drivers that the unsafe-teardown demo module re-enacts
 * (kernel/variants/hz-250-debug-unsafe.variant; never in the shipped module).
 */
static void hzrig_heartbeat_stop(struct hzrig_dev *dev)
{
	if (HZRIG_UNSAFE_TEARDOWN)
		cancel_delayed_work(&dev->heartbeat);
	else
		cancel_delayed_work_sync(&dev->heartbeat);
}

static int hzrig_probe(struct usb_interface *intf,
		       const struct usb_device_id *id)
{
	struct usb_host_interface *alt = intf->cur_altsetting;
	struct usb_endpoint_descriptor *bulk_in, *bulk_out, *int_in;
	struct hzrig_dev *dev;
	int i, ret;

	if (usb_find_common_endpoints(alt, &bulk_in, &bulk_out, NULL, NULL)) {
		dev_err(&intf->dev, "needs a bulk IN and a bulk OUT endpoint\n");
		return -ENODEV;
	}
	if (usb_find_int_in_endpoint(alt, &int_in))
		int_in = NULL;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	kref_init(&dev->kref);
	init_waitqueue_head(&dev->io_wait);
	mutex_init(&dev->ep0_mutex);
	spin_lock_init(&dev->span_lock);
	atomic_set(&dev->seq, 0);
	dev->udev = usb_get_dev(interface_to_usbdev(intf));
	INIT_DELAYED_WORK(&dev->heartbeat, hzrig_heartbeat);
	dev->hb_buf = kmalloc(sizeof(*dev->hb_buf), GFP_KERNEL);
	if (!dev->hb_buf || hzrig_rwsem_init(dev)) {
		kref_put(&dev->kref, hzrig_delete);
		return -ENOMEM;
	}
	for (i = 0; i < HZRIG_LANE_COUNT; i++) {
		struct hzrig_lane *lane = &dev->lane[i];

		mutex_init(&lane->mutex);
		lane->targets = hzrig_lane_targets[i];
		/* a buffer per lane: transfers on several lanes at once */
		lane->buf = kmalloc(HZRIG_BUF_SIZE, GFP_KERNEL);
		if (!lane->buf) {
			kref_put(&dev->kref, hzrig_delete);
			return -ENOMEM;
		}
	}
	dev->intf = intf;

	dev->bulk_in_ep = usb_endpoint_num(bulk_in);
	dev->bulk_in_maxp = usb_endpoint_maxp(bulk_in);
	dev->bulk_out_ep = usb_endpoint_num(bulk_out);
	dev->bulk_out_maxp = usb_endpoint_maxp(bulk_out);
	if (int_in) {
		dev->has_int_in = true;
		dev->int_in_ep = usb_endpoint_num(int_in);
		dev->int_in_maxp = usb_endpoint_maxp(int_in);
	}

	usb_set_intfdata(intf, dev);
	ret = usb_register_dev(intf, &hzrig_class);
	if (ret) {
		dev_err(&intf->dev, "no minor for the char device: %d\n", ret);
		usb_set_intfdata(intf, NULL);
		kref_put(&dev->kref, hzrig_delete);
		return ret;
	}

	dev_info(&intf->dev,
		 "%s (minor %d): bulk IN ep%u/%u, bulk OUT ep%u/%u (number/maxp), interrupt IN %s, HZ=%d\n",
		 dev_name(intf->usb_dev), intf->minor, dev->bulk_in_ep,
		 dev->bulk_in_maxp, dev->bulk_out_ep, dev->bulk_out_maxp,
		 dev->has_int_in ? "yes" : "none (int-in cases unsupported)",
		 HZ);
	hzrig_heartbeat_start(dev);
	return 0;
}

static void hzrig_disconnect(struct usb_interface *intf)
{
	struct hzrig_dev *dev = usb_get_intfdata(intf);
	int minor = intf->minor;

	/* No new opens; usb_open() holds the minor lock across ->open(). */
	usb_set_intfdata(intf, NULL);
	usb_deregister_dev(intf, &hzrig_class);
	hzrig_heartbeat_stop(dev);
	if (hzrig_heartbeat_ms)
		dev_info(&intf->dev, "heartbeat: %u answered, %u failed, %u skipped\n",
			 dev->hb_answered, dev->hb_failed, dev->hb_skipped);

	/*
	 * Close the gate; the calls in flight are not waited for (see
	 * hzrig_run_one()): the open files' references keep dev alive.
	 */
	set_bit(HZRIG_GONE, &dev->io_flags);
	WRITE_ONCE(dev->intf, NULL);
	wake_up_all(&dev->io_wait);

	kref_put(&dev->kref, hzrig_delete);
	dev_info(&intf->dev, "hzrig minor %d disconnected\n", minor);
}

/*
 * A reset (e.g. USBDEVFS_RESET from usbfs): no new request until
 * post_reset. The repetition in flight is not waited for: the reset itself
 * flushes ep0 and our endpoints right after this returns, which ends it.
 */
static int hzrig_pre_reset(struct usb_interface *intf)
{
	struct hzrig_dev *dev = usb_get_intfdata(intf);

	hzrig_heartbeat_stop(dev);
	set_bit(HZRIG_RESETTING, &dev->io_flags);
	return 0;
}

static int hzrig_post_reset(struct usb_interface *intf)
{
	struct hzrig_dev *dev = usb_get_intfdata(intf);

	clear_bit(HZRIG_RESETTING, &dev->io_flags);
	wake_up_all(&dev->io_wait);
	hzrig_heartbeat_start(dev);
	return 0;
}

/* probe() finds out whether the optional interrupt IN endpoint is there. */
static const struct usb_device_id hzrig_table[] = {
	{ USB_DEVICE_AND_INTERFACE_INFO(HZRIG_VID, HZRIG_PID, HZRIG_INTF_CLASS,
					HZRIG_INTF_SUBCLASS,
					HZRIG_INTF_PROTOCOL) },
	{ }
};
MODULE_DEVICE_TABLE(usb, hzrig_table);

static struct usb_driver hzrig_driver = {
	.name		= "hzrig_host",
	.probe		= hzrig_probe,
	.disconnect	= hzrig_disconnect,
	.pre_reset	= hzrig_pre_reset,
	.post_reset	= hzrig_post_reset,
	.id_table	= hzrig_table,
};

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

static int __init hzrig_init(void)
{
	u64 want = HZ * 1000ULL;
	u64 off;
	u32 rate;

	if (HZRIG_UNSAFE_TEARDOWN)
		pr_warn("demo build: the heartbeat is torn down unsafely\n");

	hzrig_wait_highres();
	rate = hzrig_measure_jiffy_rate();
	off = rate > want ? rate - want : want - rate;

	/*
	 * HZ is inlined at compile time: a module built against another
	 * variant's tree would convert and report every timeout wrongly.
	 */
	if (off * 100 > want * HZRIG_RATE_TOLERANCE) {
		pr_err("compiled for HZ=%d but measured %u.%03u jiffies/s (more than %d%% off): built against another kernel's tree?\n",
		       HZ, rate / 1000, rate % 1000, HZRIG_RATE_TOLERANCE);
		return -EINVAL;
	}
	hzrig_jiffy_rate_mhz = rate;
	pr_info("HZ=%d measured %u.%03u jiffies/s\n", HZ, rate / 1000,
		rate % 1000);
	hzrig_learn_grid();

	return usb_register(&hzrig_driver);
}
module_init(hzrig_init);

static void __exit hzrig_exit(void)
{
	usb_deregister(&hzrig_driver);
}
module_exit(hzrig_exit);

MODULE_DESCRIPTION("hzrig: time synchronous USB transfers per HZ");
MODULE_LICENSE("GPL");
