// SPDX-License-Identifier: GPL-2.0
/*
 * One HZ on two kernel trees (rig/output/trees.h, docs/history.md "Across
 * kernel trees"): for each pair, the median wait of every case on the
 * older tree against the newer one (the diagonal is "the same"), what got
 * worse with the upgrade, and every case with both trees' windows and
 * figures.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output/dashboard/dash.h"
#include "output/trees.h"

static void window_cell(struct dash *d, const struct hzrig_window *w)
{
	if (w->forever)
		dash_out(d, "<td>no timer</td>");
	else
		dash_out(d, "<td class=\"nw\">(%s, %s]</td>",
			 MS((int64_t)w->lo_ns), MS((int64_t)w->hi_ns));
}

static void figures(struct dash *d, const struct hzrig_case_stats *c)
{
	dash_out(d, "<td class=\"num\">%s</td><td class=\"num\">%s</td>"
		 "<td class=\"num%s\">%zu/%zu</td>", MS(c->median_ns),
		 MS(c->p95_ns), c->inside == c->n ? "" : " bad", c->inside,
		 c->n);
}

/* Median on the older tree (x) against the newer (y), log-log. */
static void scatter(struct dash *d, const struct hzrig_tree_pair *p)
{
	double lo = INFINITY, hi = 0, xl, xh;
	char title[160];
	struct plot pl;
	size_t i;

	for (i = 0; i < p->nc; i++) {
		const struct hzrig_tree_case *c = &p->c[i];

		if (c->from->median_ns <= 0 || c->to->median_ns <= 0)
			continue;
		lo = fmin(lo, fmin(c->from->median_ns, c->to->median_ns) / 1e6);
		hi = fmax(hi, fmax(c->from->median_ns, c->to->median_ns) / 1e6);
	}
	if (!(hi > 0))
		return;
	hzrig_dash_log_domain(lo / 1.5, hi * 1.5, &xl, &xh);
	dash_plot_init(&pl, 420, 360, 58, 36, 20, 46);
	dash_plot_domain(&pl, true, xl, xh, true, xl, xh);
	snprintf(title, sizeof(title), "HZ=%d: median wait per case, %s against %s",
		 p->hz, p->to_line, p->from_line);
	dash_svg_open(d, &pl, "trees", title,
		      "Log-log scatter: one dot per case, its median wait on the"
		      " older tree on x and on the newer tree on y; on the"
		      " diagonal the upgrade changed nothing; red dots are"
		      " regressions of the upgrade.");
	dash_axes(d, &pl, "median wait on the older tree (ms)",
		  "median wait on the newer tree (ms)");
	dash_out(d, "<text x=\"%g\" y=\"22\"><tspan class=\"ptitle\">HZ=%d: %s &#8594; %s</tspan>"
		 "<tspan class=\"pnote%s\" dx=\"8\">%zu cases &#183; %zu regression%s</tspan></text>\n",
		 XY(pl.l), p->hz, p->from_line, p->to_line,
		 p->regressions ? " bad" : "", p->nc, p->regressions,
		 p->regressions == 1 ? "" : "s");
	dash_clip_open(d, &pl);
	/* both axes share the domain: the diagonal runs corner to corner */
	dash_out(d, "<line class=\"diag\" x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\"/>\n",
		 XY(dash_px(&pl, xl)), XY(dash_py(&pl, xl)),
		 XY(dash_px(&pl, xh)), XY(dash_py(&pl, xh)));
	for (i = 0; i < p->nc; i++) {
		const struct hzrig_tree_case *c = &p->c[i];

		if (c->from->median_ns <= 0 || c->to->median_ns <= 0)
			continue;
		dash_out(d, "<circle class=\"tc\" cx=\"%g\" cy=\"%g\" r=\"3.5\""
			 " fill=\"%s\"><title>",
			 XY(dash_px(&pl, c->from->median_ns / 1e6)),
			 XY(dash_py(&pl, c->to->median_ns / 1e6)),
			 c->upg ? "#c62828" : dash_palette[0]);
		dash_esc(d, c->to->key);
		dash_out(d, ": %s ms on %s, %s ms on %s</title></circle>\n",
			 MS(c->from->median_ns), p->from_line,
			 MS(c->to->median_ns), p->to_line);
	}
	dash_out(d, "</g></svg>\n");
}

