// SPDX-License-Identifier: GPL-2.0
/*
 * gadget_logic.c - I/O-free logic of hzrig-gadget; see gadget_logic.h.
 */
#include <endian.h>
#include <string.h>

#include "gadget_logic.h"
#include "wbuf.h"

/*
 * dummy_hcd offers fixed-function endpoints whose names give number,
 * direction and type ("ep1in-bulk"); its ep5in-int refuses bulk. gadgetfs
 * names the endpoint files after them. dummy_hcd routes host URBs by the
 * bEndpointAddress we configure, so we keep the number of the name.
 */
const struct hzg_ep_info hzg_eps[HZG_EP_COUNT] = {
	[HZG_EP_BULK_IN] = {
		.file		= "ep1in-bulk",
		.name		= "bulk-in",
		.address	= USB_DIR_IN | 1,
		.attributes	= USB_ENDPOINT_XFER_BULK,
		.fs_maxp	= HZRIG_BULK_MAXPACKET,
		.hs_maxp	= HZG_BULK_MAXPACKET_HS,
		.target		= HZRIG_TARGET_BULK_IN,
	},
	[HZG_EP_BULK_OUT] = {
		.file		= "ep2out-bulk",
		.name		= "bulk-out",
		.address	= USB_DIR_OUT | 2,
		.attributes	= USB_ENDPOINT_XFER_BULK,
		.fs_maxp	= HZRIG_BULK_MAXPACKET,
		.hs_maxp	= HZG_BULK_MAXPACKET_HS,
		.target		= HZRIG_TARGET_BULK_OUT,
	},
	[HZG_EP_INT_IN] = {
		.file		= "ep5in-int",
		.name		= "int-in",
		.address	= USB_DIR_IN | 5,
		.attributes	= USB_ENDPOINT_XFER_INT,
		.fs_maxp	= HZG_INT_MAXPACKET,
		.hs_maxp	= HZG_INT_MAXPACKET,
		/* 1 ms at both speeds: 1 frame, 2^(4-1) microframes */
		.fs_interval	= 1,
		.hs_interval	= 4,
		.target		= HZRIG_TARGET_INT_IN,
	},
};

const struct hzg_ep_info *hzg_ep_for_target(unsigned int target)
{
	for (int i = 0; i < HZG_EP_COUNT; i++)
		if (hzg_eps[i].target == target)
			return &hzg_eps[i];
	return NULL;
}

unsigned int hzg_ep_maxp(const struct hzg_ep_info *ep, bool high_speed)
{
	return high_speed ? ep->hs_maxp : ep->fs_maxp;
}

/* ---- descriptors: built byte by byte, all multi-byte fields LE ---- */

static void put_ep_desc(struct wbuf *b, const struct hzg_ep_info *ep,
			bool high_speed)
{
	put_endpoint(b, ep->address, ep->attributes,
		     hzg_ep_maxp(ep, high_speed),
		     high_speed ? ep->hs_interval : ep->fs_interval);
}

static void put_config(struct wbuf *b, bool high_speed)
{
	put8(b, USB_DT_CONFIG_SIZE);
	put8(b, USB_DT_CONFIG);
	put16(b, HZG_CONFIG_TOTAL);
	put8(b, 1);			/* bNumInterfaces */
	put8(b, HZG_CONFIG_VALUE);
	put8(b, 0);			/* iConfiguration */
	/* gadgetfs insists on bit 7 and refuses remote wakeup */
	put8(b, USB_CONFIG_ATT_ONE | USB_CONFIG_ATT_SELFPOWER);
	put8(b, 1);			/* bMaxPower: 2 mA */

	put8(b, USB_DT_INTERFACE_SIZE);
	put8(b, USB_DT_INTERFACE);
	put8(b, 0);			/* bInterfaceNumber */
	put8(b, 0);			/* bAlternateSetting */
	put8(b, HZG_EP_COUNT);
	put8(b, HZRIG_INTF_CLASS);
	put8(b, HZRIG_INTF_SUBCLASS);
	put8(b, HZRIG_INTF_PROTOCOL);
	put8(b, 0);			/* iInterface */

	for (int i = 0; i < HZG_EP_COUNT; i++)
		put_ep_desc(b, &hzg_eps[i], high_speed);
}

