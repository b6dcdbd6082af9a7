// SPDX-License-Identifier: GPL-2.0
/*
 * The history database; see db.h and docs/history.md.
 *
 * Writes are all-or-nothing: a run is validated completely (runs/load.c) before
 * the one transaction that records it begins, and any SQLite error rolls
 * that transaction back. Readers such as the dashboard use the file
 * concurrently, hence WAL (they never block us, nor we them) and a busy
 * timeout for the moments two writers meet.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "history/db.h"

/*
 * Migration i takes the schema from version i to i + 1. Never edit one that
 * has shipped: append a new one.
 */
const char *const hzrig_db_migrations[] = {
	/* 1: the contract (docs/history.md). */
	"CREATE TABLE runs(run_id TEXT PRIMARY KEY, started_at TEXT,"
	" ingested_at TEXT NOT NULL, hzrig_version TEXT, plan TEXT,"
	" source TEXT);"
	"CREATE TABLE variant_runs(id INTEGER PRIMARY KEY,"
	" run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,"
	" variant TEXT NOT NULL, hz INTEGER NOT NULL, release TEXT,"
	" tree_describe TEXT, config_hash TEXT, patches TEXT, accel TEXT,"
	" clocksource TEXT, boot_status TEXT, overshoot_p50_ns INTEGER,"
	" overshoot_p99_ns INTEGER, rtt_p50_ns INTEGER, rtt_p99_ns INTEGER,"
	" allowance_ns INTEGER, waits_ms INTEGER, wall_ms INTEGER,"
	" samples INTEGER, inside INTEGER, run_json TEXT NOT NULL,"
	" UNIQUE(run_id, variant));"
	"CREATE TABLE samples(variant_run INTEGER NOT NULL"
	" REFERENCES variant_runs(id) ON DELETE CASCADE,"
	" case_idx INTEGER NOT NULL, rep INTEGER NOT NULL,"
	" case_key TEXT NOT NULL, transfer TEXT NOT NULL,"
	" behaviour TEXT NOT NULL, mode TEXT NOT NULL,"
	" timeout_ms INTEGER NOT NULL, timeout_arg INTEGER NOT NULL,"
	" delay_us INTEGER, length INTEGER, status INTEGER NOT NULL,"
	" expected_status INTEGER, elapsed_ns INTEGER NOT NULL,"
	" actual_length INTEGER, phase_ns INTEGER, window_lo_ns INTEGER,"
	" window_hi_ns INTEGER, allowance_ns INTEGER, verdict TEXT NOT NULL);"
	"CREATE INDEX samples_case ON samples(variant_run, case_key);"
	"CREATE TABLE baselines(variant TEXT PRIMARY KEY,"
	" run_id TEXT NOT NULL REFERENCES runs(run_id),"
	" set_at TEXT NOT NULL);"
	"CREATE TABLE regressions(run_id TEXT NOT NULL, variant TEXT NOT NULL,"
	" baseline_run TEXT NOT NULL, baseline_variant TEXT NOT NULL,"
	" case_key TEXT NOT NULL, kind TEXT NOT NULL, old_value REAL,"
	" new_value REAL, threshold REAL, window_lo_ns INTEGER,"
	" window_hi_ns INTEGER, detail TEXT, checked_at TEXT NOT NULL);",

	/*
	 * 2: keep what the files had and v1 has no column for (build.json,
	 * the model's jiffies/level/granule and the sample's sequence
	 * numbers), and record clean checks too, so that "checked, no
	 * regression" differs from "never checked".
	 */
	"ALTER TABLE variant_runs ADD COLUMN fragments TEXT;"
	"ALTER TABLE variant_runs ADD COLUMN hzrig_version TEXT;"
	"ALTER TABLE variant_runs ADD COLUMN kernel_build_s REAL;"
	"ALTER TABLE variant_runs ADD COLUMN module_build_s REAL;"
	"ALTER TABLE variant_runs ADD COLUMN build_json TEXT;"
	"ALTER TABLE samples ADD COLUMN path TEXT;"
	"ALTER TABLE samples ADD COLUMN seq INTEGER;"
	"ALTER TABLE samples ADD COLUMN start_jiffies INTEGER;"
	"ALTER TABLE samples ADD COLUMN jiffies INTEGER;"
	"ALTER TABLE samples ADD COLUMN level INTEGER;"
	"ALTER TABLE samples ADD COLUMN granule INTEGER;"
	"CREATE TABLE regression_checks(run_id TEXT NOT NULL,"
	" variant TEXT NOT NULL, baseline_run TEXT NOT NULL,"
	" baseline_variant TEXT NOT NULL, cases INTEGER NOT NULL,"
	" regressions INTEGER NOT NULL, threshold_ms REAL,"
	" checked_at TEXT NOT NULL,"
	" PRIMARY KEY(run_id, variant, baseline_run, baseline_variant));"
	"CREATE INDEX regressions_run ON regressions(run_id, variant);",

	/*
	 * 3: how many ticks jiffies was behind the tick grid when the call
	 * started (samples.jsonl's jiffies_lag, docs/model.md section 10).
	 */
	"ALTER TABLE samples ADD COLUMN jiffies_lag INTEGER;",

	/*
	 * 4: the userspace paths (docs/model.md section 11): usbmon's view
	 * of each call's URB, and the cancel round trip in a libusb window.
	 */
	"ALTER TABLE samples ADD COLUMN urb_ns INTEGER;"
	"ALTER TABLE samples ADD COLUMN cancel_ns INTEGER;",

	/*
	 * 5: the kernel reports on each variant's console (run.json
	 * "findings", docs/robustness.md); known: the same title was in the
	 * history before this run came in.
	 */
	"CREATE TABLE findings(variant_run INTEGER NOT NULL"
	" REFERENCES variant_runs(id) ON DELETE CASCADE,"
	" idx INTEGER NOT NULL, title TEXT NOT NULL, kind TEXT NOT NULL,"
	" location TEXT, running TEXT, console_line INTEGER,"
	" truncated INTEGER NOT NULL, excerpt TEXT, known INTEGER NOT NULL,"
	" PRIMARY KEY(variant_run, idx));"
	"CREATE INDEX findings_title ON findings(title);",

	/*
	 * 6: in-tree drivers' calls (path usbmon, docs/checker.md): which
	 * driver, and the file:line of its call.
	 */
	"ALTER TABLE samples ADD COLUMN driver TEXT;"
	"ALTER TABLE samples ADD COLUMN site TEXT;",

	/*
	 * 7: the driver sweep (docs/sweep.md): each variant of a sweep, its
	 * drivers' outcomes and probe times, and every call they made (the
	 * NAKed ones with their window): history/sweep.c.
	 */
	"CREATE TABLE sweep_runs(id INTEGER PRIMARY KEY,"
	" sweep_id TEXT NOT NULL, variant TEXT NOT NULL, hz INTEGER NOT NULL,"
	" tree_model TEXT NOT NULL, drivers INTEGER NOT NULL,"
	" ingested_at TEXT NOT NULL, sweep_json TEXT NOT NULL,"
	" UNIQUE(sweep_id, variant));"
	"CREATE TABLE sweep_drivers(sweep_run INTEGER NOT NULL"
	" REFERENCES sweep_runs(id) ON DELETE CASCADE,"
	" module TEXT NOT NULL, batch INTEGER NOT NULL, outcome TEXT NOT NULL,"
	" errno INTEGER, firmware TEXT, probe_ns INTEGER, nak INTEGER NOT NULL,"
	" stall INTEGER NOT NULL, answer INTEGER NOT NULL,"
	" PRIMARY KEY(sweep_run, module));"
	"CREATE TABLE sweep_calls(sweep_run INTEGER NOT NULL"
	" REFERENCES sweep_runs(id) ON DELETE CASCADE,"
	" module TEXT NOT NULL, idx INTEGER NOT NULL, call TEXT NOT NULL,"
	" site TEXT NOT NULL, function TEXT, timeout_arg INTEGER NOT NULL,"
	" ret INTEGER, action TEXT NOT NULL, urb_ns INTEGER,"
	" window_lo_ns INTEGER, window_hi_ns INTEGER, verdict TEXT,"
	" PRIMARY KEY(sweep_run, module, idx));"
	"CREATE INDEX sweep_calls_site ON sweep_calls(site);",

	/*
	 * 8: what the sweep's guest saw a driver do (a contained loop or
	 * flood, a hang): the record's "diagnosis".
	 */
	"ALTER TABLE sweep_drivers ADD COLUMN diagnosis TEXT;",

	/*
	 * 9: how far the sweep went with a driver: the walk's passes that
	 * NAKed a request, the shape its device bound in (or was last tried
	 * as), the firmware stand-ins it ran on, the entries the guest used
	 * after it bound (one "KIND:NODE rc=R" a line).
	 */
	"ALTER TABLE sweep_drivers ADD COLUMN walk_passes INTEGER;"
	"ALTER TABLE sweep_drivers ADD COLUMN shape INTEGER;"
	"ALTER TABLE sweep_drivers ADD COLUMN firmware_standin TEXT;"
	"ALTER TABLE sweep_drivers ADD COLUMN opened TEXT;",
};

