// SPDX-License-Identifier: GPL-2.0
/*
 * Collect: one variant's capture (capture.c) held against the model and
 * written to a run directory, samples.jsonl and <variant>/run.json, through
 * temporary files and rename(), so a collect that fails leaves what was
 * recorded before exactly as it was. The record formats: collect.h and
 * docs/results.md.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "collect/collect.h"
#include "collect/scan.h"
#include "lib/json.h"
#include "lib/util.h"

#define PATH_MAX_LEN	4096


/* The delay the gadget answers after, in ns; 0 when the record has none. */
static uint64_t rec_delay_ns(const struct hzrig_rec *r)
{
	return r->s.delay_us > 0 ? (uint64_t)r->s.delay_us * 1000 : 0;
}

int hzrig_rec_expected_status(const struct hzrig_rec *r,
			      const struct hzrig_window *w,
			      uint64_t allowance_ns)
{
	uint64_t delay_ns;

	if (r->behaviour != HZRIG_BEH_DELAY)
		return hzrig_expected_status(r->behaviour, 0,
					     (uint32_t)r->s.timeout_ms);
	/*
	 * The gadget answers after delay_us; the timer fires somewhere in the
	 * window. Clearly before it: an answer. Clearly after: a timeout.
	 * In between the race is the kernel's to decide.
	 */
	delay_ns = rec_delay_ns(r);
	if (w->forever || (delay_ns < w->lo_ns &&
			   w->lo_ns - delay_ns > allowance_ns))
		return 0;
	if (delay_ns > w->hi_ns && delay_ns - w->hi_ns > allowance_ns)
		return -ETIMEDOUT;
	return (int)r->s.status == -ETIMEDOUT ? -ETIMEDOUT : 0;
}

static const char *const boot_statuses[] = {
	"ok", "failed", "crashed", "hung", "error",
};

static bool boot_status_known(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(boot_statuses) / sizeof(boot_statuses[0]); i++)
		if (!strcmp(s, boot_statuses[i]))
			return true;
	return false;
}

/*
 * --boot-status is a word, or the status.json `hzrig boot --status` wrote
 * (then its accelerator is taken too, and the object is kept in run.json).
 */
static int load_boot_status(const char *arg, FILE *err, char *status,
			    size_t slen, char *accel, size_t alen,
			    struct json_object **obj)
{
	struct json_object *o, *v;
	char why[HZRIG_WHY], *text;
	size_t len;

	*obj = NULL;
	accel[0] = '\0';
	if (!arg) {
		snprintf(status, slen, "unknown");
		return 0;
	}
	if (boot_status_known(arg)) {
		snprintf(status, slen, "%s", arg);
		return 0;
	}
	text = hzrig_in_slurp(arg, HZRIG_MAX_JSON, &len, why, sizeof(why));
	if (!text) {
		fprintf(err, "hzrig collect: --boot-status: '%s' is not ok, failed, crashed, hung, error or a status file: %s\n",
			arg, why);
		return -1;
	}
	o = json_tokener_parse(text);
	free(text);
	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "status", &v) ||
	    !json_object_is_type(v, json_type_string) ||
	    !boot_status_known(json_object_get_string(v))) {
		fprintf(err, "%s: field \"status\": missing, or not one of ok, failed, crashed, hung, error\n",
			arg);
		json_object_put(o);
		return -1;
	}
	snprintf(status, slen, "%s", json_object_get_string(v));
	if (json_object_object_get_ex(o, "accel", &v) &&
	    json_object_is_type(v, json_type_string))
		snprintf(accel, alen, "%s", json_object_get_string(v));
	*obj = o;
	return 0;
}

/* Variants become directory names: keep them to a safe alphabet. */
static bool variant_name_ok(const char *v)
{
	const char *p;

	if (!*v || *v == '.' || strlen(v) >= HZRIG_NAME_MAX)
		return false;
	for (p = v; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' &&
		    *p != '.')
			return false;
	return true;
}

