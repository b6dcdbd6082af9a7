// SPDX-License-Identifier: GPL-2.0
/*
 * The history database's commands: ingest, history, baseline and
 * check-regressions. docs/history.md describes them with examples; db.c
 * holds the SQL that writes, runs/stats.c the figures and runs/regress.c
 * the regression rules.
 *
 * Exit statuses follow the rest of hzrig: 0 done (and clean), 1 done but
 * something to look at, 2 bad usage or unreadable input, nothing written.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/json.h"
#include "history/db.h"
#include "history/history.h"
#include "lava/lava.h"
#include "runs/runs.h"
#include "sweep/sweep.h"
#include "lib/table.h"
#include "lib/util.h"
#include "lib/opts.h"

#define MAX_VARIANT_ARGS	32

/* --variant V, repeatable. */
struct variant_args {
	const char *v[MAX_VARIANT_ARGS];
	size_t n;
};

static int add_variant_arg(struct variant_args *a, const char *cmd,
			   const char *v)
{
	if (a->n == MAX_VARIANT_ARGS) {
		fprintf(stderr, "hzrig %s: more than %d --variant\n", cmd,
			MAX_VARIANT_ARGS);
		return -1;
	}
	a->v[a->n++] = v;
	return 0;
}

static bool variant_wanted(const struct variant_args *a, const char *v)
{
	size_t i;

	if (!a->n)
		return true;
	for (i = 0; i < a->n; i++)
		if (!strcmp(a->v[i], v))
			return true;
	return false;
}

/*
 * Every --variant names a variant some run recorded: a typo must not read
 * as "nothing recorded" or "nothing to clear". 0, or 2 after a message.
 */
static int check_variants(sqlite3 *db, const struct variant_args *a,
			  const char *cmd, const char *db_path)
{
	size_t i;

	for (i = 0; i < a->n; i++) {
		int r = hzrig_db_has_variant(db, a->v[i]);

		if (r < 0) {
			fprintf(stderr, "hzrig %s: %s: %s\n", cmd, db_path,
				hzrig_db_error(db));
			return 2;
		}
		if (!r) {
			fprintf(stderr, "hzrig %s: --variant %s: no run in %s recorded a variant of that name\n",
				cmd, a->v[i], db_path);
			return 2;
		}
	}
	return 0;
}

/* --variant V, repeated (lib/opts.h). */
static int variant_opt(const char *cmd, const char *arg, void *dst)
{
	return add_variant_arg(dst, cmd, arg) ? -1 : 0;
}

/* --threshold-ms: a number of ms >= 0. */
static int threshold_opt(const char *cmd, const char *arg, void *dst)
{
	double *ms = dst;
	char *end;

	errno = 0;
	*ms = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(*ms) || *ms < 0 ||
	    *ms > 1e9) {
		fprintf(stderr, "hzrig %s: --threshold-ms: '%s' is not a number of ms >= 0\n",
			cmd, arg);
		return -1;
	}
	return 0;
}

static int extra_args(const char *cmd, int argc, char **argv,
		      void (*usage)(FILE *))
{
	fprintf(stderr, "hzrig %s: unexpected argument '%s'\n", cmd,
		argv[argc]);
	usage(stderr);
	return 2;
}

static const char *text_or(sqlite3_stmt *st, int i, const char *dflt)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s && s[0] ? (const char *)s : dflt;
}

static void ms_col(char *buf, size_t len, sqlite3_stmt *st, int i,
		   int decimals)
{
	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		buf[0] = '\0';
	else
		snprintf(buf, len, "%.*f", decimals,
			 sqlite3_column_int64(st, i) / 1e6);
}

static int64_t col_ns(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? HZRIG_ABSENT :
	       sqlite3_column_int64(st, i);
}

static struct json_object *jstr_opt(const char *s)
{
	return s && s[0] ? hzrig_json_str(s) : NULL;
}

/* ---------------------------------------------------------------------- */

static void ingest_usage(FILE *f)
{
	fputs("usage: hzrig ingest [--db FILE] [--replace] RUN_DIR...\n"
	      "       hzrig ingest [--db FILE] --lava [--results DIR] JOB_LOG...\n"
	      "       hzrig ingest [--db FILE] [--replace] --sweep SWEEP.JSON...\n"
	      "--sweep: the driver sweep's files (hzrig sweep collect, one per\n"
	      "variant; docs/sweep.md), each checked whole before it is recorded\n"
	      "with its drivers and calls.\n"
	      "--lava: the logs of LAVA jobs made by `hzrig lava jobs` (a file,\n"
	      "or a directory holding output.yaml: lava-run's stderr, or\n"
	      "`lavacli jobs logs --raw ID`), one variant each, become one run\n"
	      "directory DIR/runs/ID (default DIR: results; ID: when the first\n"
	      "job started), collected as a local run is, then recorded. A log\n"
	      "that lost or cut a sample line, lacks the guest's end count or\n"
	      "build record, or whose LAVA results differ from its KTAP is an\n"
	      "error naming it, and nothing is written (docs/lava.md).\n"
	      "Records each run directory (samples.jsonl, <variant>/run.json,\n"
	      "<variant>/build.json) in the history database (default\n"
	      HZRIG_DB_DEFAULT ", created when missing), one transaction per\n"
	      "run. Every file of a run is validated before anything is\n"
	      "written: a run with an error is not recorded at all, and the\n"
	      "errors name file:line. A run id (the directory's name) already\n"
	      "recorded is left alone; --replace records it again, dropping\n"
	      "the regressions found for or against the old rows.\n"
	      "Exit: 0 every run recorded or already there, 1 a run already\n"
	      "there differs from its directory (unchanged), 2 errors.\n", f);
}

