// SPDX-License-Identifier: GPL-2.0
/*
 * The dashboard's charts: nice scale domains (linear and log), SVG axes
 * and clipping, the model's window as a band, and the colours.
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
 * Pure helpers: scales, ticks, labels, escaping.
 */

double hzrig_dash_map(const struct hzrig_dash_scale *s, double v)
{
	double a, b, t;

	if (s->log) {
		if (!(s->d0 > 0) || !(s->d1 > 0))
			return (s->r0 + s->r1) / 2;
		if (!(v > 0))
			return s->r0;
		a = log10(s->d0);
		b = log10(s->d1);
		v = log10(v);
	} else {
		if (isnan(v))
			return s->r0;
		a = s->d0;
		b = s->d1;
	}
	if (a == b || !isfinite(a) || !isfinite(b))
		return (s->r0 + s->r1) / 2;
	t = (v - a) / (b - a);
	return s->r0 + t * (s->r1 - s->r0);
}

double hzrig_dash_nice_step(double span, unsigned int max_ticks)
{
	static const double m[] = { 1, 2, 5 };
	double p, step;
	int e, i;

	if (max_ticks < 2)
		max_ticks = 2;
	if (!(span > 0) || !isfinite(span))
		return 1;
	/* Start a decade below what could fit and walk up 1, 2, 5, 10, ... */
	e = (int)floor(log10(span / (max_ticks - 1))) - 1;
	for (;; e++) {
		p = pow(10, e);
		for (i = 0; i < 3; i++) {
			step = m[i] * p;
			/* A hair of slack: 1.0 / 0.2 must count as 5 steps. */
			if (span / step <= (max_ticks - 1) * (1 + 1e-9))
				return step;
		}
	}
}

void hzrig_dash_nice_domain(double *lo, double *hi, unsigned int max_ticks)
{
	double step, d;

	if (*lo > *hi) {
		d = *lo;
		*lo = *hi;
		*hi = d;
	}
	if (*lo == *hi) {
		d = *lo ? fabs(*lo) / 2 : 1;
		*lo -= d;
		*hi += d;
	}
	step = hzrig_dash_nice_step(*hi - *lo, max_ticks);
	/* The slack keeps 0.30000000000000004 / 0.1 from adding a step. */
	*lo = floor(*lo / step + 1e-9) * step;
	*hi = ceil(*hi / step - 1e-9) * step;
	/* floor(-0.0) stays -0.0: a label "-0" helps no one. */
	if (*lo == 0)
		*lo = 0;
	if (*hi == 0)
		*hi = 0;
}

/* The number of multiples of @step in [lo, hi], and the first one's k. */
static long long multiples(double lo, double hi, double step, long long *k0)
{
	*k0 = (long long)ceil(lo / step - 1e-9);
	return (long long)floor(hi / step + 1e-9) - *k0 + 1;
}

size_t hzrig_dash_ticks_linear(double lo, double hi, unsigned int max_ticks,
			       double *out, size_t cap)
{
	double step, smaller;
	long long k, k0, n;
	size_t i = 0;

	if (!isfinite(lo) || !isfinite(hi) || lo > hi)
		return 0;
	if (lo == hi) {
		if (cap)
			out[0] = lo == 0 ? 0 : lo;
		return cap ? 1 : 0;
	}
	if (max_ticks < 2)
		max_ticks = 2;
	step = hzrig_dash_nice_step(hi - lo, max_ticks);
	n = multiples(lo, hi, step, &k0);
	/*
	 * A range that is not a nice domain may hold a single multiple of
	 * the step; an axis needs two labels, so take a smaller 1-2-5 step
	 * as long as it stays within max_ticks.
	 */
	while (n < 2) {
		smaller = step / (fabs(step / pow(10, floor(log10(step) + 1e-9)) - 5) <
				  1e-6 ? 2.5 : 2);
		if (multiples(lo, hi, smaller, &k) > max_ticks)
			break;
		step = smaller;
		n = multiples(lo, hi, step, &k0);
	}
	/* Integer multiples, so that 0.1 + 0.2 errors never accumulate. */
	for (k = k0; k < k0 + n && i < cap; k++) {
		double v = (double)k * step;

		out[i++] = v == 0 ? 0 : v;
	}
	return i;
}

