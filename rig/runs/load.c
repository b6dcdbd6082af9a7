// SPDX-License-Identifier: GPL-2.0
/*
 * A run directory read back, for every command that reads one: samples.jsonl,
 * <variant>/run.json and build.json into a struct hzrig_run (runs.h). Loading
 * is strict: a history that silently dropped half a run, or counted a
 * sample under the wrong case, would be worse than none. Every file of the
 * run is read and every error reported (not just the first), so one pass
 * shows all that is wrong.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <json-c/json.h>

#include "model/model.h"
#include "collect/collect.h"
#include "runs/runs.h"
#include "lib/io.h"
#include "lib/json.h"
#include "lib/util.h"
#include "plan/plan.h"

/* ---------------------------------------------------------------------- */
/* Building a run */


struct hzrig_variant *hzrig_run_add_variant(struct hzrig_run *run,
					    const char *name, int hz)
{
	struct hzrig_variant *v;

	v = hzrig_grow(run->v, run->nv, &run->vcap, 4, sizeof(*v));
	if (!v)
		return NULL;
	run->v = v;
	v = &run->v[run->nv++];
	memset(v, 0, sizeof(*v));
	snprintf(v->name, sizeof(v->name), "%s", name);
	v->hz = hz;
	v->overshoot_p50_ns = v->overshoot_p99_ns = HZRIG_ABSENT;
	v->rtt_p50_ns = v->rtt_p99_ns = HZRIG_ABSENT;
	v->allowance_ns = v->waits_ms = v->wall_ms = HZRIG_ABSENT;
	v->counted_samples = HZRIG_ABSENT;
	v->jiffy_rate_mhz = v->noise_floor_ns = HZRIG_ABSENT;
	v->collected_at = v->capture_errors = HZRIG_ABSENT;
	v->boot_wall_s = -1;
	v->probe_min_ns = v->probe_max_ns = HZRIG_ABSENT;
	v->ktap_ok = v->ktap_not_ok = HZRIG_ABSENT;
	v->kernel_build_s = v->module_build_s = -1;
	return v;
}

struct hzrig_run_sample *hzrig_run_add_sample(struct hzrig_run *run)
{
	struct hzrig_run_sample *s;

	s = hzrig_grow(run->s, run->ns, &run->scap, 256, sizeof(*s));
	if (!s)
		return NULL;
	run->s = s;
	s = &run->s[run->ns++];
	hzrig_sample_init(s);
	return s;
}

size_t hzrig_run_find_variant(const struct hzrig_run *run, const char *name)
{
	size_t i;

	for (i = 0; i < run->nv; i++)
		if (!strcmp(run->v[i].name, name))
			return i;
	return HZRIG_NO_VARIANT;
}

void hzrig_variant_free_cases(struct hzrig_variant *v)
{
	size_t i;

	for (i = 0; i < v->ncases; i++)
		free(v->cases[i].status);
	free(v->cases);
	v->cases = NULL;
	v->ncases = 0;
}

void hzrig_variant_free_findings(struct hzrig_variant *v)
{
	size_t i;

	for (i = 0; i < v->nfindings; i++)
		free(v->findings[i].excerpt);
	free(v->findings);
	v->findings = NULL;
	v->nfindings = 0;
}

void hzrig_run_free(struct hzrig_run *run)
{
	size_t i;

	for (i = 0; i < run->nv; i++) {
		struct hzrig_variant *v = &run->v[i];

		hzrig_variant_free_cases(v);
		free(v->run_json);
		free(v->cmdline);
		free(v->patch_sha256);
		free(v->build_json);
		free(v->fragments);
		free(v->patches);
		hzrig_variant_free_findings(v);
	}
	free(run->v);
	free(run->s);
	free(run->source);
	memset(run, 0, sizeof(*run));
}

/* ---------------------------------------------------------------------- */
/* Validating loader */

struct loader {
	FILE *err;
	const char *file;	/* the file being read, for messages */
	unsigned int line;	/* 0: messages name the file only */
	unsigned int errors;
};

