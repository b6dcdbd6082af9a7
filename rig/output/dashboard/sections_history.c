// SPDX-License-Identifier: GPL-2.0
/*
 * The dashboard's history sections: every case across runs with its
 * baseline and regressions, the recorded regressions, the runs' builds and
 * noise, and the samples the model does not explain.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/util.h"
#include "model/model.h"
#include "output/dashboard/dash.h"
#include "runs/runs.h"

/* ------------------------------------------------------------------------
 * History: every case key across every run, per variant.
 */

struct hvar {
	size_t name;
	int hz;
	ssize_t base;		/* the baseline run (index), -1: none */
};

struct hkey {
	size_t key, transfer, behaviour, mode;
	int64_t t, delay, length;
	size_t first, end;	/* its points: hist.p[first..end) */
};

struct hpoint {
	size_t var, run;
	size_t n, inside;
	int64_t p5, med, p95;
	size_t reg;		/* regressions recorded on it */
	size_t regrow;		/* the first of them (hist.r) */
};

struct hreg {
	size_t run, var, key;	/* indices; key into hist.k */
	bool placed;
};

struct run_ref {
	const char *id;
	size_t idx;
};

static int cmp_run_ref(const void *a, const void *b)
{
	return strcmp(((const struct run_ref *)a)->id,
		      ((const struct run_ref *)b)->id);
}

/* The index of run @id in d->runs (oldest first); (size_t)-1 if unknown. */
static size_t run_index(const struct run_ref *sorted, size_t n, const char *id)
{
	struct run_ref k = { id, 0 }, *r;

	if (!id)
		return (size_t)-1;
	r = bsearch(&k, sorted, n, sizeof(*sorted), cmp_run_ref);
	return r ? r->idx : (size_t)-1;
}

static size_t hist_var(const struct hist *h, size_t name)
{
	size_t i;

	for (i = 0; i < h->nv; i++)
		if (h->v[i].name == name)
			return i;
	return (size_t)-1;
}

/* Gathering the history's variants. */
struct hvars {
	struct dash *d;
	struct hist *h;
	size_t cap;
};

/* A variant of the history: its name, the largest HZ it ran with. */
static int add_hist_var(const struct hzrig_view_run *r,
			const struct hzrig_variant *v, void *arg)
{
	struct hvars *x = arg;
	struct hist *h = x->h;
	size_t name = dash_intern(x->d, v->name), i;
	struct hvar *n;

	(void)r;
	for (i = 0; i < h->nv; i++) {
		if (h->v[i].name == name) {
			if (v->hz > h->v[i].hz)
				h->v[i].hz = v->hz;
			return 0;
		}
	}
	n = HZRIG_PUSH(h->v, h->nv, x->cap, 4);
	if (!n)
		return -1;
	n->name = name;
	n->hz = v->hz;
	n->base = -1;
	return 0;
}

static int cmp_hvar(const void *a, const void *b, void *ctx)
{
	const struct hvar *x = a, *y = b;

	if (x->hz != y->hz)
		return x->hz < y->hz ? -1 : 1;
	return strcmp(dash_S(ctx, x->name), dash_S(ctx, y->name));
}

/* Every variant of the history by its largest HZ, then name; baselines. */
static int hist_vars(struct dash *d, struct hist *h,
		     const struct run_ref *runs)
{
	struct hvars x = { .d = d, .h = h };
	size_t i;

	if (hzrig_view_variants(&d->view, add_hist_var, &x)) {
		dash_out_of_memory(d);
		return -1;
	}
	qsort_r(h->v, h->nv, sizeof(*h->v), cmp_hvar, d);
	for (i = 0; i < d->view.nb; i++) {
		size_t v = hist_var(h, dash_lookup(&d->st, d->view.b[i].variant));
		size_t r = run_index(runs, d->nruns, d->view.b[i].run_id);

		if (v != (size_t)-1 && r != (size_t)-1)
			h->v[v].base = (ssize_t)r;
	}
	return d->failed ? -1 : 0;
}

/* One case of one variant of one run: a point of the history. */
struct hcase {
	const char *key, *variant, *run;
	size_t run_idx;
	const struct hzrig_case_stats *c;
};

