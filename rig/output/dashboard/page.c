// SPDX-License-Identifier: GPL-2.0
/*
 * hzrig dashboard: one static page, index.html, with inline SVG charts and
 * tables drawn from the history database. docs/dashboard.md says what each
 * section shows and how to read it.
 *
 * The page is written with plain stdio: every chart is a handful of SVG
 * primitives placed through a struct hzrig_dash_scale, every string that
 * comes from the database goes through hzrig_dash_escape(). Nothing on the
 * page needs a script or the network, so it can be attached to a mail, kept
 * as a CI artefact or opened from a file:// URL years later.
 *
 * The stable ids (and classes) the browser test and readers rely on:
 *   #summary #observed-vs-requested #other-behaviours #error-per-hz
 *   #legacy-jiffies #history #regressions #runs #unexplained
 *   circle.pt (a sample), circle.pt.out (a sample not inside its window),
 *   tr.sample in #unexplained, circle.reg-mark, circle.base-mark.
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

#include <sqlite3.h>

#include "output/dashboard/dashboard.h"
#include "history/db.h"
#include "model/model.h"
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

/* ------------------------------------------------------------------------
 * What the page is drawn from.
 */

/*
 * Every string read from the database once, by index: samples and history
 * groups then compare indices instead of strings. Open addressing on a
 * power-of-two table; index 0 is reserved for NULL.
 */
struct strtab {
	char **s;
	size_t n, cap;
	size_t *slot;		/* hash slot -> index + 1; 0: free */
	size_t nslot;
};

/* A variant of the chosen run. */
struct dvar {
	int64_t id;		/* variant_runs.id */
	size_t name;
	int hz;
	size_t ns, ninside;	/* counted from its samples */
};

/* A sample of the chosen run. */
struct dsample {
	size_t v;		/* index into dash.v */
	size_t key, transfer, behaviour, mode, verdict;
	int64_t case_idx, rep, timeout_ms, timeout_arg, delay_us, length;
	int64_t status, expected, elapsed, lo, hi, allowance;
};

struct dash {
	const struct hzrig_dash_opts *o;
	FILE *err;
	FILE *f;		/* the page being written */
	sqlite3 *db;
	struct strtab st;
	char *run;		/* the chosen run */
	char **runs;		/* every run, oldest first */
	size_t nruns;
	struct dvar *v;		/* by HZ, then name */
	size_t nv;
	struct dsample *s;	/* by variant, case, rep */
	size_t ns;
	unsigned int nsvg;	/* for unique ids */
	bool failed;		/* an SQLite error half-way: no page */
};

#define NO_STR	0

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static int strtab_grow(struct strtab *t)
{
	size_t ns = t->nslot ? t->nslot * 2 : 256, i, j;
	size_t *slot = calloc(ns, sizeof(*slot));

	if (!slot)
		return -1;
	for (i = 1; i < t->n; i++) {
		j = hash_str(t->s[i]) & (ns - 1);
		while (slot[j])
			j = (j + 1) & (ns - 1);
		slot[j] = i + 1;
	}
	free(t->slot);
	t->slot = slot;
	t->nslot = ns;
	return 0;
}

/* The index of @s (NULL: NO_STR); (size_t)-1 when out of memory. */
static size_t intern(struct strtab *t, const char *s)
{
	size_t j;
	char *c;

	if (!s)
		return NO_STR;
	if (!t->n) {
		t->s = calloc(16, sizeof(*t->s));
		if (!t->s)
			return (size_t)-1;
		t->cap = 16;
		t->n = 1;	/* NO_STR */
	}
	if ((t->n + 1) * 2 > t->nslot && strtab_grow(t))
		return (size_t)-1;
	j = hash_str(s) & (t->nslot - 1);
	for (; t->slot[j]; j = (j + 1) & (t->nslot - 1))
		if (!strcmp(t->s[t->slot[j] - 1], s))
			return t->slot[j] - 1;
	if (t->n == t->cap) {
		char **ns = realloc(t->s, t->cap * 2 * sizeof(*ns));

		if (!ns)
			return (size_t)-1;
		t->s = ns;
		t->cap *= 2;
	}
	c = strdup(s);
	if (!c)
		return (size_t)-1;
	t->s[t->n] = c;
	t->slot[j] = t->n + 1;
	return t->n++;
}

static void strtab_free(struct strtab *t)
{
	size_t i;

	for (i = 1; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

/* The string of index @i, "" for NO_STR. */
static const char *S(const struct dash *d, size_t i)
{
	return i == NO_STR || i >= d->st.n ? "" : d->st.s[i];
}

static void dberr(struct dash *d, const char *what)
{
	fprintf(d->err, "hzrig dashboard: %s: %s: %s\n", d->o->db_path, what,
		sqlite3_errmsg(d->db));
	d->failed = true;
}

/* Out of memory half-way: say so, and no page. */
static void out_of_memory(struct dash *d)
{
	fprintf(d->err, "hzrig dashboard: out of memory\n");
	d->failed = true;
}

static sqlite3_stmt *prep(struct dash *d, const char *sql)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) != SQLITE_OK) {
		dberr(d, "cannot read the history");
		sqlite3_finalize(st);
		return NULL;
	}
	return st;
}

/* A step of a query: true on a row, false when done (or on an error). */
static bool row(struct dash *d, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	if (rc == SQLITE_ROW)
		return true;
	if (rc != SQLITE_DONE)
		dberr(d, "reading the history");
	return false;
}

static int64_t col_i64(sqlite3_stmt *st, int c)
{
	if (sqlite3_column_type(st, c) == SQLITE_NULL)
		return HZRIG_ABSENT;
	return sqlite3_column_int64(st, c);
}

static double col_dbl(sqlite3_stmt *st, int c)
{
	if (sqlite3_column_type(st, c) == SQLITE_NULL)
		return NAN;
	return sqlite3_column_double(st, c);
}

static const char *col_str(sqlite3_stmt *st, int c)
{
	return (const char *)sqlite3_column_text(st, c);
}

static size_t col_intern(struct dash *d, sqlite3_stmt *st, int c)
{
	size_t i = intern(&d->st, col_str(st, c));

	if (i == (size_t)-1) {
		out_of_memory(d);
		return NO_STR;
	}
	return i;
}

/* Does the history have table @name? -1 on error. */
static int has_table(struct dash *d, const char *name)
{
	sqlite3_stmt *st = prep(d, "SELECT 1 FROM sqlite_master"
				   " WHERE type = 'table' AND name = ?1");
	int r;

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	r = row(d, st) ? 1 : 0;
	sqlite3_finalize(st);
	return d->failed ? -1 : r;
}

/*
 * Every run, oldest first: by the time in its id (started_at), else by
 * when it was ingested, as `hzrig history` orders them.
 */
static int load_runs(struct dash *d)
{
	sqlite3_stmt *st = prep(d, "SELECT run_id FROM runs ORDER BY"
				   " coalesce(started_at, ingested_at),"
				   " ingested_at, run_id");
	size_t cap = 0;

	if (!st)
		return -1;
	while (row(d, st)) {
		if (d->nruns == cap) {
			char **n = realloc(d->runs, (cap * 2 + 8) * sizeof(*n));

			if (!n)
				goto oom;
			d->runs = n;
			cap = cap * 2 + 8;
		}
		d->runs[d->nruns] = strdup(col_str(st, 0) ? col_str(st, 0) : "");
		if (!d->runs[d->nruns])
			goto oom;
		d->nruns++;
	}
	sqlite3_finalize(st);
	return d->failed ? -1 : 0;
oom:
	sqlite3_finalize(st);
	fprintf(d->err, "hzrig dashboard: out of memory\n");
	return -1;
}

static int load_variants(struct dash *d)
{
	sqlite3_stmt *st = prep(d, "SELECT id, variant, hz FROM variant_runs"
				   " WHERE run_id = ?1 ORDER BY hz, variant");
	size_t cap = 0;

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, d->run, -1, SQLITE_STATIC);
	while (row(d, st)) {
		if (d->nv == cap) {
			struct dvar *n = realloc(d->v, (cap * 2 + 4) * sizeof(*n));

			if (!n) {
				out_of_memory(d);
				break;
			}
			d->v = n;
			cap = cap * 2 + 4;
		}
		memset(&d->v[d->nv], 0, sizeof(d->v[0]));
		d->v[d->nv].id = sqlite3_column_int64(st, 0);
		d->v[d->nv].name = col_intern(d, st, 1);
		d->v[d->nv].hz = sqlite3_column_int(st, 2);
		d->nv++;
	}
	sqlite3_finalize(st);
	return d->failed ? -1 : 0;
}

static size_t var_index(const struct dash *d, int64_t id)
{
	size_t i;

	for (i = 0; i < d->nv; i++)
		if (d->v[i].id == id)
			return i;
	return 0;	/* cannot happen: the join is on the same run */
}

static int load_samples(struct dash *d)
{
	sqlite3_stmt *st = prep(d,
		"SELECT v.id, s.case_idx, s.rep, s.case_key, s.transfer,"
		" s.behaviour, s.mode, s.timeout_ms, s.timeout_arg, s.delay_us,"
		" s.length, s.status, s.expected_status, s.elapsed_ns,"
		" s.window_lo_ns, s.window_hi_ns, s.allowance_ns, s.verdict"
		" FROM samples s JOIN variant_runs v ON v.id = s.variant_run"
		" WHERE v.run_id = ?1 ORDER BY v.hz, v.variant, s.case_idx, s.rep");
	size_t cap = 0;

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, d->run, -1, SQLITE_STATIC);
	while (row(d, st)) {
		struct dsample *x;

		if (d->ns == cap) {
			x = realloc(d->s, (cap * 2 + 256) * sizeof(*x));
			if (!x) {
				out_of_memory(d);
				break;
			}
			d->s = x;
			cap = cap * 2 + 256;
		}
		x = &d->s[d->ns++];
		x->v = var_index(d, sqlite3_column_int64(st, 0));
		x->case_idx = sqlite3_column_int64(st, 1);
		x->rep = sqlite3_column_int64(st, 2);
		x->key = col_intern(d, st, 3);
		x->transfer = col_intern(d, st, 4);
		x->behaviour = col_intern(d, st, 5);
		x->mode = col_intern(d, st, 6);
		x->timeout_ms = sqlite3_column_int64(st, 7);
		x->timeout_arg = sqlite3_column_int64(st, 8);
		x->delay_us = col_i64(st, 9);
		x->length = col_i64(st, 10);
		x->status = sqlite3_column_int64(st, 11);
		x->expected = col_i64(st, 12);
		x->elapsed = sqlite3_column_int64(st, 13);
		x->lo = col_i64(st, 14);
		x->hi = col_i64(st, 15);
		x->allowance = col_i64(st, 16);
		x->verdict = col_intern(d, st, 17);
		d->v[x->v].ns++;
		if (!strcmp(S(d, x->verdict), "inside"))
			d->v[x->v].ninside++;
	}
	sqlite3_finalize(st);
	return d->failed ? -1 : 0;
}

static bool is(const struct dash *d, size_t i, const char *s)
{
	return !strcmp(S(d, i), s);
}

static bool inside(const struct dash *d, const struct dsample *x)
{
	return is(d, x->verdict, "inside");
}

/* ------------------------------------------------------------------------
 * Writing: text, escaped strings, numbers.
 */

static void __attribute__((format(printf, 2, 3)))
out(struct dash *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(d->f, fmt, ap);
	va_end(ap);
}

static void esc(struct dash *d, const char *s)
{
	hzrig_dash_escape(d->f, s);
}

