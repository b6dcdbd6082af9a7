/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The analytical model: how long a synchronous USB call that times out waits,
 * for a given kernel tree, HZ and timeout argument. Every step mirrors a
 * piece of the kernel; docs/model.md walks through them with the file:line
 * references they rest on, in 6.1 and in 6.12. Host-side only; depends on
 * libc.
 */
#ifndef HZRIG_MODEL_H
#define HZRIG_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * What the model takes from one kernel tree, each read off its source
 * (docs/model.md): the clamp usb_start_wait_urb() applies
 * (USB_MAX_SYNCHRONOUS_TIMEOUT, include/linux/usb.h) and the
 * timer wheel's geometry (kernel/time/timer.c: LVL_BITS, LVL_CLK_SHIFT,
 * LVL_DEPTH 9 above HZ=depth_hz_above, else 8). msecs_to_jiffies() and
 * TICK_NSEC are computed from HZ as every tree so far defines them.
 */
struct hzrig_tree_model {
	const char *name;		/* the release line: "6.1", "6.12" */
	const char *source;		/* the tree it was read from */
	int sync_max_timeout_ms;
	unsigned int lvl_bits, lvl_clk_shift;
	int depth_hz_above;
};

/*
 * The line of uname release @release: "6.12.118-x" -> 6, 12. False unless it
 * starts with "MAJOR.MINOR" followed by nothing, '.', '-' or '+'.
 */
bool hzrig_release_line(const char *release, unsigned long *maj,
			unsigned long *min);

/* The same as text, "6.12", into @buf; false (and "") if it has none. */
bool hzrig_release_line_name(const char *release, char *buf, size_t len);

/* The trees, oldest first; NULL past the last. */
const struct hzrig_tree_model *hzrig_tree_model_at(size_t i);

/* 6.1: the tree of a sample that names none (results before trees). */
const struct hzrig_tree_model *hzrig_tree_default(void);

/*
 * The model a kernel with uname release @release ("6.12.118", "6.1.0-28")
 * is judged by: its own line's if the model was derived from it (*@exact
 * true), else the newest derived line older than it (a 6.6 kernel gets
 * 6.1's model, a 6.14 one 6.12's; *@exact false). NULL for a release that
 * does not start with "MAJOR.MINOR" or is older than every derived tree.
 */
const struct hzrig_tree_model *hzrig_tree_model_for(const char *release,
						    bool *exact);

/* The HZ range the model covers: HZ <= 1000 (msecs_to_jiffies' first two cases). */
/*
 * The largest nanosecond (millisecond) figure a result file may hold: 2^55
 * ns is 417 days, far beyond any wait the rig asks for (usbfs may wait
 * 2^32 - 1 ms, 50 days), and small enough that a sum of a few such
 * figures, as the regression rules and the report's median take them,
 * cannot overflow int64_t (longer sums are kept in double). Readers refuse
 * larger values instead of clamping them.
 */
#define HZRIG_NS_MAX			(INT64_C(1) << 55)
#define HZRIG_MS_MAX			(HZRIG_NS_MAX / 1000000)

#define HZRIG_MODEL_HZ_MIN		2
#define HZRIG_MODEL_HZ_MAX		1000

/* The window of one (hz, timeout_arg, killable): the wait lies in (lo, hi]. */
struct hzrig_window {
	const struct hzrig_tree_model *tree;	/* the model it came from */
	int hz;
	int timeout_arg;	/* the int passed to usb_*_msg() */
	bool killable;		/* usb_bulk_msg_killable(): no clamp */
	bool forever;		/* killable, timeout <= 0: no timer at all */
	int effective_ms;	/* after usb_start_wait_urb()'s clamp */
	uint64_t jiffies;	/* n = msecs_to_jiffies(effective_ms) */
	unsigned int level;	/* wheel level of the timer that ends the wait */
	uint64_t granule;	/* g = 8^level jiffies */
	unsigned int rearms;	/* timers force-expired at the wheel's cutoff */
	bool lag_edge;		/* n is one jiffy below the next level start */
	uint64_t tick_ns;	/* TICK_NSEC: tau, one jiffy */
	uint64_t lo_ns;		/* n * tau (UINT64_MAX if forever) */
	uint64_t hi_ns;		/* (n + g) * tau (UINT64_MAX if forever) */
	/* jiffies lo_ns was moved down by hzrig_window_stale_jiffies() */
	unsigned int stale_ticks;
	bool own_clock;		/* libusb: the caller's timer, not the wheel */
	uint64_t cancel_ns;	/* added to hi_ns by hzrig_window_cancel() */
};