const int hzrig_db_version =
	(int)(sizeof(hzrig_db_migrations) / sizeof(hzrig_db_migrations[0]));

void hzrig_utc_now(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

const char *hzrig_db_error(sqlite3 *db)
{
	static char buf[4400];
	const char *path = db ? sqlite3_db_filename(db, "main") : NULL;
	const char *why;

	if (!db)
		return "out of memory";
	switch (sqlite3_errcode(db) & 0xff) {
	case SQLITE_READONLY:
		why = "the history database is read-only here: this user cannot write the file or its directory (for the journal)";
		break;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		why = "the history database is busy: another hzrig is writing it; try again";
		break;
	case SQLITE_FULL:
		why = "the disk holding the history database is full";
		break;
	case SQLITE_CANTOPEN:
		why = "the history database cannot be opened: check the path and its directory";
		break;
	case SQLITE_NOTADB:
	case SQLITE_CORRUPT:
		why = "not a history database, or a damaged one: ingest into a new --db";
		break;
	default:
		return sqlite3_errmsg(db);
	}
	snprintf(buf, sizeof(buf), "%s: %s (%s)", path && *path ? path : "database",
		 why, sqlite3_errmsg(db));
	return buf;
}

int hzrig_db_exec(sqlite3 *db, const char *sql, FILE *err)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		fprintf(err, "hzrig: database: %s\n",
			(sqlite3_errcode(db) & 0xff) == SQLITE_ERROR && msg ?
			msg : hzrig_db_error(db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static void rollback(sqlite3 *db)
{
	/* Errors here mean there was nothing to roll back. */
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
}

/* COMMIT, rolling back when that fails; -1 then. */
static int commit(sqlite3 *db, FILE *err)
{
	if (hzrig_db_exec(db, "COMMIT", err)) {
		rollback(db);
		return -1;
	}
	return 0;
}

/*
 * Step @sql once with ?1 bound to @arg (NULL: left null): 1 when it gives
 * a row, and that row's first column in @buf unless @buf is NULL; 0 when it
 * gives none; -1 on error.
 */
static int query_row(sqlite3 *db, const char *sql, const char *arg,
		     char *buf, size_t len)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL))
		return -1;
	if (arg)
		sqlite3_bind_text(st, 1, arg, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && buf)
		snprintf(buf, len, "%s", sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

int hzrig_db_user_version(sqlite3 *db, int *version)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL))
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : -1;
}

static int refuse_version(const char *path, int v, FILE *err)
{
	if (v < 0)
		fprintf(err, "hzrig: %s: schema version %d: no hzrig writes a negative version; not a history database\n",
			path, v);
	else
		fprintf(err, "hzrig: %s: schema version %d is newer than this hzrig knows (%d): use a newer hzrig\n",
			path, v, hzrig_db_version);
	return -1;
}

int hzrig_db_migrate(sqlite3 *db, const char *path, FILE *err)
{
	int v, i;

	if (hzrig_db_user_version(db, &v)) {
		fprintf(err, "hzrig: %s: %s\n", path, hzrig_db_error(db));
		return -1;
	}
	if (v < 0 || v > hzrig_db_version)
		return refuse_version(path, v, err);
	if (v == hzrig_db_version)
		return 0;
	/* IMMEDIATE: another hzrig migrating at the same time waits for us. */
	if (hzrig_db_exec(db, "BEGIN IMMEDIATE", err))
		return -1;
	if (hzrig_db_user_version(db, &v) || v < 0 || v > hzrig_db_version) {
		rollback(db);
		return refuse_version(path, v, err);
	}
	for (i = v; i < hzrig_db_version; i++) {
		char sql[64];

		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", i + 1);
		if (hzrig_db_exec(db, hzrig_db_migrations[i], err) || hzrig_db_exec(db, sql, err)) {
			fprintf(err, "hzrig: %s: migration to schema version %d failed; the database is unchanged\n",
				path, i + 1);
			rollback(db);
			return -1;
		}
	}
	return commit(db, err);
}

