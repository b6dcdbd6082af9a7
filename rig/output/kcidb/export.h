/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The KCIDB export's insides, shared by its files (the interface is
 * kcidb.h): kcidb.c builds the document (checkouts, builds, the document
 * itself) and runs the command; tests.c makes the test objects.
 */
#ifndef HZRIG_KCIDB_EXPORT_H
#define HZRIG_KCIDB_EXPORT_H

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "lib/json.h"
#include "output/kcidb/kcidb.h"
#include "runs/runs.h"

#define ID_MAX		512
#define PATH_LEN	4352	/* PATH_MAX and a file name */

/* Per variant: what the export needs beyond struct hzrig_variant. */
struct vextra {
	char run_path[PATH_LEN], build_path[PATH_LEN];
	struct json_object *run;	/* parsed run.json */
	struct json_object *build;	/* parsed build.json, or NULL */
	struct json_object *boot, *capture, *ktap;	/* or NULL */
	size_t checkout;		/* index into ctx.co */
};

struct ctx {
	const struct hzrig_kcidb_opts *o;
	FILE *err;
	const char *origin;
	struct hzrig_run run;
	struct vextra *x;
	struct checkout *co;
	size_t nco;
	bool have_run_time;
	int64_t run_time;
	unsigned int errors;
};

void kcidb_fmt_time(char *buf, size_t len, int64_t ms, bool frac);

void kcidb_build_id(char *buf, size_t len, struct ctx *c, size_t vi);

struct json_object *kcidb_boot_test(struct ctx *c, size_t vi);

struct json_object *kcidb_capture_test(struct ctx *c, size_t vi);

struct json_object *kcidb_clocksource_test(struct ctx *c, size_t vi);

struct json_object *kcidb_jiffy_test(struct ctx *c, size_t vi);

struct json_object *kcidb_noise_test(struct ctx *c, size_t vi);

/* The console scanned for kernel reports: FAIL with any (findings). */
struct json_object *kcidb_console_test(struct ctx *c, size_t vi);

struct json_object *kcidb_case_test(struct ctx *c, size_t vi,
				     const struct hzrig_case_stats *cs);

#endif /* HZRIG_KCIDB_EXPORT_H */
