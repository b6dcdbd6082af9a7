// SPDX-License-Identifier: GPL-2.0
/*
 * sweep.json read back and checked (sweep.h): every reader of a sweep
 * (report, ingest, the dashboard, KCIDB) goes through here, so each
 * accepts and refuses the same files.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/io.h"
#include "lib/json.h"
#include "lib/util.h"
#include "model/model.h"
#include "sweep/sweep.h"

const char *const hzrig_sweep_outcomes[HZRIG_SWEEP_NOUTCOMES] = {
	"kernel report", "hung the guest", "contained", "bound", "probe failed",
	"firmware missing", "not bound", "not enumerated",
};

struct ld {
	char path[96];		/* the field being read, for messages */
	char *why;
	size_t n;
	bool bad;
};

static void fail(struct ld *l, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (l->bad)
		return;
	l->bad = true;
	k = snprintf(l->why, l->n, "%s: ", l->path);
	va_start(ap, fmt);
	if (k > 0 && (size_t)k < l->n)
		vsnprintf(l->why + k, l->n - (size_t)k, fmt, ap);
	va_end(ap);
}

static void at(struct ld *l, const char *base, const char *key, long idx)
{
	if (idx >= 0)
		snprintf(l->path, sizeof(l->path), "%s[%ld].%s", base, idx, key);
	else
		snprintf(l->path, sizeof(l->path), "%s", key);
}

static json_object *get(struct ld *l, json_object *o, const char *key,
			json_type t, bool nullable)
{
	json_object *v = NULL;

	if (l->bad)
		return NULL;
	if (!json_object_object_get_ex(o, key, &v)) {
		fail(l, "missing");
		return NULL;
	}
	if (!v) {
		if (!nullable)
			fail(l, "null, not %s", t == json_type_string ? "a string" :
			     t == json_type_int ? "an integer" : "a value");
		return NULL;
	}
	if (!json_object_is_type(v, t)) {
		fail(l, "%s, not %s", hzrig_json_what(v),
		     t == json_type_string ? "a string" : t == json_type_int ?
		     "an integer" : t == json_type_array ? "an array" :
		     t == json_type_boolean ? "a boolean" : "an object");
		return NULL;
	}
	return v;
}

static void str(struct ld *l, json_object *o, const char *key, char *dst,
		size_t cap, bool nullable)
{
	json_object *v = get(l, o, key, json_type_string, nullable);
	const char *s;

	dst[0] = 0;
	if (!v)
		return;
	s = json_object_get_string(v);
	if (strlen(s) >= cap)
		fail(l, "longer than %zu characters", cap - 1);
	else if (strpbrk(s, "\n\r"))
		fail(l, "a line break in a one-line field");
	else
		memcpy(dst, s, strlen(s) + 1);
}

static int64_t num(struct ld *l, json_object *o, const char *key, int64_t lo,
		   int64_t hi, bool nullable)
{
	json_object *v = get(l, o, key, json_type_int, nullable);
	int64_t x;

	if (!v)
		return HZRIG_ABSENT;
	if (!hzrig_json_int_in(v, lo, hi, &x)) {
		fail(l, "%s is not an integer %lld..%lld", json_object_get_string(v),
		     (long long)lo, (long long)hi);
		return HZRIG_ABSENT;
	}
	return x;
}

static bool one_of(const char *s, const char *const *set, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s, set[i]))
			return true;
	return false;
}

/* No control character (a terminal's escapes, a line break) in @s. */
static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

/*
 * @key of @o, an array of at most @max strings shorter than @elem each
 * (@plain: without control characters), into @dst, @elem apart; *@n
 * their count.
 */
