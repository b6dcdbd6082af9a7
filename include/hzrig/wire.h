/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hzrig wire protocol: what the host driver (host-driver/hzrig_main.c) says to
 * the gadget (gadget/ep0.c) over ep0, and the device identity both
 * sides agree on. Included by the kernel module and by userspace, so it uses
 * only <linux/types.h> types. All multi-byte fields are little-endian.
 */
#ifndef HZRIG_WIRE_H
#define HZRIG_WIRE_H

#include <linux/types.h>
#include <asm/byteorder.h>

#include "hzrig/ioctl.h"	/* enum hzrig_transfer */

/* pid.codes test VID:PID, reserved for private testing. */
#define HZRIG_VID		0x1209
#define HZRIG_PID		0x0001
#define HZRIG_BCD_DEVICE	0x0001

/* The vendor interface: bulk IN, bulk OUT and interrupt IN. */
#define HZRIG_INTF_CLASS	0xff
#define HZRIG_INTF_SUBCLASS	0x48	/* 'H' */
#define HZRIG_INTF_PROTOCOL	0x01

#define HZRIG_BULK_MAXPACKET	64	/* full speed on dummy_hcd */
#define HZRIG_MAX_XFER		4096	/* longest data stage either side uses */
#define HZRIG_MAX_CTRL_XFER	256	/* longest control data stage */

/*
 * Vendor requests, bmRequestType = USB_TYPE_VENDOR | USB_RECIP_DEVICE.
 *
 * HZRIG_REQ_ARM (OUT, data stage = struct hzrig_arm): arm the behaviour of the
 *	next transfer on one target. The gadget answers it at once, always.
 * HZRIG_REQ_TEST_IN (IN, wLength = requested length): the ep0 IN transfer
 *	under test; the gadget applies what was armed for HZRIG_TARGET_EP0_IN.
 * HZRIG_REQ_TEST_OUT (OUT, data stage of wLength bytes): the ep0 OUT transfer
 *	under test; the gadget applies what was armed for HZRIG_TARGET_EP0_OUT.
 * HZRIG_REQ_SYNC (IN, wLength = 4): answered at once with the __le32 seq of
 *	the last ARM the gadget applied (0 if none). gadgetfs keeps only one
 *	unread SETUP event and drops an older one when a new setup arrives, so
 *	an ARM the gadget had not read yet when the next request came is lost:
 *	the host sends ARM, then SYNC, and re-sends the ARM until SYNC echoes
 *	its seq. Only then is the transfer under test started.
 * HZRIG_REQ_HEARTBEAT (IN, wLength = 4): answered at once with the __le32
 *	count of heartbeats the gadget has answered before this one. The
 *	driver's self-rearming status poll (docs/robustness.md); it arms
 *	nothing and leaves every target alone.
 * HZRIG_REQ_RESET (OUT, no data, wValue = targets): drop what is armed on
 *	the targets in wValue (bit 1 << enum hzrig_target each; 0: all of
 *	them) and flush and unhalt their endpoints; answered at once. The
 *	others are left alone, so a host may reset one endpoint while
 *	transfers run on others. Bits naming no target: stalled.
 *
 * HZRIG_REQ_TEST_OUT has a data stage only when the gadget is to answer
 * (ANSWER): gadgetfs queues an OUT data stage itself, before the gadget
 * hears of the request, and dummy_hcd completes the transfer with it, so such
 * a request can be neither held (NAK, DELAY) nor stalled. Without a data
 * stage the status stage waits for the gadget, which can hold or stall it.
 * Control data stages are at most HZRIG_MAX_CTRL_XFER bytes (gadgetfs' ep0
 * buffer).
 *
 * For the test requests wValue carries the low 16 bits of the sequence number
 * of the armed transfer, so a stale setup can be told from the current one.
 */
#define HZRIG_REQ_ARM		0x01
#define HZRIG_REQ_RESET		0x02
#define HZRIG_REQ_SYNC		0x03
#define HZRIG_REQ_HEARTBEAT	0x04
#define HZRIG_REQ_TEST_IN	0x10
#define HZRIG_REQ_TEST_OUT	0x11

#define HZRIG_WIRE_VERSION	2

/* Where an armed behaviour applies. */
enum hzrig_target {
	HZRIG_TARGET_BULK_IN	= 0,
	HZRIG_TARGET_BULK_OUT	= 1,
	HZRIG_TARGET_EP0_IN	= 2,
	HZRIG_TARGET_EP0_OUT	= 3,
	HZRIG_TARGET_INT_IN	= 4,
	HZRIG_TARGET_COUNT
};

