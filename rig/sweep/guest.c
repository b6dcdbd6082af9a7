// SPDX-License-Identifier: GPL-2.0
/*
 * One guest batch of the sweep read back (sweep.h): initramfs/sweep.sh's
 * lines into drivers and the synchronous calls they made.
 *
 * A call is put together per task from the trace: the entry event of
 * usb_control_msg() (or _send/_recv, usb_bulk_msg(), usb_interrupt_msg())
 * with the timeout and the return address, the usb_submit_urb() events
 * that task makes before the call returns (its URB), and the return
 * event. A call inside another (usb_control_msg_recv() calls
 * usb_control_msg(), usb_interrupt_msg() calls usb_bulk_msg()) belongs to
 * the outer one: the driver passed the outer one its timeout. The stack
 * the trace prints under each entry names the first function of a module,
 * which is where the driver made the call even through the USB core's
 * helpers. usbmon's submit and completion of that URB time it; the bus
 * it was on names the device, hence the driver; hzrig-rawdev's line for
 * the same request says what the device did.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "sweep/sweep.h"

#define OPEN_MAX	8	/* nested calls per task */
#define TASKS_MAX	256
#define SLACK_US	2000	/* usbmon's S may be stamped just before */

static const char *const call_names[HZRIG_CALL_KINDS] = {
	[HZRIG_CALL_CONTROL] = "usb_control_msg",
	[HZRIG_CALL_CONTROL_SEND] = "usb_control_msg_send",
	[HZRIG_CALL_CONTROL_RECV] = "usb_control_msg_recv",
	[HZRIG_CALL_BULK] = "usb_bulk_msg",
	[HZRIG_CALL_INTERRUPT] = "usb_interrupt_msg",
};

static const char *const event_names[HZRIG_CALL_KINDS] = {
	[HZRIG_CALL_CONTROL] = "ctl",
	[HZRIG_CALL_CONTROL_SEND] = "ctl_send",
	[HZRIG_CALL_CONTROL_RECV] = "ctl_recv",
	[HZRIG_CALL_BULK] = "bulk",
	[HZRIG_CALL_INTERRUPT] = "intr",
};

const char *hzrig_sweep_call_name(enum hzrig_sweep_call_kind k)
{
	return k < HZRIG_CALL_KINDS ? call_names[k] : "?";
}

struct urb_ev {
	uint64_t id;
	char type;
	int bus, dev, ep, status;
	bool has_setup, used;
	uint8_t setup[8];
	int64_t t_us;
};

struct raw_ev {
	int dev;
	int64_t t_us;
	uint8_t setup[8];
	int ep;			/* a bulk or interrupt transfer's endpoint; -1 */
	char action[8];
	bool used;
};

struct task {
	int pid;
	size_t open[OPEN_MAX];	/* indexes into b->call; SIZE_MAX: nested */
	int depth;
	bool want_stack;	/* the next stack frames are this call's */
	size_t stack_call;
};

struct parse {
	struct hzrig_sweep_batch *b;
	struct urb_ev *u;
	size_t nu, ucap;
	struct raw_ev *r;
	size_t nr, rcap;
	struct task task[TASKS_MAX];
	size_t ntask;
	struct task *last;	/* the task of the last event line */
	char *why;
	size_t whyn;
	unsigned int line;
};

static int bad(struct parse *p, const char *fmt, ...)
{
	va_list ap;
	int k = snprintf(p->why, p->whyn, "line %u: ", p->line);

	va_start(ap, fmt);
	if (k > 0 && (size_t)k < p->whyn)
		vsnprintf(p->why + k, p->whyn - (size_t)k, fmt, ap);
	va_end(ap);
	return -1;
}

/* "key=" in @s: its value's start, or NULL. Keys start a word. */
static const char *val(const char *s, const char *key)
{
	size_t kl = strlen(key);

	for (const char *q = s; (q = strstr(q, key)); q++)
		if ((q == s || q[-1] == ' ') && q[kl] == '=')
			return q + kl + 1;
	return NULL;
}

/* Did strtoll()/strtoull() read a whole word from @q, up to @end? */
static bool whole(const char *q, const char *end)
{
	return !errno && end != q && (!*end || *end == ' ');
}

static bool num(const char *s, const char *key, long long *v)
{
	const char *q = val(s, key);
	char *end;

	if (!q)
		return false;
	errno = 0;
	*v = strtoll(q, &end, 0);
	return whole(q, end);
}

/* A kernel address: all 64 bits. */
static bool addr(const char *s, const char *key, uint64_t *v)
{
	const char *q = val(s, key);
	char *end;

	if (!q)
		return false;
	errno = 0;
	*v = strtoull(q, &end, 0);
	return whole(q, end);
}

/*
 * Seconds since boot ("2.413768", /proc/uptime's or ftrace's) in
 * microseconds: false unless a number from 0 to a year (a guest up
 * longer than that is not one of ours).
 */
static bool secs_us(const char *s, int64_t *us)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v >= 0 && v <= 366.0 * 86400))
		return false;
	*us = (int64_t)(v * 1e6 + 0.5);
	return true;
}

static void word(const char *s, const char *key, char *buf, size_t n)
{
	const char *q = val(s, key);
	size_t l = q ? strcspn(q, " ") : 0;

	snprintf(buf, n, "%.*s", (int)l, q ? q : "");
}

static bool hex8(const char *q, uint8_t out[8])
{
	for (int i = 0; i < 8; i++) {
		unsigned int x;

		if (sscanf(q + 3 * i, "%2x", &x) != 1)
			return false;
		out[i] = (uint8_t)x;
	}
	return true;
}

