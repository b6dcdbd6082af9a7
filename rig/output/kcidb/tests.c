// SPDX-License-Identifier: GPL-2.0
/*
 * The KCIDB export's tests: per variant boot, capture, clocksource,
 * jiffy_rate and noise, and one per case with the median as its number
 * (docs/kcidb.md).
 */
#include "output/kcidb/export.h"

/* ---------------------------------------------------------------------- */
/* Tests                                                                    */
/* ---------------------------------------------------------------------- */

/* The variant's name as one path component: [a-zA-Z0-9_-] only. */
static void path_word(char *buf, size_t len, const char *s)
{
	size_t n = 0;

	for (; *s && n + 1 < len; s++)
		buf[n++] = isalnum((unsigned char)*s) || *s == '-' ||
			   *s == '_' ? *s : '_';
	buf[n] = '\0';
}

static bool boot_broke(const char *boot_status)
{
	return !strcmp(boot_status, "crashed") || !strcmp(boot_status, "hung") ||
	       !strcmp(boot_status, "error");
}

static struct json_object *environment_json(struct ctx *c, size_t vi)
{
	const struct hzrig_variant *v = &c->run.v[vi];
	struct json_object *e = json_object_new_object(), *m;
	char buf[256];

	snprintf(buf, sizeof(buf), "QEMU %s guest (%s), clocksource %s, HZ=%d",
		 HZRIG_KCIDB_ARCH, v->accel[0] ? v->accel : "accel not recorded",
		 v->clocksource[0] ? v->clocksource : "not recorded", v->hz);
	json_object_object_add(e, "comment", hzrig_json_str(buf));
	m = json_object_new_object();
	json_object_object_add(m, "qemu_accel", hzrig_json_str(v->accel[0] ? v->accel : "unknown"));
	json_object_object_add(m, "clocksource",
			       hzrig_json_str(v->clocksource[0] ? v->clocksource : "unknown"));
	json_object_object_add(m, "hz", hzrig_json_int(v->hz));
	if (v->release[0])
		json_object_object_add(m, "release", hzrig_json_str(v->release));
	if (v->plan[0])
		json_object_object_add(m, "plan", hzrig_json_str(v->plan));
	if (v->cmdline)
		json_object_object_add(m, "cmdline", hzrig_json_str(v->cmdline));
	json_object_object_add(e, "misc", m);
	return e;
}

/* The fields every test of variant @vi has; @what names it in the id. */
static struct json_object *test_new(struct ctx *c, size_t vi, const char *what,
				    const char *status)
{
	const struct hzrig_variant *v = &c->run.v[vi];
	struct json_object *o = json_object_new_object();
	char id[ID_MAX], path[ID_MAX], vw[HZRIG_VARIANT_MAX], t[64];

	snprintf(id, sizeof(id), "%s:%s/%s/%s", c->origin, c->run.id,
		 c->run.v[vi].name, what);
	json_object_object_add(o, "id", hzrig_json_str(id));
	kcidb_build_id(id, sizeof(id), c, vi);
	json_object_object_add(o, "build_id", hzrig_json_str(id));
	json_object_object_add(o, "origin", hzrig_json_str(c->origin));
	path_word(vw, sizeof(vw), c->run.v[vi].name);
	snprintf(path, sizeof(path), "hzrig.%s.%s", vw, what);
	json_object_object_add(o, "path", hzrig_json_str(path));
	json_object_object_add(o, "status", hzrig_json_str(status));
	json_object_object_add(o, "environment", environment_json(c, vi));
	/*
	 * The guest started wall_s before collect stamped the run, in whole
	 * seconds: not before the run itself started.
	 */
	if (v->collected_at != HZRIG_ABSENT) {
		int64_t ms = v->collected_at * 1000;

		if (v->boot_wall_s >= 0)
			ms -= llround(v->boot_wall_s * 1000);
		if (c->have_run_time && ms < (int64_t)c->run_time * 1000)
			ms = (int64_t)c->run_time * 1000;
		kcidb_fmt_time(t, sizeof(t), ms, true);
		json_object_object_add(o, "start_time", hzrig_json_str(t));
	}
	return o;
}

