// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the history database (rig/history/db.c, and `hzrig ingest` of
 * rig/history/cmd_history.c): the v1 contract, migrations from an older schema and
 * refusal of a newer one, ingesting (idempotent, all or nothing, --replace),
 * the round trip of runs through the DB, baselines and stored checks.
 *
 * Fixtures: tests/data/history/ (see test_stats.c for their figures).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "collect/collect.h"
#include "history/db.h"
#include "history/history.h"
#include "runs/runs.h"
#include "testutil.h"

#define QUICK	DATA_DIR "/history/20261203T102031Z"
#define DEFLT	DATA_DIR "/history/20261203T094306Z"

/* ---------------------------------------------------------------------- */
/* Helpers */

static FILE *null_out(void)
{
	FILE *f = fopen("/dev/null", "w");

	assert_non_null(f);
	return f;
}

/* A scratch directory per test, removed after it. */
static char scratch[64];

static int setup(void **state)
{
	(void)state;
	make_tmpdir(scratch, sizeof(scratch), "db");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(scratch);
	return 0;
}

static char *path_in(const char *name)
{
	char *p;

	assert_true(asprintf(&p, "%s/%s", scratch, name) > 0);
	return p;
}

/* Copy fixture run @src to scratch/@sub/@id; returns the new path. */
static char *copy_run(const char *src, const char *sub, const char *id)
{
	char *parent = path_in(sub), *dst;

	mkdir(parent, 0755);
	assert_true(asprintf(&dst, "%s/%s", parent, id) > 0);
	free(parent);
	copy_tree(src, dst);
	return dst;
}

/* Rewrite @dir/samples.jsonl with @fn (rewrite_lines(), newlines and all). */
static void filter_samples(const char *dir, line_fn fn)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/samples.jsonl", dir);
	rewrite_lines(path, false, fn, NULL);
}

static void assert_same_file(const char *path, const char *before,
			     size_t blen)
{
	size_t alen;
	char *after = read_file(path, &alen);

	assert_int_equal(alen, blen);
	assert_memory_equal(after, before, blen);
	free(after);
}

static bool file_exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

static int64_t q_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL))
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_type(st, 0) == SQLITE_NULL ? -999999 :
	    sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static void assert_q_int(sqlite3 *db, const char *sql, int64_t want)
{
	int64_t got = q_int(db, sql);

	if (got != want)
		fail_msg("%s: %" PRId64 ", expected %" PRId64, sql, got, want);
}

static int q_rows(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int n = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL))
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	while (sqlite3_step(st) == SQLITE_ROW)
		n++;
	sqlite3_finalize(st);
	return n;
}

/* The first column of the first row as text ("NULL" for null). */
static char *q_text(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	const unsigned char *s;
	char *r;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL))
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	s = sqlite3_column_text(st, 0);
	r = strdup(s ? (const char *)s : "NULL");
	sqlite3_finalize(st);
	return r;
}

static void assert_q_text(sqlite3 *db, const char *sql, const char *want)
{
	char *got = q_text(db, sql);

	if (strcmp(got, want))
		fail_msg("%s: '%s', expected '%s'", sql, got, want);
	free(got);
}

/* A query and the text it gives or, without one, the integer. */
struct q_want {
	const char *sql;
	const char *text;
	int64_t num;
};

static void assert_q_all(sqlite3 *db, const struct q_want *w, size_t n)
{
	for (; n; n--, w++) {
		if (w->text)
			assert_q_text(db, w->sql, w->text);
		else
			assert_q_int(db, w->sql, w->num);
	}
}

static sqlite3 *open_db(const char *path)
{
	sqlite3 *db = hzrig_db_open(path, HZRIG_DB_CREATE, err_open());

	if (!db)
		fail_msg("open %s: %s", path, err_text());
	err_free();
	return db;
}

static void ingest(sqlite3 *db, const char *dir, bool replace, int want)
{
	struct hzrig_run run;
	FILE *out = null_out();
	int r;

	assert_int_equal(hzrig_run_load(dir, &run, err_open()), 0);
	err_free();
	r = hzrig_db_ingest(db, &run, replace, out, err_open());
	if (r != want)
		fail_msg("ingest %s: %d, expected %d: %s", dir, r, want,
			 err_text());
	err_free();
	fclose(out);
	hzrig_run_free(&run);
}

/* Run an hzrig command with stdout and stderr captured. */
static int run_cmd(int (*fn)(int, char **), char **argv, char **out,
		   char **err)
{
	char *po = path_in("cmd.out"), *pe = path_in("cmd.err");
	int so = dup(1), se = dup(2), fo, fe, argc = 0, rc;

	while (argv[argc])
		argc++;
	fflush(stdout);
	fflush(stderr);
	fo = open(po, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	fe = open(pe, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fo >= 0 && fe >= 0);
	dup2(fo, 1);
	dup2(fe, 2);
	rc = fn(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	close(fo);
	close(fe);
	*out = read_file(po, NULL);
	*err = read_file(pe, NULL);
	free(po);
	free(pe);
	return rc;
}

/* ---------------------------------------------------------------------- */

/* Columns of schema v1, in order: the contract readers rely on. */
static const char *const v1_columns[][24] = {
	{ "runs", "run_id", "started_at", "ingested_at", "hzrig_version",
	  "plan", "source" },
	{ "variant_runs", "id", "run_id", "variant", "hz", "release",
	  "tree_describe", "config_hash", "patches", "accel", "clocksource",
	  "boot_status", "overshoot_p50_ns", "overshoot_p99_ns", "rtt_p50_ns",
	  "rtt_p99_ns", "allowance_ns", "waits_ms", "wall_ms", "samples",
	  "inside", "run_json" },
	{ "samples", "variant_run", "case_idx", "rep", "case_key", "transfer",
	  "behaviour", "mode", "timeout_ms", "timeout_arg", "delay_us",
	  "length", "status", "expected_status", "elapsed_ns",
	  "actual_length", "phase_ns", "window_lo_ns", "window_hi_ns",
	  "allowance_ns", "verdict" },
	{ "baselines", "variant", "run_id", "set_at" },
	{ "regressions", "run_id", "variant", "baseline_run",
	  "baseline_variant", "case_key", "kind", "old_value", "new_value",
	  "threshold", "window_lo_ns", "window_hi_ns", "detail",
	  "checked_at" },
};

static void assert_v1_contract(sqlite3 *db)
{
	size_t t;

	for (t = 0; t < sizeof(v1_columns) / sizeof(v1_columns[0]); t++) {
		char sql[128];
		sqlite3_stmt *st;
		size_t c = 1;

		snprintf(sql, sizeof(sql), "PRAGMA table_info(%s)",
			 v1_columns[t][0]);
		assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), 0);
		while (sqlite3_step(st) == SQLITE_ROW && v1_columns[t][c]) {
			const char *name = (const char *)sqlite3_column_text(st, 1);

			if (strcmp(name, v1_columns[t][c]))
				fail_msg("%s column %zu: '%s', expected '%s'",
					 v1_columns[t][0], c, name,
					 v1_columns[t][c]);
			c++;
		}
		sqlite3_finalize(st);
		if (v1_columns[t][c])
			fail_msg("%s: no column '%s'", v1_columns[t][0],
				 v1_columns[t][c]);
	}
	assert_q_int(db, "SELECT count(*) FROM sqlite_master WHERE"
		     " type = 'index' AND name = 'samples_case'", 1);
}