static struct hzrig_sweep_driver *driver_at(struct hzrig_sweep_batch *b,
					    int bus)
{
	/* dummy_hcd instance i is bus i + 1: its device file is file i */
	if (bus < 1 || (size_t)bus > b->ndrv)
		return NULL;
	return &b->drv[bus - 1];
}

static struct hzrig_sweep_driver *driver_named(struct hzrig_sweep_batch *b,
					       const char *module)
{
	for (size_t i = 0; i < b->ndrv; i++)
		if (!strcmp(b->drv[i].module, module))
			return &b->drv[i];
	return NULL;
}

static int on_begin(struct parse *p, const char *s)
{
	long long v[5];

	/*
	 * A streamed batch (stream=1) says when it settled at its end
	 * ("sweep settled s=N"); one written at its end says it here.
	 */
	p->b->streamed = val(s, "stream") && num(s, "stream", &v[0]) && v[0] == 1;
	if (!num(s, "batch", &v[0]) || !num(s, "size", &v[1]) ||
	    !num(s, "k", &v[2]) || (!p->b->streamed && !num(s, "settled_s", &v[3])) ||
	    !num(s, "max_s", &v[4]))
		return bad(p, "'sweep begin' lacks batch=, size=, k=, settled_s= or max_s=");
	if (v[0] < 0 || v[0] > 100000 || v[1] < 1 || v[1] > 32 || v[2] < 0 ||
	    v[2] > 1000 || v[4] < 0 || v[4] > 86400 ||
	    (!p->b->streamed && (v[3] < 0 || v[3] > 86400)))
		return bad(p, "'sweep begin': batch=, size= (1..32), k=, settled_s= or max_s= out of range");
	p->b->batch = (int)v[0];
	p->b->size = (int)v[1];
	p->b->k = (int)v[2];
	p->b->settled_s = p->b->streamed ? 0 : (int)v[3];
	p->b->max_s = (int)v[4];
	if (val(s, "walk") && (!num(s, "walk", &v[0]) || v[0] < 0 || v[0] > 64))
		return bad(p, "'sweep begin': walk= is not 0..64");
	p->b->walk = val(s, "walk") ? (int)v[0] : 0;
	/* a batch from before the unplug pass has no unplug_ms= */
	if (val(s, "unplug_ms")) {
		if (!num(s, "unplug_ms", &v[0]) || v[0] < 0 || v[0] > HZRIG_SWEEP_UNPLUG_MS_MAX)
			return bad(p, "'sweep begin': unplug_ms= is not 0..%d",
				   HZRIG_SWEEP_UNPLUG_MS_MAX);
		p->b->unplug_ms = (int)v[0];
	}
	return 0;
}

static int on_file(struct parse *p, const char *s)
{
	struct hzrig_sweep_batch *b = p->b;
	struct hzrig_sweep_driver *d;
	long long idx;
	char name[96];
	size_t l;

	word(s, "name", name, sizeof(name));
	l = strlen(name);
	if (!num(s, "index", &idx) || idx != (long long)b->ndrv || l < 8 ||
	    strcmp(name + l - 7, ".device"))
		return bad(p, "'file' needs index=%zu and name=MODULE.device", b->ndrv);
	d = hzrig_grow(b->drv, b->ndrv, &b->drvcap, 32, sizeof(*d));
	if (!d)
		return bad(p, "out of memory");
	b->drv = d;
	d = &b->drv[b->ndrv++];
	memset(d, 0, sizeof(*d));
	snprintf(d->file, sizeof(d->file), "%s", name);
	snprintf(d->module, sizeof(d->module), "%.*s", (int)(l - 7), name);
	d->probe_us = -1;
	d->mark_us = -1;
	d->end_mark_us = -1;
	d->contain_ep = -1;
	d->walk_passes = -1;
	return 0;
}

static int on_device(struct parse *p, const char *s)
{
	char name[32];
	int bus, port;
	struct hzrig_sweep_driver *d;

	word(s, "name", name, sizeof(name));
	if (sscanf(name, "%d-%d", &bus, &port) != 2)
		return 0;	/* a deeper device: not one of ours */
	d = driver_at(p->b, bus);
	if (d) {
		d->bus = bus;
		d->enumerated = true;
	}
	return 0;
}

static int on_bind(struct parse *p, const char *s)
{
	char intf[32], drv[64];
	int bus, port;
	struct hzrig_sweep_driver *d;

	word(s, "intf", intf, sizeof(intf));
	word(s, "driver", drv, sizeof(drv));
	if (sscanf(intf, "%d-%d:", &bus, &port) != 2)
		return 0;	/* a root hub's interface */
	d = driver_at(p->b, bus);
	if (d && strcmp(drv, "hub") && strcmp(drv, "usb"))
		d->bound = true;
	return 0;
}

static int on_modprobe(struct parse *p, const char *s, int64_t t0)
{
	char mod[64];
	long long rc;
	const char *t = val(s, "t");
	struct hzrig_sweep_driver *d;
	int64_t us;

	word(s, "module", mod, sizeof(mod));
	if (!num(s, "rc", &rc) || !t || !secs_us(t, &us) || rc < 0 || rc > 255)
		return bad(p, "'modprobe' needs module=, rc= 0..255 and t= seconds");
	d = driver_named(p->b, mod);
	if (!d)
		return 0;
	d->modprobe_done = true;
	d->modprobe_rc = (int)rc;
	if (t0 >= 0 && us >= t0)
		d->probe_us = us - t0;
	return 0;
}