/* The directory @path is in can be written (SQLite puts -wal, -shm there). */
static bool dir_writable(const char *path)
{
	char dir[PATH_MAX];
	char *slash;

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return false;
	slash = strrchr(dir, '/');
	if (!slash)
		return !access(".", W_OK);
	if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	return !access(dir, W_OK);
}

/*
 * "file:" URI of @path with ?immutable=1: SQLite then reads a WAL database
 * without creating its -shm file, which a read-only directory forbids.
 */
static int immutable_uri(char *buf, size_t len, const char *path)
{
	size_t n = 0;
	int w;

	w = snprintf(buf, len, "file:");
	n = (size_t)w;
	for (; *path && n + 4 < len; path++) {
		unsigned char ch = (unsigned char)*path;

		if (ch == '%' || ch == '?' || ch == '#' || ch < 0x20)
			n += (size_t)snprintf(buf + n, len - n, "%%%02X", ch);
		else
			buf[n++] = (char)ch;
	}
	if (*path || snprintf(buf + n, len - n, "?immutable=1") >=
		     (int)(len - n))
		return -1;
	return 0;
}

/* Open flags and checks shared by every mode: a regular file or nothing. */
static int check_path(const char *path, enum hzrig_db_mode mode, FILE *err)
{
	struct stat st;

	if (!path[0]) {
		fprintf(err, "hzrig: database path is empty\n");
		return -1;
	}
	if (stat(path, &st)) {
		if (errno == ENOENT && mode == HZRIG_DB_CREATE)
			return 0;
		fprintf(err, "hzrig: %s: %s%s\n", path, strerror(errno),
			errno == ENOENT ?
			" (ingest a run first: hzrig ingest RUN_DIR)" : "");
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(err, "hzrig: %s: not a regular file, so not a history database\n",
			path);
		return -1;
	}
	return 0;
}

/*
 * A connection to @name (@path, or its URI) with the busy timeout set and
 * its schema version read into @v: a file that is not a database at all
 * shows up on that first read. NULL after a message naming @path.
 */
static sqlite3 *open_conn(const char *path, const char *name, int flags,
			  int *v, FILE *err)
{
	sqlite3 *db = NULL;

	if (sqlite3_open_v2(name, &db, flags, NULL) != SQLITE_OK) {
		fprintf(err, "hzrig: %s: cannot open: %s\n", path,
			db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_busy_timeout(db, HZRIG_DB_BUSY_MS);
	sqlite3_extended_result_codes(db, 1);
	if (hzrig_db_user_version(db, v)) {
		fprintf(err, "hzrig: %s: cannot read it as a history database: %s\n",
			path, hzrig_db_error(db));
		sqlite3_close(db);
		return NULL;
	}
	return db;
}

/* hzrig_db_open_readonly(), its schema version into @v. */
static sqlite3 *open_readonly(const char *path, int *v, FILE *err)
{
	char uri[PATH_MAX + 32];
	sqlite3 *db = NULL;
	int flags = SQLITE_OPEN_READONLY;
	const char *name = path;

	if (check_path(path, HZRIG_DB_READ, err))
		return NULL;
	if (!dir_writable(path)) {
		if (immutable_uri(uri, sizeof(uri), path)) {
			fprintf(err, "hzrig: %s: path too long\n", path);
			return NULL;
		}
		name = uri;
		flags |= SQLITE_OPEN_URI;
	}
	db = open_conn(path, name, flags, v, err);
	if (!db)
		return NULL;
	if (*v < 0 || *v > hzrig_db_version) {
		refuse_version(path, *v, err);
		sqlite3_close(db);
		return NULL;
	}
	return db;
}

sqlite3 *hzrig_db_open_readonly(const char *path, FILE *err)
{
	int v;

	return open_readonly(path, &v, err);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * WAL, unless it already is. The switch reads the database, then writes
 * it: when another hzrig holds the write lock meanwhile (a migration, an
 * ingest, its own switch), SQLite says busy at once rather than wait, as
 * waiting there could deadlock. So wait here, as the busy timeout would,
 * and look again: the other one may have switched it already.
 */
static int want_wal(sqlite3 *db, FILE *err)
{
	int64_t until = now_ms() + HZRIG_DB_BUSY_MS;
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	char mode[16];

	for (;;) {
		if (query_row(db, "PRAGMA journal_mode", NULL, mode, sizeof(mode)) < 0) {
			fprintf(err, "hzrig: database: %s\n", hzrig_db_error(db));
			return -1;
		}
		if (!strcmp(mode, "wal"))
			return 0;
		if (sqlite3_exec(db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL) == SQLITE_OK)
			return 0;
		if ((sqlite3_errcode(db) & 0xff) != SQLITE_BUSY || now_ms() > until)
			break;
		nanosleep(&pause, NULL);
	}
	fprintf(err, "hzrig: database: %s\n", hzrig_db_error(db));
	return -1;
}

sqlite3 *hzrig_db_open(const char *path, enum hzrig_db_mode mode, FILE *err)
{
	int flags = SQLITE_OPEN_READWRITE, v;
	sqlite3 *db = NULL;

	if (check_path(path, mode, err))
		return NULL;
	/* Read-only file or directory: read it as it is, if it is current. */
	if (mode == HZRIG_DB_READ &&
	    (access(path, W_OK) || !dir_writable(path))) {
		db = open_readonly(path, &v, err);
		if (db && v != hzrig_db_version) {
			fprintf(err, "hzrig: %s: schema version %d needs migrating to %d, but the database is read-only: run any hzrig command on it with write access once\n",
				path, v, hzrig_db_version);
			sqlite3_close(db);
			db = NULL;
		}
		return db;
	}
	if (mode == HZRIG_DB_CREATE)
		flags |= SQLITE_OPEN_CREATE;
	db = open_conn(path, path, flags, &v, err);
	if (!db)
		return NULL;
	if (hzrig_db_exec(db, "PRAGMA foreign_keys = ON", err) ||
	    hzrig_db_migrate(db, path, err) || want_wal(db, err)) {
		sqlite3_close(db);
		return NULL;
	}
	return db;
}

/* ---------------------------------------------------------------------- */

int hzrig_db_prep(sqlite3 *db, const char *sql, sqlite3_stmt **st, FILE *err)
{
	if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK) {
		fprintf(err, "hzrig: database: %s\n", hzrig_db_error(db));
		*st = NULL;
		return -1;
	}
	return 0;
}

void hzrig_db_bind_int(sqlite3_stmt *st, int i, int64_t v)
{
	if (v == HZRIG_ABSENT)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, v);
}

void hzrig_db_bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (!s || !s[0])
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
}

