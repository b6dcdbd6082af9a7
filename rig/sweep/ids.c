// SPDX-License-Identifier: GPL-2.0
/*
 * modules.alias' USB entries, and a device built from one (sweep.h).
 *
 * modpost (scripts/mod/file2alias.c, do_usb_entry) writes each
 * usb_device_id as
 *   alias usb:vVVVVpPPPPdDDDDdcCCdscSSdpPPicIIiscSSipPPinNN MODULE
 * with '*' for a field the entry leaves open, and bcdDevice as a pattern
 * of its range ("d0100", "d01[0-9]*", "d*"); a field it matches is two or
 * four upper-case hex digits.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <linux/usb/ch9.h>

#include "sweep/sweep.h"

static int why_fail(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return -1;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* A field after @tag: @digits hex digits, or '*'. The rest in *@p. */
static bool field(const char **p, const char *tag, int digits, int *val)
{
	size_t tl = strlen(tag);
	int v = 0;

	if (strncmp(*p, tag, tl))
		return false;
	*p += tl;
	if (**p == '*') {
		(*p)++;
		*val = HZRIG_ID_ANY;
		return true;
	}
	for (int i = 0; i < digits; i++) {
		int h = hexval((*p)[i]);

		if (h < 0)
			return false;
		v = v * 16 + h;
	}
	*p += digits;
	*val = v;
	return true;
}

/*
 * bcdDevice's pattern, up to "dc": digits, "[a-b]" classes, and a '*'
 * that leaves the rest open. The lowest value it matches: each class
 * gives its first digit, an open tail gives zeros.
 */
static bool bcd_field(const char **p, int *val)
{
	const char *s = *p;
	int v = 0, nd = 0;

	if (*s++ != 'd')
		return false;
	if (*s == '*' && !strncmp(s + 1, "dc", 2)) {
		*p = s + 1;
		*val = HZRIG_ID_ANY;
		return true;
	}
	while (nd < 4 && strncmp(s, "dc", 2)) {
		int h;

		if (*s == '*') {
			s++;
			break;
		}
		if (*s == '[') {
			h = hexval(s[1]);
			s = strchr(s, ']');
			if (!s || h < 0)
				return false;
			s++;
		} else {
			h = hexval(*s++);
			if (h < 0)
				return false;
		}
		v = v * 16 + h;
		nd++;
	}
	for (; nd < 4; nd++)
		v *= 16;
	if (strncmp(s, "dc", 2))
		return false;
	*p = s;
	*val = v;
	return true;
}

int hzrig_usb_id_parse(const char *line, struct hzrig_usb_id *id, char *why,
		       size_t n)
{
	const char *p = line, *mod;
	size_t ml;

	memset(id, 0, sizeof(*id));
	while (isspace((unsigned char)*p))
		p++;
	if (strncmp(p, "alias ", 6))
		return 0;
	p += 6;
	if (strncmp(p, "usb:", 4))
		return 0;
	p += 4;
	if (!field(&p, "v", 4, &id->vendor) || !field(&p, "p", 4, &id->product))
		return why_fail(why, n, "no vendor and product (vXXXXpXXXX)");
	if (!bcd_field(&p, &id->bcd))
		return why_fail(why, n, "bcdDevice is not a pattern of hex digits, [a-b] and '*'");
	if (!field(&p, "dc", 2, &id->dev_class) ||
	    !field(&p, "dsc", 2, &id->dev_subclass) ||
	    !field(&p, "dp", 2, &id->dev_protocol) ||
	    !field(&p, "ic", 2, &id->intf_class) ||
	    !field(&p, "isc", 2, &id->intf_subclass) ||
	    !field(&p, "ip", 2, &id->intf_protocol) ||
	    !field(&p, "in", 2, &id->intf_number))
		return why_fail(why, n, "the class fields (dc dsc dp ic isc ip in) are not as modpost writes them");
	if (*p == '*')
		p++;	/* modpost's add_wildcard() */
	if (*p != ' ' && *p != '\t')
		return why_fail(why, n, "no module after the alias");
	while (*p == ' ' || *p == '\t')
		p++;
	mod = p;
	ml = strcspn(mod, " \t\r\n");
	if (!ml || ml >= sizeof(id->module))
		return why_fail(why, n, "the module name is empty or longer than %zu",
				sizeof(id->module) - 1);
	for (size_t i = 0; i < ml; i++)
		if (!isalnum((unsigned char)mod[i]) && mod[i] != '_' && mod[i] != '-')
			return why_fail(why, n, "the module name has '%c'", mod[i]);
	memcpy(id->module, mod, ml);
	id->module[ml] = 0;
	return 1;
}

