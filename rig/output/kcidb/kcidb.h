/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KCIDB export: one run directory as one KCIDB I/O document (KernelCI's
 * common report database, I/O schema 4.x), for `kcidb-submit` to read on
 * its standard input. docs/kcidb.md has the mapping.
 *
 *   checkouts  one per kernel source: the tree (build.json tree_describe)
 *              plus the variant's patch series; normally one a run
 *   builds     one per variant (config_name = the variant)
 *   tests      per variant: boot, capture, clocksource, jiffy_rate, noise,
 *              and one per case (hzrig_case_key(), runs/runs.h) with the median elapsed
 *              time as its number
 *
 * The run is read with hzrig_run_load() (rig/runs/load.c), so an export sees
 * exactly the validated run `hzrig compare` sees; anything it refuses, the
 * export refuses too, and nothing is written.
 *
 * Ids are "<origin>:" + what names the object inside the run, derived from
 * the run id (the run directory's name), the variant and the case key only:
 * exporting the same run again gives the same ids, so a second submission
 * updates the same objects in the database instead of adding new ones.
 */
#ifndef HZRIG_KCIDB_H
#define HZRIG_KCIDB_H

#include <stdbool.h>
#include <stdio.h>

#include <json-c/json.h>

/*
 * The schema version the document claims. Every property written exists
 * since 4.4 (tests' "number"); 4.5 only added checkout git_commit_tags,
 * git_commit_message and git_repository_branch_tip, which are not written.
 * A consumer accepts any minor up to its own, so the lowest that holds
 * everything is the most widely accepted.
 */
#define HZRIG_KCIDB_MAJOR	4
#define HZRIG_KCIDB_MINOR	4

#define HZRIG_KCIDB_ORIGIN	"hzrig"		/* default origin */
#define HZRIG_KCIDB_ARCH	"x86_64"	/* rig/boot/qemu/x86_64.conf */
#define HZRIG_KCIDB_PATCH_DIR	"kernel/patches"
#define HZRIG_KCIDB_PATCH_MAX	(16 << 20)	/* bytes a patch file may have */
/* jiffy_rate test: the measured rate may be this far off HZ (results.h). */
#define HZRIG_KCIDB_JIFFY_TOLERANCE_PCT	2

struct hzrig_kcidb_opts {
	const char *run_dir;	/* results/runs/<id> (symlinks resolved) */
	const char *origin;	/* NULL: HZRIG_KCIDB_ORIGIN */
	/*
	 * Where the patches that build.json names are, to hash them when
	 * build.json does not carry their sha256. NULL: HZRIG_KCIDB_PATCH_DIR,
	 * relative to the working directory.
	 */
	const char *patch_dir;
	/* Base URL under which the patches can be downloaded; NULL: none. */
	const char *patch_url;
	FILE *err;		/* errors and warnings; NULL: stderr */
};

/* A KCIDB origin: ^[a-z0-9_]+$ (kcidb-io's origin pattern). */
bool hzrig_kcidb_origin_ok(const char *origin);

/*
 * The document for @o->run_dir, or NULL after every problem was reported
 * (each naming file:line or file and field). The caller owns the result.
 */
struct json_object *hzrig_kcidb_document(const struct hzrig_kcidb_opts *o);

/*
 * Write @doc to @path (NULL or "-": stdout). A file is written beside
 * @path and renamed over it, so an existing file is either replaced whole
 * or left as it was. 0 on success, -1 (reported on @err) otherwise.
 */
int hzrig_kcidb_write(struct json_object *doc, const char *path, FILE *err);

/*
 * `hzrig report --kcidb --sweep SWEEP.JSON...` (kcidb/sweep.c): one driver
 * sweep's variants as a document (docs/sweep.md) to @out ("-" or NULL:
 * stdout). 0, or 2 with the reason on stderr.
 */
int hzrig_kcidb_sweep(const char *origin, const char *out, char **files, int n);

/* `hzrig report --kcidb ...`: argv as cmd_report() got it. */
int cmd_report_kcidb(int argc, char **argv);

#endif /* HZRIG_KCIDB_H */
