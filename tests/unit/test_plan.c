// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the plan parser (rig/plan/plan.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "plan/plan.h"

static char err[256];

static int parse(const char *text, struct hzrig_plan *p)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	assert_non_null(f);
	ret = hzrig_plan_parse(f, "t.plan", p, err, sizeof(err));
	fclose(f);
	return ret;
}

static void expect_error(const char *text, const char *msg)
{
	struct hzrig_plan p;

	assert_int_equal(parse(text, &p), -1);
	assert_int_equal(p.ncases, 0);
	assert_null(p.cases);
	if (!strstr(err, msg))
		fail_msg("error '%s' does not contain '%s'", err, msg);
}

static void test_cross_product(void **state)
{
	struct hzrig_plan p;

	(void)state;
	assert_int_equal(parse("# comment\n\ncase transfer=bulk-in,ctrl-out "
			       "behaviour=nak mode=ms,legacy-jiffies "
			       "timeout=1,10,100 reps=5\n", &p), 0);
	assert_int_equal(p.ncases, 2 * 2 * 3);
	/* Order: transfer, behaviour, mode, timeout, innermost last. */
	assert_int_equal(p.cases[0].transfer, HZRIG_XFER_BULK_IN);
	assert_int_equal(p.cases[0].mode, HZRIG_MODE_MS);
	assert_int_equal(p.cases[0].timeout_ms, 1);
	assert_int_equal(p.cases[2].timeout_ms, 100);
	assert_int_equal(p.cases[3].mode, HZRIG_MODE_LEGACY_JIFFIES);
	assert_int_equal(p.cases[6].transfer, HZRIG_XFER_CTRL_OUT);
	assert_int_equal(p.cases[11].timeout_ms, 100);
	assert_int_equal(p.cases[11].reps, 5);
	assert_int_equal(p.cases[11].line, 3);
	/* Defaults: 64 bytes, random start phase. */
	assert_int_equal(p.cases[0].length, 64);
	assert_true(p.cases[0].flags & HZRIG_CASE_RANDOM_PHASE);
	assert_int_equal(hzrig_plan_wait_ms(&p, 0), 2 * 2 * (1 + 10 + 100) * 5);
	/* legacy-jiffies at HZ=100: 1, 10, 100 ms become 1, 1, 10 jiffies, read as ms. */
	assert_int_equal(hzrig_plan_wait_ms(&p, 100),
			 2 * (1 + 10 + 100) * 5 + 2 * (1 + 1 + 10) * 5);
	hzrig_plan_free(&p);
}

