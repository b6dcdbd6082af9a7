// SPDX-License-Identifier: GPL-2.0
/*
 * hzrig dashboard: one static page, index.html, with inline SVG charts and
 * tables drawn from the history database. docs/dashboard.md says what each
 * section shows and how to read it. This file writes the page: its head and
 * style, the summary, the sections in order (sections_*.c), and opens the
 * database and picks the run (data.c reads it).
 *
 * The page is written with plain stdio: every chart is a handful of SVG
 * primitives placed through a struct hzrig_dash_scale (charts.c), every
 * string that comes from the database goes through hzrig_dash_escape().
 * Nothing on the page needs a script or the network, so it can be attached
 * to a mail, kept as a CI artefact or opened from a file:// URL years later.
 *
 * The stable ids (and classes) the browser test and readers rely on:
 *   #summary #observed-vs-requested #other-behaviours #error-per-hz
 *   #legacy-jiffies #trees #history #regressions #runs #unexplained
 *   circle.pt (a sample), circle.pt.out (a sample not inside its window),
 *   circle.tc (a case on two kernel trees), tr.reg in #trees,
 *   tr.sample in #unexplained, circle.reg-mark, circle.base-mark.
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

#include "lib/io.h"
#include "model/model.h"
#include "output/dashboard/dash.h"
#include "runs/runs.h"

/* ------------------------------------------------------------------------
 * Writing: text, escaped strings, numbers.
 */

void __attribute__((format(printf, 2, 3)))
dash_out(struct dash *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(d->f, fmt, ap);
	va_end(ap);
}

void dash_esc(struct dash *d, const char *s)
{
	hzrig_dash_escape(d->f, s);
}

/* A cell of two lines: @a, and @b (muted, smaller) under it. */
void dash_cell_two(struct dash *d, const char *a, const char *b,
		     const char *cls)
{
	dash_out(d, "<td%s%s%s>", cls ? " class=\"" : "", cls ? cls : "",
	    cls ? "\"" : "");
	if (a && *a)
		dash_esc(d, a);
	else
		dash_out(d, "<span class=\"muted\">-</span>");
	if (b && *b) {
		dash_out(d, "<br><span class=\"small muted\">");
		dash_esc(d, b);
		dash_out(d, "</span>");
	}
	dash_out(d, "</td>");
}

/* ns as ms with 3 decimals (exact to the µs), "-" when absent. */
char *dash_ms3(char *buf, size_t n, int64_t ns)
{
	if (ns == HZRIG_ABSENT)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.3f", ns / 1e6);
	return buf;
}

/* ------------------------------------------------------------------------
 * The page: head and summary.
 */

