// SPDX-License-Identifier: GPL-2.0
/*
 * The driver sweep as KCIDB v4.4 (docs/sweep.md, docs/kcidb.md): one
 * checkout (the tree the sweep's variants were built from), one build per
 * variant, and per variant a test per driver and a test per NAKed site.
 *
 *   hzrig.sweep.<module>                  PASS: the probe ended (bound or
 *                                          failed, the device's doing) and
 *                                          blocked no more than 10 s;
 *                                          FAIL: a probe longer than that
 *                                          or a kernel report in its batch;
 *                                          SKIP: firmware missing, not bound
 *                                          or not enumerated (not reached)
 *   hzrig.sweep.<module>.<file>_<line>    PASS, or FAIL when the site is
 *                                          HZ-dependent; its number is the
 *                                          wait, in ms
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/io.h"
#include "lib/json.h"
#include "output/kcidb/kcidb.h"
#include "sweep/sweep.h"

/* A path element: letters, digits and '_' only. */
static void word(char *buf, size_t n, const char *s)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < n; i++)
		buf[i] = isalnum((unsigned char)s[i]) ? s[i] : '_';
	buf[i] = 0;
}

static json_object *test_base(const char *origin, const struct hzrig_sweep_run *r,
			      const char *what, const char *path,
			      const char *status)
{
	json_object *o = json_object_new_object(), *e = json_object_new_object();
	char id[2048];

	snprintf(id, sizeof(id), "%s:sweep-%s/%s/%s", origin, r->sweep_id, r->variant, what);
	json_object_object_add(o, "id", hzrig_json_str(id));
	snprintf(id, sizeof(id), "%s:sweep-%s/%s", origin, r->sweep_id, r->variant);
	json_object_object_add(o, "build_id", hzrig_json_str(id));
	json_object_object_add(o, "origin", hzrig_json_str(origin));
	json_object_object_add(o, "path", hzrig_json_str(path));
	json_object_object_add(o, "status", hzrig_json_str(status));
	snprintf(id, sizeof(id), "QEMU %s guest, raw-gadget devices, HZ=%d",
		 HZRIG_KCIDB_ARCH, r->hz);
	json_object_object_add(e, "comment", hzrig_json_str(id));
	json_object_object_add(o, "environment", e);
	return o;
}

static const char *driver_status(const struct hzrig_sweep_run *r,
				 const struct hzrig_sweep_rdriver *d)
{
	/* a report, a long probe, a loop or a hang is a finding */
	if (d->nreports || r->batches[d->batch].nreports || hzrig_sweep_long_probe(d) ||
	    !strcmp(d->outcome, "contained") || !strcmp(d->outcome, "hung the guest"))
		return "FAIL";
	if (!strcmp(d->outcome, "bound") || !strcmp(d->outcome, "probe failed"))
		return "PASS";
	return "SKIP";
}

static void driver_tests(const char *origin, const struct hzrig_sweep_run *r,
			 json_object *tests)
{
	for (size_t i = 0; i < r->ndrivers; i++) {
		const struct hzrig_sweep_rdriver *d = &r->drivers[i];
		char path[160], w[64];
		json_object *t, *m;

		word(w, sizeof(w), d->module);
		snprintf(path, sizeof(path), "hzrig.sweep.%s", w);
		t = test_base(origin, r, d->module, path, driver_status(r, d));
		if (d->probe_ns != HZRIG_ABSENT) {
			json_object *num = json_object_new_object();

			json_object_object_add(num, "value", hzrig_json_ms_trim(d->probe_ns));
			json_object_object_add(num, "unit", hzrig_json_str("ms"));
			json_object_object_add(t, "number", num);
		}
		m = json_object_new_object();
		json_object_object_add(m, "outcome", hzrig_json_str(d->outcome));
		if (d->err != HZRIG_ABSENT)
			json_object_object_add(m, "errno", hzrig_json_int(d->err));
		if (d->firmware[0])
			json_object_object_add(m, "firmware", hzrig_json_str(d->firmware));
		if (d->diagnosis[0])
			json_object_object_add(m, "diagnosis", hzrig_json_str(d->diagnosis));
		if (d->shape)
			json_object_object_add(m, "shape", json_object_new_int(d->shape));
		if (d->firmware_standin[0])
			json_object_object_add(m, "firmware_standin",
					       hzrig_json_str(d->firmware_standin));
		json_object_object_add(m, "naked", json_object_new_int(d->nak));
		json_object_object_add(m, "stalled", json_object_new_int(d->stall));
		json_object_object_add(t, "misc", m);
		json_object_array_add(tests, t);
	}
}

