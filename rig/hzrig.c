// SPDX-License-Identifier: GPL-2.0
/*
 * hzrig: the host tool's dispatcher and its small subcommands.
 *
 *   hzrig <command> [options]      hzrig help <command>      hzrig --help
 *
 * A subcommand is one row of the table below: its name, the function that
 * runs it (declared in hzrig.h) and a one-line summary for `hzrig --help`.
 * Each command parses its own options and answers --help itself.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hzrig.h"
#include "model.h"
#include "report.h"
#include "results.h"

struct hzrig_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct hzrig_cmd commands[] = {
	{ "boot", cmd_boot, "boot one variant's guest under QEMU with a watchdog" },
	{ "accel", cmd_boot, "print kvm or tcg: whether a KVM smoke boot works" },
	{ "collect", cmd_collect, "validate a guest's capture, judge it against the model, record it" },
	{ "report", cmd_report, "print per-HZ tables of a results directory" },
	{ "model", cmd_model, "print the model's window for timeouts at one HZ" },
	{ "plan", cmd_plan, "check plans and print their cases, samples and waits" },
	{ "compare", cmd_compare, "one run's cases side by side across its variants" },
	{ "ingest", cmd_ingest, "record run directories in the history database" },
	{ "history", cmd_history, "list recorded runs, or one case across runs" },
	{ "baseline", cmd_baseline, "set, show or clear the baseline run of variants" },
	{ "check-regressions", cmd_check_regressions, "hold a run against its baselines; exit 1 on a regression" },
	{ "dashboard", cmd_dashboard, "write the static HTML dashboard of the history database" },
};

#define NCOMMANDS	(sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	int w = 0;
	size_t i;

	/* Names are of any length: align the summaries on the longest. */
	for (i = 0; i < NCOMMANDS; i++)
		if ((int)strlen(commands[i].name) > w)
			w = (int)strlen(commands[i].name);

	fputs("usage: hzrig <command> [options]\n"
	      "       hzrig help <command>   (or: hzrig <command> --help)\n\n"
	      "How long USB timeouts really take, per HZ. Commands:\n", f);
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-*s  %s\n", w, commands[i].name,
			commands[i].summary);
}

static const struct hzrig_cmd *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* strtoll with the whole string, range-checked. */
static int parse_ll(const char *s, long long min, long long max,
		    long long *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* ---------------------------------------------------------------------- */

static void model_usage(FILE *f)
{
	fputs("usage: hzrig model --hz N [--killable] [--] T...\n"
	      "Prints, for each timeout argument T (the int passed to\n"
	      "usb_bulk_msg()/usb_control_msg(), in ms), what a 6.1 kernel with\n"
	      "HZ=N makes of it: the clamped timeout, n = msecs_to_jiffies(),\n"
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
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	bool killable = false;
	long long hz = 0, t;
	int opt, i;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'z':
			if (parse_ll(optarg, HZRIG_MODEL_HZ_MIN,
				     HZRIG_MODEL_HZ_MAX, &hz)) {
				fprintf(stderr, "hzrig model: --hz: '%s' is not %d..%d\n",
					optarg, HZRIG_MODEL_HZ_MIN,
					HZRIG_MODEL_HZ_MAX);
				return 2;
			}
			break;
		case 'k': killable = true; break;
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
		if (parse_ll(argv[i], INT_MIN, INT_MAX, &t)) {
			fprintf(stderr, "hzrig model: T '%s' is not an int\n",
				argv[i]);
			return 2;
		}
	}
	printf("HZ=%lld: jiffy %.6f ms, %u wheel levels%s\n", hz,
	       hzrig_tick_ns((int)hz) / 1e6, hzrig_wheel_depth((int)hz),
	       killable ? ", killable (no clamp)" : "");
	printf("%11s %11s %10s %5s %8s  %-34s %s\n", "T", "effective", "jiffies",
	       "level", "granule", "window ms", "late by up to ms");
	for (i = optind; i < argc; i++) {
		struct hzrig_window w;
		char win[64];

		parse_ll(argv[i], INT_MIN, INT_MAX, &t);
		hzrig_model_window((int)hz, (int)t, killable, &w);
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

/* ---------------------------------------------------------------------- */

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
	      "Exit: 0 recorded, 1 recorded with problems (refused, truncated,\n"
	      "capture errors), 2 nothing recorded.\n", f);
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
			if (parse_ll(optarg, 0, INT64_MAX, &floor_ns)) {
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

/* ---------------------------------------------------------------------- */

int main(int argc, char **argv)
{
	const struct hzrig_cmd *cmd;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "help")) {
		char help[] = "--help";
		char *hargv[] = { argv[2], help, NULL };

		if (argc < 3) {
			usage(stdout);
			return 0;
		}
		cmd = find_command(argv[2]);
		if (!cmd) {
			fprintf(stderr, "hzrig: no command '%s'\n", argv[2]);
			usage(stderr);
			return 2;
		}
		return cmd->fn(2, hargv);
	}
	cmd = find_command(argv[1]);
	if (!cmd) {
		fprintf(stderr, "hzrig: '%s' is not a command\n", argv[1]);
		usage(stderr);
		return 2;
	}
	return cmd->fn(argc - 1, argv + 1);
}
