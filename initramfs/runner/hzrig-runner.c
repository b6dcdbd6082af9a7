// SPDX-License-Identifier: GPL-2.0
/*
 * hzrig-runner: the guest side of a measurement. Runs every case of a plan
 * through the host driver's ioctl, prints KTAP on stdout (the console) and
 * writes metadata, noise figures and samples as JSON lines to a second serial
 * port, where the host can collect them apart from the console noise (or,
 * with --inband, tagged on the console itself: a lab's one serial line).
 *
 * What it writes (KTAP, the JSON-line records, --inband) is output.c; the
 * userspace paths (usbfs, libusb-1.0) are in userpath.c; the kernel's
 * view of each URB comes from usbmon (usbmon.c). Linked against Debian's
 * shared libusb-1.0: mkinitramfs.sh copies what ldd names into the guest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "drivers.h"
#include "lib/opts.h"
#include "model/model.h"
#include "output.h"
#include "plan/plan.h"
#include "userpath.h"

#define NOISE_SLEEPS	200
#define NOISE_SLEEP_US	1000
#define RTT_REPS	200
/*
 * The probe before the plan takes fewer round trips: it stands between the
 * boot and the first sample (200 took 0.8 s of TCG guest time), and every
 * case takes the larger of the probes on either side of it, the next of
 * which has RTT_REPS. Its p99 is then its largest but one.
 */
#define RTT_FIRST_REPS	50
_Static_assert(DRIVERS_RTT_N <= RTT_REPS, "a drivers probe fits the noise probe");
#define DEV_WAIT_S	20
/*
 * Serially, the noise is probed again before a case once this much wall
 * time has passed since the last probe, and once after the last case: a
 * long plan's allowance follows the guest's noise (docs/model.md §9).
 */
#define NOISE_EVERY_S	60
/*
 * Lane threads run SCHED_FIFO at this priority: when a lane's call ends,
 * its thread is to get the one CPU at once, not after the gadget's or
 * another lane's time slice (CFS wakeup granularity is a millisecond or
 * more). They sleep in the driver nearly all the time, so nobody starves.
 */
#define LANE_RT_PRIO	10

/* The driver binds once the gadget has enumerated: give it a moment. */
static int open_dev(struct runner *r)
{
	int i;

	for (i = 0; i < DEV_WAIT_S * 10; i++) {
		r->dev = open(r->dev_path, O_RDWR | O_CLOEXEC);
		if (r->dev >= 0)
			return 0;
		usleep(100000);
	}
	printf("# %s: %s\n", r->dev_path, strerror(errno));
	return -1;
}

static void read_clocksource(struct runner *r)
{
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource",
			"r");

	strcpy(r->clocksource, "unknown");
	if (!f)
		return;
	if (fgets(r->clocksource, sizeof(r->clocksource), f))
		r->clocksource[strcspn(r->clocksource, "\n")] = '\0';
	fclose(f);
}

/*
 * The kernel starts on tsc-early and switches to tsc once the TSC is
 * calibrated, about a second into boot: measure after the switch.
 */
static void settle_clocksource(struct runner *r)
{
	int i;

	for (i = 0; i < 100; i++) {
		read_clocksource(r);
		if (!strstr(r->clocksource, "-early"))
			return;
		usleep(100000);
	}
}

/* The text of the driver's parameter @name, "" when it cannot be read. */
static void module_param_text(const char *name, char *buf, size_t len)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/hzrig_host/parameters/%s",
		 name);
	buf[0] = '\0';
	f = fopen(path, "r");
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
}

/* A numeric parameter of the driver, 0 if it has none. */
static unsigned long module_param_ul(const char *name)
{
	char buf[32];

	module_param_text(name, buf, sizeof(buf));
	return strtoul(buf, NULL, 10);
}

/* A bool parameter: the kernel shows it as Y or N. */
static bool module_param_yes(const char *name)
{
	char buf[8];

	module_param_text(name, buf, sizeof(buf));
	return buf[0] == 'Y' || buf[0] == '1';
}

/*
 * The driver's lane planner, held against what happened (the module's
 * planner_* parameters, counted since load; docs/measurement.md): calls
 * whose end it predicted, those that ended outside the window and far
 * outside it, the longest sleep for a quiet ep0 and the waits that hit
 * their bound.
 */
struct planner_stats {
	unsigned long predicted, missed, far, ep0_quiet_max_us, capped;
};

static void planner_read(struct planner_stats *p)
{
	p->predicted = module_param_ul("planner_ends_predicted");
	p->missed = module_param_ul("planner_ends_missed");
	p->far = module_param_ul("planner_ends_missed_far");
	p->ep0_quiet_max_us = module_param_ul("planner_ep0_quiet_max_us");
	p->capped = module_param_ul("planner_ep0_waits_capped");
}

