/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-case statistics of a run: load a results directory (or a run from the
 * history database), group its samples by variant and case, and compute what
 * `hzrig compare` prints and `hzrig check-regressions` holds against a
 * baseline. docs/history.md describes the figures and the regression rules.
 *
 * A run directory holds samples.jsonl (docs/results.md), one
 * <variant>/run.json per variant and, from later runs on, an optional
 * <variant>/build.json. hzrig_run_load() validates all of it; every error
 * names file:line and the field, and a run with any error is not used.
 *
 * The case key names a case independently of its index in the plan, so that
 * runs of different plans can be compared:
 *   "[<path> ]<transfer> <behaviour> <mode> T=<timeout_ms>[ D=<delay_us>us][ len=<length>]"
 * with the path only when it is not "kernel" (so the keys of runs from
 * before the userspace paths stay what they were), D only for behaviour
 * "delay" and len only when the length is not the default 64, e.g.
 * "bulk-in delay ms T=100 D=50000us", "libusb-async bulk-in nak ms T=1".
 */
#ifndef HZRIG_STATS_H
#define HZRIG_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "collect/sample.h"	/* struct hzrig_run_sample */
#include "lib/util.h"	/* HZRIG_ABSENT */

#define HZRIG_CASE_KEY_MAX	160
#define HZRIG_FIELD_MAX		32	/* transfer, behaviour, mode names */
#define HZRIG_VARIANT_MAX	64
#define HZRIG_RUN_ID_MAX	128
#define HZRIG_DEFAULT_LENGTH	64	/* the plan's default transfer length */
#define HZRIG_ETIMEDOUT		(-110)	/* the status of a call that timed out */


/*
 * The case key of a sample; @delay_us and @length may be HZRIG_ABSENT (or
 * negative). Returns the key's length, or -1 (and an empty @buf) when it does
 * not fit in @len bytes.
 */
int hzrig_case_key(char *buf, size_t len, const char *path,
		   const char *transfer, const char *behaviour, const char *mode,
		   int64_t timeout_ms, int64_t delay_us, int64_t length);

/* One timed call: struct hzrig_run_sample, defined by collect/sample.h. */

/*
 * A sample's or case's path: samples recorded before the userspace paths
 * have none (NULL or ""), and were made by the kernel driver.
 */
static inline const char *hzrig_run_path(const char *path)
{
	return path && *path ? path : "kernel";
}

/* hzrig_case_key() of a sample. */
int hzrig_sample_key(const struct hzrig_run_sample *s, char *buf, size_t len);

/* The figures of one case of one variant. */
struct hzrig_status_count {
	int64_t status;
	size_t n;
};

struct hzrig_case_stats {
	char key[HZRIG_CASE_KEY_MAX];
	int64_t case_idx;		/* the lowest plan index with this key */
	char path[HZRIG_FIELD_MAX];	/* "kernel" for samples without one */
	char transfer[HZRIG_FIELD_MAX];
	char behaviour[HZRIG_FIELD_MAX];
	char mode[HZRIG_FIELD_MAX];
	int64_t timeout_ms, timeout_arg, delay_us, length;
	size_t n, inside;
	/* Nearest-rank percentiles of elapsed_ns (see hzrig_percentile()). */
	int64_t min_ns, p5_ns, median_ns, p95_ns, max_ns;
	int64_t window_lo_ns, window_hi_ns;	/* HZRIG_ABSENT: no window */
	int64_t allowance_ns;		/* the largest of the samples' */
	int64_t expected_status;	/* majority; HZRIG_ABSENT if unknown */
	int64_t majority_status;	/* see hzrig_case_stats_compute() */
	struct hzrig_status_count *status;	/* most frequent first */
	size_t nstatus;
};

/*
 * A kernel report found on the variant's console (run.json "findings",
 * rig/collect/scan.h): the fields the history, dashboard and KCIDB use.
 */
#define HZRIG_FINDING_TITLE_MAX	160
struct hzrig_run_finding {
	char title[HZRIG_FINDING_TITLE_MAX];
	char kind[16];
	char where[HZRIG_FINDING_TITLE_MAX];	/* "" when the report names none */
	char running[128];			/* "" when before any case */
	int64_t console_line;
	bool truncated;
	char *excerpt;				/* NULL when absent */
	bool known;		/* the history had the title before (DB only) */
};

