// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the dashboard (rig/output/dashboard/): the pure helpers the
 * charts are built from (scales, nice ticks, labels, HTML escaping), and
 * hzrig_dashboard() itself on small databases written here with the
 * schema-v1 contract of docs/history.md (not with rig/history/db.c, so that the
 * contract, not the writer, is what is tested): an empty file, a run with
 * a hostile variant name, an unknown run, files that are not a history.
 * The page in a browser is tests/browser/test-dashboard.sh.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "history/db.h"
#include "output/dashboard/dashboard.h"
#include "testutil.h"

/* ---------------------------------------------------------------- scales */

static void test_map_linear(void **state)
{
	struct hzrig_dash_scale x = { 0, 10, 0, 100, false };
	/* SVG's y axis points down: a larger value is a smaller pixel. */
	struct hzrig_dash_scale y = { -5, 5, 200, 0, false };

	(void)state;
	assert_float_equal(hzrig_dash_map(&x, 0), 0, 1e-9);
	assert_float_equal(hzrig_dash_map(&x, 2.5), 25, 1e-9);
	assert_float_equal(hzrig_dash_map(&x, 10), 100, 1e-9);
	/* Outside the domain extrapolates (the plot clips it). */
	assert_float_equal(hzrig_dash_map(&x, 20), 200, 1e-9);
	assert_float_equal(hzrig_dash_map(&y, -5), 200, 1e-9);
	assert_float_equal(hzrig_dash_map(&y, 0), 100, 1e-9);
	assert_float_equal(hzrig_dash_map(&y, 5), 0, 1e-9);
	assert_float_equal(hzrig_dash_map(&x, NAN), 0, 1e-9);
}

static void test_map_log(void **state)
{
	struct hzrig_dash_scale x = { 1, 1000, 0, 300, true };
	struct hzrig_dash_scale y = { 0.5, 50, 400, 0, true };

	(void)state;
	/* Each decade takes the same length. */
	assert_float_equal(hzrig_dash_map(&x, 1), 0, 1e-9);
	assert_float_equal(hzrig_dash_map(&x, 10), 100, 1e-9);
	assert_float_equal(hzrig_dash_map(&x, 100), 200, 1e-9);
	assert_float_equal(hzrig_dash_map(&x, 1000), 300, 1e-9);
	assert_float_equal(hzrig_dash_map(&x, sqrt(10)), 50, 1e-9);
	assert_float_equal(hzrig_dash_map(&y, 5), 200, 1e-9);
	/* Zero, negatives and NaN have no place on it: the near edge. */
	assert_float_equal(hzrig_dash_map(&x, 0), 0, 1e-9);
	assert_float_equal(hzrig_dash_map(&x, -3), 0, 1e-9);
	assert_float_equal(hzrig_dash_map(&y, 0), 400, 1e-9);
	assert_float_equal(hzrig_dash_map(&y, NAN), 400, 1e-9);
	assert_true(isfinite(hzrig_dash_map(&x, 1e300)));
}

static void test_map_degenerate(void **state)
{
	struct hzrig_dash_scale lin = { 3, 3, 10, 30, false };
	struct hzrig_dash_scale lg = { 7, 7, 10, 30, true };
	struct hzrig_dash_scale bad = { 0, 100, 10, 30, true };

	(void)state;
	assert_float_equal(hzrig_dash_map(&lin, 3), 20, 1e-9);
	assert_float_equal(hzrig_dash_map(&lin, 99), 20, 1e-9);
	assert_float_equal(hzrig_dash_map(&lg, 7), 20, 1e-9);
	/* A log domain touching 0 cannot be drawn: the middle, not NaN. */
	assert_float_equal(hzrig_dash_map(&bad, 50), 20, 1e-9);
}

/* ----------------------------------------------------------------- ticks */

/* The mantissa of @v: v / 10^floor(log10 v), in [1, 10). */
static double mantissa(double v)
{
	return v / pow(10, floor(log10(v) + 1e-9));
}

/* Is @v 1, 2 or 5 times a power of ten? */
static bool is_125(double v)
{
	double m = mantissa(v);

	return fabs(m - 1) < 1e-9 || fabs(m - 2) < 1e-9 || fabs(m - 5) < 1e-9;
}