static void test_keys(void **state)
{
	struct hzrig_plan p;

	(void)state;
	assert_int_equal(parse("case transfer=bulk-in behaviour=short "
			       "timeout=50 reps=1 length=512 short=10 "
			       "phase=tick # trailing comment\n"
			       "case transfer=int-in behaviour=delay "
			       "delay_us=2500 timeout=1 reps=3\n", &p), 0);
	assert_int_equal(p.ncases, 2);
	assert_int_equal(p.cases[0].behaviour, HZRIG_BEH_SHORT);
	assert_int_equal(p.cases[0].length, 512);
	assert_int_equal(p.cases[0].short_length, 10);
	assert_false(p.cases[0].flags & HZRIG_CASE_RANDOM_PHASE);
	assert_int_equal(p.cases[1].delay_us, 2500);
	/* A delay longer than the timeout waits the timeout only. */
	assert_int_equal(hzrig_plan_wait_ms(&p, 0), 3 * 1);
	hzrig_plan_free(&p);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("", "t.plan:0: plan has no cases");
	expect_error("# only comments\n", "no cases");
	expect_error("run transfer=bulk-in\n", "t.plan:1: unknown directive 'run'");
	expect_error("\ncase transfer=bulk-up behaviour=nak timeout=1 reps=1\n",
		     "t.plan:2: transfer: unknown value 'bulk-up'");
	expect_error("case transfer=bulk-in behaviour=nak timeout=1\n",
		     "case without reps=");
	expect_error("case transfer=bulk-in behaviour=nak reps=1\n",
		     "case without timeout=");
	expect_error("case behaviour=nak timeout=1 reps=1\n",
		     "case without transfer=");
	expect_error("case transfer=bulk-in timeout=1 reps=1\n",
		     "case without behaviour=");
	expect_error("case transfer=bulk-in behaviour=nak timeout=1 reps=0\n",
		     "reps: 0 is out of range 1..1000");
	expect_error("case transfer=bulk-in behaviour=nak timeout=120001 reps=1\n",
		     "timeout: 120001 is out of range");
	expect_error("case transfer=bulk-in behaviour=nak timeout=-1 reps=1\n",
		     "timeout: '-1' is not a number");
	expect_error("case transfer=bulk-in behaviour=nak timeout=5ms reps=1\n",
		     "timeout: '5ms' is not a number");
	expect_error("case transfer=bulk-in behaviour=nak timeout=1,,2 reps=1\n",
		     "timeout: empty element");
	expect_error("case transfer=bulk-in behaviour=nak timeout=1 reps=1 x=2\n",
		     "unknown key 'x'");
	expect_error("case transfer=bulk-in behaviour=nak timeout=1 reps=1 oops\n",
		     "expected key=value, got 'oops'");
	expect_error("case transfer=bulk-in behaviour=nak timeout= reps=1\n",
		     "timeout: missing value");
	expect_error("case transfer=bulk-in behaviour=short timeout=1 reps=1 short=64\n",
		     "short: needs 0 < short < length (64)");
	expect_error("case transfer=bulk-in behaviour=delay timeout=1 reps=1\n",
		     "behaviour delay needs delay_us=");
	expect_error("case transfer=bulk-in-killable behaviour=nak mode=zero timeout=5 reps=1\n",
		     "never times out");
	expect_error("case transfer=bulk-in-killable behaviour=nak timeout=0 reps=1\n",
		     "never times out");
	expect_error("case transfer=bulk-in behaviour=nak timeout=1 reps=1 phase=late\n",
		     "phase: 'late' is neither random nor tick");
	expect_error("case transfer=bulk-in,ctrl-out behaviour=nak timeout=1 reps=1 length=257\n",
		     "length: 257 is over 256, the most a control transfer carries");
	expect_error("case transfer=bulk-in behaviour=nak timeout=99999999999 reps=1\n",
		     "out of range");
}

static void test_long_line(void **state)
{
	char text[2100];

	(void)state;
	memset(text, ' ', sizeof(text) - 2);
	memcpy(text, "case", 4);
	text[sizeof(text) - 2] = '\n';
	text[sizeof(text) - 1] = '\0';
	expect_error(text, "t.plan:1: line longer than");
}

/* A key given twice: an error naming it, whichever value came first. */
static void test_repeated_key(void **state)
{
	(void)state;
	expect_error("case transfer=bulk-in behaviour=nak timeout=1 timeout=5 reps=2\n",
		     "t.plan:1: timeout: given twice on one line");
	expect_error("case transfer=bulk-in behaviour=nak timeout=1 reps=2 reps=2\n",
		     "reps: given twice");
	expect_error("case transfer=bulk-in behaviour=nak,stall behaviour=nak timeout=1 reps=1\n",
		     "behaviour: given twice");
	expect_error("case transfer=bulk-in behaviour=nak timeout=1 reps=1 phase=tick phase=random\n",
		     "phase: given twice");
}

/* A NUL byte is named as such, not as a long line. */
static void test_nul_byte(void **state)
{
	static const char text[] = "case transfer=bulk-in behaviour=nak timeout=1 re\0ps=2\n";
	struct hzrig_plan p;
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");

	(void)state;
	assert_non_null(f);
	assert_int_equal(hzrig_plan_parse(f, "t.plan", &p, err, sizeof(err)), -1);
	fclose(f);
	assert_null(p.cases);
	if (!strstr(err, "t.plan:1: NUL byte at column 49"))
		fail_msg("error '%s' does not name the NUL byte", err);
}

