// SPDX-License-Identifier: GPL-2.0
/*
 * The call paths side by side: the same NAKed bulk IN call with the same
 * timeout T, made by the host driver (kernel), through usbfs, and through
 * libusb-1.0 synchronously and asynchronously, at each variant's HZ. Each
 * cell: the path's model window, the median wait and how many calls were
 * inside (docs/model.md §11).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "output/dashboard/dash.h"
#include "plan/plan.h"
#include "runs/runs.h"

static bool headline(const struct dash *d, const struct dsample *x)
{
	return dash_is(d, x->transfer, "bulk-in") &&
	       dash_is(d, x->behaviour, "nak") && dash_is(d, x->mode, "ms") &&
	       x->s->timeout_ms > 0;
}

/* One cell: the samples of @path, @t on variant @v. */
static void cell(struct dash *d, const char *path, int64_t t, size_t v,
		 int64_t *e)
{
	const struct dsample *w = NULL;
	size_t i, n = 0, in = 0, nu = 0;
	char win[96], fig[64], around[48] = "";
	int64_t *u = e + d->ns;	/* the second half of the scratch array */

	for (i = 0; i < d->ns; i++) {
		const struct dsample *x = &d->s[i];

		if (x->v != v || x->s->timeout_ms != t || !headline(d, x) ||
		    !dash_is(d, x->path, path))
			continue;
		e[n++] = x->s->elapsed_ns;
		if (x->s->urb_ns != HZRIG_ABSENT)
			u[nu++] = x->s->elapsed_ns - x->s->urb_ns;
		in += dash_inside(d, x);
		w = x;
	}
	if (!n) {
		dash_cell_two(d, NULL, NULL, NULL);
		return;
	}
	qsort(e, n, sizeof(*e), hzrig_cmp_i64);
	snprintf(fig, sizeof(fig), "%s ms, %zu/%zu inside",
		 MS(hzrig_percentile(e, n, 50)), in, n);
	/* The two clocks: what the call spent around its URB. */
	if (nu) {
		qsort(u, nu, sizeof(*u), hzrig_cmp_i64);
		snprintf(around, sizeof(around), "; %s ms around the URB",
			 MS(hzrig_percentile(u, nu, 50)));
	}
	if (w->s->window_lo_ns == HZRIG_ABSENT)
		snprintf(win, sizeof(win), "no timer%s", around);
	else
		snprintf(win, sizeof(win), "window (%s, %s]%s", MS(w->s->window_lo_ns),
			 MS(w->s->window_hi_ns), around);
	dash_cell_two(d, fig, win, in == n ? NULL : "bad");
}

void dash_section_paths(struct dash *d)
{
	int64_t *ts = calloc(d->ns + 1, sizeof(*ts));
	int64_t *e = calloc(2 * d->ns + 1, sizeof(*e));
	bool any_user = false;
	size_t i, nt = 0, p, v, k;

	if (!ts || !e) {
		free(ts);
		free(e);
		dash_out_of_memory(d);
		return;
	}
	/* The timeouts some userspace path was asked for: the rows. */
	for (i = 0; i < d->ns; i++) {
		if (!headline(d, &d->s[i]) || dash_kernel(d, &d->s[i]))
			continue;
		any_user = true;
		for (k = 0; k < nt && ts[k] != d->s[i].s->timeout_ms; k++)
			;
		if (k == nt)
			ts[nt++] = d->s[i].s->timeout_ms;
	}
	qsort(ts, nt, sizeof(*ts), hzrig_cmp_i64);
	dash_out(d, "<section id=\"paths\">\n<h2>Kernel, usbfs and libusb</h2>\n"
	    "<p class=\"lead\">The same NAKed bulk IN call with timeout T, made"
	    " by the host driver (<code>usb_bulk_msg()</code>), from userspace"
	    " through usbfs (<code>USBDEVFS_BULK</code>), and through"
	    " libusb-1.0 (<code>libusb_bulk_transfer()</code>, and"
	    " <code>libusb_submit_transfer()</code> completed by its event"
	    " loop). usbfs waits on the same jiffies and timer wheel as the"
	    " kernel; libusb times the transfer on its own timerfd, so its"
	    " window is T plus one cancel round trip at every HZ. Each cell: the"
	    " median wait, how many calls were inside their path's window, the"
	    " window, and the median time a call spent around its URB (its"
	    " wait less the URB's lifetime as usbmon saw it).</p>\n");
	if (!any_user) {
		dash_out(d, "<p class=\"note\">This run made no userspace calls"
		    " (a plan without <code>path=</code>, or recorded before"
		    " the userspace paths existed).</p>\n</section>\n");
		free(ts);
		free(e);
		return;
	}
	dash_out(d, "<table class=\"paths\">\n<thead><tr><th>path</th><th>T ms</th>");
	for (v = 0; v < d->nv; v++) {
		dash_out(d, "<th>");
		dash_esc(d, dash_S(d, d->v[v].name));
		dash_out(d, " <span class=\"muted\">HZ=%d</span></th>", d->v[v].lv->hz);
	}
	dash_out(d, "</tr></thead>\n<tbody>\n");
	for (p = 0; p < HZRIG_PATH_COUNT; p++) {
		const char *pn = hzrig_path_name((uint32_t)p);

		for (k = 0; k < nt; k++) {
			dash_out(d, "<tr><td><code>%s</code></td><td>%" PRId64
			    "</td>", pn, ts[k]);
			for (v = 0; v < d->nv; v++)
				cell(d, pn, ts[k], v, e);
			dash_out(d, "</tr>\n");
		}
	}
	dash_out(d, "</tbody>\n</table>\n</section>\n");
	free(ts);
	free(e);
}
