// SPDX-License-Identifier: GPL-2.0
/*
 * The dashboard's timing sections: observed vs requested timeouts with the
 * model's window per HZ, the other behaviours, the error per HZ and the
 * legacy-jiffies caller modes.
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

#include "history/db.h"
#include "model/model.h"
#include "output/dashboard/dash.h"
#include "runs/runs.h"

/* ------------------------------------------------------------------------
 * Observed vs requested: one panel per variant, log-log.
 */

enum which {
	NAK_MS,		/* the timeouts proper: NAKed, ms as the API wants */
	OTHER_MS,	/* answered, short, stalled, delayed calls, ms mode */
};

static bool wanted(const struct dash *d, const struct dsample *x,
		   enum which w)
{
	/*
	 * T <= 0 has no place on a log axis (the 60 s clamp, or forever).
	 * The band is the kernel's wheel: userspace paths have their own
	 * section (sections_paths.c).
	 */
	if (!dash_is(d, x->mode, "ms") || x->s->timeout_ms <= 0 ||
	    !dash_kernel(d, x))
		return false;
	return dash_is(d, x->behaviour, "nak") == (w == NAK_MS);
}

static void sample_title(struct dash *d, const struct dsample *x)
{
	dash_out(d, "<title>");
	dash_esc(d, dash_S(d, x->key));
	dash_out(d, " rep %" PRId64 ": %s ms, status %" PRId64, x->s->rep,
	    MS(x->s->elapsed_ns), x->s->status);
	if (x->s->window_lo_ns != HZRIG_ABSENT)
		dash_out(d, ", window (%s, %s] ms", MS(x->s->window_lo_ns),
		    MS(x->s->window_hi_ns));
	if (x->s->allowance_ns != HZRIG_ABSENT)
		dash_out(d, " \xc2\xb1 %s", MS(x->s->allowance_ns));
	dash_out(d, ", ");
	dash_esc(d, dash_S(d, x->verdict));
	dash_out(d, "</title>");
}

/* A window drawn once per distinct case of a panel. */
struct win {
	int64_t t, lo, hi, allowance;
};

static void case_windows(struct dash *d, const struct plot *p, size_t v,
			 enum which w)
{
	struct win ws[256];
	size_t n = 0, i, j;
	double x0, x1;

	for (i = 0; i < d->ns; i++) {
		const struct dsample *x = &d->s[i];

		if (x->v != v || !wanted(d, x, w) || x->s->window_lo_ns == HZRIG_ABSENT)
			continue;
		for (j = 0; j < n; j++)
			if (ws[j].t == x->s->timeout_ms && ws[j].lo == x->s->window_lo_ns &&
			    ws[j].hi == x->s->window_hi_ns)
				break;
		if (j == n && n < ARRAY_SIZE(ws)) {
			ws[n].t = x->s->timeout_ms;
			ws[n].lo = x->s->window_lo_ns;
			ws[n].hi = x->s->window_hi_ns;
			ws[n].allowance = x->s->allowance_ns == HZRIG_ABSENT ?
					  0 : x->s->allowance_ns;
			n++;
		}
	}
	for (i = 0; i < n; i++) {
		double lo = ws[i].lo / 1e6, hi = ws[i].hi / 1e6;
		double a = ws[i].allowance / 1e6;
		double ya = dash_py(p, hi + a), yb = dash_py(p, lo - a > 0 ? lo - a : 0);

		x0 = dash_px(p, (double)ws[i].t) - 8;
		x1 = x0 + 16;
		dash_out(d, "<rect class=\"allow\" x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\"/>",
		    XY(x0), XY(ya), XY(x1 - x0), XY(yb - ya));
		ya = dash_py(p, hi);
		yb = dash_py(p, lo);
		/* A window narrower than a pixel still shows. */
		if (yb - ya < 1.5)
			ya = yb - 1.5;
		dash_out(d, "<rect class=\"win\" x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\"/>\n",
		    XY(x0), XY(ya), XY(x1 - x0), XY(yb - ya));
	}
}

/* A sample's horizontal offset: dash_transfers side by side, reps spread. */
static double jitter(const struct dash *d, const struct dsample *x,
		     enum which w)
{
	double k;

	if (w == NAK_MS)
		k = (double)dash_name_rank(dash_transfers, ARRAY_SIZE(dash_transfers),
				      dash_S(d, x->transfer)) - 2.5;
	else
		k = (double)dash_name_rank(dash_behaviours, ARRAY_SIZE(dash_behaviours),
				      dash_S(d, x->behaviour)) - 2;
	return k * 2.2 + (double)(x->s->rep % 3 - 1) * 0.9;
}

static void points(struct dash *d, const struct plot *p, size_t v,
		   enum which w)
{
	int pass;
	size_t i;