/*
 * A KTAP test: at most PLANNER_FAR_PCT % of the predicted ends (and at
 * least one) missed their window by over 20 ms. The guest's noise puts a
 * few ends a little outside (the window allows 2 ms after the expiry; in
 * lanes up to 9 ms were seen); a planner modelling the wrong kernel misses
 * its timed-out calls by whole ticks, most by tens or hundreds of ms.
 */
#define PLANNER_FAR_PCT		5
/*
 * And no lane slept longer for a quiet moment on ep0 than the driver's
 * bound (HZRIG_EP0_WAIT_MAX_NS, 50 ms) plus a late wakeup.
 */
#define PLANNER_QUIET_MAX_US	100000

static void planner_check(struct runner *r, const struct planner_stats *p0)
{
	struct planner_stats p1;
	unsigned long n, miss, far, max_us;

	planner_read(&p1);
	n = p1.predicted - p0->predicted;
	miss = p1.missed - p0->missed;
	far = p1.far - p0->far;
	max_us = module_param_ul("planner_ends_miss_max_us");
	ktap(r, (far <= 1 || far * 100 <= n * PLANNER_FAR_PCT) &&
	     p1.ep0_quiet_max_us <= PLANNER_QUIET_MAX_US,
	     "lane_planner # %lu of %lu predicted ends missed, %lu by over 20 ms (limit %d %%), by %lu.%03lu ms at most; a lane slept at most %lu.%03lu ms for a quiet ep0 (limit %d ms), %lu waits went ahead at the bound%s",
	     miss, n, far, PLANNER_FAR_PCT, max_us / 1000, max_us % 1000,
	     p1.ep0_quiet_max_us / 1000, p1.ep0_quiet_max_us % 1000,
	     PLANNER_QUIET_MAX_US / 1000, p1.capped - p0->capped,
	     module_param_yes("sync_timeout_jiffies") ?
	     "; kernel timeouts taken as jiffies" : "");
}

static bool clocksource_usable(const char *cs)
{
	return strcmp(cs, "jiffies") && strcmp(cs, "refined-jiffies") &&
	       strcmp(cs, "unknown");
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int64_t pct(int64_t *v, size_t n, unsigned int p)
{
	size_t i;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_i64);
	i = (n * p + 99) / 100;
	return v[i ? i - 1 : 0];
}

/*
 * Who holds the device: the host driver (/dev/hzrig0 open) for the kernel
 * path, this program (usbfs node claimed, driver detached) for the others.
 */
static int ensure_path(struct runner *r, uint32_t path)
{
	char err[160];
	int ret;

	if (path == HZRIG_PATH_KERNEL) {
		if (r->dev >= 0)
			return 0;
		userpath_release(&r->up);
		return open_dev(r) ? -ENODEV : 0;
	}
	if (!r->have_up) {
		printf("# userspace paths: %s\n", r->up_err);
		return -ENODEV;
	}
	if (r->dev >= 0) {
		close(r->dev);
		r->dev = -1;
	}
	ret = userpath_acquire(&r->up, err, sizeof(err));
	if (ret)
		printf("# userspace path %s: %s\n", hzrig_path_name(path), err);
	return ret;
}

/*
 * Run @pc; *@filled gets how many samples from s[0] on are real: all of
 * them on success, and on the kernel path also those the driver kept from
 * before an error (struct hzrig_case.filled).
 */
static int run_case(struct runner *r, const struct hzrig_plan_case *pc,
		    struct hzrig_sample *s, int64_t *urb_ns, uint32_t *filled,
		    uint32_t fanout)
{
	struct hzrig_case c = {
		.version = HZRIG_ABI_VERSION,
		.size = sizeof(c),
		.transfer = pc->transfer,
		.behaviour = pc->behaviour,
		.mode = pc->mode,
		.timeout_ms = pc->timeout_ms,
		.reps = pc->reps,
		.length = pc->length,
		.delay_us = pc->delay_us,
		.short_length = pc->short_length,
		.flags = pc->flags,
		.sample_size = sizeof(*s),
		.samples = (uintptr_t)s,
		.fanout = fanout,
	};
	uint32_t k;
	int ret;

	*filled = 0;
	if (pc->path == HZRIG_PATH_USBMON) {
		char err[200];

		ret = drivers_run_case(pc, r->info.hz, s, urb_ns, filled,
				       r->site, sizeof(r->site), err,
				       sizeof(err));
		if (ret)
			printf("# driver %s: %s\n", pc->driver, err);
		return ret;
	}
	if (r->drivers)
		return -ENODEV;		/* no device of ours in this guest */
	if (!r->lanes_active) {
		ret = ensure_path(r, pc->path);
		if (ret)
			return ret;
	}
	if (pc->path != HZRIG_PATH_KERNEL) {
		ret = userpath_run_case(&r->up, pc, s, urb_ns);
		*filled = ret ? 0 : pc->reps;
		return ret;
	}
	if (!r->lanes_active && r->have_up)
		userpath_kernel_mark(&r->up);
	ret = ioctl(r->dev, HZRIG_IOC_RUN_CASE, &c) ? -errno : 0;
	*filled = c.filled <= pc->reps ? c.filled : 0;
	if (!ret && !r->lanes_active && r->have_up) {
		userpath_kernel_urbs(&r->up, pc, s, urb_ns);
	} else {
		for (k = 0; k < pc->reps; k++)
			urb_ns[k] = -1;
	}
	return ret;
}

