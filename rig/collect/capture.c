// SPDX-License-Identifier: GPL-2.0
/*
 * The capture: the guest's JSON lines (its ttyS1), validated record by
 * record, and the KTAP on its console. Every problem is reported as
 * file:line: record: field: what, and counted, so a broken run is never
 * mistaken for a clean one. collect.c judges and records what this reads;
 * collect.h has the record formats.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "lib/json.h"
#include "collect/collect.h"
#include "lib/util.h"

#define MAX_LINE	65536

/* ---------------------------------------------------------------------- */
/* Capture parsing                                                          */
/* ---------------------------------------------------------------------- */

static void cap_msg(struct hzrig_capture *c, unsigned int line, bool error,
		    const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void cap_msg(struct hzrig_capture *c, unsigned int line, bool error,
		    const char *fmt, ...)
{
	va_list ap;

	if (line)
		fprintf(c->err, "%s:%u: %s", c->name, line,
			error ? "" : "warning: ");
	else
		fprintf(c->err, "%s: %s", c->name, error ? "" : "warning: ");
	va_start(ap, fmt);
	vfprintf(c->err, fmt, ap);
	va_end(ap);
	fputc('\n', c->err);
	if (error)
		c->errors++;
}

static const char *type_name(struct json_object *v)
{
	return json_type_to_name(json_object_get_type(v));
}

/*
 * An integer field. Returns 0 and sets *out, 1 when absent and optional,
 * -1 (reported) when missing, of another JSON type, or out of range. JSON
 * numbers with a fraction or exponent are refused: every field is a count.
 */
/*
 * The field @key of @o, which must be of @type (@tname in messages).
 * 0 and *@v when present, 1 when absent and not @required, -1 (reported)
 * otherwise.
 */
static int field_get(struct hzrig_capture *c, unsigned int line,
		     const char *rtype, struct json_object *o, const char *key,
		     enum json_type type, const char *tname, bool required,
		     struct json_object **v)
{
	if (!json_object_object_get_ex(o, key, v)) {
		if (!required)
			return 1;
		cap_msg(c, line, true, "%s: field \"%s\": missing", rtype, key);
		return -1;
	}
	if (!json_object_is_type(*v, type)) {
		cap_msg(c, line, true, "%s: field \"%s\": expected %s, got %s",
			rtype, key, tname, type_name(*v));
		return -1;
	}
	return 0;
}

static int field_int(struct hzrig_capture *c, unsigned int line,
		     const char *rtype, struct json_object *o, const char *key,
		     int64_t min, int64_t max, bool required, int64_t *out)
{
	struct json_object *v;
	int64_t x;
	int ret;

	ret = field_get(c, line, rtype, o, key, json_type_int, "an integer",
			required, &v);
	if (ret)
		return ret;
	if (!hzrig_json_int_in(v, min, max, &x)) {
		cap_msg(c, line, true,
			"%s: field \"%s\": %s is out of range %" PRId64 "..%" PRId64,
			rtype, key, json_object_to_json_string(v), min, max);
		return -1;
	}
	*out = x;
	return 0;
}

static int field_str(struct hzrig_capture *c, unsigned int line,
		     const char *rtype, struct json_object *o, const char *key,
		     char *buf, size_t len, bool required, bool allow_empty)
{
	struct json_object *v;
	const char *s;
	int ret;

	ret = field_get(c, line, rtype, o, key, json_type_string, "a string",
			required, &v);
	if (ret)
		return ret;
	s = json_object_get_string(v);
	if ((size_t)json_object_get_string_len(v) >= len ||
	    strlen(s) != (size_t)json_object_get_string_len(v)) {
		cap_msg(c, line, true,
			"%s: field \"%s\": longer than %zu bytes or holds a NUL",
			rtype, key, len - 1);
		return -1;
	}
	if (!allow_empty && !*s) {
		cap_msg(c, line, true, "%s: field \"%s\": empty", rtype, key);
		return -1;
	}
	snprintf(buf, len, "%s", s);
	return 0;
}

static int parse_meta(struct hzrig_capture *c, struct json_object *o,
		      unsigned int line)
{
	struct hzrig_meta m = { .usb_max_sync_timeout_ms = -1, .line = line };
	int64_t hz = 0, abi = 0;
	int bad = 0;

	bad |= field_str(c, line, "meta", o, "variant", m.variant,
			 sizeof(m.variant), true, false) < 0;
	bad |= field_int(c, line, "meta", o, "hz", HZRIG_MODEL_HZ_MIN,
			 HZRIG_MODEL_HZ_MAX, true, &hz) < 0;
	bad |= field_str(c, line, "meta", o, "release", m.release,
			 sizeof(m.release), true, false) < 0;
	bad |= field_str(c, line, "meta", o, "clocksource", m.clocksource,
			 sizeof(m.clocksource), true, false) < 0;
	bad |= field_int(c, line, "meta", o, "jiffy_rate_mhz", 0, INT32_MAX,
			 true, &m.jiffy_rate_mhz) < 0;
	bad |= field_int(c, line, "meta", o, "abi", 0, INT32_MAX, true, &abi) < 0;
	bad |= field_str(c, line, "meta", o, "plan", m.plan, sizeof(m.plan),
			 true, false) < 0;
	bad |= field_str(c, line, "meta", o, "accel", m.accel, sizeof(m.accel),
			 true, false) < 0;
	bad |= field_str(c, line, "meta", o, "cmdline", m.cmdline,
			 sizeof(m.cmdline), false, true) < 0;
	bad |= field_int(c, line, "meta", o, "usb_max_sync_timeout_ms", 0,
			 INT32_MAX, false, &m.usb_max_sync_timeout_ms) < 0;
	bad |= field_str(c, line, "meta", o, "libusb", m.libusb,
			 sizeof(m.libusb), false, true) < 0;
	if (bad)
		return -1;
	/* The record layout this parser knows; a newer guest needs a newer host. */
	if (abi != HZRIG_ABI_VERSION) {
		cap_msg(c, line, true, "meta: field \"abi\": %" PRId64
			" is not the supported ABI %d", abi, HZRIG_ABI_VERSION);
		return -1;
	}
	if (c->have_meta) {
		cap_msg(c, line, true, "meta: a second meta record (first on line %u)",
			c->meta.line);
		return -1;
	}
	m.hz = (int)hz;
	m.abi = (int)abi;
	c->meta = m;
	c->have_meta = true;
	return 0;
}

static int parse_noise(struct hzrig_capture *c, struct json_object *o,
		       unsigned int line)
{
	struct hzrig_noise n = { .present = true, .line = line };
	struct hzrig_noise *np;
	int bad = 0;

	bad |= field_int(c, line, "noise", o, "sleep_us", 0, INT32_MAX, true,
			 &n.sleep_us) < 0;
	bad |= field_int(c, line, "noise", o, "n", 0, INT32_MAX, true, &n.n) < 0;
	bad |= field_int(c, line, "noise", o, "overshoot_p50_ns", 0, HZRIG_NS_MAX,
			 true, &n.overshoot_p50_ns) < 0;
	bad |= field_int(c, line, "noise", o, "overshoot_p99_ns", 0, HZRIG_NS_MAX,
			 true, &n.overshoot_p99_ns) < 0;
	bad |= field_int(c, line, "noise", o, "rtt_n", 0, INT32_MAX, true,
			 &n.rtt_n) < 0;
	bad |= field_int(c, line, "noise", o, "rtt_p50_ns", 0, HZRIG_NS_MAX, true,
			 &n.rtt_p50_ns) < 0;
	bad |= field_int(c, line, "noise", o, "rtt_p99_ns", 0, HZRIG_NS_MAX, true,
			 &n.rtt_p99_ns) < 0;
	bad |= field_int(c, line, "noise", o, "at_case", 0, INT32_MAX, false,
			 &n.at_case) < 0;
	if (bad)
		return -1;
	/*
	 * Probes come in plan order; two at one place would be a guest bug
	 * (and which one judges the case a guess), so the later is refused.
	 * The end record's case count bounds at_case in check_capture().
	 */
	if (c->nprobes) {
		const struct hzrig_noise *p = &c->probes[c->nprobes - 1];

		if (n.at_case == p->at_case) {
			cap_msg(c, line, true,
				"noise: a second noise record at case %" PRId64
				" (first on line %u)", n.at_case, p->line);
			return -1;
		}
		if (n.at_case < p->at_case) {
			cap_msg(c, line, true,
				"noise: field \"at_case\": %" PRId64
				" is before the %" PRId64 " of the noise record on line %u (out of order)",
				n.at_case, p->at_case, p->line);
			return -1;
		}
	}
	np = hzrig_grow(c->probes, c->nprobes, &c->probes_cap, 16, sizeof(*np));
	if (!np) {
		cap_msg(c, line, true, "noise: out of memory");
		return -1;
	}
	c->probes = np;
	c->probes[c->nprobes++] = n;
	if (!c->noise.present)
		c->noise = n;
	return 0;
}

/* hzrig_sample_from_json()'s messages on the sample's line. */
struct sample_ctx {
	struct hzrig_capture *c;
	unsigned int line;
};

static void sample_report(void *arg, const char *msg)
{
	struct sample_ctx *x = arg;

	cap_msg(x->c, x->line, true, "sample: %s", msg);
}

static int parse_sample(struct hzrig_capture *c, struct json_object *o,
			unsigned int line)
{
	struct sample_ctx x = { .c = c, .line = line };
	struct hzrig_rec r = { 0 };
	struct hzrig_rec *recs;

	c->sample_records++;
	hzrig_sample_init(&r.s);
	r.s.line = line;
	if (hzrig_sample_from_json(o, HZRIG_SF_GREQ, &r.s, sample_report, &x))
		return -1;
	/* Guests before the userspace paths ran the kernel path only. */
	if (!r.s.path[0])
		snprintf(r.s.path, sizeof(r.s.path), "%s",
			 hzrig_path_name(HZRIG_PATH_KERNEL));
	r.path = (uint32_t)hzrig_path_parse(r.s.path);
	r.transfer = (uint32_t)hzrig_transfer_parse(r.s.transfer);
	r.behaviour = (uint32_t)hzrig_behaviour_parse(r.s.behaviour);
	r.mode = (uint32_t)hzrig_mode_parse(r.s.mode);
	if ((r.path == HZRIG_PATH_USBMON) != !!r.s.driver[0] ||
	    (r.s.site[0] && !r.s.driver[0])) {
		cap_msg(c, line, true, "sample: path usbmon and the fields "
			"\"driver\" (and \"site\") go together");
		return -1;
	}
	if (r.path == HZRIG_PATH_USBMON && r.s.urb_ns != r.s.elapsed_ns) {
		/* usbmon's stamps are the measurement itself */
		cap_msg(c, line, true, "sample: path usbmon: elapsed_ns is not "
			"urb_ns");
		return -1;
	}
	if (r.behaviour == HZRIG_BEH_DELAY && r.s.delay_us < 0) {
		cap_msg(c, line, true,
			"sample: field \"delay_us\": missing (behaviour delay)");
		return -1;
	}
	recs = hzrig_grow(c->recs, c->nrecs, &c->cap, 256, sizeof(*recs));
	if (!recs) {
		cap_msg(c, line, true, "sample: out of memory");
		return -1;
	}
	c->recs = recs;
	c->recs[c->nrecs++] = r;
	return 0;
}

static int parse_end(struct hzrig_capture *c, struct json_object *o,
		     unsigned int line)
{
	struct hzrig_end e = { .present = true, .line = line };
	int bad = 0;

	bad |= field_int(c, line, "end", o, "cases", 0, INT32_MAX, true,
			 &e.cases) < 0;
	bad |= field_int(c, line, "end", o, "samples", 0, INT32_MAX, true,
			 &e.samples) < 0;
	bad |= field_int(c, line, "end", o, "failures", 0, INT32_MAX, true,
			 &e.failures) < 0;
	e.waits_ms = e.wall_ms = -1;
	bad |= field_int(c, line, "end", o, "waits_ms", 0, HZRIG_MS_MAX, false,
			 &e.waits_ms) < 0;
	bad |= field_int(c, line, "end", o, "wall_ms", 0, HZRIG_MS_MAX, false,
			 &e.wall_ms) < 0;
	/* How the cases ran (plan "parallel ="): the efficiency depends on it. */
	if (field_str(c, line, "end", o, "parallel", e.parallel,
		      sizeof(e.parallel), false, false) < 0) {
		bad = 1;
	} else if (e.parallel[0] && hzrig_parallel_parse(e.parallel) < 0) {
		cap_msg(c, line, true, "end: field \"parallel\": unknown value '%s'",
			e.parallel);
		bad = 1;
	}
	if (bad)
		return -1;
	c->end = e;
	return 0;
}

/* The start of a bad line for a message, control bytes shown as '?'. */
static void excerpt(const char *line, size_t len, char *buf, size_t size)
{
	size_t i, n = len < size - 4 ? len : size - 4;

	for (i = 0; i < n; i++)
		buf[i] = (unsigned char)line[i] < 0x20 || line[i] == 0x7f ?
			 '?' : line[i];
	strcpy(buf + n, n < len ? "..." : "");
}

/* One line: a strict JSON object with nothing after it, or an error. */
static void parse_line(struct hzrig_capture *c, struct json_tokener *tok,
		       const char *line, size_t len, unsigned int lineno)
{
	enum json_tokener_error jerr;
	struct json_object *o, *t = NULL;
	const char *type;
	char ex[48];
	int ret;

	json_tokener_reset(tok);
	o = json_tokener_parse_ex(tok, line, (int)len);
	jerr = json_tokener_get_error(tok);
	if (jerr == json_tokener_continue) {
		cap_msg(c, lineno, true, "not a JSON object: incomplete JSON (cut off?)");
		c->bad_lines++;
		return;
	}
	if (!o || jerr != json_tokener_success ||
	    !json_object_is_type(o, json_type_object) ||
	    json_tokener_get_parse_end(tok) != len) {
		excerpt(line, len, ex, sizeof(ex));
		if (!o || jerr != json_tokener_success)
			cap_msg(c, lineno, true, "not a JSON object (%s): '%s'",
				json_tokener_error_desc(jerr), ex);
		else if (!json_object_is_type(o, json_type_object))
			cap_msg(c, lineno, true, "not a JSON object (a JSON %s): '%s'",
				type_name(o), ex);
		else
			cap_msg(c, lineno, true, "not a JSON object (text after the object): '%s'",
				ex);
		c->bad_lines++;
		json_object_put(o);
		return;
	}
	if (!json_object_object_get_ex(o, "type", &t) ||
	    !json_object_is_type(t, json_type_string)) {
		cap_msg(c, lineno, true, "record: field \"type\": %s",
			t ? "expected a string" : "missing");
		c->bad_records++;
		json_object_put(o);
		return;
	}
	type = json_object_get_string(t);
	if (c->end.present) {
		cap_msg(c, lineno, true, "%s: record after the end record (line %u)",
			type, c->end.line);
		c->bad_records++;
		json_object_put(o);
		return;
	}
	if (!strcmp(type, "meta"))
		ret = parse_meta(c, o, lineno);
	else if (!strcmp(type, "noise"))
		ret = parse_noise(c, o, lineno);
	else if (!strcmp(type, "sample"))
		ret = parse_sample(c, o, lineno);
	else if (!strcmp(type, "end"))
		ret = parse_end(c, o, lineno);
	else {
		cap_msg(c, lineno, false, "record type '%s' unknown, ignored", type);
		c->ignored++;
		ret = 0;
	}
	if (ret)
		c->bad_records++;
	json_object_put(o);
}

bool hzrig_clocksource_refused(const char *cs)
{
	return !strcmp(cs, "jiffies") || !strcmp(cs, "refined-jiffies");
}

/*
 * The kernel the meta record describes: its tree's model (each sample is
 * judged by the model of the tree that ran it; a release the model has no
 * tree for is judged by the oldest one, said so here and in run.json,
 * "model": exact false), that tree's clamp, and HZ as measured.
 */
static void check_kernel(struct hzrig_capture *c)
{
	const struct hzrig_meta *m = &c->meta;
	int64_t want = (int64_t)m->hz * 1000;

	c->tree = hzrig_tree_model_for(m->release, &c->tree_exact);
	if (!c->tree) {
		c->tree = hzrig_tree_default();
		cap_msg(c, m->line, false,
			"meta: field \"release\": '%s' is no kernel release the model covers (%s or later); judged by the %s model",
			m->release, c->tree->name, c->tree->name);
	}
	if (m->usb_max_sync_timeout_ms >= 0 &&
	    m->usb_max_sync_timeout_ms != c->tree->sync_max_timeout_ms)
		cap_msg(c, m->line, true,
			"meta: field \"usb_max_sync_timeout_ms\": %" PRId64
			", but the model of %s has %d (a changed tree?)",
			m->usb_max_sync_timeout_ms, c->tree->name,
			c->tree->sync_max_timeout_ms);
	/* A module built against another HZ tree reports the wrong HZ. */
	if (m->jiffy_rate_mhz * 50 < want * 49 || m->jiffy_rate_mhz * 50 > want * 51)
		cap_msg(c, m->line, true,
			"meta: field \"jiffy_rate_mhz\": %" PRId64
			" jiffies/ks measured, more than 2%% off HZ=%d",
			m->jiffy_rate_mhz, m->hz);
}

/* Checks that need the whole capture: meta's kernel, counts, the end record. */
static void check_capture(struct hzrig_capture *c)
{
	const struct hzrig_meta *m = &c->meta;
	size_t i, k = 0;

	check_kernel(c);
	/* A probe past the last case: only the end record knows the count. */
	if (c->end.present) {
		for (i = 0; i < c->nprobes; i++) {
			const struct hzrig_noise *n = &c->probes[i];

			if (n->at_case <= c->end.cases) {
				c->probes[k++] = *n;
				continue;
			}
			cap_msg(c, n->line, true,
				"noise: field \"at_case\": %" PRId64
				" is beyond the %" PRId64 " cases of the end record (line %u)",
				n->at_case, c->end.cases, c->end.line);
			c->bad_records++;
		}
		c->nprobes = k;
		k = 0;
		if (c->nprobes)
			c->noise = c->probes[0];
		else
			memset(&c->noise, 0, sizeof(c->noise));
	}
	if (!c->noise.present && !hzrig_clocksource_refused(m->clocksource))
		cap_msg(c, 0, true, "no noise record: the allowance falls back to the noise floor");

	/*
	 * timeout_arg must be what the mode makes of timeout_ms at this HZ,
	 * and a userspace path has no killable call and no HZ to get wrong.
	 */
	for (i = 0; i < c->nrecs; i++) {
		struct hzrig_rec *r = &c->recs[i];
		int64_t arg = hzrig_mode_timeout_arg(m->hz, r->mode,
						     (unsigned int)r->s.timeout_ms);

		/* an in-tree driver is a kernel caller: any mode (usbmon) */
		if (r->path != HZRIG_PATH_KERNEL && r->path != HZRIG_PATH_USBMON &&
		    (r->transfer == HZRIG_XFER_BULK_IN_KILLABLE ||
		     (r->mode != HZRIG_MODE_MS && r->mode != HZRIG_MODE_ZERO))) {
			cap_msg(c, r->s.line, true,
				"sample: path %s cannot make a %s call in mode %s (kernel only)",
				hzrig_path_name(r->path),
				hzrig_transfer_name(r->transfer),
				hzrig_mode_name(r->mode));
			c->bad_records++;
			continue;
		}

		if (arg != r->s.timeout_arg) {
			cap_msg(c, r->s.line, true,
				"sample: field \"timeout_arg\": %" PRId64
				" is not what mode %s passes for %" PRId64
				" ms at HZ=%d (%" PRId64 ")", r->s.timeout_arg,
				hzrig_mode_name(r->mode), r->s.timeout_ms, m->hz,
				arg);
			c->bad_records++;
			continue;
		}
		c->recs[k++] = *r;
	}
	c->nrecs = k;

	if (!c->end.present) {
		c->truncated = true;
		cap_msg(c, 0, true,
			"no end record after %u lines: the run was truncated (guest crashed, hung or was stopped)",
			c->lines);
	} else if (c->end.samples != (int64_t)c->sample_records) {
		cap_msg(c, c->end.line, true,
			"end: field \"samples\": %" PRId64
			", but the capture holds %u sample records",
			c->end.samples, c->sample_records);
	}
}

int hzrig_capture_parse(FILE *f, const char *name, struct hzrig_capture *c,
			FILE *errf)
{
	struct json_tokener *tok;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	memset(c, 0, sizeof(*c));
	c->name = name;
	c->err = errf ? errf : stderr;
	tok = json_tokener_new();
	if (!tok)
		return -1;
	/* Trailing text is checked by hand, to say so in the error. */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT |
			       JSON_TOKENER_ALLOW_TRAILING_CHARS);
	while ((len = getline(&line, &cap, f)) >= 0) {
		size_t n = (size_t)len;
		size_t i;

		c->lines++;
		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			n--;
		for (i = 0; i < n && isspace((unsigned char)line[i]); i++)
			;
		if (i == n)
			continue;	/* blank lines carry nothing */
		if (n > MAX_LINE) {
			cap_msg(c, c->lines, true,
				"not a JSON object: line longer than %d bytes",
				MAX_LINE);
			c->bad_lines++;
			continue;
		}
		parse_line(c, tok, line, n, c->lines);
	}
	free(line);
	json_tokener_free(tok);
	if (ferror(f)) {
		char why[HZRIG_WHY];

		cap_msg(c, 0, true, "read error: %s",
			hzrig_in_error(why, sizeof(why), HZRIG_MAX_CAPTURE));
		return -1;
	}
	if (!c->have_meta) {
		cap_msg(c, 0, true, "no valid meta record in %u lines: not a hzrig capture, or the guest never started measuring",
			c->lines);
		return -1;
	}
	check_capture(c);
	return (int)c->errors;
}

