/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gadget_logic.h - the parts of hzrig-gadget that need no gadgetfs: the
 * descriptors, parsing and validating HZRIG_REQ_ARM, the per-target armed
 * state, the payload header and what to do with one transfer ("plans").
 * Kept free of I/O so that tests/unit/test_gadget_logic.c can run it on the
 * build machine.
 */
#ifndef HZRIG_GADGET_LOGIC_H
#define HZRIG_GADGET_LOGIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/usb/ch9.h>

#include "hzrig/wire.h"

/* The non-control endpoints the interface uses, in descriptor order. */
enum hzg_ep {
	HZG_EP_BULK_IN,
	HZG_EP_BULK_OUT,
	HZG_EP_INT_IN,
	HZG_EP_COUNT
};

struct hzg_ep_info {
	const char	*file;		/* gadgetfs file, named by dummy_hcd */
	const char	*name;		/* for logs */
	uint8_t		address;	/* bEndpointAddress */
	uint8_t		attributes;	/* bmAttributes: USB_ENDPOINT_XFER_* */
	uint16_t	fs_maxp;	/* wMaxPacketSize at full speed */
	uint16_t	hs_maxp;	/* ... at high speed */
	uint8_t		fs_interval;	/* bInterval at full speed (frames) */
	uint8_t		hs_interval;	/* at high speed: 2^(n-1) microframes */
	enum hzrig_target target;
};

extern const struct hzg_ep_info hzg_eps[HZG_EP_COUNT];

#define HZG_CONFIG_VALUE	1
#define HZG_LANGID_EN_US	0x0409
#define HZG_STR_MANUFACTURER	1
#define HZG_STR_PRODUCT		2

/* Interrupt IN packet size; the same at both speeds. */
#define HZG_INT_MAXPACKET	64
#define HZG_BULK_MAXPACKET_HS	512

/* One configuration: config + interface + one descriptor per endpoint. */
#define HZG_CONFIG_TOTAL	(USB_DT_CONFIG_SIZE + USB_DT_INTERFACE_SIZE + \
				 HZG_EP_COUNT * USB_DT_ENDPOINT_SIZE)
/* What is written to the controller file: tag, fs, hs config, device. */
#define HZG_DEV_CONFIG_MAX	(4 + 2 * HZG_CONFIG_TOTAL + USB_DT_DEVICE_SIZE)
/* What is written to an endpoint file: tag, fs and hs descriptor. */
#define HZG_EP_CONFIG_MAX	(4 + 2 * USB_DT_ENDPOINT_SIZE)

const struct hzg_ep_info *hzg_ep_for_target(unsigned int target);
unsigned int hzg_ep_maxp(const struct hzg_ep_info *ep, bool high_speed);

static inline bool hzg_ep_is_in(const struct hzg_ep_info *ep)
{
	return ep->address & USB_DIR_IN;
}

size_t hzg_build_config(uint8_t *buf, size_t cap, bool high_speed);
size_t hzg_build_device(uint8_t *buf, size_t cap);
size_t hzg_build_dev_config(uint8_t *buf, size_t cap, bool with_hs);
size_t hzg_build_ep_config(uint8_t *buf, size_t cap, enum hzg_ep ep,
			   bool with_hs);
int hzg_build_string(uint8_t *buf, size_t cap, unsigned int index);

/* HZRIG_REQ_ARM, decoded to host order. */
struct hzg_arm {
	uint8_t		target;		/* enum hzrig_target */
	uint8_t		behaviour;	/* enum hzrig_behaviour */
	uint32_t	seq;
	uint32_t	delay_us;
	uint32_t	length;
	uint64_t	start_ns;	/* CLOCK_MONOTONIC; 0: not known */
};

enum hzg_arm_err {
	HZG_ARM_OK = 0,
	HZG_ARM_ESIZE,		/* data stage is not sizeof(struct hzrig_arm) */
	HZG_ARM_EVERSION,
	HZG_ARM_ETARGET,
	HZG_ARM_EBEHAVIOUR,
	HZG_ARM_ERESERVED,
	HZG_ARM_ELENGTH,	/* length > HZRIG_MAX_XFER */
};

enum hzg_arm_err hzg_arm_parse(const void *buf, size_t len,
			       struct hzg_arm *out);
const char *hzg_arm_strerror(enum hzg_arm_err err);

/*
 * CLOCK_MONOTONIC time at which a DELAY is to be answered: delay_us after
 * the host's start_ns, or after @from_ns (when the gadget applied the arm)
 * if the host did not say when it starts the transfer.
 */
uint64_t hzg_arm_deadline(const struct hzg_arm *arm, uint64_t from_ns);

