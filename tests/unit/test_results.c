// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of result collection (rig/collect/capture.c): capture parsing and its
 * errors, KTAP counting, collect's verdicts and files, and report.
 *
 * Fixtures are in tests/data/captures/. The verdicts expected of good.jsonl
 * (HZ=1000, allowance 0.4 + 0.6 = 1.0 ms) were worked out by hand:
 *   line  3 bulk-in T=10: window (10, 11] ms, 10.5 ms        inside
 *   line  4 8.999999 ms < 10 - 1                              early
 *   line  5 12.000001 ms > 11 + 1                             late
 *   line  6 status 0 where -110 expected                      wrong-status
 *   line  7 ctrl-in T=100: n=100, level 1, (100, 108], 105    inside
 *   line  8 killable T=70000: no clamp, level 4, (70000, 74096], 72000 inside
 *   line  9 mode zero: arg 0 -> 60000 ms, level 4, 61000      inside
 *   line 10 ctrl-out answer: status 0, 0.3 ms <= 108 + 1      inside
 *   line 11 legacy-jiffies 1000 at HZ=1000: arg 1000, level 2, (1000, 1064]
 *                                                              inside
 *   line 12 delay 50 ms > 11 + 1: a timeout is expected, 10.6 inside
 *   line 13 int-in stall: -EPIPE expected, 0.2 ms             inside
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
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

#include "output/report.h"
#include "collect/collect.h"
#include "testutil.h"

#define CAP(name)	DATA_DIR "/captures/" name

/* The stream err_open() made for the test under way (testutil.h). */
static FILE *errf;

static char *tmpdir(void)
{
	char *d = strdup("/tmp/hzrig-test-XXXXXX");

	assert_non_null(d);
	assert_non_null(mkdtemp(d));
	return d;
}

static void rmtree(char *d)
{
	rm_rf(d);
	free(d);
}

static int parse_text(const char *text, struct hzrig_capture *c)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	assert_non_null(f);
	ret = hzrig_capture_parse(f, "t.jsonl", c, errf);
	fclose(f);
	return ret;
}

/* Number of entries in @dir, hidden ones included: no temp file left over. */
static int count_entries(const char *dir)
{
	char cmd[512];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_equal(fscanf(p, "%d", &n), 1);
	pclose(p);
	return n;
}

static int collect(const char *dir, const char *variant, const char *capture,
		   const char *boot, int64_t floor_ns)
{
	struct hzrig_collect_opts o = {
		.variant = variant, .serial = capture,
		.console = CAP("console.log"), .accel = "tcg", .out_dir = dir,
		.boot_status = boot, .noise_floor_ns = floor_ns, .err = errf,
	};

	return hzrig_collect(&o);
}

static struct json_object *run_json(const char *dir, const char *variant)
{
	char path[512];
	struct json_object *o;

	snprintf(path, sizeof(path), "%s/%s/run.json", dir, variant);
	o = json_object_from_file(path);
	assert_non_null(o);
	return o;
}

/* An integer at a dotted path of @o, e.g. "counts.inside". */
static int64_t jpath_int(struct json_object *o, const char *path)
{
	char buf[128], *tok, *save = NULL;
	struct json_object *v = o;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok; tok = strtok_r(NULL, ".", &save))
		if (!json_object_object_get_ex(v, tok, &v))
			fail_msg("no %s in run.json", path);
	if (!json_object_is_type(v, json_type_int))
		fail_msg("%s is not an integer", path);
	return json_object_get_int64(v);
}

static const char *jpath_str(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* The sample lines of samples.jsonl, as objects. */
static size_t load_lines(const char *dir, struct json_object **out, size_t max)
{
	char path[512], line[4096];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/samples.jsonl", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	while (n < max && fgets(line, sizeof(line), f)) {
		out[n] = json_tokener_parse(line);
		assert_non_null(out[n]);
		n++;
	}
	fclose(f);
	return n;
}

static void put_lines(struct json_object **l, size_t n)
{
	while (n--)
		json_object_put(l[n]);
}

/* ---------------------------------------------------------------------- */

static void test_parse_good(void **state)
{
	struct hzrig_capture c;

	(void)state;
	errf = err_open();
	assert_int_equal(hzrig_capture_load(CAP("good.jsonl"), &c, errf), 0);
	assert_string_equal(err_text(), "");
	assert_true(c.have_meta);
	assert_string_equal(c.meta.variant, "hz-1000");
	assert_int_equal(c.meta.hz, 1000);
	assert_string_equal(c.meta.clocksource, "tsc");
	assert_string_equal(c.meta.release, "6.1.192");
	assert_int_equal(c.meta.usb_max_sync_timeout_ms, 60000);
	assert_true(c.noise.present);
	assert_int_equal(c.noise.overshoot_p99_ns, 400000);
	assert_int_equal(c.noise.rtt_p99_ns, 600000);
	assert_int_equal(c.nrecs, 11);
	assert_int_equal(c.recs[0].s.elapsed_ns, 10500000);
	assert_int_equal(c.recs[0].s.start_jiffies, 4294667396LL);
	assert_int_equal(c.recs[5].transfer, HZRIG_XFER_BULK_IN_KILLABLE);
	assert_int_equal(c.recs[6].mode, HZRIG_MODE_ZERO);
	assert_int_equal(c.recs[9].s.delay_us, 50000);
	assert_int_equal(c.recs[10].s.status, -EPIPE);
	assert_true(c.end.present);
	assert_int_equal(c.end.samples, 11);
	assert_false(c.truncated);
	assert_int_equal(c.bad_lines + c.bad_records + c.errors, 0);
	hzrig_capture_free(&c);
	err_free();
}

static void test_parse_truncated(void **state)
{
	struct hzrig_capture c;
	const char *e;

	(void)state;
	errf = err_open();
	/* A line cut off mid-object, and then nothing: 2 errors. */
	assert_int_equal(hzrig_capture_load(CAP("truncated.jsonl"), &c, errf), 2);
	e = err_text();
	assert_contains(e, "truncated.jsonl:5: not a JSON object");
	assert_contains(e, "no end record");
	assert_contains(e, "truncated");
	assert_true(c.truncated);
	assert_int_equal(c.bad_lines, 1);
	assert_int_equal(c.nrecs, 2);
	hzrig_capture_free(&c);
	err_free();
}

static void test_parse_garbage(void **state)
{
	struct hzrig_capture c;
	const char *e;

	(void)state;
	errf = err_open();
	/* 4 lines that are not objects, and an end record counting 2 samples of which 1 survived. */
	assert_int_equal(hzrig_capture_load(CAP("garbage.jsonl"), &c, errf), 5);
	e = err_text();
	assert_contains(e, "garbage.jsonl:3: not a JSON object");
	assert_contains(e, "garbage.jsonl:4: not a JSON object (a JSON array)");
	assert_contains(e, "garbage.jsonl:5: not a JSON object (a JSON array)");
	assert_contains(e, "garbage.jsonl:6: not a JSON object (text after the object)");
	assert_contains(e, "garbage.jsonl:9: warning: record type 'heartbeat' unknown");
	assert_contains(e, "garbage.jsonl:10: end: field \"samples\": 2, but the capture holds 1");
	/* The blank line 7 is not an error. */
	assert_null(strstr(e, "garbage.jsonl:7:"));
	assert_int_equal(c.bad_lines, 4);
	assert_int_equal(c.ignored, 1);
	assert_int_equal(c.nrecs, 1);
	assert_int_equal(c.recs[0].s.line, 8);
	assert_false(c.truncated);
	hzrig_capture_free(&c);
	err_free();
}