int hzrig_capture_load(const char *path, struct hzrig_capture *c, FILE *errf)
{
	char why[HZRIG_WHY];
	FILE *f = hzrig_in_open(path, HZRIG_MAX_CAPTURE, why, sizeof(why));
	int ret;

	if (!f) {
		memset(c, 0, sizeof(*c));
		fprintf(errf ? errf : stderr, "%s: %s\n", path, why);
		return -1;
	}
	ret = hzrig_capture_parse(f, path, c, errf);
	fclose(f);
	return ret;
}

void hzrig_capture_free(struct hzrig_capture *c)
{
	free(c->recs);
	c->recs = NULL;
	c->nrecs = c->cap = 0;
	free(c->probes);
	c->probes = NULL;
	c->nprobes = c->probes_cap = 0;
}

uint64_t hzrig_probe_allowance(const struct hzrig_noise *n, int64_t floor_ns)
{
	uint64_t a = (uint64_t)n->overshoot_p99_ns + (uint64_t)n->rtt_p99_ns;

	return floor_ns > 0 && (uint64_t)floor_ns > a ? (uint64_t)floor_ns : a;
}

/*
 * The probes that judge case @case_idx: probes[] is sorted by at_case, so
 * the last at or before it (*@before) and the next after it (*@after);
 * NULL where there is none.
 */