static void lerr(struct loader *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void lerr(struct loader *l, const char *fmt, ...)
{
	va_list ap;

	if (l->line)
		fprintf(l->err, "%s:%u: ", l->file, l->line);
	else
		fprintf(l->err, "%s: ", l->file);
	va_start(ap, fmt);
	vfprintf(l->err, fmt, ap);
	va_end(ap);
	fputc('\n', l->err);
	l->errors++;
}

enum { OPTIONAL, REQUIRED };

/*
 * Member @key of @o, which must be of JSON type @type (@what in messages):
 * 1 and the member in @out, 0 when it is optional and absent or null, -1
 * after an error.
 */
static int get_member(struct loader *l, struct json_object *o,
		      const char *pfx, const char *key, int need,
		      enum json_type type, const char *what,
		      struct json_object **out)
{
	if (!json_object_object_get_ex(o, key, out) || !*out) {
		if (need == OPTIONAL)
			return 0;
		lerr(l, "field \"%s%s\": missing", pfx, key);
		return -1;
	}
	if (!json_object_is_type(*out, type)) {
		lerr(l, "field \"%s%s\": is %s, expected %s", pfx, key,
		     hzrig_json_what(*out), what);
		return -1;
	}
	return 1;
}

/*
 * Integer field @key of @o: 0 and the value in @out, or @out untouched
 * (callers preset HZRIG_ABSENT) when it is optional and absent or null;
 * -1 after an error.
 */
static int get_int(struct loader *l, struct json_object *o, const char *pfx,
		   const char *key, int need, int64_t min, int64_t max,
		   int64_t *out)
{
	struct json_object *v;
	int64_t x;
	int r;

	r = get_member(l, o, pfx, key, need, json_type_int, "an integer", &v);
	if (r <= 0)
		return r;
	if (!hzrig_json_int_in(v, min, max, &x)) {
		lerr(l, "field \"%s%s\": %s out of range %" PRId64 "..%" PRId64,
		     pfx, key, json_object_to_json_string(v), min, max);
		return -1;
	}
	*out = x;
	return 0;
}

/* A number that may be fractional (build times). */
static int get_num(struct loader *l, struct json_object *o, const char *key,
		   double *out)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return 0;
	if (!json_object_is_type(v, json_type_int) &&
	    !json_object_is_type(v, json_type_double)) {
		lerr(l, "field \"%s\": is %s, expected a number", key, hzrig_json_what(v));
		return -1;
	}
	*out = json_object_get_double(v);
	if (!isfinite(*out) || *out < 0) {
		lerr(l, "field \"%s\": %g is not a duration", key, *out);
		return -1;
	}
	return 0;
}

/*
 * boot.@key, when there: seconds, finite, 0 up to HZRIG_MS_MAX / 1000 (as
 * far as every reader's arithmetic in milliseconds goes), into *@out
 * (may be NULL) when it is.
 */
static void get_seconds(struct loader *l, struct json_object *boot,
			const char *key, double *out)
{
	struct json_object *v;
	double d;

	if (!json_object_object_get_ex(boot, key, &v) || !v)
		return;
	if (!json_object_is_type(v, json_type_int) &&
	    !json_object_is_type(v, json_type_double)) {
		lerr(l, "field \"boot.%s\": is %s, expected seconds", key, hzrig_json_what(v));
		return;
	}
	d = json_object_get_double(v);
	if (!isfinite(d) || d < 0 || d > (double)(HZRIG_MS_MAX / 1000))
		lerr(l, "field \"boot.%s\": %s out of range 0..%" PRId64 " seconds",
		     key, json_object_to_json_string(v), HZRIG_MS_MAX / 1000);
	else if (out)
		*out = d;
}

/* String field; @buf keeps its contents when optional and absent or null. */
static int get_str(struct loader *l, struct json_object *o, const char *pfx,
		   const char *key, int need, char *buf, size_t len)
{
	struct json_object *v;
	const char *s;
	int r;

	r = get_member(l, o, pfx, key, need, json_type_string, "a string", &v);
	if (r <= 0)
		return r;
	s = json_object_get_string(v);
	if (strlen(s) >= len) {
		lerr(l, "field \"%s%s\": longer than %zu characters", pfx, key,
		     len - 1);
		return -1;
	}
	snprintf(buf, len, "%s", s);
	return 0;
}

/* Variant names become directory names: the same alphabet, no dot first. */
static bool variant_name_ok(const char *s)
{
	const char *p;

	if (!s[0] || s[0] == '.' || strlen(s) >= HZRIG_VARIANT_MAX)
		return false;
	for (p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("-_.+", *p))
			return false;
	return true;
}

/* Array of strings @key joined with spaces into a new string (NULL: absent). */
static int get_str_list(struct loader *l, struct json_object *o,
			const char *key, char **out)
{
	struct json_object *v;
	size_t i, n, len = 1;
	char *s;
	int r;

	r = get_member(l, o, "", key, OPTIONAL, json_type_array,
		       "an array of strings", &v);
	if (r <= 0)
		return r;
	n = json_object_array_length(v);
	for (i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(v, i);

		if (!json_object_is_type(e, json_type_string)) {
			lerr(l, "field \"%s[%zu]\": is %s, expected a string",
			     key, i, hzrig_json_what(e));
			return -1;
		}
		len += strlen(json_object_get_string(e)) + 1;
	}
	s = calloc(1, len);
	if (!s) {
		lerr(l, "out of memory");
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, json_object_get_string(json_object_array_get_idx(v, i)));
	}
	*out = s;
	return 0;
}

/* Parse a whole JSON document; on error name the line it stopped on. */
static struct json_object *parse_doc(struct loader *l, const char *text,
				     size_t len)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o;
	enum json_tokener_error e;
	size_t end, i;

	if (!tok) {
		lerr(l, "out of memory");
		return NULL;
	}
	o = json_tokener_parse_ex(tok, text, (int)len);
	e = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	if (!o || e != json_tokener_success) {
		unsigned int line = 1;

		if (e == json_tokener_continue)
			end = len;
		for (i = 0; i < end && i < len; i++)
			line += text[i] == '\n';
		l->line = line;
		lerr(l, "not valid JSON: %s",
		     e == json_tokener_continue ? "unexpected end of file" :
		     json_tokener_error_desc(e));
		l->line = 0;
		json_object_put(o);
		o = NULL;
	} else {
		for (i = end; i < len; i++) {
			if (!isspace((unsigned char)text[i])) {
				lerr(l, "not valid JSON: text after the document");
				json_object_put(o);
				o = NULL;
				break;
			}
		}
	}
	json_tokener_free(tok);
	return o;
}