static int user_version(sqlite3 *db)
{
	int v = -12345;

	assert_int_equal(hzrig_db_user_version(db, &v), 0);
	return v;
}

static void test_create(void **state)
{
	char *path = path_in("h.db");
	sqlite3 *db;

	(void)state;
	/* Not there and not to be created: a clear error, no file. */
	assert_null(hzrig_db_open(path, HZRIG_DB_READ, err_open()));
	assert_contains(err_text(), "h.db: No such file or directory (ingest a run first");
	err_free();
	assert_false(file_exists(path));

	db = open_db(path);
	assert_int_equal(user_version(db), hzrig_db_version);
	assert_true(hzrig_db_version >= 2);
	assert_v1_contract(db);
	assert_q_text(db, "PRAGMA journal_mode", "wal");
	assert_q_int(db, "PRAGMA foreign_keys", 1);
	sqlite3_close(db);
	/* Opening again changes nothing. */
	db = open_db(path);
	assert_int_equal(user_version(db), hzrig_db_version);
	sqlite3_close(db);
	free(path);
}

/* A database as hzrig with only migration 1 left it. */
static void make_v1(const char *path, const char *extra_sql)
{
	sqlite3 *db;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, hzrig_db_migrations[0], NULL, NULL,
				      NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
		"PRAGMA user_version = 1;"
		"INSERT INTO runs(run_id, ingested_at) VALUES('r1', 'then');"
		"INSERT INTO variant_runs(run_id, variant, hz, run_json)"
		" VALUES('r1', 'hz-250', 250, '{}');"
		"INSERT INTO samples(variant_run, case_idx, rep, case_key,"
		" transfer, behaviour, mode, timeout_ms, timeout_arg, status,"
		" elapsed_ns, verdict) VALUES(1, 0, 0, 'bulk-in nak ms T=1',"
		" 'bulk-in', 'nak', 'ms', 1, 1, -110, 5000000, 'inside');"
		"INSERT INTO baselines VALUES('hz-250', 'r1', 'then');",
		NULL, NULL, NULL), SQLITE_OK);
	if (extra_sql)
		assert_int_equal(sqlite3_exec(db, extra_sql, NULL, NULL, NULL),
				 SQLITE_OK);
	sqlite3_close(db);
}

static void test_migrate_v1(void **state)
{
	char *path = path_in("old.db");
	sqlite3 *db;

	(void)state;
	make_v1(path, NULL);
	db = open_db(path);
	assert_int_equal(user_version(db), hzrig_db_version);
	/* The data survived, the contract holds, the additions are there. */
	assert_v1_contract(db);
	assert_q_int(db, "SELECT elapsed_ns FROM samples", 5000000);
	assert_q_text(db, "SELECT run_id FROM baselines WHERE variant = 'hz-250'", "r1");
	assert_q_int(db, "SELECT count(fragments) FROM variant_runs", 0);
	assert_q_int(db, "SELECT count(*) FROM regression_checks", 0);
	assert_q_int(db, "SELECT count(granule) FROM samples", 0);
	assert_q_int(db, "SELECT count(jiffies_lag) FROM samples", 0);
	sqlite3_close(db);
	free(path);
}

/* A migration that fails leaves the database as it was. */
static void test_migrate_fails(void **state)
{
	char *path = path_in("clash.db"), *before;
	size_t blen;
	sqlite3 *db;

	(void)state;
	/* Someone made a table migration 2 wants to create. */
	make_v1(path, "CREATE TABLE regression_checks(x);");
	before = read_file(path, &blen);
	assert_null(hzrig_db_open(path, HZRIG_DB_CREATE, err_open()));
	assert_contains(err_text(), "table regression_checks already exists");
	assert_contains(err_text(), "migration to schema version 2 failed; the database is unchanged");
	err_free();
	assert_same_file(path, before, blen);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(user_version(db), 1);
	sqlite3_close(db);
	free(before);
	free(path);
}

static void test_newer_refused(void **state)
{
	char *path = path_in("new.db"), *before, want[128];
	size_t blen;
	sqlite3 *db;

	(void)state;
	db = open_db(path);
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 99", NULL,
				      NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	before = read_file(path, &blen);
	assert_null(hzrig_db_open(path, HZRIG_DB_CREATE, err_open()));
	snprintf(want, sizeof(want),
		 "schema version 99 is newer than this hzrig knows (%d): use a newer hzrig",
		 hzrig_db_version);
	assert_contains(err_text(), want);
	err_free();
	assert_same_file(path, before, blen);
	free(before);

	/* Not a database at all. */
	write_file(path, "hello, world\n");
	assert_null(hzrig_db_open(path, HZRIG_DB_CREATE, err_open()));
	assert_contains(err_text(), "file is not a database");
	err_free();
	free(path);
}

/* A negative user_version is named as such, never "not an error". */
static void test_negative_version_refused(void **state)
{
	static const enum hzrig_db_mode modes[] = {
		HZRIG_DB_READ, HZRIG_DB_WRITE, HZRIG_DB_CREATE,
	};
	char *path = path_in("neg.db"), *before;
	size_t blen, i;
	sqlite3 *db;

	(void)state;
	db = open_db(path);
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = -3", NULL,
				      NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	before = read_file(path, &blen);
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		assert_null(hzrig_db_open(path, modes[i], err_open()));
		assert_contains(err_text(), "neg.db: schema version -3: no hzrig writes a negative version");
		assert_null(strstr(err_text(), "not an error"));
		err_free();
	}
	assert_null(hzrig_db_open_readonly(path, err_open()));
	assert_contains(err_text(), "schema version -3");
	err_free();
	assert_same_file(path, before, blen);
	free(before);
	free(path);
}

