// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the plan parser (rig/plan/plan.c), which both the host tool
 * and the guest runner use. Any input is a plan file; the parser must
 * accept it or name the problem, never crash, leak or overflow, and an
 * accepted plan must hold its own limits.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "plan/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hzrig_plan plan;
	char err[256];
	FILE *f;
	size_t i;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	if (!hzrig_plan_parse(f, "fuzz.plan", &plan, err, sizeof(err))) {
		if (!plan.ncases || plan.ncases > HZRIG_PLAN_MAX_CASES ||
		    plan.nsamples > HZRIG_PLAN_MAX_SAMPLES)
			abort();
		for (i = 0; i < plan.ncases; i++)
			if (!hzrig_transfer_name(plan.cases[i].transfer) ||
			    !hzrig_behaviour_name(plan.cases[i].behaviour) ||
			    !hzrig_mode_name(plan.cases[i].mode))
				abort();
		(void)hzrig_plan_wait_ms(&plan, 250);
		hzrig_plan_free(&plan);
	} else if (!err[0]) {
		abort();	/* refused without saying why */
	}
	fclose(f);
	return 0;
}
