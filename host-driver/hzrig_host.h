/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hzrig_host: what the driver's files share - the limits, the device
 * structure and the functions one file calls in another: the core
 * (hzrig_main.c), the clock (hzrig_clock.c), the lane planner
 * (hzrig_lanes.c) and the rwsem test (hzrig_rwsem.c).
 */
#ifndef HZRIG_HOST_H
#define HZRIG_HOST_H

#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/completion.h>
#include <linux/hrtimer.h>
#include <linux/irqflags.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/kref.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/rwsem.h>
#include <linux/wait.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/usb.h>
#include <linux/utsname.h>
#include <linux/workqueue.h>

#include <hzrig/ioctl.h>
#include <hzrig/wire.h>

/*
 * usb_register_dev() hands out minors of the USB major (180) from each
 * driver's minor_base up. In-tree bases stop at chaoskey's 224 (usb-skeleton's
 * 192 is shared with yurex, ftdi-elan and as102) and devices.txt lists nothing
 * past 209, so 240..255 is unused: the first hzrig device gets minor 240 and
 * /dev/hzrig0. With CONFIG_USB_DYNAMIC_MINORS it gets the lowest free minor n
 * and /dev/hzrig<n> instead.
 */
#define HZRIG_MINOR_BASE	240

/* ARM and RESET are answered at once: a short timeout, not the one tested. */
/* HZRIG_SETUP_TIMEOUT_MS, HZRIG_ARM_TRIES: the handshake's (wire.h) */
/*
 * How far ahead of its ARM a DELAY call starts, so that ARM + SYNC fit in
 * between; doubled on each retry.
 */
#define HZRIG_START_GUARD_NS	(4 * NSEC_PER_MSEC)
/* How late after the planned start a DELAY call may still begin. */
#define HZRIG_START_SLACK_NS	(1 * NSEC_PER_MSEC)

/* The jiffy rate is measured over this long at load, between tick edges. */
#define HZRIG_RATE_SAMPLE_MS	250
#define HZRIG_RATE_TOLERANCE	2	/* percent */
/* How long the module waits at load for high-resolution mode. */
#define HZRIG_HIGHRES_WAIT_MS	10000
/* Tick edges watched at load to find where the jiffy grid lies in ktime. */
#define HZRIG_GRID_EDGES	16
/*
 * Half of them or more within this long after a multiple of TICK_NSEC: the
 * tick is one-shot and on that multiple (hzrig_learn_grid()).
 */
#define HZRIG_GRID_ALIGNED_NS	min_t(u32, TICK_NSEC / 2, NSEC_PER_MSEC)
/*
 * A DELAY call sleeps until this long before its planned start and spins
 * the rest: the gadget times the delay from the planned start, and an
 * hrtimer wakeup under TCG comes 0.1-0.4 ms late. The other calls sleep all
 * the way and record the phase they really started at: a spin keeps the
 * one CPU from the other lanes' wakeups.
 */
#define HZRIG_DELAY_SPIN_NS	(100 * NSEC_PER_USEC)

/*
 * Lanes keep out of each other's timed moments. On the one-CPU guest the
 * start of a call (until its timer is armed) and its end (timer expiry,
 * URB kill, return) are where a few ms of someone else's work - an ARM and
 * SYNC with the gadget's replies, mostly - delays the call being timed:
 * without this, most lanes' samples that ended over 1 ms after the tick
 * they were due on had another lane's call end just before. Each lane
 * publishes spans of time: "busy" while it arms (the disturbance) and
 * "critical" around its start and its expected end. A busy span may not
 * overlap another lane's critical ones, and a critical span no other lane's
 * span at all. Lanes stay wider than serial runs even so: see
 * docs/measurement.md. Widths, rough costs under TCG:
 */
#define HZRIG_SPAN_BUSY_NS	(4 * NSEC_PER_MSEC)	/* ARM + SYNC */
#define HZRIG_SPAN_PRE_NS	(500 * NSEC_PER_USEC)	/* before a moment */
#define HZRIG_SPAN_START_NS	(2 * NSEC_PER_MSEC)	/* t0 to timer armed,
							 * or a whole answer
							 */
