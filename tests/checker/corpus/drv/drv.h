/* SPDX-License-Identifier: GPL-2.0 */
/* Checker corpus: a driver's header; its macros count for drv/*.c. */
#define DRV_CTRL_TIMEOUT	(2 * HZ)	/* in the header */
#define DRV_MS_TIMEOUT		1000		/* already ms */