static void case_probes(const struct hzrig_capture *c, int64_t case_idx,
			const struct hzrig_noise **before,
			const struct hzrig_noise **after)
{
	size_t i;

	for (i = 0; i < c->nprobes && c->probes[i].at_case <= case_idx; i++)
		;
	*before = i > 0 ? &c->probes[i - 1] : NULL;
	*after = i < c->nprobes ? &c->probes[i] : NULL;
}

uint64_t hzrig_case_allowance(const struct hzrig_capture *c, int64_t case_idx,
			      int64_t floor_ns, bool *from_noise)
{
	const struct hzrig_noise *p, *q;
	uint64_t a = 0;

	case_probes(c, case_idx, &p, &q);
	if (p)
		a = hzrig_probe_allowance(p, 0);
	if (q && hzrig_probe_allowance(q, 0) > a)
		a = hzrig_probe_allowance(q, 0);
	if (from_noise)
		*from_noise = c->nprobes && (floor_ns <= 0 ||
					     a >= (uint64_t)floor_ns);
	return floor_ns > 0 && (uint64_t)floor_ns > a ? (uint64_t)floor_ns : a;
}

uint64_t hzrig_case_cancel_ns(const struct hzrig_capture *c, int64_t case_idx)
{
	const struct hzrig_noise *p, *q;
	uint64_t a = 0;

	case_probes(c, case_idx, &p, &q);
	if (p)
		a = (uint64_t)p->rtt_p99_ns;
	if (q && (uint64_t)q->rtt_p99_ns > a)
		a = (uint64_t)q->rtt_p99_ns;
	return a;
}

