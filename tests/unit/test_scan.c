// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the console report scanner (rig/collect/scan.c) on captured
 * consoles (tests/data/consoles/): one finding per report, stable titles,
 * the case that was running, reports interleaved with userspace output and
 * truncated at the end of the log.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "boot/boot.h"
#include "boot/crash.h"
#include "collect/scan.h"

#define CONSOLES DATA_DIR "/consoles/"

static void scan(const char *name, struct hzrig_findings *fs)
{
	char why[256];

	memset(fs, 0, sizeof(*fs));
	if (hzrig_scan_file(name, fs, why, sizeof(why)))
		fail_msg("%s: %s", name, why);
}

static void scan_text(const char *text, struct hzrig_findings *fs)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	assert_non_null(f);
	memset(fs, 0, sizeof(*fs));
	assert_int_equal(hzrig_scan_console(f, fs), 0);
	fclose(f);
}

static void assert_finding(const struct hzrig_finding *f, const char *title,
			   const char *kind, const char *running)
{
	if (strcmp(f->title, title))
		fail_msg("title '%s', expected '%s'", f->title, title);
	assert_string_equal(f->kind, kind);
	assert_string_equal(f->running, running);
}

static void test_kasan_interleaved(void **state)
{
	struct hzrig_findings fs;

	(void)state;
	scan(CONSOLES "kasan-uaf.log", &fs);
	assert_int_equal(fs.n, 1);
	assert_finding(&fs.v[0], "KASAN: use-after-free Write in hzrig_heartbeat",
		       "KASAN", "scenario unbind 17/100");
	assert_int_equal(fs.v[0].line, 7);
	assert_false(fs.v[0].truncated);
	/* the report's lines, not the KTAP line written into its middle */
	assert_non_null(strstr(fs.v[0].excerpt, "Freed by task 1:"));
	assert_null(strstr(fs.v[0].excerpt, "ok 1 noise_floor"));
	/* it ended at KASAN's closing rule */
	assert_null(strstr(fs.v[0].excerpt, "Disabling lock debugging"));
	hzrig_findings_free(&fs);
}

static void test_odebug_absorbs_its_warning(void **state)
{
	struct hzrig_findings fs;

	(void)state;
	scan(CONSOLES "odebug-free-active.log", &fs);
	/* the WARNING debug_print_object() raises is the same report */
	assert_int_equal(fs.n, 1);
	assert_finding(&fs.v[0], "ODEBUG: free active timer_list in hzrig_delete",
		       "ODEBUG", "scenario disconnect 3/100");
	assert_non_null(strstr(fs.v[0].excerpt, "end trace"));
	hzrig_findings_free(&fs);
}

static void test_odebug_two_word_state(void **state)
{
	struct hzrig_findings fs;

	(void)state;
	/* as the unsafe-teardown demo printed it (6.1 debugobjects.c:515) */
	scan_text("[    5.425198] ------------[ cut here ]------------\n"
		  "[    5.425278] ODEBUG: assert_init not available (active state 0) object type: timer_list hint: hzrig_heartbeat+0x0/0x163 [hzrig_host]\n"
		  "[    5.425765] WARNING: CPU: 0 PID: 14 at lib/debugobjects.c:515 debug_print_object+0x16f/0x188\n"
		  "[    5.425800] Call Trace:\n"
		  "[    5.425801]  <TASK>\n"
		  "[    5.425802]  debug_object_assert_init+0x1f0/0x210\n"
		  "[    5.425803]  __mod_timer+0x7d/0x6a0\n"
		  "[    5.425804]  __queue_delayed_work+0x10a/0x150\n"
		  "[    5.425805]  queue_delayed_work_on+0x5b/0x80\n"
		  "[    5.425806]  hzrig_heartbeat+0x101/0x163 [hzrig_host]\n"
		  "[    5.425807]  </TASK>\n"
		  "[    5.425808] ---[ end trace 0000000000000000 ]---\n", &fs);
	assert_int_equal(fs.n, 1);
	assert_finding(&fs.v[0],
		       "ODEBUG: assert_init not available timer_list in hzrig_heartbeat",
		       "ODEBUG", "");
	hzrig_findings_free(&fs);
}

static void test_lockdep_skips_its_machinery(void **state)
{
	struct hzrig_findings fs;

	(void)state;
	scan(CONSOLES "lockdep-inconsistent.log", &fs);
	assert_int_equal(fs.n, 1);
	/* past lockdep, the spinlock and rwsem frames; .isra.0 dropped */
	assert_finding(&fs.v[0],
		       "lockdep: inconsistent lock state in hzrig_rwsem_writer",
		       "lockdep", "scenario rwsem-irq 1/10000");
	hzrig_findings_free(&fs);
}

