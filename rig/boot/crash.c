// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel report patterns (crash.h) and their matching.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "boot/crash.h"

/* The table: docs/robustness.md lists it with the 6.1 source of each. */
const struct hzrig_report_pattern hzrig_report_patterns[HZRIG_NREPORT_PATTERNS] = {
	{ "KASAN", "^BUG: KASAN: ([a-z0-9-]+) in ([A-Za-z0-9_.]+)",
	  "KASAN: $1 $A in $F", HZRIG_FROM_LINE, 0, HZRIG_END_RULE, 0 },
	{ "lockdep", "^WARNING: possible circular locking dependency detected",
	  "lockdep: circular locking dependency in $F", HZRIG_FROM_STACK, 0, HZRIG_END_TASK, 0 },
	{ "lockdep", "^WARNING: (HARDIRQ|SOFTIRQ)-safe -> (HARDIRQ|SOFTIRQ)-unsafe lock order detected",
	  "lockdep: $1-safe -> $2-unsafe lock order in $F",
	  HZRIG_FROM_STACK, 0, HZRIG_END_TASK, 0 },
	{ "lockdep", "^WARNING: possible recursive locking detected",
	  "lockdep: recursive locking in $F", HZRIG_FROM_STACK, 0, HZRIG_END_TASK, 0 },
	{ "lockdep", "^WARNING: inconsistent lock state",
	  "lockdep: inconsistent lock state in $F", HZRIG_FROM_STACK, 0, HZRIG_END_TASK, 0 },
	{ "lockdep", "^WARNING: possible irq lock inversion dependency detected",
	  "lockdep: irq lock inversion in $F", HZRIG_FROM_STACK, 0, HZRIG_END_TASK, 0 },
	{ "lockdep", "^WARNING: bad unlock balance detected!",
	  "lockdep: bad unlock balance in $F", HZRIG_FROM_STACK, 0, HZRIG_END_TASK, 0 },
	{ "lockdep", "^WARNING: held lock freed!",
	  "lockdep: held lock freed in $F", HZRIG_FROM_STACK, 0, HZRIG_END_TASK, 0 },
	{ "lockdep", "^WARNING: [^ ]+/[0-9]+ still has locks held!",
	  "lockdep: locks held at exit in $F", HZRIG_FROM_STACK, 0, HZRIG_END_TASK, 0 },
	{ "lockdep", "^WARNING: lock held when returning to user space!",
	  "lockdep: lock held when returning to user space",
	  HZRIG_FROM_NONE, 0, HZRIG_END_LINE, 0 },
	{ "lockdep", "^WARNING: suspicious RCU usage",
	  "lockdep: suspicious RCU usage in $F", HZRIG_FROM_STACK, 0, HZRIG_END_TASK, 0 },
	{ "ODEBUG", "^ODEBUG: ([a-z_]+) ([a-z_ ]+) \\(active state [0-9]+\\) object type: ([A-Za-z0-9_]+)",
	  "ODEBUG: $1 $2 $3 in $F", HZRIG_FROM_STACK, 0, HZRIG_END_TRACE, 0 },
	{ "DEBUG_RWSEMS", "^DEBUG_RWSEMS_WARN_ON\\(",
	  "DEBUG_RWSEMS: warning in $F", HZRIG_FROM_STACK, 0, HZRIG_END_TRACE, 0 },
	{ "BUG", "^BUG: sleeping function called from invalid context at ([^ ]+)",
	  "BUG: sleeping function called from invalid context in $F",
	  HZRIG_FROM_STACK, 1, HZRIG_END_TASK, 0 },
	{ "BUG", "^BUG: scheduling while atomic: ",
	  "BUG: scheduling while atomic in $F", HZRIG_FROM_STACK, 0, HZRIG_END_TASK, 0 },
	{ "WARNING", "^WARNING: CPU: [0-9]+ PID: [0-9]+ at ([^ ]+) ([A-Za-z0-9_.]+)",
	  "WARNING in $F", HZRIG_FROM_LINE, 1, HZRIG_END_TRACE, HZRIG_REPORT_JOINS },
	{ "GPF", "^general protection fault",
	  "general protection fault in $F", HZRIG_FROM_RIP, 0, HZRIG_END_TRACE, 0 },
	{ "BUG", "^kernel BUG at ([^ !]+)!",
	  "kernel BUG in $F", HZRIG_FROM_RIP, 1, HZRIG_END_TRACE, 0 },
	{ "BUG", "^BUG: kernel NULL pointer dereference",
	  "BUG: kernel NULL pointer dereference in $F", HZRIG_FROM_RIP, 0, HZRIG_END_TRACE, 0 },
	{ "BUG", "^BUG: unable to handle page fault",
	  "BUG: unable to handle page fault in $F", HZRIG_FROM_RIP, 0, HZRIG_END_TRACE, 0 },
	{ "BUG", "^Oops: ",
	  "Oops in $F", HZRIG_FROM_RIP, 0, HZRIG_END_TRACE, HZRIG_REPORT_JOINS },
	{ "hung", "^INFO: task [^ ]+ blocked for more than [0-9]+ seconds",
	  "INFO: task hung in $F", HZRIG_FROM_STACK, 0, HZRIG_END_TASK, 0 },
	{ "lockup", "^(watchdog: )?BUG: soft lockup - CPU#[0-9]+ stuck for",
	  "BUG: soft lockup in $F", HZRIG_FROM_RIP, 0, HZRIG_END_TASK, 0 },
	{ "BUG", "^BUG: workqueue lockup",
	  "BUG: workqueue lockup", HZRIG_FROM_NONE, 0, HZRIG_END_LINE, 0 },
	{ "BUG", "^BUG: (spinlock [a-z ]+) on CPU",
	  "BUG: $1 in $F", HZRIG_FROM_STACK, 0, HZRIG_END_TASK, 0 },
	{ "panic", "^Kernel panic - not syncing: (.*)",
	  "kernel panic: $1", HZRIG_FROM_NONE, 0, HZRIG_END_LINE, HZRIG_REPORT_JOINS },
	{ "BUG", "^Unable to handle kernel ([a-z ]*[a-z])",
	  "Unable to handle kernel $1 in $F", HZRIG_FROM_STACK, 0, HZRIG_END_TRACE, 0 },
	/* Last: any other "BUG: <words>" the kernel prints. */
	{ "BUG", "^BUG: ([A-Za-z][A-Za-z -]*[A-Za-z])",
	  "BUG: $1 in $F", HZRIG_FROM_STACK, 0, HZRIG_END_TASK, 0 },
};

