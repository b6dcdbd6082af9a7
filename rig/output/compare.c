// SPDX-License-Identifier: GPL-2.0
/*
 * hzrig compare: one run's cases side by side across its variants, from a
 * run directory or from the history database. See docs/history.md.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/json.h"
#include "history/db.h"
#include "output/compare.h"
#include "output/trees.h"
#include "runs/runs.h"
#include "lib/table.h"
#include "lib/opts.h"

#define DEFAULT_RUN_DIR	"results/latest"

static void compare_usage(FILE *f)
{
	fputs("usage: hzrig compare [--format table|csv|json] [RUN_DIR]\n"
	      "       hzrig compare [--format table|csv|json] [--db FILE] --run ID\n"
	      "Prints every case of one run side by side across its variants:\n"
	      "the model's window, the observed p5/median/p95/max in ms\n"
	      "(nearest-rank percentiles), the statuses seen (most frequent\n"
	      "first) and how many samples fell inside the window.\n"
	      "RUN_DIR defaults to " DEFAULT_RUN_DIR "; with --run the run comes\n"
	      "from the history database (--db, default " HZRIG_DB_DEFAULT "),\n"
	      "--db alone takes its newest run.\n"
	      "       hzrig compare --trees [--format table|json] [--db FILE] [--run ID]\n"
	      "With --trees: each variant of the run (default the newest in the\n"
	      "database) beside the same variant built from another kernel tree\n"
	      "(same HZ, plan, fragments and patches; the run's own first, else\n"
	      "the newest in the history), case by case: each tree's model\n"
	      "window and the measured figures, and what got worse from the\n"
	      "older tree to the newer one (docs/history.md, \"Across kernel\n"
	      "trees\"): a wider window, a later median or tail, fewer samples\n"
	      "inside, another status.\n"
	      "Exit: 0 printed, 1 (--trees) an upgrade regression, 2 unreadable\n"
	      "run or bad usage.\n", f);
}

struct key_pos {
	const char *key;
	int64_t idx;
};

static int cmp_key_pos(const void *a, const void *b)
{
	const struct key_pos *x = a, *y = b;

	if (x->idx != y->idx)
		return x->idx < y->idx ? -1 : 1;
	return strcmp(x->key, y->key);
}

/*
 * Every case key of the run once, in plan order: variants of one plan share
 * indices; a case only some variants have keeps its lowest index.
 */
static struct key_pos *case_order(const struct hzrig_run *run, size_t *np)
{
	struct key_pos *k;
	size_t n = 0, cap = 1, i, j, c;

	for (i = 0; i < run->nv; i++)
		cap += run->v[i].ncases;
	k = calloc(cap, sizeof(*k));
	if (!k)
		return NULL;
	for (i = 0; i < run->nv; i++) {
		for (c = 0; c < run->v[i].ncases; c++) {
			const struct hzrig_case_stats *cs = &run->v[i].cases[c];

			for (j = 0; j < n; j++)
				if (!strcmp(k[j].key, cs->key))
					break;
			if (j == n)
				k[n++] = (struct key_pos){ cs->key, cs->case_idx };
			else if (cs->case_idx < k[j].idx)
				k[j].idx = cs->case_idx;
		}
	}
	qsort(k, n, sizeof(*k), cmp_key_pos);
	*np = n;
	return k;
}

static int print_table(const struct hzrig_run *run, const struct key_pos *k,
		       size_t nk, FILE *out)
{
	static const char *const head[] = {
		"case", "variant", "HZ", "n", "status", "window ms", "p5",
		"median", "p95", "max", "inside",
	};
	struct hzrig_table t;
	size_t i, j;
	int ret;

	fprintf(out, "run %s%s%s: %zu variants\n", run->id,
		run->source ? ", " : "", run->source ? run->source : "",
		run->nv);
	for (j = 0; j < run->nv; j++) {
		const struct hzrig_variant *v = &run->v[j];

		fprintf(out, "  %s: HZ=%d, %s, %zu samples, %zu inside",
			v->name, v->hz, v->release[0] ? v->release : "?",
			v->nsamples, v->ninside);
		if (v->allowance_ns != HZRIG_ABSENT)
			fprintf(out, ", allowance %.3f ms",
				v->allowance_ns / 1e6);
		if (v->patches && v->patches[0])
			fprintf(out, ", patches: %s", v->patches);
		fputc('\n', out);
	}
	hzrig_table_init(&t, "llrrllrrrrr");
	hzrig_table_row(&t, head);
	for (i = 0; i < nk; i++) {
		bool first = true;

		for (j = 0; j < run->nv; j++) {
			const struct hzrig_case_stats *c =
				hzrig_variant_case(&run->v[j], k[i].key);
			struct hzrig_case_cells x;
			char hz[16];

			if (!c)
				continue;
			snprintf(hz, sizeof(hz), "%d", run->v[j].hz);
			hzrig_case_cells(c, &x);
			hzrig_table_row(&t, (const char *[]){
				first ? c->key : "", run->v[j].name, hz, x.n,
				x.status, x.window, x.p5, x.median, x.p95, x.max,
				x.inside });
			first = false;
		}
	}
	ret = hzrig_table_print(&t, out, "");
	hzrig_table_free(&t);
	return ret;
}

