/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LAVA: the same guest handed to a lab instead of booted here
 * (docs/lava.md). `hzrig lava jobs` writes one LAVA job per variant from
 * the rig's own QEMU settings (rig/boot/qemu/<arch>.conf) and plan budget;
 * `hzrig lava device` the device dictionary of a local QEMU for lava-run.
 * The guest prints its samples in-band on its one console
 * (hzrig.samples=console): `hzrig ingest --lava` reads a job's log back
 * into the capture files a local boot leaves (console.log, ttyS1.jsonl,
 * status.json, build.json), and collect takes it from there.
 */
#ifndef HZRIG_LAVA_H
#define HZRIG_LAVA_H

#include <stdio.h>

#include "boot/boot.h"

/* The in-band tags (initramfs/init, initramfs/runner/hzrig-runner.c). */
#define HZRIG_LAVA_TAG_JSONL	"hzrig-jsonl "
#define HZRIG_LAVA_TAG_END	"hzrig-jsonl-end "
#define HZRIG_LAVA_TAG_BUILD	"hzrig-build "

/*
 * A variant's capture, as a local boot leaves it and the run directory
 * keeps it: what hzrig_lava_unpack() writes.
 */
#define HZRIG_LAVA_CAPTURE_N	4
extern const char *const hzrig_lava_capture[HZRIG_LAVA_CAPTURE_N];

/* The LAVA test suite a job's KTAP results are filed under. */
#define HZRIG_LAVA_SUITE	"hzrig"

/*
 * QEMU's options for LAVA's qemu device type, from the rig's settings:
 * what the type's template sets itself is left out (-nodefaults would take
 * the serial console -nographic gives LAVA; -display; -m is its "memory").
 */
struct hzrig_lava_qemu {
	char memory[16];		/* MiB, for the template's -m */
	char extra[16][128];		/* the rest, one option per item */
	int nextra;
	const char *binary;
	char append[2048];		/* the kernel's command line (x86: 2047) */
};

int hzrig_lava_qemu(const struct hzrig_qemu_conf *c, const char *accel,
		    unsigned long tsc_khz, const char *extra_append,
		    struct hzrig_lava_qemu *q, FILE *err);

/* A LAVA test case name from a KTAP test name, as LAVA's monitor makes it. */
void hzrig_lava_case_id(const char *ktap_name, char *out, size_t len);

/*
 * Unpack one job's log (@log: a file, or a directory holding output.yaml)
 * into @dir: console.log, ttyS1.jsonl, status.json, build.json. The
 * variant's name goes to @variant. 0, or -1 with every problem said on
 * @err (a missing or cut sample line, no end count, no build record, a
 * KTAP result LAVA did not record); @dir is then left as it was.
 */
int hzrig_lava_unpack(const char *log, const char *dir, char *variant,
		      size_t vlen, char *started, size_t slen, FILE *err);

/* A sweep batch's last line on the console, framed (initramfs/sweep.sh). */
#define HZRIG_LAVA_SWEEP_END "hzrig-sweep sweep end"

/*
 * One job's console (its log's target lines, as they came) into @out,
 * written whole or not at all: a sweep batch's job, for `hzrig sweep
 * collect` (docs/sweep.md). With @status (else NULL), how the guest ended
 * as `hzrig boot --status` writes it for @variant: ok (the batch's end
 * line), crashed (a kernel report), failed, hung (the console stopped) or
 * error (no console: LAVA's error said, or no log at all); written for
 * every LAVA log, also one with no console, and for a missing log. 0, or -1 with the problems said on @err (not a
 * LAVA log, no console line at all).
 */
int hzrig_lava_console(const char *log, const char *out, const char *status,
		       const char *variant, FILE *err);

/*
 * LAVA's verdict on a job, from its log's "job" result: one line on @out,
 * "pass" or "fail: ERROR_TYPE: ERROR_MSG" (the job's error as LAVA gave
 * it), or "none" (maybe with the log's first error) when the log has no
 * such result, as when the dispatcher was killed. 0 a result found, 1
 * none, -1 not a LAVA log (said on @err).
 */
int hzrig_lava_result(const char *log, FILE *out, FILE *err);

/*
 * The logs of LAVA jobs (one variant each) as one run directory,
 * @results/runs/ID (ID: when the first started), collected as a local run
 * is; its path in @run_dir. 0, or -1 with nothing left behind.
 */
int hzrig_lava_run(const char *results, char *const *logs, int n,
		   char *run_dir, size_t len, FILE *err);

/*
 * Remove a run directory hzrig_lava_run() made, when what comes after it
 * (loading, ingesting) refuses the run: a refusal leaves nothing behind.
 */
void hzrig_lava_run_remove(const char *dir);

/* `hzrig lava jobs|device` (rig/lava/cmd_lava.c). */
int cmd_lava(int argc, char **argv);

#endif /* HZRIG_LAVA_H */
