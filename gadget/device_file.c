// SPDX-License-Identifier: GPL-2.0
/*
 * device_file.c - another device described as data; see device_file.h.
 */
#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_file.h"
#include "wbuf.h"

#define TOKENS_MAX	16

struct line {
	unsigned int no;
	char *key[TOKENS_MAX], *val[TOKENS_MAX];
	bool used[TOKENS_MAX];
	int n;
	char *err;
	size_t errlen;
	bool bad;
};

static void bad(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (l->bad)
		return;
	l->bad = true;
	n = snprintf(l->err, l->errlen, "line %u: ", l->no);
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < l->errlen)
		vsnprintf(l->err + n, l->errlen - n, fmt, ap);
	va_end(ap);
}

/* The value of @key (NULL if absent), marked as used. */
static const char *get(struct line *l, const char *key)
{
	for (int i = 0; i < l->n; i++) {
		if (!strcmp(l->key[i], key)) {
			l->used[i] = true;
			return l->val[i];
		}
	}
	return NULL;
}

/* An unsigned number of at most @max, or @dflt when absent (-1: needed). */
static long num(struct line *l, const char *key, long max, long dflt)
{
	const char *s = get(l, key);
	char *end;
	unsigned long v;

	if (!s) {
		if (dflt < 0)
			bad(l, "%s= is missing", key);
		return dflt < 0 ? 0 : dflt;
	}
	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-' || v > (unsigned long)max) {
		bad(l, "%s=%s is not a number 0..%ld", key, s, max);
		return 0;
	}
	return (long)v;
}

static void parse_device(struct hzg_device_file *d, struct line *l)
{
	if (d->have_device)
		bad(l, "a second device line");
	d->have_device = true;
	d->vendor = (uint16_t)num(l, "vendor", 0xffff, -1);
	d->product = (uint16_t)num(l, "product", 0xffff, -1);
	d->bcd = (uint16_t)num(l, "bcd", 0xffff, 0x0100);
	d->cls = (uint8_t)num(l, "class", 0xff, 0);
	d->subclass = (uint8_t)num(l, "subclass", 0xff, 0);
	d->protocol = (uint8_t)num(l, "protocol", 0xff, 0);
}

static void parse_interface(struct hzg_device_file *d, struct line *l)
{
	struct hzg_dev_intf *in;

	if (d->n_intf == HZG_DEV_MAX_INTF) {
		bad(l, "more than %d interface lines", HZG_DEV_MAX_INTF);
		return;
	}
	in = &d->intf[d->n_intf];
	in->number = (uint8_t)num(l, "number", 0xff, -1);
	in->alt = (uint8_t)num(l, "alt", 0xff, 0);
	in->cls = (uint8_t)num(l, "class", 0xff, -1);
	in->subclass = (uint8_t)num(l, "subclass", 0xff, 0);
	in->protocol = (uint8_t)num(l, "protocol", 0xff, 0);
	in->first_ep = (unsigned int)d->n_ep;
	in->n_ep = 0;
	if (hzg_dev_has_alt(d, in->number, in->alt))
		bad(l, "interface %u alt %u twice", in->number, in->alt);
	d->n_intf++;
}

/* An isochronous endpoint's sync= (none, async, adaptive, sync). */
static uint8_t sync_type(struct line *l)
{
	static const char *const names[] = { "none", "async", "adaptive", "sync" };
	static const uint8_t types[] = {
		USB_ENDPOINT_SYNC_NONE, USB_ENDPOINT_SYNC_ASYNC,
		USB_ENDPOINT_SYNC_ADAPTIVE, USB_ENDPOINT_SYNC_SYNC,
	};
	const char *s = get(l, "sync");

	if (!s)
		return USB_ENDPOINT_SYNC_ASYNC;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i]))
			return types[i];
	bad(l, "sync=%s is not none, async, adaptive or sync", s);
	return USB_ENDPOINT_SYNC_ASYNC;
}

