// SPDX-License-Identifier: GPL-2.0
/*
 * The dashboard's data: the chosen run's variants and samples, taken from
 * the history's view (history/view.h), every string interned.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "model/model.h"
#include "output/dashboard/dash.h"
#include "runs/runs.h"

/* ------------------------------------------------------------------------
 * What the page is drawn from.
 */

uint64_t dash_hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static int strtab_grow(struct strtab *t)
{
	size_t ns = t->nslot ? t->nslot * 2 : 256, i, j;
	size_t *slot = calloc(ns, sizeof(*slot));

	if (!slot)
		return -1;
	for (i = 1; i < t->n; i++) {
		j = dash_hash_str(t->s[i]) & (ns - 1);
		while (slot[j])
			j = (j + 1) & (ns - 1);
		slot[j] = i + 1;
	}
	free(t->slot);
	t->slot = slot;
	t->nslot = ns;
	return 0;
}

/* The index of @s (NULL: NO_STR); (size_t)-1 when out of memory. */
static size_t intern(struct strtab *t, const char *s)
{
	size_t j;
	char *c;

	if (!s)
		return NO_STR;
	if (!t->n) {
		t->s = calloc(16, sizeof(*t->s));
		if (!t->s)
			return (size_t)-1;
		t->cap = 16;
		t->n = 1;	/* NO_STR */
	}
	if ((t->n + 1) * 2 > t->nslot && strtab_grow(t))
		return (size_t)-1;
	j = dash_hash_str(s) & (t->nslot - 1);
	for (; t->slot[j]; j = (j + 1) & (t->nslot - 1))
		if (!strcmp(t->s[t->slot[j] - 1], s))
			return t->slot[j] - 1;
	if (t->n == t->cap) {
		char **ns = realloc(t->s, t->cap * 2 * sizeof(*ns));

		if (!ns)
			return (size_t)-1;
		t->s = ns;
		t->cap *= 2;
	}
	c = strdup(s);
	if (!c)
		return (size_t)-1;
	t->s[t->n] = c;
	t->slot[j] = t->n + 1;
	return t->n++;
}

void dash_strtab_free(struct strtab *t)
{
	size_t i;

	for (i = 1; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

/* The string of index @i, "" for NO_STR. */
const char *dash_S(const struct dash *d, size_t i)
{
	return i == NO_STR || i >= d->st.n ? "" : d->st.s[i];
}

/* Out of memory half-way: say so, and no page. */
void dash_out_of_memory(struct dash *d)
{
	fprintf(d->err, "hzrig dashboard: out of memory\n");
	d->failed = true;
}

size_t dash_intern(struct dash *d, const char *s)
{
	size_t i = intern(&d->st, s);

	if (i == (size_t)-1) {
		dash_out_of_memory(d);
		return NO_STR;
	}
	return i;
}

/* The samples in the history's order: variant (by HZ, name), case, rep. */
static int cmp_dsample(const void *a, const void *b)
{
	const struct dsample *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	if (x->s->case_idx != y->s->case_idx)
		return x->s->case_idx < y->s->case_idx ? -1 : 1;
	return x->s->rep < y->s->rep ? -1 : x->s->rep > y->s->rep;
}

/* One loaded sample as the page draws it. */
static void dsample_of(struct dash *d, const struct hzrig_run_sample *s,
		       struct dsample *x)
{
	char key[HZRIG_CASE_KEY_MAX];

	x->s = s;
	x->v = s->variant;
	x->key = dash_intern(d, hzrig_sample_key(s, key, sizeof(key)) < 0 ?
			     "" : key);
	x->transfer = dash_intern(d, s->transfer);
	x->behaviour = dash_intern(d, s->behaviour);
	x->mode = dash_intern(d, s->mode);
	x->verdict = dash_intern(d, s->verdict);
	/* samples from before the paths were the kernel driver's */
	x->path = dash_intern(d, hzrig_run_path(s->path));
}

int dash_load_samples(struct dash *d)
{
	const struct hzrig_run *run = &d->cur->run;
	size_t i;

	d->v = calloc(run->nv + 1, sizeof(*d->v));
	d->s = calloc(run->ns + 1, sizeof(*d->s));
	if (!d->v || !d->s) {
		dash_out_of_memory(d);
		return -1;
	}
	for (i = 0; i < run->nv; i++) {
		d->v[i].lv = &run->v[i];
		d->v[i].name = dash_intern(d, run->v[i].name);
	}
	d->nv = run->nv;
	for (i = 0; i < run->ns; i++) {
		struct dsample *x = &d->s[d->ns++];

		dsample_of(d, &run->s[i], x);
	}
	qsort(d->s, d->ns, sizeof(*d->s), cmp_dsample);
	return d->failed ? -1 : 0;
}

bool dash_is(const struct dash *d, size_t i, const char *s)
{
	return !strcmp(dash_S(d, i), s);
}

bool dash_kernel(const struct dash *d, const struct dsample *x)
{
	return dash_is(d, x->path, "kernel");
}

bool dash_inside(const struct dash *d, const struct dsample *x)
{
	return dash_is(d, x->verdict, "inside");
}
