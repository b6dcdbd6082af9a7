// SPDX-License-Identifier: GPL-2.0
/*
 * What hzrig check-tree prints: the sites as a table or as JSON, each with
 * its timeout_arg and the model's window at every HZ, and the patch that
 * turns each into milliseconds.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "checker/checker.h"
#include "lib/json.h"
#include "lib/table.h"
#include "lib/util.h"
#include "model/model.h"

/* The model's window for a site at hzrig_check_hz[@i]; false if none. */
static bool site_window(const struct hzrig_site *s, int i,
			struct hzrig_window *w)
{
	if (!s->known || s->value[i] < INT_MIN || s->value[i] > INT_MAX)
		return false;
	return !hzrig_model_window(hzrig_check_hz[i], (int)s->value[i],
				   s->killable, w) && !w->forever;
}

static void written(const struct hzrig_site *s, char *buf, size_t n)
{
	if (s->origin && s->origin->kind == HZRIG_FACT_DEFINE)
		snprintf(buf, n, "%s [%s = %s]", s->expr, s->origin->name,
			 s->origin_expr);
	else if (s->origin)
		snprintf(buf, n, "%s [%s = %s, line %d]", s->expr,
			 s->origin->name, s->origin_expr, s->origin->at.line);
	else
		snprintf(buf, n, "%s", s->expr);
}

void hzrig_check_table(FILE *out, const struct hzrig_sites *sites,
		       const struct hzrig_check_run *run)
{
	struct hzrig_table t;
	const char *hdr[5 + HZRIG_CHECK_NHZ] = { "site", "function", "call",
						 "timeout as written", "meant" };
	char cell[HZRIG_CHECK_NHZ][64], head[HZRIG_CHECK_NHZ][32];
	char site[256], call[160], expr[512], meant[32];
	struct hzrig_window w;
	size_t k;
	int i;
	int64_t ms;

	hzrig_table_init(&t, "lllllllll");
	for (i = 0; i < HZRIG_CHECK_NHZ; i++) {
		snprintf(head[i], sizeof(head[i]), "HZ=%d: arg -> waits ms",
			 hzrig_check_hz[i]);
		hdr[5 + i] = head[i];
	}
	hzrig_table_row(&t, hdr);
	for (k = 0; k < sites->n; k++) {
		const struct hzrig_site *s = &sites->v[k];
		const char *row[5 + HZRIG_CHECK_NHZ];

		snprintf(site, sizeof(site), "%s:%d", s->file, s->line);
		if (s->via)
			snprintf(call, sizeof(call), "%s() via %s()", s->api,
				 s->via);
		else
			snprintf(call, sizeof(call), "%s()", s->api);
		written(s, expr, sizeof(expr));
		if (s->mixed && strlen(expr) + 24 < sizeof(expr))
			strcat(expr, " (not on every path)");
		if (hzrig_site_meant_ms(s, &ms))
			snprintf(meant, sizeof(meant), "%lld ms", (long long)ms);
		else
			snprintf(meant, sizeof(meant), s->runtime ?
				 "(reads jiffies)" : "(unknown)");
		row[0] = site;
		row[1] = s->func;
		row[2] = call;
		row[3] = expr;
		row[4] = meant;
		for (i = 0; i < HZRIG_CHECK_NHZ; i++) {
			if (site_window(s, i, &w))
				snprintf(cell[i], sizeof(cell[i]),
					 "%lld -> %.0f..%.0f",
					 (long long)s->value[i], w.lo_ns / 1e6,
					 w.hi_ns / 1e6);
			else
				snprintf(cell[i], sizeof(cell[i]), "?");
			row[5 + i] = cell[i];
		}
		hzrig_table_row(&t, row);
	}
	hzrig_table_print(&t, out, "");
	hzrig_table_free(&t);
	fprintf(out, "\n%zu site%s in %s%s%s: %zu C files, %zu call the six "
		"APIs and went through spatch in %.1f s%s.\n", sites->n,
		sites->n == 1 ? "" : "s", run->tree,
		run->release ? ", Linux " : "", run->release ? run->release : "",
		run->files, run->scanned, run->seconds,
		run->failed ? " (some failed: above)" : "");
}

