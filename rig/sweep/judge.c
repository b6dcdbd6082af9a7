// SPDX-License-Identifier: GPL-2.0
/*
 * The HZ-dependence rule (sweep.h, docs/sweep.md).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

#include "sweep/sweep.h"

static int64_t width(const struct hzrig_site_wait *w)
{
	return (int64_t)(w->hi_ns - w->lo_ns);
}

bool hzrig_sweep_hz_dependent(const struct hzrig_site_wait *a,
			      const struct hzrig_site_wait *b, char *why,
			      size_t n)
{
	int64_t d = a->median_ns - b->median_ns;
	int64_t room = width(a) + width(b) + a->allowance_ns + b->allowance_ns;

	if (d < 0)
		d = -d;
	/*
	 * The walk reaches other requests through one helper at each HZ:
	 * timeouts that differ, and not as the HZ do (a count of jiffies
	 * scales with HZ: 5 * HZ is 500 and 5000), are other calls, not one
	 * call's timeout in jiffies (rt2x00usb_vendor_request(): 50 ms for a
	 * register, 1000 ms for the firmware).
	 */
	if (a->timeout_arg != b->timeout_arg &&
	    (int64_t)a->timeout_arg * b->hz != (int64_t)b->timeout_arg * a->hz) {
		snprintf(why, n,
			 "timeouts %d at HZ=%d and %d at HZ=%d are not in proportion to HZ: other requests through one site, not compared",
			 a->timeout_arg, a->hz, b->timeout_arg, b->hz);
		return false;
	}
	/*
	 * The same timeout at both HZ: usb_*_msg() take milliseconds, and
	 * HZ moves the wait only within the windows (jiffies, the wheel's
	 * granule), which room holds; a difference past it is a call that
	 * came late (outside its window, the report lists it with its
	 * reason), not HZ (appledisplay's 250 ms: 298.6 ms once at HZ=100,
	 * 252.7 ms at HZ=1000, in the seventh whole-tree run).
	 */
	if (d > room && a->timeout_arg == b->timeout_arg) {
		snprintf(why, n,
			 "the same timeout %d at HZ=%d and HZ=%d: waits %.3f and %.3f ms differ by %.3f ms, more than the windows and the noise allow (%.3f ms), so a call came late (outside its window), not HZ",
			 a->timeout_arg, a->hz, b->hz, a->median_ns / 1e6,
			 b->median_ns / 1e6, d / 1e6, room / 1e6);
		return false;
	}
	if (d > room) {
		snprintf(why, n,
			 "waits %.3f ms at HZ=%d (timeout %d) and %.3f ms at HZ=%d (timeout %d) differ by %.3f ms, more than the windows' widths and the noise allow (%.3f ms)",
			 a->median_ns / 1e6, a->hz, a->timeout_arg,
			 b->median_ns / 1e6, b->hz, b->timeout_arg, d / 1e6,
			 room / 1e6);
		return true;
	}
	snprintf(why, n,
		 "waits %.3f ms at HZ=%d and %.3f ms at HZ=%d differ by %.3f ms, within the windows' widths and the noise (%.3f ms)",
		 a->median_ns / 1e6, a->hz, b->median_ns / 1e6, b->hz, d / 1e6,
		 room / 1e6);
	return false;
}

#define WAITS_MAX	64

struct acc {
	int64_t waits[HZRIG_SWEEP_RUNS_MAX][WAITS_MAX];
};

static size_t site_index(struct hzrig_sweep_site **s, struct acc **acc,
			 size_t *n, size_t *cap, const char *module,
			 const char *site, const char *func)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp((*s)[i].module, module) && !strcmp((*s)[i].site, site))
			return i;
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 16;
		void *a = realloc(*s, c * sizeof(**s)), *b;

		if (!a)
			return SIZE_MAX;
		*s = a;
		b = realloc(*acc, c * sizeof(**acc));
		if (!b)
			return SIZE_MAX;
		*acc = b;
		*cap = c;
	}
	memset(&(*s)[i], 0, sizeof((*s)[i]));
	snprintf((*s)[i].module, sizeof((*s)[i].module), "%s", module);
	snprintf((*s)[i].site, sizeof((*s)[i].site), "%s", site);
	snprintf((*s)[i].function, sizeof((*s)[i].function), "%s", func);
	(*n)++;
	return i;
}