enum hzrig_verdict {
	HZRIG_INSIDE,
	HZRIG_EARLY,
	HZRIG_LATE,
	HZRIG_WRONG_STATUS,
	HZRIG_REFUSED,		/* timings not judged (jiffy-resolution clock) */
	HZRIG_VERDICT_COUNT
};

/* TICK_NSEC for @hz: the length of one jiffy in ns; 0 if @hz is not modelled. */
uint64_t hzrig_tick_ns(int hz);

/*
 * msecs_to_jiffies(@m) as a kernel built with HZ=@hz computes it, for
 * 0 <= m <= INT_MAX. Returns 0 and sets nothing for a bad @hz or @m < 0; use
 * hzrig_model_window() for the checked entry point.
 */
uint64_t hzrig_msecs_to_jiffies(int hz, int m);

/*
 * The constants kernel/time/timeconst.bc generates for the generic
 * msecs_to_jiffies() (HZ that does not divide 1000). -EINVAL for a bad @hz.
 */
int hzrig_msec_to_hz_consts(int hz, uint64_t *mul32, uint64_t *adj32,
			    unsigned int *shr32);

/* LVL_DEPTH of a kernel with HZ=@hz, and LVL_START(@lvl), LVL_GRAN(@lvl). */
unsigned int hzrig_wheel_depth(int hz);
uint64_t hzrig_wheel_lvl_start(unsigned int lvl);
uint64_t hzrig_wheel_gran(unsigned int lvl);

/*
 * calc_wheel_index() for one timer: given its absolute @expires and the
 * base clock @clk it is queued against, the jiffy at which its bucket
 * expires (the tick that runs it), and in @level the level it went to.
 * Reproduces the force-expiry of timers beyond WHEEL_TIMEOUT_CUTOFF.
 */
uint64_t hzrig_wheel_bucket_expiry(int hz, uint64_t expires, uint64_t clk,
				   unsigned int *level);

/*
 * The window of a call with @timeout_arg at @hz on tree @t. 0 on success,
 * -EINVAL for an @hz outside HZRIG_MODEL_HZ_MIN..HZRIG_MODEL_HZ_MAX or a
 * NULL @t or @w. hzrig_model_window(): the same on hzrig_tree_default().
 */
int hzrig_tree_window(const struct hzrig_tree_model *t, int hz,
		      int timeout_arg, bool killable, struct hzrig_window *w);
int hzrig_model_window(int hz, int timeout_arg, bool killable,
		       struct hzrig_window *w);

/*
 * The window of a call made on @path (enum hzrig_path, include/hzrig/ioctl.h)
 * passing @timeout_arg, as docs/model.md §11 derives it:
 *
 *  - kernel: hzrig_model_window(@hz, @timeout_arg, @killable);
 *  - usbfs: usbfs_start_wait_urb() (drivers/usb/core/devio.c) waits
 *    msecs_to_jiffies(T) on the same wheel with no clamp, and T = 0 means
 *    no timer at all: the killable kernel window, whatever @killable says;
 *  - libusb-sync, libusb-async: libusb times the transfer itself, on a
 *    timerfd (an hrtimer) armed for submission + T ms, then cancels the
 *    URB: lo_ns = hi_ns = T ms, no jiffies, no wheel (jiffies, level and
 *    granule 0); T = 0 means no timeout (forever). What the cancellation
 *    round trip adds is the allowance's to cover.
 *
 * 0, or -EINVAL for a bad @hz, @path or NULL @w.
 */
int hzrig_path_window(int hz, unsigned int path, int timeout_arg,
		      bool killable, struct hzrig_window *w);
