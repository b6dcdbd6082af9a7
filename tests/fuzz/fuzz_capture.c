// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the JSON-lines reader of the guest's capture
 * (rig/collect/capture.c, hzrig_capture_parse()), the first thing that touches
 * what a guest printed. Every input must parse or be refused line by line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "collect/collect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hzrig_capture c;
	FILE *f, *err;
	size_t i;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	err = fopen("/dev/null", "w");
	if (!f || !err)
		abort();
	hzrig_capture_parse(f, "fuzz.jsonl", &c, err);
	/* What was kept is in range: the window and allowance code trusts it. */
	for (i = 0; i < c.nrecs; i++)
		if (c.recs[i].s.elapsed_ns < 0 ||
		    c.recs[i].s.elapsed_ns > HZRIG_NS_MAX)
			abort();
	for (i = 0; i < c.nrecs; i++)
		(void)hzrig_case_allowance(&c, c.recs[i].s.case_idx, 0, NULL);
	hzrig_capture_free(&c);
	fclose(f);
	fclose(err);
	return 0;
}
