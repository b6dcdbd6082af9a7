// SPDX-License-Identifier: GPL-2.0
/*
 * hzrig_host - time synchronous USB transfers against the hzrig gadget
 *
 * The hzrig gadget (a gadgetfs device on dummy_hcd) NAKs, delays, stalls or
 * answers short on command. For every repetition of a case this driver arms
 * the gadget over ep0, then issues exactly one synchronous call -
 * usb_bulk_msg(), usb_control_msg(), usb_interrupt_msg() or
 * usb_bulk_msg_killable() - and times it with ktime_get(). The timeout it
 * passes is computed the way drivers in the wild compute it, in milliseconds
 * as the API wants or in jiffies as it wanted before 2.6.12, so the rig can
 * show what each costs at a given HZ.
 *
 * Userspace drives it through /dev/hzrig<n>: see include/hzrig/ioctl.h for
 * the ABI and include/hzrig/wire.h for what goes over the wire. Cases on
 * independent endpoints ("lanes": ep0, bulk IN, bulk OUT, interrupt IN) may
 * run at once from several threads; docs/measurement.md has the details.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "hzrig_host.h"

static struct usb_driver hzrig_driver;

static const u8 hzrig_lane_of[HZRIG_XFER_COUNT] = {
	[HZRIG_XFER_BULK_IN]		= HZRIG_LANE_BULK_IN,
	[HZRIG_XFER_BULK_OUT]		= HZRIG_LANE_BULK_OUT,
	[HZRIG_XFER_CTRL_IN]		= HZRIG_LANE_EP0,
	[HZRIG_XFER_CTRL_OUT]		= HZRIG_LANE_EP0,
	[HZRIG_XFER_INT_IN]		= HZRIG_LANE_INT_IN,
	[HZRIG_XFER_BULK_IN_KILLABLE]	= HZRIG_LANE_BULK_IN,
};

/* What a lane's RESET drops on the gadget. */
static const u16 hzrig_lane_targets[HZRIG_LANE_COUNT] = {
	[HZRIG_LANE_EP0]	= BIT(HZRIG_TARGET_EP0_IN) |
				  BIT(HZRIG_TARGET_EP0_OUT),
	[HZRIG_LANE_BULK_IN]	= BIT(HZRIG_TARGET_BULK_IN),
	[HZRIG_LANE_BULK_OUT]	= BIT(HZRIG_TARGET_BULK_OUT),
	[HZRIG_LANE_INT_IN]	= BIT(HZRIG_TARGET_INT_IN),
};

/* Where the gadget applies what is armed for each transfer. */
static const u8 hzrig_target[HZRIG_XFER_COUNT] = HZRIG_TRANSFER_TARGETS;

/*
 * Read-only module parameters: the HZ this module was compiled with and the
 * jiffy rate measured at load (jiffies per second x 1000), for anyone
 * checking /sys/module/hzrig_host/parameters without opening the device.
 */
static unsigned int hzrig_hz = HZ;
static unsigned int hzrig_heartbeat_ms;
int hzrig_param_set_ro(const char *val, const struct kernel_param *kp)
{
	return -EPERM;
}

const struct kernel_param_ops hzrig_param_ro_ops = {
	.set	= hzrig_param_set_ro,
	.get	= param_get_uint,
};

module_param_cb(hz, &hzrig_param_ro_ops, &hzrig_hz, 0444);
MODULE_PARM_DESC(hz, "HZ the module was compiled with (read-only)");
module_param_named(heartbeat_ms, hzrig_heartbeat_ms, uint, 0444);
MODULE_PARM_DESC(heartbeat_ms,
		 "poll each device's status every this many ms (0: never)");
static void hzrig_delete(struct kref *kref)
{
	struct hzrig_dev *dev = container_of(kref, struct hzrig_dev, kref);
	int i;

	usb_put_dev(dev->udev);
	kfree(dev->hb_buf);
	hzrig_rwsem_free(dev);
	for (i = 0; i < HZRIG_SLOT_COUNT; i++)
		kfree(dev->lane[i].buf);
	kfree(dev);
}

static int hzrig_open(struct inode *inode, struct file *file)
{
	struct usb_interface *intf;
	struct hzrig_dev *dev;

	intf = usb_find_interface(&hzrig_driver, iminor(inode));
	if (!intf)
		return -ENODEV;

	dev = usb_get_intfdata(intf);
	if (!dev)
		return -ENODEV;

	kref_get(&dev->kref);
	file->private_data = dev;
	return nonseekable_open(inode, file);
}

static int hzrig_release(struct inode *inode, struct file *file)
{
	struct hzrig_dev *dev = file->private_data;

	kref_put(&dev->kref, hzrig_delete);
	return 0;
}

int hzrig_invalid(struct hzrig_dev *dev, const char *what, u32 val)
{
	dev_info_ratelimited(&dev->udev->dev, "invalid argument: %s %u\n",
			     what, val);
	return -EINVAL;
}

static_assert(sizeof(struct hzrig_info) == HZRIG_INFO_SIZE_V1);
static_assert(sizeof(struct hzrig_sample) == HZRIG_SAMPLE_SIZE_V1);
static_assert(sizeof(struct hzrig_rwsem_test) == HZRIG_RWSEM_TEST_SIZE_V1);
static_assert(offsetofend(struct hzrig_case, samples) == HZRIG_CASE_SIZE_V1);
/* sample_size beyond this is not a sample but a mistake */
#define HZRIG_SAMPLE_SIZE_MAX	4096