/* The schema field, when there is one, must be one this tool reads. */
static void check_schema(struct loader *l, struct json_object *o)
{
	int64_t schema = HZRIG_ABSENT;

	if (get_int(l, o, "", "schema", OPTIONAL, 0, INT64_MAX, &schema))
		return;
	if (schema != HZRIG_ABSENT && schema > HZRIG_RESULTS_SCHEMA)
		lerr(l, "schema %" PRId64 " is newer than this hzrig reads (%d)",
		     schema, HZRIG_RESULTS_SCHEMA);
}

/* An optional object member @key; NULL when absent, null or mistyped. */
static struct json_object *get_obj(struct loader *l, struct json_object *o,
				   const char *key)
{
	struct json_object *x;

	if (get_member(l, o, "", key, OPTIONAL, json_type_object, "an object",
		       &x) <= 0)
		return NULL;
	return x;
}

/* noise_probes[]: how many, and the range of their allowances. */
static void load_probes(struct loader *l, struct hzrig_variant *v,
			struct json_object *o)
{
	struct json_object *a, *e;
	size_t i, n;
	int64_t x;

	if (get_member(l, o, "", "noise_probes", OPTIONAL, json_type_array,
		       "an array", &a) <= 0)
		return;
	n = json_object_array_length(a);
	for (i = 0; i < n; i++) {
		e = json_object_array_get_idx(a, i);
		if (!json_object_is_type(e, json_type_object)) {
			lerr(l, "field \"noise_probes[%zu]\": is %s, expected an object",
			     i, hzrig_json_what(e));
			return;
		}
		x = HZRIG_ABSENT;
		if (get_int(l, e, "noise_probes[].", "allowance_ns", REQUIRED,
			    0, HZRIG_NS_MAX, &x))
			return;
		if (!v->nprobes || x < v->probe_min_ns)
			v->probe_min_ns = x;
		if (!v->nprobes || x > v->probe_max_ns)
			v->probe_max_ns = x;
		v->nprobes++;
	}
}

/* One element of "findings"; 0, or -1 after an error counted in @l. */
static int load_finding(struct loader *l, struct json_object *e,
			struct hzrig_run_finding *f)
{
	static const char pfx[] = "findings[].";
	struct json_object *t;

	memset(f, 0, sizeof(*f));
	if (get_str(l, e, pfx, "title", REQUIRED, f->title, sizeof(f->title)) ||
	    get_str(l, e, pfx, "kind", REQUIRED, f->kind, sizeof(f->kind)) ||
	    get_str(l, e, pfx, "where", OPTIONAL, f->where, sizeof(f->where)) ||
	    get_str(l, e, pfx, "running", OPTIONAL, f->running,
		    sizeof(f->running)) ||
	    get_int(l, e, pfx, "console_line", OPTIONAL, 0, INT32_MAX,
		    &f->console_line))
		return -1;
	if (!f->title[0]) {
		lerr(l, "field \"findings[].title\": empty");
		return -1;
	}
	if (get_member(l, e, pfx, "truncated", OPTIONAL, json_type_boolean,
		       "true or false", &t) < 0)
		return -1;
	f->truncated = t && json_object_get_boolean(t);
	if (get_member(l, e, pfx, "excerpt", OPTIONAL, json_type_string,
		       "a string", &t) < 0)
		return -1;
	if (t) {
		f->excerpt = strdup(json_object_get_string(t));
		if (!f->excerpt) {
			lerr(l, "out of memory");
			return -1;
		}
	}
	return 0;
}

/* "findings": the kernel reports collect found on the console. */
static void load_findings(struct loader *l, struct hzrig_variant *v,
			  struct json_object *o)
{
	struct json_object *a, *e;
	size_t i, n;

	if (get_member(l, o, "", "findings", OPTIONAL, json_type_array,
		       "an array", &a) <= 0)
		return;
	v->scanned = true;
	n = json_object_array_length(a);
	if (!n)
		return;
	v->findings = calloc(n, sizeof(*v->findings));
	if (!v->findings) {
		lerr(l, "out of memory");
		return;
	}
	for (i = 0; i < n; i++) {
		e = json_object_array_get_idx(a, i);
		if (!json_object_is_type(e, json_type_object)) {
			lerr(l, "field \"findings[%zu]\": is %s, expected an object",
			     i, hzrig_json_what(e));
			return;
		}
		if (load_finding(l, e, &v->findings[i]))
			return;
		v->nfindings++;
	}
}

/* What the guest and the capture said: KTAP counts, a truncated capture. */
static void load_guest(struct loader *l, struct hzrig_variant *v,
		       struct json_object *o)
{
	struct json_object *x, *t;