static void set_number(struct json_object *t, struct json_object *value,
		       const char *unit)
{
	struct json_object *n = json_object_new_object();

	json_object_object_add(n, "value", value);
	json_object_object_add(n, "unit", hzrig_json_str(unit));
	json_object_object_add(t, "number", n);
}

/* Copy the listed members of @from (when present) into @to. */
static void copy_members(struct json_object *to, struct json_object *from,
			 const char *const *keys)
{
	struct json_object *v;

	for (; from && *keys; keys++)
		if (json_object_object_get_ex(from, *keys, &v) && v)
			json_object_object_add(to, *keys, json_object_get(v));
}

struct json_object *kcidb_boot_test(struct ctx *c, size_t vi)
{
	static const char *const boot_keys[] = {
		"guest_rc", "wall_s", "first_result_s", "timeout_s", "crash", NULL
	};
	static const char *const ktap_keys[] = {
		"plan", "ok", "not_ok", "skip", "bail_out", NULL
	};
	const struct hzrig_variant *v = &c->run.v[vi];
	const struct vextra *x = &c->x[vi];
	const char *bs = v->boot_status, *status, *crash = NULL;
	struct json_object *t, *m, *k;
	char buf[600];

	/*
	 * "failed" means the guest ran the whole plan and some KTAP result was
	 * "not ok": the boot worked, the cases carry the failures. A crash is
	 * the kernel's (or its driver's); a hang can be anyone's; an error is
	 * QEMU not starting, so the test never ran.
	 */
	if (!strcmp(bs, "ok") || !strcmp(bs, "failed"))
		status = "PASS";
	else if (!strcmp(bs, "crashed"))
		status = "FAIL";
	else if (!strcmp(bs, "hung"))
		status = "ERROR";
	else
		status = "MISS";
	t = test_new(c, vi, "boot", status);
	if (v->boot_crash[0])
		crash = v->boot_crash;
	if (!bs[0])
		snprintf(buf, sizeof(buf), "boot outcome not recorded");
	else if (!strcmp(status, "PASS"))
		snprintf(buf, sizeof(buf), "guest booted and ran the plan (boot %s)",
			 bs);
	else if (!strcmp(bs, "error"))
		snprintf(buf, sizeof(buf), "QEMU did not start the guest");
	else
		snprintf(buf, sizeof(buf), "guest %s%s%.500s", bs,
			 crash && crash[0] ? ": " : "", crash ? crash : "");
	json_object_object_add(t, "comment", hzrig_json_str(buf));
	if (v->boot_wall_s >= 0)
		json_object_object_add(t, "duration", hzrig_json_number(v->boot_wall_s, 3));
	m = json_object_new_object();
	json_object_object_add(m, "boot_status", hzrig_json_str(bs[0] ? bs : "unknown"));
	copy_members(m, x->boot, boot_keys);
	if (x->ktap) {
		k = json_object_new_object();
		copy_members(k, x->ktap, ktap_keys);
		json_object_object_add(m, "ktap", k);
	}
	if (v->waits_ms != HZRIG_ABSENT && v->wall_ms != HZRIG_ABSENT) {
		json_object_object_add(m, "waits_ms", hzrig_json_int(v->waits_ms));
		json_object_object_add(m, "measuring_ms", hzrig_json_int(v->wall_ms));
	}
	json_object_object_add(t, "misc", m);
	return t;
}

struct json_object *kcidb_capture_test(struct ctx *c, size_t vi)
{
	static const char *const keys[] = {
		"lines", "bad_lines", "bad_records", "ignored_records", "errors",
		"truncated", NULL
	};
	const struct vextra *x = &c->x[vi];
	struct json_object *t, *m;
	int64_t errors;
	bool truncated;
	char buf[160];

