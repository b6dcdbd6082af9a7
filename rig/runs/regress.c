// SPDX-License-Identifier: GPL-2.0
/*
 * The regression rules: a variant's cases held against a baseline's, each
 * figure against a threshold that the model's window and the noise
 * allowances set (runs.h, docs/history.md).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <json-c/json.h>

#include "model/model.h"
#include "collect/collect.h"
#include "runs/runs.h"
#include "lib/util.h"

/* ---------------------------------------------------------------------- */
/* Regressions */

const char *hzrig_regression_kind_name(enum hzrig_regression_kind k)
{
	switch (k) {
	case HZRIG_REG_MEDIAN: return "median";
	case HZRIG_REG_P95: return "p95";
	case HZRIG_REG_INSIDE: return "inside";
	case HZRIG_REG_STATUS: return "status";
	}
	return "?";
}

static bool case_times_out(const struct hzrig_case_stats *c)
{
	return c->majority_status == HZRIG_ETIMEDOUT;
}

static int64_t case_width(const struct hzrig_case_stats *c)
{
	if (c->window_lo_ns == HZRIG_ABSENT)
		return 0;
	return c->window_hi_ns - c->window_lo_ns;
}

int64_t hzrig_regress_threshold_ns(const struct hzrig_case_stats *oldc,
				   const struct hzrig_case_stats *newc, int hz)
{
	int64_t t = oldc->allowance_ns + newc->allowance_ns, tick;

	/*
	 * A call that times out ends anywhere in its window, depending on the
	 * phase it started at: two runs that both agree with the model can
	 * differ by the whole width (and each by its noise allowance).
	 */
	if (case_times_out(oldc) || case_times_out(newc)) {
		int64_t w = case_width(oldc);

		if (case_width(newc) > w)
			w = case_width(newc);
		t += w;
	}
	/*
	 * Never below one jiffy: the rig measures jiffy-sized effects, and a
	 * run whose allowance came out near 0 must not flag every
	 * microsecond of an answered call.
	 */
	tick = (int64_t)hzrig_tick_ns(hz);
	if (!tick && hz > 0)
		tick = 1000000000LL / hz;
	return t > tick ? t : tick;
}

static void fmt_window(char *buf, size_t len, const struct hzrig_case_stats *c)
{
	if (c->window_lo_ns == HZRIG_ABSENT)
		snprintf(buf, len, "no window (no timer)");
	else
		snprintf(buf, len, "window (%.3f, %.3f] ms",
			 c->window_lo_ns / 1e6, c->window_hi_ns / 1e6);
}

static struct hzrig_regression *reg_add(struct hzrig_regress_result *res,
					enum hzrig_regression_kind kind,
					const struct hzrig_case_stats *c,
					double oldv, double newv, double thr)
{
	struct hzrig_regression *r;

	r = hzrig_grow(res->r, res->n, &res->cap, 16, sizeof(*r));
	if (!r)
		return NULL;
	res->r = r;
	r = &res->r[res->n++];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	snprintf(r->case_key, sizeof(r->case_key), "%s", c->key);
	r->old_value = oldv;
	r->new_value = newv;
	r->threshold = thr;
	r->window_lo_ns = c->window_lo_ns;
	r->window_hi_ns = c->window_hi_ns;
	return r;
}

/* median or p95: @o, @n in ns. */
static int check_figure(struct hzrig_regress_result *res,
			enum hzrig_regression_kind kind,
			const struct hzrig_case_stats *c, int64_t o, int64_t n,
			int64_t thr)
{
	struct hzrig_regression *r;
	char win[64];
	int64_t d = n - o;

	if ((d < 0 ? -d : d) <= thr)
		return 0;
	r = reg_add(res, kind, c, o / 1e6, n / 1e6, thr / 1e6);
	if (!r)
		return -1;
	fmt_window(win, sizeof(win), c);
	snprintf(r->detail, sizeof(r->detail),
		 "%s %.3f -> %.3f ms (%+.3f ms, threshold %.3f ms); %s",
		 hzrig_regression_kind_name(kind), o / 1e6, n / 1e6, d / 1e6,
		 thr / 1e6, win);
	return 0;
}

static double share(const struct hzrig_case_stats *c)
{
	return c->n ? (double)c->inside / (double)c->n : 0;
}

int hzrig_regress(const struct hzrig_variant *oldv,
		  const struct hzrig_variant *newv, int64_t threshold_ns,
		  struct hzrig_regress_result *res)
{
	size_t i;

	for (i = 0; i < oldv->ncases; i++)
		if (!hzrig_variant_case(newv, oldv->cases[i].key))
			res->only_old++;
	for (i = 0; i < newv->ncases; i++) {
		const struct hzrig_case_stats *c = &newv->cases[i];
		const struct hzrig_case_stats *o;
		struct hzrig_regression *r;
		double so, sn, limit;
		size_t nmin;
		int64_t thr;
		char win[64];

		o = hzrig_variant_case(oldv, c->key);
		if (!o) {
			res->only_new++;
			continue;
		}
		res->compared++;
		thr = threshold_ns >= 0 ? threshold_ns :
		      hzrig_regress_threshold_ns(o, c, newv->hz);
		if (check_figure(res, HZRIG_REG_MEDIAN, c, o->median_ns,
				 c->median_ns, thr))
			return -1;
		/*
		 * Below HZRIG_P95_MIN_N samples p95 is the maximum: one late
		 * wakeup on a busy host would flag it. The median and the
		 * inside share still watch such a case.
		 */
		if (o->n >= HZRIG_P95_MIN_N && c->n >= HZRIG_P95_MIN_N &&
		    check_figure(res, HZRIG_REG_P95, c, o->p95_ns, c->p95_ns,
				 thr))
			return -1;

		/*
		 * Inside share: a drop of one sample out of a handful is what
		 * noise beyond the p99 allowance does now and then; flag more
		 * than 10 points and more than one sample of the smaller run.
		 */
		so = share(o);
		sn = share(c);
		nmin = o->n < c->n ? o->n : c->n;
		limit = 1.0 / (double)(nmin ? nmin : 1);
		if (limit < 0.10)
			limit = 0.10;
		fmt_window(win, sizeof(win), c);
		if (so - sn > limit + 1e-9) {
			r = reg_add(res, HZRIG_REG_INSIDE, c, so, sn, limit);
			if (!r)
				return -1;
			snprintf(r->detail, sizeof(r->detail),
				 "inside %.1f%% (%zu/%zu) -> %.1f%% (%zu/%zu), down %.1f points > %.1f; %s",
				 100 * so, o->inside, o->n, 100 * sn, c->inside,
				 c->n, 100 * (so - sn), 100 * limit, win);
		}
		if (o->majority_status != c->majority_status) {
			r = reg_add(res, HZRIG_REG_STATUS, c,
				    (double)o->majority_status,
				    (double)c->majority_status, NAN);
			if (!r)
				return -1;
			snprintf(r->detail, sizeof(r->detail),
				 "majority status %" PRId64 " (%zu/%zu) -> %" PRId64
				 " (%zu/%zu); %s", o->majority_status,
				 o->status[0].n, o->n, c->majority_status,
				 c->status[0].n, c->n, win);
		}
	}
	return 0;
}

void hzrig_regress_free(struct hzrig_regress_result *res)
{
	free(res->r);
	memset(res, 0, sizeof(*res));
}