static void csv_int(FILE *out, int64_t v)
{
	if (v != HZRIG_ABSENT)
		fprintf(out, "%" PRId64, v);
	fputc(',', out);
}

static void csv_ms(FILE *out, int64_t ns, int last)
{
	char b[32];

	hzrig_case_ms(b, sizeof(b), ns, 6);
	hzrig_csv_field(out, b, last);
}

static void print_csv(const struct hzrig_run *run, const struct key_pos *k,
		      size_t nk, FILE *out)
{
	size_t i, j;

	fputs("run_id,case_idx,case_key,transfer,behaviour,mode,timeout_ms,"
	      "timeout_arg,delay_us,length,variant,hz,n,statuses,"
	      "majority_status,expected_status,window_lo_ms,window_hi_ms,"
	      "allowance_ms,min_ms,p5_ms,median_ms,p95_ms,max_ms,inside,"
	      "inside_share\n", out);
	for (i = 0; i < nk; i++) {
		for (j = 0; j < run->nv; j++) {
			const struct hzrig_variant *v = &run->v[j];
			const struct hzrig_case_stats *c =
				hzrig_variant_case(v, k[i].key);
			char st[64];

			if (!c)
				continue;
			hzrig_csv_field(out, run->id, 0);
			csv_int(out, c->case_idx);
			hzrig_csv_field(out, c->key, 0);
			hzrig_csv_field(out, c->transfer, 0);
			hzrig_csv_field(out, c->behaviour, 0);
			hzrig_csv_field(out, c->mode, 0);
			csv_int(out, c->timeout_ms);
			csv_int(out, c->timeout_arg);
			csv_int(out, c->delay_us);
			csv_int(out, c->length);
			hzrig_csv_field(out, v->name, 0);
			csv_int(out, v->hz);
			csv_int(out, (int64_t)c->n);
			hzrig_case_statuses(st, sizeof(st), c, ' ');
			hzrig_csv_field(out, st, 0);
			csv_int(out, c->majority_status);
			csv_int(out, c->expected_status);
			csv_ms(out, c->window_lo_ns, 0);
			csv_ms(out, c->window_hi_ns, 0);
			csv_ms(out, c->allowance_ns, 0);
			csv_ms(out, c->min_ns, 0);
			csv_ms(out, c->p5_ns, 0);
			csv_ms(out, c->median_ns, 0);
			csv_ms(out, c->p95_ns, 0);
			csv_ms(out, c->max_ns, 0);
			csv_int(out, (int64_t)c->inside);
			fprintf(out, "%.6f\n", c->n ? (double)c->inside / c->n : 0);
		}
	}
}

static struct json_object *jint_opt(int64_t v)
{
	return v == HZRIG_ABSENT ? NULL : hzrig_json_int(v);
}