/* --sweep: each file loaded and checked, then one transaction each. */
static int ingest_sweeps(const char *db_path, bool replace, char **files,
			 int n)
{
	sqlite3 *db = NULL;
	bool failed = false, differs = false;

	for (int i = 0; i < n; i++) {
		struct hzrig_sweep_run r;
		char why[HZRIG_WHY], w[HZRIG_WHY];
		size_t len;
		char *text = hzrig_in_slurp(files[i], HZRIG_MAX_JSON, &len, w, sizeof(w));
		int rc;

		if (!text || hzrig_sweep_load(text, &r, why, sizeof(why))) {
			fprintf(stderr, "hzrig ingest --sweep: %s: %s, nothing written\n",
				files[i], text ? why : w);
			free(text);
			failed = true;
			continue;
		}
		if (!db)
			db = hzrig_db_open(db_path, HZRIG_DB_CREATE, stderr);
		rc = db ? hzrig_db_ingest_sweep(db, &r, text, replace, stdout, stderr) :
		     HZRIG_INGEST_ERROR;
		failed |= rc == HZRIG_INGEST_ERROR;
		differs |= rc == HZRIG_INGEST_DIFFERS;
		hzrig_sweep_run_free(&r);
		free(text);
		if (!db)
			break;
	}
	if (db)
		sqlite3_close(db);
	return failed ? 2 : differs ? 1 : 0;
}

int cmd_ingest(int argc, char **argv)
{
	const char *db_path = HZRIG_DB_DEFAULT, *results = "results";
	bool replace = false, differs = false, failed = false, lava = false;
	bool sweep = false;
	char lava_run[4096];
	char *lava_argv[1] = { lava_run };
	sqlite3 *db = NULL;
	const struct hzrig_opt opts[] = {
		HZRIG_OPT_S("db", &db_path),
		HZRIG_OPT_B("replace", &replace),
		HZRIG_OPT_B("lava", &lava),
		HZRIG_OPT_B("sweep", &sweep),
		HZRIG_OPT_S("results", &results),
		HZRIG_OPT_END
	};
	int first, i;

	first = hzrig_opts("ingest", argc, argv, opts, ingest_usage);
	if (first < 0)
		return HZRIG_OPTS_EXIT(first);
	if (first == argc) {
		fprintf(stderr, "hzrig ingest: no RUN_DIR\n");
		ingest_usage(stderr);
		return 2;
	}
	if (sweep && lava) {
		fprintf(stderr, "hzrig ingest: --sweep and --lava take different files: one or the other\n");
		return 2;
	}
	if (sweep)
		return ingest_sweeps(db_path, replace, argv + first, argc - first);
	/* LAVA jobs' logs: first made into one run directory, then as any */
	if (lava) {
		if (hzrig_lava_run(results, argv + first, argc - first,
				   lava_run, sizeof(lava_run), stderr)) {
			fprintf(stderr, "hzrig ingest --lava: nothing written\n");
			return 2;
		}
		printf("hzrig ingest --lava: run directory %s\n", lava_run);
		argv = lava_argv;
		argc = 1;
		first = 0;
	}
	for (i = first; i < argc; i++) {
		struct hzrig_run run;
		int errs, rc;

		errs = hzrig_run_load(argv[i], &run, stderr);
		if (errs) {
			if (errs > 0)
				fprintf(stderr, "hzrig ingest: %s: %d error%s, nothing written\n",
					argv[i], errs, errs == 1 ? "" : "s");
			hzrig_run_free(&run);
			failed = true;
			continue;
		}
		/* Opened only now: a run that fails to parse creates nothing. */
		if (!db)
			db = hzrig_db_open(db_path, HZRIG_DB_CREATE, stderr);
		rc = db ? hzrig_db_ingest(db, &run, replace, stdout, stderr) :
		     HZRIG_INGEST_ERROR;
		hzrig_run_free(&run);
		if (rc == HZRIG_INGEST_ERROR)
			failed = true;
		else if (rc == HZRIG_INGEST_DIFFERS)
			differs = true;
		if (!db)
			break;
	}
	/* A LAVA run directory made above goes with a refused run. */
	if (lava && failed) {
		hzrig_lava_run_remove(lava_run);
		fprintf(stderr, "hzrig ingest --lava: %s removed: nothing written\n",
			lava_run);
	}
	sqlite3_close(db);
	return failed ? 2 : differs ? 1 : 0;
}

/* ---------------------------------------------------------------------- */

static void history_usage(FILE *f)
{
	fputs("usage: hzrig history [--db FILE] [--variant V]... [--case KEY]\n"
	      "                     [--format table|csv|json]\n"
	      "Lists the recorded runs, oldest first, one row per variant:\n"
	      "HZ, kernel release, patches, accelerator, clocksource, the noise\n"
	      "p99s (hrtimer sleep overshoot, answered control round trip), the\n"
	      "samples and the share inside the model's window, and '*' when\n"
	      "the run is the variant's baseline.\n"
	      "With --case KEY (a case key as `hzrig compare` prints it, e.g.\n"
	      "'bulk-in nak ms T=100') the same rows show that case's samples,\n"
	      "median and p95 in ms, window and share inside instead.\n", f);
}

/* One row of `hzrig history`: a variant of a run, read from the query. */
struct runs_row {
	sqlite3_stmt *st;
	const char *run, *variant;
	int64_t n, in;
	bool base;
	double share;
	char hz[16], over[24], rtt[24], allow[24], ns[24];
};

static void runs_table_row(struct hzrig_table *t, const struct runs_row *r,
			   char *last, size_t lastlen)
{
	char ins[24];

	snprintf(ins, sizeof(ins), "%.1f%%", 100 * r->share);
	hzrig_table_row(t, (const char *[]){
		strcmp(last, r->run) ? r->run : "", r->variant, r->hz,
		text_or(r->st, 5, "?"), text_or(r->st, 6, "-"),
		text_or(r->st, 7, "?"), text_or(r->st, 8, "?"), r->over, r->rtt,
		r->ns, ins, r->base ? "*" : "" });
	snprintf(last, lastlen, "%s", r->run);
}