	/* Inside first, so that outliers are drawn on top. */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < d->ns; i++) {
			const struct dsample *x = &d->s[i];
			bool in;

			if (x->v != v || !wanted(d, x, w))
				continue;
			in = dash_inside(d, x);
			if (in != (pass == 0))
				continue;
			dash_out(d, "<circle class=\"pt%s\" cx=\"%g\" cy=\"%g\""
			    " r=\"%s\" fill=\"%s\">",
			    in ? "" : " out",
			    XY(dash_px(p, (double)x->s->timeout_ms) + jitter(d, x, w)),
			    XY(dash_py(p, x->s->elapsed_ns / 1e6)), in ? "2.6" : "4",
			    w == NAK_MS ? dash_transfer_colour(dash_S(d, x->transfer)) :
					  dash_behaviour_colour(dash_S(d, x->behaviour)));
			sample_title(d, x);
			dash_out(d, "</circle>\n");
		}
	}
}

/* The index of @s, NO_STR when the table does not have it. */
size_t dash_lookup(const struct strtab *t, const char *s)
{
	size_t j;

	if (!t->nslot)
		return NO_STR;
	j = dash_hash_str(s) & (t->nslot - 1);
	for (; t->slot[j]; j = (j + 1) & (t->nslot - 1))
		if (!strcmp(t->s[t->slot[j] - 1], s))
			return t->slot[j] - 1;
	return NO_STR;
}

static void swatch(struct dash *d, const char *colour, const char *name)
{
	dash_out(d, "<span><span class=\"sw\" style=\"background:%s\"></span>",
	    colour);
	dash_esc(d, name);
	dash_out(d, "</span>");
}

/* The dash_transfers (or dash_behaviours) the panels show, known ones in order. */
static void legend_names(struct dash *d, enum which w)
{
	const char *const *names = w == NAK_MS ? dash_transfers : dash_behaviours;
	size_t n = w == NAK_MS ? ARRAY_SIZE(dash_transfers) : ARRAY_SIZE(dash_behaviours);
	bool *seen = calloc(d->st.n + 1, sizeof(*seen));
	size_t i, j;

	if (!seen)
		return;
	for (i = 0; i < d->ns; i++)
		if (wanted(d, &d->s[i], w))
			seen[w == NAK_MS ? d->s[i].transfer : d->s[i].behaviour] = true;
	for (j = 0; j < n; j++) {
		i = dash_lookup(&d->st, names[j]);
		if (i != NO_STR && seen[i])
			swatch(d, dash_palette[j % DASH_NPALETTE], names[j]);
	}
	for (i = 1; i < d->st.n; i++)
		if (seen[i] && dash_name_rank(names, n, dash_S(d, i)) >= n)
			swatch(d, w == NAK_MS ? dash_transfer_colour(dash_S(d, i)) :
				  dash_behaviour_colour(dash_S(d, i)), dash_S(d, i));
	free(seen);
}

static void diagonal(struct dash *d, const struct plot *p)
{
	double a = fmax(p->x.d0, p->y.d0), b = fmin(p->x.d1, p->y.d1);

	if (a >= b)
		return;
	dash_out(d, "<line class=\"diag\" x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\"/>\n",
	    XY(dash_px(p, a)), XY(dash_py(p, a)), XY(dash_px(p, b)), XY(dash_py(p, b)));
}

