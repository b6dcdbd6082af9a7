// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of rig/runs/load.c: case keys, nearest-rank percentiles, loading
 * and validating run directories, per-case figures and the regression rules.
 *
 * Fixtures (tests/data/history/, see its README.md) are real runs trimmed to
 * some variants. Figures expected of them were read off the files by hand:
 *   20261203T102031Z (quick plan: 66 cases, 148 samples per variant)
 *     hz-250 case 30 "bulk-in answer ms T=100": elapsed 746272, 328698,
 *       320642 ns; sorted 320642 328698 746272: median (rank 2) 328698,
 *       p5 (rank 1) 320642, p95 (rank 3) 746272; status 0; window
 *       (100, 104] ms; allowance 6674332; 3/3 inside
 *     hz-1000 case 6 "ctrl-in nak ms T=1": 10333768 (late), 1896656:
 *       median (rank 1) 1896656, p95 (rank 2) 10333768, 1/2 inside
 *   20261203T094306Z (default plan, older format without "length" and
 *   "schema"; 4 transfers x 7 timeouts = 28 cases, 140 samples)
 *     hz-100 case 20 "ctrl-in nak ms T=1000": 1024113729 1026305886
 *       1026970367 1028332956 1031478307: p5 rank 1, median rank 3,
 *       p95 rank 5; window (1000, 1080] ms
 *     hz-100 case 18 rep 4 (ctrl-in T=100) is late: 4/5 inside
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <ftw.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "runs/runs.h"
#include "testutil.h"

#define QUICK	DATA_DIR "/history/20261203T102031Z"
#define DEFLT	DATA_DIR "/history/20261203T094306Z"

/* ---------------------------------------------------------------------- */
/* Helpers */

/* A scratch copy of fixture run @src named @id; returns its path. */
static char *copy_run(const char *src, const char *id)
{
	char root[64], *dst;

	make_tmpdir(root, sizeof(root), "stats");
	assert_true(asprintf(&dst, "%s/%s", root, id) > 0);
	copy_tree(src, dst);
	return dst;
}

static void drop_copy(char *dir)
{
	char *slash = strrchr(dir, '/');

	*slash = '\0';
	rm_rf(dir);
	free(dir);
}

/* Rewrite @dir/samples.jsonl with @fn (rewrite_lines(), newlines aside). */
static void rewrite_samples(const char *dir, line_fn fn, void *arg)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/samples.jsonl", dir);
	rewrite_lines(path, true, fn, arg);
}

/* The line to write for sample @o, which it puts; good until the next call. */
static const char *new_line(struct json_object *o)
{
	static char *out;

	free(out);
	out = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return out;
}

/* Member @key of sample @o, an integer or a string. */
static int64_t int_of(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	json_object_object_get_ex(o, key, &v);
	return json_object_get_int64(v);
}

static const char *str_of(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	json_object_object_get_ex(o, key, &v);
	return json_object_get_string(v);
}

struct line_edit {
	unsigned int line;
	const char *text;	/* NULL: drop */
};

static const char *edit_line(unsigned int n, char *line, void *arg)
{
	struct line_edit *e = arg;

	return n == e->line ? e->text : line;
}

/* Replace "key":value on line @line with "key":@value. */
static const char *set_field(unsigned int n, char *line, void *arg)
{
	struct line_edit *e = arg;
	struct json_object *o;
	char key[64];
	const char *colon;

	if (n != e->line)
		return line;
	colon = strchr(e->text, '=');
	snprintf(key, sizeof(key), "%.*s", (int)(colon - e->text), e->text);
	o = json_tokener_parse(line);
	assert_non_null(o);
	if (!strcmp(colon + 1, "-"))
		json_object_object_del(o, key);
	else
		json_object_object_add(o, key, json_tokener_parse(colon + 1));
	return new_line(o);
}

/* Run @dir must load without errors. */
static void load_run(const char *dir, struct hzrig_run *run)
{
	assert_int_equal(hzrig_run_load(dir, run, err_open()), 0);
	err_free();
}

static const struct hzrig_case_stats *find_case(const struct hzrig_run *run,
						const char *variant,
						const char *key)
{
	size_t vi = hzrig_run_find_variant(run, variant);

	assert_true(vi != HZRIG_NO_VARIANT);
	return hzrig_variant_case(&run->v[vi], key);
}

/* ---------------------------------------------------------------------- */

static void test_case_key(void **state)
{
	char b[HZRIG_CASE_KEY_MAX];

	(void)state;
	assert_int_equal(hzrig_case_key(b, sizeof(b), NULL, "bulk-in", "nak", "ms",
					100, 0, 64), 20);
	assert_string_equal(b, "bulk-in nak ms T=100");
	/* The delay only for behaviour delay; the length only when not 64. */
	hzrig_case_key(b, sizeof(b), NULL, "bulk-in", "delay", "ms", 100, 50000, 64);
	assert_string_equal(b, "bulk-in delay ms T=100 D=50000us");
	/* The path leads unless it is the kernel's: old keys stay valid. */
	hzrig_case_key(b, sizeof(b), "kernel", "bulk-in", "nak", "ms", 1, 0, 64);
	assert_string_equal(b, "bulk-in nak ms T=1");
	hzrig_case_key(b, sizeof(b), "", "bulk-in", "nak", "ms", 1, 0, 64);
	assert_string_equal(b, "bulk-in nak ms T=1");
	hzrig_case_key(b, sizeof(b), "libusb-async", "bulk-in", "nak", "ms", 1,
		       0, 64);
	assert_string_equal(b, "libusb-async bulk-in nak ms T=1");
	hzrig_case_key(b, sizeof(b), NULL, "ctrl-in", "nak", "legacy-jiffies", 1000,
		       0, 512);
	assert_string_equal(b, "ctrl-in nak legacy-jiffies T=1000 len=512");
	hzrig_case_key(b, sizeof(b), NULL, "bulk-out", "delay", "ms", 10, 30000, 0);
	assert_string_equal(b, "bulk-out delay ms T=10 D=30000us len=0");
	/* Absent fields, as in runs older than "length". */
	hzrig_case_key(b, sizeof(b), NULL, "bulk-in", "delay", "ms", 5, HZRIG_ABSENT,
		       HZRIG_ABSENT);
	assert_string_equal(b, "bulk-in delay ms T=5");
	hzrig_case_key(b, sizeof(b), NULL, "bulk-in", "nak", "zero", -5, 0,
		       HZRIG_ABSENT);
	assert_string_equal(b, "bulk-in nak zero T=-5");
	/* Too small a buffer: -1 and an empty string, never a cut key. */
	assert_int_equal(hzrig_case_key(b, 20, NULL, "bulk-in", "nak", "ms", 100, 0,
					64), -1);
	assert_string_equal(b, "");
	assert_int_equal(hzrig_case_key(b, 25, NULL, "bulk-in", "delay", "ms", 100,
					50000, 64), -1);
	assert_int_equal(hzrig_case_key(b, 21, NULL, "bulk-in", "nak", "ms", 100, 0,
					64), 20);
}