/*
 * The caller's struct at @argp: its version and size first, then the whole
 * of it by copy_struct_from_user() (include/hzrig/ioctl.h). *@usize gets
 * the caller's size. -EINVAL (logged) for an unknown version or a size
 * below @min, -E2BIG for a longer struct whose unknown tail is not zero.
 */
int hzrig_get_struct(struct hzrig_dev *dev, void *dst, size_t ksize,
		     const void __user *argp, size_t min, u32 *usize,
		     const char *what)
{
	u32 head[2];
	int ret;

	if (copy_from_user(head, argp, sizeof(head)))
		return -EFAULT;
	if (head[0] != HZRIG_ABI_VERSION)
		return hzrig_invalid(dev, what, head[0]);
	if (head[1] < min || head[1] > PAGE_SIZE)
		return hzrig_invalid(dev, "struct size", head[1]);
	ret = copy_struct_from_user(dst, ksize, argp, head[1]);
	if (ret == -E2BIG)
		dev_info_ratelimited(&dev->udev->dev,
				     "%s: %u bytes with an unknown non-zero tail\n",
				     what, head[1]);
	*usize = head[1];
	return ret;
}

static long hzrig_ioctl_info(struct hzrig_dev *dev, void __user *argp)
{
	struct hzrig_info info;
	u32 usize;
	int ret;

	ret = hzrig_get_struct(dev, &info, sizeof(info), argp,
			       HZRIG_INFO_SIZE_V1, &usize, "info version");
	if (ret)
		return ret;

	memset(&info, 0, sizeof(info));
	info.version = HZRIG_ABI_VERSION;
	info.size = sizeof(info);
	info.hz = HZ;
	info.jiffy_rate_mhz = hzrig_jiffy_rate;
	info.usb_max_sync_timeout_ms = USB_MAX_SYNCHRONOUS_TIMEOUT;
	info.wire_version = HZRIG_WIRE_VERSION;
	info.bulk_in_maxp = dev->bulk_in_maxp;
	info.bulk_out_maxp = dev->bulk_out_maxp;
	info.int_in_maxp = dev->has_int_in ? dev->int_in_maxp : 0;
	strscpy(info.release, utsname()->release, sizeof(info.release));

	/* info.size says what this driver wrote; the caller's size bounds it */
	if (copy_to_user(argp, &info, min_t(size_t, usize, sizeof(info))))
		return -EFAULT;
	return 0;
}

static bool hzrig_is_ctrl(u32 transfer)
{
	return transfer == HZRIG_XFER_CTRL_IN ||
	       transfer == HZRIG_XFER_CTRL_OUT;
}

static int hzrig_check_case(struct hzrig_dev *dev, const struct hzrig_case *c)
{
	if (c->sample_size < HZRIG_SAMPLE_SIZE_V1 ||
	    c->sample_size > HZRIG_SAMPLE_SIZE_MAX)
		return hzrig_invalid(dev, "sample_size", c->sample_size);
	if (c->fanout > HZRIG_MAX_FANOUT)
		return hzrig_invalid(dev, "fanout", c->fanout);
	if (c->fanout > 1 && (hzrig_is_ctrl(c->transfer) ||
			      c->behaviour != HZRIG_BEH_NAK))
		return hzrig_invalid(dev, "fanout of a call not a bulk or interrupt NAK",
				     c->fanout);
	if (c->transfer >= HZRIG_XFER_COUNT)
		return hzrig_invalid(dev, "transfer", c->transfer);
	if (c->behaviour >= HZRIG_BEH_COUNT)
		return hzrig_invalid(dev, "behaviour", c->behaviour);
	if (c->mode >= HZRIG_MODE_COUNT)
		return hzrig_invalid(dev, "mode", c->mode);
	if (c->reps < 1 || c->reps > HZRIG_MAX_REPS)
		return hzrig_invalid(dev, "reps", c->reps);
	if (c->timeout_ms > HZRIG_MAX_TIMEOUT_MS)
		return hzrig_invalid(dev, "timeout_ms", c->timeout_ms);
	if (c->length < 1 || c->length > HZRIG_BUF_SIZE)
		return hzrig_invalid(dev, "length", c->length);
	if (hzrig_is_ctrl(c->transfer) && c->length > HZRIG_MAX_CTRL_XFER)
		return hzrig_invalid(dev, "control length", c->length);
	if (c->behaviour == HZRIG_BEH_SHORT && c->short_length >= c->length)
		return hzrig_invalid(dev, "short_length", c->short_length);
	if (c->flags & ~HZRIG_CASE_FLAGS)
		return hzrig_invalid(dev, "flags", c->flags);
	if (c->transfer == HZRIG_XFER_INT_IN && !dev->has_int_in)
		return -EOPNOTSUPP;
	return 0;
}

/* The int the caller passes as timeout, computed as the mode says. */
static int hzrig_timeout_arg(const struct hzrig_case *c)
{
	switch (c->mode) {
	case HZRIG_MODE_LEGACY_JIFFIES:
		return msecs_to_jiffies(c->timeout_ms);
	case HZRIG_MODE_HZ_CONSTANT:
		return HZ * c->timeout_ms / 1000;
	case HZRIG_MODE_ZERO:
		return 0;
	default:
		return c->timeout_ms;
	}
}

/*
 * May the next request go out? -ENODEV once disconnected, -ECONNRESET while
 * the device is being reset (the repetition in flight is over: the reset
 * flushes its endpoints), else 0.
 */
int hzrig_io_check(struct hzrig_dev *dev)
{
	if (test_bit(HZRIG_GONE, &dev->io_flags))
		return -ENODEV;
	if (test_bit(HZRIG_RESETTING, &dev->io_flags))
		return -ECONNRESET;
	return 0;
}