static void bind_opt_real(sqlite3_stmt *st, int i, double v)
{
	if (v < 0 || isnan(v))
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_double(st, i, v);
}

/* Step a statement that returns no row. */
static int step_done(sqlite3 *db, sqlite3_stmt *st, FILE *err)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		fprintf(err, "hzrig: database: %s\n", hzrig_db_error(db));
		return -1;
	}
	return 0;
}

/* Finalize @st, last stepped to @rc; -1 (after a message) unless done. */
static int finalize_done(sqlite3 *db, sqlite3_stmt *st, int rc, FILE *err)
{
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		fprintf(err, "hzrig: database: %s\n", hzrig_db_error(db));
		return -1;
	}
	return 0;
}

int hzrig_db_has_variant(sqlite3 *db, const char *variant)
{
	return query_row(db, "SELECT 1 FROM variant_runs WHERE variant = ? LIMIT 1",
			 variant, NULL, 0);
}

int hzrig_db_has_run(sqlite3 *db, const char *run_id)
{
	return query_row(db, "SELECT 1 FROM runs WHERE run_id = ?", run_id,
			 NULL, 0);
}

/* Distinct non-empty values of the variants' @field, space-separated. */
static void join_distinct(char *buf, size_t len, const struct hzrig_run *run,
			  size_t off)
{
	size_t i, j;

	buf[0] = '\0';
	for (i = 0; i < run->nv; i++) {
		const char *s = (const char *)&run->v[i] + off;

		if (!s[0])
			continue;
		for (j = 0; j < i; j++)
			if (!strcmp((const char *)&run->v[j] + off, s))
				break;
		if (j < i)
			continue;
		if (buf[0])
			strncat(buf, " ", len - strlen(buf) - 1);
		strncat(buf, s, len - strlen(buf) - 1);
	}
}

/*
 * Is the run in the DB the one in the directory? Same variants with the same
 * samples (by count and sum of elapsed times): what a later collect into the
 * same run directory, or an edit of it, would change.
 */
static int same_as_db(sqlite3 *db, const struct hzrig_run *run, char *why,
		      size_t len, FILE *err)
{
	sqlite3_stmt *st;
	size_t seen = 0, dbs = 0, dirs = 0, i;
	bool same = true;
	int rc;

	if (hzrig_db_prep(db, "SELECT variant, (SELECT count(*) FROM samples WHERE variant_run = v.id),"
		 " (SELECT coalesce(sum(elapsed_ns), 0) FROM samples WHERE variant_run = v.id)"
		 " FROM variant_runs v WHERE run_id = ?", &st, err))
		return -1;
	sqlite3_bind_text(st, 1, run->id, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		size_t n = (size_t)sqlite3_column_int64(st, 1);
		int64_t sum = sqlite3_column_int64(st, 2), dsum = 0;
		size_t vi = hzrig_run_find_variant(run, name);

		seen++;
		dbs += n;
		if (vi == HZRIG_NO_VARIANT || run->v[vi].nsamples != n) {
			same = false;
			continue;
		}
		for (i = 0; i < run->ns; i++)
			if (run->s[i].variant == vi)
				dsum += run->s[i].elapsed_ns;
		if (dsum != sum)
			same = false;
	}
	if (finalize_done(db, st, rc, err))
		return -1;
	for (i = 0; i < run->nv; i++)
		dirs += run->v[i].nsamples;
	if (seen != run->nv)
		same = false;
	snprintf(why, len, "database: %zu variants, %zu samples; directory: %zu variants, %zu samples%s",
		 seen, dbs, run->nv, dirs,
		 seen == run->nv && dbs == dirs ? ", other timings" : "");
	return same;
}

/*
 * The variant's findings, each marked known when a finding of the same
 * title is in the history from another run.
 */
static int insert_findings(sqlite3 *db, const struct hzrig_run *run,
			   const struct hzrig_variant *v, sqlite3_int64 id,
			   FILE *err)
{
	sqlite3_stmt *st;
	size_t i;
	int rc = 0;

	if (!v->nfindings)
		return 0;
	if (hzrig_db_prep(db, "INSERT INTO findings(variant_run, idx, title, kind,"
		 " location, running, console_line, truncated, excerpt, known)"
		 " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, EXISTS(SELECT 1"
		 " FROM findings f JOIN variant_runs w ON f.variant_run = w.id"
		 " WHERE f.title = ?3 AND w.run_id <> ?10))", &st, err))
		return -1;
	for (i = 0; i < v->nfindings && !rc; i++) {
		const struct hzrig_run_finding *f = &v->findings[i];

		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
		sqlite3_bind_text(st, 3, f->title, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, f->kind, -1, SQLITE_STATIC);
		hzrig_db_bind_text(st, 5, f->where);
		hzrig_db_bind_text(st, 6, f->running);
		sqlite3_bind_int64(st, 7, f->console_line);
		sqlite3_bind_int(st, 8, f->truncated);
		hzrig_db_bind_text(st, 9, f->excerpt);
		sqlite3_bind_text(st, 10, run->id, -1, SQLITE_STATIC);
		rc = step_done(db, st, err);
	}
	sqlite3_finalize(st);
	return rc;
}

/*
 * The samples table's columns are the sample's members (collect/sample.h):
 * "m1, m2, ..." with each name after @prefix (":" for parameters).
 */
static int sample_columns(char *buf, size_t len, const char *prefix)
{
	size_t i, n = 0;
	int w;

	buf[0] = '\0';
	for (i = 0; i < hzrig_nsample_fields; i++) {
		w = snprintf(buf + n, len - n, "%s%s%s", i ? ", " : "", prefix,
			     hzrig_sample_fields[i].member);
		if (w < 0 || (size_t)w >= len - n)
			return -1;
		n += (size_t)w;
	}
	return 0;
}