static int mkdir_p(const char *path, FILE *err)
{
	char buf[PATH_MAX_LEN];
	struct stat st;
	char *p;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf)) {
		fprintf(err, "%s: path too long\n", path);
		return -1;
	}
	for (p = buf + 1; ; p++) {
		if (*p == '/' || !*p) {
			char c = *p;

			*p = '\0';
			if (mkdir(buf, 0755) && errno != EEXIST) {
				fprintf(err, "%s: %s\n", buf, strerror(errno));
				return -1;
			}
			*p = c;
			if (!c)
				break;
		}
	}
	if (stat(path, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(err, "%s: not a directory\n", path);
		return -1;
	}
	return 0;
}

struct verdict_counts {
	unsigned int n[HZRIG_VERDICT_COUNT];
	unsigned int samples;
	unsigned int stale;	/* started on stale jiffies (jiffies_lag > 0) */
};

/* One samples.jsonl object for record @r. */
/*
 * Judge one record: its window on the model of its kernel's tree, the
 * status expected and the verdict, set beside the guest's fields in @r->s
 * (its allowance is there already) and counted in @vc.
 */
static void judge_sample(const struct hzrig_capture *c, struct hzrig_rec *r,
			 bool refused, struct verdict_counts *vc)
{
	struct hzrig_run_sample *out = &r->s;
	uint64_t allowance = r->s.allowance_ns;
	bool killable = r->transfer == HZRIG_XFER_BULK_IN_KILLABLE;
	enum hzrig_verdict v;
	struct hzrig_window w;
	int expected;

	/*
	 * meta.hz was range-checked against the model when parsed, the path
	 * is one of the four: each sample is held against its own path's
	 * window (docs/model.md §11), on the model of its kernel's tree.
	 */
	hzrig_tree_path_window(c->tree ? c->tree : hzrig_tree_default(),
			       c->meta.hz, r->path, (int)r->s.timeout_arg,
			       killable, &w);
	hzrig_window_cancel(&w, hzrig_case_cancel_ns(c, r->s.case_idx));
	if (r->s.jiffies_lag > 0) {	/* HZRIG_LAG_ABSENT is below 0 */
		hzrig_window_stale_jiffies(&w, r->s.jiffies_lag);
		vc->stale++;
	}
	expected = hzrig_rec_expected_status(r, &w, allowance);
	v = hzrig_verdict_sample(&w, r->behaviour, rec_delay_ns(r), allowance,
				 expected, (int)r->s.status, r->s.elapsed_ns,
				 refused);
	vc->n[v]++;
	vc->samples++;

	/* A killable wait without timeout has no window: absent (null). */
	if (!w.forever) {
		out->window_lo_ns = (int64_t)w.lo_ns;
		out->window_hi_ns = (int64_t)w.hi_ns;
		out->jiffies = (int64_t)w.jiffies;
		out->level = w.level;
		out->granule = (int64_t)w.granule;
	}
	if (w.cancel_ns)
		out->cancel_ns = (int64_t)w.cancel_ns;
	snprintf(out->verdict, sizeof(out->verdict), "%s", hzrig_verdict_name(v));
	out->expected_status = expected;
}

/* One samples.jsonl record: the variant's envelope, then the fields. */
static struct json_object *sample_json(const struct hzrig_capture *c,
				       const struct hzrig_run_sample *s)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "schema", hzrig_json_int(HZRIG_RESULTS_SCHEMA));
	json_object_object_add(o, "variant", hzrig_json_str(c->meta.variant));
	json_object_object_add(o, "hz", hzrig_json_int(c->meta.hz));
	hzrig_sample_to_json(s, o);
	return o;
}

