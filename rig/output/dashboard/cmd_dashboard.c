// SPDX-License-Identifier: GPL-2.0
/*
 * hzrig dashboard: write the static HTML dashboard of the history database.
 * The page itself is rig/output/dashboard/page.c (and its neighbours); docs/dashboard.md describes it.
 */
#include <getopt.h>
#include <stdio.h>

#include "output/dashboard/dashboard.h"
#include "history/db.h"
#include "lib/opts.h"

#define DEFAULT_OUT	"results/dashboard"

static void dashboard_usage(FILE *f)
{
	fputs("usage: hzrig dashboard [--db FILE] [--out DIR] [--run ID]\n"
	      "Writes DIR/index.html (default " DEFAULT_OUT "): one static\n"
	      "page with inline SVG charts of a run from the history database\n"
	      "(--db, default " HZRIG_DB_DEFAULT ", opened read-only) - the\n"
	      "newest run, or --run ID: observed vs requested timeouts with the\n"
	      "model's window per HZ, the error per HZ, the legacy-jiffies\n"
	      "modes, every case across runs with baselines and regressions,\n"
	      "the runs' builds and noise, and the samples the model does not\n"
	      "explain. No script, no network resources. The page is written\n"
	      "to a temporary file and renamed: a failed run leaves the old one.\n"
	      "See docs/dashboard.md.\n"
	      "Exit: 0 written, 2 nothing written (unreadable database, unknown\n"
	      "run, unwritable directory, bad usage).\n", f);
}

int cmd_dashboard(int argc, char **argv)
{
	struct hzrig_dash_opts o = {
		.db_path = HZRIG_DB_DEFAULT,
		.out_dir = DEFAULT_OUT,
		.err = stderr,
		.out = stdout,
	};
	const struct hzrig_opt opts[] = {
		HZRIG_OPT_S("db", &o.db_path),
		HZRIG_OPT_S("out", &o.out_dir),
		HZRIG_OPT_S("run", &o.run_id),
		HZRIG_OPT_END
	};
	int first;

	first = hzrig_opts("dashboard", argc, argv, opts, dashboard_usage);
	if (first < 0)
		return HZRIG_OPTS_EXIT(first);
	if (first < argc) {
		fprintf(stderr, "hzrig dashboard: unexpected argument '%s'\n",
			argv[first]);
		dashboard_usage(stderr);
		return 2;
	}
	if (!*o.db_path || !*o.out_dir || (o.run_id && !*o.run_id)) {
		fprintf(stderr, "hzrig dashboard: --db, --out and --run need a"
			" value\n");
		return 2;
	}
	return hzrig_dashboard(&o) == HZRIG_DASH_OK ? 0 : 2;
}
