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
#include "lib/opts.h"

static void plan_usage(FILE *f)
{
	fputs("usage: hzrig plan FILE...\n"
	      "Parses each plan (docs/plans.md) as the guest runner would and\n"
	      "prints its cases, samples and summed requested waits. Exit 1 if\n"
	      "any plan is bad; the error names file:line.\n", f);
}

int cmd_plan(int argc, char **argv)
{
	static const struct hzrig_opt opts[] = { HZRIG_OPT_END };
	int first, i, bad = 0;

	first = hzrig_opts("plan", argc, argv, opts, plan_usage);
	if (first < 0)
		return HZRIG_OPTS_EXIT(first);
	if (first == argc) {
		plan_usage(stderr);
		return 2;
	}
	for (i = first; i < argc; i++) {
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
