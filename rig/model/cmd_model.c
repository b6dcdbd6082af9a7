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

int cmd_model(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "hz", required_argument, NULL, 'z' },
		{ "killable", no_argument, NULL, 'k' },
		{ "tree", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const struct hzrig_tree_model *tree = hzrig_tree_default();
	bool killable = false, exact = true;
	long long hz = 0, t = 0;
	int opt, i;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'z':
			if (hzrig_parse_ll(optarg, HZRIG_MODEL_HZ_MIN,
				     HZRIG_MODEL_HZ_MAX, &hz)) {
				fprintf(stderr, "hzrig model: --hz: '%s' is not %d..%d\n",
					optarg, HZRIG_MODEL_HZ_MIN,
					HZRIG_MODEL_HZ_MAX);
				return 2;
			}
			break;
		case 'k': killable = true; break;
		case 't':
			tree = hzrig_tree_model_for(optarg, &exact);
			if (!tree) {
				fprintf(stderr, "hzrig model: --tree: '%s' is no kernel line the model covers (%s or later)\n",
					optarg, hzrig_tree_default()->name);
				return 2;
			}
			break;
		case 'h': model_usage(stdout); return 0;
		default: model_usage(stderr); return 2;
		}
	}
	if (!hz || optind == argc) {
		fprintf(stderr, "hzrig model: --hz and at least one T are required\n");
		model_usage(stderr);
		return 2;
	}
	for (i = optind; i < argc; i++) {
		if (hzrig_parse_ll(argv[i], INT_MIN, INT_MAX, &t)) {
			fprintf(stderr, "hzrig model: T '%s' is not an int\n",
				argv[i]);
			return 2;
		}
	}
	printf("HZ=%lld on %s (model read from %s%s): jiffy %.6f ms%s\n", hz,
	       tree->name, tree->source, exact ? "" : ", the newest older tree",
	       hzrig_tick_ns((int)hz) / 1e6,
	       killable ? ", killable (no clamp)" : "");
	printf("%11s %11s %10s %5s %8s  %-34s %s\n", "T", "effective", "jiffies",
	       "level", "granule", "window ms", "late by up to ms");
	for (i = optind; i < argc; i++) {
		struct hzrig_window w;
		char win[64];

		hzrig_parse_ll(argv[i], INT_MIN, INT_MAX, &t);
		hzrig_tree_window(tree, (int)hz, (int)t, killable, &w);
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
