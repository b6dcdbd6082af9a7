/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a kernel report looks like on a guest's console, once for every
 * reader: `hzrig boot` and the LAVA stage (boot/console.c) call a guest
 * crashed on the first line that starts a report, and the scanner
 * (collect/scan.c) turns each report into a finding with a title. The
 * table is docs/robustness.md's, with the 6.1 source of each line.
 */
#ifndef HZRIG_CRASH_H
#define HZRIG_CRASH_H

#include <regex.h>
#include <stddef.h>

/* Where the function in the title comes from. */
enum hzrig_func_from {
	HZRIG_FROM_NONE,			/* the title names none */
	HZRIG_FROM_LINE,			/* the start line's group 2 */
	HZRIG_FROM_STACK,			/* the first frame not skipped */
	HZRIG_FROM_RIP,			/* the oops's "RIP: 0010:func+..." */
};

/* What ends a report (besides another report, or the line limit). */
enum hzrig_report_end {
	HZRIG_END_LINE,			/* the start line alone */
	HZRIG_END_RULE,			/* KASAN: a line of '=' */
	HZRIG_END_TASK,			/* the stack's " </TASK>" */
	HZRIG_END_TRACE,			/* "---[ end trace ...]---" */
};

/*
 * HZRIG_REPORT_JOINS: a line of this pattern inside an open report belongs to that report
 * (the WARNING line debug objects and DEBUG_RWSEMS print with WARN(), the
 * "Oops:" line after "BUG: unable to handle ...", the panic after an oops).
 */
#define HZRIG_REPORT_JOINS		0x1

struct hzrig_report_pattern {
	const char *kind;
	const char *re;		/* ERE on the line without its timestamp */
	/* $1..$3: the start line's groups; $A: Read/Write; $F: the function */
	const char *title;
	enum hzrig_func_from func;
	int where_group;	/* group naming FILE:LINE; 0: none */
	enum hzrig_report_end end;
	unsigned int flags;
};

#define HZRIG_NREPORT_PATTERNS	28
extern const struct hzrig_report_pattern hzrig_report_patterns[HZRIG_NREPORT_PATTERNS];

/* Length of a printk timestamp "[   12.345678] " at @s, 0 if none. */
size_t hzrig_timestamp_len(const char *s);

/* The table's expressions compiled (regcomp, REG_EXTENDED). */
struct hzrig_report_res {
	regex_t re[HZRIG_NREPORT_PATTERNS];
	size_t compiled;
};

int hzrig_report_res_init(struct hzrig_report_res *r);
void hzrig_report_res_free(struct hzrig_report_res *r);

/*
 * The index of the first pattern matching @body (a console line without
 * its timestamp), its groups in @m[@nm]; -1 when it starts no report.
 */
int hzrig_report_match(const struct hzrig_report_res *r, const char *body,
		       size_t nm, regmatch_t *m);

/* Does console line @line (timestamp and all) start a kernel report? */
int hzrig_crash_line(const char *line);

#endif /* HZRIG_CRASH_H */