bool hzrig_usb_id_specific(const struct hzrig_usb_id *id)
{
	return id->vendor != HZRIG_ID_ANY && id->product != HZRIG_ID_ANY;
}

bool hzrig_usb_id_better(const struct hzrig_usb_id *cur,
			 const struct hzrig_usb_id *cand)
{
	return !hzrig_usb_id_specific(cur) && hzrig_usb_id_specific(cand);
}

static int or0(int v)
{
	return v == HZRIG_ID_ANY ? 0 : v;
}

size_t hzrig_usb_id_device(const struct hzrig_usb_id *id, const char *alias,
			   char *buf, size_t cap)
{
	int last = id->intf_number == HZRIG_ID_ANY ? 0 : id->intf_number;
	int icls = id->intf_class == HZRIG_ID_ANY ? 0xff : id->intf_class;
	size_t len = 0;
	int r;

#define PUT(...)							\
	do {								\
		r = snprintf(buf + len, cap - len, __VA_ARGS__);	\
		if (r < 0 || (size_t)r >= cap - len)			\
			return 0;					\
		len += (size_t)r;					\
	} while (0)

	if (!cap)
		return 0;
	PUT("# %s: built by hzrig sweep devices (docs/sweep.md) from\n#   %s\n",
	    id->module, alias);
	PUT("driver name=%s module=%s\n", id->module, id->module);
	PUT("device vendor=0x%04x product=0x%04x bcd=0x%04x class=0x%02x subclass=0x%02x protocol=0x%02x\n",
	    or0(id->vendor), or0(id->product), or0(id->bcd),
	    or0(id->dev_class), or0(id->dev_subclass), or0(id->dev_protocol));
	/* interfaces before the matched one: vendor-specific, no endpoints */
	for (int i = 0; i < last; i++)
		PUT("interface number=%d alt=0 class=0xff subclass=0xff protocol=0xff\n", i);
	PUT("interface number=%d alt=0 class=0x%02x subclass=0x%02x protocol=0x%02x\n",
	    last, icls, or0(id->intf_subclass), or0(id->intf_protocol));
	PUT("endpoint address=0x81 type=bulk\n");
	PUT("endpoint address=0x02 type=bulk\n");
	PUT("endpoint address=0x83 type=interrupt\n");
	/*
	 * Audio and video stream isochronously: alternate setting 1 of the
	 * matched interface (0 is the zero-bandwidth one), with an
	 * isochronous IN endpoint, and for audio an OUT one too (dummy_hcd
	 * refuses isochronous transfers, so a driver sees the endpoints, not
	 * a stream).
	 */
	if (icls == USB_CLASS_AUDIO || icls == USB_CLASS_VIDEO) {
		PUT("interface number=%d alt=1 class=0x%02x subclass=0x%02x protocol=0x%02x\n",
		    last, icls, or0(id->intf_subclass), or0(id->intf_protocol));
		PUT("endpoint address=0x84 type=isochronous\n");
		if (icls == USB_CLASS_AUDIO)
			PUT("endpoint address=0x05 type=isochronous\n");
	}
#undef PUT
	return len;
}
