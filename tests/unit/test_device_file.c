// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the gadget's device files (gadget/device_file.c): the
 * shipped files parse, the descriptors they build are what usbcore reads
 * (USB 2.0 ch. 9 layouts, checked byte by byte), requests match their
 * rules, and bad files are refused naming the line.
 */
#include <endian.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "device_file.h"

static void load(const char *name, struct hzg_device_file *d)
{
	char path[512], text[16384], err[160];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", DEVICES_DIR, name);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = 0;
	if (hzg_dev_parse(d, text, err, sizeof(err)))
		fail_msg("%s: %s", name, err);
}

/*
 * The sweep's iPhone (gadget/devices/sweep/ipheth.device): ipheth's
 * interface is number 2, after two others, its endpoints in alternate 1,
 * as open()'s usb_set_interface(udev, IPHETH_INTFNUM, 1) wants; the
 * configuration says three interfaces.
 */
static void test_sweep_ipheth(void **state)
{
	struct hzg_device_file d;
	uint8_t b[1024];
	size_t len;

	(void)state;
	load("sweep/ipheth.device", &d);
	assert_string_equal(d.module, "ipheth");
	assert_true(hzg_dev_has_alt(&d, 2, 1));
	assert_false(hzg_dev_has_alt(&d, 0, 1));
	assert_int_equal(d.intf[3].number, 2);
	assert_int_equal(d.intf[3].n_ep, 2);
	assert_int_equal(d.intf[2].n_ep, 0);
	len = hzg_dev_build(&d, b, sizeof(b), true);
	assert_true(len > 9);
	assert_int_equal(b[5], USB_DT_CONFIG);
	assert_int_equal(b[8], 3);	/* bNumInterfaces */
}

static void test_ipheth(void **state)
{
	struct hzg_device_file d;
	uint8_t b[1024];
	struct usb_ctrlrequest c = { 0 };
	size_t len, cfg;
	const uint8_t *dev;

	(void)state;
	load("ipheth.device", &d);
	assert_string_equal(d.driver, "ipheth");
	assert_string_equal(d.module, "ipheth");
	assert_string_equal(d.site, "drivers/net/usb/ipheth.c:289");
	assert_int_equal(d.n_intf, 2);
	assert_int_equal(d.n_ep, 2);
	assert_true(hzg_dev_has_alt(&d, 0, 1));
	assert_false(hzg_dev_has_alt(&d, 0, 2));
	len = hzg_dev_build(&d, b, sizeof(b), true);
	/* tag, 2 x (config 9 + 2 interfaces x 9 + 2 endpoints x 7), device 18 */
	cfg = 9 + 2 * 9 + 2 * 7;
	assert_int_equal(len, 4 + 2 * cfg + 18);
	assert_int_equal(b[4], 9);
	assert_int_equal(b[5], USB_DT_CONFIG);
	assert_int_equal(b[6] | b[7] << 8, cfg);	/* wTotalLength */
	assert_int_equal(b[8], 1);		/* one interface number */
	/* alt 0: no endpoints; alt 1: both, bulk, 64 at full speed */
	assert_int_equal(b[4 + 9 + 3], 0);
	assert_int_equal(b[4 + 9 + 4], 0);
	assert_int_equal(b[4 + 9 + 5], 0xff);
	assert_int_equal(b[4 + 18 + 3], 1);
	assert_int_equal(b[4 + 18 + 4], 2);
	assert_int_equal(b[4 + 27 + 2], 0x81);
	assert_int_equal(b[4 + 27 + 3], USB_ENDPOINT_XFER_BULK);
	assert_int_equal(b[4 + 27 + 4] | b[4 + 27 + 5] << 8, 64);
	/* the high-speed copy: 512 */
	assert_int_equal(b[4 + cfg + 27 + 4] | b[4 + cfg + 27 + 5] << 8, 512);
	dev = b + 4 + 2 * cfg;
	assert_int_equal(dev[1], USB_DT_DEVICE);
	assert_int_equal(dev[8] | dev[9] << 8, 0x05ac);
	assert_int_equal(dev[10] | dev[11] << 8, 0x12a8);
	/* without high speed: one configuration less */
	assert_int_equal(hzg_dev_build(&d, b, sizeof(b), false), 4 + cfg + 18);
	assert_int_equal(hzg_dev_build(&d, b, 40, true), 0);
	/* GET_MACADDR is held; the same request with another index is not */
	c.bRequestType = 0xc0;
	c.bRequest = 0x00;
	c.wIndex = htole16(2);
	c.wLength = htole16(64);
	assert_non_null(hzg_dev_match(&d, &c));
	assert_int_equal(hzg_dev_match(&d, &c)->action, HZG_DEV_NAK);
	c.wIndex = htole16(0);
	assert_null(hzg_dev_match(&d, &c));
}