static void test_percentile(void **state)
{
	int64_t v[100];
	size_t i;

	(void)state;
	for (i = 0; i < 100; i++)
		v[i] = (int64_t)(i + 1) * 10;
	/* One value: every percentile is it. */
	assert_int_equal(hzrig_percentile(v, 1, 5), 10);
	assert_int_equal(hzrig_percentile(v, 1, 95), 10);
	/* Two: the median is the lower one, p95 the upper. */
	assert_int_equal(hzrig_percentile(v, 2, 50), 10);
	assert_int_equal(hzrig_percentile(v, 2, 95), 20);
	assert_int_equal(hzrig_percentile(v, 2, 5), 10);
	/* Five: ranks ceil(0.25)=1, ceil(2.5)=3, ceil(4.75)=5. */
	assert_int_equal(hzrig_percentile(v, 5, 5), 10);
	assert_int_equal(hzrig_percentile(v, 5, 50), 30);
	assert_int_equal(hzrig_percentile(v, 5, 95), 50);
	/* Twenty: p95 is rank 19, not the maximum; p5 rank 1. */
	assert_int_equal(hzrig_percentile(v, 20, 95), 190);
	assert_int_equal(hzrig_percentile(v, 20, 5), 10);
	assert_int_equal(hzrig_percentile(v, 20, 50), 100);
	/* Twenty-one: p95 rank ceil(19.95) = 20, p5 ceil(1.05) = 2. */
	assert_int_equal(hzrig_percentile(v, 21, 95), 200);
	assert_int_equal(hzrig_percentile(v, 21, 5), 20);
	/* A hundred: rank p exactly. */
	assert_int_equal(hzrig_percentile(v, 100, 95), 950);
	assert_int_equal(hzrig_percentile(v, 100, 100), 1000);
	assert_int_equal(hzrig_percentile(v, 100, 0), 10);
	assert_true(hzrig_percentile(v, 0, 50) == HZRIG_ABSENT);
}

static void test_run_id_time(void **state)
{
	char b[32];

	(void)state;
	assert_int_equal(hzrig_run_id_time("20261203T102031Z", b, sizeof(b)), 0);
	assert_string_equal(b, "2026-12-03T10:20:31Z");
	assert_int_equal(hzrig_run_id_time("20240229T235959Z", b, sizeof(b)), 0);
	assert_string_equal(b, "2024-02-29T23:59:59Z");
	assert_int_equal(hzrig_run_id_time("20230229T000000Z", b, sizeof(b)), -1);
	assert_int_equal(hzrig_run_id_time("20261303T102031Z", b, sizeof(b)), -1);
	assert_int_equal(hzrig_run_id_time("20261203T252031Z", b, sizeof(b)), -1);
	assert_int_equal(hzrig_run_id_time("20261203T102031", b, sizeof(b)), -1);
	assert_int_equal(hzrig_run_id_time("20261203T102031Zx", b, sizeof(b)), -1);
	assert_int_equal(hzrig_run_id_time("latest", b, sizeof(b)), -1);
	assert_int_equal(hzrig_run_id_time("2026-12-03T10:20", b, sizeof(b)), -1);
}

/* ---------------------------------------------------------------------- */

