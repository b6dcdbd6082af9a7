// SPDX-License-Identifier: GPL-2.0
/*
 * The checker's facts: the "HZRIG {json}" lines rig/checker/timeouts.cocci
 * prints for one file, and the object-like macros of that file and of the
 * headers beside it, read here (a macro may live in the driver's header,
 * which spatch does not print facts for).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "checker/checker.h"
#include "lib/io.h"
#include "lib/util.h"

static struct hzrig_fact *new_fact(struct hzrig_facts *facts)
{
	struct hzrig_fact *v;

	v = hzrig_grow(facts->v, facts->n, &facts->cap, 64, sizeof(*v));
	if (!v)
		return NULL;
	facts->v = v;
	memset(&v[facts->n], 0, sizeof(*v));
	return &v[facts->n];
}

static void fact_free(struct hzrig_fact *f)
{
	free(f->at.file);
	free(f->func);
	free(f->name);
	free(f->expr);
	free(f->api);
	free(f->wrapper);
}

void hzrig_facts_free(struct hzrig_facts *facts)
{
	size_t i;

	for (i = 0; i < facts->n; i++)
		fact_free(&facts->v[i]);
	free(facts->v);
	memset(facts, 0, sizeof(*facts));
}

/* A string member, strdup'ed; "" when absent and not @required. */
static int get_str(json_object *o, const char *key, bool required, char **out)
{
	json_object *m;

	if (!json_object_object_get_ex(o, key, &m) ||
	    !json_object_is_type(m, json_type_string)) {
		if (required)
			return -1;
		*out = strdup("");
	} else {
		*out = strdup(json_object_get_string(m));
	}
	return *out ? 0 : -1;
}

static int get_int(json_object *o, const char *key, int *out)
{
	json_object *m;
	int64_t v;

	if (!json_object_object_get_ex(o, key, &m) ||
	    !json_object_is_type(m, json_type_int))
		return -1;
	v = json_object_get_int64(m);
	if (v < 0 || v > 10000000)
		return -1;
	*out = (int)v;
	return 0;
}

static const char *const kinds[] = {
	[HZRIG_FACT_SINK] = "sink", [HZRIG_FACT_WRAPPER] = "wrapper",
	[HZRIG_FACT_WSINK] = "wsink", [HZRIG_FACT_FLOW] = "flow",
	[HZRIG_FACT_DECL] = "decl",
};