/*
 * The noise floor: how late an hrtimer sleep wakes up, and how long a transfer
 * that is answered at once takes through dummy_hcd. Both widen every sample.
 * The first probe (@at_case 0, before the plan) is a KTAP test; later ones,
 * taken before case @at_case (or after the last, @at_case = number of cases),
 * are KTAP comments, so the plan count stays what it was. The first takes
 * RTT_FIRST_REPS round trips, the others RTT_REPS.
 */
static void measure_noise(struct runner *r, size_t at_case, bool first)
{
	struct hzrig_plan_case rtt_case = {
		.transfer = HZRIG_XFER_CTRL_IN, .behaviour = HZRIG_BEH_ANSWER,
		.mode = HZRIG_MODE_MS, .timeout_ms = 1000,
		.reps = first ? RTT_FIRST_REPS : RTT_REPS,
		.length = 64,
	};
	struct hzrig_sample s[RTT_REPS];
	int64_t urb_ns[RTT_REPS];
	int64_t over[NOISE_SLEEPS], rtt[RTT_REPS];
	int64_t over_p99, rtt_p99;
	size_t nrtt = 0;
	uint32_t filled;
	int i, ret;

	for (i = 0; i < NOISE_SLEEPS; i++) {
		struct timespec ts = { 0, NOISE_SLEEP_US * 1000 };
		int64_t t0 = now_ns();

		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
		over[i] = now_ns() - t0 - NOISE_SLEEP_US * 1000;
	}
	if (r->drivers) {
		/* the last usbmon case's device, timed before its probes */
		nrtt = drivers_last_rtt(rtt);
		ret = nrtt ? 0 : -ENODEV;
	} else {
		ret = run_case(r, &rtt_case, s, urb_ns, &filled, 1);
		for (i = 0; !ret && i < (int)rtt_case.reps; i++)
			if (s[i].status == 0)
				rtt[nrtt++] = s[i].elapsed_ns;
	}
	over_p99 = pct(over, NOISE_SLEEPS, 99);
	rtt_p99 = pct(rtt, nrtt, 99);

	/* lanes: long cases may be writing theirs meanwhile */
	pthread_mutex_lock(&r->lock);
	emit_noise(r, NOISE_SLEEP_US, NOISE_SLEEPS, pct(over, NOISE_SLEEPS, 50),
		   over_p99, nrtt, pct(rtt, nrtt, 50), rtt_p99, at_case);
	if (first) {
		ktap(r, nrtt == rtt_case.reps || r->drivers, "noise_floor # sleep p99 %"
		     PRId64 " us, answered ctrl-in p99 %" PRId64 " us%s%s",
		     over_p99 / 1000, rtt_p99 / 1000, r->drivers ?
		     " (no device of ours: sleeps only)" : ret ? ", ioctl: " : "",
		     ret && !r->drivers ? strerror(-ret) : "");
	} else {
		printf("# noise at case %zu: sleep p99 %" PRId64
		       " us, answered ctrl-in p99 %" PRId64 " us%s%s\n",
		       at_case, over_p99 / 1000, rtt_p99 / 1000,
		       ret ? ", ioctl: " : "", ret ? strerror(-ret) : "");
		fflush(stdout);
	}
	pthread_mutex_unlock(&r->lock);
	r->noise_at = now_ns();
}

/*
 * Progress of a plan, per stream: 0 the cases one after the other (all of
 * them when serial), with lanes also one per endpoint for its long cases
 * (long_case()): requested waits (a fanned-out case's divided by its
 * fanout) and repetitions in all and done, for the ETA. With lanes, busy
 * and want say which endpoint's lane a case holds or its background
 * thread waits for (under mu, signalled on cv).
 */
