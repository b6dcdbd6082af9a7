/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The runner's state, and what it writes (output.c): KTAP results on the
 * console (stdout), and the JSON-line records the host collects
 * (docs/results.md: meta, noise, sample, end) on ttyS1, or with --inband
 * tagged on the console itself. rig/collect/capture.c reads the records;
 * rig/collect/sample.h defines a sample's fields.
 */
#ifndef HZRIG_RUNNER_OUTPUT_H
#define HZRIG_RUNNER_OUTPUT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hzrig/ioctl.h"
#include "plan/plan.h"
#include "userpath.h"

struct runner {
	const char *dev_path;
	const char *plan_path;
	const char *out_path;
	bool inband;		/* --inband: JSON lines tagged on stdout */
	const char *variant;
	const char *accel;
	int parallel;		/* --parallel, -1: as the plan says */
	int dev;
	FILE *out;
	struct hzrig_info info;
	char clocksource[64];
	/*
	 * With lanes, several threads finish cases: the console, the samples
	 * and the counters below are theirs in turn. Held for output only,
	 * never across an ioctl.
	 */
	pthread_mutex_t lock;
	int ktap_index;
	int failures;
	int64_t noise_at;	/* now_ns() at the end of the last noise probe */
	/*
	 * The userspace paths hold the device while they run; the driver is
	 * bound again for kernel cases and noise probes (ensure_path()).
	 * Lanes run kernel cases only: no switching while they do.
	 */
	struct userpath up;
	bool have_up;		/* the device was found for userspace */
	char up_err[160];
	bool lanes_active;	/* usbmon is not paired while lanes run */
	/*
	 * --drivers: no device of ours; the plan's usbmon cases bind in-tree
	 * drivers to the devices of /etc/hzrig/devices (drivers.h).
	 */
	bool drivers;
	char site[160];		/* the last usbmon case's driver call */
};

/* A KTAP result line on the console; needs r->lock when lanes run. */
void ktap(struct runner *r, bool ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* @s as a JSON string literal (plans and uname are ASCII). */
void json_str(FILE *f, const char *s);

/* r->out: --out's serial port, raw, or with --inband the tagged console. */
int open_out(struct runner *r);

/* The records, one JSON line each (rig/collect/capture.c reads them). */
void emit_meta(struct runner *r, const char *plan_name);
void emit_noise(struct runner *r, int sleep_us, int n, int64_t over_p50,
		int64_t over_p99, size_t rtt_n, int64_t rtt_p50, int64_t rtt_p99,
		size_t at_case);
void emit_sample(struct runner *r, size_t ci, uint32_t rep,
		 const struct hzrig_plan_case *pc, const struct hzrig_sample *s,
		 int64_t urb_ns);
/* The end record; @waits_ms < 0: the plan did not run (no figures). */
void emit_end(struct runner *r, size_t cases, size_t samples,
	      int64_t waits_ms, int64_t wall_ms, const char *parallel);

#endif /* HZRIG_RUNNER_OUTPUT_H */