static const char css[] =
	":root{--ink:#1d232a;--muted:#5b6570;--line:#d9dee3;--panel:#f5f7f9;"
	"--bad:#c62828;--good:#1b7f3b}\n"
	"*{box-sizing:border-box}\n"
	"body{margin:0;font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,"
	"'Helvetica Neue',Arial,sans-serif;color:var(--ink);background:#fff}\n"
	"header{background:#15212c;color:#fff;padding:16px 28px 10px}\n"
	"header h1{margin:0;font-size:21px;font-weight:600;letter-spacing:.2px}\n"
	"header .sub{color:#c5cfd8;margin:3px 0 10px}\n"
	"header .sub b{color:#fff}\n"
	"nav a{color:#9fd0ff;margin-right:18px;text-decoration:none;font-size:13px}\n"
	"nav a:hover{text-decoration:underline}\n"
	"main{max-width:1250px;margin:0 auto;padding:4px 18px 40px}\n"
	"section{margin:26px 0 6px}\n"
	"h2{font-size:18px;font-weight:600;margin:0 0 4px;padding-bottom:4px;"
	"border-bottom:2px solid var(--line)}\n"
	"h3{font-size:14px;font-weight:600;margin:14px 0 4px}\n"
	"p.lead{color:var(--muted);margin:4px 0 10px;max-width:1000px}\n"
	"code,.mono{font-family:ui-monospace,'DejaVu Sans Mono',Menlo,monospace;"
	"font-size:12px}\n"
	".panels{display:flex;flex-wrap:wrap;gap:10px}\n"
	".chart{background:#fff;border:1px solid var(--line);border-radius:6px;"
	"max-width:100%;height:auto;display:block}\n"
	".chart text{fill:var(--ink)}\n"
	".chart .tick{font-size:11px;fill:var(--muted)}\n"
	".chart .axis{font-size:12px;fill:var(--muted)}\n"
	".chart .ptitle{font-size:13.5px;font-weight:600}\n"
	".chart .pnote{font-size:11.5px;fill:var(--muted)}\n"
	".chart .pnote.bad{fill:var(--bad);font-weight:600}\n"
	".chart .lab{font-size:11.5px}\n"
	".frame{fill:none;stroke:#aab4be}\n"
	".grid{stroke:#edf0f3}\n"
	".band{fill:#7fa9d6;fill-opacity:.22}\n"
	".allow{fill:#e9b949;fill-opacity:.22}\n"
	".win{fill:#2f6fad;fill-opacity:.32}\n"
	".diag{stroke:#7d8790;stroke-dasharray:4 3;fill:none}\n"
	".pt{stroke:#fff;stroke-width:.5;fill-opacity:.85}\n"
	".pt.out{stroke:var(--bad);stroke-width:2.2;fill-opacity:1}\n"
	".worst{fill:none;stroke-width:1.5;stroke-dasharray:6 4;opacity:.9}\n"
	".med{fill:none;stroke-width:2}\n"
	".med.thin{stroke-width:1.2;opacity:.55}\n"
	".whisk{stroke-width:1.5}\n"
	".sbnd{fill:#7fa9d6;fill-opacity:.35}\n"
	".sline{fill:none;stroke:#3b4650;stroke-width:1.3}\n"
	".sdot{fill:#3b4650}\n"
	".selrun{fill:#edf1f5}\n"
	".reg-mark{fill:var(--bad);stroke:#fff;stroke-width:1}\n"
	".base-mark{fill:none;stroke:var(--good);stroke-width:1.6}\n"
	".legend{display:flex;flex-wrap:wrap;gap:6px 16px;font-size:12.5px;"
	"color:var(--muted);margin:4px 0 10px}\n"
	".sw{display:inline-block;width:11px;height:11px;border-radius:50%;"
	"vertical-align:-1px;margin-right:5px}\n"
	".sw.sq{border-radius:2px}\n"
	".sw.line{width:18px;height:0;border-radius:0;border-top:2px dashed #7d8790;"
	"vertical-align:3px}\n"
	".sw.out{background:#fff;border:2.2px solid var(--bad)}\n"
	".sw.band{background:rgba(127,169,214,.35)}\n"
	".sw.win{background:rgba(47,111,173,.45)}\n"
	".sw.allow{background:rgba(233,185,73,.4)}\n"
	".sw.reg{background:var(--bad)}\n"
	".sw.base{background:#fff;border:1.6px solid var(--good)}\n"
	"table.data{border-collapse:collapse;font-size:12.5px;margin:6px 0 4px}\n"
	"table.data caption{text-align:left;color:var(--muted);padding:2px 0 6px;"
	"caption-side:top}\n"
	"table.data th{text-align:left;background:var(--panel);font-weight:600;"
	"border-bottom:1px solid var(--line);padding:5px 8px;white-space:nowrap}\n"
	"table.data td{border-bottom:1px solid #edf0f3;padding:4px 8px;"
	"vertical-align:middle}\n"
	"table.data tbody tr:hover td{background:#f7fafc}\n"
	"table.wide{width:100%}\n"
	".num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
	"th.num{text-align:right}\n"
	"tr.sel td{background:#f2f8ff}\n"
	"tr.first td{border-top:2px solid var(--line)}\n"
	"tr.group th{background:#fff;color:var(--muted);font-weight:600;"
	"padding-top:12px;border-bottom:1px solid var(--line)}\n"
	"td.nw{white-space:nowrap}\n"
	"td.outcome{max-width:26em;overflow-wrap:anywhere}\n"
	"td.kern{max-width:230px}\n"
	".small{font-size:11.5px}\n"
	"td.reg{background:#fdecea}\n"
	"tr.reg td{background:#fdecea}\n"
	"details>summary{cursor:pointer;color:var(--muted);margin:6px 0}\n"
	".bad{color:var(--bad);font-weight:600}\n"
	".good{color:var(--good)}\n"
	".muted{color:var(--muted)}\n"
	".cards{display:flex;gap:10px;flex-wrap:wrap;margin:12px 0 4px}\n"
	".card{border:1px solid var(--line);border-radius:6px;padding:8px 14px;"
	"min-width:200px;background:var(--panel)}\n"
	".card .v{font-size:16px;font-weight:600}\n"
	".card .k{color:var(--muted);font-size:12px}\n"
	".banner{border-left:4px solid var(--bad);background:#fdecea;"
	"padding:8px 12px;margin:12px 0}\n"
	".note{border-left:4px solid #7fa9d6;background:var(--panel);"
	"padding:8px 12px;margin:12px 0}\n"
	"td.spark{padding:2px 6px;white-space:nowrap}\n"
	"td.spark svg{vertical-align:middle}\n"
	"td.spark .last{display:inline-block;min-width:74px;text-align:right;"
	"font-variant-numeric:tabular-nums;font-size:12px}\n"
	"footer{color:var(--muted);font-size:12px;margin-top:30px;"
	"border-top:1px solid var(--line);padding-top:8px}\n";