/* A cell of two lines: @a, and @b (muted, smaller) under it. */
static void cell_two(struct dash *d, const char *a, const char *b,
		     const char *cls)
{
	out(d, "<td%s%s%s>", cls ? " class=\"" : "", cls ? cls : "",
	    cls ? "\"" : "");
	if (a && *a)
		esc(d, a);
	else
		out(d, "<span class=\"muted\">-</span>");
	if (b && *b) {
		out(d, "<br><span class=\"small muted\">");
		esc(d, b);
		out(d, "</span>");
	}
	out(d, "</td>");
}

/* ns as ms with 3 decimals (exact to the µs), "-" when absent. */
static char *ms3(char *buf, size_t n, int64_t ns)
{
	if (ns == HZRIG_ABSENT)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.3f", ns / 1e6);
	return buf;
}

#define MS(ns)	ms3((char[32]){ 0 }, 32, (ns))

/* A coordinate: two decimals are far below a pixel. */
#define XY(v)	((double)(int64_t)((v) * 100 + ((v) < 0 ? -0.5 : 0.5)) / 100)

/*
 * Colours: the Okabe-Ito set, distinguishable with the common colour
 * vision deficiencies. Transfers and behaviours have fixed colours so that
 * a reader learns them once; variants take them in HZ order.
 */
static const char *const palette[] = {
	"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9",
	"#7a5c00", "#555555",
};
#define NPALETTE	(sizeof(palette) / sizeof(palette[0]))

static const char *const transfers[] = {
	"bulk-in", "bulk-out", "ctrl-in", "ctrl-out", "int-in",
	"bulk-in-killable",
};