size_t hzg_build_config(uint8_t *buf, size_t cap, bool high_speed)
{
	struct wbuf b = { .p = buf, .cap = cap };

	put_config(&b, high_speed);
	return wbuf_done(&b);
}

static void put_device(struct wbuf *b)
{
	/* class per interface */
	put_device_desc(b, 0, 0, 0, HZRIG_VID, HZRIG_PID, HZRIG_BCD_DEVICE,
			HZG_STR_MANUFACTURER, HZG_STR_PRODUCT);
}

size_t hzg_build_device(uint8_t *buf, size_t cap)
{
	struct wbuf b = { .p = buf, .cap = cap };

	put_device(&b);
	return wbuf_done(&b);
}

/*
 * The controller file takes (inode.c, dev_config()): u32 tag 0 in host
 * order, the full-speed configuration, optionally the high-speed one, then
 * the device descriptor. Without the high-speed one gadgetfs registers as a
 * full-speed-only driver and dummy_hcd connects at full speed.
 */
size_t hzg_build_dev_config(uint8_t *buf, size_t cap, bool with_hs)
{
	struct wbuf b;

	if (!wbuf_start(&b, buf, cap, 0))
		return 0;
	put_config(&b, false);
	if (with_hs)
		put_config(&b, true);
	put_device(&b);
	return wbuf_done(&b);
}

/*
 * An endpoint file takes (inode.c, ep_config()): u32 tag 1 in host order,
 * the full-speed descriptor and, for a high-speed capable gadget, the
 * high-speed one; gadgetfs enables the one matching the connection speed.
 */
size_t hzg_build_ep_config(uint8_t *buf, size_t cap, enum hzg_ep ep,
			   bool with_hs)
{
	struct wbuf b;

	if ((unsigned int)ep >= HZG_EP_COUNT || !wbuf_start(&b, buf, cap, 1))
		return 0;
	put_ep_desc(&b, &hzg_eps[ep], false);
	if (with_hs)
		put_ep_desc(&b, &hzg_eps[ep], true);
	return wbuf_done(&b);
}

static const char *const hzg_strings[] = {
	[HZG_STR_MANUFACTURER]	= "hzrig",
	[HZG_STR_PRODUCT]	= "hzrig HZ timeout test device",
};

/* String descriptor @index (0: the language list) in UTF-16LE; -1 if there
 * is no such string or it does not fit.
 */
int hzg_build_string(uint8_t *buf, size_t cap, unsigned int index)
{
	struct wbuf b = { .p = buf, .cap = cap };
	const char *s;
	size_t n;

	if (index == 0) {
		put8(&b, 4);
		put8(&b, USB_DT_STRING);
		put16(&b, HZG_LANGID_EN_US);
		return b.overflow ? -1 : (int)b.len;
	}
	if (index >= sizeof(hzg_strings) / sizeof(hzg_strings[0]) ||
	    !hzg_strings[index])
		return -1;
	s = hzg_strings[index];
	n = strlen(s);
	put8(&b, 2 + 2 * n);
	put8(&b, USB_DT_STRING);
	for (size_t i = 0; i < n; i++)
		put16(&b, (uint8_t)s[i]);	/* ASCII only */
	return b.overflow ? -1 : (int)b.len;
}

/* ---- HZRIG_REQ_ARM ---- */

enum hzg_arm_err hzg_arm_parse(const void *buf, size_t len,
			       struct hzg_arm *out)
{
	struct hzrig_arm raw;