struct hcases {
	const struct hzrig_view_run *first;	/* the view's runs */
	struct hcase *all;
	size_t n, cap;
};

static int add_cases(const struct hzrig_view_run *r,
		     const struct hzrig_variant *v, void *arg)
{
	struct hcases *x = arg;
	struct hcase *c;
	size_t i;

	for (i = 0; i < v->ncases; i++) {
		c = HZRIG_PUSH(x->all, x->n, x->cap, 256);
		if (!c)
			return -1;
		*c = (struct hcase){ .key = v->cases[i].key, .variant = v->name,
			.run = r->id, .run_idx = (size_t)(r - x->first),
			.c = &v->cases[i] };
	}
	return 0;
}

static int cmp_hcase(const void *a, const void *b)
{
	const struct hcase *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (!c)
		c = strcmp(x->variant, y->variant);
	return c ? c : strcmp(x->run, y->run);
}

/* Every case of every variant of every run, by key, variant and run. */
static struct hcase *hist_cases(struct dash *d, size_t *n)
{
	struct hcases x = { .first = d->view.r };

	if (hzrig_view_variants(&d->view, add_cases, &x)) {
		free(x.all);
		return NULL;
	}
	if (x.n)
		qsort(x.all, x.n, sizeof(*x.all), cmp_hcase);
	*n = x.n;
	return x.all ? x.all : calloc(1, sizeof(*x.all));
}

/* A new key of the history, described by its first case. */
static struct hkey *new_hkey(struct dash *d, struct hist *h, size_t *kcap,
			     const struct hzrig_case_stats *c)
{
	struct hkey *x = HZRIG_PUSH(h->k, h->nk, *kcap, 64);

	if (!x)
		return NULL;
	x->key = dash_intern(d, c->key);
	x->transfer = dash_intern(d, c->transfer);
	x->behaviour = dash_intern(d, c->behaviour);
	x->mode = dash_intern(d, c->mode);
	x->t = c->timeout_ms;
	x->delay = c->delay_us;
	x->length = c->length;
	x->first = x->end = h->np;
	return x;
}

/*
 * The points, from the case figures runs/stats.c computed for each loaded
 * run: one per (case, variant, run), grouped by case key in binary order.
 */
static int hist_points(struct dash *d, struct hist *h)
{
	size_t n, i, kcap = 0, pcap = 0;
	struct hcase *all = hist_cases(d, &n);
	struct hpoint *p;

	if (!all)
		goto oom;
	for (i = 0; i < n; i++) {
		const struct hzrig_case_stats *c = all[i].c;

		if ((!i || strcmp(all[i - 1].key, all[i].key)) &&
		    !new_hkey(d, h, &kcap, c))
			goto oom;
		p = HZRIG_PUSH(h->p, h->np, pcap, 64);
		if (!p)
			goto oom;
		p->var = hist_var(h, dash_lookup(&d->st, all[i].variant));
		p->run = all[i].run_idx;
		p->n = c->n;
		p->inside = c->inside;
		p->p5 = c->p5_ns;
		p->med = c->median_ns;
		p->p95 = c->p95_ns;
		h->k[h->nk - 1].end = h->np;
	}
	free(all);
	return d->failed ? -1 : 0;
oom:
	free(all);
	dash_out_of_memory(d);
	return -1;
}

