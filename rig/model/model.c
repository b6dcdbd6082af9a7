// SPDX-License-Identifier: GPL-2.0
/*
 * The analytical model of a synchronous USB timeout, step by step as Linux
 * takes them, per kernel tree (docs/model.md has the derivation and the
 * kernel lines of 6.1 and 6.12; the trees' constants are in trees[]):
 *
 *  1. usb_start_wait_urb() clamps non-killable timeouts <= 0 or > 60000 ms
 *     to 60000 ms; killable ones with timeout <= 0 wait without a timer.
 *  2. msecs_to_jiffies() rounds the milliseconds up to whole jiffies: n.
 *  3. wait_for_completion_timeout() -> schedule_timeout(n) arms a timer_list
 *     for jiffies + n; calc_wheel_index() picks the wheel level from the
 *     distance n and calc_index() rounds the expiry up to the next multiple
 *     of that level's granule g = 8^level (always strictly later).
 *  4. The tick that reaches the rounded expiry runs the timer; the caller
 *     started somewhere inside a jiffy, so the wait lies in (n*tau, (n+g)*tau].
 *
 * The kernel computations are redone here, not copied: the constants of the
 * generic msecs_to_jiffies() are derived the way kernel/time/timeconst.bc
 * derives them, and the wheel geometry from its defining numbers.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hzrig/ioctl.h>
#include <hzrig/wire.h>

#include "model/model.h"

#define NSEC_PER_SEC		1000000000ULL
#define MSEC_PER_SEC		1000

/*
 * The trees the model was derived from, oldest first, each from its own
 * source (docs/model.md cites both, file:line). Between 6.1.192 and
 * 6.12.118 none of these changed: usb_start_wait_urb(), devio.c's
 * usbfs_start_wait_urb(), msecs_to_jiffies() with timeconst.bc, and the
 * wheel's LVL_* constants read the same; timer.c's rework (timer
 * migration, queueing on the local CPU's base) does not touch
 * calc_wheel_index(), and the guests run without SMP.
 */
static const struct hzrig_tree_model trees[] = {
	{
		.name = "6.1", .source = "linux-source-6.1 6.1.192",
		.sync_max_timeout_ms = 60000,
		.lvl_bits = 6, .lvl_clk_shift = 3, .depth_hz_above = 100,
	},
	{
		.name = "6.12", .source = "linux-source-6.12 6.12.118",
		.sync_max_timeout_ms = 60000,
		.lvl_bits = 6, .lvl_clk_shift = 3, .depth_hz_above = 100,
	},
};

#define NTREES	(sizeof(trees) / sizeof(trees[0]))

const struct hzrig_tree_model *hzrig_tree_default(void)
{
	return &trees[0];
}

const struct hzrig_tree_model *hzrig_tree_model_at(size_t i)
{
	return i < NTREES ? &trees[i] : NULL;
}

bool hzrig_release_line(const char *s, unsigned long *maj, unsigned long *min)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return false;
	*maj = strtoul(s, &end, 10);
	if (*end != '.' || end[1] < '0' || end[1] > '9')
		return false;
	*min = strtoul(end + 1, &end, 10);
	return !*end || *end == '.' || *end == '-' || *end == '+';
}

bool hzrig_release_line_name(const char *release, char *buf, size_t len)
{
	unsigned long maj, min;

	if (!hzrig_release_line(release, &maj, &min)) {
		if (len)
			buf[0] = '\0';
		return false;
	}
	snprintf(buf, len, "%lu.%lu", maj, min);
	return true;
}

const struct hzrig_tree_model *hzrig_tree_model_for(const char *release,
						    bool *exact)
{
	unsigned long maj, min, tmaj, tmin;
	const struct hzrig_tree_model *best = NULL;
	size_t i;

	if (exact)
		*exact = false;
	if (!hzrig_release_line(release, &maj, &min))
		return NULL;
	for (i = 0; i < NTREES; i++) {
		hzrig_release_line(trees[i].name, &tmaj, &tmin);
		if (tmaj > maj || (tmaj == maj && tmin > min))
			break;
		best = &trees[i];
		if (exact)
			*exact = tmaj == maj && tmin == min;
	}
	return best;
}

static bool hz_ok(int hz)
{
	return hz >= HZRIG_MODEL_HZ_MIN && hz <= HZRIG_MODEL_HZ_MAX;
}