static void test_load_quick(void **state)
{
	const struct hzrig_case_stats *c;
	struct hzrig_run run;
	size_t i;

	(void)state;
	assert_int_equal(hzrig_run_load(QUICK, &run, err_open()), 0);
	assert_string_equal(err_text(), "");
	err_free();
	assert_string_equal(run.id, "20261203T102031Z");
	assert_non_null(run.source);
	/* By HZ, not by name: "hz-1000" sorts before "hz-250" as a string. */
	assert_int_equal(run.nv, 2);
	assert_string_equal(run.v[0].name, "hz-250");
	assert_int_equal(run.v[0].hz, 250);
	assert_string_equal(run.v[1].name, "hz-1000");
	for (i = 0; i < run.nv; i++) {
		assert_int_equal(run.v[i].nsamples, 148);
		assert_int_equal(run.v[i].ncases, 66);
		assert_string_equal(run.v[i].release, "6.1.192");
		assert_string_equal(run.v[i].clocksource, "tsc");
		assert_string_equal(run.v[i].plan, "quick.plan");
	}
	assert_int_equal(run.v[0].ninside, 148);
	assert_int_equal(run.v[1].ninside, 147);
	assert_true(run.v[0].allowance_ns == 6674332);
	assert_true(run.v[0].rtt_p99_ns == 2828015);
	assert_true(run.v[0].waits_ms == 19020);
	assert_non_null(run.v[0].run_json);
	assert_non_null(strstr(run.v[0].run_json, "\"collected_at\""));

	/* Only hz-250 has a build.json. */
	assert_non_null(run.v[0].build_json);
	assert_string_equal(run.v[0].fragments, "base usb clock hz-250");
	assert_string_equal(run.v[0].patches,
			    "0001-example-one.patch 0002-example-two.patch");
	assert_string_equal(run.v[0].tree_describe, "6.1.192-1");
	assert_string_equal(run.v[0].hzrig_version, "97f5d3a-dirty");
	assert_true(run.v[0].kernel_build_s == 291);
	assert_true(run.v[0].module_build_s == 7.5);
	assert_null(run.v[1].build_json);
	assert_null(run.v[1].patches);
	assert_true(run.v[1].kernel_build_s < 0);

	/* Plan order: case indices ascending. */
	for (i = 1; i < run.v[0].ncases; i++)
		assert_true(run.v[0].cases[i - 1].case_idx <
			    run.v[0].cases[i].case_idx);

	c = find_case(&run, "hz-250", "bulk-in answer ms T=100");
	assert_non_null(c);
	assert_int_equal(c->case_idx, 30);
	assert_int_equal(c->n, 3);
	assert_true(c->min_ns == 320642);
	assert_true(c->p5_ns == 320642);
	assert_true(c->median_ns == 328698);
	assert_true(c->p95_ns == 746272);
	assert_true(c->max_ns == 746272);
	assert_true(c->window_lo_ns == 100000000);
	assert_true(c->window_hi_ns == 104000000);
	assert_true(c->allowance_ns == 6674332);
	assert_int_equal(c->inside, 3);
	assert_true(c->majority_status == 0);
	assert_true(c->expected_status == 0);
	assert_int_equal(c->nstatus, 1);

	c = find_case(&run, "hz-1000", "ctrl-in nak ms T=1");
	assert_non_null(c);
	assert_int_equal(c->n, 2);
	assert_true(c->median_ns == 1896656);
	assert_true(c->p95_ns == 10333768);
	assert_int_equal(c->inside, 1);
	assert_true(c->majority_status == -110);

	/* Delay keys carry D; the default length 64 is not in keys. */
	assert_non_null(find_case(&run, "hz-250", "bulk-in delay ms T=50 D=5000us"));
	assert_non_null(find_case(&run, "hz-250", "bulk-in nak legacy-jiffies T=1000"));
	assert_null(find_case(&run, "hz-250", "bulk-in nak ms T=100 len=64"));
	hzrig_run_free(&run);
}

static void test_load_old_format(void **state)
{
	const struct hzrig_case_stats *c;
	struct hzrig_run run;

	(void)state;
	load_run(DEFLT, &run);
	assert_int_equal(run.nv, 1);
	assert_int_equal(run.v[0].ncases, 28);
	assert_int_equal(run.v[0].ninside, 139);
	c = find_case(&run, "hz-100", "ctrl-in nak ms T=1000");
	assert_non_null(c);
	assert_true(c->length == HZRIG_ABSENT);
	assert_true(c->p5_ns == 1024113729);
	assert_true(c->median_ns == 1026970367);
	assert_true(c->p95_ns == 1031478307);
	assert_true(c->window_lo_ns == 1000000000);
	assert_true(c->window_hi_ns == 1080000000);
	c = find_case(&run, "hz-100", "ctrl-in nak ms T=100");
	assert_int_equal(c->inside, 4);
	hzrig_run_free(&run);
}

/* The run id is the real directory's name, also through a symlink. */
static void test_load_symlink(void **state)
{
	char *dir = copy_run(QUICK, "20261203T102031Z"), link[PATH_MAX];
	struct hzrig_run run;

	(void)state;
	snprintf(link, sizeof(link), "%.*s/latest",
		 (int)(strrchr(dir, '/') - dir), dir);
	assert_int_equal(symlink("20261203T102031Z", link), 0);
	load_run(link, &run);
	assert_string_equal(run.id, "20261203T102031Z");
	hzrig_run_free(&run);
	drop_copy(dir);
}

/* A corrupted copy of the quick run must fail with @msg in the errors. */
static void expect_load_error(const char *dir, const char *msg)
{
	struct hzrig_run run;
	int r;

	r = hzrig_run_load(dir, &run, err_open());
	if (r <= 0)
		fail_msg("loaded %s with %d errors; expected '%s'", dir, r, msg);
	assert_contains(err_text(), msg);
	err_free();
	hzrig_run_free(&run);
}

/* So must one whose line @line @fn rewrote with @text. */
static void expect_edit_error(line_fn fn, unsigned int line, const char *text,
			      const char *msg)
{
	char *dir = copy_run(QUICK, "20261203T102031Z");
	struct line_edit e = { .line = line, .text = text };

	rewrite_samples(dir, fn, &e);
	expect_load_error(dir, msg);
	drop_copy(dir);
}

