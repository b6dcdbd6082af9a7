// SPDX-License-Identifier: GPL-2.0
/*
 * Checker corpus: timeouts through local variables and file-scope
 * constants (see direct.c for the "expect:" convention; "mixed": the
 * variable holds jiffies on one path and ms on another).
 */
#include <linux/jiffies.h>
#include <linux/usb.h>
#include <linux/wait.h>

static const int ctrl_timeout = 2 * HZ;
static const unsigned int bulk_timeout_ms = 300;

static int locals(struct usb_device *d, unsigned int p, void *buf, int *len,
		  wait_queue_head_t *wq, bool done, int secs)
{
	int t = HZ / 4;
	int tmo;
	int ms;
	int r;

	r = usb_bulk_msg(d, p, buf, 64, len, t); /* expect: 250 */
	tmo = msecs_to_jiffies(700);
	r = usb_bulk_msg(d, p, buf, 64, len, tmo); /* expect: 700 */
	r = usb_control_msg(d, p, 1, 0xc0, 0, 0, buf, 8, ctrl_timeout); /* expect: 2000 */
	tmo = secs * HZ;
	r = usb_bulk_msg(d, p, buf, 64, len, tmo); /* expect: ? */

	/* traps: a jiffies wait elsewhere, a variable reassigned to ms */
	wait_event_timeout(*wq, done, msecs_to_jiffies(100));
	r = usb_bulk_msg(d, p, buf, 64, len, 100);
	ms = 2 * HZ;
	wait_event_timeout(*wq, done, ms);
	ms = 2000;
	r = usb_bulk_msg(d, p, buf, 64, len, ms);
	r = usb_bulk_msg(d, p, buf, 64, len, bulk_timeout_ms);
	return r;
}

static int mixed(struct usb_device *d, unsigned int p, void *buf, int *len,
		 bool slow)
{
	int t = 500;

	if (slow)
		t = 5 * HZ;
	return usb_bulk_msg(d, p, buf, 64, len, t); /* expect: 5000 mixed */
}
