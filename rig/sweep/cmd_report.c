// SPDX-License-Identifier: GPL-2.0
/*
 * hzrig sweep report: the sweep's answer across variants (docs/sweep.md,
 * "The report"): every driver's outcome and probe time per HZ, every site
 * that was NAKed with its waits against the model, the sites whose waits
 * depend on HZ (judge.c), the NAKed calls outside their window with the
 * reason, probes that blocked for more than 10 s, kernel
 * reports, and the sites beside check-tree's.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/io.h"
#include "lib/json.h"
#include "lib/opts.h"
#include "lib/table.h"
#include "lib/util.h"
#include "sweep/sweep.h"


struct report {
	struct hzrig_sweep_run run[HZRIG_SWEEP_RUNS_MAX];
	int n;
	struct hzrig_sweep_site *s;
	size_t ns;
	bool *checker_has;	/* per site: check-tree names it too */
	json_object *checker;	/* check-tree --json, or NULL */
};

static void report_usage(FILE *f)
{
	fputs("usage: hzrig sweep report [--check-tree FILE] [--format table|json]\n"
	      "                          SWEEP.JSON...\n"
	      "Each SWEEP.JSON is one variant's (hzrig sweep collect), at most 8.\n"
	      "Prints the drivers, the NAKed sites and their waits per HZ, the\n"
	      "HZ-dependent sites, probes longer than 10 s, kernel reports and,\n"
	      "with --check-tree (hzrig check-tree --json), the sites found by\n"
	      "both, by the sweep only and by the checker only.\n"
	      "Exit: 0, 1 when a site is HZ-dependent, 2 on bad input.\n", f);
}

static const char *str(json_object *o, const char *k)
{
	json_object *v;

	return json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_string) ?
	       json_object_get_string(v) : "";
}

/* Does check-tree name @site (or one of @stack's)? */
static bool checker_has(json_object *checker, const char *site)
{
	json_object *sites;

	if (!checker || !json_object_object_get_ex(checker, "sites", &sites))
		return false;
	for (size_t i = 0; i < json_object_array_length(sites); i++)
		if (!strcmp(str(json_object_array_get_idx(sites, i), "site"), site))
			return true;
	return false;
}

/* Every driver of any variant, once, each with its figures per HZ. */
static json_object *driver_rows(struct report *r, bool print)
{
	json_object *a = json_object_new_array();

	if (print)
		printf("Drivers: outcome, probe time, NAKed/STALLed class and vendor requests, per HZ\n");
	for (int v0 = 0; v0 < r->n; v0++) {
		for (size_t i = 0; i < r->run[v0].ndrivers; i++) {
			const char *mod = r->run[v0].drivers[i].module;
			json_object *o, *per;
			bool seen = false;

			for (int w = 0; w < v0 && !seen; w++)
				seen = hzrig_sweep_driver(&r->run[w], mod) != NULL;
			if (seen)
				continue;
			o = json_object_new_object();
			per = json_object_new_object();
			if (print)
				printf("  %-20s", mod);
			for (int v = 0; v < r->n; v++) {
				const struct hzrig_sweep_rdriver *d = hzrig_sweep_driver(&r->run[v], mod);
				json_object *x;
				char key[16];

				if (!d)
					continue;
				x = json_object_new_object();
				hzrig_json_put(x, "outcome", hzrig_json_str(d->outcome));
				hzrig_json_put(x, "errno", d->err == HZRIG_ABSENT ? NULL :
					       hzrig_json_int(d->err));
				hzrig_json_put(x, "firmware", d->firmware[0] ?
					       hzrig_json_str(d->firmware) : NULL);
				hzrig_json_put(x, "probe_ms", hzrig_json_ms(d->probe_ns));
				hzrig_json_put(x, "nak", json_object_new_int(d->nak));
				hzrig_json_put(x, "stall", json_object_new_int(d->stall));
				hzrig_json_put(x, "unplugged", json_object_new_boolean(d->unplugged));
				hzrig_json_put(x, "diagnosis", d->diagnosis[0] ?
					       hzrig_json_str(d->diagnosis) : NULL);
				hzrig_json_put(x, "firmware_standin", d->firmware_standin[0] ?
					       hzrig_json_str(d->firmware_standin) : NULL);
				hzrig_json_put(x, "walk_passes", d->walk_passes == HZRIG_ABSENT ? NULL :
					       hzrig_json_int(d->walk_passes));
				hzrig_json_put(x, "shape", d->shape ? json_object_new_int(d->shape) : NULL);
				{
					json_object *op = json_object_new_array();

					for (int k = 0; k < d->nopened; k++)
						json_object_array_add(op, hzrig_json_str(d->opened[k]));
					hzrig_json_put(x, "opened", op);
				}
				{
					json_object *rep = json_object_new_array();

					for (int k = 0; k < d->nreports; k++)
						json_object_array_add(rep, hzrig_json_str(d->reports[k]));
					hzrig_json_put(x, "reports", rep);
				}
				snprintf(key, sizeof(key), "%d", r->run[v].hz);
				json_object_object_add(per, key, x);
				if (print) {
					char shape[16] = "";

					/* bound in another shape than the default */
					if (d->shape && !strcmp(d->outcome, "bound"))
						snprintf(shape, sizeof(shape), " (shape %d)", d->shape);
					printf("  HZ=%-4d %-16s%s%s %9.1f ms %2d/%-2d", r->run[v].hz,
					       d->outcome, d->firmware_standin[0] ? " (fw stand-in)" : "",
					       shape, d->probe_ns == HZRIG_ABSENT ? -1.0 :
					       d->probe_ns / 1e6, d->nak, d->stall);
				}
			}
			if (print)
				putchar('\n');
			hzrig_json_put(o, "module", hzrig_json_str(mod));
			hzrig_json_put(o, "per_hz", per);
			json_object_array_add(a, o);
		}
	}
	return a;
}