static void test_orinoco(void **state)
{
	struct hzg_device_file d;
	struct usb_ctrlrequest c = { .bRequestType = 0x40, .bRequest = 0xa0 };

	(void)state;
	load("orinoco_usb.device", &d);
	/* any value and index: every firmware chunk is accepted */
	c.wValue = htole16(0x7f92);
	assert_int_equal(hzg_dev_match(&d, &c)->action, HZG_DEV_ANSWER);
	c.bRequest = 0xaa;
	c.wValue = 0;
	assert_int_equal(hzg_dev_match(&d, &c)->action, HZG_DEV_NAK);
	assert_int_equal(d.ep[0].address, 0x82);
	assert_int_equal(d.ep[0].hs_maxp, 64);
}

static void test_answer_data(void **state)
{
	struct hzg_device_file d;
	char err[160];

	(void)state;
	assert_int_equal(hzg_dev_parse(&d,
		"device vendor=1 product=2\n"
		"interface number=0 class=0xff\n"
		"endpoint address=0x85 type=interrupt interval=8\n"
		"request type=0xc0 request=0x45 action=answer data=00,4,ff\n",
		err, sizeof(err)), 0);
	assert_int_equal(d.rule[0].len, 3);
	assert_int_equal(d.rule[0].data[1], 4);
	assert_int_equal(d.rule[0].data[2], 0xff);
	assert_int_equal(d.rule[0].value, -1);
	assert_int_equal(d.ep[0].attributes, USB_ENDPOINT_XFER_INT);
	assert_int_equal(d.ep[0].fs_interval, 8);
}

/*
 * An isochronous endpoint (audio and video devices): asynchronous, 1024
 * bytes at high speed and 1023 at full speed by default, an interval of
 * every (micro)frame; in its configuration descriptor as such.
 */
static void test_isochronous(void **state)
{
	struct hzg_device_file d;
	uint8_t b[256];
	size_t len;
	char err[160];

	(void)state;
	assert_int_equal(hzg_dev_parse(&d,
		"device vendor=1 product=2\n"
		"interface number=0 alt=0 class=0x0e subclass=2\n"
		"interface number=0 alt=1 class=0x0e subclass=2\n"
		"endpoint address=0x84 type=isochronous\n"
		"endpoint address=0x05 type=isochronous maxpacket=192\n",
		err, sizeof(err)), 0);
	assert_int_equal(d.ep[0].attributes, USB_ENDPOINT_XFER_ISOC | USB_ENDPOINT_SYNC_ASYNC);
	assert_int_equal(d.ep[0].hs_maxp, 1024);
	assert_int_equal(d.ep[0].fs_maxp, 1023);
	assert_int_equal(d.ep[0].hs_interval, 1);
	assert_int_equal(d.ep[0].fs_interval, 1);
	assert_int_equal(d.ep[1].fs_maxp, 192);
	assert_int_equal(d.ep[1].hs_maxp, 192);
	len = hzg_dev_config_desc(&d, b, sizeof(b), false);
	assert_int_equal(len, 9 + 9 + 9 + 2 * 7);
	assert_int_equal(b[27 + 2], 0x84);
	assert_int_equal(b[27 + 3], 0x05);		/* bmAttributes */
	assert_int_equal(b[27 + 4] | b[27 + 5] << 8, 1023);
	assert_int_equal(b[27 + 6], 1);			/* bInterval */
}

static void refused(const char *text, const char *want)
{
	struct hzg_device_file d;
	char err[160] = "";

	if (hzg_dev_parse(&d, text, err, sizeof(err)) == 0)
		fail_msg("accepted: %s", text);
	if (!strstr(err, want))
		fail_msg("error '%s' lacks '%s'", err, want);
}

