// SPDX-License-Identifier: GPL-2.0
/*
 * LAVA jobs' logs into one run directory, as a local matrix run makes it:
 * each log unpacked into a variant's capture (log.c), collected (verdicts
 * by the model of the guest's own kernel), and the capture kept beside
 * the run's files, as matrix.sh keeps it. Built under RESULTS/runs/ID.part
 * and renamed at the end: a bad log leaves nothing behind.
 */
#define _XOPEN_SOURCE 700	/* nftw() */
#include <errno.h>
#include <stdbool.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect/collect.h"
#include "lava/lava.h"

/* Move the capture of @cap into the collected variant's directory. */
static int keep_capture(const char *cap, const char *vdir, FILE *err)
{
	char a[PATH_MAX + 200], b[PATH_MAX + 200];
	size_t i;

	for (i = 0; i < HZRIG_LAVA_CAPTURE_N; i++) {
		snprintf(a, sizeof(a), "%s/%s", cap, hzrig_lava_capture[i]);
		snprintf(b, sizeof(b), "%s/%s", vdir, hzrig_lava_capture[i]);
		if (rename(a, b)) {
			fprintf(err, "%s: %s\n", b, strerror(errno));
			return -1;
		}
	}
	return rmdir(cap);
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* A run directory this made (a .part, or one refused after), depth first. */
void hzrig_lava_run_remove(const char *dir)
{
	if (!access(dir, F_OK) && nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS))
		fprintf(stderr, "hzrig: could not remove %s: %s\n", dir,
			strerror(errno));
}

/* Per log, unpack, collect and keep; then the run's name and rename. */
int hzrig_lava_run(const char *results, char *const *logs, int n,
		   char *run_dir, size_t len, FILE *err)
{
	char part[PATH_MAX], cap[PATH_MAX + 32], vdir[PATH_MAX + 100];
	char variant[64], started[32], first[32] = "";
	char seen[32][64];
	char runs[PATH_MAX + 8];
	bool made_results, made_runs;
	int i, j, rc;

	if (n > 32) {
		fprintf(err, "hzrig ingest --lava: more than 32 logs in one run\n");
		return -1;
	}
	snprintf(part, sizeof(part), "%s/runs/lava-%ld.part", results, (long)getpid());
	hzrig_lava_run_remove(part);
	snprintf(runs, sizeof(runs), "%s/runs", results);
	/* what this call made, it takes away again if it refuses the logs */
	made_results = !mkdir(results, 0755);
	if (!made_results && errno != EEXIST) {
		fprintf(err, "%s: %s\n", results, strerror(errno));
		return -1;
	}
	made_runs = !mkdir(runs, 0755);
	if ((!made_runs && errno != EEXIST) || mkdir(part, 0755)) {
		fprintf(err, "%s: %s\n", part, strerror(errno));
		goto fail;
	}
	for (i = 0; i < n; i++) {
		snprintf(cap, sizeof(cap), "%s/capture-%d", part, i);
		if (hzrig_lava_unpack(logs[i], cap, variant, sizeof(variant),
				      started, sizeof(started), err))
			goto fail;
		for (j = 0; j < i; j++)
			if (!strcmp(seen[j], variant)) {
				fprintf(err, "%s: variant %s comes twice in this run\n",
					logs[i], variant);
				goto fail;
			}
		snprintf(seen[i], sizeof(seen[i]), "%s", variant);
		if (!*first || strcmp(started, first) < 0)
			snprintf(first, sizeof(first), "%s", started);
		snprintf(vdir, sizeof(vdir), "%s/ttyS1.jsonl", cap);
		{
			char console[PATH_MAX + 64], status[PATH_MAX + 64];
			struct hzrig_collect_opts o = {
				.variant = variant, .serial = vdir,
				.console = console, .boot_status = status,
				.out_dir = part, .err = err, .out = stdout,
				.whole = true,
			};

			snprintf(console, sizeof(console), "%s/console.log", cap);
			snprintf(status, sizeof(status), "%s/status.json", cap);
			rc = hzrig_collect(&o);
		}
		if (rc == HZRIG_COLLECT_FAILED) {
			fprintf(err, "%s: collect refused variant %s (above)\n",
				logs[i], variant);
			goto fail;
		}
		snprintf(vdir, sizeof(vdir), "%s/%s", part, variant);
		if (keep_capture(cap, vdir, err))
			goto fail;
	}
	if (snprintf(run_dir, len, "%s/runs/%s", results, first) >= (int)len ||
	    !access(run_dir, F_OK)) {
		fprintf(err, "%s: a run of that name is already there: nothing written\n",
			run_dir);
		goto fail;
	}
	if (rename(part, run_dir)) {
		fprintf(err, "%s: %s\n", run_dir, strerror(errno));
		goto fail;
	}
	return 0;
fail:
	hzrig_lava_run_remove(part);
	if (made_runs)
		rmdir(runs);	/* only if nothing else is in it */
	if (made_results)
		rmdir(results);
	return -1;
}
