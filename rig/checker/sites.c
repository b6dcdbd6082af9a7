// SPDX-License-Identifier: GPL-2.0
/*
 * From the facts of one file to its findings: every timeout argument of a
 * synchronous USB call (and every argument a caller passes a wrapper in
 * that place) is evaluated at each HZ, its names resolved through the
 * locals that reach the call, the file's constants and the macros of the
 * file and its directory's headers. Those HZ, jiffies or x_to_jiffies()
 * reach are findings. Rules and limits: docs/checker.md.
 */
#include <stdlib.h>
#include <string.h>

#include "checker/checker.h"
#include "lib/util.h"

const int hzrig_check_hz[HZRIG_CHECK_NHZ] = { 100, 250, 300, 1000 };

struct look {
	const struct hzrig_facts *facts;
	const struct hzrig_fact *call;	/* the sink or wsink */
	const struct hzrig_fact *pick;	/* the flow to take for its name */
};

static bool same_call(const struct hzrig_fact *a, const struct hzrig_fact *b)
{
	return a->call_line == b->call_line && a->call_col == b->call_col &&
	       !strcmp(a->at.file, b->at.file);
}

/* The name resolution order (locals, file scope, macros) in one place. */
static const char *lookup(void *ctx, const char *name, int *id)
{
	const struct look *l = ctx;
	const struct hzrig_facts *fs = l->facts;
	const struct hzrig_fact *f;
	size_t i;
	int pass;

	if (l->pick && !strcmp(l->pick->name, name)) {
		*id = (int)(l->pick - fs->v);
		return l->pick->expr;
	}
	for (i = 0; i < fs->n; i++) {
		f = &fs->v[i];
		if (f->kind == HZRIG_FACT_FLOW && !strcmp(f->name, name) &&
		    same_call(f, l->call)) {
			*id = (int)i;
			return f->expr;
		}
	}
	/* file scope: coccinelle names a top-level declaration after itself */
	for (i = 0; i < fs->n; i++) {
		f = &fs->v[i];
		if (f->kind == HZRIG_FACT_DECL && !strcmp(f->name, name) &&
		    !strcmp(f->func, name) &&
		    !strcmp(f->at.file, l->call->at.file)) {
			*id = (int)i;
			return f->expr;
		}
	}
	/* macros: the call's own file first, then the headers beside it */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < fs->n; i++) {
			f = &fs->v[i];
			if (f->kind != HZRIG_FACT_DEFINE || strcmp(f->name, name) ||
			    (strcmp(f->at.file, l->call->at.file) == 0) !=
			    (pass == 0))
				continue;
			*id = (int)i;
			return f->expr;
		}
	}
	return NULL;
}

static const struct hzrig_fact *find_wrapper(const struct hzrig_facts *fs,
					     const char *name)
{
	size_t i;

	for (i = 0; i < fs->n; i++)
		if (fs->v[i].kind == HZRIG_FACT_WRAPPER &&
		    !strcmp(fs->v[i].name, name))
			return &fs->v[i];
	return NULL;
}

static void site_free(struct hzrig_site *s)
{
	free(s->file);
	free(s->func);
	free(s->api);
	free(s->via);
	free(s->expr);
	free(s->expr_at.file);
	free(s->origin_expr);
}

void hzrig_sites_free(struct hzrig_sites *sites)
{
	size_t i;

	for (i = 0; i < sites->n; i++)
		site_free(&sites->v[i]);
	free(sites->v);
	memset(sites, 0, sizeof(*sites));
}

/*
 * Evaluate @call's argument with @pick for its variable: 1 and a site if
 * HZ-based, else 0; -1 when out of memory.
 */
static int evaluate(const struct hzrig_facts *fs, const struct hzrig_fact *call,
		    const struct hzrig_fact *wrap, const struct hzrig_fact *pick,
		    struct hzrig_sites *sites)
{
	struct look l = { .facts = fs, .call = call, .pick = pick };
	struct hzrig_expr_val v[HZRIG_CHECK_NHZ];
	struct hzrig_site *s;
	int i;