static void test_parse_bad_types(void **state)
{
	struct hzrig_capture c;
	const char *e;

	(void)state;
	errf = err_open();
	assert_int_equal(hzrig_capture_load(CAP("badtypes.jsonl"), &c, errf), 7);
	e = err_text();
	assert_contains(e, "badtypes.jsonl:3: sample: field \"elapsed_ns\": is a string, expected an integer");
	assert_contains(e, "badtypes.jsonl:4: sample: field \"status\": is a fractional number, expected an integer");
	assert_contains(e, "badtypes.jsonl:5: sample: field \"transfer\": 'bulk-up' is not a transfer of the plan");
	assert_contains(e, "badtypes.jsonl:6: sample: field \"seq\": missing");
	/* legacy-jiffies at HZ=250 passes msecs_to_jiffies(100) = 25, not 100. */
	assert_contains(e, "badtypes.jsonl:7: sample: field \"timeout_arg\": 100 is not what mode legacy-jiffies passes for 100 ms at HZ=250 (25)");
	assert_contains(e, "badtypes.jsonl:9: sample: field \"status\": is null, expected an integer");
	assert_contains(e, "badtypes.jsonl:9: sample: field \"elapsed_ns\": -5 out of range");
	assert_int_equal(c.bad_records, 6);
	assert_int_equal(c.nrecs, 1);
	assert_int_equal(c.recs[0].s.line, 8);
	assert_int_equal(c.recs[0].s.timeout_arg, 25);
	hzrig_capture_free(&c);
	err_free();
}

#define META(extra) "{\"type\":\"meta\",\"variant\":\"v\",\"hz\":250,\"release\":\"r\"," \
	"\"clocksource\":\"tsc\",\"jiffy_rate_mhz\":250000,\"abi\":1,\"plan\":\"p\"," \
	"\"accel\":\"tcg\",\"cmdline\":\"\"" extra "}\n"
#define NOISE "{\"type\":\"noise\",\"sleep_us\":1000,\"n\":1,\"overshoot_p50_ns\":1," \
	"\"overshoot_p99_ns\":1,\"rtt_n\":1,\"rtt_p50_ns\":1,\"rtt_p99_ns\":1}\n"
#define END(n) "{\"type\":\"end\",\"cases\":0,\"samples\":" #n ",\"failures\":0}\n"

static void test_parse_meta_errors(void **state)
{
	struct hzrig_capture c;

	(void)state;
	/* A newer ABI: no usable meta, nothing to collect. */
	errf = err_open();
	assert_int_equal(parse_text("{\"type\":\"meta\",\"variant\":\"v\",\"hz\":250,"
				    "\"release\":\"r\",\"clocksource\":\"tsc\","
				    "\"jiffy_rate_mhz\":250000,\"abi\":2,\"plan\":\"p\","
				    "\"accel\":\"tcg\"}\n" NOISE END(0), &c), -1);
	assert_contains(err_text(), "t.jsonl:1: meta: field \"abi\": 2 is not the supported ABI 1");
	assert_contains(err_text(), "no valid meta record");
	hzrig_capture_free(&c);
	err_free();

	/* HZ the model does not cover. */
	errf = err_open();
	assert_int_equal(parse_text("{\"type\":\"meta\",\"variant\":\"v\",\"hz\":1024,"
				    "\"release\":\"r\",\"clocksource\":\"tsc\","
				    "\"jiffy_rate_mhz\":1024000,\"abi\":1,\"plan\":\"p\","
				    "\"accel\":\"tcg\"}\n" NOISE END(0), &c), -1);
	assert_contains(err_text(), "t.jsonl:1: meta: field \"hz\": 1024 is out of range 2..1000");
	hzrig_capture_free(&c);
	err_free();

	/* Second meta, record after end, a kernel with another clamp, a wrong jiffy rate. */
	errf = err_open();
	assert_int_equal(parse_text(META(",\"usb_max_sync_timeout_ms\":30000")
				    META("") NOISE END(0) NOISE, &c), 3);
	assert_contains(err_text(), "t.jsonl:2: meta: a second meta record (first on line 1)");
	assert_contains(err_text(), "t.jsonl:5: noise: record after the end record (line 4)");
	assert_contains(err_text(), "t.jsonl:1: meta: field \"usb_max_sync_timeout_ms\": 30000, but the model of 6.1 has 60000");
	hzrig_capture_free(&c);
	err_free();

	errf = err_open();
	assert_int_equal(parse_text("{\"type\":\"meta\",\"variant\":\"v\",\"hz\":250,"
				    "\"release\":\"r\",\"clocksource\":\"tsc\","
				    "\"jiffy_rate_mhz\":100000,\"abi\":1,\"plan\":\"p\","
				    "\"accel\":\"tcg\"}\n" NOISE END(0), &c), 1);
	assert_contains(err_text(), "jiffy_rate_mhz\": 100000 jiffies/ks measured, more than 2% off HZ=250");
	hzrig_capture_free(&c);
	err_free();

	/* No type, and no noise record on a usable clocksource. */
	errf = err_open();
	assert_int_equal(parse_text(META("") "{\"kind\":\"sample\"}\n" END(0), &c), 2);
	assert_contains(err_text(), "t.jsonl:2: record: field \"type\": missing");
	assert_contains(err_text(), "no noise record");
	hzrig_capture_free(&c);
	err_free();
}

static void test_ktap(void **state)
{
	struct hzrig_ktap k;
	FILE *f = fopen(CAP("console.log"), "r");

	(void)state;
	assert_non_null(f);
	assert_int_equal(hzrig_ktap_parse(f, &k), 0);
	fclose(f);
	assert_true(k.version_seen);
	assert_int_equal(k.plan, 6);
	assert_int_equal(k.ok, 4);
	assert_int_equal(k.not_ok, 1);
	assert_int_equal(k.skip, 1);
	assert_false(k.bail_out);
}

/* ---------------------------------------------------------------------- */

