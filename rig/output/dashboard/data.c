// SPDX-License-Identifier: GPL-2.0
/*
 * The dashboard's data: the chosen run's variants and samples and the list
 * of runs, read once from the history database; every string interned.
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

#include "history/db.h"
#include "model/model.h"
#include "output/dashboard/dash.h"
#include "runs/runs.h"

/* ------------------------------------------------------------------------
 * What the page is drawn from.
 */

uint64_t dash_hash_str(const char *s)
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
		j = dash_hash_str(t->s[i]) & (ns - 1);
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
	j = dash_hash_str(s) & (t->nslot - 1);
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

void dash_strtab_free(struct strtab *t)
{
	size_t i;

	for (i = 1; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

/* The string of index @i, "" for NO_STR. */
const char *dash_S(const struct dash *d, size_t i)
{
	return i == NO_STR || i >= d->st.n ? "" : d->st.s[i];
}

void dash_dberr(struct dash *d, const char *what)
{
	fprintf(d->err, "hzrig dashboard: %s: %s: %s\n", d->o->db_path, what,
		sqlite3_errmsg(d->db));
	d->failed = true;
}

/* Out of memory half-way: say so, and no page. */
void dash_out_of_memory(struct dash *d)
{
	fprintf(d->err, "hzrig dashboard: out of memory\n");
	d->failed = true;
}

sqlite3_stmt *dash_prep(struct dash *d, const char *sql)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) != SQLITE_OK) {
		dash_dberr(d, "cannot read the history");
		sqlite3_finalize(st);
		return NULL;
	}
	return st;
}

/* A step of a query: true on a row, false when done (or on an error). */
bool dash_row(struct dash *d, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	if (rc == SQLITE_ROW)
		return true;
	if (rc != SQLITE_DONE)
		dash_dberr(d, "reading the history");
	return false;
}

int64_t dash_col_i64(sqlite3_stmt *st, int c)
{
	if (sqlite3_column_type(st, c) == SQLITE_NULL)
		return HZRIG_ABSENT;
	return sqlite3_column_int64(st, c);
}

double dash_col_dbl(sqlite3_stmt *st, int c)
{
	if (sqlite3_column_type(st, c) == SQLITE_NULL)
		return NAN;
	return sqlite3_column_double(st, c);
}

const char *dash_col_str(sqlite3_stmt *st, int c)
{
	return (const char *)sqlite3_column_text(st, c);
}

size_t dash_col_intern(struct dash *d, sqlite3_stmt *st, int c)
{
	size_t i = intern(&d->st, dash_col_str(st, c));

	if (i == (size_t)-1) {
		dash_out_of_memory(d);
		return NO_STR;
	}
	return i;
}

/* Does the history have table @name? -1 on error. */
int dash_has_table(struct dash *d, const char *name)
{
	sqlite3_stmt *st = dash_prep(d, "SELECT 1 FROM sqlite_master"
				   " WHERE type = 'table' AND name = ?1");
	int r;

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	r = dash_row(d, st) ? 1 : 0;
	sqlite3_finalize(st);
	return d->failed ? -1 : r;
}

/*
 * Every run, oldest first: by the time in its id (started_at), else by
 * when it was ingested, as `hzrig history` orders them.
 */