/* Before a repetition or a RESET: wait out a device reset, killably. */
static int hzrig_io_enter(struct hzrig_dev *dev)
{
	int ret;

	ret = wait_event_killable(dev->io_wait,
				  !test_bit(HZRIG_RESETTING, &dev->io_flags) ||
				  test_bit(HZRIG_GONE, &dev->io_flags));
	return ret ? ret : hzrig_io_check(dev);
}

/*
 * At the start of a case: drop whatever a previous case left armed or queued
 * on the lane's targets (HZRIG_REQ_RESET, wValue = mask of targets), and
 * nothing else: the other lanes may be in the middle of a call.
 */
static int hzrig_reset_lane(struct hzrig_dev *dev, struct hzrig_lane *lane)
{
	int ret;

	ret = hzrig_io_enter(dev);
	if (ret)
		return ret;
	ret = hzrig_ep0_lock_quiet(dev, lane);
	if (ret)
		return ret;
	ret = hzrig_io_check(dev);
	if (!ret)
		ret = usb_control_msg_send(dev->udev, 0, HZRIG_REQ_RESET,
					   USB_DIR_OUT | USB_TYPE_VENDOR |
					   USB_RECIP_DEVICE, lane->targets, 0,
					   NULL, 0, HZRIG_SETUP_TIMEOUT_MS,
					   GFP_KERNEL);
	hzrig_ep0_unlock_quiet(dev, lane);
	if (ret)
		dev_warn(&dev->udev->dev, "reset request failed: %d\n", ret);
	return ret;
}

/*
 * HZRIG_REQ_ARM: tell the gadget what to do with transfer @seq, then make
 * sure it heard: gadgetfs drops an unread SETUP event when the next setup
 * arrives, so an ARM the gadget had not read yet would be lost silently.
 * HZRIG_REQ_SYNC echoes the last ARM the gadget applied; resend until it
 * matches. Needs ep0_mutex: another lane's ARM between ours and its SYNC
 * would change the echo.
 */
static int hzrig_arm(struct hzrig_dev *dev, const struct hzrig_case *c,
		     u32 seq, ktime_t start)
{
	struct hzrig_arm arm = hzrig_arm_make(hzrig_target[c->transfer],
					      c->behaviour, seq, c->delay_us,
					      c->length, c->short_length,
					      ktime_to_ns(start));
	__le32 echo = 0;
	int tries, ret;

	for (tries = 0; tries < HZRIG_ARM_TRIES; tries++) {
		ret = hzrig_io_check(dev);
		if (ret)
			return ret;
		ret = usb_control_msg_send(dev->udev, 0, HZRIG_REQ_ARM,
					   USB_DIR_OUT | USB_TYPE_VENDOR |
					   USB_RECIP_DEVICE, 0, 0, &arm,
					   sizeof(arm), HZRIG_SETUP_TIMEOUT_MS,
					   GFP_KERNEL);
		if (ret)
			return ret;
		/*
		 * Let the gadget read the ARM's event and data before SYNC
		 * arrives: a SYNC that beats it replaces the ARM's event in
		 * gadgetfs, and the ARM is lost. Longer on each retry.
		 */
		usleep_range(HZRIG_ARM_WAIT_US(tries), 2 * HZRIG_ARM_WAIT_US(tries));
		ret = usb_control_msg_recv(dev->udev, 0, HZRIG_REQ_SYNC,
					   USB_DIR_IN | USB_TYPE_VENDOR |
					   USB_RECIP_DEVICE, 0, 0, &echo,
					   sizeof(echo), HZRIG_SETUP_TIMEOUT_MS,
					   GFP_KERNEL);
		/*
		 * -EPIPE: the SYNC came while the gadget was still finishing
		 * a request held by the previous repetition, and it had to
		 * stall it unread. -EREMOTEIO: the SYNC got a short answer,
		 * one the gadget wrote for an earlier IN request that the
		 * host had given up on: gadgetfs' ep0_write() drops its lock
		 * between taking the request and queueing it
		 * (drivers/usb/gadget/legacy/inode.c:1136-1148), so a setup
		 * that comes in between gets the stale answer. Either way,
		 * let the gadget run, then try again.
		 */
		if (ret && ret != -EPIPE && ret != -EREMOTEIO)
			return ret;
		if (!ret && le32_to_cpu(echo) == seq)
			return 0;
	}
	dev_warn(&dev->udev->dev, "seq %u: gadget did not take the ARM (%d tries, last echo %u)\n",
		 seq, tries, le32_to_cpu(echo));
	return -EPROTO;
}

/* OUT payloads start with the header (as much of it as fits). */
static void hzrig_fill_out(u8 *buf, u32 len, u32 seq)
{
	struct hzrig_payload_hdr hdr = {
		.magic	= cpu_to_le32(HZRIG_PAYLOAD_MAGIC),
		.seq	= cpu_to_le32(seq),
	};
	u32 i;

	for (i = 0; i < len; i++)
		buf[i] = i;
	memcpy(buf, &hdr, min_t(u32, len, sizeof(hdr)));
}

/* A bulk/interrupt IN answer must carry the sequence number we armed. */
static void hzrig_check_in(struct hzrig_dev *dev, const u8 *buf, u32 len,
			   u32 seq)
{
	const struct hzrig_payload_hdr *hdr = (const void *)buf;

	if (len < sizeof(*hdr))
		return;
	if (le32_to_cpu(hdr->magic) != HZRIG_PAYLOAD_MAGIC)
		dev_warn_ratelimited(&dev->udev->dev,
				     "seq %u: answer without payload header\n",
				     seq);
	else if (le32_to_cpu(hdr->seq) != seq)
		dev_warn_ratelimited(&dev->udev->dev,
				     "seq %u: stale answer for seq %u\n",
				     seq, le32_to_cpu(hdr->seq));
}

