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
 * the ABI and include/hzrig/wire.h for what goes over the wire.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/kref.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/usb.h>
#include <linux/utsname.h>

#include <hzrig/ioctl.h>
#include <hzrig/wire.h>

/*
 * usb_register_dev() hands out minors of the USB major (180) from each
 * driver's minor_base up. In-tree bases stop at chaoskey's 224 (usb-skeleton's
 * 192 is shared with yurex, ftdi-elan and as102) and devices.txt lists nothing
 * past 209, so 240..255 is unused: the first hzrig device gets minor 240 and
 * /dev/hzrig0. With CONFIG_USB_DYNAMIC_MINORS it gets the lowest free minor n
 * and /dev/hzrig<n> instead.
 */
#define HZRIG_MINOR_BASE	240

/* ARM and RESET are answered at once: a short timeout, not the one tested. */
#define HZRIG_SETUP_TIMEOUT_MS	1000
#define HZRIG_ARM_TRIES		8	/* waiting 0.2 ms .. 25.6 ms for the gadget */
/*
 * How far ahead of its ARM a DELAY call starts, so that ARM + SYNC fit in
 * between; doubled on each retry.
 */
#define HZRIG_START_GUARD_NS	(4 * NSEC_PER_MSEC)
/* How late after the planned start a DELAY call may still begin. */
#define HZRIG_START_SLACK_NS	(1 * NSEC_PER_MSEC)

/* The jiffy rate is measured over this long at load, between tick edges. */
#define HZRIG_RATE_SAMPLE_MS	250
#define HZRIG_RATE_TOLERANCE	2	/* percent */

#define HZRIG_BUF_SIZE		HZRIG_MAX_LENGTH
#define HZRIG_CASE_FLAGS	HZRIG_CASE_RANDOM_PHASE

static_assert(HZRIG_BUF_SIZE <= HZRIG_MAX_XFER);
static_assert(HZRIG_BUF_SIZE <= 4096);

struct hzrig_dev {
	struct usb_device	*udev;
	struct usb_interface	*intf;		/* NULL once disconnected */
	struct kref		kref;
	struct mutex		case_mutex;	/* one case at a time */
	struct mutex		io_mutex;	/* one repetition; vs. disconnect */
	u8			bulk_in_ep;	/* endpoint numbers */
	u8			bulk_out_ep;
	u8			int_in_ep;
	bool			has_int_in;
	u16			bulk_in_maxp;
	u16			bulk_out_maxp;
	u16			int_in_maxp;
	u32			seq;		/* last sequence number armed */
	u8			*buf;		/* HZRIG_BUF_SIZE, kmalloc()ed */
};

static struct usb_driver hzrig_driver;

/* Where the gadget applies what is armed for each transfer. */
static const u8 hzrig_target[HZRIG_XFER_COUNT] = {
	[HZRIG_XFER_BULK_IN]		= HZRIG_TARGET_BULK_IN,
	[HZRIG_XFER_BULK_OUT]		= HZRIG_TARGET_BULK_OUT,
	[HZRIG_XFER_CTRL_IN]		= HZRIG_TARGET_EP0_IN,
	[HZRIG_XFER_CTRL_OUT]		= HZRIG_TARGET_EP0_OUT,
	[HZRIG_XFER_INT_IN]		= HZRIG_TARGET_INT_IN,
	[HZRIG_XFER_BULK_IN_KILLABLE]	= HZRIG_TARGET_BULK_IN,
};

/*
 * Read-only module parameters: the HZ this module was compiled with and the
 * jiffy rate measured at load (jiffies per second x 1000), for anyone
 * checking /sys/module/hzrig_host/parameters without opening the device.
 */
static unsigned int hzrig_hz = HZ;
static unsigned int hzrig_jiffy_rate_mhz;

static int hzrig_param_set_ro(const char *val, const struct kernel_param *kp)
{
	return -EPERM;
}

static const struct kernel_param_ops hzrig_param_ro_ops = {
	.set	= hzrig_param_set_ro,
	.get	= param_get_uint,
};

module_param_cb(hz, &hzrig_param_ro_ops, &hzrig_hz, 0444);
MODULE_PARM_DESC(hz, "HZ the module was compiled with (read-only)");
module_param_cb(jiffy_rate_mhz, &hzrig_param_ro_ops, &hzrig_jiffy_rate_mhz,
		0444);
MODULE_PARM_DESC(jiffy_rate_mhz,
		 "jiffies per second measured at load, x1000 (read-only)");