static void panels(struct dash *d, enum which w)
{
	double t0 = INFINITY, t1 = 0, y0 = INFINITY, y1 = 0, xl, xh, yl, yh;
	size_t i, v, n = 0, per_row;
	double width;

	for (i = 0; i < d->ns; i++) {
		const struct dsample *x = &d->s[i];

		if (!wanted(d, x, w))
			continue;
		n++;
		t0 = fmin(t0, (double)x->s->timeout_ms);
		t1 = fmax(t1, (double)x->s->timeout_ms);
		if (x->s->elapsed_ns > 0) {
			y0 = fmin(y0, x->s->elapsed_ns / 1e6);
			y1 = fmax(y1, x->s->elapsed_ns / 1e6);
		}
		/* The window shows whole; elsewhere the timer's end shows. */
		if (w == NAK_MS && x->s->window_lo_ns != HZRIG_ABSENT && x->s->window_lo_ns > 0)
			y0 = fmin(y0, x->s->window_lo_ns / 1e6);
		if (x->s->window_hi_ns != HZRIG_ABSENT && x->s->window_hi_ns > 0)
			y1 = fmax(y1, x->s->window_hi_ns / 1e6);
	}
	if (!n) {
		dash_out(d, "<p class=\"note\">This run has no such samples.</p>\n");
		return;
	}
	if (!(y1 > 0))
		y0 = y1 = 1;
	hzrig_dash_log_domain(t0 / 1.5, t1 * 1.5, &xl, &xh);
	hzrig_dash_log_domain(y0 / 1.5, y1 * 1.5, &yl, &yh);
	/*
	 * Up to three panels a row in the page's 1210 px; four as two by
	 * two. Never narrower than 380 px: more variants wrap.
	 */
	per_row = d->nv == 4 ? 2 : d->nv < 3 ? (d->nv ? d->nv : 1) : 3;
	width = fmin(600, floor((1210 - 10.0 * (double)(per_row - 1)) /
				(double)per_row));
	dash_out(d, "<div class=\"panels\">\n");
	for (v = 0; v < d->nv; v++) {
		size_t nv = 0, bad = 0;
		char title[256];
		struct plot p;

		for (i = 0; i < d->ns; i++) {
			if (d->s[i].v != v || !wanted(d, &d->s[i], w))
				continue;
			nv++;
			bad += !dash_inside(d, &d->s[i]);
		}
		if (!nv)
			continue;
		dash_plot_init(&p, width, 330, 58, 36, 20, 46);
		dash_plot_domain(&p, true, xl, xh, true, yl, yh);
		snprintf(title, sizeof(title), "%s (HZ=%d): observed vs requested"
			 " timeout, %s", dash_S(d, d->v[v].name), d->v[v].lv->hz,
			 w == NAK_MS ? "NAKed calls, ms mode" :
				       "answered, short, stalled and delayed calls, ms mode");
		dash_svg_open(d, &p, w == NAK_MS ? "obs" : "other", title,
			 "Log-log scatter: requested timeout T on x, measured"
			 " wait on y, one dot per call; the model's window as a"
			 " band.");
		dash_axes(d, &p, "requested timeout T (ms)", "measured wait (ms)");
		dash_out(d, "<text x=\"%g\" y=\"22\"><tspan class=\"ptitle\">", XY(p.l));
		dash_esc(d, dash_S(d, d->v[v].name));
		dash_out(d, "</tspan><tspan class=\"pnote\" dx=\"8\">HZ=%d &#183; %zu"
		    " calls</tspan>", d->v[v].lv->hz, nv);
		if (bad)
			dash_out(d, "<tspan class=\"pnote bad\" dx=\"6\">&#183; %zu not"
			    " inside</tspan>", bad);
		dash_out(d, "</text>\n");
		dash_clip_open(d, &p);
		dash_model_band(d, &p, d->v[v].lv->hz, "band", NULL, false);
		if (w == NAK_MS)
			case_windows(d, &p, v, w);
		diagonal(d, &p);
		points(d, &p, v, w);
		dash_out(d, "</g></svg>\n");
	}
	dash_out(d, "</div>\n");
}

void dash_section_observed(struct dash *d)
{
	dash_out(d, "<section id=\"observed-vs-requested\">\n"
	    "<h2>Observed vs requested timeout</h2>\n"
	    "<p class=\"lead\">One dot per call the gadget NAKed until it timed"
	    " out, with the timeout passed in milliseconds as the API wants"
	    " (mode <code>ms</code>): at the timeout T it asked for (x) and the"
	    " wait <code>ktime_get()</code> measured in the guest (y), both on"
	    " log scales. The pale band is the model's window"
	    " (n&#183;&#964;, (n+g)&#183;&#964;] for every T at the variant's HZ:"
	    " <code>msecs_to_jiffies()</code> rounds T up to whole jiffies, the"
	    " timer wheel up to its level's granule. The dark bar is the window"
	    " each case was judged against, the amber one adds the run's noise"
	    " allowance. A red ring marks a call outside it (listed under"
	    " <a href=\"#unexplained\">Unexplained</a>). Hover a dot for its"
	    " figures.</p>\n<div class=\"legend\">");
	legend_names(d, NAK_MS);
	dash_out(d, "<span><span class=\"sw sq band\"></span>model window, any T</span>"
	    "<span><span class=\"sw sq win\"></span>window of the case</span>"
	    "<span><span class=\"sw sq allow\"></span>&#177; noise allowance</span>"
	    "<span><span class=\"sw out\"></span>not inside</span>"
	    "<span><span class=\"sw line\"></span>wait = T</span></div>\n");
	panels(d, NAK_MS);
	dash_out(d, "</section>\n<section id=\"other-behaviours\">\n"
	    "<h2>Answered, short, stalled and delayed calls</h2>\n"
	    "<p class=\"lead\">The same axes for calls the gadget answered (at"
	    " once, short, with a stall, or after a delay D). They must end"
	    " before the timer would fire (the band), a stall within two"
	    " jiffies, a delayed answer about D after the start. A call that"
	    " sits in the band here waited for its timeout instead.</p>\n"
	    "<div class=\"legend\">");
	legend_names(d, OTHER_MS);
	dash_out(d, "<span><span class=\"sw sq band\"></span>model window (timer)</span>"
	    "<span><span class=\"sw out\"></span>not inside</span>"
	    "<span><span class=\"sw line\"></span>wait = T</span></div>\n");
	panels(d, OTHER_MS);
	dash_out(d, "</section>\n");
}

