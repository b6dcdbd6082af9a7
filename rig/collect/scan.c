// SPDX-License-Identifier: GPL-2.0
/*
 * The console report scanner (scan.h). A report starts at a line matching
 * one of hzrig_report_patterns[] (tried in order, the first match wins) and runs
 * until its end marker (KASAN's closing rule, the stack's </TASK>, or the
 * "---[ end trace" of a WARN), until another report starts, or for at most
 * REPORT_MAX_LINES kernel lines. The function a title names comes from the
 * report's own line, from the first stack frame that is not the reporting
 * machinery itself (frame_skip[]: lockdep, KASAN, debug objects, the
 * scheduler, the locking primitives, the allocator), or from the RIP line
 * of an oops. Console lines without a printk timestamp inside a report
 * that has them are the guest's userspace writing at the same time: they
 * are left out of the excerpt and do not end the report.
 */
#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "boot/crash.h"
#include "collect/scan.h"
#include "lib/io.h"
#include "lib/json.h"
#include "lib/util.h"

#define REPORT_MAX_LINES	200
#define MAX_GROUPS		4


/*
 * Frames that are the reporting machinery, not the code at fault. A name
 * ending in '*' is a prefix.
 */
static const char *const frame_skip[] = {
	"dump_stack*", "show_stack", "show_trace_log_lvl", "print_*",
	"__print_*", "_printk", "printk*", "vprintk*", "panic", "__warn*",
	"warn_*", "report_bug", "handle_bug", "exc_*", "asm_exc_*",
	"lock_acquire*", "__lock_acquire*", "lock_release", "__lock_release",
	"lock_acquired", "lock_contended", "lockdep_*", "__lockdep_*",
	"check_*", "validate_chain", "mark_lock*", "mark_usage",
	"mark_held_locks", "__might_*", "might_*", "___might_sleep",
	"__schedule_bug", "__schedule", "schedule", "schedule_*",
	"preempt_schedule*", "io_schedule*", "kasan_*", "__kasan_*",
	"__asan_*", "debug_*", "__debug_*", "kfree", "kvfree",
	"kmem_cache_free", "__kmem_cache_free", "slab_free*", "__slab_free",
	"free_debug_processing", "_raw_*", "do_raw_*", "queued_*",
	"down_*", "__down_*", "down", "up_*", "__up_*", "up", "rwsem_*",
	"__rwsem_*", "mutex_*", "__mutex_*", "wait_for_completion*",
	"__wait_for_common", "wait_for_common*", "do_wait_for_common",
	"rcu_*", "__stack_chk_fail",
	/* the timer and workqueue calls a driver's own function makes */
	"__mod_timer", "mod_timer", "add_timer", "internal_add_timer",
	"enqueue_timer", "lock_timer_base", "do_init_timer", "init_timer_key",
	"__queue_delayed_work", "queue_delayed_work_on", "__queue_work",
	"queue_work_on",
};

static bool frame_skipped(const char *fn)
{
	size_t i, n;

	for (i = 0; i < sizeof(frame_skip) / sizeof(frame_skip[0]); i++) {
		n = strlen(frame_skip[i]);
		if (frame_skip[i][n - 1] == '*') {
			if (!strncmp(fn, frame_skip[i], n - 1))
				return true;
		} else if (!strcmp(fn, frame_skip[i])) {
			return true;
		}
	}
	return false;
}

/* How much of one console line is scanned (and kept in an excerpt). */
#define SCAN_LINE_MAX	16384

struct scanner {
	struct hzrig_report_res res;
	regex_t frame, rip, access;
	bool frames_ok;
	struct hzrig_findings *out;
	char running[HZRIG_RUNNING_MAX];
	/* the open report, if any */
	const struct hzrig_report_pattern *p;
	struct hzrig_finding *cur;	/* in out->v; NULL: none open */
	bool cur_ts;			/* its start line had a timestamp */
	bool in_trace;			/* after its "Call Trace:" */
	bool ended;			/* its end marker was seen */
	unsigned int cur_lines;
	char groups[MAX_GROUPS][HZRIG_TITLE_MAX];
	char func[HZRIG_TITLE_MAX];
	char access_kind[8];
	size_t excerpt_len;
	struct hzrig_finding *last;	/* the last report closed */
	unsigned int last_end_line;	/* the line it closed on */
	unsigned int lineno;		/* the line being scanned */
	char clean[SCAN_LINE_MAX * 3 + 1];	/* the line, as UTF-8 */
};

