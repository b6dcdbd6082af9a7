// SPDX-License-Identifier: GPL-2.0
/*
 * Checker corpus: timeouts written at the call. A line the checker must
 * report carries "expect: N" (N: the value at HZ=1000, what the author
 * meant in ms; "?" when it has none); no other line may be reported.
 */
#include <linux/jiffies.h>
#include <linux/usb.h>

static int direct(struct usb_device *d, unsigned int p, void *buf, int *len,
		  unsigned long end, int timeout_ms)
{
	int r;

	r = usb_control_msg(d, p, 1, 0xc0, 0, 0, buf, 8, 5 * HZ); /* expect: 5000 */
	r = usb_control_msg(d, p, 1, 0xc0, 0, 0, buf, 8, HZ); /* expect: 1000 */
	r = usb_bulk_msg(d, p, buf, 64, len, HZ / 2); /* expect: 500 */
	r = usb_interrupt_msg(d, p, buf, 64, len, msecs_to_jiffies(250)); /* expect: 250 */
	r = usb_bulk_msg_killable(d, p, buf, 64, len, 2 * HZ + HZ / 2); /* expect: 2500 */
	r = usb_control_msg_send(d, 0, 9, 0x40, 1, 0, buf, 8, (3 * HZ), /* expect: 3000 */
				 GFP_KERNEL);
	r = usb_control_msg_recv(d, 0, 9, 0xc0, 1, 0, buf, 8, /* expect: 1500 */
				 usecs_to_jiffies(1500000), GFP_KERNEL);
	r = usb_bulk_msg(d, p, buf, 64, len, (int)(HZ * 2)); /* expect: 2000 */
	/* the jiffies still left until @end: a wait in jiffies, no fixed value */
	r = usb_bulk_msg(d, p, buf, 64, len, end - jiffies); /* expect: ? */

	/* traps: HZ where no timeout goes, timeouts already in ms */
	r = usb_control_msg(d, p, 1, 0xc0, HZ, 0, buf, 8, 1000);
	r = usb_control_msg(d, p, 1, 0xc0, 0, 0, buf, 8, USB_CTRL_GET_TIMEOUT);
	r = usb_control_msg(d, p, 1, 0xc0, 0, 0, buf, 8, USB_CTRL_SET_TIMEOUT);
	r = usb_bulk_msg(d, p, buf, 64, len, jiffies_to_msecs(2 * HZ));
	r = usb_bulk_msg(d, p, buf, 64, len, timeout_ms);
	r = usb_bulk_msg(d, p, buf, HZ, len, 1000);
	r = usb_interrupt_msg(d, p, buf, 64, len, 0);
	return r;
}