/* The 1-2-5 value at or below @v (> 0); @up: at or above. */
static double step125(double v, bool up)
{
	static const double m[] = { 1, 2, 5, 10 };
	double p = pow(10, floor(log10(v))), r = v / p;
	int i;

	/* r is in [1, 10) but for rounding; 1e-9 absorbs pow()'s error. */
	if (up) {
		for (i = 0; i < 4; i++)
			if (m[i] >= r * (1 - 1e-9))
				return m[i] * p;
		return 10 * p;
	}
	for (i = 3; i >= 0; i--)
		if (m[i] <= r * (1 + 1e-9))
			return m[i] * p;
	return p / 2;
}

void hzrig_dash_log_domain(double lo, double hi, double *dlo, double *dhi)
{
	if (!(hi > 0) || !isfinite(hi))
		hi = 10;
	if (!(lo > 0) || !isfinite(lo))
		lo = hi / 10;
	if (lo > hi) {
		double t = lo;

		lo = hi;
		hi = t;
	}
	*dlo = step125(lo, false);
	*dhi = step125(hi, true);
	if (*dlo >= *dhi * (1 - 1e-9)) {
		/* One value: one 1-2-5 step either side of it. */
		*dlo = step125(*dlo * (1 - 1e-6), false);
		*dhi = step125(*dhi * (1 + 1e-6), true);
	}
}

size_t hzrig_dash_ticks_log(double lo, double hi, double *out, size_t cap)
{
	static const double m[] = { 1, 2, 5 };
	bool short_axis;
	size_t n = 0;
	double p, v;
	int e, e1, i;

	if (!(lo > 0) || !(hi >= lo) || !isfinite(hi))
		return 0;
	short_axis = hi / lo <= 1000 * (1 + 1e-9);
	e = (int)floor(log10(lo)) - 1;
	e1 = (int)ceil(log10(hi)) + 1;
	for (; e <= e1; e++) {
		p = pow(10, e);
		for (i = 0; i < (short_axis ? 3 : 1); i++) {
			v = m[i] * p;
			/* Relative slack: 10^-3 from pow() may be 0.00099999. */
			if (v < lo * (1 - 1e-9) || v > hi * (1 + 1e-9))
				continue;
			if (n < cap)
				out[n++] = v;
		}
	}
	return n;
}

char *hzrig_dash_fmt(char *buf, size_t n, double v)
{
	if (!n)
		return buf;
	if (isnan(v)) {
		snprintf(buf, n, "-");
		return buf;
	}
	if (v == 0)
		v = 0;	/* -0 */
	if (fabs(v) < 1e15 && v == rint(v))
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%.4g", v);
	return buf;
}

void hzrig_dash_escape(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!s)
		return;
	for (; *p; p++) {
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		case '\t': case '\n': case '\r': fputc(*p, f); break;
		default:
			/* HTML forbids the other C0 controls in text. */
			if (*p < 0x20)
				fputs("\xef\xbf\xbd", f);
			else
				fputc(*p, f);
		}
	}
}

/*
 * Colours: the Okabe-Ito set, distinguishable with the common colour
 * vision deficiencies. Transfers and behaviours have fixed colours so that
 * a reader learns them once; variants take them in HZ order.
 */
const char *const dash_palette[DASH_NPALETTE] = {
	"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9",
	"#7a5c00", "#555555",
};

const char *const dash_transfers[DASH_NTRANSFERS] = {
	"bulk-in", "bulk-out", "ctrl-in", "ctrl-out", "int-in",
	"bulk-in-killable",
};

const char *const dash_behaviours[DASH_NBEHAVIOURS] = {
	"nak", "delay", "answer", "short", "stall",
};

/* The position of @s in @names, or a stable one past them for others. */
size_t dash_name_rank(const char *const *names, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			return i;
	return n + dash_hash_str(s) % 2;
}

const char *dash_transfer_colour(const char *t)
{
	return dash_palette[dash_name_rank(dash_transfers, ARRAY_SIZE(dash_transfers), t) % DASH_NPALETTE];
}

const char *dash_behaviour_colour(const char *b)
{
	return dash_palette[dash_name_rank(dash_behaviours, ARRAY_SIZE(dash_behaviours), b) % DASH_NPALETTE];
}

const char *dash_variant_colour(size_t v)
{
	return dash_palette[v % DASH_NPALETTE];
}

/* ------------------------------------------------------------------------
 * Charts: a plot area inside an SVG, its scales and its axes.
 */

void dash_plot_init(struct plot *p, double w, double h, double ml,
		      double mt, double mr, double mb)
{
	memset(p, 0, sizeof(*p));
	p->w = w;
	p->h = h;
	p->l = ml;
	p->t = mt;
	p->r = w - mr;
	p->b = h - mb;
	p->x.r0 = p->l;
	p->x.r1 = p->r;
	p->y.r0 = p->b;
	p->y.r1 = p->t;
}

