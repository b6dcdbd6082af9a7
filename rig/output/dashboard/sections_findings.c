// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel reports: what the console scanner (rig/collect/scan.c) found on
 * each variant's console, per variant over the whole history, then the
 * reports of this page's run, each with the case or scenario it came in,
 * whether its title is new to the history, and its console excerpt
 * (docs/robustness.md). All of it from the loaded runs (history/view.h).
 */
#include <inttypes.h>
#include <string.h>

#include "lib/util.h"
#include "output/dashboard/dash.h"

/* One variant's kernel reports over the history. */
struct fvar {
	const char *name;
	int hz;			/* the largest it was built with */
	int64_t scanned, with, reports;
	const char **titles;	/* distinct */
	size_t ntitles, tcap;
};

static int cmp_fvar(const void *a, const void *b)
{
	const struct fvar *x = a, *y = b;

	return x->hz != y->hz ? (x->hz < y->hz ? -1 : 1) : strcmp(x->name, y->name);
}

/* The variants' tallies, as they are gathered. */
struct fvars {
	struct fvar *v;
	size_t n, cap;
};

static struct fvar *fvar_of(struct fvars *fs, const char *name)
{
	struct fvar *x;
	size_t i;

	for (i = 0; i < fs->n; i++)
		if (!strcmp(fs->v[i].name, name))
			return &fs->v[i];
	x = HZRIG_PUSH(fs->v, fs->n, fs->cap, 8);
	if (x)
		x->name = name;
	return x;
}

static int add_title(struct fvar *x, const char *title)
{
	const char **t;
	size_t i;

	for (i = 0; i < x->ntitles; i++)
		if (!strcmp(x->titles[i], title))
			return 0;
	t = HZRIG_PUSH(x->titles, x->ntitles, x->tcap, 8);
	if (!t)
		return -1;
	*t = title;
	return 0;
}

/* One variant run into its variant's tally; -1 out of memory. */
static int tally(const struct hzrig_view_run *r, const struct hzrig_variant *v,
		 void *arg)
{
	struct fvar *x;
	size_t j;

	(void)r;
	if (!v->scanned)
		return 0;
	x = fvar_of(arg, v->name);
	if (!x)
		return -1;
	if (v->hz > x->hz)
		x->hz = v->hz;
	x->scanned++;
	x->with += v->nfindings > 0;
	x->reports += (int64_t)v->nfindings;
	for (j = 0; j < v->nfindings; j++)
		if (add_title(x, v->findings[j].title))
			return -1;
	return 0;
}

/*
 * Per variant over every scanned variant run of the history: runs scanned,
 * runs with reports, reports, distinct titles.
 */
static struct fvar *gather(struct dash *d, size_t *n)
{
	struct fvars fs = { 0 };
	size_t i;

	if (hzrig_view_variants(&d->view, tally, &fs)) {
		for (i = 0; i < fs.n; i++)
			free(fs.v[i].titles);
		free(fs.v);
		*n = 0;
		dash_out_of_memory(d);
		return NULL;
	}
	if (fs.n)
		qsort(fs.v, fs.n, sizeof(*fs.v), cmp_fvar);
	*n = fs.n;
	return fs.v;
}

static void per_variant(struct dash *d)
{
	size_t n, i;
	struct fvar *f = gather(d, &n);

	for (i = 0; i < n; i++) {
		if (!i)
			dash_out(d, "<table class=\"data\" id=\"findings-variants\">\n"
			    "<thead><tr><th scope=\"col\">variant</th>"
			    "<th scope=\"col\" class=\"num\">runs scanned</th>"
			    "<th scope=\"col\" class=\"num\">runs with reports</th>"
			    "<th scope=\"col\" class=\"num\">reports</th>"
			    "<th scope=\"col\" class=\"num\">distinct titles</th>"
			    "</tr></thead>\n<tbody>\n");
		dash_out(d, "<tr><td class=\"nw\">");
		dash_esc(d, f[i].name);
		dash_out(d, "</td><td class=\"num\">%" PRId64 "</td>"
		    "<td class=\"num%s\">%" PRId64 "</td>"
		    "<td class=\"num%s\">%" PRId64 "</td>"
		    "<td class=\"num\">%zu</td></tr>\n",
		    f[i].scanned, f[i].reports ? " bad" : " good", f[i].with,
		    f[i].reports ? " bad" : " good", f[i].reports, f[i].ntitles);
		free(f[i].titles);
	}
	free(f);
	if (n)
		dash_out(d, "</tbody></table>\n");
	else if (!d->failed)
		dash_out(d, "<p id=\"findings-none-scanned\">No run in the history"
		    " has had its console scanned yet (runs collected before"
		    " the scanner have no findings field).</p>\n");
}

/* One report: its title and where, kind, the case, new or known, excerpt. */
static void finding_row(struct dash *d, const char *variant,
			const struct hzrig_run_finding *f)
{
	dash_out(d, "<tr class=\"finding\"><td class=\"nw\">");
	dash_esc(d, variant);
	dash_out(d, "</td><td class=\"bad mono\">");
	dash_esc(d, f->title);
	if (f->where[0]) {
		dash_out(d, "<br><span class=\"small\">at ");
		dash_esc(d, f->where);
		dash_out(d, "</span>");
	}
	dash_out(d, "</td><td>");
	dash_esc(d, f->kind);
	dash_out(d, "</td><td class=\"small\">");
	dash_esc(d, f->running[0] ? f->running : "boot");
	dash_out(d, "</td><td>%s</td><td class=\"small\">line %" PRId64 "%s",
	    f->known ? "known" : "<span class=\"bad\">new</span>",
	    f->console_line, f->truncated ? ", cut off" : "");
	if (f->excerpt) {
		dash_out(d, "<details><summary>excerpt</summary><pre>");
		dash_esc(d, f->excerpt);
		dash_out(d, "</pre></details>");
	}
	dash_out(d, "</td></tr>\n");
}

/* The reports of this page's run, in console order per variant. */
static void this_run(struct dash *d)
{
	const struct hzrig_run *run = &d->cur->run;
	size_t n = 0, k, i;

	for (k = 0; k < run->nv; k++) {
		for (i = 0; i < run->v[k].nfindings; i++) {
			const struct hzrig_run_finding *f = &run->v[k].findings[i];

			if (!n++)
				dash_out(d, "<table class=\"data wide\" id=\"findings-table\">\n"
				    "<thead><tr><th scope=\"col\">variant</th>"
				    "<th scope=\"col\">report</th><th scope=\"col\">kind</th>"
				    "<th scope=\"col\">running</th>"
				    "<th scope=\"col\">history</th>"
				    "<th scope=\"col\">console</th></tr></thead>\n<tbody>\n");
			finding_row(d, run->v[k].name, f);
		}
	}
	if (n)
		dash_out(d, "</tbody></table>\n");
	else if (!d->failed)
		dash_out(d, "<p class=\"good\" id=\"findings-clean\">No kernel"
		    " report on the consoles of this run.</p>\n");
}

void dash_section_findings(struct dash *d)
{
	dash_out(d, "<section id=\"findings\">\n<h2>Kernel reports</h2>\n"
	    "<p class=\"lead\">What the console scanner found on each variant's"
	    " console: KASAN, lockdep, debug objects, sleeping in atomic"
	    " context, WARNINGs, oopses, hung tasks, soft lockups and panics,"
	    " one line per report with a title that names its kind and"
	    " function, stable from one boot to the next. A title is"
	    " <i>new</i> when the history had not seen it from another run."
	    " Any report fails its run.</p>\n");
	per_variant(d);
	this_run(d);
	dash_out(d, "</section>\n");
}
