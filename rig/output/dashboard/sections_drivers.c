// SPDX-License-Identifier: GPL-2.0
/*
 * The dashboard's "Drivers" section: the newest driver sweep in the
 * history (docs/sweep.md), from the view (history/view.h) and the sites
 * hzrig_sweep_sites() judged there: probe time per driver and HZ, the
 * HZ-dependent sites in red, and each driver's calls.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "output/dashboard/dash.h"

/* Is @module's driver at a site judged HZ-dependent? */
static bool dependent(const struct hzrig_view *v, const char *module)
{
	for (size_t i = 0; i < v->nsites; i++)
		if (v->sites[i].dependent && !strcmp(v->sites[i].module, module))
			return true;
	return false;
}

static void sites(struct dash *d)
{
	const struct hzrig_view *v = &d->view;
	size_t n = 0;

	for (size_t i = 0; i < v->nsites; i++) {
		const struct hzrig_sweep_site *s = &v->sites[i];

		if (!s->dependent)
			continue;
		if (!n++)
			dash_out(d, "<ul id=\"drivers-hz-sites\">\n");
		dash_out(d, "<li class=\"bad\">");
		dash_esc(d, s->module);
		dash_out(d, " <code>");
		dash_esc(d, s->site);
		dash_out(d, "</code> (");
		dash_esc(d, s->function);
		dash_out(d, "): <span class=\"k\">");
		dash_esc(d, s->why);
		dash_out(d, "</span></li>\n");
	}
	if (n)
		dash_out(d, "</ul>\n");
	else
		dash_out(d, "<p class=\"note good\" id=\"drivers-hz-sites\">No site's"
		    " waits depend on HZ in this sweep.</p>\n");
}

static void table(struct dash *d)
{
	const struct hzrig_view *v = &d->view;

	dash_out(d, "<table class=\"data\" id=\"drivers-table\">\n<thead><tr>"
	    "<th scope=\"col\">driver</th>");
	for (size_t k = 0; k < v->nsw; k++)
		dash_out(d, "<th scope=\"col\">HZ=%d</th><th scope=\"col\" class=\"num\">probe ms</th>",
			 v->sw[k].hz);
	dash_out(d, "</tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < v->sw[0].ndrivers; i++) {
		const char *mod = v->sw[0].drivers[i].module;

		dash_out(d, "<tr><td class=\"nw%s\">", dependent(v, mod) ? " bad" : "");
		dash_esc(d, mod);
		dash_out(d, "</td>");
		for (size_t k = 0; k < v->nsw; k++) {
			const struct hzrig_sweep_rdriver *r = hzrig_sweep_driver(&v->sw[k], mod);

			if (!r) {
				dash_out(d, "<td>&ndash;</td><td></td>");
				continue;
			}
			/* no nowrap: a report's title or a diagnosis wraps */
			dash_out(d, "<td class=\"outcome%s\">", r->nreports || r->diagnosis[0] ? " bad" :
				 strcmp(r->outcome, "bound") ? "" : " good");
			dash_esc(d, r->outcome);
			if (r->err != HZRIG_ABSENT)
				dash_out(d, " (%" PRId64 ")", r->err);
			for (int k = 0; k < r->nreports; k++) {
				dash_out(d, "<br><span class=\"small\">");
				dash_esc(d, r->reports[k]);
				dash_out(d, "</span>");
			}
			if (r->diagnosis[0]) {
				dash_out(d, "<br><span class=\"small\">");
				dash_esc(d, r->diagnosis);
				dash_out(d, "</span>");
			}
			if (r->firmware_standin[0]) {
				dash_out(d, "<br><span class=\"small\">firmware stand-in: ");
				dash_esc(d, r->firmware_standin);
				dash_out(d, "</span>");
			}
			dash_out(d, "</td><td class=\"num%s\">%s</td>",
				 hzrig_sweep_long_probe(r) ? " bad" : "",
				 r->probe_ns == HZRIG_ABSENT ? "&ndash;" : MS(r->probe_ns));
		}
		dash_out(d, "</tr>\n");
	}
	dash_out(d, "</tbody></table>\n");
}