static void lines(struct ld *l, json_object *o, const char *key, char *dst,
		  size_t elem, int max, int *n, bool plain)
{
	json_object *a = get(l, o, key, json_type_array, false);

	if (a && json_object_array_length(a) > (size_t)max)
		fail(l, "more than %d", max);
	for (size_t k = 0; a && !l->bad && k < json_object_array_length(a); k++) {
		json_object *v = json_object_array_get_idx(a, k);
		const char *s = json_object_get_string(v);

		if (!json_object_is_type(v, json_type_string))
			fail(l, "%s among the lines", hzrig_json_what(v));
		else if (strlen(s) >= elem)
			fail(l, "a line longer than %zu characters", elem - 1);
		else if (plain && !printable(s))
			fail(l, "a control character in a line");
		else
			snprintf(dst + (size_t)(*n)++ * elem, elem, "%s", s);
	}
}

/* Is @key in @o? For the fields newer files have (the unplug pass's). */
static bool has(json_object *o, const char *key)
{
	return json_object_object_get_ex(o, key, NULL);
}

#define NS_MAX	(3600LL * 1000000000LL)	/* an hour: no probe waits longer */

/* One check per field of a call, in the order collect writes them. */
static void load_call(struct ld *l, json_object *c, long d, long i,
		      struct hzrig_sweep_rcall *k)
{
	static const char *const calls[] = {
		"usb_control_msg", "usb_control_msg_send", "usb_control_msg_recv",
		"usb_bulk_msg", "usb_interrupt_msg",
	};
	static const char *const actions[] = { "answer", "nak", "stall", "unknown" };
	char base[48];
	json_object *st, *v;

	snprintf(base, sizeof(base), "drivers[%ld].calls", d);
	memset(k, 0, sizeof(*k));
	at(l, base, "call", i);
	str(l, c, "call", k->call, sizeof(k->call), false);
	if (!l->bad && !one_of(k->call, calls, 5))
		fail(l, "'%s' is not a synchronous call the sweep traces", k->call);
	at(l, base, "where", i);
	str(l, c, "where", k->where, sizeof(k->where), false);
	at(l, base, "site", i);
	str(l, c, "site", k->site, sizeof(k->site), false);
	at(l, base, "function", i);
	str(l, c, "function", k->function, sizeof(k->function), false);
	at(l, base, "stack", i);
	st = get(l, c, "stack", json_type_array, false);
	for (size_t f = 0; st && f < json_object_array_length(st) && !l->bad; f++) {
		v = json_object_array_get_idx(st, f);
		if (f >= HZRIG_SWEEP_CHAIN || !json_object_is_type(v, json_type_string) ||
		    strlen(json_object_get_string(v)) >= sizeof(k->stack[0]))
			fail(l, "at most %d strings shorter than %zu", HZRIG_SWEEP_CHAIN,
			     sizeof(k->stack[0]));
		else
			snprintf(k->stack[k->nstack++], sizeof(k->stack[0]), "%s",
				 json_object_get_string(v));
	}
	at(l, base, "timeout_arg", i);
	k->timeout_arg = (int)num(l, c, "timeout_arg", INT32_MIN, INT32_MAX, false);
	at(l, base, "ret", i);
	k->ret = num(l, c, "ret", INT32_MIN, INT32_MAX, true);
	at(l, base, "action", i);
	str(l, c, "action", k->action, sizeof(k->action), false);
	if (!l->bad && !one_of(k->action, actions, 4))
		fail(l, "'%s' is not answer, nak, stall or unknown", k->action);
	at(l, base, "ep", i);
	k->ep = (int)num(l, c, "ep", 0, 255, false);
	if (!l->bad && json_object_object_get_ex(c, "setup", &v)) {
		at(l, base, "setup", i);
		str(l, c, "setup", k->setup, sizeof(k->setup), false);
		if (!l->bad && strspn(k->setup, "0123456789abcdef") != 16)
			fail(l, "not 16 lower-case hex digits");
	}
	at(l, base, "urb_ns", i);
	k->urb_ns = num(l, c, "urb_ns", 0, NS_MAX, true);
	at(l, base, "urb_status", i);
	k->urb_status = num(l, c, "urb_status", -4095, 0, true);
	at(l, base, "call_ns", i);
	k->call_ns = num(l, c, "call_ns", 0, NS_MAX, true);
	k->window_lo_ns = k->window_hi_ns = k->jiffies_lag = HZRIG_ABSENT;
	/* newer files: how stale jiffies was when the timer was armed */
	if (!l->bad && has(c, "jiffies_lag")) {
		at(l, base, "jiffies_lag", i);
		k->jiffies_lag = num(l, c, "jiffies_lag", 0, INT32_MAX, true);
	}
	if (!l->bad && json_object_object_get_ex(c, "window_lo_ns", &v)) {
		at(l, base, "window_lo_ns", i);
		k->window_lo_ns = num(l, c, "window_lo_ns", 0, NS_MAX, false);
		at(l, base, "window_hi_ns", i);
		k->window_hi_ns = num(l, c, "window_hi_ns", 0, NS_MAX, false);
		if (!l->bad && k->window_hi_ns < k->window_lo_ns)
			fail(l, "below window_lo_ns");
		at(l, base, "verdict", i);
		str(l, c, "verdict", k->verdict, sizeof(k->verdict), false);
		if (!l->bad && strcmp(k->verdict, "inside") && strcmp(k->verdict, "outside"))
			fail(l, "'%s' is not inside or outside", k->verdict);
		if (!l->bad && k->urb_ns == HZRIG_ABSENT)
			fail(l, "a window without urb_ns");
	}
}