/* What the gadget does with the next transfer on the target. */
enum hzrig_behaviour {
	HZRIG_BEH_ANSWER	= 0,	/* answer at once, full length */
	HZRIG_BEH_NAK		= 1,	/* never answer: the host sees NAKs */
	HZRIG_BEH_DELAY		= 2,	/* answer after delay_us */
	HZRIG_BEH_STALL		= 3,	/* halt the endpoint */
	HZRIG_BEH_SHORT		= 4,	/* answer with length bytes only */
	HZRIG_BEH_COUNT
};

/* Data stage of HZRIG_REQ_ARM. */
struct hzrig_arm {
	__u8	version;	/* HZRIG_WIRE_VERSION */
	__u8	target;		/* enum hzrig_target */
	__u8	behaviour;	/* enum hzrig_behaviour */
	__u8	reserved;	/* 0 */
	__le32	seq;		/* sequence number of the transfer armed */
	__le32	delay_us;	/* HZRIG_BEH_DELAY: answer this late */
	__le32	length;		/* HZRIG_BEH_SHORT: bytes to answer with */
	/*
	 * CLOCK_MONOTONIC time (the kernel's ktime_get(): host and gadget
	 * share the guest's clock) at which the host starts the transfer; a
	 * DELAY is answered at start_ns + delay_us. 0: not known, the delay
	 * then counts from when the gadget applies the ARM. (version >= 2)
	 */
	__le64	start_ns;
} __attribute__((packed));

/*
 * The ARM/SYNC handshake, which the driver (host-driver/hzrig_main.c) and
 * the runner's userspace paths (initramfs/runner/userpath.c) both run for
 * every transfer: send the ARM, wait HZRIG_ARM_WAIT_US(try) for the gadget
 * to read it (gadgetfs drops an unread setup event when the next arrives),
 * then SYNC; resend until SYNC echoes the seq, at most HZRIG_ARM_TRIES
 * times. Each of its control requests has HZRIG_SETUP_TIMEOUT_MS.
 */
#define HZRIG_SETUP_TIMEOUT_MS	1000
#define HZRIG_ARM_TRIES		8
#define HZRIG_ARM_WAIT_US(try)	(200u << (try))	/* 0.2 ms .. 25.6 ms */

/*
 * The ARM for transfer @seq: what the host asks of the gadget. A SHORT
 * answer is @short_length bytes, every other @length; @start_ns: when the
 * host starts the transfer (0: not known).
 */
static inline struct hzrig_arm hzrig_arm_make(__u8 target, __u8 behaviour,
					      __u32 seq, __u32 delay_us,
					      __u32 length, __u32 short_length,
					      __u64 start_ns)
{
	struct hzrig_arm a = {
		.version	= HZRIG_WIRE_VERSION,
		.target		= target,
		.behaviour	= behaviour,
		.seq		= __cpu_to_le32(seq),
		.delay_us	= __cpu_to_le32(delay_us),
		.length		= __cpu_to_le32(behaviour == HZRIG_BEH_SHORT ?
						short_length : length),
		.start_ns	= __cpu_to_le64(start_ns),
	};

	return a;
}

/*
 * The target an ARM names for each transfer (enum hzrig_transfer): where
 * the gadget applies the behaviour. Use as an array's initializer.
 */
#define HZRIG_TRANSFER_TARGETS {					\
	[HZRIG_XFER_BULK_IN]		= HZRIG_TARGET_BULK_IN,		\
	[HZRIG_XFER_BULK_OUT]		= HZRIG_TARGET_BULK_OUT,	\
	[HZRIG_XFER_CTRL_IN]		= HZRIG_TARGET_EP0_IN,		\
	[HZRIG_XFER_CTRL_OUT]		= HZRIG_TARGET_EP0_OUT,		\
	[HZRIG_XFER_INT_IN]		= HZRIG_TARGET_INT_IN,		\
	[HZRIG_XFER_BULK_IN_KILLABLE]	= HZRIG_TARGET_BULK_IN,		\
}

/*
 * Payload header of every bulk/interrupt IN answer and of every OUT payload
 * the host sends, so late answers can be matched to their transfer.
 */
struct hzrig_payload_hdr {
	__le32	magic;		/* HZRIG_PAYLOAD_MAGIC */
	__le32	seq;
} __attribute__((packed));

#define HZRIG_PAYLOAD_MAGIC	0x7a68724du	/* "Mrhz" little-endian */

#endif /* HZRIG_WIRE_H */