static void runs_csv_row(FILE *out, const struct runs_row *r)
{
	char ins[24], ins2[24];
	size_t i;

	snprintf(ins, sizeof(ins), "%" PRId64, r->in);
	snprintf(ins2, sizeof(ins2), "%.6f", r->share);
	{
		const char *cells[] = {
			r->run, text_or(r->st, 1, ""), text_or(r->st, 2, ""),
			r->variant, r->hz, text_or(r->st, 5, ""),
			text_or(r->st, 6, ""), text_or(r->st, 7, ""),
			text_or(r->st, 8, ""), r->over, r->rtt, r->allow, r->ns,
			ins, ins2, r->base ? "1" : "0", text_or(r->st, 14, ""),
			text_or(r->st, 16, ""), text_or(r->st, 17, ""),
		};
		size_t n = sizeof(cells) / sizeof(cells[0]);

		for (i = 0; i < n; i++)
			hzrig_csv_field(out, cells[i], i == n - 1);
	}
}

static struct json_object *runs_json_row(const struct runs_row *r)
{
	struct json_object *o = json_object_new_object();
	sqlite3_stmt *st = r->st;
	char sh[16];

	snprintf(sh, sizeof(sh), "%.6f", r->share);
	hzrig_json_put(o, "run_id", hzrig_json_str(r->run));
	hzrig_json_put(o, "started_at", jstr_opt(text_or(st, 1, "")));
	hzrig_json_put(o, "plan", jstr_opt(text_or(st, 2, "")));
	hzrig_json_put(o, "variant", hzrig_json_str(r->variant));
	hzrig_json_put(o, "hz", hzrig_json_int(sqlite3_column_int(st, 4)));
	hzrig_json_put(o, "release", jstr_opt(text_or(st, 5, "")));
	hzrig_json_put(o, "patches", jstr_opt(text_or(st, 6, "")));
	hzrig_json_put(o, "accel", jstr_opt(text_or(st, 7, "")));
	hzrig_json_put(o, "clocksource", jstr_opt(text_or(st, 8, "")));
	hzrig_json_put(o, "overshoot_p99_ms", hzrig_json_ms(col_ns(st, 9)));
	hzrig_json_put(o, "rtt_p99_ms", hzrig_json_ms(col_ns(st, 10)));
	hzrig_json_put(o, "allowance_ms", hzrig_json_ms(col_ns(st, 15)));
	hzrig_json_put(o, "samples", hzrig_json_int(r->n));
	hzrig_json_put(o, "inside", hzrig_json_int(r->in));
	hzrig_json_put(o, "inside_share", json_object_new_double_s(r->share, sh));
	hzrig_json_put(o, "baseline", json_object_new_boolean(r->base));
	hzrig_json_put(o, "boot_status", jstr_opt(text_or(st, 14, "")));
	hzrig_json_put(o, "tree_describe", jstr_opt(text_or(st, 16, "")));
	hzrig_json_put(o, "config_hash", jstr_opt(text_or(st, 17, "")));
	return o;
}

static int history_runs(sqlite3 *db, const struct variant_args *va,
			enum hzrig_format fmt, FILE *out)
{
	static const char *const head[] = {
		"run", "variant", "HZ", "release", "patches", "accel",
		"clocksource", "overshoot p99", "rtt p99", "samples", "inside",
		"baseline",
	};
	struct json_object *arr = NULL;
	struct hzrig_table t;
	char last[HZRIG_RUN_ID_MAX] = "";
	struct runs_row r;
	size_t rows = 0;
	int rc;

	if (sqlite3_prepare_v2(db,
			       "SELECT r.run_id, r.started_at, r.plan, v.variant, v.hz,"
			       " v.release, v.patches, v.accel, v.clocksource,"
			       " v.overshoot_p99_ns, v.rtt_p99_ns, v.samples, v.inside,"
			       " EXISTS(SELECT 1 FROM baselines b WHERE b.variant = v.variant"
			       " AND b.run_id = r.run_id), v.boot_status, v.allowance_ns,"
			       " v.tree_describe, v.config_hash"
			       " FROM runs r JOIN variant_runs v ON v.run_id = r.run_id"
			       " ORDER BY coalesce(r.started_at, r.ingested_at), r.run_id,"
			       " v.hz, v.variant", -1, &r.st, NULL)) {
		fprintf(stderr, "hzrig history: %s\n", hzrig_db_error(db));
		return 2;
	}
	hzrig_table_init(&t, "llrllllrrrrl");
	if (fmt == HZRIG_FMT_TABLE)
		hzrig_table_row(&t, head);
	else if (fmt == HZRIG_FMT_CSV)
		fputs("run_id,started_at,plan,variant,hz,release,patches,accel,"
		      "clocksource,overshoot_p99_ms,rtt_p99_ms,allowance_ms,"
		      "samples,inside,inside_share,baseline,boot_status,"
		      "tree_describe,config_hash\n", out);
	else
		arr = json_object_new_array();
	while ((rc = sqlite3_step(r.st)) == SQLITE_ROW) {
		r.run = text_or(r.st, 0, "");
		r.variant = text_or(r.st, 3, "");
		r.n = sqlite3_column_int64(r.st, 11);
		r.in = sqlite3_column_int64(r.st, 12);
		r.base = sqlite3_column_int(r.st, 13);
		r.share = r.n ? (double)r.in / (double)r.n : 0;
		if (!variant_wanted(va, r.variant))
			continue;
		rows++;
		snprintf(r.hz, sizeof(r.hz), "%d", sqlite3_column_int(r.st, 4));
		ms_col(r.over, sizeof(r.over), r.st, 9,
		       fmt == HZRIG_FMT_TABLE ? 3 : 6);
		ms_col(r.rtt, sizeof(r.rtt), r.st, 10,
		       fmt == HZRIG_FMT_TABLE ? 3 : 6);
		ms_col(r.allow, sizeof(r.allow), r.st, 15, 6);
		snprintf(r.ns, sizeof(r.ns), "%" PRId64, r.n);
		if (fmt == HZRIG_FMT_TABLE)
			runs_table_row(&t, &r, last, sizeof(last));
		else if (fmt == HZRIG_FMT_CSV)
			runs_csv_row(out, &r);
		else
			json_object_array_add(arr, runs_json_row(&r));
	}
	sqlite3_finalize(r.st);
	if (rc != SQLITE_DONE) {
		fprintf(stderr, "hzrig history: %s\n", hzrig_db_error(db));
		hzrig_table_free(&t);
		json_object_put(arr);
		return 2;
	}
	if (fmt == HZRIG_FMT_TABLE) {
		if (rows)
			hzrig_table_print(&t, out, "");
		else
			fprintf(out, "no runs recorded%s\n",
				va->n ? " of these variants" : "");
	} else if (fmt == HZRIG_FMT_JSON) {
		hzrig_json_print(arr, out);
	}
	hzrig_table_free(&t);
	json_object_put(arr);
	return 0;
}

