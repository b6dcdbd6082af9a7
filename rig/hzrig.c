// SPDX-License-Identifier: GPL-2.0
/*
 * hzrig: the host tool's dispatcher and its small subcommands.
 *
 *   hzrig <command> [options]      hzrig help <command>      hzrig --help
 *
 * A subcommand is one row of the table below: its name, the function that
 * runs it (declared in its stage's header) and a one-line summary for `hzrig --help`.
 * Each command parses its own options and answers --help itself.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/boot.h"
#include "checker/checker.h"
#include "collect/collect.h"
#include "collect/scan.h"
#include "history/history.h"
#include "lava/lava.h"
#include "model/model.h"
#include "output/compare.h"
#include "output/dashboard/dashboard.h"
#include "output/report.h"
#include "plan/plan.h"
#include "sweep/sweep.h"

struct hzrig_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct hzrig_cmd commands[] = {
	{ "boot", cmd_boot, "boot one variant's guest under QEMU with a watchdog" },
	{ "accel", cmd_boot, "print kvm or tcg: whether a KVM smoke boot works" },
	{ "collect", cmd_collect, "validate a guest's capture, judge it against the model, record it" },
	{ "findings", cmd_findings, "list the kernel reports on a guest's console by title" },
	{ "report", cmd_report, "print per-HZ tables of a results directory" },
	{ "model", cmd_model, "print the model's window for timeouts at one HZ" },
	{ "plan", cmd_plan, "check plans and print their cases, samples and waits" },
	{ "compare", cmd_compare, "one run's cases side by side across its variants" },
	{ "lava", cmd_lava, "write LAVA jobs for variants, or the device dictionary of this QEMU" },
	{ "ingest", cmd_ingest, "record run directories (or LAVA jobs' logs) in the history database" },
	{ "history", cmd_history, "list recorded runs, or one case across runs" },
	{ "baseline", cmd_baseline, "set, show or clear the baseline run of variants" },
	{ "check-regressions", cmd_check_regressions, "hold a run against its baselines; exit 1 on a regression" },
	{ "dashboard", cmd_dashboard, "write the static HTML dashboard of the history database" },
	{ "sweep", cmd_sweep, "the driver sweep: devices from id tables, guest batches, HZ-dependent sites" },
	{ "check-tree", cmd_check_tree, "find HZ-based timeouts of the USB calls in a kernel tree (spatch)" },
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