static const char *const behaviours[] = {
	"nak", "delay", "answer", "short", "stall",
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* The position of @s in @names, or a stable one past them for others. */
static size_t name_rank(const char *const *names, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			return i;
	return n + hash_str(s) % 2;
}

static const char *transfer_colour(const char *t)
{
	return palette[name_rank(transfers, ARRAY_SIZE(transfers), t) % NPALETTE];
}

static const char *behaviour_colour(const char *b)
{
	return palette[name_rank(behaviours, ARRAY_SIZE(behaviours), b) % NPALETTE];
}

static const char *variant_colour(size_t v)
{
	return palette[v % NPALETTE];
}

/* ------------------------------------------------------------------------
 * Charts: a plot area inside an SVG, its scales and its axes.
 */

struct plot {
	double w, h;			/* the whole SVG */
	double l, t, r, b;		/* the plot area's edges */
	struct hzrig_dash_scale x, y;
};

static void plot_init(struct plot *p, double w, double h, double ml,
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

static void plot_domain(struct plot *p, bool xlog, double x0, double x1,
			bool ylog, double y0, double y1)
{
	p->x.log = xlog;
	p->x.d0 = x0;
	p->x.d1 = x1;
	p->y.log = ylog;
	p->y.d0 = y0;
	p->y.d1 = y1;
}

static double px(const struct plot *p, double v)
{
	return hzrig_dash_map(&p->x, v);
}

static double py(const struct plot *p, double v)
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
static void svg_open(struct dash *d, const struct plot *p, const char *cls,
		     const char *title, const char *desc)
{
	unsigned int id = ++d->nsvg;

	out(d, "<svg class=\"chart %s\" viewBox=\"0 0 %g %g\" width=\"%g\""
	    " height=\"%g\" role=\"img\" aria-labelledby=\"svg%u-t svg%u-d\">"
	    "<title id=\"svg%u-t\">", cls, p->w, p->h, p->w, p->h, id, id, id);
	esc(d, title);
	out(d, "</title><desc id=\"svg%u-d\">", id);
	esc(d, desc);
	out(d, "</desc>\n");
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
static void axes(struct dash *d, const struct plot *p, const char *xlabel,
		 const char *ylabel)
{
	double t[64], v, last = -1e9;
	char lab[32];
	size_t n, i;

	out(d, "<rect class=\"frame\" x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\"/>\n",
	    XY(p->l), XY(p->t), XY(p->r - p->l), XY(p->b - p->t));
	n = axis_ticks(&p->x, t, ARRAY_SIZE(t), 8);
	for (i = 0; i < n; i++) {
		v = px(p, t[i]);
		out(d, "<line class=\"grid\" x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\"/>",
		    XY(v), XY(p->t), XY(v), XY(p->b));
		hzrig_dash_fmt(lab, sizeof(lab), t[i]);
		if (v - last < 7.5 * (double)strlen(lab) + 6)
			continue;
		last = v;
		out(d, "<text class=\"tick\" x=\"%g\" y=\"%g\""
		    " text-anchor=\"middle\">%s</text>\n",
		    XY(v), XY(p->b + 15), lab);
	}
	n = axis_ticks(&p->y, t, ARRAY_SIZE(t), 6);
	last = 1e9;
	for (i = 0; i < n; i++) {
		v = py(p, t[i]);
		out(d, "<line class=\"grid\" x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\"/>",
		    XY(p->l), XY(v), XY(p->r), XY(v));
		if (last - v < 14)
			continue;
		last = v;
		out(d, "<text class=\"tick\" x=\"%g\" y=\"%g\""
		    " text-anchor=\"end\">%s</text>\n",
		    XY(p->l - 5), XY(v + 4),
		    hzrig_dash_fmt(lab, sizeof(lab), t[i]));
	}
	if (xlabel) {
		out(d, "<text class=\"axis\" x=\"%g\" y=\"%g\" text-anchor=\"middle\">",
		    XY((p->l + p->r) / 2), XY(p->b + 33));
		esc(d, xlabel);
		out(d, "</text>\n");
	}
	if (ylabel) {
		out(d, "<text class=\"axis\" transform=\"translate(%g %g) rotate(-90)\""
		    " text-anchor=\"middle\">", XY(p->l - 42), XY((p->t + p->b) / 2));
		esc(d, ylabel);
		out(d, "</text>\n");
	}
}

/* Clip what is drawn next to the plot area (a value off the scale). */
static void clip_open(struct dash *d, const struct plot *p)
{
	unsigned int id = ++d->nsvg;

	out(d, "<clipPath id=\"clip%u\"><rect x=\"%g\" y=\"%g\" width=\"%g\""
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
static double worst_error(int hz, double a, double b)
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

static void model_band(struct dash *d, const struct plot *p, int hz,
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
			hi[n] = worst_error(hz, a - 1000.0 / hz + 1, b);
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
		out(d, "<path class=\"%s\" stroke=\"%s\" d=\"", cls, colour);
		for (i = 0; i < n; i++)
			out(d, "%s%g %g", i ? " L" : "M", XY(xs[i]),
			    XY(py(p, hi[i])));
		out(d, "\"/>\n");
		return;
	}
	out(d, "<path class=\"%s\" d=\"", cls);
	for (i = 0; i < n; i++)
		out(d, "%s%g %g", i ? " L" : "M", XY(xs[i]), XY(py(p, hi[i])));
	for (i = n; i-- > 0;)
		out(d, " L%g %g", XY(xs[i]), XY(py(p, lo[i])));
	out(d, " Z\"/>\n");
}

/* ------------------------------------------------------------------------
 * The page: head and summary.
 */

static const char css[] =
	":root{--ink:#1d232a;--muted:#5b6570;--line:#d9dee3;--panel:#f5f7f9;"
	"--bad:#c62828;--good:#1b7f3b}\n"
	"*{box-sizing:border-box}\n"
	"body{margin:0;font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,"
	"'Helvetica Neue',Arial,sans-serif;color:var(--ink);background:#fff}\n"
	"header{background:#15212c;color:#fff;padding:16px 28px 10px}\n"
	"header h1{margin:0;font-size:21px;font-weight:600;letter-spacing:.2px}\n"
	"header .sub{color:#c5cfd8;margin:3px 0 10px}\n"
	"header .sub b{color:#fff}\n"
	"nav a{color:#9fd0ff;margin-right:18px;text-decoration:none;font-size:13px}\n"
	"nav a:hover{text-decoration:underline}\n"
	"main{max-width:1250px;margin:0 auto;padding:4px 18px 40px}\n"
	"section{margin:26px 0 6px}\n"
	"h2{font-size:18px;font-weight:600;margin:0 0 4px;padding-bottom:4px;"
	"border-bottom:2px solid var(--line)}\n"
	"h3{font-size:14px;font-weight:600;margin:14px 0 4px}\n"
	"p.lead{color:var(--muted);margin:4px 0 10px;max-width:1000px}\n"
	"code,.mono{font-family:ui-monospace,'DejaVu Sans Mono',Menlo,monospace;"
	"font-size:12px}\n"
	".panels{display:flex;flex-wrap:wrap;gap:10px}\n"
	".chart{background:#fff;border:1px solid var(--line);border-radius:6px;"
	"max-width:100%;height:auto;display:block}\n"
	".chart text{fill:var(--ink)}\n"
	".chart .tick{font-size:11px;fill:var(--muted)}\n"
	".chart .axis{font-size:12px;fill:var(--muted)}\n"
	".chart .ptitle{font-size:13.5px;font-weight:600}\n"
	".chart .pnote{font-size:11.5px;fill:var(--muted)}\n"
	".chart .pnote.bad{fill:var(--bad);font-weight:600}\n"
	".chart .lab{font-size:11.5px}\n"
	".frame{fill:none;stroke:#aab4be}\n"
	".grid{stroke:#edf0f3}\n"
	".band{fill:#7fa9d6;fill-opacity:.22}\n"
	".allow{fill:#e9b949;fill-opacity:.22}\n"
	".win{fill:#2f6fad;fill-opacity:.32}\n"
	".diag{stroke:#7d8790;stroke-dasharray:4 3;fill:none}\n"
	".pt{stroke:#fff;stroke-width:.5;fill-opacity:.85}\n"
	".pt.out{stroke:var(--bad);stroke-width:2.2;fill-opacity:1}\n"
	".worst{fill:none;stroke-width:1.5;stroke-dasharray:6 4;opacity:.9}\n"
	".med{fill:none;stroke-width:2}\n"
	".med.thin{stroke-width:1.2;opacity:.55}\n"
	".whisk{stroke-width:1.5}\n"
	".sbnd{fill:#7fa9d6;fill-opacity:.35}\n"
	".sline{fill:none;stroke:#3b4650;stroke-width:1.3}\n"
	".sdot{fill:#3b4650}\n"
	".selrun{fill:#edf1f5}\n"
	".reg-mark{fill:var(--bad);stroke:#fff;stroke-width:1}\n"
	".base-mark{fill:none;stroke:var(--good);stroke-width:1.6}\n"
	".legend{display:flex;flex-wrap:wrap;gap:6px 16px;font-size:12.5px;"
	"color:var(--muted);margin:4px 0 10px}\n"
	".sw{display:inline-block;width:11px;height:11px;border-radius:50%;"
	"vertical-align:-1px;margin-right:5px}\n"
	".sw.sq{border-radius:2px}\n"
	".sw.line{width:18px;height:0;border-radius:0;border-top:2px dashed #7d8790;"
	"vertical-align:3px}\n"
	".sw.out{background:#fff;border:2.2px solid var(--bad)}\n"
	".sw.band{background:rgba(127,169,214,.35)}\n"
	".sw.win{background:rgba(47,111,173,.45)}\n"
	".sw.allow{background:rgba(233,185,73,.4)}\n"
	".sw.reg{background:var(--bad)}\n"
	".sw.base{background:#fff;border:1.6px solid var(--good)}\n"
	"table.data{border-collapse:collapse;font-size:12.5px;margin:6px 0 4px}\n"
	"table.data caption{text-align:left;color:var(--muted);padding:2px 0 6px;"
	"caption-side:top}\n"
	"table.data th{text-align:left;background:var(--panel);font-weight:600;"
	"border-bottom:1px solid var(--line);padding:5px 8px;white-space:nowrap}\n"
	"table.data td{border-bottom:1px solid #edf0f3;padding:4px 8px;"
	"vertical-align:middle}\n"
	"table.data tbody tr:hover td{background:#f7fafc}\n"
	"table.wide{width:100%}\n"
	".num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
	"th.num{text-align:right}\n"
	"tr.sel td{background:#f2f8ff}\n"
	"tr.first td{border-top:2px solid var(--line)}\n"
	"tr.group th{background:#fff;color:var(--muted);font-weight:600;"
	"padding-top:12px;border-bottom:1px solid var(--line)}\n"
	"td.nw{white-space:nowrap}\n"
	"td.kern{max-width:230px}\n"
	".small{font-size:11.5px}\n"
	"td.reg{background:#fdecea}\n"
	".bad{color:var(--bad);font-weight:600}\n"
	".good{color:var(--good)}\n"
	".muted{color:var(--muted)}\n"
	".cards{display:flex;gap:10px;flex-wrap:wrap;margin:12px 0 4px}\n"
	".card{border:1px solid var(--line);border-radius:6px;padding:8px 14px;"
	"min-width:200px;background:var(--panel)}\n"
	".card .v{font-size:16px;font-weight:600}\n"
	".card .k{color:var(--muted);font-size:12px}\n"
	".banner{border-left:4px solid var(--bad);background:#fdecea;"
	"padding:8px 12px;margin:12px 0}\n"
	".note{border-left:4px solid #7fa9d6;background:var(--panel);"
	"padding:8px 12px;margin:12px 0}\n"
	"td.spark{padding:2px 6px;white-space:nowrap}\n"
	"td.spark svg{vertical-align:middle}\n"
	"td.spark .last{display:inline-block;min-width:74px;text-align:right;"
	"font-variant-numeric:tabular-nums;font-size:12px}\n"
	"footer{color:var(--muted);font-size:12px;margin-top:30px;"
	"border-top:1px solid var(--line);padding-top:8px}\n";

static void page_head(struct dash *d, const char *title)
{
	out(d, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	    "<meta charset=\"utf-8\">\n"
	    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	    "<meta name=\"generator\" content=\"hzrig dashboard\">\n"
	    "<title>");
	esc(d, title);
	out(d, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", css);
}

static void page_foot(struct dash *d)
{
	char now[32];
	time_t t = time(NULL);
	struct tm tm;

	strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	out(d, "<footer>Written by <code>hzrig dashboard</code> at %s from <code>",
	    now);
	esc(d, d->o->db_path);
	out(d, "</code>. Static page: no script, no network resources."
	    " See docs/dashboard.md for how to read it.</footer>\n"
	    "</main>\n</body>\n</html>\n");
}

/* Count the rows of @sql with ?1 bound to the chosen run; -1 on error. */
static int64_t count(struct dash *d, const char *sql)
{
	sqlite3_stmt *st = prep(d, sql);
	int64_t n = -1;

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, d->run, -1, SQLITE_STATIC);
	if (row(d, st))
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

static size_t n_unexplained(const struct dash *d)
{
	size_t i, n = 0;

	for (i = 0; i < d->ns; i++)
		n += !inside(d, &d->s[i]);
	return n;
}

static void header(struct dash *d, int64_t nreg)
{
	sqlite3_stmt *st;
	size_t bad = n_unexplained(d);

	out(d, "<header>\n<h1>hzrig: how long USB timeouts really take, per HZ</h1>\n"
	    "<p class=\"sub\">Run <b class=\"mono\" id=\"run-id\">");
	esc(d, d->run);
	out(d, "</b>");
	st = prep(d, "SELECT started_at, plan, hzrig_version, source FROM runs"
		     " WHERE run_id = ?1");
	if (st) {
		sqlite3_bind_text(st, 1, d->run, -1, SQLITE_STATIC);
		if (row(d, st)) {
			if (col_str(st, 0)) {
				out(d, " &middot; started ");
				esc(d, col_str(st, 0));
			}
			if (col_str(st, 1)) {
				out(d, " &middot; plan ");
				esc(d, col_str(st, 1));
			}
			if (col_str(st, 2)) {
				out(d, " &middot; hzrig ");
				esc(d, col_str(st, 2));
			}
		}
		sqlite3_finalize(st);
	}
	out(d, " &middot; %zu variant%s, %zu samples, ", d->nv,
	    d->nv == 1 ? "" : "s", d->ns);
	out(d, "<b>%zu</b> not inside the model's window &middot; %zu run%s"
	    " in the history</p>\n", bad, d->nruns, d->nruns == 1 ? "" : "s");
	out(d, "<nav><a href=\"#observed-vs-requested\">Observed vs requested</a>"
	    "<a href=\"#error-per-hz\">Error per HZ</a>"
	    "<a href=\"#legacy-jiffies\">Legacy jiffies</a>"
	    "<a href=\"#history\">History</a>"
	    "<a href=\"#regressions\">Regressions (%" PRId64 ")</a>"
	    "<a href=\"#runs\">Runs &amp; noise</a>"
	    "<a href=\"#unexplained\">Unexplained (%zu)</a></nav>\n"
	    "</header>\n<main>\n", nreg, bad);
}

static void summary(struct dash *d, int64_t nreg)
{
	sqlite3_stmt *st;
	size_t i;

	out(d, "<section id=\"summary\">\n");
	if (nreg > 0)
		out(d, "<div class=\"banner\"><b>%" PRId64 " regression%s</b>"
		    " recorded for this run against its baselines:"
		    " see <a href=\"#regressions\">Regressions</a>.</div>\n",
		    nreg, nreg == 1 ? "" : "s");
	out(d, "<div class=\"cards\">\n");
	st = prep(d, "SELECT variant, release, allowance_ns, overshoot_p99_ns,"
		     " rtt_p99_ns, boot_status FROM variant_runs WHERE run_id = ?1"
		     " ORDER BY hz, variant");
	if (!st)
		return;
	sqlite3_bind_text(st, 1, d->run, -1, SQLITE_STATIC);
	for (i = 0; row(d, st) && i < d->nv; i++) {
		const struct dvar *v = &d->v[i];
		bool ok = v->ninside == v->ns;

		out(d, "<div class=\"card\"><span class=\"sw\" style=\"background:%s\">"
		    "</span><span class=\"v\">", variant_colour(i));
		esc(d, S(d, v->name));
		out(d, "</span> <span class=\"k\">HZ=%d", v->hz);
		if (col_str(st, 1)) {
			out(d, ", ");
			esc(d, col_str(st, 1));
		}
		out(d, "</span><br><span class=\"%s\">%zu / %zu inside</span>"
		    " <span class=\"k\">&middot; allowance %s ms &middot; boot ",
		    ok ? "good" : "bad", v->ninside, v->ns, MS(col_i64(st, 2)));
		esc(d, col_str(st, 5) ? col_str(st, 5) : "?");
		out(d, "</span></div>\n");
	}
	sqlite3_finalize(st);
	out(d, "</div>\n</section>\n");
}

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
	/* T <= 0 has no place on a log axis (the 60 s clamp, or forever). */
	if (!is(d, x->mode, "ms") || x->timeout_ms <= 0)
		return false;
	return is(d, x->behaviour, "nak") == (w == NAK_MS);
}

static void sample_title(struct dash *d, const struct dsample *x)
{
	out(d, "<title>");
	esc(d, S(d, x->key));
	out(d, " rep %" PRId64 ": %s ms, status %" PRId64, x->rep,
	    MS(x->elapsed), x->status);
	if (x->lo != HZRIG_ABSENT)
		out(d, ", window (%s, %s] ms", MS(x->lo), MS(x->hi));
	if (x->allowance != HZRIG_ABSENT)
		out(d, " \xc2\xb1 %s", MS(x->allowance));
	out(d, ", ");
	esc(d, S(d, x->verdict));
	out(d, "</title>");
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

		if (x->v != v || !wanted(d, x, w) || x->lo == HZRIG_ABSENT)
			continue;
		for (j = 0; j < n; j++)
			if (ws[j].t == x->timeout_ms && ws[j].lo == x->lo &&
			    ws[j].hi == x->hi)
				break;
		if (j == n && n < ARRAY_SIZE(ws)) {
			ws[n].t = x->timeout_ms;
			ws[n].lo = x->lo;
			ws[n].hi = x->hi;
			ws[n].allowance = x->allowance == HZRIG_ABSENT ?
					  0 : x->allowance;
			n++;
		}
	}
	for (i = 0; i < n; i++) {
		double lo = ws[i].lo / 1e6, hi = ws[i].hi / 1e6;
		double a = ws[i].allowance / 1e6;
		double ya = py(p, hi + a), yb = py(p, lo - a > 0 ? lo - a : 0);

		x0 = px(p, (double)ws[i].t) - 8;
		x1 = x0 + 16;
		out(d, "<rect class=\"allow\" x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\"/>",
		    XY(x0), XY(ya), XY(x1 - x0), XY(yb - ya));
		ya = py(p, hi);
		yb = py(p, lo);
		/* A window narrower than a pixel still shows. */
		if (yb - ya < 1.5)
			ya = yb - 1.5;
		out(d, "<rect class=\"win\" x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\"/>\n",
		    XY(x0), XY(ya), XY(x1 - x0), XY(yb - ya));
	}
}

/* A sample's horizontal offset: transfers side by side, reps spread. */
static double jitter(const struct dash *d, const struct dsample *x,
		     enum which w)
{
	double k;

	if (w == NAK_MS)
		k = (double)name_rank(transfers, ARRAY_SIZE(transfers),
				      S(d, x->transfer)) - 2.5;
	else
		k = (double)name_rank(behaviours, ARRAY_SIZE(behaviours),
				      S(d, x->behaviour)) - 2;
	return k * 2.2 + (double)(x->rep % 3 - 1) * 0.9;
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
			in = inside(d, x);
			if (in != (pass == 0))
				continue;
			out(d, "<circle class=\"pt%s\" cx=\"%g\" cy=\"%g\""
			    " r=\"%s\" fill=\"%s\">",
			    in ? "" : " out",
			    XY(px(p, (double)x->timeout_ms) + jitter(d, x, w)),
			    XY(py(p, x->elapsed / 1e6)), in ? "2.6" : "4",
			    w == NAK_MS ? transfer_colour(S(d, x->transfer)) :
					  behaviour_colour(S(d, x->behaviour)));
			sample_title(d, x);
			out(d, "</circle>\n");
		}
	}
}

/* The index of @s, NO_STR when the table does not have it. */
static size_t lookup(const struct strtab *t, const char *s)
{
	size_t j;

	if (!t->nslot)
		return NO_STR;
	j = hash_str(s) & (t->nslot - 1);
	for (; t->slot[j]; j = (j + 1) & (t->nslot - 1))
		if (!strcmp(t->s[t->slot[j] - 1], s))
			return t->slot[j] - 1;
	return NO_STR;
}

static void swatch(struct dash *d, const char *colour, const char *name)
{
	out(d, "<span><span class=\"sw\" style=\"background:%s\"></span>",
	    colour);
	esc(d, name);
	out(d, "</span>");
}

/* The transfers (or behaviours) the panels show, known ones in order. */
static void legend_names(struct dash *d, enum which w)
{
	const char *const *names = w == NAK_MS ? transfers : behaviours;
	size_t n = w == NAK_MS ? ARRAY_SIZE(transfers) : ARRAY_SIZE(behaviours);
	bool *seen = calloc(d->st.n + 1, sizeof(*seen));
	size_t i, j;

	if (!seen)
		return;
	for (i = 0; i < d->ns; i++)
		if (wanted(d, &d->s[i], w))
			seen[w == NAK_MS ? d->s[i].transfer : d->s[i].behaviour] = true;
	for (j = 0; j < n; j++) {
		i = lookup(&d->st, names[j]);
		if (i != NO_STR && seen[i])
			swatch(d, palette[j % NPALETTE], names[j]);
	}
	for (i = 1; i < d->st.n; i++)
		if (seen[i] && name_rank(names, n, S(d, i)) >= n)
			swatch(d, w == NAK_MS ? transfer_colour(S(d, i)) :
				  behaviour_colour(S(d, i)), S(d, i));
	free(seen);
}

static void diagonal(struct dash *d, const struct plot *p)
{
	double a = fmax(p->x.d0, p->y.d0), b = fmin(p->x.d1, p->y.d1);

	if (a >= b)
		return;
	out(d, "<line class=\"diag\" x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\"/>\n",
	    XY(px(p, a)), XY(py(p, a)), XY(px(p, b)), XY(py(p, b)));
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
		t0 = fmin(t0, (double)x->timeout_ms);
		t1 = fmax(t1, (double)x->timeout_ms);
		if (x->elapsed > 0) {
			y0 = fmin(y0, x->elapsed / 1e6);
			y1 = fmax(y1, x->elapsed / 1e6);
		}
		/* The window shows whole; elsewhere the timer's end shows. */
		if (w == NAK_MS && x->lo != HZRIG_ABSENT && x->lo > 0)
			y0 = fmin(y0, x->lo / 1e6);
		if (x->hi != HZRIG_ABSENT && x->hi > 0)
			y1 = fmax(y1, x->hi / 1e6);
	}
	if (!n) {
		out(d, "<p class=\"note\">This run has no such samples.</p>\n");
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
	out(d, "<div class=\"panels\">\n");
	for (v = 0; v < d->nv; v++) {
		size_t nv = 0, bad = 0;
		char title[256];
		struct plot p;

		for (i = 0; i < d->ns; i++) {
			if (d->s[i].v != v || !wanted(d, &d->s[i], w))
				continue;
			nv++;
			bad += !inside(d, &d->s[i]);
		}
		if (!nv)
			continue;
		plot_init(&p, width, 330, 58, 36, 20, 46);
		plot_domain(&p, true, xl, xh, true, yl, yh);
		snprintf(title, sizeof(title), "%s (HZ=%d): observed vs requested"
			 " timeout, %s", S(d, d->v[v].name), d->v[v].hz,
			 w == NAK_MS ? "NAKed calls, ms mode" :
				       "answered, short, stalled and delayed calls, ms mode");
		svg_open(d, &p, w == NAK_MS ? "obs" : "other", title,
			 "Log-log scatter: requested timeout T on x, measured"
			 " wait on y, one dot per call; the model's window as a"
			 " band.");
		axes(d, &p, "requested timeout T (ms)", "measured wait (ms)");
		out(d, "<text x=\"%g\" y=\"22\"><tspan class=\"ptitle\">", XY(p.l));
		esc(d, S(d, d->v[v].name));
		out(d, "</tspan><tspan class=\"pnote\" dx=\"8\">HZ=%d &#183; %zu"
		    " calls</tspan>", d->v[v].hz, nv);
		if (bad)
			out(d, "<tspan class=\"pnote bad\" dx=\"6\">&#183; %zu not"
			    " inside</tspan>", bad);
		out(d, "</text>\n");
		clip_open(d, &p);
		model_band(d, &p, d->v[v].hz, "band", NULL, false);
		if (w == NAK_MS)
			case_windows(d, &p, v, w);
		diagonal(d, &p);
		points(d, &p, v, w);
		out(d, "</g></svg>\n");
	}
	out(d, "</div>\n");
}

static void section_observed(struct dash *d)
{
	out(d, "<section id=\"observed-vs-requested\">\n"
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
	out(d, "<span><span class=\"sw sq band\"></span>model window, any T</span>"
	    "<span><span class=\"sw sq win\"></span>window of the case</span>"
	    "<span><span class=\"sw sq allow\"></span>&#177; noise allowance</span>"
	    "<span><span class=\"sw out\"></span>not inside</span>"
	    "<span><span class=\"sw line\"></span>wait = T</span></div>\n");
	panels(d, NAK_MS);
	out(d, "</section>\n<section id=\"other-behaviours\">\n"
	    "<h2>Answered, short, stalled and delayed calls</h2>\n"
	    "<p class=\"lead\">The same axes for calls the gadget answered (at"
	    " once, short, with a stall, or after a delay D). They must end"
	    " before the timer would fire (the band), a stall within two"
	    " jiffies, a delayed answer about D after the start. A call that"
	    " sits in the band here waited for its timeout instead.</p>\n"
	    "<div class=\"legend\">");
	legend_names(d, OTHER_MS);
	out(d, "<span><span class=\"sw sq band\"></span>model window (timer)</span>"
	    "<span><span class=\"sw out\"></span>not inside</span>"
	    "<span><span class=\"sw line\"></span>wait = T</span></div>\n");
	panels(d, OTHER_MS);
	out(d, "</section>\n");
}

/* ------------------------------------------------------------------------
 * Error per HZ: median(wait - T) of the NAKed ms-mode cases, all variants
 * on one chart, with the model's worst case hi - T.
 */

struct egroup {
	size_t v;
	int64_t t;
	size_t n, bad;
	int64_t p5, med, p95;	/* of wait - T, ns */
	int64_t hi;		/* the recorded window's upper edge */
};

struct eitem {
	size_t v;
	int64_t t, err, hi;
	bool bad;
};

static int cmp_eitem(const void *a, const void *b)
{
	const struct eitem *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->err < y->err ? -1 : x->err > y->err;
}

/* Group the NAKed ms-mode samples by variant and T; -1 out of memory. */
static int error_groups(struct dash *d, struct egroup **gp, size_t *np)
{
	struct eitem *it = calloc(d->ns + 1, sizeof(*it));
	int64_t *e = calloc(d->ns + 1, sizeof(*e));
	struct egroup *g = calloc(d->ns + 1, sizeof(*g));
	size_t n = 0, ng = 0, i, j, k;

	if (!it || !e || !g) {
		free(it);
		free(e);
		free(g);
		return -1;
	}
	for (i = 0; i < d->ns; i++) {
		const struct dsample *x = &d->s[i];

		if (!wanted(d, x, NAK_MS))
			continue;
		it[n].v = x->v;
		it[n].t = x->timeout_ms;
		it[n].err = x->elapsed - x->timeout_ms * 1000000;
		it[n].hi = x->hi;
		it[n].bad = !inside(d, x);
		n++;
	}
	qsort(it, n, sizeof(*it), cmp_eitem);
	for (i = 0; i < n; i = j) {
		struct egroup *x = &g[ng++];

		for (j = i; j < n && it[j].v == it[i].v && it[j].t == it[i].t; j++)
			;
		x->v = it[i].v;
		x->t = it[i].t;
		x->n = j - i;
		x->hi = HZRIG_ABSENT;
		for (k = i; k < j; k++) {
			e[k - i] = it[k].err;
			x->bad += it[k].bad;
			if (it[k].hi != HZRIG_ABSENT)
				x->hi = it[k].hi;
		}
		x->p5 = hzrig_percentile(e, x->n, 5);
		x->med = hzrig_percentile(e, x->n, 50);
		x->p95 = hzrig_percentile(e, x->n, 95);
	}
	free(it);
	free(e);
	*gp = g;
	*np = ng;
	return 0;
}

/* The smallest and largest worst-case error (ms) of the model over T. */
static void worst_range(int hz, double t0, double t1, double *mn, double *mx)
{
	double a, b, e;
	int i;

	for (i = 0; i < 200; i++) {
		a = pow(10, log10(t0) + i * (log10(t1) - log10(t0)) / 200);
		b = pow(10, log10(t0) + (i + 1) * (log10(t1) - log10(t0)) / 200);
		e = worst_error(hz, a - 1000.0 / hz + 1, b);
		if (e > 0) {
			*mn = fmin(*mn, e);
			*mx = fmax(*mx, e);
		}
	}
}

static void error_chart(struct dash *d, const struct egroup *g, size_t ng)
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
		if (d->v[v].hz >= HZRIG_MODEL_HZ_MIN &&
		    d->v[v].hz <= HZRIG_MODEL_HZ_MAX)
			worst_range(d->v[v].hz, xl, xh, &y0, &y1);
	if (!(y1 > 0))
		y0 = y1 = 1;
	hzrig_dash_log_domain(y0 / 1.3, y1 * 1.3, &yl, &yh);

	plot_init(&p, 1210, 430, 66, 18, 18, 48);
	plot_domain(&p, true, xl, xh, true, yl, yh);
	svg_open(d, &p, "err", "Timeout error (wait minus T) per HZ, NAKed calls, ms mode",
		 "Median of the measured wait minus the requested timeout T, per"
		 " T and variant, with p5 to p95 whiskers; dashed: the model's"
		 " worst case (hi - T) at each variant's HZ.");
	axes(d, &p, "requested timeout T (ms)", "wait \xe2\x88\x92 T (ms)");
	clip_open(d, &p);
	for (v = 0; v < d->nv; v++)
		model_band(d, &p, d->v[v].hz, "worst", variant_colour(v), true);
	for (v = 0; v < d->nv; v++) {
		const char *c = variant_colour(v);

		off = ((double)v - (double)(d->nv - 1) / 2) * 5;
		out(d, "<path class=\"med thin\" stroke=\"%s\" d=\"", c);
		for (i = 0, k = 0; i < ng; i++) {
			if (g[i].v != v)
				continue;
			out(d, "%s%g %g", k++ ? " L" : "M",
			    XY(px(&p, (double)g[i].t) + off),
			    XY(py(&p, g[i].med / 1e6)));
		}
		out(d, "\"/>\n");
		for (i = 0; i < ng; i++) {
			if (g[i].v != v)
				continue;
			x = px(&p, (double)g[i].t) + off;
			y = py(&p, g[i].med / 1e6);
			out(d, "<line class=\"whisk\" stroke=\"%s\" x1=\"%g\" y1=\"%g\""
			    " x2=\"%g\" y2=\"%g\"/>", c, XY(x), XY(py(&p, g[i].p5 / 1e6)),
			    XY(x), XY(py(&p, g[i].p95 / 1e6)));
			out(d, "<circle class=\"pt%s\" cx=\"%g\" cy=\"%g\" r=\"4.2\""
			    " fill=\"%s\"><title>", g[i].bad ? " out" : "", XY(x),
			    XY(y), c);
			esc(d, S(d, d->v[v].name));
			out(d, " T=%" PRId64 " ms: median error %s ms, p5 %s, p95 %s,"
			    " %zu calls", g[i].t, MS(g[i].med), MS(g[i].p5),
			    MS(g[i].p95), g[i].n);
			if (g[i].hi != HZRIG_ABSENT)
				out(d, ", model worst %s ms",
				    MS(g[i].hi - g[i].t * 1000000));
			out(d, "</title></circle>\n");
		}
	}
	out(d, "</g></svg>\n");
}

static void error_table(struct dash *d, const struct egroup *g, size_t ng)
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
	out(d, "<table class=\"data\" id=\"error-table\">\n<caption>Median and p95 of"
	    " wait &#8722; T in ms, and the model's worst case (hi &#8722; T) the"
	    " case was judged against.</caption>\n<thead><tr><th rowspan=\"2\">T (ms)</th>");
	for (v = 0; v < d->nv; v++) {
		out(d, "<th colspan=\"3\" scope=\"colgroup\"><span class=\"sw\""
		    " style=\"background:%s\"></span>", variant_colour(v));
		esc(d, S(d, d->v[v].name));
		out(d, "</th>");
	}
	out(d, "</tr>\n<tr>");
	for (v = 0; v < d->nv; v++)
		out(d, "<th class=\"num\">median</th><th class=\"num\">p95</th>"
		    "<th class=\"num\">worst</th>");
	out(d, "</tr></thead>\n<tbody>\n");
	for (j = 0; j < nt; j++) {
		out(d, "<tr><th scope=\"row\" class=\"num\">%" PRId64 "</th>", ts[j]);
		for (v = 0; v < d->nv; v++) {
			for (i = 0; i < ng; i++)
				if (g[i].v == v && g[i].t == ts[j])
					break;
			if (i == ng) {
				out(d, "<td class=\"num muted\" colspan=\"3\">-</td>");
				continue;
			}
			out(d, "<td class=\"num%s\">%s</td><td class=\"num\">%s</td>"
			    "<td class=\"num muted\">%s</td>",
			    g[i].bad ? " bad" : "", MS(g[i].med), MS(g[i].p95),
			    g[i].hi == HZRIG_ABSENT ? "-" :
			    MS(g[i].hi - g[i].t * 1000000));
		}
		out(d, "</tr>\n");
	}
	out(d, "</tbody></table>\n");
}