	if (!x->capture) {
		t = test_new(c, vi, "capture", "MISS");
		json_object_object_add(t, "comment",
				       hzrig_json_str("capture not recorded in run.json"));
		return t;
	}
	errors = c->run.v[vi].capture_errors;
	truncated = c->run.v[vi].truncated;
	/* Lost or garbled records: what the cases show is not all there was. */
	t = test_new(c, vi, "capture",
		     truncated || (errors != HZRIG_ABSENT && errors > 0) ?
		     "ERROR" : "PASS");
	snprintf(buf, sizeof(buf), "guest capture %s, %" PRId64 " errors",
		 truncated ? "truncated (no end record)" : "complete",
		 errors == HZRIG_ABSENT ? 0 : errors);
	json_object_object_add(t, "comment", hzrig_json_str(buf));
	m = json_object_new_object();
	copy_members(m, x->capture, keys);
	json_object_object_add(t, "misc", m);
	return t;
}

struct json_object *kcidb_clocksource_test(struct ctx *c, size_t vi)
{
	const struct hzrig_variant *v = &c->run.v[vi];
	struct json_object *t, *m;
	char buf[400];

	/* A jiffy clocksource makes every timing worthless: no case ran. */
	if (v->refused[0])
		t = test_new(c, vi, "clocksource", "ERROR");
	else
		t = test_new(c, vi, "clocksource",
			     v->clocksource[0] ? "PASS" : "MISS");
	if (v->refused[0])
		snprintf(buf, sizeof(buf), "timings refused: %.300s", v->refused);
	else if (v->clocksource[0])
		snprintf(buf, sizeof(buf), "clocksource %s has the resolution to time waits",
			 v->clocksource);
	else
		snprintf(buf, sizeof(buf), "clocksource not recorded");
	json_object_object_add(t, "comment", hzrig_json_str(buf));
	m = json_object_new_object();
	if (v->clocksource[0])
		json_object_object_add(m, "clocksource", hzrig_json_str(v->clocksource));
	if (v->refused[0])
		json_object_object_add(m, "refused", hzrig_json_str(v->refused));
	json_object_object_add(t, "misc", m);
	return t;
}

struct json_object *kcidb_jiffy_test(struct ctx *c, size_t vi)
{
	const struct hzrig_variant *v = &c->run.v[vi];
	int64_t mhz = v->jiffy_rate_mhz;
	struct json_object *t, *m;
	double rate, off;
	char buf[200];

	if (mhz == HZRIG_ABSENT || mhz <= 0) {
		t = test_new(c, vi, "jiffy_rate", "MISS");
		json_object_object_add(t, "comment",
				       hzrig_json_str("jiffy rate not measured"));
		return t;
	}
	rate = mhz / 1000.0;
	off = 100.0 * fabs(rate - v->hz) / v->hz;
	/*
	 * The module measures jiffies against ktime at load. Off by more than
	 * the tolerance: a module built for another HZ, or a tick that does
	 * not keep time; either way the model's jiffy is not the guest's.
	 */
	t = test_new(c, vi, "jiffy_rate",
		     off <= HZRIG_KCIDB_JIFFY_TOLERANCE_PCT ? "PASS" : "FAIL");
	snprintf(buf, sizeof(buf), "jiffies advance at %.3f Hz, %.2f%% off HZ=%d (tolerance %d%%)",
		 rate, off, v->hz, HZRIG_KCIDB_JIFFY_TOLERANCE_PCT);
	json_object_object_add(t, "comment", hzrig_json_str(buf));
	set_number(t, hzrig_json_number(rate, 3), "Hz");
	m = json_object_new_object();
	json_object_object_add(m, "jiffy_rate_mhz", hzrig_json_int(mhz));
	json_object_object_add(m, "hz", hzrig_json_int(v->hz));
	json_object_object_add(m, "off_pct", hzrig_json_number(off, 3));
	json_object_object_add(m, "tolerance_pct",
			       hzrig_json_int(HZRIG_KCIDB_JIFFY_TOLERANCE_PCT));
	json_object_object_add(t, "misc", m);
	return t;
}

