/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Result collection: parse and validate what a guest wrote on its second
 * serial port, hold every sample against the model, record the run, and
 * report a results directory.
 *
 * The capture (build/<variant>/run/ttyS1.jsonl) is JSON lines, one object a
 * line, told apart by "type":
 *   meta    variant, hz, release, clocksource, jiffy_rate_mhz, abi, plan,
 *           accel, cmdline [, usb_max_sync_timeout_ms, libusb, usbmon]
 *   noise   sleep_us, n, overshoot_p50_ns, overshoot_p99_ns, rtt_n,
 *           rtt_p50_ns, rtt_p99_ns [, at_case]
 *           one before the plan (at_case 0), then, in newer guests, more
 *           between cases (at_case: the case that came next) and one after
 *           the last (at_case = the number of cases); at_case strictly
 *           increases and never exceeds the end record's cases. A record
 *           without at_case is at case 0 (older guests probed once).
 *   sample  case, rep, transfer, behaviour, mode, timeout_ms, timeout_arg,
 *           status, elapsed_ns, actual_length, seq, phase_ns
 *           [, path, start_jiffies, length, delay_us, jiffies_lag, urb_ns]
 *           path: kernel, usbfs, libusb-sync, libusb-async; absent: kernel
 *   end     cases, samples, failures
 * Unknown fields are ignored (new ones are appended over time); unknown
 * record types are warned about and skipped. Every other deviation is an
 * error naming file:line and the field.
 *
 * A results directory (results/runs/<time>/) holds samples.jsonl, one line
 * a sample of every variant, and <variant>/run.json per variant.
 */
#ifndef HZRIG_COLLECT_H
#define HZRIG_COLLECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "collect/sample.h"
#include "lib/util.h"
#include "model/model.h"
#include "plan/plan.h"

#define HZRIG_NAME_MAX		64
#define HZRIG_CMDLINE_MAX	1024
/*
 * Version of samples.jsonl and run.json (docs/results.md): bumped when a
 * field changes meaning or goes away; new fields are added without a bump.
 */
#define HZRIG_RESULTS_SCHEMA	1

struct hzrig_meta {
	char variant[HZRIG_NAME_MAX];
	char release[HZRIG_NAME_MAX];
	char clocksource[HZRIG_NAME_MAX];
	char plan[HZRIG_NAME_MAX];
	char accel[HZRIG_NAME_MAX];
	char cmdline[HZRIG_CMDLINE_MAX];
	int hz;
	int abi;
	int64_t jiffy_rate_mhz;
	int64_t usb_max_sync_timeout_ms;	/* -1 when the guest did not say */
	char libusb[HZRIG_NAME_MAX];	/* libusb version that ran; "" if not said */
	unsigned int line;
};

struct hzrig_noise {
	bool present;
	int64_t sleep_us, n;
	int64_t overshoot_p50_ns, overshoot_p99_ns;
	int64_t rtt_n, rtt_p50_ns, rtt_p99_ns;
	int64_t at_case;	/* probed before this case; 0 when not said */
	unsigned int line;
};

/* One validated sample record. */
#define HZRIG_LAG_ABSENT	HZRIG_ABSENT

struct hzrig_rec {
	struct hzrig_run_sample s;	/* the guest's fields (sample.h) */
	uint32_t path, transfer, behaviour, mode;	/* s's names, parsed */
};

struct hzrig_end {
	bool present;
	int64_t cases, samples, failures;
	int64_t waits_ms, wall_ms;	/* -1 when the guest did not say */
	char parallel[16];		/* "serial", "lanes"; "" when not said */
	unsigned int line;
};

struct hzrig_capture {
	const char *name;		/* for messages: the file's path */
	FILE *err;			/* where errors and warnings go */
	bool have_meta;
	struct hzrig_meta meta;
	struct hzrig_noise noise;	/* the first probe (= probes[0]) */
	struct hzrig_noise *probes;	/* every valid probe, by at_case */
	size_t nprobes, probes_cap;
	struct hzrig_end end;
	struct hzrig_rec *recs;
	size_t nrecs, cap;
	unsigned int lines;		/* lines read */
	unsigned int bad_lines;		/* lines that are not a JSON object */
	unsigned int bad_records;	/* objects that failed validation */
	unsigned int sample_records;	/* "type":"sample" seen, valid or not */
	unsigned int ignored;		/* records of unknown type */
	unsigned int errors;		/* all errors reported */
	bool truncated;			/* no end record */
	/* the model of the kernel line meta's release names (docs/model.md) */
	const struct hzrig_tree_model *tree;
	bool tree_exact;		/* derived from that line itself */
};

