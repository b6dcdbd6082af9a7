// SPDX-License-Identifier: GPL-2.0
/*
 * hzrig sweep: the driver sweep's host commands (docs/sweep.md).
 */
#include <stdio.h>
#include <string.h>

#include "sweep/sweep.h"

int cmd_sweep_devices(int argc, char **argv);
int cmd_sweep_collect(int argc, char **argv);
int cmd_sweep_report(int argc, char **argv);

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *what;
} subs[] = {
	{ "devices", cmd_sweep_devices, "a device file per driver of modules.alias" },
	{ "collect", cmd_sweep_collect, "one variant's guest batches into its sweep.json" },
	{ "report", cmd_sweep_report, "drivers, sites and HZ-dependent sites across variants" },
};

static void usage(FILE *f)
{
	fputs("usage: hzrig sweep devices|collect|report [OPTIONS]\n", f);
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++)
		fprintf(f, "  %-8s %s\n", subs[i].name, subs[i].what);
	fputs("hzrig sweep SUBCOMMAND --help: its options (docs/sweep.md).\n", f);
}

int cmd_sweep(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++)
		if (!strcmp(argv[1], subs[i].name))
			return subs[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "hzrig sweep: no subcommand '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
