// SPDX-License-Identifier: GPL-2.0
/*
 * `hzrig report DIR`: per-variant tables of a run directory, every sample
 * the model does not explain, and a PASS/FAIL line per variant.
 *
 * The run is read by hzrig_run_load(), the one validation every command
 * shares: a run that compare, ingest or the KCIDB export would refuse is
 * refused here too, and nothing is reported from it.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "plan/plan.h"
#include "output/report.h"
#include "runs/runs.h"
#include "lib/table.h"
#include "output/kcidb/kcidb.h"
#include "lib/opts.h"

#define REP_GOAL_PCT	95	/* a variant passes at or above this share inside */

/* A sample's place in the tables: plan order of its names, then numbers. */
static int rank(int (*parse)(const char *), const char *name)
{
	int r = parse(name);

	return r < 0 ? 1000 : r;
}

static int cmp_names(int (*parse)(const char *), const char *a, const char *b)
{
	int x = rank(parse, a), y = rank(parse, b);

	if (x != y)
		return x < y ? -1 : 1;
	return strcmp(a, b);
}

static int cmp_i64(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

static const char *path_of(const struct hzrig_run_sample *s)
{
	return hzrig_run_path(s->path);
}

/* Same path, same call, same requested and passed timeout: one table row. */
static int cmp_group(const struct hzrig_run_sample *x,
		     const struct hzrig_run_sample *y)
{
	int c;

	c = cmp_names(hzrig_path_parse, path_of(x), path_of(y));
	if (!c)
		c = cmp_names(hzrig_transfer_parse, x->transfer, y->transfer);
	if (!c)
		c = cmp_names(hzrig_behaviour_parse, x->behaviour, y->behaviour);
	if (!c)
		c = cmp_names(hzrig_mode_parse, x->mode, y->mode);
	if (!c)
		c = cmp_i64(x->timeout_ms, y->timeout_ms);
	if (!c)
		c = cmp_i64(x->timeout_arg, y->timeout_arg);
	return c;
}

static int cmp_sample(const void *a, const void *b)
{
	const struct hzrig_run_sample *const *x = a, *const *y = b;
	int c = cmp_group(*x, *y);

	return c ? c : cmp_i64((*x)->elapsed_ns, (*y)->elapsed_ns);
}

static int64_t expected(const struct hzrig_run_sample *s)
{
	return s->expected_status == HZRIG_ABSENT ? HZRIG_ETIMEDOUT :
	       s->expected_status;
}

static void fmt_ms(char *buf, size_t len, int64_t ns)
{
	snprintf(buf, len, "%.3f", ns / 1e6);
}

/* The window column: none, an upper bound (answered calls), or (lo, hi]. */
static void fmt_window(char *buf, size_t len, const struct hzrig_run_sample *s)
{
	if (s->window_lo_ns == HZRIG_ABSENT)
		snprintf(buf, len, "none (no timer)");
	else if (expected(s) != HZRIG_ETIMEDOUT)
		snprintf(buf, len, "<= %.3f", s->window_hi_ns / 1e6);
	else
		snprintf(buf, len, "(%.3f, %.3f]", s->window_lo_ns / 1e6,
			 s->window_hi_ns / 1e6);
}

/* The middle of @n sorted samples; both figures are at most HZRIG_NS_MAX. */
static int64_t median(struct hzrig_run_sample *const *s, size_t n)
{
	return n % 2 ? s[n / 2]->elapsed_ns :
	       (s[n / 2 - 1]->elapsed_ns + s[n / 2]->elapsed_ns) / 2;
}

static void header(const struct hzrig_variant *v, FILE *out)
{
	fprintf(out, "%s: HZ=%d, %s, clocksource %s, accel %s, boot %s, KTAP %" PRId64
		" ok / %" PRId64 " not ok\n", v->name, v->hz,
		v->release[0] ? v->release : "?",
		v->clocksource[0] ? v->clocksource : "?",
		v->accel[0] ? v->accel : "?",
		v->boot_status[0] ? v->boot_status : "unknown",
		v->ktap_ok == HZRIG_ABSENT ? 0 : v->ktap_ok,
		v->ktap_not_ok == HZRIG_ABSENT ? 0 : v->ktap_not_ok);
	if (v->model_tree[0])
		fprintf(out, "  judged by the model of %s%s\n", v->model_tree,
			v->model_exact ? "" : " (the nearest older tree the model was derived from)");
	if (v->overshoot_p50_ns != HZRIG_ABSENT)
		fprintf(out, "  noise floor: sleep overshoot p50 %.3f / p99 %.3f ms, answered ctrl-in p50 %.3f / p99 %.3f ms; allowance %s%.3f ms\n",
			v->overshoot_p50_ns / 1e6, v->overshoot_p99_ns / 1e6,
			v->rtt_p50_ns / 1e6, v->rtt_p99_ns / 1e6,
			v->nprobes > 1 ? "up to " : "",
			(v->allowance_ns == HZRIG_ABSENT ? 0 : v->allowance_ns) / 1e6);
	else
		fprintf(out, "  noise floor: not measured; allowance %.3f ms\n",
			(v->allowance_ns == HZRIG_ABSENT ? 0 : v->allowance_ns) / 1e6);
	/* The first probe above; the run's others, when it probed again. */
	if (v->nprobes > 1)
		fprintf(out, "  noise probes: %zu, allowance %.3f\xe2\x80\x93%.3f ms\n",
			v->nprobes, v->probe_min_ns / 1e6, v->probe_max_ns / 1e6);
}

/* How many samples started on stale jiffies (their lo was lowered). */
static void stale(struct hzrig_run_sample *const *s, size_t n, FILE *out)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += s[i]->jiffies_lag != HZRIG_ABSENT && s[i]->jiffies_lag > 0;
	if (k)
		fprintf(out, "  stale jiffies: %zu of %zu samples started with jiffies behind the tick grid (window lo lowered)\n",
			k, n);
}