static int prep_sample_insert(sqlite3 *db, sqlite3_stmt **st, FILE *err)
{
	char cols[2048], params[2048], sql[4608];

	if (sample_columns(cols, sizeof(cols), "") ||
	    sample_columns(params, sizeof(params), ":"))
		return -1;
	snprintf(sql, sizeof(sql), "INSERT INTO samples(variant_run, case_key,"
		 " %s) VALUES(:variant_run, :case_key, %s)", cols, params);
	return hzrig_db_prep(db, sql, st, err);
}

/*
 * Every field of @s to its parameter; absent ones as NULL. The statement
 * names :variant_run, :case_key, then the fields in the table's order
 * (prep_sample_insert()), so field i is parameter i + 3.
 */
static void bind_sample(sqlite3_stmt *st, const struct hzrig_run_sample *s)
{
	const struct hzrig_sample_field *f;
	size_t i;

	for (i = 0; i < hzrig_nsample_fields; i++) {
		f = &hzrig_sample_fields[i];
		if (f->text)
			hzrig_db_bind_text(st, (int)i + 3, (const char *)s + f->off);
		else
			hzrig_db_bind_int(st, (int)i + 3,
				     *(const int64_t *)((const char *)s + f->off));
	}
}

static int insert_variant(sqlite3 *db, const struct hzrig_run *run,
			  const struct hzrig_variant *v, sqlite3_stmt *vst,
			  sqlite3_stmt *sst, FILE *err)
{
	sqlite3_int64 id;
	size_t i;

	sqlite3_reset(vst);
	sqlite3_clear_bindings(vst);
	sqlite3_bind_text(vst, 1, run->id, -1, SQLITE_STATIC);
	sqlite3_bind_text(vst, 2, v->name, -1, SQLITE_STATIC);
	sqlite3_bind_int(vst, 3, v->hz);
	hzrig_db_bind_text(vst, 4, v->release);
	hzrig_db_bind_text(vst, 5, v->tree_describe);
	hzrig_db_bind_text(vst, 6, v->config_hash);
	hzrig_db_bind_text(vst, 7, v->patches);
	hzrig_db_bind_text(vst, 8, v->accel);
	hzrig_db_bind_text(vst, 9, v->clocksource);
	hzrig_db_bind_text(vst, 10, v->boot_status);
	hzrig_db_bind_int(vst, 11, v->overshoot_p50_ns);
	hzrig_db_bind_int(vst, 12, v->overshoot_p99_ns);
	hzrig_db_bind_int(vst, 13, v->rtt_p50_ns);
	hzrig_db_bind_int(vst, 14, v->rtt_p99_ns);
	hzrig_db_bind_int(vst, 15, v->allowance_ns);
	hzrig_db_bind_int(vst, 16, v->waits_ms);
	hzrig_db_bind_int(vst, 17, v->wall_ms);
	sqlite3_bind_int64(vst, 18, (sqlite3_int64)v->nsamples);
	sqlite3_bind_int64(vst, 19, (sqlite3_int64)v->ninside);
	sqlite3_bind_text(vst, 20, v->run_json ? v->run_json : "{}", -1,
			  SQLITE_STATIC);
	hzrig_db_bind_text(vst, 21, v->fragments);
	hzrig_db_bind_text(vst, 22, v->hzrig_version);
	bind_opt_real(vst, 23, v->kernel_build_s);
	bind_opt_real(vst, 24, v->module_build_s);
	hzrig_db_bind_text(vst, 25, v->build_json);
	if (step_done(db, vst, err))
		return -1;
	id = sqlite3_last_insert_rowid(db);
	if (insert_findings(db, run, v, id, err))
		return -1;

	for (i = 0; i < run->ns; i++) {
		const struct hzrig_run_sample *s = &run->s[i];
		const struct hzrig_variant *sv = &run->v[s->variant];
		char key[HZRIG_CASE_KEY_MAX];

		if (sv != v)
			continue;
		if (hzrig_sample_key(s, key, sizeof(key)) < 0) {
			fprintf(err, "hzrig: case key too long\n");
			return -1;
		}
		sqlite3_clear_bindings(sst);
		sqlite3_bind_int64(sst, 1, id);	/* :variant_run */
		sqlite3_bind_text(sst, 2, key, -1, SQLITE_TRANSIENT);	/* :case_key */
		bind_sample(sst, s);
		if (step_done(db, sst, err))
			return -1;
	}
	return 0;
}

static int delete_run(sqlite3 *db, const char *run_id, FILE *err)
{
	static const char *const sql[] = {
		/* Findings computed from the rows about to go. */
		"DELETE FROM regressions WHERE run_id = ?1 OR baseline_run = ?1",
		"DELETE FROM regression_checks WHERE run_id = ?1 OR baseline_run = ?1",
		/* variant_runs and samples follow by ON DELETE CASCADE. */
		"DELETE FROM runs WHERE run_id = ?1",
	};
	size_t i;

	for (i = 0; i < sizeof(sql) / sizeof(sql[0]); i++) {
		sqlite3_stmt *st;
		int rc;

		if (hzrig_db_prep(db, sql[i], &st, err))
			return -1;
		sqlite3_bind_text(st, 1, run_id, -1, SQLITE_STATIC);
		rc = step_done(db, st, err);
		sqlite3_finalize(st);
		if (rc)
			return -1;
	}
	return 0;
}

/* How many of run @run_id's findings have a title new to the history. */
static int count_new_findings(sqlite3 *db, const char *run_id,
			      long long *n, FILE *err)
{
	sqlite3_stmt *st;
	int rc;

	if (hzrig_db_prep(db, "SELECT count(*) FROM findings f JOIN variant_runs v"
		 " ON f.variant_run = v.id WHERE v.run_id = ? AND NOT f.known",
		 &st, err))
		return -1;
	sqlite3_bind_text(st, 1, run_id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*n = sqlite3_column_int64(st, 0);
		rc = SQLITE_DONE;
	}
	return finalize_done(db, st, rc, err);
}

/*
 * One transaction from the check for an existing run to the commit: the
 * run, its variants and their samples (columns from the sample's table).
 */