static void test_collect_verdicts(void **state)
{
	static const char *const want[] = {
		"inside", "early", "late", "wrong-status", "inside", "inside",
		"inside", "inside", "inside", "inside", "inside",
	};
	struct json_object *l[16], *run;
	char *dir = tmpdir();
	size_t n, i;

	(void)state;
	errf = err_open();
	assert_int_equal(collect(dir, "hz-1000", CAP("good.jsonl"), "ok", 0),
			 HZRIG_COLLECT_OK);
	n = load_lines(dir, l, 16);
	assert_int_equal(n, 11);
	for (i = 0; i < n; i++) {
		assert_string_equal(jpath_str(l[i], "verdict"), want[i]);
		assert_string_equal(jpath_str(l[i], "variant"), "hz-1000");
		assert_string_equal(jpath_str(l[i], "path"), "kernel");
		assert_int_equal(jpath_int(l[i], "allowance_ns"), 1000000);
	}
	/* The model's fields, from the derivations at the top. */
	assert_int_equal(jpath_int(l[0], "window_lo_ns"), 10000000);
	assert_int_equal(jpath_int(l[0], "window_hi_ns"), 11000000);
	assert_int_equal(jpath_int(l[0], "jiffies"), 10);
	assert_int_equal(jpath_int(l[0], "level"), 0);
	assert_int_equal(jpath_int(l[0], "granule"), 1);
	assert_int_equal(jpath_int(l[0], "case"), 0);
	assert_int_equal(jpath_int(l[0], "rep"), 0);
	assert_int_equal(jpath_int(l[0], "phase_ns"), 250000);
	assert_int_equal(jpath_int(l[0], "length"), 64);
	assert_int_equal(jpath_int(l[5], "window_hi_ns"), 74096000000LL);
	assert_int_equal(jpath_int(l[5], "level"), 4);
	assert_string_equal(jpath_str(l[5], "transfer"), "bulk-in-killable");
	assert_int_equal(jpath_int(l[6], "timeout_arg"), 0);
	assert_int_equal(jpath_int(l[6], "jiffies"), 60000);
	assert_int_equal(jpath_int(l[8], "granule"), 64);
	assert_int_equal(jpath_int(l[9], "expected_status"), -ETIMEDOUT);
	assert_int_equal(jpath_int(l[10], "expected_status"), -EPIPE);
	put_lines(l, n);

	run = run_json(dir, "hz-1000");
	assert_string_equal(jpath_str(run, "variant"), "hz-1000");
	assert_int_equal(jpath_int(run, "hz"), 1000);
	assert_string_equal(jpath_str(run, "clocksource"), "tsc");
	assert_string_equal(jpath_str(run, "accel"), "tcg");
	assert_string_equal(jpath_str(run, "boot_status"), "ok");
	assert_string_equal(jpath_str(run, "allowance_source"), "noise");
	assert_int_equal(jpath_int(run, "allowance_ns"), 1000000);
	assert_int_equal(jpath_int(run, "noise.overshoot_p99_ns"), 400000);
	assert_int_equal(jpath_int(run, "counts.samples"), 11);
	assert_int_equal(jpath_int(run, "counts.inside"), 8);
	assert_int_equal(jpath_int(run, "counts.early"), 1);
	assert_int_equal(jpath_int(run, "counts.late"), 1);
	assert_int_equal(jpath_int(run, "counts.wrong_status"), 1);
	assert_int_equal(jpath_int(run, "counts.outside"), 3);
	assert_int_equal(jpath_int(run, "ktap.ok"), 4);
	assert_int_equal(jpath_int(run, "ktap.not_ok"), 1);
	assert_int_equal(jpath_int(run, "capture.errors"), 0);
	json_object_put(run);
	/* samples.jsonl and hz-1000/: nothing else, no temporary files. */
	assert_int_equal(count_entries(dir), 2);
	err_free();
	rmtree(dir);
}

/* A noise floor above the measured noise widens the allowance. */
static void test_collect_noise_floor(void **state)
{
	struct json_object *l[16], *run;
	char *dir = tmpdir();
	size_t n;

	(void)state;
	errf = err_open();
	assert_int_equal(collect(dir, "hz-1000", CAP("good.jsonl"), "ok",
				 2000000), HZRIG_COLLECT_OK);
	n = load_lines(dir, l, 16);
	/* 8.999999 ms >= 10 - 2; 12.000001 ms <= 11 + 2. */
	assert_string_equal(jpath_str(l[1], "verdict"), "inside");
	assert_string_equal(jpath_str(l[2], "verdict"), "inside");
	assert_string_equal(jpath_str(l[3], "verdict"), "wrong-status");
	put_lines(l, n);
	run = run_json(dir, "hz-1000");
	assert_int_equal(jpath_int(run, "allowance_ns"), 2000000);
	assert_string_equal(jpath_str(run, "allowance_source"), "floor");
	assert_int_equal(jpath_int(run, "counts.inside"), 10);
	json_object_put(run);
	err_free();
	rmtree(dir);
}

static void test_collect_refused(void **state)
{
	struct json_object *l[4], *run;
	char *dir = tmpdir();
	size_t n, i;

	(void)state;
	errf = err_open();
	assert_int_equal(collect(dir, "hz-250", CAP("refused.jsonl"), "ok", 0),
			 HZRIG_COLLECT_PROBLEMS);
	assert_contains(err_text(), "refined-jiffies has jiffy resolution");
	n = load_lines(dir, l, 4);
	assert_int_equal(n, 2);
	for (i = 0; i < n; i++)
		assert_string_equal(jpath_str(l[i], "verdict"), "refused");
	put_lines(l, n);
	run = run_json(dir, "hz-250");
	assert_non_null(jpath_str(run, "refused"));
	assert_contains(jpath_str(run, "refused"), "refined-jiffies");
	assert_int_equal(jpath_int(run, "counts.refused"), 2);
	assert_int_equal(jpath_int(run, "counts.inside"), 0);
	json_object_put(run);
	err_free();
	rmtree(dir);
}

static void test_collect_truncated(void **state)
{
	struct json_object *run, *end;
	char *dir = tmpdir();

	(void)state;
	errf = err_open();
	assert_int_equal(collect(dir, "hz-1000", CAP("truncated.jsonl"),
				 "crashed", 0), HZRIG_COLLECT_PROBLEMS);
	run = run_json(dir, "hz-1000");
	assert_int_equal(jpath_int(run, "counts.samples"), 2);
	assert_int_equal(jpath_int(run, "capture.bad_lines"), 1);
	assert_true(json_object_object_get_ex(run, "capture", &end));
	assert_true(json_object_object_get_ex(end, "truncated", &end));
	assert_true(json_object_get_boolean(end));
	assert_string_equal(jpath_str(run, "boot_status"), "crashed");
	json_object_put(run);
	err_free();
	rmtree(dir);
}

/* --boot-status may name hzrig boot's status.json; its accel is used. */
static void test_collect_boot_status_file(void **state)
{
	struct hzrig_collect_opts o = {
		.variant = "hz-1000", .serial = CAP("good.jsonl"),
		.console = CAP("console.log"),
		.boot_status = CAP("status-ok.json"),
	};
	struct json_object *run, *boot;
	char *dir = tmpdir();

	(void)state;
	errf = err_open();
	o.out_dir = dir;
	o.err = errf;
	assert_int_equal(hzrig_collect(&o), HZRIG_COLLECT_OK);
	run = run_json(dir, "hz-1000");
	assert_string_equal(jpath_str(run, "boot_status"), "ok");
	assert_string_equal(jpath_str(run, "accel"), "tcg");
	assert_true(json_object_object_get_ex(run, "boot", &boot));
	assert_int_equal(jpath_int(boot, "guest_rc"), 0);
	json_object_put(run);

	o.boot_status = CAP("status-bad.json");
	assert_int_equal(hzrig_collect(&o), HZRIG_COLLECT_FAILED);
	assert_contains(err_text(), "status-bad.json: field \"status\"");
	err_free();
	errf = err_open();
	o.err = errf;
	o.boot_status = "sideways";
	assert_int_equal(hzrig_collect(&o), HZRIG_COLLECT_FAILED);
	assert_contains(err_text(), "--boot-status: 'sideways' is not");
	err_free();
	rmtree(dir);
}