	/* exactly version 2's size: an older host sends 16 bytes */
	if (len != sizeof(raw))
		return HZG_ARM_ESIZE;
	memcpy(&raw, buf, sizeof(raw));
	if (raw.version != HZRIG_WIRE_VERSION)
		return HZG_ARM_EVERSION;
	if (raw.target >= HZRIG_TARGET_COUNT)
		return HZG_ARM_ETARGET;
	if (raw.behaviour >= HZRIG_BEH_COUNT)
		return HZG_ARM_EBEHAVIOUR;
	/* must be 0 now, so it can carry meaning in a later version */
	if (raw.reserved != 0)
		return HZG_ARM_ERESERVED;
	if (le32toh(raw.length) > HZRIG_MAX_XFER)
		return HZG_ARM_ELENGTH;

	out->target = raw.target;
	out->behaviour = raw.behaviour;
	out->seq = le32toh(raw.seq);
	out->delay_us = le32toh(raw.delay_us);
	out->length = le32toh(raw.length);
	out->start_ns = le64toh(raw.start_ns);
	return HZG_ARM_OK;
}

uint64_t hzg_arm_deadline(const struct hzg_arm *arm, uint64_t from_ns)
{
	uint64_t base = arm->start_ns ? arm->start_ns : from_ns;

	return base + (uint64_t)arm->delay_us * 1000;
}

const char *hzg_arm_strerror(enum hzg_arm_err err)
{
	switch (err) {
	case HZG_ARM_OK:
		return "ok";
	case HZG_ARM_ESIZE:
		return "data stage is not sizeof(struct hzrig_arm) bytes";
	case HZG_ARM_EVERSION:
		return "unknown wire version";
	case HZG_ARM_ETARGET:
		return "unknown target";
	case HZG_ARM_EBEHAVIOUR:
		return "unknown behaviour";
	case HZG_ARM_ERESERVED:
		return "reserved byte is not 0";
	case HZG_ARM_ELENGTH:
		return "length exceeds HZRIG_MAX_XFER";
	}
	return "?";
}

/* ---- armed state ---- */

void hzg_slot_arm(struct hzg_slot *slot, const struct hzg_arm *arm)
{
	slot->arm = *arm;
	slot->armed = true;
}

void hzg_slot_clear(struct hzg_slot *slot)
{
	memset(slot, 0, sizeof(*slot));
}

bool hzg_reset_mask(uint16_t wvalue, unsigned int *mask)
{
	const unsigned int all = (1u << HZRIG_TARGET_COUNT) - 1;

	if (wvalue & ~all)
		return false;
	*mask = wvalue ? wvalue : all;
	return true;
}

/* Consume the arm; an unarmed slot yields HZRIG_BEH_ANSWER. */
bool hzg_slot_take(struct hzg_slot *slot, struct hzg_arm *out)
{
	bool was_armed = slot->armed;

	if (was_armed) {
		*out = slot->arm;
	} else {
		memset(out, 0, sizeof(*out));
		out->behaviour = HZRIG_BEH_ANSWER;
	}
	slot->armed = false;
	return was_armed;
}

/*
 * ep0 test requests carry the low 16 bits of the armed seq in wValue. A
 * mismatch means the request is not the transfer that was armed (the arm
 * is for a later one, or the host skipped a seq): answer it and keep the
 * arm for the transfer it names.
 */
enum hzg_match hzg_slot_take_seq(struct hzg_slot *slot, uint16_t wvalue,
				 struct hzg_arm *out)
{
	if (!slot->armed) {
		hzg_slot_take(slot, out);
		out->seq = wvalue;
		return HZG_MATCH_UNARMED;
	}
	if ((slot->arm.seq & 0xffff) != wvalue) {
		memset(out, 0, sizeof(*out));
		out->behaviour = HZRIG_BEH_ANSWER;
		out->seq = wvalue;
		return HZG_MATCH_STALE;
	}
	hzg_slot_take(slot, out);
	return HZG_MATCH_ARMED;
}

