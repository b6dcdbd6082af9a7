/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The history as a reader that draws all of it sees it (the dashboard):
 * every run loaded through hzrig_db_load_run() (so each is checked as its
 * files were, and carries runs/stats.c's case figures), the baselines and
 * the regressions recorded. One read of the database, one snapshot; the
 * reader needs no SQL. A history of an older schema is read through a
 * migrated copy in memory (the file is opened read-only and not changed).
 * A run that cannot be used is named on the error stream and left out:
 * one bad record never keeps the others from being read.
 */
#ifndef HZRIG_VIEW_H
#define HZRIG_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "runs/runs.h"
#include "sweep/sweep.h"

struct hzrig_view_run {
	char id[HZRIG_RUN_ID_MAX];
	char *started_at, *plan, *hzrig_version;	/* NULL when not known */
	struct hzrig_run run;	/* variants by HZ, then name; case stats */
};

struct hzrig_view_baseline {
	char variant[HZRIG_VARIANT_MAX];
	char run_id[HZRIG_RUN_ID_MAX];
};

struct hzrig_view_regression {
	char run_id[HZRIG_RUN_ID_MAX], variant[HZRIG_VARIANT_MAX];
	char case_key[HZRIG_CASE_KEY_MAX], kind[16];
	double old_value, new_value, threshold;	/* NAN: none */
	char base_run[HZRIG_RUN_ID_MAX], base_variant[HZRIG_VARIANT_MAX];
	int64_t window_lo_ns, window_hi_ns;	/* or HZRIG_ABSENT */
	char *detail;				/* NULL: none */
	char checked_at[32];
};

struct hzrig_view {
	sqlite3 *db;		/* the snapshot (output/trees.c reads it too) */
	struct hzrig_view_run *r;	/* oldest first */
	size_t nr, rcap;
	struct hzrig_view_baseline *b;
	size_t nb, bcap;
	struct hzrig_view_regression *g;	/* by run, variant, case, kind */
	size_t ng, gcap;
	/* the newest driver sweep (docs/sweep.md): its variants by HZ, sites */
	struct hzrig_sweep_run *sw;
	size_t nsw;
	struct hzrig_sweep_site *sites;
	size_t nsites;
};

/*
 * Open the history @path read-only and load all of it into @v. Messages
 * start with @who ("hzrig dashboard"). Returns 1 when loaded, 0 when the
 * file is empty (no tables: nothing ingested yet), -1 after a message when
 * it is not a history database or cannot be read.
 */
int hzrig_view_open(const char *path, const char *who, struct hzrig_view *v,
		    FILE *err);

void hzrig_view_close(struct hzrig_view *v);

/* The baseline run of @variant, or NULL. */
const char *hzrig_view_baseline(const struct hzrig_view *v,
				const char *variant);

/*
 * Call @fn on every variant of every run, oldest run first, each run's by
 * HZ then name; the first nonzero return stops it and is returned.
 */
int hzrig_view_variants(const struct hzrig_view *v,
			int (*fn)(const struct hzrig_view_run *r,
				  const struct hzrig_variant *var, void *arg),
			void *arg);

#endif /* HZRIG_VIEW_H */
