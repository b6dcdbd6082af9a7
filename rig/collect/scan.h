/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The console report scanner: a guest's console log (ttyS0) in, one finding
 * per kernel report out (KASAN, lockdep, ODEBUG, atomic sleep, WARNING, GPF,
 * BUG, hung task, soft lockup, panic). Each finding has a stable title in
 * the manner of syzkaller's report titles ("KASAN: use-after-free Write in
 * hzrig_heartbeat"): the report's kind and the function it happened in, and
 * nothing that changes from one boot or build to the next (addresses,
 * offsets, PIDs, line numbers). The patterns are a data table in scan.c;
 * docs/robustness.md lists them.
 */
#ifndef HZRIG_SCAN_H
#define HZRIG_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define HZRIG_TITLE_MAX		160
#define HZRIG_RUNNING_MAX	128
#define HZRIG_EXCERPT_MAX	6144

struct hzrig_finding {
	char title[HZRIG_TITLE_MAX];
	char kind[16];			/* KASAN, lockdep, ODEBUG, BUG, ... */
	char where[HZRIG_TITLE_MAX];	/* FILE:LINE when the report names it */
	/*
	 * What the guest was running: the last "# case ..." or "# scenario
	 * ..." header before the report, without the "# "; "" before any.
	 */
	char running[HZRIG_RUNNING_MAX];
	unsigned int line;		/* console line the report starts on */
	bool truncated;			/* the console ended inside it */
	char excerpt[HZRIG_EXCERPT_MAX]; /* its kernel lines, timestamps kept */
};

struct hzrig_findings {
	struct hzrig_finding *v;
	size_t n, cap;
};

/*
 * Scan @f to its end, appending to @out. Returns 0, or -1 on a read or
 * allocation error (@out then holds what was found before it).
 */
int hzrig_scan_console(FILE *f, struct hzrig_findings *out);
/*
 * The same on the console log @path, a regular file of at most
 * HZRIG_MAX_CONSOLE bytes (lib/io.h); -1 with the reason in @why.
 */
int hzrig_scan_file(const char *path, struct hzrig_findings *out, char *why,
		    size_t n);
void hzrig_findings_free(struct hzrig_findings *fs);

struct json_object;
/* One finding as the JSON object run.json and findings.jsonl hold. */
struct json_object *hzrig_finding_json(const struct hzrig_finding *f);
/* "TITLE (running: R, console line L[, truncated])" on one line. */
void hzrig_finding_print(FILE *out, const char *indent,
			 const struct hzrig_finding *f);

/* `hzrig findings` (rig/collect/cmd_findings.c). */
int cmd_findings(int argc, char **argv);

/* How many report patterns the table has, and the kind of the i-th. */
size_t hzrig_scan_patterns(void);
const char *hzrig_scan_pattern_kind(size_t i);

#endif /* HZRIG_SCAN_H */