/*
 * "rawdev=I t_us=T contain=loop|flood count=N since_us=T0 [ep=0xEE
 * clear_halts=C]": device I unplugged because its driver looped on its
 * refusals, or flooded the log (gadget/rawdev.c).
 */
static int on_contain(struct parse *p, const char *s)
{
	long long dev, t, count, since, ep = -1, ch = 0;
	char kind[8];
	struct hzrig_sweep_driver *d;

	word(s, "contain", kind, sizeof(kind));
	if (!num(s, "rawdev", &dev) || !num(s, "t_us", &t) || !num(s, "count", &count) ||
	    !num(s, "since_us", &since) || (strcmp(kind, "loop") && strcmp(kind, "flood") && strcmp(kind, "calls")) ||
	    (val(s, "ep") && !num(s, "ep", &ep)) ||
	    (val(s, "clear_halts") && !num(s, "clear_halts", &ch)))
		return bad(p, "a rawdev contain= line needs contain=loop|flood|calls, t_us=, count= and since_us=");
	if (dev < 0 || t < 0 || count < 0 || count > UINT32_MAX || since < 0 ||
	    since > t || ep < -1 || ep > 0xff || ch < 0 || ch > UINT32_MAX)
		return bad(p, "a rawdev contain= line's values are out of range");
	if ((size_t)dev >= p->b->ndrv)
		return 0;
	d = &p->b->drv[dev];
	snprintf(d->contain, sizeof(d->contain), "%s", kind);
	d->contain_us = t;
	d->contain_since_us = since;
	d->contain_count = (unsigned int)count;
	d->contain_ep = (int)ep;
	d->contain_clear_halts = (unsigned int)ch;
	return 0;
}

/*
 * A rawdev line: a control request ("type=... request=...") or a bulk or
 * interrupt transfer its usbmon watcher saw ("ep=0xEE xfer=..."), with
 * what the device did; the device's counts take both.
 */
static int on_rawdev(struct parse *p, const char *s)
{
	long long dev, t, type = 0, req, value, index, length, ep = -1;
	struct raw_ev *r;

	if (val(s, "note"))
		return 0;
	if (val(s, "contain"))
		return on_contain(p, s);
	if (val(s, "walk")) {
		long long passes, pass;

		if (!num(s, "rawdev", &dev) || dev < 0)
			return bad(p, "a rawdev walk= line lacks rawdev=");
		if (!strncmp(val(s, "walk"), "nak ", 4)) {
			long long req;

			/* walk=nak: the request pass P NAKed */
			if (!num(s, "pass", &pass) || pass < 1 || pass > HZRIG_SWEEP_PASSES_MAX ||
			    !num(s, "request", &req) || req < 1 || req > HZRIG_SWEEP_REQUEST_MAX)
				return bad(p, "a rawdev walk=nak line needs pass= 1..%d and request= 1..%d",
					   HZRIG_SWEEP_PASSES_MAX, HZRIG_SWEEP_REQUEST_MAX);
			if ((size_t)dev < p->b->ndrv)
				p->b->drv[dev].pass_req[pass] = (int)req;
			return 0;
		}
		if (!val(s, "passes")) {
			/*
			 * walk=replug: the next pass, and when it began (pass
			 * 1: a shape's trial got further, its walk begins)
			 */
			if (!num(s, "pass", &pass) || pass < 1 ||
			    pass > HZRIG_SWEEP_PASSES_MAX || !num(s, "t_us", &t) || t < 0)
				return bad(p, "a rawdev walk=replug line needs pass= 1..%d and t_us=",
					   HZRIG_SWEEP_PASSES_MAX);
			if ((size_t)dev < p->b->ndrv)
				p->b->drv[dev].pass_us[pass] = t;
			return 0;
		}
		if (!num(s, "passes", &passes) || passes < 0 || passes > 64)
			return bad(p, "a rawdev walk=done line needs passes= 0..64");
		/* a walk per shape: the longest (a shape's trial walks none) */
		if ((size_t)dev < p->b->ndrv && passes > p->b->drv[dev].walk_passes)
			p->b->drv[dev].walk_passes = (int)passes;
		return 0;
	}
	if (val(s, "shape")) {
		long long shape;

		/* "shape=N": plugged in again in shape N; "shape=none": no more */
		if (!num(s, "rawdev", &dev) || dev < 0)
			return bad(p, "a rawdev shape= line lacks rawdev=");
		if (!strncmp(val(s, "shape"), "none", 4))
			return 0;
		if (!num(s, "shape", &shape) || shape < 1 || shape > HZRIG_SWEEP_SHAPES_MAX)
			return bad(p, "a rawdev shape= line needs shape= 1..%d or none",
				   HZRIG_SWEEP_SHAPES_MAX);
		if ((size_t)dev < p->b->ndrv)
			p->b->drv[dev].shape = (int)shape;
		return 0;
	}
	if (!num(s, "rawdev", &dev) || !num(s, "t_us", &t) || !val(s, "action"))
		return bad(p, "a rawdev line lacks a field");
	if (val(s, "ep")) {
		if (!num(s, "ep", &ep) || ep < 1 || ep > 0xff || !(ep & 0x7f))
			return bad(p, "a rawdev line's ep= is not a bulk or interrupt endpoint");
	} else if (!num(s, "type", &type) || !num(s, "request", &req) ||
		   !num(s, "value", &value) || !num(s, "index", &index) ||
		   !num(s, "length", &length)) {
		return bad(p, "a rawdev line lacks a field");
	}
	r = hzrig_grow(p->r, p->nr, &p->rcap, 256, sizeof(*r));
	if (!r)
		return bad(p, "out of memory");
	p->r = r;
	r = &p->r[p->nr++];
	memset(r, 0, sizeof(*r));
	r->dev = (int)dev;
	r->t_us = t;
	r->ep = (int)ep;
	if (ep < 0) {
		r->setup[0] = (uint8_t)type;
		r->setup[1] = (uint8_t)req;
		r->setup[2] = (uint8_t)value;
		r->setup[3] = (uint8_t)(value >> 8);
		r->setup[4] = (uint8_t)index;
		r->setup[5] = (uint8_t)(index >> 8);
		r->setup[6] = (uint8_t)length;
		r->setup[7] = (uint8_t)(length >> 8);
	}
	word(s, "action", r->action, sizeof(r->action));
	if ((ep > 0 || (type & 0x60)) && p->b->ndrv > (size_t)dev) {
		struct hzrig_sweep_driver *d = &p->b->drv[dev];

		d->nak += !strcmp(r->action, "nak");
		d->stall += !strcmp(r->action, "stall");
		d->answer += !strcmp(r->action, "answer");
		d->unplugged |= !strcmp(r->action, "unplug");
	}
	return 0;
}

