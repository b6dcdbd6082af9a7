// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel reports: what the console scanner (rig/collect/scan.c) found on
 * each variant's console, per variant over the whole history, then the
 * reports of this page's run, each with the case or scenario it came in,
 * whether its title is new to the history, and its console excerpt
 * (docs/robustness.md). Histories older than schema 5 have no findings
 * table: the section says so.
 */
#include <inttypes.h>
#include <string.h>

#include "output/dashboard/dash.h"

/* Per variant: runs scanned, runs with reports, reports, distinct titles. */
static void per_variant(struct dash *d)
{
	sqlite3_stmt *st;
	size_t n = 0;

	st = dash_prep(d, "SELECT v.variant, count(DISTINCT v.id),"
		     " count(DISTINCT f.variant_run), count(f.title),"
		     " count(DISTINCT f.title), max(v.hz)"
		     " FROM variant_runs v LEFT JOIN findings f"
		     " ON f.variant_run = v.id"
		     " WHERE json_type(v.run_json, '$.findings') IS NOT NULL"
		     " GROUP BY v.variant ORDER BY max(v.hz), v.variant");
	if (!st)
		return;
	while (dash_row(d, st)) {
		int64_t reports = dash_col_i64(st, 3);

		if (!n++)
			dash_out(d, "<table class=\"data\" id=\"findings-variants\">\n"
			    "<thead><tr><th scope=\"col\">variant</th>"
			    "<th scope=\"col\" class=\"num\">runs scanned</th>"
			    "<th scope=\"col\" class=\"num\">runs with reports</th>"
			    "<th scope=\"col\" class=\"num\">reports</th>"
			    "<th scope=\"col\" class=\"num\">distinct titles</th>"
			    "</tr></thead>\n<tbody>\n");
		dash_out(d, "<tr><td class=\"nw\">");
		dash_esc(d, dash_col_str(st, 0));
		dash_out(d, "</td><td class=\"num\">%" PRId64 "</td>"
		    "<td class=\"num%s\">%" PRId64 "</td>"
		    "<td class=\"num%s\">%" PRId64 "</td>"
		    "<td class=\"num\">%" PRId64 "</td></tr>\n",
		    dash_col_i64(st, 1), reports ? " bad" : " good",
		    dash_col_i64(st, 2), reports ? " bad" : " good", reports,
		    dash_col_i64(st, 4));
	}
	sqlite3_finalize(st);
	if (n)
		dash_out(d, "</tbody></table>\n");
	else if (!d->failed)
		dash_out(d, "<p id=\"findings-none-scanned\">No run in the history"
		    " has had its console scanned yet (runs collected before"
		    " the scanner have no findings field).</p>\n");
}

/* The reports of this page's run, in console order per variant. */
static void this_run(struct dash *d)
{
	sqlite3_stmt *st;
	size_t n = 0;

	st = dash_prep(d, "SELECT v.variant, f.title, f.kind, f.running,"
		     " f.console_line, f.truncated, f.known, f.excerpt,"
		     " f.location FROM findings f JOIN variant_runs v"
		     " ON f.variant_run = v.id WHERE v.run_id = ?1"
		     " ORDER BY v.hz, v.variant, f.idx");
	if (!st)
		return;
	sqlite3_bind_text(st, 1, d->run, -1, SQLITE_STATIC);
	while (dash_row(d, st)) {
		const char *running = dash_col_str(st, 3);

		if (!n++)
			dash_out(d, "<table class=\"data wide\" id=\"findings-table\">\n"
			    "<thead><tr><th scope=\"col\">variant</th>"
			    "<th scope=\"col\">report</th><th scope=\"col\">kind</th>"
			    "<th scope=\"col\">running</th>"
			    "<th scope=\"col\">history</th>"
			    "<th scope=\"col\">console</th></tr></thead>\n<tbody>\n");
		dash_out(d, "<tr class=\"finding\"><td class=\"nw\">");
		dash_esc(d, dash_col_str(st, 0));
		dash_out(d, "</td><td class=\"bad mono\">");
		dash_esc(d, dash_col_str(st, 1));
		if (dash_col_str(st, 8)) {
			dash_out(d, "<br><span class=\"small\">at ");
			dash_esc(d, dash_col_str(st, 8));
			dash_out(d, "</span>");
		}
		dash_out(d, "</td><td>");
		dash_esc(d, dash_col_str(st, 2));
		dash_out(d, "</td><td class=\"small\">");
		dash_esc(d, running && *running ? running : "boot");
		dash_out(d, "</td><td>%s</td><td class=\"small\">line %" PRId64 "%s",
		    dash_col_i64(st, 6) ? "known" :
		    "<span class=\"bad\">new</span>", dash_col_i64(st, 4),
		    dash_col_i64(st, 5) ? ", cut off" : "");
		if (dash_col_str(st, 7)) {
			dash_out(d, "<details><summary>excerpt</summary><pre>");
			dash_esc(d, dash_col_str(st, 7));
			dash_out(d, "</pre></details>");
		}
		dash_out(d, "</td></tr>\n");
	}
	sqlite3_finalize(st);
	if (n)
		dash_out(d, "</tbody></table>\n");
	else if (!d->failed)
		dash_out(d, "<p class=\"good\" id=\"findings-clean\">No kernel"
		    " report on the consoles of this run.</p>\n");
}

void dash_section_findings(struct dash *d)
{
	int have = dash_has_table(d, "findings");

	if (have < 0)
		return;
	dash_out(d, "<section id=\"findings\">\n<h2>Kernel reports</h2>\n"
	    "<p class=\"lead\">What the console scanner found on each variant's"
	    " console: KASAN, lockdep, debug objects, sleeping in atomic"
	    " context, WARNINGs, oopses, hung tasks, soft lockups and panics,"
	    " one line per report with a title that names its kind and"
	    " function, stable from one boot to the next. A title is"
	    " <i>new</i> when the history had not seen it from another run."
	    " Any report fails its run.</p>\n");
	if (!have) {
		dash_out(d, "<p id=\"findings-old-db\">This history predates the"
		    " findings table (schema 5): ingest a run with a newer hzrig"
		    " to add it.</p>\n</section>\n");
		return;
	}
	per_variant(d);
	this_run(d);
	dash_out(d, "</section>\n");
}