	get_str(l, o, "", "refused", OPTIONAL, v->refused, sizeof(v->refused));
	x = get_obj(l, o, "ktap");
	if (x) {
		get_int(l, x, "ktap.", "ok", OPTIONAL, 0, INT32_MAX, &v->ktap_ok);
		get_int(l, x, "ktap.", "not_ok", OPTIONAL, 0, INT32_MAX,
			&v->ktap_not_ok);
	}
	x = get_obj(l, o, "capture");
	if (x) {
		if (get_member(l, x, "capture.", "truncated", OPTIONAL,
			       json_type_boolean, "true or false", &t) > 0)
			v->truncated = json_object_get_boolean(t);
	}
	/* the tree whose model judged the samples; absent before trees */
	x = get_obj(l, o, "model");
	if (x) {
		get_str(l, x, "model.", "tree", OPTIONAL, v->model_tree,
			sizeof(v->model_tree));
		if (get_member(l, x, "model.", "exact", OPTIONAL,
			       json_type_boolean, "true or false", &t) > 0)
			v->model_exact = json_object_get_boolean(t);
	}
}

static void load_noise(struct loader *l, struct hzrig_variant *v,
		       struct json_object *o)
{
	struct json_object *n = get_obj(l, o, "noise");

	load_probes(l, v, o);
	if (!n)
		return;
	get_int(l, n, "noise.", "overshoot_p50_ns", OPTIONAL, 0, HZRIG_NS_MAX,
		&v->overshoot_p50_ns);
	get_int(l, n, "noise.", "overshoot_p99_ns", OPTIONAL, 0, HZRIG_NS_MAX,
		&v->overshoot_p99_ns);
	get_int(l, n, "noise.", "rtt_p50_ns", OPTIONAL, 0, HZRIG_NS_MAX,
		&v->rtt_p50_ns);
	get_int(l, n, "noise.", "rtt_p99_ns", OPTIONAL, 0, HZRIG_NS_MAX,
		&v->rtt_p99_ns);
}

/*
 * The JSON object in file @path, its schema checked, and the file's text in
 * @text (for the caller to keep or free); NULL, with nothing to free, after
 * an error counted in @l.
 */
static struct json_object *load_object(struct loader *l, const char *path,
				       char **text)
{
	struct json_object *o;
	char why[HZRIG_WHY];
	size_t len;

	l->file = path;
	l->line = 0;
	*text = hzrig_in_slurp(path, HZRIG_MAX_JSON, &len, why, sizeof(why));
	if (!*text) {
		lerr(l, "%s", why);
		return NULL;
	}
	o = parse_doc(l, *text, len);
	if (o && !json_object_is_type(o, json_type_object)) {
		lerr(l, "is %s, expected an object", hzrig_json_what(o));
		json_object_put(o);
		o = NULL;
	}
	if (!o) {
		free(*text);
		*text = NULL;
		return NULL;
	}
	check_schema(l, o);
	return o;
}

/* A true/false field; @out untouched when absent or null. */
static void get_bool(struct loader *l, struct json_object *o, const char *pfx,
		     const char *key, bool *out)
{
	struct json_object *v;

	if (get_member(l, o, pfx, key, OPTIONAL, json_type_boolean,
		       "true or false", &v) > 0 && out)
		*out = json_object_get_boolean(v);
}

/* Counters @keys (NULL-terminated) of @o: integers 0..@max when there. */
static void get_counts(struct loader *l, struct json_object *o,
		       const char *pfx, const char *const *keys, int64_t max)
{
	int64_t x;

	for (; o && *keys; keys++)
		get_int(l, o, pfx, *keys, OPTIONAL, 0, max, &x);
}

/* A string of any length into a new allocation (NULL when absent). */
static void get_strdup(struct loader *l, struct json_object *o,
		       const char *key, size_t max, char **out)
{
	struct json_object *v;

	if (get_member(l, o, "", key, OPTIONAL, json_type_string, "a string",
		       &v) <= 0)
		return;
	if ((size_t)json_object_get_string_len(v) > max ||
	    strlen(json_object_get_string(v)) !=
	    (size_t)json_object_get_string_len(v)) {
		lerr(l, "field \"%s\": longer than %zu characters or holds a NUL",
		     key, max);
		return;
	}
	*out = strdup(json_object_get_string(v));
	if (!*out)
		lerr(l, "out of memory");
}

int hzrig_utc_parse(const char *s, int64_t *out)
{
	struct tm tm = { 0 }, check;
	int n = -1;
	time_t t;

	if (strlen(s) != 20 ||
	    sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &tm.tm_year, &tm.tm_mon,
		   &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &n) != 6 ||
	    n != 20)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	check = tm;
	t = timegm(&check);
	/* timegm normalises 2026-02-31: a date that moved was not a date. */
	if (t == (time_t)-1 || check.tm_mday != tm.tm_mday ||
	    check.tm_mon != tm.tm_mon || check.tm_hour != tm.tm_hour ||
	    check.tm_min != tm.tm_min || check.tm_sec != tm.tm_sec)
		return -1;
	*out = (int64_t)t;
	return 0;
}

/* boot: what `hzrig boot` said of the guest (status.json). */
static void load_boot(struct loader *l, struct hzrig_variant *v,
		      struct json_object *o)
{
	struct json_object *x = get_obj(l, o, "boot");
	char buf[HZRIG_VARIANT_MAX];
	int64_t rc;