int hzrig_db_ingest(sqlite3 *db, const struct hzrig_run *run, bool replace,
		    FILE *out, FILE *err)
{
	sqlite3_stmt *rst = NULL, *vst = NULL, *sst = NULL;
	char started[32], now[32], plans[256], versions[256], why[160];
	size_t i, ns = 0, nf = 0;
	long long nnew = 0;
	int have, ret = HZRIG_INGEST_ERROR;

	if (hzrig_db_exec(db, "BEGIN IMMEDIATE", err))
		return HZRIG_INGEST_ERROR;
	have = hzrig_db_has_run(db, run->id);
	if (have < 0) {
		fprintf(err, "hzrig: database: %s\n", hzrig_db_error(db));
		goto fail;
	}
	if (have && !replace) {
		int same = same_as_db(db, run, why, sizeof(why), err);

		if (same < 0)
			goto fail;
		rollback(db);
		if (same) {
			fprintf(out, "%s: already ingested, unchanged\n", run->id);
			return HZRIG_INGEST_SAME;
		}
		fprintf(err, "hzrig ingest: %s: already ingested but the directory differs (%s); unchanged, --replace re-ingests\n",
			run->id, why);
		return HZRIG_INGEST_DIFFERS;
	}
	if (have) {
		/*
		 * A baseline may point at this run: let the foreign key be
		 * checked at COMMIT, when the run is back.
		 */
		if (hzrig_db_exec(db, "PRAGMA defer_foreign_keys = ON", err) ||
		    delete_run(db, run->id, err))
			goto fail;
	}

	join_distinct(plans, sizeof(plans), run,
		      offsetof(struct hzrig_variant, plan));
	join_distinct(versions, sizeof(versions), run,
		      offsetof(struct hzrig_variant, hzrig_version));
	hzrig_utc_now(now, sizeof(now));
	if (hzrig_db_prep(db, "INSERT INTO runs(run_id, started_at, ingested_at,"
		 " hzrig_version, plan, source) VALUES(?, ?, ?, ?, ?, ?)",
		 &rst, err))
		goto fail;
	sqlite3_bind_text(rst, 1, run->id, -1, SQLITE_STATIC);
	if (hzrig_run_id_time(run->id, started, sizeof(started)))
		sqlite3_bind_null(rst, 2);
	else
		sqlite3_bind_text(rst, 2, started, -1, SQLITE_STATIC);
	sqlite3_bind_text(rst, 3, now, -1, SQLITE_STATIC);
	hzrig_db_bind_text(rst, 4, versions);
	hzrig_db_bind_text(rst, 5, plans);
	hzrig_db_bind_text(rst, 6, run->source);
	if (step_done(db, rst, err))
		goto fail;

	if (hzrig_db_prep(db, "INSERT INTO variant_runs(run_id, variant, hz, release,"
		 " tree_describe, config_hash, patches, accel, clocksource,"
		 " boot_status, overshoot_p50_ns, overshoot_p99_ns, rtt_p50_ns,"
		 " rtt_p99_ns, allowance_ns, waits_ms, wall_ms, samples, inside,"
		 " run_json, fragments, hzrig_version, kernel_build_s,"
		 " module_build_s, build_json) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?,"
		 " ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", &vst, err) ||
	    prep_sample_insert(db, &sst, err))
		goto fail;
	for (i = 0; i < run->nv; i++) {
		if (insert_variant(db, run, &run->v[i], vst, sst, err))
			goto fail;
		ns += run->v[i].nsamples;
		nf += run->v[i].nfindings;
	}
	if (nf && count_new_findings(db, run->id, &nnew, err))
		goto fail;
	if (hzrig_db_exec(db, "COMMIT", err))
		goto fail;
	fprintf(out, "%s: %s %zu variants, %zu samples", run->id,
		have ? "re-ingested" : "ingested", run->nv, ns);
	if (nf)
		fprintf(out, ", %zu kernel report%s (%lld new)", nf,
			nf == 1 ? "" : "s", nnew);
	fputc('\n', out);
	ret = HZRIG_INGEST_DONE;
	goto out;
fail:
	rollback(db);
	fprintf(err, "hzrig ingest: %s: nothing written\n", run->id);
out:
	sqlite3_finalize(rst);
	sqlite3_finalize(vst);
	sqlite3_finalize(sst);
	return ret;
}

int hzrig_db_newest_run(sqlite3 *db, const char *variant, char *buf,
			size_t len)
{
	/* started_at is NULL for ids without a time: then ingestion time. */
	return query_row(db,
			 "SELECT run_id FROM runs r WHERE ?1 IS NULL OR EXISTS"
			 " (SELECT 1 FROM variant_runs v"
			 " WHERE v.run_id = r.run_id AND v.variant = ?1)"
			 " ORDER BY coalesce(started_at, ingested_at) DESC,"
			 " run_id DESC LIMIT 1", variant, buf, len);
}

int64_t hzrig_db_col_int(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? HZRIG_ABSENT :
	       sqlite3_column_int64(st, i);
}

double hzrig_db_col_real(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN :
	       sqlite3_column_double(st, i);
}

void hzrig_db_col_text(sqlite3_stmt *st, int i, char *buf, size_t len)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	snprintf(buf, len, "%s", s ? (const char *)s : "");
}

char *hzrig_db_col_strdup(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? strdup((const char *)s) : NULL;
}

static int load_samples(sqlite3 *db, struct hzrig_run *run, size_t vi,
			sqlite3_int64 id, FILE *err)
{
	char cols[2048], sql[2304];
	sqlite3_stmt *st;
	int rc;

	if (sample_columns(cols, sizeof(cols), ""))
		return -1;
	snprintf(sql, sizeof(sql), "SELECT %s FROM samples WHERE variant_run = ?"
		 " ORDER BY case_idx, rep", cols);
	if (hzrig_db_prep(db, sql, &st, err))
		return -1;
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct hzrig_run_sample *s = hzrig_run_add_sample(run);
		size_t i;

		if (!s) {
			sqlite3_finalize(st);
			fprintf(err, "hzrig: out of memory\n");
			return -1;
		}
		s->variant = vi;
		for (i = 0; i < hzrig_nsample_fields; i++) {
			const struct hzrig_sample_field *f = &hzrig_sample_fields[i];

			if (f->text)
				hzrig_db_col_text(st, (int)i, hzrig_sample_text(s, f), f->size);
			else
				*hzrig_sample_int(s, f) = hzrig_db_col_int(st, (int)i);
		}
	}
	return finalize_done(db, st, rc, err);
}

/* The findings of variant_runs row @id into @v, with their known flags. */

/*
 * Was the console of this variant run scanned? Its run.json then has a
 * "findings" array, maybe empty (the loader's rule, rig/runs/load.c).
 */