struct plan_run {
	struct runner *r;
	const struct hzrig_plan *plan;
	bool lanes;
	int64_t t0;
	size_t nsamples;
	uint64_t total_ms[HZRIG_LANE_COUNT], done_ms[HZRIG_LANE_COUNT];
	uint64_t total_reps[HZRIG_LANE_COUNT], done_reps[HZRIG_LANE_COUNT];
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool busy[HZRIG_LANE_COUNT], want[HZRIG_LANE_COUNT];
};

struct lane_thread {
	struct plan_run *pr;
	unsigned int lane;
	pthread_t thread;
	bool started;
};

/* Each repetition of a case waits this long at least: a long case. */
#define LONG_CASE_MS	1000

/*
 * With lanes, a case runs in the background, beside the others, when it is
 * a kernel-path NAK on a bulk or interrupt endpoint whose repetitions each
 * wait LONG_CASE_MS or more at this HZ: HZRIG_MAX_FANOUT of them in flight
 * at once (the driver's fanout). Its timer lands on level 1 of the wheel or
 * higher at every HZ, so its window is 8 ticks wide or more. A control
 * call stays in the one-at-a-time stream: it holds ep0, which every arming
 * needs.
 */
static bool long_case(const struct plan_run *pr,
		      const struct hzrig_plan_case *pc)
{
	const struct hzrig_plan one = {
		.cases = (struct hzrig_plan_case *)pc, .ncases = 1,
	};

	return pr->lanes && pc->path == HZRIG_PATH_KERNEL &&
	       pc->behaviour == HZRIG_BEH_NAK &&
	       hzrig_transfer_lane(pc->transfer) != HZRIG_LANE_EP0 &&
	       hzrig_plan_wait_ms(&one, pr->r->info.hz) >=
	       (uint64_t)LONG_CASE_MS * pc->reps;
}

static uint32_t case_fanout(const struct plan_run *pr,
			    const struct hzrig_plan_case *pc)
{
	if (!long_case(pr, pc))
		return 1;
	return pc->reps < HZRIG_MAX_FANOUT ? pc->reps : HZRIG_MAX_FANOUT;
}

/* The case's stream: its endpoint's lane for a long case, else 0. */
static unsigned int case_lane(const struct plan_run *pr,
			      const struct hzrig_plan_case *pc)
{
	return long_case(pr, pc) ? hzrig_transfer_lane(pc->transfer) : 0;
}

/*
 * Time still needed: lanes run side by side, so the slowest lane's waits to
 * come and overhead (each lane has had the whole wall time so far).
 */
static uint64_t plan_eta_ms(const struct plan_run *pr)
{
	int64_t spent_ms = (now_ns() - pr->t0) / 1000000;
	uint64_t eta = 0;
	unsigned int l;

	for (l = 0; l < HZRIG_LANE_COUNT; l++) {
		uint64_t e = hzrig_eta_ms(pr->total_ms[l], pr->done_ms[l],
					  pr->total_reps[l], pr->done_reps[l],
					  spent_ms > 0 ? (uint64_t)spent_ms : 0);

		if (e > eta)
			eta = e;
	}
	return eta;
}