static void test_sleeping_and_warning(void **state)
{
	struct hzrig_findings fs;

	(void)state;
	scan(CONSOLES "sleeping-atomic.log", &fs);
	assert_int_equal(fs.n, 2);
	assert_finding(&fs.v[0],
		       "BUG: sleeping function called from invalid context in hzrig_rwsem_irqs_off",
		       "BUG", "scenario rwsem-irqs-off 1/1");
	assert_string_equal(fs.v[0].where, "kernel/locking/rwsem.c:1520");
	assert_finding(&fs.v[1], "WARNING in usb_submit_urb", "WARNING",
		       "scenario rwsem-irqs-off 1/1");
	assert_string_equal(fs.v[1].where, "drivers/usb/core/urb.c:379");
	hzrig_findings_free(&fs);
}

static void test_hung_lockup_gpf_panic(void **state)
{
	struct hzrig_findings fs;

	(void)state;
	scan(CONSOLES "hung-lockup-gpf.log", &fs);
	/* the panic after the oops belongs to the oops */
	assert_int_equal(fs.n, 3);
	assert_finding(&fs.v[0], "INFO: task hung in hzrig_pre_reset", "hung",
		       "case 4/12 ctrl-in nak ms T=100 ms x3");
	assert_finding(&fs.v[1], "BUG: soft lockup in queued_spin_lock_slowpath",
		       "lockup", "case 4/12 ctrl-in nak ms T=100 ms x3");
	assert_finding(&fs.v[2], "general protection fault in hzrig_heartbeat",
		       "GPF", "case 4/12 ctrl-in nak ms T=100 ms x3");
	assert_non_null(strstr(fs.v[2].excerpt, "Fatal exception"));
	hzrig_findings_free(&fs);
}

static void test_truncated(void **state)
{
	struct hzrig_findings fs;

	(void)state;
	scan(CONSOLES "truncated.log", &fs);
	assert_int_equal(fs.n, 1);
	/* cut before its stack: no function, and said so */
	assert_finding(&fs.v[0], "lockdep: circular locking dependency",
		       "lockdep", "scenario unbind 99/100");
	assert_true(fs.v[0].truncated);
	hzrig_findings_free(&fs);
}

static void test_clean_console(void **state)
{
	struct hzrig_findings fs;

	(void)state;
	/* a run's console with KTAP failures but no kernel report */
	scan(DATA_DIR "/captures/console.log", &fs);
	assert_int_equal(fs.n, 0);
	hzrig_findings_free(&fs);
}

static void test_not_reports(void **state)
{
	struct hzrig_findings fs;

	(void)state;
	/* "BUG"/"WARNING" inside other text, userspace's words, no prefix */
	scan_text("[    1.0] hzrig: no BUG: here\n"
		  "not ok 3 WARNING: CPU: 0 PID: 1 at x.c:1 f+0x1/0x2\n"
		  "[    1.1] usb 1-1: WARNING: device quirk\n"
		  "# WARNING: inconsistent lock state (a comment)\n", &fs);
	assert_int_equal(fs.n, 0);
	hzrig_findings_free(&fs);
}

static void test_panic_alone_and_panic_after(void **state)
{
	struct hzrig_findings fs;

	(void)state;
	/* a panic far from any report is a finding of its own */
	scan_text("[ 1.0] Kernel panic - not syncing: hung_task: blocked tasks\n",
		  &fs);
	assert_int_equal(fs.n, 1);
	assert_finding(&fs.v[0], "kernel panic: hung_task: blocked tasks",
		       "panic", "");
	hzrig_findings_free(&fs);

	/* the oops's own panic, after a long register dump: the oops's */
	{
		char text[4096], *p = text;
		int i;

		p += sprintf(p, "[ 1.0] general protection fault, probably for non-canonical address 0x1: 0000 [#1] SMP KASAN\n"
			     "[ 1.0] RIP: 0010:list_del_init+0x22/0xb9\n"
			     "[ 1.0] ---[ end trace 0000000000000000 ]---\n");
		for (i = 0; i < 30; i++)
			p += sprintf(p, "[ 1.1] R%02d: 0000000000000000\n", i);
		sprintf(p, "[ 1.2] Kernel panic - not syncing: Fatal exception\n");
		scan_text(text, &fs);
		assert_int_equal(fs.n, 1);
		assert_string_equal(fs.v[0].title, "general protection fault in list_del_init");
		assert_non_null(strstr(fs.v[0].excerpt, "Fatal exception"));
		hzrig_findings_free(&fs);
	}
}