static int print_json(const struct hzrig_run *run, const struct key_pos *k,
		      size_t nk, FILE *out)
{
	struct json_object *arr = json_object_new_array();
	size_t i, j, s;

	if (!arr)
		return -1;
	for (i = 0; i < nk; i++) {
		for (j = 0; j < run->nv; j++) {
			const struct hzrig_variant *v = &run->v[j];
			const struct hzrig_case_stats *c =
				hzrig_variant_case(v, k[i].key);
			struct json_object *o, *st;
			double share;
			char sh[16];

			if (!c)
				continue;
			o = json_object_new_object();
			st = json_object_new_array();
			hzrig_json_put(o, "run_id", hzrig_json_str(run->id));
			hzrig_json_put(o, "case_idx", hzrig_json_int(c->case_idx));
			hzrig_json_put(o, "case_key", hzrig_json_str(c->key));
			hzrig_json_put(o, "transfer", hzrig_json_str(c->transfer));
			hzrig_json_put(o, "behaviour", hzrig_json_str(c->behaviour));
			hzrig_json_put(o, "mode", hzrig_json_str(c->mode));
			hzrig_json_put(o, "timeout_ms", hzrig_json_int(c->timeout_ms));
			hzrig_json_put(o, "timeout_arg", hzrig_json_int(c->timeout_arg));
			hzrig_json_put(o, "delay_us", jint_opt(c->delay_us));
			hzrig_json_put(o, "length", jint_opt(c->length));
			hzrig_json_put(o, "variant", hzrig_json_str(v->name));
			hzrig_json_put(o, "hz", hzrig_json_int(v->hz));
			hzrig_json_put(o, "n", hzrig_json_int((int64_t)c->n));
			for (s = 0; s < c->nstatus; s++) {
				struct json_object *e = json_object_new_object();

				hzrig_json_put(e, "status", hzrig_json_int(c->status[s].status));
				hzrig_json_put(e, "n", hzrig_json_int((int64_t)c->status[s].n));
				json_object_array_add(st, e);
			}
			hzrig_json_put(o, "statuses", st);
			hzrig_json_put(o, "majority_status", hzrig_json_int(c->majority_status));
			hzrig_json_put(o, "expected_status", jint_opt(c->expected_status));
			hzrig_json_put(o, "window_lo_ms", hzrig_json_ms(c->window_lo_ns));
			hzrig_json_put(o, "window_hi_ms", hzrig_json_ms(c->window_hi_ns));
			hzrig_json_put(o, "allowance_ms", hzrig_json_ms(c->allowance_ns));
			hzrig_case_percentiles_json(o, c, hzrig_json_ms);
			hzrig_json_put(o, "inside", hzrig_json_int((int64_t)c->inside));
			share = c->n ? (double)c->inside / (double)c->n : 0;
			snprintf(sh, sizeof(sh), "%.6f", share);
			hzrig_json_put(o, "inside_share", json_object_new_double_s(share, sh));
			json_object_array_add(arr, o);
		}
	}
	hzrig_json_print(arr, out);
	json_object_put(arr);
	return 0;
}

static int hzrig_compare_print(const struct hzrig_run *run, enum hzrig_format f,
			FILE *out)
{
	struct key_pos *k;
	size_t nk = 0;
	int ret = 0;

	k = case_order(run, &nk);
	if (!k)
		return -1;
	switch (f) {
	case HZRIG_FMT_TABLE:
		ret = print_table(run, k, nk, out);
		break;
	case HZRIG_FMT_CSV:
		print_csv(run, k, nk, out);
		break;
	case HZRIG_FMT_JSON:
		ret = print_json(run, k, nk, out);
		break;
	}
	free(k);
	return ret;
}

/* A case's figures on one tree, for the --trees table. */
static void tree_row(struct hzrig_table *t, const char *key, const char *line,
		     const struct hzrig_variant *v,
		     const struct hzrig_case_stats *c,
		     const struct hzrig_window *w)
{
	struct hzrig_case_cells x;

	hzrig_case_cells(c, &x);
	/* the window of this tree's model, not the case's own */
	if (w->forever)
		snprintf(x.window, sizeof(x.window), "none (no timer)");
	else
		snprintf(x.window, sizeof(x.window), "(%.3f, %.3f]",
			 w->lo_ns / 1e6, w->hi_ns / 1e6);
	hzrig_table_row(t, (const char *[]){
		key, line, v->name, x.n, x.status, x.window, x.median, x.p95,
		x.max, x.inside });
}

static void tree_side(FILE *out, const char *what, const char *line,
		      const struct hzrig_run *run, const struct hzrig_variant *v)
{
	fprintf(out, "  %s %s: %s of run %s, %s, %zu samples, %zu inside", what,
		line, v->name, run->id, v->release, v->nsamples, v->ninside);
	if (v->allowance_ns != HZRIG_ABSENT)
		fprintf(out, ", allowance %.3f ms", v->allowance_ns / 1e6);
	fputc('\n', out);
}