/*
 * The timing charts' groups: the samples of one variant, timeout mode and
 * T, with the p5, median and p95 of a figure of each (the error per HZ:
 * wait - T; the legacy modes: the wait), as runs/stats.c takes them
 * (hzrig_percentile()).
 */
struct tgroup {
	size_t mode, v;
	int64_t t, arg;		/* T, and the int passed (the first's) */
	size_t n, bad;		/* bad: not inside */
	int64_t p5, med, p95;
	int64_t hi;		/* the recorded window's upper edge */
};

struct titem {
	size_t mode, v;
	int64_t t, arg, value, hi;
	bool bad;
};

struct tgroup_order {
	const struct dash *d;
	bool t_first;		/* mode, T, variant; else mode, variant, T */
};

static int cmp3(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_titem(const void *a, const void *b, void *ctx)
{
	const struct tgroup_order *o = ctx;
	const struct titem *x = a, *y = b;
	int c = strcmp(dash_S(o->d, x->mode), dash_S(o->d, y->mode));

	if (!c && o->t_first)
		c = cmp3(x->t, y->t);
	if (!c)
		c = cmp3((int64_t)x->v, (int64_t)y->v);
	if (!c)
		c = cmp3(x->t, y->t);
	return c ? c : cmp3(x->value, y->value);
}

/* Close the group of @it[0..n) into @g; @e is scratch for n values. */
static void tgroup_close(struct tgroup *g, const struct titem *it, size_t n,
			 int64_t *e)
{
	size_t k;

	g->mode = it[0].mode;
	g->v = it[0].v;
	g->t = it[0].t;
	g->arg = it[0].arg;
	g->n = n;
	g->hi = HZRIG_ABSENT;
	for (k = 0; k < n; k++) {
		e[k] = it[k].value;
		g->bad += it[k].bad;
		if (it[k].hi != HZRIG_ABSENT)
			g->hi = it[k].hi;
	}
	g->p5 = hzrig_percentile(e, n, 5);
	g->med = hzrig_percentile(e, n, 50);
	g->p95 = hzrig_percentile(e, n, 95);
}

/*
 * Group the samples @keep picks, each counted by @value, in @o's order;
 * -1 out of memory.
 */
static int tgroups(struct dash *d, bool (*keep)(const struct dash *,
						const struct dsample *),
		   int64_t (*value)(const struct dsample *), bool t_first,
		   struct tgroup **gp, size_t *np)
{
	struct tgroup_order o = { .d = d, .t_first = t_first };
	struct titem *it = calloc(d->ns + 1, sizeof(*it));
	int64_t *e = calloc(d->ns + 1, sizeof(*e));
	struct tgroup *g = calloc(d->ns + 1, sizeof(*g));
	size_t n = 0, ng = 0, i, j;

	if (!it || !e || !g) {
		free(it);
		free(e);
		free(g);
		return -1;
	}
	for (i = 0; i < d->ns; i++) {
		const struct dsample *x = &d->s[i];

		if (!keep(d, x))
			continue;
		it[n] = (struct titem){ .mode = x->mode, .v = x->v,
			.t = x->s->timeout_ms, .arg = x->s->timeout_arg,
			.value = value(x), .hi = x->s->window_hi_ns, .bad = !dash_inside(d, x) };
		n++;
	}
	qsort_r(it, n, sizeof(*it), cmp_titem, &o);
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && it[j].mode == it[i].mode &&
			    it[j].v == it[i].v && it[j].t == it[i].t; j++)
			;
		tgroup_close(&g[ng++], it + i, j - i, e);
	}
	free(it);
	free(e);
	*gp = g;
	*np = ng;
	return 0;
}

/* ------------------------------------------------------------------------
 * Error per HZ: median(wait - T) of the NAKed ms-mode cases, all variants
 * on one chart, with the model's worst case hi - T.
 */

static bool nak_ms(const struct dash *d, const struct dsample *x)
{
	return wanted(d, x, NAK_MS);
}

static int64_t wait_error(const struct dsample *x)
{
	return x->s->elapsed_ns - x->s->timeout_ms * 1000000;
}