static unsigned int hzrig_pipe(struct hzrig_dev *dev, u32 transfer)
{
	switch (transfer) {
	case HZRIG_XFER_BULK_OUT:
		return usb_sndbulkpipe(dev->udev, dev->bulk_out_ep);
	case HZRIG_XFER_CTRL_IN:
		return usb_rcvctrlpipe(dev->udev, 0);
	case HZRIG_XFER_CTRL_OUT:
		return usb_sndctrlpipe(dev->udev, 0);
	case HZRIG_XFER_INT_IN:
		return usb_rcvintpipe(dev->udev, dev->int_in_ep);
	default:
		return usb_rcvbulkpipe(dev->udev, dev->bulk_in_ep);
	}
}

/*
 * The timed call: exactly one synchronous call between the two ktime_get(),
 * the jiffies it started at into @s. Returns the call's status (<= 0).
 */
static int hzrig_timed_call(struct usb_device *udev, const struct hzrig_case *c,
			    unsigned int pipe, u8 *buf, u16 ctrl_len,
			    int timeout, u32 seq, struct hzrig_sample *s,
			    int *actual, ktime_t *t0, ktime_t *t1)
{
	bool in = usb_pipein(pipe);
	u8 request = in ? HZRIG_REQ_TEST_IN : HZRIG_REQ_TEST_OUT;
	u8 reqtype = (in ? USB_DIR_IN : USB_DIR_OUT) | USB_TYPE_VENDOR |
		     USB_RECIP_DEVICE;
	int ret;

	s->start_jiffies = get_jiffies_64();
	switch (c->transfer) {
	case HZRIG_XFER_CTRL_IN:
	case HZRIG_XFER_CTRL_OUT:
		*t0 = ktime_get();
		ret = usb_control_msg(udev, pipe, request, reqtype, seq & 0xffff,
				      0, buf, ctrl_len, timeout);
		*t1 = ktime_get();
		*actual = max(ret, 0);
		return min(ret, 0);
	case HZRIG_XFER_INT_IN:
		*t0 = ktime_get();
		ret = usb_interrupt_msg(udev, pipe, buf, c->length, actual,
					timeout);
		*t1 = ktime_get();
		return ret;
	case HZRIG_XFER_BULK_IN_KILLABLE:
		*t0 = ktime_get();
		ret = usb_bulk_msg_killable(udev, pipe, buf, c->length, actual,
					    timeout);
		*t1 = ktime_get();
		return ret;
	default:
		*t0 = ktime_get();
		ret = usb_bulk_msg(udev, pipe, buf, c->length, actual, timeout);
		*t1 = ktime_get();
		return ret;
	}
}

/*
 * Arm the gadget for one repetition of @c and sleep until its start (the
 * call is then made at once). @seqp gets the ARM's sequence number and
 * @ep0_held says whether ep0_mutex is held on return, either way: the
 * caller's exit path releases it. Returns 0, or an error that ends the case.
 */
static int hzrig_arm_and_wait(struct hzrig_dev *dev, struct hzrig_lane *lane,
			      const struct hzrig_case *c, int timeout,
			      u32 *seqp, bool *ep0_held)
{
	bool in = usb_pipein(hzrig_pipe(dev, c->transfer));
	bool ctrl = hzrig_is_ctrl(c->transfer);
	bool delay = c->behaviour == HZRIG_BEH_DELAY;
	ktime_t start = 0;
	u32 phase;
	int ret, tries;

	/*
	 * The start is a tick edge plus a random part of the jiffy, reached
	 * by sleeping on an hrtimer: a busy-wait would keep the one CPU from
	 * the other lanes. A DELAY is timed by the gadget from the planned
	 * start, so that start goes into the ARM: an edge far enough ahead for
	 * ARM + SYNC. An ARM that overran it, or a wakeup more than
	 * HZRIG_START_SLACK_NS late, is replaced by one for a later start (a
	 * new seq, so that SYNC tells the two apart) with twice the guard (up
	 * to 16 times). The other behaviours don't care when the call begins:
	 * they are armed first and started at the next tick edge plus the
	 * phase, so a slow ARM costs nothing, and record the phase they got.
	 * With other lanes running, arming waits for a moment when no other
	 * call starts or ends, and the start moves on by whole ticks until
	 * neither it nor the call's expected end meets another lane's
	 * (hzrig_ep0_lock_quiet(), hzrig_plan_quiet()).
	 */
	for (tries = 0; ; tries++) {
		u64 guard = (u64)HZRIG_START_GUARD_NS << min(tries, 4);

		ret = hzrig_ep0_lock_quiet(dev, lane);
		if (ret)
			return ret;
		*ep0_held = true;
		*seqp = atomic_inc_return(&dev->seq);
		phase = c->flags & HZRIG_CASE_RANDOM_PHASE ?
			get_random_u32_below(TICK_NSEC) : 0;
		if (delay) {
			start = hzrig_edge_after(ktime_add_ns(ktime_get(),
							      guard));
			start = hzrig_plan_quiet(dev, lane, c, timeout,
						 ktime_add_ns(start, phase));
		}
		ret = hzrig_arm(dev, c, *seqp, delay ? start : 0);
		if (ret) {
			dev_warn(&dev->udev->dev, "arming seq %u failed: %d\n",
				 *seqp, ret);
			return ret;
		}
		/*
		 * Other lanes may arm while this one waits for its start; the
		 * gadget keeps what is armed per target. A control call takes
		 * ep0 back for itself: another lane's ARM must not queue
		 * behind a control transfer held for the whole timeout.
		 */
		hzrig_ep0_unlock_quiet(dev, lane);
		*ep0_held = false;
		if (!delay) {
			start = hzrig_edge_after(ktime_get());
			start = hzrig_plan_quiet(dev, lane, c, timeout,
						 ktime_add_ns(start, phase));
		}
		if (!in)
			hzrig_fill_out(lane->buf, c->length, *seqp);
		ret = hzrig_wait_until(start, delay ? HZRIG_DELAY_SPIN_NS : 0);
		if (ret)
			return ret;
		if (ctrl) {
			ret = mutex_lock_killable(&dev->ep0_mutex);
			if (ret)
				return ret;
			*ep0_held = true;
		}
		/*
		 * A guest that stalls (its vCPU preempted on the host, a slow
		 * interrupt under TCG) or another lane holding ep0 past a
		 * DELAY's start would skew the sample: such a start is given
		 * up for a later one.
		 */
		if (!delay || ktime_to_ns(ktime_sub(ktime_get(), start)) <
		    HZRIG_START_SLACK_NS)
			return 0;
		if (*ep0_held) {
			mutex_unlock(&dev->ep0_mutex);
			*ep0_held = false;
		}
		hzrig_span_clear(dev, lane);
		if (tries == HZRIG_ARM_TRIES) {
			dev_warn(&dev->udev->dev, "seq %u: could not start within %ld us of the planned start\n",
				 *seqp, HZRIG_START_SLACK_NS / NSEC_PER_USEC);
			return -ETIME;
		}
	}
}

