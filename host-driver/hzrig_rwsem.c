// SPDX-License-Identifier: GPL-2.0
/*
 * hzrig_host: HZRIG_IOC_RWSEM_TEST, the second 2.6.12 bug class
 * (docs/robustness.md): a test rwsem taken for reading in process context
 * and released from interrupt context - a URB's completion or a hard-irq
 * hrtimer - while a writer contends, with the APIs meant for it.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "hzrig_host.h"

/*
 * Interrupt context: a reader trylock there (allowed: the trylocks and
 * up_*() disable interrupts around wait_lock since 2.6.12), then the
 * release of the reader the ioctl took in process context.
 */
static void hzrig_rw_release(struct hzrig_dev *dev)
{
	if (down_read_trylock(&dev->rw_test)) {
		atomic_inc(&dev->rw_trylock_ok);
		up_read(&dev->rw_test);
	} else {
		atomic_inc(&dev->rw_trylock_busy);
	}
	up_read_non_owner(&dev->rw_test);
	complete(&dev->rw_done);
}

/*
 * The URB mode's transfer, a heartbeat the gadget answers at once: the
 * setup packet as it goes on the wire (struct usb_ctrlrequest, little
 * endian: bmRequestType, bRequest, wValue, wIndex, wLength = 4).
 */
static const u8 hzrig_rw_setup[8] = {
	USB_DIR_IN | USB_TYPE_VENDOR | USB_RECIP_DEVICE, HZRIG_REQ_HEARTBEAT,
	0, 0, 0, 0, sizeof(__le32), 0,
};

/* dummy_hcd gives URBs back from its (soft) hrtimer: softirq context. */
static void hzrig_rw_urb_complete(struct urb *urb)
{
	hzrig_rw_release(urb->context);
}

/*
 * A URB the device never answers (ep0 held by someone else's transfer)
 * would keep the reader, and so the writer, waiting for ever: after a
 * second it is unlinked, which completes it with -ECONNRESET.
 */
static void hzrig_rw_watchdog(struct timer_list *t)
{
	struct hzrig_dev *dev = from_timer(dev, t, rw_watchdog);

	usb_unlink_urb(dev->rw_urb);
}

static enum hrtimer_restart hzrig_rw_timer(struct hrtimer *t)
{
	hzrig_rw_release(container_of(t, struct hzrig_dev, rw_timer));
	return HRTIMER_NORESTART;
}

/*
 * The negative control: down_read() may sleep, so with interrupts disabled
 * it is a bug whether or not it sleeps this time. DEBUG_ATOMIC_SLEEP says
 * so ("sleeping function called from invalid context").
 */
static noinline void hzrig_rwsem_irqs_off(struct hzrig_dev *dev)
{
	local_irq_disable();
	down_read(&dev->rw_test);
	up_read(&dev->rw_test);
	local_irq_enable();
}

static void hzrig_rw_writer(struct work_struct *work)
{
	struct hzrig_dev *dev = container_of(work, struct hzrig_dev, rw_writer);

	down_write(&dev->rw_test);
	up_write(&dev->rw_test);
}

/*
 * The other half of the contract, every other cycle: the reader released
 * in process context while a writer (in a worker) waits, so rwsem_wake()
 * runs with interrupts enabled around it, as it does all over the kernel.
 * With the wake path's irqsave undone (kernel/patches/0002-*) that and the
 * interrupt-context releases are what lockdep holds against each other.
 */
static void hzrig_rw_process_release(struct hzrig_dev *dev,
				     struct hzrig_rwsem_test *t)
{
	int waited;

	down_read_non_owner(&dev->rw_test);
	queue_work(system_wq, &dev->rw_writer);
	for (waited = 0; waited < 1000 && !rwsem_is_contended(&dev->rw_test);
	     waited++)
		usleep_range(20, 50);
	if (rwsem_is_contended(&dev->rw_test))
		t->contended++;
	up_read_non_owner(&dev->rw_test);
	flush_work(&dev->rw_writer);
}

/*
 * One cycle: a reader held across a transfer (URB mode) or a 20 us
 * hard-irq hrtimer, released from its interrupt, while this thread
 * contends with down_write(). The release always comes (a URB's
 * completion runs once, also when it is unlinked, which the watchdog does
 * after a second; the timer fires), so the writer always gets the lock.
 */
static int hzrig_rw_cycle(struct hzrig_dev *dev, u32 mode,
			  struct hzrig_rwsem_test *t)
{
	int ret;

