// SPDX-License-Identifier: GPL-2.0
/*
 * `hzrig model --hz N T...`: the model's window for timeouts at one HZ,
 * from the command line (docs/model.md).
 */
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>

#include "lib/util.h"
#include "model/model.h"
#include "lib/opts.h"

static void model_usage(FILE *f)
{
	fputs("usage: hzrig model --hz N [--tree LINE] [--killable] [--] T...\n"
	      "Prints, for each timeout argument T (the int passed to\n"
	      "usb_bulk_msg()/usb_control_msg(), in ms), what a kernel of tree\n"
	      "LINE (6.1, the default, or 6.12; a release such as 6.6.63 takes\n"
	      "the newest older tree's model) with HZ=N makes of it: the clamped timeout, n = msecs_to_jiffies(),\n"
	      "the timer-wheel level and granule g, and the window (n, n+g]\n"
	      "jiffies in ms that the wait falls in. --killable models\n"
	      "usb_bulk_msg_killable() (no 60 s clamp; T <= 0 waits forever).\n"
	      "Put -- before negative T. A '*' marks T one jiffy below the next\n"
	      "level: a lagging timer base clock can push it a level up.\n"
	      "See docs/model.md.\n", f);
}

/* --tree: a kernel line the model covers. */
struct tree_arg {
	const struct hzrig_tree_model *model;
	bool exact;
};

static int tree_opt(const char *cmd, const char *arg, void *dst)
{
	struct tree_arg *t = dst;

	t->model = hzrig_tree_model_for(arg, &t->exact);
	if (t->model)
		return 0;
	fprintf(stderr, "hzrig %s: --tree: '%s' is no kernel line the model covers (%s or later)\n",
		cmd, arg, hzrig_tree_default()->name);
	return -1;
}

int cmd_model(int argc, char **argv)
{
	struct tree_arg tree = { hzrig_tree_default(), true };
	bool killable = false;
	long long hz = 0, t = 0;
	const struct hzrig_opt opts[] = {
		HZRIG_OPT_N("hz", &hz, HZRIG_MODEL_HZ_MIN, HZRIG_MODEL_HZ_MAX),
		HZRIG_OPT_B("killable", &killable),
		HZRIG_OPT_F("tree", tree_opt, &tree),
		HZRIG_OPT_END
	};
	int first, i;

	first = hzrig_opts("model", argc, argv, opts, model_usage);
	if (first < 0)
		return HZRIG_OPTS_EXIT(first);
	if (!hz || first == argc) {
		fprintf(stderr, "hzrig model: --hz and at least one T are required\n");
		model_usage(stderr);
		return 2;
	}
	for (i = first; i < argc; i++) {
		if (hzrig_parse_ll(argv[i], INT_MIN, INT_MAX, &t)) {
			fprintf(stderr, "hzrig model: T '%s' is not an int\n",
				argv[i]);
			return 2;
		}
	}
	printf("HZ=%lld on %s (model read from %s%s): jiffy %.6f ms%s\n", hz,
	       tree.model->name, tree.model->source,
	       tree.exact ? "" : ", the newest older tree",
	       hzrig_tick_ns((int)hz) / 1e6,
	       killable ? ", killable (no clamp)" : "");
	printf("%11s %11s %10s %5s %8s  %-34s %s\n", "T", "effective", "jiffies",
	       "level", "granule", "window ms", "late by up to ms");
	for (i = first; i < argc; i++) {
		struct hzrig_window w;
		char win[64];

		hzrig_parse_ll(argv[i], INT_MIN, INT_MAX, &t);
		hzrig_tree_window(tree.model, (int)hz, (int)t, killable, &w);
		if (w.forever) {
			printf("%11lld %11s %10s %5s %8s  %-34s %s\n", t, "forever",
			       "-", "-", "-", "none: no timer", "-");
			continue;
		}
		snprintf(win, sizeof(win), "(%.3f, %.3f]", w.lo_ns / 1e6,
			 w.hi_ns / 1e6);
		printf("%11lld %11d %10llu %5u %8llu  %-34s %.3f%s%s\n", t,
		       w.effective_ms, (unsigned long long)w.jiffies, w.level,
		       (unsigned long long)w.granule, win,
		       (w.hi_ns - (uint64_t)w.effective_ms * 1000000) / 1e6,
		       w.lag_edge ? " *" : "",
		       w.rearms ? " (capped at the wheel's end, re-armed)" : "");
	}
	return 0;
}