#define HZRIG_SPAN_END_NS	(2 * NSEC_PER_MSEC)	/* expiry to return */
/* A call that may end anywhere in a wider window is not held to it. */
#define HZRIG_SPAN_MAX_NS	(20 * NSEC_PER_MSEC)
/* Ticks a start is moved at most to find a quiet one. */
#define HZRIG_SPAN_TRIES	64
/* A call that ends this far outside its predicted window: a wrong model. */
#define HZRIG_PLANNER_FAR_NS	(20 * NSEC_PER_MSEC)
/* How long a lane waits at most for a quiet moment to use ep0. */
#define HZRIG_EP0_WAIT_MAX_NS	(50 * NSEC_PER_MSEC)

/*
 * The heartbeat: a status poll of the device that re-arms itself, as many
 * drivers have one (docs/robustness.md). Off unless the module is loaded
 * with heartbeat_ms=N; `make robustness` turns it on so that teardown always
 * meets one pending or running. Its timeout is in milliseconds, like the
 * measurements it overlaps.
 */
#define HZRIG_HEARTBEAT_TIMEOUT_MS	100
/*
 * DEMO=unsafe-teardown (host-driver/Makefile) builds the robustness demo's
 * module, which stops the heartbeat as old drivers did. Never shipped.
 */
#ifdef HZRIG_DEMO_UNSAFE_TEARDOWN
#define HZRIG_UNSAFE_TEARDOWN	true
#else
#define HZRIG_UNSAFE_TEARDOWN	false
#endif

#define HZRIG_BUF_SIZE		HZRIG_MAX_LENGTH
#define HZRIG_CASE_FLAGS	HZRIG_CASE_RANDOM_PHASE

static_assert(HZRIG_BUF_SIZE <= HZRIG_MAX_XFER);
static_assert(HZRIG_BUF_SIZE <= 4096);

/*
 * Independent endpoints: cases on different lanes may run at once, from
 * different threads; cases on one lane take turns. ARM, SYNC and RESET
 * travel on ep0 whatever the lane.
 */
enum hzrig_lane_id {
	HZRIG_LANE_EP0,			/* ctrl-in, ctrl-out */
	HZRIG_LANE_BULK_IN,		/* bulk-in, bulk-in-killable */
	HZRIG_LANE_BULK_OUT,
	HZRIG_LANE_INT_IN,
	HZRIG_LANE_COUNT
};

/*
 * The lanes, then the slots a fanned-out case's other repetitions run in
 * (hzrig_case.fanout): each its own buffer and spans, so the planner keeps
 * their starts apart as it does the lanes'. One fanned-out case at a time
 * (fanout_mutex).
 */
#define HZRIG_SLOT_COUNT	(HZRIG_LANE_COUNT + HZRIG_MAX_FANOUT - 1)

enum hzrig_span_id {
	HZRIG_SPAN_BUSY,		/* arming: disturbs the others */
	HZRIG_SPAN_START,		/* critical: the call's start */
	HZRIG_SPAN_END,			/* critical: its expected end */
	HZRIG_SPAN_COUNT
};

struct hzrig_span {
	ktime_t			lo, hi;		/* empty: hi == 0 */
};

struct hzrig_lane {
	struct mutex		mutex;		/* one case at a time */
	u8			*buf;		/* HZRIG_BUF_SIZE, kmalloc()ed */
	u16			targets;	/* BIT(enum hzrig_target) */
	struct hzrig_span	span[HZRIG_SPAN_COUNT]; /* P: dev->span_lock */
};