/*
 * The newer fields of a driver (all optional): the entries the guest used
 * after it bound, its walk's passes, its firmware's stand-ins and what the
 * guest saw it do.
 */
static void load_seen(struct ld *l, json_object *d, long i,
		      struct hzrig_sweep_rdriver *r)
{
	if (!l->bad && has(d, "opened")) {
		at(l, "drivers", "opened", i);
		lines(l, d, "opened", r->opened[0], sizeof(r->opened[0]),
		      HZRIG_SWEEP_OPENED_MAX, &r->nopened, true);
	}
	r->walk_passes = HZRIG_ABSENT;
	if (!l->bad && has(d, "walk_passes")) {
		at(l, "drivers", "walk_passes", i);
		r->walk_passes = num(l, d, "walk_passes", 0, 64, true);
	}
	/* the unplug pass's walk: the request each report came under */
	if (!l->bad && has(d, "report_requests")) {
		json_object *a;

		at(l, "drivers", "report_requests", i);
		a = get(l, d, "report_requests", json_type_array, false);
		if (a && json_object_array_length(a) != (size_t)r->nreports)
			fail(l, "%zu of them for %d reports",
			     json_object_array_length(a), r->nreports);
		for (int k = 0; a && !l->bad && k < r->nreports; k++) {
			json_object *v = json_object_array_get_idx(a, (size_t)k);
			int64_t x = 0;

			if (v && !hzrig_json_int_in(v, 1, HZRIG_SWEEP_REQUEST_MAX, &x))
				fail(l, "item %d: %s is not a request number 1..%d", k,
				     json_object_get_string(v), HZRIG_SWEEP_REQUEST_MAX);
			r->report_request[k] = (int)x;
		}
	}
	if (!l->bad && has(d, "shape")) {
		int64_t v;

		at(l, "drivers", "shape", i);
		v = num(l, d, "shape", 1, HZRIG_SWEEP_SHAPES_MAX, true);
		r->shape = v == HZRIG_ABSENT ? 0 : (int)v;
	}
	if (!l->bad && has(d, "firmware_standin")) {
		at(l, "drivers", "firmware_standin", i);
		str(l, d, "firmware_standin", r->firmware_standin,
		    sizeof(r->firmware_standin), true);
		if (!l->bad && !printable(r->firmware_standin))
			fail(l, "a control character in it");
	}
}

/* One check per field of a driver, then each of its calls. */
static void load_driver(struct ld *l, json_object *d, long i, size_t nbatches,
			struct hzrig_sweep_rdriver *r)
{
	json_object *calls;

