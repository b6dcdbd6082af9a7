// SPDX-License-Identifier: GPL-2.0
/*
 * Per-case statistics of a loaded run: case keys, nearest-rank
 * percentiles, the variants in HZ order, each case's figures, windows and
 * statuses (runs.h, docs/history.md).
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
#include "lib/util.h"

int hzrig_case_key(char *buf, size_t len, const char *path,
		   const char *transfer, const char *behaviour, const char *mode,
		   int64_t timeout_ms, int64_t delay_us, int64_t length)
{
	/* The kernel path's keys are those of runs before paths existed. */
	bool kernel = !strcmp(hzrig_run_path(path), "kernel");
	size_t n;
	int r;

	if (!len)
		return -1;
	r = snprintf(buf, len, "%s%s%s %s %s T=%" PRId64, kernel ? "" : path,
		     kernel ? "" : " ", transfer, behaviour, mode, timeout_ms);
	if (r < 0 || (size_t)r >= len)
		goto too_long;
	n = (size_t)r;
	if (!strcmp(behaviour, "delay") && delay_us >= 0) {
		r = snprintf(buf + n, len - n, " D=%" PRId64 "us", delay_us);
		if (r < 0 || (size_t)r >= len - n)
			goto too_long;
		n += (size_t)r;
	}
	if (length >= 0 && length != HZRIG_DEFAULT_LENGTH) {
		r = snprintf(buf + n, len - n, " len=%" PRId64, length);
		if (r < 0 || (size_t)r >= len - n)
			goto too_long;
		n += (size_t)r;
	}
	return (int)n;
too_long:
	buf[0] = '\0';
	return -1;
}