static void page_head(struct dash *d, const char *title)
{
	dash_out(d, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	    "<meta charset=\"utf-8\">\n"
	    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	    "<meta name=\"generator\" content=\"hzrig dashboard\">\n"
	    "<title>");
	dash_esc(d, title);
	dash_out(d, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", css);
}

static void page_foot(struct dash *d)
{
	char now[32];
	time_t t = time(NULL);
	struct tm tm;

	strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	dash_out(d, "<footer>Written by <code>hzrig dashboard</code> at %s from <code>",
	    now);
	dash_esc(d, d->o->db_path);
	dash_out(d, "</code>. Static page: no script, no network resources."
	    " See docs/dashboard.md for how to read it.</footer>\n"
	    "</main>\n</body>\n</html>\n");
}

size_t dash_n_unexplained(const struct dash *d)
{
	size_t i, n = 0;

	for (i = 0; i < d->ns; i++)
		n += !dash_inside(d, &d->s[i]);
	return n;
}

static void header(struct dash *d, int64_t nreg)
{
	const struct hzrig_view_run *r = d->cur;
	size_t bad = dash_n_unexplained(d);

	dash_out(d, "<header>\n<h1>hzrig: how long USB timeouts really take, per HZ</h1>\n"
	    "<p class=\"sub\">Run <b class=\"mono\" id=\"run-id\">");
	dash_esc(d, d->run);
	dash_out(d, "</b>");
	if (r->started_at) {
		dash_out(d, " &middot; started ");
		dash_esc(d, r->started_at);
	}
	if (r->plan) {
		dash_out(d, " &middot; plan ");
		dash_esc(d, r->plan);
	}
	if (r->hzrig_version) {
		dash_out(d, " &middot; hzrig ");
		dash_esc(d, r->hzrig_version);
	}
	dash_out(d, " &middot; %zu variant%s, %zu samples, ", d->nv,
	    d->nv == 1 ? "" : "s", d->ns);
	dash_out(d, "<b>%zu</b> not inside the model's window &middot; %zu run%s"
	    " in the history</p>\n", bad, d->nruns, d->nruns == 1 ? "" : "s");
	dash_out(d, "<nav><a href=\"#observed-vs-requested\">Observed vs requested</a>"
	    "<a href=\"#error-per-hz\">Error per HZ</a>"
	    "<a href=\"#legacy-jiffies\">Legacy jiffies</a>"
	    "<a href=\"#trees\">Kernel trees</a>"
	    "<a href=\"#history\">History</a>"
	    "<a href=\"#regressions\">Regressions (%" PRId64 ")</a>"
	    "<a href=\"#runs\">Runs &amp; noise</a>"
	    "<a href=\"#unexplained\">Unexplained (%zu)</a></nav>\n"
	    "</header>\n<main>\n", nreg, bad);
}

static void summary(struct dash *d, int64_t nreg)
{
	size_t i;

	dash_out(d, "<section id=\"summary\">\n");
	if (nreg > 0)
		dash_out(d, "<div class=\"banner\"><b>%" PRId64 " regression%s</b>"
		    " recorded for this run against its baselines:"
		    " see <a href=\"#regressions\">Regressions</a>.</div>\n",
		    nreg, nreg == 1 ? "" : "s");
	dash_out(d, "<div class=\"cards\">\n");
	for (i = 0; i < d->nv; i++) {
		const struct dvar *v = &d->v[i];
		const struct hzrig_variant *lv = v->lv;
		bool ok = lv->ninside == lv->nsamples;

		dash_out(d, "<div class=\"card\"><span class=\"sw\" style=\"background:%s\">"
		    "</span><span class=\"v\">", dash_variant_colour(i));
		dash_esc(d, dash_S(d, v->name));
		dash_out(d, "</span> <span class=\"k\">HZ=%d", lv->hz);
		if (lv->release[0]) {
			dash_out(d, ", ");
			dash_esc(d, lv->release);
		}
		dash_out(d, "</span><br><span class=\"%s\">%zu / %zu inside</span>"
		    " <span class=\"k\">&middot; allowance %s ms &middot; boot ",
		    ok ? "good" : "bad", lv->ninside, lv->nsamples,
		    MS(lv->allowance_ns));
		dash_esc(d, lv->boot_status[0] ? lv->boot_status : "?");
		dash_out(d, "</span></div>\n");
	}
	dash_out(d, "</div>\n</section>\n");
}

/* The regressions recorded for this page's run. */
int64_t dash_run_regressions(const struct dash *d)
{
	int64_t n = 0;
	size_t i;

	for (i = 0; i < d->view.ng; i++)
		n += !strcmp(d->view.g[i].run_id, d->run);
	return n;
}

/* ------------------------------------------------------------------------
 * The page, and writing it.
 */

static void empty_page(struct dash *d)
{
	page_head(d, "hzrig dashboard: no runs yet");
	dash_out(d, "<header>\n<h1>hzrig: how long USB timeouts really take, per HZ</h1>\n"
	    "<p class=\"sub\">The history has no runs yet.</p>\n</header>\n<main>\n"
	    "<section id=\"empty\">\n<h2>No runs recorded</h2>\n"
	    "<p class=\"note\">This page is drawn from the history database,"
	    " which has no run yet. Record one with <code>make</code> (the HZ"
	    " matrix) and <code>hzrig ingest results/latest</code>, then run"
	    " <code>hzrig dashboard</code> again.</p>\n</section>\n");
	dash_section_drivers(d);
	page_foot(d);
}

static void full_page(struct dash *d, const struct hist *h)
{
	char title[256];
	int64_t nreg;

	nreg = dash_run_regressions(d);
	snprintf(title, sizeof(title), "hzrig dashboard: run %s", d->run);
	page_head(d, title);
	header(d, nreg);
	summary(d, nreg);
	dash_section_observed(d);
	dash_section_paths(d);
	dash_section_error(d);
	dash_section_legacy(d);
	dash_section_trees(d);
	dash_section_history(d, h);
	dash_section_regressions(d);
	dash_section_findings(d);
	dash_section_drivers(d);
	dash_section_runs(d);
	dash_section_unexplained(d);
	page_foot(d);
}

/* mkdir -p */
static int make_dirs(const char *path, FILE *err)
{
	char *p = strdup(path), *s;
	int rc = 0;

	if (!p)
		return -1;
	for (s = p + 1; ; s++) {
		if (*s && *s != '/')
			continue;
		{
			char c = *s;

			*s = 0;
			if (mkdir(p, 0777) && errno != EEXIST) {
				fprintf(err, "hzrig dashboard: %s: %s\n", p,
					strerror(errno));
				rc = -1;
			}
			*s = c;
		}
		if (rc || !*s)
			break;
	}
	free(p);
	return rc;
}

/* The chosen run: --run, else the newest. -1 after a message. */
static int choose_run(struct dash *d)
{
	size_t i;

	if (!d->o->run_id) {
		d->cur = &d->view.r[d->nruns - 1];
		d->run = d->cur->id;
		return 0;
	}
	for (i = 0; i < d->nruns; i++)
		if (!strcmp(d->runs[i], d->o->run_id)) {
			d->cur = &d->view.r[i];
			d->run = d->cur->id;
			return 0;
		}
	fprintf(d->err, "hzrig dashboard: %s: no run '%s'; the newest:",
		d->o->db_path, d->o->run_id);
	for (i = d->nruns; i-- > 0 && i + 5 >= d->nruns;)
		fprintf(d->err, " %s", d->runs[i]);
	fprintf(d->err, "\n");
	return -1;
}

int hzrig_dashboard(const struct hzrig_dash_opts *o)
{
	struct dash d = { .o = o, .err = o->err ? o->err : stderr };
	struct hist h = { 0 };
	char why[HZRIG_WHY], *dst = NULL;
	struct hzrig_out page;
	int rc = HZRIG_DASH_FAILED, have;
	size_t i;

	if (!o->db_path || !*o->db_path || !o->out_dir || !*o->out_dir) {
		fprintf(d.err, "hzrig dashboard: no database or output directory\n");
		return HZRIG_DASH_FAILED;
	}
	have = hzrig_view_open(o->db_path, "hzrig dashboard", &d.view, d.err);
	if (have < 0)
		goto out;
	d.nruns = d.view.nr;
	d.runs = calloc(d.nruns + 1, sizeof(*d.runs));
	if (!d.runs) {
		dash_out_of_memory(&d);
		goto out;
	}
	for (i = 0; i < d.nruns; i++)
		d.runs[i] = d.view.r[i].id;
	if (d.nruns) {
		if (choose_run(&d) || dash_load_samples(&d) ||
		    dash_hist_load(&d, &h))
			goto out;
	} else if (o->run_id) {
		fprintf(d.err, "hzrig dashboard: %s: no run '%s': the history is"
			" empty\n", o->db_path, o->run_id);
		goto out;
	}

	if (make_dirs(o->out_dir, d.err))
		goto out;
	if (asprintf(&dst, "%s/index.html", o->out_dir) < 0) {
		dst = NULL;
		fprintf(d.err, "hzrig dashboard: out of memory\n");
		goto out;
	}
	if (hzrig_out_open(&page, dst, why, sizeof(why))) {
		fprintf(d.err, "hzrig dashboard: %s: %s\n", dst, why);
		goto out;
	}
	d.f = page.f;
	if (d.nruns)
		full_page(&d, &h);
	else
		empty_page(&d);
	d.f = NULL;
	if (d.failed) {
		hzrig_out_abort(&page);
		goto out;
	}
	if (hzrig_out_commit(&page, why, sizeof(why))) {
		fprintf(d.err, "hzrig dashboard: %s: %s; nothing written\n", dst, why);
		goto out;
	}
	if (o->out) {
		if (d.nruns)
			fprintf(o->out, "hzrig dashboard: wrote %s: run %s, %zu"
				" variants, %zu samples, %zu not inside; %zu runs"
				" in the history\n", dst, d.run, d.nv, d.ns,
				dash_n_unexplained(&d), d.nruns);
		else
			fprintf(o->out, "hzrig dashboard: wrote %s: the history"
				" has no runs yet\n", dst);
	}
	rc = HZRIG_DASH_OK;
out:
	hzrig_view_close(&d.view);
	dash_hist_free(&h);
	free(d.runs);
	free(d.v);
	free(d.s);
	dash_strtab_free(&d.st);
	free(dst);
	return rc;
}
