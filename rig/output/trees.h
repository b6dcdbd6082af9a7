/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One HZ on two kernel trees, case by case (rig/output/trees.c): what
 * `hzrig compare --trees` prints and the dashboard's "Kernel trees" section
 * draws. docs/history.md, "Across kernel trees", has the rules.
 *
 * A variant run of the chosen run is paired with the newest variant run
 * (the chosen run's own first) of the same HZ, plan, fragments and patches
 * built from another kernel line (the MAJOR.MINOR of its guest's release):
 * hz-250 with hz-250-6.12. The older line is the "from" side of the
 * upgrade, the newer the "to" side.
 */
#ifndef HZRIG_TREES_H
#define HZRIG_TREES_H

#include <stdbool.h>
#include <stdio.h>

#include <sqlite3.h>

#include "model/model.h"
#include "runs/runs.h"

/* What got worse from the older tree to the newer one, per case. */
enum {
	HZRIG_UPG_WINDOW = 1 << 0,	/* the model's window wider or later */
	HZRIG_UPG_MEDIAN = 1 << 1,	/* median up by more than the threshold */
	HZRIG_UPG_TAIL = 1 << 2,	/* p95 up by more than the threshold */
	HZRIG_UPG_INSIDE = 1 << 3,	/* inside share down (hzrig_regress) */
	HZRIG_UPG_STATUS = 1 << 4,	/* another majority status */
};
#define HZRIG_UPG_KINDS	5

/* The name of kind bit @i ("window" for 0); NULL past the last. */
const char *hzrig_upg_name(unsigned int i);

struct hzrig_tree_case {
	const struct hzrig_case_stats *from, *to;
	/* The model's window on each tree (no noise allowance, no cancel). */
	struct hzrig_window wfrom, wto;
	bool same_window;
	unsigned int upg;		/* HZRIG_UPG_* */
	char detail[400];		/* what got worse, "" if nothing */
};

struct hzrig_tree_pair {
	int hz;
	char from_line[16], to_line[16];	/* "6.1", "6.12" */
	struct hzrig_run from_run, to_run;	/* each holds its variant */
	const struct hzrig_variant *from, *to;
	struct hzrig_tree_case *c;		/* in plan order */
	size_t nc, only_from, only_to, same_windows, regressions;
};

struct hzrig_trees {
	char run_id[HZRIG_RUN_ID_MAX];
	struct hzrig_tree_pair *p;		/* by HZ */
	size_t n, cap;
	size_t unpaired;	/* variants of the run with no other tree */
};

/*
 * Pair the variants of run @run_id in @db across trees and compare each
 * pair. 0 (maybe with no pairs), -1 on a database error or out of memory
 * (said on @err).
 */
int hzrig_trees_load(sqlite3 *db, const char *run_id, struct hzrig_trees *t,
		     FILE *err);
void hzrig_trees_free(struct hzrig_trees *t);

/*
 * One case on two trees: the windows of @from on tree model @tf and of @to
 * on @tt, and what got worse (the rules of docs/history.md). @regress:
 * hzrig_regress()'s findings for the pair of variants, or NULL. -1 for a
 * NULL model, a path or HZ the model does not know.
 */
int hzrig_tree_case_judge(const struct hzrig_case_stats *from,
			  const struct hzrig_tree_model *tf,
			  const struct hzrig_case_stats *to,
			  const struct hzrig_tree_model *tt, int hz,
			  const struct hzrig_regress_result *regress,
			  struct hzrig_tree_case *tc);

/* "window", "median", "tail", "inside", "status" joined by ',' into @buf. */
void hzrig_upg_names(unsigned int upg, char *buf, size_t len);

#endif /* HZRIG_TREES_H */
