// SPDX-License-Identifier: GPL-2.0
/*
 * Checker corpus: one level of driver-local wrapper that forwards its
 * timeout parameter (see direct.c for the "expect:" convention).
 */
#include <linux/usb.h>

#define WR_TIMEOUT	(HZ * 3)

static int wr_read(struct usb_device *d, u8 req, u16 value, void *buf,
		   int timeout)
{
	return usb_control_msg(d, usb_rcvctrlpipe(d, 0), req, 0xc0, value, 0,
			       buf, 8, timeout);
}

static int wr_bulk(struct usb_device *d, void *buf, int len, int *got,
		   unsigned int tmo)
{
	int r = usb_bulk_msg_killable(d, usb_rcvbulkpipe(d, 1), buf, len, got,
				      tmo);

	return r;
}

static int callers(struct usb_device *d, void *buf, int *got)
{
	int local = HZ / 10;
	int r;

	r = wr_read(d, 1, 0, buf, 5 * HZ); /* expect: 5000 */
	r = wr_read(d, 1, 0, buf, WR_TIMEOUT); /* expect: 3000 */
	r = wr_read(d, 1, 0, buf, local); /* expect: 100 */
	r = wr_bulk(d, buf, 64, got, msecs_to_jiffies(1234)); /* expect: 1234 */

	/* traps: HZ in another parameter, milliseconds in this one */
	r = wr_read(d, 1, HZ, buf, 1000);
	r = wr_bulk(d, buf, HZ, got, 500);
	return r;
}