static void judge_site(struct hzrig_sweep_site *s, int nruns)
{
	int lo = -1, hi = -1;

	for (int v = 0; v < nruns; v++) {
		if (!s->per[v].n)
			continue;
		if (lo < 0 || s->per[v].hz < s->per[lo].hz)
			lo = v;
		if (hi < 0 || s->per[v].hz > s->per[hi].hz)
			hi = v;
	}
	if (lo < 0 || s->per[lo].hz == s->per[hi].hz) {
		snprintf(s->why, sizeof(s->why), "measured at one HZ only");
		return;
	}
	{
		const struct hzrig_sweep_site_hz *x = &s->per[lo], *y = &s->per[hi];
		struct hzrig_site_wait a = { x->hz, x->timeout_arg, x->median_ns,
					     x->lo, x->hi, x->allowance_ns };
		struct hzrig_site_wait b = { y->hz, y->timeout_arg, y->median_ns,
					     y->lo, y->hi, y->allowance_ns };

		s->dependent = hzrig_sweep_hz_dependent(&a, &b, s->why, sizeof(s->why));
	}
}

/* Gathers every call of every run into its site, then judges each. */
int hzrig_sweep_sites(const struct hzrig_sweep_run *runs, int nruns,
		      struct hzrig_sweep_site **sites, size_t *n)
{
	struct hzrig_sweep_site *s = NULL;
	struct acc *acc = NULL;
	size_t ns = 0, cap = 0;

	*sites = NULL;
	*n = 0;
	if (nruns > HZRIG_SWEEP_RUNS_MAX)
		nruns = HZRIG_SWEEP_RUNS_MAX;
	for (int v = 0; v < nruns; v++) {
		for (size_t i = 0; i < runs[v].ndrivers; i++) {
			const struct hzrig_sweep_rdriver *d = &runs[v].drivers[i];

			for (size_t k = 0; k < d->ncalls; k++) {
				const struct hzrig_sweep_rcall *c = &d->calls[k];
				struct hzrig_sweep_site_hz *h;
				size_t j;

				if (c->window_lo_ns == HZRIG_ABSENT)
					continue;
				j = site_index(&s, &acc, &ns, &cap, d->module,
					       c->site[0] ? c->site : c->where, c->function);
				if (j == SIZE_MAX) {
					free(s);
					free(acc);
					return -1;
				}
				h = &s[j].per[v];
				h->hz = runs[v].hz;
				h->timeout_arg = c->timeout_arg;
				h->lo = (uint64_t)c->window_lo_ns;
				h->hi = (uint64_t)c->window_hi_ns;
				h->allowance_ns = runs[v].batches[d->batch].allowance_ns;
				h->inside += !strcmp(c->verdict, "inside");
				if (h->n < WAITS_MAX)
					acc[j].waits[v][h->n++] = c->urb_ns;
			}
		}
	}
	for (size_t j = 0; j < ns; j++) {
		for (int v = 0; v < nruns; v++) {
			struct hzrig_sweep_site_hz *h = &s[j].per[v];

			if (!h->n)
				continue;
			qsort(acc[j].waits[v], (size_t)h->n, sizeof(int64_t), hzrig_cmp_i64);
			h->median_ns = hzrig_percentile(acc[j].waits[v], (size_t)h->n, 50);
		}
		judge_site(&s[j], nruns);
	}
	free(acc);
	*sites = s;
	*n = ns;
	return 0;
}