struct hzrig_dev {
	struct usb_device	*udev;
	struct usb_interface	*intf;		/* NULL once disconnected */
	struct kref		kref;
	/*
	 * The I/O gate (hzrig_io_enter(), hzrig_io_check()): HZRIG_GONE from
	 * disconnect on, HZRIG_RESETTING from pre_reset to post_reset. Neither
	 * waits for the calls in flight: usbcore aborts them itself right
	 * around those callbacks (docs/robustness.md, "Teardown that does not
	 * wait"), so unbind and reset never wait for a timeout. A repetition
	 * checks the gate before each request it makes; new repetitions wait
	 * on io_wait while a reset runs.
	 */
	unsigned long		io_flags;
	wait_queue_head_t	io_wait;
	/*
	 * ep0 for hzrig's own requests: ARM + SYNC, RESET, clearing a halt,
	 * and the timed call of a control case (so that no other lane's ARM
	 * queues behind a control transfer the gadget holds).
	 */
	struct mutex		ep0_mutex;
	spinlock_t		span_lock;	/* the lanes' spans */
	struct hzrig_lane	lane[HZRIG_SLOT_COUNT];
	struct mutex		fanout_mutex;	/* the slots after the lanes */
	u8			bulk_in_ep;	/* endpoint numbers */
	u8			bulk_out_ep;
	u8			int_in_ep;
	bool			has_int_in;
	u16			bulk_in_maxp;
	u16			bulk_out_maxp;
	u16			int_in_maxp;
	atomic_t		seq;		/* last sequence number armed */
	/*
	 * The heartbeat re-queues itself: only cancel_delayed_work_sync()
	 * (which waits for a running instance and keeps it from queueing
	 * again) stops it before the memory it touches goes away.
	 */
	struct delayed_work	heartbeat;
	__le32			*hb_buf;	/* kmalloc()ed: DMA-able */
	/*
	 * HZRIG_IOC_RWSEM_TEST: taken for reading in process context and
	 * released from interrupt context (hzrig_rw_release()). rw_mutex
	 * lets one test run at a time; the rest belongs to it.
	 */
	struct mutex		rw_mutex;
	struct rw_semaphore	rw_test;
	struct completion	rw_done;
	struct hrtimer		rw_timer;
	struct timer_list	rw_watchdog;	/* unlinks a URB that hangs */
	struct work_struct	rw_writer;	/* a writer in a worker */
	struct urb		*rw_urb;
	u8			*rw_setup;	/* kmalloc()ed: DMA-able */
	__le32			*rw_buf;
	atomic_t		rw_trylock_ok, rw_trylock_busy;
	u32			hb_answered;	/* P: only the heartbeat */
	u32			hb_failed;
	u32			hb_skipped;	/* ep0 was busy */
};

#define HZRIG_GONE		0	/* bits of hzrig_dev.io_flags */
#define HZRIG_RESETTING		1

/* hzrig_main.c */
int hzrig_param_set_ro(const char *val, const struct kernel_param *kp);
extern const struct kernel_param_ops hzrig_param_ro_ops;
int hzrig_invalid(struct hzrig_dev *dev, const char *what, u32 val);
int hzrig_get_struct(struct hzrig_dev *dev, void *dst, size_t ksize,
		     const void __user *argp, size_t min, u32 *usize,
		     const char *what);
int hzrig_io_check(struct hzrig_dev *dev);

/* hzrig_clock.c: the jiffy grid */
extern unsigned int hzrig_jiffy_rate;
int hzrig_clock_init(void);
ktime_t hzrig_edge_before(ktime_t t);
ktime_t hzrig_edge_after(ktime_t t);
s32 hzrig_jiffies_lag(ktime_t t, u64 j);
int hzrig_wait_until(ktime_t when, u64 spin_ns);

/* hzrig_lanes.c: the lane planner */
int hzrig_ep0_lock_quiet(struct hzrig_dev *dev, struct hzrig_lane *lane);
void hzrig_ep0_unlock_quiet(struct hzrig_dev *dev, struct hzrig_lane *lane);
ktime_t hzrig_plan_quiet(struct hzrig_dev *dev, struct hzrig_lane *lane,
			 const struct hzrig_case *c, int timeout, ktime_t start);
void hzrig_span_clear(struct hzrig_dev *dev, struct hzrig_lane *lane);
void hzrig_check_end(struct hzrig_dev *dev, struct hzrig_lane *lane,
		     ktime_t t1, int status);

/* hzrig_rwsem.c: HZRIG_IOC_RWSEM_TEST */
int hzrig_rwsem_init(struct hzrig_dev *dev);
void hzrig_rwsem_free(struct hzrig_dev *dev);
long hzrig_ioctl_rwsem_test(struct hzrig_dev *dev, void __user *argp);

#endif /* HZRIG_HOST_H */
