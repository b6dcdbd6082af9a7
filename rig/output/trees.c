// SPDX-License-Identifier: GPL-2.0
/*
 * One HZ on two kernel trees, case by case: the pairing and the upgrade
 * rules (trees.h, docs/history.md "Across kernel trees").
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output/trees.h"
#include "history/db.h"
#include "plan/plan.h"
#include "lib/util.h"

static const char *const upg_names[HZRIG_UPG_KINDS] = {
	"window", "median", "tail", "inside", "status",
};

const char *hzrig_upg_name(unsigned int i)
{
	return i < HZRIG_UPG_KINDS ? upg_names[i] : NULL;
}

void hzrig_upg_names(unsigned int upg, char *buf, size_t len)
{
	size_t i, n = 0;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < HZRIG_UPG_KINDS; i++) {
		int r;

		if (!(upg & (1u << i)) || n >= len)
			continue;
		r = snprintf(buf + n, len - n, "%s%s", n ? "," : "",
			     upg_names[i]);
		if (r < 0)
			break;
		n += (size_t)r;
	}
}

static bool same_window(const struct hzrig_window *a,
			const struct hzrig_window *b)
{
	return a->forever == b->forever && a->lo_ns == b->lo_ns &&
	       a->hi_ns == b->hi_ns;
}

/* The newer window lets a timed-out call end later or over a wider span. */
static bool wider_window(const struct hzrig_window *from,
			 const struct hzrig_window *to)
{
	if (to->forever)
		return !from->forever;
	if (from->forever)
		return false;
	return to->hi_ns - to->lo_ns > from->hi_ns - from->lo_ns ||
	       to->hi_ns > from->hi_ns;
}

static void add_detail(struct hzrig_tree_case *tc, const char *s)
{
	size_t n = strlen(tc->detail);

	snprintf(tc->detail + n, sizeof(tc->detail) - n, "%s%s",
		 n ? "; " : "", s);
}

static void window_text(char *buf, size_t len, const struct hzrig_window *w)
{
	if (w->forever)
		snprintf(buf, len, "no timer");
	else
		snprintf(buf, len, "(%.3f, %.3f] ms", w->lo_ns / 1e6,
			 w->hi_ns / 1e6);
}

int hzrig_tree_case_judge(const struct hzrig_case_stats *from,
			  const struct hzrig_tree_model *tf,
			  const struct hzrig_case_stats *to,
			  const struct hzrig_tree_model *tt, int hz,
			  const struct hzrig_regress_result *regress,
			  struct hzrig_tree_case *tc)
{
	bool killable = !strcmp(from->transfer, "bulk-in-killable");
	int path = hzrig_path_parse(from->path);
	char a[64], b[64], line[160];
	size_t i;

	memset(tc, 0, sizeof(*tc));
	tc->from = from;
	tc->to = to;
	if (!tf || !tt || path < 0 ||
	    hzrig_tree_path_window(tf, hz, (unsigned int)path,
				   (int)from->timeout_arg, killable, &tc->wfrom) ||
	    hzrig_tree_path_window(tt, hz, (unsigned int)path,
				   (int)to->timeout_arg, killable, &tc->wto))
		return -1;
	tc->same_window = same_window(&tc->wfrom, &tc->wto);
	if (!tc->same_window && wider_window(&tc->wfrom, &tc->wto)) {
		tc->upg |= HZRIG_UPG_WINDOW;
		window_text(a, sizeof(a), &tc->wfrom);
		window_text(b, sizeof(b), &tc->wto);
		snprintf(line, sizeof(line), "window %s -> %s", a, b);
		add_detail(tc, line);
	}
	for (i = 0; regress && i < regress->n; i++) {
		const struct hzrig_regression *r = &regress->r[i];
		unsigned int f = 0;

		if (strcmp(r->case_key, to->key))
			continue;
		switch (r->kind) {
		case HZRIG_REG_MEDIAN:
			f = r->new_value > r->old_value ? HZRIG_UPG_MEDIAN : 0;
			break;
		case HZRIG_REG_P95:
			f = r->new_value > r->old_value ? HZRIG_UPG_TAIL : 0;
			break;
		case HZRIG_REG_INSIDE:
			f = HZRIG_UPG_INSIDE;
			break;
		case HZRIG_REG_STATUS:
			f = HZRIG_UPG_STATUS;
			break;
		}
		if (!f)
			continue;
		tc->upg |= f;
		add_detail(tc, r->detail);
	}
	return 0;
}