/* One line may not expand into a runaway plan. */
static void test_plan_size(void **state)
{
	char text[1024], list[600];
	struct hzrig_plan p;
	size_t n = 0;
	int i;

	(void)state;
	/* 64 timeouts x 32 transfers x 5 behaviours: 10240 cases. */
	for (i = 0; i < 64; i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%d",
				      i ? "," : "", i + 1);
	snprintf(text, sizeof(text),
		 "case transfer=bulk-in%s behaviour=nak,stall,answer,nak,stall timeout=%s reps=1\n",
		 ",int-in,bulk-out,ctrl-in,ctrl-out,bulk-in,int-in,bulk-out"
		 ",bulk-in,int-in,bulk-out,bulk-in,int-in,bulk-out,int-in,bulk-in"
		 ",bulk-in,int-in,bulk-out,bulk-in,int-in,bulk-out,int-in,bulk-in"
		 ",bulk-in,int-in,bulk-out,bulk-in,int-in,bulk-out,int-in,bulk-in",
		 list);
	expect_error(text, "more than 10000 cases in the plan");
	/* 64 x 31 cases of 1000 reps: over a million samples. */
	snprintf(text, sizeof(text),
		 "case transfer=bulk-in%s behaviour=nak timeout=%s reps=1000\n",
		 ",int-in,bulk-out,bulk-in,int-in,bulk-out,int-in,bulk-in"
		 ",bulk-in,int-in,bulk-out,bulk-in,int-in,bulk-out,int-in,bulk-in"
		 ",bulk-in,int-in,bulk-out,bulk-in,int-in,bulk-out,int-in,bulk-in"
		 ",bulk-in,int-in,bulk-out,bulk-in,int-in,bulk-out,int-in",
		 list);
	expect_error(text, "more than 1000000 samples in the plan");
	/* Just under both limits is fine. */
	assert_int_equal(parse("case transfer=bulk-in behaviour=nak timeout=1 reps=1000\n", &p), 0);
	assert_int_equal(p.nsamples, 1000);
	hzrig_plan_free(&p);
}

static void test_names_round_trip(void **state)
{
	uint32_t i;

	(void)state;
	for (i = 0; i < HZRIG_XFER_COUNT; i++)
		assert_int_equal(hzrig_transfer_parse(hzrig_transfer_name(i)), i);
	for (i = 0; i < HZRIG_BEH_COUNT; i++)
		assert_int_equal(hzrig_behaviour_parse(hzrig_behaviour_name(i)), i);
	for (i = 0; i < HZRIG_MODE_COUNT; i++)
		assert_int_equal(hzrig_mode_parse(hzrig_mode_name(i)), i);
	assert_null(hzrig_transfer_name(HZRIG_XFER_COUNT));
	assert_int_equal(hzrig_mode_parse("MS"), -1);
}

