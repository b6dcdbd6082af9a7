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

/* Append to @buf (@cap bytes, @len used); false when it does not fit. */
static bool __attribute__((format(printf, 4, 5)))
put(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (*len >= cap)
		return false;
	va_start(ap, fmt);
	r = vsnprintf(buf + *len, cap - *len, fmt, ap);
	va_end(ap);
	if (r < 0 || (size_t)r >= cap - *len)
		return false;
	*len += (size_t)r;
	return true;
}

#define PUT(...)						\
	do {							\
		if (!put(buf, cap, &len, __VA_ARGS__))		\
			return 0;				\
	} while (0)

/*
 * A device file's head: where it came from (@shape 0: the default), its
 * driver and device lines, and vendor-specific interfaces 0 .. @first - 1
 * before the matched one. Its length, or 0 when it does not fit.
 */
static size_t head(const struct hzrig_usb_id *id, const char *alias,
		   unsigned int shape, int first, char *buf, size_t cap)
{
	/* the alias's line alone: what follows it would be read as lines */
	int al = (int)strcspn(alias, "\r\n");
	size_t len = 0;

	if (shape)
		PUT("# %s: shape %u, built by hzrig sweep devices (docs/sweep.md) from\n#   %.*s\n",
		    id->module, shape, al, alias);
	else
		PUT("# %s: built by hzrig sweep devices (docs/sweep.md) from\n#   %.*s\n",
		    id->module, al, alias);
	PUT("driver name=%s module=%s\n", id->module, id->module);
	PUT("device vendor=0x%04x product=0x%04x bcd=0x%04x class=0x%02x subclass=0x%02x protocol=0x%02x\n",
	    or0(id->vendor), or0(id->product), or0(id->bcd),
	    or0(id->dev_class), or0(id->dev_subclass), or0(id->dev_protocol));
	for (int i = 0; i < first; i++)
		PUT("interface number=%d alt=0 class=0xff subclass=0xff protocol=0xff\n", i);
	return len;
}

/* @path's module name ("dir/snd-pcm.ko.xz": snd_pcm) into @mod; false if none */
static bool ko_name(const char *path, size_t l, char *mod, size_t n)
{
	const char *base = path, *ko;
	size_t bl;

	for (size_t i = 0; i < l; i++)
		if (path[i] == '/')
			base = path + i + 1;
	bl = (size_t)(path + l - base);
	ko = memmem(base, bl, ".ko", 3);
	if (!ko || ko == base || (size_t)(ko - base) >= n)
		return false;
	for (bl = 0; base + bl < ko; bl++)
		mod[bl] = base[bl] == '-' ? '_' : base[bl];
	mod[bl] = 0;
	return true;
}

int hzrig_sweep_stream_class(const char *line, char *mod, size_t n)
{
	const char *colon = strchr(line, ':'), *p;
	char dep[64];
	int cls = 0;

	if (!colon || !ko_name(line, (size_t)(colon - line), mod, n))
		return -1;
	for (p = colon + 1; *p && *p != '\n';) {
		size_t l;

		p += strspn(p, " \t");
		l = strcspn(p, " \t\r\n");
		if (!l)
			break;
		if (ko_name(p, l, dep, sizeof(dep))) {
			if (!strcmp(dep, "videodev") || !strcmp(dep, "dvb_core"))
				return USB_CLASS_VIDEO;
			if (!strcmp(dep, "snd_pcm"))
				cls = USB_CLASS_AUDIO;
		}
		p += l;
	}
	return cls;
}

size_t hzrig_usb_id_device(const struct hzrig_usb_id *id, const char *alias,
			   int stream, char *buf, size_t cap)
{
	int last = id->intf_number == HZRIG_ID_ANY ? 0 : id->intf_number;
	int icls = id->intf_class == HZRIG_ID_ANY ? 0xff : id->intf_class;
	int icls_stream = icls;
	size_t len = 0;

	if (last >= HZRIG_SWEEP_INTF_MAX)
		return 0;
	/* interfaces before the matched one: vendor-specific, no endpoints */
	len = head(id, alias, 0, last, buf, cap);
	if (!len)
		return 0;
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
	 * a stream). So too for a vendor-specific interface whose driver is
	 * built on V4L2, DVB or ALSA (@stream): a gspca camera's read starts
	 * streaming only where it finds an isochronous endpoint.
	 */
	if (icls != USB_CLASS_AUDIO && icls != USB_CLASS_VIDEO &&
	    (stream == USB_CLASS_AUDIO || stream == USB_CLASS_VIDEO))
		icls_stream = stream;
	if (icls_stream == USB_CLASS_AUDIO || icls_stream == USB_CLASS_VIDEO) {
		PUT("interface number=%d alt=1 class=0x%02x subclass=0x%02x protocol=0x%02x\n",
		    last, icls, or0(id->intf_subclass), or0(id->intf_protocol));
		PUT("endpoint address=0x84 type=isochronous\n");
		if (icls_stream == USB_CLASS_AUDIO)
			PUT("endpoint address=0x05 type=isochronous\n");
	}
	return len;
}