struct json_object *kcidb_noise_test(struct ctx *c, size_t vi)
{
	const struct hzrig_variant *v = &c->run.v[vi];
	struct json_object *t, *m;
	char buf[300];
	bool measured = v->overshoot_p99_ns != HZRIG_ABSENT &&
			v->rtt_p99_ns != HZRIG_ABSENT;

	/* A measurement, not a verdict: DONE, with the allowance it gave. */
	t = test_new(c, vi, "noise", measured ? "DONE" : "MISS");
	/*
	 * run.json's noise is the probe before the plan; a guest that probed
	 * again as it went may have judged some cases with more.
	 */
	if (measured && v->allowance_ns != HZRIG_ABSENT &&
	    v->allowance_ns > v->overshoot_p99_ns + v->rtt_p99_ns &&
	    (v->noise_floor_ns == HZRIG_ABSENT ||
	     v->allowance_ns > v->noise_floor_ns))
		snprintf(buf, sizeof(buf),
			 "before the plan: 1-ms sleep overshoot p99 %.3f ms + answered ctrl-in p99 %.3f ms; allowance up to %.3f ms on both window edges (later noise probes)",
			 v->overshoot_p99_ns / 1e6, v->rtt_p99_ns / 1e6,
			 v->allowance_ns / 1e6);
	else if (measured)
		snprintf(buf, sizeof(buf),
			 "1-ms sleep overshoot p99 %.3f ms + answered ctrl-in p99 %.3f ms: allowance %.3f ms on both window edges",
			 v->overshoot_p99_ns / 1e6, v->rtt_p99_ns / 1e6,
			 v->allowance_ns != HZRIG_ABSENT ? v->allowance_ns / 1e6 : 0);
	else
		snprintf(buf, sizeof(buf), "noise not measured; allowance %s",
			 v->allowance_ns != HZRIG_ABSENT ? "from the noise floor" :
			 "not recorded");
	json_object_object_add(t, "comment", hzrig_json_str(buf));
	if (v->allowance_ns != HZRIG_ABSENT && measured)
		set_number(t, hzrig_json_ms_trim(v->allowance_ns), "ms");
	m = json_object_new_object();
	if (v->overshoot_p50_ns != HZRIG_ABSENT)
		json_object_object_add(m, "sleep_overshoot_p50_ms",
				       hzrig_json_ms_trim(v->overshoot_p50_ns));
	if (v->overshoot_p99_ns != HZRIG_ABSENT)
		json_object_object_add(m, "sleep_overshoot_p99_ms",
				       hzrig_json_ms_trim(v->overshoot_p99_ns));
	if (v->rtt_p50_ns != HZRIG_ABSENT)
		json_object_object_add(m, "ctrl_in_rtt_p50_ms", hzrig_json_ms_trim(v->rtt_p50_ns));
	if (v->rtt_p99_ns != HZRIG_ABSENT)
		json_object_object_add(m, "ctrl_in_rtt_p99_ms", hzrig_json_ms_trim(v->rtt_p99_ns));
	if (v->allowance_ns != HZRIG_ABSENT)
		json_object_object_add(m, "allowance_ms", hzrig_json_ms_trim(v->allowance_ns));
	if (v->allowance_source[0])
		json_object_object_add(m, "allowance_source",
				       hzrig_json_str(v->allowance_source));
	if (v->noise_floor_ns != HZRIG_ABSENT)
		json_object_object_add(m, "noise_floor_ms", hzrig_json_ms_trim(v->noise_floor_ns));
	json_object_object_add(t, "misc", m);
	return t;
}