static void parse_endpoint(struct hzg_device_file *d, struct line *l)
{
	const char *type = get(l, "type");
	struct hzg_dev_ep *ep;
	bool interrupt, iso;
	long maxp;

	if (!d->n_intf) {
		bad(l, "an endpoint before any interface");
		return;
	}
	if (d->n_ep == HZG_DEV_MAX_EP) {
		bad(l, "more than %d endpoints", HZG_DEV_MAX_EP);
		return;
	}
	if (!type || (strcmp(type, "bulk") && strcmp(type, "interrupt") &&
		      strcmp(type, "isochronous"))) {
		bad(l, "type= must be bulk, interrupt or isochronous");
		return;
	}
	interrupt = type[0] == 'i' && type[1] == 'n';
	iso = type[0] == 'i' && type[1] == 's';
	ep = &d->ep[d->n_ep];
	ep->address = (uint8_t)num(l, "address", 0xff, -1);
	if (!(ep->address & 0x0f) || (ep->address & 0x70))
		bad(l, "address=0x%02x is not an endpoint 1..15 (bit 7: IN)",
		    ep->address);
	/*
	 * isochronous: asynchronous, the usual audio and video kind, unless
	 * sync= says otherwise (a driver may compare bmAttributes with
	 * USB_ENDPOINT_XFER_ISOC whole, as tm6000 does: sync=none)
	 */
	ep->attributes = iso ? USB_ENDPOINT_XFER_ISOC | sync_type(l) :
			 interrupt ? USB_ENDPOINT_XFER_INT :
				     USB_ENDPOINT_XFER_BULK;
	maxp = num(l, "maxpacket", interrupt || iso ? 1024 : 512, 0);
	ep->fs_maxp = (uint16_t)(maxp ? maxp : iso ? 1023 : 64);
	ep->hs_maxp = (uint16_t)(maxp ? maxp : interrupt ? 64 : iso ? 1024 : 512);
	if (!interrupt && !iso && ep->fs_maxp > 64)
		ep->fs_maxp = 64;	/* full speed bulk: at most 64 */
	if (iso && ep->fs_maxp > 1023)
		ep->fs_maxp = 1023;	/* full speed isochronous: 1023 */
	/* bInterval: a frame count (interrupt, full speed), else 2^(n-1) */
	ep->fs_interval = interrupt ? (uint8_t)num(l, "interval", 255, 1) :
			  iso ? 1 : 0;
	ep->hs_interval = interrupt ? 4 : iso ? 1 : 0;
	d->n_ep++;
	d->intf[d->n_intf - 1].n_ep++;
}

/* data=04,00,ff: up to @max hex bytes into @out; their count. */
static size_t hex_bytes(struct line *l, uint8_t *out, size_t max)
{
	const char *s = get(l, "data");
	size_t len = 0;
	char *end;

	while (s && *s) {
		unsigned long v;

		errno = 0;
		v = strtoul(s, &end, 16);
		if (end == s || v > 0xff || (*end && *end != ',') || len == max) {
			bad(l, "data= must be up to %zu hex bytes like 04,00", max);
			return 0;
		}
		out[len++] = (uint8_t)v;
		s = *end ? end + 1 : end;
	}
	return len;
}

static void parse_data(struct hzg_dev_rule *r, struct line *l)
{
	r->len = hex_bytes(l, r->data, HZG_DEV_MAX_DATA);
}

/* A whole class-specific descriptor for the interface above. */
static void parse_extra(struct hzg_device_file *d, struct line *l)
{
	uint8_t desc[HZG_DEV_MAX_EXTRA];
	struct hzg_dev_intf *in;
	size_t n;

	if (!d->n_intf) {
		bad(l, "an extra descriptor before any interface");
		return;
	}
	in = &d->intf[d->n_intf - 1];
	if (in->n_ep) {
		bad(l, "an extra descriptor after its interface's endpoints");
		return;
	}
	n = hex_bytes(l, desc, sizeof(desc));
	if (l->bad)
		return;
	if (n < 3 || desc[0] != n) {
		bad(l, "data= is not one descriptor: its first byte (%u) is not its length (%zu), at least 3",
		    n ? desc[0] : 0, n);
		return;
	}
	if (in->n_extra + n > sizeof(in->extra)) {
		bad(l, "more than %zu bytes of extra descriptors for one interface",
		    sizeof(in->extra));
		return;
	}
	memcpy(in->extra + in->n_extra, desc, n);
	in->n_extra += n;
}

static void parse_association(struct hzg_device_file *d, struct line *l)
{
	struct hzg_dev_iad *a;

	if (d->n_iad == HZG_DEV_MAX_IAD) {
		bad(l, "more than %d association lines", HZG_DEV_MAX_IAD);
		return;
	}
	a = &d->iad[d->n_iad];
	a->first = (uint8_t)num(l, "first", 0xff, -1);
	a->count = (uint8_t)num(l, "count", 0xff, -1);
	a->cls = (uint8_t)num(l, "class", 0xff, -1);
	a->subclass = (uint8_t)num(l, "subclass", 0xff, 0);
	a->protocol = (uint8_t)num(l, "protocol", 0xff, 0);
	if (!l->bad && (!a->count || a->first + a->count > 0x100))
		bad(l, "count=%u from first=%u is not a run of interfaces",
		    a->count, a->first);
	d->n_iad++;
}