/* A device or a directory is no database, and the message names it. */
static void test_not_a_file(void **state)
{
	static const char *const paths[] = { "/dev/null", "/tmp" };
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		assert_null(hzrig_db_open(paths[i], HZRIG_DB_CREATE, err_open()));
		assert_contains(err_text(), paths[i]);
		assert_contains(err_text(), "not a regular file");
		err_free();
		assert_null(hzrig_db_open_readonly(paths[i], err_open()));
		assert_contains(err_text(), "not a regular file");
		err_free();
	}
}

/* ---------------------------------------------------------------------- */

static void test_ingest(void **state)
{
	static const struct q_want want[] = {
		{ "SELECT count(*) FROM runs", .num = 2 },
		{ "SELECT started_at FROM runs WHERE run_id = '20261203T102031Z'",
		  .text = "2026-12-03T10:20:31Z" },
		{ "SELECT plan FROM runs WHERE run_id = '20261203T102031Z'",
		  .text = "quick.plan" },
		{ "SELECT hzrig_version FROM runs WHERE run_id = '20261203T102031Z'",
		  .text = "97f5d3a-dirty" },
		{ "SELECT hzrig_version FROM runs WHERE run_id = '20261203T094306Z'",
		  .text = "NULL" },
		{ "SELECT count(*) FROM variant_runs", .num = 3 },
		{ "SELECT count(*) FROM samples", .num = 436 },
		{ "SELECT inside FROM variant_runs WHERE variant = 'hz-1000'", .num = 147 },
		{ "SELECT samples FROM variant_runs WHERE variant = 'hz-250'", .num = 148 },
		{ "SELECT rtt_p99_ns FROM variant_runs WHERE variant = 'hz-250'", .num = 2828015 },
		{ "SELECT waits_ms FROM variant_runs WHERE variant = 'hz-250'", .num = 19020 },
		/* The old run has no efficiency figures. */
		{ "SELECT waits_ms FROM variant_runs WHERE variant = 'hz-100'", .num = -999999 },
		/* build.json of hz-250; none for hz-1000. */
		{ "SELECT patches FROM variant_runs WHERE variant = 'hz-250'",
		  .text = "0001-example-one.patch 0002-example-two.patch" },
		{ "SELECT fragments FROM variant_runs WHERE variant = 'hz-250'",
		  .text = "base usb clock hz-250" },
		{ "SELECT tree_describe FROM variant_runs WHERE variant = 'hz-250'",
		  .text = "6.1.192-1" },
		{ "SELECT substr(config_hash, 1, 10) FROM variant_runs WHERE variant = 'hz-250'",
		  .text = "sha256:3f1" },
		{ "SELECT kernel_build_s FROM variant_runs WHERE variant = 'hz-250'", .num = 291 },
		{ "SELECT patches FROM variant_runs WHERE variant = 'hz-1000'", .text = "NULL" },
		{ "SELECT json_extract(run_json, '$.noise.rtt_n') FROM variant_runs WHERE variant = 'hz-250'",
		  .text = "200" },
		/* Samples: the key, optional fields as NULL when the file had none. */
		{ "SELECT case_key FROM samples s JOIN variant_runs v ON s.variant_run = v.id"
		  " WHERE v.variant = 'hz-250' AND case_idx = 30 AND rep = 2",
		  .text = "bulk-in answer ms T=100" },
		{ "SELECT elapsed_ns FROM samples s JOIN variant_runs v ON s.variant_run = v.id"
		  " WHERE v.variant = 'hz-250' AND case_idx = 30 AND rep = 2", .num = 320642 },
		{ "SELECT count(length) FROM samples s JOIN variant_runs v ON s.variant_run = v.id"
		  " WHERE v.variant = 'hz-100'", .num = 0 },
		{ "SELECT count(*) FROM samples WHERE case_key = 'bulk-in delay ms T=50 D=5000us'", .num = 4 },
		{ "SELECT count(*) FROM samples WHERE verdict = 'late'", .num = 2 },
		{ "SELECT count(granule) FROM samples", .num = 436 },
	};
	char *path = path_in("h.db"), *src;
	sqlite3 *db = open_db(path);

	(void)state;
	ingest(db, QUICK, false, HZRIG_INGEST_DONE);
	ingest(db, DEFLT, false, HZRIG_INGEST_DONE);
	assert_q_all(db, want, sizeof(want) / sizeof(want[0]));
	src = q_text(db, "SELECT source FROM runs WHERE run_id = '20261203T102031Z'");
	assert_non_null(strstr(src, "/tests/data/history/20261203T102031Z"));
	assert_true(src[0] == '/');
	free(src);
	sqlite3_close(db);
	free(path);
}

/* What comes back from the DB gives the figures the files give. */
static void test_round_trip(void **state)
{
	char *path = path_in("h.db");
	sqlite3 *db = open_db(path);
	struct hzrig_run f, d;
	size_t i, c;

	(void)state;
	ingest(db, QUICK, false, HZRIG_INGEST_DONE);
	assert_int_equal(hzrig_run_load(QUICK, &f, err_open()), 0);
	err_free();
	assert_int_equal(hzrig_db_load_run(db, "20261203T102031Z", &d, err_open()), 0);
	err_free();
	assert_int_equal(d.nv, f.nv);
	for (i = 0; i < f.nv; i++) {
		const struct hzrig_variant *a = &f.v[i], *b = &d.v[i];

		assert_string_equal(a->name, b->name);
		assert_int_equal(a->hz, b->hz);
		assert_int_equal(a->nsamples, b->nsamples);
		assert_int_equal(a->ninside, b->ninside);
		assert_int_equal(a->ncases, b->ncases);
		assert_true(a->allowance_ns == b->allowance_ns);
		assert_string_equal(a->run_json, b->run_json);
		for (c = 0; c < a->ncases; c++) {
			const struct hzrig_case_stats *x = &a->cases[c];
			const struct hzrig_case_stats *y = &b->cases[c];

			assert_string_equal(x->key, y->key);
			assert_true(x->case_idx == y->case_idx);
			assert_int_equal(x->n, y->n);
			assert_int_equal(x->inside, y->inside);
			assert_true(x->min_ns == y->min_ns);
			assert_true(x->p5_ns == y->p5_ns);
			assert_true(x->median_ns == y->median_ns);
			assert_true(x->p95_ns == y->p95_ns);
			assert_true(x->max_ns == y->max_ns);
			assert_true(x->window_lo_ns == y->window_lo_ns);
			assert_true(x->window_hi_ns == y->window_hi_ns);
			assert_true(x->allowance_ns == y->allowance_ns);
			assert_true(x->majority_status == y->majority_status);
			assert_true(x->expected_status == y->expected_status);
			assert_true(x->timeout_arg == y->timeout_arg);
		}
	}
	hzrig_run_free(&f);
	hzrig_run_free(&d);
	assert_int_equal(hzrig_db_load_run(db, "nope", &d, err_open()), -1);
	assert_contains(err_text(), "run 'nope' is not in the database");
	err_free();
	hzrig_run_free(&d);
	sqlite3_close(db);
	free(path);
}