static json_object *site_rows(struct report *r, bool print)
{
	json_object *a = json_object_new_array();

	if (print)
		printf("\nNAKed sites (median wait against the model's window, per HZ):\n");
	for (size_t i = 0; i < r->ns; i++) {
		const struct hzrig_sweep_site *s = &r->s[i];
		json_object *o = json_object_new_object(), *per = json_object_new_object();

		r->checker_has[i] = checker_has(r->checker, s->site);
		if (print)
			printf("  %s%s %s (%s)%s\n", s->dependent ? "HZ-DEPENDENT " : "",
			       s->module, s->site, s->function,
			       r->checker_has[i] ? " [check-tree too]" : "");
		for (int v = 0; v < r->n; v++) {
			const struct hzrig_sweep_site_hz *h = &s->per[v];
			json_object *x;
			char key[16];

			if (!h->n)
				continue;
			x = json_object_new_object();
			hzrig_json_put(x, "timeout_arg", json_object_new_int(h->timeout_arg));
			hzrig_json_put(x, "n", json_object_new_int(h->n));
			hzrig_json_put(x, "inside", json_object_new_int(h->inside));
			hzrig_json_put(x, "median_ms", hzrig_json_ms(h->median_ns));
			hzrig_json_put(x, "window_lo_ms", hzrig_json_ms((int64_t)h->lo));
			hzrig_json_put(x, "window_hi_ms", hzrig_json_ms((int64_t)h->hi));
			snprintf(key, sizeof(key), "%d", h->hz);
			json_object_object_add(per, key, x);
			if (print)
				printf("      HZ=%-4d timeout %6d: %10.3f ms, window (%.3f, %.3f] ms, %d/%d inside\n",
				       h->hz, h->timeout_arg, h->median_ns / 1e6, h->lo / 1e6,
				       h->hi / 1e6, h->inside, h->n);
		}
		if (print)
			printf("      %s\n", s->why);
		hzrig_json_put(o, "module", hzrig_json_str(s->module));
		hzrig_json_put(o, "site", hzrig_json_str(s->site));
		hzrig_json_put(o, "function", hzrig_json_str(s->function));
		hzrig_json_put(o, "hz_dependent", json_object_new_boolean(s->dependent));
		hzrig_json_put(o, "why", hzrig_json_str(s->why));
		hzrig_json_put(o, "check_tree", json_object_new_boolean(r->checker_has[i]));
		hzrig_json_put(o, "per_hz", per);
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *long_probes(struct report *r, bool print)
{
	json_object *a = json_object_new_array();

	if (print)
		printf("\nProbes that blocked for more than 10 s:\n");
	for (int v = 0; v < r->n; v++) {
		for (size_t i = 0; i < r->run[v].ndrivers; i++) {
			const struct hzrig_sweep_rdriver *d = &r->run[v].drivers[i];
			char waits[256] = "";
			size_t wl = 0;
			json_object *o;

			if (!hzrig_sweep_long_probe(d))
				continue;
			for (size_t k = 0; k < d->ncalls && wl < 200; k++)
				if (d->calls[k].ret == -110)
					wl += (size_t)snprintf(waits + wl, sizeof(waits) - wl, "%s%d",
							       wl ? ", " : "", d->calls[k].timeout_arg);
			o = json_object_new_object();
			hzrig_json_put(o, "module", hzrig_json_str(d->module));
			hzrig_json_put(o, "hz", json_object_new_int(r->run[v].hz));
			hzrig_json_put(o, "probe_ms", hzrig_json_ms(d->probe_ns));
			hzrig_json_put(o, "timeouts", hzrig_json_str(waits));
			json_object_array_add(a, o);
			if (print)
				printf("  %-20s HZ=%-4d %9.1f ms, timed out with timeouts %s\n",
				       d->module, r->run[v].hz, d->probe_ns / 1e6,
				       waits[0] ? waits : "(none: other waits)");
		}
	}
	if (print && !json_object_array_length(a))
		printf("  none\n");
	return a;
}

/*
 * Why a NAKed call's wait fell outside its window, as far as the record
 * tells: after hi (and the batch's allowance) it is late; before lo it
 * is early, with or without a timer the trace saw armed on time. A call
 * armed on stale jiffies had its lo lowered by collect, so it is only
 * early if it ended before even that.
 */
static const char *outside_reason(const struct hzrig_sweep_rcall *k)
{
	if (k->urb_ns > k->window_hi_ns)
		return "late: past the window and the batch's noise allowance";
	if (k->jiffies_lag == HZRIG_ABSENT)
		return "early: no timer_start seen for it, so no record of the jiffies it was armed against";
	if (k->jiffies_lag > 0)
		return "early: earlier still than its stale jiffies allow";
	return "early: armed on jiffies that were on time";
}

/*
 * The goal "every NAKed sample inside its window, or listed with its
 * reason": the calls outside, each with why; and how many calls are
 * inside only because they were armed on stale jiffies (their lo lowered).
 */
static json_object *outside_rows(struct report *r, bool print)
{
	json_object *a = json_object_new_array();
	int stale = 0, judged = 0;

	if (print)
		printf("\nNAKed calls outside their window:\n");
	for (int v = 0; v < r->n; v++) {
		for (size_t i = 0; i < r->run[v].ndrivers; i++) {
			const struct hzrig_sweep_rdriver *d = &r->run[v].drivers[i];

			for (size_t k = 0; k < d->ncalls; k++) {
				const struct hzrig_sweep_rcall *c = &d->calls[k];
				json_object *o;

				if (!c->verdict[0])
					continue;
				judged++;
				stale += c->jiffies_lag != HZRIG_ABSENT && c->jiffies_lag > 0;
				if (!strcmp(c->verdict, "inside"))
					continue;
				o = json_object_new_object();
				hzrig_json_put(o, "module", hzrig_json_str(d->module));
				hzrig_json_put(o, "hz", json_object_new_int(r->run[v].hz));
				hzrig_json_put(o, "site", hzrig_json_str(c->site[0] ? c->site : c->where));
				hzrig_json_put(o, "timeout_arg", json_object_new_int(c->timeout_arg));
				hzrig_json_put(o, "wait_ms", hzrig_json_ms(c->urb_ns));
				hzrig_json_put(o, "window_lo_ms", hzrig_json_ms(c->window_lo_ns));
				hzrig_json_put(o, "window_hi_ms", hzrig_json_ms(c->window_hi_ns));
				hzrig_json_put(o, "jiffies_lag", c->jiffies_lag == HZRIG_ABSENT ?
					       NULL : hzrig_json_int(c->jiffies_lag));
				hzrig_json_put(o, "reason", hzrig_json_str(outside_reason(c)));
				json_object_array_add(a, o);
				if (print)
					printf("  %-20s HZ=%-4d %s timeout %d: %.3f ms, window (%.3f, %.3f] ms: %s\n",
					       d->module, r->run[v].hz, c->site[0] ? c->site : c->where,
					       c->timeout_arg, c->urb_ns / 1e6, c->window_lo_ns / 1e6,
					       c->window_hi_ns / 1e6, outside_reason(c));
			}
		}
	}
	if (print) {
		if (!json_object_array_length(a))
			printf("  none\n");
		printf("  (%d NAKed calls judged; %d armed on stale jiffies, their window's lo lowered by as many jiffies)\n",
		       judged, stale);
	}
	return a;
}

/*
 * What the guests saw drivers do beyond their probe's result: a loop or a
 * log flood contained (the device unplugged, the batch went on), a guest
 * hung; then each batch whose guest died, how and when (its last
 * heartbeat), its stream kept.
 */
static json_object *loops_and_hangs(struct report *r, bool print)
{
	json_object *a = json_object_new_array();

	if (print)
		printf("\nLoops, floods and hangs (what the guest saw):\n");
	for (int v = 0; v < r->n; v++)
		for (size_t i = 0; i < r->run[v].ndrivers; i++) {
			const struct hzrig_sweep_rdriver *d = &r->run[v].drivers[i];
			json_object *o;

			if (!d->diagnosis[0])
				continue;
			o = json_object_new_object();
			hzrig_json_put(o, "variant", hzrig_json_str(r->run[v].variant));
			hzrig_json_put(o, "batch", json_object_new_int(d->batch));
			hzrig_json_put(o, "module", hzrig_json_str(d->module));
			hzrig_json_put(o, "outcome", hzrig_json_str(d->outcome));
			hzrig_json_put(o, "diagnosis", hzrig_json_str(d->diagnosis));
			json_object_array_add(a, o);
			if (print)
				printf("  %s %s (%s): %s\n", r->run[v].variant, d->module,
				       d->outcome, d->diagnosis);
		}
	for (int v = 0; v < r->n; v++)
		for (size_t i = 0; i < r->run[v].nbatches; i++) {
			const struct hzrig_sweep_rbatch *b = &r->run[v].batches[i];
			json_object *o;

			if (b->complete)
				continue;
			o = json_object_new_object();
			hzrig_json_put(o, "variant", hzrig_json_str(r->run[v].variant));
			hzrig_json_put(o, "batch", json_object_new_int((int)i));
			hzrig_json_put(o, "ended", hzrig_json_str(b->ended[0] ? b->ended : "unknown"));
			hzrig_json_put(o, "last_alive_ms", b->last_alive_ms == HZRIG_ABSENT ? NULL :
				       hzrig_json_int(b->last_alive_ms));
			json_object_array_add(a, o);
			if (print) {
				printf("  %s batch %zu: its guest ended %s before the batch's end",
				       r->run[v].variant, i, b->ended[0] ? b->ended : "unknown");
				if (b->last_alive_ms != HZRIG_ABSENT)
					printf(" (last heartbeat %.1f s after boot)",
					       b->last_alive_ms / 1e3);
				printf("; what it streamed is kept\n");
			}
		}
	if (print && !json_object_array_length(a))
		printf("  none\n");
	return a;
}

static json_object *kernel_reports(struct report *r, bool print)
{
	json_object *a = json_object_new_array();

	if (print)
		printf("\nKernel reports during the batches:\n");
	/* first each driver's: the reports whose stack names its module */
	for (int v = 0; v < r->n; v++)
		for (size_t i = 0; i < r->run[v].ndrivers; i++) {
			const struct hzrig_sweep_rdriver *d = &r->run[v].drivers[i];

			for (int k = 0; k < d->nreports; k++) {
				json_object *o = json_object_new_object();

				hzrig_json_put(o, "variant", hzrig_json_str(r->run[v].variant));
				hzrig_json_put(o, "batch", json_object_new_int(d->batch));
				hzrig_json_put(o, "module", hzrig_json_str(d->module));
				hzrig_json_put(o, "title", hzrig_json_str(d->reports[k]));
				hzrig_json_put(o, "unplugged", json_object_new_boolean(d->unplugged));
				/* the unplug pass's walk: unplugged under request N */
				hzrig_json_put(o, "request", d->report_request[k] ?
					       json_object_new_int(d->report_request[k]) : NULL);
				json_object_array_add(a, o);
				if (!print)
					continue;
				if (d->report_request[k])
					printf("  %s %s (unplugged under request %d of its probe): %s\n",
					       r->run[v].variant, d->module,
					       d->report_request[k], d->reports[k]);
				else
					printf("  %s %s%s: %s\n", r->run[v].variant, d->module,
					       d->unplugged ? " (unplugged)" : "", d->reports[k]);
			}
		}
	/* then every report's first line, batch by batch */
	for (int v = 0; v < r->n; v++) {
		for (size_t i = 0; i < r->run[v].nbatches; i++) {
			const struct hzrig_sweep_rbatch *b = &r->run[v].batches[i];

			for (size_t k = 0; k < b->nreports; k++) {
				json_object *o = json_object_new_object();

				hzrig_json_put(o, "variant", hzrig_json_str(r->run[v].variant));
				hzrig_json_put(o, "batch", json_object_new_int((int)i));
				hzrig_json_put(o, "line", hzrig_json_str(b->reports[k]));
				json_object_array_add(a, o);
				if (print)
					printf("  %s batch %zu: %s\n", r->run[v].variant, i, b->reports[k]);
			}
		}
	}
	if (print && !json_object_array_length(a))
		printf("  none\n");
	return a;
}

/* The module whose files hold @file, by select.py's list, or "". */
/* Does file name @base (a directory's entry) start with @module's name? */
static bool named_after(const char *base, const char *module)
{
	size_t i;

	for (i = 0; module[i] && base[i]; i++)
		if (module[i] != base[i] &&
		    !((module[i] == '_' || module[i] == '-') && (base[i] == '_' || base[i] == '-')))
			return false;
	return !module[i];
}

/*
 * The kept module @site's file belongs to: the one whose id table is in
 * it, else, for another file of a module (cx231xx-core.c beside the id
 * table's cx231xx-cards.c), the one module kept in that directory, or of
 * several there the one the file is named after. "" for none.
 */
static const char *module_of_file(json_object *select, const char *site)
{
	json_object *kept;
	size_t fl = strcspn(site, ":"), dl;
	const char *slash, *dir_mod = "", *named = "";
	int in_dir = 0;

	if (!select || !json_object_object_get_ex(select, "kept", &kept))
		return "";
	slash = memrchr(site, '/', fl);
	dl = slash ? (size_t)(slash - site) + 1 : 0;
	for (size_t i = 0; i < json_object_array_length(kept); i++) {
		json_object *k = json_object_array_get_idx(kept, i), *files;
		bool here = false;

		if (!json_object_object_get_ex(k, "files", &files))
			continue;
		for (size_t j = 0; j < json_object_array_length(files); j++) {
			const char *f = json_object_get_string(json_object_array_get_idx(files, j));

			if (strlen(f) == fl && !strncmp(f, site, fl))
				return str(k, "module");
			here |= dl && strlen(f) > dl && !strncmp(f, site, dl) &&
				!strchr(f + dl, '/');
		}
		if (here) {
			in_dir++;
			dir_mod = str(k, "module");
			if (named_after(site + dl, dir_mod))
				named = dir_mod;
		}
	}
	return in_dir == 1 ? dir_mod : named;
}

/* The driver @module in the first variant that has it, or NULL. */
static const struct hzrig_sweep_rdriver *driver_of(struct report *r,
						   const char *module)
{
	for (int v = 0; v < r->n; v++) {
		const struct hzrig_sweep_rdriver *d = hzrig_sweep_driver(&r->run[v], module);

		if (d)
			return d;
	}
	return NULL;
}

/* Is @site the site or a stack frame of a call of any variant? */
static bool reached(struct report *r, const char *site)
{
	for (int v = 0; v < r->n; v++)
		for (size_t i = 0; i < r->run[v].ndrivers; i++) {
			const struct hzrig_sweep_rdriver *d = &r->run[v].drivers[i];

			for (size_t k = 0; k < d->ncalls; k++) {
				if (!strcmp(d->calls[k].site, site))
					return true;
				for (int f = 0; f < d->calls[k].nstack; f++)
					if (!strcmp(d->calls[k].stack[f], site))
						return true;
			}
		}
	return false;
}

static void why_unreached(struct report *r, json_object *select,
			  const char *site, char *why, size_t n)
{
	const char *mod = module_of_file(select, site);
	const struct hzrig_sweep_rdriver *d = mod[0] ? driver_of(r, mod) : NULL;

	if (!mod[0])
		snprintf(why, n, "its driver is not in this sweep");
	else if (!d)
		snprintf(why, n, "%s was not built (Kconfig dropped it) or has no device", mod);
	else if (!strcmp(d->outcome, "firmware missing"))
		snprintf(why, n, "%s: behind firmware the guest lacks (%.120s)", mod, d->firmware);
	else if (!strcmp(d->outcome, "bound"))
		snprintf(why, n, "%s bound, but did not make this call in probe or open", mod);
	else if (!strcmp(d->outcome, "probe failed"))
		snprintf(why, n, "%s: probe failed (%" PRId64 ") before this call", mod, d->err);
	else if (d->diagnosis[0] && (!strcmp(d->outcome, "contained") ||
				     !strcmp(d->outcome, "hung the guest")))
		snprintf(why, n, "%s: %.200s", mod, d->diagnosis);
	else if (!strcmp(d->outcome, "kernel report"))
		snprintf(why, n, "%s: a kernel report in its code (%.120s)", mod,
			 d->nreports ? d->reports[0] : "");
	else
		snprintf(why, n, "%s: device %s", mod, d->outcome);
}

/* Three lists, each with its reason, printed and as JSON. */
static json_object *cross_check(struct report *r, json_object *select, bool print)
{
	json_object *o = json_object_new_object(), *both = json_object_new_array();
	json_object *sweep_only = json_object_new_array(), *checker_only = json_object_new_array();
	json_object *sites;
	char why[400];

	if (print)
		printf("\nBeside check-tree:\n");
	for (size_t i = 0; i < r->ns; i++) {
		const struct hzrig_sweep_site *s = &r->s[i];
		json_object *e;

		if (!s->dependent)
			continue;
		e = json_object_new_object();
		hzrig_json_put(e, "site", hzrig_json_str(s->site));
		hzrig_json_put(e, "module", hzrig_json_str(s->module));
		if (r->checker_has[i]) {
			json_object_array_add(both, e);
			if (print)
				printf("  both          %s (%s)\n", s->site, s->module);
			continue;
		}
		snprintf(why, sizeof(why), "the checker does not follow this timeout to HZ: "
			 "a macro or value it cannot read, a wrapper beyond one level, or another file");
		hzrig_json_put(e, "why", hzrig_json_str(why));
		json_object_array_add(sweep_only, e);
		if (print)
			printf("  sweep only    %s (%s): %s\n", s->site, s->module, why);
	}
	if (r->checker && json_object_object_get_ex(r->checker, "sites", &sites)) {
		for (size_t i = 0; i < json_object_array_length(sites); i++) {
			const char *site = str(json_object_array_get_idx(sites, i), "site");
			json_object *e;
			bool dep = false;

			for (size_t k = 0; k < r->ns; k++)
				dep |= r->s[k].dependent && r->checker_has[k] &&
				       !strcmp(r->s[k].site, site);
			if (dep)
				continue;
			if (reached(r, site)) {
				e = json_object_new_object();
				hzrig_json_put(e, "site", hzrig_json_str(site));
				hzrig_json_put(e, "via", hzrig_json_str("reached through a wrapper"));
				json_object_array_add(both, e);
				if (print)
					printf("  both          %s (the sweep's call went through it)\n", site);
				continue;
			}
			why_unreached(r, select, site, why, sizeof(why));
			e = json_object_new_object();
			hzrig_json_put(e, "site", hzrig_json_str(site));
			hzrig_json_put(e, "why", hzrig_json_str(why));
			json_object_array_add(checker_only, e);
			if (print)
				printf("  checker only  %s: %s\n", site, why);
		}
	} else if (print) {
		printf("  (no --check-tree file)\n");
	}
	hzrig_json_put(o, "both", both);
	hzrig_json_put(o, "sweep_only", sweep_only);
	hzrig_json_put(o, "checker_only", checker_only);
	return o;
}

static json_object *load_json(const char *path, const char *what)
{
	char why[HZRIG_WHY];
	size_t len;
	char *t = hzrig_in_slurp(path, HZRIG_MAX_JSON, &len, why, sizeof(why));
	json_object *o;

	if (!t) {
		fprintf(stderr, "hzrig sweep report: %s %s: %s\n", what, path, why);
		return NULL;
	}
	o = json_tokener_parse(t);
	free(t);
	if (!o || !json_object_is_type(o, json_type_object)) {
		fprintf(stderr, "hzrig sweep report: %s %s: not a JSON object\n", what, path);
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* Options, inputs (each checked), then the sections in order. */
int cmd_sweep_report(int argc, char **argv)
{
	struct report r = { .n = 0 };
	const char *checker = NULL, *select_path = NULL;
	enum hzrig_format fmt = HZRIG_FMT_TABLE;
	const struct hzrig_opt opts[] = {
		HZRIG_OPT_S("check-tree", &checker), HZRIG_OPT_S("select", &select_path),
		HZRIG_OPT_F("format", hzrig_format_opt_tj, &fmt), HZRIG_OPT_END,
	};
	json_object *out, *select = NULL;
	char why[HZRIG_WHY];
	bool print;
	int i, rc = 0, dep = 0, every = 0;

	i = hzrig_opts("sweep report", argc, argv, opts, report_usage);
	if (i < 0)
		return HZRIG_OPTS_EXIT(i);
	if (i == argc || argc - i > HZRIG_SWEEP_RUNS_MAX) {
		fprintf(stderr, "hzrig sweep report: give 1 to %d sweep.json files\n", HZRIG_SWEEP_RUNS_MAX);
		report_usage(stderr);
		return 2;
	}
	print = fmt == HZRIG_FMT_TABLE;
	for (; i < argc && !rc; i++) {
		if (hzrig_sweep_load_file(argv[i], &r.run[r.n], why, sizeof(why))) {
			fprintf(stderr, "hzrig sweep report: %s: %s\n", argv[i], why);
			rc = 2;
		} else {
			r.n++;
		}
	}
	if (!rc && checker && !(r.checker = load_json(checker, "--check-tree")))
		rc = 2;
	if (!rc && select_path && !(select = load_json(select_path, "--select")))
		rc = 2;
	if (!rc && (hzrig_sweep_sites(r.run, r.n, &r.s, &r.ns) ||
		    !(r.checker_has = calloc(r.ns + 1, sizeof(bool))))) {
		fprintf(stderr, "hzrig sweep report: out of memory\n");
		rc = 2;
	}
	if (!rc) {
		out = json_object_new_object();
		hzrig_json_put(out, "drivers", driver_rows(&r, print));
		hzrig_json_put(out, "sites", site_rows(&r, print));
		hzrig_json_put(out, "outside", outside_rows(&r, print));
		hzrig_json_put(out, "long_probes", long_probes(&r, print));
		hzrig_json_put(out, "loops_and_hangs", loops_and_hangs(&r, print));
		hzrig_json_put(out, "kernel_reports", kernel_reports(&r, print));
		hzrig_json_put(out, "cross_check", cross_check(&r, select, print));
		for (size_t k = 0; k < r.ns; k++) {
			bool all = true;

			dep += r.s[k].dependent;
			/* measured at every HZ of the report: what the rule can judge */
			for (int v = 0; v < r.n && v < HZRIG_SWEEP_RUNS_MAX; v++)
				all &= r.s[k].per[v].n > 0;
			every += all;
		}
		hzrig_json_put(out, "nak_sites", json_object_new_int((int)r.ns));
		hzrig_json_put(out, "nak_sites_every_hz", json_object_new_int(every));
		if (!print)
			hzrig_json_print(out, stdout);
		else
			printf("\n%zu NAKed sites (%d measured at every HZ), %d HZ-dependent\n",
			       r.ns, every, dep);
		json_object_put(out);
		rc = dep ? 1 : 0;
	}
	for (int v = 0; v < r.n; v++)
		hzrig_sweep_run_free(&r.run[v]);
	json_object_put(r.checker);
	json_object_put(select);
	free(r.s);
	free(r.checker_has);
	return rc;
}
