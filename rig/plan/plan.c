// SPDX-License-Identifier: GPL-2.0
/*
 * Plan parser. A plan is a list of "case" lines; each list-valued key expands
 * into the cross product, so one line describes a whole family of cases:
 *
 *   case transfer=bulk-in,ctrl-in behaviour=nak mode=ms timeout=1,5,10 reps=5
 *
 * See docs/plans.md for the keys and their limits.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "lib/io.h"
#include "lib/util.h"

#define MAX_LIST	64
#define MAX_LINE	1024

static const char *const path_names[HZRIG_PATH_COUNT] = {
	[HZRIG_PATH_KERNEL] = "kernel",
	[HZRIG_PATH_USBFS] = "usbfs",
	[HZRIG_PATH_LIBUSB_SYNC] = "libusb-sync",
	[HZRIG_PATH_LIBUSB_ASYNC] = "libusb-async",
	[HZRIG_PATH_USBMON] = "usbmon",
};

static const char *const transfer_names[HZRIG_XFER_COUNT] = {
	[HZRIG_XFER_BULK_IN] = "bulk-in",
	[HZRIG_XFER_BULK_OUT] = "bulk-out",
	[HZRIG_XFER_CTRL_IN] = "ctrl-in",
	[HZRIG_XFER_CTRL_OUT] = "ctrl-out",
	[HZRIG_XFER_INT_IN] = "int-in",
	[HZRIG_XFER_BULK_IN_KILLABLE] = "bulk-in-killable",
};

static const char *const behaviour_names[HZRIG_BEH_COUNT] = {
	[HZRIG_BEH_ANSWER] = "answer",
	[HZRIG_BEH_NAK] = "nak",
	[HZRIG_BEH_DELAY] = "delay",
	[HZRIG_BEH_STALL] = "stall",
	[HZRIG_BEH_SHORT] = "short",
};

static const char *const mode_names[HZRIG_MODE_COUNT] = {
	[HZRIG_MODE_MS] = "ms",
	[HZRIG_MODE_LEGACY_JIFFIES] = "legacy-jiffies",
	[HZRIG_MODE_HZ_CONSTANT] = "hz-constant",
	[HZRIG_MODE_ZERO] = "zero",
};

static const char *const parallel_names[HZRIG_PARALLEL_COUNT] = {
	[HZRIG_PARALLEL_SERIAL] = "serial",
	[HZRIG_PARALLEL_LANES] = "lanes",
};

static const char *const lane_names[HZRIG_LANE_COUNT] = {
	[HZRIG_LANE_EP0] = "ep0",
	[HZRIG_LANE_BULK_IN] = "bulk-in",
	[HZRIG_LANE_BULK_OUT] = "bulk-out",
	[HZRIG_LANE_INT_IN] = "int-in",
};

static int lookup(const char *const *names, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (names[i] && !strcmp(names[i], s))
			return (int)i;
	return -1;
}

const char *hzrig_path_name(uint32_t p)
{
	return p < HZRIG_PATH_COUNT ? path_names[p] : NULL;
}

int hzrig_path_parse(const char *s)
{
	return lookup(path_names, HZRIG_PATH_COUNT, s);
}

const char *hzrig_transfer_name(uint32_t t)
{
	return t < HZRIG_XFER_COUNT ? transfer_names[t] : NULL;
}

const char *hzrig_behaviour_name(uint32_t b)
{
	return b < HZRIG_BEH_COUNT ? behaviour_names[b] : NULL;
}

const char *hzrig_mode_name(uint32_t m)
{
	return m < HZRIG_MODE_COUNT ? mode_names[m] : NULL;
}

const char *hzrig_parallel_name(uint32_t p)
{
	return p < HZRIG_PARALLEL_COUNT ? parallel_names[p] : NULL;
}

int hzrig_parallel_parse(const char *s)
{
	return lookup(parallel_names, HZRIG_PARALLEL_COUNT, s);
}

const char *hzrig_lane_name(unsigned int lane)
{
	return lane < HZRIG_LANE_COUNT ? lane_names[lane] : NULL;
}

unsigned int hzrig_transfer_lane(uint32_t transfer)
{
	switch (transfer) {
	case HZRIG_XFER_CTRL_IN:
	case HZRIG_XFER_CTRL_OUT:
		return HZRIG_LANE_EP0;
	case HZRIG_XFER_BULK_IN:
	case HZRIG_XFER_BULK_IN_KILLABLE:
		return HZRIG_LANE_BULK_IN;
	case HZRIG_XFER_BULK_OUT:
		return HZRIG_LANE_BULK_OUT;
	case HZRIG_XFER_INT_IN:
		return HZRIG_LANE_INT_IN;
	}
	return HZRIG_LANE_COUNT;
}

int hzrig_transfer_parse(const char *s)
{
	return lookup(transfer_names, HZRIG_XFER_COUNT, s);
}

int hzrig_behaviour_parse(const char *s)
{
	return lookup(behaviour_names, HZRIG_BEH_COUNT, s);
}

int hzrig_mode_parse(const char *s)
{
	return lookup(mode_names, HZRIG_MODE_COUNT, s);
}

int hzrig_expected_status(uint32_t behaviour, uint32_t delay_us,
			  uint32_t timeout_ms)
{
	switch (behaviour) {
	case HZRIG_BEH_NAK:
		return -ETIMEDOUT;
	case HZRIG_BEH_STALL:
		return -EPIPE;
	case HZRIG_BEH_DELAY:
		return (uint64_t)delay_us < (uint64_t)timeout_ms * 1000 ?
			0 : -ETIMEDOUT;
	default:
		return 0;
	}
}

/*
 * What a timeout of 0 waits on @c's path, in ms: the kernel path clamps it
 * to USB_MAX_SYNCHRONOUS_TIMEOUT, usbfs and libusb wait for ever
 * (docs/model.md §11).
 */