	/*
	 * The URB goes to ep0, which the ARM + SYNC protocol and the
	 * heartbeat share: it takes ep0 like they do, or a heartbeat's
	 * setup lands in the middle of its transfer.
	 */
	if (mode == HZRIG_RWSEM_URB) {
		ret = mutex_lock_killable(&dev->ep0_mutex);
		if (ret)
			return ret;
	}
	reinit_completion(&dev->rw_done);
	down_read_non_owner(&dev->rw_test);
	if (mode == HZRIG_RWSEM_URB) {
		ret = hzrig_io_check(dev);
		if (!ret) {
			usb_fill_control_urb(dev->rw_urb, dev->udev,
					     usb_rcvctrlpipe(dev->udev, 0),
					     dev->rw_setup, dev->rw_buf,
					     sizeof(*dev->rw_buf),
					     hzrig_rw_urb_complete, dev);
			mod_timer(&dev->rw_watchdog, jiffies + HZ);
			ret = usb_submit_urb(dev->rw_urb, GFP_KERNEL);
			if (ret)
				del_timer_sync(&dev->rw_watchdog);
		}
		if (ret) {
			up_read_non_owner(&dev->rw_test);
			mutex_unlock(&dev->ep0_mutex);
			return ret;
		}
	} else {
		hrtimer_start(&dev->rw_timer, ns_to_ktime(20 * NSEC_PER_USEC),
			      HRTIMER_MODE_REL_HARD);
	}
	if (!down_write_trylock(&dev->rw_test)) {
		t->contended++;
		down_write(&dev->rw_test);
	}
	up_write(&dev->rw_test);
	wait_for_completion(&dev->rw_done);
	if (mode == HZRIG_RWSEM_URB) {
		del_timer_sync(&dev->rw_watchdog);
		mutex_unlock(&dev->ep0_mutex);
		if (dev->rw_urb->status)
			t->urb_errors++;
	}
	t->done++;
	return 0;
}

long hzrig_ioctl_rwsem_test(struct hzrig_dev *dev, void __user *argp)
{
	struct hzrig_rwsem_test t;
	u32 i, usize;
	int ret;

	ret = hzrig_get_struct(dev, &t, sizeof(t), argp,
			       HZRIG_RWSEM_TEST_SIZE_V1, &usize,
			       "rwsem test version");
	if (ret)
		return ret;
	if (t.mode >= HZRIG_RWSEM_MODE_COUNT)
		return hzrig_invalid(dev, "rwsem mode", t.mode);
	if (t.cycles < 1 || t.cycles > HZRIG_RWSEM_MAX_CYCLES)
		return hzrig_invalid(dev, "rwsem cycles", t.cycles);
	if (t.reserved)
		return hzrig_invalid(dev, "rwsem reserved", t.reserved);
	if (mutex_lock_killable(&dev->rw_mutex))
		return -EINTR;
	t.done = 0;
	t.contended = 0;
	t.urb_errors = 0;
	atomic_set(&dev->rw_trylock_ok, 0);
	atomic_set(&dev->rw_trylock_busy, 0);
	if (t.mode == HZRIG_RWSEM_IRQS_OFF) {
		hzrig_rwsem_irqs_off(dev);
		t.done = 1;
	}
	for (i = 0; t.mode != HZRIG_RWSEM_IRQS_OFF && i < t.cycles; i++) {
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		if (i % 2) {
			hzrig_rw_process_release(dev, &t);
			t.done++;
			continue;
		}
		ret = hzrig_rw_cycle(dev, t.mode, &t);
		if (ret)
			break;
		cond_resched();
	}
	t.trylock_ok = atomic_read(&dev->rw_trylock_ok);
	t.trylock_busy = atomic_read(&dev->rw_trylock_busy);
	mutex_unlock(&dev->rw_mutex);
	if (copy_to_user(argp, &t, min_t(size_t, usize, sizeof(t))))
		return -EFAULT;
	return ret;
}

/* At probe: the test's locks, timers and transfer; -ENOMEM, else 0. */
int hzrig_rwsem_init(struct hzrig_dev *dev)
{
	mutex_init(&dev->rw_mutex);
	init_rwsem(&dev->rw_test);
	init_completion(&dev->rw_done);
	hrtimer_init(&dev->rw_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	dev->rw_timer.function = hzrig_rw_timer;
	timer_setup(&dev->rw_watchdog, hzrig_rw_watchdog, 0);
	INIT_WORK(&dev->rw_writer, hzrig_rw_writer);
	dev->rw_buf = kmalloc(sizeof(*dev->rw_buf), GFP_KERNEL);
	dev->rw_setup = kmemdup(hzrig_rw_setup, sizeof(hzrig_rw_setup),
				GFP_KERNEL);
	dev->rw_urb = usb_alloc_urb(0, GFP_KERNEL);
	if (!dev->rw_buf || !dev->rw_setup || !dev->rw_urb)
		return -ENOMEM;
	return 0;
}

/* With the device's last reference: no test can be running. */
void hzrig_rwsem_free(struct hzrig_dev *dev)
{
	usb_free_urb(dev->rw_urb);
	kfree(dev->rw_setup);
	kfree(dev->rw_buf);
}