/* Up to 5 recorded keys containing @key's words, to help a mistyped key. */
static void suggest_keys(sqlite3 *db, const char *key)
{
	sqlite3_stmt *st;
	char pat[HZRIG_CASE_KEY_MAX + 2];
	size_t i, n = 0;

	/* '%' for every blank: "nak T=100" finds "bulk-in nak ms T=100". */
	pat[n++] = '%';
	for (i = 0; key[i] && n < sizeof(pat) - 2; i++)
		pat[n++] = key[i] == ' ' ? '%' : key[i];
	pat[n++] = '%';
	pat[n] = '\0';
	if (sqlite3_prepare_v2(db, "SELECT DISTINCT case_key FROM samples"
			       " WHERE case_key LIKE ? ORDER BY case_key LIMIT 5",
			       -1, &st, NULL))
		return;
	sqlite3_bind_text(st, 1, pat, -1, SQLITE_STATIC);
	n = 0;
	while (sqlite3_step(st) == SQLITE_ROW)
		fprintf(stderr, "%s '%s'", n++ ? "," : "  similar:",
			sqlite3_column_text(st, 0));
	if (n)
		fputc('\n', stderr);
	sqlite3_finalize(st);
}

struct case_row {
	char run[HZRIG_RUN_ID_MAX], variant[HZRIG_VARIANT_MAX];
	int hz;
	bool base;
	int64_t lo, hi;
	size_t inside;
	int64_t *e;
	size_t n, cap;
};

static int case_row_emit(struct case_row *r, enum hzrig_format fmt,
			 struct hzrig_table *t, struct json_object *arr,
			 const char *key, char *last, FILE *out)
{
	int64_t med = hzrig_percentile(r->e, r->n, 50);
	int64_t p95 = hzrig_percentile(r->e, r->n, 95);
	char hz[16], n[16], m[24], p[24], win[48], in[32];

	snprintf(hz, sizeof(hz), "%d", r->hz);
	snprintf(n, sizeof(n), "%zu", r->n);
	if (fmt == HZRIG_FMT_TABLE) {
		hzrig_case_ms(m, sizeof(m), med, 3);
		hzrig_case_ms(p, sizeof(p), p95, 3);
		if (r->lo == HZRIG_ABSENT)
			snprintf(win, sizeof(win), "none");
		else
			snprintf(win, sizeof(win), "(%.3f, %.3f]", r->lo / 1e6,
				 r->hi / 1e6);
		snprintf(in, sizeof(in), "%zu/%zu", r->inside, r->n);
		hzrig_table_row(t, (const char *[]){
			strcmp(last, r->run) ? r->run : "", r->variant, hz, n,
			win, m, p, in });
		/* The baseline mark goes into the variant cell's neighbour. */
		if (r->base) {
			char *c = t->cell[(t->nrows - 1) * t->ncols + 1];
			char *nc;

			if (asprintf(&nc, "%s *", c) >= 0) {
				free(c);
				t->cell[(t->nrows - 1) * t->ncols + 1] = nc;
			}
		}
		snprintf(last, HZRIG_RUN_ID_MAX, "%s", r->run);
	} else if (fmt == HZRIG_FMT_CSV) {
		char lo[24] = "", hi[24] = "", sh[24];

		hzrig_case_ms(lo, sizeof(lo), r->lo, 6);
		hzrig_case_ms(hi, sizeof(hi), r->hi, 6);
		hzrig_case_ms(m, sizeof(m), med, 6);
		hzrig_case_ms(p, sizeof(p), p95, 6);
		snprintf(in, sizeof(in), "%zu", r->inside);
		snprintf(sh, sizeof(sh), "%.6f", (double)r->inside / (double)r->n);
		hzrig_csv_field(out, r->run, 0);
		hzrig_csv_field(out, r->variant, 0);
		hzrig_csv_field(out, hz, 0);
		hzrig_csv_field(out, key, 0);
		hzrig_csv_field(out, n, 0);
		hzrig_csv_field(out, lo, 0);
		hzrig_csv_field(out, hi, 0);
		hzrig_csv_field(out, m, 0);
		hzrig_csv_field(out, p, 0);
		hzrig_csv_field(out, in, 0);
		hzrig_csv_field(out, sh, 0);
		hzrig_csv_field(out, r->base ? "1" : "0", 1);
	} else {
		struct json_object *o = json_object_new_object();

		hzrig_json_put(o, "run_id", hzrig_json_str(r->run));
		hzrig_json_put(o, "variant", hzrig_json_str(r->variant));
		hzrig_json_put(o, "hz", hzrig_json_int(r->hz));
		hzrig_json_put(o, "case_key", hzrig_json_str(key));
		hzrig_json_put(o, "n", hzrig_json_int((int64_t)r->n));
		hzrig_json_put(o, "window_lo_ms", hzrig_json_ms(r->lo));
		hzrig_json_put(o, "window_hi_ms", hzrig_json_ms(r->hi));
		hzrig_json_put(o, "median_ms", hzrig_json_ms(med));
		hzrig_json_put(o, "p95_ms", hzrig_json_ms(p95));
		hzrig_json_put(o, "inside", hzrig_json_int((int64_t)r->inside));
		hzrig_json_put(o, "baseline", json_object_new_boolean(r->base));
		json_object_array_add(arr, o);
	}
	return 0;
}