static void efficiency(const struct hzrig_variant *v, FILE *out)
{
	if (v->waits_ms == HZRIG_ABSENT || v->wall_ms == HZRIG_ABSENT ||
	    v->wall_ms <= 0)
		return;
	fprintf(out, "  efficiency: %.1f s of requested waits in %.1f s of measuring (%.2f)%s%s\n",
		v->waits_ms / 1e3, v->wall_ms / 1e3,
		(double)v->waits_ms / (double)v->wall_ms,
		v->parallel[0] ? ", parallel = " : "", v->parallel);
}

/*
 * The two clocks, per path: the median time a call spent around its URB
 * (the caller's elapsed time less usbmon's submit-to-completion), over the
 * samples usbmon paired. Nothing for runs without urb_ns.
 */
static void around_urb(struct hzrig_run_sample *const *s, size_t n, FILE *out)
{
	int64_t *d = calloc(n + 1, sizeof(*d));
	bool first = true;
	unsigned int p;
	size_t i, k;

	if (!d)
		return;
	for (p = 0; p < HZRIG_PATH_COUNT; p++) {
		const char *pn = hzrig_path_name(p);

		for (i = k = 0; i < n; i++)
			if (s[i]->urb_ns != HZRIG_ABSENT &&
			    !strcmp(path_of(s[i]), pn))
				d[k++] = s[i]->elapsed_ns - s[i]->urb_ns;
		if (!k)
			continue;
		qsort(d, k, sizeof(*d), hzrig_cmp_i64);
		fprintf(out, "%s%s %.3f ms", first ?
			"  around the URB (elapsed - usbmon's URB time, median): " :
			", ", pn, hzrig_percentile(d, k, 50) / 1e6);
		first = false;
	}
	if (!first)
		fputc('\n', out);
	free(d);
}

/*
 * One row per group of sorted samples; counts verdicts on the way. The
 * path column appears when a sample was made from userspace, so a
 * kernel-only run reads as it always did.
 */