/* Copy a function name, dropping compiler suffixes (.isra.0, .cold). */
static void copy_func(char *dst, size_t len, const char *src, size_t n)
{
	const char *dot = memchr(src, '.', n);

	if (dot)
		n = (size_t)(dot - src);
	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void group_copy(char *dst, size_t len, const char *line,
		       const regmatch_t *m)
{
	size_t n;

	if (m->rm_so < 0) {
		dst[0] = '\0';
		return;
	}
	n = (size_t)(m->rm_eo - m->rm_so);
	if (n >= len)
		n = len - 1;
	memcpy(dst, line + m->rm_so, n);
	dst[n] = '\0';
}

static void excerpt_add(struct scanner *s, const char *line)
{
	struct hzrig_finding *f = s->cur;
	size_t n = strlen(line), room;
	static const char more[] = "[... excerpt cut]\n";

	if (s->excerpt_len >= sizeof(f->excerpt) - 1)
		return;
	room = sizeof(f->excerpt) - 1 - s->excerpt_len;
	if (n + 1 + sizeof(more) > room) {
		if (room >= sizeof(more)) {
			memcpy(f->excerpt + s->excerpt_len, more, sizeof(more));
			s->excerpt_len = sizeof(f->excerpt) - 1;
		}
		return;
	}
	memcpy(f->excerpt + s->excerpt_len, line, n);
	f->excerpt[s->excerpt_len + n] = '\n';
	s->excerpt_len += n + 1;
	f->excerpt[s->excerpt_len] = '\0';
}

/* Append @src to @dst (of @len), cut to fit. */
static void cat(char *dst, size_t len, const char *src, size_t n)
{
	size_t have = strlen(dst);

	if (have + n >= len)
		n = len - 1 - have;
	memcpy(dst + have, src, n);
	dst[have + n] = '\0';
}

/*
 * The title from the pattern's template. An unresolved $F drops the " in "
 * before it (a report cut before its stack); an empty $A its blank.
 */
static void build_title(struct scanner *s)
{
	char *t = s->cur->title;
	const char *p;
	size_t have;

	t[0] = '\0';
	for (p = s->p->title; *p; p++) {
		if (p[0] != '$' || !p[1]) {
			cat(t, HZRIG_TITLE_MAX, p, 1);
			continue;
		}
		p++;
		if (*p >= '1' && *p <= '3') {
			cat(t, HZRIG_TITLE_MAX, s->groups[*p - '0'],
			    strlen(s->groups[*p - '0']));
		} else if (*p == 'A') {
			cat(t, HZRIG_TITLE_MAX, s->access_kind,
			    strlen(s->access_kind));
			have = strlen(t);
			if (!s->access_kind[0] && have && t[have - 1] == ' ')
				p++;	/* skip the blank that follows */
		} else if (*p == 'F') {
			have = strlen(t);
			if (s->func[0])
				cat(t, HZRIG_TITLE_MAX, s->func, strlen(s->func));
			else if (have >= 4 && !strcmp(t + have - 4, " in "))
				t[have - 4] = '\0';
		}
	}
}

static void report_close(struct scanner *s, bool truncated)
{
	if (!s->cur)
		return;
	s->cur->truncated = truncated;
	build_title(s);
	s->last = s->cur;
	s->last_end_line = s->lineno;
	s->cur = NULL;
	s->p = NULL;
}

static struct hzrig_finding *finding_new(struct hzrig_findings *out)
{
	struct hzrig_finding *v;

	if (out->n == out->cap) {
		size_t cap = out->cap ? out->cap * 2 : 8;

		v = realloc(out->v, cap * sizeof(*v));
		if (!v)
			return NULL;
		out->v = v;
		out->cap = cap;
	}
	v = &out->v[out->n++];
	memset(v, 0, sizeof(*v));
	return v;
}

static int report_open(struct scanner *s, const struct hzrig_report_pattern *p,
		       const char *line, const char *body, bool ts,
		       unsigned int lineno, const regmatch_t *m)
{
	struct hzrig_finding *f;
	int i;

	/* s->last points into out->v, which may move */
	s->last = NULL;
	f = finding_new(s->out);
	if (!f)
		return -1;
	s->cur = f;
	s->p = p;
	s->cur_ts = ts;
	s->in_trace = false;
	s->ended = false;
	s->cur_lines = 1;
	s->excerpt_len = 0;
	s->func[0] = '\0';
	s->access_kind[0] = '\0';
	for (i = 0; i < MAX_GROUPS; i++)
		group_copy(s->groups[i], sizeof(s->groups[i]), body, &m[i]);
	snprintf(f->kind, sizeof(f->kind), "%s", p->kind);
	snprintf(f->running, sizeof(f->running), "%s", s->running);
	f->line = lineno;
	if (p->where_group)
		snprintf(f->where, sizeof(f->where), "%s",
			 s->groups[p->where_group]);
	if (p->func == HZRIG_FROM_LINE && m[2].rm_so >= 0)
		copy_func(s->func, sizeof(s->func), body + m[2].rm_so,
			  (size_t)(m[2].rm_eo - m[2].rm_so));
	excerpt_add(s, line);
	if (p->end == HZRIG_END_LINE)
		s->ended = true;
	return 0;
}

/* A line of the open report: its function, its access, its end. */
static void report_line(struct scanner *s, const char *line, const char *body)
{
	regmatch_t m[3];

	excerpt_add(s, line);
	s->cur_lines++;
	if (!strncmp(body, "Call Trace:", 11))
		s->in_trace = true;
	if (s->p->func == HZRIG_FROM_STACK && !s->func[0] && s->in_trace &&
	    !regexec(&s->frame, body, 3, m, 0) && m[1].rm_so < 0) {
		char fn[HZRIG_TITLE_MAX];

		copy_func(fn, sizeof(fn), body + m[2].rm_so,
			  (size_t)(m[2].rm_eo - m[2].rm_so));
		if (!frame_skipped(fn))
			snprintf(s->func, sizeof(s->func), "%s", fn);
	}
	if (s->p->func == HZRIG_FROM_RIP && !s->func[0] &&
	    !regexec(&s->rip, body, 2, m, 0))
		copy_func(s->func, sizeof(s->func), body + m[1].rm_so,
			  (size_t)(m[1].rm_eo - m[1].rm_so));
	if (!s->access_kind[0] && !regexec(&s->access, body, 2, m, 0))
		group_copy(s->access_kind, sizeof(s->access_kind), body, &m[1]);
	switch (s->p->end) {
	case HZRIG_END_RULE:
		if (strlen(body) >= 20 && strspn(body, "=") == strlen(body))
			s->ended = true;
		break;
	case HZRIG_END_TASK:
		if (!strncmp(body + strspn(body, " "), "</TASK>", 7))
			s->ended = true;
		break;
	case HZRIG_END_TRACE:
		if (!strncmp(body, "---[ end trace", 14))
			s->ended = true;
		break;
	case HZRIG_END_LINE:
		break;
	}
	if (s->ended || s->cur_lines >= REPORT_MAX_LINES)
		report_close(s, false);
}

/* "# case 3/148 bulk-in nak ms T=10 ms x5, ETA ..." → "case 3/148 ...". */
static void note_running(struct scanner *s, const char *body)
{
	size_t n;

	if (strncmp(body, "# case ", 7) && strncmp(body, "# scenario ", 11))
		return;
	body += 2;
	n = strcspn(body, ",");
	while (n && body[n - 1] == ' ')
		n--;
	if (n >= sizeof(s->running))
		n = sizeof(s->running) - 1;
	memcpy(s->running, body, n);
	s->running[n] = '\0';
}

static int match_start(struct scanner *s, const char *body, regmatch_t *m)
{
	return hzrig_report_match(&s->res, body, MAX_GROUPS, m);
}

/*
 * A HZRIG_REPORT_JOINS line just after a closed report still belongs to it; the panic
 * an oops ends in ("Fatal exception", after its register dump) always does.
 */
#define JOIN_AFTER_LINES	8

static int scan_line(struct scanner *s, char *line, unsigned int lineno)
{
	size_t tl = hzrig_timestamp_len(line);
	const char *body = line + tl;
	regmatch_t m[MAX_GROUPS];
	const struct hzrig_report_pattern *p;
	int i;

	s->lineno = lineno;
	if (!tl)
		note_running(s, body);
	/* userspace writing into the middle of a kernel report */
	if (s->cur && s->cur_ts && !tl)
		return 0;
	i = match_start(s, body, m);
	p = i >= 0 ? &hzrig_report_patterns[i] : NULL;
	if (p && (p->flags & HZRIG_REPORT_JOINS)) {
		if (s->cur) {
			report_line(s, line, body);
			return 0;
		}
		if (s->last && strcmp(p->kind, "WARNING") &&
		    (lineno - s->last_end_line <= JOIN_AFTER_LINES ||
		     !strncmp(body, "Kernel panic - not syncing: Fatal exception",
			      43))) {
			/* the panic after an oops: the oops's finding */
			struct hzrig_finding *keep = s->last;
			size_t len = strlen(keep->excerpt);

			if (len + strlen(line) + 2 < sizeof(keep->excerpt)) {
				memcpy(keep->excerpt + len, line, strlen(line));
				memcpy(keep->excerpt + len + strlen(line), "\n", 2);
			}
			s->last_end_line = lineno;
			return 0;
		}
	}
	if (p) {
		report_close(s, false);
		if (report_open(s, p, line, body, tl > 0, lineno, m))
			return -1;
		if (s->ended)
			report_close(s, false);
	} else if (s->cur) {
		report_line(s, line, body);
	}
	return 0;
}

static int scanner_init(struct scanner *s, struct hzrig_findings *out)
{
	memset(s, 0, sizeof(*s));
	s->out = out;
	if (hzrig_report_res_init(&s->res))
		return -1;
	/* " ? func+0x1f/0x40 [module]" */
	if (regcomp(&s->frame,
		    "^ *(\\? )?([A-Za-z0-9_.]+)\\+0x[0-9a-f]+/0x[0-9a-f]+",
		    REG_EXTENDED))
		return -1;
	if (regcomp(&s->rip, "^RIP: [0-9a-f]+:([A-Za-z0-9_.]+)\\+",
		    REG_EXTENDED)) {
		regfree(&s->frame);
		return -1;
	}
	if (regcomp(&s->access, "^(Read|Write) of size [0-9]+", REG_EXTENDED)) {
		regfree(&s->frame);
		regfree(&s->rip);
		return -1;
	}
	s->frames_ok = true;
	return 0;
}

static void scanner_fini(struct scanner *s)
{
	hzrig_report_res_free(&s->res);
	if (s->frames_ok) {
		regfree(&s->frame);
		regfree(&s->rip);
		regfree(&s->access);
	}
}

int hzrig_scan_console(FILE *f, struct hzrig_findings *out)
{
	struct scanner s;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	unsigned int lineno = 0;
	int ret = 0;

	if (scanner_init(&s, out)) {
		scanner_fini(&s);
		errno = EINVAL;
		return -1;
	}
	while ((n = getline(&line, &cap, f)) >= 0) {
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		/*
		 * What reaches a finding (and so JSON) is UTF-8: a guest's
		 * bytes that are not become U+FFFD. A report's line is short;
		 * the first SCAN_LINE_MAX bytes of a longer one are enough.
		 */
		hzrig_utf8_clean(s.clean, sizeof(s.clean), line,
				 n > SCAN_LINE_MAX ? SCAN_LINE_MAX : (size_t)n);
		if (scan_line(&s, s.clean, ++lineno)) {
			ret = -1;
			break;
		}
	}
	if (ferror(f))
		ret = -1;
	/* the console ended inside a report: keep what it said */
	if (s.cur)
		report_close(&s, !s.ended);
	free(line);
	scanner_fini(&s);
	return ret;
}

int hzrig_scan_file(const char *path, struct hzrig_findings *out, char *why,
		    size_t n)
{
	FILE *f = hzrig_in_open(path, HZRIG_MAX_CONSOLE, why, n);
	int ret;

	if (!f)
		return -1;
	ret = hzrig_scan_console(f, out);
	if (ret)
		hzrig_in_error(why, n, HZRIG_MAX_CONSOLE);
	fclose(f);
	return ret;
}

void hzrig_findings_free(struct hzrig_findings *fs)
{
	free(fs->v);
	fs->v = NULL;
	fs->n = fs->cap = 0;
}

size_t hzrig_scan_patterns(void)
{
	return HZRIG_NREPORT_PATTERNS;
}

const char *hzrig_scan_pattern_kind(size_t i)
{
	return i < HZRIG_NREPORT_PATTERNS ? hzrig_report_patterns[i].kind : NULL;
}

struct json_object *hzrig_finding_json(const struct hzrig_finding *f)
{
	struct json_object *o = json_object_new_object();

	hzrig_json_put(o, "title", hzrig_json_str(f->title));
	hzrig_json_put(o, "kind", hzrig_json_str(f->kind));
	hzrig_json_put(o, "where", f->where[0] ? hzrig_json_str(f->where) : NULL);
	hzrig_json_put(o, "running", hzrig_json_str(f->running));
	hzrig_json_put(o, "console_line", hzrig_json_int(f->line));
	hzrig_json_put(o, "truncated", json_object_new_boolean(f->truncated));
	hzrig_json_put(o, "excerpt", hzrig_json_str(f->excerpt));
	return o;
}

void hzrig_finding_print(FILE *out, const char *indent,
			 const struct hzrig_finding *f)
{
	fprintf(out, "%s%s (running: %s, console line %u%s)\n", indent,
		f->title, f->running[0] ? f->running : "boot", f->line,
		f->truncated ? ", cut off at the end of the log" : "");
}