static void site_tests(const char *origin, const struct hzrig_sweep_run *runs,
		       int nruns, const struct hzrig_sweep_site *s, size_t ns,
		       json_object *tests)
{
	for (size_t i = 0; i < ns; i++) {
		for (int v = 0; v < nruns; v++) {
			const struct hzrig_sweep_site_hz *h = &s[i].per[v];
			char path[400], what[400], w[64], sw[256];
			json_object *t, *num, *m;

			if (!h->n)
				continue;
			word(w, sizeof(w), s[i].module);
			word(sw, sizeof(sw), s[i].site);
			snprintf(path, sizeof(path), "hzrig.sweep.%s.%s", w, sw);
			snprintf(what, sizeof(what), "%s/%s", s[i].module, sw);
			t = test_base(origin, &runs[v], what, path,
				      s[i].dependent ? "FAIL" : "PASS");
			num = json_object_new_object();
			json_object_object_add(num, "value", hzrig_json_ms_trim(h->median_ns));
			json_object_object_add(num, "unit", hzrig_json_str("ms"));
			json_object_object_add(t, "number", num);
			m = json_object_new_object();
			json_object_object_add(m, "site", hzrig_json_str(s[i].site));
			json_object_object_add(m, "function", hzrig_json_str(s[i].function));
			json_object_object_add(m, "timeout_arg", json_object_new_int(h->timeout_arg));
			json_object_object_add(m, "window_lo_ms", hzrig_json_ms_trim((int64_t)h->lo));
			json_object_object_add(m, "window_hi_ms", hzrig_json_ms_trim((int64_t)h->hi));
			json_object_object_add(m, "hz_dependent", json_object_new_boolean(s[i].dependent));
			json_object_object_add(m, "why", hzrig_json_str(s[i].why));
			json_object_object_add(t, "misc", m);
			json_object_array_add(tests, t);
		}
	}
}

static json_object *document(const char *origin, const struct hzrig_sweep_run *runs,
			     int n, const struct hzrig_sweep_site *s, size_t ns)
{
	json_object *doc = json_object_new_object(), *ver = json_object_new_object();
	json_object *cos = json_object_new_array(), *builds = json_object_new_array();
	json_object *tests = json_object_new_array(), *co = json_object_new_object();
	char id[1600];

	json_object_object_add(ver, "major", json_object_new_int(HZRIG_KCIDB_MAJOR));
	json_object_object_add(ver, "minor", json_object_new_int(HZRIG_KCIDB_MINOR));
	json_object_object_add(doc, "version", ver);
	snprintf(id, sizeof(id), "%s:sweep-%s", origin, runs[0].sweep_id);
	json_object_object_add(co, "id", hzrig_json_str(id));
	json_object_object_add(co, "origin", hzrig_json_str(origin));
	snprintf(id, sizeof(id), "driver sweep %s: Linux %s tree", runs[0].sweep_id,
		 runs[0].tree_model);
	json_object_object_add(co, "comment", hzrig_json_str(id));
	json_object_object_add(co, "valid", json_object_new_boolean(1));
	json_object_array_add(cos, co);
	for (int v = 0; v < n; v++) {
		json_object *b = json_object_new_object();

		snprintf(id, sizeof(id), "%s:sweep-%s/%s", origin, runs[v].sweep_id,
			 runs[v].variant);
		json_object_object_add(b, "id", hzrig_json_str(id));
		snprintf(id, sizeof(id), "%s:sweep-%s", origin, runs[0].sweep_id);
		json_object_object_add(b, "checkout_id", hzrig_json_str(id));
		json_object_object_add(b, "origin", hzrig_json_str(origin));
		json_object_object_add(b, "architecture", hzrig_json_str(HZRIG_KCIDB_ARCH));
		json_object_object_add(b, "config_name", hzrig_json_str(runs[v].variant));
		json_object_object_add(b, "valid", json_object_new_boolean(1));
		json_object_array_add(builds, b);
		driver_tests(origin, &runs[v], tests);
	}
	site_tests(origin, runs, n, s, ns, tests);
	json_object_object_add(doc, "checkouts", cos);
	json_object_object_add(doc, "builds", builds);
	json_object_object_add(doc, "tests", tests);
	return doc;
}

/* Options, each file through the sweep loader, one sweep, one write. */
int hzrig_kcidb_sweep(const char *origin, const char *out, char **files, int n)
{
	struct hzrig_sweep_run runs[HZRIG_SWEEP_RUNS_MAX];
	struct hzrig_sweep_site *sites = NULL;
	size_t ns = 0;
	char why[HZRIG_WHY];
	json_object *doc;
	int i, rc = 2, loaded = 0;

	if (n < 1 || n > HZRIG_SWEEP_RUNS_MAX) {
		fprintf(stderr, "hzrig report --kcidb --sweep: 1 to %d sweep.json files\n",
			HZRIG_SWEEP_RUNS_MAX);
		return 2;
	}
	for (i = 0; i < n; i++) {
		if (hzrig_sweep_load_file(files[i], &runs[i], why, sizeof(why))) {
			fprintf(stderr, "hzrig report --kcidb --sweep: %s: %s\n", files[i], why);
			goto out;
		}
		loaded++;
		if (strcmp(runs[i].sweep_id, runs[0].sweep_id)) {
			fprintf(stderr, "hzrig report --kcidb --sweep: %s: sweep %s, not %s: one sweep per document\n",
				files[i], runs[i].sweep_id, runs[0].sweep_id);
			goto out;
		}
	}
	if (hzrig_sweep_sites(runs, n, &sites, &ns))
		goto out;
	doc = document(origin ? origin : HZRIG_KCIDB_ORIGIN, runs, n, sites, ns);
	rc = hzrig_kcidb_write(doc, out, stderr) ? 2 : 0;
	json_object_put(doc);
out:
	for (i = 0; i < loaded; i++)
		hzrig_sweep_run_free(&runs[i]);
	free(sites);
	return rc;
}