/*
 * Every way a collect can fail leaves an existing samples.jsonl byte for
 * byte as it was, and no temporary file behind.
 */
static void test_collect_failure_keeps_results(void **state)
{
	static const char before[] =
		"{\"variant\":\"hz-100\",\"verdict\":\"inside\"}\n"
		"{\"variant\":\"hz-1000\",\"verdict\":\"late\"}\n";
	char *dir = tmpdir(), path[512], vpath[512], *after;
	struct hzrig_collect_opts o = { 0 };

	(void)state;
	snprintf(path, sizeof(path), "%s/samples.jsonl", dir);
	write_file(path, before);

	errf = err_open();
	/* No meta record. */
	assert_int_equal(collect(dir, "hz-1000", CAP("nometa.jsonl"), "ok", 0),
			 HZRIG_COLLECT_FAILED);
	/* Capture of another variant. */
	assert_int_equal(collect(dir, "hz-250", CAP("good.jsonl"), "ok", 0),
			 HZRIG_COLLECT_FAILED);
	/* Missing capture, bad variant name, negative floor. */
	assert_int_equal(collect(dir, "hz-1000", CAP("nonexistent.jsonl"), "ok", 0),
			 HZRIG_COLLECT_FAILED);
	assert_int_equal(collect(dir, "../hz-1000", CAP("good.jsonl"), "ok", 0),
			 HZRIG_COLLECT_FAILED);
	assert_int_equal(collect(dir, "hz-1000", CAP("good.jsonl"), "ok", -1),
			 HZRIG_COLLECT_FAILED);
	/* Missing console log. */
	o.variant = "hz-1000";
	o.serial = CAP("good.jsonl");
	o.console = CAP("nonexistent.log");
	o.out_dir = dir;
	o.err = errf;
	assert_int_equal(hzrig_collect(&o), HZRIG_COLLECT_FAILED);
	/*
	 * run.json cannot be written (the variant's directory is a file):
	 * the samples were already prepared in a temporary file, which must
	 * not be committed.
	 */
	snprintf(vpath, sizeof(vpath), "%s/hz-1000", dir);
	write_file(vpath, "in the way\n");
	assert_int_equal(collect(dir, "hz-1000", CAP("good.jsonl"), "ok", 0),
			 HZRIG_COLLECT_FAILED);
	/*
	 * The last step fails: run.json is a directory, so its rename fails
	 * after samples.jsonl was already replaced; that must be undone.
	 */
	assert_int_equal(unlink(vpath), 0);
	assert_int_equal(mkdir(vpath, 0755), 0);
	snprintf(vpath, sizeof(vpath), "%s/hz-1000/run.json", dir);
	assert_int_equal(mkdir(vpath, 0755), 0);
	snprintf(vpath, sizeof(vpath), "%s/hz-1000/run.json/x", dir);
	write_file(vpath, "x\n");
	assert_int_equal(collect(dir, "hz-1000", CAP("good.jsonl"), "ok", 0),
			 HZRIG_COLLECT_FAILED);
	assert_contains(err_text(), "nothing recorded");
	assert_contains(err_text(), "meta: field \"variant\": 'hz-1000', but collecting variant 'hz-250'");
	assert_contains(err_text(), "run.json: ");

	after = read_file(path, NULL);
	assert_non_null(after);
	assert_string_equal(after, before);
	free(after);
	/* samples.jsonl and the variant's directory: no leftovers. */
	assert_int_equal(count_entries(dir), 2);
	snprintf(vpath, sizeof(vpath), "%s/hz-1000", dir);
	assert_int_equal(count_entries(vpath), 1);
	err_free();
	rmtree(dir);
}

/* Collecting a variant again replaces its samples and keeps everything else. */
static void test_collect_replaces_variant(void **state)
{
	struct json_object *l[64];
	char *dir = tmpdir(), path[512], *text;
	size_t n, i, n100 = 0, n1000 = 0;

	(void)state;
	snprintf(path, sizeof(path), "%s/samples.jsonl", dir);
	write_file(path, "{\"variant\":\"hz-42\",\"note\":\"from elsewhere\"}\n");
	errf = err_open();
	assert_int_equal(collect(dir, "hz-1000", CAP("good.jsonl"), "ok", 0), 0);
	assert_int_equal(collect(dir, "hz-100", CAP("good-hz100.jsonl"), "ok", 0), 0);
	assert_int_equal(collect(dir, "hz-1000", CAP("good.jsonl"), "ok", 0), 0);
	assert_contains(err_text(), "replaced 11 earlier samples of hz-1000");
	n = load_lines(dir, l, 64);
	assert_int_equal(n, 1 + 5 + 11);
	for (i = 0; i < n; i++) {
		n100 += !strcmp(jpath_str(l[i], "variant"), "hz-100");
		n1000 += !strcmp(jpath_str(l[i], "variant"), "hz-1000");
	}
	assert_int_equal(n100, 5);
	assert_int_equal(n1000, 11);
	put_lines(l, n);
	text = read_file(path, NULL);
	assert_non_null(strstr(text, "{\"variant\":\"hz-42\",\"note\":\"from elsewhere\"}\n"));
	free(text);
	err_free();
	rmtree(dir);
}

/* ---------------------------------------------------------------------- */

static int report(const char *dir, char **out)
{
	size_t len;
	FILE *f = open_memstream(out, &len);
	int ret;

	assert_non_null(f);
	ret = hzrig_report(dir, f, errf);
	fclose(f);
	return ret;
}