static int print_trees_table(const struct hzrig_trees *t, FILE *out)
{
	static const char *const head[] = {
		"case", "tree", "variant", "n", "status", "window ms",
		"median", "p95", "max", "inside",
	};
	size_t i, j, k;
	int ret = 0;

	if (!t->n) {
		fprintf(out, "run %s: no variant has a counterpart built from another kernel tree in the history\n",
			t->run_id);
		return 0;
	}
	for (i = 0; i < t->n; i++) {
		const struct hzrig_tree_pair *p = &t->p[i];
		struct hzrig_table tab;

		fprintf(out, "%sHZ=%d: %s beside %s\n", i ? "\n" : "", p->hz,
			p->from_line, p->to_line);
		tree_side(out, "from", p->from_line, &p->from_run, p->from);
		tree_side(out, "to  ", p->to_line, &p->to_run, p->to);
		hzrig_table_init(&tab, "lllrllrrrr");
		hzrig_table_row(&tab, head);
		for (j = 0; j < p->nc; j++) {
			const struct hzrig_tree_case *c = &p->c[j];

			tree_row(&tab, c->to->key, p->from_line, p->from,
				 c->from, &c->wfrom);
			tree_row(&tab, "", p->to_line, p->to, c->to, &c->wto);
		}
		ret |= hzrig_table_print(&tab, out, "");
		hzrig_table_free(&tab);
		fprintf(out, "  %zu cases on both trees; the model's window is the same on both in %zu",
			p->nc, p->same_windows);
		if (p->only_from || p->only_to)
			fprintf(out, "; %zu only on %s, %zu only on %s",
				p->only_from, p->from_line, p->only_to,
				p->to_line);
		fprintf(out, "\n  upgrade %s -> %s at HZ=%d: %zu regression%s\n",
			p->from_line, p->to_line, p->hz, p->regressions,
			p->regressions == 1 ? "" : "s");
		for (k = 0; k < p->nc; k++) {
			char names[64];

			if (!p->c[k].upg)
				continue;
			hzrig_upg_names(p->c[k].upg, names, sizeof(names));
			fprintf(out, "    REGRESSION %s [%s]: %s\n", p->c[k].to->key,
				names, p->c[k].detail);
		}
	}
	if (t->unpaired)
		fprintf(out, "\n%zu variant%s of run %s with no other tree in the history\n",
			t->unpaired, t->unpaired == 1 ? "" : "s", t->run_id);
	return ret;
}

static struct json_object *jwindow(const struct hzrig_window *w)
{
	struct json_object *o = json_object_new_object();

	if (w->forever) {
		hzrig_json_put(o, "lo_ms", NULL);
		hzrig_json_put(o, "hi_ms", NULL);
	} else {
		hzrig_json_put(o, "lo_ms", hzrig_json_ms((int64_t)w->lo_ns));
		hzrig_json_put(o, "hi_ms", hzrig_json_ms((int64_t)w->hi_ns));
	}
	hzrig_json_put(o, "model", hzrig_json_str(w->tree->name));
	return o;
}

static struct json_object *jside(const struct hzrig_tree_pair *p, bool to,
				 const struct hzrig_case_stats *c,
				 const struct hzrig_window *w)
{
	const struct hzrig_variant *v = to ? p->to : p->from;
	struct json_object *o = json_object_new_object();

	hzrig_json_put(o, "tree", hzrig_json_str(to ? p->to_line : p->from_line));
	hzrig_json_put(o, "run_id", hzrig_json_str(to ? p->to_run.id : p->from_run.id));
	hzrig_json_put(o, "variant", hzrig_json_str(v->name));
	hzrig_json_put(o, "release", hzrig_json_str(v->release));
	hzrig_json_put(o, "window", jwindow(w));
	hzrig_json_put(o, "n", hzrig_json_int((int64_t)c->n));
	hzrig_json_put(o, "majority_status", hzrig_json_int(c->majority_status));
	hzrig_json_put(o, "median_ms", hzrig_json_ms(c->median_ns));
	hzrig_json_put(o, "p95_ms", hzrig_json_ms(c->p95_ns));
	hzrig_json_put(o, "max_ms", hzrig_json_ms(c->max_ns));
	hzrig_json_put(o, "inside", hzrig_json_int((int64_t)c->inside));
	return o;
}

static int print_trees_json(const struct hzrig_trees *t, FILE *out)
{
	struct json_object *arr = json_object_new_array();
	size_t i, j, k;

	if (!arr)
		return -1;
	for (i = 0; i < t->n; i++) {
		const struct hzrig_tree_pair *p = &t->p[i];

		for (j = 0; j < p->nc; j++) {
			const struct hzrig_tree_case *c = &p->c[j];
			struct json_object *o = json_object_new_object();
			struct json_object *up = json_object_new_array();

			hzrig_json_put(o, "hz", hzrig_json_int(p->hz));
			hzrig_json_put(o, "case_key", hzrig_json_str(c->to->key));
			hzrig_json_put(o, "from", jside(p, false, c->from, &c->wfrom));
			hzrig_json_put(o, "to", jside(p, true, c->to, &c->wto));
			hzrig_json_put(o, "same_window", json_object_new_boolean(c->same_window));
			for (k = 0; k < HZRIG_UPG_KINDS; k++)
				if (c->upg & (1u << k))
					json_object_array_add(up, hzrig_json_str(hzrig_upg_name((unsigned int)k)));
			hzrig_json_put(o, "regressions", up);
			hzrig_json_put(o, "detail", c->detail[0] ?
				       hzrig_json_str(c->detail) : NULL);
			json_object_array_add(arr, o);
		}
	}
	hzrig_json_print(arr, out);
	json_object_put(arr);
	return 0;
}