/* One case: progress line, the ioctl, its samples and KTAP line. */
static void run_plan_case(struct plan_run *pr, size_t i)
{
	struct runner *r = pr->r;
	const struct hzrig_plan_case *pc = &pr->plan->cases[i];
	const struct hzrig_plan one = {
		.cases = (struct hzrig_plan_case *)pc, .ncases = 1,
	};
	unsigned int lane = case_lane(pr, pc);
	uint32_t fanout = case_fanout(pr, pc);
	const char *tn = hzrig_transfer_name(pc->transfer);
	const char *bn = hzrig_behaviour_name(pc->behaviour);
	const char *mn = hzrig_mode_name(pc->mode);
	int want = hzrig_case_expected_status(pc);
	struct hzrig_sample *s = calloc(pc->reps, sizeof(*s));
	int64_t *urb_ns = calloc(pc->reps, sizeof(*urb_ns));
	/* Kernel cases keep their old names; the others say their path. */
	const char *pn = pc->path == HZRIG_PATH_KERNEL ? "" :
			 hzrig_path_name(pc->path);
	char driver_pn[64];
	const char *sep = *pn ? "_" : "";
	uint32_t filled = 0;
	bool in_lane = lane != 0;
	char fan[24] = "";
	uint32_t k, bad = 0;
	int ret;

	/* an in-tree driver's case says which driver: usbmon_ipheth_... */
	if (pc->path == HZRIG_PATH_USBMON) {
		snprintf(driver_pn, sizeof(driver_pn), "%s_%s", pn, pc->driver);
		pn = driver_pn;
	}
	if (fanout > 1)
		snprintf(fan, sizeof(fan), ", %u at once", fanout);
	pthread_mutex_lock(&r->lock);
	printf("# case %zu/%zu %s%s%s%s%s%s %s %s T=%u ms x%u%s, ETA %" PRIu64
	       " s\n", i + 1, pr->plan->ncases, in_lane ? "[" : "",
	       in_lane ? hzrig_lane_name(lane) : "", in_lane ? "] " : "",
	       pn, *pn ? " " : "", tn, bn, mn, pc->timeout_ms, pc->reps, fan,
	       plan_eta_ms(pr) / 1000);
	fflush(stdout);
	pthread_mutex_unlock(&r->lock);

	ret = s && urb_ns ? run_case(r, pc, s, urb_ns, &filled, fanout) : -ENOMEM;

	pthread_mutex_lock(&r->lock);
	/* what the driver kept of a case that failed half-way, too */
	for (k = 0; k < filled; k++) {
		emit_sample(r, i, k, pc, &s[k], urb_ns[k]);
		if (s[k].status != want)
			bad++;
	}
	fflush(r->out);
	if (ret)
		ktap(r, false, "%s%s%s_%s_%s_%ums # %s: %s (%u of %u samples kept)",
		     pn, sep, tn, bn, mn, pc->timeout_ms,
		     pc->path == HZRIG_PATH_KERNEL ? "ioctl" : "userspace",
		     strerror(-ret), filled, pc->reps);
	else
		ktap(r, !bad, "%s%s%s_%s_%s_%ums # %u/%u with status %d",
		     pn, sep, tn, bn, mn, pc->timeout_ms, pc->reps - bad,
		     pc->reps, want);
	pr->nsamples += filled;
	pr->done_ms[lane] += hzrig_plan_wait_ms(&one, r->info.hz) / fanout;
	pr->done_reps[lane] += pc->reps;
	pthread_mutex_unlock(&r->lock);
	free(urb_ns);
	free(s);
}

/* Hold endpoint lane @l for a case (pr->mu held): until released. */
static void lane_claim(struct plan_run *pr, unsigned int l)
{
	pr->busy[l] = true;
}

static void lane_release(struct plan_run *pr, unsigned int l)
{
	pthread_mutex_lock(&pr->mu);
	pr->busy[l] = false;
	pthread_cond_broadcast(&pr->cv);
	pthread_mutex_unlock(&pr->mu);
}

/* An endpoint's long cases, in plan order, each once its lane is free. */
static void *lane_main(void *arg)
{
	struct lane_thread *lt = arg;
	struct plan_run *pr = lt->pr;
	const struct hzrig_plan *plan = pr->plan;
	size_t i;

	for (i = 0; i < plan->ncases; i++) {
		if (case_lane(pr, &plan->cases[i]) != lt->lane)
			continue;
		pthread_mutex_lock(&pr->mu);
		pr->want[lt->lane] = true;
		while (pr->busy[lt->lane])
			pthread_cond_wait(&pr->cv, &pr->mu);
		pr->want[lt->lane] = false;
		lane_claim(pr, lt->lane);
		pthread_mutex_unlock(&pr->mu);
		run_plan_case(pr, i);
		lane_release(pr, lt->lane);
	}
	return NULL;
}

/*
 * The next kernel case of the one-at-a-time stream, in plan order, whose
 * endpoint's lane no long case holds or waits for (pr->mu held, waited on
 * while every case left is held up); -1 when none is left, else its index,
 * its lane in *@l.
 */
static ssize_t next_short(struct plan_run *pr, const bool *done,
			  unsigned int *l)
{
	const struct hzrig_plan *plan = pr->plan;
	bool left;
	size_t i;

	for (;;) {
		left = false;
		for (i = 0; i < plan->ncases; i++) {
			const struct hzrig_plan_case *pc = &plan->cases[i];

			if (done[i] || pc->path != HZRIG_PATH_KERNEL ||
			    long_case(pr, pc))
				continue;
			left = true;
			*l = hzrig_transfer_lane(pc->transfer);
			if (!pr->busy[*l] && !pr->want[*l])
				return (ssize_t)i;
		}
		if (!left)
			return -1;
		pthread_cond_wait(&pr->cv, &pr->mu);
	}
}

/*
 * parallel = lanes: the long cases (long_case()) run in the background, a
 * thread per endpoint, their repetitions fanned out; everything else runs
 * one case at a time meanwhile, as serially (noise probes between), skipping
 * ahead past cases whose endpoint a long case holds. The driver's planner
 * keeps every call's start and predictable end apart from the others'.
 * Userspace cases follow, one by one, once all are done.
 */