	memset(r, 0, sizeof(*r));
	at(l, "drivers", "module", i);
	str(l, d, "module", r->module, sizeof(r->module), false);
	if (!l->bad && !hzrig_plain_name(r->module, NULL, 0))
		fail(l, "'%s' is not a module name", r->module);
	at(l, "drivers", "batch", i);
	r->batch = (int)num(l, d, "batch", 0, (int64_t)nbatches - 1, false);
	at(l, "drivers", "bus", i);
	r->bus = (int)num(l, d, "bus", 0, 32, false);
	at(l, "drivers", "outcome", i);
	str(l, d, "outcome", r->outcome, sizeof(r->outcome), false);
	if (!l->bad && !one_of(r->outcome, hzrig_sweep_outcomes, HZRIG_SWEEP_NOUTCOMES))
		fail(l, "'%s' is not an outcome the sweep gives", r->outcome);
	at(l, "drivers", "errno", i);
	r->err = num(l, d, "errno", -4095, -1, true);
	at(l, "drivers", "firmware", i);
	str(l, d, "firmware", r->firmware, sizeof(r->firmware), true);
	at(l, "drivers", "modprobe_rc", i);
	r->modprobe_rc = num(l, d, "modprobe_rc", 0, 255, true);
	at(l, "drivers", "probe_ns", i);
	r->probe_ns = num(l, d, "probe_ns", 0, NS_MAX, true);
	at(l, "drivers", "nak", i);
	r->nak = (int)num(l, d, "nak", 0, 1000000, false);
	at(l, "drivers", "stall", i);
	r->stall = (int)num(l, d, "stall", 0, 1000000, false);
	at(l, "drivers", "answer", i);
	r->answer = (int)num(l, d, "answer", 0, 1000000, false);
	if (!l->bad && has(d, "unplugged")) {
		json_object *v;

		at(l, "drivers", "unplugged", i);
		v = get(l, d, "unplugged", json_type_boolean, false);
		r->unplugged = v && json_object_get_boolean(v);
	}
	if (!l->bad && has(d, "reports")) {
		at(l, "drivers", "reports", i);
		lines(l, d, "reports", r->reports[0], sizeof(r->reports[0]),
		      HZRIG_SWEEP_REPORTS_MAX, &r->nreports, false);
	}
	/* newer files: what the guest saw it do (a contained loop, a hang) */
	if (!l->bad && has(d, "diagnosis")) {
		at(l, "drivers", "diagnosis", i);
		str(l, d, "diagnosis", r->diagnosis, sizeof(r->diagnosis), true);
		if (!l->bad && !printable(r->diagnosis))
			fail(l, "a control character in it");
	}
	load_seen(l, d, i, r);
	if (!l->bad && (!strcmp(r->outcome, "contained") ||
			!strcmp(r->outcome, "hung the guest")) && !r->diagnosis[0]) {
		at(l, "drivers", "outcome", i);
		fail(l, "'%s' without the driver's diagnosis", r->outcome);
	}
	if (!l->bad && !strcmp(r->outcome, "kernel report") && !r->nreports) {
		at(l, "drivers", "outcome", i);
		fail(l, "'kernel report' without the driver's reports");
	}
	at(l, "drivers", "calls", i);
	calls = get(l, d, "calls", json_type_array, false);
	if (!calls || l->bad)
		return;
	r->ncalls = json_object_array_length(calls);
	r->calls = calloc(r->ncalls ? r->ncalls : 1, sizeof(*r->calls));
	if (!r->calls) {
		fail(l, "out of memory");
		return;
	}
	for (size_t k = 0; k < r->ncalls && !l->bad; k++) {
		json_object *c = json_object_array_get_idx(calls, k);

		if (!json_object_is_type(c, json_type_object)) {
			snprintf(l->path, sizeof(l->path), "drivers[%ld].calls[%zu]", i, k);
			fail(l, "not an object");
		} else {
			load_call(l, c, i, (long)k, &r->calls[k]);
		}
	}
}

static void load_batch(struct ld *l, json_object *b, long i,
		       struct hzrig_sweep_rbatch *r)
{
	json_object *v, *rep;