static void section_error(struct dash *d)
{
	struct egroup *g = NULL;
	size_t ng = 0, v;

	out(d, "<section id=\"error-per-hz\">\n<h2>Timeout error per HZ</h2>\n"
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
	if (error_groups(d, &g, &ng)) {
		out_of_memory(d);
		return;
	}
	for (v = 0; v < d->nv; v++)
		swatch(d, variant_colour(v), S(d, d->v[v].name));
	out(d, "<span><span class=\"sw line\"></span>model worst case</span>"
	    "<span><span class=\"sw out\"></span>a call not inside</span></div>\n");
	if (!ng)
		out(d, "<p class=\"note\">This run has no NAKed ms-mode calls.</p>\n");
	else {
		error_chart(d, g, ng);
		error_table(d, g, ng);
	}
	free(g);
	out(d, "</section>\n");
}

/* ------------------------------------------------------------------------
 * Legacy jiffies: callers that pass a jiffy count where the API wants ms.
 */

struct litem {
	size_t mode, v;
	int64_t t, arg, elapsed, hi;
	bool bad;
};

struct lgroup {
	size_t mode, v;
	int64_t t, arg, med, hi;
	size_t n, bad;
};

static int cmp_litem(const void *a, const void *b, void *ctx)
{
	const struct litem *x = a, *y = b;
	int c = strcmp(S(ctx, x->mode), S(ctx, y->mode));

	if (c)
		return c;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return x->elapsed < y->elapsed ? -1 : x->elapsed > y->elapsed;
}

static int legacy_groups(struct dash *d, struct lgroup **gp, size_t *np)
{
	struct litem *it = calloc(d->ns + 1, sizeof(*it));
	int64_t *e = calloc(d->ns + 1, sizeof(*e));
	struct lgroup *g = calloc(d->ns + 1, sizeof(*g));
	size_t n = 0, ng = 0, i, j, k;

	if (!it || !e || !g) {
		free(it);
		free(e);
		free(g);
		return -1;
	}
	for (i = 0; i < d->ns; i++) {
		const struct dsample *x = &d->s[i];

		/* Timed-out calls only: an answered call does not wait. */
		if (is(d, x->mode, "ms") || !is(d, x->behaviour, "nak"))
			continue;
		it[n].mode = x->mode;
		it[n].v = x->v;
		it[n].t = x->timeout_ms;
		it[n].arg = x->timeout_arg;
		it[n].elapsed = x->elapsed;
		it[n].hi = x->hi;
		it[n].bad = !inside(d, x);
		n++;
	}
	qsort_r(it, n, sizeof(*it), cmp_litem, d);
	for (i = 0; i < n; i = j) {
		struct lgroup *x = &g[ng++];

		for (j = i; j < n && it[j].mode == it[i].mode &&
			    it[j].t == it[i].t && it[j].v == it[i].v; j++)
			;
		x->mode = it[i].mode;
		x->v = it[i].v;
		x->t = it[i].t;
		x->arg = it[i].arg;
		x->hi = it[i].hi;
		x->n = j - i;
		for (k = i; k < j; k++) {
			e[k - i] = it[k].elapsed;
			x->bad += it[k].bad;
		}
		x->med = hzrig_percentile(e, x->n, 50);
	}
	free(it);
	free(e);
	*gp = g;
	*np = ng;
	return 0;
}

/* Is group @i the first of its (mode, T)? */
static bool lseries_start(const struct lgroup *g, size_t i)
{
	return !i || g[i - 1].mode != g[i].mode || g[i - 1].t != g[i].t;
}

static void legacy_chart(struct dash *d, const struct lgroup *g, size_t ng)
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
	plot_init(&p, 560, 340, 66, 18, 18, 48);
	/* x: the variants, evenly spaced, by HZ. */
	plot_domain(&p, false, -0.5, (double)d->nv - 0.5, true, yl, yh);
	svg_open(d, &p, "legacy", "Wait of a jiffy count passed as ms, per variant",
		 "Median wait of calls that passed a jiffy count where the API"
		 " wants ms, one line per mode and requested T, across the"
		 " variants ordered by HZ; dashed grey: the T that was meant.");
	out(d, "<rect class=\"frame\" x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\"/>\n",
	    XY(p.l), XY(p.t), XY(p.r - p.l), XY(p.b - p.t));
	{
		double t[32];
		size_t n = hzrig_dash_ticks_log(yl, yh, t, ARRAY_SIZE(t));

		for (i = 0; i < n; i++) {
			double y = py(&p, t[i]);

			out(d, "<line class=\"grid\" x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\"/>"
			    "<text class=\"tick\" x=\"%g\" y=\"%g\""
			    " text-anchor=\"end\">%s</text>\n",
			    XY(p.l), XY(y), XY(p.r), XY(y), XY(p.l - 5), XY(y + 4),
			    hzrig_dash_fmt(lab, sizeof(lab), t[i]));
		}
	}
	for (v = 0; v < d->nv; v++) {
		x = px(&p, (double)v);
		out(d, "<text class=\"tick\" x=\"%g\" y=\"%g\" text-anchor=\"middle\">",
		    XY(x), XY(p.b + 15));
		esc(d, S(d, d->v[v].name));
		out(d, "</text><text class=\"tick\" x=\"%g\" y=\"%g\""
		    " text-anchor=\"middle\">HZ=%d</text>\n", XY(x), XY(p.b + 29),
		    d->v[v].hz);
	}
	out(d, "<text class=\"axis\" transform=\"translate(%g %g) rotate(-90)\""
	    " text-anchor=\"middle\">median wait (ms)</text>\n", XY(p.l - 46),
	    XY((p.t + p.b) / 2));
	step = (p.r - p.l) / (double)(d->nv ? d->nv : 1);
	for (i = 0; i < ng; i++) {
		const char *c = palette[series % NPALETTE];

		if (!lseries_start(g, i))
			continue;
		series++;
		/* What was meant: T, as a reference across the variants. */
		out(d, "<line class=\"diag\" x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\"/>",
		    XY(p.l + step / 4), XY(py(&p, (double)g[i].t)),
		    XY(p.r - step / 4), XY(py(&p, (double)g[i].t)));
		out(d, "<path class=\"med\" stroke=\"%s\"%s d=\"", c,
		    is(d, g[i].mode, "legacy-jiffies") ? "" :
		    " stroke-dasharray=\"7 3\"");
		for (k = i; k < ng && (k == i || !lseries_start(g, k)); k++)
			out(d, "%s%g %g", k == i ? "M" : " L",
			    XY(px(&p, (double)g[k].v)), XY(py(&p, g[k].med / 1e6)));
		out(d, "\"/>\n");
		for (k = i; k < ng && (k == i || !lseries_start(g, k)); k++) {
			out(d, "<circle class=\"pt%s\" cx=\"%g\" cy=\"%g\" r=\"4\""
			    " fill=\"%s\"><title>", g[k].bad ? " out" : "",
			    XY(px(&p, (double)g[k].v)), XY(py(&p, g[k].med / 1e6)), c);
			esc(d, S(d, g[k].mode));
			out(d, " T=%" PRId64 " on ", g[k].t);
			esc(d, S(d, d->v[g[k].v].name));
			out(d, ": passed %" PRId64 ", median wait %s ms (%zu calls)"
			    "</title></circle>\n", g[k].arg, MS(g[k].med), g[k].n);
		}
	}
	out(d, "</svg>\n");
}