static int on_usbmon(struct parse *p, const char *s)
{
	long long t, bus, dev, ep, status, dropped;
	uint64_t id;
	char type[4];
	const char *setup;
	struct urb_ev *u;

	if (!strncmp(s, "end", 3)) {
		if (num(s, "dropped", &dropped))
			p->b->usbmon_dropped = (unsigned int)dropped;
		return 0;
	}
	word(s, "type", type, sizeof(type));
	if (!num(s, "t_us", &t) || !addr(s, "id", &id) || !num(s, "bus", &bus) ||
	    !num(s, "dev", &dev) || !num(s, "ep", &ep) ||
	    !num(s, "status", &status) || strlen(type) != 1)
		return bad(p, "a usbmon line lacks a field");
	u = hzrig_grow(p->u, p->nu, &p->ucap, 1024, sizeof(*u));
	if (!u)
		return bad(p, "out of memory");
	p->u = u;
	u = &p->u[p->nu++];
	memset(u, 0, sizeof(*u));
	u->id = id;
	u->type = type[0];
	u->bus = (int)bus;
	u->dev = (int)dev;
	u->ep = (int)ep;
	u->status = (int)status;
	u->t_us = t;
	setup = val(s, "setup");
	u->has_setup = setup && hex8(setup, u->setup);
	return 0;
}

static struct task *task_known(struct parse *p, int pid)
{
	for (size_t i = 0; i < p->ntask; i++)
		if (p->task[i].pid == pid)
			return &p->task[i];
	return NULL;
}

/*
 * A schedule_timeout() timer (any task's: each is a sighting of the tick
 * grid), and the call it belongs to: the first one armed while the task's
 * own call is open, its wait_for_completion_timeout().
 */
static int on_timer(struct parse *p, const char *line)
{
	struct hzrig_sweep_batch *b = p->b;
	struct hzrig_timer_start ev, *g;
	struct task *t;
	int ret = hzrig_timer_start_parse(line, &ev);

	if (ret == -ENOENT)
		return 0;
	if (ret)
		return bad(p, "a timer_start event that does not read as one");
	g = hzrig_grow(b->timers, b->ntimers, &b->timercap, 256, sizeof(*g));
	if (!g)
		return bad(p, "out of memory");
	b->timers = g;
	b->timers[b->ntimers++] = ev;
	t = task_known(p, ev.pid);
	if (t && t->depth && t->open[0] != SIZE_MAX &&
	    !b->call[t->open[0]].has_timer) {
		b->call[t->open[0]].has_timer = true;
		b->call[t->open[0]].timer = ev;
	}
	return 0;
}

static struct task *task_of(struct parse *p, int pid)
{
	struct task *t = NULL;

	for (size_t i = 0; i < p->ntask; i++)
		if (p->task[i].pid == pid)
			return &p->task[i];
	/*
	 * A new one, in a slot of its own, or, all taken (a batch whose
	 * opener and walk ran hundreds of processes), in that of a task with
	 * no call open: what it made is in b->call already.
	 */
	if (p->ntask < TASKS_MAX)
		t = &p->task[p->ntask++];
	for (size_t i = 0; !t && i < p->ntask; i++)
		if (!p->task[i].depth && !p->task[i].want_stack && &p->task[i] != p->last)
			t = &p->task[i];
	if (!t)
		return NULL;
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	return t;
}

/* "(ipheth_probe+0x1e2/0x380 [ipheth])" or the event's own "ip=...". */
static void where_of(const char *s, char *buf, size_t n)
{
	const char *q = val(s, "ip");
	size_t l;

	if (!q) {
		buf[0] = 0;
		return;
	}
	l = strcspn(q, " ");
	/* ":symbol" prints "func+0x1e/0x80 [mod]": keep the module */
	if (q[l] == ' ' && q[l + 1] == '[')
		l += 1 + strcspn(q + l + 1, "]") + 1;
	snprintf(buf, n, "%.*s", (int)l, q);
}