/*
 * The descriptors hzrig-rawdev answers GET_DESCRIPTOR with: ipheth's
 * configuration holds interface 0's two alternate settings (one interface
 * in bNumInterfaces), the first without endpoints and the second with its
 * two bulk endpoints at high speed (512 bytes); its device descriptor has
 * the file's IDs. A driver line
 * without site= (a sweep's device) is read with an empty site.
 */
static void test_raw_descriptors(void **state)
{
	struct hzg_device_file d;
	uint8_t b[1024];
	size_t len;
	char err[160];

	(void)state;
	load("ipheth.device", &d);
	len = hzg_dev_config_desc(&d, b, sizeof(b), true);
	assert_int_equal(len, 9 + 9 + 9 + 2 * 7);
	assert_int_equal(b[1], USB_DT_CONFIG);
	assert_int_equal(b[2] | b[3] << 8, len);
	assert_int_equal(b[4], 1);
	assert_int_equal(b[9 + 1], USB_DT_INTERFACE);
	assert_int_equal(b[9 + 4], 0);		/* alt 0: bNumEndpoints */
	assert_int_equal(b[18 + 3], 1);		/* alt 1 */
	assert_int_equal(b[18 + 4], 2);
	assert_int_equal(b[27 + 1], USB_DT_ENDPOINT);
	assert_int_equal(b[27 + 4] | b[27 + 5] << 8, 512);
	assert_int_equal(hzg_dev_config_desc(&d, b, 20, true), 0);
	len = hzg_dev_device_desc(&d, b, sizeof(b));
	assert_int_equal(len, USB_DT_DEVICE_SIZE);
	assert_int_equal(b[8] | b[9] << 8, 0x05ac);
	assert_int_equal(b[10] | b[11] << 8, 0x12a8);

	assert_int_equal(hzg_dev_parse(&d, "driver name=x module=x\n"
				       "device vendor=1 product=2\n"
				       "interface number=0 class=1\n", err, sizeof(err)), 0);
	assert_string_equal(d.site, "");
}

/*
 * Class-specific descriptors ("extra": CDC's functional ones) go right
 * after their interface, before its endpoints; an interface association
 * (IAD) right before its first interface's alternate setting 0; both count
 * in wTotalLength.
 */