static void test_parallel(void **state)
{
	static const char *const cases =
		"case transfer=bulk-in behaviour=nak timeout=1 reps=1\n";
	struct hzrig_plan p;
	char text[256];

	(void)state;
	/* not given: serial */
	assert_int_equal(parse(cases, &p), 0);
	assert_int_equal(p.parallel, HZRIG_PARALLEL_SERIAL);
	assert_int_equal(p.parallel_line, 0);
	hzrig_plan_free(&p);

	/* either spelling, anywhere in the plan, with a comment */
	snprintf(text, sizeof(text), "%sparallel = lanes # one per endpoint\n",
		 cases);
	assert_int_equal(parse(text, &p), 0);
	assert_int_equal(p.parallel, HZRIG_PARALLEL_LANES);
	assert_int_equal(p.parallel_line, 2);
	assert_int_equal(p.ncases, 1);
	hzrig_plan_free(&p);
	snprintf(text, sizeof(text), "  parallel=serial\n%s", cases);
	assert_int_equal(parse(text, &p), 0);
	assert_int_equal(p.parallel, HZRIG_PARALLEL_SERIAL);
	assert_int_equal(p.parallel_line, 1);
	hzrig_plan_free(&p);

	expect_error("parallel = threads\ncase transfer=bulk-in behaviour=nak "
		     "timeout=1 reps=1\n",
		     "t.plan:1: parallel: 'threads' is neither serial nor lanes");
	expect_error("parallel lanes\n", "t.plan:1: parallel: expected");
	expect_error("parallel\n", "t.plan:1: parallel: expected");
	expect_error("parallel =\n", "t.plan:1: parallel: missing value");
	expect_error("parallel = lanes serial\n",
		     "parallel: unexpected 'serial' after the value");
	expect_error("parallel = lanes\nparallel = serial\n",
		     "t.plan:2: parallel: already set on line 1");
	/* a word that merely starts with it is no directive */
	expect_error("parallelism = lanes\n",
		     "unknown directive 'parallelism'");
	/* a bad plan leaves no setting behind */
	expect_error("parallel = lanes\ncase transfer=x\n", "transfer");

	assert_int_equal(hzrig_parallel_parse("lanes"), HZRIG_PARALLEL_LANES);
	assert_int_equal(hzrig_parallel_parse("serial"), HZRIG_PARALLEL_SERIAL);
	assert_int_equal(hzrig_parallel_parse("Lanes"), -1);
	assert_string_equal(hzrig_parallel_name(HZRIG_PARALLEL_LANES), "lanes");
	assert_null(hzrig_parallel_name(HZRIG_PARALLEL_COUNT));
}

/* Endpoints that share a pipe share a lane; the others have their own. */
static void test_lanes(void **state)
{
	(void)state;
	assert_int_equal(hzrig_transfer_lane(HZRIG_XFER_CTRL_IN),
			 hzrig_transfer_lane(HZRIG_XFER_CTRL_OUT));
	assert_int_equal(hzrig_transfer_lane(HZRIG_XFER_BULK_IN),
			 hzrig_transfer_lane(HZRIG_XFER_BULK_IN_KILLABLE));
	assert_int_not_equal(hzrig_transfer_lane(HZRIG_XFER_BULK_IN),
			     hzrig_transfer_lane(HZRIG_XFER_BULK_OUT));
	assert_int_not_equal(hzrig_transfer_lane(HZRIG_XFER_BULK_IN),
			     hzrig_transfer_lane(HZRIG_XFER_INT_IN));
	assert_int_not_equal(hzrig_transfer_lane(HZRIG_XFER_CTRL_IN),
			     hzrig_transfer_lane(HZRIG_XFER_BULK_OUT));
	assert_int_equal(hzrig_transfer_lane(HZRIG_XFER_COUNT),
			 HZRIG_LANE_COUNT);
	assert_string_equal(hzrig_lane_name(hzrig_transfer_lane(
				HZRIG_XFER_CTRL_OUT)), "ep0");
	assert_null(hzrig_lane_name(HZRIG_LANE_COUNT));
}

static void test_case_wait(void **state)
{
	struct hzrig_plan_case c = {
		.transfer = HZRIG_XFER_BULK_IN, .behaviour = HZRIG_BEH_NAK,
		.mode = HZRIG_MODE_ZERO, .timeout_ms = 0, .reps = 1,
	};

	(void)state;
	assert_int_equal(hzrig_case_wait_ms(&c, 0), 60000);
	c.mode = HZRIG_MODE_HZ_CONSTANT;
	c.timeout_ms = 1000;
	assert_int_equal(hzrig_case_wait_ms(&c, 250), 250);
	assert_int_equal(hzrig_case_wait_ms(&c, 0), 1000);
	c.mode = HZRIG_MODE_LEGACY_JIFFIES;
	c.timeout_ms = 5;
	assert_int_equal(hzrig_case_wait_ms(&c, 250), 2);	/* 1.25 -> 2 jiffies */
	c.behaviour = HZRIG_BEH_STALL;
	assert_int_equal(hzrig_case_wait_ms(&c, 250), 0);
}

