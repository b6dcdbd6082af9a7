// SPDX-License-Identifier: GPL-2.0
/*
 * hzrig_sweeptest - a USB driver that does what the driver sweep must
 * survive (tests/e2e/sweep-loop.sh, docs/sweep.md, "A looping driver is
 * contained"). Its probe loads a firmware file no distribution ships
 * (the sweep's guest has a stand-in for it, or the probe ends there),
 * reads its bulk-in endpoint once and goes on only with data (the walk
 * answers a transfer before its NAKed one with zeros; 1209:0003's shape
 * has no bulk endpoint in the alternate it selects, and skips it), then
 * makes two requests that the sweep's device NAKs:
 * one passes a count of jiffies where usb_control_msg() takes
 * milliseconds (HZ * 3: the seeds' bug, 300 ms at HZ=100 and 3 s at
 * HZ=1000), one 500 ms. The probe then succeeds, and the driver
 *   - 1209:0001: loops on its interrupt-in endpoint: each STALL is
 *     logged, the halt cleared and the URB submitted again, without end;
 *   - 1209:0002: hangs the guest two seconds after its probe returned (a
 *     work item that spins with interrupts off);
 *   - 1209:0003: binds only to a device whose interface has an alternate
 *     setting 1 with an isochronous IN endpoint (tm6000's kind, which
 *     selects it first): the sweep's default device has none, so its
 *     probe fails with -EINVAL before any request, and the sweep must
 *     plug the device in again in another shape. Bound, it does nothing
 *     more.
 * Built out of tree against a sweep kernel, loaded only in its guests.
 */
#include <linux/firmware.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/usb.h>
#include <linux/workqueue.h>

#define SWEEPTEST_VENDOR	0x1209	/* pid.codes' test range */
#define SWEEPTEST_LOOP		0x0001
#define SWEEPTEST_HANG		0x0002
#define SWEEPTEST_SHAPE		0x0003

/* the seeds' bug on purpose: a count of jiffies where ms are taken */
#define SWEEPTEST_TIMEOUT	(HZ * 3)
#define SWEEPTEST_TIMEOUT_MS	500
#define SWEEPTEST_BULK_TIMEOUT_MS	250
#define SWEEPTEST_BULK_LEN	64
#define SWEEPTEST_HANG_DELAY_MS	2000
#define SWEEPTEST_VENDOR_REQ	0x01
#define SWEEPTEST_FIRMWARE	"hzrig_sweeptest.fw"

struct sweeptest {
	struct usb_device *udev;
	struct usb_interface *intf;
	struct urb *urb;
	u8 *buf;
	unsigned int pipe;
	struct work_struct clear;
	struct delayed_work hang;
};

static void sweeptest_complete(struct urb *urb)
{
	struct sweeptest *st = urb->context;

	switch (urb->status) {
	case 0:
		break;
	case -EPIPE:
		dev_warn(&st->intf->dev, "interrupt endpoint stalled: clearing the halt\n");
		schedule_work(&st->clear);
		return;
	default:
		return;	/* killed, unplugged: stop */
	}
	usb_submit_urb(urb, GFP_ATOMIC);
}

/* The loop: clear the halt, submit again, whatever the device says. */
static void sweeptest_clear(struct work_struct *work)
{
	struct sweeptest *st = container_of(work, struct sweeptest, clear);
	int ret;

	ret = usb_clear_halt(st->udev, st->pipe);
	if (ret)
		dev_warn(&st->intf->dev, "clear halt: %d\n", ret);
	ret = usb_submit_urb(st->urb, GFP_KERNEL);
	if (ret)
		dev_warn(&st->intf->dev, "submit again: %d\n", ret);
}

/* The hang: the guest's one CPU, taken with interrupts off, for good. */
static void sweeptest_hang(struct work_struct *work)
{
	pr_emerg("hzrig_sweeptest: hanging this guest on purpose\n");
	local_irq_disable();
	for (;;)
		cpu_relax();
}