/*
 * Busy-wait until jiffies advances and return when it did, as close to the
 * tick as we can see it. Waits at most one tick.
 */
static ktime_t hzrig_tick_edge(unsigned long *jiffies_now)
{
	unsigned long start = jiffies;
	unsigned long now;

	do {
		cpu_relax();
		now = jiffies;
	} while (now == start);

	if (jiffies_now)
		*jiffies_now = now;
	return ktime_get();
}

static void hzrig_delete(struct kref *kref)
{
	struct hzrig_dev *dev = container_of(kref, struct hzrig_dev, kref);

	usb_put_dev(dev->udev);
	kfree(dev->buf);
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

static int hzrig_invalid(struct hzrig_dev *dev, const char *what, u32 val)
{
	dev_info_ratelimited(&dev->udev->dev, "invalid argument: %s %u\n",
			     what, val);
	return -EINVAL;
}

static long hzrig_ioctl_info(struct hzrig_dev *dev, void __user *argp)
{
	struct hzrig_info info;

	if (copy_from_user(&info, argp, sizeof(info)))
		return -EFAULT;
	if (info.version != HZRIG_ABI_VERSION)
		return hzrig_invalid(dev, "info version", info.version);
	if (info.size != sizeof(info))
		return hzrig_invalid(dev, "info size", info.size);

	memset(&info, 0, sizeof(info));
	info.version = HZRIG_ABI_VERSION;
	info.size = sizeof(info);
	info.hz = HZ;
	info.jiffy_rate_mhz = hzrig_jiffy_rate_mhz;
	info.usb_max_sync_timeout_ms = USB_MAX_SYNCHRONOUS_TIMEOUT;
	info.wire_version = HZRIG_WIRE_VERSION;
	info.bulk_in_maxp = dev->bulk_in_maxp;
	info.bulk_out_maxp = dev->bulk_out_maxp;
	info.int_in_maxp = dev->has_int_in ? dev->int_in_maxp : 0;
	strscpy(info.release, utsname()->release, sizeof(info.release));

	if (copy_to_user(argp, &info, sizeof(info)))
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
	if (c->version != HZRIG_ABI_VERSION)
		return hzrig_invalid(dev, "case version", c->version);
	if (c->size != sizeof(*c))
		return hzrig_invalid(dev, "case size", c->size);
	if (c->sample_size != sizeof(struct hzrig_sample))
		return hzrig_invalid(dev, "sample_size", c->sample_size);
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

/* HZRIG_REQ_RESET: drop whatever is armed or queued. Needs io_mutex. */
static int __hzrig_reset_gadget(struct hzrig_dev *dev)
{
	int ret;

	ret = usb_control_msg_send(dev->udev, 0, HZRIG_REQ_RESET,
				   USB_DIR_OUT | USB_TYPE_VENDOR |
				   USB_RECIP_DEVICE, 0, 0, NULL, 0,
				   HZRIG_SETUP_TIMEOUT_MS, GFP_KERNEL);
	if (ret)
		dev_warn(&dev->intf->dev, "reset request failed: %d\n", ret);
	return ret;
}

/* At the start of a case: drop whatever a previous case left armed. */
static int hzrig_reset_gadget(struct hzrig_dev *dev)
{
	int ret;

	ret = mutex_lock_killable(&dev->io_mutex);
	if (ret)
		return ret;
	ret = dev->intf ? __hzrig_reset_gadget(dev) : -ENODEV;
	mutex_unlock(&dev->io_mutex);
	return ret;
}

/*
 * HZRIG_REQ_ARM: tell the gadget what to do with transfer @seq, then make
 * sure it heard: gadgetfs drops an unread SETUP event when the next setup
 * arrives, so an ARM the gadget had not read yet would be lost silently.
 * HZRIG_REQ_SYNC echoes the last ARM the gadget applied; resend until it
 * matches.
 */
static int hzrig_arm(struct hzrig_dev *dev, const struct hzrig_case *c,
		     u32 seq, ktime_t start)
{
	struct hzrig_arm arm = {
		.version	= HZRIG_WIRE_VERSION,
		.target		= hzrig_target[c->transfer],
		.behaviour	= c->behaviour,
		.seq		= cpu_to_le32(seq),
		.delay_us	= cpu_to_le32(c->delay_us),
		/* SHORT answers short_length bytes, the others all of them */
		.length		= cpu_to_le32(c->behaviour == HZRIG_BEH_SHORT ?
					      c->short_length : c->length),
		.start_ns	= cpu_to_le64(ktime_to_ns(start)),
	};
	__le32 echo = 0;
	int tries, ret;

	for (tries = 0; tries < HZRIG_ARM_TRIES; tries++) {
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
		usleep_range(200 << tries, 400 << tries);
		ret = usb_control_msg_recv(dev->udev, 0, HZRIG_REQ_SYNC,
					   USB_DIR_IN | USB_TYPE_VENDOR |
					   USB_RECIP_DEVICE, 0, 0, &echo,
					   sizeof(echo), HZRIG_SETUP_TIMEOUT_MS,
					   GFP_KERNEL);
		/*
		 * -EPIPE: the SYNC came while the gadget was still finishing
		 * a request held by the previous repetition, and it had to
		 * stall it unread. Let the gadget run, then try again.
		 */
		if (ret && ret != -EPIPE)
			return ret;
		if (!ret && le32_to_cpu(echo) == seq)
			return 0;
	}
	dev_warn(&dev->intf->dev, "seq %u: gadget did not take the ARM (%d tries, last echo %u)\n",
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
static void hzrig_check_in(struct hzrig_dev *dev, u32 len, u32 seq)
{
	const struct hzrig_payload_hdr *hdr = (const void *)dev->buf;

	if (len < sizeof(*hdr))
		return;
	if (le32_to_cpu(hdr->magic) != HZRIG_PAYLOAD_MAGIC)
		dev_warn_ratelimited(&dev->intf->dev,
				     "seq %u: answer without payload header\n",
				     seq);
	else if (le32_to_cpu(hdr->seq) != seq)
		dev_warn_ratelimited(&dev->intf->dev,
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
 * One repetition: arm, line up with the tick, time the call. Fills @s and
 * returns 0 whatever the call returned; an error return means the case
 * cannot go on (disconnect, signal, arming or halt clearing failed).
 */
static int hzrig_run_one(struct hzrig_dev *dev, const struct hzrig_case *c,
			 struct hzrig_sample *s)
{
	struct usb_device *udev = dev->udev;
	int timeout = hzrig_timeout_arg(c);
	unsigned int pipe = hzrig_pipe(dev, c->transfer);
	bool in = usb_pipein(pipe);
	u8 request = in ? HZRIG_REQ_TEST_IN : HZRIG_REQ_TEST_OUT;
	u8 reqtype = (in ? USB_DIR_IN : USB_DIR_OUT) | USB_TYPE_VENDOR |
		     USB_RECIP_DEVICE;
	/*
	 * A control OUT data stage is completed by gadgetfs itself: only a
	 * request without one can be held or stalled (include/hzrig/wire.h).
	 */
	u16 ctrl_len = in || c->behaviour == HZRIG_BEH_ANSWER ? c->length : 0;
	ktime_t tick, grid, start = 0, t0, t1;
	int actual = 0, tries;
	u32 phase;
	u32 seq;
	int ret;

	ret = mutex_lock_killable(&dev->io_mutex);
	if (ret)
		return ret;
	if (!dev->intf) {
		ret = -ENODEV;
		goto out;
	}

	/*
	 * A DELAY is timed by the gadget from the planned start, so that start
	 * goes into the ARM: a tick edge far enough ahead for ARM + SYNC, plus
	 * a random part of the jiffy. An ARM that overran it is replaced by
	 * one for a later start (a new seq, so that SYNC tells the two apart)
	 * with twice the guard (up to 16 times). The other behaviours don't care when the call
	 * begins: they are armed first and started at the next tick edge plus
	 * the phase, so a slow ARM costs nothing.
	 */
	for (tries = 0; ; tries++) {
		bool delay = c->behaviour == HZRIG_BEH_DELAY;
		u64 guard = (u64)HZRIG_START_GUARD_NS << min(tries, 4);

		seq = ++dev->seq;
		phase = c->flags & HZRIG_CASE_RANDOM_PHASE ?
			get_random_u32_below(TICK_NSEC) : 0;
		if (delay) {
			tick = hzrig_tick_edge(NULL);
			grid = ktime_add_ns(tick, DIV_ROUND_UP_ULL(guard, TICK_NSEC) *
					    TICK_NSEC);
			start = ktime_add_ns(grid, phase);
		}
		ret = hzrig_arm(dev, c, seq, delay ? start : 0);
		if (ret) {
			dev_warn(&dev->intf->dev, "arming seq %u failed: %d\n",
				 seq, ret);
			goto out;
		}
		if (!delay) {
			grid = hzrig_tick_edge(NULL);
			start = ktime_add_ns(grid, phase);
		}
		if (!in)
			hzrig_fill_out(dev->buf, c->length, seq);
		/*
		 * A guest that stalls (its vCPU preempted on the host, a slow
		 * interrupt under TCG) past a DELAY's start would skew the
		 * sample: such a start is given up for a later one.
		 */
		while (ktime_before(ktime_get(), start))
			cpu_relax();
		if (!delay || ktime_to_ns(ktime_sub(ktime_get(), start)) <
		    HZRIG_START_SLACK_NS)
			break;
		if (tries == HZRIG_ARM_TRIES) {
			dev_warn(&dev->intf->dev, "seq %u: could not start within %ld us of the planned start\n",
				 seq, HZRIG_START_SLACK_NS / NSEC_PER_USEC);
			ret = -ETIME;
			goto out;
		}
	}

	/* Timed: exactly one synchronous call between the two ktime_get(). */
	switch (c->transfer) {
	case HZRIG_XFER_CTRL_IN:
	case HZRIG_XFER_CTRL_OUT:
		s->start_jiffies = get_jiffies_64();
		t0 = ktime_get();
		ret = usb_control_msg(udev, pipe, request, reqtype, seq & 0xffff,
				      0, dev->buf, ctrl_len, timeout);
		t1 = ktime_get();
		actual = max(ret, 0);
		ret = min(ret, 0);
		break;
	case HZRIG_XFER_INT_IN:
		s->start_jiffies = get_jiffies_64();
		t0 = ktime_get();
		ret = usb_interrupt_msg(udev, pipe, dev->buf, c->length,
					&actual, timeout);
		t1 = ktime_get();
		break;
	case HZRIG_XFER_BULK_IN_KILLABLE:
		s->start_jiffies = get_jiffies_64();
		t0 = ktime_get();
		ret = usb_bulk_msg_killable(udev, pipe, dev->buf, c->length,
					    &actual, timeout);
		t1 = ktime_get();
		break;
	default:
		s->start_jiffies = get_jiffies_64();
		t0 = ktime_get();
		ret = usb_bulk_msg(udev, pipe, dev->buf, c->length, &actual,
				   timeout);
		t1 = ktime_get();
		break;
	}

	s->elapsed_ns = ktime_to_ns(ktime_sub(t1, t0));
	s->status = ret;
	s->actual_length = actual;
	s->timeout_arg = timeout;
	s->seq = seq;
	s->phase_ns = clamp_t(s64, ktime_to_ns(ktime_sub(t0, grid)), 0,
			      U32_MAX);

	if (in && !ret && !hzrig_is_ctrl(c->transfer))
		hzrig_check_in(dev, actual, seq);

	/*
	 * An IN answer that came too late and sits in dummy_hcd's FIFO is
	 * flushed by the gadget when the next ARM for the endpoint arrives
	 * (gadget/README.md), before SYNC lets the next call start.
	 */
	ret = 0;
	/* ep0 recovers from a stall by itself; the others need clearing. */
	if (s->status == -EPIPE && !hzrig_is_ctrl(c->transfer)) {
		ret = usb_clear_halt(udev, pipe);
		if (ret)
			dev_warn(&dev->intf->dev,
				 "seq %u: clearing halt failed: %d\n", seq,
				 ret);
	}
out:
	mutex_unlock(&dev->io_mutex);
	return ret;
}

/*
 * Can take minutes (reps x timeout): each repetition holds io_mutex only for
 * itself, so disconnect waits for one call at most, and a fatal signal stops
 * the case between repetitions. Samples of the repetitions done are in the
 * caller's array even when the case fails.
 */
static long hzrig_ioctl_run_case(struct hzrig_dev *dev, void __user *argp)
{
	struct hzrig_sample s;
	struct hzrig_case c;
	u8 __user *out;
	u32 i;
	int ret;

	if (copy_from_user(&c, argp, sizeof(c)))
		return -EFAULT;
	ret = hzrig_check_case(dev, &c);
	if (ret)
		return ret;
	out = u64_to_user_ptr(c.samples);
	if (!access_ok(out, (size_t)c.reps * c.sample_size))
		return -EFAULT;

	if (mutex_lock_killable(&dev->case_mutex))
		return -EINTR;

	ret = hzrig_reset_gadget(dev);
	for (i = 0; !ret && i < c.reps; i++) {
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		memset(&s, 0, sizeof(s));
		ret = hzrig_run_one(dev, &c, &s);
		if (!ret && copy_to_user(out + (size_t)i * c.sample_size, &s,
					 sizeof(s)))
			ret = -EFAULT;
	}

	mutex_unlock(&dev->case_mutex);
	return ret;
}

static long hzrig_ioctl(struct file *file, unsigned int cmd,
			unsigned long arg)
{
	struct hzrig_dev *dev = file->private_data;
	void __user *argp = (void __user *)arg;

	if (!READ_ONCE(dev->intf))
		return -ENODEV;

	switch (cmd) {
	case HZRIG_IOC_INFO:
		return hzrig_ioctl_info(dev, argp);
	case HZRIG_IOC_RUN_CASE:
		return hzrig_ioctl_run_case(dev, argp);
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
	.llseek		= no_llseek,
};

static struct usb_class_driver hzrig_class = {
	.name		= "hzrig%d",
	.fops		= &hzrig_fops,
	.minor_base	= HZRIG_MINOR_BASE,
};

static int hzrig_probe(struct usb_interface *intf,
		       const struct usb_device_id *id)
{
	struct usb_host_interface *alt = intf->cur_altsetting;
	struct usb_endpoint_descriptor *bulk_in, *bulk_out, *int_in;
	struct hzrig_dev *dev;
	int ret;

	if (usb_find_common_endpoints(alt, &bulk_in, &bulk_out, NULL, NULL)) {
		dev_err(&intf->dev, "needs a bulk IN and a bulk OUT endpoint\n");
		return -ENODEV;
	}
	if (usb_find_int_in_endpoint(alt, &int_in))
		int_in = NULL;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->buf = kmalloc(HZRIG_BUF_SIZE, GFP_KERNEL);
	if (!dev->buf) {
		kfree(dev);
		return -ENOMEM;
	}
	kref_init(&dev->kref);
	mutex_init(&dev->case_mutex);
	mutex_init(&dev->io_mutex);
	dev->udev = usb_get_dev(interface_to_usbdev(intf));
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
	return 0;
}

static void hzrig_disconnect(struct usb_interface *intf)
{
	struct hzrig_dev *dev = usb_get_intfdata(intf);
	int minor = intf->minor;

	/* No new opens; usb_open() holds the minor lock across ->open(). */
	usb_set_intfdata(intf, NULL);
	usb_deregister_dev(intf, &hzrig_class);

	/* Wait for the repetition in flight; later ones see -ENODEV. */
	mutex_lock(&dev->io_mutex);
	WRITE_ONCE(dev->intf, NULL);
	mutex_unlock(&dev->io_mutex);

	kref_put(&dev->kref, hzrig_delete);
	dev_info(&intf->dev, "hzrig minor %d disconnected\n", minor);
}

/* Keep a reset (e.g. from usbfs) out of a repetition in flight. */
static int hzrig_pre_reset(struct usb_interface *intf)
{
	struct hzrig_dev *dev = usb_get_intfdata(intf);

	mutex_lock(&dev->io_mutex);
	return 0;
}

static int hzrig_post_reset(struct usb_interface *intf)
{
	struct hzrig_dev *dev = usb_get_intfdata(intf);

	mutex_unlock(&dev->io_mutex);
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

/* Jiffies per second x 1000, timed with ktime_get() between tick edges. */
static u32 __init hzrig_measure_jiffy_rate(void)
{
	unsigned long j0, j1;
	ktime_t t0, t1;
	s64 ns;

	t0 = hzrig_tick_edge(&j0);
	msleep(HZRIG_RATE_SAMPLE_MS);
	t1 = hzrig_tick_edge(&j1);

	ns = ktime_to_ns(ktime_sub(t1, t0));
	if (ns <= 0)
		return 0;
	return div64_u64((u64)(j1 - j0) * NSEC_PER_SEC * 1000, ns);
}

static int __init hzrig_init(void)
{
	u32 rate = hzrig_measure_jiffy_rate();
	u64 want = HZ * 1000ULL;
	u64 off = rate > want ? rate - want : want - rate;

	/*
	 * HZ is inlined at compile time: a module built against another
	 * variant's tree would convert and report every timeout wrongly.
	 */
	if (off * 100 > want * HZRIG_RATE_TOLERANCE) {
		pr_err("compiled for HZ=%d but measured %u.%03u jiffies/s (more than %d%% off): built against another kernel's tree?\n",
		       HZ, rate / 1000, rate % 1000, HZRIG_RATE_TOLERANCE);
		return -EINVAL;
	}
	hzrig_jiffy_rate_mhz = rate;
	pr_info("HZ=%d measured %u.%03u jiffies/s\n", HZ, rate / 1000,
		rate % 1000);

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