static void test_report(void **state)
{
	char *dir = tmpdir(), *out;
	struct json_object *run;

	(void)state;
	errf = err_open();
	assert_int_equal(collect(dir, "hz-100", CAP("good-hz100.jsonl"), "ok", 0), 0);
	assert_int_equal(report(dir, &out), 0);
	assert_contains(out, "hz-100: HZ=100");
	assert_contains(out, "allowance 1.400 ms");
	assert_contains(out, "  efficiency: 1.2 s of requested waits in 1.5 s of measuring (0.80)\n");
	/* One row per call and timeout, window in ms, min/median/max, n/N. */
	assert_contains(out, "(10.000, 20.000]");
	assert_contains(out, "11.000");
	assert_contains(out, "15.000");
	assert_contains(out, "19.000");
	assert_contains(out, "3/3");
	assert_contains(out, "1057.500");
	assert_contains(out, "hz-100: 5 samples, 5 inside (100.0%)");
	assert_contains(out, "PASS");
	assert_contains(out, "report: 1 variants, 1 pass, 0 fail");
	free(out);
	run = run_json(dir, "hz-100");
	assert_int_equal(jpath_int(run, "schema"), 1);
	assert_int_equal(jpath_int(run, "efficiency.waits_ms"), 1200);
	assert_int_equal(jpath_int(run, "efficiency.wall_ms"), 1500);
	json_object_put(run);

	/* 8 of 11 inside: below 95%, and the variant fails. */
	assert_int_equal(collect(dir, "hz-1000", CAP("good.jsonl"), "ok", 0), 0);
	assert_int_equal(report(dir, &out), 1);
	assert_contains(out, "hz-1000: 11 samples, 8 inside (72.7%), 1 early, 1 late, 1 wrong status: FAIL (72.7% inside < 95%)");
	assert_contains(out, "1/4");
	/* The three samples outside the model are listed, one line each. */
	assert_contains(out, "  not explained by the model:\n");
	assert_contains(out, "    case 0 rep 1: bulk-in nak ms T=10 ms (arg 10): early, status -110 (expected -110), 9.000 ms, window (10.000, 11.000] ms + 1.000 ms allowance\n");
	assert_contains(out, "    case 0 rep 2: bulk-in nak ms T=10 ms (arg 10): late, status -110 (expected -110), 12.000 ms");
	assert_contains(out, "    case 0 rep 3: bulk-in nak ms T=10 ms (arg 10): wrong-status, status 0 (expected -110), 10.400 ms");
	assert_null(strstr(out, "case 1 rep 0:"));
	/* Variants in HZ order. */
	assert_true(strstr(out, "hz-100:") < strstr(out, "hz-1000:"));
	free(out);
	err_free();
	rmtree(dir);
}

/* The end record says how the cases ran; run.json and the report carry it. */
static void test_end_parallel(void **state)
{
	char *dir = tmpdir(), *text, *end, *cap, *out;
	struct hzrig_capture c;
	struct json_object *run, *eff, *v;
	char path[512];

	(void)state;
	errf = err_open();
	assert_int_equal(parse_text(META("") NOISE
				    "{\"type\":\"end\",\"cases\":0,\"samples\":0,"
				    "\"failures\":0,\"parallel\":\"lanes\"}\n", &c), 0);
	assert_string_equal(c.end.parallel, "lanes");
	hzrig_capture_free(&c);
	assert_int_equal(parse_text(META("") NOISE END(0), &c), 0);
	assert_string_equal(c.end.parallel, "");
	hzrig_capture_free(&c);
	assert_int_equal(parse_text(META("") NOISE
				    "{\"type\":\"end\",\"cases\":0,\"samples\":0,"
				    "\"failures\":0,\"parallel\":\"threads\"}\n", &c), 2);
	/* a bad end record is no end record: the capture counts as truncated */
	assert_contains(err_text(), "t.jsonl: no end record after 3 lines");
	assert_contains(err_text(), "t.jsonl:3: end: field \"parallel\": unknown value 'threads'");
	hzrig_capture_free(&c);
	err_free();

	/* The good capture, run in lanes. */
	errf = err_open();
	text = read_file(CAP("good-hz100.jsonl"), NULL);
	assert_non_null(text);
	end = strstr(text, "\"wall_ms\":1500}");
	assert_non_null(end);
	*end = '\0';
	assert_true(asprintf(&cap, "%s\"wall_ms\":1500,\"parallel\":\"lanes\"}%s",
			     text, end + strlen("\"wall_ms\":1500}")) > 0);
	snprintf(path, sizeof(path), "%s/lanes.jsonl", dir);
	write_file(path, cap);
	assert_int_equal(collect(dir, "hz-100", path, "ok", 0), 0);
	run = run_json(dir, "hz-100");
	assert_true(json_object_object_get_ex(run, "efficiency", &eff));
	assert_true(json_object_object_get_ex(eff, "parallel", &v));
	assert_string_equal(json_object_get_string(v), "lanes");
	json_object_put(run);
	assert_int_equal(report(dir, &out), 0);
	assert_contains(out, "  efficiency: 1.2 s of requested waits in 1.5 s of measuring (0.80), parallel = lanes\n");
	free(out);
	free(cap);
	free(text);
	err_free();
	rmtree(dir);
}

static void test_report_boot_not_ok(void **state)
{
	char *dir = tmpdir(), *out;

	(void)state;
	errf = err_open();
	assert_int_equal(collect(dir, "hz-100", CAP("good-hz100.jsonl"),
				 "hung", 0), 0);
	assert_int_equal(report(dir, &out), 1);
	assert_contains(out, "FAIL (boot hung)");
	free(out);
	err_free();
	rmtree(dir);
}

static void test_report_bad_input(void **state)
{
	char *dir = tmpdir(), *out, path[512];

	(void)state;
	errf = err_open();
	assert_int_equal(report("/nonexistent/hzrig", &out), 2);
	free(out);
	assert_int_equal(report(dir, &out), 2);
	free(out);
	assert_contains(err_text(), "no <variant>/run.json: not a run directory");
	err_free();

	errf = err_open();
	assert_int_equal(collect(dir, "hz-100", CAP("good-hz100.jsonl"), "ok", 0), 0);
	snprintf(path, sizeof(path), "%s/samples.jsonl", dir);
	{
		FILE *f = fopen(path, "a");

		assert_non_null(f);
		fputs("this is not json\n", f);
		fclose(f);
	}
	/* One validation for every command: a bad line refuses the run. */
	assert_int_equal(report(dir, &out), 2);
	assert_contains(err_text(), "samples.jsonl:6: not valid JSON");
	assert_contains(err_text(), "1 error, nothing reported");
	assert_null(strstr(out, "hz-100: 5 samples"));
	free(out);
	err_free();
	rmtree(dir);
}

/* ---------------------------------------------------------------------- */
/* Noise probed again as the plan goes (noise-probes.jsonl)                 */
/* ---------------------------------------------------------------------- */

/*
 * The allowance a sample of case @ci should get, worked out from the
 * fixture's own noise records: the larger of the last probe at or before
 * the case and the first after it, at least @floor_ns.
 */
static int64_t want_allowance(const struct hzrig_capture *c, int64_t ci,
			      int64_t floor_ns)
{
	int64_t before = -1, after = -1, a;
	size_t i;

	for (i = 0; i < c->nprobes; i++) {
		const struct hzrig_noise *n = &c->probes[i];
		int64_t pa = n->overshoot_p99_ns + n->rtt_p99_ns;

		if (n->at_case <= ci)
			before = pa;
		else if (after < 0)
			after = pa;
	}
	a = before > after ? before : after;
	return a > floor_ns ? a : floor_ns;
}