/* One variant of a run: its run.json, build.json and cases. */
struct hzrig_variant {
	char name[HZRIG_VARIANT_MAX];
	int hz;
	char release[64], clocksource[64], accel[64], plan[64];
	char boot_status[16];
	int64_t overshoot_p50_ns, overshoot_p99_ns;	/* HZRIG_ABSENT if */
	int64_t rtt_p50_ns, rtt_p99_ns;			/* not measured */
	int64_t allowance_ns, waits_ms, wall_ms;
	int64_t counted_samples;	/* run.json counts.samples, or absent */
	char refused[256];		/* why the timings were refused, or "" */
	char parallel[16];		/* efficiency.parallel, or "" */
	size_t nprobes;			/* noise_probes[] */
	int64_t probe_min_ns, probe_max_ns;	/* their allowances */
	int64_t ktap_ok, ktap_not_ok;
	bool truncated;			/* capture.truncated */
	char model_tree[16];		/* model.tree ("6.12"), or "" */
	bool model_exact;		/* model.exact: derived from that line */
	char *run_json;			/* the file's text, every field validated */
	/* The rest of run.json a reader uses (docs/results.md). */
	char *cmdline;			/* the guest's; NULL: absent */
	int64_t jiffy_rate_mhz, noise_floor_ns;	/* or absent */
	char allowance_source[8];	/* "noise", "floor" or "" */
	int64_t collected_at;		/* seconds since the epoch, or absent */
	double boot_wall_s;		/* boot.wall_s; < 0: absent */
	char boot_crash[256];		/* boot.crash (boot.h's crash), or "" */
	int64_t capture_errors;		/* capture.errors, or absent */
	/* build.json, when the run has one. */
	char compiler[128];		/* "compiler", or "" */
	char (*patch_sha256)[65];	/* one per patch, or NULL: absent */
	char *build_json;		/* NULL: no build.json */
	char *fragments, *patches;	/* space-separated; NULL if absent */
	char tree_describe[128], config_hash[96], hzrig_version[64];
	double kernel_build_s, module_build_s;	/* < 0: absent */
	struct hzrig_run_finding *findings;	/* kernel reports, console order */
	size_t nfindings;
	bool scanned;			/* run.json has "findings" (maybe []) */
	/* Filled by hzrig_run_stats(). */
	size_t nsamples, ninside;
	struct hzrig_case_stats *cases;	/* in plan order */
	size_t ncases;
};

struct hzrig_run {
	char id[HZRIG_RUN_ID_MAX];	/* the run directory's basename */
	char *source;			/* its real path; NULL from the DB */
	struct hzrig_variant *v;	/* by HZ, then name, after stats */
	size_t nv, vcap;
	struct hzrig_run_sample *s;
	size_t ns, scap;
};

/*
 * Load and validate the run directory @dir (a symlink such as
 * results/latest is resolved first, so the run id is the real directory's
 * name). Errors go to @err, each naming file:line; returns the number of
 * errors, 0 when the run is complete and consistent, -1 when the directory
 * cannot be read at all. Stats are computed when there is no error.
 */
int hzrig_run_load(const char *dir, struct hzrig_run *run, FILE *err);

/*
 * Check @v->run_json (a variant's run.json, from the history) as
 * hzrig_run_load() checks the file, and set @v's fields from it; its
 * findings are replaced by those of the text. Errors go to @err naming
 * @file; returns their number.
 */
int hzrig_variant_load_json(struct hzrig_variant *v, const char *file,
			    FILE *err);

/* Build a run by hand (the DB loader, tests): a variant, then its samples. */
struct hzrig_variant *hzrig_run_add_variant(struct hzrig_run *run,
					    const char *name, int hz);
struct hzrig_run_sample *hzrig_run_add_sample(struct hzrig_run *run);
size_t hzrig_run_find_variant(const struct hzrig_run *run, const char *name);
#define HZRIG_NO_VARIANT	((size_t)-1)

/*
 * Sort the variants (by HZ, then name) and compute every variant's case
 * stats. -1 when out of memory.
 */
int hzrig_run_stats(struct hzrig_run *run);

/* The variants by HZ, then name, the samples following: hzrig_run_stats()'s first step. */
int hzrig_run_sort(struct hzrig_run *run);