/* The smallest and largest worst-case error (ms) of the model over T. */
static void worst_range(int hz, double t0, double t1, double *mn, double *mx)
{
	double a, b, e;
	int i;

	for (i = 0; i < 200; i++) {
		a = pow(10, log10(t0) + i * (log10(t1) - log10(t0)) / 200);
		b = pow(10, log10(t0) + (i + 1) * (log10(t1) - log10(t0)) / 200);
		e = dash_worst_error(hz, a - 1000.0 / hz + 1, b);
		if (e > 0) {
			*mn = fmin(*mn, e);
			*mx = fmax(*mx, e);
		}
	}
}

static void error_chart(struct dash *d, const struct tgroup *g, size_t ng)
{
	double t0 = INFINITY, t1 = 0, y0 = INFINITY, y1 = 0, xl, xh, yl, yh;
	double off, x, y;
	struct plot p;
	size_t i, v, k;

	for (i = 0; i < ng; i++) {
		t0 = fmin(t0, (double)g[i].t);
		t1 = fmax(t1, (double)g[i].t);
		/*
		 * Not the p5: an error at or below zero (a call that
		 * started late in its tick) has no place on a log axis
		 * and is drawn on its bottom edge.
		 */
		if (g[i].med > 0)
			y0 = fmin(y0, g[i].med / 1e6);
		y1 = fmax(y1, g[i].p95 / 1e6);
	}
	hzrig_dash_log_domain(t0 / 1.5, t1 * 1.5, &xl, &xh);
	for (v = 0; v < d->nv; v++)
		if (d->v[v].lv->hz >= HZRIG_MODEL_HZ_MIN &&
		    d->v[v].lv->hz <= HZRIG_MODEL_HZ_MAX)
			worst_range(d->v[v].lv->hz, xl, xh, &y0, &y1);
	if (!(y1 > 0))
		y0 = y1 = 1;
	hzrig_dash_log_domain(y0 / 1.3, y1 * 1.3, &yl, &yh);

	dash_plot_init(&p, 1210, 430, 66, 18, 18, 48);
	dash_plot_domain(&p, true, xl, xh, true, yl, yh);
	dash_svg_open(d, &p, "err", "Timeout error (wait minus T) per HZ, NAKed calls, ms mode",
		 "Median of the measured wait minus the requested timeout T, per"
		 " T and variant, with p5 to p95 whiskers; dashed: the model's"
		 " worst case (hi - T) at each variant's HZ.");
	dash_axes(d, &p, "requested timeout T (ms)", "wait \xe2\x88\x92 T (ms)");
	dash_clip_open(d, &p);
	for (v = 0; v < d->nv; v++)
		dash_model_band(d, &p, d->v[v].lv->hz, "worst", dash_variant_colour(v), true);
	for (v = 0; v < d->nv; v++) {
		const char *c = dash_variant_colour(v);

		off = ((double)v - (double)(d->nv - 1) / 2) * 5;
		dash_out(d, "<path class=\"med thin\" stroke=\"%s\" d=\"", c);
		for (i = 0, k = 0; i < ng; i++) {
			if (g[i].v != v)
				continue;
			dash_out(d, "%s%g %g", k++ ? " L" : "M",
			    XY(dash_px(&p, (double)g[i].t) + off),
			    XY(dash_py(&p, g[i].med / 1e6)));
		}
		dash_out(d, "\"/>\n");
		for (i = 0; i < ng; i++) {
			if (g[i].v != v)
				continue;
			x = dash_px(&p, (double)g[i].t) + off;
			y = dash_py(&p, g[i].med / 1e6);
			dash_out(d, "<line class=\"whisk\" stroke=\"%s\" x1=\"%g\" y1=\"%g\""
			    " x2=\"%g\" y2=\"%g\"/>", c, XY(x), XY(dash_py(&p, g[i].p5 / 1e6)),
			    XY(x), XY(dash_py(&p, g[i].p95 / 1e6)));
			dash_out(d, "<circle class=\"pt%s\" cx=\"%g\" cy=\"%g\" r=\"4.2\""
			    " fill=\"%s\"><title>", g[i].bad ? " out" : "", XY(x),
			    XY(y), c);
			dash_esc(d, dash_S(d, d->v[v].name));
			dash_out(d, " T=%" PRId64 " ms: median error %s ms, p5 %s, p95 %s,"
			    " %zu calls", g[i].t, MS(g[i].med), MS(g[i].p5),
			    MS(g[i].p95), g[i].n);
			if (g[i].hi != HZRIG_ABSENT)
				dash_out(d, ", model worst %s ms",
				    MS(g[i].hi - g[i].t * 1000000));
			dash_out(d, "</title></circle>\n");
		}
	}
	dash_out(d, "</g></svg>\n");
}

