// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the checker's evaluator and fact parser (rig/checker/).
 * Expected values are worked out by hand from include/linux/jiffies.h of
 * 6.1: msecs_to_jiffies(m) = ceil(m / (1000 / HZ)) where HZ divides 1000,
 * ceil(3m / 10) at HZ=300; jiffies_to_msecs(j) = j * 1000 / HZ.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "checker/checker.h"

/* A lookup over a fixed table: name, text. */
static const char *const defs[][2] = {
	{ "TIMEOUT", "( 5 * HZ )" },
	{ "SECS", "3" },
	{ "BY_SECS", "SECS * HZ" },
	{ "LOOP_A", "LOOP_B + 1" },	/* a cycle: must end */
	{ "LOOP_B", "LOOP_A + 1" },
	{ "MS", "500" },
	{ "NOT_AN_EXPR", "do { } while (0)" },
};

static const char *lookup(void *ctx, const char *name, int *id)
{
	size_t i;

	(void)ctx;
	for (i = 0; i < sizeof(defs) / sizeof(defs[0]); i++) {
		if (!strcmp(defs[i][0], name)) {
			*id = (int)i;
			return defs[i][1];
		}
	}
	return NULL;
}

static struct hzrig_expr_val ev(const char *text, int hz)
{
	struct hzrig_expr_val v;
	char err[128];

	assert_int_equal(hzrig_expr_eval(text, hz, lookup, NULL, &v, err,
					 sizeof(err)), 0);
	return v;
}

static void test_arithmetic(void **state)
{
	struct hzrig_expr_val v;

	(void)state;
	v = ev("2 * HZ + HZ / 2", 250);	/* 500 + 125 */
	assert_true(v.known && v.hz_based);
	assert_int_equal(v.v, 625);
	assert_int_equal(ev("HZ / 4", 250).v, 62);	/* C truncates */
	assert_int_equal(ev("( int ) ( HZ * 2 )", 100).v, 200);
	assert_int_equal(ev("(unsigned long)HZ << 1", 300).v, 600);
	assert_int_equal(ev("HZ > 100 ? HZ : 100", 1000).v, 1000);
	assert_int_equal(ev("-HZ + 0x10", 100).v, -84);
	assert_int_equal(ev("10UL * 1000", 100).v, 10000);
	v = ev("1000", 100);
	assert_true(v.known && !v.hz_based);
	/* division by zero and overflow are unknown, not a crash */
	assert_false(ev("HZ / 0", 100).known);
	assert_false(ev("HZ * 9223372036854775807", 100).known);
	assert_true(ev("HZ * 9223372036854775807", 100).hz_based);
}

static void test_conversions(void **state)
{
	struct hzrig_expr_val v;

	(void)state;
	assert_int_equal(ev("msecs_to_jiffies ( 250 )", 100).v, 25);
	assert_int_equal(ev("msecs_to_jiffies(250)", 250).v, 63);
	assert_int_equal(ev("msecs_to_jiffies(250)", 300).v, 75);
	assert_int_equal(ev("msecs_to_jiffies(1)", 300).v, 1);
	assert_int_equal(ev("usecs_to_jiffies(1500000)", 250).v, 375);
	assert_int_equal(ev("secs_to_jiffies(2)", 300).v, 600);
	assert_true(ev("msecs_to_jiffies(250)", 100).hz_based);
	/* back to milliseconds: HZ no longer reaches the value */
	v = ev("jiffies_to_msecs(2 * HZ)", 250);
	assert_true(v.known && !v.hz_based);
	assert_int_equal(v.v, 2000);
	assert_int_equal(ev("min(HZ, 300)", 1000).v, 300);
	assert_int_equal(ev("max_t(int, HZ, 300)", 100).v, 300);
	assert_int_equal(ev("DIV_ROUND_UP(HZ, 3)", 1000).v, 334);
	/* an unknown call: unknown, but HZ inside still counts */
	v = ev("foo(HZ)", 100);
	assert_false(v.known);
	assert_true(v.hz_based);
}

static void test_names(void **state)
{
	struct hzrig_expr_val v;

	(void)state;
	v = ev("TIMEOUT", 1000);
	assert_true(v.known && v.hz_based);
	assert_int_equal(v.v, 5000);
	assert_int_equal(v.origin, 0);	/* where HZ is written */
	v = ev("BY_SECS * 2", 250);
	assert_int_equal(v.v, 1500);
	assert_int_equal(v.origin, 2);
	v = ev("MS", 100);
	assert_true(v.known && !v.hz_based);
	assert_int_equal(v.origin, -1);
	/* HZ written at the call itself */
	assert_int_equal(ev("MS + HZ", 100).origin, -1);
	/* jiffies: a reading, no value */
	v = ev("end - jiffies", 100);
	assert_true(v.hz_based && v.runtime && !v.known);
	/* unknown names, cycles, bodies that are no expression */
	assert_false(ev("timeout_ms", 100).known);
	assert_false(ev("timeout_ms", 100).hz_based);
	assert_false(ev("LOOP_A", 100).known);
	assert_false(ev("NOT_AN_EXPR", 100).known);
	assert_false(ev("dev->timeout", 100).known);
	assert_false(ev("tab[HZ]", 100).known);
}