/*
 * Armed state of one target. An arm is consumed by one transfer; a target
 * that is not armed answers (HZRIG_BEH_ANSWER).
 */
struct hzg_slot {
	bool		armed;
	struct hzg_arm	arm;
};

void hzg_slot_arm(struct hzg_slot *slot, const struct hzg_arm *arm);
void hzg_slot_clear(struct hzg_slot *slot);
bool hzg_slot_take(struct hzg_slot *slot, struct hzg_arm *out);

/*
 * HZRIG_REQ_RESET's wValue: the targets to reset, BIT(enum hzrig_target)
 * each; 0 means all. False (and *mask untouched) for bits naming no target.
 */
bool hzg_reset_mask(uint16_t wvalue, unsigned int *mask);

enum hzg_match {
	HZG_MATCH_ARMED,	/* armed for this seq: consumed */
	HZG_MATCH_UNARMED,	/* nothing armed: answer */
	HZG_MATCH_STALE,	/* armed for another seq: answer, keep arm */
};

enum hzg_match hzg_slot_take_seq(struct hzg_slot *slot, uint16_t wvalue,
				 struct hzg_arm *out);

/* Payload header of IN answers and OUT payloads. */
#define HZG_PAYLOAD_HDR_SIZE	sizeof(struct hzrig_payload_hdr)

enum hzg_payload {
	HZG_PAYLOAD_OK,		/* header present, seq as expected */
	HZG_PAYLOAD_NOHDR,	/* shorter than the header: cannot tell */
	HZG_PAYLOAD_BADMAGIC,	/* not an hzrig payload */
	HZG_PAYLOAD_STALE,	/* header of an earlier transfer: late */
	HZG_PAYLOAD_AHEAD,	/* header of a later transfer: early */
};

void hzg_payload_fill(uint8_t *buf, size_t len, uint32_t seq);
enum hzg_payload hzg_payload_check(const uint8_t *buf, size_t len,
				   uint32_t want_seq, uint32_t *got_seq);

/* What the gadget does with one transfer. */
enum hzg_action {
	HZG_ACT_NONE,		/* no I/O at all: the host sees NAKs */
	HZG_ACT_WRITE,		/* IN data: write len bytes */
	HZG_ACT_READ,		/* OUT data: read up to len bytes */
	HZG_ACT_ACK,		/* ep0 OUT without data: status stage */
	HZG_ACT_HALT,		/* stall */
};

struct hzg_plan {
	enum hzg_action	action;
	uint32_t	len;
	bool		zlp;		/* end with a zero-length packet */
	bool		hold;		/* ep0: keep the setup pending first */
	uint64_t	delay_ns;	/* hold/wait this long, then act */
	bool		unsupported;	/* behaviour cannot be applied */
};

struct hzg_plan hzg_plan_ep(const struct hzg_arm *arm, bool is_in,
			    unsigned int maxp);
struct hzg_plan hzg_plan_ep0(const struct hzg_arm *arm, bool is_in,
			     uint16_t wlength);

/* Control requests the gadget tells apart. */
enum hzg_req {
	HZG_REQ_ARM,
	HZG_REQ_RESET,
	HZG_REQ_SYNC,
	HZG_REQ_HEARTBEAT,
	HZG_REQ_TEST_IN,
	HZG_REQ_TEST_OUT,
	HZG_REQ_SET_CONFIGURATION,
	HZG_REQ_SET_INTERFACE,
	HZG_REQ_GET_INTERFACE,
	HZG_REQ_GET_STRING,
	HZG_REQ_UNKNOWN,
};

enum hzg_req hzg_classify(const struct usb_ctrlrequest *ctrl);

/*
 * How a setup was finished before its event could be read (see
 * ep0_resolve() in ep0.c), and whether the event read afterwards
 * can be the request it finished.
 */
enum hzg_orphan {
	HZG_ORPHAN_NONE,
	HZG_ORPHAN_ACKED,	/* no-data OUT: status stage sent */
	HZG_ORPHAN_STALLED,	/* IN: ep0 halted */
	HZG_ORPHAN_DATA,	/* OUT data stage read */
	HZG_ORPHAN_DATA_ERROR,	/* OUT data stage failed */
};

bool hzg_orphan_fits(enum hzg_orphan kind, const struct usb_ctrlrequest *ctrl,
		     size_t len);

const char *hzg_target_name(unsigned int target);
const char *hzg_beh_name(unsigned int behaviour);
const char *hzg_req_name(enum hzg_req req);
const char *hzg_orphan_name(enum hzg_orphan kind);

#endif /* HZRIG_GADGET_LOGIC_H */
