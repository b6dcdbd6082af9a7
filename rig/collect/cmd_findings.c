// SPDX-License-Identifier: GPL-2.0
/*
 * `hzrig findings`: the kernel reports on a guest's console, by title
 * (rig/collect/scan.c), as a table and as JSON lines; with --expect, a check
 * that the reports a demonstration is meant to provoke are there.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "collect/scan.h"
#include "lib/io.h"
#include "lib/json.h"
#include "lib/opts.h"

#define MAX_EXPECT	16

static void findings_usage(FILE *f)
{
	fputs("usage: hzrig findings --console FILE [--variant V] [--out FILE]\n"
	      "                      [--ktap FILE] [--expect TEXT]...\n"
	      "Scans a guest's console log for kernel reports (KASAN, lockdep,\n"
	      "ODEBUG, atomic sleep, WARNING, GPF, BUG, hung task, soft lockup,\n"
	      "panic) and prints one line per finding: its title, what the guest\n"
	      "was running and where the report starts. --out writes them as\n"
	      "JSON lines (with the console excerpt), whole or not at all;\n"
	      "--ktap as KTAP: one result per report, \"not ok N TITLE\", or a\n"
	      "single \"ok 1 console\" when there is none.\n"
	      "Exit: 0 no finding, 1 findings, 2 error. With --expect (any\n"
	      "number): 0 when every TEXT is part of some finding's title,\n"
	      "1 when one is missing.\n", f);
}

/* The findings as JSON lines, whole or not at all (lib/io.h). */
static void put_jsonl(FILE *f, const char *variant,
		      const struct hzrig_findings *fs)
{
	size_t i;

	for (i = 0; i < fs->n; i++) {
		struct json_object *o = hzrig_finding_json(&fs->v[i]);

		if (variant)
			json_object_object_add(o, "variant",
					       hzrig_json_str(variant));
		fprintf(f, "%s\n", json_object_to_json_string_ext(o,
			JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	}
}

/*
 * The findings as KTAP, for the tools that read the guest's own results:
 * a report is a failed test named by its title.
 */
static void put_ktap(FILE *f, const char *variant,
		     const struct hzrig_findings *fs)
{
	size_t i;

	fprintf(f, "KTAP version 1\n# kernel reports on the console%s%s\n",
		variant ? " of " : "", variant ? variant : "");
	if (!fs->n) {
		fprintf(f, "1..1\nok 1 console # no kernel report\n");
		return;
	}
	fprintf(f, "1..%zu\n", fs->n);
	for (i = 0; i < fs->n; i++)
		fprintf(f, "not ok %zu %s # %s, console line %u%s\n",
			i + 1, fs->v[i].title,
			fs->v[i].running[0] ? fs->v[i].running : "boot",
			fs->v[i].line, fs->v[i].truncated ? ", cut off" : "");
}

static int write_out(const char *opt, const char *path, const char *variant,
		     const struct hzrig_findings *fs,
		     void (*put)(FILE *, const char *, const struct hzrig_findings *))
{
	struct hzrig_out o;
	char why[HZRIG_WHY];

	if (hzrig_out_open(&o, path, why, sizeof(why))) {
		fprintf(stderr, "hzrig findings: %s %s: %s\n", opt, path, why);
		return -1;
	}
	put(o.f, variant, fs);
	if (hzrig_out_commit(&o, why, sizeof(why))) {
		fprintf(stderr, "hzrig findings: %s %s: %s; nothing written\n",
			opt, path, why);
		return -1;
	}
	return 0;
}

static int check_expected(const struct hzrig_findings *fs,
			  const char *const *expect, int nexpect)
{
	int i, missing = 0;
	size_t k;

	for (i = 0; i < nexpect; i++) {
		for (k = 0; k < fs->n; k++)
			if (strstr(fs->v[k].title, expect[i]))
				break;
		printf("findings: expected '%s': %s\n", expect[i],
		       k < fs->n ? fs->v[k].title : "NOT REPORTED");
		missing += k == fs->n;
	}
	return missing ? 1 : 0;
}

/* --expect TITLE, repeated: the reports the console must hold. */
struct expects {
	const char *v[MAX_EXPECT];
	int n;
};

static int expect_opt(const char *cmd, const char *arg, void *dst)
{
	struct expects *ex = dst;

	if (ex->n == MAX_EXPECT || !*arg) {
		fprintf(stderr, "hzrig %s: --expect: at most %d, none empty\n",
			cmd, MAX_EXPECT);
		return -1;
	}
	ex->v[ex->n++] = arg;
	return 0;
}

int cmd_findings(int argc, char **argv)
{
	const char *console = NULL, *variant = NULL, *out = NULL, *ktap = NULL;
	struct expects ex = { .n = 0 };
	const struct hzrig_opt opts[] = {
		HZRIG_OPT_S("console", &console),
		HZRIG_OPT_S("variant", &variant),
		HZRIG_OPT_S("out", &out),
		HZRIG_OPT_F("expect", expect_opt, &ex),
		HZRIG_OPT_S("ktap", &ktap),
		HZRIG_OPT_END
	};
	struct hzrig_findings fs = { 0 };
	char why[HZRIG_WHY];
	int first, ret;
	size_t i;

	first = hzrig_opts("findings", argc, argv, opts, findings_usage);
	if (first < 0)
		return HZRIG_OPTS_EXIT(first);
	if (first != argc || !console) {
		if (first != argc)
			fprintf(stderr, "hzrig findings: unexpected argument '%s'\n",
				argv[first]);
		else
			fprintf(stderr, "hzrig findings: --console is required\n");
		return 2;
	}
	/* An output over the console would lose the input: refused. */
	if ((out && hzrig_same_file(out, console)) ||
	    (ktap && hzrig_same_file(ktap, console)) ||
	    (out && ktap && hzrig_same_file(out, ktap))) {
		fprintf(stderr, "hzrig findings: --out and --ktap must name other files than --console %s and each other\n",
			console);
		return 2;
	}
	if (hzrig_scan_file(console, &fs, why, sizeof(why))) {
		fprintf(stderr, "hzrig findings: --console %s: %s\n", console, why);
		hzrig_findings_free(&fs);
		return 2;
	}
	printf("findings: %s%s%zu kernel report%s\n", variant ? variant : "",
	       variant ? ": " : "", fs.n, fs.n == 1 ? "" : "s");
	for (i = 0; i < fs.n; i++)
		hzrig_finding_print(stdout, "  ", &fs.v[i]);
	ret = fs.n ? 1 : 0;
	if ((out && write_out("--out", out, variant, &fs, put_jsonl)) ||
	    (ktap && write_out("--ktap", ktap, variant, &fs, put_ktap)))
		ret = 2;
	else if (ex.n)
		ret = check_expected(&fs, ex.v, ex.n);
	hzrig_findings_free(&fs);
	return ret;
}