/* Is line @a older than line @b? Both from hzrig_release_line_name(). */
static bool line_older(const char *a, const char *b)
{
	unsigned long am, an, bm, bn;

	hzrig_release_line(a, &am, &an);
	hzrig_release_line(b, &bm, &bn);
	return am < bm || (am == bm && an < bn);
}

struct partner {
	char run_id[HZRIG_RUN_ID_MAX];
	char variant[HZRIG_VARIANT_MAX];
	char line[16];
};

static const char *col(sqlite3_stmt *st, int c)
{
	const unsigned char *s = sqlite3_column_text(st, c);

	return s ? (const char *)s : "";
}

/*
 * The newest variant run per other line for variant @v of run @run_id:
 * same HZ, plan, fragments and patches; the run itself first.
 */
static int find_partners(sqlite3 *db, const char *run_id,
			 const struct hzrig_variant *v, const char *vline,
			 struct partner **out, size_t *nout, FILE *err)
{
	static const char sql[] =
		"SELECT v.run_id, v.variant, v.release FROM variant_runs v"
		" JOIN runs r ON r.run_id = v.run_id"
		" WHERE v.hz = ?1 AND coalesce(v.fragments, '') = ?2"
		" AND coalesce(v.patches, '') = ?3"
		" AND coalesce(r.plan, '') = (SELECT coalesce(plan, '') FROM runs"
		"  WHERE run_id = ?4)"
		" ORDER BY v.run_id = ?4 DESC, v.run_id DESC, v.variant";
	struct partner *p = NULL;
	size_t n = 0, cap = 0, i;
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(err, "hzrig: database: %s\n", sqlite3_errmsg(db));
		return -1;
	}
	sqlite3_bind_int(st, 1, v->hz);
	sqlite3_bind_text(st, 2, v->fragments ? v->fragments : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, v->patches ? v->patches : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, run_id, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char line[16];
		struct partner *np;

		if (!hzrig_release_line_name(col(st, 2), line, sizeof(line)) ||
		    !strcmp(line, vline))
			continue;
		for (i = 0; i < n; i++)
			if (!strcmp(p[i].line, line))
				break;
		if (i < n)
			continue;
		np = hzrig_grow(p, n, &cap, 4, sizeof(*p));
		if (!np) {
			free(p);
			sqlite3_finalize(st);
			fprintf(err, "hzrig: out of memory\n");
			return -1;
		}
		p = np;
		snprintf(p[n].run_id, sizeof(p[n].run_id), "%s", col(st, 0));
		snprintf(p[n].variant, sizeof(p[n].variant), "%s", col(st, 1));
		snprintf(p[n].line, sizeof(p[n].line), "%s", line);
		n++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(p);
		fprintf(err, "hzrig: database: %s\n", sqlite3_errmsg(db));
		return -1;
	}
	*out = p;
	*nout = n;
	return 0;
}

/* Load @variant of @run_id into @run; the variant, or NULL. */
static const struct hzrig_variant *load_variant(sqlite3 *db, const char *run_id,
						const char *variant,
						struct hzrig_run *run, FILE *err)
{
	size_t i;

	if (hzrig_db_load_run(db, run_id, run, err))
		return NULL;
	i = hzrig_run_find_variant(run, variant);
	if (i == HZRIG_NO_VARIANT) {
		fprintf(err, "hzrig: run %s has no variant %s\n", run_id, variant);
		return NULL;
	}
	return &run->v[i];
}

static bool pair_known(const struct hzrig_trees *t, const char *from_run,
		       const char *from, const char *to_run, const char *to)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		const struct hzrig_tree_pair *p = &t->p[i];

		if (!strcmp(p->from_run.id, from_run) &&
		    !strcmp(p->from->name, from) &&
		    !strcmp(p->to_run.id, to_run) && !strcmp(p->to->name, to))
			return true;
	}
	return false;
}

