// SPDX-License-Identifier: GPL-2.0
/*
 * The HZ-dependence rule (sweep.h, docs/sweep.md).
 */
#include <inttypes.h>
#include <stdio.h>

#include "sweep/sweep.h"

static int64_t width(const struct hzrig_site_wait *w)
{
	return (int64_t)(w->hi_ns - w->lo_ns);
}

bool hzrig_sweep_hz_dependent(const struct hzrig_site_wait *a,
			      const struct hzrig_site_wait *b, char *why,
			      size_t n)
{
	int64_t d = a->median_ns - b->median_ns;
	int64_t room = width(a) + width(b) + a->allowance_ns + b->allowance_ns;

	if (d < 0)
		d = -d;
	if (d > room) {
		snprintf(why, n,
			 "waits %.3f ms at HZ=%d (timeout %d) and %.3f ms at HZ=%d (timeout %d) differ by %.3f ms, more than the windows' widths and the noise allow (%.3f ms)",
			 a->median_ns / 1e6, a->hz, a->timeout_arg,
			 b->median_ns / 1e6, b->hz, b->timeout_arg, d / 1e6,
			 room / 1e6);
		return true;
	}
	snprintf(why, n,
		 "waits %.3f ms at HZ=%d and %.3f ms at HZ=%d differ by %.3f ms, within the windows' widths and the noise (%.3f ms)",
		 a->median_ns / 1e6, a->hz, b->median_ns / 1e6, b->hz, d / 1e6,
		 room / 1e6);
	return false;
}
