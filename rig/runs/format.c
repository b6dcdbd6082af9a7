// SPDX-License-Identifier: GPL-2.0
/*
 * A case's figures as every table, CSV and JSON of cases writes them
 * (compare, compare --trees, history --case, the KCIDB export): one
 * formatter, so the same figure reads the same everywhere.
 */
#include <inttypes.h>
#include <stdio.h>

#include "lib/json.h"
#include "runs/runs.h"

void hzrig_case_ms(char *buf, size_t len, int64_t ns, int decimals)
{
	if (ns == HZRIG_ABSENT)
		buf[0] = '\0';
	else
		snprintf(buf, len, "%.*f", decimals, ns / 1e6);
}

void hzrig_case_statuses(char *buf, size_t len,
			 const struct hzrig_case_stats *c, char sep)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < c->nstatus && n < len; i++) {
		int r = snprintf(buf + n, len - n, "%s%" PRId64,
				 i ? (char[]){ sep, 0 } : "", c->status[i].status);

		if (r < 0)
			break;
		n += (size_t)r;
	}
}

void hzrig_case_window(char *buf, size_t len, const struct hzrig_case_stats *c)
{
	if (c->window_lo_ns == HZRIG_ABSENT)
		snprintf(buf, len, "none (no timer)");
	else if (c->expected_status != HZRIG_ABSENT &&
		 c->expected_status != HZRIG_ETIMEDOUT)
		snprintf(buf, len, "<= %.3f", c->window_hi_ns / 1e6);
	else
		snprintf(buf, len, "(%.3f, %.3f]", c->window_lo_ns / 1e6,
			 c->window_hi_ns / 1e6);
}

void hzrig_case_cells(const struct hzrig_case_stats *c,
		      struct hzrig_case_cells *x)
{
	snprintf(x->n, sizeof(x->n), "%zu", c->n);
	hzrig_case_statuses(x->status, sizeof(x->status), c, ',');
	hzrig_case_window(x->window, sizeof(x->window), c);
	hzrig_case_ms(x->p5, sizeof(x->p5), c->p5_ns, 3);
	hzrig_case_ms(x->median, sizeof(x->median), c->median_ns, 3);
	hzrig_case_ms(x->p95, sizeof(x->p95), c->p95_ns, 3);
	hzrig_case_ms(x->max, sizeof(x->max), c->max_ns, 3);
	snprintf(x->inside, sizeof(x->inside), "%zu/%zu", c->inside, c->n);
}

void hzrig_case_percentiles_json(struct json_object *o,
				 const struct hzrig_case_stats *c,
				 struct json_object *(*ms)(int64_t ns))
{
	hzrig_json_put(o, "min_ms", ms(c->min_ns));
	hzrig_json_put(o, "p5_ms", ms(c->p5_ns));
	hzrig_json_put(o, "median_ms", ms(c->median_ns));
	hzrig_json_put(o, "p95_ms", ms(c->p95_ns));
	hzrig_json_put(o, "max_ms", ms(c->max_ns));
}