/* A new row: the variant run of the query's current sample. */
static void case_row_start(struct case_row *r, sqlite3_stmt *st)
{
	r->n = 0;
	r->inside = 0;
	snprintf(r->run, sizeof(r->run), "%s", text_or(st, 1, ""));
	snprintf(r->variant, sizeof(r->variant), "%s", text_or(st, 2, ""));
	r->hz = sqlite3_column_int(st, 3);
	r->base = sqlite3_column_int(st, 4);
	r->lo = r->hi = HZRIG_ABSENT;
}

/* The query's current sample into the row; -1 out of memory. */
static int case_row_add(struct case_row *r, sqlite3_stmt *st)
{
	int64_t *e = hzrig_grow(r->e, r->n, &r->cap, 64, sizeof(*e));

	if (!e)
		return -1;
	r->e = e;
	r->e[r->n++] = sqlite3_column_int64(st, 5);
	r->inside += !strcmp(text_or(st, 6, ""), "inside");
	if (r->lo == HZRIG_ABSENT && sqlite3_column_type(st, 7) != SQLITE_NULL) {
		r->lo = sqlite3_column_int64(st, 7);
		r->hi = sqlite3_column_int64(st, 8);
	}
	return 0;
}

static int history_case(sqlite3 *db, const struct variant_args *va,
			const char *key, enum hzrig_format fmt, FILE *out)
{
	static const char *const head[] = {
		"run", "variant", "HZ", "n", "window ms", "median", "p95",
		"inside",
	};
	struct json_object *arr = NULL;
	struct case_row r = { 0 };
	struct hzrig_table t;
	char last[HZRIG_RUN_ID_MAX] = "";
	sqlite3_int64 cur = -1;
	sqlite3_stmt *st;
	size_t rows = 0;
	int rc;

	/* Variant runs outermost, so that samples_case serves each lookup. */
	if (sqlite3_prepare_v2(db,
			       "SELECT v.id, r.run_id, v.variant, v.hz,"
			       " EXISTS(SELECT 1 FROM baselines b WHERE b.variant = v.variant"
			       " AND b.run_id = r.run_id),"
			       " s.elapsed_ns, s.verdict, s.window_lo_ns, s.window_hi_ns"
			       " FROM runs r JOIN variant_runs v ON v.run_id = r.run_id"
			       " JOIN samples s ON s.variant_run = v.id AND s.case_key = ?"
			       " ORDER BY coalesce(r.started_at, r.ingested_at), r.run_id,"
			       " v.hz, v.variant, s.elapsed_ns", -1, &st, NULL)) {
		fprintf(stderr, "hzrig history: %s\n", hzrig_db_error(db));
		return 2;
	}
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	hzrig_table_init(&t, "llrrlrrr");
	if (fmt == HZRIG_FMT_TABLE) {
		hzrig_table_row(&t, head);
	} else if (fmt == HZRIG_FMT_CSV) {
		fputs("run_id,variant,hz,case_key,n,window_lo_ms,window_hi_ms,"
		      "median_ms,p95_ms,inside,inside_share,baseline\n", out);
	} else {
		arr = json_object_new_array();
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		sqlite3_int64 id = sqlite3_column_int64(st, 0);

		if (!variant_wanted(va, text_or(st, 2, "")))
			continue;
		if (id != cur) {
			if (r.n) {
				case_row_emit(&r, fmt, &t, arr, key, last, out);
				rows++;
			}
			cur = id;
			case_row_start(&r, st);
		}
		if (case_row_add(&r, st)) {
			rc = SQLITE_NOMEM;
			break;
		}
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE && r.n) {
		case_row_emit(&r, fmt, &t, arr, key, last, out);
		rows++;
	}
	free(r.e);
	if (rc != SQLITE_DONE) {
		fprintf(stderr, "hzrig history: %s\n", rc == SQLITE_NOMEM ?
			"out of memory" : hzrig_db_error(db));
		hzrig_table_free(&t);
		json_object_put(arr);
		return 2;
	}
	if (!rows) {
		fprintf(stderr, "hzrig history: no samples of case '%s'%s\n", key,
			va->n ? " in these variants" : "");
		suggest_keys(db, key);
		hzrig_table_free(&t);
		json_object_put(arr);
		return 2;
	}
	if (fmt == HZRIG_FMT_TABLE) {
		fprintf(out, "case '%s' (ms; '*': the variant's baseline run)\n",
			key);
		hzrig_table_print(&t, out, "");
	} else if (fmt == HZRIG_FMT_JSON) {
		hzrig_json_print(arr, out);
	}
	hzrig_table_free(&t);
	json_object_put(arr);
	return 0;
}

int cmd_history(int argc, char **argv)
{
	const char *db_path = HZRIG_DB_DEFAULT, *key = NULL;
	enum hzrig_format fmt = HZRIG_FMT_TABLE;
	struct variant_args va = { 0 };
	const struct hzrig_opt opts[] = {
		HZRIG_OPT_S("db", &db_path),
		HZRIG_OPT_F("variant", variant_opt, &va),
		HZRIG_OPT_S("case", &key),
		HZRIG_OPT_F("format", hzrig_format_opt, &fmt),
		HZRIG_OPT_END
	};
	sqlite3 *db;
	int first, ret;

	first = hzrig_opts("history", argc, argv, opts, history_usage);
	if (first < 0)
		return HZRIG_OPTS_EXIT(first);
	if (first != argc)
		return extra_args("history", first, argv, history_usage);
	db = hzrig_db_open(db_path, HZRIG_DB_READ, stderr);
	if (!db)
		return 2;
	if (check_variants(db, &va, "history", db_path)) {
		sqlite3_close(db);
		return 2;
	}
	ret = key ? history_case(db, &va, key, fmt, stdout) :
	      history_runs(db, &va, fmt, stdout);
	sqlite3_close(db);
	return ret;
}