/* The 1-2-5 value below @v (one of them): 5 -> 2, 2 -> 1, 1 -> 0.5. */
static double prev_125(double v)
{
	return v / (fabs(mantissa(v) - 5) < 1e-9 ? 2.5 : 2);
}

static void test_nice_step(void **state)
{
	double span, step;
	unsigned int max;
	int i;

	(void)state;
	assert_float_equal(hzrig_dash_nice_step(10, 6), 2, 1e-12);
	assert_float_equal(hzrig_dash_nice_step(100, 6), 20, 1e-9);
	assert_float_equal(hzrig_dash_nice_step(95, 6), 20, 1e-9);
	assert_float_equal(hzrig_dash_nice_step(101, 6), 50, 1e-9);
	assert_float_equal(hzrig_dash_nice_step(1, 5), 0.5, 1e-12);
	assert_float_equal(hzrig_dash_nice_step(1, 6), 0.2, 1e-12);
	assert_float_equal(hzrig_dash_nice_step(0.003, 4), 0.001, 1e-15);
	assert_float_equal(hzrig_dash_nice_step(60000, 7), 10000, 1e-6);
	/* Nonsense in, something usable out. */
	assert_float_equal(hzrig_dash_nice_step(0, 5), 1, 0);
	assert_float_equal(hzrig_dash_nice_step(-4, 5), 1, 0);
	assert_float_equal(hzrig_dash_nice_step(NAN, 5), 1, 0);
	assert_true(hzrig_dash_nice_step(10, 0) >= 10);

	/* For any span: a 1-2-5 step, within max_ticks, and the smallest. */
	for (i = -40; i <= 60; i++) {
		span = pow(10, i / 10.0) * 3.7;
		for (max = 2; max <= 12; max++) {
			step = hzrig_dash_nice_step(span, max);
			assert_true(is_125(step));
			assert_true(span / step <= (max - 1) * (1 + 1e-9));
			/* The next smaller 1-2-5 step would not fit. */
			assert_true(span / prev_125(step) >
				    (max - 1) * (1 - 1e-9));
		}
	}
}

static void test_nice_domain(void **state)
{
	static const struct {
		double lo, hi;			/* given */
		double want_lo, want_hi;	/* made of them */
	} cases[] = {
		{ 0.3, 9.8, 0, 10 },
		{ -3.2, 7.1, -5, 10 },
		/* Already nice: unchanged, no step added by rounding. */
		{ 0.2, 0.6, 0.2, 0.6 },
		/* Reversed bounds are swapped. */
		{ 9.8, 0.3, 0, 10 },
		/* One value: widened around it; zero around zero. */
		{ 5, 5, 2, 8 },
		{ 0, 0, -1, 1 },
	};
	double lo, hi;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		lo = cases[i].lo;
		hi = cases[i].hi;
		hzrig_dash_nice_domain(&lo, &hi, 5);
		if (cases[i].lo == cases[i].hi)
			assert_true(lo < cases[i].lo && hi > cases[i].hi);
		assert_float_equal(lo, cases[i].want_lo, 1e-12);
		assert_float_equal(hi, cases[i].want_hi, 1e-12);
	}
	lo = -0.4, hi = -0.0;
	hzrig_dash_nice_domain(&lo, &hi, 5);
	assert_false(signbit(hi));
}

