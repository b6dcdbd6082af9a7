/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The history database (SQLite): runs, their variants and samples, the
 * baseline of each variant and the regressions found. docs/history.md has
 * the schema; its version 1 is a contract with readers such as the
 * dashboard: columns and tables are only ever added, never renamed or
 * dropped.
 *
 * The schema version is PRAGMA user_version. hzrig_db_migrations[i] takes a
 * database from version i to i + 1; hzrig_db_open() applies the missing
 * ones in one transaction and refuses a database newer than it knows.
 */
#ifndef HZRIG_DB_H
#define HZRIG_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <sqlite3.h>

#include "runs/runs.h"
#include "sweep/sweep.h"

#define HZRIG_DB_DEFAULT	"results/hzrig.db"
#define HZRIG_DB_BUSY_MS	30000	/* another ingest may be writing */

extern const char *const hzrig_db_migrations[];
extern const int hzrig_db_version;	/* the number of migrations */

enum hzrig_db_mode {
	HZRIG_DB_READ,		/* read; a read-only file or directory is fine */
	HZRIG_DB_WRITE,		/* read and write an existing database */
	HZRIG_DB_CREATE,	/* the same, created when missing */
};

/*
 * Open @path, a regular file (HZRIG_DB_CREATE: or nothing yet), set the
 * connection up (foreign keys, busy timeout, WAL) and bring the schema up
 * to date. HZRIG_DB_READ on a file or directory this process cannot write
 * opens it read-only instead, and needs the schema current. NULL after
 * printing why, naming @path, to @err.
 */
sqlite3 *hzrig_db_open(const char *path, enum hzrig_db_mode mode, FILE *err);

/*
 * What went wrong with @db, in words a user can act on: "PATH: ..." for
 * the common causes (read-only, locked, full, not a database), SQLite's
 * own message otherwise.
 */
const char *hzrig_db_error(sqlite3 *db);

/*
 * Read-only, never migrated: any schema this hzrig knows (0 included).
 * A directory that cannot be written is read with ?immutable=1.
 */
sqlite3 *hzrig_db_open_readonly(const char *path, FILE *err);

/*
 * A column of the current row of @st: text copied ("" when NULL) or
 * duplicated (NULL when NULL), an integer (HZRIG_ABSENT), a real (NAN).
 */
void hzrig_db_col_text(sqlite3_stmt *st, int i, char *buf, size_t len);
char *hzrig_db_col_strdup(sqlite3_stmt *st, int i);
int64_t hzrig_db_col_int(sqlite3_stmt *st, int i);

/*
 * The statement helpers every history file shares: run @sql (its error
 * said on @err, -1), prepare @sql into *@st (likewise), and bind a value
 * that may be absent (HZRIG_ABSENT, NULL or "") as NULL.
 */
int hzrig_db_exec(sqlite3 *db, const char *sql, FILE *err);
int hzrig_db_prep(sqlite3 *db, const char *sql, sqlite3_stmt **st, FILE *err);
void hzrig_db_bind_int(sqlite3_stmt *st, int i, int64_t v);
void hzrig_db_bind_text(sqlite3_stmt *st, int i, const char *s);
double hzrig_db_col_real(sqlite3_stmt *st, int i);

/* Apply the missing migrations; -1 (after a message) on error or newer DB. */
int hzrig_db_migrate(sqlite3 *db, const char *path, FILE *err);

/* PRAGMA user_version into @version: 0, or -1 on error. */
int hzrig_db_user_version(sqlite3 *db, int *version);

/* hzrig_db_ingest() results. */
#define HZRIG_INGEST_DONE	0	/* written */
#define HZRIG_INGEST_SAME	1	/* already there, as in the directory */
#define HZRIG_INGEST_DIFFERS	2	/* already there, different: unchanged */
#define HZRIG_INGEST_ERROR	(-1)	/* nothing written */

/*
 * Record @run (loaded without error) in one transaction. A run id already
 * present is left alone unless @replace: then its rows, and the regressions
 * found for it or against it, are replaced. @out gets one line saying what
 * happened.
 */
int hzrig_db_ingest(sqlite3 *db, const struct hzrig_run *run, bool replace,
		    FILE *out, FILE *err);

/* 1 when @run_id is in the DB, 0 when not, -1 on error. */
int hzrig_db_has_run(sqlite3 *db, const char *run_id);

/* 1 when some run recorded @variant, 0 when none did, -1 on error. */
int hzrig_db_has_variant(sqlite3 *db, const char *variant);

/*
 * The newest run (by the time in its id, else by ingestion), having
 * @variant when not NULL: 1 and its id in @buf, 0 when none, -1 on error.
 */
int hzrig_db_newest_run(sqlite3 *db, const char *variant, char *buf,
			size_t len);

/* Load @run_id's variants and samples and compute stats; -1 after a message. */
int hzrig_db_load_run(sqlite3 *db, const char *run_id, struct hzrig_run *run,
		      FILE *err);

/* The baseline run of @variant: 1 and @buf, 0 when none, -1 on error. */
int hzrig_db_baseline(sqlite3 *db, const char *variant, char *buf, size_t len);

/*
 * Make @run_id the baseline of @variants (all of the run's when @n is 0).
 * -1 after a message when the run or one of the variants is not there.
 */
int hzrig_db_baseline_set(sqlite3 *db, const char *run_id,
			  const char *const *variants, size_t n, FILE *out,
			  FILE *err);

/* Forget the baseline of @variants (all when @n is 0); the number forgotten. */
int hzrig_db_baseline_clear(sqlite3 *db, const char *const *variants,
			    size_t n, FILE *err);

/*
 * Record the outcome of one check: replace the regressions (and the check)
 * of @run_id/@variant against @base_run/@base_variant with @res.
 * @threshold_ms < 0: the default thresholds.
 */
int hzrig_db_store_check(sqlite3 *db, const char *run_id, const char *variant,
			 const char *base_run, const char *base_variant,
			 const struct hzrig_regress_result *res,
			 double threshold_ms, FILE *err);

/* "2026-12-03T10:21:14Z" now. */
void hzrig_utc_now(char *buf, size_t len);

/*
 * The driver sweep (history/sweep.c): one variant of a sweep, loaded and
 * checked (@json_text is the file it came from, kept as it was), in one
 * transaction; HZRIG_INGEST_* as hzrig_db_ingest(). A (sweep, variant)
 * already there is left alone unless @replace.
 */
int hzrig_db_ingest_sweep(sqlite3 *db, const struct hzrig_sweep_run *r,
			  const char *json_text, bool replace, FILE *out,
			  FILE *err);

/*
 * The newest sweep's variants, each through hzrig_sweep_load() (one that
 * fails is named on @err and left out); none in a history without sweeps.
 * -1 on a database error. The caller frees each and the array.
 */
int hzrig_db_load_sweep(sqlite3 *db, struct hzrig_sweep_run **runs, size_t *n,
			FILE *err);

#endif /* HZRIG_DB_H */