/* ---------------------------------------------------------------------- */

static void baseline_usage(FILE *f)
{
	fputs("usage: hzrig baseline [--db FILE] set RUN_ID [--variant V]...\n"
	      "       hzrig baseline [--db FILE] show\n"
	      "       hzrig baseline [--db FILE] clear [--variant V]...\n"
	      "The baseline of a variant is the recorded run that\n"
	      "`hzrig check-regressions` holds its later runs against.\n"
	      "set makes RUN_ID the baseline of the given variants (default:\n"
	      "all the run has); clear forgets them (default: all).\n", f);
}

static int baseline_show(sqlite3 *db, FILE *out)
{
	static const char *const head[] = { "variant", "HZ", "run", "set at" };
	struct hzrig_table t;
	sqlite3_stmt *st;
	size_t rows = 0;
	int rc;

	if (sqlite3_prepare_v2(db,
			       "SELECT b.variant, v.hz, b.run_id, b.set_at FROM baselines b"
			       " LEFT JOIN variant_runs v ON v.run_id = b.run_id"
			       " AND v.variant = b.variant ORDER BY v.hz, b.variant",
			       -1, &st, NULL)) {
		fprintf(stderr, "hzrig baseline: %s\n", hzrig_db_error(db));
		return 2;
	}
	hzrig_table_init(&t, "lrll");
	hzrig_table_row(&t, head);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *cells[4];

		cells[0] = text_or(st, 0, "");
		cells[1] = text_or(st, 1, "?");
		cells[2] = text_or(st, 2, "");
		cells[3] = text_or(st, 3, "");
		hzrig_table_row(&t, cells);
		rows++;
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE) {
		if (rows)
			hzrig_table_print(&t, out, "");
		else
			fprintf(out, "no baselines set (hzrig baseline set RUN_ID)\n");
	}
	hzrig_table_free(&t);
	if (rc != SQLITE_DONE) {
		fprintf(stderr, "hzrig baseline: %s\n", hzrig_db_error(db));
		return 2;
	}
	return 0;
}

int cmd_baseline(int argc, char **argv)
{
	const char *db_path = HZRIG_DB_DEFAULT, *action;
	struct variant_args va = { 0 };
	const struct hzrig_opt opts[] = {
		HZRIG_OPT_S("db", &db_path),
		HZRIG_OPT_F("variant", variant_opt, &va),
		HZRIG_OPT_END
	};
	sqlite3 *db;
	int first, ret = 0, nargs;

	first = hzrig_opts("baseline", argc, argv, opts, baseline_usage);
	if (first < 0)
		return HZRIG_OPTS_EXIT(first);
	if (first == argc) {
		fprintf(stderr, "hzrig baseline: set, show or clear?\n");
		baseline_usage(stderr);
		return 2;
	}
	action = argv[first];
	nargs = argc - first - 1;
	if (!strcmp(action, "set")) {
		if (nargs != 1) {
			fprintf(stderr, "hzrig baseline set: one RUN_ID, please\n");
			baseline_usage(stderr);
			return 2;
		}
	} else if (!strcmp(action, "show") || !strcmp(action, "clear")) {
		if (nargs)
			return extra_args("baseline", first + 1, argv,
					  baseline_usage);
		if (!strcmp(action, "show") && va.n) {
			fprintf(stderr, "hzrig baseline show: takes no --variant\n");
			return 2;
		}
	} else {
		fprintf(stderr, "hzrig baseline: '%s' is not set, show or clear\n",
			action);
		baseline_usage(stderr);
		return 2;
	}
	db = hzrig_db_open(db_path, strcmp(action, "show") ? HZRIG_DB_WRITE :
			   HZRIG_DB_READ, stderr);
	if (!db)
		return 2;
	if (check_variants(db, &va, "baseline", db_path)) {
		sqlite3_close(db);
		return 2;
	}
	if (!strcmp(action, "set")) {
		if (hzrig_db_baseline_set(db, argv[first + 1], va.v, va.n,
					  stdout, stderr) < 0)
			ret = 2;
	} else if (!strcmp(action, "show")) {
		ret = baseline_show(db, stdout);
	} else {
		int n = hzrig_db_baseline_clear(db, va.v, va.n, stderr);

		if (n < 0)
			ret = 2;
		else
			printf("cleared %d baseline%s\n", n, n == 1 ? "" : "s");
	}
	sqlite3_close(db);
	return ret;
}

/* ---------------------------------------------------------------------- */

static void check_usage(FILE *f)
{
	fputs("usage: hzrig check-regressions [--db FILE] [--run ID] [--variant V]...\n"
	      "                               [--against VARIANT] [--baseline-run ID]\n"
	      "                               [--threshold-ms X] [--format table|json]\n"
	      "Holds each variant of a recorded run (default: the newest) against\n"
	      "the baseline run of that variant, or of --against VARIANT (a\n"
	      "patched variant against its clean counterpart), or against\n"
	      "--baseline-run ID. Per case in both, it flags:\n"
	      "  median, p95  |change| > threshold (default per case: both runs'\n"
	      "               noise allowances, plus the model window's width when\n"
	      "               the case times out; at least one jiffy; see\n"
	      "               docs/history.md). --threshold-ms replaces it.\n"
	      "  inside       the share inside the window fell by more than 10\n"
	      "               points and more than one sample\n"
	      "  status       the majority status changed\n"
	      "Findings replace the earlier ones of the same run, variant and\n"
	      "baseline in the database's regressions table.\n"
	      "Exit: 0 no regression, 1 regressions, 2 errors (no baseline,\n"
	      "unknown run, a variant with no case in common with its\n"
	      "baseline, ...).\n", f);
}