/* Each driver that made a call: its calls at every HZ, folded. */
static void details(struct dash *d)
{
	const struct hzrig_view *v = &d->view;

	for (size_t i = 0; i < v->sw[0].ndrivers; i++) {
		const char *mod = v->sw[0].drivers[i].module;
		bool any = false;

		for (size_t k = 0; k < v->nsw; k++) {
			const struct hzrig_sweep_rdriver *r = hzrig_sweep_driver(&v->sw[k], mod);

			any |= r && r->ncalls;
		}
		if (!any)
			continue;
		dash_out(d, "<details class=\"driver\"><summary>");
		dash_esc(d, mod);
		dash_out(d, "</summary>\n<table class=\"data\"><thead><tr><th>HZ</th><th>call</th>"
		    "<th>site</th><th class=\"num\">timeout</th><th>device</th><th class=\"num\">ret</th>"
		    "<th class=\"num\">wait ms</th><th>window ms</th></tr></thead>\n<tbody>\n");
		for (size_t k = 0; k < v->nsw; k++) {
			const struct hzrig_sweep_rdriver *r = hzrig_sweep_driver(&v->sw[k], mod);

			for (size_t c = 0; r && c < r->ncalls; c++) {
				const struct hzrig_sweep_rcall *x = &r->calls[c];
				bool out = !strcmp(x->verdict, "outside");

				dash_out(d, "<tr><td>%d</td><td>", v->sw[k].hz);
				dash_esc(d, x->call);
				dash_out(d, "</td><td class=\"nw\"><code>");
				dash_esc(d, x->site[0] ? x->site : x->where);
				dash_out(d, "</code></td><td class=\"num\">%d</td><td>", x->timeout_arg);
				dash_esc(d, x->action);
				dash_out(d, "</td><td class=\"num\">");
				if (x->ret != HZRIG_ABSENT)
					dash_out(d, "%" PRId64, x->ret);
				dash_out(d, "</td><td class=\"num%s\">%s</td><td class=\"nw\">",
					 out ? " bad" : "",
					 x->urb_ns == HZRIG_ABSENT ? "&ndash;" : MS(x->urb_ns));
				if (x->window_lo_ns != HZRIG_ABSENT) {
					dash_out(d, "(%s, ", MS(x->window_lo_ns));
					dash_out(d, "%s]", MS(x->window_hi_ns));
				}
				dash_out(d, "</td></tr>\n");
			}
		}
		dash_out(d, "</tbody></table></details>\n");
	}
}

void dash_section_drivers(struct dash *d)
{
	const struct hzrig_view *v = &d->view;
	size_t bound = 0;

	if (!v->nsw)
		return;
	for (size_t i = 0; i < v->sw[0].ndrivers; i++)
		bound += !strcmp(v->sw[0].drivers[i].outcome, "bound");
	dash_out(d, "<section id=\"drivers\">\n<h2>Drivers</h2>\n"
	    "<p class=\"lead\">The newest driver sweep, <b>");
	dash_esc(d, v->sw[0].sweep_id);
	dash_out(d, "</b> (docs/sweep.md): each driver of the tree was presented a"
	    " device built from its own id table, whose first class or vendor"
	    " requests were NAKed and the rest stalled; usbmon timed each NAKed"
	    " request and the model judged it. %zu drivers, %zu bound at HZ=%d."
	    " Probe time per driver and HZ; a probe that blocked for more than"
	    " 10 s and the sites whose waits depend on HZ are in red.</p>\n",
	    v->sw[0].ndrivers, bound, v->sw[0].hz);
	sites(d);
	table(d);
	details(d);
	dash_out(d, "</section>\n");
}