static void test_load_errors(void **state)
{
	static const struct {
		const char *edit;	/* field=json, field=- to drop */
		const char *msg;
	} fields[] = {
		{ "elapsed_ns=\"12\"", "samples.jsonl:7: field \"elapsed_ns\": is a string, expected an integer" },
		{ "elapsed_ns=-1", "samples.jsonl:7: field \"elapsed_ns\": -1 out of range" },
		{ "elapsed_ns=-", "samples.jsonl:7: field \"elapsed_ns\": missing" },
		{ "status=1.5", "samples.jsonl:7: field \"status\": is a fractional number" },
		{ "verdict=\"insde\"", "samples.jsonl:7: field \"verdict\": 'insde' is not a verdict" },
		{ "transfer=\"bulk in\"", "samples.jsonl:7: field \"transfer\": 'bulk in' is not a transfer of the plan" },
		{ "mode=\"\"", "samples.jsonl:7: field \"mode\": empty" },
		{ "case=-", "samples.jsonl:7: field \"case\": missing" },
		{ "hz=1000", "samples.jsonl:7: field \"hz\": 1000, but hz-250/run.json says 250" },
		{ "variant=\"hz-300\"", "samples.jsonl:7: variant 'hz-300' has no hz-300/run.json" },
		{ "variant=\"../x\"", "samples.jsonl:7: field \"variant\": '../x' is not a variant name" },
		{ "window_hi_ns=null", "samples.jsonl:7: fields \"window_lo_ns\", \"window_hi_ns\": one without the other" },
		{ "window_lo_ns=200000000", "low edge above the high one" },
		{ "schema=2", "samples.jsonl:7: schema 2 is newer than this hzrig reads (1)" },
		{ "path=\"usbfs2\"", "samples.jsonl:7: field \"path\": 'usbfs2' is not kernel, usbfs, libusb-sync, libusb-async or usbmon" },
		{ "path=\"usbmon\"", "samples.jsonl:7: field \"driver\": a sample of path usbmon needs one" },
		{ "driver=\"ipheth\"", "samples.jsonl:7: field \"driver\": only samples of path usbmon have one" },
		{ "urb_ns=-5", "samples.jsonl:7: field \"urb_ns\": -5 out of range" },
		/* The same (variant, case, rep) as line 8. */
		{ "rep=1", "samples.jsonl:8: variant hz-250 case 3 rep 1 recorded twice (first on line 7)" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		expect_edit_error(set_field, 7, fields[i].edit, fields[i].msg);
}

static void test_load_bad_lines(void **state)
{
	static const struct {
		const char *text;	/* NULL: drop the line */
		const char *msg;
	} lines[] = {
		/* Cut half-way, as a full disk or a crash leaves it. */
		{ "{\"schema\":1,\"variant\":\"hz-250\",\"hz\":250,\"path\":\"ker",
		  "samples.jsonl:150: not valid JSON" },
		{ "{\"variant\":\"hz-250\"} trailing", "samples.jsonl:150: not valid JSON: text after the object" },
		{ "[1, 2]", "samples.jsonl:150: is an array, expected a sample object" },
		{ "garbage", "samples.jsonl:150: not valid JSON" },
		/* A lost line: run.json counts more than samples.jsonl holds. */
		{ NULL, "samples.jsonl: 147 samples of hz-1000, but hz-1000/run.json counts 148" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		expect_edit_error(edit_line, 150, lines[i].text, lines[i].msg);
	{
		/* Blank lines carry nothing and are no error. */
		char *dir = copy_run(QUICK, "20261203T102031Z");
		struct hzrig_run run;
		char path[PATH_MAX];
		FILE *f;

		snprintf(path, sizeof(path), "%s/samples.jsonl", dir);
		f = fopen(path, "a");
		assert_non_null(f);
		fputs("\n   \n", f);
		assert_int_equal(fclose(f), 0);
		load_run(dir, &run);
		hzrig_run_free(&run);
		drop_copy(dir);
	}
}

static void test_load_bad_files(void **state)
{
	static const struct {
		const char *file;
		const char *text;	/* NULL: remove the file */
		const char *msg;
	} files[] = {
		/* run.json: the line the JSON breaks on. */
		{ "hz-250/run.json", "{\n  \"variant\": \"hz-250\",\n  \"hz\": 250,\n  \"release\": ,\n}\n",
		  "hz-250/run.json:4: not valid JSON" },
		{ "hz-250/run.json", "{\"variant\": \"hz-250\", \"hz\": 250,",
		  "hz-250/run.json:1: not valid JSON: unexpected end of file" },
		{ "hz-250/run.json", "{\"variant\": \"hz-1000\", \"hz\": 250}",
		  "hz-250/run.json: field \"variant\": 'hz-1000' in directory 'hz-250'" },
		{ "hz-250/run.json", "{\"variant\": \"hz-250\", \"hz\": 250, \"noise\": {\"rtt_p99_ns\": \"x\"}}",
		  "field \"noise.rtt_p99_ns\": is a string, expected an integer" },
		{ "hz-250/run.json", "{\"variant\": \"hz-250\"}",
		  "hz-250/run.json: field \"hz\": missing" },
		/* build.json is optional, but checked when there. */
		{ "hz-250/build.json", "{\"variant\": \"hz-250\", \"patches\": \"a b\"}",
		  "hz-250/build.json: field \"patches\": is a string, expected an array of strings" },
		{ "hz-250/build.json", "{\"patches\": [\"a\", 3]}",
		  "field \"patches[1]\": is an integer, expected a string" },
		{ "hz-250/build.json", "{\"kernel_build_s\": \"long\"}",
		  "field \"kernel_build_s\": is a string, expected a number" },
		/* No samples.jsonl at all. */
		{ "samples.jsonl", NULL, "samples.jsonl: No such file or directory" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *dir = copy_run(QUICK, "20261203T102031Z"), path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/%s", dir, files[i].file);
		if (files[i].text)
			write_file(path, files[i].text);
		else
			assert_int_equal(unlink(path), 0);
		expect_load_error(dir, files[i].msg);
		drop_copy(dir);
	}

	/* Not a run directory. */
	{
		struct hzrig_run run;

		assert_true(hzrig_run_load(DATA_DIR "/history", &run, err_open()) > 0);
		assert_contains(err_text(), "not a run directory");
		err_free();
		hzrig_run_free(&run);
		assert_int_equal(hzrig_run_load("/nonexistent/run", &run, err_open()), -1);
		assert_contains(err_text(), "No such file or directory");
		err_free();
		hzrig_run_free(&run);
	}
}

/* ---------------------------------------------------------------------- */
/* Runs built by hand */

static void add(struct hzrig_run *run, const char *variant, int64_t case_idx,
		int64_t rep, const char *behaviour, int64_t t, int64_t status,
		int64_t expected, int64_t elapsed, const char *verdict)
{
	struct hzrig_run_sample *s = hzrig_run_add_sample(run);

	assert_non_null(s);
	s->variant = hzrig_run_find_variant(run, variant);
	assert_true(s->variant != HZRIG_NO_VARIANT);
	s->case_idx = case_idx;
	s->rep = rep;
	snprintf(s->transfer, sizeof(s->transfer), "bulk-in");
	snprintf(s->behaviour, sizeof(s->behaviour), "%s", behaviour);
	snprintf(s->mode, sizeof(s->mode), "ms");
	snprintf(s->verdict, sizeof(s->verdict), "%s", verdict);
	s->timeout_ms = s->timeout_arg = t;
	s->status = status;
	s->expected_status = expected;
	s->elapsed_ns = elapsed;
	s->window_lo_ns = t * 1000000;
	s->window_hi_ns = t * 1000000 + 4000000;
	s->allowance_ns = 1000000;
}

static void test_majority_and_order(void **state)
{
	const struct hzrig_case_stats *c;
	struct hzrig_run run = { 0 };

	(void)state;
	snprintf(run.id, sizeof(run.id), "hand");
	assert_non_null(hzrig_run_add_variant(&run, "hz-250-legacy", 250));
	assert_non_null(hzrig_run_add_variant(&run, "hz-1000", 1000));
	assert_non_null(hzrig_run_add_variant(&run, "hz-250", 250));
	/* 1:1 tie including the expected status: the expected one. */
	add(&run, "hz-250", 4, 0, "nak", 10, 0, -110, 500000, "wrong-status");
	add(&run, "hz-250", 4, 1, "nak", 10, -110, -110, 12000000, "inside");
	/* 1:1 tie without it: the lower value. */
	add(&run, "hz-250", 2, 0, "nak", 20, -32, -110, 500000, "wrong-status");
	add(&run, "hz-250", 2, 1, "nak", 20, -71, -110, 500000, "wrong-status");
	/* 2:1: the majority, whatever was expected. */
	add(&run, "hz-250", 7, 0, "answer", 30, -110, 0, 34000000, "wrong-status");
	add(&run, "hz-250", 7, 1, "answer", 30, -110, 0, 33000000, "wrong-status");
	add(&run, "hz-250", 7, 2, "answer", 30, 0, 0, 400000, "inside");
	/* The same case key under two plan indices is one case. */
	add(&run, "hz-250", 9, 0, "nak", 40, -110, -110, 41000000, "inside");
	add(&run, "hz-250", 1, 0, "nak", 40, -110, -110, 42000000, "inside");
	add(&run, "hz-1000", 0, 0, "nak", 10, -110, -110, 10500000, "inside");
	add(&run, "hz-250-legacy", 0, 0, "nak", 10, -110, -110, 40500000, "late");
	assert_int_equal(hzrig_run_stats(&run), 0);

	/* HZ, then name; the samples follow their variants. */
	assert_string_equal(run.v[0].name, "hz-250");
	assert_string_equal(run.v[1].name, "hz-250-legacy");
	assert_string_equal(run.v[2].name, "hz-1000");
	assert_int_equal(run.v[0].nsamples, 9);
	assert_int_equal(run.v[1].nsamples, 1);
	assert_true(run.v[1].cases[0].median_ns == 40500000);
	assert_int_equal(run.v[1].ninside, 0);
	assert_true(run.v[2].cases[0].median_ns == 10500000);

	/* Plan order: keys first seen at indices 1 (T=40), 2, 4, 7. */
	assert_int_equal(run.v[0].ncases, 4);
	assert_string_equal(run.v[0].cases[0].key, "bulk-in nak ms T=40");
	assert_int_equal(run.v[0].cases[0].case_idx, 1);
	assert_int_equal(run.v[0].cases[0].n, 2);
	assert_string_equal(run.v[0].cases[1].key, "bulk-in nak ms T=20");
	assert_string_equal(run.v[0].cases[2].key, "bulk-in nak ms T=10");
	assert_string_equal(run.v[0].cases[3].key, "bulk-in answer ms T=30");

	c = &run.v[0].cases[2];
	assert_true(c->majority_status == -110);
	assert_int_equal(c->nstatus, 2);
	assert_int_equal(c->inside, 1);
	c = &run.v[0].cases[1];
	assert_true(c->majority_status == -71);
	c = &run.v[0].cases[3];
	assert_true(c->majority_status == -110);
	assert_true(c->expected_status == 0);
	assert_true(c->status[0].status == -110);
	assert_int_equal(c->status[0].n, 2);
	assert_true(c->median_ns == 33000000);
	hzrig_run_free(&run);
}

static void test_threshold(void **state)
{
	struct hzrig_case_stats o = { 0 }, n = { 0 };

	(void)state;
	o.window_lo_ns = n.window_lo_ns = 100000000;
	o.window_hi_ns = n.window_hi_ns = 104000000;
	o.allowance_ns = 6674332;
	n.allowance_ns = 2000000;
	/* Timed out: both allowances and the window's 4 ms width. */
	o.majority_status = n.majority_status = -110;
	assert_true(hzrig_regress_threshold_ns(&o, &n, 250) ==
		    6674332 + 2000000 + 4000000);
	/* Either side timing out brings the width in; the wider counts. */
	o.majority_status = 0;
	n.window_hi_ns = 108000000;
	assert_true(hzrig_regress_threshold_ns(&o, &n, 250) ==
		    6674332 + 2000000 + 8000000);
	/* Answered on both sides: the phase plays no part, noise only. */
	n.majority_status = 0;
	assert_true(hzrig_regress_threshold_ns(&o, &n, 250) ==
		    6674332 + 2000000);
	/* Never below a jiffy. */
	o.allowance_ns = n.allowance_ns = 100000;
	assert_true(hzrig_regress_threshold_ns(&o, &n, 250) == 4000000);
	assert_true(hzrig_regress_threshold_ns(&o, &n, 100) == 10000000);
	assert_true(hzrig_regress_threshold_ns(&o, &n, 1000) == 1000000);
	/* No window (a killable wait without timeout): no width. */
	o.majority_status = n.majority_status = -110;
	o.window_lo_ns = n.window_lo_ns = HZRIG_ABSENT;
	o.window_hi_ns = n.window_hi_ns = HZRIG_ABSENT;
	o.allowance_ns = n.allowance_ns = 3000000;
	assert_true(hzrig_regress_threshold_ns(&o, &n, 1000) == 6000000);
}

/* One case each side, n samples, k of the new ones inside. */
static size_t inside_flags(size_t n, size_t k_old, size_t k_new)
{
	struct hzrig_run a = { 0 }, b = { 0 };
	struct hzrig_regress_result res = { 0 };
	size_t i, flagged = 0;

	hzrig_run_add_variant(&a, "hz-250", 250);
	hzrig_run_add_variant(&b, "hz-250", 250);
	for (i = 0; i < n; i++) {
		add(&a, "hz-250", 0, (int64_t)i, "nak", 100, -110, -110,
		    102000000, i < k_old ? "inside" : "late");
		add(&b, "hz-250", 0, (int64_t)i, "nak", 100, -110, -110,
		    102000000, i < k_new ? "inside" : "late");
	}
	assert_int_equal(hzrig_run_stats(&a), 0);
	assert_int_equal(hzrig_run_stats(&b), 0);
	assert_int_equal(hzrig_regress(&a.v[0], &b.v[0], -1, &res), 0);
	assert_int_equal(res.compared, 1);
	for (i = 0; i < res.n; i++) {
		assert_int_equal(res.r[i].kind, HZRIG_REG_INSIDE);
		flagged++;
	}
	hzrig_regress_free(&res);
	hzrig_run_free(&a);
	hzrig_run_free(&b);
	return flagged;
}

static void test_inside_rule(void **state)
{
	(void)state;
	/* Five samples: one sample is 20 points, the limit. */
	assert_int_equal(inside_flags(5, 5, 5), 0);
	assert_int_equal(inside_flags(5, 5, 4), 0);
	assert_int_equal(inside_flags(5, 5, 3), 1);
	/* Twenty: 10 points is the limit; 15 is over it. */
	assert_int_equal(inside_flags(20, 20, 18), 0);
	assert_int_equal(inside_flags(20, 20, 17), 1);
	/* Two: one sample is half; both lost is a regression. */
	assert_int_equal(inside_flags(2, 2, 1), 0);
	assert_int_equal(inside_flags(2, 2, 0), 1);
	/* Better is never a regression. */
	assert_int_equal(inside_flags(5, 0, 5), 0);
}

static void test_status_rule(void **state)
{
	struct hzrig_run a = { 0 }, b = { 0 };
	struct hzrig_regress_result res = { 0 };

	(void)state;
	hzrig_run_add_variant(&a, "hz-250", 250);
	hzrig_run_add_variant(&b, "hz-250", 250);
	add(&a, "hz-250", 0, 0, "nak", 100, -110, -110, 102000000, "inside");
	add(&a, "hz-250", 0, 1, "nak", 100, -110, -110, 102000000, "inside");
	add(&b, "hz-250", 0, 0, "nak", 100, -71, -110, 102000000, "wrong-status");
	add(&b, "hz-250", 0, 1, "nak", 100, -71, -110, 102000000, "wrong-status");
	assert_int_equal(hzrig_run_stats(&a), 0);
	assert_int_equal(hzrig_run_stats(&b), 0);
	assert_int_equal(hzrig_regress(&a.v[0], &b.v[0], -1, &res), 0);
	/* Same timings: status and inside only. */
	assert_int_equal(res.n, 2);
	assert_int_equal(res.r[0].kind, HZRIG_REG_INSIDE);
	assert_int_equal(res.r[1].kind, HZRIG_REG_STATUS);
	assert_true(res.r[1].old_value == -110);
	assert_true(res.r[1].new_value == -71);
	assert_true(isnan(res.r[1].threshold));
	assert_contains(res.r[1].detail, "majority status -110 (2/2) -> -71 (2/2)");
	hzrig_regress_free(&res);
	hzrig_run_free(&a);
	hzrig_run_free(&b);
}

/*
 * Paths are cases of their own: the same call through the kernel and
 * through libusb-async gives two cases, and a libusb regression is named
 * by its path and does not touch the kernel case.
 */
static void test_regress_per_path(void **state)
{
	struct hzrig_run a = { 0 }, b = { 0 };
	struct hzrig_regress_result res = { 0 };
	size_t i;

	(void)state;
	hzrig_run_add_variant(&a, "hz-100", 100);
	hzrig_run_add_variant(&b, "hz-100", 100);
	for (i = 0; i < 4; i++) {
		struct hzrig_run *r = i < 2 ? &a : &b;
		struct hzrig_run_sample *s;

		add(r, "hz-100", 0, (int64_t)i % 2, "nak", 1, -110, -110,
		    15000000, "inside");
		/* libusb: 1.4 ms before, 15 ms after (a wheel-timed cancel). */
		add(r, "hz-100", 1, (int64_t)i % 2, "nak", 1, -110, -110,
		    i < 2 ? 1400000 : 15000000, i < 2 ? "inside" : "late");
		s = &r->s[r->ns - 1];
		snprintf(s->path, sizeof(s->path), "libusb-async");
		s->window_lo_ns = 1000000;
		s->window_hi_ns = 1500000;
	}
	assert_int_equal(hzrig_run_stats(&a), 0);
	assert_int_equal(hzrig_run_stats(&b), 0);
	assert_int_equal(a.v[0].ncases, 2);
	assert_string_equal(a.v[0].cases[1].key, "libusb-async bulk-in nak ms T=1");
	assert_string_equal(a.v[0].cases[1].path, "libusb-async");
	assert_string_equal(a.v[0].cases[0].path, "kernel");
	assert_int_equal(hzrig_regress(&a.v[0], &b.v[0], -1, &res), 0);
	assert_int_equal(res.compared, 2);
	assert_true(res.n > 0);
	for (i = 0; i < res.n; i++)
		assert_string_equal(res.r[i].case_key,
				    "libusb-async bulk-in nak ms T=1");
	hzrig_regress_free(&res);
	hzrig_run_free(&a);
	hzrig_run_free(&b);
}

/* ---------------------------------------------------------------------- */
/* Regressions on a real run */

static void test_regress_self(void **state)
{
	struct hzrig_run run;
	size_t i;

	(void)state;
	load_run(QUICK, &run);
	for (i = 0; i < run.nv; i++) {
		struct hzrig_regress_result res = { 0 };

		assert_int_equal(hzrig_regress(&run.v[i], &run.v[i], -1, &res), 0);
		assert_int_equal(res.compared, run.v[i].ncases);
		assert_int_equal(res.n, 0);
		assert_int_equal(res.only_old + res.only_new, 0);
		/* Even with no tolerance at all. */
		assert_int_equal(hzrig_regress(&run.v[i], &run.v[i], 0, &res), 0);
		assert_int_equal(res.n, 0);
		hzrig_regress_free(&res);
	}
	hzrig_run_free(&run);
}

/*
 * Timed-out calls of the chosen cases take 4x as long; their verdicts turn
 * "late" as collect would judge them (beyond window + allowance).
 */
struct scale {
	const char *variant;
	const char *const *keys;
};

static const char *scale_line(unsigned int n, char *line, void *arg)
{
	struct scale *sc = arg;
	struct json_object *o = json_tokener_parse(line), *v;
	char key[HZRIG_CASE_KEY_MAX];
	int64_t e, len = HZRIG_ABSENT, delay = HZRIG_ABSENT;
	size_t i;

	(void)n;
	assert_non_null(o);
	if (strcmp(str_of(o, "variant"), sc->variant) ||
	    int_of(o, "status") != -110)
		goto keep;
	if (json_object_object_get_ex(o, "length", &v))
		len = json_object_get_int64(v);
	if (json_object_object_get_ex(o, "delay_us", &v))
		delay = json_object_get_int64(v);
	hzrig_case_key(key, sizeof(key), str_of(o, "path"), str_of(o, "transfer"),
		       str_of(o, "behaviour"), str_of(o, "mode"),
		       int_of(o, "timeout_ms"), delay, len);
	for (i = 0; sc->keys[i]; i++)
		if (!strcmp(sc->keys[i], key))
			break;
	if (!sc->keys[i])
		goto keep;
	e = int_of(o, "elapsed_ns") * 4;
	json_object_object_add(o, "elapsed_ns", json_object_new_int64(e));
	if (e > int_of(o, "window_hi_ns") + int_of(o, "allowance_ns"))
		json_object_object_add(o, "verdict", json_object_new_string("late"));
	return new_line(o);
keep:
	json_object_put(o);
	return line;
}

static void test_regress_scaled(void **state)
{
	/*
	 * Timed-out cases of 10 ms and up, on every transfer and level:
	 * four times their wait is far beyond noise and window. (A 1 ms
	 * case's 4x is 3-6 ms more, inside the 5-13 ms noise this TCG host
	 * measured; the explicit threshold below catches it.)
	 */
	static const char *const keys[] = {
		"bulk-in nak ms T=10", "ctrl-out nak ms T=100",
		"int-in nak ms T=10", "bulk-in-killable nak ms T=100",
		"bulk-in nak ms T=504", "bulk-in nak ms T=640",
		"ctrl-in nak legacy-jiffies T=1000",
		"bulk-out delay ms T=10 D=30000us", NULL,
	};
	static const char *const tiny[] = { "bulk-in nak ms T=1", NULL };
	const char *const variants[] = { "hz-250", "hz-1000" };
	size_t vi;

	(void)state;
	for (vi = 0; vi < 2; vi++) {
		char *dir = copy_run(QUICK, "20261203T102031Z");
		struct scale sc = { variants[vi], keys };
		struct hzrig_regress_result res = { 0 };
		struct hzrig_run old, new;
		const struct hzrig_variant *ov, *nv;
		size_t i, k, answered = 0;

		rewrite_samples(dir, scale_line, &sc);
		load_run(QUICK, &old);
		load_run(dir, &new);
		ov = &old.v[hzrig_run_find_variant(&old, variants[vi])];
		nv = &new.v[hzrig_run_find_variant(&new, variants[vi])];
		assert_int_equal(hzrig_regress(ov, nv, -1, &res), 0);
		assert_int_equal(res.compared, 66);

		/* Every flag is on a scaled case; none is a status change. */
		for (i = 0; i < res.n; i++) {
			for (k = 0; keys[k]; k++)
				if (!strcmp(keys[k], res.r[i].case_key))
					break;
			if (!keys[k])
				fail_msg("%s: %s flagged: %s", variants[vi],
					 res.r[i].case_key, res.r[i].detail);
			assert_int_not_equal(res.r[i].kind, HZRIG_REG_STATUS);
		}
		/* Every scaled case is flagged on its median and p95. */
		for (k = 0; keys[k]; k++) {
			bool med = false, p95 = false, in = false;

			for (i = 0; i < res.n; i++) {
				if (strcmp(keys[k], res.r[i].case_key))
					continue;
				med |= res.r[i].kind == HZRIG_REG_MEDIAN;
				p95 |= res.r[i].kind == HZRIG_REG_P95;
				in |= res.r[i].kind == HZRIG_REG_INSIDE;
				if (res.r[i].kind == HZRIG_REG_MEDIAN)
					assert_true(res.r[i].new_value >
						    3.5 * res.r[i].old_value);
			}
			/* 2-3 samples a case: p95 is not compared. */
			if (!med || p95 || !in)
				fail_msg("%s: %s: median %d p95 %d inside %d, want 1 0 1",
					 variants[vi], keys[k], med, p95, in);
		}
		/*
		 * The answered cases were compared and left alone: the plan's
		 * 6 answer, 4 short and 6 delay-before-timeout cases.
		 */
		for (i = 0; i < nv->ncases; i++)
			answered += nv->cases[i].majority_status == 0;
		assert_int_equal(answered, 16);
		hzrig_regress_free(&res);

		/* The threshold override reaches into the noise. */
		hzrig_run_free(&new);
		sc.keys = tiny;
		rewrite_samples(dir, scale_line, &sc);
		load_run(dir, &new);
		nv = &new.v[hzrig_run_find_variant(&new, variants[vi])];
		memset(&res, 0, sizeof(res));
		assert_int_equal(hzrig_regress(ov, nv, 1000000, &res), 0);
		for (i = 0; i < res.n; i++)
			if (!strcmp(res.r[i].case_key, "bulk-in nak ms T=1") &&
			    res.r[i].kind == HZRIG_REG_MEDIAN)
				break;
		assert_true(i < res.n);
		assert_contains(res.r[i].detail, "threshold 1.000 ms");
		hzrig_regress_free(&res);

		hzrig_run_free(&old);
		hzrig_run_free(&new);
		drop_copy(dir);
	}
}

/*
 * Another run that agrees with the model as well: every timed-out sample
 * inside its window is mirrored in it (lo + hi - elapsed), as a different
 * start phase would put it. Nothing may be flagged: that is what the
 * window's width in the threshold is for.
 */
static const char *mirror_line(unsigned int n, char *line, void *arg)
{
	struct json_object *o = json_tokener_parse(line);
	int64_t e;

	(void)n;
	(void)arg;
	assert_non_null(o);
	if (int_of(o, "status") != -110 ||
	    strcmp(str_of(o, "verdict"), "inside"))
		goto keep;
	e = int_of(o, "window_lo_ns") + int_of(o, "window_hi_ns") -
	    int_of(o, "elapsed_ns");
	json_object_object_add(o, "elapsed_ns", json_object_new_int64(e < 0 ? 0 : e));
	return new_line(o);
keep:
	json_object_put(o);
	return line;
}

static void test_regress_model_agreeing(void **state)
{
	char *dir = copy_run(QUICK, "20261203T102031Z");
	struct hzrig_run old, new;
	size_t i, moved = 0;

	(void)state;
	rewrite_samples(dir, mirror_line, NULL);
	load_run(QUICK, &old);
	load_run(dir, &new);
	for (i = 0; i < old.nv; i++) {
		struct hzrig_regress_result res = { 0 };
		size_t k;

		assert_int_equal(hzrig_regress(&old.v[i], &new.v[i], -1, &res), 0);
		for (k = 0; k < res.n; k++)
			fail_msg("%s: %s flagged: %s", new.v[i].name,
				 res.r[k].case_key, res.r[k].detail);
		hzrig_regress_free(&res);
		/*
		 * The test has teeth: with the allowances alone as the
		 * threshold, the phase's spread is flagged.
		 */
		assert_int_equal(hzrig_regress(&old.v[i], &new.v[i],
					       2 * old.v[i].allowance_ns, &res), 0);
		moved += res.n;
		hzrig_regress_free(&res);
	}
	assert_true(moved > 0);
	hzrig_run_free(&old);
	hzrig_run_free(&new);
	drop_copy(dir);
}

/*
 * p95 is compared only from HZRIG_P95_MIN_N samples a side: below, it is
 * the maximum and one late wakeup would flag it.
 */
static void p95_case(struct hzrig_case_stats *c, size_t n, int64_t p95)
{
	memset(c, 0, sizeof(*c));
	strcpy(c->key, "bulk-in nak ms T=100");
	c->n = c->inside = n;
	c->median_ns = 102000000;
	c->p95_ns = p95;
	c->window_lo_ns = 100000000;
	c->window_hi_ns = 104000000;
	c->allowance_ns = 1000000;
	c->expected_status = c->majority_status = -110;
}

static size_t p95_flags(size_t n_old, size_t n_new)
{
	struct hzrig_case_stats oc, nc;
	struct hzrig_variant ov = { .hz = 250, .cases = &oc, .ncases = 1 };
	struct hzrig_variant nv = { .hz = 250, .cases = &nc, .ncases = 1 };
	struct hzrig_regress_result res = { 0 };
	size_t i, n = 0;

	p95_case(&oc, n_old, 103000000);
	p95_case(&nc, n_new, 140000000);	/* 37 ms more: far beyond */
	assert_int_equal(hzrig_regress(&ov, &nv, -1, &res), 0);
	assert_int_equal(res.compared, 1);
	for (i = 0; i < res.n; i++) {
		/* Same median, same share, same status: only p95 may move. */
		assert_int_equal(res.r[i].kind, HZRIG_REG_P95);
		n++;
	}
	hzrig_regress_free(&res);
	return n;
}

static void test_regress_p95_min_n(void **state)
{
	(void)state;
	assert_int_equal(p95_flags(HZRIG_P95_MIN_N, HZRIG_P95_MIN_N), 1);
	assert_int_equal(p95_flags(HZRIG_P95_MIN_N - 1, HZRIG_P95_MIN_N), 0);
	assert_int_equal(p95_flags(HZRIG_P95_MIN_N, 5), 0);
	assert_int_equal(p95_flags(100, 40), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_case_key),
		cmocka_unit_test(test_percentile),
		cmocka_unit_test(test_run_id_time),
		cmocka_unit_test(test_load_quick),
		cmocka_unit_test(test_load_old_format),
		cmocka_unit_test(test_load_symlink),
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_load_bad_lines),
		cmocka_unit_test(test_load_bad_files),
		cmocka_unit_test(test_majority_and_order),
		cmocka_unit_test(test_threshold),
		cmocka_unit_test(test_inside_rule),
		cmocka_unit_test(test_status_rule),
		cmocka_unit_test(test_regress_per_path),
		cmocka_unit_test(test_regress_self),
		cmocka_unit_test(test_regress_scaled),
		cmocka_unit_test(test_regress_p95_min_n),
		cmocka_unit_test(test_regress_model_agreeing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