	if (!x)
		return;
	get_seconds(l, x, "wall_s", &v->boot_wall_s);
	get_seconds(l, x, "first_result_s", NULL);
	get_seconds(l, x, "timeout_s", NULL);
	get_int(l, x, "boot.", "guest_rc", OPTIONAL, INT32_MIN, INT32_MAX, &rc);
	get_str(l, x, "boot.", "crash", OPTIONAL, v->boot_crash,
		sizeof(v->boot_crash));
	get_str(l, x, "boot.", "variant", OPTIONAL, buf, sizeof(buf));
	get_str(l, x, "boot.", "status", OPTIONAL, buf, sizeof(buf));
	get_str(l, x, "boot.", "accel", OPTIONAL, buf, sizeof(buf));
}

/*
 * The fields of run.json no other part of the loader keeps: each checked
 * for its type and range, the ones a reader uses kept in @v.
 */
static void load_rest(struct loader *l, struct hzrig_variant *v,
		      struct json_object *o)
{
	static const char *const ktap[] = { "plan", "skip", NULL };
	static const char *const capture[] = {
		"lines", "bad_lines", "bad_records", "ignored_records", NULL
	};
	static const char *const end[] = { "cases", "samples", "failures", NULL };
	static const char *const counts[] = {
		"inside", "early", "late", "wrong_status", "refused", "outside", NULL
	};
	static const char *const noise[] = { "sleep_us", "n", "rtt_n", NULL };
	struct json_object *x;
	char when[32] = "";
	int64_t abi, tick;

	get_strdup(l, o, "cmdline", 4096, &v->cmdline);
	get_int(l, o, "", "abi", OPTIONAL, 0, INT32_MAX, &abi);
	get_int(l, o, "", "jiffy_rate_mhz", OPTIONAL, 0, INT32_MAX,
		&v->jiffy_rate_mhz);
	get_int(l, o, "", "tick_ns", OPTIONAL, 1, HZRIG_NS_MAX, &tick);
	get_int(l, o, "", "noise_floor_ns", OPTIONAL, 0, HZRIG_NS_MAX,
		&v->noise_floor_ns);
	if (!get_str(l, o, "", "allowance_source", OPTIONAL,
		     v->allowance_source, sizeof(v->allowance_source)) &&
	    v->allowance_source[0] && strcmp(v->allowance_source, "noise") &&
	    strcmp(v->allowance_source, "floor"))
		lerr(l, "field \"allowance_source\": '%s' is not noise or floor",
		     v->allowance_source);
	if (!get_str(l, o, "", "collected_at", OPTIONAL, when, sizeof(when)) &&
	    when[0] && hzrig_utc_parse(when, &v->collected_at))
		lerr(l, "field \"collected_at\": '%s' is not a UTC time like 2026-12-03T10:21:14Z",
		     when);
	load_boot(l, v, o);
	x = get_obj(l, o, "ktap");
	get_counts(l, x, "ktap.", ktap, INT32_MAX);
	if (x) {
		get_bool(l, x, "ktap.", "version_seen", NULL);
		get_bool(l, x, "ktap.", "bail_out", NULL);
	}
	x = get_obj(l, o, "capture");
	get_counts(l, x, "capture.", capture, INT32_MAX);
	if (x) {
		get_int(l, x, "capture.", "errors", OPTIONAL, 0, INT32_MAX,
			&v->capture_errors);
		get_counts(l, get_obj(l, x, "end"), "capture.end.", end,
			   INT32_MAX);
	}
	get_counts(l, get_obj(l, o, "counts"), "counts.", counts, INT64_MAX);
	get_counts(l, get_obj(l, o, "noise"), "noise.", noise, INT32_MAX);
}

/* The fields of run.json's object @o into @v, whose name and HZ are set. */
static void load_variant_fields(struct loader *l, struct hzrig_variant *v,
				struct json_object *o)
{
	struct json_object *x;
	double ratio;

	get_str(l, o, "", "release", OPTIONAL, v->release, sizeof(v->release));
	get_str(l, o, "", "clocksource", OPTIONAL, v->clocksource,
		sizeof(v->clocksource));
	get_str(l, o, "", "accel", OPTIONAL, v->accel, sizeof(v->accel));
	get_str(l, o, "", "plan", OPTIONAL, v->plan, sizeof(v->plan));
	get_str(l, o, "", "boot_status", OPTIONAL, v->boot_status,
		sizeof(v->boot_status));
	get_int(l, o, "", "allowance_ns", OPTIONAL, 0, HZRIG_NS_MAX,
		&v->allowance_ns);
	load_noise(l, v, o);
	load_guest(l, v, o);
	load_findings(l, v, o);
	load_rest(l, v, o);
	x = get_obj(l, o, "efficiency");
	if (x) {
		get_int(l, x, "efficiency.", "waits_ms", OPTIONAL, 0, HZRIG_MS_MAX,
			&v->waits_ms);
		get_int(l, x, "efficiency.", "wall_ms", OPTIONAL, 0, HZRIG_MS_MAX,
			&v->wall_ms);
		get_str(l, x, "efficiency.", "parallel", OPTIONAL, v->parallel,
			sizeof(v->parallel));
		get_num(l, x, "ratio", &ratio);
	}
	x = get_obj(l, o, "counts");
	if (x)
		get_int(l, x, "counts.", "samples", OPTIONAL, 0, INT64_MAX,
			&v->counted_samples);
}