size_t hzrig_usb_id_shape(const struct hzrig_usb_id *id, const char *alias,
			  unsigned int shape, char *buf, size_t cap)
{
	int icls = id->intf_class == HZRIG_ID_ANY ? 0xff : id->intf_class;
	int isc = or0(id->intf_subclass), ipr = or0(id->intf_protocol);
	bool cdc = icls == USB_CLASS_COMM || icls == USB_CLASS_CDC_DATA ||
		   id->dev_class == USB_CLASS_COMM;
	/* the matched interface: the entry's number, else 0 (1 for shape 2) */
	int first = id->intf_number != HZRIG_ID_ANY ? id->intf_number :
		    shape == 2 ? 1 : 0;
	size_t len = 0;

	if (shape < 1 || shape > HZRIG_SWEEP_SHAPES || (shape == 3 && !cdc))
		return 0;
	/* two more interfaces after it, and the CDC pair, must fit */
	if (first + (shape == 2 ? 3 : shape == 3 ? 2 : 1) > HZRIG_SWEEP_INTF_MAX)
		return 0;
	len = head(id, alias, shape, first, buf, cap);
	if (!len)
		return 0;
	switch (shape) {
	case 1:
		/*
		 * every kind of endpoint a probe may look for, and an
		 * isochronous alternate, of no sync type (tm6000 compares
		 * bmAttributes with USB_ENDPOINT_XFER_ISOC whole)
		 */
		PUT("interface number=%d alt=0 class=0x%02x subclass=0x%02x protocol=0x%02x\n",
		    first, icls, isc, ipr);
		PUT("endpoint address=0x81 type=bulk\nendpoint address=0x02 type=bulk\n"
		    "endpoint address=0x83 type=interrupt\nendpoint address=0x04 type=interrupt\n"
		    "endpoint address=0x85 type=bulk\nendpoint address=0x06 type=bulk\n");
		PUT("interface number=%d alt=1 class=0x%02x subclass=0x%02x protocol=0x%02x\n",
		    first, icls, isc, ipr);
		PUT("endpoint address=0x88 type=isochronous sync=none\nendpoint address=0x09 type=isochronous sync=none\n");
		break;
	case 2:
		/* a function of three interfaces under an association (IAD) */
		PUT("association first=%d count=3 class=0x%02x subclass=0x%02x protocol=0x%02x\n",
		    first, icls, isc, ipr);
		for (int i = 0; i < 3; i++) {
			PUT("interface number=%d alt=0 class=0x%02x subclass=0x%02x protocol=0x%02x\n",
			    first + i, icls, isc, ipr);
			PUT("endpoint address=0x%02x type=bulk\n", 0x81 + 4 * i);
			PUT("endpoint address=0x%02x type=interrupt\n", 0x82 + 4 * i);
			PUT("interface number=%d alt=1 class=0x%02x subclass=0x%02x protocol=0x%02x\n",
			    first + i, icls, isc, ipr);
			PUT("endpoint address=0x%02x type=isochronous sync=none\n", 0x83 + 4 * i);
		}
		break;
	case 3:
		/*
		 * CDC: the control interface (ACM unless the entry says
		 * otherwise) with header 1.10, call management and ACM
		 * descriptors and the union of it and the data interface
		 */
		PUT("interface number=%d alt=0 class=0x02 subclass=0x%02x protocol=0x%02x\n",
		    first, icls == USB_CLASS_COMM && isc ? isc : 0x02,
		    icls == USB_CLASS_COMM ? ipr : 0x01);
		PUT("extra data=05,24,00,10,01\n");
		PUT("extra data=05,24,01,03,%02x\n", first + 1);
		PUT("extra data=04,24,02,02\n");
		PUT("extra data=05,24,06,%02x,%02x\n", first, first + 1);
		PUT("endpoint address=0x83 type=interrupt\n");
		PUT("interface number=%d alt=0 class=0x0a subclass=0x00 protocol=0x00\n",
		    first + 1);
		PUT("endpoint address=0x81 type=bulk\nendpoint address=0x02 type=bulk\n");
		break;
	case 4:
	case 5:
		/*
		 * an interrupt IN endpoint alone (acecad wants bNumEndpoints
		 * 1, kbtab an interrupt IN first), or with an interrupt OUT
		 * (a HID-like device that takes reports out)
		 */
		PUT("interface number=%d alt=0 class=0x%02x subclass=0x%02x protocol=0x%02x\n",
		    first, icls, isc, ipr);
		PUT("endpoint address=0x81 type=interrupt\n");
		if (shape == 5)
			PUT("endpoint address=0x02 type=interrupt\n");
		break;
	}
	return len;
}
