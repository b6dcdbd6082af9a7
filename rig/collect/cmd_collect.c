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

int cmd_collect(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "variant", required_argument, NULL, 'v' },
		{ "serial", required_argument, NULL, 's' },
		{ "console", required_argument, NULL, 'c' },
		{ "accel", required_argument, NULL, 'a' },
		{ "out", required_argument, NULL, 'o' },
		{ "boot-status", required_argument, NULL, 'b' },
		{ "noise-floor-ns", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct hzrig_collect_opts o = { .out = stdout };
	long long floor_ns;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'v': o.variant = optarg; break;
		case 's': o.serial = optarg; break;
		case 'c': o.console = optarg; break;
		case 'a': o.accel = optarg; break;
		case 'o': o.out_dir = optarg; break;
		case 'b': o.boot_status = optarg; break;
		case 'n':
			if (hzrig_parse_ll(optarg, 0, INT64_MAX, &floor_ns)) {
				fprintf(stderr, "hzrig collect: --noise-floor-ns: '%s' is not a number of ns >= 0\n",
					optarg);
				return HZRIG_COLLECT_FAILED;
			}
			o.noise_floor_ns = floor_ns;
			break;
		case 'h': collect_usage(stdout); return 0;
		default: collect_usage(stderr); return HZRIG_COLLECT_FAILED;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "hzrig collect: unexpected argument '%s'\n",
			argv[optind]);
		return HZRIG_COLLECT_FAILED;
	}
	return hzrig_collect(&o);
}

/* ---------------------------------------------------------------------- */