/*
 * The history at @db_path (default HZRIG_DB_DEFAULT), read-only, and the run
 * to compare: *@run_id, or the newest one (copied into @newest). NULL, said
 * on stderr, when there is no database or no run.
 */
static sqlite3 *open_history(const char *db_path, const char **run_id,
			     char newest[HZRIG_RUN_ID_MAX])
{
	sqlite3 *db;
	int ret;

	if (!db_path)
		db_path = HZRIG_DB_DEFAULT;
	db = hzrig_db_open(db_path, HZRIG_DB_READ, stderr);
	if (!db || *run_id)
		return db;
	ret = hzrig_db_newest_run(db, NULL, newest, HZRIG_RUN_ID_MAX);
	if (ret <= 0) {
		fprintf(stderr, "hzrig compare: %s: %s\n", db_path,
			ret ? sqlite3_errmsg(db) : "no runs");
		sqlite3_close(db);
		return NULL;
	}
	*run_id = newest;
	return db;
}

static int compare_trees(const char *db_path, const char *run_id,
			 enum hzrig_format fmt)
{
	char newest[HZRIG_RUN_ID_MAX];
	struct hzrig_trees t;
	size_t i, nreg = 0;
	sqlite3 *db;
	int ret;

	if (fmt == HZRIG_FMT_CSV) {
		fprintf(stderr, "hzrig compare: --trees prints a table or json, not csv\n");
		return 2;
	}
	db = open_history(db_path, &run_id, newest);
	if (!db)
		return 2;
	ret = hzrig_trees_load(db, run_id, &t, stderr);
	sqlite3_close(db);
	if (ret) {
		hzrig_trees_free(&t);
		return 2;
	}
	ret = fmt == HZRIG_FMT_JSON ? print_trees_json(&t, stdout) :
	      print_trees_table(&t, stdout);
	for (i = 0; i < t.n; i++)
		nreg += t.p[i].regressions;
	hzrig_trees_free(&t);
	if (ret) {
		fprintf(stderr, "hzrig compare: out of memory\n");
		return 2;
	}
	return nreg ? 1 : 0;
}

int cmd_compare(int argc, char **argv)
{
	enum hzrig_format fmt = HZRIG_FMT_TABLE;
	const char *db_path = NULL, *run_id = NULL, *dir = DEFAULT_RUN_DIR;
	struct hzrig_run run;
	char newest[HZRIG_RUN_ID_MAX];
	bool trees = false;
	const struct hzrig_opt opts[] = {
		HZRIG_OPT_F("format", hzrig_format_opt, &fmt),
		HZRIG_OPT_S("db", &db_path),
		HZRIG_OPT_S("run", &run_id),
		HZRIG_OPT_B("trees", &trees),
		HZRIG_OPT_END
	};
	int first, ret;

	first = hzrig_opts("compare", argc, argv, opts, compare_usage);
	if (first < 0)
		return HZRIG_OPTS_EXIT(first);
	if (argc - first > 1 || (first < argc && (db_path || run_id))) {
		fprintf(stderr, "hzrig compare: give one RUN_DIR, or --db/--run, not both\n");
		compare_usage(stderr);
		return 2;
	}
	if (trees) {
		if (first < argc) {
			fprintf(stderr, "hzrig compare: --trees reads the history (--db), not a RUN_DIR\n");
			return 2;
		}
		return compare_trees(db_path, run_id, fmt);
	}
	if (first < argc)
		dir = argv[first];

	if (db_path || run_id) {
		sqlite3 *db = open_history(db_path, &run_id, newest);

		if (!db)
			return 2;
		ret = hzrig_db_load_run(db, run_id, &run, stderr);
		sqlite3_close(db);
		if (ret) {
			hzrig_run_free(&run);
			return 2;
		}
	} else {
		ret = hzrig_run_load(dir, &run, stderr);
		if (ret) {
			if (ret > 0)
				fprintf(stderr, "hzrig compare: %s: %d error%s, nothing compared\n",
					dir, ret, ret == 1 ? "" : "s");
			hzrig_run_free(&run);
			return 2;
		}
	}
	ret = hzrig_compare_print(&run, fmt, stdout);
	hzrig_run_free(&run);
	if (ret) {
		fprintf(stderr, "hzrig compare: out of memory\n");
		return 2;
	}
	return 0;
}