static void legacy_table(struct dash *d, const struct lgroup *g, size_t ng)
{
	size_t i, k, v, series = 0;

	out(d, "<table class=\"data\" id=\"legacy-table\">\n<caption>Per variant:"
	    " the int passed, the median wait in ms, and the wait as a share"
	    " of the T that was meant.</caption>\n<thead><tr><th></th>"
	    "<th>mode</th><th class=\"num\">T (ms)</th>");
	for (v = 0; v < d->nv; v++) {
		out(d, "<th colspan=\"3\" scope=\"colgroup\">");
		esc(d, S(d, d->v[v].name));
		out(d, "</th>");
	}
	out(d, "</tr>\n<tr><th></th><th></th><th></th>");
	for (v = 0; v < d->nv; v++)
		out(d, "<th class=\"num\">passed</th><th class=\"num\">wait</th>"
		    "<th class=\"num\">&#215;T</th>");
	out(d, "</tr></thead>\n<tbody>\n");
	for (i = 0; i < ng; i++) {
		if (!lseries_start(g, i))
			continue;
		out(d, "<tr><td><span class=\"sw\" style=\"background:%s\"></span></td><td>",
		    palette[series++ % NPALETTE]);
		esc(d, S(d, g[i].mode));
		out(d, "</td><td class=\"num\">%" PRId64 "</td>", g[i].t);
		for (v = 0; v < d->nv; v++) {
			for (k = i; k < ng && (k == i || !lseries_start(g, k)); k++)
				if (g[k].v == v)
					break;
			if (k == ng || (k != i && lseries_start(g, k)) ||
			    g[k].v != v) {
				out(d, "<td class=\"num muted\" colspan=\"3\">-</td>");
				continue;
			}
			out(d, "<td class=\"num\">%" PRId64 "</td><td class=\"num%s\">%s</td>"
			    "<td class=\"num\">", g[k].arg, g[k].bad ? " bad" : "",
			    MS(g[k].med));
			if (g[k].t > 0)
				out(d, "%.2f", g[k].med / 1e6 / (double)g[k].t);
			else
				out(d, "-");
			out(d, "</td>");
		}
		out(d, "</tr>\n");
	}
	out(d, "</tbody></table>\n");
}

