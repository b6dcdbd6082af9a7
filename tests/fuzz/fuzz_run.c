// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: a run directory as every reader sees it
 * (hzrig_run_load()), then the report and the KCIDB writer on what it
 * accepted. The first byte picks the file the rest of the input replaces
 * in a copy of tests/data/kcidb's run: samples.jsonl (the JSON-lines
 * reader), hz-1000/run.json or hz-1000/build.json (patch names and all).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "output/kcidb/kcidb.h"
#include "output/report.h"
#include "runs/runs.h"

#ifndef FIXTURE
#error "FIXTURE: the run directory to start from"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const targets[] = {
	"samples.jsonl", "hz-1000/run.json", "hz-1000/build.json",
};

static char dir[64];

/* A scratch copy of the fixture run, made once per process. */
static void setup(void)
{
	char cmd[512];

	snprintf(dir, sizeof(dir), "/tmp/hzrig-fuzz-run-%d", (int)getpid());
	snprintf(cmd, sizeof(cmd), "rm -rf %s && mkdir -p %s && cp -r %s/. %s",
		 dir, dir, FIXTURE, dir);
	if (system(cmd))
		abort();
}

static void put_file(const char *name, const uint8_t *data, size_t size)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
}

/* Back to the fixture's own file. */
static void restore(const char *name)
{
	char src[512], *text;
	size_t len;
	FILE *f;

	snprintf(src, sizeof(src), "%s/%s", FIXTURE, name);
	f = fopen(src, "r");
	if (!f)
		abort();
	text = malloc(1 << 20);
	if (!text)
		abort();
	len = fread(text, 1, 1 << 20, f);
	fclose(f);
	put_file(name, (const uint8_t *)text, len);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hzrig_kcidb_opts o = { 0 };
	struct json_object *doc;
	struct hzrig_run run;
	const char *target;
	FILE *null;
	int errs;

	if (!dir[0])
		setup();
	if (!size)
		return 0;
	target = targets[data[0] % 3];
	put_file(target, data + 1, size - 1);
	null = fopen("/dev/null", "w");
	if (!null)
		abort();

	errs = hzrig_run_load(dir, &run, null);
	if (!errs && hzrig_run_stats(&run))
		abort();
	hzrig_run_free(&run);
	if (!errs) {
		/* Accepted by the loader: the report and the export must cope. */
		if (hzrig_report(dir, null, null) == 2)
			abort();
		o.run_dir = dir;
		o.patch_dir = "/nonexistent";
		o.err = null;
		doc = hzrig_kcidb_document(&o);
		if (doc) {
			const char *s = json_object_to_json_string(doc);

			if (!s || !*s)
				abort();
			json_object_put(doc);
		}
	} else if (hzrig_report(dir, null, null) != 2) {
		abort();	/* one validation: the report refuses it too */
	}
	fclose(null);
	restore(target);
	return 0;
}