int hzrig_run_id_time(const char *id, char *buf, size_t len)
{
	struct tm tm = { 0 }, check;
	const char *end;
	time_t t;

	if (strlen(id) != 16)
		return -1;
	end = strptime(id, "%Y%m%dT%H%M%SZ", &tm);
	if (!end || *end)
		return -1;
	/* strptime accepts 20261340: a round trip through timegm refuses it. */
	check = tm;
	t = timegm(&check);
	if (t == (time_t)-1 || check.tm_mday != tm.tm_mday ||
	    check.tm_mon != tm.tm_mon || check.tm_hour != tm.tm_hour)
		return -1;
	if (!strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		return -1;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Case statistics */

static int cmp_variant(const void *a, const void *b)
{
	const struct hzrig_variant *x = a, *y = b;

	if (x->hz != y->hz)
		return x->hz < y->hz ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_status(const void *a, const void *b)
{
	const struct hzrig_status_count *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return x->status < y->status ? -1 : x->status > y->status;
}

/* Sort the variants, keeping the samples pointing at theirs. */
int hzrig_run_sort(struct hzrig_run *run)
{
	struct hzrig_variant *sorted;
	size_t *map, i;

	if (run->nv < 2)
		return 0;
	sorted = malloc(run->nv * sizeof(*sorted));
	map = malloc(run->nv * sizeof(*map));
	if (!sorted || !map) {
		free(sorted);
		free(map);
		return -1;
	}
	memcpy(sorted, run->v, run->nv * sizeof(*sorted));
	qsort(sorted, run->nv, sizeof(*sorted), cmp_variant);
	/* Names are unique within a run: find each old slot's new place. */
	for (i = 0; i < run->nv; i++) {
		size_t j;

		for (j = 0; j < run->nv; j++)
			if (!strcmp(run->v[i].name, sorted[j].name))
				break;
		map[i] = j;
	}
	for (i = 0; i < run->ns; i++)
		run->s[i].variant = map[run->s[i].variant];
	memcpy(run->v, sorted, run->nv * sizeof(*sorted));
	free(sorted);
	free(map);
	return 0;
}

int hzrig_sample_key(const struct hzrig_run_sample *s, char *buf, size_t len)
{
	char path[2 * HZRIG_FIELD_MAX];

	/* an in-tree driver's call: "usbmon/ipheth ctrl-in nak ..." */
	snprintf(path, sizeof(path), "%s%s%s", s->path, s->driver[0] ? "/" : "",
		 s->driver);
	return hzrig_case_key(buf, len, path, s->transfer, s->behaviour,
			      s->mode, s->timeout_ms, s->delay_us, s->length);
}

static int sample_key(const struct hzrig_run_sample *s, char *buf, size_t len)
{
	return hzrig_sample_key(s, buf, len);
}

/* Fill @c from its samples @p[0..n), sorted by plan position. */
static int case_compute(struct hzrig_case_stats *c,
			const struct hzrig_run_sample *const *p, size_t n,
			const struct hzrig_variant *v)
{
	struct hzrig_status_count exp[8];
	size_t nexp = 0, i, j;
	int64_t *e;

	e = malloc(n * sizeof(*e));
	c->status = calloc(n, sizeof(*c->status));
	if (!e || !c->status) {
		free(e);
		return -1;
	}
	c->n = n;
	c->window_lo_ns = c->window_hi_ns = HZRIG_ABSENT;
	c->allowance_ns = 0;
	for (i = 0; i < n; i++) {
		const struct hzrig_run_sample *s = p[i];
		int64_t a = s->allowance_ns != HZRIG_ABSENT ? s->allowance_ns :
			    v->allowance_ns != HZRIG_ABSENT ? v->allowance_ns : 0;

		e[i] = s->elapsed_ns;
		c->inside += !strcmp(s->verdict, "inside");
		if (a > c->allowance_ns)
			c->allowance_ns = a;
		/* The model gives every sample of a case the same window. */
		if (c->window_lo_ns == HZRIG_ABSENT &&
		    s->window_lo_ns != HZRIG_ABSENT) {
			c->window_lo_ns = s->window_lo_ns;
			c->window_hi_ns = s->window_hi_ns;
		}
		for (j = 0; j < c->nstatus; j++)
			if (c->status[j].status == s->status)
				break;
		if (j == c->nstatus)
			c->status[c->nstatus++].status = s->status;
		c->status[j].n++;
		if (s->expected_status != HZRIG_ABSENT) {
			for (j = 0; j < nexp; j++)
				if (exp[j].status == s->expected_status)
					break;
			if (j == nexp && nexp < 8)
				exp[nexp++] = (struct hzrig_status_count){
					s->expected_status, 0 };
			if (j < nexp)
				exp[j].n++;
		}
	}
	qsort(e, n, sizeof(*e), hzrig_cmp_i64);
	c->min_ns = e[0];
	c->p5_ns = hzrig_percentile(e, n, 5);
	c->median_ns = hzrig_percentile(e, n, 50);
	c->p95_ns = hzrig_percentile(e, n, 95);
	c->max_ns = e[n - 1];
	free(e);

	qsort(exp, nexp, sizeof(*exp), cmp_status);
	c->expected_status = nexp ? exp[0].status : HZRIG_ABSENT;
	/*
	 * Most frequent first; equal counts by value. The majority is the
	 * first, except that a tie including the expected status goes to it:
	 * a 1:1 split of a two-repetition case then reads as expected rather
	 * than as whichever errno sorts lower.
	 */
	qsort(c->status, c->nstatus, sizeof(*c->status), cmp_status);
	c->majority_status = c->status[0].status;
	for (j = 1; j < c->nstatus && c->status[j].n == c->status[0].n; j++)
		if (c->status[j].status == c->expected_status)
			c->majority_status = c->expected_status;
	return 0;
}

static int variant_stats(struct hzrig_run *run, size_t vi)
{
	struct hzrig_variant *v = &run->v[vi];
	const struct hzrig_run_sample **p;
	size_t *caseof, n = 0, i, ncap = 0;
	char (*keys)[HZRIG_CASE_KEY_MAX] = NULL;
	int ret = -1;

	hzrig_variant_free_cases(v);
	v->nsamples = v->ninside = 0;
	p = malloc((run->ns + 1) * sizeof(*p));
	caseof = malloc((run->ns + 1) * sizeof(*caseof));
	if (!p || !caseof)
		goto out;
	for (i = 0; i < run->ns; i++)
		if (run->s[i].variant == vi)
			p[n++] = &run->s[i];
	qsort(p, n, sizeof(*p), hzrig_cmp_sample_pos);
	v->nsamples = n;

	/*
	 * Key every sample; a key seen before (the same case listed twice in
	 * a plan) joins the earlier case, so cases stay in plan order.
	 */
	for (i = 0; i < n; i++) {
		char key[HZRIG_CASE_KEY_MAX];
		size_t c;

		v->ninside += !strcmp(p[i]->verdict, "inside");
		if (sample_key(p[i], key, sizeof(key)) < 0)
			snprintf(key, sizeof(key), "?");
		for (c = v->ncases; c-- > 0;)
			if (!strcmp(keys[c], key))
				break;
		if (c == (size_t)-1) {
			void *nk = hzrig_grow(keys, v->ncases, &ncap, 32,
					      sizeof(*keys));

			if (!nk)
				goto out;
			keys = nk;
			c = v->ncases++;
			snprintf(keys[c], sizeof(keys[c]), "%s", key);
		}
		caseof[i] = c;
	}
	v->cases = calloc(v->ncases + 1, sizeof(*v->cases));
	if (!v->cases) {
		v->ncases = 0;
		goto out;
	}
	{
		const struct hzrig_run_sample **q = malloc((n + 1) * sizeof(*q));
		size_t c;

		if (!q)
			goto out;
		for (c = 0; c < v->ncases; c++) {
			struct hzrig_case_stats *cs = &v->cases[c];
			size_t m = 0;

			for (i = 0; i < n; i++)
				if (caseof[i] == c)
					q[m++] = p[i];
			snprintf(cs->key, sizeof(cs->key), "%s", keys[c]);
			cs->case_idx = q[0]->case_idx;
			snprintf(cs->path, sizeof(cs->path), "%s",
				 hzrig_run_path(q[0]->path));
			snprintf(cs->transfer, sizeof(cs->transfer), "%s",
				 q[0]->transfer);
			snprintf(cs->behaviour, sizeof(cs->behaviour), "%s",
				 q[0]->behaviour);
			snprintf(cs->mode, sizeof(cs->mode), "%s", q[0]->mode);
			cs->timeout_ms = q[0]->timeout_ms;
			cs->timeout_arg = q[0]->timeout_arg;
			cs->delay_us = q[0]->delay_us;
			cs->length = q[0]->length;
			if (case_compute(cs, q, m, v)) {
				free(q);
				goto out;
			}
		}
		free(q);
	}
	ret = 0;
out:
	free(keys);
	free(p);
	free(caseof);
	return ret;
}

int hzrig_run_stats(struct hzrig_run *run)
{
	size_t i;

	if (hzrig_run_sort(run))
		return -1;
	for (i = 0; i < run->nv; i++)
		if (variant_stats(run, i))
			return -1;
	return 0;
}

const struct hzrig_case_stats *hzrig_variant_case(const struct hzrig_variant *v,
						  const char *key)
{
	size_t i;

	for (i = 0; i < v->ncases; i++)
		if (!strcmp(v->cases[i].key, key))
			return &v->cases[i];
	return NULL;
}