static uint32_t zero_timeout_ms(const struct hzrig_plan_case *c)
{
	return c->path == HZRIG_PATH_KERNEL ? 60000 : UINT32_MAX;
}

int hzrig_case_expected_status(const struct hzrig_plan_case *c)
{
	uint32_t t = c->timeout_ms;

	if (c->mode == HZRIG_MODE_ZERO || (!t && c->path != HZRIG_PATH_KERNEL))
		t = zero_timeout_ms(c);
	return hzrig_expected_status(c->behaviour, c->delay_us, t);
}

struct parse_ctx {
	const char *name;
	int line;
	char *err;
	size_t errlen;
};

static int fail(struct parse_ctx *ctx, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(ctx->err, ctx->errlen, "%s:%d: ", ctx->name, ctx->line);
	if (n < 0 || (size_t)n >= ctx->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(ctx->err + n, ctx->errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

/* A decimal number within [min, max], nothing else. */
static int parse_u32(struct parse_ctx *ctx, const char *key, const char *s,
		     uint32_t min, uint32_t max, uint32_t *out)
{
	unsigned long long v;
	char *end;

	if (!isdigit((unsigned char)*s))
		return fail(ctx, "%s: '%s' is not a number", key, s);
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end)
		return fail(ctx, "%s: '%s' is not a number", key, s);
	if (errno || v < min || v > max)
		return fail(ctx, "%s: %s is out of range %u..%u", key, s,
			    min, max);
	*out = (uint32_t)v;
	return 0;
}

/* Split a comma list in place; every element must be non-empty. */
static int split_list(struct parse_ctx *ctx, const char *key, char *s,
		      char **items, size_t *n)
{
	char *p = s;

	*n = 0;
	for (;;) {
		char *comma = strchr(p, ',');

		if (comma)
			*comma = '\0';
		if (!*p)
			return fail(ctx, "%s: empty element in list", key);
		if (*n == MAX_LIST)
			return fail(ctx, "%s: more than %d values", key,
				    MAX_LIST);
		items[(*n)++] = p;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

struct case_line {
	unsigned int seen;	/* bit i: plan_keys[i] was given */
	uint32_t paths[MAX_LIST];
	uint32_t transfers[MAX_LIST], behaviours[MAX_LIST], modes[MAX_LIST];
	uint32_t timeouts[MAX_LIST];
	size_t npaths, ntransfers, nbehaviours, nmodes, ntimeouts;
	struct hzrig_plan_case tmpl;
	bool have_reps;
};

static int parse_enum_list(struct parse_ctx *ctx, const char *key, char *val,
			   int (*parse)(const char *), uint32_t *out, size_t *n)
{
	char *items[MAX_LIST];
	size_t i;

	if (split_list(ctx, key, val, items, n))
		return -1;
	for (i = 0; i < *n; i++) {
		int v = parse(items[i]);

		if (v < 0)
			return fail(ctx, "%s: unknown value '%s'", key,
				    items[i]);
		out[i] = (uint32_t)v;
	}
	return 0;
}

static int parse_timeouts(struct parse_ctx *ctx, char *val,
			  struct case_line *cl)
{
	char *items[MAX_LIST];
	size_t i;

	if (split_list(ctx, "timeout", val, items, &cl->ntimeouts))
		return -1;
	for (i = 0; i < cl->ntimeouts; i++)
		if (parse_u32(ctx, "timeout", items[i], 0,
			      HZRIG_MAX_TIMEOUT_MS, &cl->timeouts[i]))
			return -1;
	return 0;
}

static const char *const plan_keys[] = {
	"transfer", "behaviour", "mode", "timeout", "reps", "length",
	"delay_us", "short", "phase", "path", "driver",
};

/* A key given twice on one line is an error: neither value may win. */
static int seen_once(struct parse_ctx *ctx, const char *key,
		     struct case_line *cl)
{
	size_t i;

	for (i = 0; i < sizeof(plan_keys) / sizeof(plan_keys[0]); i++) {
		if (strcmp(key, plan_keys[i]))
			continue;
		if (cl->seen & (1u << i))
			return fail(ctx, "%s: given twice on one line", key);
		cl->seen |= 1u << i;
		return 0;
	}
	return fail(ctx, "unknown key '%s'", key);
}

static int parse_key(struct parse_ctx *ctx, char *kv, struct case_line *cl)
{
	struct hzrig_plan_case *t = &cl->tmpl;
	char *val = strchr(kv, '=');

	if (!val || val == kv)
		return fail(ctx, "expected key=value, got '%s'", kv);
	*val++ = '\0';
	if (seen_once(ctx, kv, cl))
		return -1;
	if (!*val)
		return fail(ctx, "%s: missing value", kv);

	if (!strcmp(kv, "path"))
		return parse_enum_list(ctx, kv, val, hzrig_path_parse,
				       cl->paths, &cl->npaths);
	if (!strcmp(kv, "transfer"))
		return parse_enum_list(ctx, kv, val, hzrig_transfer_parse,
				       cl->transfers, &cl->ntransfers);
	if (!strcmp(kv, "behaviour"))
		return parse_enum_list(ctx, kv, val, hzrig_behaviour_parse,
				       cl->behaviours, &cl->nbehaviours);
	if (!strcmp(kv, "mode"))
		return parse_enum_list(ctx, kv, val, hzrig_mode_parse,
				       cl->modes, &cl->nmodes);
	if (!strcmp(kv, "timeout"))
		return parse_timeouts(ctx, val, cl);
	if (!strcmp(kv, "reps")) {
		cl->have_reps = true;
		return parse_u32(ctx, kv, val, 1, HZRIG_MAX_REPS, &t->reps);
	}
	if (!strcmp(kv, "length"))
		return parse_u32(ctx, kv, val, 1, HZRIG_MAX_LENGTH,
				 &t->length);
	if (!strcmp(kv, "delay_us"))
		return parse_u32(ctx, kv, val, 0, HZRIG_MAX_TIMEOUT_MS * 2000u,
				 &t->delay_us);
	if (!strcmp(kv, "short"))
		return parse_u32(ctx, kv, val, 0, HZRIG_MAX_LENGTH,
				 &t->short_length);
	if (!strcmp(kv, "driver")) {
		size_t n = strspn(val, "abcdefghijklmnopqrstuvwxyz0123456789_");

		if (val[n] || n >= sizeof(t->driver))
			return fail(ctx, "driver: '%s' is not a module name (a-z, 0-9, _; under %zu characters)",
				    val, sizeof(t->driver));
		memcpy(t->driver, val, n + 1);
		return 0;
	}
	if (!strcmp(kv, "phase")) {
		if (!strcmp(val, "random"))
			t->flags |= HZRIG_CASE_RANDOM_PHASE;
		else if (!strcmp(val, "tick"))
			t->flags &= ~HZRIG_CASE_RANDOM_PHASE;
		else
			return fail(ctx, "phase: '%s' is neither random nor tick",
				    val);
		return 0;
	}
	return fail(ctx, "unknown key '%s'", kv);
}

static int plan_push(struct parse_ctx *ctx, struct hzrig_plan *plan,
		     const struct hzrig_plan_case *c)
{
	struct hzrig_plan_case *n;

	if (plan->ncases == HZRIG_PLAN_MAX_CASES)
		return fail(ctx, "more than %d cases in the plan",
			    HZRIG_PLAN_MAX_CASES);
	if (plan->nsamples + c->reps > HZRIG_PLAN_MAX_SAMPLES)
		return fail(ctx, "more than %d samples in the plan",
			    HZRIG_PLAN_MAX_SAMPLES);
	plan->nsamples += c->reps;

	n = hzrig_grow(plan->cases, plan->ncases, &plan->cap, 32, sizeof(*n));
	if (!n)
		return fail(ctx, "out of memory");
	plan->cases = n;
	plan->cases[plan->ncases++] = *c;
	return 0;
}

static int check_case(struct parse_ctx *ctx, const struct hzrig_plan_case *c)
{
	if ((c->transfer == HZRIG_XFER_CTRL_IN ||
	     c->transfer == HZRIG_XFER_CTRL_OUT) &&
	    c->length > HZRIG_MAX_CTRL_XFER)
		return fail(ctx, "length: %u is over %d, the most a control transfer carries",
			    c->length, HZRIG_MAX_CTRL_XFER);
	if (c->behaviour == HZRIG_BEH_SHORT &&
	    (c->short_length == 0 || c->short_length >= c->length))
		return fail(ctx, "short: needs 0 < short < length (%u)",
			    c->length);
	if (c->behaviour == HZRIG_BEH_DELAY && !c->delay_us)
		return fail(ctx, "behaviour delay needs delay_us=");
	if (c->transfer == HZRIG_XFER_BULK_IN_KILLABLE &&
	    c->behaviour == HZRIG_BEH_NAK &&
	    (c->mode == HZRIG_MODE_ZERO || c->timeout_ms == 0))
		return fail(ctx, "bulk-in-killable with timeout 0 never times out: the guest would hang");
	if ((c->path == HZRIG_PATH_USBMON) != !!c->driver[0])
		return fail(ctx, "driver= and path=usbmon go together: an in-tree driver's call is timed by usbmon");
	if (c->path == HZRIG_PATH_USBMON) {
		/* the device file holds the request; it can only hold it */
		if (c->behaviour != HZRIG_BEH_NAK)
			return fail(ctx, "path usbmon: only behaviour nak (the device file NAKs the driver's request)");
		if (c->transfer != HZRIG_XFER_CTRL_IN &&
		    c->transfer != HZRIG_XFER_CTRL_OUT)
			return fail(ctx, "path usbmon: only ctrl-in and ctrl-out (the requests a probe makes)");
		return 0;
	}
	if (c->path == HZRIG_PATH_KERNEL)
		return 0;
	/* Userspace has no killable variant and no HZ to get wrong. */
	if (c->transfer == HZRIG_XFER_BULK_IN_KILLABLE)
		return fail(ctx, "path %s: bulk-in-killable is a kernel call (usb_bulk_msg_killable())",
			    hzrig_path_name(c->path));
	if (c->mode != HZRIG_MODE_MS && c->mode != HZRIG_MODE_ZERO)
		return fail(ctx, "path %s: mode %s is a kernel driver's mistake; userspace passes ms or zero",
			    hzrig_path_name(c->path), hzrig_mode_name(c->mode));
	if (c->behaviour == HZRIG_BEH_NAK &&
	    (c->mode == HZRIG_MODE_ZERO || c->timeout_ms == 0))
		return fail(ctx, "path %s: timeout 0 waits forever there: a NAK would hang the guest",
			    hzrig_path_name(c->path));
	return 0;
}

static int expand(struct parse_ctx *ctx, struct case_line *cl,
		  struct hzrig_plan *plan)
{
	size_t p, a, b, m, t;

	if (!cl->ntransfers)
		return fail(ctx, "case without transfer=");
	if (!cl->nbehaviours)
		return fail(ctx, "case without behaviour=");
	if (!cl->ntimeouts)
		return fail(ctx, "case without timeout=");
	if (!cl->have_reps)
		return fail(ctx, "case without reps=");
	if (!cl->nmodes) {
		cl->modes[0] = HZRIG_MODE_MS;
		cl->nmodes = 1;
	}
	if (!cl->npaths) {
		cl->paths[0] = HZRIG_PATH_KERNEL;
		cl->npaths = 1;
	}
	for (p = 0; p < cl->npaths; p++)
	for (a = 0; a < cl->ntransfers; a++)
	for (b = 0; b < cl->nbehaviours; b++)
	for (m = 0; m < cl->nmodes; m++)
	for (t = 0; t < cl->ntimeouts; t++) {
		struct hzrig_plan_case c = cl->tmpl;

		c.path = cl->paths[p];
		c.transfer = cl->transfers[a];
		c.behaviour = cl->behaviours[b];
		c.mode = cl->modes[m];
		c.timeout_ms = cl->timeouts[t];
		c.line = ctx->line;
		if (check_case(ctx, &c) || plan_push(ctx, plan, &c))
			return -1;
	}
	return 0;
}

/*
 * "parallel = serial|lanes" (blanks around '=' optional), once per plan.
 * @rest follows the word "parallel".
 */
static int parse_parallel(struct parse_ctx *ctx, char *rest,
			  struct hzrig_plan *plan)
{
	char *save = NULL, *val, *extra;
	int p;

	rest += strspn(rest, " \t");
	if (*rest != '=')
		return fail(ctx, "parallel: expected 'parallel = serial|lanes'");
	val = strtok_r(rest + 1, " \t\r\n", &save);
	if (!val || *val == '#')
		return fail(ctx, "parallel: missing value (serial or lanes)");
	extra = strtok_r(NULL, " \t\r\n", &save);
	if (extra && *extra != '#')
		return fail(ctx, "parallel: unexpected '%s' after the value",
			    extra);
	p = hzrig_parallel_parse(val);
	if (p < 0)
		return fail(ctx, "parallel: '%s' is neither serial nor lanes",
			    val);
	if (plan->parallel_line)
		return fail(ctx, "parallel: already set on line %d",
			    plan->parallel_line);
	plan->parallel = (uint32_t)p;
	plan->parallel_line = ctx->line;
	return 0;
}

static int parse_line(struct parse_ctx *ctx, char *line,
		      struct hzrig_plan *plan)
{
	struct case_line cl;
	char *save = NULL, *tok;
	size_t skip = strspn(line, " \t");

	if (!strncmp(line + skip, "parallel", 8) &&
	    strchr(" \t=\r\n", line[skip + 8]))
		return parse_parallel(ctx, line + skip + 8, plan);
	tok = strtok_r(line, " \t\r\n", &save);
	if (!tok || *tok == '#')
		return 0;
	if (strcmp(tok, "case"))
		return fail(ctx, "unknown directive '%s' (expected 'case' or 'parallel')",
			    tok);

	memset(&cl, 0, sizeof(cl));
	cl.tmpl.length = 64;
	cl.tmpl.flags = HZRIG_CASE_RANDOM_PHASE;
	while ((tok = strtok_r(NULL, " \t\r\n", &save))) {
		if (*tok == '#')
			break;
		if (parse_key(ctx, tok, &cl))
			return -1;
	}
	return expand(ctx, &cl, plan);
}

int hzrig_plan_parse(FILE *f, const char *name, struct hzrig_plan *plan,
		     char *err, size_t errlen)
{
	struct parse_ctx ctx = { .name = name, .err = err, .errlen = errlen };
	char *line = NULL, *nul;
	size_t cap = 0;
	ssize_t len;

	memset(plan, 0, sizeof(*plan));
	while ((len = getline(&line, &cap, f)) >= 0) {
		ctx.line++;
		nul = memchr(line, '\0', (size_t)len);
		if (nul) {
			fail(&ctx, "NUL byte at column %zu: a plan is text",
			     (size_t)(nul - line) + 1);
			goto err;
		}
		if (len > MAX_LINE - 2 + (line[len - 1] == '\n')) {
			fail(&ctx, "line longer than %d characters",
			     MAX_LINE - 2);
			goto err;
		}
		if (parse_line(&ctx, line, plan))
			goto err;
	}
	if (ferror(f)) {
		fail(&ctx, "read error");
		goto err;
	}
	free(line);
	line = NULL;
	if (!plan->ncases) {
		fail(&ctx, "plan has no cases");
		goto err;
	}
	return 0;
err:
	free(line);
	hzrig_plan_free(plan);
	return -1;
}

int hzrig_plan_load(const char *path, struct hzrig_plan *plan,
		    char *err, size_t errlen)
{
	char why[HZRIG_WHY];
	FILE *f = hzrig_in_open(path, HZRIG_MAX_TEXT, why, sizeof(why));
	int ret;

	if (!f) {
		memset(plan, 0, sizeof(*plan));
		snprintf(err, errlen, "%s: %s", path, why);
		return -1;
	}
	ret = hzrig_plan_parse(f, path, plan, err, errlen);
	fclose(f);
	return ret;
}

void hzrig_plan_free(struct hzrig_plan *plan)
{
	free(plan->cases);
	memset(plan, 0, sizeof(*plan));
}

uint64_t hzrig_case_wait_ms(const struct hzrig_plan_case *c, unsigned int hz)
{
	uint64_t t = c->timeout_ms;

	switch (c->mode) {
	case HZRIG_MODE_ZERO:
		/* Forever is allowed only for calls that end by themselves. */
		t = zero_timeout_ms(c);
		break;
	case HZRIG_MODE_LEGACY_JIFFIES:
		/* msecs_to_jiffies() rounds up; the kernel reads it as ms. */
		if (hz)
			t = (t * hz + 999) / 1000;
		break;
	case HZRIG_MODE_HZ_CONSTANT:
		if (hz)
			t = t * hz / 1000;
		break;
	}
	switch (c->behaviour) {
	case HZRIG_BEH_ANSWER:
	case HZRIG_BEH_STALL:
	case HZRIG_BEH_SHORT:
		return 0;
	case HZRIG_BEH_DELAY:
		return c->delay_us / 1000 < t ? c->delay_us / 1000 : t;
	default:
		return t;
	}
}

uint64_t hzrig_eta_ms(uint64_t total_ms, uint64_t done_ms, uint64_t total_reps,
		      uint64_t done_reps, uint64_t spent_ms)
{
	uint64_t eta = total_ms > done_ms ? total_ms - done_ms : 0;

	/*
	 * What each repetition cost beyond its requested wait (arming, start
	 * scheduling, the wheel's rounding): scaling the waits instead would
	 * explode while they are still tiny.
	 */
	if (done_reps && spent_ms > done_ms && total_reps > done_reps)
		eta += (total_reps - done_reps) * (spent_ms - done_ms) /
		       done_reps;
	return eta;
}

uint64_t hzrig_plan_wait_ms(const struct hzrig_plan *plan, unsigned int hz)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < plan->ncases; i++)
		sum += hzrig_case_wait_ms(&plan->cases[i], hz) *
		       plan->cases[i].reps;
	return sum;
}