static void error_table(struct dash *d, const struct tgroup *g, size_t ng)
{
	int64_t ts[512];
	size_t nt = 0, i, j, v;

	for (i = 0; i < ng; i++) {
		for (j = 0; j < nt && ts[j] != g[i].t; j++)
			;
		if (j == nt && nt < ARRAY_SIZE(ts))
			ts[nt++] = g[i].t;
	}
	/* Few values: an insertion sort is plenty. */
	for (i = 1; i < nt; i++)
		for (j = i; j > 0 && ts[j - 1] > ts[j]; j--) {
			int64_t t = ts[j];

			ts[j] = ts[j - 1];
			ts[j - 1] = t;
		}
	dash_out(d, "<table class=\"data\" id=\"error-table\">\n<caption>Median and p95 of"
	    " wait &#8722; T in ms, and the model's worst case (hi &#8722; T) the"
	    " case was judged against.</caption>\n<thead><tr><th rowspan=\"2\">T (ms)</th>");
	for (v = 0; v < d->nv; v++) {
		dash_out(d, "<th colspan=\"3\" scope=\"colgroup\"><span class=\"sw\""
		    " style=\"background:%s\"></span>", dash_variant_colour(v));
		dash_esc(d, dash_S(d, d->v[v].name));
		dash_out(d, "</th>");
	}
	dash_out(d, "</tr>\n<tr>");
	for (v = 0; v < d->nv; v++)
		dash_out(d, "<th class=\"num\">median</th><th class=\"num\">p95</th>"
		    "<th class=\"num\">worst</th>");
	dash_out(d, "</tr></thead>\n<tbody>\n");
	for (j = 0; j < nt; j++) {
		dash_out(d, "<tr><th scope=\"row\" class=\"num\">%" PRId64 "</th>", ts[j]);
		for (v = 0; v < d->nv; v++) {
			for (i = 0; i < ng; i++)
				if (g[i].v == v && g[i].t == ts[j])
					break;
			if (i == ng) {
				dash_out(d, "<td class=\"num muted\" colspan=\"3\">-</td>");
				continue;
			}
			dash_out(d, "<td class=\"num%s\">%s</td><td class=\"num\">%s</td>"
			    "<td class=\"num muted\">%s</td>",
			    g[i].bad ? " bad" : "", MS(g[i].med), MS(g[i].p95),
			    g[i].hi == HZRIG_ABSENT ? "-" :
			    MS(g[i].hi - g[i].t * 1000000));
		}
		dash_out(d, "</tr>\n");
	}
	dash_out(d, "</tbody></table>\n");
}

void dash_section_error(struct dash *d)
{
	struct tgroup *g = NULL;
	size_t ng = 0, v;

	dash_out(d, "<section id=\"error-per-hz\">\n<h2>Timeout error per HZ</h2>\n"
	    "<p class=\"lead\">How much longer than asked a NAKed call waited"
	    " (wait &#8722; T, log scale), median per T with a p5&#8211;p95"
	    " whisker, every variant on one chart; an error at or below the"
	    " bottom edge (a call that started late in its tick can end a"
	    " little before T) is drawn on it. Dashed, in the variant's"
	    " colour: the model's worst case, the envelope of"
	    " (n&#160;+&#160;g)&#183;&#964;&#160;&#8722;&#160;T: a granule and"
	    " a jiffy late, for a T just past a jiffy. A coarse HZ"
	    " loses at short timeouts (T=1 waits at least one jiffy, 10 ms at"
	    " HZ=100); a fine HZ can lose at long ones, because the same T lands"
	    " on a higher wheel level: T=600 ms is level 2 at HZ=1000 (64 ms"
	    " granule) but level 0 at HZ=100 (10 ms).</p>\n<div class=\"legend\">");
	if (tgroups(d, nak_ms, wait_error, false, &g, &ng)) {
		dash_out_of_memory(d);
		return;
	}
	for (v = 0; v < d->nv; v++)
		swatch(d, dash_variant_colour(v), dash_S(d, d->v[v].name));
	dash_out(d, "<span><span class=\"sw line\"></span>model worst case</span>"
	    "<span><span class=\"sw out\"></span>a call not inside</span></div>\n");
	if (!ng)
		dash_out(d, "<p class=\"note\">This run has no NAKed ms-mode calls.</p>\n");
	else {
		error_chart(d, g, ng);
		error_table(d, g, ng);
	}
	free(g);
	dash_out(d, "</section>\n");
}

/* ------------------------------------------------------------------------
 * Legacy jiffies: callers that pass a jiffy count where the API wants ms.
 */

/* Timed-out kernel calls in a jiffies mode: an answered call does not wait. */
static bool legacy_nak(const struct dash *d, const struct dsample *x)
{
	return !dash_is(d, x->mode, "ms") && dash_is(d, x->behaviour, "nak") &&
	       dash_kernel(d, x);
}