static void run_lanes(struct runner *r, struct plan_run *pr)
{
	const struct hzrig_plan *plan = pr->plan;
	struct sched_param sp = { .sched_priority = LANE_RT_PRIO };
	struct lane_thread lt[HZRIG_LANE_COUNT] = { 0 };
	bool *done = calloc(plan->ncases, sizeof(*done));
	size_t probed_at = 0;	/* the last probe's at_case */
	pthread_attr_t rt;
	unsigned int l = 0;
	bool rt_ok;
	ssize_t n;
	size_t i;

	if (!done) {
		printf("# lanes: out of memory: one case after the other\n");
		pr->lanes = false;
		for (i = 0; i < plan->ncases; i++)
			run_plan_case(pr, i);
		return;
	}
	pthread_attr_init(&rt);
	rt_ok = !pthread_attr_setinheritsched(&rt, PTHREAD_EXPLICIT_SCHED) &&
		!pthread_attr_setschedpolicy(&rt, SCHED_FIFO) &&
		!pthread_attr_setschedparam(&rt, &sp);
	/* a lane whose thread cannot start runs its long cases at the end */
	for (l = 1; l < HZRIG_LANE_COUNT; l++) {
		int err = EINVAL;

		lt[l] = (struct lane_thread){ .pr = pr, .lane = l };
		if (!pr->total_reps[l])
			continue;
		if (rt_ok)
			err = pthread_create(&lt[l].thread, &rt,
					     lane_main, &lt[l]);
		if (err) {
			printf("# lane %s: no SCHED_FIFO thread (%s), "
			       "normal priority\n", hzrig_lane_name(l),
			       strerror(err));
			err = pthread_create(&lt[l].thread, NULL,
					     lane_main, &lt[l]);
		}
		lt[l].started = !err;
	}
	pthread_attr_destroy(&rt);
	for (;;) {
		pthread_mutex_lock(&pr->mu);
		n = next_short(pr, done, &l);
		if (n >= 0)
			lane_claim(pr, l);
		pthread_mutex_unlock(&pr->mu);
		if (n < 0)
			break;
		/*
		 * A probe names the case it comes before, and collect wants
		 * them in plan order: the stream skips ahead and comes back,
		 * so it probes only before a case past the last probe's.
		 */
		if ((size_t)n > probed_at && now_ns() - r->noise_at >=
		    (int64_t)NOISE_EVERY_S * 1000000000) {
			measure_noise(r, (size_t)n, false);
			probed_at = (size_t)n;
		}
		run_plan_case(pr, (size_t)n);
		done[n] = true;
		lane_release(pr, l);
	}
	for (l = 1; l < HZRIG_LANE_COUNT; l++) {
		if (lt[l].started)
			pthread_join(lt[l].thread, NULL);
		else if (pr->total_reps[l])
			lane_main(&lt[l]);
	}
	free(done);
	r->lanes_active = false;
	for (i = 0; i < plan->ncases; i++)
		if (plan->cases[i].path != HZRIG_PATH_KERNEL)
			run_plan_case(pr, i);
}

static void run_plan(struct runner *r, const struct hzrig_plan *plan)
{
	uint32_t parallel = r->parallel >= 0 ? (uint32_t)r->parallel :
			    plan->parallel;
	struct plan_run pr = {
		.r = r, .plan = plan,
		.lanes = parallel == HZRIG_PARALLEL_LANES,
		.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER,
	};
	uint64_t total_ms = hzrig_plan_wait_ms(plan, r->info.hz);
	int64_t wall_ms;
	unsigned int l;
	size_t i;

	for (i = 0; i < plan->ncases; i++) {
		const struct hzrig_plan_case *pc = &plan->cases[i];
		const struct hzrig_plan one = {
			.cases = (struct hzrig_plan_case *)pc, .ncases = 1,
		};

		l = case_lane(&pr, pc);
		pr.total_ms[l] += hzrig_plan_wait_ms(&one, r->info.hz) /
				  case_fanout(&pr, pc);
		pr.total_reps[l] += pc->reps;
	}
	printf("# running %zu cases %s\n", plan->ncases,
	       pr.lanes ? "one after the other, with the long ones beside them, "
	       "fanned out (parallel = lanes)" :
	       "one after the other (parallel = serial)");
	fflush(stdout);
	pr.t0 = now_ns();
	if (pr.lanes && !ensure_path(r, HZRIG_PATH_KERNEL))
		r->lanes_active = true;
	if (pr.lanes) {
		run_lanes(r, &pr);
	} else {
		/*
		 * A probe between cases: the cases run alone, so nothing else
		 * is on the ctrl-in lane or the CPU meanwhile. Case 0 has the
		 * probe before the plan (at_case 0 once only).
		 */
		for (i = 0; i < plan->ncases; i++) {
			if (i && !r->drivers && now_ns() - r->noise_at >=
			    (int64_t)NOISE_EVERY_S * 1000000000)
				measure_noise(r, i, false);
			run_plan_case(&pr, i);
			/* the round trips of the device that case presented */
			if (r->drivers && i + 1 < plan->ncases)
				measure_noise(r, i + 1, false);
		}
	}
	/*
	 * Efficiency: how much of the guest's time was requested waiting. The
	 * probes between cases count as time spent (under 1 % of it).
	 */
	wall_ms = (now_ns() - pr.t0) / 1000000;
	/* With lanes only here, once every lane is done. */
	measure_noise(r, plan->ncases, false);
	printf("# waits requested %" PRIu64 " ms in %" PRId64
	       " ms of measurement (%s): efficiency %.2f\n", total_ms, wall_ms,
	       hzrig_parallel_name(parallel),
	       wall_ms ? (double)total_ms / wall_ms : 0.0);
	emit_end(r, plan->ncases, pr.nsamples, (int64_t)total_ms, wall_ms,
		 hzrig_parallel_name(parallel));
}