/* include/vdso/jiffies.h: TICK_NSEC, the period the tick is programmed with. */
uint64_t hzrig_tick_ns(int hz)
{
	if (!hz_ok(hz))
		return 0;
	return (NSEC_PER_SEC + (uint64_t)hz / 2) / (uint64_t)hz;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * timeconst.bc: the multiplier is the reciprocal n/d scaled by the smallest
 * power of two that makes it at least 2^31 (so it is exact enough over the
 * whole int range), rounded up; the adjustment turns the truncating shift
 * into a ceiling. 128-bit intermediates: 2^s * n overflows 64 bits for
 * small HZ.
 */
int hzrig_msec_to_hz_consts(int hz, uint64_t *mul32, uint64_t *adj32,
			    unsigned int *shr32)
{
	const unsigned __int128 n = (unsigned int)hz, d = MSEC_PER_SEC;
	unsigned __int128 m = 0, dr;
	unsigned int s;

	if (!hz_ok(hz) || !mul32 || !adj32 || !shr32)
		return -EINVAL;
	for (s = 0; s < 96; s++) {
		m = (((unsigned __int128)1 << s) * n + d - 1) / d;
		if (m >= (unsigned __int128)1 << 31)
			break;
	}
	dr = d / gcd((uint64_t)n, (uint64_t)d);
	*mul32 = (uint64_t)m;
	*adj32 = (uint64_t)((((unsigned __int128)1 << s) * (dr - 1)) / dr);
	*shr32 = s;
	return 0;
}

/*
 * include/linux/jiffies.h _msecs_to_jiffies(): for HZ dividing 1000 a
 * rounded-up division by the jiffy length in ms; otherwise the 64-bit
 * multiply, add and shift. Both round up: n * tau >= m ms always.
 */
uint64_t hzrig_msecs_to_jiffies(int hz, int m)
{
	uint64_t mul, adj;
	unsigned int shr;

	if (!hz_ok(hz) || m < 0)
		return 0;
	if (!(MSEC_PER_SEC % hz)) {
		uint64_t per = MSEC_PER_SEC / hz;

		return ((uint64_t)m + per - 1) / per;
	}
	hzrig_msec_to_hz_consts(hz, &mul, &adj, &shr);
	/* u64 arithmetic, wrapping exactly as the kernel's would. */
	return (mul * (uint64_t)(unsigned int)m + adj) >> shr;
}

/*
 * The wheel of tree @t (kernel/time/timer.c). LVL_DEPTH: a ninth level only
 * above HZ=100, so the wheel spans ~12 days.
 */
static unsigned int depth_of(const struct hzrig_tree_model *t, int hz)
{
	return hz > t->depth_hz_above ? 9 : 8;
}

/* LVL_START(lvl): the last delta of level lvl-1, i.e. 63 << 3*(lvl-1). */
static uint64_t lvl_start(const struct hzrig_tree_model *t, unsigned int lvl)
{
	if (!lvl)
		return 0;
	return ((1ULL << t->lvl_bits) - 1) << ((lvl - 1) * t->lvl_clk_shift);
}

static uint64_t gran(const struct hzrig_tree_model *t, unsigned int lvl)
{
	return 1ULL << (lvl * t->lvl_clk_shift);
}

unsigned int hzrig_wheel_depth(int hz)
{
	return depth_of(hzrig_tree_default(), hz);
}

uint64_t hzrig_wheel_lvl_start(unsigned int lvl)
{
	return lvl_start(hzrig_tree_default(), lvl);
}

uint64_t hzrig_wheel_gran(unsigned int lvl)
{
	return gran(hzrig_tree_default(), lvl);
}

/* calc_index(): strictly after @expires, on the level's granule grid. */
static uint64_t bucket_expiry(const struct hzrig_tree_model *t,
			      uint64_t expires, unsigned int lvl)
{
	unsigned int shift = lvl * t->lvl_clk_shift;

	return ((expires >> shift) + 1) << shift;
}

/* The level calc_wheel_index() picks for a delta below the cutoff. */
static unsigned int level_of(const struct hzrig_tree_model *t, int hz,
			     uint64_t delta)
{
	unsigned int depth = depth_of(t, hz), lvl;

	for (lvl = 0; lvl < depth - 1; lvl++)
		if (delta < lvl_start(t, lvl + 1))
			return lvl;
	return depth - 1;
}

uint64_t hzrig_wheel_bucket_expiry(int hz, uint64_t expires, uint64_t clk,
				   unsigned int *level)
{
	const struct hzrig_tree_model *t = hzrig_tree_default();
	unsigned int depth = depth_of(t, hz);
	uint64_t cutoff = lvl_start(t, depth);
	uint64_t max = cutoff - gran(t, depth - 1);
	uint64_t delta = expires - clk;
	unsigned int lvl;

	if (delta < lvl_start(t, depth - 1)) {
		lvl = level_of(t, hz, delta);
	} else if ((int64_t)delta < 0) {
		/* Already expired: queued to run at the next tick of clk. */
		if (level)
			*level = 0;
		return clk;
	} else {
		/* WHEEL_TIMEOUT_CUTOFF: force-expire at the wheel's capacity. */
		if (delta >= cutoff)
			expires = clk + max;
		lvl = depth - 1;
	}
	if (level)
		*level = lvl;
	return bucket_expiry(t, expires, lvl);
}

/*
 * A wait of n >= WHEEL_TIMEOUT_CUTOFF jiffies: the first timer is
 * force-expired after (max, cutoff] jiffies, schedule_timeout() returns the
 * rest and do_wait_for_common() loops into a new schedule_timeout() for the
 * same absolute expiry. Track the interval [a, b] of possible remainders to
 * find the largest remainder that ends up on a final (uncapped) timer, and
 * whether the remainder can be exactly 0 (the wait then ends at n, within
 * the last jiffy instead of after it).
 */
static void chain(const struct hzrig_tree_model *t, int hz, uint64_t n,
		  uint64_t *final_max, bool *zero, unsigned int *rearms)
{
	unsigned int depth = depth_of(t, hz);
	uint64_t cutoff = lvl_start(t, depth);
	uint64_t max = cutoff - gran(t, depth - 1);
	uint64_t a = n, b = n, lo;

	*final_max = 0;
	*zero = false;
	*rearms = 0;
	for (;;) {
		if (a < cutoff) {
			uint64_t top = b < cutoff ? b : cutoff - 1;

			if (top > *final_max)
				*final_max = top;
		}
		if (b < cutoff)
			break;
		lo = a > cutoff ? a : cutoff;
		if (lo == cutoff)
			*zero = true;
		a = lo - cutoff;
		b -= max + 1;
		(*rearms)++;
	}
}

/* What every window starts from: the call, no timer yet. -EINVAL if bad. */
static int window_start(const struct hzrig_tree_model *t, int hz,
			int timeout_arg, bool killable, struct hzrig_window *w)
{
	if (!hz_ok(hz) || !w || !t)
		return -EINVAL;
	memset(w, 0, sizeof(*w));
	w->tree = t;
	w->hz = hz;
	w->timeout_arg = timeout_arg;
	w->killable = killable;
	w->tick_ns = hzrig_tick_ns(hz);
	w->effective_ms = timeout_arg;
	return 0;
}

/* A wait with no timer at all: no window. */
static void window_forever(struct hzrig_window *w)
{
	w->forever = true;
	w->lo_ns = w->hi_ns = UINT64_MAX;
}

int hzrig_model_window(int hz, int timeout_arg, bool killable,
		       struct hzrig_window *w)
{
	return hzrig_tree_window(hzrig_tree_default(), hz, timeout_arg,
				 killable, w);
}

int hzrig_tree_window(const struct hzrig_tree_model *t, int hz,
		      int timeout_arg, bool killable, struct hzrig_window *w)
{
	uint64_t n, last, tau;
	bool zero;

	if (window_start(t, hz, timeout_arg, killable, w))
		return -EINVAL;
	tau = w->tick_ns;
	if (!killable && (timeout_arg <= 0 ||
			  timeout_arg > t->sync_max_timeout_ms))
		w->effective_ms = t->sync_max_timeout_ms;
	if (w->effective_ms <= 0) {
		/* MAX_SCHEDULE_TIMEOUT: schedule() with no timer at all. */
		window_forever(w);
		return 0;
	}
	w->jiffies = n = hzrig_msecs_to_jiffies(hz, w->effective_ms);
	chain(t, hz, n, &last, &zero, &w->rearms);
	w->level = level_of(t, hz, last);
	w->granule = gran(t, w->level);
	w->lag_edge = !w->rearms && w->level < depth_of(t, hz) - 1 &&
		      n + 1 == lvl_start(t, w->level + 1);
	w->lo_ns = (zero ? n - 1 : n) * tau;
	w->hi_ns = (n + w->granule) * tau;
	return 0;
}

bool hzrig_path_own_clock(unsigned int path)
{
	return path == HZRIG_PATH_LIBUSB_SYNC || path == HZRIG_PATH_LIBUSB_ASYNC;
}

int hzrig_path_window(int hz, unsigned int path, int timeout_arg,
		      bool killable, struct hzrig_window *w)
{
	return hzrig_tree_path_window(hzrig_tree_default(), hz, path,
				      timeout_arg, killable, w);
}

int hzrig_tree_path_window(const struct hzrig_tree_model *t, int hz,
			   unsigned int path, int timeout_arg, bool killable,
			   struct hzrig_window *w)
{
	switch (path) {
	case HZRIG_PATH_KERNEL:
	case HZRIG_PATH_USBMON:
		/* an in-tree driver's usb_*_msg(): usb_start_wait_urb() too */
		return hzrig_tree_window(t, hz, timeout_arg, killable, w);
	case HZRIG_PATH_USBFS:
		/* devio.c: expire = timeout ? msecs_to_jiffies(timeout) : forever */
		return hzrig_tree_window(t, hz, timeout_arg, true, w);
	case HZRIG_PATH_LIBUSB_SYNC:
	case HZRIG_PATH_LIBUSB_ASYNC:
		break;
	default:
		return -EINVAL;
	}
	/* io.c calculate_timeout(): now + T on CLOCK_MONOTONIC; 0: none. */
	if (window_start(t, hz, timeout_arg, killable, w))
		return -EINVAL;
	if (timeout_arg <= 0) {
		window_forever(w);
		return 0;
	}
	w->own_clock = true;
	w->lo_ns = w->hi_ns = (uint64_t)timeout_arg * 1000000;
	return 0;
}

void hzrig_window_cancel(struct hzrig_window *w, uint64_t ns)
{
	if (!w->own_clock || w->forever)
		return;
	w->hi_ns = w->hi_ns > UINT64_MAX - ns ? UINT64_MAX : w->hi_ns + ns;
	w->cancel_ns = ns;
}

void hzrig_window_stale_jiffies(struct hzrig_window *w, int64_t ticks)
{
	uint64_t d;

	if (w->forever || ticks <= 0)
		return;
	d = (uint64_t)ticks > w->lo_ns / w->tick_ns ? w->lo_ns :
	    (uint64_t)ticks * w->tick_ns;
	w->lo_ns -= d;
	w->stale_ticks = (unsigned int)(d / w->tick_ns);
}

enum hzrig_verdict hzrig_verdict(const struct hzrig_window *w,
				 uint64_t allowance_ns, int expected_status,
				 int status, int64_t elapsed_ns)
{
	uint64_t lo, hi, e;

	if (status != expected_status)
		return HZRIG_WRONG_STATUS;
	lo = w->lo_ns > allowance_ns ? w->lo_ns - allowance_ns : 0;
	hi = w->hi_ns > UINT64_MAX - allowance_ns ? UINT64_MAX :
	     w->hi_ns + allowance_ns;
	if (elapsed_ns < 0)
		return expected_status == -ETIMEDOUT ? HZRIG_EARLY : HZRIG_INSIDE;
	e = (uint64_t)elapsed_ns;
	if (expected_status == -ETIMEDOUT && e < lo)
		return HZRIG_EARLY;
	if (e > hi)
		return HZRIG_LATE;
	return HZRIG_INSIDE;
}

enum hzrig_verdict hzrig_verdict_delay(uint64_t delay_ns, uint64_t allowance_ns,
				       int64_t elapsed_ns)
{
	uint64_t e = elapsed_ns < 0 ? 0 : (uint64_t)elapsed_ns;

	if (e + allowance_ns < delay_ns)
		return HZRIG_EARLY;
	if (e > delay_ns + allowance_ns)
		return HZRIG_LATE;
	return HZRIG_INSIDE;
}

enum hzrig_verdict hzrig_verdict_stall(int hz, uint64_t allowance_ns,
				       int64_t elapsed_ns)
{
	uint64_t limit;

	if (!hz_ok(hz))
		return HZRIG_LATE;
	limit = HZRIG_STALL_TICKS * hzrig_tick_ns(hz) + allowance_ns;
	return elapsed_ns > 0 && (uint64_t)elapsed_ns > limit ?
	       HZRIG_LATE : HZRIG_INSIDE;
}

enum hzrig_verdict hzrig_verdict_sample(const struct hzrig_window *w,
					unsigned int behaviour,
					uint64_t delay_ns,
					uint64_t allowance_ns,
					int expected_status, int status,
					int64_t elapsed_ns, bool refused)
{
	enum hzrig_verdict v;

	if (refused)
		return HZRIG_REFUSED;
	v = hzrig_verdict(w, allowance_ns, expected_status, status,
			  elapsed_ns);
	if (v != HZRIG_INSIDE)
		return v;
	switch (behaviour) {
	case HZRIG_BEH_DELAY:
		/* An answer after a delay must come when the delay says. */
		return status == 0 ?
		       hzrig_verdict_delay(delay_ns, allowance_ns, elapsed_ns) :
		       v;
	case HZRIG_BEH_STALL:
		/* A halt is reported at once, not when the timer fires. */
		return hzrig_verdict_stall(w->hz, allowance_ns, elapsed_ns);
	default:
		return v;
	}
}

static const char *const verdict_names[HZRIG_VERDICT_COUNT] = {
	[HZRIG_INSIDE] = "inside",
	[HZRIG_EARLY] = "early",
	[HZRIG_LATE] = "late",
	[HZRIG_WRONG_STATUS] = "wrong-status",
	[HZRIG_REFUSED] = "refused",
};

const char *hzrig_verdict_name(enum hzrig_verdict v)
{
	return (unsigned int)v < HZRIG_VERDICT_COUNT ? verdict_names[v] : NULL;
}

int hzrig_verdict_parse(const char *s)
{
	int i;

	for (i = 0; s && i < HZRIG_VERDICT_COUNT; i++)
		if (!strcmp(verdict_names[i], s))
			return i;
	return -1;
}

int64_t hzrig_mode_timeout_arg(int hz, unsigned int mode,
			       unsigned int timeout_ms)
{
	if (!hz_ok(hz) || timeout_ms > INT_MAX)
		return -1;
	switch (mode) {
	case HZRIG_MODE_MS:
		return timeout_ms;
	case HZRIG_MODE_LEGACY_JIFFIES:
		return (int64_t)hzrig_msecs_to_jiffies(hz, (int)timeout_ms);
	case HZRIG_MODE_HZ_CONSTANT:
		return (int64_t)hz * timeout_ms / MSEC_PER_SEC;
	case HZRIG_MODE_ZERO:
		return 0;
	default:
		return -1;
	}
}

/*
 * A trace line's timestamp, "SEC.USEC" ending at @tag (the ": event: "
 * after it), into *@t_ns; *@start where it begins. -EINVAL if it is not.
 */
static int trace_stamp(const char *line, const char *tag, int64_t *t_ns,
		       const char **start)
{
	const char *p = tag, *q;
	unsigned long long sec, usec;

	/* digits '.' six digits */
	while (p > line && p[-1] >= '0' && p[-1] <= '9')
		p--;
	if (tag - p != 6 || p == line || p[-1] != '.')
		return -EINVAL;
	usec = strtoull(p, NULL, 10);
	q = --p;
	while (p > line && p[-1] >= '0' && p[-1] <= '9')
		p--;
	if (p == q || q - p > 12 || p == line || p[-1] != ' ')
		return -EINVAL;
	sec = strtoull(p, NULL, 10);
	*t_ns = (int64_t)(sec * 1000000000ULL + usec * 1000ULL);
	*start = p;
	return 0;
}

/*
 * A timer event of schedule_timeout()'s timer: its tag in @line, its
 * " timer=ID" into @timer, and the text after " function=process_timeout"
 * in *@rest. -ENOENT for another event or function, -EINVAL for a line of
 * the event that does not read as one.
 */
static int timeout_timer(const char *line, const char *event, int64_t *t_ns,
			 const char **stamp, char *timer, size_t tlen,
			 const char **rest)
{
	const char *tag = strstr(line, event), *p, *f;
	size_t n;

	if (!tag)
		return -ENOENT;
	f = strstr(tag, " function=");
	if (!f)
		return -EINVAL;
	f += strlen(" function=");
	if (strncmp(f, "process_timeout ", strlen("process_timeout ")))
		return -ENOENT;
	if (trace_stamp(line, tag, t_ns, stamp))
		return -EINVAL;
	p = strstr(tag, " timer=");
	if (!p || p > f)
		return -EINVAL;
	p += strlen(" timer=");
	n = strcspn(p, " ");
	if (!n || n >= tlen)
		return -EINVAL;
	memcpy(timer, p, n);
	timer[n] = '\0';
	*rest = f + strlen("process_timeout");
	return 0;
}

/* "comm-PID [CPU] FLAGS SEC.USEC: timer_start: timer=... function=F ..." */
int hzrig_timer_start_parse(const char *line, struct hzrig_timer_start *ev)
{
	const char *p, *q, *f;
	unsigned long long expires;
	long long timeout;
	char *end;
	int ret;

	ret = timeout_timer(line, ": timer_start: ", &ev->t_ns, &p, ev->timer,
			    sizeof(ev->timer), &f);
	if (ret)
		return ret;
	/* the pid: "-DIGITS" before the first " [" (a comm may hold '-') */
	q = strstr(line, " [");
	if (!q || q > p)
		return -EINVAL;
	while (q > line && q[-1] == ' ')
		q--;
	p = q;
	while (p > line && p[-1] >= '0' && p[-1] <= '9')
		p--;
	if (p == q || q - p > 9 || p == line || p[-1] != '-')
		return -EINVAL;
	ev->pid = (int)strtol(p, NULL, 10);
	p = strstr(f, " expires=");
	if (!p)
		return -EINVAL;
	errno = 0;
	expires = strtoull(p + strlen(" expires="), &end, 10);
	if (errno || end == p + strlen(" expires=") ||
	    strncmp(end, " [timeout=", strlen(" [timeout=")))
		return -EINVAL;
	p = end + strlen(" [timeout=");
	timeout = strtoll(p, &end, 10);
	if (errno || end == p || *end != ']')
		return -EINVAL;
	ev->expires = expires;
	ev->timeout = timeout;
	return 0;
}

/* "... SEC.USEC: timer_expire_entry: timer=... function=F now=J baseclk=B" */
int hzrig_timer_expire_parse(const char *line, struct hzrig_timer_expire *ev)
{
	const char *stamp, *rest, *p;
	char *end;
	int ret;

	ret = timeout_timer(line, ": timer_expire_entry: ", &ev->t_ns, &stamp,
			    ev->timer, sizeof(ev->timer), &rest);
	if (ret)
		return ret;
	p = strstr(rest, " now=");
	if (!p)
		return -EINVAL;
	p += strlen(" now=");
	errno = 0;
	ev->now = strtoull(p, &end, 10);
	if (errno || end == p)
		return -EINVAL;
	return 0;
}

static int64_t floor_div(int64_t a, int64_t b)
{
	return a >= 0 ? a / b : -((-a + b - 1) / b);
}

int64_t hzrig_jiffies_lag_at(int64_t ref_ns, uint64_t ref_jiffies,
			     uint64_t tick_ns, int64_t t_ns, uint64_t j)
{
	int64_t ticks = floor_div(t_ns - ref_ns, (int64_t)tick_ns);

	return (int64_t)(ref_jiffies - j) + ticks;
}

int hzrig_timer_lag(const struct hzrig_timer_start *ev, uint64_t n,
		    int64_t ref_ns, uint64_t ref_jiffies, uint64_t tick_ns,
		    uint64_t *armed, int64_t *lag)
{
	if (ev->timeout != (int64_t)n && ev->timeout != (int64_t)n - 1)
		return -ENOENT;
	*armed = ev->expires - n;
	*lag = hzrig_jiffies_lag_at(ref_ns, ref_jiffies, tick_ns, ev->t_ns,
				    *armed);
	return 0;
}

int hzrig_jiffy_grid_fit(const struct hzrig_timer_start *ev, size_t n,
			 uint64_t tick_ns, int64_t *ref_ns,
			 uint64_t *ref_jiffies)
{
	uint64_t j0;
	int64_t best = 0;
	size_t i;

	if (!n || !tick_ns)
		return -EINVAL;
	/*
	 * x = t - (j - j0) * tick: where jiffies j's edge would put the edge
	 * of j0. On time, t lies in [edge(j), edge(j) + tick); a stale read
	 * lies a whole tick or more later. The smallest x is the nearest to
	 * the edge, so its event is on time.
	 */
	j0 = ev[0].expires - (uint64_t)ev[0].timeout;
	for (i = 0; i < n; i++) {
		uint64_t j = ev[i].expires - (uint64_t)ev[i].timeout;
		int64_t x = ev[i].t_ns - (int64_t)(j - j0) * (int64_t)tick_ns;

		if (!i || x < best)
			best = x;
	}
	*ref_ns = best;
	*ref_jiffies = j0;
	return 0;
}