struct check {
	const struct hzrig_variant *newv, *oldv;
	char base_run[HZRIG_RUN_ID_MAX];
	struct hzrig_run *base;		/* the loaded baseline run */
	struct hzrig_regress_result res;
};

static struct json_object *check_json(const struct check *c, double thr_ms)
{
	struct json_object *o = json_object_new_object();
	struct json_object *regs = json_object_new_array();
	size_t i;

	hzrig_json_put(o, "variant", hzrig_json_str(c->newv->name));
	hzrig_json_put(o, "hz", hzrig_json_int(c->newv->hz));
	hzrig_json_put(o, "baseline_run", hzrig_json_str(c->base_run));
	hzrig_json_put(o, "baseline_variant", hzrig_json_str(c->oldv->name));
	hzrig_json_put(o, "cases", hzrig_json_int((int64_t)c->res.compared));
	hzrig_json_put(o, "only_in_baseline", hzrig_json_int((int64_t)c->res.only_old));
	hzrig_json_put(o, "only_in_run", hzrig_json_int((int64_t)c->res.only_new));
	hzrig_json_put(o, "threshold_ms", thr_ms >= 0 ? json_object_new_double(thr_ms) : NULL);
	for (i = 0; i < c->res.n; i++) {
		const struct hzrig_regression *r = &c->res.r[i];
		struct json_object *e = json_object_new_object();

		hzrig_json_put(e, "case_key", hzrig_json_str(r->case_key));
		hzrig_json_put(e, "kind", hzrig_json_str(hzrig_regression_kind_name(r->kind)));
		hzrig_json_put(e, "old_value", json_object_new_double(r->old_value));
		hzrig_json_put(e, "new_value", json_object_new_double(r->new_value));
		hzrig_json_put(e, "threshold", isnan(r->threshold) ? NULL :
		    json_object_new_double(r->threshold));
		hzrig_json_put(e, "window_lo_ms", hzrig_json_ms(r->window_lo_ns));
		hzrig_json_put(e, "window_hi_ms", hzrig_json_ms(r->window_hi_ns));
		hzrig_json_put(e, "detail", hzrig_json_str(r->detail));
		json_object_array_add(regs, e);
	}
	hzrig_json_put(o, "regressions", regs);
	return o;
}

/* The baseline run @id, loaded once for all the variants that use it. */
static struct hzrig_run *base_run(sqlite3 *db, struct hzrig_run *runs,
				  size_t *n, size_t max, const char *id)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp(runs[i].id, id))
			return &runs[i];
	if (*n == max)
		return NULL;
	if (hzrig_db_load_run(db, id, &runs[*n], stderr)) {
		hzrig_run_free(&runs[*n]);
		return NULL;
	}
	return &runs[(*n)++];
}

/* One check-regressions: its options, the run, its baselines, the checks. */
struct cr {
	const char *db_path, *run_id, *against, *forced_base;
	enum hzrig_format fmt;
	struct variant_args va;
	double thr_ms;
	sqlite3 *db;
	struct hzrig_run run, *bases;
	struct check *checks;
	size_t nbases, nchecks, total;
	bool empty;
	char newest[HZRIG_RUN_ID_MAX];
};

/* 0 to go on, or the exit status (after a message). */
static int cr_args(struct cr *x, int argc, char **argv, bool *done)
{
	const struct hzrig_opt opts[] = {
		HZRIG_OPT_S("db", &x->db_path),
		HZRIG_OPT_S("run", &x->run_id),
		HZRIG_OPT_F("variant", variant_opt, &x->va),
		HZRIG_OPT_S("against", &x->against),
		HZRIG_OPT_S("baseline-run", &x->forced_base),
		HZRIG_OPT_F("threshold-ms", threshold_opt, &x->thr_ms),
		HZRIG_OPT_F("format", hzrig_format_opt_tj, &x->fmt),
		HZRIG_OPT_END
	};
	int first;

	first = hzrig_opts("check-regressions", argc, argv, opts, check_usage);
	if (first < 0) {
		*done = first == HZRIG_OPTS_HELP;
		return HZRIG_OPTS_EXIT(first);
	}
	if (first != argc)
		return extra_args("check-regressions", first, argv, check_usage);
	return 0;
}

/* The run to check (--run, else the newest) and its --variant names. */
static int cr_load_run(struct cr *x)
{
	size_t i;

	if (!x->run_id) {
		int r = hzrig_db_newest_run(x->db, NULL, x->newest,
					    sizeof(x->newest));

		if (r <= 0) {
			fprintf(stderr, "hzrig check-regressions: %s: %s\n",
				x->db_path, r ? hzrig_db_error(x->db) :
				"no runs recorded");
			return -1;
		}
		x->run_id = x->newest;
	}
	if (hzrig_db_load_run(x->db, x->run_id, &x->run, stderr))
		return -1;
	for (i = 0; i < x->va.n; i++) {
		if (hzrig_run_find_variant(&x->run, x->va.v[i]) ==
		    HZRIG_NO_VARIANT) {
			fprintf(stderr, "hzrig check-regressions: run %s has no variant '%s'\n",
				x->run.id, x->va.v[i]);
			return -1;
		}
	}
	/* At most one baseline run per variant. */
	x->checks = calloc(x->run.nv + 1, sizeof(*x->checks));
	x->bases = calloc(x->run.nv + 1, sizeof(*x->bases));
	if (!x->checks || !x->bases) {
		fprintf(stderr, "hzrig check-regressions: out of memory\n");
		return -1;
	}
	return 0;
}