/*
 * One repetition: arm, sleep until the planned start, time the call. Fills
 * @s (and sets *@timed) once the call was made, and returns 0 whatever the
 * call returned; an error return means the
 * case cannot go on (disconnect, reset, signal, arming or halt clearing
 * failed). The gate is checked before every request: once disconnect or
 * pre_reset has closed it, nothing new goes out. A call already started is
 * not waited for there; usbcore flushes its endpoint (the interface's are
 * flushed before disconnect, drivers/usb/core/driver.c:455; a reset
 * flushes ep0 and the interface, hub.c:6166 and :6195), so it ends at once,
 * except a control call during a plain unbind, which runs on to its
 * timeout on memory the open file keeps (kref). ep0_mutex is held while
 * arming and, for a control case, again for the timed call.
 */
static int hzrig_run_one(struct hzrig_dev *dev, struct hzrig_lane *lane,
			 const struct hzrig_case *c, struct hzrig_sample *s,
			 bool *timed)
{
	struct usb_device *udev = dev->udev;
	int timeout = hzrig_timeout_arg(c);
	unsigned int pipe = hzrig_pipe(dev, c->transfer);
	bool in = usb_pipein(pipe);
	bool ctrl = hzrig_is_ctrl(c->transfer);
	/*
	 * A control OUT data stage is completed by gadgetfs itself: only a
	 * request without one can be held or stalled (include/hzrig/wire.h).
	 */
	u16 ctrl_len = in || c->behaviour == HZRIG_BEH_ANSWER ? c->length : 0;
	u8 *buf = lane->buf;
	bool ep0_held = false;
	ktime_t t0, t1;
	int actual = 0;
	u32 seq;
	int ret;

	ret = hzrig_io_enter(dev);
	if (ret)
		return ret;

	ret = hzrig_arm_and_wait(dev, lane, c, timeout, &seq, &ep0_held);
	if (!ret)
		ret = hzrig_io_check(dev);
	if (ret)
		goto out;
	ret = hzrig_timed_call(udev, c, pipe, buf, ctrl_len, timeout, seq, s,
			       &actual, &t0, &t1);
	*timed = true;
	if (ep0_held) {
		mutex_unlock(&dev->ep0_mutex);
		ep0_held = false;
	}
	hzrig_check_end(dev, lane, t1, ret);
	hzrig_span_clear(dev, lane);

	s->elapsed_ns = ktime_to_ns(ktime_sub(t1, t0));
	s->status = ret;
	s->actual_length = actual;
	s->timeout_arg = timeout;
	s->seq = seq;
	/* The phase the call really started at, not the one planned. */
	s->phase_ns = ktime_to_ns(ktime_sub(t0, hzrig_edge_before(t0)));
	s->jiffies_lag = hzrig_jiffies_lag(t0, s->start_jiffies);

	if (in && !ret && !ctrl)
		hzrig_check_in(dev, buf, actual, seq);

	/*
	 * An IN answer that came too late and sits in dummy_hcd's FIFO is
	 * flushed by the gadget when the next ARM for the endpoint arrives
	 * (gadget/README.md), before SYNC lets the next call start.
	 */
	ret = 0;
	/* ep0 recovers from a stall by itself; the others need clearing. */
	if (s->status == -EPIPE && !ctrl) {
		ret = hzrig_ep0_lock_quiet(dev, lane);
		if (ret)
			goto out;
		ret = hzrig_io_check(dev);
		if (!ret)
			ret = usb_clear_halt(udev, pipe);
		hzrig_ep0_unlock_quiet(dev, lane);
		if (ret)
			dev_warn(&dev->udev->dev,
				 "seq %u: clearing halt failed: %d\n", seq,
				 ret);
	}
out:
	hzrig_span_clear(dev, lane);
	if (ep0_held)
		mutex_unlock(&dev->ep0_mutex);
	return ret;
}

