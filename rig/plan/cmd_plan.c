// SPDX-License-Identifier: GPL-2.0
/*
 * hzrig plan FILE...: check plans with the parser the guest uses and say
 * what each costs: cases, samples, and the summed waits that bound its
 * guest time from below.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>

#include "plan/plan.h"

static void plan_usage(FILE *f)
{
	fputs("usage: hzrig plan FILE...\n"
	      "Parses each plan (docs/plans.md) as the guest runner would and\n"
	      "prints its cases, samples and summed requested waits. Exit 1 if\n"
	      "any plan is bad; the error names file:line.\n", f);
}

int cmd_plan(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int opt, i, bad = 0;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'h': plan_usage(stdout); return 0;
		default: plan_usage(stderr); return 2;
		}
	}
	if (optind == argc) {
		plan_usage(stderr);
		return 2;
	}
	for (i = optind; i < argc; i++) {
		struct hzrig_plan p;
		uint64_t samples = 0;
		char err[256];
		size_t k;

		if (hzrig_plan_load(argv[i], &p, err, sizeof(err))) {
			fprintf(stderr, "%s\n", err);
			bad = 1;
			continue;
		}
		for (k = 0; k < p.ncases; k++)
			samples += p.cases[k].reps;
		printf("%s: %zu cases, %" PRIu64 " samples, %.1f s of requested waits, parallel = %s\n",
		       argv[i], p.ncases, samples, hzrig_plan_wait_ms(&p, 0) / 1000.0,
		       hzrig_parallel_name(p.parallel));
		hzrig_plan_free(&p);
	}
	return bad;
}