static int64_t wait_of(const struct dsample *x)
{
	return x->s->elapsed_ns;
}

/* Is group @i the first of its (mode, T)? */
static bool lseries_start(const struct tgroup *g, size_t i)
{
	return !i || g[i - 1].mode != g[i].mode || g[i - 1].t != g[i].t;
}

static void legacy_chart(struct dash *d, const struct tgroup *g, size_t ng)
{
	double y0 = INFINITY, y1 = 0, yl, yh, x, step;
	size_t i, v, k, series = 0;
	struct plot p;
	char lab[32];

	for (i = 0; i < ng; i++) {
		if (g[i].med > 0)
			y0 = fmin(y0, g[i].med / 1e6);
		y1 = fmax(y1, g[i].med / 1e6);
		if (g[i].t > 0) {
			y0 = fmin(y0, (double)g[i].t);
			y1 = fmax(y1, (double)g[i].t);
		}
	}
	if (!(y1 > 0))
		y0 = y1 = 1;
	hzrig_dash_log_domain(y0 / 1.5, y1 * 1.5, &yl, &yh);
	dash_plot_init(&p, 560, 340, 66, 18, 18, 48);
	/* x: the variants, evenly spaced, by HZ. */
	dash_plot_domain(&p, false, -0.5, (double)d->nv - 0.5, true, yl, yh);
	dash_svg_open(d, &p, "legacy", "Wait of a jiffy count passed as ms, per variant",
		 "Median wait of calls that passed a jiffy count where the API"
		 " wants ms, one line per mode and requested T, across the"
		 " variants ordered by HZ; dashed grey: the T that was meant.");
	dash_out(d, "<rect class=\"frame\" x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\"/>\n",
	    XY(p.l), XY(p.t), XY(p.r - p.l), XY(p.b - p.t));
	{
		double t[32];
		size_t n = hzrig_dash_ticks_log(yl, yh, t, ARRAY_SIZE(t));

		for (i = 0; i < n; i++) {
			double y = dash_py(&p, t[i]);

			dash_out(d, "<line class=\"grid\" x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\"/>"
			    "<text class=\"tick\" x=\"%g\" y=\"%g\""
			    " text-anchor=\"end\">%s</text>\n",
			    XY(p.l), XY(y), XY(p.r), XY(y), XY(p.l - 5), XY(y + 4),
			    hzrig_dash_fmt(lab, sizeof(lab), t[i]));
		}
	}
	for (v = 0; v < d->nv; v++) {
		x = dash_px(&p, (double)v);
		dash_out(d, "<text class=\"tick\" x=\"%g\" y=\"%g\" text-anchor=\"middle\">",
		    XY(x), XY(p.b + 15));
		dash_esc(d, dash_S(d, d->v[v].name));
		dash_out(d, "</text><text class=\"tick\" x=\"%g\" y=\"%g\""
		    " text-anchor=\"middle\">HZ=%d</text>\n", XY(x), XY(p.b + 29),
		    d->v[v].lv->hz);
	}
	dash_out(d, "<text class=\"axis\" transform=\"translate(%g %g) rotate(-90)\""
	    " text-anchor=\"middle\">median wait (ms)</text>\n", XY(p.l - 46),
	    XY((p.t + p.b) / 2));
	step = (p.r - p.l) / (double)(d->nv ? d->nv : 1);
	for (i = 0; i < ng; i++) {
		const char *c = dash_palette[series % DASH_NPALETTE];

		if (!lseries_start(g, i))
			continue;
		series++;
		/* What was meant: T, as a reference across the variants. */
		dash_out(d, "<line class=\"diag\" x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\"/>",
		    XY(p.l + step / 4), XY(dash_py(&p, (double)g[i].t)),
		    XY(p.r - step / 4), XY(dash_py(&p, (double)g[i].t)));
		dash_out(d, "<path class=\"med\" stroke=\"%s\"%s d=\"", c,
		    dash_is(d, g[i].mode, "legacy-jiffies") ? "" :
		    " stroke-dasharray=\"7 3\"");
		for (k = i; k < ng && (k == i || !lseries_start(g, k)); k++)
			dash_out(d, "%s%g %g", k == i ? "M" : " L",
			    XY(dash_px(&p, (double)g[k].v)), XY(dash_py(&p, g[k].med / 1e6)));
		dash_out(d, "\"/>\n");
		for (k = i; k < ng && (k == i || !lseries_start(g, k)); k++) {
			dash_out(d, "<circle class=\"pt%s\" cx=\"%g\" cy=\"%g\" r=\"4\""
			    " fill=\"%s\"><title>", g[k].bad ? " out" : "",
			    XY(dash_px(&p, (double)g[k].v)), XY(dash_py(&p, g[k].med / 1e6)), c);
			dash_esc(d, dash_S(d, g[k].mode));
			dash_out(d, " T=%" PRId64 " on ", g[k].t);
			dash_esc(d, dash_S(d, d->v[g[k].v].name));
			dash_out(d, ": passed %" PRId64 ", median wait %s ms (%zu calls)"
			    "</title></circle>\n", g[k].arg, MS(g[k].med), g[k].n);
		}
	}
	dash_out(d, "</svg>\n");
}