/*
 * Can take minutes (reps x timeout): disconnect and reset close the gate
 * between repetitions (and abort the call in flight, see hzrig_run_one()),
 * and a fatal signal stops the case between repetitions. Every repetition
 * whose call was made is in the caller's array, also when the case fails
 * after it (a halt that could not be cleared), and c.filled says how many
 * (for callers whose struct has it). Cases on
 * different lanes (hzrig_lane_of) run concurrently when several threads
 * call this; a second case on a busy lane waits for the first.
 */
/* Sample @i of the caller's array: what fits, and zeros after it. */
static int hzrig_put_sample(const struct hzrig_case *c, u32 i,
			    const struct hzrig_sample *s)
{
	u8 __user *out = u64_to_user_ptr(c->samples) + (size_t)i * c->sample_size;
	size_t n = min_t(size_t, c->sample_size, sizeof(*s));

	if (copy_to_user(out, s, n))
		return -EFAULT;
	if (c->sample_size > n && clear_user(out + n, c->sample_size - n))
		return -EFAULT;
	return 0;
}

/* One thread's share of a fanned-out case: repetitions first, first + step... */
struct hzrig_shard {
	struct hzrig_dev	*dev;
	struct hzrig_lane	*slot;
	const struct hzrig_case	*c;
	struct hzrig_sample	*s;		/* c->reps of them */
	bool			*timed;		/* c->reps of them */
	u32			first, step;
	atomic_t		*stop;		/* one share failed: all stop */
	int			ret;
	struct completion	done;
};

static void hzrig_shard_run(struct hzrig_shard *sh)
{
	u32 i;

	for (i = sh->first; i < sh->c->reps; i += sh->step) {
		if (atomic_read(sh->stop))
			break;
		if (fatal_signal_pending(current)) {
			sh->ret = -EINTR;
		} else {
			sh->ret = hzrig_run_one(sh->dev, sh->slot, sh->c,
						&sh->s[i], &sh->timed[i]);
		}
		if (sh->ret) {
			atomic_set(sh->stop, 1);
			break;
		}
	}
}

static int hzrig_shard_thread(void *data)
{
	struct hzrig_shard *sh = data;

	hzrig_shard_run(sh);
	complete(&sh->done);
	return 0;
}

/*
 * A NAK case with c->fanout repetitions in flight at once: the ioctl's
 * thread runs one share in @lane, kernel threads the others in the slots
 * after the lanes. Each repetition is made exactly as alone (arm, planned
 * start, one timed call); the planner keeps their starts apart. The
 * samples go to the caller in repetition order once all are done.
 */
static int hzrig_run_fanout(struct hzrig_dev *dev, struct hzrig_lane *lane,
			    const struct hzrig_case *c, u32 *filled)
{
	struct hzrig_shard sh[HZRIG_MAX_FANOUT];
	u32 n = min(c->fanout, c->reps), i, k;
	atomic_t stop = ATOMIC_INIT(0);
	struct hzrig_sample *s;
	bool *timed;
	int ret = 0;

	s = kvcalloc(c->reps, sizeof(*s), GFP_KERNEL);
	timed = kcalloc(c->reps, sizeof(*timed), GFP_KERNEL);
	if (!s || !timed) {
		ret = -ENOMEM;
		goto out;
	}
	if (mutex_lock_killable(&dev->fanout_mutex)) {
		ret = -EINTR;
		goto out;
	}
	for (k = 0; k < n; k++) {
		sh[k] = (struct hzrig_shard){
			.dev = dev, .c = c, .s = s, .timed = timed,
			.first = k, .step = n, .stop = &stop,
			.slot = k ? &dev->lane[HZRIG_LANE_COUNT + k - 1] : lane,
		};
		init_completion(&sh[k].done);
	}
	for (k = 1; k < n; k++) {
		struct task_struct *t;

		t = kthread_create(hzrig_shard_thread, &sh[k], "hzrig-rep%u", k);
		if (IS_ERR(t)) {
			sh[k].ret = PTR_ERR(t);
			atomic_set(&stop, 1);
			complete(&sh[k].done);
			continue;
		}
		/* as the runner's lane threads: the call's end gets the CPU */
		sched_set_fifo_low(t);
		wake_up_process(t);
	}
	hzrig_shard_run(&sh[0]);
	for (k = 1; k < n; k++)
		wait_for_completion(&sh[k].done);
	mutex_unlock(&dev->fanout_mutex);
	for (k = 0; k < n && !ret; k++)
		ret = sh[k].ret;
	for (i = 0; i < c->reps && timed[i]; i++) {
		int put = hzrig_put_sample(c, i, &s[i]);

		if (put) {
			ret = put;
			break;
		}
	}
	*filled = i;
out:
	kvfree(s);
	kfree(timed);
	return ret;
}

static long hzrig_ioctl_run_case(struct hzrig_dev *dev, void __user *argp)
{
	struct hzrig_lane *lane;
	struct hzrig_sample s;
	struct hzrig_case c;
	u32 i, usize, filled = 0;
	bool timed;
	int ret, put;

	ret = hzrig_get_struct(dev, &c, sizeof(c), argp, HZRIG_CASE_SIZE_V1,
			       &usize, "case version");
	if (ret)
		return ret;
	ret = hzrig_check_case(dev, &c);
	if (ret)
		return ret;
	if (!access_ok(u64_to_user_ptr(c.samples),
		       (size_t)c.reps * c.sample_size))
		return -EFAULT;

	lane = &dev->lane[hzrig_lane_of[c.transfer]];
	if (mutex_lock_killable(&lane->mutex))
		return -EINTR;

	ret = hzrig_reset_lane(dev, lane);
	if (!ret && c.fanout > 1) {
		ret = hzrig_run_fanout(dev, lane, &c, &filled);
		c.reps = 0;	/* done */
	}
	for (i = 0; !ret && i < c.reps; i++) {
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		memset(&s, 0, sizeof(s));
		timed = false;
		ret = hzrig_run_one(dev, lane, &c, &s, &timed);
		if (!timed)
			continue;
		put = hzrig_put_sample(&c, i, &s);
		if (put)
			ret = put;
		else
			filled++;
	}

	mutex_unlock(&lane->mutex);
	if (usize >= offsetofend(struct hzrig_case, filled) &&
	    put_user(filled, (u32 __user *)(argp +
					    offsetof(struct hzrig_case, filled))))
		return -EFAULT;
	return ret;
}