/* The baseline of variant @v into check @c: --baseline-run or recorded. */
static int cr_baseline(struct cr *x, struct check *c, const char *bv)
{
	int r;
	size_t bi;

	if (x->forced_base) {
		snprintf(c->base_run, sizeof(c->base_run), "%s", x->forced_base);
	} else {
		r = hzrig_db_baseline(x->db, bv, c->base_run,
				      sizeof(c->base_run));
		if (r < 0) {
			fprintf(stderr, "hzrig check-regressions: %s\n",
				hzrig_db_error(x->db));
			return -1;
		}
		if (!r) {
			fprintf(stderr, "hzrig check-regressions: no baseline for %s: set one with `hzrig baseline set RUN%s%s` (or give --baseline-run)\n",
				bv, x->against ? " --variant " : "",
				x->against ? bv : "");
			return -1;
		}
	}
	c->base = base_run(x->db, x->bases, &x->nbases, x->run.nv,
			   c->base_run);
	if (!c->base)
		return -1;
	bi = hzrig_run_find_variant(c->base, bv);
	if (bi == HZRIG_NO_VARIANT) {
		fprintf(stderr, "hzrig check-regressions: baseline run %s has no variant '%s'\n",
			c->base_run, bv);
		return -1;
	}
	c->oldv = &c->base->v[bi];
	if (c->oldv->hz != c->newv->hz)
		fprintf(stderr, "hzrig check-regressions: note: %s (HZ=%d) held against %s (HZ=%d): the windows differ\n",
			c->newv->name, c->newv->hz, c->oldv->name, c->oldv->hz);
	return 0;
}

/* Resolve every baseline first: an error leaves the DB untouched. */
static int cr_resolve(struct cr *x)
{
	size_t i;

	for (i = 0; i < x->run.nv; i++) {
		struct check *c = &x->checks[x->nchecks];

		if (!variant_wanted(&x->va, x->run.v[i].name))
			continue;
		c->newv = &x->run.v[i];
		if (cr_baseline(x, c, x->against ? x->against :
				x->run.v[i].name))
			return -1;
		x->nchecks++;
	}
	if (!x->nchecks) {
		fprintf(stderr, "hzrig check-regressions: nothing to check\n");
		return -1;
	}
	return 0;
}

/* Hold each variant against its baseline and record the findings. */
static int cr_check(struct cr *x)
{
	size_t i;

	for (i = 0; i < x->nchecks; i++) {
		struct check *c = &x->checks[i];

		if (hzrig_regress(c->oldv, c->newv,
				  x->thr_ms >= 0 ? llround(x->thr_ms * 1e6) : -1,
				  &c->res) ||
		    hzrig_db_store_check(x->db, x->run.id, c->newv->name,
					 c->base_run, c->oldv->name, &c->res,
					 x->thr_ms, stderr))
			return -1;
		x->total += c->res.n;
		/* Clean because nothing was compared is not clean. */
		if (!c->res.compared) {
			fprintf(stderr, "hzrig check-regressions: %s and %s %s have no case in common: nothing checked\n",
				c->newv->name, c->base_run, c->oldv->name);
			x->empty = true;
		}
	}
	return 0;
}

static void cr_print(const struct cr *x, FILE *out)
{
	size_t i, k;

	if (x->fmt == HZRIG_FMT_JSON) {
		struct json_object *o = json_object_new_object();
		struct json_object *arr = json_object_new_array();

		hzrig_json_put(o, "run_id", hzrig_json_str(x->run.id));
		for (i = 0; i < x->nchecks; i++)
			json_object_array_add(arr, check_json(&x->checks[i],
							      x->thr_ms));
		hzrig_json_put(o, "checks", arr);
		hzrig_json_put(o, "regressions",
			       hzrig_json_int((int64_t)x->total));
		hzrig_json_print(o, out);
		json_object_put(o);
		return;
	}
	for (i = 0; i < x->nchecks; i++) {
		const struct check *c = &x->checks[i];

		fprintf(out, "%s vs %s %s: %zu cases compared, %zu regression%s",
			c->newv->name, c->base_run, c->oldv->name,
			c->res.compared, c->res.n, c->res.n == 1 ? "" : "s");
		if (c->res.only_old || c->res.only_new)
			fprintf(out, " (%zu cases only in the baseline, %zu only in %s)",
				c->res.only_old, c->res.only_new, x->run.id);
		fputc('\n', out);
		for (k = 0; k < c->res.n; k++)
			fprintf(out, "  %s: %s: %s\n", c->newv->name,
				c->res.r[k].case_key, c->res.r[k].detail);
	}
	fprintf(out, "check-regressions: run %s, %zu variant%s, %zu regression%s\n",
		x->run.id, x->nchecks, x->nchecks == 1 ? "" : "s", x->total,
		x->total == 1 ? "" : "s");
}

int cmd_check_regressions(int argc, char **argv)
{
	struct cr x = {
		.db_path = HZRIG_DB_DEFAULT, .fmt = HZRIG_FMT_TABLE,
		.thr_ms = -1,
	};
	bool done = false;
	int ret;
	size_t i;

	ret = cr_args(&x, argc, argv, &done);
	if (ret || done)
		return ret;
	x.db = hzrig_db_open(x.db_path, HZRIG_DB_WRITE, stderr);
	if (!x.db)
		return 2;
	ret = 2;
	if (!cr_load_run(&x) && !cr_resolve(&x) && !cr_check(&x)) {
		cr_print(&x, stdout);
		ret = x.empty ? 2 : x.total ? 1 : 0;
	}
	for (i = 0; i < x.nchecks; i++)
		hzrig_regress_free(&x.checks[i].res);
	free(x.checks);
	for (i = 0; i < x.nbases; i++)
		hzrig_run_free(&x.bases[i]);
	free(x.bases);
	hzrig_run_free(&x.run);
	sqlite3_close(x.db);
	return ret;
}