static bool run_json_scanned(const char *text)
{
	struct json_object *o, *a;
	bool yes;

	if (!text)
		return false;
	o = json_tokener_parse(text);
	yes = o && json_object_object_get_ex(o, "findings", &a) &&
	      json_object_is_type(a, json_type_array);
	json_object_put(o);
	return yes;
}

static int load_findings(sqlite3 *db, struct hzrig_variant *v,
			 sqlite3_int64 id, FILE *err)
{
	struct hzrig_run_finding *f;
	sqlite3_stmt *st;
	int rc;

	if (hzrig_db_prep(db, "SELECT title, kind, location, running, console_line,"
		 " truncated, excerpt, known FROM findings WHERE variant_run = ?"
		 " ORDER BY idx", &st, err))
		return -1;
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		f = realloc(v->findings, (v->nfindings + 1) * sizeof(*f));
		if (!f) {
			sqlite3_finalize(st);
			fprintf(err, "hzrig: out of memory\n");
			return -1;
		}
		v->findings = f;
		f = &v->findings[v->nfindings++];
		memset(f, 0, sizeof(*f));
		hzrig_db_col_text(st, 0, f->title, sizeof(f->title));
		hzrig_db_col_text(st, 1, f->kind, sizeof(f->kind));
		hzrig_db_col_text(st, 2, f->where, sizeof(f->where));
		hzrig_db_col_text(st, 3, f->running, sizeof(f->running));
		f->console_line = sqlite3_column_int64(st, 4);
		f->truncated = sqlite3_column_int(st, 5);
		f->excerpt = hzrig_db_col_strdup(st, 6);
		f->known = sqlite3_column_int(st, 7);
	}
	v->scanned = v->nfindings || run_json_scanned(v->run_json);
	return finalize_done(db, st, rc, err);
}

/* The database's file name, for messages. */
static const char *db_name(sqlite3 *db)
{
	const char *f = sqlite3_db_filename(db, "main");

	return f && *f ? f : "history";
}

int hzrig_db_load_run(sqlite3 *db, const char *run_id, struct hzrig_run *run,
		      FILE *err)
{
	char label[HZRIG_RUN_ID_MAX + HZRIG_VARIANT_MAX + 512];
	sqlite3_stmt *st;
	int rc;

	memset(run, 0, sizeof(*run));
	snprintf(run->id, sizeof(run->id), "%s", run_id);
	if (hzrig_db_prep(db, "SELECT id, variant, hz, release, clocksource, accel,"
		 " boot_status, overshoot_p50_ns, overshoot_p99_ns, rtt_p50_ns,"
		 " rtt_p99_ns, allowance_ns, waits_ms, wall_ms, run_json,"
		 " tree_describe, config_hash, patches, fragments, hzrig_version,"
		 " build_json, (SELECT source FROM runs r WHERE r.run_id = v.run_id)"
		 " FROM variant_runs v WHERE run_id = ? ORDER BY hz, variant",
		 &st, err))
		return -1;
	sqlite3_bind_text(st, 1, run_id, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct hzrig_variant *v;
		sqlite3_int64 id = sqlite3_column_int64(st, 0);

		v = hzrig_run_add_variant(run, (const char *)sqlite3_column_text(st, 1),
					  sqlite3_column_int(st, 2));
		if (!v)
			goto oom;
		hzrig_db_col_text(st, 3, v->release, sizeof(v->release));
		hzrig_db_col_text(st, 4, v->clocksource, sizeof(v->clocksource));
		hzrig_db_col_text(st, 5, v->accel, sizeof(v->accel));
		hzrig_db_col_text(st, 6, v->boot_status, sizeof(v->boot_status));
		v->overshoot_p50_ns = hzrig_db_col_int(st, 7);
		v->overshoot_p99_ns = hzrig_db_col_int(st, 8);
		v->rtt_p50_ns = hzrig_db_col_int(st, 9);
		v->rtt_p99_ns = hzrig_db_col_int(st, 10);
		v->allowance_ns = hzrig_db_col_int(st, 11);
		v->waits_ms = hzrig_db_col_int(st, 12);
		v->wall_ms = hzrig_db_col_int(st, 13);
		v->run_json = hzrig_db_col_strdup(st, 14);
		hzrig_db_col_text(st, 15, v->tree_describe, sizeof(v->tree_describe));
		hzrig_db_col_text(st, 16, v->config_hash, sizeof(v->config_hash));
		v->patches = hzrig_db_col_strdup(st, 17);
		v->fragments = hzrig_db_col_strdup(st, 18);
		hzrig_db_col_text(st, 19, v->hzrig_version, sizeof(v->hzrig_version));
		v->build_json = hzrig_db_col_strdup(st, 20);
		if (!run->source)
			run->source = hzrig_db_col_strdup(st, 21);
		/* the record is checked as the file was before it came in */
		snprintf(label, sizeof(label), "%s: run %s, %s/run.json", db_name(db),
			 run_id, v->name);
		if (hzrig_variant_load_json(v, label, err)) {
			fprintf(err, "hzrig: %s: run %s cannot be used\n", db_name(db),
				run_id);
			sqlite3_finalize(st);
			return -1;
		}
		hzrig_variant_free_findings(v);
		if (load_samples(db, run, run->nv - 1, id, err) ||
		    load_findings(db, v, id, err)) {
			sqlite3_finalize(st);
			return -1;
		}
	}
	if (finalize_done(db, st, rc, err))
		return -1;
	if (!run->nv) {
		fprintf(err, "hzrig: run '%s' is not in the database\n", run_id);
		return -1;
	}
	if (hzrig_run_stats(run))
		goto oom_quiet;
	return 0;
oom:
	sqlite3_finalize(st);
oom_quiet:
	fprintf(err, "hzrig: out of memory\n");
	return -1;
}

/* ---------------------------------------------------------------------- */

int hzrig_db_baseline(sqlite3 *db, const char *variant, char *buf, size_t len)
{
	return query_row(db, "SELECT run_id FROM baselines WHERE variant = ?",
			 variant, buf, len);
}