/* ---- payload ---- */

void hzg_payload_fill(uint8_t *buf, size_t len, uint32_t seq)
{
	struct hzrig_payload_hdr hdr = {
		.magic	= htole32(HZRIG_PAYLOAD_MAGIC),
		.seq	= htole32(seq),
	};
	size_t n = len < sizeof(hdr) ? len : sizeof(hdr);

	/* a short answer carries as much of the header as fits */
	memcpy(buf, &hdr, n);
	for (size_t i = n; i < len; i++)
		buf[i] = (uint8_t)i;
}

enum hzg_payload hzg_payload_check(const uint8_t *buf, size_t len,
				   uint32_t want_seq, uint32_t *got_seq)
{
	struct hzrig_payload_hdr hdr;

	if (len < sizeof(hdr))
		return HZG_PAYLOAD_NOHDR;
	memcpy(&hdr, buf, sizeof(hdr));
	if (le32toh(hdr.magic) != HZRIG_PAYLOAD_MAGIC)
		return HZG_PAYLOAD_BADMAGIC;
	if (got_seq)
		*got_seq = le32toh(hdr.seq);
	/* serial number arithmetic: seq wraps at 2^32 */
	if ((int32_t)(le32toh(hdr.seq) - want_seq) < 0)
		return HZG_PAYLOAD_STALE;
	if (le32toh(hdr.seq) != want_seq)
		return HZG_PAYLOAD_AHEAD;
	return HZG_PAYLOAD_OK;
}

/* ---- plans ---- */

/*
 * Bulk and interrupt endpoints. The gadget never sees the host's transfer
 * length, so an IN answer is arm->length bytes when given, else just the
 * payload header: a short packet ends any host read of at least 8 bytes.
 * An OUT read takes arm->length bytes when given, else HZRIG_MAX_XFER; the
 * host's last short packet ends it.
 */
struct hzg_plan hzg_plan_ep(const struct hzg_arm *arm, bool is_in,
			    unsigned int maxp)
{
	struct hzg_plan p = { .action = HZG_ACT_NONE };
	uint32_t full;

	if (is_in)
		full = arm->length ? arm->length : HZG_PAYLOAD_HDR_SIZE;
	else
		full = arm->length ? arm->length : HZRIG_MAX_XFER;

	switch (arm->behaviour) {
	case HZRIG_BEH_NAK:
		break;
	case HZRIG_BEH_DELAY:
		p.delay_ns = (uint64_t)arm->delay_us * 1000;
		__attribute__((fallthrough));
	case HZRIG_BEH_ANSWER:
		p.action = is_in ? HZG_ACT_WRITE : HZG_ACT_READ;
		p.len = full;
		break;
	case HZRIG_BEH_STALL:
		p.action = HZG_ACT_HALT;
		break;
	case HZRIG_BEH_SHORT:
		p.action = is_in ? HZG_ACT_WRITE : HZG_ACT_READ;
		p.len = arm->length;
		/*
		 * gadgetfs never sets usb_request.zero, so a short answer that
		 * fills whole packets needs an explicit zero-length packet to
		 * end the host's transfer. A zero-length answer is one itself.
		 */
		p.zlp = is_in && maxp && p.len && p.len % maxp == 0;
		break;
	default:
		p.unsupported = true;
		break;
	}
	return p;
}

/*
 * ep0 test requests. gadgetfs queues the data stage of a control OUT itself
 * before userspace sees the setup (inode.c, gadgetfs_setup()), and the
 * controller completes the host's transfer with it: only an OUT without a
 * data stage can be held, delayed or stalled. An IN answer is the full
 * wLength unless SHORT; gadgetfs adds the ZLP for short IN answers itself.
 */
