// SPDX-License-Identifier: GPL-2.0
/*
 * The driver sweep in the history (docs/sweep.md, "In the history"):
 * sweep_runs (one row per variant of a sweep, with its sweep.json as it
 * was checked), sweep_drivers and sweep_calls. A sweep read back goes
 * through the same loader as the file (rig/sweep/load.c).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "history/db.h"
#include "lib/io.h"
#include "lib/util.h"
#include "sweep/sweep.h"

/* The stored sweep.json of (@sweep_id, @variant): 1 and *@text, 0 none. */
static int stored(sqlite3 *db, const char *sweep_id, const char *variant,
		  char **text)
{
	sqlite3_stmt *st;
	int rc;

	*text = NULL;
	if (sqlite3_prepare_v2(db, "SELECT sweep_json FROM sweep_runs"
			       " WHERE sweep_id = ? AND variant = ?", -1, &st, NULL))
		return -1;
	sqlite3_bind_text(st, 1, sweep_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, variant, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*text = hzrig_db_col_strdup(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

static int insert_rows(sqlite3 *db, const struct hzrig_sweep_run *r,
		       int64_t id, FILE *err)
{
	sqlite3_stmt *ds = NULL, *cs = NULL;
	int rc = -1;

	if (hzrig_db_prep(db, "INSERT INTO sweep_drivers(sweep_run, module,"
			  " batch, outcome, errno, firmware, probe_ns, nak, stall,"
			  " answer, diagnosis, walk_passes, shape, firmware_standin,"
			  " opened) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			  &ds, err) ||
	    hzrig_db_prep(db, "INSERT INTO sweep_calls(sweep_run, module, idx,"
			  " call, site, function, timeout_arg, ret, action, urb_ns,"
			  " window_lo_ns, window_hi_ns, verdict)"
			  " VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", &cs, err))
		goto out;
	for (size_t i = 0; i < r->ndrivers; i++) {
		const struct hzrig_sweep_rdriver *d = &r->drivers[i];

		sqlite3_reset(ds);
		sqlite3_bind_int64(ds, 1, id);
		sqlite3_bind_text(ds, 2, d->module, -1, SQLITE_STATIC);
		sqlite3_bind_int(ds, 3, d->batch);
		sqlite3_bind_text(ds, 4, d->outcome, -1, SQLITE_STATIC);
		hzrig_db_bind_int(ds, 5, d->err);
		hzrig_db_bind_text(ds, 6, d->firmware);
		hzrig_db_bind_int(ds, 7, d->probe_ns);
		sqlite3_bind_int(ds, 8, d->nak);
		sqlite3_bind_int(ds, 9, d->stall);
		sqlite3_bind_int(ds, 10, d->answer);
		hzrig_db_bind_text(ds, 11, d->diagnosis);
		hzrig_db_bind_int(ds, 12, d->walk_passes);
		hzrig_db_bind_int(ds, 13, d->shape ? d->shape : HZRIG_ABSENT);
		hzrig_db_bind_text(ds, 14, d->firmware_standin);
		{
			char opened[sizeof(d->opened)];
			size_t o = 0;

			opened[0] = 0;
			for (int k = 0; k < d->nopened && o < sizeof(opened); k++)
				o += (size_t)snprintf(opened + o, sizeof(opened) - o, "%s%s",
						      k ? "\n" : "", d->opened[k]);
			hzrig_db_bind_text(ds, 15, opened);
		}
		if (sqlite3_step(ds) != SQLITE_DONE)
			goto out;
		for (size_t k = 0; k < d->ncalls; k++) {
			const struct hzrig_sweep_rcall *c = &d->calls[k];

			sqlite3_reset(cs);
			sqlite3_bind_int64(cs, 1, id);
			sqlite3_bind_text(cs, 2, d->module, -1, SQLITE_STATIC);
			sqlite3_bind_int64(cs, 3, (int64_t)k);
			sqlite3_bind_text(cs, 4, c->call, -1, SQLITE_STATIC);
			sqlite3_bind_text(cs, 5, c->site[0] ? c->site : c->where, -1, SQLITE_STATIC);
			hzrig_db_bind_text(cs, 6, c->function);
			sqlite3_bind_int(cs, 7, c->timeout_arg);
			hzrig_db_bind_int(cs, 8, c->ret);
			sqlite3_bind_text(cs, 9, c->action, -1, SQLITE_STATIC);
			hzrig_db_bind_int(cs, 10, c->urb_ns);
			hzrig_db_bind_int(cs, 11, c->window_lo_ns);
			hzrig_db_bind_int(cs, 12, c->window_hi_ns);
			hzrig_db_bind_text(cs, 13, c->verdict);
			if (sqlite3_step(cs) != SQLITE_DONE)
				goto out;
		}
	}
	rc = 0;
out:
	sqlite3_finalize(ds);
	sqlite3_finalize(cs);
	return rc;
}

/* One transaction, with the same-or-differs answer of ingest. */
int hzrig_db_ingest_sweep(sqlite3 *db, const struct hzrig_sweep_run *r,
			  const char *json_text, bool replace, FILE *out,
			  FILE *err)
{
	sqlite3_stmt *st = NULL;
	char now[32], *old = NULL;
	int have;

	if (hzrig_db_exec(db, "BEGIN IMMEDIATE", err))
		return HZRIG_INGEST_ERROR;
	have = stored(db, r->sweep_id, r->variant, &old);
	if (have < 0)
		goto fail;
	if (have && !replace) {
		bool same = old && !strcmp(old, json_text);

		free(old);
		hzrig_db_exec(db, "ROLLBACK", err);
		if (same) {
			fprintf(out, "sweep %s %s: already ingested, unchanged\n",
				r->sweep_id, r->variant);
			return HZRIG_INGEST_SAME;
		}
		fprintf(err, "hzrig ingest --sweep: sweep %s %s: already ingested but the file differs; unchanged, --replace re-ingests\n",
			r->sweep_id, r->variant);
		return HZRIG_INGEST_DIFFERS;
	}
	free(old);
	if (have) {
		/* --replace: the old rows go with it (ON DELETE CASCADE) */
		if (hzrig_db_prep(db, "DELETE FROM sweep_runs WHERE sweep_id = ?"
				  " AND variant = ?", &st, err))
			goto fail;
		sqlite3_bind_text(st, 1, r->sweep_id, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, r->variant, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			goto fail;
		sqlite3_finalize(st);
		st = NULL;
	}
	hzrig_utc_now(now, sizeof(now));
	if (hzrig_db_prep(db, "INSERT INTO sweep_runs(sweep_id, variant, hz,"
			  " tree_model, drivers, ingested_at, sweep_json)"
			  " VALUES(?, ?, ?, ?, ?, ?, ?)", &st, err))
		goto fail;
	sqlite3_bind_text(st, 1, r->sweep_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, r->variant, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, r->hz);
	sqlite3_bind_text(st, 4, r->tree_model, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, (int64_t)r->ndrivers);
	sqlite3_bind_text(st, 6, now, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, json_text, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	st = NULL;
	if (insert_rows(db, r, sqlite3_last_insert_rowid(db), err))
		goto fail;
	if (hzrig_db_exec(db, "COMMIT", err))
		goto fail;
	fprintf(out, "sweep %s %s: ingested %zu drivers\n", r->sweep_id, r->variant,
		r->ndrivers);
	return HZRIG_INGEST_DONE;
fail:
	fprintf(err, "hzrig ingest --sweep: sweep %s %s: %s; nothing written\n",
		r->sweep_id, r->variant, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return HZRIG_INGEST_ERROR;
}

/* The newest sweep's ID, then each of its variants through the loader. */
int hzrig_db_load_sweep(sqlite3 *db, struct hzrig_sweep_run **runs, size_t *n,
			FILE *err)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;

	*runs = NULL;
	*n = 0;
	/* an older schema (read through view.c's migrated copy) has none */
	if (sqlite3_prepare_v2(db, "SELECT sweep_id, variant, sweep_json FROM sweep_runs"
			       " WHERE sweep_id = (SELECT max(sweep_id) FROM sweep_runs)"
			       " ORDER BY hz, variant", -1, &st, NULL))
		return 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char id[64], variant[64], why[HZRIG_WHY];
		char *text = hzrig_db_col_strdup(st, 2);
		struct hzrig_sweep_run *g;

		hzrig_db_col_text(st, 0, id, sizeof(id));
		hzrig_db_col_text(st, 1, variant, sizeof(variant));
		g = hzrig_grow(*runs, *n, &cap, 4, sizeof(**runs));
		if (!text || !g) {
			free(text);
			break;
		}
		*runs = g;
		if (*n == HZRIG_SWEEP_RUNS_MAX)
			fprintf(err, "hzrig: sweep %s %s in the history: more than %d variants; left out\n",
				id, variant, HZRIG_SWEEP_RUNS_MAX);
		else if (hzrig_sweep_load(text, &g[*n], why, sizeof(why)))
			fprintf(err, "hzrig: sweep %s %s in the history: %s; left out\n",
				id, variant, why);
		else
			(*n)++;
		free(text);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}