	memset(r, 0, sizeof(*r));
	at(l, "batches", "batch", i);
	r->batch = (int)num(l, b, "batch", i, i, false);
	at(l, "batches", "complete", i);
	v = get(l, b, "complete", json_type_boolean, false);
	r->complete = v && json_object_get_boolean(v);
	/* newer files: how its guest ended, its last heartbeat */
	r->last_alive_ms = HZRIG_ABSENT;
	if (!l->bad && has(b, "ended")) {
		static const char *const words[] = {
			"ok", "failed", "crashed", "hung", "error", "unknown",
		};

		at(l, "batches", "ended", i);
		str(l, b, "ended", r->ended, sizeof(r->ended), false);
		if (!l->bad && !one_of(r->ended, words, 6))
			fail(l, "'%s' is not ok, failed, crashed, hung, error or unknown", r->ended);
		at(l, "batches", "last_alive_ms", i);
		r->last_alive_ms = num(l, b, "last_alive_ms", 0, NS_MAX / 1000000, true);
	}
	at(l, "batches", "settled_s", i);
	r->settled_s = (int)num(l, b, "settled_s", 0, 86400, false);
	if (!l->bad && has(b, "bad_lines")) {
		at(l, "batches", "bad_lines", i);
		r->bad_lines = (int)num(l, b, "bad_lines", 0, INT32_MAX, false);
	}
	at(l, "batches", "k", i);
	r->k = (int)num(l, b, "k", 0, 1000, false);
	at(l, "batches", "allowance_ns", i);
	r->allowance_ns = num(l, b, "allowance_ns", 0, NS_MAX, false);
	at(l, "batches", "usbmon_dropped", i);
	r->usbmon_dropped = (int)num(l, b, "usbmon_dropped", 0, INT32_MAX, false);
	at(l, "batches", "calls_without_urb", i);
	r->calls_without_urb = (int)num(l, b, "calls_without_urb", 0, INT32_MAX, false);
	r->timers = HZRIG_ABSENT;
	if (!l->bad && has(b, "timers")) {
		at(l, "batches", "timers", i);
		r->timers = num(l, b, "timers", 0, INT32_MAX, false);
	}
	if (!l->bad && has(b, "unplug_ms")) {
		at(l, "batches", "unplug_ms", i);
		r->unplug_ms = (int)num(l, b, "unplug_ms", 0, HZRIG_SWEEP_UNPLUG_MS_MAX, false);
	}
	at(l, "batches", "kernel_reports", i);
	rep = get(l, b, "kernel_reports", json_type_array, false);
	if (!rep || l->bad)
		return;
	r->nreports = json_object_array_length(rep);
	r->reports = calloc(r->nreports ? r->nreports : 1, sizeof(*r->reports));
	if (!r->reports) {
		fail(l, "out of memory");
		return;
	}
	for (size_t k = 0; k < r->nreports && !l->bad; k++) {
		v = json_object_array_get_idx(rep, k);
		if (!json_object_is_type(v, json_type_string))
			fail(l, "%s among the report lines", hzrig_json_what(v));
		else
			snprintf(r->reports[k], sizeof(r->reports[0]), "%s",
				 json_object_get_string(v));
	}
}

