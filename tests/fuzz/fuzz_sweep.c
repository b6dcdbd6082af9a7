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
 *      accepts, and each of its shapes, fits and is a device file whose
 *      descriptors can be built;
 *   3  a device file (gadget/device_file.c: hzrig-rawdev's and
 *      hzrig-gadget's), and the descriptors built from what it accepts,
 *      their wTotalLength their length.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "sweep/sweep.h"
#include "device_file.h"

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

/* A device file's descriptors: built whole, or refused as too big. */
static void descriptors(const struct hzg_device_file *d)
{
	static uint8_t b[HZG_DEV_MAX_BYTES];
	size_t n;

	for (int hs = 0; hs < 2; hs++) {
		n = hzg_dev_config_desc(d, b, sizeof(b), hs);
		if (n && (n < USB_DT_CONFIG_SIZE || (size_t)(b[2] | b[3] << 8) != n))
			abort();
	}
	if (hzg_dev_device_desc(d, b, sizeof(b)) != USB_DT_DEVICE_SIZE)
		abort();
}

static void alias(const char *text)
{
	static struct hzg_device_file d;
	struct hzrig_usb_id id;
	char why[160], buf[4096];

	if (hzrig_usb_id_parse(text, &id, why, sizeof(why)) != 1)
		return;
	for (unsigned int s = 0; s <= HZRIG_SWEEP_SHAPES; s++) {
		size_t n = s ? hzrig_usb_id_shape(&id, text, s, buf, sizeof(buf)) :
			       hzrig_usb_id_device(&id, text, 0, buf, sizeof(buf));

		if (!n)
			continue;
		if (!strstr(buf, "\ndevice vendor=") || hzg_dev_parse(&d, buf, why, sizeof(why)))
			abort();
		descriptors(&d);
	}
}

static void device_file(const char *text)
{
	static struct hzg_device_file d;
	char why[160];

	if (!hzg_dev_parse(&d, text, why, sizeof(why)))
		descriptors(&d);
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
	switch (data[0] % 4) {
	case 0:
		batch(text);
		break;
	case 1:
		sweep_json(text);
		break;
	case 2:
		alias(text);
		break;
	default:
		device_file(text);
	}
	free(text);
	return 0;
}