static void test_syntax_errors(void **state)
{
	struct hzrig_expr_val v;
	char err[128] = "";

	(void)state;
	assert_int_equal(hzrig_expr_eval("5 * ", 100, NULL, NULL, &v, err,
					 sizeof(err)), -1);
	assert_non_null(strstr(err, "unexpected"));
	assert_false(v.known);
	assert_int_equal(hzrig_expr_eval("( HZ", 100, NULL, NULL, &v, err,
					 sizeof(err)), -1);
	assert_non_null(strstr(err, "expected ')'"));
	assert_int_equal(hzrig_expr_eval("HZ HZ", 100, NULL, NULL, &v, err,
					 sizeof(err)), -1);
	assert_int_equal(hzrig_expr_eval("99999999999999999999", 100, NULL,
					 NULL, &v, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "integer literal"));
	/* NULL err is allowed */
	assert_int_equal(hzrig_expr_eval("@", 100, NULL, NULL, &v, NULL, 0), -1);
}

static void test_facts(void **state)
{
	struct hzrig_facts f = { 0 };
	char err[128];

	(void)state;
	assert_int_equal(hzrig_facts_parse_line(&f, "other output", err,
						sizeof(err)), 0);
	assert_int_equal(hzrig_facts_parse_line(&f,
		"HZRIG {\"kind\": \"sink\", \"file\": \"a.c\", \"func\": \"f\", "
		"\"line\": 3, \"col\": 4, \"line_end\": 3, \"col_end\": 9, "
		"\"expr\": \"5 * HZ\", \"api\": \"usb_bulk_msg\", "
		"\"call_line\": 3, \"call_col\": 1}", err, sizeof(err)), 0);
	assert_int_equal(f.n, 1);
	assert_string_equal(f.v[0].expr, "5 * HZ");
	assert_int_equal(f.v[0].at.col_end, 9);
	/* a sink without its call position, an unknown kind, not JSON */
	assert_int_equal(hzrig_facts_parse_line(&f,
		"HZRIG {\"kind\": \"sink\", \"file\": \"a.c\", \"line\": 3, "
		"\"col\": 4, \"line_end\": 3, \"col_end\": 9, \"expr\": \"x\", "
		"\"api\": \"usb_bulk_msg\"}", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "call_line"));
	assert_int_equal(hzrig_facts_parse_line(&f,
		"HZRIG {\"kind\": \"nonsense\"}", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "kind"));
	assert_int_equal(hzrig_facts_parse_line(&f, "HZRIG [1,", err,
						sizeof(err)), -1);
	assert_int_equal(f.n, 1);
	hzrig_facts_free(&f);
}

static void test_defines(void **state)
{
	struct hzrig_facts f = { 0 };
	char path[] = "/tmp/hzrig-test-defines-XXXXXX";
	int fd = mkstemp(path);
	FILE *fp = fdopen(fd, "w");

	(void)state;
	assert_non_null(fp);
	fputs("#define A (5 * HZ) /* ms? */\n"
	      "#  define B \\\n\t(2 * HZ)\n"
	      "#define F(x) ((x) * HZ)\n"
	      "#define EMPTY\n"
	      "/* #define C 1 */\n"
	      "#define D \"/*\" // x\n", fp);
	fclose(fp);
	assert_int_equal(hzrig_facts_read_defines(&f, path, "x.h", NULL, 0), 0);
	unlink(path);
	assert_int_equal(f.n, 3);
	assert_string_equal(f.v[0].name, "A");
	assert_string_equal(f.v[0].expr, "(5 * HZ)");
	assert_int_equal(f.v[0].at.col, 10);
	assert_int_equal(f.v[0].at.col_end, 18);
	assert_string_equal(f.v[1].name, "B");
	assert_int_equal(f.v[1].at.col_end, -1);	/* continued */
	assert_non_null(strstr(f.v[1].expr, "(2 * HZ)"));
	assert_string_equal(f.v[2].name, "D");
	assert_string_equal(f.v[2].expr, "\"/*\"");
	hzrig_facts_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arithmetic),
		cmocka_unit_test(test_conversions),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_facts),
		cmocka_unit_test(test_defines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