/* The same on tree @t (hzrig_path_window() is it on the default tree). */
int hzrig_tree_path_window(const struct hzrig_tree_model *t, int hz,
			   unsigned int path, int timeout_arg, bool killable,
			   struct hzrig_window *w);

/* True if @path times out on its own clock, not on jiffies (libusb). */
bool hzrig_path_own_clock(unsigned int path);

/*
 * A caller that times out on its own clock must then cancel the URB and
 * reap it before it learns of the timeout: one userspace URB round trip,
 * @ns (hzrig collect takes the answered control round trip the noise probes
 * measured, docs/model.md §11). Raises hi_ns by @ns and records it in
 * cancel_ns; nothing for a kernel-timed window or one without a timer.
 */
void hzrig_window_cancel(struct hzrig_window *w, uint64_t ns);

/*
 * A call that began while jiffies was @ticks behind the tick grid (an edge
 * had passed, its tick interrupt not run yet: the driver's jiffies_lag) may
 * arm its timer against the old jiffies and end up to @ticks jiffies early.
 * The tick may also catch up before the timer is armed, so only the lower
 * edge moves: lo_ns goes down by @ticks jiffies (not below 0) and
 * stale_ticks says by how many. Nothing for @ticks <= 0 or a window without
 * a timer.
 */
void hzrig_window_stale_jiffies(struct hzrig_window *w, int64_t ticks);

/*
 * The window part of the verdict on one sample (hzrig_verdict_sample() is
 * the whole rule). A status other than @expected_status is WRONG_STATUS. A
 * sample expected to time out must satisfy
 * lo - allowance <= elapsed <= hi + allowance; one expected to complete
 * (answer, short, stall, early enough delay) ends before the timer would
 * have fired, so only the upper edge applies to it.
 */
enum hzrig_verdict hzrig_verdict(const struct hzrig_window *w,
				 uint64_t allowance_ns, int expected_status,
				 int status, int64_t elapsed_ns);

/*
 * The verdict on a sample the gadget answered after a delay of @delay_ns:
 * the call must end about then, within @allowance_ns either side (the
 * gadget times the delay from the start the host announced).
 */
enum hzrig_verdict hzrig_verdict_delay(uint64_t delay_ns, uint64_t allowance_ns,
				       int64_t elapsed_ns);

/*
 * A halt comes back without any timer: the gadget stalls at once and the
 * host's URB completes with -EPIPE. It must end within
 * HZRIG_STALL_TICKS jiffies of @hz (plus @allowance_ns), whatever the
 * timeout: a stall that took as long as the timeout would be a timeout
 * reported as a stall.
 */
#define HZRIG_STALL_TICKS	2
enum hzrig_verdict hzrig_verdict_stall(int hz, uint64_t allowance_ns,
				       int64_t elapsed_ns);

/*
 * The whole verdict on one sample of a call with window @w, the one rule
 * hzrig collect applies (the three functions above are its parts):
 *
 *  - @refused (the capture's clock has jiffy resolution): REFUSED, nothing
 *    is judged;
 *  - otherwise hzrig_verdict(): WRONG_STATUS unless @status is
 *    @expected_status (the caller's: hzrig_rec_expected_status()), then the
 *    window widened by @allowance_ns, both edges for an expected timeout,
 *    only the upper one for a call expected to complete;
 *  - if that says INSIDE, @behaviour (enum hzrig_behaviour,
 *    include/hzrig/wire.h) may hold the sample tighter: an answered
 *    (@status 0) HZRIG_BEH_DELAY must end within @allowance_ns of @delay_ns
 *    (hzrig_verdict_delay()), a HZRIG_BEH_STALL within HZRIG_STALL_TICKS
 *    jiffies of w->hz plus @allowance_ns (hzrig_verdict_stall());
 *  - nak, answer, short and a delay that timed out: the window alone.
 *
 * @delay_ns is only read for HZRIG_BEH_DELAY.
 */
enum hzrig_verdict hzrig_verdict_sample(const struct hzrig_window *w,
					unsigned int behaviour,
					uint64_t delay_ns,
					uint64_t allowance_ns,
					int expected_status, int status,
					int64_t elapsed_ns, bool refused);

