/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Measurement plans: text files listing the cases a guest runs. The format is
 * described in docs/plans.md. Shared by the guest runner (static, in the
 * initramfs) and the host tools, so it depends on libc only.
 */
#ifndef HZRIG_PLAN_H
#define HZRIG_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <hzrig/ioctl.h>
#include <hzrig/wire.h>

#define HZRIG_PLAN_DRIVER_MAX	32

struct hzrig_plan_case {
	uint32_t path;		/* enum hzrig_path */
	uint32_t transfer;	/* enum hzrig_transfer */
	uint32_t behaviour;	/* enum hzrig_behaviour */
	uint32_t mode;		/* enum hzrig_mode */
	uint32_t timeout_ms;
	uint32_t reps;
	uint32_t length;
	uint32_t delay_us;
	uint32_t short_length;
	uint32_t flags;		/* HZRIG_CASE_* */
	/* path usbmon: the in-tree driver (a guest device file's name) */
	char driver[HZRIG_PLAN_DRIVER_MAX];
	int line;		/* line of the plan file it came from */
};

/*
 * How the guest runs a plan's cases (the "parallel" directive): one after
 * the other, or one thread per lane (independent endpoint), each taking its
 * lane's cases in plan order.
 */
enum hzrig_parallel {
	HZRIG_PARALLEL_SERIAL = 0,
	HZRIG_PARALLEL_LANES,
	HZRIG_PARALLEL_COUNT
};

/*
 * Lanes: endpoints whose transfers do not wait for each other. Both control
 * transfers share ep0, both bulk IN calls the 0x81 pipe.
 */
enum hzrig_lane {
	HZRIG_LANE_EP0 = 0,		/* ctrl-in, ctrl-out */
	HZRIG_LANE_BULK_IN,		/* bulk-in, bulk-in-killable */
	HZRIG_LANE_BULK_OUT,
	HZRIG_LANE_INT_IN,
	HZRIG_LANE_COUNT
};

/* A plan's size limits: far above the full plan, far below a runaway. */
#define HZRIG_PLAN_MAX_CASES	10000
#define HZRIG_PLAN_MAX_SAMPLES	1000000

struct hzrig_plan {
	struct hzrig_plan_case *cases;
	size_t ncases;
	size_t nsamples;	/* sum of reps */
	size_t cap;
	uint32_t parallel;	/* enum hzrig_parallel; serial by default */
	int parallel_line;	/* where it was set, 0: not set */
};

/*
 * Parse a plan from @f; @name is used in messages. On error returns -1 and
 * leaves "name:line: what is wrong" in @err; the plan is then empty.
 */
int hzrig_plan_parse(FILE *f, const char *name, struct hzrig_plan *plan,
		     char *err, size_t errlen);
int hzrig_plan_load(const char *path, struct hzrig_plan *plan,
		    char *err, size_t errlen);
void hzrig_plan_free(struct hzrig_plan *plan);

/*
 * What the kernel waits at most for one call of @c, in ms, before the
 * wheel's rounding: the timeout the caller mode passes, as a kernel with
 * HZ=@hz reads it (mode zero: the 60 s clamp). @hz = 0: not known; then the
 * requested timeout, which bounds the legacy modes from above for HZ <= 1000.
 */
uint64_t hzrig_case_wait_ms(const struct hzrig_plan_case *c, unsigned int hz);

/* Sum of hzrig_case_wait_ms() over all repetitions: a lower bound of guest time. */
uint64_t hzrig_plan_wait_ms(const struct hzrig_plan *plan, unsigned int hz);

/*
 * Time still needed, in ms, after @done_reps of @total_reps repetitions
 * took @spent_ms for @done_ms of requested waits (of @total_ms): the waits
 * to come plus the overhead per repetition seen so far.
 */
uint64_t hzrig_eta_ms(uint64_t total_ms, uint64_t done_ms, uint64_t total_reps,
		      uint64_t done_reps, uint64_t spent_ms);

/* Status the guest expects for a behaviour when nothing else is known. */
int hzrig_expected_status(uint32_t behaviour, uint32_t delay_us, uint32_t timeout_ms);
/* The same for a whole case: its path's meaning of timeout 0 included. */
int hzrig_case_expected_status(const struct hzrig_plan_case *c);

/* The lane of a transfer; HZRIG_LANE_COUNT for an unknown one. */
unsigned int hzrig_transfer_lane(uint32_t transfer);

/* Names used in plans and in samples.jsonl; NULL/-1 when unknown. */
const char *hzrig_path_name(uint32_t p);
int hzrig_path_parse(const char *s);
const char *hzrig_parallel_name(uint32_t p);
int hzrig_parallel_parse(const char *s);
const char *hzrig_lane_name(unsigned int lane);
const char *hzrig_transfer_name(uint32_t t);
const char *hzrig_behaviour_name(uint32_t b);
const char *hzrig_mode_name(uint32_t m);
int hzrig_transfer_parse(const char *s);
int hzrig_behaviour_parse(const char *s);
int hzrig_mode_parse(const char *s);

/* `hzrig plan` (rig/plan/cmd_plan.c). */
int cmd_plan(int argc, char **argv);

#endif /* HZRIG_PLAN_H */
