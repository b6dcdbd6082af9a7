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

#endif /* HZRIG_GADGET_WBUF_H */