/* "inside", "early", "late", "wrong-status", "refused"; NULL if unknown. */
const char *hzrig_verdict_name(enum hzrig_verdict v);
int hzrig_verdict_parse(const char *s);

/*
 * The int a caller in @mode (enum hzrig_mode) passes for @timeout_ms on a
 * kernel with HZ=@hz, as include/hzrig/ioctl.h defines the modes; -1 for an
 * unknown mode or bad @hz.
 */
int64_t hzrig_mode_timeout_arg(int hz, unsigned int mode,
			       unsigned int timeout_ms);

/*
 * Stale jiffies seen from outside the call (docs/model.md §10): for a call
 * the rig does not make itself (a driver's, in drivers mode and the
 * sweep), the jiffies value its timer was armed against comes from the
 * timer:timer_start trace event of schedule_timeout()'s timer
 * (function=process_timeout): expires = the jiffies schedule_timeout() read
 * + n, and the event's time (trace_clock mono, i.e. ktime_get()) says which
 * jiffies value the tick grid gives that moment.
 */
struct hzrig_timer_start {
	int64_t t_ns;		/* the event's timestamp (microseconds) */
	int pid;		/* the task that armed it */
	uint64_t expires;	/* jiffies + n */
	int64_t timeout;	/* expires - jiffies at enqueue: n, or n - 1 */
	char timer[24];		/* the timer's (hashed) address, as traced */
};

/* timer:timer_expire_entry of a schedule_timeout() timer: when it ran. */
struct hzrig_timer_expire {
	int64_t t_ns;		/* the event's timestamp (microseconds) */
	uint64_t now;		/* jiffies when it ran */
	char timer[24];		/* as in its timer_start */
};

/*
 * One line of tracefs' trace file. 0 and @ev filled for a timer_start of a
 * schedule_timeout() timer; -ENOENT for any other line; -EINVAL for a
 * timer_start line that does not read as one.
 */
int hzrig_timer_start_parse(const char *line, struct hzrig_timer_start *ev);

/*
 * The same for a timer_expire_entry line: 0 and @ev filled for
 * schedule_timeout()'s timer; -ENOENT for any other line; -EINVAL for one
 * that does not read as one. (The timer lives on its task's stack: a later
 * timer may have the same address, so match it also by now >= expires.)
 */
int hzrig_timer_expire_parse(const char *line, struct hzrig_timer_expire *ev);

/*
 * How many ticks @j, read at @t_ns, is behind the jiffies value of the grid
 * on which jiffies was @ref_jiffies at the tick edge @ref_ns and advances
 * every @tick_ns (hzrig_host's tick_ref_ns and tick_ref_jiffies, or
 * hzrig_jiffy_grid_fit()). 0 on time, > 0 stale.
 */
int64_t hzrig_jiffies_lag_at(int64_t ref_ns, uint64_t ref_jiffies,
			     uint64_t tick_ns, int64_t t_ns, uint64_t j);

/*
 * Is @ev the timer a call of @n jiffies armed? Its timeout is n, or n - 1
 * when the tick came between schedule_timeout()'s read of jiffies and the
 * enqueue. Then 0, with the jiffies it was armed against (expires - n) in
 * @armed and their lag on the grid (hzrig_jiffies_lag_at()) in @lag;
 * -ENOENT for a timer of another length.
 */
int hzrig_timer_lag(const struct hzrig_timer_start *ev, uint64_t n,
		    int64_t ref_ns, uint64_t ref_jiffies, uint64_t tick_ns,
		    uint64_t *armed, int64_t *lag);

/*
 * The grid from the events themselves, where no module measured it: each
 * event gives the jiffies value at enqueue (expires - timeout) at its time;
 * the one that lies earliest after its edge is taken as on time (lag 0).
 * -EINVAL for @n == 0 or @tick_ns == 0.
 */
int hzrig_jiffy_grid_fit(const struct hzrig_timer_start *ev, size_t n,
			 uint64_t tick_ns, int64_t *ref_ns,
			 uint64_t *ref_jiffies);

/* `hzrig model` (rig/model/cmd_model.c). */
int cmd_model(int argc, char **argv);

#endif /* HZRIG_MODEL_H */
