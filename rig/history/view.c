// SPDX-License-Identifier: GPL-2.0
/*
 * The whole history read once for a reader that draws it (view.h): the
 * runs through hzrig_db_load_run(), the baselines and the regressions.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "history/db.h"
#include "history/view.h"
#include "lib/util.h"

static const char *const tables[] = {
	"runs", "variant_runs", "samples", "baselines", "regressions",
};

/* How many tables the file has and its schema version; -1 unreadable. */
static int schema_of(sqlite3 *db, int *ver, int *ntables)
{
	sqlite3_stmt *st = NULL;

	*ver = *ntables = -1;
	if (hzrig_db_user_version(db, ver))
		*ver = -1;
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1,
			       &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		*ntables = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return *ver < 0 || *ntables < 0 ? -1 : 0;
}

static int has_table(sqlite3 *db, const char *name)
{
	sqlite3_stmt *st = NULL;
	int r = -1;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type ="
			       " 'table' AND name = ?1", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		r = sqlite3_step(st);
		r = r == SQLITE_ROW ? 1 : r == SQLITE_DONE ? 0 : -1;
	}
	sqlite3_finalize(st);
	return r;
}

/*
 * A history of an older schema, copied into memory and migrated there:
 * every reader then sees the current columns. The file is not touched.
 */
static sqlite3 *migrated_copy(sqlite3 *src, const char *path, FILE *err)
{
	sqlite3_backup *b;
	sqlite3 *mem = NULL;

	if (sqlite3_open(":memory:", &mem) != SQLITE_OK)
		goto fail;
	b = sqlite3_backup_init(mem, "main", src, "main");
	if (!b || sqlite3_backup_step(b, -1) != SQLITE_DONE) {
		sqlite3_backup_finish(b);
		goto fail;
	}
	if (sqlite3_backup_finish(b) != SQLITE_OK)
		goto fail;
	if (hzrig_db_migrate(mem, path, err)) {
		sqlite3_close(mem);
		return NULL;
	}
	return mem;
fail:
	fprintf(err, "hzrig: %s: cannot copy it to read: %s\n", path,
		mem ? sqlite3_errmsg(mem) : "out of memory");
	sqlite3_close(mem);
	return NULL;
}

/* Open and check: 1 a history, 0 an empty file, -1 after a message. */
static int open_checked(const char *path, const char *who, struct hzrig_view *v,
			FILE *err)
{
	int ver, ntables, r;
	size_t i;

	v->db = hzrig_db_open_readonly(path, err);
	if (!v->db)
		return -1;
	if (schema_of(v->db, &ver, &ntables)) {
		/*
		 * A text file says "file is not a database"; a WAL file in
		 * a directory we cannot write, "unable to open database file".
		 */
		fprintf(err, "%s: %s: cannot read it as a history database: %s\n",
			who, path, sqlite3_errmsg(v->db));
		return -1;
	}
	if (ver == 0 && ntables == 0)
		return 0;
	if (ver < 1) {
		fprintf(err, "%s: %s: not a history database (schema version %d;"
			" `hzrig ingest` writes version 1 and later)\n", who, path,
			ver);
		return -1;
	}
	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		r = has_table(v->db, tables[i]);
		if (r <= 0) {
			if (!r)
				fprintf(err, "%s: %s: schema version %d but no table"
					" %s: not a history database\n", who, path,
					ver, tables[i]);
			return -1;
		}
	}
	if (ver < hzrig_db_version) {
		sqlite3 *mem = migrated_copy(v->db, path, err);

		sqlite3_close(v->db);
		v->db = mem;
		if (!mem)
			return -1;
	}
	return 1;
}

static void free_run(struct hzrig_view_run *r)
{
	free(r->started_at);
	free(r->plan);
	free(r->hzrig_version);
	hzrig_run_free(&r->run);
}

/* One row of a query into the view: 0, or -1 when out of memory. */
typedef int (*row_fn)(struct hzrig_view *v, sqlite3_stmt *st, FILE *err,
		      const char *who);

/* Run @sql and hand each row to @fn; -1 after a message. */
static int each_row(struct hzrig_view *v, const char *sql, row_fn fn,
		    const char *who, FILE *err)
{
	sqlite3_stmt *st = NULL;
	int rc = SQLITE_ERROR;

	if (sqlite3_prepare_v2(v->db, sql, -1, &st, NULL) == SQLITE_OK)
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			if (fn(v, st, err, who)) {
				sqlite3_finalize(st);
				fprintf(err, "%s: out of memory\n", who);
				return -1;
			}
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return 0;
	fprintf(err, "%s: database: %s\n", who, hzrig_db_error(v->db));
	return -1;
}

/* A run, loaded; one that cannot be is named and left out. */
static int run_row(struct hzrig_view *v, sqlite3_stmt *st, FILE *err,
		   const char *who)
{
	struct hzrig_view_run *r = HZRIG_PUSH(v->r, v->nr, v->rcap, 16);

	if (!r)
		return -1;
	hzrig_db_col_text(st, 0, r->id, sizeof(r->id));
	r->started_at = hzrig_db_col_strdup(st, 1);
	r->plan = hzrig_db_col_strdup(st, 2);
	r->hzrig_version = hzrig_db_col_strdup(st, 3);
	if (hzrig_db_load_run(v->db, r->id, &r->run, err)) {
		fprintf(err, "%s: run %s left out\n", who, r->id);
		free_run(r);
		v->nr--;
	}
	return 0;
}