static json_object *span_json(const char *file, int line)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "file", hzrig_json_str(file));
	json_object_object_add(o, "line", json_object_new_int(line));
	return o;
}

static const char *origin_kind(const struct hzrig_fact *f)
{
	if (!f)
		return "argument";
	switch (f->kind) {
	case HZRIG_FACT_DEFINE: return "macro";
	case HZRIG_FACT_DECL: return "constant";
	default: return "local";
	}
}

static json_object *site_json(const struct hzrig_site *s)
{
	json_object *o = json_object_new_object(), *hz, *h, *org;
	struct hzrig_window w;
	char key[8], site[256];
	int64_t ms;
	int i;

	snprintf(site, sizeof(site), "%s:%d", s->file, s->line);
	json_object_object_add(o, "site", hzrig_json_str(site));
	json_object_object_add(o, "file", hzrig_json_str(s->file));
	json_object_object_add(o, "line", json_object_new_int(s->line));
	json_object_object_add(o, "arg_line",
			       json_object_new_int(s->expr_at.line));
	json_object_object_add(o, "function", hzrig_json_str(s->func));
	json_object_object_add(o, "call", hzrig_json_str(s->api));
	json_object_object_add(o, "killable", json_object_new_boolean(s->killable));
	if (s->via) {
		json_object *via = span_json(s->file, s->via_line);

		json_object_object_add(via, "function",
				       hzrig_json_str(s->via));
		json_object_object_add(o, "via", via);
	}
	json_object_object_add(o, "expr", hzrig_json_str(s->expr));
	org = s->origin ? span_json(s->origin->at.file, s->origin->at.line) :
			  span_json(s->file, s->expr_at.line);
	json_object_object_add(org, "kind",
			       hzrig_json_str(origin_kind(s->origin)));
	if (s->origin)
		json_object_object_add(org, "name",
				       hzrig_json_str(s->origin->name));
	json_object_object_add(org, "expr",
			       hzrig_json_str(s->origin_expr));
	json_object_object_add(o, "origin", org);
	json_object_object_add(o, "reads_jiffies",
			       json_object_new_boolean(s->runtime));
	json_object_object_add(o, "mixed_units",
			       json_object_new_boolean(s->mixed));
	json_object_object_add(o, "meant_ms", hzrig_site_meant_ms(s, &ms) ?
			       json_object_new_int64(ms) : NULL);
	hz = json_object_new_object();
	for (i = 0; i < HZRIG_CHECK_NHZ; i++) {
		h = json_object_new_object();
		json_object_object_add(h, "timeout_arg", s->known ?
				       json_object_new_int64(s->value[i]) : NULL);
		if (site_window(s, i, &w)) {
			json_object_object_add(h, "jiffies",
					       json_object_new_int64((int64_t)w.jiffies));
			json_object_object_add(h, "lo_ns",
					       json_object_new_int64((int64_t)w.lo_ns));
			json_object_object_add(h, "hi_ns",
					       json_object_new_int64((int64_t)w.hi_ns));
		}
		snprintf(key, sizeof(key), "%d", hzrig_check_hz[i]);
		json_object_object_add(hz, key, h);
	}
	json_object_object_add(o, "hz", hz);
	return o;
}