static void test_parse_noise_probes(void **state)
{
	struct hzrig_capture c;

	(void)state;
	errf = err_open();
	assert_int_equal(hzrig_capture_load(CAP("noise-probes.jsonl"), &c, errf), 0);
	assert_string_equal(err_text(), "");
	assert_int_equal(c.nprobes, 5);
	assert_int_equal(c.probes[0].at_case, 0);
	assert_int_equal(c.probes[1].at_case, 2);
	assert_int_equal(c.probes[4].at_case, c.end.cases);
	assert_int_equal(c.probes[2].line, 9);
	/* c.noise stays the probe before the plan. */
	assert_true(c.noise.present);
	assert_int_equal(c.noise.line, c.probes[0].line);
	assert_int_equal(c.noise.overshoot_p99_ns, c.probes[0].overshoot_p99_ns);
	assert_int_equal(c.nrecs, 8);
	hzrig_capture_free(&c);
	err_free();

	/* Without at_case (an older guest): one probe, at case 0, as before. */
	errf = err_open();
	assert_int_equal(hzrig_capture_load(CAP("good.jsonl"), &c, errf), 0);
	assert_int_equal(c.nprobes, 1);
	assert_int_equal(c.probes[0].at_case, 0);
	assert_int_equal(c.noise.at_case, 0);
	assert_int_equal(hzrig_case_allowance(&c, 0, 0, NULL),
			 c.noise.overshoot_p99_ns + c.noise.rtt_p99_ns);
	assert_int_equal(hzrig_case_allowance(&c, 9, 0, NULL),
			 c.noise.overshoot_p99_ns + c.noise.rtt_p99_ns);
	hzrig_capture_free(&c);
	err_free();
}

#define NOISE_AT(at) "{\"type\":\"noise\",\"sleep_us\":1000,\"n\":1," \
	"\"overshoot_p50_ns\":1,\"overshoot_p99_ns\":1,\"rtt_n\":1," \
	"\"rtt_p50_ns\":1,\"rtt_p99_ns\":1,\"at_case\":" #at "}\n"
#define END_CASES(n) "{\"type\":\"end\",\"cases\":" #n ",\"samples\":0,\"failures\":0}\n"

static void test_parse_noise_probe_errors(void **state)
{
	struct hzrig_capture c;

	(void)state;
	/* Out of order: the later record is refused, the others kept. */
	errf = err_open();
	assert_int_equal(parse_text(META("") NOISE_AT(0) NOISE_AT(2) NOISE_AT(1)
				    END_CASES(3), &c), 1);
	assert_contains(err_text(), "t.jsonl:4: noise: field \"at_case\": 1 is before the 2 of the noise record on line 3 (out of order)");
	assert_int_equal(c.nprobes, 2);
	assert_int_equal(c.bad_records, 1);
	hzrig_capture_free(&c);
	err_free();

	/* Two at one place: an old capture's second record, or a repeat. */
	errf = err_open();
	assert_int_equal(parse_text(META("") NOISE NOISE END(0), &c), 1);
	assert_contains(err_text(), "t.jsonl:3: noise: a second noise record at case 0 (first on line 2)");
	assert_int_equal(c.nprobes, 1);
	hzrig_capture_free(&c);
	err_free();
	errf = err_open();
	assert_int_equal(parse_text(META("") NOISE_AT(0) NOISE_AT(1) NOISE_AT(1)
				    END_CASES(1), &c), 1);
	assert_contains(err_text(), "t.jsonl:4: noise: a second noise record at case 1 (first on line 3)");
	hzrig_capture_free(&c);
	err_free();

	/* Beyond the plan's cases, and negative. */
	errf = err_open();
	assert_int_equal(parse_text(META("") NOISE_AT(0) NOISE_AT(3)
				    END_CASES(2), &c), 1);
	assert_contains(err_text(), "t.jsonl:3: noise: field \"at_case\": 3 is beyond the 2 cases of the end record (line 4)");
	assert_int_equal(c.nprobes, 1);
	assert_int_equal(c.bad_records, 1);
	hzrig_capture_free(&c);
	err_free();
	errf = err_open();
	assert_int_equal(parse_text(META("") NOISE_AT(-1) END_CASES(2), &c), 2);
	assert_contains(err_text(), "t.jsonl:2: noise: field \"at_case\": -1 is out of range 0..2147483647");
	assert_contains(err_text(), "no noise record");
	hzrig_capture_free(&c);
	err_free();

	/* The only probe out of range: as if there were none. */
	errf = err_open();
	assert_int_equal(parse_text(META("") NOISE_AT(1) END_CASES(0), &c), 2);
	assert_contains(err_text(), "t.jsonl:2: noise: field \"at_case\": 1 is beyond the 0 cases");
	assert_false(c.noise.present);
	assert_int_equal(c.nprobes, 0);
	hzrig_capture_free(&c);
	err_free();
}

static void check_noise_collect(const char *dir, int64_t floor_ns)
{
	struct json_object *l[16], *run, *probes;
	struct hzrig_capture c;
	int64_t most = 0, a, lo, hi, el;
	unsigned int late = 0, distinct = 0;
	int64_t prev = -1;
	size_t n, i;

	assert_int_equal(hzrig_capture_load(CAP("noise-probes.jsonl"), &c, errf), 0);
	n = load_lines(dir, l, 16);
	assert_int_equal(n, c.nrecs);
	for (i = 0; i < n; i++) {
		a = want_allowance(&c, jpath_int(l[i], "case"), floor_ns);
		assert_int_equal(jpath_int(l[i], "allowance_ns"), a);
		if (a != prev)
			distinct++;
		prev = a;
		if (a > most)
			most = a;
		/* NAKed: inside (lo - a, hi + a], else late (none is early). */
		lo = jpath_int(l[i], "window_lo_ns");
		hi = jpath_int(l[i], "window_hi_ns");
		el = jpath_int(l[i], "elapsed_ns");
		assert_true(el >= lo - a);
		assert_string_equal(jpath_str(l[i], "verdict"),
				    el > hi + a ? "late" : "inside");
		late += el > hi + a;
	}
	put_lines(l, n);

	run = run_json(dir, "hz-1000");
	/* "noise" is the first probe; allowance_ns the largest a sample got. */
	assert_int_equal(jpath_int(run, "noise.overshoot_p99_ns"),
			 c.probes[0].overshoot_p99_ns);
	assert_int_equal(jpath_int(run, "noise.rtt_p99_ns"), c.probes[0].rtt_p99_ns);
	assert_int_equal(jpath_int(run, "allowance_ns"), most);
	assert_string_equal(jpath_str(run, "allowance_source"),
			    most > floor_ns ? "noise" : "floor");
	assert_int_equal(jpath_int(run, "counts.late"), late);
	assert_int_equal(jpath_int(run, "counts.inside"), c.nrecs - late);
	assert_true(json_object_object_get_ex(run, "noise_probes", &probes));
	assert_int_equal(json_object_array_length(probes), c.nprobes);
	for (i = 0; i < c.nprobes; i++) {
		struct json_object *p = json_object_array_get_idx(probes, i);
		int64_t pa = c.probes[i].overshoot_p99_ns + c.probes[i].rtt_p99_ns;

		assert_int_equal(jpath_int(p, "at_case"), c.probes[i].at_case);
		assert_int_equal(jpath_int(p, "overshoot_p50_ns"),
				 c.probes[i].overshoot_p50_ns);
		assert_int_equal(jpath_int(p, "rtt_n"), c.probes[i].rtt_n);
		assert_int_equal(jpath_int(p, "rtt_p50_ns"), c.probes[i].rtt_p50_ns);
		assert_int_equal(jpath_int(p, "allowance_ns"),
				 pa > floor_ns ? pa : floor_ns);
	}
	json_object_put(run);
	hzrig_capture_free(&c);
	if (!floor_ns) {
		/* The fixture is to tell the rule apart from simpler ones. */
		assert_true(distinct >= 3);
		assert_true(late >= 2);
	}
}