/* ---------------------------------------------------------------------- */
/* KTAP on the console                                                     */
/* ---------------------------------------------------------------------- */

/* "ok N" / "not ok N" at the start of the line: top-level results only. */
static bool ktap_result(const char *s, const char *prefix)
{
	size_t n = strlen(prefix);

	return !strncmp(s, prefix, n) && isdigit((unsigned char)s[n]);
}

int hzrig_ktap_parse(FILE *f, struct hzrig_ktap *k)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	memset(k, 0, sizeof(*k));
	k->plan = -1;
	while ((len = getline(&line, &cap, f)) >= 0) {
		const char *d;

		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (!strncmp(line, "KTAP version ", 13) ||
		    !strncmp(line, "TAP version ", 12)) {
			k->version_seen = true;
		} else if (!strncmp(line, "1..", 3) && k->plan < 0 &&
			   isdigit((unsigned char)line[3])) {
			k->plan = strtoll(line + 3, NULL, 10);
		} else if (ktap_result(line, "ok ")) {
			d = strchr(line, '#');
			if (d && !strncasecmp(d + 1 + strspn(d + 1, " "), "SKIP", 4))
				k->skip++;
			else
				k->ok++;
		} else if (ktap_result(line, "not ok ")) {
			k->not_ok++;
		} else if (!strncmp(line, "Bail out!", 9)) {
			k->bail_out = true;
		}
	}
	free(line);
	return ferror(f) ? -1 : 0;
}
