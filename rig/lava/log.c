// SPDX-License-Identifier: GPL-2.0
/*
 * A LAVA job's log, back into the capture files of a local boot.
 *
 * The log is YAML, one record a line: {"dt": ..., "lvl": ..., "msg": ...}
 * (lava-run writes it bare on stderr; the server's output.yaml, from
 * `lavacli jobs logs --raw ID`, as the items of one list, "- {...}").
 * Records of level "target" are the guest's console, a line each; level
 * "results" carries the monitor's test cases and the job's own result.
 * Every line is parsed with libyaml (the messages are YAML double-quoted
 * strings, escapes and all).
 *
 * From the console: the tagged lines "hzrig-jsonl SEQ JSON" (numbered from
 * 1, none missing), "hzrig-jsonl-end COUNT" (the count matches), one
 * "hzrig-build JSON"; the rest is console.log. The KTAP results must each
 * have their LAVA test case with the same result: a check that LAVA saw
 * what the guest said.
 */
#define _GNU_SOURCE	/* strptime(), timegm() */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#include <yaml.h>

#include "lava/lava.h"
#include "lib/io.h"
#include "lib/json.h"
#include "lib/util.h"

void hzrig_lava_case_id(const char *ktap_name, char *out, size_t len)
{
	/* LAVA: lower case, every run of non-word characters one '_' */
	size_t o = 0;
	bool sep = false;

	for (; *ktap_name && o + 1 < len; ktap_name++) {
		unsigned char ch = *ktap_name;

		if (ch == '_' || (ch >= '0' && ch <= '9') ||
		    (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')) {
			if (sep && o + 2 < len)
				out[o++] = '_';
			sep = false;
			out[o++] = (char)(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
		} else {
			sep = true;
		}
	}
	if (sep && o + 1 < len)
		out[o++] = '_';
	out[o] = '\0';
}

/* One log record: its level, time, and message or result fields. */
struct rec {
	char lvl[32];
	char dt[40];
	char *msg;		/* a string message, malloc'd; NULL if a mapping */
	char definition[64], ccase[256], result[32];
	char error_type[32], error_msg[512];	/* the job's result */
};

static void rec_set(struct rec *r, const char *key, const char *val, int depth)
{
	if (depth == 1) {
		if (!strcmp(key, "lvl"))
			snprintf(r->lvl, sizeof(r->lvl), "%s", val);
		else if (!strcmp(key, "dt"))
			snprintf(r->dt, sizeof(r->dt), "%s", val);
		else if (!strcmp(key, "msg") && !r->msg)
			r->msg = strdup(val);
	} else if (depth == 2) {
		if (!strcmp(key, "definition"))
			snprintf(r->definition, sizeof(r->definition), "%s", val);
		else if (!strcmp(key, "case"))
			snprintf(r->ccase, sizeof(r->ccase), "%s", val);
		else if (!strcmp(key, "result"))
			snprintf(r->result, sizeof(r->result), "%s", val);
		else if (!strcmp(key, "error_type"))
			snprintf(r->error_type, sizeof(r->error_type), "%s", val);
		else if (!strcmp(key, "error_msg"))
			snprintf(r->error_msg, sizeof(r->error_msg), "%s", val);
	}
}

/*
 * How deep @line's flow collections ([ and {) nest, quoted text left out;
 * counted before libyaml sees the line, whose time grows with the square
 * of the depth (100,000 '[' took 37 s). A record nests 3 deep.
 */
#define REC_DEPTH_MAX	16

static int flow_depth(const char *line, size_t len)
{
	int depth = 0, max = 0;
	char quote = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		char c = line[i];

		if (quote == '"' && c == '\\')
			i++;
		else if (quote && c == quote)
			quote = 0;
		else if (quote)
			continue;
		else if (c == '"' || c == '\'')
			quote = c;
		else if ((c == '[' || c == '{') && ++depth > max)
			max = depth;
		else if ((c == ']' || c == '}') && depth)
			depth--;
	}
	return max;
}

/*
 * Parse one line (a flow mapping, maybe as a list item). 0, or -1 when it
 * is not a record. Keys and values at depth 1 (the record) and 2 (msg as
 * a mapping); deeper levels are skipped.
 */
static int parse_rec(const char *line, size_t len, struct rec *r)
{
	yaml_parser_t p;
	yaml_event_t ev;
	char key[64] = "";
	bool have_key = false, done = false;
	int depth = 0, ret = -1, seq = 0;

	memset(r, 0, sizeof(*r));
	if (!yaml_parser_initialize(&p))
		return -1;
	yaml_parser_set_input_string(&p, (const unsigned char *)line, len);
	while (!done) {
		if (!yaml_parser_parse(&p, &ev))
			break;
		switch (ev.type) {
		case YAML_SEQUENCE_START_EVENT:
			/* "- {...}": the list item; a list inside a record is skipped */
			if (depth == 0 && !seq)
				seq = 1;
			else
				depth++;
			have_key = false;
			break;
		case YAML_SEQUENCE_END_EVENT:
			if (depth > 0)
				depth--;
			break;
		case YAML_MAPPING_START_EVENT:
			depth++;
			have_key = false;
			break;
		case YAML_MAPPING_END_EVENT:
			depth--;
			if (!depth)
				ret = 0;
			have_key = false;
			break;
		case YAML_SCALAR_EVENT:
			if (!have_key) {
				snprintf(key, sizeof(key), "%s", (char *)ev.data.scalar.value);
				have_key = true;
			} else {
				rec_set(r, key, (char *)ev.data.scalar.value, depth);
				have_key = false;
			}
			break;
		case YAML_STREAM_END_EVENT:
		case YAML_DOCUMENT_END_EVENT:
			done = true;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	if (ret || !r->lvl[0]) {
		free(r->msg);
		r->msg = NULL;
		return -1;
	}
	return 0;
}

/* A test result by LAVA's case id. */
struct result {
	char id[200];
	bool pass;
};

/* The unpacking's state: the files being written and what was seen. */
struct unpack {
	const char *log;
	FILE *err;
	FILE *console, *samples;
	unsigned long seq;		/* last sample line number */
	long end_count;			/* -1: no hzrig-jsonl-end yet */
	char *build;			/* the build record's JSON */
	struct hzrig_console_end con;
	double t_first, t_result, t_case, t_last;	/* target lines' times, s */
	/* KTAP results seen on the console, and LAVA's test cases */
	struct result *ktap, *lava;
	size_t nktap, ktap_cap, nlava, lava_cap;
	char job_result[32], job_error[256];
	char job_reason[600];	/* the job result's "error_type: error_msg" */
	int errors;
	unsigned long lineno;
	/* hzrig_lava_console(): the console's lines as they came, no tags */
	bool console_only;
	bool sweep_end;			/* a sweep batch's "sweep end" seen */
	unsigned long ntarget;
};

static void say(struct unpack *u, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A problem of the log, at its line; the first ten are said. */
static void say(struct unpack *u, const char *fmt, ...)
{
	va_list ap;

	if (u->errors++ >= 10)
		return;
	fprintf(u->err, "%s:%lu: ", u->log, u->lineno);
	va_start(ap, fmt);
	vfprintf(u->err, fmt, ap);
	va_end(ap);
	fputc('\n', u->err);
}

/* "2026-12-05T16:01:02.123456" as seconds (UTC); -1 if not a time. */
static double dt_s(const char *dt)
{
	struct tm tm = { 0 };
	const char *p = strptime(dt, "%Y-%m-%dT%H:%M:%S", &tm);

	if (!p)
		return -1;
	return (double)timegm(&tm) + (*p == '.' ? atof(p) : 0);
}

static int push(struct result **v, size_t *n, size_t *cap, const char *id,
		bool pass)
{
	struct result *g = hzrig_grow(*v, *n, cap, 256, sizeof(**v));

	if (!g)
		return -1;
	*v = g;
	snprintf(g[*n].id, sizeof(g[*n].id), "%s", id);
	g[(*n)++].pass = pass;
	return 0;
}

static void ktap_line(struct unpack *u, const char *line)
{
	bool ok = !strncmp(line, "ok ", 3);
	const char *p = line + (ok ? 3 : 7);
	char name[256], id[256];

	p += strspn(p, "0123456789");
	if (*p != ' ')
		return;
	p++;
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(p, " \t#"), p);
	hzrig_lava_case_id(name, id, sizeof(id));
	if (push(&u->ktap, &u->nktap, &u->ktap_cap, id, ok))
		u->errors++;
}

/*
 * A count at @s: 1 to 9 decimal digits, nothing before them (no sign, no
 * blank); *@end after them. -1 if there are none or more.
 */
static int count_at(const char *s, unsigned long *n, char **end)
{
	size_t d = strspn(s, "0123456789");

	*end = (char *)s + d;
	if (!d || d > 9)
		return -1;
	*n = strtoul(s, NULL, 10);
	return 0;
}

/* The tags, each with its checks, and the console's own lines. */
static void target_line(struct unpack *u, const char *msg, double t)
{
	size_t tj = strlen(HZRIG_LAVA_TAG_JSONL), te = strlen(HZRIG_LAVA_TAG_END);
	size_t tb = strlen(HZRIG_LAVA_TAG_BUILD);
	char *end;

	if (t >= 0) {
		if (u->t_first < 0)
			u->t_first = t;
		u->t_last = t;
	}
	if (!strncmp(msg, HZRIG_LAVA_TAG_JSONL, tj)) {
		unsigned long n;

		if (count_at(msg + tj, &n, &end) || *end != ' ') {
			say(u, "a sample line without its number: '%.60s'", msg);
			return;
		}
		if (u->end_count >= 0)
			say(u, "sample line %lu after the end count", n);
		else if (n != u->seq + 1)
			say(u, "sample line %lu %s", u->seq + 1,
			    n > u->seq + 1 ? "is missing: the log jumps past it" :
			    "comes twice or out of order");
		u->seq = n;
		fprintf(u->samples, "%s\n", end + 1);
		return;
	}
	if (!strncmp(msg, HZRIG_LAVA_TAG_END, te)) {
		unsigned long n;

		if (count_at(msg + te, &n, &end) || *end) {
			say(u, "a bad end count (digits and nothing else): '%.60s'", msg);
			u->end_count = 0;
			return;
		}
		u->end_count = (long)n;
		if (n != u->seq) {
			say(u, "the guest counted %ld sample lines; the log has fewer or more",
			    u->end_count);
		}
		return;
	}
	if (!strncmp(msg, HZRIG_LAVA_TAG_BUILD, tb)) {
		free(u->build);
		u->build = strdup(msg + tb);
		return;
	}
	fprintf(u->console, "%s\n", msg);
	switch (hzrig_console_note(&u->con, msg)) {
	case HZRIG_LINE_RESULT:
		if (u->t_result < 0 && t >= 0)
			u->t_result = t;
		ktap_line(u, msg);
		break;
	case HZRIG_LINE_PLAN:
		if (u->t_case < 0 && t >= 0)
			u->t_case = t;
		break;
	default:
		break;
	}
}

/* LAVA's messages may hold newlines and controls: said on one line. */
static void one_line(char *s)
{
	char *c;

	for (c = s; *c; c++)
		if ((unsigned char)*c < ' ' || *c == 0x7f)
			*c = ' ';
	while (c > s && c[-1] == ' ')
		*--c = '\0';
}

static void results_rec(struct unpack *u, const struct rec *r)
{
	if (!strcmp(r->definition, "lava") && !strcmp(r->ccase, "job")) {
		snprintf(u->job_result, sizeof(u->job_result), "%s", r->result);
		snprintf(u->job_reason, sizeof(u->job_reason), "%s%s%s",
			 r->error_type, r->error_type[0] && r->error_msg[0] ? ": " : "",
			 r->error_msg);
		one_line(u->job_reason);
		return;
	}
	if (strcmp(r->definition, HZRIG_LAVA_SUITE))
		return;
	if (push(&u->lava, &u->nlava, &u->lava_cap, r->ccase,
		 !strcmp(r->result, "pass")))
		u->errors++;
}

/* Every KTAP result on the console must be LAVA's too, with its result. */
static void check_results(struct unpack *u)
{
	size_t i, j, from = 0;

	if (!u->nlava) {
		say(u, "LAVA recorded no test case of suite '%s' (the job's monitor did not run?)",
		    HZRIG_LAVA_SUITE);
		return;
	}
	for (i = 0; i < u->nktap; i++) {
		/* in order, so a repeated name pairs with its own */
		for (j = from; j < u->nlava && strcmp(u->lava[j].id, u->ktap[i].id); j++)
			;
		if (j == u->nlava) {
			say(u, "LAVA recorded no test case %s for KTAP result %zu",
			    u->ktap[i].id, i + 1);
			continue;
		}
		if (u->lava[j].pass != u->ktap[i].pass)
			say(u, "LAVA's result for %s differs from the console's (KTAP result %zu)",
			    u->ktap[i].id, i + 1);
		from = j + 1;
	}
}


/*
 * LAVA's console logger (lava_dispatcher/shell.py, ShellLogger) writes
 * every '"' of the console as '\"' before the YAML quoting: take out each
 * backslash that stands right before a quote. Exact, since it only ever
 * adds one there (the JSON's own \" arrives as \\" and leaves as \").
 * It also drops \r and ESC, and the JSON lines have neither.
 */
static void unescape_quotes(char *m)
{
	char *w = m;

	for (; *m; m++)
		if (!(m[0] == '\\' && m[1] == '"'))
			*w++ = *m;
	*w = '\0';
}

/* One line of the log; blank lines are skipped, anything else is said. */
static void log_line(struct unpack *u, char *line, size_t len)
{
	struct rec r;

	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		line[--len] = '\0';
	if (!len)
		return;
	if (flow_depth(line, len) > REC_DEPTH_MAX) {
		say(u, "not a LAVA log record: it nests more than %d levels deep",
		    REC_DEPTH_MAX);
		return;
	}
	if (parse_rec(line, len, &r)) {
		say(u, "not a LAVA log record: '%.60s'", line);
		return;
	}
	if (!strcmp(r.lvl, "target") && r.msg) {
		char *m = r.msg;
		size_t n = strlen(m);

		/* the console's \r\n, and a \r LAVA kept */
		while (n && (m[n - 1] == '\r' || m[n - 1] == '\n'))
			m[--n] = '\0';
		unescape_quotes(m);
		u->ntarget++;
		if (u->console_only) {
			double t = dt_s(r.dt);

			if (u->console)		/* none: hzrig_lava_result() */
				fprintf(u->console, "%s\n", m);
			hzrig_console_note(&u->con, m);
			if (!strcmp(m, HZRIG_LAVA_SWEEP_END))
				u->sweep_end = true;
			if (t >= 0) {
				if (u->t_first < 0)
					u->t_first = t;
				u->t_last = t;
			}
		}
		else
			target_line(u, m, dt_s(r.dt));
	} else if (!strcmp(r.lvl, "results")) {
		results_rec(u, &r);
	} else if (!strcmp(r.lvl, "error") && r.msg && !u->job_error[0]) {
		snprintf(u->job_error, sizeof(u->job_error), "%s", r.msg);
		one_line(u->job_error);
	}
	free(r.msg);
}

/* status.json as `hzrig boot --status` writes it, and where it ran. */
static int write_status(struct unpack *u, const char *path,
			const char *variant, const char *accel)
{
	struct json_object *l = json_object_new_object();
	struct hzrig_boot_status st = {
		.variant = variant, .status = hzrig_console_status(&u->con),
		.accel = accel, .crash = u->con.crash,
		.guest_rc = u->con.guest_rc,
		.wall_s = u->t_first >= 0 ? u->t_last - u->t_first : 0,
		.first_result_s = u->t_result >= 0 ? u->t_result - u->t_first : -1,
		.first_case_s = u->t_case >= 0 ? u->t_case - u->t_first : -1,
	};
	char *extra;
	int ret;

	/* where it ran: the one member hzrig boot has not */
	json_object_object_add(l, "log", hzrig_json_str(u->log));
	json_object_object_add(l, "job_result", hzrig_json_str(
		u->job_result[0] ? u->job_result : "unknown"));
	json_object_object_add(l, "test_cases", json_object_new_int64((int64_t)u->nlava));
	if (u->job_error[0])
		json_object_object_add(l, "error", hzrig_json_str(u->job_error));
	if (asprintf(&extra, ",\"lava\":%s",
		     json_object_to_json_string_ext(l, JSON_C_TO_STRING_PLAIN)) < 0) {
		json_object_put(l);
		return -1;
	}
	st.extra = extra;
	ret = hzrig_boot_status_write(path, &st, u->err);
	free(extra);
	json_object_put(l);
	return ret;
}

/* The build record: an object naming its variant. */
static int take_build(struct unpack *u, const char *path, char *variant,
		      size_t vlen)
{
	struct json_object *b = u->build ? json_tokener_parse(u->build) : NULL, *v;
	int ret = -1;

	if (!u->build)
		say(u, "no build record (a hzrig-build line): was the initramfs made by matrix.sh?");
	else if (!b || !json_object_is_type(b, json_type_object) ||
		 !json_object_object_get_ex(b, "variant", &v) ||
		 !json_object_is_type(v, json_type_string))
		say(u, "the build record is not a JSON object with a variant: '%.60s'", u->build);
	else if (json_object_to_file_ext(path, b, JSON_C_TO_STRING_PRETTY))
		say(u, "%s: %s", path, strerror(errno));
	else {
		snprintf(variant, vlen, "%s", json_object_get_string(v));
		ret = 0;
	}
	json_object_put(b);
	return ret;
}

/* The guest's accelerator, from the capture's meta record (line 1). */
static void meta_accel(const char *samples, char *accel, size_t len)
{
	char line[8192];
	FILE *f = fopen(samples, "r");
	struct json_object *o, *v;

	accel[0] = '\0';
	if (!f)
		return;
	if (fgets(line, sizeof(line), f)) {
		o = json_tokener_parse(line);
		if (o && json_object_object_get_ex(o, "accel", &v) &&
		    json_object_is_type(v, json_type_string))
			snprintf(accel, len, "%s", json_object_get_string(v));
		json_object_put(o);
	}
	fclose(f);
}

const char *const hzrig_lava_capture[HZRIG_LAVA_CAPTURE_N] = {
	"console.log", "ttyS1.jsonl", "status.json", "build.json",
};

static void rm_tree(const char *dir)
{
	char p[PATH_MAX + 32];
	size_t i;

	for (i = 0; i < HZRIG_LAVA_CAPTURE_N; i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, hzrig_lava_capture[i]);
		unlink(p);
	}
	rmdir(dir);
}

static int open_parts(struct unpack *u, const char *tmp)
{
	char p[PATH_MAX + 32];

	if (mkdir(tmp, 0755)) {
		fprintf(u->err, "%s: %s\n", tmp, strerror(errno));
		return -1;
	}
	snprintf(p, sizeof(p), "%s/console.log", tmp);
	u->console = fopen(p, "w");
	snprintf(p, sizeof(p), "%s/ttyS1.jsonl", tmp);
	u->samples = fopen(p, "w");
	if (!u->console || !u->samples) {
		fprintf(u->err, "%s: %s\n", p, strerror(errno));
		return -1;
	}
	return 0;
}

/* After the last line: what must have come, and the files left to write. */
static void finish(struct unpack *u, const char *tmp, char *variant,
		   size_t vlen)
{
	char p[PATH_MAX + 32], accel[64];

	u->lineno = 0;
	if (!u->seq)
		say(u, "no in-band samples (hzrig-jsonl lines)%s: was the job made by hzrig lava jobs (hzrig.samples=console)?",
		    u->job_error[0] ? ", and LAVA said an error" : "");
	else if (u->end_count < 0)
		say(u, "the log ends after sample line %lu without the guest's end count (hzrig-jsonl-end): cut short",
		    u->seq);
	if (fclose(u->samples) | fclose(u->console))
		say(u, "%s: cannot write the capture: %s", tmp, strerror(errno));
	u->samples = u->console = NULL;
	snprintf(p, sizeof(p), "%s/build.json", tmp);
	take_build(u, p, variant, vlen);
	check_results(u);
	if (u->errors)
		return;
	snprintf(p, sizeof(p), "%s/ttyS1.jsonl", tmp);
	meta_accel(p, accel, sizeof(accel));
	snprintf(p, sizeof(p), "%s/status.json", tmp);
	if (write_status(u, p, variant, accel))
		u->errors++;	/* said by hzrig_boot_status_write() */
}

static void started_id(double t, char *out, size_t len)
{
	time_t s = (time_t)t;
	struct tm tm;

	if (t < 0 || !gmtime_r(&s, &tm) || !strftime(out, len, "%Y%m%dT%H%M%SZ", &tm))
		snprintf(out, len, "unknown");
}

/*
 * A job's log (@log: a file, or a directory holding output.yaml) opened;
 * its path, for the messages, in @path. NULL after saying why.
 */
static FILE *open_log(const char *log, char *path, size_t len, FILE *err)
{
	char why[HZRIG_WHY];
	struct stat st;
	FILE *f;

	snprintf(path, len, "%s%s", log,
		 !stat(log, &st) && S_ISDIR(st.st_mode) ? "/output.yaml" : "");
	f = hzrig_in_open(path, HZRIG_MAX_LAVA_LOG, why, sizeof(why));
	if (!f)
		fprintf(err, "%s: %s (a LAVA job's log: lava-run's stderr, or lavacli jobs logs --raw ID, or a directory holding it as output.yaml)\n",
			path, why);
	return f;
}

/* Every line of @f through log_line(), then @f closed. */
static void read_log(struct unpack *u, FILE *f)
{
	char why[HZRIG_WHY], *line = NULL;
	size_t cap = 0;
	ssize_t n;

	while ((n = getline(&line, &cap, f)) >= 0) {
		u->lineno++;
		log_line(u, line, (size_t)n);
	}
	if (ferror(f)) {
		u->lineno = 0;
		say(u, "%s", hzrig_in_error(why, sizeof(why), HZRIG_MAX_LAVA_LOG));
	}
	free(line);
	fclose(f);
}

/* Open, read line by line, check, then move the files in at once. */
int hzrig_lava_unpack(const char *log, const char *dir, char *variant,
		      size_t vlen, char *started, size_t slen, FILE *err)
{
	struct unpack u = { .err = err, .end_count = -1, .t_first = -1,
			    .t_result = -1, .t_case = -1, .t_last = -1,
			    .con = { .guest_rc = -1 } };
	char path[PATH_MAX + 16], tmp[PATH_MAX + 8];
	FILE *f = open_log(log, path, sizeof(path), err);

	u.log = path;
	if (!f)
		return -1;
	snprintf(tmp, sizeof(tmp), "%s.part", dir);
	if (open_parts(&u, tmp)) {
		fclose(f);
		if (u.console)
			fclose(u.console);
		if (u.samples)
			fclose(u.samples);
		rm_tree(tmp);
		return -1;
	}
	read_log(&u, f);
	finish(&u, tmp, variant, vlen);
	free(u.build);
	free(u.ktap);
	free(u.lava);
	if (u.errors > 10)
		fprintf(err, "%s: %d problems in all\n", path, u.errors);
	if (u.errors || rename(tmp, dir)) {
		if (!u.errors)
			fprintf(err, "%s: %s\n", dir, strerror(errno));
		rm_tree(tmp);
		return -1;
	}
	started_id(u.t_first, started, slen);
	return 0;
}

int hzrig_lava_result(const char *log, FILE *out, FILE *err)
{
	struct unpack u = { .err = err, .console_only = true };
	char path[PATH_MAX + 16];
	FILE *f = open_log(log, path, sizeof(path), err);
	int ret;

	u.log = path;
	if (!f)
		return -1;
	read_log(&u, f);
	free(u.ktap);
	free(u.lava);
	if (u.errors)
		return -1;
	if (!u.job_result[0]) {
		/* a dispatcher that died (its worker killed) writes none */
		fprintf(out, "none%s%s\n", u.job_error[0] ? ": LAVA said: " : "",
			u.job_error);
		return 1;
	}
	ret = fprintf(out, "%s%s%s\n", u.job_result, u.job_reason[0] ? ": " : "",
		      u.job_reason);
	return ret < 0 ? -1 : 0;
}

/*
 * How a sweep batch's guest ended under LAVA, as `hzrig boot --status`
 * says it for a local boot: "crashed" on a kernel report; "ok" once the
 * batch said its end (LAVA ends the job there, maybe before the guest's
 * own "done" line); "failed" on the guest's rc; else "hung": the console
 * stopped (LAVA's timeout, or its error, ended the job).
 */
static int console_status(struct unpack *u, const char *path,
			  const char *variant)
{
	struct hzrig_boot_status st = {
		.variant = variant, .accel = "", .guest_rc = u->con.guest_rc,
		.crash = u->con.crash, .first_result_s = -1, .first_case_s = -1,
		.wall_s = u->t_first >= 0 ? u->t_last - u->t_first : 0,
	};
	char why[400];

	if (u->con.crash[0]) {
		st.status = "crashed";
	} else if (u->sweep_end) {
		st.status = "ok";
	} else if (u->con.guest_rc >= 0) {
		st.status = u->con.guest_rc ? "failed" : "ok";
	} else {
		/* no console at all: the job never booted its guest */
		st.status = u->ntarget ? "hung" : "error";
		snprintf(why, sizeof(why), "%s%s%.120s%s, last line: %.100s",
			 u->ntarget ? "the console stopped before the batch's end" :
			 "no console", u->job_error[0] ? " (LAVA: " : "",
			 u->job_error, u->job_error[0] ? ")" : "", u->con.last);
		st.crash = why;
	}
	return hzrig_boot_status_write(path, &st, u->err);
}

/* With @status: "error", for a job whose log is missing or not a log. */
static void error_status(const char *status, const char *variant,
			 const char *why, FILE *err)
{
	struct hzrig_boot_status st = {
		.variant = variant, .status = "error", .accel = "",
		.guest_rc = -1, .first_result_s = -1, .first_case_s = -1,
		.crash = why,
	};

	if (status)
		hzrig_boot_status_write(status, &st, err);
}

/*
 * One job's console, every target line as it came (a sweep batch's job:
 * its framed "hzrig-sweep" lines and the kernel's around them, for
 * `hzrig sweep collect`), into @out through @out.part; with @status, how
 * its guest ended, as status.json ("error" when there is no log).
 */
int hzrig_lava_console(const char *log, const char *out, const char *status,
		       const char *variant, FILE *err)
{
	struct unpack u = { .err = err, .console_only = true, .t_first = -1,
			    .t_last = -1, .con = { .guest_rc = -1 } };
	char path[PATH_MAX + 16], why[HZRIG_WHY];
	struct hzrig_out o;
	FILE *f = open_log(log, path, sizeof(path), err);

	u.log = path;
	if (!f) {
		error_status(status, variant, "no job log from the lab", err);
		return -1;
	}
	if (hzrig_out_open(&o, out, why, sizeof(why))) {
		fprintf(err, "%s: %s\n", out, why);
		fclose(f);
		return -1;
	}
	u.console = o.f;
	read_log(&u, f);
	u.lineno = 0;
	free(u.ktap);
	free(u.lava);
	/* a LAVA log with no console still says how the job ended */
	if (!u.errors && status && console_status(&u, status, variant))
		u.errors++;
	else if (u.errors)
		error_status(status, variant, "its job log is not a LAVA log", err);
	if (!u.errors && !u.ntarget)
		say(&u, "no console lines (level target)%s%s",
		    u.job_error[0] ? ": LAVA said: " : "", u.job_error);
	if (u.errors) {
		hzrig_out_abort(&o);
		return -1;
	}
	if (hzrig_out_commit(&o, why, sizeof(why))) {
		fprintf(err, "%s: %s\n", out, why);
		if (status)
			unlink(status);
		return -1;
	}
	return 0;
}