struct hzg_plan hzg_plan_ep0(const struct hzg_arm *arm, bool is_in,
			     uint16_t wlength)
{
	struct hzg_plan p = { .action = HZG_ACT_NONE };
	enum hzg_action answer;

	if (is_in)
		answer = HZG_ACT_WRITE;
	else
		answer = wlength ? HZG_ACT_READ : HZG_ACT_ACK;
	p.len = wlength;

	if (!is_in && wlength) {
		p.action = HZG_ACT_READ;
		p.unsupported = arm->behaviour != HZRIG_BEH_ANSWER;
		return p;
	}

	switch (arm->behaviour) {
	case HZRIG_BEH_NAK:
		p.hold = true;
		break;
	case HZRIG_BEH_DELAY:
		/* a zero delay is an answer: an unarmed timerfd never fires */
		p.delay_ns = (uint64_t)arm->delay_us * 1000;
		p.hold = p.delay_ns != 0;
		p.action = answer;
		break;
	case HZRIG_BEH_ANSWER:
		p.action = answer;
		break;
	case HZRIG_BEH_STALL:
		p.action = HZG_ACT_HALT;
		break;
	case HZRIG_BEH_SHORT:
		p.action = answer;
		if (is_in && arm->length < wlength)
			p.len = arm->length;
		/* nothing to shorten without a data stage */
		p.unsupported = !is_in;
		break;
	default:
		p.unsupported = true;
		p.action = HZG_ACT_HALT;
		break;
	}
	return p;
}

/* ---- requests ---- */

#define HZG_VENDOR_OUT	(USB_DIR_OUT | USB_TYPE_VENDOR | USB_RECIP_DEVICE)
#define HZG_VENDOR_IN	(USB_DIR_IN | USB_TYPE_VENDOR | USB_RECIP_DEVICE)

static enum hzg_req classify_vendor(const struct usb_ctrlrequest *ctrl)
{
	switch (ctrl->bRequest) {
	case HZRIG_REQ_ARM:
		if (ctrl->bRequestType == HZG_VENDOR_OUT)
			return HZG_REQ_ARM;
		break;
	case HZRIG_REQ_RESET:
		if (ctrl->bRequestType == HZG_VENDOR_OUT)
			return HZG_REQ_RESET;
		break;
	case HZRIG_REQ_SYNC:
		if (ctrl->bRequestType == HZG_VENDOR_IN)
			return HZG_REQ_SYNC;
		break;
	case HZRIG_REQ_HEARTBEAT:
		if (ctrl->bRequestType == HZG_VENDOR_IN)
			return HZG_REQ_HEARTBEAT;
		break;
	case HZRIG_REQ_TEST_IN:
		if (ctrl->bRequestType == HZG_VENDOR_IN)
			return HZG_REQ_TEST_IN;
		break;
	case HZRIG_REQ_TEST_OUT:
		if (ctrl->bRequestType == HZG_VENDOR_OUT)
			return HZG_REQ_TEST_OUT;
		break;
	}
	return HZG_REQ_UNKNOWN;
}

static enum hzg_req classify_standard(const struct usb_ctrlrequest *ctrl)
{
	switch (ctrl->bRequest) {
	case USB_REQ_SET_CONFIGURATION:
		if (ctrl->bRequestType == (USB_DIR_OUT | USB_RECIP_DEVICE))
			return HZG_REQ_SET_CONFIGURATION;
		break;
	case USB_REQ_SET_INTERFACE:
		if (ctrl->bRequestType == (USB_DIR_OUT | USB_RECIP_INTERFACE))
			return HZG_REQ_SET_INTERFACE;
		break;
	case USB_REQ_GET_INTERFACE:
		if (ctrl->bRequestType == (USB_DIR_IN | USB_RECIP_INTERFACE))
			return HZG_REQ_GET_INTERFACE;
		break;
	case USB_REQ_GET_DESCRIPTOR:
		if (ctrl->bRequestType == (USB_DIR_IN | USB_RECIP_DEVICE) &&
		    le16toh(ctrl->wValue) >> 8 == USB_DT_STRING)
			return HZG_REQ_GET_STRING;
		break;
	}
	return HZG_REQ_UNKNOWN;
}