static void table(struct hzrig_run_sample *const *s, size_t n,
		  unsigned int *cnt, FILE *out)
{
	static const char *const head[] = {
		"path", "transfer", "behaviour", "mode", "T ms", "arg",
		"window ms", "min", "median", "max", "inside",
	};
	struct hzrig_table t;
	char c[11][48];
	const char *cells[11];
	bool paths = false;
	size_t i, j, k, first;

	for (i = 0; i < n; i++)
		paths |= strcmp(path_of(s[i]), "kernel") != 0;
	first = paths ? 0 : 1;
	hzrig_table_init(&t, &"llllrrlrrrr"[first]);
	hzrig_table_row(&t, head + first);
	for (k = 0; k < 11; k++)
		cells[k] = c[k];
	for (i = 0; i < n; i = j) {
		unsigned int inside = 0;

		for (j = i; j < n && !cmp_group(s[i], s[j]); j++) {
			int vd = hzrig_verdict_parse(s[j]->verdict);

			cnt[vd]++;
			inside += vd == HZRIG_INSIDE;
		}
		snprintf(c[0], sizeof(c[0]), "%s", path_of(s[i]));
		snprintf(c[1], sizeof(c[1]), "%s", s[i]->transfer);
		snprintf(c[2], sizeof(c[2]), "%s", s[i]->behaviour);
		snprintf(c[3], sizeof(c[3]), "%s", s[i]->mode);
		snprintf(c[4], sizeof(c[4]), "%" PRId64, s[i]->timeout_ms);
		snprintf(c[5], sizeof(c[5]), "%" PRId64, s[i]->timeout_arg);
		fmt_window(c[6], sizeof(c[6]), s[i]);
		fmt_ms(c[7], sizeof(c[7]), s[i]->elapsed_ns);
		fmt_ms(c[8], sizeof(c[8]), median(s + i, j - i));
		fmt_ms(c[9], sizeof(c[9]), s[j - 1]->elapsed_ns);
		snprintf(c[10], sizeof(c[10]), "%u/%zu", inside, j - i);
		hzrig_table_row(&t, cells + first);
	}
	if (n)
		hzrig_table_print(&t, out, "  ");
	hzrig_table_free(&t);
}

/*
 * Every sample the model does not explain, one line each: they are what a
 * maintainer has to look at, and a percentage would hide them. In case
 * order, as the guest ran them.
 */
static void unexplained(const struct hzrig_variant *v,
			const struct hzrig_run *run, size_t vi, FILE *out)
{
	size_t i, shown = 0;

	for (i = 0; i < run->ns; i++) {
		const struct hzrig_run_sample *s = &run->s[i];
		int vd = hzrig_verdict_parse(s->verdict);

		if (s->variant != vi || vd == HZRIG_INSIDE ||
		    vd == HZRIG_REFUSED)
			continue;
		if (!shown++)
			fprintf(out, "  not explained by the model:\n");
		fprintf(out, "    case %" PRId64 " rep %" PRId64 ": %s%s%s %s %s T=%" PRId64
			" ms (arg %" PRId64 "): %s, status %" PRId64
			" (expected %" PRId64 "), %.3f ms",
			s->case_idx, s->rep,
			strcmp(path_of(s), "kernel") ? path_of(s) : "",
			strcmp(path_of(s), "kernel") ? " " : "",
			s->transfer, s->behaviour, s->mode,
			s->timeout_ms, s->timeout_arg, s->verdict, s->status,
			expected(s), s->elapsed_ns / 1e6);
		if (s->window_lo_ns != HZRIG_ABSENT)
			fprintf(out, ", window (%.3f, %.3f] ms + %.3f ms allowance",
				s->window_lo_ns / 1e6, s->window_hi_ns / 1e6,
				(s->allowance_ns != HZRIG_ABSENT ? s->allowance_ns :
				 v->allowance_ns != HZRIG_ABSENT ? v->allowance_ns :
				 0) / 1e6);
		if (s->jiffies_lag != HZRIG_ABSENT && s->jiffies_lag)
			fprintf(out, ", jiffies %" PRId64 " behind at the start",
				s->jiffies_lag);
		fputc('\n', out);
	}
}

/* Why a variant fails, "" when it passes. */
static void verdict_line(const struct hzrig_variant *v, size_t n,
			 const unsigned int *cnt, FILE *out, bool *pass)
{
	char why[512] = "";
	double pct = n ? 100.0 * cnt[HZRIG_INSIDE] / (double)n : 0;
	size_t w;

#define WHY(...) (w = strlen(why), \
		  snprintf(why + w, sizeof(why) - w, __VA_ARGS__))
	if (!v->run_json)
		WHY("; no run.json");
	if (!n)
		WHY("; no samples");
	else if (pct < REP_GOAL_PCT)
		WHY("; %.1f%% inside < %d%%", pct, REP_GOAL_PCT);
	if (strcmp(v->boot_status, "ok"))
		WHY("; boot %s", v->boot_status[0] ? v->boot_status : "unknown");
	if (v->truncated)
		WHY("; capture truncated");
	if (v->refused[0])
		WHY("; refused: %s", v->refused);