static void pair_table(struct dash *d, const struct hzrig_tree_pair *p)
{
	size_t i;

	dash_out(d, "<details%s><summary>every case, both trees (%zu)</summary>\n"
		 "<table class=\"trees\">\n<thead><tr><th>case</th><th>window on %s</th>"
		 "<th>window on %s</th><th>median %s</th><th>p95 %s</th><th>inside %s</th>"
		 "<th>median %s</th><th>p95 %s</th><th>inside %s</th><th>upgrade</th></tr></thead>\n<tbody>\n",
		 p->regressions ? " open" : "", p->nc, p->from_line, p->to_line,
		 p->from_line, p->from_line, p->from_line, p->to_line,
		 p->to_line, p->to_line);
	for (i = 0; i < p->nc; i++) {
		const struct hzrig_tree_case *c = &p->c[i];
		char names[64];

		dash_out(d, "<tr%s><td><code>", c->upg ? " class=\"reg\"" : "");
		dash_esc(d, c->to->key);
		dash_out(d, "</code></td>");
		window_cell(d, &c->wfrom);
		window_cell(d, &c->wto);
		figures(d, c->from);
		figures(d, c->to);
		if (c->upg) {
			hzrig_upg_names(c->upg, names, sizeof(names));
			dash_out(d, "<td class=\"bad\" title=\"");
			dash_esc(d, c->detail);
			dash_out(d, "\">%s</td></tr>\n", names);
		} else {
			dash_out(d, "<td>%s</td></tr>\n",
				 c->same_window ? "same" : "window narrower");
		}
	}
	dash_out(d, "</tbody>\n</table>\n</details>\n");
}

void dash_section_trees(struct dash *d)
{
	struct hzrig_trees t;
	size_t i, k;

	dash_out(d, "<section id=\"trees\">\n<h2>Kernel trees</h2>\n"
		 "<p class=\"lead\">Each variant of this run beside the same"
		 " variant (HZ, plan, fragments, patches) built from another"
		 " kernel tree: this run's own, else the newest in the history."
		 " Each tree's window comes from that tree's model"
		 " (docs/model.md); a newer tree whose window is wider, or whose"
		 " median or tail is later by more than the noise threshold, or"
		 " with fewer calls inside, is a regression of the upgrade"
		 " (<code>hzrig compare --trees</code>).</p>\n");
	if (hzrig_trees_load(d->view.db, d->run, &t, d->err)) {
		hzrig_trees_free(&t);
		d->failed = true;
		return;
	}
	if (!t.n)
		dash_out(d, "<p class=\"note\" id=\"trees-none\">No variant of"
			 " this run has a counterpart built from another kernel"
			 " tree in the history (<code>make VARIANTS=\"hz-250"
			 " hz-250-6.12\"</code> makes one).</p>\n");
	for (i = 0; i < t.n; i++) {
		const struct hzrig_tree_pair *p = &t.p[i];

		dash_out(d, "<h3>HZ=%d: %s &#8594; %s</h3>\n<p>", p->hz,
			 p->from_line, p->to_line);
		dash_esc(d, p->from->name);
		dash_out(d, " (%s, run %s) beside ", p->from->release, p->from_run.id);
		dash_esc(d, p->to->name);
		dash_out(d, " (%s, run %s): %zu cases on both, the model's window"
			 " the same in %zu, <b%s>%zu regression%s of the upgrade</b>.</p>\n",
			 p->to->release, p->to_run.id, p->nc, p->same_windows,
			 p->regressions ? " class=\"bad\"" : "", p->regressions,
			 p->regressions == 1 ? "" : "s");
		scatter(d, p);
		if (p->regressions) {
			dash_out(d, "<ul class=\"trees-reg\">\n");
			for (k = 0; k < p->nc; k++) {
				if (!p->c[k].upg)
					continue;
				dash_out(d, "<li><code>");
				dash_esc(d, p->c[k].to->key);
				dash_out(d, "</code>: ");
				dash_esc(d, p->c[k].detail);
				dash_out(d, "</li>\n");
			}
			dash_out(d, "</ul>\n");
		}
		pair_table(d, p);
	}
	dash_out(d, "</section>\n");
	hzrig_trees_free(&t);
}
