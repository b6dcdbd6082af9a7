// SPDX-License-Identifier: GPL-2.0
/*
 * Checker corpus: timeouts through macros, of the file and of the header
 * beside it (see direct.c for the "expect:" convention).
 */
#include <linux/usb.h>
#include "drv.h"

#define TIMEOUT		(5 * HZ)	/* five seconds, as 2.6.11 counted */
#define SECS		3
#define TIMEOUT_SECS	(SECS * HZ)
#define SHORT_TIMEOUT	msecs_to_jiffies(100)
#define LONG_TIMEOUT	(TIMEOUT * 2)
#define CONT_TIMEOUT	(4 * \
			 HZ)
#define MS_TIMEOUT	500
#define USB_CTRL_GET_TIMEOUT	5000	/* a driver's own copy: ms */
#define TIMEOUT_MS_OF_J	jiffies_to_msecs(HZ)
#define RETRIES		(HZ / 100)	/* HZ, but no timeout */

static int macros(struct usb_device *d, unsigned int p, void *buf, int *len)
{
	int r, i;

	r = usb_control_msg(d, p, 1, 0xc0, 0, 0, buf, 8, TIMEOUT); /* expect: 5000 */
	r = usb_bulk_msg(d, p, buf, 64, len, TIMEOUT_SECS); /* expect: 3000 */
	r = usb_bulk_msg(d, p, buf, 64, len, SHORT_TIMEOUT); /* expect: 100 */
	r = usb_bulk_msg(d, p, buf, 64, len, LONG_TIMEOUT); /* expect: 10000 */
	r = usb_bulk_msg(d, p, buf, 64, len, CONT_TIMEOUT); /* expect: 4000 */
	r = usb_control_msg(d, p, 2, 0xc0, 0, 0, buf, 8, DRV_CTRL_TIMEOUT); /* expect: 2000 */

	/* traps */
	r = usb_bulk_msg(d, p, buf, 64, len, MS_TIMEOUT);
	r = usb_control_msg(d, p, 1, 0xc0, 0, 0, buf, 8, USB_CTRL_GET_TIMEOUT);
	r = usb_control_msg(d, p, 1, 0xc0, 0, 0, buf, 8, DRV_MS_TIMEOUT);
	r = usb_control_msg(d, p, 1, 0xc0, 0, 0, buf, 8, TIMEOUT_MS_OF_J);
	for (i = 0; i < RETRIES; i++)
		r = usb_control_msg(d, p, 1, 0xc0, RETRIES, 0, buf, 8, 100);
	return r;
}
