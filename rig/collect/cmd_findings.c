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
#include "lib/util.h"

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

/* FILE through FILE.tmp and rename(): whole or not at all. */
static int write_jsonl(const char *path, const char *variant,
		       const struct hzrig_findings *fs)
{
	char tmp[4096];
	FILE *f;
	size_t i;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
		fprintf(stderr, "hzrig findings: --out: path too long\n");
		return -1;
	}
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "hzrig findings: %s: %s\n", tmp, strerror(errno));
		return -1;
	}
	for (i = 0; i < fs->n; i++) {
		struct json_object *o = hzrig_finding_json(&fs->v[i]);

		if (variant)
			json_object_object_add(o, "variant",
					       json_object_new_string(variant));
		fprintf(f, "%s\n", json_object_to_json_string_ext(o,
			JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	}
	if (fflush(f) || ferror(f) || fsync(fileno(f))) {
		fprintf(stderr, "hzrig findings: %s: %s\n", tmp, strerror(errno ? errno : EIO));
		fclose(f);
		unlink(tmp);
		return -1;
	}
	fclose(f);
	if (rename(tmp, path)) {
		fprintf(stderr, "hzrig findings: %s: %s\n", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/*
 * The findings as KTAP, for the tools that read the guest's own results:
 * a report is a failed test named by its title.
 */
static int write_ktap(const char *path, const char *variant,
		      const struct hzrig_findings *fs)
{
	FILE *f = fopen(path, "w");
	size_t i;

	if (!f) {
		fprintf(stderr, "hzrig findings: %s: %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(f, "KTAP version 1\n# kernel reports on the console%s%s\n",
		variant ? " of " : "", variant ? variant : "");
	if (!fs->n) {
		fprintf(f, "1..1\nok 1 console # no kernel report\n");
	} else {
		fprintf(f, "1..%zu\n", fs->n);
		for (i = 0; i < fs->n; i++)
			fprintf(f, "not ok %zu %s # %s, console line %u%s\n",
				i + 1, fs->v[i].title,
				fs->v[i].running[0] ? fs->v[i].running : "boot",
				fs->v[i].line,
				fs->v[i].truncated ? ", cut off" : "");
	}
	if (fclose(f)) {
		fprintf(stderr, "hzrig findings: %s: %s\n", path, strerror(errno));
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

int cmd_findings(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "console", required_argument, NULL, 'c' },
		{ "variant", required_argument, NULL, 'v' },
		{ "out", required_argument, NULL, 'o' },
		{ "expect", required_argument, NULL, 'e' },
		{ "ktap", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *console = NULL, *variant = NULL, *out = NULL, *ktap = NULL;
	const char *expect[MAX_EXPECT];
	struct hzrig_findings fs = { 0 };
	int opt, nexpect = 0, ret;
	size_t i;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'c': console = optarg; break;
		case 'v': variant = optarg; break;
		case 'o': out = optarg; break;
		case 'k': ktap = optarg; break;
		case 'e':
			if (nexpect == MAX_EXPECT || !*optarg) {
				fprintf(stderr, "hzrig findings: --expect: at most %d, none empty\n",
					MAX_EXPECT);
				return 2;
			}
			expect[nexpect++] = optarg;
			break;
		case 'h': findings_usage(stdout); return 0;
		default: findings_usage(stderr); return 2;
		}
	}
	if (optind != argc || !console) {
		if (optind != argc)
			fprintf(stderr, "hzrig findings: unexpected argument '%s'\n",
				argv[optind]);
		else
			fprintf(stderr, "hzrig findings: --console is required\n");
		return 2;
	}
	if (hzrig_scan_file(console, &fs)) {
		fprintf(stderr, "hzrig findings: %s: %s\n", console, strerror(errno));
		hzrig_findings_free(&fs);
		return 2;
	}
	printf("findings: %s%s%zu kernel report%s\n", variant ? variant : "",
	       variant ? ": " : "", fs.n, fs.n == 1 ? "" : "s");
	for (i = 0; i < fs.n; i++)
		hzrig_finding_print(stdout, "  ", &fs.v[i]);
	ret = fs.n ? 1 : 0;
	if ((out && write_jsonl(out, variant, &fs)) ||
	    (ktap && write_ktap(ktap, variant, &fs)))
		ret = 2;
	else if (nexpect)
		ret = check_expected(&fs, expect, nexpect);
	hzrig_findings_free(&fs);
	return ret;
}
