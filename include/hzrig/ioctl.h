/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * hzrig char device ABI (/dev/hzrig0): the guest runner asks the host driver to
 * run one measurement case and gets one struct hzrig_sample per repetition.
 *
 * Versioning: every struct starts with its ABI version and its size; the
 * driver rejects versions it does not know with -EINVAL. New fields are
 * only ever appended, and the size field, not the size in the ioctl number,
 * says which fields the caller knows: the driver dispatches on the number's
 * type and nr only, reads a shorter struct as if the missing tail were
 * zero, refuses a longer one whose tail it does not know unless that tail
 * is zero (-E2BIG), and never writes past the size the caller declared
 * (the kernel's copy_struct_from_user() rules). The same holds for each
 * sample of struct hzrig_case.samples, sized by sample_size. The smallest
 * sizes accepted are those of the first version (HZRIG_*_SIZE_V1).
 */
#ifndef HZRIG_IOCTL_H
#define HZRIG_IOCTL_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define HZRIG_ABI_VERSION	1

/* The synchronous call under test. */
enum hzrig_transfer {
	HZRIG_XFER_BULK_IN		= 0,	/* usb_bulk_msg(), IN pipe */
	HZRIG_XFER_BULK_OUT		= 1,	/* usb_bulk_msg(), OUT pipe */
	HZRIG_XFER_CTRL_IN		= 2,	/* usb_control_msg(), IN */
	HZRIG_XFER_CTRL_OUT		= 3,	/* usb_control_msg(), OUT */
	HZRIG_XFER_INT_IN		= 4,	/* usb_interrupt_msg() */
	HZRIG_XFER_BULK_IN_KILLABLE	= 5,	/* usb_bulk_msg_killable() */
	HZRIG_XFER_COUNT
};

/*
 * Who makes the call. The driver runs HZRIG_PATH_KERNEL only; the guest
 * runner makes the others from userspace (initramfs/runner/userpath.c):
 * the synchronous usbfs ioctls, libusb-1.0's synchronous wrappers, and one
 * libusb asynchronous transfer completed by the library's event loop. Named
 * in plans and samples ("path"); a sample without one is a kernel sample.
 */
enum hzrig_path {
	HZRIG_PATH_KERNEL		= 0,	/* usb_*_msg() in the driver */
	HZRIG_PATH_USBFS		= 1,	/* USBDEVFS_BULK, USBDEVFS_CONTROL */
	HZRIG_PATH_LIBUSB_SYNC		= 2,	/* libusb_{bulk,control,interrupt}_transfer() */
	HZRIG_PATH_LIBUSB_ASYNC		= 3,	/* libusb_submit_transfer() */
	/*
	 * An unmodified in-tree driver's own call (plan key driver=), timed
	 * from usbmon's submit and completion stamps of its URB; never an
	 * ioctl of ours (docs/checker.md).
	 */
	HZRIG_PATH_USBMON		= 4,
	HZRIG_PATH_COUNT
};

/* How the caller turns the requested milliseconds into the int it passes. */
enum hzrig_mode {
	HZRIG_MODE_MS			= 0,	/* timeout_ms, as the API wants */
	HZRIG_MODE_LEGACY_JIFFIES	= 1,	/* msecs_to_jiffies(timeout_ms) */
	HZRIG_MODE_HZ_CONSTANT		= 2,	/* HZ * timeout_ms / 1000 */
	HZRIG_MODE_ZERO			= 3,	/* 0 */
	HZRIG_MODE_COUNT
};

#define HZRIG_MAX_REPS		1000
#define HZRIG_MAX_TIMEOUT_MS	120000
#define HZRIG_MAX_FANOUT	4
#define HZRIG_MAX_LENGTH	4096	/* bulk; control: HZRIG_MAX_CTRL_XFER (wire.h) */

/* struct hzrig_case.flags */
#define HZRIG_CASE_RANDOM_PHASE	(1u << 0)	/* start at a random point of the jiffy */

struct hzrig_info {
	__u32	version;	/* in: HZRIG_ABI_VERSION */
	__u32	size;		/* in: sizeof(struct hzrig_info) */
	__u32	hz;		/* out: HZ the module was compiled with */
	__u32	jiffy_rate_mhz;	/* out: jiffies per second measured at load, x1000 */
	__u32	usb_max_sync_timeout_ms; /* out: clamp for non-killable calls */
	__u32	wire_version;	/* out: HZRIG_WIRE_VERSION of the gadget it drives */
	__u16	bulk_in_maxp;	/* out: wMaxPacketSize of each endpoint, 0 if absent */
	__u16	bulk_out_maxp;
	__u16	int_in_maxp;
	__u16	reserved;
	char	release[64];	/* out: utsname()->release */
};

struct hzrig_sample {
	__s64	elapsed_ns;	/* ktime_get() after - before the call */
	__s32	status;		/* return value: 0 or negative errno */
	__u32	actual_length;	/* bytes transferred */
	__s32	timeout_arg;	/* the int actually passed as timeout */
	__u32	seq;		/* sequence number armed on the gadget */
	__u64	start_jiffies;	/* jiffies just before the call */
	__u32	phase_ns;	/* ns since the last tick when the call started */
	__s32	jiffies_lag;	/* ticks start_jiffies was behind the tick grid */
};

struct hzrig_case {
	__u32	version;	/* HZRIG_ABI_VERSION */
	__u32	size;		/* sizeof(struct hzrig_case) */
	__u32	transfer;	/* enum hzrig_transfer */
	__u32	behaviour;	/* enum hzrig_behaviour (wire.h) */
	__u32	mode;		/* enum hzrig_mode */
	__u32	timeout_ms;	/* requested, 0..HZRIG_MAX_TIMEOUT_MS */
	__u32	reps;		/* 1..HZRIG_MAX_REPS */
	__u32	length;		/* bytes to transfer, 1..HZRIG_MAX_LENGTH */
	__u32	delay_us;	/* for HZRIG_BEH_DELAY */
	__u32	short_length;	/* for HZRIG_BEH_SHORT */
	__u32	flags;		/* HZRIG_CASE_* */
	__u32	sample_size;	/* sizeof(struct hzrig_sample) */
	__u64	samples;	/* user pointer to reps struct hzrig_sample */
	/* appended in ABI 1.1 */
	__u32	filled;		/* out: samples written, even when the case fails */
	/*
	 * ABI 1.2 (was reserved, 0): up to this many repetitions in flight at
	 * once (0 or 1: one; at most HZRIG_MAX_FANOUT), for a NAK on a bulk
	 * or interrupt endpoint only (a control call holds ep0, an answer
	 * the endpoint): each waits out its own timeout beside the others.
	 * The caller's array is filled in repetition order; filled counts
	 * them up to the first that was not made.
	 */
	__u32	fanout;
};

/*
 * HZRIG_IOC_RWSEM_TEST: the second 2.6.12 bug class (docs/robustness.md).
 * Each even cycle takes a test rwsem for reading with down_read_non_owner(),
 * has it released from interrupt context with up_read_non_owner() (after a
 * down_read_trylock()/up_read() there too) while the ioctl's own thread
 * contends for it with down_write(); each odd cycle releases it in process
 * context while a writer in a worker waits.
 */
enum hzrig_rwsem_mode {
	HZRIG_RWSEM_URB		= 0,	/* released by a URB's completion */
	HZRIG_RWSEM_HRTIMER	= 1,	/* released by a hard-irq hrtimer */
	/*
	 * The negative control: down_read() with interrupts disabled, a
	 * bug a debugging kernel must report (one cycle whatever cycles says).
	 */
	HZRIG_RWSEM_IRQS_OFF	= 2,
	HZRIG_RWSEM_MODE_COUNT
};

#define HZRIG_RWSEM_MAX_CYCLES	1000000

struct hzrig_rwsem_test {
	__u32	version;	/* HZRIG_ABI_VERSION */
	__u32	size;		/* sizeof(struct hzrig_rwsem_test) */
	__u32	mode;		/* enum hzrig_rwsem_mode */
	__u32	cycles;		/* 1..HZRIG_RWSEM_MAX_CYCLES */
	__u32	done;		/* out: cycles completed */
	__u32	contended;	/* out: cycles the writer had to wait */
	__u32	trylock_ok;	/* out: interrupt-context trylocks taken */
	__u32	trylock_busy;	/* out: ... and refused (a writer waited) */
	__u32	urb_errors;	/* out: URB mode: transfers that failed */
	__u32	reserved;	/* 0 */
};

/* The sizes of the first version: the least the driver accepts. */
#define HZRIG_INFO_SIZE_V1	96
#define HZRIG_SAMPLE_SIZE_V1	40
#define HZRIG_CASE_SIZE_V1	56
#define HZRIG_RWSEM_TEST_SIZE_V1	40

#define HZRIG_IOC_MAGIC		'H'
#define HZRIG_IOC_INFO		_IOWR(HZRIG_IOC_MAGIC, 0x00, struct hzrig_info)
#define HZRIG_IOC_RUN_CASE	_IOWR(HZRIG_IOC_MAGIC, 0x01, struct hzrig_case)
#define HZRIG_IOC_RWSEM_TEST	_IOWR(HZRIG_IOC_MAGIC, 0x02, struct hzrig_rwsem_test)

#endif /* HZRIG_IOCTL_H */