static long hzrig_ioctl(struct file *file, unsigned int cmd,
			unsigned long arg)
{
	struct hzrig_dev *dev = file->private_data;
	void __user *argp = (void __user *)arg;

	if (!READ_ONCE(dev->intf))
		return -ENODEV;

	/*
	 * The struct's own size field says which version the caller has:
	 * the size in the number is not compared (include/hzrig/ioctl.h).
	 */
	if (_IOC_TYPE(cmd) != HZRIG_IOC_MAGIC ||
	    _IOC_DIR(cmd) != (_IOC_READ | _IOC_WRITE))
		return -ENOTTY;
	switch (_IOC_NR(cmd)) {
	case _IOC_NR(HZRIG_IOC_INFO):
		return hzrig_ioctl_info(dev, argp);
	case _IOC_NR(HZRIG_IOC_RUN_CASE):
		return hzrig_ioctl_run_case(dev, argp);
	case _IOC_NR(HZRIG_IOC_RWSEM_TEST):
		return hzrig_ioctl_rwsem_test(dev, argp);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations hzrig_fops = {
	.owner		= THIS_MODULE,
	.open		= hzrig_open,
	.release	= hzrig_release,
	.unlocked_ioctl	= hzrig_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

static struct usb_class_driver hzrig_class = {
	.name		= "hzrig%d",
	.fops		= &hzrig_fops,
	.minor_base	= HZRIG_MINOR_BASE,
};

/*
 * Poll the device with a control request, then queue the next poll. It uses
 * dev and dev->hb_buf: teardown must stop it for good before they go
 * (hzrig_heartbeat_stop()).
 */
static void hzrig_heartbeat(struct work_struct *work)
{
	struct hzrig_dev *dev = container_of(to_delayed_work(work),
					     struct hzrig_dev, heartbeat);
	int ret;

	/*
	 * ep0 is shared with the ARM + SYNC protocol and the control cases:
	 * a heartbeat between an ARM and its SYNC makes the gadget finish the
	 * ARM blind (docs/robustness.md), and one queued behind a control
	 * case's timed call would wait out its timeout. A beat that finds ep0
	 * taken is skipped, not waited for.
	 */
	if (!mutex_trylock(&dev->ep0_mutex)) {
		dev->hb_skipped++;
		goto again;
	}
	ret = usb_control_msg(dev->udev, usb_rcvctrlpipe(dev->udev, 0),
			      HZRIG_REQ_HEARTBEAT,
			      USB_DIR_IN | USB_TYPE_VENDOR | USB_RECIP_DEVICE,
			      0, 0, dev->hb_buf, sizeof(*dev->hb_buf),
			      HZRIG_HEARTBEAT_TIMEOUT_MS);
	mutex_unlock(&dev->ep0_mutex);
	if (ret == sizeof(*dev->hb_buf))
		dev->hb_answered++;
	else
		dev->hb_failed++;
again:
	schedule_delayed_work(&dev->heartbeat,
			      msecs_to_jiffies(hzrig_heartbeat_ms));
}

static void hzrig_heartbeat_start(struct hzrig_dev *dev)
{
	if (hzrig_heartbeat_ms)
		schedule_delayed_work(&dev->heartbeat,
				      msecs_to_jiffies(hzrig_heartbeat_ms));
}

/*
 * Stop the heartbeat for good: on return it is neither queued nor running
 * and cannot queue itself again. A plain cancel_delayed_work() returns while
 * an instance runs, which then re-queues itself on memory about to be freed:
 * the bug of old drivers that the unsafe-teardown demo module re-enacts
 * (kernel/variants/hz-250-debug-unsafe.variant; never in the shipped module).
 */
static void hzrig_heartbeat_stop(struct hzrig_dev *dev)
{
	if (HZRIG_UNSAFE_TEARDOWN)
		cancel_delayed_work(&dev->heartbeat);
	else
		cancel_delayed_work_sync(&dev->heartbeat);
}

static int hzrig_probe(struct usb_interface *intf,
		       const struct usb_device_id *id)
{
	struct usb_host_interface *alt = intf->cur_altsetting;
	struct usb_endpoint_descriptor *bulk_in, *bulk_out, *int_in;
	struct hzrig_dev *dev;
	int i, ret;

	if (usb_find_common_endpoints(alt, &bulk_in, &bulk_out, NULL, NULL)) {
		dev_err(&intf->dev, "needs a bulk IN and a bulk OUT endpoint\n");
		return -ENODEV;
	}
	if (usb_find_int_in_endpoint(alt, &int_in))
		int_in = NULL;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	kref_init(&dev->kref);
	init_waitqueue_head(&dev->io_wait);
	mutex_init(&dev->ep0_mutex);
	spin_lock_init(&dev->span_lock);
	atomic_set(&dev->seq, 0);
	dev->udev = usb_get_dev(interface_to_usbdev(intf));
	INIT_DELAYED_WORK(&dev->heartbeat, hzrig_heartbeat);
	dev->hb_buf = kmalloc(sizeof(*dev->hb_buf), GFP_KERNEL);
	if (!dev->hb_buf || hzrig_rwsem_init(dev)) {
		kref_put(&dev->kref, hzrig_delete);
		return -ENOMEM;
	}
	mutex_init(&dev->fanout_mutex);
	for (i = 0; i < HZRIG_SLOT_COUNT; i++) {
		struct hzrig_lane *lane = &dev->lane[i];

		mutex_init(&lane->mutex);
		if (i < HZRIG_LANE_COUNT)
			lane->targets = hzrig_lane_targets[i];
		/* a buffer per slot: transfers on several at once */
		lane->buf = kmalloc(HZRIG_BUF_SIZE, GFP_KERNEL);
		if (!lane->buf) {
			kref_put(&dev->kref, hzrig_delete);
			return -ENOMEM;
		}
	}
	dev->intf = intf;

	dev->bulk_in_ep = usb_endpoint_num(bulk_in);
	dev->bulk_in_maxp = usb_endpoint_maxp(bulk_in);
	dev->bulk_out_ep = usb_endpoint_num(bulk_out);
	dev->bulk_out_maxp = usb_endpoint_maxp(bulk_out);
	if (int_in) {
		dev->has_int_in = true;
		dev->int_in_ep = usb_endpoint_num(int_in);
		dev->int_in_maxp = usb_endpoint_maxp(int_in);
	}

	usb_set_intfdata(intf, dev);
	ret = usb_register_dev(intf, &hzrig_class);
	if (ret) {
		dev_err(&intf->dev, "no minor for the char device: %d\n", ret);
		usb_set_intfdata(intf, NULL);
		kref_put(&dev->kref, hzrig_delete);
		return ret;
	}

	dev_info(&intf->dev,
		 "%s (minor %d): bulk IN ep%u/%u, bulk OUT ep%u/%u (number/maxp), interrupt IN %s, HZ=%d\n",
		 dev_name(intf->usb_dev), intf->minor, dev->bulk_in_ep,
		 dev->bulk_in_maxp, dev->bulk_out_ep, dev->bulk_out_maxp,
		 dev->has_int_in ? "yes" : "none (int-in cases unsupported)",
		 HZ);
	hzrig_heartbeat_start(dev);
	return 0;
}

static void hzrig_disconnect(struct usb_interface *intf)
{
	struct hzrig_dev *dev = usb_get_intfdata(intf);
	int minor = intf->minor;

	/* No new opens; usb_open() holds the minor lock across ->open(). */
	usb_set_intfdata(intf, NULL);
	usb_deregister_dev(intf, &hzrig_class);
	hzrig_heartbeat_stop(dev);
	if (hzrig_heartbeat_ms)
		dev_info(&intf->dev, "heartbeat: %u answered, %u failed, %u skipped\n",
			 dev->hb_answered, dev->hb_failed, dev->hb_skipped);

	/*
	 * Close the gate; the calls in flight are not waited for (see
	 * hzrig_run_one()): the open files' references keep dev alive.
	 */
	set_bit(HZRIG_GONE, &dev->io_flags);
	WRITE_ONCE(dev->intf, NULL);
	wake_up_all(&dev->io_wait);

	kref_put(&dev->kref, hzrig_delete);
	dev_info(&intf->dev, "hzrig minor %d disconnected\n", minor);
}

/*
 * A reset (e.g. USBDEVFS_RESET from usbfs): no new request until
 * post_reset. The repetition in flight is not waited for: the reset itself
 * flushes ep0 and our endpoints right after this returns, which ends it.
 */
static int hzrig_pre_reset(struct usb_interface *intf)
{
	struct hzrig_dev *dev = usb_get_intfdata(intf);

	hzrig_heartbeat_stop(dev);
	set_bit(HZRIG_RESETTING, &dev->io_flags);
	return 0;
}

static int hzrig_post_reset(struct usb_interface *intf)
{
	struct hzrig_dev *dev = usb_get_intfdata(intf);

	clear_bit(HZRIG_RESETTING, &dev->io_flags);
	wake_up_all(&dev->io_wait);
	hzrig_heartbeat_start(dev);
	return 0;
}

/* probe() finds out whether the optional interrupt IN endpoint is there. */
static const struct usb_device_id hzrig_table[] = {
	{ USB_DEVICE_AND_INTERFACE_INFO(HZRIG_VID, HZRIG_PID, HZRIG_INTF_CLASS,
					HZRIG_INTF_SUBCLASS,
					HZRIG_INTF_PROTOCOL) },
	{ }
};
MODULE_DEVICE_TABLE(usb, hzrig_table);

static struct usb_driver hzrig_driver = {
	.name		= "hzrig_host",
	.probe		= hzrig_probe,
	.disconnect	= hzrig_disconnect,
	.pre_reset	= hzrig_pre_reset,
	.post_reset	= hzrig_post_reset,
	.id_table	= hzrig_table,
};

static int __init hzrig_init(void)
{
	int ret;

	if (HZRIG_UNSAFE_TEARDOWN)
		pr_warn("demo build: the heartbeat is torn down unsafely\n");
	ret = hzrig_clock_init();
	if (ret)
		return ret;
	return usb_register(&hzrig_driver);
}
module_init(hzrig_init);

static void __exit hzrig_exit(void)
{
	usb_deregister(&hzrig_driver);
}
module_exit(hzrig_exit);

MODULE_DESCRIPTION("hzrig: time synchronous USB transfers per HZ");
MODULE_LICENSE("GPL");