/* One field list per kind; a flat sequence reads easiest. */
int hzrig_facts_parse_line(struct hzrig_facts *facts, const char *line,
			   char *err, size_t errlen)
{
	struct hzrig_fact f = { 0 }, *slot;
	json_object *o;
	char *kind = NULL;
	const char *bad = NULL;
	size_t k;

	if (strncmp(line, "HZRIG ", 6))
		return 0;
	o = json_tokener_parse(line + 6);
	if (!o || !json_object_is_type(o, json_type_object)) {
		snprintf(err, errlen, "a fact that is not a JSON object");
		json_object_put(o);
		return -1;
	}
	if (get_str(o, "kind", true, &kind))
		bad = "kind";
	for (k = 0; !bad && k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (!strcmp(kind, kinds[k]))
			break;
	if (!bad && k == sizeof(kinds) / sizeof(kinds[0]))
		bad = "kind";
	f.kind = (enum hzrig_fact_kind)k;
	if (!bad && (get_str(o, "file", true, &f.at.file) ||
		     get_int(o, "line", &f.at.line) ||
		     get_int(o, "col", &f.at.col) ||
		     get_int(o, "line_end", &f.at.line_end) ||
		     get_int(o, "col_end", &f.at.col_end)))
		bad = "file/line/col/line_end/col_end";
	if (!bad && get_str(o, "func", false, &f.func))
		bad = "func";
	if (!bad && (get_str(o, "expr", f.kind != HZRIG_FACT_WRAPPER, &f.expr) ||
		     get_str(o, "name", f.kind == HZRIG_FACT_WRAPPER ||
			     f.kind == HZRIG_FACT_FLOW ||
			     f.kind == HZRIG_FACT_DECL, &f.name) ||
		     get_str(o, "api", f.kind == HZRIG_FACT_SINK ||
			     f.kind == HZRIG_FACT_WRAPPER, &f.api) ||
		     get_str(o, "wrapper", f.kind == HZRIG_FACT_WSINK,
			     &f.wrapper)))
		bad = "expr/name/api/wrapper";
	if (!bad && f.kind == HZRIG_FACT_WRAPPER && get_int(o, "index", &f.index))
		bad = "index";
	if (!bad && (f.kind == HZRIG_FACT_SINK || f.kind == HZRIG_FACT_WSINK ||
		     f.kind == HZRIG_FACT_FLOW) &&
	    (get_int(o, "call_line", &f.call_line) ||
	     get_int(o, "call_col", &f.call_col)))
		bad = "call_line/call_col";
	free(kind);
	json_object_put(o);
	if (!bad && !(slot = new_fact(facts)))
		bad = "memory";
	if (bad) {
		snprintf(err, errlen, "a fact without a valid '%s'", bad);
		fact_free(&f);
		return -1;
	}
	*slot = f;
	facts->n++;
	return 0;
}

/* Blank out comments in @s (one line, *in_comment carried across lines). */
static void strip_comments(char *s, bool *in_comment)
{
	char *p;

	for (p = s; *p; p++) {
		if (*in_comment) {
			if (p[0] == '*' && p[1] == '/') {
				*in_comment = false;
				*p++ = ' ';
			}
			*p = ' ';
		} else if (p[0] == '/' && p[1] == '*') {
			*in_comment = true;
			*p++ = ' ';
			*p = ' ';
		} else if (p[0] == '/' && p[1] == '/') {
			*p = 0;
			break;
		} else if (*p == '"' || *p == '\'') {
			/* skip literals so a quote holds no comment */
			char q = *p;

			for (p++; *p && *p != q; p++)
				if (*p == '\\' && p[1])
					p++;
			if (!*p)
				break;
		}
	}
}

/*
 * The lines continuing *@body ("\\" at its end) appended to it, each
 * "\\\n" made a blank, in time linear in their length. 1 when the body
 * grew past HZRIG_DEFINE_MAX (its lines are read to the end all the same),
 * *@body NULL when out of memory.
 */
static int join_continued(FILE *f, char **body, char **line, size_t *cap,
			  int *lineno, bool *in_comment)
{
	size_t len = strlen(*body), bcap = len + 1, ll;
	bool too_long = false;
	char *nb;

	while (len >= 2 && (*body)[len - 2] == '\\' && (*body)[len - 1] == '\n' &&
	       getline(line, cap, f) > 0) {
		(*lineno)++;
		strip_comments(*line, in_comment);
		ll = strlen(*line);
		if (too_long || len + ll > HZRIG_DEFINE_MAX) {
			/* only whether it goes on matters now */
			too_long = true;
			len = 0;
		} else {
			(*body)[len - 2] = ' ';
			len--;
		}
		if (len + ll + 1 > bcap) {
			bcap = 2 * (len + ll + 1);
			nb = realloc(*body, bcap);
			if (!nb) {
				free(*body);
				*body = NULL;
				return 0;
			}
			*body = nb;
		}
		memcpy(*body + len, *line, ll + 1);
		len += ll;
	}
	return too_long;
}

/* The reader of #define lines, continuations and comments included. */
int hzrig_facts_read_defines(struct hzrig_facts *facts, const char *path,
			     const char *display, char *why, size_t n)
{
	char *line = NULL, *body = NULL, *name = NULL, dummy[8];
	size_t cap = 0;
	bool in_comment = false;
	int lineno = 0;
	FILE *f;

	if (!why) {
		why = dummy;
		n = sizeof(dummy);
	}
	f = hzrig_in_open(path, HZRIG_MAX_SOURCE, why, n);
	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		struct hzrig_fact *d;
		char *p, *q, *name_end;
		int start = ++lineno, body_col;
		size_t len;

		strip_comments(line, &in_comment);
		for (p = line; *p == ' ' || *p == '\t'; p++)
			;
		if (*p != '#')
			continue;
		for (p++; *p == ' ' || *p == '\t'; p++)
			;
		if (strncmp(p, "define", 6) || !isspace((unsigned char)p[6]))
			continue;
		for (p += 6; *p == ' ' || *p == '\t'; p++)
			;
		for (q = p; isalnum((unsigned char)*q) || *q == '_'; q++)
			;
		if (q == p || *q == '(')
			continue;	/* function-like: not a value */
		name_end = q;
		while (*q == ' ' || *q == '\t')
			q++;
		body_col = (int)(q - line);
		free(name);
		name = strndup(p, (size_t)(name_end - p));
		free(body);
		body = name ? strdup(q) : NULL;
		/* a continued body: joined, its span then unusable */
		if (body && join_continued(f, &body, &line, &cap, &lineno,
					   &in_comment))
			continue;	/* longer than HZRIG_DEFINE_MAX */
		if (!body)
			break;
		len = strlen(body);
		while (len && isspace((unsigned char)body[len - 1]))
			body[--len] = 0;
		if (!len)
			continue;
		d = new_fact(facts);
		if (!d)
			break;
		d->kind = HZRIG_FACT_DEFINE;
		d->at.file = strdup(display);
		d->at.line = start;
		d->at.line_end = lineno;
		d->at.col = body_col;
		d->at.col_end = lineno == start ? body_col + (int)len : -1;
		d->name = name;
		name = NULL;
		d->expr = strdup(body);
		d->func = strdup("");
		if (!d->at.file || !d->name || !d->expr || !d->func) {
			fact_free(d);
			break;
		}
		facts->n++;
	}
	free(name);
	free(body);
	free(line);
	if (ferror(f) || !feof(f)) {
		fclose(f);
		errno = errno ? errno : ENOMEM;
		return -1;
	}
	fclose(f);
	return 0;
}