int hzrig_db_baseline_set(sqlite3 *db, const char *run_id,
			  const char *const *variants, size_t n, FILE *out,
			  FILE *err)
{
	sqlite3_stmt *st = NULL, *ins = NULL;
	char now[32];
	size_t i, set = 0;
	int rc, have;

	if (hzrig_db_exec(db, "BEGIN IMMEDIATE", err))
		return -1;
	have = hzrig_db_has_run(db, run_id);
	if (have <= 0) {
		if (!have)
			fprintf(err, "hzrig baseline: run '%s' is not in the database\n",
				run_id);
		goto fail;
	}
	hzrig_utc_now(now, sizeof(now));
	if (hzrig_db_prep(db, "INSERT OR REPLACE INTO baselines(variant, run_id, set_at)"
		 " VALUES(?, ?, ?)", &ins, err) ||
	    hzrig_db_prep(db, "SELECT variant FROM variant_runs WHERE run_id = ?1"
		 " AND (?2 IS NULL OR variant = ?2) ORDER BY hz, variant",
		 &st, err))
		goto fail;
	for (i = 0; i < (n ? n : 1); i++) {
		size_t found = 0;

		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, run_id, -1, SQLITE_STATIC);
		if (n)
			sqlite3_bind_text(st, 2, variants[i], -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(st, 2);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			const char *v = (const char *)sqlite3_column_text(st, 0);

			sqlite3_bind_text(ins, 1, v, -1, SQLITE_TRANSIENT);
			sqlite3_bind_text(ins, 2, run_id, -1, SQLITE_STATIC);
			sqlite3_bind_text(ins, 3, now, -1, SQLITE_STATIC);
			if (step_done(db, ins, err))
				goto fail;
			fprintf(out, "baseline of %s: %s\n", v, run_id);
			found++;
			set++;
		}
		if (rc != SQLITE_DONE) {
			fprintf(err, "hzrig: database: %s\n", hzrig_db_error(db));
			goto fail;
		}
		if (n && !found) {
			fprintf(err, "hzrig baseline: run '%s' has no variant '%s'\n",
				run_id, variants[i]);
			goto fail;
		}
	}
	sqlite3_finalize(st);
	sqlite3_finalize(ins);
	if (commit(db, err))
		return -1;
	return (int)set;
fail:
	sqlite3_finalize(st);
	sqlite3_finalize(ins);
	rollback(db);
	return -1;
}

int hzrig_db_baseline_clear(sqlite3 *db, const char *const *variants,
			    size_t n, FILE *err)
{
	sqlite3_stmt *st;
	size_t i;
	int cleared = 0;

	if (!n) {
		if (hzrig_db_exec(db, "DELETE FROM baselines", err))
			return -1;
		return sqlite3_changes(db);
	}
	if (hzrig_db_exec(db, "BEGIN IMMEDIATE", err))
		return -1;
	if (hzrig_db_prep(db, "DELETE FROM baselines WHERE variant = ?", &st, err)) {
		rollback(db);
		return -1;
	}
	for (i = 0; i < n; i++) {
		sqlite3_bind_text(st, 1, variants[i], -1, SQLITE_STATIC);
		if (step_done(db, st, err)) {
			sqlite3_finalize(st);
			rollback(db);
			return -1;
		}
		cleared += sqlite3_changes(db);
	}
	sqlite3_finalize(st);
	if (commit(db, err))
		return -1;
	return cleared;
}

/* ?1 to ?4 of a check's rows: the run and variant held against a baseline. */
static void bind_check(sqlite3_stmt *st, const char *run_id,
		       const char *variant, const char *base_run,
		       const char *base_variant)
{
	sqlite3_bind_text(st, 1, run_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, variant, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, base_run, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, base_variant, -1, SQLITE_STATIC);
}

int hzrig_db_store_check(sqlite3 *db, const char *run_id, const char *variant,
			 const char *base_run, const char *base_variant,
			 const struct hzrig_regress_result *res,
			 double threshold_ms, FILE *err)
{
	static const char *const del[] = {
		"DELETE FROM regressions WHERE run_id = ?1 AND variant = ?2"
		" AND baseline_run = ?3 AND baseline_variant = ?4",
		"DELETE FROM regression_checks WHERE run_id = ?1 AND variant = ?2"
		" AND baseline_run = ?3 AND baseline_variant = ?4",
	};
	sqlite3_stmt *st = NULL;
	char now[32];
	size_t i;

	hzrig_utc_now(now, sizeof(now));
	if (hzrig_db_exec(db, "BEGIN IMMEDIATE", err))
		return -1;
	for (i = 0; i < 2; i++) {
		if (hzrig_db_prep(db, del[i], &st, err))
			goto fail;
		bind_check(st, run_id, variant, base_run, base_variant);
		if (step_done(db, st, err))
			goto fail;
		sqlite3_finalize(st);
		st = NULL;
	}
	if (hzrig_db_prep(db, "INSERT INTO regressions(run_id, variant, baseline_run,"
		 " baseline_variant, case_key, kind, old_value, new_value,"
		 " threshold, window_lo_ns, window_hi_ns, detail, checked_at)"
		 " VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", &st, err))
		goto fail;
	for (i = 0; i < res->n; i++) {
		const struct hzrig_regression *r = &res->r[i];

		bind_check(st, run_id, variant, base_run, base_variant);
		sqlite3_bind_text(st, 5, r->case_key, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 6, hzrig_regression_kind_name(r->kind),
				  -1, SQLITE_STATIC);
		sqlite3_bind_double(st, 7, r->old_value);
		sqlite3_bind_double(st, 8, r->new_value);
		if (isnan(r->threshold))
			sqlite3_bind_null(st, 9);
		else
			sqlite3_bind_double(st, 9, r->threshold);
		hzrig_db_bind_int(st, 10, r->window_lo_ns);
		hzrig_db_bind_int(st, 11, r->window_hi_ns);
		sqlite3_bind_text(st, 12, r->detail, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 13, now, -1, SQLITE_STATIC);
		if (step_done(db, st, err))
			goto fail;
	}
	sqlite3_finalize(st);
	if (hzrig_db_prep(db, "INSERT INTO regression_checks(run_id, variant,"
		 " baseline_run, baseline_variant, cases, regressions,"
		 " threshold_ms, checked_at) VALUES(?, ?, ?, ?, ?, ?, ?, ?)",
		 &st, err))
		goto fail;
	bind_check(st, run_id, variant, base_run, base_variant);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)res->compared);
	sqlite3_bind_int64(st, 6, (sqlite3_int64)res->n);
	bind_opt_real(st, 7, threshold_ms);
	sqlite3_bind_text(st, 8, now, -1, SQLITE_STATIC);
	if (step_done(db, st, err))
		goto fail;
	sqlite3_finalize(st);
	return commit(db, err);
fail:
	sqlite3_finalize(st);
	rollback(db);
	return -1;
}