size_t hzrig_timestamp_len(const char *s)
{
	const char *p = s;

	if (*p++ != '[')
		return 0;
	while (*p == ' ')
		p++;
	if (*p < '0' || *p > '9')
		return 0;
	while ((*p >= '0' && *p <= '9') || *p == '.')
		p++;
	if (*p++ != ']')
		return 0;
	if (*p == ' ')
		p++;
	return (size_t)(p - s);
}

int hzrig_report_res_init(struct hzrig_report_res *r)
{
	for (r->compiled = 0; r->compiled < HZRIG_NREPORT_PATTERNS; r->compiled++)
		if (regcomp(&r->re[r->compiled],
			    hzrig_report_patterns[r->compiled].re, REG_EXTENDED))
			return -1;
	return 0;
}

void hzrig_report_res_free(struct hzrig_report_res *r)
{
	size_t i;

	for (i = 0; i < r->compiled; i++)
		regfree(&r->re[i]);
	r->compiled = 0;
}

int hzrig_report_match(const struct hzrig_report_res *r, const char *body,
		       size_t nm, regmatch_t *m)
{
	size_t i;

	for (i = 0; i < r->compiled; i++)
		if (!regexec(&r->re[i], body, nm, m, 0))
			return (int)i;
	return -1;
}

int hzrig_crash_line(const char *line)
{
	static struct hzrig_report_res res;
	static bool ready;

	/*
	 * Compiled once. The table is constant: a pattern regcomp() refuses
	 * is a bug in it, said once; no line is then called a crash.
	 */
	if (!ready) {
		ready = true;
		if (hzrig_report_res_init(&res)) {
			fprintf(stderr, "hzrig: kernel report pattern %zu (%s) does not compile; crash lines go unseen\n",
				res.compiled, hzrig_report_patterns[res.compiled].re);
			hzrig_report_res_free(&res);
		}
	}
	return hzrig_report_match(&res, line + hzrig_timestamp_len(line), 0,
				  NULL);
}
