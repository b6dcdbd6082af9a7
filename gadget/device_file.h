/* SPDX-License-Identifier: GPL-2.0 */
/*
 * device_file.h - another device than hzrig's own, described as data: the
 * descriptors an in-tree driver needs to probe, and what to do with each
 * control request (NAK, stall, answer). hzrig-gadget -D FILE presents it
 * (docs/checker.md, "Measuring the drivers"). I/O-free: parsed from text,
 * built into bytes, unit-tested on its own.
 *
 * The format, one item per line, "#" starts a comment:
 *
 *   device vendor=0x05ac product=0x12a8 [class= subclass= protocol= bcd=]
 *   interface number=0 alt=0 class=0xff subclass=0xfd protocol=0x01
 *   endpoint address=0x81 type=bulk|interrupt|isochronous [maxpacket= interval=]
 *           [sync=none|async|adaptive|sync] (isochronous; default async)
 *   extra data=05,24,00,10,01
 *           a class-specific descriptor (CDC's functional ones, say), whole:
 *           its first byte its length; after the interface line above it,
 *           before that interface's endpoints
 *   association first=1 count=2 class=0x0e [subclass= protocol=]
 *           an interface association (IAD), before interface first's
 *           alternate setting 0
 *   request type=0xc0 request=0x00 [value= index=] action=nak|stall|answer
 *           [data=04,00,...]
 *   driver name=ipheth module=ipheth [site=drivers/net/usb/ipheth.c:289]
 *           the in-tree driver the guest binds (initramfs/runner/drivers.c,
 *           which needs the site; the sweep's devices have none)
 *   firmware lines: for the initramfs (mkinitramfs.sh), ignored here.
 *
 * Endpoints belong to the interface line above them. A request's value and
 * index match anything when left out.
 */
#ifndef HZRIG_GADGET_DEVICE_FILE_H
#define HZRIG_GADGET_DEVICE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/usb/ch9.h>

#define HZG_DEV_MAX_INTF	16
#define HZG_DEV_MAX_EP		32
#define HZG_DEV_MAX_EXTRA	64	/* class-specific bytes an interface */
#define HZG_DEV_MAX_IAD		4
#define HZG_DEV_MAX_RULES	16
#define HZG_DEV_MAX_DATA	64
#define HZG_DEV_MAX_BYTES	1024	/* the descriptors written to gadgetfs */

struct hzg_dev_ep {
	uint8_t address;
	uint8_t attributes;	/* USB_ENDPOINT_XFER_BULK, _INT, or _ISOC | async */
	uint16_t fs_maxp, hs_maxp;
	uint8_t fs_interval, hs_interval;
};

struct hzg_dev_intf {
	uint8_t number, alt, cls, subclass, protocol;
	unsigned int first_ep, n_ep;
	uint8_t extra[HZG_DEV_MAX_EXTRA];	/* "extra" lines' descriptors */
	size_t n_extra;
};

struct hzg_dev_iad {
	uint8_t first, count, cls, subclass, protocol;
};

enum hzg_dev_action { HZG_DEV_NAK, HZG_DEV_STALL, HZG_DEV_ANSWER };

struct hzg_dev_rule {
	uint8_t type, request;
	int32_t value, index;	/* -1: any */
	enum hzg_dev_action action;
	uint8_t data[HZG_DEV_MAX_DATA];
	size_t len;
	unsigned int line;	/* in the file, for the log */
};

struct hzg_device_file {
	/* the driver line ("" without one): sysfs driver, module, call site */
	char driver[64], module[64], site[160];	/* MODULE_NAME_LEN 56 */
	uint16_t vendor, product, bcd;
	uint8_t cls, subclass, protocol;
	bool have_device;
	struct hzg_dev_intf intf[HZG_DEV_MAX_INTF];
	size_t n_intf;
	struct hzg_dev_ep ep[HZG_DEV_MAX_EP];
	size_t n_ep;
	struct hzg_dev_rule rule[HZG_DEV_MAX_RULES];
	size_t n_rule;
	struct hzg_dev_iad iad[HZG_DEV_MAX_IAD];
	size_t n_iad;
};

/*
 * Parse @text (NUL-terminated) into @d. 0, or -1 with @err holding
 * "line N: what is wrong".
 */
int hzg_dev_parse(struct hzg_device_file *d, const char *text, char *err,
		  size_t errlen);

/*
 * What the gadgetfs controller file takes (tag 0, the full-speed
 * configuration, the high-speed one if @with_hs, the device descriptor);
 * 0 if it does not fit @cap.
 */
size_t hzg_dev_build(const struct hzg_device_file *d, uint8_t *buf,
		     size_t cap, bool with_hs);

/*
 * The descriptors alone, for a device that answers GET_DESCRIPTOR itself
 * (raw-gadget, hzrig-rawdev): the configuration with its interfaces and
 * endpoints (high-speed sizes if @hs), and the device descriptor. The
 * length, or 0 if it does not fit @cap.
 */
size_t hzg_dev_config_desc(const struct hzg_device_file *d, uint8_t *buf,
			   size_t cap, bool hs);
size_t hzg_dev_device_desc(const struct hzg_device_file *d, uint8_t *buf,
			   size_t cap);

/* The first rule matching @ctrl, or NULL. */
const struct hzg_dev_rule *hzg_dev_match(const struct hzg_device_file *d,
					 const struct usb_ctrlrequest *ctrl);

/* Does interface @number have alternate setting @alt? */
bool hzg_dev_has_alt(const struct hzg_device_file *d, unsigned int number,
		     unsigned int alt);

#endif /* HZRIG_GADGET_DEVICE_FILE_H */
