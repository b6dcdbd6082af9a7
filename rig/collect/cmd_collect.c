// SPDX-License-Identifier: GPL-2.0
/*
 * `hzrig collect`: a guest's capture validated, judged and recorded as a
 * run directory (rig/collect/collect.c does the work).
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "collect/collect.h"
#include "lib/util.h"
#include "lib/opts.h"

static void collect_usage(FILE *f)
{
	fputs("usage: hzrig collect --variant V --serial FILE --console FILE --out DIR\n"
	      "                     [--accel A] [--boot-status STATUS|FILE]\n"
	      "                     [--noise-floor-ns N]\n"
	      "Validates a guest's JSON-lines capture (--serial, its ttyS1),\n"
	      "holds every sample against the model and records the run:\n"
	      "DIR/V/run.json (metadata, noise, allowance, counts, KTAP summary\n"
	      "of --console, boot status) and V's lines in DIR/samples.jsonl\n"
	      "(replacing earlier ones of V). Files are written whole or not at\n"
	      "all. --boot-status is ok, failed, crashed, hung or error, or the\n"
	      "status.json of `hzrig boot`. The noise allowance is the guest's\n"
	      "overshoot_p99_ns + rtt_p99_ns, at least --noise-floor-ns.\n"
	      "Timings on the jiffies or refined-jiffies clocksource are refused.\n"
	      "Kernel reports on --console (KASAN, lockdep, ODEBUG, WARNING, ...)\n"
	      "become findings in run.json and are printed by title.\n"
	      "Exit: 0 recorded, 1 recorded with problems (refused, truncated,\n"
	      "capture errors, findings), 2 nothing recorded.\n", f);
}

/* --noise-floor-ns: a number of ns >= 0. */
static int floor_opt(const char *cmd, const char *arg, void *dst)
{
	long long ns;

	if (hzrig_parse_ll(arg, 0, INT64_MAX, &ns)) {
		fprintf(stderr, "hzrig %s: --noise-floor-ns: '%s' is not a number of ns >= 0\n",
			cmd, arg);
		return -1;
	}
	*(int64_t *)dst = ns;
	return 0;
}

int cmd_collect(int argc, char **argv)
{
	struct hzrig_collect_opts o = { .out = stdout };
	const struct hzrig_opt opts[] = {
		HZRIG_OPT_S("variant", &o.variant),
		HZRIG_OPT_S("serial", &o.serial),
		HZRIG_OPT_S("console", &o.console),
		HZRIG_OPT_S("accel", &o.accel),
		HZRIG_OPT_S("out", &o.out_dir),
		HZRIG_OPT_S("boot-status", &o.boot_status),
		HZRIG_OPT_F("noise-floor-ns", floor_opt, &o.noise_floor_ns),
		HZRIG_OPT_END
	};
	int first;

	first = hzrig_opts("collect", argc, argv, opts, collect_usage);
	if (first < 0)
		return first == HZRIG_OPTS_HELP ? 0 : HZRIG_COLLECT_FAILED;
	if (first != argc) {
		fprintf(stderr, "hzrig collect: unexpected argument '%s'\n",
			argv[first]);
		return HZRIG_COLLECT_FAILED;
	}
	return hzrig_collect(&o);
}

/* ---------------------------------------------------------------------- */