int dash_load_runs(struct dash *d)
{
	sqlite3_stmt *st = dash_prep(d, "SELECT run_id FROM runs ORDER BY"
				   " coalesce(started_at, ingested_at),"
				   " ingested_at, run_id");
	size_t cap = 0;

	if (!st)
		return -1;
	while (dash_row(d, st)) {
		if (d->nruns == cap) {
			char **n = realloc(d->runs, (cap * 2 + 8) * sizeof(*n));

			if (!n)
				goto oom;
			d->runs = n;
			cap = cap * 2 + 8;
		}
		d->runs[d->nruns] = strdup(dash_col_str(st, 0) ? dash_col_str(st, 0) : "");
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

int dash_load_variants(struct dash *d)
{
	sqlite3_stmt *st = dash_prep(d, "SELECT id, variant, hz FROM variant_runs"
				   " WHERE run_id = ?1 ORDER BY hz, variant");
	size_t cap = 0;

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, d->run, -1, SQLITE_STATIC);
	while (dash_row(d, st)) {
		if (d->nv == cap) {
			struct dvar *n = realloc(d->v, (cap * 2 + 4) * sizeof(*n));

			if (!n) {
				dash_out_of_memory(d);
				break;
			}
			d->v = n;
			cap = cap * 2 + 4;
		}
		memset(&d->v[d->nv], 0, sizeof(d->v[0]));
		d->v[d->nv].id = sqlite3_column_int64(st, 0);
		d->v[d->nv].name = dash_col_intern(d, st, 1);
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

/* Whether the samples table has column @col (later schemas add some). */
static bool have_column(struct dash *d, const char *col)
{
	sqlite3_stmt *st = NULL;
	char sql[96];
	bool ok;

	snprintf(sql, sizeof(sql), "SELECT %s FROM samples LIMIT 0", col);
	ok = sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) == SQLITE_OK;
	sqlite3_finalize(st);
	return ok;
}

int dash_load_samples(struct dash *d)
{
	char sql[1024];
	sqlite3_stmt *st;
	size_t cap = 0;

	/*
	 * A history of schema 1 predates paths (its samples are kernel
	 * ones), one before schema 4 has no usbmon figures.
	 */
	snprintf(sql, sizeof(sql),
		 "SELECT v.id, s.case_idx, s.rep, s.case_key, s.transfer,"
		 " s.behaviour, s.mode, s.timeout_ms, s.timeout_arg, s.delay_us,"
		 " s.length, s.status, s.expected_status, s.elapsed_ns,"
		 " s.window_lo_ns, s.window_hi_ns, s.allowance_ns, s.verdict,"
		 " %s, %s"
		 " FROM samples s JOIN variant_runs v ON v.id = s.variant_run"
		 " WHERE v.run_id = ?1 ORDER BY v.hz, v.variant, s.case_idx, s.rep",
		 have_column(d, "path") ?
		 "coalesce(nullif(s.path, ''), 'kernel')" : "'kernel'",
		 have_column(d, "urb_ns") ? "s.urb_ns" : "NULL");
	st = dash_prep(d, sql);

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, d->run, -1, SQLITE_STATIC);
	while (dash_row(d, st)) {
		struct dsample *x;

		if (d->ns == cap) {
			x = realloc(d->s, (cap * 2 + 256) * sizeof(*x));
			if (!x) {
				dash_out_of_memory(d);
				break;
			}
			d->s = x;
			cap = cap * 2 + 256;
		}
		x = &d->s[d->ns++];
		x->v = var_index(d, sqlite3_column_int64(st, 0));
		x->case_idx = sqlite3_column_int64(st, 1);
		x->rep = sqlite3_column_int64(st, 2);
		x->key = dash_col_intern(d, st, 3);
		x->transfer = dash_col_intern(d, st, 4);
		x->behaviour = dash_col_intern(d, st, 5);
		x->mode = dash_col_intern(d, st, 6);
		x->timeout_ms = sqlite3_column_int64(st, 7);
		x->timeout_arg = sqlite3_column_int64(st, 8);
		x->delay_us = dash_col_i64(st, 9);
		x->length = dash_col_i64(st, 10);
		x->status = sqlite3_column_int64(st, 11);
		x->expected = dash_col_i64(st, 12);
		x->elapsed = sqlite3_column_int64(st, 13);
		x->lo = dash_col_i64(st, 14);
		x->hi = dash_col_i64(st, 15);
		x->allowance = dash_col_i64(st, 16);
		x->verdict = dash_col_intern(d, st, 17);
		x->path = dash_col_intern(d, st, 18);
		x->urb = dash_col_i64(st, 19);
		d->v[x->v].ns++;
		if (!strcmp(dash_S(d, x->verdict), "inside"))
			d->v[x->v].ninside++;
	}
	sqlite3_finalize(st);
	return d->failed ? -1 : 0;
}

bool dash_is(const struct dash *d, size_t i, const char *s)
{
	return !strcmp(dash_S(d, i), s);
}

bool dash_kernel(const struct dash *d, const struct dsample *x)
{
	return dash_is(d, x->path, "kernel");
}

bool dash_inside(const struct dash *d, const struct dsample *x)
{
	return dash_is(d, x->verdict, "inside");
}