static void section_legacy(struct dash *d)
{
	struct lgroup *g = NULL;
	size_t ng = 0;

	out(d, "<section id=\"legacy-jiffies\">\n<h2>Jiffies passed as milliseconds</h2>\n"
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
	if (legacy_groups(d, &g, &ng)) {
		out_of_memory(d);
		return;
	}
	if (!ng) {
		out(d, "<p class=\"note\">This run has no NAKed calls in a jiffies"
		    " mode (the <code>quick</code> and <code>full</code> plans have"
		    " them).</p>\n");
	} else {
		out(d, "<div class=\"panels\">\n");
		legacy_chart(d, g, ng);
		out(d, "<div>");
		legacy_table(d, g, ng);
		out(d, "</div></div>\n");
	}
	free(g);
	out(d, "</section>\n");
}

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

struct hist {
	struct hvar *v;
	size_t nv;
	struct hkey *k;
	size_t nk;
	struct hpoint *p;
	size_t np;
	size_t *order;		/* keys in display order */
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

static int hist_vars(struct dash *d, struct hist *h,
		     const struct run_ref *runs)
{
	sqlite3_stmt *st = prep(d, "SELECT variant, max(hz) FROM variant_runs"
				   " GROUP BY variant ORDER BY 2, 1");
	size_t cap = 0;

	if (!st)
		return -1;
	while (row(d, st)) {
		if (h->nv == cap) {
			struct hvar *n = realloc(h->v, (cap * 2 + 4) * sizeof(*n));

			if (!n)
				goto oom;
			h->v = n;
			cap = cap * 2 + 4;
		}
		h->v[h->nv].name = col_intern(d, st, 0);
		h->v[h->nv].hz = sqlite3_column_int(st, 1);
		h->v[h->nv].base = -1;
		h->nv++;
	}
	sqlite3_finalize(st);
	if (d->failed)
		return -1;
	st = prep(d, "SELECT variant, run_id FROM baselines");
	if (!st)
		return -1;
	while (row(d, st)) {
		size_t v = hist_var(h, lookup(&d->st, col_str(st, 0) ?
						    col_str(st, 0) : ""));
		size_t r = run_index(runs, d->nruns, col_str(st, 1));

		if (v != (size_t)-1 && r != (size_t)-1)
			h->v[v].base = (ssize_t)r;
	}
	sqlite3_finalize(st);
	return d->failed ? -1 : 0;
oom:
	sqlite3_finalize(st);
	out_of_memory(d);
	return -1;
}

/* Close the group of samples in @e: one point. */
static void hist_point(struct hpoint *p, const int64_t *e, size_t n)
{
	p->n = n;
	p->p5 = hzrig_percentile(e, n, 5);
	p->med = hzrig_percentile(e, n, 50);
	p->p95 = hzrig_percentile(e, n, 95);
}

/*
 * One pass over every sample, sorted so that each (case, variant, run) is
 * a run of rows with its elapsed times ascending: nothing but the current
 * group is held in memory.
 */
static int hist_points(struct dash *d, struct hist *h,
		       const struct run_ref *runs)
{
	sqlite3_stmt *st = prep(d,
		"SELECT s.case_key, v.variant, v.run_id, s.elapsed_ns,"
		" s.verdict = 'inside', s.transfer, s.behaviour, s.mode,"
		" s.timeout_ms, s.delay_us, s.length"
		" FROM samples s JOIN variant_runs v ON v.id = s.variant_run"
		" ORDER BY s.case_key, v.variant, v.run_id, s.elapsed_ns");
	size_t kcap = 0, pcap = 0, ecap = 0, ne = 0, nin = 0;
	size_t key = NO_STR, var = (size_t)-1, run = (size_t)-1;
	int64_t *e = NULL;

	if (!st)
		return -1;
	for (;;) {
		bool more = row(d, st);
		size_t k = NO_STR, v = (size_t)-1, r = (size_t)-1;

		if (more) {
			k = col_intern(d, st, 0);
			v = hist_var(h, col_intern(d, st, 1));
			r = run_index(runs, d->nruns, col_str(st, 2));
			if (v == (size_t)-1 || r == (size_t)-1)
				continue;	/* cannot happen: same tables */
		}
		if (ne && (!more || k != key || v != var || r != run)) {
			struct hpoint *p;

			if (h->np == pcap) {
				p = realloc(h->p, (pcap * 2 + 64) * sizeof(*p));
				if (!p)
					goto oom;
				h->p = p;
				pcap = pcap * 2 + 64;
			}
			p = &h->p[h->np++];
			memset(p, 0, sizeof(*p));
			p->var = var;
			p->run = run;
			p->inside = nin;
			hist_point(p, e, ne);
			h->k[h->nk - 1].end = h->np;
			ne = nin = 0;
		}
		if (!more)
			break;
		if (k != key) {
			struct hkey *x;

			if (h->nk == kcap) {
				x = realloc(h->k, (kcap * 2 + 64) * sizeof(*x));
				if (!x)
					goto oom;
				h->k = x;
				kcap = kcap * 2 + 64;
			}
			x = &h->k[h->nk++];
			x->key = k;
			x->transfer = col_intern(d, st, 5);
			x->behaviour = col_intern(d, st, 6);
			x->mode = col_intern(d, st, 7);
			x->t = sqlite3_column_int64(st, 8);
			x->delay = col_i64(st, 9);
			x->length = col_i64(st, 10);
			x->first = x->end = h->np;
		}
		key = k;
		var = v;
		run = r;
		if (ne == ecap) {
			int64_t *n = realloc(e, (ecap * 2 + 64) * sizeof(*n));

			if (!n)
				goto oom;
			e = n;
			ecap = ecap * 2 + 64;
		}
		e[ne++] = sqlite3_column_int64(st, 3);
		nin += sqlite3_column_int(st, 4) != 0;
	}
	sqlite3_finalize(st);
	free(e);
	return d->failed ? -1 : 0;
oom:
	sqlite3_finalize(st);
	free(e);
	out_of_memory(d);
	return -1;
}

/* The regressions recorded, placed on their points; the rows stay open. */
static sqlite3_stmt *regressions_query(struct dash *d, bool this_run)
{
	sqlite3_stmt *st = prep(d, this_run ?
		"SELECT run_id, variant, case_key, kind, old_value, new_value,"
		" threshold, baseline_run, baseline_variant, window_lo_ns,"
		" window_hi_ns, detail, checked_at FROM regressions"
		" WHERE run_id = ?1 ORDER BY variant, case_key, kind" :
		"SELECT run_id, variant, case_key, kind FROM regressions");

	if (st && this_run)
		sqlite3_bind_text(st, 1, d->run, -1, SQLITE_STATIC);
	return st;
}

static int cmp_hkey_name(const void *a, const void *b, void *ctx)
{
	return strcmp(S(ctx, ((const struct hkey *)a)->key),
		      S(ctx, ((const struct hkey *)b)->key));
}

static size_t hist_key(struct dash *d, const struct hist *h, const char *key)
{
	size_t lo = 0, hi = h->nk, mid;
	int c;

	/* The keys are in the database's (memcmp) order, as strcmp(). */
	while (lo < hi) {
		mid = (lo + hi) / 2;
		c = strcmp(key, S(d, h->k[mid].key));
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
	sqlite3_stmt *st = regressions_query(d, false);
	size_t k, v, r, i;

	if (!st)
		return -1;
	while (row(d, st)) {
		if (!col_str(st, 0) || !col_str(st, 1) || !col_str(st, 2))
			continue;
		k = hist_key(d, h, col_str(st, 2));
		v = hist_var(h, lookup(&d->st, col_str(st, 1)));
		r = run_index(runs, d->nruns, col_str(st, 0));
		if (k == (size_t)-1 || v == (size_t)-1 || r == (size_t)-1)
			continue;	/* of a case or run no longer there */
		for (i = h->k[k].first; i < h->k[k].end; i++)
			if (h->p[i].var == v && h->p[i].run == r)
				h->p[i].reg++;
	}
	sqlite3_finalize(st);
	return d->failed ? -1 : 0;
}

static size_t mode_rank(const char *m)
{
	static const char *const modes[] = {
		"ms", "legacy-jiffies", "hz-constant", "zero",
	};

	return name_rank(modes, ARRAY_SIZE(modes), m);
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

	rx = mode_rank(S(d, x->mode));
	ry = mode_rank(S(d, y->mode));
	if (rx != ry)
		return rx < ry ? -1 : 1;
	rx = name_rank(behaviours, ARRAY_SIZE(behaviours), S(d, x->behaviour));
	ry = name_rank(behaviours, ARRAY_SIZE(behaviours), S(d, y->behaviour));
	if (rx != ry)
		return rx < ry ? -1 : 1;
	rx = name_rank(transfers, ARRAY_SIZE(transfers), S(d, x->transfer));
	ry = name_rank(transfers, ARRAY_SIZE(transfers), S(d, y->transfer));
	if (rx != ry)
		return rx < ry ? -1 : 1;
	c = cmp3(x->t, y->t);
	if (!c)
		c = cmp3(x->delay, y->delay);
	if (!c)
		c = cmp3(x->length, y->length);
	return c ? c : strcmp(S(d, x->key), S(d, y->key));
}

static void hist_free(struct hist *h)
{
	free(h->v);
	free(h->k);
	free(h->p);
	free(h->order);
	memset(h, 0, sizeof(*h));
}

static int hist_load(struct dash *d, struct hist *h)
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
	if (hist_vars(d, h, runs) || hist_points(d, h, runs))
		goto out;
	/* SQLite sorted the keys with memcmp; make sure of it for bsearch. */
	for (i = 1; i < h->nk; i++)
		if (cmp_hkey_name(&h->k[i - 1], &h->k[i], d) > 0)
			break;
	if (i < h->nk) {
		fprintf(d->err, "hzrig dashboard: %s: case keys are not in binary"
			" order (a collation on samples.case_key?)\n",
			d->o->db_path);
		d->failed = true;
		goto out;
	}
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
		out_of_memory(d);
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
	out(d, "<title>");
	esc(d, d->runs[p->run]);
	out(d, ": median %s ms (p5 %s, p95 %s), %zu/%zu inside", MS(p->med),
	    MS(p->p5), MS(p->p95), p->inside, p->n);
	if (h->v[p->var].base == (ssize_t)p->run)
		out(d, "; the baseline run");
	if (p->reg)
		out(d, "; %zu regression%s recorded", p->reg,
		    p->reg == 1 ? "" : "s");
	out(d, "</title>");
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
		out_of_memory(d);
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
		out(d, "<td class=\"muted\">&#8211;</td>");
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
	out(d, "<td class=\"spark%s\"><svg class=\"spark\" viewBox=\"0 0 %d %d\""
	    " width=\"%d\" height=\"%d\" role=\"img\"><title>", nreg ? " reg" : "",
	    SPARK_W, SPARK_H, SPARK_W, SPARK_H);
	esc(d, S(d, k->key));
	out(d, " on ");
	esc(d, S(d, h->v[v].name));
	out(d, ": median and p5-p95 over %zu run%s, %s to %s ms</title>", n,
	    n == 1 ? "" : "s", MS((int64_t)(lo * 1e6)), MS((int64_t)(hi * 1e6)));
	if (sel < d->nruns)
		out(d, "<rect class=\"selrun\" x=\"%g\" y=\"0\" width=\"12\" height=\"%d\"/>",
		    XY(spark_x(d, sel) - 6), SPARK_H);
	/* The p5-p95 band; one run alone gets a bar. */
	if (n == 1) {
		out(d, "<rect class=\"sbnd\" x=\"%g\" y=\"%g\" width=\"6\" height=\"%g\"/>",
		    XY(spark_x(d, pt[0]->run) - 3),
		    XY(hzrig_dash_map(&sy, pt[0]->p95 / 1e6)),
		    XY(fmax(1, hzrig_dash_map(&sy, pt[0]->p5 / 1e6) -
			       hzrig_dash_map(&sy, pt[0]->p95 / 1e6))));
	} else {
		out(d, "<path class=\"sbnd\" d=\"");
		for (i = 0; i < n; i++)
			out(d, "%s%g %g", i ? " L" : "M", XY(spark_x(d, pt[i]->run)),
			    XY(hzrig_dash_map(&sy, pt[i]->p95 / 1e6)));
		for (i = n; i-- > 0;)
			out(d, " L%g %g", XY(spark_x(d, pt[i]->run)),
			    XY(hzrig_dash_map(&sy, pt[i]->p5 / 1e6)));
		out(d, " Z\"/><path class=\"sline\" d=\"");
		for (i = 0; i < n; i++)
			out(d, "%s%g %g", i ? " L" : "M", XY(spark_x(d, pt[i]->run)),
			    XY(hzrig_dash_map(&sy, pt[i]->med / 1e6)));
		out(d, "\"/>");
	}
	for (i = 0; i < n; i++) {
		double x = spark_x(d, pt[i]->run);
		double y = hzrig_dash_map(&sy, pt[i]->med / 1e6);

		p = pt[i];
		if (h->v[v].base == (ssize_t)p->run)
			out(d, "<circle class=\"base-mark\" cx=\"%g\" cy=\"%g\" r=\"5\"/>",
			    XY(x), XY(y));
		out(d, "<circle class=\"%s\" cx=\"%g\" cy=\"%g\" r=\"%s\">",
		    p->reg ? "reg-mark" : "sdot", XY(x), XY(y),
		    p->reg ? "3.6" : "2.2");
		point_title(d, h, p);
		out(d, "</circle>");
	}
	if (!shown)
		shown = pt[n - 1];
	out(d, "</svg><span class=\"last%s\">%s</span></td>",
	    shown->run == sel ? "" : " muted", MS(shown->med));
	free(pt);
}

static void section_history(struct dash *d, const struct hist *h)
{
	size_t i, v, sel = d->nruns;

	for (i = 0; i < d->nruns; i++)
		if (!strcmp(d->runs[i], d->run))
			sel = i;
	out(d, "<section id=\"history\">\n<h2>Per-case history across runs</h2>\n"
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
		out(d, "<p class=\"note\">No samples recorded yet.</p>\n</section>\n");
		return;
	}
	out(d, "<table class=\"data\" id=\"history-table\">\n<thead><tr>"
	    "<th scope=\"col\">case</th>");
	for (v = 0; v < h->nv; v++) {
		out(d, "<th scope=\"col\">");
		esc(d, S(d, h->v[v].name));
		out(d, " <span class=\"muted\">HZ=%d</span>", h->v[v].hz);
		if (h->v[v].base >= 0) {
			out(d, "<br><span class=\"muted\">baseline <span class=\"mono\">");
			esc(d, d->runs[h->v[v].base]);
			out(d, "</span></span>");
		}
		out(d, "</th>");
	}
	out(d, "</tr></thead>\n<tbody>\n");
	for (i = 0; i < h->nk; i++) {
		const struct hkey *k = &h->k[h->order[i]];
		const struct hkey *pk = i ? &h->k[h->order[i - 1]] : NULL;

		/* A heading row per mode and behaviour: easier to scan. */
		if (!pk || pk->mode != k->mode || pk->behaviour != k->behaviour) {
			out(d, "<tr class=\"group\"><th colspan=\"%zu\">", h->nv + 1);
			esc(d, S(d, k->behaviour));
			out(d, ", mode ");
			esc(d, S(d, k->mode));
			out(d, "</th></tr>\n");
		}
		out(d, "<tr class=\"case\"><th scope=\"row\" class=\"mono\">");
		esc(d, S(d, k->key));
		out(d, "</th>");
		for (v = 0; v < h->nv; v++)
			sparkline(d, h, k, v, sel);
		out(d, "</tr>\n");
	}
	out(d, "</tbody></table>\n</section>\n");
}

static void section_regressions(struct dash *d)
{
	sqlite3_stmt *st;
	int64_t others;
	size_t n = 0;

	out(d, "<section id=\"regressions\">\n<h2>Regressions of this run</h2>\n"
	    "<p class=\"lead\">What <code>hzrig check-regressions</code> recorded"
	    " for this run against the baselines: a median or p95 that moved by"
	    " more than the threshold (the window's width plus both runs' noise"
	    " allowances), a share inside the window that fell, or a majority"
	    " status that changed. Values in ms; <i>inside</i> as a share.</p>\n");
	st = regressions_query(d, true);
	if (!st)
		return;
	while (row(d, st)) {
		const char *kind = col_str(st, 3) ? col_str(st, 3) : "";
		bool share = !strcmp(kind, "inside");
		double o = col_dbl(st, 4), nw = col_dbl(st, 5), th = col_dbl(st, 6);

		if (!n++)
			out(d, "<table class=\"data wide\" id=\"regressions-table\">\n"
			    "<thead><tr><th>variant</th><th>against</th><th>case</th>"
			    "<th>kind</th><th class=\"num\">was</th><th class=\"num\">now</th>"
			    "<th class=\"num\">threshold</th><th>window (ms)</th>"
			    "<th>finding</th></tr></thead>\n<tbody>\n");
		out(d, "<tr class=\"regression\"><td>");
		esc(d, col_str(st, 1));
		out(d, "</td>");
		cell_two(d, col_str(st, 7), col_str(st, 8), "mono nw");
		out(d, "<td class=\"mono nw\">");
		esc(d, col_str(st, 2));
		out(d, "</td><td class=\"bad\">");
		esc(d, kind);
		if (share)
			out(d, "</td><td class=\"num\">%.1f%%</td>"
			    "<td class=\"num\">%.1f%%</td>"
			    "<td class=\"num\">%.1f pts</td>", o * 100, nw * 100, th * 100);
		else if (!strcmp(kind, "status"))
			out(d, "</td><td class=\"num\">%.0f</td><td class=\"num\">%.0f</td>"
			    "<td class=\"num\">-</td>", o, nw);
		else
			out(d, "</td><td class=\"num\">%.3f</td><td class=\"num\">%.3f</td>"
			    "<td class=\"num\">%.3f</td>", o, nw, th);
		if (col_i64(st, 9) != HZRIG_ABSENT && col_i64(st, 10) != HZRIG_ABSENT)
			out(d, "<td class=\"num\">(%s, %s]</td>", MS(col_i64(st, 9)),
			    MS(col_i64(st, 10)));
		else
			out(d, "<td class=\"num\">-</td>");
		out(d, "<td class=\"muted\">");
		esc(d, col_str(st, 11));
		out(d, "</td></tr>\n");
	}
	sqlite3_finalize(st);
	if (n)
		out(d, "</tbody></table>\n");
	else
		out(d, "<p class=\"note\" id=\"no-regressions\">No regression recorded"
		    " for this run (<code>hzrig check-regressions --run ID</code>"
		    " records them; a run never checked has none either).</p>\n");
	others = count(d, "SELECT count(*) FROM regressions WHERE run_id != ?1");
	if (others > 0)
		out(d, "<p class=\"muted\">%" PRId64 " more recorded for other runs:"
		    " red dots in the <a href=\"#history\">history</a>.</p>\n",
		    others);
	out(d, "</section>\n");
}

/* ------------------------------------------------------------------------
 * Runs and their noise floor; unexplained samples.
 */

static void cell_str(struct dash *d, sqlite3_stmt *st, int c, const char *cls)
{
	out(d, "<td%s%s%s>", cls ? " class=\"" : "", cls ? cls : "",
	    cls ? "\"" : "");
	if (col_str(st, c) && *col_str(st, c))
		esc(d, col_str(st, c));
	else
		out(d, "<span class=\"muted\">-</span>");
	out(d, "</td>");
}

/* "sha256:0123456789abcdef..." as its first 12 hex digits, whole in a title. */
static void cell_hash(struct dash *d, const char *h)
{
	const char *hex;
	char buf[13];

	if (!h || !*h) {
		out(d, "<td class=\"muted\">-</td>");
		return;
	}
	hex = strchr(h, ':') ? strchr(h, ':') + 1 : h;
	snprintf(buf, sizeof(buf), "%s", hex);
	out(d, "<td class=\"mono\" title=\"");
	esc(d, h);
	out(d, "\">");
	esc(d, buf);
	out(d, "</td>");
}

static void section_runs(struct dash *d)
{
	sqlite3_stmt *st;
	char *prev = NULL;

	out(d, "<section id=\"runs\">\n<h2>Runs, builds and noise floor</h2>\n"
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
	st = prep(d, "SELECT r.run_id, r.started_at, r.plan, v.variant, v.hz,"
		     " v.release, v.tree_describe, v.config_hash, v.patches,"
		     " v.accel, v.clocksource, v.boot_status, v.overshoot_p50_ns,"
		     " v.overshoot_p99_ns, v.rtt_p50_ns, v.rtt_p99_ns,"
		     " v.allowance_ns, v.waits_ms, v.wall_ms, v.samples, v.inside,"
		     " b.run_id IS NOT NULL"
		     " FROM variant_runs v JOIN runs r ON r.run_id = v.run_id"
		     " LEFT JOIN baselines b ON b.variant = v.variant"
		     " AND b.run_id = v.run_id"
		     " ORDER BY coalesce(r.started_at, r.ingested_at) DESC,"
		     " r.ingested_at DESC, r.run_id DESC, v.hz, v.variant");
	if (!st)
		return;
	while (row(d, st)) {
		const char *run = col_str(st, 0) ? col_str(st, 0) : "";
		bool first = !prev || strcmp(prev, run);
		int64_t ns = col_i64(st, 19), ni = col_i64(st, 20);
		int64_t waits = col_i64(st, 17), wall = col_i64(st, 18);
		const char *boot = col_str(st, 11);
		bool boot_ok = boot && !strcmp(boot, "ok");

		out(d, "<tr class=\"%s%s\">", first ? "first" : "",
		    strcmp(run, d->run) ? "" : " sel");
		if (first)
			cell_two(d, run, col_str(st, 2), "mono nw");
		else
			out(d, "<td></td>");
		out(d, "<td class=\"nw\">");
		esc(d, col_str(st, 3));
		if (sqlite3_column_int(st, 21))
			out(d, "<br><span class=\"small good\" title=\"the"
			    " variant's baseline run\">&#9679; baseline</span>");
		out(d, "</td><td class=\"num\">%d</td>", sqlite3_column_int(st, 4));
		cell_two(d, col_str(st, 5), col_str(st, 6), "kern");
		cell_hash(d, col_str(st, 7));
		cell_str(d, st, 8, "mono");
		out(d, "<td class=\"nw\">");
		esc(d, col_str(st, 9) ? col_str(st, 9) : "?");
		out(d, ", ");
		esc(d, col_str(st, 10) ? col_str(st, 10) : "?");
		out(d, "<br><span class=\"small %s\">boot ", boot_ok ? "muted" : "bad");
		esc(d, boot ? boot : "?");
		out(d, "</span></td>");
		out(d, "<td class=\"num\">%s / %s</td><td class=\"num\">%s / %s</td>"
		    "<td class=\"num\">%s</td>", MS(col_i64(st, 12)),
		    MS(col_i64(st, 13)), MS(col_i64(st, 14)), MS(col_i64(st, 15)),
		    MS(col_i64(st, 16)));
		if (waits != HZRIG_ABSENT && wall != HZRIG_ABSENT && wall > 0)
			out(d, "<td class=\"num\">%.2f<br><span class=\"small muted\">"
			    "%.1f / %.1f s</span></td>", (double)waits / (double)wall,
			    waits / 1e3, wall / 1e3);
		else
			out(d, "<td class=\"num muted\">-</td>");
		if (ns != HZRIG_ABSENT && ni != HZRIG_ABSENT && ns > 0)
			out(d, "<td class=\"num%s\">%" PRId64 "/%" PRId64 "</td>",
			    ni == ns ? "" : " bad", ni, ns);
		else
			out(d, "<td class=\"num muted\">-</td>");
		out(d, "</tr>\n");
		free(prev);
		prev = strdup(run);
	}
	free(prev);
	sqlite3_finalize(st);
	out(d, "</tbody></table>\n</section>\n");
}

static void section_unexplained(struct dash *d)
{
	size_t i, n = n_unexplained(d);

	out(d, "<section id=\"unexplained\">\n<h2>Unexplained samples</h2>\n"
	    "<p class=\"lead\">Every call of this run the model does not explain:"
	    " a wait outside the window (n&#183;&#964;, (n+g)&#183;&#964;] widened"
	    " by the noise allowance (<i>early</i>, <i>late</i>), a status other"
	    " than the expected one (<i>wrong-status</i>), or timings refused"
	    " (a jiffy-resolution clocksource).</p>\n");
	if (!n) {
		out(d, "<p class=\"note\">All %zu calls are inside their windows.</p>\n",
		    d->ns);
	}
	out(d, "<table class=\"data wide\" id=\"unexplained-table\">\n<caption>%zu of"
	    " %zu calls.</caption>\n<thead><tr><th>variant</th><th>case</th>"
	    "<th class=\"num\">rep</th><th class=\"num\">status</th>"
	    "<th class=\"num\">expected</th><th class=\"num\">wait (ms)</th>"
	    "<th class=\"num\">window (ms)</th><th class=\"num\">allowance</th>"
	    "<th>verdict</th><th class=\"num\">outside by</th></tr></thead>\n<tbody>\n",
	    n, d->ns);
	for (i = 0; i < d->ns; i++) {
		const struct dsample *x = &d->s[i];
		int64_t a = x->allowance == HZRIG_ABSENT ? 0 : x->allowance;

		if (inside(d, x))
			continue;
		out(d, "<tr class=\"sample\"><td>");
		esc(d, S(d, d->v[x->v].name));
		out(d, "</td><td class=\"mono\">");
		esc(d, S(d, x->key));
		out(d, "</td><td class=\"num\">%" PRId64 "</td><td class=\"num%s\">%"
		    PRId64 "</td>", x->rep,
		    x->expected != HZRIG_ABSENT && x->status != x->expected ?
		    " bad" : "", x->status);
		if (x->expected != HZRIG_ABSENT)
			out(d, "<td class=\"num\">%" PRId64 "</td>", x->expected);
		else
			out(d, "<td class=\"num muted\">-</td>");
		out(d, "<td class=\"num\">%s</td>", MS(x->elapsed));
		if (x->lo != HZRIG_ABSENT)
			out(d, "<td class=\"num\">(%s, %s]</td>", MS(x->lo), MS(x->hi));
		else
			out(d, "<td class=\"num muted\">none</td>");
		out(d, "<td class=\"num\">%s</td><td class=\"bad\">", MS(x->allowance));
		esc(d, S(d, x->verdict));
		out(d, "</td>");
		if (x->hi != HZRIG_ABSENT && x->elapsed > x->hi + a)
			out(d, "<td class=\"num\">+%s late</td>",
			    MS(x->elapsed - x->hi - a));
		else if (x->lo != HZRIG_ABSENT && x->elapsed < x->lo - a &&
			 !is(d, x->verdict, "wrong-status"))
			out(d, "<td class=\"num\">%s early</td>",
			    MS(x->lo - a - x->elapsed));
		else
			out(d, "<td class=\"num muted\">-</td>");
		out(d, "</tr>\n");
	}
	out(d, "</tbody></table>\n</section>\n");
}

/* ------------------------------------------------------------------------
 * The page, and writing it.
 */

static void empty_page(struct dash *d)
{
	page_head(d, "hzrig dashboard: no runs yet");
	out(d, "<header>\n<h1>hzrig: how long USB timeouts really take, per HZ</h1>\n"
	    "<p class=\"sub\">The history has no runs yet.</p>\n</header>\n<main>\n"
	    "<section id=\"empty\">\n<h2>No runs recorded</h2>\n"
	    "<p class=\"note\">This page is drawn from the history database,"
	    " which has no run yet. Record one with <code>make</code> (the HZ"
	    " matrix) and <code>hzrig ingest results/latest</code>, then run"
	    " <code>hzrig dashboard</code> again.</p>\n</section>\n");
	page_foot(d);
}

static void full_page(struct dash *d, const struct hist *h)
{
	char title[256];
	int64_t nreg;

	nreg = count(d, "SELECT count(*) FROM regressions WHERE run_id = ?1");
	snprintf(title, sizeof(title), "hzrig dashboard: run %s", d->run);
	page_head(d, title);
	header(d, nreg);
	summary(d, nreg);
	section_observed(d);
	section_error(d);
	section_legacy(d);
	section_history(d, h);
	section_regressions(d);
	section_runs(d);
	section_unexplained(d);
	page_foot(d);
}

/* mkdir -p */
static int make_dirs(const char *path, FILE *err)
{
	char *p = strdup(path), *s;
	int rc = 0;

	if (!p)
		return -1;
	for (s = p + 1; ; s++) {
		if (*s && *s != '/')
			continue;
		{
			char c = *s;

			*s = 0;
			if (mkdir(p, 0777) && errno != EEXIST) {
				fprintf(err, "hzrig dashboard: %s: %s\n", p,
					strerror(errno));
				rc = -1;
			}
			*s = c;
		}
		if (rc || !*s)
			break;
	}
	free(p);
	return rc;
}

/*
 * Open the history read-only. 1: a history (schema >= 1), 0: an empty
 * file (no tables at all), -1: not usable (after a message).
 */
static int open_db(struct dash *d)
{
	const char *path = d->o->db_path;
	sqlite3_stmt *st;
	int ver = -1, ntables = -1;
	static const char *const tables[] = {
		"runs", "variant_runs", "samples", "baselines", "regressions",
	};
	size_t i;

	/* A missing file, a read-only directory: db.c says what to do. */
	d->db = hzrig_db_open_readonly(path, d->err);
	if (!d->db)
		return -1;
	if (hzrig_db_user_version(d->db, &ver))
		ver = -1;
	if (sqlite3_prepare_v2(d->db, "SELECT count(*) FROM sqlite_master", -1,
			       &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		ntables = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (ver < 0 || ntables < 0) {
		/*
		 * A text file says "file is not a database"; a WAL file in
		 * a directory we cannot write, "unable to open database file".
		 */
		fprintf(d->err, "hzrig dashboard: %s: cannot read it as a history"
			" database: %s\n", path, sqlite3_errmsg(d->db));
		return -1;
	}
	if (ver == 0 && ntables == 0)
		return 0;
	if (ver < HZRIG_DASH_DB_SCHEMA) {
		fprintf(d->err, "hzrig dashboard: %s: not a history database"
			" (schema version %d; `hzrig ingest` writes version %d"
			" and later)\n", path, ver, HZRIG_DASH_DB_SCHEMA);
		return -1;
	}
	for (i = 0; i < ARRAY_SIZE(tables); i++) {
		int r = has_table(d, tables[i]);

		if (r <= 0) {
			if (!r)
				fprintf(d->err, "hzrig dashboard: %s: schema version"
					" %d but no table %s: not a history"
					" database\n", path, ver, tables[i]);
			return -1;
		}
	}
	return 1;
}

/* The chosen run: --run, else the newest. -1 after a message. */
static int choose_run(struct dash *d)
{
	size_t i;

	if (!d->o->run_id) {
		d->run = d->runs[d->nruns - 1];
		return 0;
	}
	for (i = 0; i < d->nruns; i++)
		if (!strcmp(d->runs[i], d->o->run_id)) {
			d->run = d->runs[i];
			return 0;
		}
	fprintf(d->err, "hzrig dashboard: %s: no run '%s'; the newest:",
		d->o->db_path, d->o->run_id);
	for (i = d->nruns; i-- > 0 && i + 5 >= d->nruns;)
		fprintf(d->err, " %s", d->runs[i]);
	fprintf(d->err, "\n");
	return -1;
}

int hzrig_dashboard(const struct hzrig_dash_opts *o)
{
	struct dash d = { .o = o, .err = o->err ? o->err : stderr };
	struct hist h = { 0 };
	char *tmp = NULL, *dst = NULL;
	int rc = HZRIG_DASH_FAILED, fd = -1, have;
	size_t i;

	if (!o->db_path || !*o->db_path || !o->out_dir || !*o->out_dir) {
		fprintf(d.err, "hzrig dashboard: no database or output directory\n");
		return HZRIG_DASH_FAILED;
	}
	have = open_db(&d);
	if (have < 0)
		goto out;
	/* One read transaction: one snapshot even while ingest writes. */
	if (have && sqlite3_exec(d.db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
		dberr(&d, "cannot start reading");
		goto out;
	}
	if (have && load_runs(&d))
		goto out;
	if (d.nruns) {
		if (choose_run(&d) || load_variants(&d) || load_samples(&d) ||
		    hist_load(&d, &h))
			goto out;
	} else if (o->run_id) {
		fprintf(d.err, "hzrig dashboard: %s: no run '%s': the history is"
			" empty\n", o->db_path, o->run_id);
		goto out;
	}

	if (make_dirs(o->out_dir, d.err))
		goto out;
	if (asprintf(&dst, "%s/index.html", o->out_dir) < 0 ||
	    asprintf(&tmp, "%s/.index.html.XXXXXX", o->out_dir) < 0) {
		dst = tmp = NULL;
		fprintf(d.err, "hzrig dashboard: out of memory\n");
		goto out;
	}
	fd = mkstemp(tmp);
	if (fd < 0 || fchmod(fd, 0644) || !(d.f = fdopen(fd, "w"))) {
		fprintf(d.err, "hzrig dashboard: %s: %s\n", o->out_dir,
			strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		goto out;
	}
	if (d.nruns)
		full_page(&d, &h);
	else
		empty_page(&d);
	if (fflush(d.f) || ferror(d.f) || fsync(fileno(d.f))) {
		fprintf(d.err, "hzrig dashboard: %s: %s\n", tmp, strerror(errno));
		d.failed = true;
	}
	if (fclose(d.f) && !d.failed) {
		fprintf(d.err, "hzrig dashboard: %s: %s\n", tmp, strerror(errno));
		d.failed = true;
	}
	d.f = NULL;
	if (d.failed) {
		unlink(tmp);
		goto out;
	}
	if (rename(tmp, dst)) {
		fprintf(d.err, "hzrig dashboard: %s: %s\n", dst, strerror(errno));
		unlink(tmp);
		goto out;
	}
	if (o->out) {
		if (d.nruns)
			fprintf(o->out, "hzrig dashboard: wrote %s: run %s, %zu"
				" variants, %zu samples, %zu not inside; %zu runs"
				" in the history\n", dst, d.run, d.nv, d.ns,
				n_unexplained(&d), d.nruns);
		else
			fprintf(o->out, "hzrig dashboard: wrote %s: the history"
				" has no runs yet\n", dst);
	}
	rc = HZRIG_DASH_OK;
out:
	if (d.db) {
		sqlite3_exec(d.db, "ROLLBACK", NULL, NULL, NULL);
		sqlite3_close(d.db);
	}
	hist_free(&h);
	for (i = 0; i < d.nruns; i++)
		free(d.runs[i]);
	free(d.runs);
	free(d.v);
	free(d.s);
	strtab_free(&d.st);
	free(tmp);
	free(dst);
	return rc;
}