/* Every case of the pair's "to" side that the "from" side has too. */
static int compare_pair(struct hzrig_tree_pair *p, FILE *err)
{
	const struct hzrig_tree_model *tf, *tt;
	struct hzrig_regress_result res = { 0 };
	size_t i;
	int ret = -1;

	tf = hzrig_tree_model_for(p->from->release, NULL);
	tt = hzrig_tree_model_for(p->to->release, NULL);
	if (!tf || !tt) {
		fprintf(err, "hzrig: no model for release '%s' (%s of run %s)\n",
			tf ? p->to->release : p->from->release,
			tf ? p->to->name : p->from->name,
			tf ? p->to_run.id : p->from_run.id);
		return -1;
	}
	p->c = calloc(p->to->ncases + 1, sizeof(*p->c));
	if (!p->c || hzrig_regress(p->from, p->to, -1, &res)) {
		fprintf(err, "hzrig: out of memory\n");
		goto out;
	}
	p->only_from = res.only_old;
	p->only_to = res.only_new;
	for (i = 0; i < p->to->ncases; i++) {
		const struct hzrig_case_stats *c = &p->to->cases[i];
		const struct hzrig_case_stats *o = hzrig_variant_case(p->from, c->key);
		struct hzrig_tree_case *tc = &p->c[p->nc];

		if (!o)
			continue;
		if (hzrig_tree_case_judge(o, tf, c, tt, p->hz, &res, tc)) {
			fprintf(err, "hzrig: %s: path '%s' or HZ=%d has no model\n",
				c->key, c->path, p->hz);
			goto out;
		}
		p->nc++;
		p->same_windows += tc->same_window;
		p->regressions += tc->upg != 0;
	}
	ret = 0;
out:
	hzrig_regress_free(&res);
	return ret;
}

static int add_pair(sqlite3 *db, struct hzrig_trees *t, int hz,
		    const char *from_run, const char *from, const char *from_line,
		    const char *to_run, const char *to, const char *to_line,
		    FILE *err)
{
	struct hzrig_tree_pair *np, *p;

	if (pair_known(t, from_run, from, to_run, to))
		return 0;
	np = hzrig_grow(t->p, t->n, &t->cap, 4, sizeof(*t->p));
	if (!np) {
		fprintf(err, "hzrig: out of memory\n");
		return -1;
	}
	t->p = np;
	p = &t->p[t->n++];
	memset(p, 0, sizeof(*p));
	p->hz = hz;
	snprintf(p->from_line, sizeof(p->from_line), "%s", from_line);
	snprintf(p->to_line, sizeof(p->to_line), "%s", to_line);
	p->from = load_variant(db, from_run, from, &p->from_run, err);
	p->to = load_variant(db, to_run, to, &p->to_run, err);
	if (!p->from || !p->to)
		return -1;
	return compare_pair(p, err);
}

static int cmp_pair(const void *a, const void *b)
{
	const struct hzrig_tree_pair *x = a, *y = b;
	int c;

	if (x->hz != y->hz)
		return x->hz < y->hz ? -1 : 1;
	if (strcmp(x->from_line, y->from_line))
		return line_older(x->from_line, y->from_line) ? -1 : 1;
	if (strcmp(x->to_line, y->to_line))
		return line_older(x->to_line, y->to_line) ? -1 : 1;
	c = strcmp(x->from->name, y->from->name);
	return c ? c : strcmp(x->to->name, y->to->name);
}

int hzrig_trees_load(sqlite3 *db, const char *run_id, struct hzrig_trees *t,
		     FILE *err)
{
	struct hzrig_run run;
	size_t i, j;
	int ret = -1;

	memset(t, 0, sizeof(*t));
	snprintf(t->run_id, sizeof(t->run_id), "%s", run_id);
	if (hzrig_db_load_run(db, run_id, &run, err)) {
		hzrig_run_free(&run);
		return -1;
	}
	for (i = 0; i < run.nv; i++) {
		const struct hzrig_variant *v = &run.v[i];
		struct partner *pt = NULL;
		size_t np = 0;
		char line[16];

		if (!hzrig_release_line_name(v->release, line, sizeof(line))) {
			t->unpaired++;
			continue;
		}
		if (find_partners(db, run_id, v, line, &pt, &np, err))
			goto out;
		if (!np)
			t->unpaired++;
		for (j = 0; j < np; j++) {
			int r;

			if (line_older(line, pt[j].line))
				r = add_pair(db, t, v->hz, run_id, v->name, line,
					     pt[j].run_id, pt[j].variant,
					     pt[j].line, err);
			else
				r = add_pair(db, t, v->hz, pt[j].run_id,
					     pt[j].variant, pt[j].line, run_id,
					     v->name, line, err);
			if (r) {
				free(pt);
				goto out;
			}
		}
		free(pt);
	}
	if (t->n)
		qsort(t->p, t->n, sizeof(*t->p), cmp_pair);
	ret = 0;
out:
	hzrig_run_free(&run);
	return ret;
}

void hzrig_trees_free(struct hzrig_trees *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		free(t->p[i].c);
		hzrig_run_free(&t->p[i].from_run);
		hzrig_run_free(&t->p[i].to_run);
	}
	free(t->p);
	memset(t, 0, sizeof(*t));
}