	for (i = 0; i < HZRIG_CHECK_NHZ; i++)
		hzrig_expr_eval(call->expr, hzrig_check_hz[i], lookup, &l,
				&v[i], NULL, 0);
	if (!v[0].hz_based)
		return 0;	/* not a site */
	s = hzrig_grow(sites->v, sites->n, &sites->cap, 16, sizeof(*s));
	if (!s)
		return -1;
	sites->v = s;
	s = &s[sites->n];
	memset(s, 0, sizeof(*s));
	s->file = strdup(call->at.file);
	s->line = call->call_line;
	s->func = strdup(call->func);
	s->api = strdup(wrap ? wrap->api : call->api);
	s->via = wrap ? strdup(wrap->name) : NULL;
	s->via_line = wrap ? wrap->at.line : 0;
	s->expr = strdup(call->expr);
	s->expr_at = call->at;
	s->expr_at.file = strdup(call->at.file);
	s->origin = v[0].origin >= 0 ? &fs->v[v[0].origin] : NULL;
	s->origin_expr = strdup(s->origin ? s->origin->expr : call->expr);
	s->killable = !strcmp(s->api, "usb_bulk_msg_killable");
	s->runtime = v[0].runtime;
	s->known = true;
	for (i = 0; i < HZRIG_CHECK_NHZ; i++) {
		s->known = s->known && v[i].known;
		s->value[i] = v[i].v;
	}
	if (!s->file || !s->func || !s->api || (wrap && !s->via) ||
	    !s->expr || !s->expr_at.file || !s->origin_expr) {
		site_free(s);
		return -1;
	}
	sites->n++;
	return 1;
}

int hzrig_sites_resolve(const struct hzrig_facts *facts,
			struct hzrig_sites *sites)
{
	const struct hzrig_fact *call, *wrap, *f;
	size_t i, j, first;
	int rc, flows, sites_added;

	for (i = 0; i < facts->n; i++) {
		call = &facts->v[i];
		wrap = NULL;
		if (call->kind == HZRIG_FACT_WSINK) {
			wrap = find_wrapper(facts, call->wrapper);
			if (!wrap)
				continue;
		} else if (call->kind != HZRIG_FACT_SINK) {
			continue;
		}
		/* each local that may reach the call, in turn */
		first = sites->n;
		flows = sites_added = 0;
		for (j = 0; j < facts->n; j++) {
			f = &facts->v[j];
			if (f->kind != HZRIG_FACT_FLOW || !same_call(f, call))
				continue;
			flows++;
			rc = evaluate(facts, call, wrap, f, sites);
			if (rc < 0)
				return -1;
			sites_added += rc;
		}
		if (!flows && evaluate(facts, call, wrap, NULL, sites) < 0)
			return -1;
		/* jiffies on one path, something else on another */
		for (j = first; sites_added && sites_added < flows &&
		     j < sites->n; j++)
			sites->v[j].mixed = true;
	}
	return 0;
}

static int origin_line(const struct hzrig_site *s)
{
	return s->origin ? s->origin->at.line : s->expr_at.line;
}

static int site_cmp(const void *pa, const void *pb)
{
	const struct hzrig_site *a = pa, *b = pb;
	int c = strcmp(a->file, b->file);

	if (c)
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	if (origin_line(a) != origin_line(b))
		return origin_line(a) < origin_line(b) ? -1 : 1;
	return strcmp(a->origin_expr, b->origin_expr);
}

void hzrig_sites_sort(struct hzrig_sites *sites)
{
	size_t i, n = 0;

	if (!sites->n)
		return;
	qsort(sites->v, sites->n, sizeof(*sites->v), site_cmp);
	for (i = 1; i < sites->n; i++) {
		if (!site_cmp(&sites->v[n], &sites->v[i]))
			site_free(&sites->v[i]);
		else
			sites->v[++n] = sites->v[i];
	}
	sites->n = n + 1;
}

bool hzrig_site_meant_ms(const struct hzrig_site *s, int64_t *ms)
{
	int i;

	for (i = 0; i < HZRIG_CHECK_NHZ; i++) {
		if (hzrig_check_hz[i] == 1000 && s->known) {
			*ms = s->value[i];
			return true;
		}
	}
	return false;
}