static void test_eta(void **state)
{
	(void)state;
	/* Nothing done yet: the waits alone. */
	assert_int_equal(hzrig_eta_ms(33320, 0, 140, 0, 0), 33320);
	/* 20 reps of 1 ms took 600 ms: 29 ms overhead each for 120 more. */
	assert_int_equal(hzrig_eta_ms(33320, 20, 140, 20, 600),
			 33300 + 120 * 29);
	/* Faster than requested (rounding down cannot happen, noise can). */
	assert_int_equal(hzrig_eta_ms(1000, 500, 10, 5, 400), 500);
	/* Done. */
	assert_int_equal(hzrig_eta_ms(1000, 1000, 10, 10, 5000), 0);
}

static void test_expected_status(void **state)
{
	(void)state;
	assert_int_equal(hzrig_expected_status(HZRIG_BEH_NAK, 0, 10), -ETIMEDOUT);
	assert_int_equal(hzrig_expected_status(HZRIG_BEH_ANSWER, 0, 10), 0);
	assert_int_equal(hzrig_expected_status(HZRIG_BEH_STALL, 0, 10), -EPIPE);
	assert_int_equal(hzrig_expected_status(HZRIG_BEH_DELAY, 9999, 10), 0);
	assert_int_equal(hzrig_expected_status(HZRIG_BEH_DELAY, 10000, 10), -ETIMEDOUT);
}