static void parse_request(struct hzg_device_file *d, struct line *l)
{
	const char *action = get(l, "action");
	struct hzg_dev_rule *r;

	if (d->n_rule == HZG_DEV_MAX_RULES) {
		bad(l, "more than %d request lines", HZG_DEV_MAX_RULES);
		return;
	}
	r = &d->rule[d->n_rule];
	r->line = l->no;
	r->type = (uint8_t)num(l, "type", 0xff, -1);
	r->request = (uint8_t)num(l, "request", 0xff, -1);
	r->value = get(l, "value") ? (int32_t)num(l, "value", 0xffff, 0) : -1;
	r->index = get(l, "index") ? (int32_t)num(l, "index", 0xffff, 0) : -1;
	if (!action || (strcmp(action, "nak") && strcmp(action, "stall") &&
			strcmp(action, "answer"))) {
		bad(l, "action= must be nak, stall or answer");
		return;
	}
	r->action = action[0] == 'n' ? HZG_DEV_NAK : action[0] == 's' ?
		    HZG_DEV_STALL : HZG_DEV_ANSWER;
	parse_data(r, l);
	if (r->len && r->action != HZG_DEV_ANSWER)
		bad(l, "data= only goes with action=answer");
	d->n_rule++;
}

/* A string value of at most @len - 1 characters into @out. */
static void str(struct line *l, const char *key, char *out, size_t len)
{
	const char *s = get(l, key);

	if (!s)
		bad(l, "%s= is missing", key);
	else if (!*s || strlen(s) >= len)
		bad(l, "%s= must be 1..%zu characters", key, len - 1);
	else
		memcpy(out, s, strlen(s) + 1);
}

static void parse_driver(struct hzg_device_file *d, struct line *l)
{
	if (d->driver[0])
		bad(l, "a second driver line");
	str(l, "name", d->driver, sizeof(d->driver));
	str(l, "module", d->module, sizeof(d->module));
	/* the call the checker flagged; a sweep's device has none */
	if (get(l, "site"))
		str(l, "site", d->site, sizeof(d->site));
}

/* Split @s (modified) into a keyword and key=value pairs. */
static const char *split(struct line *l, char *s)
{
	char *kw = NULL, *tok, *save = NULL;

	for (tok = strtok_r(s, " \t\r", &save); tok;
	     tok = strtok_r(NULL, " \t\r", &save)) {
		char *eq = strchr(tok, '=');

		if (!kw) {
			kw = tok;
			continue;
		}
		if (!eq || eq == tok || l->n == TOKENS_MAX) {
			bad(l, "'%s' is not key=value", tok);
			return kw;
		}
		*eq = 0;
		l->key[l->n] = tok;
		l->val[l->n] = eq + 1;
		l->used[l->n++] = false;
	}
	return kw;
}

/* Each association's first interface must be there, alternate setting 0. */
static bool bad_association(const struct hzg_device_file *d, char *err,
			    size_t errlen)
{
	for (size_t i = 0; i < d->n_iad; i++)
		if (!hzg_dev_has_alt(d, d->iad[i].first, 0)) {
			snprintf(err, errlen, "association %zu: no interface %u alt 0 to begin it",
				 i + 1, d->iad[i].first);
			return true;
		}
	return false;
}

int hzg_dev_parse(struct hzg_device_file *d, const char *text, char *err,
		  size_t errlen)
{
	char *copy = strdup(text), *s, *nl, *hash;
	struct line l = { .err = err, .errlen = errlen };

	memset(d, 0, sizeof(*d));
	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (s = copy; s && !l.bad; s = nl) {
		const char *kw;

		nl = strchr(s, '\n');
		if (nl)
			*nl++ = 0;
		l.no++;
		l.n = 0;
		hash = strchr(s, '#');
		if (hash)
			*hash = 0;
		kw = split(&l, s);
		if (!kw || l.bad)
			continue;
		if (!strcmp(kw, "device"))
			parse_device(d, &l);
		else if (!strcmp(kw, "interface"))
			parse_interface(d, &l);
		else if (!strcmp(kw, "endpoint"))
			parse_endpoint(d, &l);
		else if (!strcmp(kw, "request"))
			parse_request(d, &l);
		else if (!strcmp(kw, "extra"))
			parse_extra(d, &l);
		else if (!strcmp(kw, "association"))
			parse_association(d, &l);
		else if (!strcmp(kw, "driver"))
			parse_driver(d, &l);
		else if (!strcmp(kw, "firmware"))
			continue;	/* the initramfs', not the gadget's */
		else
			bad(&l, "'%s' is not device, interface, endpoint, extra, "
			    "association, request, driver or firmware", kw);
		for (int i = 0; i < l.n && !l.bad; i++)
			if (!l.used[i])
				bad(&l, "%s: no key '%s'", kw, l.key[i]);
	}
	free(copy);
	if (!l.bad && !d->have_device)
		snprintf(err, errlen, "no device line");
	else if (!l.bad && !d->n_intf)
		snprintf(err, errlen, "no interface line");
	else if (!l.bad && !bad_association(d, err, errlen))
		return 0;
	return -1;
}