/*
 * The case as one path component sequence: "bulk-in.delay.ms.T50.D5000us",
 * led by its call path when that is not the kernel's
 * ("libusb-async.bulk-in.nak.ms.T1"), as the case key is.
 */
static void case_word(char *buf, size_t len, const struct hzrig_case_stats *cs)
{
	char w[4][HZRIG_FIELD_MAX];
	bool kernel = !strcmp(hzrig_run_path(cs->path), "kernel");
	int n;

	path_word(w[3], sizeof(w[3]), cs->path);
	path_word(w[0], sizeof(w[0]), cs->transfer);
	path_word(w[1], sizeof(w[1]), cs->behaviour);
	path_word(w[2], sizeof(w[2]), cs->mode);
	n = snprintf(buf, len, "%s%s%s.%s.%s.T%" PRId64, kernel ? "" : w[3],
		     kernel ? "" : ".", w[0], w[1], w[2], cs->timeout_ms);
	/* The same optional parts as the case key, under the same rules. */
	if (!strcmp(cs->behaviour, "delay") && cs->delay_us >= 0 && n > 0 &&
	    (size_t)n < len)
		n += snprintf(buf + n, len - n, ".D%" PRId64 "us", cs->delay_us);
	if (cs->length >= 0 && cs->length != HZRIG_DEFAULT_LENGTH && n > 0 &&
	    (size_t)n < len)
		snprintf(buf + n, len - n, ".len%" PRId64, cs->length);
}

static const char *const verdict_names[] = {
	"inside", "early", "late", "wrong-status", "refused",
};
#define NVERDICTS	(sizeof(verdict_names) / sizeof(verdict_names[0]))

/* A case test's misc: its figures in full, its verdicts and statuses. */
static struct json_object *case_misc(const struct hzrig_case_stats *cs,
				     const size_t vc[NVERDICTS])
{
	struct json_object *m, *o;
	size_t j;

	m = json_object_new_object();
	json_object_object_add(m, "case_key", hzrig_json_str(cs->key));
	json_object_object_add(m, "case", hzrig_json_int(cs->case_idx));
	json_object_object_add(m, "timeout_ms", hzrig_json_int(cs->timeout_ms));
	json_object_object_add(m, "timeout_arg", hzrig_json_int(cs->timeout_arg));
	if (!strcmp(cs->behaviour, "delay") && cs->delay_us >= 0)
		json_object_object_add(m, "delay_us", hzrig_json_int(cs->delay_us));
	if (cs->length >= 0)
		json_object_object_add(m, "length", hzrig_json_int(cs->length));
	json_object_object_add(m, "samples", hzrig_json_int((int64_t)cs->n));
	json_object_object_add(m, "inside", hzrig_json_int((int64_t)cs->inside));
	json_object_object_add(m, "inside_share",
			       hzrig_json_number(cs->n ? (double)cs->inside / cs->n : 0, 4));
	o = json_object_new_object();
	for (j = 0; j < NVERDICTS; j++)
		if (vc[j])
			json_object_object_add(o, verdict_names[j],
					       hzrig_json_int((int64_t)vc[j]));
	json_object_object_add(m, "verdicts", o);
	hzrig_case_percentiles_json(m, cs, hzrig_json_ms_trim);
	if (cs->window_lo_ns != HZRIG_ABSENT) {
		json_object_object_add(m, "window_lo_ms", hzrig_json_ms_trim(cs->window_lo_ns));
		json_object_object_add(m, "window_hi_ms", hzrig_json_ms_trim(cs->window_hi_ns));
	}
	json_object_object_add(m, "allowance_ms", hzrig_json_ms_trim(cs->allowance_ns));
	if (cs->expected_status != HZRIG_ABSENT)
		json_object_object_add(m, "expected_status",
				       hzrig_json_int(cs->expected_status));
	o = json_object_new_object();
	for (j = 0; j < cs->nstatus; j++) {
		char st[24];

		snprintf(st, sizeof(st), "%" PRId64, cs->status[j].status);
		json_object_object_add(o, st, hzrig_json_int((int64_t)cs->status[j].n));
	}
	json_object_object_add(m, "statuses", o);
	return m;
}