/* The plans the rig ships must parse. */
/* The path key: kernel by default, outermost in the cross product. */
static void test_paths(void **state)
{
	struct hzrig_plan p;

	(void)state;
	assert_int_equal(parse("case transfer=bulk-in behaviour=nak timeout=1 reps=1\n",
			       &p), 0);
	assert_int_equal(p.cases[0].path, HZRIG_PATH_KERNEL);
	hzrig_plan_free(&p);
	assert_int_equal(parse("case path=usbfs,libusb-async transfer=bulk-in,ctrl-in behaviour=nak timeout=1 reps=1\n",
			       &p), 0);
	assert_int_equal(p.ncases, 4);
	assert_int_equal(p.cases[0].path, HZRIG_PATH_USBFS);
	assert_int_equal(p.cases[0].transfer, HZRIG_XFER_BULK_IN);
	assert_int_equal(p.cases[1].path, HZRIG_PATH_USBFS);
	assert_int_equal(p.cases[1].transfer, HZRIG_XFER_CTRL_IN);
	assert_int_equal(p.cases[2].path, HZRIG_PATH_LIBUSB_ASYNC);
	hzrig_plan_free(&p);
	/* A late answer with timeout 0 ends by itself on a userspace path. */
	assert_int_equal(parse("case path=libusb-sync transfer=bulk-in behaviour=delay delay_us=20000 mode=zero timeout=0 reps=1\n",
			       &p), 0);
	assert_int_equal(hzrig_case_expected_status(&p.cases[0]), 0);
	p.cases[0].path = HZRIG_PATH_KERNEL;	/* clamped to 60 s: also 0 */
	assert_int_equal(hzrig_case_expected_status(&p.cases[0]), 0);
	p.cases[0].mode = HZRIG_MODE_MS;
	assert_int_equal(hzrig_case_expected_status(&p.cases[0]), -ETIMEDOUT);
	hzrig_plan_free(&p);

	expect_error("case path=usb transfer=bulk-in behaviour=nak timeout=1 reps=1\n",
		     "t.plan:1: path: unknown value 'usb'");
	expect_error("case path=usbfs transfer=bulk-in-killable behaviour=nak timeout=1 reps=1\n",
		     "path usbfs: bulk-in-killable is a kernel call");
	expect_error("case path=libusb-sync transfer=bulk-in behaviour=nak mode=legacy-jiffies timeout=1 reps=1\n",
		     "path libusb-sync: mode legacy-jiffies is a kernel driver's mistake");
	expect_error("case path=usbfs transfer=bulk-in behaviour=nak mode=zero timeout=1 reps=1\n",
		     "path usbfs: timeout 0 waits forever there");
	expect_error("case path=libusb-async transfer=ctrl-in behaviour=nak timeout=0 reps=1\n",
		     "path libusb-async: timeout 0 waits forever there");
	expect_error("case path=usbfs path=kernel transfer=bulk-in behaviour=nak timeout=1 reps=1\n",
		     "path: given twice on one line");
	/* path usbmon: an in-tree driver's call, named by driver= */
	assert_int_equal(parse("case path=usbmon driver=ipheth transfer=ctrl-in behaviour=nak mode=hz-constant timeout=5000 reps=3\n",
			       &p), 0);
	assert_int_equal(p.cases[0].path, HZRIG_PATH_USBMON);
	assert_string_equal(p.cases[0].driver, "ipheth");
	assert_int_equal(p.cases[0].mode, HZRIG_MODE_HZ_CONSTANT);
	hzrig_plan_free(&p);
	expect_error("case path=usbmon transfer=ctrl-in behaviour=nak timeout=1 reps=1\n",
		     "driver= and path=usbmon go together");
	expect_error("case driver=ipheth transfer=ctrl-in behaviour=nak timeout=1 reps=1\n",
		     "driver= and path=usbmon go together");
	expect_error("case path=usbmon driver=ipheth transfer=bulk-in behaviour=nak timeout=1 reps=1\n",
		     "path usbmon: only ctrl-in and ctrl-out");
	expect_error("case path=usbmon driver=ipheth transfer=ctrl-in behaviour=answer timeout=1 reps=1\n",
		     "path usbmon: only behaviour nak");
	expect_error("case path=usbmon driver=../x transfer=ctrl-in behaviour=nak timeout=1 reps=1\n",
		     "driver: '../x' is not a module name");
	expect_error("case path=usbmon driver=a_name_that_is_much_too_long_for_it transfer=ctrl-in behaviour=nak timeout=1 reps=1\n",
		     "is not a module name");
	assert_string_equal(hzrig_path_name(HZRIG_PATH_USBMON), "usbmon");
	assert_string_equal(hzrig_path_name(HZRIG_PATH_LIBUSB_SYNC), "libusb-sync");
	assert_int_equal(hzrig_path_parse("libusb-async"), HZRIG_PATH_LIBUSB_ASYNC);
	assert_null(hzrig_path_name(HZRIG_PATH_COUNT));
}

static void test_shipped_plans(void **state)
{
	static const char *const plans[] = { "default", "quick", "full",
					     "drivers", "drivers-fixed" };
	struct hzrig_plan p;
	char path[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(plans) / sizeof(*plans); i++) {
		snprintf(path, sizeof(path), "%s/%s.plan", PLAN_DIR, plans[i]);
		if (hzrig_plan_load(path, &p, err, sizeof(err)))
			fail_msg("%s", err);
		assert_true(p.ncases > 0);
		hzrig_plan_free(&p);
	}
	assert_int_equal(hzrig_plan_load(PLAN_DIR "/nonexistent.plan", &p,
					 err, sizeof(err)), -1);
	assert_non_null(strstr(err, "No such file"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cross_product),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_repeated_key),
		cmocka_unit_test(test_nul_byte),
		cmocka_unit_test(test_plan_size),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_names_round_trip),
		cmocka_unit_test(test_expected_status),
		cmocka_unit_test(test_parallel),
		cmocka_unit_test(test_lanes),
		cmocka_unit_test(test_case_wait),
		cmocka_unit_test(test_eta),
		cmocka_unit_test(test_shipped_plans),
		cmocka_unit_test(test_paths),
	};

	return cmocka_run_group_tests_name("plan", tests, NULL, NULL);
}