static void test_extra_and_association(void **state)
{
	struct hzg_device_file d;
	uint8_t b[1024];
	size_t len;
	char err[160];

	(void)state;
	if (hzg_dev_parse(&d, "device vendor=1 product=2\n"
			  "interface number=0 alt=0 class=0xff\n"
			  "association first=1 count=2 class=0x02 subclass=0x02\n"
			  "interface number=1 alt=0 class=0x02 subclass=0x02\n"
			  "extra data=05,24,00,10,01\n"
			  "extra data=05,24,06,01,02\n"
			  "endpoint address=0x83 type=interrupt\n"
			  "interface number=2 alt=0 class=0x0a\n"
			  "endpoint address=0x81 type=bulk\n"
			  "endpoint address=0x02 type=bulk\n", err, sizeof(err)))
		fail_msg("%s", err);
	len = hzg_dev_config_desc(&d, b, sizeof(b), true);
	assert_int_equal(len, 9 + 9 + 8 + 9 + 10 + 7 + 9 + 2 * 7);
	assert_int_equal(b[2] | b[3] << 8, len);
	assert_int_equal(b[4], 3);			/* bNumInterfaces */
	assert_int_equal(b[18 + 1], USB_DT_INTERFACE_ASSOCIATION);
	assert_int_equal(b[18 + 2], 1);			/* bFirstInterface */
	assert_int_equal(b[18 + 3], 2);
	assert_int_equal(b[18 + 4], 0x02);
	assert_int_equal(b[26 + 1], USB_DT_INTERFACE);
	assert_int_equal(b[26 + 2], 1);
	assert_int_equal(b[35], 5);			/* the header, then the union */
	assert_int_equal(b[35 + 1], 0x24);
	assert_int_equal(b[40 + 2], 0x06);
	assert_int_equal(b[45 + 1], USB_DT_ENDPOINT);
	assert_int_equal(b[45 + 2], 0x83);

	/* an isochronous endpoint's sync type: async unless sync= says */
	if (hzg_dev_parse(&d, "device vendor=1 product=2\n"
			  "interface number=0 alt=0 class=0xff\n"
			  "interface number=0 alt=1 class=0xff\n"
			  "endpoint address=0x81 type=isochronous sync=none\n"
			  "endpoint address=0x02 type=isochronous\n"
			  "endpoint address=0x83 type=isochronous sync=adaptive\n", err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(d.ep[0].attributes, USB_ENDPOINT_XFER_ISOC);
	assert_int_equal(d.ep[1].attributes, USB_ENDPOINT_XFER_ISOC | USB_ENDPOINT_SYNC_ASYNC);
	assert_int_equal(d.ep[2].attributes, USB_ENDPOINT_XFER_ISOC | USB_ENDPOINT_SYNC_ADAPTIVE);
}

static void test_refused(void **state)
{
	(void)state;
	refused("", "no device line");
	refused("device vendor=1 product=2\n", "no interface line");
	refused("device product=2\n", "line 1: vendor= is missing");
	refused("device vendor=0x10000 product=2\n", "vendor=0x10000 is not");
	refused("device vendor=1 product=2 colour=3\n", "no key 'colour'");
	refused("device vendor=1 product=2\nendpoint address=0x81 type=bulk\n",
		"line 2: an endpoint before any interface");
	refused("device vendor=1 product=2\ninterface number=0 class=1\n"
		"endpoint address=0x80 type=bulk\n", "line 3: address=0x80");
	refused("device vendor=1 product=2\ninterface number=0 class=1\n"
		"endpoint address=0x81 type=iso\n", "type= must be");
	refused("device vendor=1 product=2\ninterface number=0 class=1\n"
		"interface number=0 class=1\n", "line 3: interface 0 alt 0 twice");
	refused("device vendor=1 product=2\ninterface number=0 class=1\n"
		"request type=0xc0 request=1 action=nak data=01\n",
		"data= only goes with action=answer");
	refused("device vendor=1 product=2\ninterface number=0 class=1\n"
		"request type=0xc0 request=1 action=answer data=zz\n",
		"data= must be");
	refused("device vendor=1 product=2\ninterface number=0 class=1\n"
		"request type=0xc0 request=1 action=maybe\n", "action= must be");
	refused("gizmo a=1\n", "line 1: 'gizmo' is not");
	refused("device vendor=1 product\n", "'product' is not key=value");
	refused("device vendor=-1 product=2\n", "vendor=-1 is not");
	refused("driver name=x module=x site=\n", "site= must be 1..");
	refused("driver name=x module=x site=a.c:1 transfer=ctrl-in\n",
		"no key 'transfer'");
	refused("device vendor=1 product=2\ninterface number=0 class=1\n"
		"extra data=05,24,00\n", "line 3: data= is not one descriptor");
	refused("device vendor=1 product=2\ninterface number=0 class=1\n"
		"endpoint address=0x81 type=isochronous sync=maybe\n",
		"sync=maybe is not none, async, adaptive or sync");
	refused("device vendor=1 product=2\ninterface number=0 class=1\n"
		"endpoint address=0x81 type=bulk sync=none\n", "no key 'sync'");
	refused("device vendor=1 product=2\nextra data=03,24,00\n",
		"an extra descriptor before any interface");
	refused("device vendor=1 product=2\ninterface number=0 class=1\n"
		"endpoint address=0x81 type=bulk\nextra data=03,24,00\n",
		"after its interface's endpoints");
	refused("device vendor=1 product=2\ninterface number=0 class=1\n"
		"association first=3 count=1 class=2\n",
		"association 1: no interface 3 alt 0");
	refused("device vendor=1 product=2\ninterface number=0 class=1\n"
		"association first=0 count=0 class=2\n", "is not a run of interfaces");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipheth),
		cmocka_unit_test(test_sweep_ipheth),
		cmocka_unit_test(test_orinoco),
		cmocka_unit_test(test_answer_data),
		cmocka_unit_test(test_isochronous),
		cmocka_unit_test(test_raw_descriptors),
		cmocka_unit_test(test_extra_and_association),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
