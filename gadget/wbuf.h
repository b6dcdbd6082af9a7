/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wbuf.h - descriptors built byte by byte into a bounded buffer, every
 * multi-byte field little-endian; an overflow makes the result length 0.
 * Shared by the gadget's own descriptors (gadget_logic.c) and the device
 * files of other devices (device_file.c).
 */
#ifndef HZRIG_GADGET_WBUF_H
#define HZRIG_GADGET_WBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <linux/usb/ch9.h>

struct wbuf {
	uint8_t	*p;
	size_t	len;
	size_t	cap;
	bool	overflow;
};

static inline void put8(struct wbuf *b, uint8_t v)
{
	if (b->len >= b->cap) {
		b->overflow = true;
		return;
	}
	b->p[b->len++] = v;
}

static inline void put16(struct wbuf *b, uint16_t v)
{
	put8(b, v & 0xff);
	put8(b, v >> 8);
}

static inline size_t wbuf_done(const struct wbuf *b)
{
	return b->overflow ? 0 : b->len;
}

/*
 * Start @b on @buf with the u32 @tag in host order that gadgetfs' files
 * take first (inode.c: 0 for the controller file, 1 for an endpoint file).
 * False if even that does not fit.
 */
static inline bool wbuf_start(struct wbuf *b, uint8_t *buf, size_t cap,
			      uint32_t tag)
{
	*b = (struct wbuf){ .p = buf, .cap = cap };
	if (cap < sizeof(tag))
		return false;
	memcpy(buf, &tag, sizeof(tag));
	b->len = sizeof(tag);
	return true;
}

static inline void put_endpoint(struct wbuf *b, uint8_t address,
				uint8_t attributes, uint16_t maxp,
				uint8_t interval)
{
	put8(b, USB_DT_ENDPOINT_SIZE);
	put8(b, USB_DT_ENDPOINT);
	put8(b, address);
	put8(b, attributes);
	put16(b, maxp);
	put8(b, interval);
}

/* A device descriptor of one configuration; class per interface if 0. */
static inline void put_device_desc(struct wbuf *b, uint8_t cls,
				   uint8_t subclass, uint8_t protocol,
				   uint16_t vendor, uint16_t product,
				   uint16_t bcd, uint8_t manufacturer,
				   uint8_t product_str)
{
	put8(b, USB_DT_DEVICE_SIZE);
	put8(b, USB_DT_DEVICE);
	put16(b, 0x0200);		/* bcdUSB; gadgetfs forces it anyway */
	put8(b, cls);
	put8(b, subclass);
	put8(b, protocol);
	put8(b, 64);			/* bMaxPacketSize0; set by gadgetfs */
	put16(b, vendor);
	put16(b, product);
	put16(b, bcd);
	put8(b, manufacturer);
	put8(b, product_str);
	put8(b, 0);			/* iSerialNumber */
	put8(b, 1);			/* bNumConfigurations */
}

#endif /* HZRIG_GADGET_WBUF_H */
