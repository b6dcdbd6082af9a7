// SPDX-License-Identifier: GPL-2.0
/*
 * The commands' option parser (opts.h).
 */
#include <getopt.h>
#include <stdlib.h>

#include "lib/opts.h"
#include "lib/util.h"

#define KEY_BASE	256	/* getopt values of the table's entries */

/* One option's argument into its destination; -1 after a message. */
static int take(const char *cmd, const struct hzrig_opt *o, const char *arg)
{
	switch (o->kind) {
	case HZRIG_OPT_STR:
		/* an optional argument left out stays NULL: "given, no value" */
		if (arg || !o->optional_arg)
			*(const char **)o->dst = arg;
		return 0;
	case HZRIG_OPT_FLAG:
		*(bool *)o->dst = true;
		return 0;
	case HZRIG_OPT_LL:
		if (hzrig_parse_ll(arg, o->lo, o->hi, o->dst)) {
			fprintf(stderr, "hzrig %s: --%s: '%s' is not %lld..%lld\n",
				cmd, o->name, arg, o->lo, o->hi);
			return -1;
		}
		return 0;
	case HZRIG_OPT_FN:
		return o->fn(cmd, arg, o->dst);
	}
	return -1;
}

int hzrig_opts(const char *cmd, int argc, char **argv,
	       const struct hzrig_opt *opts, void (*usage)(FILE *))
{
	char shorts[64] = "h";
	struct option *lo;
	size_t n, i, ns = 1;
	bool said = false;
	int opt, ret = 0;

	for (n = 0; opts[n].name; n++)
		;
	lo = calloc(n + 2, sizeof(*lo));
	if (!lo) {
		fprintf(stderr, "hzrig %s: out of memory\n", cmd);
		return HZRIG_OPTS_BAD;
	}
	for (i = 0; i < n; i++) {
		lo[i].name = opts[i].name;
		lo[i].has_arg = opts[i].kind == HZRIG_OPT_FLAG ? no_argument :
				opts[i].optional_arg ? optional_argument :
				required_argument;
		lo[i].val = KEY_BASE + (int)i;
		if (opts[i].short_name && ns + 2 < sizeof(shorts)) {
			shorts[ns++] = opts[i].short_name;
			if (lo[i].has_arg == required_argument)
				shorts[ns++] = ':';
		}
	}
	lo[n] = (struct option){ "help", no_argument, NULL, 'h' };
	optind = 1;
	while (!ret && (opt = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		for (i = 0; i < n && opt != opts[i].short_name; i++)
			;
		if (i == n && opt >= KEY_BASE && opt < KEY_BASE + (int)n)
			i = (size_t)(opt - KEY_BASE);
		if (i < n)
			ret = (said = take(cmd, &opts[i], optarg)) ?
			      HZRIG_OPTS_BAD : 0;
		else if (opt == 'h')
			ret = HZRIG_OPTS_HELP;
		else
			ret = HZRIG_OPTS_BAD;
	}
	free(lo);
	if (ret == HZRIG_OPTS_HELP)
		usage(stdout);
	else if (ret == HZRIG_OPTS_BAD && !said)
		usage(stderr);	/* getopt said what; the usage says the rest */
	return ret ? ret : optind;
}
