/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every command's options as data: a table of long options, each with where
 * its value goes, parsed by one function (getopt_long underneath, so the
 * messages for an unknown option or a missing argument are getopt's).
 * --help is every command's and prints its usage on stdout.
 */
#ifndef HZRIG_OPTS_H
#define HZRIG_OPTS_H

#include <stdbool.h>
#include <stdio.h>

enum hzrig_opt_kind {
	HZRIG_OPT_STR,		/* const char **dst: the argument */
	HZRIG_OPT_FLAG,		/* bool *dst: set */
	HZRIG_OPT_LL,		/* long long *dst: an integer lo..hi */
	HZRIG_OPT_FN,		/* fn(cmd, arg, dst): 0, or -1 after saying why */
};

struct hzrig_opt {
	const char *name;	/* without "--"; NULL ends the table */
	enum hzrig_opt_kind kind;
	void *dst;
	long long lo, hi;	/* HZRIG_OPT_LL */
	int (*fn)(const char *cmd, const char *arg, void *dst);
	char short_name;	/* also -X ARG, or 0 */
	bool optional_arg;	/* HZRIG_OPT_STR: --name or --name=ARG */
};

/* Table entries: a string, a flag, an integer lo..hi, a function; the end. */
#define HZRIG_OPT_S(n, d)	{ .name = (n), .kind = HZRIG_OPT_STR, .dst = (d) }
#define HZRIG_OPT_B(n, d)	{ .name = (n), .kind = HZRIG_OPT_FLAG, .dst = (d) }
#define HZRIG_OPT_N(n, d, l, h)	{ .name = (n), .kind = HZRIG_OPT_LL, .dst = (d), \
				  .lo = (l), .hi = (h) }
#define HZRIG_OPT_F(n, f, d)	{ .name = (n), .kind = HZRIG_OPT_FN, .fn = (f), \
				  .dst = (d) }
#define HZRIG_OPT_END		{ .name = NULL }

#define HZRIG_OPTS_HELP	(-1)	/* --help was given: exit 0 */
/* bad usage, said (for an unknown option, with the usage): exit 2 */
#define HZRIG_OPTS_BAD	(-2)

/* The exit status after hzrig_opts() returned @r < 0. */
#define HZRIG_OPTS_EXIT(r)	((r) == HZRIG_OPTS_HELP ? 0 : 2)

/*
 * Parse the options of `hzrig @cmd` in @argv (argv[0] is the command) by
 * @opts. Returns the index of the first operand, or HZRIG_OPTS_HELP or
 * HZRIG_OPTS_BAD.
 */
int hzrig_opts(const char *cmd, int argc, char **argv,
	       const struct hzrig_opt *opts, void (*usage)(FILE *));

#endif /* HZRIG_OPTS_H */