/* The top-level fields, then the batches, then the drivers. */
int hzrig_sweep_load(const char *text, struct hzrig_sweep_run *r, char *why,
		     size_t n)
{
	struct ld l = { .why = why, .n = n };
	json_object *root = json_tokener_parse(text), *a;

	memset(r, 0, sizeof(*r));
	if (!root || !json_object_is_type(root, json_type_object)) {
		snprintf(why, n, "not a JSON object");
		json_object_put(root);
		return -1;
	}
	at(&l, NULL, "schema", -1);
	if (num(&l, root, "schema", 1, 1, false) != 1 && !l.bad)
		fail(&l, "not 1");
	at(&l, NULL, "sweep_id", -1);
	str(&l, root, "sweep_id", r->sweep_id, sizeof(r->sweep_id), false);
	if (!l.bad && !hzrig_plain_name(r->sweep_id, NULL, 0))
		fail(&l, "'%s' is not a plain name", r->sweep_id);
	at(&l, NULL, "variant", -1);
	str(&l, root, "variant", r->variant, sizeof(r->variant), false);
	if (!l.bad && !hzrig_plain_name(r->variant, NULL, 0))
		fail(&l, "'%s' is not a variant name", r->variant);
	at(&l, NULL, "hz", -1);
	r->hz = (int)num(&l, root, "hz", HZRIG_MODEL_HZ_MIN, HZRIG_MODEL_HZ_MAX, false);
	at(&l, NULL, "tree_model", -1);
	str(&l, root, "tree_model", r->tree_model, sizeof(r->tree_model), false);
	at(&l, NULL, "batches", -1);
	a = get(&l, root, "batches", json_type_array, false);
	if (a && !l.bad) {
		r->nbatches = json_object_array_length(a);
		r->batches = calloc(r->nbatches ? r->nbatches : 1, sizeof(*r->batches));
		if (!r->batches)
			fail(&l, "out of memory");
		if (!l.bad && !r->nbatches)
			fail(&l, "empty");
		for (size_t i = 0; !l.bad && i < r->nbatches; i++)
			load_batch(&l, json_object_array_get_idx(a, i), (long)i, &r->batches[i]);
	}
	at(&l, NULL, "drivers", -1);
	a = get(&l, root, "drivers", json_type_array, false);
	if (a && !l.bad) {
		r->ndrivers = json_object_array_length(a);
		r->drivers = calloc(r->ndrivers ? r->ndrivers : 1, sizeof(*r->drivers));
		if (!r->drivers)
			fail(&l, "out of memory");
		for (size_t i = 0; !l.bad && i < r->ndrivers; i++) {
			json_object *d = json_object_array_get_idx(a, i);

			if (!json_object_is_type(d, json_type_object)) {
				snprintf(l.path, sizeof(l.path), "drivers[%zu]", i);
				fail(&l, "not an object");
			} else {
				load_driver(&l, d, (long)i, r->nbatches, &r->drivers[i]);
			}
			for (size_t j = 0; !l.bad && j < i; j++)
				if (!strcmp(r->drivers[j].module, r->drivers[i].module)) {
					at(&l, "drivers", "module", (long)i);
					fail(&l, "'%s' twice", r->drivers[i].module);
				}
		}
	}
	json_object_put(root);
	if (l.bad) {
		hzrig_sweep_run_free(r);
		return -1;
	}
	return 0;
}

int hzrig_sweep_load_file(const char *path, struct hzrig_sweep_run *r,
			  char *why, size_t n)
{
	char w[HZRIG_WHY];
	size_t len;
	char *text = hzrig_in_slurp(path, HZRIG_MAX_JSON, &len, w, sizeof(w));
	int rc;

	memset(r, 0, sizeof(*r));
	if (!text) {
		snprintf(why, n, "%s", w);
		return -1;
	}
	if (strlen(text) != len) {
		free(text);
		snprintf(why, n, "a NUL byte in the file");
		return -1;
	}
	rc = hzrig_sweep_load(text, r, why, n);
	free(text);
	return rc;
}

const struct hzrig_sweep_rdriver *hzrig_sweep_driver(const struct hzrig_sweep_run *r,
						     const char *module)
{
	for (size_t i = 0; i < r->ndrivers; i++)
		if (!strcmp(r->drivers[i].module, module))
			return &r->drivers[i];
	return NULL;
}

bool hzrig_sweep_long_probe(const struct hzrig_sweep_rdriver *d)
{
	return d->probe_ns != HZRIG_ABSENT && d->probe_ns > HZRIG_SWEEP_LONG_PROBE_NS;
}

void hzrig_sweep_run_free(struct hzrig_sweep_run *r)
{
	for (size_t i = 0; r->drivers && i < r->ndrivers; i++)
		free(r->drivers[i].calls);
	for (size_t i = 0; r->batches && i < r->nbatches; i++)
		free(r->batches[i].reports);
	free(r->drivers);
	free(r->batches);
	memset(r, 0, sizeof(*r));
}