/* Make the hz-250 samples of case 30 an in-tree driver's (path usbmon). */
static const char *usbmon_case30(unsigned int n, char *line, void *arg)
{
	static char buf[4096];
	char *end, *path, *q;

	(void)n;
	(void)arg;
	if (!strstr(line, "\"variant\":\"hz-250\"") ||
	    !strstr(line, "\"case\":30,"))
		return line;
	end = strrchr(line, '}');
	path = strstr(line, "\"path\":\"");
	assert_non_null(end);
	assert_non_null(path);
	q = strchr(path + 8, '"');
	assert_non_null(q);
	snprintf(buf, sizeof(buf), "%.*s\"path\":\"usbmon%.*s,\"driver\":\"ipheth\","
		 "\"site\":\"drivers/net/usb/ipheth.c:289\"}\n",
		 (int)(path - line), line, (int)(end - q), q);
	return buf;
}

/*
 * driver and site (schema 6) go in and come back, and the case key names
 * the driver both from the files and from the database.
 */
static void test_driver_site(void **state)
{
	char *path = path_in("h.db"), *dir = copy_run(QUICK, "runs", "20261203T102031Z");
	sqlite3 *db = open_db(path);
	char key[HZRIG_CASE_KEY_MAX];
	struct hzrig_run d;
	size_t i, seen = 0;

	(void)state;
	filter_samples(dir, usbmon_case30);
	ingest(db, dir, false, HZRIG_INGEST_DONE);
	assert_q_int(db, "SELECT count(driver) FROM samples", 3);
	assert_q_int(db, "SELECT count(*) FROM samples WHERE case_key LIKE 'usbmon/ipheth %'"
		     " AND site = 'drivers/net/usb/ipheth.c:289'", 3);
	assert_int_equal(hzrig_db_load_run(db, "20261203T102031Z", &d,
					   err_open()), 0);
	err_free();
	for (i = 0; i < d.ns; i++) {
		const struct hzrig_run_sample *s = &d.s[i];

		if (s->case_idx == 30 && !strcmp(d.v[s->variant].name, "hz-250")) {
			assert_string_equal(s->driver, "ipheth");
			assert_string_equal(s->site, "drivers/net/usb/ipheth.c:289");
			assert_true(hzrig_sample_key(s, key, sizeof(key)) > 0);
			assert_int_equal(strncmp(key, "usbmon/ipheth ", 14), 0);
			seen++;
		} else {
			assert_string_equal(s->driver, "");
		}
	}
	assert_int_equal(seen, 3);
	hzrig_run_free(&d);
	sqlite3_close(db);
	free(dir);
	free(path);
}

/*
 * Every field of the sample table (collect/sample.h) goes the whole way:
 * a guest's records -> hzrig_collect() -> samples.jsonl -> hzrig_run_load()
 * -> the history -> hzrig_db_load_run(), and comes back the same. The
 * records cover every field, and leave the optional ones out of some (so
 * absent comes back absent, a NULL in the history); a field added to the
 * table and lost on the way fails here.
 */
static const char *const field_capture =
	"{\"type\":\"meta\",\"variant\":\"hz-250\",\"hz\":250,\"release\":\"6.1.192\","
	"\"clocksource\":\"tsc\",\"jiffy_rate_mhz\":250003,\"abi\":1,\"plan\":\"t.plan\","
	"\"accel\":\"tcg\"}\n"
	"{\"type\":\"noise\",\"sleep_us\":1000,\"n\":200,\"overshoot_p50_ns\":150000,"
	"\"overshoot_p99_ns\":400000,\"rtt_n\":20,\"rtt_p50_ns\":300000,\"rtt_p99_ns\":600000}\n"
	"{\"type\":\"sample\",\"case\":0,\"rep\":0,\"path\":\"kernel\",\"transfer\":\"bulk-in\","
	"\"behaviour\":\"nak\",\"mode\":\"ms\",\"timeout_ms\":10,\"timeout_arg\":10,\"length\":64,"
	"\"delay_us\":0,\"status\":-110,\"elapsed_ns\":12500000,\"actual_length\":0,\"seq\":1,"
	"\"phase_ns\":250000,\"start_jiffies\":4294667396,\"jiffies_lag\":1,\"urb_ns\":12400000}\n"
	"{\"type\":\"sample\",\"case\":1,\"rep\":0,\"path\":\"kernel\",\"transfer\":\"bulk-in\","
	"\"behaviour\":\"delay\",\"mode\":\"ms\",\"timeout_ms\":100,\"timeout_arg\":100,"
	"\"length\":32,\"delay_us\":50000,\"status\":0,\"elapsed_ns\":50200000,"
	"\"actual_length\":32,\"seq\":2,\"phase_ns\":1000,\"start_jiffies\":4294667500,"
	"\"jiffies_lag\":0}\n"
	"{\"type\":\"sample\",\"case\":2,\"rep\":0,\"path\":\"libusb-async\",\"transfer\":\"bulk-in\","
	"\"behaviour\":\"nak\",\"mode\":\"ms\",\"timeout_ms\":10,\"timeout_arg\":10,\"length\":64,"
	"\"delay_us\":0,\"status\":-110,\"elapsed_ns\":12900000,\"actual_length\":0,\"seq\":3,"
	"\"phase_ns\":0,\"urb_ns\":12800000}\n"
	"{\"type\":\"sample\",\"case\":3,\"rep\":0,\"path\":\"usbmon\",\"transfer\":\"ctrl-in\","
	"\"behaviour\":\"nak\",\"mode\":\"ms\",\"timeout_ms\":5000,\"timeout_arg\":5000,"
	"\"length\":64,\"delay_us\":0,\"status\":-110,\"elapsed_ns\":5004000000,"
	"\"actual_length\":0,\"seq\":0,\"phase_ns\":0,\"urb_ns\":5004000000,"
	"\"driver\":\"ipheth\",\"site\":\"drivers/net/usb/ipheth.c:289\"}\n"
	"{\"type\":\"end\",\"cases\":4,\"samples\":4,\"failures\":0}\n";