/*
 * Parse a capture from @f (@name for messages, @errf for them; NULL: stderr).
 * Returns -1 when nothing usable was found (no valid meta record, read
 * error), else the number of errors (0: a clean, complete capture). A
 * missing end record counts as one error and sets @c->truncated.
 */
int hzrig_capture_parse(FILE *f, const char *name, struct hzrig_capture *c,
			FILE *errf);
int hzrig_capture_load(const char *path, struct hzrig_capture *c, FILE *errf);
void hzrig_capture_free(struct hzrig_capture *c);

/*
 * The noise allowance of the samples of case @case_idx: the larger of the
 * allowances (overshoot_p99_ns + rtt_p99_ns) of the last probe at or before
 * the case and of the first probe after it, so the noise on either side of
 * the case counts; never below @floor_ns. Without probes: @floor_ns.
 * *@from_noise (may be NULL) tells whether the probes gave more than the
 * floor (ties go to the probes).
 */
uint64_t hzrig_case_allowance(const struct hzrig_capture *c, int64_t case_idx,
			      int64_t floor_ns, bool *from_noise);
/*
 * What cancelling and reaping a URB costs a userspace caller around case
 * @case_idx: the larger answered-round-trip p99 (rtt_p99_ns) of the probes
 * either side, as hzrig_case_allowance() picks them; 0 without probes.
 */
uint64_t hzrig_case_cancel_ns(const struct hzrig_capture *c, int64_t case_idx);
/* One probe's allowance: overshoot_p99_ns + rtt_p99_ns, at least @floor_ns. */
uint64_t hzrig_probe_allowance(const struct hzrig_noise *n, int64_t floor_ns);

/* KTAP results on the console log: top-level lines only. */
struct hzrig_ktap {
	bool version_seen;
	int64_t plan;			/* 1..N, -1 when absent */
	unsigned int ok, not_ok, skip;
	bool bail_out;
};

int hzrig_ktap_parse(FILE *f, struct hzrig_ktap *k);

/* True for the jiffy-resolution clocksources that make timings worthless. */
bool hzrig_clocksource_refused(const char *cs);

/*
 * The status the model expects of a sample: the plan's expectation
 * (hzrig_expected_status()), except that a delay answered between the
 * window's edges may legitimately end either way; then the status seen is
 * taken as expected.
 */
int hzrig_rec_expected_status(const struct hzrig_rec *r,
			      const struct hzrig_window *w,
			      uint64_t allowance_ns);

struct hzrig_collect_opts {
	const char *variant;
	const char *serial;		/* the capture */
	const char *console;		/* console log with KTAP */
	const char *accel;		/* NULL: from --boot-status file or meta */
	const char *out_dir;
	const char *boot_status;	/* ok|failed|crashed|hung|error or status.json */
	int64_t noise_floor_ns;		/* minimum allowance, >= 0 */
	/*
	 * All or nothing: a capture with any bad record, cut short or with
	 * a refused clock records nothing (HZRIG_COLLECT_FAILED). A lab's
	 * log can be fetched again; a local boot keeps what it measured.
	 */
	bool whole;
	FILE *err;			/* NULL: stderr */
	FILE *out;			/* summary line; NULL: none */
};

/* hzrig collect's exit statuses. */
#define HZRIG_COLLECT_OK	0	/* recorded, clean */
#define HZRIG_COLLECT_PROBLEMS	1	/* recorded, but refused/truncated/errors */
#define HZRIG_COLLECT_FAILED	2	/* nothing recorded, nothing changed */

int hzrig_collect(const struct hzrig_collect_opts *o);

/* `hzrig collect` (rig/collect/cmd_collect.c). */
int cmd_collect(int argc, char **argv);

#endif /* HZRIG_COLLECT_H */