#undef WHY
	*pass = !why[0];
	fprintf(out, "  %s: %zu samples, %u inside (%.1f%%), %u early, %u late, %u wrong status%s%s: %s%s%s%s\n\n",
		v->name, n, cnt[HZRIG_INSIDE], pct, cnt[HZRIG_EARLY],
		cnt[HZRIG_LATE], cnt[HZRIG_WRONG_STATUS],
		cnt[HZRIG_REFUSED] ? ", refused " : "",
		cnt[HZRIG_REFUSED] ? "all" : "",
		*pass ? "PASS" : "FAIL", *pass ? "" : " (",
		*pass ? "" : why + 2, *pass ? "" : ")");
}

/* Prints variant @vi of @run; false when it fails. */
static bool report_variant(const struct hzrig_run *run, size_t vi,
			   struct hzrig_run_sample **s, FILE *out)
{
	const struct hzrig_variant *v = &run->v[vi];
	unsigned int cnt[HZRIG_VERDICT_COUNT] = { 0 };
	size_t i, n = 0;
	bool pass;

	for (i = 0; i < run->ns; i++)
		if (run->s[i].variant == vi)
			s[n++] = &run->s[i];
	if (n)
		qsort(s, n, sizeof(*s), cmp_sample);
	header(v, out);
	stale(s, n, out);
	efficiency(v, out);
	around_urb(s, n, out);
	table(s, n, cnt, out);
	unexplained(v, run, vi, out);
	verdict_line(v, n, cnt, out, &pass);
	return pass;
}

int hzrig_report(const char *dir, FILE *out, FILE *err)
{
	struct hzrig_run run;
	struct hzrig_run_sample **s;
	unsigned int pass = 0, fail = 0;
	size_t i;
	int errs;

	err = err ? err : stderr;
	errs = hzrig_run_load(dir, &run, err);
	if (errs) {
		if (errs > 0)
			fprintf(err, "hzrig report: %s: %d error%s, nothing reported\n",
				dir, errs, errs == 1 ? "" : "s");
		hzrig_run_free(&run);
		return 2;
	}
	s = calloc(run.ns ? run.ns : 1, sizeof(*s));
	if (!s || hzrig_run_sort(&run)) {
		fprintf(err, "hzrig report: out of memory\n");
		hzrig_run_free(&run);
		return 2;
	}
	for (i = 0; i < run.nv; i++) {
		if (report_variant(&run, i, s, out))
			pass++;
		else
			fail++;
	}
	fprintf(out, "report: %zu variants, %u pass, %u fail\n", run.nv, pass,
		fail);
	free(s);
	hzrig_run_free(&run);
	return fail ? 1 : 0;
}

static void report_usage(FILE *f)
{
	fprintf(f, "usage: hzrig report DIR\n"
		"Reads DIR/samples.jsonl and DIR/*/run.json (as `hzrig collect`\n"
		"writes them) and prints per variant: the noise floor, a table of\n"
		"transfer, requested T, passed argument, the model's window,\n"
		"observed min/median/max (ms) and samples inside the window, and a\n"
		"summary line. A variant passes with at least %d%% of its samples\n"
		"inside and boot status ok. The run is validated as compare,\n"
		"ingest and --kcidb validate it: a run with errors is refused.\n"
		"Exit: 0 all pass, 1 a variant fails, 2 unreadable results.\n"
		"hzrig report --kcidb[=FILE] ... DIR writes DIR as a KCIDB document\n"
		"instead (hzrig report --kcidb --help).\n",
		REP_GOAL_PCT);
}

int cmd_report(int argc, char **argv)
{
	static const struct hzrig_opt opts[] = { HZRIG_OPT_END };
	int first, i;

	/* The same run as one KCIDB document: its own options (rig/output/kcidb/kcidb.c). */
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strncmp(argv[i], "--kcidb", 7) &&
		    (!argv[i][7] || argv[i][7] == '='))
			return cmd_report_kcidb(argc, argv);
	first = hzrig_opts("report", argc, argv, opts, report_usage);
	if (first < 0)
		return HZRIG_OPTS_EXIT(first);
	if (argc - first != 1) {
		report_usage(stderr);
		return 2;
	}
	return hzrig_report(argv[first], stdout, stderr);
}