/* Is field @f of @a the same as of @b? */
static bool same_field(const struct hzrig_sample_field *f,
		       const struct hzrig_run_sample *a,
		       const struct hzrig_run_sample *b)
{
	const char *x = (const char *)a + f->off, *y = (const char *)b + f->off;

	return f->text ? !strcmp(x, y) : *(const int64_t *)x == *(const int64_t *)y;
}

static void test_every_field(void **state)
{
	struct hzrig_collect_opts o = { .variant = "hz-250", .accel = "tcg",
					.boot_status = "ok", .noise_floor_ns = 0 };
	char *cap = path_in("ttyS1.jsonl"), *con = path_in("console.log");
	char *dir = path_in("20261205T000000Z"), *dbp = path_in("h.db");
	struct hzrig_capture c = { 0 };
	struct hzrig_run f, d;
	sqlite3 *db;
	size_t i, k;
	FILE *w;

	(void)state;
	w = fopen(cap, "w");
	assert_non_null(w);
	fputs(field_capture, w);
	fclose(w);
	w = fopen(con, "w");
	assert_non_null(w);
	fclose(w);
	o.serial = cap;
	o.console = con;
	o.out_dir = dir;
	o.err = err_open();
	assert_int_equal(hzrig_capture_load(cap, &c, o.err), 0);
	assert_int_equal(hzrig_collect(&o), HZRIG_COLLECT_OK);
	err_free();
	assert_int_equal(hzrig_run_load(dir, &f, err_open()), 0);
	err_free();
	assert_int_equal(f.ns, c.nrecs);
	/* what the guest said comes through collect unchanged */
	for (i = 0; i < f.ns; i++)
		for (k = 0; k < hzrig_nsample_fields; k++)
			if (hzrig_sample_fields[k].flags & HZRIG_SF_GUEST &&
			    !same_field(&hzrig_sample_fields[k], &f.s[i], &c.recs[i].s))
				fail_msg("sample %zu: field %s changed in collect", i,
					 hzrig_sample_fields[k].key);
	/* every field is present in some sample: the trip covers them all */
	for (k = 0; k < hzrig_nsample_fields; k++) {
		bool seen = false;

		for (i = 0; i < f.ns; i++)
			seen |= hzrig_sample_has(&f.s[i], &hzrig_sample_fields[k]);
		if (!seen)
			fail_msg("field %s: in no sample of the round trip",
				 hzrig_sample_fields[k].key);
	}
	db = open_db(dbp);
	ingest(db, dir, false, HZRIG_INGEST_DONE);
	assert_int_equal(hzrig_db_load_run(db, "20261205T000000Z", &d,
					   err_open()), 0);
	err_free();
	assert_int_equal(d.ns, f.ns);
	for (i = 0; i < f.ns; i++)
		for (k = 0; k < hzrig_nsample_fields; k++)
			if (!same_field(&hzrig_sample_fields[k], &f.s[i], &d.s[i]))
				fail_msg("sample %zu: field %s differs after the history",
					 i, hzrig_sample_fields[k].key);
	hzrig_run_free(&f);
	hzrig_run_free(&d);
	hzrig_capture_free(&c);
	sqlite3_close(db);
	free(cap);
	free(con);
	free(dir);
	free(dbp);
}

/* Put findings with @titles (NULL-terminated) into @dir/@variant/run.json. */
static void add_findings(const char *dir, const char *variant,
			 const char *const *titles)
{
	char path[PATH_MAX];
	struct json_object *o, *a, *f;

	snprintf(path, sizeof(path), "%s/%s/run.json", dir, variant);
	o = json_object_from_file(path);
	assert_non_null(o);
	a = json_object_new_array();
	for (; *titles; titles++) {
		f = json_object_new_object();
		json_object_object_add(f, "title", json_object_new_string(*titles));
		json_object_object_add(f, "kind", json_object_new_string("KASAN"));
		json_object_object_add(f, "where", NULL);
		json_object_object_add(f, "running",
				       json_object_new_string("scenario unbind 8/100"));
		json_object_object_add(f, "console_line", json_object_new_int(28));
		json_object_object_add(f, "truncated", json_object_new_boolean(0));
		json_object_object_add(f, "excerpt",
				       json_object_new_string("[ 5.0] BUG: KASAN\n"));
		json_object_array_add(a, f);
	}
	json_object_object_add(o, "findings", a);
	assert_int_equal(json_object_to_file(path, o), 0);
	json_object_put(o);
}

/*
 * Findings go into their own table; a title the history had from another
 * run is known, a new one is not; the loader gives them back.
 */
