/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Build and boot: the shell stages beside this file build each variant's
 * kernel, module and initramfs (matrix.sh) and `hzrig boot` runs one guest
 * under QEMU with a watchdog, its settings read from qemu/<arch>.conf.
 * The settings and the reading of a guest's console are shared with the
 * LAVA stage (rig/lava/), which hands the same guest to a lab.
 */
#ifndef HZRIG_BOOT_H
#define HZRIG_BOOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* qemu/<arch>.conf: QEMU settings as data (comments in the file). */
struct hzrig_qemu_conf {
	char binary[128];
	char args[512];
	char cpu_tcg[64];
	char cpu_kvm[64];
	char append[512];
	char append_tcg[256];
	/* more frontends of the samples file's chardev (id hzrig1) */
	char samples_args[512];
	unsigned int boot_budget_s;
	unsigned int slack_percent;
	unsigned int smoke_timeout_s;
	unsigned int done_grace_s;	/* after "guest done", to power off */
};

/* 0, or -1 with the file, line and key said on stderr. */
int hzrig_qemu_conf_load(const char *path, struct hzrig_qemu_conf *c);

/*
 * The watchdog's budget for a plan: boot_budget_s plus the plan's summed
 * waits times (100 + slack_percent) %; 0 (said) when the plan is bad.
 */
unsigned int hzrig_boot_budget_s(const struct hzrig_qemu_conf *c,
				 const char *plan);

/* This host's TSC rate (kHz), for %HOST_TSC_KHZ% in append_tcg. */
unsigned long hzrig_host_tsc_khz(void);
void hzrig_expand_append(char *out, size_t len, const char *in,
			 unsigned long tsc_khz);

/* What a guest's console says about how it ended, line by line. */
struct hzrig_console_end {
	int guest_rc;		/* -1 until "hzrig: guest done rc=N" */
	char crash[256];	/* the first crash line */
	char last[256];		/* the last non-empty line */
};

/* What a console line is to the readers' timings. */
enum hzrig_console_line {
	HZRIG_LINE_OTHER,
	HZRIG_LINE_RESULT,	/* a KTAP result: "ok N ..." or "not ok N ..." */
	HZRIG_LINE_PLAN,	/* "# running N cases ...": the plan begins */
};

/* Note one line (no newline) and say what it is. */
enum hzrig_console_line hzrig_console_note(struct hzrig_console_end *e,
					   const char *line);
/* "ok", "failed" or "crashed" (then e->crash says why). */
const char *hzrig_console_status(struct hzrig_console_end *e);

/*
 * status.json: how a guest ended, as `hzrig boot --status` and `hzrig
 * ingest --lava` write it and collect reads it. timeout_s 0 and accel ""
 * are left out; extra, when not NULL, is more members (",\"key\":value").
 */
struct hzrig_boot_status {
	const char *variant, *status, *accel, *crash, *extra;
	int guest_rc;
	unsigned int timeout_s;
	double wall_s, first_result_s, first_case_s;	/* -1: never */
};

/* Written whole (a temporary file renamed); 0, or -1 said on @err. */
int hzrig_boot_status_write(const char *path,
			    const struct hzrig_boot_status *st, FILE *err);

/* `hzrig boot` and `hzrig accel` (argv[0] tells which). */
int cmd_boot(int argc, char **argv);

#endif /* HZRIG_BOOT_H */