static void load_run_json(struct loader *l, struct hzrig_run *run,
			  const char *path, const char *dname)
{
	char name[HZRIG_VARIANT_MAX] = "";
	struct hzrig_variant *v;
	struct json_object *o;
	int64_t hz = 0;
	char *text;

	o = load_object(l, path, &text);
	if (!o)
		return;
	if (get_str(l, o, "", "variant", REQUIRED, name, sizeof(name)) |
	    get_int(l, o, "", "hz", REQUIRED, 1, 100000, &hz))
		goto out;
	if (strcmp(name, dname)) {
		lerr(l, "field \"variant\": '%s' in directory '%s'", name, dname);
		goto out;
	}
	v = hzrig_run_add_variant(run, name, (int)hz);
	if (!v) {
		lerr(l, "out of memory");
		goto out;
	}
	v->run_json = text;
	text = NULL;
	load_variant_fields(l, v, o);
out:
	json_object_put(o);
	free(text);
}

int hzrig_variant_load_json(struct hzrig_variant *v, const char *file,
			    FILE *err)
{
	struct loader l = { .err = err ? err : stderr, .file = file };
	char name[HZRIG_VARIANT_MAX] = "";
	struct json_object *o;
	int64_t hz = 0;

	if (!v->run_json) {
		lerr(&l, "no run.json");
		return (int)l.errors;
	}
	o = parse_doc(&l, v->run_json, strlen(v->run_json));
	if (o && !json_object_is_type(o, json_type_object))
		lerr(&l, "is %s, expected an object", hzrig_json_what(o));
	else if (o) {
		check_schema(&l, o);
		if (!get_str(&l, o, "", "variant", REQUIRED, name, sizeof(name)) &&
		    strcmp(name, v->name))
			lerr(&l, "field \"variant\": '%s' for variant '%s'", name,
			     v->name);
		if (!get_int(&l, o, "", "hz", REQUIRED, 1, 100000, &hz) &&
		    hz != v->hz)
			lerr(&l, "field \"hz\": %" PRId64 " for HZ=%d", hz, v->hz);
		hzrig_variant_free_findings(v);
		free(v->cmdline);
		v->cmdline = NULL;
		load_variant_fields(&l, v, o);
	}
	json_object_put(o);
	return (int)l.errors;
}

/*
 * A patch name from build.json is joined onto the patch directory and
 * hashed: it must name a file in that directory, in printable characters
 * without blanks (the list is kept space-separated).
 */
static bool patch_name_ok(const char *s)
{
	const char *p;

	if (!s[0] || !strcmp(s, ".") || !strcmp(s, "..") || strlen(s) > 255)
		return false;
	for (p = s; *p; p++)
		if (*p == '/' || !isgraph((unsigned char)*p))
			return false;
	return true;
}

static int check_patch_names(struct loader *l, struct json_object *o)
{
	struct json_object *v, *e;
	size_t i, n;

	if (!json_object_object_get_ex(o, "patches", &v) ||
	    !json_object_is_type(v, json_type_array))
		return 0;	/* absent, or get_str_list() says what is wrong */
	n = json_object_array_length(v);
	for (i = 0; i < n; i++) {
		e = json_object_array_get_idx(v, i);
		if (json_object_is_type(e, json_type_string) &&
		    !patch_name_ok(json_object_get_string(e))) {
			lerr(l, "field \"patches[%zu]\": '%s' is not the name of a file in the patch directory (no '/', blanks or control characters)",
			     i, json_object_get_string(e));
			return -1;
		}
	}
	return 0;
}