/* Does the call open in @t (its outermost) call one of @kind itself? */
static bool calls_inside(const struct hzrig_sweep_batch *b, const struct task *t,
			 int kind)
{
	int outer;

	if (t->open[0] == SIZE_MAX)
		return false;
	outer = b->call[t->open[0]].kind;
	return t->depth == 1 &&
	       ((kind == HZRIG_CALL_CONTROL && (outer == HZRIG_CALL_CONTROL_SEND ||
						outer == HZRIG_CALL_CONTROL_RECV)) ||
		(kind == HZRIG_CALL_BULK && outer == HZRIG_CALL_INTERRUPT));
}

static int on_entry(struct parse *p, struct task *t, int kind, const char *s,
		    int64_t us)
{
	struct hzrig_sweep_batch *b = p->b;
	struct hzrig_sweep_call *c;
	long long timeout = 0;

	/*
	 * Only usb_control_msg_send/_recv call usb_control_msg, and only
	 * usb_interrupt_msg calls usb_bulk_msg: another entry while a call
	 * is open means the open ones' return events were missed (a
	 * kretprobe's instances run out when many tasks wait at once). They
	 * stay without a return, and this call starts afresh.
	 */
	if (t->depth && (t->depth == OPEN_MAX || !calls_inside(b, t, kind)))
		t->depth = 0;
	if (t->depth) {
		t->open[t->depth++] = SIZE_MAX;	/* inside the caller's call */
		return 0;
	}
	if (!num(s, "timeout", &timeout))
		return bad(p, "a %s event without timeout=", event_names[kind]);
	c = hzrig_grow(b->call, b->ncall, &b->callcap, 64, sizeof(*c));
	if (!c)
		return bad(p, "out of memory");
	b->call = c;
	c = &b->call[b->ncall];
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->pid = t->pid;
	c->timeout_arg = (int)timeout;
	c->entry_us = us;
	c->urb_us = -1;
	where_of(s, c->where, sizeof(c->where));
	t->open[t->depth++] = b->ncall;
	t->want_stack = true;
	t->stack_call = b->ncall;
	b->ncall++;
	return 0;
}

static void on_return(struct task *t, struct hzrig_sweep_batch *b,
		      const char *s, int64_t us)
{
	long long ret = 0;
	size_t i;

	if (!t->depth)
		return;		/* its entry came before tracing started */
	i = t->open[--t->depth];
	if (i == SIZE_MAX)
		return;
	num(s, "ret", &ret);
	b->call[i].ret = (int)ret;
	b->call[i].return_us = us;
	b->call[i].returned = true;
}

/*
 * A frame of the stack under an entry event: the first one in a module
 * is where the driver made the call (the entry's own ip may be in a USB
 * core helper that the driver called).
 */
static void on_frame(struct parse *p, const char *s)
{
	struct task *t = p->last;
	struct hzrig_sweep_call *c;
	const char *f = s + strspn(s, " =>");

	if (!t || !t->want_stack || !strchr(f, '['))
		return;
	/*
	 * A return address is never a function's first byte: "+0x0/" is
	 * the unwinder's guess, or a call that ends the function before
	 * (a noreturn one). Either way not the caller: skip it.
	 */
	if (strstr(f, "+0x0/"))
		return;
	c = &p->b->call[t->stack_call];
	if (c->nchain == HZRIG_SWEEP_CHAIN)
		return;
	snprintf(c->chain[c->nchain], sizeof(c->chain[0]), "%.*s",
		 (int)strcspn(f, "\n"), f);
	if (!c->nchain)
		snprintf(c->where, sizeof(c->where), "%s", c->chain[0]);
	c->nchain++;
}

/*
 * The guest's own marks in the trace, on its clock to the microsecond:
 * "hzrig modprobe-begin module=M" and "hzrig modprobe-end module=M rc=N"
 * around each modprobe. The probe time they give replaces the one from
 * /proc/uptime (10 ms steps) of the 'modprobe' line.
 */
static int on_mark(struct parse *p, const char *s, int64_t us)
{
	struct hzrig_sweep_driver *d;
	char mod[64];

	s += strspn(s, " ");
	if (strncmp(s, "hzrig modprobe-", 15))
		return 0;
	word(s, "module", mod, sizeof(mod));
	d = driver_named(p->b, mod);
	if (!d)
		return 0;
	if (!strncmp(s + 15, "begin ", 6)) {
		d->mark_us = us;
	} else if (!strncmp(s + 15, "end ", 4)) {
		d->end_mark_us = us;
		if (d->mark_us >= 0 && us >= d->mark_us)
			d->probe_us = us - d->mark_us;
	}
	return 0;
}

/*
 * Whether an ftrace line's event ran in an interrupt: its FLAGS field
 * ("d.s..", after "[CPU] ") says so in its third letter, 'h' or 'H' for a
 * hard interrupt, 's' for a softirq. Not 'z' or 'Z' (an NMI): a kprobe
 * that is not optimized runs from int3, which the kernel enters as an NMI,
 * so every event of a task shows it (the debugging kernel's).
 */
static bool in_irq(const char *br)
{
	const char *f = strchr(br + 1, ']');

	if (!f)
		return false;
	f += 1 + strspn(f + 1, " ");
	if (strnlen(f, 3) < 3 || f[0] == ' ' || f[1] == ' ' || f[2] == ' ')
		return false;
	return strchr("hHs", f[2]) != NULL;
}

/*
 * An ftrace line: "  TASK-PID  [CPU] FLAGS  SECS.USECS: EVENT: (...) ARGS".
 * Each event kind takes its own branch, and the line's three
 * fields are cut out before them.
 */