/* One bulk read, which must bring data: 0, or why the probe stops. */
static int sweeptest_read_bulk(struct usb_interface *intf)
{
	struct usb_device *udev = interface_to_usbdev(intf);
	struct usb_endpoint_descriptor *ep;
	int len = 0, ret;
	u8 *buf;

	ret = usb_find_bulk_in_endpoint(intf->cur_altsetting, &ep);
	if (ret)
		return ret;
	buf = kmalloc(SWEEPTEST_BULK_LEN, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	ret = usb_bulk_msg(udev, usb_rcvbulkpipe(udev, ep->bEndpointAddress),
			   buf, SWEEPTEST_BULK_LEN, &len,
			   SWEEPTEST_BULK_TIMEOUT_MS);
	kfree(buf);
	dev_info(&intf->dev, "bulk read (timeout %d ms): %d, %d bytes\n",
		 SWEEPTEST_BULK_TIMEOUT_MS, ret, len);
	if (ret)
		return ret;
	return len ? 0 : -ENODATA;
}

static int sweeptest_probe(struct usb_interface *intf,
			   const struct usb_device_id *id)
{
	struct usb_device *udev = interface_to_usbdev(intf);
	struct usb_endpoint_descriptor *ep;
	struct sweeptest *st;
	const struct firmware *fw;
	u8 *data;
	int ret;

	if (id->driver_info == SWEEPTEST_SHAPE) {
		ret = usb_set_interface(udev, intf->cur_altsetting->desc.bInterfaceNumber, 1);
		if (ret)
			return ret;
		if (!intf->cur_altsetting->desc.bNumEndpoints ||
		    !usb_endpoint_is_isoc_in(&intf->cur_altsetting->endpoint[0].desc))
			return -ENODEV;
	}
	ret = request_firmware(&fw, SWEEPTEST_FIRMWARE, &intf->dev);
	if (ret)
		return ret;
	dev_info(&intf->dev, "firmware %s: %zu bytes\n", SWEEPTEST_FIRMWARE, fw->size);
	release_firmware(fw);

	if (id->driver_info != SWEEPTEST_SHAPE) {
		ret = sweeptest_read_bulk(intf);
		if (ret)
			return ret;
	}
	data = kmalloc(8, GFP_KERNEL);
	if (!data)
		return -ENOMEM;
	ret = usb_control_msg(udev, usb_rcvctrlpipe(udev, 0), SWEEPTEST_VENDOR_REQ,
			      USB_DIR_IN | USB_TYPE_VENDOR | USB_RECIP_DEVICE,
			      0, 0, data, 8, SWEEPTEST_TIMEOUT);
	dev_info(&intf->dev, "first request (timeout HZ * 3): %d\n", ret);
	ret = usb_control_msg(udev, usb_rcvctrlpipe(udev, 0), SWEEPTEST_VENDOR_REQ,
			      USB_DIR_IN | USB_TYPE_VENDOR | USB_RECIP_DEVICE,
			      1, 0, data, 8, SWEEPTEST_TIMEOUT_MS);
	dev_info(&intf->dev, "second request (timeout 500 ms): %d\n", ret);
	kfree(data);
	if (id->driver_info == SWEEPTEST_SHAPE)
		return 0;	/* bound in its shape: nothing more */

	ret = usb_find_int_in_endpoint(intf->cur_altsetting, &ep);
	if (ret)
		return ret;
	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	st->udev = udev;
	st->intf = intf;
	st->pipe = usb_rcvintpipe(udev, ep->bEndpointAddress);
	st->buf = kmalloc(usb_endpoint_maxp(ep), GFP_KERNEL);
	st->urb = usb_alloc_urb(0, GFP_KERNEL);
	if (!st->buf || !st->urb) {
		ret = -ENOMEM;
		goto err;
	}
	usb_fill_int_urb(st->urb, udev, st->pipe, st->buf, usb_endpoint_maxp(ep),
			 sweeptest_complete, st, ep->bInterval);
	INIT_WORK(&st->clear, sweeptest_clear);
	INIT_DELAYED_WORK(&st->hang, sweeptest_hang);
	usb_set_intfdata(intf, st);
	if (id->driver_info == SWEEPTEST_HANG) {
		schedule_delayed_work(&st->hang,
				      msecs_to_jiffies(SWEEPTEST_HANG_DELAY_MS));
		return 0;
	}
	ret = usb_submit_urb(st->urb, GFP_KERNEL);
	if (ret)
		goto err;
	return 0;
err:
	usb_set_intfdata(intf, NULL);
	usb_free_urb(st->urb);
	kfree(st->buf);
	kfree(st);
	return ret;
}

static void sweeptest_disconnect(struct usb_interface *intf)
{
	struct sweeptest *st = usb_get_intfdata(intf);

	if (!st)
		return;	/* 1209:0003's: nothing of its own */
	/* poisoned, the URB is not submitted again by the work */
	usb_poison_urb(st->urb);
	cancel_work_sync(&st->clear);
	cancel_delayed_work_sync(&st->hang);
	usb_free_urb(st->urb);
	kfree(st->buf);
	kfree(st);
}

static const struct usb_device_id sweeptest_ids[] = {
	{ USB_DEVICE(SWEEPTEST_VENDOR, SWEEPTEST_LOOP), .driver_info = SWEEPTEST_LOOP },
	{ USB_DEVICE(SWEEPTEST_VENDOR, SWEEPTEST_HANG), .driver_info = SWEEPTEST_HANG },
	{ USB_DEVICE(SWEEPTEST_VENDOR, SWEEPTEST_SHAPE), .driver_info = SWEEPTEST_SHAPE },
	{ }
};
MODULE_DEVICE_TABLE(usb, sweeptest_ids);

static struct usb_driver sweeptest_driver = {
	.name = "hzrig_sweeptest",
	.probe = sweeptest_probe,
	.disconnect = sweeptest_disconnect,
	.id_table = sweeptest_ids,
};
module_usb_driver(sweeptest_driver);

MODULE_FIRMWARE(SWEEPTEST_FIRMWARE);
MODULE_DESCRIPTION("hzrig: a USB driver that loops or hangs on purpose, for the sweep's tests");
MODULE_LICENSE("GPL");