struct json_object *kcidb_case_test(struct ctx *c, size_t vi,
				     const struct hzrig_case_stats *cs)
{
	const struct hzrig_variant *v = &c->run.v[vi];
	size_t vc[NVERDICTS] = { 0 }, i, j;
	struct json_object *t;
	double elapsed = 0;	/* s; a sum of int64_t could overflow */
	const char *status;
	char word[ID_MAX], buf[600], win[120];
	bool refused;

	for (i = 0; i < c->run.ns; i++) {
		const struct hzrig_run_sample *s = &c->run.s[i];
		char key[HZRIG_CASE_KEY_MAX];

		if (s->variant != vi ||
		    hzrig_sample_key(s, key, sizeof(key)) < 0 || strcmp(key, cs->key))
			continue;
		for (j = 0; j < NVERDICTS; j++)
			if (!strcmp(s->verdict, verdict_names[j]))
				vc[j]++;
		elapsed += s->elapsed_ns / 1e9;
	}
	refused = v->refused[0] || vc[4];
	if (boot_broke(v->boot_status) || refused)
		status = "ERROR";
	else if (cs->inside == cs->n)
		status = "PASS";
	else
		status = "FAIL";

	case_word(word, sizeof(word), cs);
	t = test_new(c, vi, word, status);

	if (cs->window_lo_ns == HZRIG_ABSENT)
		snprintf(win, sizeof(win), "no timer");
	else if (cs->expected_status != HZRIG_ABSENT &&
		 cs->expected_status != HZRIG_ETIMEDOUT)
		snprintf(win, sizeof(win), "done by %.3f ms",
			 cs->window_hi_ns / 1e6);
	else
		snprintf(win, sizeof(win), "window (%.3f, %.3f] ms",
			 cs->window_lo_ns / 1e6, cs->window_hi_ns / 1e6);
	snprintf(buf, sizeof(buf), "%s: %zu/%zu inside %s (allowance %.3f ms)",
		 cs->key, cs->inside, cs->n, win, cs->allowance_ns / 1e6);
	if (refused)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			 "; timings refused");
	else
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			 "; median %.3f ms", cs->median_ns / 1e6);
	if (boot_broke(v->boot_status))
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			 "; boot %s", v->boot_status);
	json_object_object_add(t, "comment", hzrig_json_str(buf));
	/* The measurement itself; on a jiffy clocksource there is none. */
	if (!refused)
		set_number(t, hzrig_json_ms_trim(cs->median_ns), "ms");
	json_object_object_add(t, "duration", hzrig_json_number(elapsed, 6));

	json_object_object_add(t, "misc", case_misc(cs, vc));
	return t;
}

struct json_object *kcidb_console_test(struct ctx *c, size_t vi)
{
	const struct hzrig_variant *v = &c->run.v[vi];
	struct json_object *t, *m, *a;
	char buf[300];
	size_t i;

	t = test_new(c, vi, "console", v->nfindings ? "FAIL" : "PASS");
	if (v->nfindings)
		snprintf(buf, sizeof(buf), "%zu kernel report%s on the console, the first: %.200s",
			 v->nfindings, v->nfindings == 1 ? "" : "s",
			 v->findings[0].title);
	else
		snprintf(buf, sizeof(buf), "no kernel report on the console");
	json_object_object_add(t, "comment", hzrig_json_str(buf));
	m = json_object_new_object();
	a = json_object_new_array();
	for (i = 0; i < v->nfindings; i++)
		json_object_array_add(a, hzrig_json_str(v->findings[i].title));
	json_object_object_add(m, "findings", a);
	json_object_object_add(t, "misc", m);
	return t;
}