static void test_findings(void **state)
{
	static const char *const first[] = {
		"KASAN: use-after-free Read in hzrig_heartbeat",
		"WARNING in dummy_free_request", NULL,
	};
	static const char *const second[] = {
		"KASAN: use-after-free Read in hzrig_heartbeat",
		"lockdep: inconsistent lock state in hzrig_writer", NULL,
	};
	static const char *const none[] = { NULL };
	char *path = path_in("h.db");
	char *a = copy_run(DEFLT, "runs", "20261203T094306Z");
	char *b = copy_run(QUICK, "runs", "20261203T102031Z");
	sqlite3 *db = open_db(path);
	struct hzrig_run d;
	size_t i;

	(void)state;
	add_findings(a, "hz-100", first);
	add_findings(b, "hz-250", second);
	ingest(db, a, false, HZRIG_INGEST_DONE);
	assert_q_int(db, "SELECT count(*) FROM findings WHERE known = 0", 2);
	ingest(db, b, false, HZRIG_INGEST_DONE);
	assert_q_int(db, "SELECT count(*) FROM findings", 4);
	assert_q_int(db, "SELECT known FROM findings WHERE title LIKE 'lockdep:%'", 0);
	assert_q_int(db, "SELECT sum(known) FROM findings f JOIN variant_runs v"
		     " ON f.variant_run = v.id WHERE v.run_id = '20261203T102031Z'", 1);
	/* re-ingesting does not make a run's own findings known */
	ingest(db, b, true, HZRIG_INGEST_DONE);
	assert_q_int(db, "SELECT sum(known) FROM findings", 1);
	assert_int_equal(hzrig_db_load_run(db, "20261203T102031Z", &d,
					   err_open()), 0);
	err_free();
	for (i = 0; i < d.nv; i++) {
		if (strcmp(d.v[i].name, "hz-250")) {
			/* its run.json has no "findings": never scanned */
			assert_int_equal(d.v[i].nfindings, 0);
			assert_false(d.v[i].scanned);
			continue;
		}
		assert_true(d.v[i].scanned);
		assert_int_equal(d.v[i].nfindings, 2);
		assert_string_equal(d.v[i].findings[0].title, second[0]);
		assert_true(d.v[i].findings[0].known);
		assert_false(d.v[i].findings[1].known);
		assert_string_equal(d.v[i].findings[1].running,
				    "scenario unbind 8/100");
		assert_int_equal(d.v[i].findings[1].console_line, 28);
		assert_string_equal(d.v[i].findings[1].excerpt,
				    "[ 5.0] BUG: KASAN\n");
	}
	hzrig_run_free(&d);
	/* scanned and clean: "findings": [] */
	add_findings(a, "hz-100", none);
	ingest(db, a, true, HZRIG_INGEST_DONE);
	assert_int_equal(hzrig_db_load_run(db, "20261203T094306Z", &d,
					   err_open()), 0);
	err_free();
	assert_int_equal(d.nv, 1);
	assert_int_equal(d.v[0].nfindings, 0);
	assert_true(d.v[0].scanned);
	hzrig_run_free(&d);
	/* "findings" deeper down is not the scan's: not scanned */
	assert_int_equal(sqlite3_exec(db, "UPDATE variant_runs SET run_json ="
				      " '{\"variant\":\"hz-1000\",\"hz\":1000,"
				      "\"guest\":{\"findings\":[]}}'"
				      " WHERE variant = 'hz-1000'", NULL, NULL,
				      NULL), 0);
	assert_int_equal(hzrig_db_load_run(db, "20261203T102031Z", &d,
					   err_open()), 0);
	err_free();
	for (i = 0; i < d.nv; i++)
		assert_int_equal(d.v[i].scanned, !strcmp(d.v[i].name, "hz-250"));
	hzrig_run_free(&d);
	/* deleting the runs takes their findings along */
	assert_int_equal(sqlite3_exec(db, "DELETE FROM runs", NULL, NULL, NULL), 0);
	assert_q_int(db, "SELECT count(*) FROM findings", 0);
	sqlite3_close(db);
	free(a);
	free(b);
	free(path);
}

/* A finding without a title: the loader names the field, nothing loads. */
static void test_findings_bad(void **state)
{
	char *dir = copy_run(QUICK, "runs", "20261203T102031Z");
	char path[PATH_MAX];
	struct json_object *o, *arr;
	struct hzrig_run run;

	(void)state;
	snprintf(path, sizeof(path), "%s/hz-250/run.json", dir);
	o = json_object_from_file(path);
	assert_non_null(o);
	arr = json_object_new_array();
	json_object_array_add(arr, json_object_new_object());
	json_object_object_add(o, "findings", arr);
	assert_int_equal(json_object_to_file(path, o), 0);
	json_object_put(o);
	assert_int_not_equal(hzrig_run_load(dir, &run, err_open()), 0);
	assert_contains(err_text(), "hz-250/run.json: field \"findings[].title\": missing");
	err_free();
	hzrig_run_free(&run);
	free(dir);
}

static void test_ingest_idempotent(void **state)
{
	char *path = path_in("h.db"), *before;
	size_t blen;
	sqlite3 *db = open_db(path);

	(void)state;
	ingest(db, QUICK, false, HZRIG_INGEST_DONE);
	sqlite3_close(db);
	before = read_file(path, &blen);
	db = open_db(path);
	ingest(db, QUICK, false, HZRIG_INGEST_SAME);
	sqlite3_close(db);
	assert_same_file(path, before, blen);
	free(before);
	free(path);
}

static const char *cut_line_150(unsigned int n, char *line, void *arg)
{
	(void)arg;
	if (n == 150)
		line[strlen(line) / 2] = '\0';	/* no newline: the next joins */
	return line;
}

/*
 * `hzrig ingest` of a run whose samples.jsonl is corrupt half-way: exit 2,
 * file:line named, the database byte for byte as before.
 */
static void test_ingest_corrupt(void **state)
{
	char *path = path_in("h.db"), *fresh = path_in("fresh.db");
	char *bad = copy_run(QUICK, "bad", "20261203T111111Z");
	char *before, *out, *err;
	char *argv[] = { "ingest", "--db", path, (char *)DEFLT, bad, NULL };
	size_t blen;
	sqlite3 *db;
	int rc;

	(void)state;
	filter_samples(bad, cut_line_150);
	db = open_db(path);
	ingest(db, QUICK, false, HZRIG_INGEST_DONE);
	sqlite3_close(db);
	before = read_file(path, &blen);

	/* The good run is already there; the bad one must not get in. */
	argv[3] = (char *)QUICK;
	rc = run_cmd(cmd_ingest, argv, &out, &err);
	assert_int_equal(rc, 2);
	assert_contains(err, "20261203T111111Z/samples.jsonl:150: not valid JSON");
	assert_contains(err, "nothing written");
	assert_contains(out, "20261203T102031Z: already ingested, unchanged");
	free(out);
	free(err);
	assert_same_file(path, before, blen);
	free(before);

	/* Alone, into a database that does not exist yet: none is made. */
	argv[2] = fresh;
	argv[3] = bad;
	argv[4] = NULL;
	rc = run_cmd(cmd_ingest, argv, &out, &err);
	assert_int_equal(rc, 2);
	assert_false(file_exists(fresh));
	free(out);
	free(err);
	free(bad);
	free(fresh);
	free(path);
}