static size_t hist_key(struct dash *d, const struct hist *h, const char *key)
{
	size_t lo = 0, hi = h->nk, mid;
	int c;

	/* The keys are in the database's (memcmp) order, as strcmp(). */
	while (lo < hi) {
		mid = (lo + hi) / 2;
		c = strcmp(key, dash_S(d, h->k[mid].key));
		if (!c)
			return mid;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return (size_t)-1;
}

static int hist_regressions(struct dash *d, struct hist *h,
			    const struct run_ref *runs)
{
	size_t k, v, r, i, j;

	for (j = 0; j < d->view.ng; j++) {
		const struct hzrig_view_regression *g = &d->view.g[j];

		k = hist_key(d, h, g->case_key);
		v = hist_var(h, dash_lookup(&d->st, g->variant));
		r = run_index(runs, d->nruns, g->run_id);
		if (k == (size_t)-1 || v == (size_t)-1 || r == (size_t)-1)
			continue;	/* of a case or run no longer there */
		for (i = h->k[k].first; i < h->k[k].end; i++)
			if (h->p[i].var == v && h->p[i].run == r)
				h->p[i].reg++;
	}
	return d->failed ? -1 : 0;
}

static size_t mode_rank(const char *m)
{
	static const char *const modes[] = {
		"ms", "legacy-jiffies", "hz-constant", "zero",
	};

	return dash_name_rank(modes, ARRAY_SIZE(modes), m);
}

static int cmp3(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

/* The display order: mode, behaviour, transfer, then T, D and length. */
static int cmp_hkey_show(const void *a, const void *b, void *ctx)
{
	const struct dash *d = ((void **)ctx)[0];
	const struct hist *h = ((void **)ctx)[1];
	const struct hkey *x = &h->k[*(const size_t *)a];
	const struct hkey *y = &h->k[*(const size_t *)b];
	size_t rx, ry;
	int c;

	rx = mode_rank(dash_S(d, x->mode));
	ry = mode_rank(dash_S(d, y->mode));
	if (rx != ry)
		return rx < ry ? -1 : 1;
	rx = dash_name_rank(dash_behaviours, ARRAY_SIZE(dash_behaviours), dash_S(d, x->behaviour));
	ry = dash_name_rank(dash_behaviours, ARRAY_SIZE(dash_behaviours), dash_S(d, y->behaviour));
	if (rx != ry)
		return rx < ry ? -1 : 1;
	rx = dash_name_rank(dash_transfers, ARRAY_SIZE(dash_transfers), dash_S(d, x->transfer));
	ry = dash_name_rank(dash_transfers, ARRAY_SIZE(dash_transfers), dash_S(d, y->transfer));
	if (rx != ry)
		return rx < ry ? -1 : 1;
	c = cmp3(x->t, y->t);
	if (!c)
		c = cmp3(x->delay, y->delay);
	if (!c)
		c = cmp3(x->length, y->length);
	return c ? c : strcmp(dash_S(d, x->key), dash_S(d, y->key));
}

void dash_hist_free(struct hist *h)
{
	free(h->v);
	free(h->k);
	free(h->p);
	free(h->order);
	memset(h, 0, sizeof(*h));
}

int dash_hist_load(struct dash *d, struct hist *h)
{
	struct run_ref *runs = calloc(d->nruns + 1, sizeof(*runs));
	void *ctx[2] = { d, h };
	size_t i;
	int rc = -1;

	if (!runs)
		goto out;
	for (i = 0; i < d->nruns; i++) {
		runs[i].id = d->runs[i];
		runs[i].idx = i;
	}
	qsort(runs, d->nruns, sizeof(*runs), cmp_run_ref);
	if (hist_vars(d, h, runs) || hist_points(d, h))
		goto out;
	if (hist_regressions(d, h, runs))
		goto out;
	h->order = calloc(h->nk + 1, sizeof(*h->order));
	if (!h->order)
		goto out;
	for (i = 0; i < h->nk; i++)
		h->order[i] = i;
	qsort_r(h->order, h->nk, sizeof(*h->order), cmp_hkey_show, ctx);
	rc = 0;
out:
	if (rc && !d->failed) {
		dash_out_of_memory(d);
	}
	free(runs);
	return rc;
}

#define SPARK_W		150
#define SPARK_H		34

static double spark_x(const struct dash *d, size_t run)
{
	if (d->nruns < 2)
		return SPARK_W / 2.0;
	return 6 + (double)run * (SPARK_W - 12) / (double)(d->nruns - 1);
}

static void point_title(struct dash *d, const struct hist *h,
			const struct hpoint *p)
{
	dash_out(d, "<title>");
	dash_esc(d, d->runs[p->run]);
	dash_out(d, ": median %s ms (p5 %s, p95 %s), %zu/%zu inside", MS(p->med),
	    MS(p->p5), MS(p->p95), p->inside, p->n);
	if (h->v[p->var].base == (ssize_t)p->run)
		dash_out(d, "; the baseline run");
	if (p->reg)
		dash_out(d, "; %zu regression%s recorded", p->reg,
		    p->reg == 1 ? "" : "s");
	dash_out(d, "</title>");
}

/* One cell of the history table: the case on variant @v across runs. */
static void sparkline(struct dash *d, const struct hist *h,
		      const struct hkey *k, size_t v, size_t sel)
{
	const struct hpoint **pt, *p, *shown = NULL;
	struct hzrig_dash_scale sy = { 0, 0, SPARK_H - 4, 4, false };
	double lo = INFINITY, hi = -INFINITY, pad;
	size_t n = 0, i, j, nreg = 0;

	pt = calloc(k->end - k->first + 1, sizeof(*pt));
	if (!pt) {
		dash_out_of_memory(d);
		return;
	}
	for (i = k->first; i < k->end; i++) {
		if (h->p[i].var != v)
			continue;
		/* Chronological: insert by run index. */
		for (j = n++; j > 0 && pt[j - 1]->run > h->p[i].run; j--)
			pt[j] = pt[j - 1];
		pt[j] = &h->p[i];
	}
	if (!n) {
		dash_out(d, "<td class=\"muted\">&#8211;</td>");
		free(pt);
		return;
	}
	for (i = 0; i < n; i++) {
		lo = fmin(lo, pt[i]->p5 / 1e6);
		hi = fmax(hi, pt[i]->p95 / 1e6);
		nreg += pt[i]->reg != 0;
		if (pt[i]->run == sel)
			shown = pt[i];
	}
	pad = (hi - lo) * 0.08;
	if (pad < fmax(hi * 0.01, 0.01))
		pad = fmax(hi * 0.01, 0.01);
	sy.d0 = lo - pad;
	sy.d1 = hi + pad;
	dash_out(d, "<td class=\"spark%s\"><svg class=\"spark\" viewBox=\"0 0 %d %d\""
	    " width=\"%d\" height=\"%d\" role=\"img\"><title>", nreg ? " reg" : "",
	    SPARK_W, SPARK_H, SPARK_W, SPARK_H);
	dash_esc(d, dash_S(d, k->key));
	dash_out(d, " on ");
	dash_esc(d, dash_S(d, h->v[v].name));
	dash_out(d, ": median and p5-p95 over %zu run%s, %s to %s ms</title>", n,
	    n == 1 ? "" : "s", MS((int64_t)(lo * 1e6)), MS((int64_t)(hi * 1e6)));
	if (sel < d->nruns)
		dash_out(d, "<rect class=\"selrun\" x=\"%g\" y=\"0\" width=\"12\" height=\"%d\"/>",
		    XY(spark_x(d, sel) - 6), SPARK_H);
	/* The p5-p95 band; one run alone gets a bar. */
	if (n == 1) {
		dash_out(d, "<rect class=\"sbnd\" x=\"%g\" y=\"%g\" width=\"6\" height=\"%g\"/>",
		    XY(spark_x(d, pt[0]->run) - 3),
		    XY(hzrig_dash_map(&sy, pt[0]->p95 / 1e6)),
		    XY(fmax(1, hzrig_dash_map(&sy, pt[0]->p5 / 1e6) -
			       hzrig_dash_map(&sy, pt[0]->p95 / 1e6))));
	} else {
		dash_out(d, "<path class=\"sbnd\" d=\"");
		for (i = 0; i < n; i++)
			dash_out(d, "%s%g %g", i ? " L" : "M", XY(spark_x(d, pt[i]->run)),
			    XY(hzrig_dash_map(&sy, pt[i]->p95 / 1e6)));
		for (i = n; i-- > 0;)
			dash_out(d, " L%g %g", XY(spark_x(d, pt[i]->run)),
			    XY(hzrig_dash_map(&sy, pt[i]->p5 / 1e6)));
		dash_out(d, " Z\"/><path class=\"sline\" d=\"");
		for (i = 0; i < n; i++)
			dash_out(d, "%s%g %g", i ? " L" : "M", XY(spark_x(d, pt[i]->run)),
			    XY(hzrig_dash_map(&sy, pt[i]->med / 1e6)));
		dash_out(d, "\"/>");
	}
	for (i = 0; i < n; i++) {
		double x = spark_x(d, pt[i]->run);
		double y = hzrig_dash_map(&sy, pt[i]->med / 1e6);

		p = pt[i];
		if (h->v[v].base == (ssize_t)p->run)
			dash_out(d, "<circle class=\"base-mark\" cx=\"%g\" cy=\"%g\" r=\"5\"/>",
			    XY(x), XY(y));
		dash_out(d, "<circle class=\"%s\" cx=\"%g\" cy=\"%g\" r=\"%s\">",
		    p->reg ? "reg-mark" : "sdot", XY(x), XY(y),
		    p->reg ? "3.6" : "2.2");
		point_title(d, h, p);
		dash_out(d, "</circle>");
	}
	if (!shown)
		shown = pt[n - 1];
	dash_out(d, "</svg><span class=\"last%s\">%s</span></td>",
	    shown->run == sel ? "" : " muted", MS(shown->med));
	free(pt);
}

void dash_section_history(struct dash *d, const struct hist *h)
{
	size_t i, v, sel = d->nruns;

	for (i = 0; i < d->nruns; i++)
		if (!strcmp(d->runs[i], d->run))
			sel = i;
	dash_out(d, "<section id=\"history\">\n<h2>Per-case history across runs</h2>\n"
	    "<p class=\"lead\">Every case recorded in the history, per variant:"
	    " its median wait (line) and p5&#8211;p95 (band) in each of the %zu"
	    " run%s, oldest on the left, each cell on its own scale. The"
	    " figure on the right is the median in ms of the run shown on this"
	    " page (grey: of the last run that had the case). A ring marks the"
	    " variant's baseline run, a red dot a run with regressions recorded"
	    " by <code>hzrig check-regressions</code>; the shaded column is this"
	    " page's run. Hover a dot for its figures.</p>\n"
	    "<div class=\"legend\"><span><span class=\"sw sq band\"></span>p5&#8211;p95</span>"
	    "<span><span class=\"sw\" style=\"background:#3b4650\"></span>median</span>"
	    "<span><span class=\"sw base\"></span>baseline run</span>"
	    "<span><span class=\"sw reg\"></span>regression recorded</span></div>\n",
	    d->nruns, d->nruns == 1 ? "" : "s");
	if (!h->nk) {
		dash_out(d, "<p class=\"note\">No samples recorded yet.</p>\n</section>\n");
		return;
	}
	dash_out(d, "<table class=\"data\" id=\"history-table\">\n<thead><tr>"
	    "<th scope=\"col\">case</th>");
	for (v = 0; v < h->nv; v++) {
		dash_out(d, "<th scope=\"col\">");
		dash_esc(d, dash_S(d, h->v[v].name));
		dash_out(d, " <span class=\"muted\">HZ=%d</span>", h->v[v].hz);
		if (h->v[v].base >= 0) {
			dash_out(d, "<br><span class=\"muted\">baseline <span class=\"mono\">");
			dash_esc(d, d->runs[h->v[v].base]);
			dash_out(d, "</span></span>");
		}
		dash_out(d, "</th>");
	}
	dash_out(d, "</tr></thead>\n<tbody>\n");
	for (i = 0; i < h->nk; i++) {
		const struct hkey *k = &h->k[h->order[i]];
		const struct hkey *pk = i ? &h->k[h->order[i - 1]] : NULL;

		/* A heading row per mode and behaviour: easier to scan. */
		if (!pk || pk->mode != k->mode || pk->behaviour != k->behaviour) {
			dash_out(d, "<tr class=\"group\"><th colspan=\"%zu\">", h->nv + 1);
			dash_esc(d, dash_S(d, k->behaviour));
			dash_out(d, ", mode ");
			dash_esc(d, dash_S(d, k->mode));
			dash_out(d, "</th></tr>\n");
		}
		dash_out(d, "<tr class=\"case\"><th scope=\"row\" class=\"mono\">");
		dash_esc(d, dash_S(d, k->key));
		dash_out(d, "</th>");
		for (v = 0; v < h->nv; v++)
			sparkline(d, h, k, v, sel);
		dash_out(d, "</tr>\n");
	}
	dash_out(d, "</tbody></table>\n</section>\n");
}

void dash_section_regressions(struct dash *d)
{
	int64_t others = 0;
	size_t n = 0, j;

	dash_out(d, "<section id=\"regressions\">\n<h2>Regressions of this run</h2>\n"
	    "<p class=\"lead\">What <code>hzrig check-regressions</code> recorded"
	    " for this run against the baselines: a median or p95 that moved by"
	    " more than the threshold (the window's width plus both runs' noise"
	    " allowances), a share inside the window that fell, or a majority"
	    " status that changed. Values in ms; <i>inside</i> as a share.</p>\n");
	for (j = 0; j < d->view.ng; j++) {
		const struct hzrig_view_regression *g = &d->view.g[j];
		const char *kind = g->kind;
		bool share = !strcmp(kind, "inside");
		double o = g->old_value, nw = g->new_value, th = g->threshold;

		if (strcmp(g->run_id, d->run)) {
			others++;
			continue;
		}

		if (!n++)
			dash_out(d, "<table class=\"data wide\" id=\"regressions-table\">\n"
			    "<thead><tr><th>variant</th><th>against</th><th>case</th>"
			    "<th>kind</th><th class=\"num\">was</th><th class=\"num\">now</th>"
			    "<th class=\"num\">threshold</th><th>window (ms)</th>"
			    "<th>finding</th></tr></thead>\n<tbody>\n");
		dash_out(d, "<tr class=\"regression\"><td>");
		dash_esc(d, g->variant);
		dash_out(d, "</td>");
		dash_cell_two(d, g->base_run, g->base_variant, "mono nw");
		dash_out(d, "<td class=\"mono nw\">");
		dash_esc(d, g->case_key);
		dash_out(d, "</td><td class=\"bad\">");
		dash_esc(d, kind);
		if (share)
			dash_out(d, "</td><td class=\"num\">%.1f%%</td>"
			    "<td class=\"num\">%.1f%%</td>"
			    "<td class=\"num\">%.1f pts</td>", o * 100, nw * 100, th * 100);
		else if (!strcmp(kind, "status"))
			dash_out(d, "</td><td class=\"num\">%.0f</td><td class=\"num\">%.0f</td>"
			    "<td class=\"num\">-</td>", o, nw);
		else
			dash_out(d, "</td><td class=\"num\">%.3f</td><td class=\"num\">%.3f</td>"
			    "<td class=\"num\">%.3f</td>", o, nw, th);
		if (g->window_lo_ns != HZRIG_ABSENT && g->window_hi_ns != HZRIG_ABSENT)
			dash_out(d, "<td class=\"num\">(%s, %s]</td>", MS(g->window_lo_ns),
			    MS(g->window_hi_ns));
		else
			dash_out(d, "<td class=\"num\">-</td>");
		dash_out(d, "<td class=\"muted\">");
		dash_esc(d, g->detail ? g->detail : "");
		dash_out(d, "</td></tr>\n");
	}
	if (n)
		dash_out(d, "</tbody></table>\n");
	else
		dash_out(d, "<p class=\"note\" id=\"no-regressions\">No regression recorded"
		    " for this run (<code>hzrig check-regressions --run ID</code>"
		    " records them; a run never checked has none either).</p>\n");
	if (others > 0)
		dash_out(d, "<p class=\"muted\">%" PRId64 " more recorded for other runs:"
		    " red dots in the <a href=\"#history\">history</a>.</p>\n",
		    others);
	dash_out(d, "</section>\n");
}

/* ------------------------------------------------------------------------
 * Runs and their noise floor; unexplained samples.
 */

/* "sha256:0123456789abcdef..." as its first 12 hex digits, whole in a title. */
static void cell_hash(struct dash *d, const char *h)
{
	const char *hex;
	char buf[13];

	if (!h || !*h) {
		dash_out(d, "<td class=\"muted\">-</td>");
		return;
	}
	hex = strchr(h, ':') ? strchr(h, ':') + 1 : h;
	snprintf(buf, sizeof(buf), "%.12s", hex);
	dash_out(d, "<td class=\"mono\" title=\"");
	dash_esc(d, h);
	dash_out(d, "\">");
	dash_esc(d, buf);
	dash_out(d, "</td>");
}

/* One variant of one run in the runs table; @first: the run's first. */
static void run_row(struct dash *d, const struct hzrig_view_run *r,
		    const struct hzrig_variant *v, bool first)
{
	const char *base = hzrig_view_baseline(&d->view, v->name);
	int64_t ns = (int64_t)v->nsamples, ni = (int64_t)v->ninside;
	bool boot_ok = !strcmp(v->boot_status, "ok");

	dash_out(d, "<tr class=\"%s%s\">", first ? "first" : "",
	    strcmp(r->id, d->run) ? "" : " sel");
	if (first)
		dash_cell_two(d, r->id, r->plan, "mono nw");
	else
		dash_out(d, "<td></td>");
	dash_out(d, "<td class=\"nw\">");
	dash_esc(d, v->name);
	if (base && !strcmp(base, r->id))
		dash_out(d, "<br><span class=\"small good\" title=\"the"
		    " variant's baseline run\">&#9679; baseline</span>");
	dash_out(d, "</td><td class=\"num\">%d</td>", v->hz);
	dash_cell_two(d, v->release, v->tree_describe, "kern");
	cell_hash(d, v->config_hash);
	dash_cell_two(d, v->patches, NULL, "mono");
	dash_out(d, "<td class=\"nw\">");
	dash_esc(d, v->accel[0] ? v->accel : "?");
	dash_out(d, ", ");
	dash_esc(d, v->clocksource[0] ? v->clocksource : "?");
	dash_out(d, "<br><span class=\"small %s\">boot ", boot_ok ? "muted" : "bad");
	dash_esc(d, v->boot_status[0] ? v->boot_status : "?");
	dash_out(d, "</span></td>");
	dash_out(d, "<td class=\"num\">%s / %s</td><td class=\"num\">%s / %s</td>"
	    "<td class=\"num\">%s</td>", MS(v->overshoot_p50_ns),
	    MS(v->overshoot_p99_ns), MS(v->rtt_p50_ns), MS(v->rtt_p99_ns),
	    MS(v->allowance_ns));
	if (v->waits_ms != HZRIG_ABSENT && v->wall_ms != HZRIG_ABSENT &&
	    v->wall_ms > 0)
		dash_out(d, "<td class=\"num\">%.2f<br><span class=\"small muted\">"
		    "%.1f / %.1f s</span></td>",
		    (double)v->waits_ms / (double)v->wall_ms, v->waits_ms / 1e3,
		    v->wall_ms / 1e3);
	else
		dash_out(d, "<td class=\"num muted\">-</td>");
	if (ns > 0)
		dash_out(d, "<td class=\"num%s\">%" PRId64 "/%" PRId64 "</td>",
		    ni == ns ? "" : " bad", ni, ns);
	else
		dash_out(d, "<td class=\"num muted\">-</td>");
	dash_out(d, "</tr>\n");
}

void dash_section_runs(struct dash *d)
{
	size_t i, k;

	dash_out(d, "<section id=\"runs\">\n<h2>Runs, builds and noise floor</h2>\n"
	    "<p class=\"lead\">Every variant of every run in the history, newest"
	    " first (this page's run highlighted): the kernel (release, and the"
	    " tree it was built from), the sha256 of its .config (hover for all"
	    " of it) and its patches, the guest (accelerator, clocksource, how"
	    " the boot ended). The noise floor is what the guest measured before"
	    " the plan: the p50/p99 overshoot of 1 ms hrtimer sleeps and the"
	    " round trip of an answered control transfer, in ms; their p99s add"
	    " up to the allowance a sample may stray outside its window. The"
	    " guest probes again every minute of a long plan and each case takes"
	    " the larger probe on either side of it: the allowance shown is the"
	    " largest any sample got."
	    " Efficiency: the waits the plan asks for over the guest's wall"
	    " time.</p>\n"
	    "<table class=\"data wide\" id=\"runs-table\">\n<thead><tr>"
	    "<th scope=\"col\">run</th><th scope=\"col\">variant</th>"
	    "<th scope=\"col\" class=\"num\">HZ</th><th scope=\"col\">kernel</th>"
	    "<th scope=\"col\">config</th><th scope=\"col\">patches</th>"
	    "<th scope=\"col\">guest</th>"
	    "<th scope=\"col\" class=\"num\">overshoot<br>p50 / p99</th>"
	    "<th scope=\"col\" class=\"num\">round trip<br>p50 / p99</th>"
	    "<th scope=\"col\" class=\"num\">allowance</th>"
	    "<th scope=\"col\" class=\"num\">efficiency<br>waits / wall</th>"
	    "<th scope=\"col\" class=\"num\">inside</th></tr></thead>\n<tbody>\n");
	for (i = d->view.nr; i-- > 0;) {
		const struct hzrig_view_run *r = &d->view.r[i];

		for (k = 0; k < r->run.nv; k++)
			run_row(d, r, &r->run.v[k], !k);
	}
	dash_out(d, "</tbody></table>\n</section>\n");
}

void dash_section_unexplained(struct dash *d)
{
	size_t i, n = dash_n_unexplained(d);

	dash_out(d, "<section id=\"unexplained\">\n<h2>Unexplained samples</h2>\n"
	    "<p class=\"lead\">Every call of this run the model does not explain:"
	    " a wait outside the window (n&#183;&#964;, (n+g)&#183;&#964;] widened"
	    " by the noise allowance (<i>early</i>, <i>late</i>), a status other"
	    " than the expected one (<i>wrong-status</i>), or timings refused"
	    " (a jiffy-resolution clocksource).</p>\n");
	if (!n) {
		dash_out(d, "<p class=\"note\">All %zu calls are inside their windows.</p>\n",
		    d->ns);
	}
	dash_out(d, "<table class=\"data wide\" id=\"unexplained-table\">\n<caption>%zu of"
	    " %zu calls.</caption>\n<thead><tr><th>variant</th><th>case</th>"
	    "<th class=\"num\">rep</th><th class=\"num\">status</th>"
	    "<th class=\"num\">expected</th><th class=\"num\">wait (ms)</th>"
	    "<th class=\"num\">window (ms)</th><th class=\"num\">allowance</th>"
	    "<th>verdict</th><th class=\"num\">outside by</th></tr></thead>\n<tbody>\n",
	    n, d->ns);
	for (i = 0; i < d->ns; i++) {
		const struct dsample *x = &d->s[i];
		const struct hzrig_run_sample *s = x->s;
		int64_t a = s->allowance_ns == HZRIG_ABSENT ? 0 : s->allowance_ns;

		if (dash_inside(d, x))
			continue;
		dash_out(d, "<tr class=\"sample\"><td>");
		dash_esc(d, dash_S(d, d->v[x->v].name));
		dash_out(d, "</td><td class=\"mono\">");
		dash_esc(d, dash_S(d, x->key));
		dash_out(d, "</td><td class=\"num\">%" PRId64 "</td><td class=\"num%s\">%"
		    PRId64 "</td>", s->rep,
		    s->expected_status != HZRIG_ABSENT && s->status != s->expected_status ?
		    " bad" : "", s->status);
		if (s->expected_status != HZRIG_ABSENT)
			dash_out(d, "<td class=\"num\">%" PRId64 "</td>", s->expected_status);
		else
			dash_out(d, "<td class=\"num muted\">-</td>");
		dash_out(d, "<td class=\"num\">%s</td>", MS(s->elapsed_ns));
		if (s->window_lo_ns != HZRIG_ABSENT)
			dash_out(d, "<td class=\"num\">(%s, %s]</td>",
			    MS(s->window_lo_ns), MS(s->window_hi_ns));
		else
			dash_out(d, "<td class=\"num muted\">none</td>");
		dash_out(d, "<td class=\"num\">%s</td><td class=\"bad\">", MS(s->allowance_ns));
		dash_esc(d, dash_S(d, x->verdict));
		dash_out(d, "</td>");
		if (s->window_hi_ns != HZRIG_ABSENT && s->elapsed_ns > s->window_hi_ns + a)
			dash_out(d, "<td class=\"num\">+%s late</td>",
			    MS(s->elapsed_ns - s->window_hi_ns - a));
		else if (s->window_lo_ns != HZRIG_ABSENT &&
			 s->elapsed_ns < s->window_lo_ns - a &&
			 !dash_is(d, x->verdict, "wrong-status"))
			dash_out(d, "<td class=\"num\">%s early</td>",
			    MS(s->window_lo_ns - a - s->elapsed_ns));
		else
			dash_out(d, "<td class=\"num muted\">-</td>");
		dash_out(d, "</tr>\n");
	}
	dash_out(d, "</tbody></table>\n</section>\n");
}