static void test_collect_noise_probes(void **state)
{
	char *dir = tmpdir(), *out, line[128];
	struct hzrig_capture c;
	int64_t lo = INT64_MAX, hi = 0;
	size_t i;

	(void)state;
	errf = err_open();
	assert_int_equal(collect(dir, "hz-1000", CAP("noise-probes.jsonl"), "ok", 0),
			 HZRIG_COLLECT_OK);
	check_noise_collect(dir, 0);

	/* The report adds the probes' range to the first probe's line. */
	assert_int_equal(hzrig_capture_load(CAP("noise-probes.jsonl"), &c, errf), 0);
	for (i = 0; i < c.nprobes; i++) {
		int64_t pa = c.probes[i].overshoot_p99_ns + c.probes[i].rtt_p99_ns;

		lo = pa < lo ? pa : lo;
		hi = pa > hi ? pa : hi;
	}
	report(dir, &out);
	snprintf(line, sizeof(line), "  noise probes: %zu, allowance %.3f\xe2\x80\x93%.3f ms\n",
		 c.nprobes, lo / 1e6, hi / 1e6);
	assert_contains(out, line);
	/* An unexplained sample names its own allowance. */
	snprintf(line, sizeof(line), "window (10.000, 11.000] ms + %.3f ms allowance\n",
		 want_allowance(&c, 1, 0) / 1e6);
	assert_contains(out, "    case 1 rep 0: bulk-in nak ms T=10 ms (arg 10): late");
	assert_contains(strstr(out, "    case 1 rep 0:"), line);
	free(out);
	hzrig_capture_free(&c);

	/* A floor above some probes lifts those cases only. */
	assert_int_equal(collect(dir, "hz-1000", CAP("noise-probes.jsonl"), "ok",
				 1000000), HZRIG_COLLECT_OK);
	check_noise_collect(dir, 1000000);
	/* A floor above every probe: all of it is the floor's. */
	assert_int_equal(collect(dir, "hz-1000", CAP("noise-probes.jsonl"), "ok",
				 5000000), HZRIG_COLLECT_OK);
	check_noise_collect(dir, 5000000);
	err_free();
	rmtree(dir);

	/* An old capture: one probe, and no range line in the report. */
	dir = tmpdir();
	errf = err_open();
	assert_int_equal(collect(dir, "hz-1000", CAP("good.jsonl"), "ok", 0), 0);
	report(dir, &out);
	assert_null(strstr(out, "noise probes:"));
	free(out);
	err_free();
	rmtree(dir);
}

/* ---------------------------------------------------------------------- */
/* Calls started on stale jiffies (stale-jiffies.jsonl)                     */
/* ---------------------------------------------------------------------- */

/*
 * HZ=100, T=248 ms: n = 25, window (250, 260] ms, allowance 0.3 + 0.5 ms.
 * A start with jiffies_lag L may end L jiffies (10 ms each) early: lo goes
 * down by that, hi stays. Without the field, or with a lag <= 0, the window
 * is the model's.
 */
static void test_collect_stale_jiffies(void **state)
{
	static const struct {
		int64_t lag;		/* INT64_MIN: no field */
		int64_t lo_ms;
		const char *verdict;
	} want[] = {
		{ 1, 240, "inside" },		/* 245.8 ms: a jiffy early */
		{ INT64_MIN, 250, "early" },	/* the same, from an old guest */
		{ 0, 250, "early" },		/* the same, on time */
		{ 1, 240, "early" },		/* 239 ms: more than a jiffy */
		{ -1, 250, "inside" },		/* recorded, window untouched */
		{ 2, 230, "inside" },		/* 236 ms: two jiffies early */
		{ 1, 240, "late" },		/* 261 ms: hi does not move */
	};
	static const struct {
		const char *path;
		int64_t n;
	} counts[] = {
		{ "counts.stale_jiffies", 4 }, { "counts.inside", 3 },
		{ "counts.early", 3 }, { "counts.late", 1 },
	};
	struct json_object *l[16], *run, *v;
	char *dir = tmpdir(), *out;
	size_t n, i;

	(void)state;
	errf = err_open();
	assert_int_equal(collect(dir, "hz-100", CAP("stale-jiffies.jsonl"), "ok",
				 0), HZRIG_COLLECT_OK);
	assert_string_equal(err_text(), "");
	n = load_lines(dir, l, 16);
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < n; i++) {
		assert_int_equal(jpath_int(l[i], "window_lo_ns"),
				 want[i].lo_ms * 1000000);
		assert_int_equal(jpath_int(l[i], "window_hi_ns"), 260000000);
		assert_int_equal(jpath_int(l[i], "allowance_ns"), 800000);
		assert_string_equal(jpath_str(l[i], "verdict"), want[i].verdict);
		if (want[i].lag == INT64_MIN)
			assert_false(json_object_object_get_ex(l[i],
							       "jiffies_lag",
							       &v));
		else
			assert_int_equal(jpath_int(l[i], "jiffies_lag"),
					 want[i].lag);
	}
	put_lines(l, n);
	/* The report names the lag of an unexplained sample that had one. */
	assert_int_equal(report(dir, &out), 1);
	assert_contains(out, "  stale jiffies: 4 of 7 samples started with jiffies behind the tick grid (window lo lowered)\n");
	assert_contains(out, "    case 0 rep 3: bulk-out nak ms T=248 ms (arg 248): early, status -110 (expected -110), 239.000 ms, window (240.000, 260.000] ms + 0.800 ms allowance, jiffies 1 behind at the start\n");
	assert_contains(out, "    case 0 rep 1: bulk-out nak ms T=248 ms (arg 248): early, status -110 (expected -110), 245.800 ms, window (250.000, 260.000] ms + 0.800 ms allowance\n");
	free(out);
	run = run_json(dir, "hz-100");
	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		assert_int_equal(jpath_int(run, counts[i].path), counts[i].n);
	json_object_put(run);
	err_free();
	rmtree(dir);

	/* A capture without the field counts none. */
	dir = tmpdir();
	errf = err_open();
	assert_int_equal(collect(dir, "hz-1000", CAP("good.jsonl"), "ok", 0),
			 HZRIG_COLLECT_OK);
	run = run_json(dir, "hz-1000");
	assert_int_equal(jpath_int(run, "counts.stale_jiffies"), 0);
	json_object_put(run);
	report(dir, &out);
	assert_null(strstr(out, "stale jiffies"));
	free(out);
	err_free();
	rmtree(dir);
}