void dash_plot_domain(struct plot *p, bool xlog, double x0, double x1,
			bool ylog, double y0, double y1)
{
	p->x.log = xlog;
	p->x.d0 = x0;
	p->x.d1 = x1;
	p->y.log = ylog;
	p->y.d0 = y0;
	p->y.d1 = y1;
}

double dash_px(const struct plot *p, double v)
{
	return hzrig_dash_map(&p->x, v);
}

double dash_py(const struct plot *p, double v)
{
	return hzrig_dash_map(&p->y, v);
}

/* The x domain value at pixel @x of a log scale. */
static double unmap_log(const struct hzrig_dash_scale *s, double x)
{
	double a = log10(s->d0), b = log10(s->d1);

	return pow(10, a + (x - s->r0) / (s->r1 - s->r0) * (b - a));
}

/* Open an SVG with an accessible name (@title) and description. */
void dash_svg_open(struct dash *d, const struct plot *p, const char *cls,
		     const char *title, const char *desc)
{
	unsigned int id = ++d->nsvg;

	dash_out(d, "<svg class=\"chart %s\" viewBox=\"0 0 %g %g\" width=\"%g\""
	    " height=\"%g\" role=\"img\" aria-labelledby=\"svg%u-t svg%u-d\">"
	    "<title id=\"svg%u-t\">", cls, p->w, p->h, p->w, p->h, id, id, id);
	dash_esc(d, title);
	dash_out(d, "</title><desc id=\"svg%u-d\">", id);
	dash_esc(d, desc);
	dash_out(d, "</desc>\n");
}

static size_t axis_ticks(const struct hzrig_dash_scale *s, double *t,
			 size_t cap, unsigned int max)
{
	if (s->log)
		return hzrig_dash_ticks_log(s->d0, s->d1, t, cap);
	return hzrig_dash_ticks_linear(s->d0, s->d1, max, t, cap);
}

/*
 * The frame, grid, tick labels and axis titles. Labels closer than a
 * label's width to the previous one are left out (their grid line stays),
 * so a narrow panel never prints overlapping numbers.
 */
void dash_axes(struct dash *d, const struct plot *p, const char *xlabel,
		 const char *ylabel)
{
	double t[64], v, last = -1e9;
	char lab[32];
	size_t n, i;

	dash_out(d, "<rect class=\"frame\" x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\"/>\n",
	    XY(p->l), XY(p->t), XY(p->r - p->l), XY(p->b - p->t));
	n = axis_ticks(&p->x, t, ARRAY_SIZE(t), 8);
	for (i = 0; i < n; i++) {
		v = dash_px(p, t[i]);
		dash_out(d, "<line class=\"grid\" x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\"/>",
		    XY(v), XY(p->t), XY(v), XY(p->b));
		hzrig_dash_fmt(lab, sizeof(lab), t[i]);
		if (v - last < 7.5 * (double)strlen(lab) + 6)
			continue;
		last = v;
		dash_out(d, "<text class=\"tick\" x=\"%g\" y=\"%g\""
		    " text-anchor=\"middle\">%s</text>\n",
		    XY(v), XY(p->b + 15), lab);
	}
	n = axis_ticks(&p->y, t, ARRAY_SIZE(t), 6);
	last = 1e9;
	for (i = 0; i < n; i++) {
		v = dash_py(p, t[i]);
		dash_out(d, "<line class=\"grid\" x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\"/>",
		    XY(p->l), XY(v), XY(p->r), XY(v));
		if (last - v < 14)
			continue;
		last = v;
		dash_out(d, "<text class=\"tick\" x=\"%g\" y=\"%g\""
		    " text-anchor=\"end\">%s</text>\n",
		    XY(p->l - 5), XY(v + 4),
		    hzrig_dash_fmt(lab, sizeof(lab), t[i]));
	}
	if (xlabel) {
		dash_out(d, "<text class=\"axis\" x=\"%g\" y=\"%g\" text-anchor=\"middle\">",
		    XY((p->l + p->r) / 2), XY(p->b + 33));
		dash_esc(d, xlabel);
		dash_out(d, "</text>\n");
	}
	if (ylabel) {
		dash_out(d, "<text class=\"axis\" transform=\"translate(%g %g) rotate(-90)\""
		    " text-anchor=\"middle\">", XY(p->l - 42), XY((p->t + p->b) / 2));
		dash_esc(d, ylabel);
		dash_out(d, "</text>\n");
	}
}