static void utc_now(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static struct json_object *capture_json(const struct hzrig_collect_opts *o,
					const struct hzrig_capture *c,
					struct json_object *r);

/* The boot-time noise probe, or null without one. */
static struct json_object *noise_json(const struct hzrig_capture *c)
{
	struct json_object *x;

	if (!c->noise.present)
		return NULL;
	x = json_object_new_object();
	json_object_object_add(x, "sleep_us", hzrig_json_int(c->noise.sleep_us));
	json_object_object_add(x, "n", hzrig_json_int(c->noise.n));
	json_object_object_add(x, "overshoot_p50_ns",
			       hzrig_json_int(c->noise.overshoot_p50_ns));
	json_object_object_add(x, "overshoot_p99_ns",
			       hzrig_json_int(c->noise.overshoot_p99_ns));
	json_object_object_add(x, "rtt_n", hzrig_json_int(c->noise.rtt_n));
	json_object_object_add(x, "rtt_p50_ns", hzrig_json_int(c->noise.rtt_p50_ns));
	json_object_object_add(x, "rtt_p99_ns", hzrig_json_int(c->noise.rtt_p99_ns));
	return x;
}

/* Every probe, in plan order, with the allowance it gives alone. */
static struct json_object *probes_json(const struct hzrig_capture *c,
				       int64_t floor_ns)
{
	struct json_object *x = json_object_new_array();
	size_t i;

	for (i = 0; i < c->nprobes; i++) {
		const struct hzrig_noise *n = &c->probes[i];
		struct json_object *p = json_object_new_object();

		json_object_object_add(p, "at_case", hzrig_json_int(n->at_case));
		json_object_object_add(p, "overshoot_p50_ns",
				       hzrig_json_int(n->overshoot_p50_ns));
		json_object_object_add(p, "overshoot_p99_ns",
				       hzrig_json_int(n->overshoot_p99_ns));
		json_object_object_add(p, "rtt_n", hzrig_json_int(n->rtt_n));
		json_object_object_add(p, "rtt_p50_ns", hzrig_json_int(n->rtt_p50_ns));
		json_object_object_add(p, "rtt_p99_ns", hzrig_json_int(n->rtt_p99_ns));
		json_object_object_add(p, "allowance_ns", hzrig_json_int((int64_t)
			hzrig_probe_allowance(n, floor_ns)));
		json_object_array_add(x, p);
	}
	return x;
}

static struct json_object *ktap_json(const struct hzrig_ktap *k)
{
	struct json_object *x = json_object_new_object();

	json_object_object_add(x, "version_seen", json_object_new_boolean(k->version_seen));
	json_object_object_add(x, "plan", k->plan >= 0 ? hzrig_json_int(k->plan) : NULL);
	json_object_object_add(x, "ok", hzrig_json_int(k->ok));
	json_object_object_add(x, "not_ok", hzrig_json_int(k->not_ok));
	json_object_object_add(x, "skip", hzrig_json_int(k->skip));
	json_object_object_add(x, "bail_out", json_object_new_boolean(k->bail_out));
	return x;
}

static struct json_object *counts_json(const struct verdict_counts *vc)
{
	struct json_object *x = json_object_new_object();

	json_object_object_add(x, "samples", hzrig_json_int(vc->samples));
	json_object_object_add(x, "inside", hzrig_json_int(vc->n[HZRIG_INSIDE]));
	json_object_object_add(x, "early", hzrig_json_int(vc->n[HZRIG_EARLY]));
	json_object_object_add(x, "late", hzrig_json_int(vc->n[HZRIG_LATE]));
	json_object_object_add(x, "wrong_status", hzrig_json_int(vc->n[HZRIG_WRONG_STATUS]));
	json_object_object_add(x, "refused", hzrig_json_int(vc->n[HZRIG_REFUSED]));
	json_object_object_add(x, "stale_jiffies", hzrig_json_int(vc->stale));
	json_object_object_add(x, "outside", hzrig_json_int(vc->n[HZRIG_EARLY] +
						  vc->n[HZRIG_LATE] +
						  vc->n[HZRIG_WRONG_STATUS]));
	return x;
}

static struct json_object *run_json(const struct hzrig_collect_opts *o,
				    const struct hzrig_capture *c,
				    const struct hzrig_ktap *k,
				    const char *boot_status,
				    struct json_object *boot_obj,
				    const char *accel, uint64_t allowance,
				    const char *allowance_source,
				    const char *refused,
				    const struct verdict_counts *vc)
{
	struct json_object *r = json_object_new_object(), *x;
	char now[32];

	json_object_object_add(r, "schema", hzrig_json_int(HZRIG_RESULTS_SCHEMA));
	json_object_object_add(r, "variant", hzrig_json_str(c->meta.variant));
	json_object_object_add(r, "hz", hzrig_json_int(c->meta.hz));
	json_object_object_add(r, "release", hzrig_json_str(c->meta.release));
	json_object_object_add(r, "clocksource", hzrig_json_str(c->meta.clocksource));
	json_object_object_add(r, "accel", hzrig_json_str(accel));
	json_object_object_add(r, "plan", hzrig_json_str(c->meta.plan));
	json_object_object_add(r, "cmdline", hzrig_json_str(c->meta.cmdline));
	json_object_object_add(r, "abi", hzrig_json_int(c->meta.abi));
	json_object_object_add(r, "jiffy_rate_mhz", hzrig_json_int(c->meta.jiffy_rate_mhz));
	json_object_object_add(r, "tick_ns", hzrig_json_int((int64_t)hzrig_tick_ns(c->meta.hz)));
	/*
	 * The model the samples were judged by: the tree line, whether it
	 * was derived from that line itself, and the source it was read from.
	 */
	if (c->tree) {
		x = json_object_new_object();
		json_object_object_add(x, "tree", hzrig_json_str(c->tree->name));
		json_object_object_add(x, "exact", json_object_new_boolean(c->tree_exact));
		json_object_object_add(x, "source", hzrig_json_str(c->tree->source));
		json_object_object_add(r, "model", x);
	}
	/* The libusb-1.0 the userspace paths ran on; null before they existed. */
	json_object_object_add(r, "libusb", c->meta.libusb[0] ?
			       hzrig_json_str(c->meta.libusb) : NULL);
	json_object_object_add(r, "boot_status", hzrig_json_str(boot_status));
	if (boot_obj)
		json_object_object_add(r, "boot", json_object_get(boot_obj));

	json_object_object_add(r, "noise", noise_json(c));
	json_object_object_add(r, "noise_probes", probes_json(c, o->noise_floor_ns));
	json_object_object_add(r, "noise_floor_ns", hzrig_json_int(o->noise_floor_ns));
	json_object_object_add(r, "allowance_ns", hzrig_json_int((int64_t)allowance));
	json_object_object_add(r, "allowance_source", hzrig_json_str(allowance_source));
	json_object_object_add(r, "refused", refused ? hzrig_json_str(refused) : NULL);

	json_object_object_add(r, "ktap", ktap_json(k));
	json_object_object_add(r, "counts", counts_json(vc));
	json_object_object_add(r, "capture", capture_json(o, c, r));
	utc_now(now, sizeof(now));
	json_object_object_add(r, "collected_at", hzrig_json_str(now));
	return r;
}

/*
 * The capture's own record: its files, line counts, the guest's end
 * record; the efficiency (waits over measuring time) goes into @r.
 */
static struct json_object *capture_json(const struct hzrig_collect_opts *o,
					const struct hzrig_capture *c,
					struct json_object *r)
{
	struct json_object *x = json_object_new_object();

	json_object_object_add(x, "serial", hzrig_json_str(o->serial));
	json_object_object_add(x, "console", hzrig_json_str(o->console));
	json_object_object_add(x, "lines", hzrig_json_int(c->lines));
	json_object_object_add(x, "bad_lines", hzrig_json_int(c->bad_lines));
	json_object_object_add(x, "bad_records", hzrig_json_int(c->bad_records));
	json_object_object_add(x, "ignored_records", hzrig_json_int(c->ignored));
	json_object_object_add(x, "errors", hzrig_json_int(c->errors));
	json_object_object_add(x, "truncated", json_object_new_boolean(c->truncated));
	if (c->end.present) {
		struct json_object *e = json_object_new_object();

		json_object_object_add(e, "cases", hzrig_json_int(c->end.cases));
		json_object_object_add(e, "samples", hzrig_json_int(c->end.samples));
		json_object_object_add(e, "failures", hzrig_json_int(c->end.failures));
		json_object_object_add(x, "end", e);
		/* Sum of requested waits over the guest's measuring time. */
		if (c->end.waits_ms >= 0 && c->end.wall_ms > 0) {
			e = json_object_new_object();
			json_object_object_add(e, "waits_ms", hzrig_json_int(c->end.waits_ms));
			json_object_object_add(e, "wall_ms", hzrig_json_int(c->end.wall_ms));
			json_object_object_add(e, "ratio", json_object_new_double(
				(double)c->end.waits_ms / c->end.wall_ms));
			if (c->end.parallel[0])
				json_object_object_add(e, "parallel",
						       hzrig_json_str(c->end.parallel));
			json_object_object_add(r, "efficiency", e);
		}
	} else {
		json_object_object_add(x, "end", NULL);
	}
	return x;
}

/* A temporary file beside @path, opened exclusively. */
static FILE *open_tmp(const char *path, char *tmp, size_t len, FILE *err)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path + 1) : 0;
	int fd;
	FILE *f;

	if (snprintf(tmp, len, "%.*s.%s.%ld.tmp", dirlen, path,
		     slash ? slash + 1 : path, (long)getpid()) >= (int)len) {
		fprintf(err, "%s: path too long\n", path);
		return NULL;
	}
	unlink(tmp);	/* a leftover of a killed collect with our pid */
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		fprintf(err, "%s: %s\n", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		tmp[0] = '\0';
		return NULL;
	}
	return f;
}