static int baseline_row(struct hzrig_view *v, sqlite3_stmt *st, FILE *err,
			const char *who)
{
	struct hzrig_view_baseline *b = HZRIG_PUSH(v->b, v->nb, v->bcap, 8);

	(void)err;
	(void)who;
	if (!b)
		return -1;
	hzrig_db_col_text(st, 0, b->variant, sizeof(b->variant));
	hzrig_db_col_text(st, 1, b->run_id, sizeof(b->run_id));
	return 0;
}

static int regression_row(struct hzrig_view *v, sqlite3_stmt *st, FILE *err,
			  const char *who)
{
	struct hzrig_view_regression *g = HZRIG_PUSH(v->g, v->ng, v->gcap, 16);

	(void)err;
	(void)who;
	if (!g)
		return -1;
	hzrig_db_col_text(st, 0, g->run_id, sizeof(g->run_id));
	hzrig_db_col_text(st, 1, g->variant, sizeof(g->variant));
	hzrig_db_col_text(st, 2, g->case_key, sizeof(g->case_key));
	hzrig_db_col_text(st, 3, g->kind, sizeof(g->kind));
	g->old_value = hzrig_db_col_real(st, 4);
	g->new_value = hzrig_db_col_real(st, 5);
	g->threshold = hzrig_db_col_real(st, 6);
	hzrig_db_col_text(st, 7, g->base_run, sizeof(g->base_run));
	hzrig_db_col_text(st, 8, g->base_variant, sizeof(g->base_variant));
	g->window_lo_ns = hzrig_db_col_int(st, 9);
	g->window_hi_ns = hzrig_db_col_int(st, 10);
	g->detail = hzrig_db_col_strdup(st, 11);
	hzrig_db_col_text(st, 12, g->checked_at, sizeof(g->checked_at));
	return 0;
}

/*
 * Every run, oldest first: by the time in its id (started_at), else by
 * when it was ingested, as `hzrig history` orders them; the baselines;
 * the regressions, by run, variant, case and kind.
 */
static int load_all(struct hzrig_view *v, const char *who, FILE *err)
{
	return each_row(v, "SELECT run_id, started_at, plan, hzrig_version"
			" FROM runs ORDER BY coalesce(started_at, ingested_at),"
			" ingested_at, run_id", run_row, who, err) ||
	       each_row(v, "SELECT variant, run_id FROM baselines ORDER BY"
			" variant", baseline_row, who, err) ||
	       each_row(v, "SELECT run_id, variant, case_key, kind, old_value,"
			" new_value, threshold, baseline_run, baseline_variant,"
			" window_lo_ns, window_hi_ns, detail, checked_at FROM"
			" regressions ORDER BY run_id, variant, case_key, kind",
			regression_row, who, err) ? -1 : 0;
}

int hzrig_view_open(const char *path, const char *who, struct hzrig_view *v,
		    FILE *err)
{
	int have;

	memset(v, 0, sizeof(*v));
	have = open_checked(path, who, v, err);
	if (have <= 0)
		return have;
	/* One read transaction: one snapshot even while ingest writes. */
	if (sqlite3_exec(v->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
		fprintf(err, "%s: database: cannot start reading: %s\n", who,
			hzrig_db_error(v->db));
		return -1;
	}
	if (load_all(v, who, err))
		return -1;
	if (hzrig_db_load_sweep(v->db, &v->sw, &v->nsw, err) ||
	    hzrig_sweep_sites(v->sw, (int)v->nsw, &v->sites, &v->nsites)) {
		fprintf(err, "%s: database: the sweep could not be read: %s\n", who,
			hzrig_db_error(v->db));
		return -1;
	}
	return 1;
}

void hzrig_view_close(struct hzrig_view *v)
{
	size_t i;

	if (v->db) {
		sqlite3_exec(v->db, "ROLLBACK", NULL, NULL, NULL);
		sqlite3_close(v->db);
	}
	for (i = 0; i < v->nr; i++)
		free_run(&v->r[i]);
	for (i = 0; i < v->ng; i++)
		free(v->g[i].detail);
	for (i = 0; i < v->nsw; i++)
		hzrig_sweep_run_free(&v->sw[i]);
	free(v->sw);
	free(v->sites);
	free(v->r);
	free(v->b);
	free(v->g);
	memset(v, 0, sizeof(*v));
}

const char *hzrig_view_baseline(const struct hzrig_view *v,
				const char *variant)
{
	size_t i;

	for (i = 0; i < v->nb; i++)
		if (!strcmp(v->b[i].variant, variant))
			return v->b[i].run_id;
	return NULL;
}

int hzrig_view_variants(const struct hzrig_view *v,
			int (*fn)(const struct hzrig_view_run *r,
				  const struct hzrig_variant *var, void *arg),
			void *arg)
{
	size_t i, k;
	int ret;

	for (i = 0; i < v->nr; i++)
		for (k = 0; k < v->r[i].run.nv; k++) {
			ret = fn(&v->r[i], &v->r[i].run.v[k], arg);
			if (ret)
				return ret;
		}
	return 0;
}