static int on_trace(struct parse *p, const char *s)
{
	const char *br = strstr(s, " ["), *dash, *colon, *ev;
	char name[24];
	long pid;
	int64_t us;
	struct task *t;
	size_t el;

	if (strstr(s, "=>") && strspn(s, " ") + 2 <= strlen(s) &&
	    !strncmp(s + strspn(s, " "), "=>", 2)) {
		on_frame(p, s);
		return 0;
	}
	if (!br)
		return 0;
	for (dash = br; dash > s && dash[-1] != '-'; dash--)
		;
	if (dash == s)
		return 0;
	pid = strtol(dash, NULL, 10);
	colon = strstr(br, ": ");
	if (!colon)
		return 0;
	for (ev = colon; ev > br && ev[-1] != ' '; ev--)
		;
	if (!secs_us(ev, &us))
		return 0;	/* not an event line */
	ev = colon + 2;
	el = strcspn(ev, ":");
	/* "tracing_mark_write+0x130/0x3ee:" under sym-offset */
	if (ev[el] == ':' && !strncmp(ev, "tracing_mark_write", 18) &&
	    (ev[18] == ':' || ev[18] == '+'))
		return on_mark(p, ev + el + 1, us);
	if (ev[el] != ':' || el >= sizeof(name))
		return 0;
	snprintf(name, sizeof(name), "%.*s", (int)el, ev);
	if (!strcmp(name, "timer_start"))
		return on_timer(p, s);
	t = task_of(p, (int)pid);
	if (!t)
		return bad(p, "more than %d tasks were in USB calls at once", TASKS_MAX);
	if (!strcmp(name, "<stack trace>"))
		return 0;
	/* a stack belongs to the event right above it */
	if (p->last)
		p->last->want_stack = false;
	p->last = t;
	if (!strcmp(name, "submit")) {
		struct hzrig_sweep_call *c;
		uint64_t urb;

		/*
		 * The call's own URB is the one usb_start_wait_urb()
		 * submits (ip=), else the first its task submits in its
		 * own context. An interrupt that came while the task waited
		 * runs on its stack and is traced under its name: the hub's
		 * status URB, or a driver's interrupt URB, resubmitted from
		 * a softirq ("d.s..", or "d.Z1." under an int3 kprobe,
		 * which cannot be told from the task's) is not the call's.
		 */
		if (!t->depth || t->open[0] == SIZE_MAX || !addr(ev, "urb", &urb))
			return 0;
		c = &p->b->call[t->open[0]];
		if (strstr(ev, " ip=usb_start_wait_urb+")) {
			if (!c->urb_sync)
				c->urb = urb;
			c->urb_sync = true;
		} else if (!c->urb && !in_irq(br)) {
			c->urb = urb;
		}
		return 0;
	}
	for (int k = 0; k < HZRIG_CALL_KINDS; k++) {
		size_t nl = strlen(event_names[k]);

		if (!strncmp(name, event_names[k], nl) && !name[nl])
			return on_entry(p, t, k, ev, us);
		if (!strncmp(name, event_names[k], nl) && !strcmp(name + nl, "_ret")) {
			on_return(t, p->b, ev, us);
			return 0;
		}
	}
	return 0;
}

/*
 * "open module=M bus=B entry=KIND:NODE rc=R t=S": the guest used a node
 * M's driver made (initramfs/sweep.sh, "Open as well as probe"); kept as
 * "KIND:NODE rc=R", the first HZRIG_SWEEP_OPENED_MAX of a driver.
 */
static int on_open(struct parse *p, const char *s)
{
	char mod[64], ent[48];
	long long rc;
	struct hzrig_sweep_driver *d;

	word(s, "module", mod, sizeof(mod));
	word(s, "entry", ent, sizeof(ent));
	if (!mod[0] || !ent[0] || !strchr(ent, ':') || !num(s, "rc", &rc) ||
	    rc < 0 || rc > 255)
		return bad(p, "'open' needs module=, entry=KIND:NODE and rc= 0..255");
	for (const char *q = ent; *q; q++)
		if (*q <= ' ' || *q > '~')
			return bad(p, "'open': entry= is not printable");
	d = driver_named(p->b, mod);
	if (!d || d->nopened >= HZRIG_SWEEP_OPENED_MAX)
		return 0;
	snprintf(d->opened[d->nopened++], sizeof(d->opened[0]), "%s rc=%lld", ent, rc);
	return 0;
}

/*
 * Do @c's frames name a driver of the batch other than @mod, the driver
 * of the bus an URB was on? (A library's frames, usbnet's or gspca_main's,
 * name no driver of the batch: only the drivers' own modules count.)
 */
static bool frames_name_other(struct hzrig_sweep_batch *b,
			      const struct hzrig_sweep_call *c, const char *mod)
{
	for (int k = -1; k < c->nchain; k++) {
		const char *f = k < 0 ? c->where : c->chain[k];
		const char *o = strrchr(f, '[');
		char name[sizeof(b->drv[0].module)];
		size_t l;

		if (!o || !(l = strcspn(o + 1, "]")) || o[1 + l] != ']' || l >= sizeof(name))
			continue;
		memcpy(name, o + 1, l);
		name[l] = 0;
		if (driver_named(b, name))
			return !mod || strcmp(mod, name);
	}
	return false;
}

/* a call that failed sooner was refused before the bus, not waited */
#define REFUSED_US	2000