int hzrig_check_json(FILE *out, const struct hzrig_sites *sites,
		     const struct hzrig_check_run *run)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();
	size_t k;
	int rc;

	json_object_object_add(o, "tree", hzrig_json_str(run->tree));
	json_object_object_add(o, "release", run->release ?
			       hzrig_json_str(run->release) : NULL);
	json_object_object_add(o, "c_files", json_object_new_int64((int64_t)run->files));
	json_object_object_add(o, "scanned", json_object_new_int64((int64_t)run->scanned));
	json_object_object_add(o, "failed", json_object_new_int64((int64_t)run->failed));
	json_object_object_add(o, "seconds", json_object_new_double(run->seconds));
	for (k = 0; k < sites->n; k++)
		json_object_array_add(a, site_json(&sites->v[k]));
	json_object_object_add(o, "sites", a);
	rc = fprintf(out, "%s\n", json_object_to_json_string_ext(o,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return rc < 0 ? -1 : 0;
}

/* ---- the patch */

struct edit {
	const char *file;	/* tree-relative */
	int line, col, line_end, col_end;
	char *text;		/* the replacement, or NULL: */
	bool wrap;		/* jiffies_to_msecs() around the text */
	bool done;
};

struct edits {
	struct edit *v;
	size_t n, cap;
};

/* Byte offset of (@line, @col) in @buf, or -1. */
static long offset_of(const char *buf, size_t len, int line, int col)
{
	size_t i = 0;
	int l = 1;

	while (l < line && i < len) {
		if (buf[i++] == '\n')
			l++;
	}
	if (l != line || i + (size_t)col > len)
		return -1;
	return (long)(i + (size_t)col);
}

static bool word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* How often @name occurs as a word in @buf. */
static long count_word(const char *buf, size_t len, const char *name)
{
	size_t n = strlen(name), i;
	long count = 0;

	for (i = 0; n && i + n <= len; i++) {
		if (memcmp(buf + i, name, n) || (i && word_char(buf[i - 1])) ||
		    (i + n < len && word_char(buf[i + n])))
			continue;
		count++;
		i += n - 1;
	}
	return count;
}

/*
 * How often @name occurs as a word in the .c and .h files of the directory
 * of @file (tree-relative); -1 if one cannot be read. Comments and strings
 * count too: a miscount only ever makes the fix more careful.
 */
static long uses_in_dir(const char *tree, const char *file, const char *name)
{
	char dir[4096], path[8192], why[HZRIG_WHY], *slash;
	struct dirent *d;
	long total = 0;
	DIR *dh;

	snprintf(dir, sizeof(dir), "%s/%s", tree, file);
	slash = strrchr(dir, '/');
	*slash = 0;
	dh = opendir(dir);
	if (!dh)
		return -1;
	while (total >= 0 && (d = readdir(dh))) {
		size_t n = strlen(d->d_name), len;
		char *buf;

		if (n < 3 || d->d_name[n - 2] != '.' ||
		    (d->d_name[n - 1] != 'c' && d->d_name[n - 1] != 'h'))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		buf = hzrig_in_slurp(path, HZRIG_MAX_SOURCE, &len, why, sizeof(why));
		if (!buf) {
			fprintf(stderr, "hzrig check-tree: %s: %s\n", path, why);
			total = -1;
			break;
		}
		total += count_word(buf, len, name);
		free(buf);
	}
	closedir(dh);
	return total;
}

static int add_edit(struct edits *e, const char *file, const struct hzrig_span *at,
		    char *text, bool wrap)
{
	struct edit *v;
	size_t i;

	if (!text && !wrap)
		return -1;
	for (i = 0; i < e->n; i++) {
		if (!strcmp(e->v[i].file, file) && e->v[i].line == at->line &&
		    e->v[i].col == at->col) {
			free(text);	/* the same span for another site */
			return 0;
		}
	}
	v = hzrig_grow(e->v, e->n, &e->cap, 16, sizeof(*v));
	if (!v) {
		free(text);
		return -1;
	}
	e->v = v;
	v[e->n++] = (struct edit){ file, at->line, at->col, at->line_end,
				   at->col_end, text, wrap, false };
	return 0;
}

/* May the HZ expression where @s's value is written become milliseconds? */
static bool origin_rewritable(const struct hzrig_sites *sites,
			      const struct hzrig_site *s, const char *tree)
{
	size_t k, users = 0;
	int64_t ms;

	if (!hzrig_site_meant_ms(s, &ms) || s->runtime)
		return false;
	if (!s->origin)
		return true;	/* written at the call: only it uses it */
	if (s->origin->at.col_end < 0)
		return false;	/* a continued macro body */
	for (k = 0; k < sites->n; k++) {
		const struct hzrig_site *o = &sites->v[k];

		if (o->origin != s->origin)
			continue;
		if (!hzrig_site_meant_ms(o, &ms) || o->runtime)
			return false;
		users++;
	}
	/* its name: once where it is defined, once per site, nowhere else */
	return uses_in_dir(tree, s->origin->at.file, s->origin->name) ==
	       (long)users + 1;
}

/* Long: the edits of every site, then one diff per file through diff(1). */
int hzrig_check_patch(FILE *out, const struct hzrig_sites *sites,
		      const char *tree)
{
	struct edits e = { 0 };
	char why[HZRIG_WHY];
	size_t k, i;
	int rc = 0;

	for (k = 0; k < sites->n && !rc; k++) {
		const struct hzrig_site *s = &sites->v[k];
		int64_t ms = 0;
		char *text = NULL;

		if (s->mixed) {
			/* either fix is wrong on one of the paths */
			fprintf(stderr, "hzrig check-tree: %s:%d: not patched: %s "
				"holds jiffies on one path and not on another; "
				"fix by hand\n", s->file, s->line, s->expr);
			continue;
		}
		if (origin_rewritable(sites, s, tree)) {
			hzrig_site_meant_ms(s, &ms);
			if (asprintf(&text, "%lld", (long long)ms) < 0)
				text = NULL;
			rc = add_edit(&e, s->origin ? s->origin->at.file : s->file,
				      s->origin ? &s->origin->at : &s->expr_at,
				      text, false);
		} else {
			rc = add_edit(&e, s->file, &s->expr_at, NULL, true);
		}
	}
	/* one file at a time: its edits from the end backwards, then diff */
	for (i = 0; i < e.n && !rc; i++) {
		const char *file = e.v[i].file;
		char path[4096], orig[] = "/tmp/hzrig-check-XXXXXX";
		char *buf = NULL;
		size_t len = 0, j;
		int fd;
		pid_t pid;
		int status;
		bool first = true;
		FILE *f;

		for (j = 0; j < i; j++)
			if (!strcmp(e.v[j].file, file))
				first = false;
		if (!first)
			continue;
		snprintf(path, sizeof(path), "%s/%s", tree, file);
		buf = hzrig_in_slurp(path, HZRIG_MAX_SOURCE, &len, why, sizeof(why));
		if (!buf) {
			fprintf(stderr, "hzrig check-tree: cannot read %s: %s\n",
				path, why);
			rc = -1;
			break;
		}
		/* apply this file's edits, the latest position first */
		for (;;) {
			struct edit *best = NULL;
			long a, b;
			char *nb;

			for (j = i; j < e.n; j++) {
				struct edit *x = &e.v[j];

				if (strcmp(x->file, file) || x->done)
					continue;
				if (!best || x->line > best->line ||
				    (x->line == best->line && x->col > best->col))
					best = x;
			}
			if (!best)
				break;
			a = offset_of(buf, len, best->line, best->col);
			b = offset_of(buf, len, best->line_end, best->col_end);
			if (a < 0 || b < a) {
				fprintf(stderr, "hzrig check-tree: %s:%d:%d is not in the file\n",
					file, best->line, best->col);
				rc = -1;
				break;
			}
			if (best->wrap ?
			    asprintf(&nb, "%.*sjiffies_to_msecs(%.*s)%s", (int)a,
				     buf, (int)(b - a), buf + a, buf + b) < 0 :
			    asprintf(&nb, "%.*s%s%s", (int)a, buf, best->text,
				     buf + b) < 0) {
				rc = -1;
				break;
			}
			free(buf);
			buf = nb;
			len = strlen(buf);
			best->done = true;
		}
		fd = rc ? -1 : mkstemp(orig);
		f = fd >= 0 ? fdopen(fd, "w") : NULL;
		if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
			if (!rc)
				fprintf(stderr, "hzrig check-tree: cannot write %s\n", orig);
			rc = -1;
		}
		free(buf);
		if (rc) {
			if (fd >= 0)
				unlink(orig);
			break;
		}
		fflush(out);
		pid = fork();
		if (pid == 0) {
			char la[4200], lb[4200];

			snprintf(la, sizeof(la), "a/%s", file);
			snprintf(lb, sizeof(lb), "b/%s", file);
			dup2(fileno(out), 1);
			execlp("diff", "diff", "-u", "--label", la, "--label", lb,
			       "--", path, orig, (char *)NULL);
			_exit(127);
		}
		/* diff exits 1 when the files differ: that is the point */
		if (pid < 0 || waitpid(pid, &status, 0) < 0 ||
		    !WIFEXITED(status) || WEXITSTATUS(status) != 1) {
			fprintf(stderr, "hzrig check-tree: diff of %s failed\n", file);
			rc = -1;
		}
		unlink(orig);
	}
	for (i = 0; i < e.n; i++)
		free(e.v[i].text);
	free(e.v);
	return rc;
}