#define SAMPLE_LAG(lag) "{\"type\":\"sample\",\"case\":0,\"rep\":0," \
	"\"transfer\":\"bulk-in\",\"behaviour\":\"nak\",\"mode\":\"ms\"," \
	"\"timeout_ms\":10,\"timeout_arg\":10,\"status\":-110," \
	"\"elapsed_ns\":10500000,\"actual_length\":0,\"seq\":1," \
	"\"phase_ns\":0,\"jiffies_lag\":" lag "}\n"

static void test_parse_jiffies_lag_errors(void **state)
{
	struct hzrig_capture c;

	(void)state;
	errf = err_open();
	assert_int_equal(parse_text(META("") NOISE SAMPLE_LAG("2147483648")
				    SAMPLE_LAG("\"one\"") SAMPLE_LAG("-3")
				    END(3), &c), 2);
	assert_contains(err_text(), "t.jsonl:3: sample: field \"jiffies_lag\": 2147483648 out of range -2147483648..2147483647");
	assert_contains(err_text(), "t.jsonl:4: sample: field \"jiffies_lag\"");
	assert_int_equal(c.bad_records, 2);
	assert_int_equal(c.nrecs, 1);
	assert_int_equal(c.recs[0].s.jiffies_lag, -3);
	hzrig_capture_free(&c);
	err_free();
}

#define SAMPLE_PATH(path, mode, arg, elapsed) "{\"type\":\"sample\",\"case\":0," \
	"\"rep\":0," path "\"transfer\":\"bulk-in\",\"behaviour\":\"nak\"," \
	"\"mode\":\"" mode "\",\"timeout_ms\":10,\"timeout_arg\":" #arg "," \
	"\"status\":-110,\"elapsed_ns\":" #elapsed ",\"actual_length\":0," \
	"\"seq\":1,\"phase_ns\":0,\"urb_ns\":10400000}\n"

/*
 * The path of a sample: absent reads as kernel (older guests), a known name
 * as itself, anything else is an error naming the line; a userspace path
 * in a kernel-only caller mode is refused. libusb's urb_ns is kept.
 */
static void test_parse_paths(void **state)
{
	struct hzrig_capture c;

	(void)state;
	errf = err_open();
	assert_int_equal(parse_text(META(",\"libusb\":\"1.0.26.11724\"") NOISE
				    SAMPLE_PATH("", "ms", 10, 10500000)
				    SAMPLE_PATH("\"path\":\"usbfs\",", "ms", 10, 10500000)
				    SAMPLE_PATH("\"path\":\"libusb-async\",", "ms", 10, 10600000)
				    SAMPLE_PATH("\"path\":\"usbfs2\",", "ms", 10, 10500000)
				    SAMPLE_PATH("\"path\":\"libusb-sync\",", "legacy-jiffies", 3, 10500000)
				    END(5), &c), 2);
	assert_contains(err_text(), "t.jsonl:6: sample: field \"path\": 'usbfs2' is not kernel, usbfs");
	assert_contains(err_text(), "t.jsonl:7: sample: path libusb-sync cannot make a bulk-in call in mode legacy-jiffies");
	assert_string_equal(c.meta.libusb, "1.0.26.11724");
	assert_int_equal(c.nrecs, 3);
	assert_int_equal(c.recs[0].path, HZRIG_PATH_KERNEL);
	assert_int_equal(c.recs[1].path, HZRIG_PATH_USBFS);
	assert_int_equal(c.recs[2].path, HZRIG_PATH_LIBUSB_ASYNC);
	assert_int_equal(c.recs[2].s.urb_ns, 10400000);
	hzrig_capture_free(&c);
	err_free();
}

#define SAMPLE_USBMON(extra, elapsed, urb) "{\"type\":\"sample\",\"case\":0," \
	"\"rep\":0,\"path\":\"usbmon\",\"transfer\":\"ctrl-in\"," \
	"\"behaviour\":\"nak\",\"mode\":\"hz-constant\",\"timeout_ms\":5000," \
	"\"timeout_arg\":1250,\"status\":-110,\"elapsed_ns\":" #elapsed "," \
	"\"actual_length\":0,\"seq\":0,\"phase_ns\":0,\"urb_ns\":" #urb \
	extra "}\n"

/*
 * An in-tree driver's call (path usbmon): a kernel caller in any mode, its
 * driver and site kept; usbmon's stamps are the measurement, so elapsed_ns
 * must be urb_ns, and driver and path go together.
 */
static void test_parse_usbmon(void **state)
{
	struct hzrig_capture c;

	(void)state;
	errf = err_open();
	assert_int_equal(parse_text(META("") NOISE
		SAMPLE_USBMON(",\"driver\":\"ipheth\",\"site\":\"drivers/net/usb/ipheth.c:289\"",
			      1253000000, 1253000000)
		SAMPLE_USBMON("", 1253000000, 1253000000)
		SAMPLE_USBMON(",\"driver\":\"ipheth\"", 1253000000, 1252000000)
		END(3), &c), 2);
	assert_contains(err_text(), "t.jsonl:4: sample: path usbmon and the fields");
	assert_contains(err_text(), "t.jsonl:5: sample: path usbmon: elapsed_ns is not urb_ns");
	assert_int_equal(c.nrecs, 1);
	assert_int_equal(c.recs[0].path, HZRIG_PATH_USBMON);
	assert_string_equal(c.recs[0].s.driver, "ipheth");
	assert_string_equal(c.recs[0].s.site, "drivers/net/usb/ipheth.c:289");
	assert_int_equal(c.recs[0].mode, HZRIG_MODE_HZ_CONSTANT);
	hzrig_capture_free(&c);
	err_free();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_usbmon),
		cmocka_unit_test(test_parse_paths),
		cmocka_unit_test(test_parse_truncated),
		cmocka_unit_test(test_parse_garbage),
		cmocka_unit_test(test_parse_bad_types),
		cmocka_unit_test(test_parse_meta_errors),
		cmocka_unit_test(test_ktap),
		cmocka_unit_test(test_collect_verdicts),
		cmocka_unit_test(test_collect_noise_floor),
		cmocka_unit_test(test_collect_refused),
		cmocka_unit_test(test_collect_truncated),
		cmocka_unit_test(test_collect_boot_status_file),
		cmocka_unit_test(test_collect_failure_keeps_results),
		cmocka_unit_test(test_collect_replaces_variant),
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_end_parallel),
		cmocka_unit_test(test_report_boot_not_ok),
		cmocka_unit_test(test_report_bad_input),
		cmocka_unit_test(test_parse_noise_probes),
		cmocka_unit_test(test_parse_noise_probe_errors),
		cmocka_unit_test(test_collect_noise_probes),
		cmocka_unit_test(test_collect_stale_jiffies),
		cmocka_unit_test(test_parse_jiffies_lag_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