/* Clip what is drawn next to the plot area (a value off the scale). */
void dash_clip_open(struct dash *d, const struct plot *p)
{
	unsigned int id = ++d->nsvg;

	dash_out(d, "<clipPath id=\"clip%u\"><rect x=\"%g\" y=\"%g\" width=\"%g\""
	    " height=\"%g\"/></clipPath><g clip-path=\"url(#clip%u)\">\n", id,
	    XY(p->l), XY(p->t), XY(p->r - p->l), XY(p->b - p->t), id);
}

/*
 * The model's window (lo, hi] of a timeout T at @hz, as a band over the
 * plot's x range (T in ms on a log scale). Each step of two pixels covers
 * a range of integer T; lo and hi grow with T, so the band over it runs
 * from lo of its first T to hi of its last, and the steps of
 * msecs_to_jiffies() and of the wheel levels show where they are wider
 * than a pixel.
 *
 * @err: draw the worst-case error hi - T instead, as a line. Over integer
 * T it is a sawtooth with a period of one jiffy (hi steps up a jiffy at a
 * time, T grows in between), as dense as the pixels at long T; so the line
 * is its envelope: at each T, the largest error of a T up to one jiffy
 * below it, which is (g + 1) jiffies less 1 ms on a level of granule g.
 */
#define BAND_MAX_POINTS	1024
#define ERR_SCAN_MAX	4096	/* integer T scanned per step, at most */

static bool window_at(int hz, double t, struct hzrig_window *w)
{
	return t >= 1 && t <= INT32_MAX &&
	       !hzrig_model_window(hz, (int)t, false, w) && !w->forever;
}

/* The largest hi - T (ms) for integer T in [a, b]; NAN if none. */
double dash_worst_error(int hz, double a, double b)
{
	struct hzrig_window w;
	double t, best = NAN, stride;

	a = ceil(fmax(a, 1));
	b = floor(b);
	stride = fmax(1, floor((b - a) / ERR_SCAN_MAX));
	for (t = a; t <= b; t += stride)
		if (window_at(hz, t, &w) && !(w.hi_ns / 1e6 - t <= best))
			best = w.hi_ns / 1e6 - t;
	return best;
}

void dash_model_band(struct dash *d, const struct plot *p, int hz,
		       const char *cls, const char *colour, bool err)
{
	static double xs[BAND_MAX_POINTS], lo[BAND_MAX_POINTS], hi[BAND_MAX_POINTS];
	struct hzrig_window w;
	size_t n = 0, i;
	double x, a, b;

	if (hz < HZRIG_MODEL_HZ_MIN || hz > HZRIG_MODEL_HZ_MAX)
		return;
	for (x = p->l; x <= p->r + 0.01 && n < BAND_MAX_POINTS; x += 2) {
		/* The integer T this step stands for: half a step either side. */
		a = ceil(unmap_log(&p->x, x - 1) - 1e-9);
		b = floor(unmap_log(&p->x, x + 1) - 1e-9);
		if (b < a)	/* no integer here: the nearest one */
			a = b = rint(unmap_log(&p->x, x));
		if (err) {
			hi[n] = dash_worst_error(hz, a - 1000.0 / hz + 1, b);
			if (isnan(hi[n]))
				continue;
		} else {
			if (!window_at(hz, a, &w))
				continue;
			lo[n] = w.lo_ns / 1e6;
			if (!window_at(hz, b, &w))
				continue;
			hi[n] = w.hi_ns / 1e6;
		}
		xs[n++] = x;
	}
	if (!n)
		return;
	if (err) {
		dash_out(d, "<path class=\"%s\" stroke=\"%s\" d=\"", cls, colour);
		for (i = 0; i < n; i++)
			dash_out(d, "%s%g %g", i ? " L" : "M", XY(xs[i]),
			    XY(dash_py(p, hi[i])));
		dash_out(d, "\"/>\n");
		return;
	}
	dash_out(d, "<path class=\"%s\" d=\"", cls);
	for (i = 0; i < n; i++)
		dash_out(d, "%s%g %g", i ? " L" : "M", XY(xs[i]), XY(dash_py(p, hi[i])));
	for (i = n; i-- > 0;)
		dash_out(d, " L%g %g", XY(xs[i]), XY(dash_py(p, lo[i])));
	dash_out(d, " Z\"/>\n");
}