static void test_ticks_linear(void **state)
{
	double t[16];
	char b[32];
	size_t n, i;

	(void)state;
	n = hzrig_dash_ticks_linear(0, 1, 6, t, 16);
	assert_int_equal(n, 6);
	for (i = 0; i < n; i++)
		assert_float_equal(t[i], i * 0.2, 1e-12);
	/* Integer multiples of the step: 3 * 0.2 labels as 0.6. */
	assert_string_equal(hzrig_dash_fmt(b, sizeof(b), t[3]), "0.6");
	n = hzrig_dash_ticks_linear(-1, 1, 5, t, 16);
	assert_int_equal(n, 5);
	assert_float_equal(t[2], 0, 0);
	assert_false(signbit(t[2]));
	/* Only multiples inside the range; never more than max_ticks. */
	n = hzrig_dash_ticks_linear(0.3, 9.7, 6, t, 16);
	assert_int_equal(n, 4);
	assert_float_equal(t[0], 2, 1e-12);
	assert_float_equal(t[3], 8, 1e-12);
	for (i = 1; i < 200; i++) {
		unsigned int max = 2 + i % 9;

		n = hzrig_dash_ticks_linear(-(double)i * 0.37, i * 1.91, max, t, 16);
		assert_true(n >= 1 && n <= max);
		/* Any range spanning a nice domain's worth gets two. */
		if (max >= 3)
			assert_true(n >= 2);
	}
	/* Step 2 leaves only 2 in [0.1, 3.9]: step 1 gives 1, 2, 3. */
	n = hzrig_dash_ticks_linear(0.1, 3.9, 3, t, 16);
	assert_int_equal(n, 3);
	assert_float_equal(t[0], 1, 1e-12);
	assert_float_equal(t[2], 3, 1e-12);
	/* ... but not at the price of more than max_ticks: 5 alone. */
	n = hzrig_dash_ticks_linear(0.6, 9.4, 3, t, 16);
	assert_int_equal(n, 1);
	assert_float_equal(t[0], 5, 1e-12);
	/* The cap is respected; bad ranges give nothing. */
	assert_int_equal(hzrig_dash_ticks_linear(0, 1, 6, t, 3), 3);
	assert_int_equal(hzrig_dash_ticks_linear(1, 0, 6, t, 16), 0);
	assert_int_equal(hzrig_dash_ticks_linear(0, INFINITY, 6, t, 16), 0);
	assert_int_equal(hzrig_dash_ticks_linear(4, 4, 6, t, 16), 1);
	assert_float_equal(t[0], 4, 0);
}

static void test_log_domain(void **state)
{
	static const struct {
		double lo, hi;			/* given */
		double want_lo, want_hi;	/* made of them */
		double lo_eps, hi_eps;
	} cases[] = {
		{ 3, 70, 2, 100, 1e-12, 1e-9 },
		/* Values on the 1-2-5 sequence stay. */
		{ 0.001, 50000, 0.001, 50000, 1e-15, 1e-6 },
		{ 0.67, 1100, 0.5, 2000, 1e-12, 1e-9 },
		/* One value: a step either side. */
		{ 1, 1, 0.5, 2, 1e-12, 1e-12 },
		{ 0.7, 0.7, 0.5, 1, 1e-12, 1e-12 },
	};
	double lo, hi;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		hzrig_dash_log_domain(cases[i].lo, cases[i].hi, &lo, &hi);
		assert_float_equal(lo, cases[i].want_lo, cases[i].lo_eps);
		assert_float_equal(hi, cases[i].want_hi, cases[i].hi_eps);
	}
	/* A zero or negative end cannot be on a log axis. */
	hzrig_dash_log_domain(0, 100, &lo, &hi);
	assert_true(lo > 0 && lo <= 10 && hi >= 100);
	hzrig_dash_log_domain(-1, -1, &lo, &hi);
	assert_true(lo > 0 && hi > lo);
}

static void test_ticks_log(void **state)
{
	static const double three[] = { 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000 };
	static const double five[] = { 1, 10, 100, 1000, 10000, 100000 };
	double t[32];
	size_t n, i;

	(void)state;
	/* Up to three decades: 1, 2, 5 of each. */
	n = hzrig_dash_ticks_log(1, 1000, t, 32);
	assert_int_equal(n, 10);
	for (i = 0; i < n; i++)
		assert_float_equal(t[i], three[i], three[i] * 1e-12);
	/* More: powers of ten only. */
	n = hzrig_dash_ticks_log(0.5, 100000, t, 32);
	assert_int_equal(n, 6);
	for (i = 0; i < n; i++)
		assert_float_equal(t[i], five[i], five[i] * 1e-12);
	/* Negative exponents come out as the decimals they name. */
	n = hzrig_dash_ticks_log(0.001, 0.01, t, 32);
	assert_int_equal(n, 4);
	assert_float_equal(t[0], 0.001, 1e-15);
	assert_float_equal(t[3], 0.01, 1e-15);
	n = hzrig_dash_ticks_log(2, 5, t, 32);
	assert_int_equal(n, 2);
	assert_int_equal(hzrig_dash_ticks_log(1.2, 1.8, t, 32), 0);
	assert_int_equal(hzrig_dash_ticks_log(1, 1000, t, 4), 4);
	assert_int_equal(hzrig_dash_ticks_log(0, 1000, t, 32), 0);
	assert_int_equal(hzrig_dash_ticks_log(10, 1, t, 32), 0);
	/* Ascending, whatever the range. */
	n = hzrig_dash_ticks_log(0.0003, 70000, t, 32);
	for (i = 1; i < n; i++)
		assert_true(t[i] > t[i - 1]);
}