static void test_many_reports_grow(void **state)
{
	struct hzrig_findings fs;
	char text[64 * 40], *p = text;
	int i;

	(void)state;
	/* more reports than the first allocation holds; titles stay right */
	for (i = 0; i < 40; i++)
		p += sprintf(p, "[ %d.0] BUG: workqueue lockup - pool\n", i);
	scan_text(text, &fs);
	assert_int_equal(fs.n, 40);
	for (i = 0; i < 40; i++)
		assert_string_equal(fs.v[i].title, "BUG: workqueue lockup");
	hzrig_findings_free(&fs);
}

static void test_line_limit_and_excerpt_cap(void **state)
{
	struct hzrig_findings fs;
	size_t len = 400 * 80;
	char *text = malloc(len), *p = text;
	int i;

	(void)state;
	assert_non_null(text);
	/* a report that never ends: cut at the line limit, then a new one */
	p += sprintf(p, "[ 1.0] BUG: sleeping function called from invalid context at a.c:1\n");
	for (i = 0; i < 300; i++)
		p += sprintf(p, "[ 1.%d] filler line %d of a long report\n", i, i);
	p += sprintf(p, "[ 2.0] BUG: scheduling while atomic: sh/1/0x00000002\n");
	scan_text(text, &fs);
	assert_int_equal(fs.n, 2);
	assert_true(strlen(fs.v[0].excerpt) < HZRIG_EXCERPT_MAX);
	assert_non_null(strstr(fs.v[0].excerpt, "[... excerpt cut]"));
	assert_string_equal(fs.v[1].title, "BUG: scheduling while atomic");
	hzrig_findings_free(&fs);
	free(text);
}

static void test_table(void **state)
{
	size_t i, n = hzrig_scan_patterns();
	static const char *const kinds[] = {
		"KASAN", "lockdep", "ODEBUG", "BUG", "WARNING", "GPF", "hung",
		"lockup", "panic",
	};
	size_t k;

	(void)state;
	/* every kind the issue names has at least one pattern */
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		for (i = 0; i < n; i++)
			if (!strcmp(hzrig_scan_pattern_kind(i), kinds[k]))
				break;
		if (i == n)
			fail_msg("no pattern of kind %s", kinds[k]);
	}
	assert_null(hzrig_scan_pattern_kind(n));
}

/*
 * Boot (boot/console.c) and the scanner read a console with one table
 * (boot/crash.h): on every captured console, the line boot calls the
 * guest's crash is the line the scanner's first report starts on, and a
 * console without a report is no crash to either.
 */
static void test_boot_and_scanner_agree(void **state)
{
	static const char *const logs[] = {
		"hung-lockup-gpf.log", "kasan-uaf.log", "lockdep-inconsistent.log",
		"odebug-free-active.log", "sleeping-atomic.log", "truncated.log",
	};
	static const char *const clean[] = {
		"[    1.000000] hzrig: 3 cases", "WARNING-free line", "# case bulk-in",
		"[    2.000000] usb 1-1: new full-speed USB device number 2",
	};
	size_t i, n, crash_line;
	char path[512], line[4096];

	(void)state;
	for (i = 0; i < sizeof(logs) / sizeof(logs[0]); i++) {
		struct hzrig_console_end e = { .guest_rc = -1 };
		struct hzrig_findings fs = { 0 };
		char why[256];
		FILE *f;

		snprintf(path, sizeof(path), "%s/consoles/%s", DATA_DIR, logs[i]);
		assert_int_equal(hzrig_scan_file(path, &fs, why, sizeof(why)), 0);
		f = fopen(path, "r");
		assert_non_null(f);
		n = crash_line = 0;
		while (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\r\n")] = '\0';
			n++;
			if (!e.crash[0]) {
				hzrig_console_note(&e, line);
				if (e.crash[0])
					crash_line = n;
			}
		}
		fclose(f);
		if (!fs.n)
			fail_msg("%s: no report found", logs[i]);
		if (crash_line != fs.v[0].line)
			fail_msg("%s: boot's crash on line %zu, the first report on line %u",
				 logs[i], crash_line, fs.v[0].line);
		hzrig_findings_free(&fs);
	}
	for (i = 0; i < sizeof(clean) / sizeof(clean[0]); i++)
		assert_int_equal(hzrig_crash_line(clean[i]), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kasan_interleaved),
		cmocka_unit_test(test_boot_and_scanner_agree),
		cmocka_unit_test(test_odebug_absorbs_its_warning),
		cmocka_unit_test(test_odebug_two_word_state),
		cmocka_unit_test(test_lockdep_skips_its_machinery),
		cmocka_unit_test(test_sleeping_and_warning),
		cmocka_unit_test(test_hung_lockup_gpf_panic),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_clean_console),
		cmocka_unit_test(test_not_reports),
		cmocka_unit_test(test_panic_alone_and_panic_after),
		cmocka_unit_test(test_many_reports_grow),
		cmocka_unit_test(test_line_limit_and_excerpt_cap),
		cmocka_unit_test(test_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
