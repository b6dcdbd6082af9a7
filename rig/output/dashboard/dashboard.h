/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hzrig dashboard: one static HTML page with inline SVG charts, drawn from
 * the SQLite history (schema v1, see docs/dashboard.md). The page needs no
 * script and loads nothing from the network; every string taken from the
 * database is HTML-escaped.
 *
 * The small pure helpers the charts are built from (scales, axis ticks,
 * number formatting, escaping) are exported for the unit tests; their names
 * carry "dash" so they cannot clash with the history's own helpers. The
 * figures themselves are the history's nearest-rank percentiles
 * (hzrig_percentile() in runs/runs.h), so that the page and `hzrig history`
 * print the same medians.
 */
#ifndef HZRIG_DASHBOARD_H
#define HZRIG_DASHBOARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * The history schema (PRAGMA user_version) whose tables and columns the
 * dashboard reads. Later versions only add to it (docs/history.md), so any
 * version >= this one is read; 0 is an empty file or not a history.
 */
#define HZRIG_DASH_DB_SCHEMA	1

/* Exit statuses of hzrig dashboard. */
#define HZRIG_DASH_OK		0	/* page written */
#define HZRIG_DASH_FAILED	2	/* nothing written, nothing changed */

/*
 * A scale maps the domain [d0, d1] onto the range [r0, r1] (pixels; r0 > r1
 * is fine, SVG's y axis points down). A log scale needs d0, d1 > 0; values
 * <= 0 (or NaN) on it map to r0, the bottom or left edge, so that a zero
 * cannot produce a NaN coordinate. A degenerate domain (d0 == d1) maps
 * everything to the middle of the range.
 */
struct hzrig_dash_scale {
	double d0, d1;
	double r0, r1;
	bool log;
};

double hzrig_dash_map(const struct hzrig_dash_scale *s, double v);

/*
 * The step of "nice" linear ticks: 1, 2 or 5 times a power of ten, the
 * smallest such that at most @max_ticks ticks (>= 2) cover a span of @span.
 */
double hzrig_dash_nice_step(double span, unsigned int max_ticks);

/*
 * Widen [*lo, *hi] outward to multiples of the nice step for @max_ticks;
 * an empty span is widened around its value first.
 */
void hzrig_dash_nice_domain(double *lo, double *hi, unsigned int max_ticks);

/*
 * Linear ticks: the multiples of hzrig_dash_nice_step() inside [lo, hi],
 * at most @max_ticks of them; when that step leaves fewer than two inside
 * (a range that is not a nice domain), the multiples of a smaller 1-2-5
 * step that still stay within @max_ticks. Stores up to @cap in @out,
 * ascending; returns how many.
 */
size_t hzrig_dash_ticks_linear(double lo, double hi, unsigned int max_ticks,
			       double *out, size_t cap);

/*
 * Widen [lo, hi] (both > 0) outward to the 1-2-5 sequence (..., 0.5, 1, 2,
 * 5, 10, ...) for a log axis; lo == hi gets one step either side.
 */
void hzrig_dash_log_domain(double lo, double hi, double *dlo, double *dhi);

/*
 * Log ticks inside [lo, hi] (both > 0): every power of ten, plus 2x and 5x
 * when the axis spans at most three decades (so a short axis still has
 * labels). Stores up to @cap in @out, ascending; returns how many.
 */
size_t hzrig_dash_ticks_log(double lo, double hi, double *out, size_t cap);

/*
 * A tick label: integers in full ("1000", "60000"), others with up to four
 * significant digits ("0.5", "2.5"); -0 prints as "0". Returns @buf.
 */
char *hzrig_dash_fmt(char *buf, size_t n, double v);

/*
 * Write @s to @f HTML-escaped for text and for attribute values in double
 * or single quotes: & < > " ' become entities, and C0 control characters
 * other than tab, newline and carriage return (not allowed in HTML text)
 * become U+FFFD. NULL writes nothing.
 */
void hzrig_dash_escape(FILE *f, const char *s);

struct hzrig_dash_opts {
	const char *db_path;
	const char *out_dir;		/* created if missing */
	const char *run_id;		/* NULL: the newest run */
	FILE *err;			/* NULL: stderr */
	FILE *out;			/* one line saying what was written; NULL: none */
};

/*
 * Read the history at @o->db_path read-only and write @o->out_dir/index.html
 * through a temporary file and a rename. A database without runs (or an
 * empty file) gives a page that says so. Returns HZRIG_DASH_OK or
 * HZRIG_DASH_FAILED (unreadable database, unknown schema, unknown run,
 * unwritable directory), with the reason on @o->err.
 */
int hzrig_dashboard(const struct hzrig_dash_opts *o);

/* `hzrig dashboard` (cmd_dashboard.c). */
int cmd_dashboard(int argc, char **argv);

#endif /* HZRIG_DASHBOARD_H */