static void usage(FILE *f)
{
	fputs("usage: hzrig-runner --plan FILE [--dev /dev/hzrig0]\n"
	      "                    [--out /dev/ttyS1 | --inband]\n"
	      "                    [--variant NAME] [--accel NAME]\n"
	      "                    [--parallel serial|lanes] [--drivers]\n"
	      "Runs a measurement plan through the hzrig_host driver; KTAP on\n"
	      "stdout, JSON lines on --out, or with --inband on stdout too, as\n"
	      "'hzrig-jsonl SEQ JSON' lines ending in 'hzrig-jsonl-end COUNT'\n"
	      "(one serial console: LAVA). --parallel overrides the plan's\n"
	      "'parallel =' (docs/plans.md). --drivers: no hzrig device; the\n"
	      "plan's path=usbmon cases time in-tree drivers (docs/checker.md);\n"
	      "HZ comes from hzrig_host's jiffy_rate_mhz (loaded, unbound).\n", f);
}

/*
 * Drivers mode: say the HZ, and give path usbmon the tick grid hzrig_host
 * learnt, for the stale-jiffies record of the drivers' calls.
 */
static void drivers_mode_init(const struct runner *r)
{
	char err[160];

	printf("# drivers mode: HZ=%u from the measured jiffy rate\n",
	       r->info.hz);
	if (drivers_ticks_init((int64_t)module_param_ul("tick_ref_ns"),
			       module_param_ul("tick_ref_jiffies"),
			       hzrig_tick_ns((int)r->info.hz), err, sizeof(err)))
		printf("# drivers mode: no stale-jiffies record: %s\n", err);
}

/* --parallel serial|lanes (rig/lib/opts.h). */
static int parallel_opt(const char *cmd, const char *arg, void *dst)
{
	int *p = dst;

	(void)cmd;
	*p = hzrig_parallel_parse(arg);
	if (*p >= 0)
		return 0;
	fprintf(stderr, "hzrig-runner: --parallel: '%s' is neither serial nor lanes\n",
		arg);
	return -1;
}