static void put_config(struct wbuf *b, const struct hzg_device_file *d,
		       bool hs)
{
	unsigned int total = USB_DT_CONFIG_SIZE, numbers = 0;

	for (size_t i = 0; i < d->n_intf; i++) {
		bool seen = false;

		for (size_t j = 0; j < i; j++)
			seen |= d->intf[j].number == d->intf[i].number;
		numbers += !seen;
		total += USB_DT_INTERFACE_SIZE + d->intf[i].n_extra +
			 d->intf[i].n_ep * USB_DT_ENDPOINT_SIZE;
	}
	total += d->n_iad * USB_DT_INTERFACE_ASSOCIATION_SIZE;
	put8(b, USB_DT_CONFIG_SIZE);
	put8(b, USB_DT_CONFIG);
	put16(b, (uint16_t)total);
	put8(b, (uint8_t)numbers);
	put8(b, 1);			/* bConfigurationValue */
	put8(b, 0);
	put8(b, USB_CONFIG_ATT_ONE | USB_CONFIG_ATT_SELFPOWER);
	put8(b, 1);
	for (size_t i = 0; i < d->n_intf; i++) {
		const struct hzg_dev_intf *in = &d->intf[i];

		for (size_t a = 0; a < d->n_iad; a++) {
			if (d->iad[a].first != in->number || in->alt)
				continue;
			put8(b, USB_DT_INTERFACE_ASSOCIATION_SIZE);
			put8(b, USB_DT_INTERFACE_ASSOCIATION);
			put8(b, d->iad[a].first);
			put8(b, d->iad[a].count);
			put8(b, d->iad[a].cls);
			put8(b, d->iad[a].subclass);
			put8(b, d->iad[a].protocol);
			put8(b, 0);		/* iFunction */
		}
		put8(b, USB_DT_INTERFACE_SIZE);
		put8(b, USB_DT_INTERFACE);
		put8(b, in->number);
		put8(b, in->alt);
		put8(b, (uint8_t)in->n_ep);
		put8(b, in->cls);
		put8(b, in->subclass);
		put8(b, in->protocol);
		put8(b, 0);
		for (size_t x = 0; x < in->n_extra; x++)
			put8(b, in->extra[x]);
		for (unsigned int e = 0; e < in->n_ep; e++) {
			const struct hzg_dev_ep *ep = &d->ep[in->first_ep + e];

			put_endpoint(b, ep->address, ep->attributes,
				     hs ? ep->hs_maxp : ep->fs_maxp,
				     hs ? ep->hs_interval : ep->fs_interval);
		}
	}
}

size_t hzg_dev_build(const struct hzg_device_file *d, uint8_t *buf,
		     size_t cap, bool with_hs)
{
	struct wbuf b;

	if (!wbuf_start(&b, buf, cap, 0))
		return 0;
	put_config(&b, d, false);
	if (with_hs)
		put_config(&b, d, true);
	/* no strings */
	put_device_desc(&b, d->cls, d->subclass, d->protocol, d->vendor,
			d->product, d->bcd, 0, 0);
	return wbuf_done(&b);
}

size_t hzg_dev_config_desc(const struct hzg_device_file *d, uint8_t *buf,
			   size_t cap, bool hs)
{
	struct wbuf b = { .p = buf, .cap = cap };

	put_config(&b, d, hs);
	return wbuf_done(&b);
}

size_t hzg_dev_device_desc(const struct hzg_device_file *d, uint8_t *buf,
			   size_t cap)
{
	struct wbuf b = { .p = buf, .cap = cap };

	put_device_desc(&b, d->cls, d->subclass, d->protocol, d->vendor,
			d->product, d->bcd, 0, 0);
	return wbuf_done(&b);
}

const struct hzg_dev_rule *hzg_dev_match(const struct hzg_device_file *d,
					 const struct usb_ctrlrequest *ctrl)
{
	for (size_t i = 0; i < d->n_rule; i++) {
		const struct hzg_dev_rule *r = &d->rule[i];

		if (r->type == ctrl->bRequestType &&
		    r->request == ctrl->bRequest &&
		    (r->value < 0 || r->value == le16toh(ctrl->wValue)) &&
		    (r->index < 0 || r->index == le16toh(ctrl->wIndex)))
			return r;
	}
	return NULL;
}

bool hzg_dev_has_alt(const struct hzg_device_file *d, unsigned int number,
		     unsigned int alt)
{
	for (size_t i = 0; i < d->n_intf; i++)
		if (d->intf[i].number == number && d->intf[i].alt == alt)
			return true;
	return false;
}