static void legacy_table(struct dash *d, const struct tgroup *g, size_t ng)
{
	size_t i, k, v, series = 0;

	dash_out(d, "<table class=\"data\" id=\"legacy-table\">\n<caption>Per variant:"
	    " the int passed, the median wait in ms, and the wait as a share"
	    " of the T that was meant.</caption>\n<thead><tr><th></th>"
	    "<th>mode</th><th class=\"num\">T (ms)</th>");
	for (v = 0; v < d->nv; v++) {
		dash_out(d, "<th colspan=\"3\" scope=\"colgroup\">");
		dash_esc(d, dash_S(d, d->v[v].name));
		dash_out(d, "</th>");
	}
	dash_out(d, "</tr>\n<tr><th></th><th></th><th></th>");
	for (v = 0; v < d->nv; v++)
		dash_out(d, "<th class=\"num\">passed</th><th class=\"num\">wait</th>"
		    "<th class=\"num\">&#215;T</th>");
	dash_out(d, "</tr></thead>\n<tbody>\n");
	for (i = 0; i < ng; i++) {
		if (!lseries_start(g, i))
			continue;
		dash_out(d, "<tr><td><span class=\"sw\" style=\"background:%s\"></span></td><td>",
		    dash_palette[series++ % DASH_NPALETTE]);
		dash_esc(d, dash_S(d, g[i].mode));
		dash_out(d, "</td><td class=\"num\">%" PRId64 "</td>", g[i].t);
		for (v = 0; v < d->nv; v++) {
			for (k = i; k < ng && (k == i || !lseries_start(g, k)); k++)
				if (g[k].v == v)
					break;
			if (k == ng || (k != i && lseries_start(g, k)) ||
			    g[k].v != v) {
				dash_out(d, "<td class=\"num muted\" colspan=\"3\">-</td>");
				continue;
			}
			dash_out(d, "<td class=\"num\">%" PRId64 "</td><td class=\"num%s\">%s</td>"
			    "<td class=\"num\">", g[k].arg, g[k].bad ? " bad" : "",
			    MS(g[k].med));
			if (g[k].t > 0)
				dash_out(d, "%.2f", g[k].med / 1e6 / (double)g[k].t);
			else
				dash_out(d, "-");
			dash_out(d, "</td>");
		}
		dash_out(d, "</tr>\n");
	}
	dash_out(d, "</tbody></table>\n");
}

void dash_section_legacy(struct dash *d)
{
	struct tgroup *g = NULL;
	size_t ng = 0;

	dash_out(d, "<section id=\"legacy-jiffies\">\n<h2>Jiffies passed as milliseconds</h2>\n"
	    "<p class=\"lead\">Since 2.6.12 the timeout of <code>usb_bulk_msg()</code>"
	    " and <code>usb_control_msg()</code> is in milliseconds, but the"
	    " prototype did not change, so drivers that still pass"
	    " <code>msecs_to_jiffies(T)</code> (mode <code>legacy-jiffies</code>)"
	    " or <code>HZ * T / 1000</code> (<code>hz-constant</code>) compiled"
	    " on. Their wait shrinks with HZ: the kernel takes the jiffy count"
	    " as ms, so at HZ=100 a 1000 ms timeout waits about 100 ms. Only"
	    " HZ=1000, where a jiffy is a millisecond, hides the bug. Solid:"
	    " legacy-jiffies, dashed: hz-constant; grey: the T that was"
	    " meant.</p>\n");
	if (tgroups(d, legacy_nak, wait_of, true, &g, &ng)) {
		dash_out_of_memory(d);
		return;
	}
	if (!ng) {
		dash_out(d, "<p class=\"note\">This run has no NAKed calls in a jiffies"
		    " mode (the <code>quick</code> and <code>full</code> plans have"
		    " them).</p>\n");
	} else {
		dash_out(d, "<div class=\"panels\">\n");
		legacy_chart(d, g, ng);
		dash_out(d, "<div>");
		legacy_table(d, g, ng);
		dash_out(d, "</div></div>\n");
	}
	free(g);
	dash_out(d, "</section>\n");
}