static int parse_args(struct runner *r, int argc, char **argv)
{
	const struct hzrig_opt opts[] = {
		{ .name = "plan", .kind = HZRIG_OPT_STR, .dst = &r->plan_path,
		  .short_name = 'p' },
		{ .name = "dev", .kind = HZRIG_OPT_STR, .dst = &r->dev_path,
		  .short_name = 'd' },
		{ .name = "out", .kind = HZRIG_OPT_STR, .dst = &r->out_path,
		  .short_name = 'o' },
		{ .name = "variant", .kind = HZRIG_OPT_STR, .dst = &r->variant,
		  .short_name = 'v' },
		{ .name = "accel", .kind = HZRIG_OPT_STR, .dst = &r->accel,
		  .short_name = 'a' },
		HZRIG_OPT_F("parallel", parallel_opt, &r->parallel),
		HZRIG_OPT_B("drivers", &r->drivers),
		HZRIG_OPT_B("inband", &r->inband),
		HZRIG_OPT_END
	};
	int first = hzrig_opts("runner", argc, argv, opts, usage);

	if (first == HZRIG_OPTS_HELP)
		exit(0);
	if (first < 0)
		return -1;
	if (first != argc || !r->plan_path) {
		usage(stderr);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct runner r = {
		.dev_path = "/dev/hzrig0", .out_path = "/dev/ttyS1",
		.variant = "unknown", .accel = "unknown", .dev = -1,
		.parallel = -1, .lock = PTHREAD_MUTEX_INITIALIZER,
	};
	struct planner_stats p0;
	struct hzrig_plan plan;
	const char *plan_name;
	char err[256];
	bool hz_ok;

	if (parse_args(&r, argc, argv))
		return 2;
	printf("KTAP version 1\n");
	if (hzrig_plan_load(r.plan_path, &plan, err, sizeof(err))) {
		printf("Bail out! plan: %s\n", err);
		return 1;
	}
	plan_name = strrchr(r.plan_path, '/');
	plan_name = plan_name ? plan_name + 1 : r.plan_path;
	printf("1..%zu\n", plan.ncases + 4);
	if (open_out(&r) || (!r.drivers && open_dev(&r))) {
		printf("Bail out! cannot open %s or %s\n",
		       r.inband ? "the in-band stream" : r.out_path, r.dev_path);
		return 1;
	}
	if (r.drivers) {
		/*
		 * HZ as the clock counts it: the rate hzrig_host measured,
		 * which a TCG guest gets within a percent or so; taken as the
		 * Kconfig choice it is within 2 % of (kernel/Kconfig.hz).
		 */
		static const unsigned int choices[] = { 100, 250, 300, 1000 };

		r.info.jiffy_rate_mhz = (uint32_t)module_param_ul("jiffy_rate_mhz");
		r.info.hz = (r.info.jiffy_rate_mhz + 500) / 1000;
		for (size_t i = 0; i < sizeof(choices) / sizeof(choices[0]); i++)
			if (r.info.jiffy_rate_mhz / 10 >= choices[i] * 98 &&
			    r.info.jiffy_rate_mhz / 10 <= choices[i] * 102)
				r.info.hz = choices[i];
		r.info.usb_max_sync_timeout_ms = 60000;
		if (!r.info.hz) {
			printf("Bail out! hzrig_host is not loaded: no jiffy_rate_mhz\n");
			return 1;
		}
	} else {
		r.info.version = HZRIG_ABI_VERSION;
		r.info.size = sizeof(r.info);
		if (ioctl(r.dev, HZRIG_IOC_INFO, &r.info)) {
			printf("Bail out! HZRIG_IOC_INFO: %s\n", strerror(errno));
			return 1;
		}
	}
	settle_clocksource(&r);
	userpath_init(&r.up, r.info.hz, module_param_ul("tick_grid_ns"));
	r.have_up = !r.drivers &&
		    !userpath_find(&r.up, r.up_err, sizeof(r.up_err));
	if (r.drivers)
		drivers_mode_init(&r);
	else if (!r.have_up)
		printf("# userspace paths unavailable: %s\n", r.up_err);
	else if (r.up.mon_err)
		printf("# usbmon: /dev/usbmon%u: %s (CONFIG_USB_MON?): samples carry no urb_ns\n",
		       r.up.busnum, strerror(-r.up.mon_err));
	emit_meta(&r, plan_name);

	/* A module built against another HZ tree measures the wrong rate. */
	hz_ok = r.info.jiffy_rate_mhz / 10 >= r.info.hz * 98 &&
		r.info.jiffy_rate_mhz / 10 <= r.info.hz * 102;
	ktap(&r, hz_ok, "jiffy_rate # HZ=%u, measured %u.%03u/s", r.info.hz,
	     r.info.jiffy_rate_mhz / 1000, r.info.jiffy_rate_mhz % 1000);
	if (!clocksource_usable(r.clocksource)) {
		ktap(&r, false, "clocksource # %s has jiffy resolution",
		     r.clocksource);
		printf("Bail out! timings on clocksource %s are worthless\n",
		       r.clocksource);
		emit_end(&r, 0, 0, -1, -1, NULL);
		fclose(r.out);
		return 1;
	}
	ktap(&r, true, "clocksource # %s", r.clocksource);
	/* Where the driver starts calls from: see docs/measurement.md. */
	printf("# tick grid: jiffies advance at %lu ns mod TICK_NSEC, first seen %lu ns after, edges seen at load within %lu ns (high-resolution timers after %lu ms)\n",
	       module_param_ul("tick_grid_ns"),
	       module_param_ul("tick_latency_ns"),
	       module_param_ul("tick_grid_spread_ns"),
	       module_param_ul("highres_wait_ms"));
	measure_noise(&r, 0, true);
	planner_read(&p0);
	run_plan(&r, &plan);
	planner_check(&r, &p0);
	printf("# totals: %d failed of %d\n", r.failures, r.ktap_index);
	hzrig_plan_free(&plan);
	fclose(r.out);
	userpath_release(&r.up);
	if (r.dev >= 0)
		close(r.dev);
	return r.failures ? 1 : 0;
}