void hzrig_run_free(struct hzrig_run *run);

/* ------------------------------------------------------------------------
 * A case's figures as text and JSON (runs/format.c): every table of cases.
 */
/* @ns in ms with @decimals decimals; "" when absent. */
void hzrig_case_ms(char *buf, size_t len, int64_t ns, int decimals);
/* "-110" or "0,-110": every status seen, most frequent first, @sep between. */
void hzrig_case_statuses(char *buf, size_t len,
			 const struct hzrig_case_stats *c, char sep);
/* The window: "(lo, hi]"; "<= hi" for a call that completes; none. */
void hzrig_case_window(char *buf, size_t len, const struct hzrig_case_stats *c);

struct hzrig_case_cells {
	char n[16], status[64], window[48];
	char p5[24], median[24], p95[24], max[24];	/* ms, 3 decimals */
	char inside[32];				/* "inside/n" */
};

void hzrig_case_cells(const struct hzrig_case_stats *c,
		      struct hzrig_case_cells *x);

/* min_ms, p5_ms, median_ms, p95_ms and max_ms of @c into @o, by @ms. */
struct json_object;
void hzrig_case_percentiles_json(struct json_object *o,
				 const struct hzrig_case_stats *c,
				 struct json_object *(*ms)(int64_t ns));

/* The case of @v with key @key, or NULL. */
const struct hzrig_case_stats *hzrig_variant_case(const struct hzrig_variant *v,
						  const char *key);

/* hzrig_percentile() and hzrig_cmp_i64(): lib/util.h. */

/*
 * "2026-12-03T10:21:14Z" (what collect writes) to seconds since the epoch;
 * -1 when it is not that form or not a date.
 */
int hzrig_utc_parse(const char *s, int64_t *out);

/* "2026-12-03T10:20:31Z" from a run id "20261203T102031Z"; -1 if not that form. */
int hzrig_run_id_time(const char *id, char *buf, size_t len);

/* ------------------------------------------------------------------------
 * Regressions: one variant of a run held against a baseline variant.
 */
/* p95 is only compared when both runs have at least this many samples. */
#define HZRIG_P95_MIN_N		20

enum hzrig_regression_kind {
	HZRIG_REG_MEDIAN,
	HZRIG_REG_P95,
	HZRIG_REG_INSIDE,
	HZRIG_REG_STATUS,
};

const char *hzrig_regression_kind_name(enum hzrig_regression_kind k);

struct hzrig_regression {
	enum hzrig_regression_kind kind;
	char case_key[HZRIG_CASE_KEY_MAX];
	/* median, p95: ms; inside: share 0..1; status: the majority status. */
	double old_value, new_value;
	double threshold;		/* same unit; NAN for status */
	int64_t window_lo_ns, window_hi_ns;	/* the new case's window */
	char detail[320];		/* the whole finding, one line */
};

struct hzrig_regress_result {
	struct hzrig_regression *r;
	size_t n, cap;
	size_t compared;		/* cases in both */
	size_t only_old, only_new;	/* cases in one of them */
};

/*
 * The noise threshold, in ns, for the median and p95 of one case: the
 * spread two runs that both agree with the model can show (docs/history.md):
 * the two allowances plus, for a case that times out, the window's width;
 * at least one jiffy at @hz.
 */
int64_t hzrig_regress_threshold_ns(const struct hzrig_case_stats *oldc,
				   const struct hzrig_case_stats *newc, int hz);

/*
 * Compare every case of @newv present in @oldv. @threshold_ns >= 0 replaces
 * the default threshold of median and p95. Appends to @res; -1 when out of
 * memory.
 */
int hzrig_regress(const struct hzrig_variant *oldv,
		  const struct hzrig_variant *newv, int64_t threshold_ns,
		  struct hzrig_regress_result *res);

void hzrig_regress_free(struct hzrig_regress_result *res);

/* Shared by runs/load.c and runs/stats.c: free a variant's case figures. */
void hzrig_variant_free_cases(struct hzrig_variant *v);
void hzrig_variant_free_findings(struct hzrig_variant *v);

/* qsort() order of sample pointers: case, then repetition (plan order). */
int hzrig_cmp_sample_pos(const void *a, const void *b);

#endif /* HZRIG_STATS_H */