static int close_tmp(FILE *f, const char *tmp, FILE *err)
{
	int bad = fflush(f) || ferror(f) || fsync(fileno(f));

	if (fclose(f) || bad) {
		fprintf(err, "%s: %s\n", tmp, strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

/*
 * Copy an existing samples.jsonl to @out without the lines of @variant (a
 * collect replaces its variant's samples, so running it twice does not
 * count them twice). Lines that are not ours, even unparseable ones, are
 * kept byte for byte.
 */
static int copy_other_variants(const char *path, const char *variant,
			       FILE *out, unsigned int *dropped, FILE *err)
{
	char *line = NULL, why[HZRIG_WHY];
	size_t cap = 0;
	ssize_t len;
	int ret = 0;
	FILE *in;

	*dropped = 0;
	if (access(path, F_OK) && errno == ENOENT)
		return 0;
	in = hzrig_in_open(path, HZRIG_MAX_CAPTURE, why, sizeof(why));
	if (!in) {
		fprintf(err, "%s: %s\n", path, why);
		return -1;
	}
	while ((len = getline(&line, &cap, in)) >= 0) {
		struct json_object *o = json_tokener_parse(line), *v;
		bool ours = o && json_object_is_type(o, json_type_object) &&
			    json_object_object_get_ex(o, "variant", &v) &&
			    json_object_is_type(v, json_type_string) &&
			    !strcmp(json_object_get_string(v), variant);

		json_object_put(o);
		if (ours) {
			(*dropped)++;
			continue;
		}
		if (fwrite(line, 1, (size_t)len, out) != (size_t)len ||
		    (len && line[len - 1] != '\n' && fputc('\n', out) == EOF)) {
			ret = -1;
			break;
		}
	}
	if (ferror(in)) {
		fprintf(err, "%s: %s\n", path,
			hzrig_in_error(why, sizeof(why), HZRIG_MAX_CAPTURE));
		ret = -1;
	}
	free(line);
	fclose(in);
	return ret;
}

/* Everything one collect works with, from the options to the renames. */
struct job {
	const struct hzrig_collect_opts *o;
	FILE *err;
	char samples_path[PATH_MAX_LEN], run_path[PATH_MAX_LEN];
	char samples_tmp[PATH_MAX_LEN], run_tmp[PATH_MAX_LEN];
	char samples_bak[PATH_MAX_LEN];
	char vdir[PATH_MAX_LEN], boot_status[16], boot_accel[HZRIG_NAME_MAX];
	char refused_buf[256];
	const char *accel, *refused, *allowance_source;
	struct json_object *boot_obj, *run;
	struct verdict_counts vc;
	struct hzrig_capture c;
	struct hzrig_ktap k;
	struct hzrig_findings findings;	/* the console's kernel reports */
	unsigned int dropped;
	uint64_t allowance;
};

static int check_opts(const struct hzrig_collect_opts *o, FILE *err)
{
	if (!o->variant || !o->serial || !o->console || !o->out_dir) {
		fprintf(err, "hzrig collect: --variant, --serial, --console and --out are required\n");
		return -1;
	}
	if (!variant_name_ok(o->variant)) {
		fprintf(err, "hzrig collect: --variant: '%s' is not a name of letters, digits, '-', '_' and '.'\n",
			o->variant);
		return -1;
	}
	if (o->noise_floor_ns < 0) {
		fprintf(err, "hzrig collect: --noise-floor-ns: must be >= 0\n");
		return -1;
	}
	return 0;
}

/* The capture, the console's KTAP and the accelerator that ran them. */
static int read_inputs(struct job *j)
{
	const struct hzrig_collect_opts *o = j->o;
	char why[HZRIG_WHY];
	FILE *f;

	if (hzrig_capture_load(o->serial, &j->c, j->err) < 0)
		return -1;
	if (strcmp(j->c.meta.variant, o->variant)) {
		fprintf(j->err, "%s:%u: meta: field \"variant\": '%s', but collecting variant '%s': wrong capture?\n",
			o->serial, j->c.meta.line, j->c.meta.variant, o->variant);
		return -1;
	}
	f = hzrig_in_open(o->console, HZRIG_MAX_CONSOLE, why, sizeof(why));
	if (!f) {
		fprintf(j->err, "%s: %s\n", o->console, why);
		return -1;
	}
	if (hzrig_ktap_parse(f, &j->k)) {
		fprintf(j->err, "%s: %s\n", o->console,
			hzrig_in_error(why, sizeof(why), HZRIG_MAX_CONSOLE));
		fclose(f);
		return -1;
	}
	fclose(f);
	if (hzrig_scan_file(o->console, &j->findings, why, sizeof(why))) {
		fprintf(j->err, "%s: scanning for kernel reports: %s\n",
			o->console, why);
		return -1;
	}
	j->accel = o->accel ? o->accel : j->boot_accel[0] ? j->boot_accel :
		   j->c.meta.accel;
	if (strcmp(j->accel, j->c.meta.accel))
		fprintf(j->err, "%s:%u: warning: meta: field \"accel\": guest says '%s', host says '%s'\n",
			o->serial, j->c.meta.line, j->c.meta.accel, j->accel);
	return 0;
}

/*
 * The allowance: the guest's own p99 wakeup overshoot of a sleeping task
 * plus the p99 of a call that completes at once (submit, the
 * hrtimer-driven dummy_hcd, giveback). Both sit on top of any wait the
 * timer wheel produces. The guest probes them before the plan and again as
 * it goes; each case takes the larger of the probes on either side of it
 * (hzrig_case_allowance()). --noise-floor-ns is a lower bound. run.json's
 * allowance_ns is the largest any sample got, and "noise" its source
 * unless the floor gave it.
 */
static void set_allowances(struct job *j)
{
	struct hzrig_capture *c = &j->c;
	size_t i;

	j->allowance = 0;
	j->allowance_source = "floor";
	for (i = 0; i < c->nrecs; i++) {
		bool from_noise;
		uint64_t a = hzrig_case_allowance(c, c->recs[i].s.case_idx,
						  j->o->noise_floor_ns,
						  &from_noise);

		c->recs[i].s.allowance_ns = a;
		if (a > j->allowance)
			j->allowance = a;
		if (from_noise)
			j->allowance_source = "noise";
	}
	if (c->nrecs)
		return;
	j->allowance = (uint64_t)j->o->noise_floor_ns;
	for (i = 0; i < c->nprobes; i++) {
		uint64_t a = hzrig_probe_allowance(&c->probes[i], 0);

		if (a >= j->allowance) {
			j->allowance = a;
			j->allowance_source = "noise";
		}
	}
}

/* Timings on a jiffy-resolution clocksource are refused, all of them. */
static void check_clocksource(struct job *j)
{
	if (!hzrig_clocksource_refused(j->c.meta.clocksource))
		return;
	snprintf(j->refused_buf, sizeof(j->refused_buf),
		 "clocksource %s has jiffy resolution: ktime_get() cannot time a wait (boot with tsc=reliable)",
		 j->c.meta.clocksource);
	j->refused = j->refused_buf;
	fprintf(j->err, "%s:%u: meta: field \"clocksource\": %s\n",
		j->o->serial, j->c.meta.line, j->refused);
}

/* Every record judged, before anything is written. */
static void judge_all(struct job *j)
{
	size_t i;

	for (i = 0; i < j->c.nrecs; i++)
		judge_sample(&j->c, &j->c.recs[i], j->refused != NULL, &j->vc);
}

static int set_paths(struct job *j)
{
	const struct hzrig_collect_opts *o = j->o;

	if (snprintf(j->samples_path, sizeof(j->samples_path),
		     "%s/samples.jsonl", o->out_dir) >=
		     (int)sizeof(j->samples_path) ||
	    snprintf(j->vdir, sizeof(j->vdir), "%s/%s", o->out_dir,
		     o->variant) >= (int)sizeof(j->vdir) ||
	    snprintf(j->run_path, sizeof(j->run_path), "%s/run.json",
		     j->vdir) >= (int)sizeof(j->run_path)) {
		fprintf(j->err, "%s: path too long\n", o->out_dir);
		return -1;
	}
	return mkdir_p(o->out_dir, j->err) || mkdir_p(j->vdir, j->err) ? -1 : 0;
}

/* Build both files in temporary files beside them; nothing is replaced. */
static int write_tmp_files(struct job *j)
{
	struct json_object *findings;
	FILE *f;
	size_t i;

	f = open_tmp(j->samples_path, j->samples_tmp, sizeof(j->samples_tmp),
		     j->err);
	if (!f)
		return -1;
	if (copy_other_variants(j->samples_path, j->o->variant, f, &j->dropped,
				j->err)) {
		fclose(f);
		return -1;
	}
	for (i = 0; i < j->c.nrecs; i++) {
		struct json_object *s = sample_json(&j->c, &j->c.recs[i].s);

		fprintf(f, "%s\n", json_object_to_json_string_ext(s,
			JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(s);
	}
	if (close_tmp(f, j->samples_tmp, j->err))
		return -1;

	j->run = run_json(j->o, &j->c, &j->k, j->boot_status, j->boot_obj,
			  j->accel, j->allowance, j->allowance_source,
			  j->refused, &j->vc);
	findings = json_object_new_array();
	for (i = 0; i < j->findings.n; i++)
		json_object_array_add(findings,
				      hzrig_finding_json(&j->findings.v[i]));
	json_object_object_add(j->run, "findings", findings);
	f = open_tmp(j->run_path, j->run_tmp, sizeof(j->run_tmp), j->err);
	if (!f)
		return -1;
	fprintf(f, "%s\n", json_object_to_json_string_ext(j->run,
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
		JSON_C_TO_STRING_NOSLASHESCAPE));
	return close_tmp(f, j->run_tmp, j->err);
}

/*
 * Commit: the samples first, run.json (what the readers look for) last.
 * Two renames are not one atomic step, so the old samples.jsonl is kept
 * as a hard link until run.json is in place, and put back if that fails.
 */
static int commit(struct job *j)
{
	if (snprintf(j->samples_bak, sizeof(j->samples_bak), "%s.%ld.old",
		     j->samples_path, (long)getpid()) >=
		     (int)sizeof(j->samples_bak))
		return -1;
	unlink(j->samples_bak);
	if (link(j->samples_path, j->samples_bak)) {
		if (errno != ENOENT) {
			fprintf(j->err, "%s: %s\n", j->samples_bak,
				strerror(errno));
			return -1;
		}
		j->samples_bak[0] = '\0';	/* there was none: rollback removes */
	}
	if (rename(j->samples_tmp, j->samples_path)) {
		fprintf(j->err, "%s: %s\n", j->samples_path, strerror(errno));
		return -1;
	}
	j->samples_tmp[0] = '\0';
	if (rename(j->run_tmp, j->run_path)) {
		fprintf(j->err, "%s: %s\n", j->run_path, strerror(errno));
		if (j->samples_bak[0] ? rename(j->samples_bak, j->samples_path) :
					unlink(j->samples_path))
			fprintf(j->err, "%s: cannot restore: %s\n",
				j->samples_path, strerror(errno));
		else
			j->samples_bak[0] = '\0';
		return -1;
	}
	j->run_tmp[0] = '\0';
	return 0;
}

static void summary(const struct job *j)
{
	const struct hzrig_capture *c = &j->c;
	FILE *out = j->o->out;

	if (j->dropped)
		fprintf(j->err, "%s: replaced %u earlier samples of %s\n",
			j->samples_path, j->dropped, j->o->variant);
	if (!out)
		return;
	fprintf(out, "collect: %s: HZ=%d, %u samples, ", j->o->variant,
		c->meta.hz, j->vc.samples);
	if (j->refused)
		fprintf(out, "all refused (%s)\n", c->meta.clocksource);
	else
		fprintf(out, "%u inside the model's window, %u early, %u late, %u wrong status; allowance %s%.3f ms; %u capture errors%s\n",
			j->vc.n[HZRIG_INSIDE], j->vc.n[HZRIG_EARLY],
			j->vc.n[HZRIG_LATE], j->vc.n[HZRIG_WRONG_STATUS],
			c->nprobes > 1 ? "up to " : "", j->allowance / 1e6,
			c->errors, c->truncated ? " (truncated)" : "");
	if (j->findings.n)
		fprintf(out, "collect: %s: %zu kernel report%s on the console:\n",
			j->o->variant, j->findings.n,
			j->findings.n == 1 ? "" : "s");
	for (size_t i = 0; i < j->findings.n; i++)
		hzrig_finding_print(out, "  ", &j->findings.v[i]);
}

/* Whatever a failed or finished collect leaves behind but the results. */
static void cleanup(struct job *j)
{
	if (j->samples_tmp[0])
		unlink(j->samples_tmp);
	if (j->run_tmp[0])
		unlink(j->run_tmp);
	if (j->samples_bak[0])
		unlink(j->samples_bak);
	json_object_put(j->run);
	json_object_put(j->boot_obj);
	hzrig_capture_free(&j->c);
	hzrig_findings_free(&j->findings);
}

int hzrig_collect(const struct hzrig_collect_opts *o)
{
	struct job *j = calloc(1, sizeof(*j));
	FILE *err = o->err ? o->err : stderr;
	int ret = HZRIG_COLLECT_FAILED;

	if (!j) {
		fprintf(err, "hzrig collect: out of memory\n");
		return ret;
	}
	j->o = o;
	j->err = err;
	j->allowance_source = "noise";
	if (check_opts(o, err) ||
	    load_boot_status(o->boot_status, err, j->boot_status,
			     sizeof(j->boot_status), j->boot_accel,
			     sizeof(j->boot_accel), &j->boot_obj)) {
		free(j);
		return ret;
	}
	if (read_inputs(j))
		goto out;
	set_allowances(j);
	check_clocksource(j);
	judge_all(j);
	if (o->whole && (j->c.errors || j->c.truncated || j->refused)) {
		fprintf(err, "hzrig collect: %s: %s: refused whole\n", o->variant,
			j->refused ? j->refused :
			j->c.truncated ? "the capture was cut short" :
			"the capture has bad records (above)");
		goto out;
	}
	if (set_paths(j) || write_tmp_files(j) || commit(j))
		goto out;
	summary(j);
	ret = j->refused || j->c.errors || j->findings.n ? HZRIG_COLLECT_PROBLEMS :
	      HZRIG_COLLECT_OK;
out:
	cleanup(j);
	if (ret == HZRIG_COLLECT_FAILED)
		fprintf(err, "hzrig collect: %s: nothing recorded\n", o->variant);
	free(j);
	return ret;
}