/* A lowercase sha256 hex digest. */
static bool is_sha256(const char *s)
{
	size_t i;

	for (i = 0; i < 64; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return false;
	return !s[64];
}

/*
 * patch_sha256: the digests of the patches taken when the kernel was built,
 * one per entry of "patches", in order.
 */
static void load_patch_sha256(struct loader *l, struct hzrig_variant *v,
			      struct json_object *o)
{
	struct json_object *a, *e;
	size_t i, n, want = 0;
	const char *p;

	if (get_member(l, o, "", "patch_sha256", OPTIONAL, json_type_array,
		       "an array of digests", &a) <= 0)
		return;
	n = json_object_array_length(a);
	for (p = v->patches; p && *p; want++) {
		p += strcspn(p, " ");
		p += strspn(p, " ");
	}
	if (n != want) {
		lerr(l, "field \"patch_sha256\": %zu digests for %zu patches", n,
		     want);
		return;
	}
	v->patch_sha256 = calloc(n ? n : 1, sizeof(*v->patch_sha256));
	if (!v->patch_sha256) {
		lerr(l, "out of memory");
		return;
	}
	for (i = 0; i < n; i++) {
		e = json_object_array_get_idx(a, i);
		if (!json_object_is_type(e, json_type_string) ||
		    !is_sha256(json_object_get_string(e))) {
			lerr(l, "field \"patch_sha256[%zu]\": not a lowercase sha256 hex digest",
			     i);
			return;
		}
		memcpy(v->patch_sha256[i], json_object_get_string(e), 65);
	}
}

static void load_build_json(struct loader *l, struct hzrig_variant *v,
			    const char *path)
{
	char name[HZRIG_VARIANT_MAX] = "";
	struct json_object *o;
	char *text;

	o = load_object(l, path, &text);
	if (!o)
		return;
	if (!get_str(l, o, "", "variant", OPTIONAL, name, sizeof(name)) &&
	    name[0] && strcmp(name, v->name))
		lerr(l, "field \"variant\": '%s' in directory '%s'", name,
		     v->name);
	get_str_list(l, o, "fragments", &v->fragments);
	if (!check_patch_names(l, o))
		get_str_list(l, o, "patches", &v->patches);
	get_str(l, o, "", "config_hash", OPTIONAL, v->config_hash,
		sizeof(v->config_hash));
	get_str(l, o, "", "tree_describe", OPTIONAL, v->tree_describe,
		sizeof(v->tree_describe));
	get_str(l, o, "", "hzrig_version", OPTIONAL, v->hzrig_version,
		sizeof(v->hzrig_version));
	get_num(l, o, "kernel_build_s", &v->kernel_build_s);
	get_num(l, o, "module_build_s", &v->module_build_s);
	get_str(l, o, "", "compiler", OPTIONAL, v->compiler,
		sizeof(v->compiler));
	load_patch_sha256(l, v, o);
	v->build_json = text;
	json_object_put(o);
}

/* hzrig_sample_from_json()'s messages, as the loader's own. */
static void sample_report(void *arg, const char *msg)
{
	lerr(arg, "%s", msg);
}

/* One samples.jsonl object into a new sample; errors counted in @l. */
static void load_sample(struct loader *l, struct hzrig_run *run,
			struct json_object *o)
{
	char name[HZRIG_VARIANT_MAX] = "";
	struct hzrig_run_sample s;
	unsigned int before = l->errors;
	int64_t hz = 0;
	size_t vi;

	hzrig_sample_init(&s);
	s.line = l->line;

	check_schema(l, o);
	if (!get_str(l, o, "", "variant", REQUIRED, name, sizeof(name)) &&
	    !variant_name_ok(name))
		lerr(l, "field \"variant\": '%s' is not a variant name", name);
	get_int(l, o, "", "hz", REQUIRED, 1, 100000, &hz);
	hzrig_sample_from_json(o, HZRIG_SF_REQ, &s, sample_report, l);
	if (s.driver[0] && strcmp(s.path, "usbmon"))
		lerr(l, "field \"driver\": only samples of path usbmon have one");
	if (!strcmp(s.path, "usbmon") && !s.driver[0])
		lerr(l, "field \"driver\": a sample of path usbmon needs one");
	if ((s.window_lo_ns == HZRIG_ABSENT) != (s.window_hi_ns == HZRIG_ABSENT))
		lerr(l, "fields \"window_lo_ns\", \"window_hi_ns\": one without the other");
	else if (s.window_lo_ns > s.window_hi_ns)
		lerr(l, "fields \"window_lo_ns\", \"window_hi_ns\": low edge above the high one");
	if (l->errors != before)
		return;

	vi = hzrig_run_find_variant(run, name);
	if (vi == HZRIG_NO_VARIANT) {
		lerr(l, "variant '%s' has no %s/run.json", name, name);
		return;
	}
	if (run->v[vi].hz != hz) {
		lerr(l, "field \"hz\": %" PRId64 ", but %s/run.json says %d",
		     hz, name, run->v[vi].hz);
		return;
	}
	s.variant = vi;
	{
		struct hzrig_run_sample *d = hzrig_run_add_sample(run);

		if (!d) {
			lerr(l, "out of memory");
			return;
		}
		*d = s;
	}
}

static void load_samples(struct loader *l, struct hzrig_run *run,
			 const char *path)
{
	struct json_tokener *tok;
	char why[HZRIG_WHY];
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	l->file = path;
	l->line = 0;
	f = hzrig_in_open(path, HZRIG_MAX_CAPTURE, why, sizeof(why));
	if (!f) {
		lerr(l, "%s", why);
		return;
	}
	tok = json_tokener_new();
	if (!tok) {
		lerr(l, "out of memory");
		fclose(f);
		return;
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		struct json_object *o;
		enum json_tokener_error e;
		size_t i, end;

		l->line++;
		for (i = 0; i < (size_t)len && isspace((unsigned char)line[i]); i++)
			;
		if (i == (size_t)len)
			continue;	/* blank lines carry nothing */
		json_tokener_reset(tok);
		o = json_tokener_parse_ex(tok, line, (int)len);
		e = json_tokener_get_error(tok);
		if (!o || e != json_tokener_success) {
			lerr(l, "not valid JSON: %s",
			     e == json_tokener_continue ? "line ends inside the object" :
			     json_tokener_error_desc(e));
			json_object_put(o);
			continue;
		}
		end = json_tokener_get_parse_end(tok);
		for (i = end; i < (size_t)len && isspace((unsigned char)line[i]); i++)
			;
		if (i != (size_t)len)
			lerr(l, "not valid JSON: text after the object");
		else if (!json_object_is_type(o, json_type_object))
			lerr(l, "is %s, expected a sample object", hzrig_json_what(o));
		else
			load_sample(l, run, o);
		json_object_put(o);
	}
	if (ferror(f)) {
		char why[HZRIG_WHY];

		l->line = 0;
		lerr(l, "%s", hzrig_in_error(why, sizeof(why), HZRIG_MAX_CAPTURE));
	}
	json_tokener_free(tok);
	free(line);
	fclose(f);
}

int hzrig_cmp_sample_pos(const void *a, const void *b)
{
	const struct hzrig_run_sample *x = *(const struct hzrig_run_sample *const *)a;
	const struct hzrig_run_sample *y = *(const struct hzrig_run_sample *const *)b;

	if (x->variant != y->variant)
		return x->variant < y->variant ? -1 : 1;
	if (x->case_idx != y->case_idx)
		return x->case_idx < y->case_idx ? -1 : 1;
	if (x->rep != y->rep)
		return x->rep < y->rep ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/*
 * What no single line shows: a (variant, case, rep) recorded twice, a
 * variant whose run.json counts other samples than samples.jsonl holds.
 */
static void check_consistency(struct loader *l, struct hzrig_run *run,
			      const char *spath)
{
	const struct hzrig_run_sample **p;
	size_t i, *count;

	l->file = spath;
	p = malloc((run->ns + 1) * sizeof(*p));
	count = calloc(run->nv + 1, sizeof(*count));
	if (!p || !count) {
		l->line = 0;
		lerr(l, "out of memory");
		free(p);
		free(count);
		return;
	}
	for (i = 0; i < run->ns; i++) {
		p[i] = &run->s[i];
		count[run->s[i].variant]++;
	}
	qsort(p, run->ns, sizeof(*p), hzrig_cmp_sample_pos);
	for (i = 1; i < run->ns; i++) {
		if (p[i]->variant == p[i - 1]->variant &&
		    p[i]->case_idx == p[i - 1]->case_idx &&
		    p[i]->rep == p[i - 1]->rep) {
			l->line = p[i]->line;
			lerr(l, "variant %s case %" PRId64 " rep %" PRId64
			     " recorded twice (first on line %u)",
			     run->v[p[i]->variant].name, p[i]->case_idx,
			     p[i]->rep, p[i - 1]->line);
		}
	}
	l->line = 0;
	for (i = 0; i < run->nv; i++) {
		const struct hzrig_variant *v = &run->v[i];

		if (v->counted_samples != HZRIG_ABSENT &&
		    (size_t)v->counted_samples != count[i])
			lerr(l, "%zu samples of %s, but %s/run.json counts %" PRId64
			     " (a partly written run?)", count[i], v->name,
			     v->name, v->counted_samples);
	}
	free(p);
	free(count);
}

int hzrig_run_load(const char *dir, struct hzrig_run *run, FILE *err)
{
	struct loader l = { .err = err ? err : stderr };
	char *real, path[PATH_MAX + 64], spath[PATH_MAX + 64];
	const char *base;
	struct dirent *de;
	DIR *d;
	size_t i;

	memset(run, 0, sizeof(*run));
	real = realpath(dir, NULL);
	if (!real) {
		fprintf(l.err, "%s: %s\n", dir, strerror(errno));
		return -1;
	}
	run->source = real;
	base = strrchr(real, '/');
	base = base ? base + 1 : real;
	if (!base[0] || strlen(base) >= sizeof(run->id)) {
		fprintf(l.err, "%s: not a run directory name\n", real);
		return -1;
	}
	/* The name is the run's id in the history, CSV and KCIDB ids. */
	for (i = 0; base[i]; i++) {
		if ((unsigned char)base[i] < 0x20 || base[i] == 0x7f) {
			fprintf(l.err, "%s: the run directory's name has a control character (byte 0x%02x at %zu): rename the directory\n",
				real, (unsigned char)base[i], i + 1);
			return -1;
		}
	}
	snprintf(run->id, sizeof(run->id), "%s", base);

	d = opendir(real);
	if (!d) {
		fprintf(l.err, "%s: %s\n", real, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/run.json", real, de->d_name);
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		if (!variant_name_ok(de->d_name)) {
			l.file = path;
			lerr(&l, "'%s' is not a variant name", de->d_name);
			continue;
		}
		load_run_json(&l, run, path, de->d_name);
	}
	closedir(d);
	for (i = 0; i < run->nv; i++) {
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s/build.json", real,
			 run->v[i].name);
		if (!stat(path, &st))
			load_build_json(&l, &run->v[i], path);
	}
	snprintf(spath, sizeof(spath), "%s/samples.jsonl", real);
	if (!run->nv) {
		fprintf(l.err, "%s: no <variant>/run.json: not a run directory\n",
			real);
		return l.errors + 1;
	}
	load_samples(&l, run, spath);
	if (!l.errors)
		check_consistency(&l, run, spath);
	if (!l.errors && hzrig_run_stats(run)) {
		fprintf(l.err, "%s: out of memory\n", real);
		l.errors++;
	}
	return (int)l.errors;
}