static void test_fmt(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(hzrig_dash_fmt(b, sizeof(b), 1000), "1000");
	assert_string_equal(hzrig_dash_fmt(b, sizeof(b), 60000), "60000");
	assert_string_equal(hzrig_dash_fmt(b, sizeof(b), 0.5), "0.5");
	assert_string_equal(hzrig_dash_fmt(b, sizeof(b), 2.5), "2.5");
	assert_string_equal(hzrig_dash_fmt(b, sizeof(b), 0.001), "0.001");
	assert_string_equal(hzrig_dash_fmt(b, sizeof(b), -0.0), "0");
	assert_string_equal(hzrig_dash_fmt(b, sizeof(b), 0.1 + 0.2), "0.3");
	assert_string_equal(hzrig_dash_fmt(b, sizeof(b), -20), "-20");
	assert_string_equal(hzrig_dash_fmt(b, sizeof(b), NAN), "-");
	/* Truncated to the buffer, still terminated. */
	assert_string_equal(hzrig_dash_fmt(b, 3, 60000), "60");
}

/* -------------------------------------------------------------- escaping */

static char *escaped(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	hzrig_dash_escape(f, s);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_escape(void **state)
{
	char *e;

	(void)state;
	e = escaped("<script>alert('x') & \"y\"</script>");
	assert_string_equal(e, "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;");
	free(e);
	/* Entities are escaped again: the text shows what the DB holds. */
	e = escaped("&amp;");
	assert_string_equal(e, "&amp;amp;");
	free(e);
	/* Tab, newline, CR stay; other C0 controls become U+FFFD. */
	e = escaped("a\tb\nc\rd\x01" "e\x1f");
	assert_string_equal(e, "a\tb\nc\rd\xef\xbf\xbd" "e\xef\xbf\xbd");
	free(e);
	/* UTF-8 passes through. */
	e = escaped("\xc2\xb5s \xe2\x88\x92");
	assert_string_equal(e, "\xc2\xb5s \xe2\x88\x92");
	free(e);
	e = escaped(NULL);
	assert_string_equal(e, "");
	free(e);
}

/* ---------------------------------------------------- the whole page */

/* The schema-v1 contract of docs/history.md, verbatim. */
static const char schema_v1[] =
	"CREATE TABLE runs(run_id TEXT PRIMARY KEY, started_at TEXT, ingested_at TEXT NOT NULL,"
	"  hzrig_version TEXT, plan TEXT, source TEXT);"
	"CREATE TABLE variant_runs(id INTEGER PRIMARY KEY, run_id TEXT NOT NULL REFERENCES runs(run_id)"
	"  ON DELETE CASCADE, variant TEXT NOT NULL, hz INTEGER NOT NULL, release TEXT, tree_describe TEXT,"
	"  config_hash TEXT, patches TEXT, accel TEXT, clocksource TEXT, boot_status TEXT,"
	"  overshoot_p50_ns INTEGER, overshoot_p99_ns INTEGER, rtt_p50_ns INTEGER, rtt_p99_ns INTEGER,"
	"  allowance_ns INTEGER, waits_ms INTEGER, wall_ms INTEGER, samples INTEGER, inside INTEGER,"
	"  run_json TEXT NOT NULL, UNIQUE(run_id, variant));"
	"CREATE TABLE samples(variant_run INTEGER NOT NULL REFERENCES variant_runs(id) ON DELETE CASCADE,"
	"  case_idx INTEGER NOT NULL, rep INTEGER NOT NULL, case_key TEXT NOT NULL, transfer TEXT NOT NULL,"
	"  behaviour TEXT NOT NULL, mode TEXT NOT NULL, timeout_ms INTEGER NOT NULL, timeout_arg INTEGER NOT NULL,"
	"  delay_us INTEGER, length INTEGER, status INTEGER NOT NULL, expected_status INTEGER,"
	"  elapsed_ns INTEGER NOT NULL, actual_length INTEGER, phase_ns INTEGER, window_lo_ns INTEGER,"
	"  window_hi_ns INTEGER, allowance_ns INTEGER, verdict TEXT NOT NULL);"
	"CREATE TABLE baselines(variant TEXT PRIMARY KEY, run_id TEXT NOT NULL REFERENCES runs(run_id),"
	"  set_at TEXT NOT NULL);"
	"CREATE TABLE regressions(run_id TEXT NOT NULL, variant TEXT NOT NULL, baseline_run TEXT NOT NULL,"
	"  baseline_variant TEXT NOT NULL, case_key TEXT NOT NULL, kind TEXT NOT NULL,"
	"  old_value REAL, new_value REAL, threshold REAL, window_lo_ns INTEGER, window_hi_ns INTEGER,"
	"  detail TEXT, checked_at TEXT NOT NULL);"
	"PRAGMA user_version = 1;";

/*
 * Two runs of one variant with a hostile name. The newer has a case whose
 * two samples are late, a regression recorded for it and a case in the
 * jiffies mode; the older is the baseline.
 */
static const char data[] =
	"INSERT INTO runs VALUES('20261201T000000Z', '2026-12-01T00:00:00Z',"
	"  '2026-12-01T01:00:00Z', NULL, 'default.plan', '/x');"
	"INSERT INTO runs VALUES('20261202T000000Z', '2026-12-02T00:00:00Z',"
	"  '2026-12-02T01:00:00Z', 'v1<i>', 'quick.plan', '/y');"
	"INSERT INTO variant_runs(id, run_id, variant, hz, release, tree_describe,"
	"  config_hash, accel, clocksource, boot_status, allowance_ns, run_json)"
	"  VALUES(1, '20261201T000000Z', '<b>v</b>', 250, '6.1', 't', 'sha256:ab',"
	"  'tcg', 'tsc', 'ok', 2000000, '{\"variant\": \"<b>v</b>\", \"hz\": 250}'),"
	"  (2, '20261202T000000Z', '<b>v</b>', 250, '6.1', 't</td>', NULL,"
	"  'tcg', 'tsc', 'ok', 2000000, '{\"variant\": \"<b>v</b>\", \"hz\": 250}');"
	"INSERT INTO samples(variant_run, case_idx, rep, case_key, transfer, behaviour,"
	"  mode, timeout_ms, timeout_arg, status, expected_status, elapsed_ns,"
	"  window_lo_ns, window_hi_ns, allowance_ns, verdict) VALUES"
	"  (1, 0, 0, 'bulk-in nak ms T=100', 'bulk-in', 'nak', 'ms', 100, 100, -110, -110,"
	"   102000000, 100000000, 104000000, 2000000, 'inside'),"
	"  (1, 0, 1, 'bulk-in nak ms T=100', 'bulk-in', 'nak', 'ms', 100, 100, -110, -110,"
	"   103000000, 100000000, 104000000, 2000000, 'inside'),"
	"  (2, 0, 0, 'bulk-in nak ms T=100', 'bulk-in', 'nak', 'ms', 100, 100, -110, -110,"
	"   401000000, 100000000, 104000000, 2000000, 'late'),"
	"  (2, 0, 1, 'bulk-in nak ms T=100', 'bulk-in', 'nak', 'ms', 100, 100, -110, -110,"
	"   399000000, 100000000, 104000000, 2000000, 'late'),"
	"  (2, 1, 0, 'bulk-in nak ms T=1', 'bulk-in', 'nak', 'ms', 1, 1, -110, -110,"
	"   5000000, 4000000, 8000000, 2000000, 'inside'),"
	"  (2, 2, 0, 'bulk-in nak legacy-jiffies T=1000', 'bulk-in', 'nak', 'legacy-jiffies',"
	"   1000, 250, -110, -110, 253000000, 252000000, 284000000, 2000000, 'inside'),"
	"  (2, 3, 0, 'bulk-in answer ms T=100', 'bulk-in', 'answer', 'ms', 100, 100, 0, 0,"
	"   400000, 100000000, 104000000, 2000000, 'inside');"
	"INSERT INTO baselines VALUES('<b>v</b>', '20261201T000000Z', '2026-12-01T02:00:00Z');"
	"INSERT INTO regressions VALUES('20261202T000000Z', '<b>v</b>', '20261201T000000Z',"
	"  '<b>v</b>', 'bulk-in nak ms T=100', 'median', 102.0, 399.0, 12.0, 100000000,"
	"  104000000, 'median 102 -> 399 <ms>', '2026-12-02T02:00:00Z');";

struct tmp {
	char dir[64];
	char db[96];
	char out[96];
	char page[128];
};

static int setup(void **state)
{
	struct tmp *t = calloc(1, sizeof(*t));

	if (!t)
		return -1;
	make_tmpdir(t->dir, sizeof(t->dir), "dash");
	snprintf(t->db, sizeof(t->db), "%s/h.db", t->dir);
	snprintf(t->out, sizeof(t->out), "%s/out", t->dir);
	snprintf(t->page, sizeof(t->page), "%s/out/index.html", t->dir);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tmp *t = *state;

	rm_rf(t->dir);
	free(t);
	return 0;
}

static void make_db(const char *path, const char *sql)
{
	sqlite3 *db;
	char *err = NULL;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("%s", err);
	sqlite3_close(db);
}

/* The history of two runs above as t->db. */
static void make_history(struct tmp *t)
{
	make_db(t->db, schema_v1);
	make_db(t->db, data);
}

static size_t occurrences(const char *hay, const char *needle)
{
	size_t n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

/* Is there a "nan" or "inf" (as printf writes them) in a number's place? */
static bool bad_number(const char *page)
{
	static const char *const bad[] = { "nan", "inf" };
	const char *p;
	size_t i;

	for (i = 0; i < 2; i++)
		for (p = page; (p = strstr(p, bad[i])); p++)
			if (p > page && strchr("\" -ML,(", p[-1]))
				return true;
	return false;
}

/* Run hzrig_dashboard(); what it says is in err_text() until err_free(). */
static int dashboard(struct tmp *t, const char *db, const char *run)
{
	struct hzrig_dash_opts o = {
		.db_path = db, .out_dir = t->out, .run_id = run,
		.err = err_open(),
	};

	return hzrig_dashboard(&o);
}

/* The page of @run (NULL: the newest), which must work; @quiet: silently. */
static char *page_of(struct tmp *t, const char *run, bool quiet)
{
	assert_int_equal(dashboard(t, t->db, run), HZRIG_DASH_OK);
	if (quiet)
		assert_string_equal(err_text(), "");
	err_free();
	return read_file(t->page, NULL);
}

/* The dashboard of @db must fail saying @msg and, unless NULL, @also. */
static void dashboard_fails(struct tmp *t, const char *db, const char *run,
			    const char *msg, const char *also)
{
	assert_int_equal(dashboard(t, db, run), HZRIG_DASH_FAILED);
	assert_contains(err_text(), msg);
	if (also)
		assert_contains(err_text(), also);
	err_free();
}

static void test_page(void **state)
{
	struct tmp *t = *state;
	char *page;

	make_history(t);
	page = page_of(t, NULL, true);
	/* The newest run by default. */
	assert_non_null(strstr(page, "id=\"run-id\">20261202T000000Z<"));
	/* Every string from the DB is text, never markup. */
	assert_null(strstr(page, "<b>v</b>"));
	assert_null(strstr(page, "v1<i>"));
	assert_non_null(strstr(page, "v1&lt;i&gt;"));
	assert_null(strstr(page, "t</td>"));
	assert_null(strstr(page, "<ms>"));
	assert_non_null(strstr(page, "&lt;b&gt;v&lt;/b&gt;"));
	assert_non_null(strstr(page, "t&lt;/td&gt;"));
	/* The sections, the samples, the marks. */
	assert_non_null(strstr(page, "id=\"observed-vs-requested\""));
	assert_non_null(strstr(page, "id=\"error-per-hz\""));
	assert_non_null(strstr(page, "id=\"legacy-jiffies\""));
	assert_non_null(strstr(page, "id=\"history\""));
	assert_non_null(strstr(page, "id=\"runs\""));
	assert_non_null(strstr(page, "id=\"unexplained\""));
	/* A schema-1 history has no paths: all kernel, said so, no table. */
	assert_non_null(strstr(page, "id=\"paths\""));
	assert_non_null(strstr(page, "This run made no userspace calls"));
	assert_null(strstr(page, "<table class=\"paths\">"));
	/* Two late samples: two rows, two ringed dots in the scatter. */
	assert_int_equal(occurrences(page, "<tr class=\"sample\">"), 2);
	assert_int_equal(occurrences(page, "class=\"pt out\" cx="), 2 + 1);
	assert_int_equal(occurrences(page, "<tr class=\"regression\">"), 1);
	assert_int_equal(occurrences(page, "class=\"reg-mark\""), 1);
	/* The baseline run has one case: one ring in the history. */
	assert_int_equal(occurrences(page, "class=\"base-mark\""), 1);
	/*
	 * Dots: 3 NAKed ms samples and 1 answered of the chosen run, 2
	 * medians (T=1, T=100) in the error chart, 1 in the legacy chart.
	 */
	assert_int_equal(occurrences(page, "<circle class=\"pt"), 3 + 1 + 2 + 1);
	/* printf's "nan" and "inf" would be coordinates SVG cannot draw. */
	assert_false(bad_number(page));
	assert_null(strstr(page, "<script"));
	assert_null(strstr(page, "http"));
	free(page);

	/* --run: the older one; no late sample there. */
	page = page_of(t, "20261201T000000Z", false);
	assert_non_null(strstr(page, "id=\"run-id\">20261201T000000Z<"));
	assert_int_equal(occurrences(page, "<tr class=\"sample\">"), 0);
	assert_non_null(strstr(page, "All 2 calls are inside"));
	free(page);
}

static void test_unknown_run_keeps_page(void **state)
{
	struct tmp *t = *state;
	char *before, *after;

	make_history(t);
	before = page_of(t, NULL, false);
	/* The newest are listed, to pick from. */
	dashboard_fails(t, t->db, "nope", "no run 'nope'",
			"20261202T000000Z 20261201T000000Z");
	after = read_file(t->page, NULL);
	assert_string_equal(before, after);
	free(before);
	free(after);
}

static void test_empty(void **state)
{
	struct tmp *t = *state;
	char *page;

	/* An empty file: SQLite's empty database. */
	write_file(t->db, "");
	page = page_of(t, NULL, false);
	assert_non_null(strstr(page, "id=\"empty\""));
	assert_null(strstr(page, "id=\"history\""));
	free(page);
	/* The schema without runs: the same page. */
	unlink(t->db);
	make_db(t->db, schema_v1);
	page = page_of(t, NULL, false);
	assert_non_null(strstr(page, "id=\"empty\""));
	free(page);
	/* But no run to pick. */
	dashboard_fails(t, t->db, "x", "no run 'x'", NULL);
}

static void test_not_a_history(void **state)
{
	struct tmp *t = *state;
	struct stat sb;
	char path[160];

	/* Missing: not created, named, nothing written. */
	dashboard_fails(t, t->db, NULL, "No such file", "hzrig ingest");
	assert_int_equal(stat(t->db, &sb), -1);
	assert_int_equal(stat(t->out, &sb), -1);

	/* Text. */
	write_file(t->db, "samples.jsonl is not a database, and neither is this\n");
	dashboard_fails(t, t->db, NULL, "cannot read it as a history database",
			"not a database");
	unlink(t->db);

	/* Another program's SQLite database (user_version 0, tables). */
	make_db(t->db, "CREATE TABLE t(x);");
	dashboard_fails(t, t->db, NULL, "schema version 0", NULL);
	unlink(t->db);

	/* A version that claims the contract but lacks a table. */
	make_db(t->db, "CREATE TABLE runs(run_id TEXT); PRAGMA user_version = 1;");
	dashboard_fails(t, t->db, NULL, "no table variant_runs", NULL);
	assert_int_equal(stat(t->out, &sb), -1);

	/* A directory. */
	snprintf(path, sizeof(path), "%s/dir.db", t->dir);
	assert_int_equal(mkdir(path, 0755), 0);
	dashboard_fails(t, path, NULL, "not a regular file", NULL);
}

/*
 * One record the loader refuses (a run.json a history could hold from
 * before the checks: tick_ns NaN) is named and left out; the other runs
 * are drawn, and asking for it by name says it is not there.
 */
static void test_bad_record(void **state)
{
	struct tmp *t = *state;
	char *page;

	make_history(t);
	make_db(t->db, "UPDATE variant_runs SET run_json = '{\"variant\":"
		" \"<b>v</b>\", \"hz\": 250, \"tick_ns\": NaN}' WHERE id = 1;");
	assert_int_equal(dashboard(t, t->db, NULL), HZRIG_DASH_OK);
	assert_contains(err_text(), "field \"tick_ns\"");
	assert_contains(err_text(), "run 20261201T000000Z left out");
	err_free();
	page = read_file(t->page, NULL);
	assert_non_null(strstr(page, "id=\"run-id\">20261202T000000Z<"));
	assert_non_null(strstr(page, "1 run in the history"));
	free(page);
	dashboard_fails(t, t->db, "20261201T000000Z", "no run '20261201T000000Z'",
			NULL);
}

/*
 * Later versions only add: a history brought to the current schema with a
 * column no version has yet still reads, and the older one is read through
 * a migrated copy without being changed.
 */
static void test_later_schema(void **state)
{
	struct tmp *t = *state;
	size_t nb, na;
	char *before, *after, *page;
	sqlite3 *db;

	make_history(t);
	before = read_file(t->db, &nb);
	page = page_of(t, NULL, false);
	assert_int_equal(occurrences(page, "<tr class=\"sample\">"), 2);
	free(page);
	after = read_file(t->db, &na);
	assert_int_equal(na, nb);
	assert_memory_equal(before, after, nb);
	free(before);
	free(after);
	assert_int_equal(sqlite3_open(t->db, &db), SQLITE_OK);
	assert_int_equal(hzrig_db_migrate(db, t->db, stderr), 0);
	assert_int_equal(sqlite3_exec(db, "ALTER TABLE samples ADD COLUMN later INTEGER",
				      NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	page = page_of(t, NULL, false);
	assert_int_equal(occurrences(page, "<tr class=\"sample\">"), 2);
	free(page);
}

static void test_unwritable(void **state)
{
	struct tmp *t = *state;
	FILE *f;

	make_history(t);
	/* The output "directory" is under a file. */
	snprintf(t->out, sizeof(t->out), "%s/h.db/out", t->dir);
	dashboard_fails(t, t->db, NULL, "Not a directory", NULL);
	/* The database is untouched (opened read-only). */
	f = fopen(t->db, "r");
	assert_non_null(f);
	fclose(f);
}

/* Every test in a scratch directory of its own. */
#define SCRATCH_TEST(f) \
	cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map_linear),
		cmocka_unit_test(test_map_log),
		cmocka_unit_test(test_map_degenerate),
		cmocka_unit_test(test_nice_step),
		cmocka_unit_test(test_nice_domain),
		cmocka_unit_test(test_ticks_linear),
		cmocka_unit_test(test_log_domain),
		cmocka_unit_test(test_ticks_log),
		cmocka_unit_test(test_fmt),
		cmocka_unit_test(test_escape),
		SCRATCH_TEST(test_page),
		SCRATCH_TEST(test_unknown_run_keeps_page),
		SCRATCH_TEST(test_empty),
		SCRATCH_TEST(test_not_a_history),
		SCRATCH_TEST(test_later_schema),
		SCRATCH_TEST(test_bad_record),
		SCRATCH_TEST(test_unwritable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
