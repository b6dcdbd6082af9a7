// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the driver sweep's readers (rig/sweep/). The first
 * byte picks one:
 *   0  a guest batch's lines (guest.c; what a buggy or hostile guest
 *      prints on ttyS1 or its console): never a crash, leak or overflow,
 *      and every call it returns within its batch's drivers and limits;
 *   1  a sweep.json (load.c, what report, ingest, the dashboard and KCIDB
 *      read): what it accepts has drivers whose batch exists, outcomes it
 *      knows and windows in order, and the site rule runs on it;
 *   2  a modules.alias line (ids.c), and the device built from what it
 *      accepts fits and is a device file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "sweep/sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void batch(const char *text)
{
	struct hzrig_sweep_batch b;
	char why[160];

	if (hzrig_sweep_batch_parse(text, &b, why, sizeof(why)))
		return;
	for (size_t i = 0; i < b.ncall; i++) {
		const struct hzrig_sweep_call *c = &b.call[i];

		if (c->nchain < 0 || c->nchain > HZRIG_SWEEP_CHAIN ||
		    strlen(c->where) >= sizeof(c->where) || c->kind >= HZRIG_CALL_KINDS)
			abort();
		if (c->module[0] && (c->bus < 1 || (size_t)c->bus > b.ndrv))
			abort();
		/* a call's timer is one its own task armed, and a sighting */
		if (c->has_timer && (c->timer.pid != c->pid || !b.ntimers))
			abort();
	}
	if (b.ntimers > b.timercap)
		abort();
	hzrig_sweep_batch_free(&b);
}

static void sweep_json(const char *text)
{
	struct hzrig_sweep_run r;
	struct hzrig_sweep_site *s;
	size_t n;
	char why[256];

	if (hzrig_sweep_load(text, &r, why, sizeof(why)))
		return;
	for (size_t i = 0; i < r.ndrivers; i++) {
		if (r.drivers[i].batch < 0 || (size_t)r.drivers[i].batch >= r.nbatches)
			abort();
		for (size_t k = 0; k < r.drivers[i].ncalls; k++) {
			const struct hzrig_sweep_rcall *c = &r.drivers[i].calls[k];

			if (c->window_lo_ns != HZRIG_ABSENT && c->window_hi_ns < c->window_lo_ns)
				abort();
		}
	}
	if (!hzrig_sweep_sites(&r, 1, &s, &n))
		free(s);
	hzrig_sweep_run_free(&r);
}

static void alias(const char *text)
{
	struct hzrig_usb_id id;
	char why[160], buf[4096];

	if (hzrig_usb_id_parse(text, &id, why, sizeof(why)) == 1 &&
	    hzrig_usb_id_device(&id, text, buf, sizeof(buf)) > 0 &&
	    !strstr(buf, "\ndevice vendor="))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;

	if (!size)
		return 0;
	text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = 0;
	switch (data[0] % 3) {
	case 0:
		batch(text);
		break;
	case 1:
		sweep_json(text);
		break;
	default:
		alias(text);
	}
	free(text);
	return 0;
}