enum hzg_req hzg_classify(const struct usb_ctrlrequest *ctrl)
{
	switch (ctrl->bRequestType & USB_TYPE_MASK) {
	case USB_TYPE_VENDOR:
		return classify_vendor(ctrl);
	case USB_TYPE_STANDARD:
		return classify_standard(ctrl);
	}
	return HZG_REQ_UNKNOWN;
}

/* ---- setups finished before their event was read ---- */

bool hzg_orphan_fits(enum hzg_orphan kind, const struct usb_ctrlrequest *ctrl,
		     size_t len)
{
	bool in = ctrl->bRequestType & USB_DIR_IN;
	uint16_t wlength = le16toh(ctrl->wLength);

	switch (kind) {
	case HZG_ORPHAN_ACKED:
		return !in && wlength == 0;
	case HZG_ORPHAN_STALLED:
		return in;
	case HZG_ORPHAN_DATA:
		return !in && wlength > 0 && len <= wlength;
	case HZG_ORPHAN_DATA_ERROR:
		return !in && wlength > 0;
	case HZG_ORPHAN_NONE:
		break;
	}
	return false;
}

/* ---- names for logs ---- */

const char *hzg_target_name(unsigned int target)
{
	static const char *const names[] = {
		[HZRIG_TARGET_BULK_IN]	= "bulk-in",
		[HZRIG_TARGET_BULK_OUT]	= "bulk-out",
		[HZRIG_TARGET_EP0_IN]	= "ep0-in",
		[HZRIG_TARGET_EP0_OUT]	= "ep0-out",
		[HZRIG_TARGET_INT_IN]	= "int-in",
	};

	return target < HZRIG_TARGET_COUNT ? names[target] : "?";
}

const char *hzg_beh_name(unsigned int behaviour)
{
	static const char *const names[] = {
		[HZRIG_BEH_ANSWER]	= "ANSWER",
		[HZRIG_BEH_NAK]		= "NAK",
		[HZRIG_BEH_DELAY]	= "DELAY",
		[HZRIG_BEH_STALL]	= "STALL",
		[HZRIG_BEH_SHORT]	= "SHORT",
	};

	return behaviour < HZRIG_BEH_COUNT ? names[behaviour] : "?";
}

const char *hzg_req_name(enum hzg_req req)
{
	switch (req) {
	case HZG_REQ_ARM:
		return "ARM";
	case HZG_REQ_RESET:
		return "RESET";
	case HZG_REQ_SYNC:
		return "SYNC";
	case HZG_REQ_HEARTBEAT:
		return "HEARTBEAT";
	case HZG_REQ_TEST_IN:
		return "TEST_IN";
	case HZG_REQ_TEST_OUT:
		return "TEST_OUT";
	case HZG_REQ_SET_CONFIGURATION:
		return "SET_CONFIGURATION";
	case HZG_REQ_SET_INTERFACE:
		return "SET_INTERFACE";
	case HZG_REQ_GET_INTERFACE:
		return "GET_INTERFACE";
	case HZG_REQ_GET_STRING:
		return "GET_DESCRIPTOR(string)";
	case HZG_REQ_UNKNOWN:
		break;
	}
	return "unknown";
}

const char *hzg_orphan_name(enum hzg_orphan kind)
{
	switch (kind) {
	case HZG_ORPHAN_NONE:
		return "none";
	case HZG_ORPHAN_ACKED:
		return "acked";
	case HZG_ORPHAN_STALLED:
		return "stalled";
	case HZG_ORPHAN_DATA:
		return "data read";
	case HZG_ORPHAN_DATA_ERROR:
		return "data stage failed";
	}
	return "?";
}
