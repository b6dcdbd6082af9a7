// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of gadget/gadget_logic.c: descriptors as gadgetfs and
 * dummy_hcd will check them, HZRIG_REQ_ARM validation, armed state, payload
 * header and the per-transfer plans. Built and run by `make -C gadget test`.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gadget_logic.h"

static uint16_t le16_at(const uint8_t *p)
{
	return p[0] | p[1] << 8;
}

static uint32_t u32_host_at(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* ---- descriptors ---- */

/* The checks of inode.c is_valid_config(), plus the interface. */
static void check_config(const uint8_t *c, bool hs)
{
	const uint8_t *intf = c + USB_DT_CONFIG_SIZE;
	const uint8_t *ep = intf + USB_DT_INTERFACE_SIZE;

	assert_int_equal(c[0], USB_DT_CONFIG_SIZE);
	assert_int_equal(c[1], USB_DT_CONFIG);
	assert_int_equal(le16_at(c + 2), HZG_CONFIG_TOTAL);
	assert_int_equal(HZG_CONFIG_TOTAL, 9 + 9 + 3 * 7);
	assert_int_equal(c[4], 1);			/* bNumInterfaces */
	assert_int_not_equal(c[5], 0);		/* bConfigurationValue */
	assert_int_equal(c[5], HZG_CONFIG_VALUE);
	assert_true(c[7] & USB_CONFIG_ATT_ONE);
	assert_false(c[7] & USB_CONFIG_ATT_WAKEUP);

	assert_int_equal(intf[0], USB_DT_INTERFACE_SIZE);
	assert_int_equal(intf[1], USB_DT_INTERFACE);
	assert_int_equal(intf[2], 0);
	assert_int_equal(intf[3], 0);
	assert_int_equal(intf[4], 3);
	assert_int_equal(intf[5], HZRIG_INTF_CLASS);
	assert_int_equal(intf[6], HZRIG_INTF_SUBCLASS);
	assert_int_equal(intf[7], HZRIG_INTF_PROTOCOL);

	/* bulk IN 0x81, bulk OUT 0x02, interrupt IN 0x85 */
	for (int i = 0; i < 3; i++, ep += USB_DT_ENDPOINT_SIZE) {
		assert_int_equal(ep[0], USB_DT_ENDPOINT_SIZE);
		assert_int_equal(ep[1], USB_DT_ENDPOINT);
	}
	ep = intf + USB_DT_INTERFACE_SIZE;
	assert_int_equal(ep[2], 0x81);
	assert_int_equal(ep[3], USB_ENDPOINT_XFER_BULK);
	assert_int_equal(le16_at(ep + 4), hs ? 512 : HZRIG_BULK_MAXPACKET);
	assert_int_equal(ep[6], 0);
	ep += USB_DT_ENDPOINT_SIZE;
	assert_int_equal(ep[2], 0x02);
	assert_int_equal(ep[3], USB_ENDPOINT_XFER_BULK);
	assert_int_equal(le16_at(ep + 4), hs ? 512 : HZRIG_BULK_MAXPACKET);
	ep += USB_DT_ENDPOINT_SIZE;
	assert_int_equal(ep[2], 0x85);
	assert_int_equal(ep[3], USB_ENDPOINT_XFER_INT);
	assert_int_equal(le16_at(ep + 4), 64);
	/* 1 ms either way: 1 frame, or 2^(4-1) microframes */
	assert_int_equal(ep[6], hs ? 4 : 1);
}

static void check_device(const uint8_t *d)
{
	assert_int_equal(d[0], USB_DT_DEVICE_SIZE);
	assert_int_equal(d[1], USB_DT_DEVICE);
	assert_int_equal(le16_at(d + 2), 0x0200);
	assert_int_equal(le16_at(d + 8), HZRIG_VID);
	assert_int_equal(le16_at(d + 10), HZRIG_PID);
	assert_int_equal(le16_at(d + 12), HZRIG_BCD_DEVICE);
	assert_int_equal(d[14], HZG_STR_MANUFACTURER);
	assert_int_equal(d[15], HZG_STR_PRODUCT);
	assert_int_equal(d[17], 1);			/* bNumConfigurations */
}

static void test_dev_config_dual_speed(void **state)
{
	uint8_t buf[HZG_DEV_CONFIG_MAX + 8];
	size_t len;

	(void)state;
	memset(buf, 0xaa, sizeof(buf));
	len = hzg_build_dev_config(buf, sizeof(buf), true);
	assert_int_equal(len, 4 + 39 + 39 + 18);
	assert_int_equal(len, HZG_DEV_CONFIG_MAX);
	assert_int_equal(u32_host_at(buf), 0);		/* tag */
	check_config(buf + 4, false);
	/* gadgetfs spots the optional hs config by its type byte */
	assert_int_equal(buf[4 + 39 + 1], USB_DT_CONFIG);
	check_config(buf + 4 + 39, true);
	check_device(buf + 4 + 39 + 39);
	assert_int_equal(buf[len], 0xaa);		/* no overrun */
}

static void test_dev_config_full_speed(void **state)
{
	uint8_t buf[HZG_DEV_CONFIG_MAX];
	size_t len;

	(void)state;
	len = hzg_build_dev_config(buf, sizeof(buf), false);
	assert_int_equal(len, 4 + 39 + 18);
	check_config(buf + 4, false);
	/* what follows the fs config must not look like a config */
	assert_int_not_equal(buf[4 + 39 + 1], USB_DT_CONFIG);
	check_device(buf + 4 + 39);
}

static void test_dev_config_too_small(void **state)
{
	uint8_t buf[HZG_DEV_CONFIG_MAX];

	(void)state;
	assert_int_equal(hzg_build_dev_config(buf, HZG_DEV_CONFIG_MAX - 1,
					      true), 0);
	assert_int_equal(hzg_build_dev_config(buf, 3, true), 0);
	assert_int_equal(hzg_build_config(buf, HZG_CONFIG_TOTAL - 1, false),
			 0);
	assert_int_equal(hzg_build_device(buf, USB_DT_DEVICE_SIZE - 1), 0);
}

static void test_ep_config(void **state)
{
	uint8_t cfg[HZG_CONFIG_TOTAL];
	uint8_t buf[HZG_EP_CONFIG_MAX];
	size_t len;

	(void)state;
	assert_int_equal(hzg_build_config(cfg, sizeof(cfg), true),
			 HZG_CONFIG_TOTAL);
	for (int i = 0; i < HZG_EP_COUNT; i++) {
		const uint8_t *in_cfg = cfg + 18 + i * USB_DT_ENDPOINT_SIZE;

		len = hzg_build_ep_config(buf, sizeof(buf), i, true);
		/* inode.c ep_config(): tag 1, then one or two 7-byte ones */
		assert_int_equal(len, 4 + 2 * USB_DT_ENDPOINT_SIZE);
		assert_int_equal(u32_host_at(buf), 1);
		assert_int_equal(buf[4], USB_DT_ENDPOINT_SIZE);
		assert_int_equal(buf[5], USB_DT_ENDPOINT);
		assert_int_equal(buf[6], hzg_eps[i].address);
		assert_int_equal(le16_at(buf + 8), hzg_eps[i].fs_maxp);
		/* the hs one is what the hs config declares */
		assert_memory_equal(buf + 4 + USB_DT_ENDPOINT_SIZE, in_cfg,
				    USB_DT_ENDPOINT_SIZE);

		len = hzg_build_ep_config(buf, sizeof(buf), i, false);
		assert_int_equal(len, 4 + USB_DT_ENDPOINT_SIZE);
	}
	assert_int_equal(hzg_build_ep_config(buf, sizeof(buf), HZG_EP_COUNT,
					     true), 0);
	assert_int_equal(hzg_build_ep_config(buf, 10, 0, false), 0);
}

/*
 * dummy_hcd names its fixed endpoints "ep<n><in|out>-<bulk|int>" and
 * refuses bulk on "-int" ones; the address we declare must agree.
 */
static void test_ep_files_match_dummy_hcd_names(void **state)
{
	(void)state;
	for (int i = 0; i < HZG_EP_COUNT; i++) {
		const struct hzg_ep_info *ep = &hzg_eps[i];
		char dir[4], type[8];
		unsigned int num;

		assert_int_equal(sscanf(ep->file, "ep%u%3[a-z]-%7s", &num, dir,
					type), 3);
		assert_int_equal(num, ep->address & 0x0f);
		assert_string_equal(dir, hzg_ep_is_in(ep) ? "in" : "out");
		assert_string_equal(type, ep->attributes ==
				    USB_ENDPOINT_XFER_INT ? "int" : "bulk");
		assert_ptr_equal(hzg_ep_for_target(ep->target), ep);
	}
	assert_null(hzg_ep_for_target(HZRIG_TARGET_EP0_IN));
	assert_null(hzg_ep_for_target(HZRIG_TARGET_EP0_OUT));
	assert_null(hzg_ep_for_target(HZRIG_TARGET_COUNT));
	assert_int_equal(hzg_ep_maxp(&hzg_eps[HZG_EP_BULK_IN], true), 512);
	assert_int_equal(hzg_ep_maxp(&hzg_eps[HZG_EP_BULK_IN], false), 64);
}

static void test_strings(void **state)
{
	uint8_t buf[128];
	int n;

	(void)state;
	n = hzg_build_string(buf, sizeof(buf), 0);
	assert_int_equal(n, 4);
	assert_int_equal(buf[0], 4);
	assert_int_equal(buf[1], USB_DT_STRING);
	assert_int_equal(le16_at(buf + 2), 0x0409);

	n = hzg_build_string(buf, sizeof(buf), HZG_STR_MANUFACTURER);
	assert_int_equal(n, 2 + 2 * 5);
	assert_int_equal(buf[0], n);
	assert_memory_equal(buf + 2, "h\0z\0r\0i\0g\0", 10);

	n = hzg_build_string(buf, sizeof(buf), HZG_STR_PRODUCT);
	assert_true(n > 2);
	assert_int_equal(buf[0], n);

	assert_int_equal(hzg_build_string(buf, sizeof(buf), 3), -1);
	assert_int_equal(hzg_build_string(buf, sizeof(buf), 255), -1);
	assert_int_equal(hzg_build_string(buf, 5, HZG_STR_MANUFACTURER), -1);
}

/* ---- HZRIG_REQ_ARM ---- */

static struct hzrig_arm raw_arm(void)
{
	struct hzrig_arm a = {
		.version	= HZRIG_WIRE_VERSION,
		.target		= HZRIG_TARGET_EP0_IN,
		.behaviour	= HZRIG_BEH_DELAY,
		.seq		= htole32(0x12345678),
		.delay_us	= htole32(250000),
		.length		= htole32(100),
		.start_ns	= htole64(0x0123456789abcdefull),
	};

	return a;
}

/* Parse the whole of @a. */
static enum hzg_arm_err parse_arm(const struct hzrig_arm *a,
				  struct hzg_arm *out)
{
	return hzg_arm_parse(a, sizeof(*a), out);
}

static void test_arm_parse_valid(void **state)
{
	struct hzrig_arm a = raw_arm();
	const uint8_t *b = (const uint8_t *)&a;
	struct hzg_arm out;

	(void)state;
	/* wire version 2: start_ns appended */
	assert_int_equal(HZRIG_WIRE_VERSION, 2);
	assert_int_equal(sizeof(a), 24);
	assert_int_equal(offsetof(struct hzrig_arm, start_ns), 16);
	/* wire order: little-endian regardless of the host */
	assert_int_equal(b[4], 0x78);
	assert_int_equal(b[7], 0x12);
	assert_int_equal(b[16], 0xef);
	assert_int_equal(b[23], 0x01);
	assert_int_equal(parse_arm(&a, &out), HZG_ARM_OK);
	assert_int_equal(out.target, HZRIG_TARGET_EP0_IN);
	assert_int_equal(out.behaviour, HZRIG_BEH_DELAY);
	assert_int_equal(out.seq, 0x12345678);
	assert_int_equal(out.delay_us, 250000);
	assert_int_equal(out.length, 100);
	assert_true(out.start_ns == 0x0123456789abcdefull);
	a.start_ns = 0;
	assert_int_equal(parse_arm(&a, &out), HZG_ARM_OK);
	assert_true(out.start_ns == 0);
	a = raw_arm();

	a.length = htole32(HZRIG_MAX_XFER);
	assert_int_equal(parse_arm(&a, &out), HZG_ARM_OK);
	for (int t = 0; t < HZRIG_TARGET_COUNT; t++)
		for (int be = 0; be < HZRIG_BEH_COUNT; be++) {
			a.target = t;
			a.behaviour = be;
			assert_int_equal(parse_arm(&a, &out), HZG_ARM_OK);
			assert_int_equal(out.target, t);
			assert_int_equal(out.behaviour, be);
		}
}

static void test_arm_parse_rejects(void **state)
{
	struct hzg_arm out = { .seq = 77 };
	uint8_t big[sizeof(struct hzrig_arm) + 1];
	struct hzrig_arm a;

	(void)state;
	a = raw_arm();
	memcpy(big, &a, sizeof(a));
	big[sizeof(a)] = 0;
	assert_int_equal(hzg_arm_parse(&a, sizeof(a) - 1, &out),
			 HZG_ARM_ESIZE);
	assert_int_equal(hzg_arm_parse(big, sizeof(big), &out),
			 HZG_ARM_ESIZE);
	assert_int_equal(hzg_arm_parse(&a, 0, &out), HZG_ARM_ESIZE);
	/* a version 1 host: 16 bytes, version 1 - refused by size */
	a.version = 1;
	assert_int_equal(hzg_arm_parse(&a, 16, &out), HZG_ARM_ESIZE);
	assert_int_equal(parse_arm(&a, &out), HZG_ARM_EVERSION);

	a.version = 0;
	assert_int_equal(parse_arm(&a, &out), HZG_ARM_EVERSION);
	a.version = HZRIG_WIRE_VERSION + 1;
	assert_int_equal(parse_arm(&a, &out), HZG_ARM_EVERSION);

	a = raw_arm();
	a.target = HZRIG_TARGET_COUNT;
	assert_int_equal(parse_arm(&a, &out), HZG_ARM_ETARGET);
	a.target = 0xff;
	assert_int_equal(parse_arm(&a, &out), HZG_ARM_ETARGET);

	a = raw_arm();
	a.behaviour = HZRIG_BEH_COUNT;
	assert_int_equal(parse_arm(&a, &out), HZG_ARM_EBEHAVIOUR);

	a = raw_arm();
	a.reserved = 1;
	assert_int_equal(parse_arm(&a, &out), HZG_ARM_ERESERVED);

	a = raw_arm();
	a.length = htole32(HZRIG_MAX_XFER + 1);
	assert_int_equal(parse_arm(&a, &out), HZG_ARM_ELENGTH);

	/* a rejected arm leaves the output alone */
	assert_int_equal(out.seq, 77);
}

static void test_arm_deadline(void **state)
{
	struct hzg_arm a = { .behaviour = HZRIG_BEH_DELAY, .delay_us = 20000 };

	(void)state;
	/* no start_ns: from when the gadget applied the arm */
	assert_true(hzg_arm_deadline(&a, 5000000000ull) == 5020000000ull);
	/* start_ns: absolute, whenever the arm was applied */
	a.start_ns = 7000000000ull;
	assert_true(hzg_arm_deadline(&a, 5000000000ull) == 7020000000ull);
	assert_true(hzg_arm_deadline(&a, 9000000000ull) == 7020000000ull);
	/* the largest delay does not wrap 32 bits */
	a.delay_us = UINT32_MAX;
	assert_true(hzg_arm_deadline(&a, 0) ==
		    7000000000ull + (uint64_t)UINT32_MAX * 1000);
	a.delay_us = 0;
	assert_true(hzg_arm_deadline(&a, 1) == 7000000000ull);
}

static void test_arm_strerror(void **state)
{
	(void)state;
	for (int i = HZG_ARM_ESIZE; i <= HZG_ARM_ELENGTH; i++) {
		const char *s = hzg_arm_strerror(i);

		assert_non_null(s);
		assert_string_not_equal(s, "?");
		assert_string_not_equal(s, hzg_arm_strerror(HZG_ARM_OK));
		for (int j = HZG_ARM_ESIZE; j < i; j++)
			assert_string_not_equal(s, hzg_arm_strerror(j));
	}
}

/* ---- armed state ---- */

static struct hzg_arm mk_arm(unsigned int beh, uint32_t seq)
{
	struct hzg_arm a = {
		.target = HZRIG_TARGET_EP0_IN,
		.behaviour = beh,
		.seq = seq,
		.delay_us = 1000,
		.length = 3,
	};

	return a;
}

static void test_slot_consumed_once(void **state)
{
	struct hzg_slot slot = { 0 };
	struct hzg_arm a = mk_arm(HZRIG_BEH_NAK, 9), out;

	(void)state;
	assert_false(hzg_slot_take(&slot, &out));
	assert_int_equal(out.behaviour, HZRIG_BEH_ANSWER);

	hzg_slot_arm(&slot, &a);
	assert_true(hzg_slot_take(&slot, &out));
	assert_int_equal(out.behaviour, HZRIG_BEH_NAK);
	assert_int_equal(out.seq, 9);
	assert_int_equal(out.delay_us, 1000);

	/* consumed: the next transfer answers */
	assert_false(hzg_slot_take(&slot, &out));
	assert_int_equal(out.behaviour, HZRIG_BEH_ANSWER);

	/* a second arm replaces the first */
	hzg_slot_arm(&slot, &a);
	a = mk_arm(HZRIG_BEH_STALL, 10);
	hzg_slot_arm(&slot, &a);
	assert_true(hzg_slot_take(&slot, &out));
	assert_int_equal(out.behaviour, HZRIG_BEH_STALL);
	assert_int_equal(out.seq, 10);

	hzg_slot_arm(&slot, &a);
	hzg_slot_clear(&slot);
	assert_false(hzg_slot_take(&slot, &out));
}

static void test_reset_mask(void **state)
{
	unsigned int m = 0xdead;

	(void)state;
	/* 0: every target, as before targets could be named */
	assert_true(hzg_reset_mask(0, &m));
	assert_int_equal(m, (1u << HZRIG_TARGET_COUNT) - 1);
	assert_true(hzg_reset_mask(1u << HZRIG_TARGET_INT_IN, &m));
	assert_int_equal(m, 1u << HZRIG_TARGET_INT_IN);
	assert_true(hzg_reset_mask((1u << HZRIG_TARGET_EP0_IN) |
				   (1u << HZRIG_TARGET_EP0_OUT), &m));
	assert_int_equal(m, (1u << HZRIG_TARGET_EP0_IN) |
			    (1u << HZRIG_TARGET_EP0_OUT));
	/* a bit past the last target: refused, mask untouched */
	m = 7;
	assert_false(hzg_reset_mask(1u << HZRIG_TARGET_COUNT, &m));
	assert_false(hzg_reset_mask(0x8001, &m));
	assert_int_equal(m, 7);
}

static void test_slot_take_seq(void **state)
{
	struct hzg_slot slot = { 0 };
	struct hzg_arm a = mk_arm(HZRIG_BEH_NAK, 0x00030005), out;

	(void)state;
	assert_int_equal(hzg_slot_take_seq(&slot, 5, &out),
			 HZG_MATCH_UNARMED);
	assert_int_equal(out.behaviour, HZRIG_BEH_ANSWER);
	assert_int_equal(out.seq, 5);

	hzg_slot_arm(&slot, &a);
	/* another transfer's setup: answered, the arm stays */
	assert_int_equal(hzg_slot_take_seq(&slot, 4, &out), HZG_MATCH_STALE);
	assert_int_equal(out.behaviour, HZRIG_BEH_ANSWER);
	assert_int_equal(out.seq, 4);
	assert_true(slot.armed);

	/* wValue carries the low 16 bits only */
	assert_int_equal(hzg_slot_take_seq(&slot, 5, &out), HZG_MATCH_ARMED);
	assert_int_equal(out.behaviour, HZRIG_BEH_NAK);
	assert_int_equal(out.seq, 0x00030005);
	assert_false(slot.armed);
	assert_int_equal(hzg_slot_take_seq(&slot, 5, &out),
			 HZG_MATCH_UNARMED);
}

/* ---- payload ---- */

static void test_payload_fill_and_check(void **state)
{
	uint8_t buf[64];
	uint32_t got = 0;

	(void)state;
	hzg_payload_fill(buf, sizeof(buf), 0xa1b2c3d4);
	assert_memory_equal(buf, "Mrhz", 4);	/* magic, little-endian */
	assert_int_equal(buf[4], 0xd4);
	assert_int_equal(buf[7], 0xa1);
	assert_int_equal(buf[8], 8);		/* pattern after the header */
	assert_int_equal(buf[63], 63);

	assert_int_equal(hzg_payload_check(buf, sizeof(buf), 0xa1b2c3d4,
					   &got), HZG_PAYLOAD_OK);
	assert_int_equal(got, 0xa1b2c3d4);
	assert_int_equal(hzg_payload_check(buf, 8, 0xa1b2c3d4, NULL),
			 HZG_PAYLOAD_OK);
	got = 0;
	/* older than expected: a late payload; newer: an early one */
	assert_int_equal(hzg_payload_check(buf, sizeof(buf), 0xa1b2c3d5,
					   &got), HZG_PAYLOAD_STALE);
	assert_int_equal(got, 0xa1b2c3d4);
	assert_int_equal(hzg_payload_check(buf, sizeof(buf), 0xa1b2c3d3,
					   &got), HZG_PAYLOAD_AHEAD);
	assert_int_equal(hzg_payload_check(buf, 7, 0xa1b2c3d4, &got),
			 HZG_PAYLOAD_NOHDR);
	buf[0] ^= 1;
	assert_int_equal(hzg_payload_check(buf, sizeof(buf), 0xa1b2c3d4,
					   &got), HZG_PAYLOAD_BADMAGIC);
}

/* seq wraps at 2^32: 0xffffffff is just before 0 */
static void test_payload_seq_wraps(void **state)
{
	uint8_t buf[8];

	(void)state;
	hzg_payload_fill(buf, sizeof(buf), 0xffffffff);
	assert_int_equal(hzg_payload_check(buf, sizeof(buf), 0, NULL),
			 HZG_PAYLOAD_STALE);
	hzg_payload_fill(buf, sizeof(buf), 0);
	assert_int_equal(hzg_payload_check(buf, sizeof(buf), 0xffffffff, NULL),
			 HZG_PAYLOAD_AHEAD);
}

static void test_payload_short(void **state)
{
	uint8_t buf[8];

	(void)state;
	memset(buf, 0xee, sizeof(buf));
	hzg_payload_fill(buf, 3, 1);
	assert_memory_equal(buf, "Mrh", 3);
	assert_int_equal(buf[3], 0xee);		/* nothing past len */
	hzg_payload_fill(buf, 0, 1);
	assert_int_equal(buf[0], 'M');
}

/* ---- plans ---- */

enum plan_for { EP_IN, EP_OUT, EP0_IN, EP0_OUT };

/*
 * The plan of @a as @beh for a transfer on @ep (@size: the endpoint's
 * maxpacket, or ep0's wLength); its action must be @action.
 */
static struct hzg_plan plan(struct hzg_arm *a, enum plan_for ep,
			    unsigned int beh, unsigned int size,
			    enum hzg_action action)
{
	bool in = ep == EP_IN || ep == EP0_IN;
	struct hzg_plan p;

	a->behaviour = beh;
	if (ep == EP_IN || ep == EP_OUT)
		p = hzg_plan_ep(a, in, size);
	else
		p = hzg_plan_ep0(a, in, size);
	assert_int_equal(p.action, action);
	return p;
}

static void test_plan_ep_in(void **state)
{
	struct hzg_arm a = mk_arm(HZRIG_BEH_ANSWER, 1);
	struct hzg_plan p;

	(void)state;
	a.length = 0;
	p = plan(&a, EP_IN, HZRIG_BEH_ANSWER, 64, HZG_ACT_WRITE);
	assert_int_equal(p.len, HZG_PAYLOAD_HDR_SIZE);
	assert_false(p.zlp);
	assert_int_equal(p.delay_ns, 0);

	a.length = 512;
	p = plan(&a, EP_IN, HZRIG_BEH_ANSWER, 512, HZG_ACT_WRITE);
	assert_int_equal(p.len, 512);
	assert_false(p.zlp);	/* full length: the host's buffer ends it */

	plan(&a, EP_IN, HZRIG_BEH_NAK, 512, HZG_ACT_NONE);

	a.delay_us = 1500;
	p = plan(&a, EP_IN, HZRIG_BEH_DELAY, 512, HZG_ACT_WRITE);
	assert_int_equal(p.delay_ns, 1500000);
	assert_int_equal(p.len, 512);

	plan(&a, EP_IN, HZRIG_BEH_STALL, 512, HZG_ACT_HALT);

	a.length = 128;
	p = plan(&a, EP_IN, HZRIG_BEH_SHORT, 64, HZG_ACT_WRITE);
	assert_int_equal(p.len, 128);
	assert_true(p.zlp);
	p = hzg_plan_ep(&a, true, 512);
	assert_false(p.zlp);
	a.length = 0;
	p = hzg_plan_ep(&a, true, 64);
	assert_int_equal(p.len, 0);
	assert_false(p.zlp);	/* a zero-length write is the ZLP */
}

static void test_plan_ep_out(void **state)
{
	struct hzg_arm a = mk_arm(HZRIG_BEH_ANSWER, 1);
	struct hzg_plan p;

	(void)state;
	a.length = 0;
	p = plan(&a, EP_OUT, HZRIG_BEH_ANSWER, 64, HZG_ACT_READ);
	assert_int_equal(p.len, HZRIG_MAX_XFER);

	a.length = 100;
	p = hzg_plan_ep(&a, false, 64);
	assert_int_equal(p.len, 100);

	a.length = 128;
	p = plan(&a, EP_OUT, HZRIG_BEH_SHORT, 64, HZG_ACT_READ);
	assert_int_equal(p.len, 128);
	assert_false(p.zlp);

	plan(&a, EP_OUT, HZRIG_BEH_STALL, 64, HZG_ACT_HALT);
	plan(&a, EP_OUT, HZRIG_BEH_NAK, 64, HZG_ACT_NONE);
}

static void test_plan_ep0_in(void **state)
{
	struct hzg_arm a = mk_arm(HZRIG_BEH_ANSWER, 1);
	struct hzg_plan p;

	(void)state;
	p = plan(&a, EP0_IN, HZRIG_BEH_ANSWER, 64, HZG_ACT_WRITE);
	assert_int_equal(p.len, 64);
	assert_false(p.hold);

	p = plan(&a, EP0_IN, HZRIG_BEH_NAK, 64, HZG_ACT_NONE);
	assert_true(p.hold);
	assert_int_equal(p.delay_ns, 0);

	a.delay_us = 20;
	p = plan(&a, EP0_IN, HZRIG_BEH_DELAY, 64, HZG_ACT_WRITE);
	assert_true(p.hold);
	assert_int_equal(p.delay_ns, 20000);
	assert_int_equal(p.len, 64);

	/* no delay: no hold, which a disarmed timerfd would make a NAK */
	a.delay_us = 0;
	p = plan(&a, EP0_IN, HZRIG_BEH_DELAY, 64, HZG_ACT_WRITE);
	assert_false(p.hold);

	p = plan(&a, EP0_IN, HZRIG_BEH_STALL, 64, HZG_ACT_HALT);
	assert_false(p.hold);

	a.length = 10;
	p = plan(&a, EP0_IN, HZRIG_BEH_SHORT, 64, HZG_ACT_WRITE);
	assert_int_equal(p.len, 10);
	a.length = 100;
	p = hzg_plan_ep0(&a, true, 64);
	assert_int_equal(p.len, 64);
	assert_false(p.unsupported);
}

static void test_plan_ep0_out(void **state)
{
	struct hzg_arm a = mk_arm(HZRIG_BEH_ANSWER, 1);
	struct hzg_plan p;

	(void)state;
	p = plan(&a, EP0_OUT, HZRIG_BEH_ANSWER, 0, HZG_ACT_ACK);
	assert_false(p.hold);

	p = plan(&a, EP0_OUT, HZRIG_BEH_NAK, 0, HZG_ACT_NONE);
	assert_true(p.hold);

	p = plan(&a, EP0_OUT, HZRIG_BEH_DELAY, 0, HZG_ACT_ACK);
	assert_true(p.hold);
	assert_int_equal(p.delay_ns, 1000000);

	plan(&a, EP0_OUT, HZRIG_BEH_STALL, 0, HZG_ACT_HALT);

	/* with a data stage the kernel has answered already */
	for (int be = 0; be < HZRIG_BEH_COUNT; be++) {
		p = plan(&a, EP0_OUT, be, 16, HZG_ACT_READ);
		assert_int_equal(p.len, 16);
		assert_false(p.hold);
		assert_int_equal(p.unsupported, be != HZRIG_BEH_ANSWER);
	}
}

/* ---- requests ---- */

#define VENDOR_OUT	(USB_DIR_OUT | USB_TYPE_VENDOR | USB_RECIP_DEVICE)
#define VENDOR_IN	(USB_DIR_IN | USB_TYPE_VENDOR | USB_RECIP_DEVICE)

static struct usb_ctrlrequest ctrl(uint8_t type, uint8_t req, uint16_t value,
				   uint16_t length)
{
	struct usb_ctrlrequest c = {
		.bRequestType = type,
		.bRequest = req,
		.wValue = htole16(value),
		.wIndex = 0,
		.wLength = htole16(length),
	};

	return c;
}

static void test_classify(void **state)
{
	static const struct {
		uint8_t type, req;
		uint16_t value, length;
		enum hzg_req want;
	} cases[] = {
		{ VENDOR_OUT, HZRIG_REQ_ARM, 0, 16, HZG_REQ_ARM },
		{ VENDOR_OUT, HZRIG_REQ_RESET, 0, 0, HZG_REQ_RESET },
		{ VENDOR_IN, HZRIG_REQ_SYNC, 0, 4, HZG_REQ_SYNC },
		{ VENDOR_OUT, HZRIG_REQ_SYNC, 0, 0, HZG_REQ_UNKNOWN },
		{ VENDOR_IN, HZRIG_REQ_HEARTBEAT, 0, 4, HZG_REQ_HEARTBEAT },
		{ VENDOR_OUT, HZRIG_REQ_HEARTBEAT, 0, 0, HZG_REQ_UNKNOWN },
		{ VENDOR_IN, HZRIG_REQ_TEST_IN, 7, 64, HZG_REQ_TEST_IN },
		{ VENDOR_OUT, HZRIG_REQ_TEST_OUT, 7, 0, HZG_REQ_TEST_OUT },

		/* the right request in the wrong direction or recipient */
		{ VENDOR_IN, HZRIG_REQ_ARM, 0, 16, HZG_REQ_UNKNOWN },
		{ VENDOR_OUT, HZRIG_REQ_TEST_IN, 7, 0, HZG_REQ_UNKNOWN },
		{ VENDOR_IN, HZRIG_REQ_TEST_OUT, 7, 8, HZG_REQ_UNKNOWN },
		{ USB_DIR_OUT | USB_TYPE_VENDOR | USB_RECIP_INTERFACE,
		  HZRIG_REQ_RESET, 0, 0, HZG_REQ_UNKNOWN },
		{ USB_DIR_OUT | USB_TYPE_CLASS | USB_RECIP_DEVICE,
		  HZRIG_REQ_ARM, 0, 16, HZG_REQ_UNKNOWN },
		{ VENDOR_OUT, 0x55, 0, 0, HZG_REQ_UNKNOWN },

		{ 0x00, USB_REQ_SET_CONFIGURATION, 1, 0,
		  HZG_REQ_SET_CONFIGURATION },
		{ 0x01, USB_REQ_SET_INTERFACE, 0, 0, HZG_REQ_SET_INTERFACE },
		{ 0x81, USB_REQ_GET_INTERFACE, 0, 1, HZG_REQ_GET_INTERFACE },
		{ 0x80, USB_REQ_GET_DESCRIPTOR, USB_DT_STRING << 8 | 2, 255,
		  HZG_REQ_GET_STRING },
		{ 0x80, USB_REQ_GET_DESCRIPTOR, USB_DT_BOS << 8, 5,
		  HZG_REQ_UNKNOWN },
		{ 0x80, USB_REQ_GET_STATUS, 0, 2, HZG_REQ_UNKNOWN },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct usb_ctrlrequest c = ctrl(cases[i].type, cases[i].req,
						cases[i].value,
						cases[i].length);
		enum hzg_req got = hzg_classify(&c);

		if (got != cases[i].want)
			fail_msg("case %zu: type 0x%02x request 0x%02x: %s, expected %s",
				 i, cases[i].type, cases[i].req,
				 hzg_req_name(got),
				 hzg_req_name(cases[i].want));
	}
}

static void test_orphan_fits(void **state)
{
	struct usb_ctrlrequest reset = ctrl(VENDOR_OUT, HZRIG_REQ_RESET, 0, 0);
	struct usb_ctrlrequest arm = ctrl(VENDOR_OUT, HZRIG_REQ_ARM, 0, 16);
	struct usb_ctrlrequest tin = ctrl(VENDOR_IN, HZRIG_REQ_TEST_IN, 3, 64);
	const struct {
		enum hzg_orphan kind;
		const struct usb_ctrlrequest *req;
		size_t len;
		bool fits;
	} cases[] = {
		{ HZG_ORPHAN_ACKED, &reset, 0, true },
		{ HZG_ORPHAN_ACKED, &arm, 0, false },
		{ HZG_ORPHAN_ACKED, &tin, 0, false },

		{ HZG_ORPHAN_STALLED, &tin, 0, true },
		{ HZG_ORPHAN_STALLED, &reset, 0, false },

		{ HZG_ORPHAN_DATA, &arm, 16, true },
		{ HZG_ORPHAN_DATA, &arm, 3, true },
		{ HZG_ORPHAN_DATA, &arm, 17, false },
		{ HZG_ORPHAN_DATA, &reset, 0, false },
		{ HZG_ORPHAN_DATA, &tin, 16, false },
		{ HZG_ORPHAN_DATA_ERROR, &arm, 0, true },

		{ HZG_ORPHAN_NONE, &arm, 16, false },
		{ HZG_ORPHAN_NONE, &reset, 0, false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool fits = hzg_orphan_fits(cases[i].kind, cases[i].req,
					    cases[i].len);

		if (fits != cases[i].fits)
			fail_msg("case %zu: %s orphan, %s of %zu bytes: fits %d, expected %d",
				 i, hzg_orphan_name(cases[i].kind),
				 hzg_req_name(hzg_classify(cases[i].req)),
				 cases[i].len, fits, cases[i].fits);
	}
}

/* Names @name gives 0 to @n - 1: none "?", no two alike; "?" for @n. */
static void check_names(const char *(*name)(unsigned int), unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		assert_string_not_equal(name(i), "?");
		for (unsigned int j = 0; j < i; j++)
			assert_string_not_equal(name(i), name(j));
	}
	assert_string_equal(name(n), "?");
}

static void test_names(void **state)
{
	(void)state;
	check_names(hzg_target_name, HZRIG_TARGET_COUNT);
	check_names(hzg_beh_name, HZRIG_BEH_COUNT);
	assert_string_equal(hzg_req_name(HZG_REQ_ARM), "ARM");
	assert_string_equal(hzg_orphan_name(HZG_ORPHAN_STALLED), "stalled");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dev_config_dual_speed),
		cmocka_unit_test(test_dev_config_full_speed),
		cmocka_unit_test(test_dev_config_too_small),
		cmocka_unit_test(test_ep_config),
		cmocka_unit_test(test_ep_files_match_dummy_hcd_names),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_arm_parse_valid),
		cmocka_unit_test(test_arm_parse_rejects),
		cmocka_unit_test(test_arm_deadline),
		cmocka_unit_test(test_arm_strerror),
		cmocka_unit_test(test_slot_consumed_once),
		cmocka_unit_test(test_reset_mask),
		cmocka_unit_test(test_slot_take_seq),
		cmocka_unit_test(test_payload_fill_and_check),
		cmocka_unit_test(test_payload_seq_wraps),
		cmocka_unit_test(test_payload_short),
		cmocka_unit_test(test_plan_ep_in),
		cmocka_unit_test(test_plan_ep_out),
		cmocka_unit_test(test_plan_ep0_in),
		cmocka_unit_test(test_plan_ep0_out),
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_orphan_fits),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests_name("gadget_logic", tests, NULL, NULL);
}