/*
 * @c's URB's submission in usbmon: an unused 'S' of its address after its
 * entry, and before its return (@after: up to SLACK_US after it). An URB's
 * address is reused as soon as it is freed: a driver that resubmits its
 * interrupt URB in a loop may get the address a control message's URB had
 * a moment before. A control message's URB has a setup packet; a bulk or
 * interrupt message's has none.
 */
static struct urb_ev *submission(struct parse *p, const struct hzrig_sweep_call *c,
				 int64_t after)
{
	bool control = c->kind <= HZRIG_CALL_CONTROL_RECV;

	for (size_t j = 0; c->urb && j < p->nu; j++) {
		const struct urb_ev *u = &p->u[j];
		const struct hzrig_sweep_driver *d;

		if (u->id != c->urb || u->type != 'S' || u->used || u->has_setup != control ||
		    u->t_us < c->entry_us - SLACK_US ||
		    (c->returned && u->t_us > c->return_us + after))
			continue;
		/*
		 * Never a root hub's or a device's at the default address
		 * (the hub driver's and enumeration's: no driver's call in
		 * the sweep), nor one on another driver's bus than the one
		 * its frames name: a call whose own submission usbmon lost
		 * (its ring overran) otherwise took the next URB its freed
		 * address was given, the hub's port status just after
		 */
		if (u->dev <= 1)
			continue;
		d = driver_at(p->b, u->bus);
		if (frames_name_other(p->b, c, d ? d->module : NULL))
			continue;
		return &p->u[j];
	}
	return NULL;
}

/*
 * Each call's URB in usbmon (by address, after its entry), its device.
 * First every call takes a submission before its return; then the rest
 * one up to SLACK_US after it. A call refused before the bus (its device
 * away: -ENODEV at once) has none, and took, in one pass, the next call's
 * of the same address within the slack, which left that call without.
 */
static int match(struct parse *p)
{
	struct hzrig_sweep_batch *b = p->b;
	struct urb_ev **sub = calloc(b->ncall + 1, sizeof(*sub));

	if (!sub)
		return bad(p, "out of memory matching %zu calls to their URBs", b->ncall);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < b->ncall; i++)
			if (!sub[i]) {
				sub[i] = submission(p, &b->call[i], pass ? SLACK_US : 0);
				if (sub[i])
					sub[i]->used = true;
			}
	for (size_t i = 0; i < b->ncall; i++) {
		struct hzrig_sweep_call *c = &b->call[i];
		struct urb_ev *s = sub[i];
		struct hzrig_sweep_driver *d;

		if (!s) {
			/*
			 * usb_submit_urb() refuses an URB for a device that
			 * is away (-ENODEV while the walk plugs it in again)
			 * before usbmon sees it: the call failed at once. One
			 * that waited (a timeout) went to the bus, and usbmon
			 * lost its submission.
			 */
			if (c->urb && c->returned && c->ret < 0 &&
			    c->return_us - c->entry_us < REFUSED_US)
				b->refused_urbs++;
			else
				b->unmatched_urbs += !!c->urb;
			continue;
		}
		c->bus = s->bus;
		c->dev = s->dev;
		c->ep = s->ep;
		c->has_setup = s->has_setup;
		memcpy(c->setup, s->setup, sizeof(c->setup));
		c->submit_us = s->t_us;
		for (size_t j = (size_t)(s - p->u) + 1; j < p->nu; j++)
			if (p->u[j].id == c->urb && p->u[j].type != 'S') {
				c->urb_us = p->u[j].t_us - s->t_us;
				c->urb_status = p->u[j].status;
				break;
			}
		d = driver_at(b, c->bus);
		if (d)
			snprintf(c->module, sizeof(c->module), "%s", d->module);
		/*
		 * The device's word on the request: a control request's by
		 * its setup, a bulk or interrupt transfer's by its endpoint;
		 * the first unused one at or after its submission.
		 */
		for (size_t j = 0; j < p->nr; j++) {
			struct raw_ev *r = &p->r[j];

			if (r->used || r->dev != c->bus - 1 ||
			    (c->has_setup ? r->ep >= 0 || memcmp(r->setup, c->setup, 8) :
					    r->ep != c->ep) ||
			    r->t_us < s->t_us - SLACK_US)
				continue;
			r->used = true;
			snprintf(c->action, sizeof(c->action), "%s", r->action);
			break;
		}
	}
	free(sub);
	return 0;
}

int64_t hzrig_sweep_report_us(const char *excerpt)
{
	for (const char *s = excerpt; *s; s += strcspn(s, "\n"), s += *s == '\n') {
		const char *b = s + strspn(s, " \t"), *e;
		int64_t us;

		if (*b != '[')
			continue;
		e = b + 1 + strspn(b + 1, " ");
		if (strcspn(e, "]\n") > 20 || e[strcspn(e, "]\n")] != ']' ||
		    !strchr("0123456789", *e) || !secs_us(e, &us))
			continue;
		return us;
	}
	return -1;
}

int hzrig_sweep_pass_at(const struct hzrig_sweep_driver *d, int64_t t_us)
{
	int pass = 1;

	for (int p = 2; p <= HZRIG_SWEEP_PASSES_MAX; p++)
		if (d->pass_us[p] > 0 && d->pass_us[p] <= t_us && p > pass)
			pass = p;
	return pass;
}

int hzrig_sweep_request_at(const struct hzrig_sweep_driver *d, int64_t t_us)
{
	int pass = hzrig_sweep_pass_at(d, t_us);

	/* a stream from before the walk said its NAKs: pass P NAKed request P */
	return d->pass_req[pass] ? d->pass_req[pass] : pass;
}