/* An SQLite error half-way through the inserts rolls all of them back. */
static void test_ingest_abort(void **state)
{
	char *path = path_in("h.db"), *before;
	struct hzrig_run run;
	FILE *out = null_out();
	size_t blen;
	sqlite3 *db = open_db(path);

	(void)state;
	ingest(db, DEFLT, false, HZRIG_INGEST_DONE);
	assert_int_equal(sqlite3_exec(db,
		"CREATE TRIGGER boom BEFORE INSERT ON samples"
		" WHEN NEW.case_idx = 40 BEGIN SELECT RAISE(ABORT, 'boom'); END",
		NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	before = read_file(path, &blen);

	db = open_db(path);
	assert_int_equal(hzrig_run_load(QUICK, &run, err_open()), 0);
	err_free();
	assert_int_equal(hzrig_db_ingest(db, &run, false, out, err_open()),
			 HZRIG_INGEST_ERROR);
	assert_contains(err_text(), "boom");
	assert_contains(err_text(), "nothing written");
	err_free();
	assert_q_int(db, "SELECT count(*) FROM runs", 1);
	sqlite3_close(db);
	assert_same_file(path, before, blen);
	hzrig_run_free(&run);
	fclose(out);
	free(before);
	free(path);
}

static const char *drop_hz1000(unsigned int n, char *line, void *arg)
{
	(void)n;
	(void)arg;
	return strstr(line, "\"variant\":\"hz-1000\"") ? NULL : line;
}

/* Run @dir as it was while hz-1000 was still being collected. */
static void without_hz1000(const char *dir)
{
	char p[PATH_MAX];

	filter_samples(dir, drop_hz1000);
	snprintf(p, sizeof(p), "%s/hz-1000/run.json", dir);
	assert_int_equal(unlink(p), 0);
	snprintf(p, sizeof(p), "%s/hz-1000", dir);
	assert_int_equal(rmdir(p), 0);
}

static const char *slower(unsigned int n, char *line, void *arg)
{
	static char buf[4096];
	char *p = strstr(line, "\"elapsed_ns\":");

	(void)arg;
	if (n != 3 || !p)
		return line;
	/* A 9 in front of the number: far longer. */
	p = strchr(p, ':') + 1;
	snprintf(buf, sizeof(buf), "%.*s9%s", (int)(p - line), line, p);
	return buf;
}

static void test_ingest_differs_replace(void **state)
{
	char *path = path_in("h.db"), *before, *out, *err;
	char *part = copy_run(QUICK, "part", "20261203T102031Z");
	char *edit = copy_run(QUICK, "edit", "20261203T102031Z");
	char *argv[] = { "ingest", "--db", path, (char *)QUICK, NULL };
	struct hzrig_regress_result res = { 0 };
	size_t blen;
	sqlite3 *db;
	int rc;

	(void)state;
	/* Ingested while hz-1000 was still being collected. */
	without_hz1000(part);
	db = open_db(path);
	ingest(db, part, false, HZRIG_INGEST_DONE);
	{
		FILE *o = null_out();

		assert_int_equal(hzrig_db_baseline_set(db, "20261203T102031Z",
						       NULL, 0, o, stderr), 1);
		fclose(o);
	}
	assert_int_equal(hzrig_db_store_check(db, "20261203T102031Z", "hz-250",
					      "20261203T102031Z", "hz-250",
					      &res, -1, stderr), 0);
	sqlite3_close(db);
	before = read_file(path, &blen);

	/* The whole run now: exit 1, told to --replace, nothing changed. */
	rc = run_cmd(cmd_ingest, argv, &out, &err);
	assert_int_equal(rc, 1);
	assert_contains(err, "already ingested but the directory differs (database: 1 variants, 148 samples; directory: 2 variants, 296 samples)");
	assert_contains(err, "--replace re-ingests");
	free(out);
	free(err);
	assert_same_file(path, before, blen);
	free(before);

	/* Same counts, other timings: differs too. */
	without_hz1000(edit);
	filter_samples(edit, slower);
	argv[3] = edit;
	rc = run_cmd(cmd_ingest, argv, &out, &err);
	assert_int_equal(rc, 1);
	assert_contains(err, "other timings");
	free(out);
	free(err);

	/* --replace: the whole run, the baseline kept, old findings gone. */
	argv[3] = (char *)QUICK;
	{
		char *rargv[] = { "ingest", "--replace", "--db", path,
				  (char *)QUICK, NULL };

		rc = run_cmd(cmd_ingest, rargv, &out, &err);
	}
	assert_int_equal(rc, 0);
	assert_contains(out, "20261203T102031Z: re-ingested 2 variants, 296 samples");
	free(out);
	free(err);
	db = open_db(path);
	assert_q_int(db, "SELECT count(*) FROM samples", 296);
	assert_q_int(db, "SELECT count(*) FROM variant_runs", 2);
	assert_q_text(db, "SELECT run_id FROM baselines WHERE variant = 'hz-250'",
		      "20261203T102031Z");
	assert_q_int(db, "SELECT count(*) FROM regression_checks", 0);
	assert_int_equal(q_rows(db, "PRAGMA foreign_key_check"), 0);
	sqlite3_close(db);
	free(part);
	free(edit);
	free(path);
}

/* ---------------------------------------------------------------------- */

static void test_baseline(void **state)
{
	char *path = path_in("h.db"), buf[HZRIG_RUN_ID_MAX];
	const char *const some[] = { "hz-250", "hz-300" };
	const char *const one[] = { "hz-1000" };
	FILE *out = null_out();
	sqlite3 *db = open_db(path);

	(void)state;
	ingest(db, QUICK, false, HZRIG_INGEST_DONE);
	ingest(db, DEFLT, false, HZRIG_INGEST_DONE);
	assert_int_equal(hzrig_db_baseline(db, "hz-250", buf, sizeof(buf)), 0);

	assert_int_equal(hzrig_db_baseline_set(db, "nope", NULL, 0, out,
					       err_open()), -1);
	assert_contains(err_text(), "run 'nope' is not in the database");
	err_free();
	/* One unknown variant: none of them is set. */
	assert_int_equal(hzrig_db_baseline_set(db, "20261203T102031Z", some, 2,
					       out, err_open()), -1);
	assert_contains(err_text(), "run '20261203T102031Z' has no variant 'hz-300'");
	err_free();
	assert_q_int(db, "SELECT count(*) FROM baselines", 0);

	assert_int_equal(hzrig_db_baseline_set(db, "20261203T102031Z", NULL, 0,
					       out, stderr), 2);
	assert_int_equal(hzrig_db_baseline_set(db, "20261203T094306Z", NULL, 0,
					       out, stderr), 1);
	assert_int_equal(hzrig_db_baseline(db, "hz-250", buf, sizeof(buf)), 1);
	assert_string_equal(buf, "20261203T102031Z");
	assert_int_equal(hzrig_db_baseline(db, "hz-100", buf, sizeof(buf)), 1);
	assert_string_equal(buf, "20261203T094306Z");
	/* Set again: replaced, not duplicated. */
	assert_int_equal(hzrig_db_baseline_set(db, "20261203T102031Z", some, 1,
					       out, stderr), 1);
	assert_q_int(db, "SELECT count(*) FROM baselines", 3);

	assert_int_equal(hzrig_db_baseline_clear(db, one, 1, stderr), 1);
	assert_int_equal(hzrig_db_baseline_clear(db, one, 1, stderr), 0);
	assert_int_equal(hzrig_db_baseline(db, "hz-1000", buf, sizeof(buf)), 0);
	assert_int_equal(hzrig_db_baseline_clear(db, NULL, 0, stderr), 2);
	assert_q_int(db, "SELECT count(*) FROM baselines", 0);
	fclose(out);
	sqlite3_close(db);
	free(path);
}

static void test_newest(void **state)
{
	char *path = path_in("h.db"), buf[HZRIG_RUN_ID_MAX];
	sqlite3 *db = open_db(path);

	(void)state;
	assert_int_equal(hzrig_db_newest_run(db, NULL, buf, sizeof(buf)), 0);
	/* Ingested newest first: the time in the id decides. */
	ingest(db, QUICK, false, HZRIG_INGEST_DONE);
	ingest(db, DEFLT, false, HZRIG_INGEST_DONE);
	assert_int_equal(hzrig_db_newest_run(db, NULL, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "20261203T102031Z");
	assert_int_equal(hzrig_db_newest_run(db, "hz-100", buf, sizeof(buf)), 1);
	assert_string_equal(buf, "20261203T094306Z");
	assert_int_equal(hzrig_db_newest_run(db, "hz-300", buf, sizeof(buf)), 0);
	sqlite3_close(db);
	free(path);
}

/* Store @res as the check of run R's @variant against B's hz-250. */
static void store_check(sqlite3 *db, const char *variant,
			const struct hzrig_regress_result *res,
			double threshold_ms)
{
	assert_int_equal(hzrig_db_store_check(db, "R", variant, "B", "hz-250",
					      res, threshold_ms, stderr), 0);
}

static void test_store_check(void **state)
{
	char *path = path_in("h.db");
	struct hzrig_regression r[2] = {
		{ .kind = HZRIG_REG_MEDIAN, .case_key = "bulk-in nak ms T=100",
		  .old_value = 102, .new_value = 408, .threshold = 17.3,
		  .window_lo_ns = 100000000, .window_hi_ns = 104000000,
		  .detail = "median" },
		{ .kind = HZRIG_REG_STATUS, .case_key = "bulk-in nak ms T=10",
		  .old_value = -110, .new_value = 0, .threshold = NAN,
		  .window_lo_ns = HZRIG_ABSENT, .window_hi_ns = HZRIG_ABSENT,
		  .detail = "status" },
	};
	struct hzrig_regress_result two = { .r = r, .n = 2, .compared = 66 };
	struct hzrig_regress_result one = { .r = r, .n = 1, .compared = 66 };
	struct hzrig_regress_result none = { .compared = 66 };
	sqlite3 *db = open_db(path);

	(void)state;
	ingest(db, QUICK, false, HZRIG_INGEST_DONE);
	store_check(db, "hz-250", &two, -1);
	store_check(db, "hz-250-legacy", &two, 5);
	assert_q_int(db, "SELECT count(*) FROM regressions", 4);
	assert_q_text(db, "SELECT threshold FROM regressions WHERE kind = 'status' LIMIT 1", "NULL");
	assert_q_text(db, "SELECT window_lo_ns FROM regressions WHERE kind = 'status' LIMIT 1", "NULL");
	assert_q_int(db, "SELECT window_hi_ns FROM regressions WHERE kind = 'median' LIMIT 1",
		     104000000);
	/* Checked again: that check's rows are replaced, the other's kept. */
	store_check(db, "hz-250", &one, -1);
	assert_q_int(db, "SELECT count(*) FROM regressions WHERE variant = 'hz-250'", 1);
	assert_q_int(db, "SELECT count(*) FROM regressions WHERE variant = 'hz-250-legacy'", 2);
	assert_q_int(db, "SELECT regressions FROM regression_checks WHERE variant = 'hz-250'", 1);
	assert_q_int(db, "SELECT threshold_ms FROM regression_checks WHERE variant = 'hz-250-legacy'", 5);
	/* Clean: no rows, but the check is recorded. */
	store_check(db, "hz-250", &none, -1);
	assert_q_int(db, "SELECT count(*) FROM regressions WHERE variant = 'hz-250'", 0);
	assert_q_int(db, "SELECT cases FROM regression_checks WHERE variant = 'hz-250'", 66);
	assert_q_int(db, "SELECT count(*) FROM regression_checks", 2);
	sqlite3_close(db);
	free(path);
}

/* Every test in a scratch directory of its own. */
#define SCRATCH_TEST(f) \
	cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		SCRATCH_TEST(test_create),
		SCRATCH_TEST(test_migrate_v1),
		SCRATCH_TEST(test_migrate_fails),
		SCRATCH_TEST(test_newer_refused),
		SCRATCH_TEST(test_negative_version_refused),
		SCRATCH_TEST(test_not_a_file),
		SCRATCH_TEST(test_ingest),
		SCRATCH_TEST(test_round_trip),
		SCRATCH_TEST(test_driver_site),
		SCRATCH_TEST(test_every_field),
		SCRATCH_TEST(test_findings),
		SCRATCH_TEST(test_findings_bad),
		SCRATCH_TEST(test_ingest_idempotent),
		SCRATCH_TEST(test_ingest_corrupt),
		SCRATCH_TEST(test_ingest_abort),
		SCRATCH_TEST(test_ingest_differs_replace),
		SCRATCH_TEST(test_baseline),
		SCRATCH_TEST(test_newest),
		SCRATCH_TEST(test_store_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