bool hzrig_sweep_report_names(const char *excerpt, const char *module)
{
	char tag[80];
	size_t tl;

	if (!module[0])
		return false;
	tl = (size_t)snprintf(tag, sizeof(tag), " [%s]", module);
	if (tl >= sizeof(tag))
		return false;
	for (const char *s = excerpt; *s;) {
		size_t l = strcspn(s, "\n");

		/* a frame: "+0x" in it, the tag at its end (CR aside) */
		while (l && s[l - 1] == '\r')
			l--;
		if (l > tl && !memcmp(s + l - tl, tag, tl) &&
		    memmem(s, l, "+0x", 3))
			return true;
		/*
		 * or the work item that was running: "Workqueue: events
		 * hfa384x_usb_defer [prism2_usb]" (a work function's frame
		 * may be missing from a stack the unwinder guessed)
		 */
		if (l > tl && !memcmp(s + l - tl, tag, tl) &&
		    memmem(s, l, "Workqueue: ", 11))
			return true;
		s += strcspn(s, "\n");
		s += *s == '\n';
	}
	return false;
}

/* One branch per kind of line, each handing it to its reader. */
int hzrig_sweep_batch_parse(const char *text, struct hzrig_sweep_batch *b,
			    char *why, size_t n)
{
	struct parse p = { .b = b, .why = why, .whyn = n };
	const char *s = text;
	int64_t t0 = -1;
	bool begun = false;
	int rc = 0;

	memset(b, 0, sizeof(*b));
	b->last_alive_us = -1;
	b->trace_overrun = -1;
	while (*s && !rc) {
		size_t l = strcspn(s, "\n");
		char *line = strndup(s, l);
		/*
		 * A streamed batch whose guest died may end in half a line
		 * (no newline after it): that line is not read.
		 */
		bool cut = !s[l] && begun && b->streamed;

		p.line++;
		if (!line)
			return bad(&p, "out of memory");
		/* a serial line ends in CR LF */
		if (l && line[l - 1] == '\r')
			line[l - 1] = 0;
		/* on a console (a LAVA lab) each line is framed */
		if (!strncmp(line, "hzrig-sweep ", 12))
			memmove(line, line + 12, strlen(line + 12) + 1);
		if (!strncmp(line, "sweep begin ", 12)) {
			rc = on_begin(&p, line + 12);
			if (!rc && val(line, "t0") && !secs_us(val(line, "t0"), &t0))
				rc = bad(&p, "'sweep begin': t0= is not seconds since boot");
			begun = true;
		} else if (!begun) {
			;	/* what came before the batch */
		} else if (!strcmp(line, "sweep end")) {
			b->complete = true;
		} else if (!strncmp(line, "sweep alive ", 12)) {
			long long us;

			if (!num(line, "t_us", &us) || us < 0)
				rc = bad(&p, "'sweep alive' needs t_us= microseconds");
			else
				b->last_alive_us = us;
		} else if (!strncmp(line, "sweep t0 ", 9)) {
			if (!val(line, "t") || !secs_us(val(line, "t"), &t0))
				rc = bad(&p, "'sweep t0': t= is not seconds since boot");
		} else if (!strncmp(line, "sweep trace ", 12)) {
			long long ov;

			if (!num(line, "overrun", &ov) || ov < 0)
				rc = bad(&p, "'sweep trace' needs overrun= a count");
			else if (ov > b->trace_overrun)
				b->trace_overrun = ov;
		} else if (!strncmp(line, "sweep settled ", 14)) {
			long long st;

			if (!num(line, "s", &st) || st < 0 || st > 86400)
				rc = bad(&p, "'sweep settled' needs s= 0..86400");
			else
				b->settled_s = (int)st;
		} else if (!strncmp(line, "file ", 5)) {
			rc = on_file(&p, line + 5);
		} else if (!strncmp(line, "device ", 7)) {
			rc = on_device(&p, line + 7);
		} else if (!strncmp(line, "bind ", 5)) {
			rc = on_bind(&p, line + 5);
		} else if (!strncmp(line, "modprobe ", 9)) {
			rc = on_modprobe(&p, line + 9, t0);
		} else if (!strncmp(line, "open ", 5)) {
			rc = on_open(&p, line + 5);
		} else if (!strncmp(line, "rawdev=", 7)) {
			rc = on_rawdev(&p, line);
		} else if (!strncmp(line, "usbmon ", 7)) {
			rc = on_usbmon(&p, line + 7);
		} else if (!strncmp(line, "trace ", 6)) {
			rc = on_trace(&p, line + 6);
		}
		if (rc && cut) {
			b->cut_line = true;
			rc = 0;
		} else if (rc && b->streamed) {
			if (!b->bad_lines++)
				snprintf(b->bad_why, sizeof(b->bad_why), "%s", why);
			rc = 0;
		}
		free(line);
		s += l + (s[l] == '\n');
	}
	if (!rc && !begun)
		rc = bad(&p, "no 'sweep begin' line: the guest's batch did not start");
	if (!rc)
		rc = match(&p);
	free(p.u);
	free(p.r);
	if (rc)
		hzrig_sweep_batch_free(b);
	return rc;
}

void hzrig_sweep_batch_free(struct hzrig_sweep_batch *b)
{
	free(b->drv);
	free(b->call);
	free(b->timers);
	memset(b, 0, sizeof(*b));
}
