// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the sweep's host side (rig/sweep/): the id-table reader,
 * the device builder and the HZ-dependence rule.
 *
 * The alias lines are written as scripts/mod/file2alias.c (6.1,
 * do_usb_entry) writes them for the entries quoted beside each; the
 * expected fields were read off those entries by hand. The built devices
 * are parsed back with the gadget's own parser (gadget/device_file.c),
 * and held against usb_match_one_id()'s rules (drivers/usb/core/driver.c)
 * written out here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "device_file.h"
#include "lib/io.h"
#include "lib/util.h"
#include "model/model.h"
#include "sweep/sweep.h"

#define MS	1000000LL

/* ipheth: USB_VENDOR_AND_INTERFACE_INFO(0x05ac, 0xff, 0xfd, 0x01) */
static const char *const IPHETH =
	"alias usb:v05ACp*d*dc*dsc*dp*icFFiscFDip01in* ipheth";
/* ftdi_sio: USB_DEVICE(0x0403, 0x6001) */
static const char *const FTDI =
	"alias usb:v0403p6001d*dc*dsc*dp*ic*isc*ip*in* ftdi_sio";
/* USB_DEVICE_VER(0x0451, 0x3410, 0x0100, 0x0149): bcd 0x0100..0x0149 */
static const char *const RANGE =
	"alias usb:v0451p3410d01[0-3]*dc*dsc*dp*ic*isc*ip*in* ti_usb_3410_5052";
/* USB_DEVICE_INTERFACE_NUMBER(0x12d1, 0x1506, 2): in02, add_wildcard's '*' */
static const char *const INTNUM =
	"alias usb:v12D1p1506d*dc*dsc*dp*ic*isc*ip*in02* option";
/* USB_DEVICE_AND_INTERFACE_INFO(0x046d, 0x08c1, USB_CLASS_VIDEO, 1, 0) */
static const char *const VIDEO =
	"alias usb:v046Dp08C1d*dc*dsc*dp*ic0Eisc01ip00in* uvcvideo";
/* USB_INTERFACE_INFO(USB_CLASS_AUDIO, 1, 0): an audio control interface */
static const char *const AUDIO =
	"alias usb:v*p*d*dc*dsc*dp*ic01isc01ip00in* snd_usb_audio";
/* USB_INTERFACE_INFO(USB_CLASS_COMM, 2, 1): cdc-acm's class entry */
static const char *const CLASS =
	"alias usb:v*p*d*dc*dsc*dp*ic02isc02ip01in* cdc_acm";

static void test_parse_fields(void **state)
{
	struct hzrig_usb_id id;
	char why[128];

	(void)state;
	assert_int_equal(hzrig_usb_id_parse(IPHETH, &id, why, sizeof(why)), 1);
	assert_string_equal(id.module, "ipheth");
	assert_int_equal(id.vendor, 0x05ac);
	assert_int_equal(id.product, HZRIG_ID_ANY);
	assert_int_equal(id.bcd, HZRIG_ID_ANY);
	assert_int_equal(id.dev_class, HZRIG_ID_ANY);
	assert_int_equal(id.intf_class, 0xff);
	assert_int_equal(id.intf_subclass, 0xfd);
	assert_int_equal(id.intf_protocol, 0x01);
	assert_int_equal(id.intf_number, HZRIG_ID_ANY);
	assert_false(hzrig_usb_id_specific(&id));

	assert_int_equal(hzrig_usb_id_parse(FTDI, &id, why, sizeof(why)), 1);
	assert_int_equal(id.vendor, 0x0403);
	assert_int_equal(id.product, 0x6001);
	assert_true(hzrig_usb_id_specific(&id));

	/* the lowest bcdDevice of "01[0-3]*" is 0x0100 */
	assert_int_equal(hzrig_usb_id_parse(RANGE, &id, why, sizeof(why)), 1);
	assert_int_equal(id.bcd, 0x0100);
	assert_string_equal(id.module, "ti_usb_3410_5052");

	assert_int_equal(hzrig_usb_id_parse(INTNUM, &id, why, sizeof(why)), 1);
	assert_int_equal(id.intf_number, 2);

	assert_int_equal(hzrig_usb_id_parse(CLASS, &id, why, sizeof(why)), 1);
	assert_int_equal(id.vendor, HZRIG_ID_ANY);
	assert_int_equal(id.intf_class, 2);
}

static void test_parse_exact_bcd(void **state)
{
	struct hzrig_usb_id id;
	char why[128];

	(void)state;
	/* USB_DEVICE_VER(0x0582, 0x0000, 0x0100, 0x0100): four digits, no '*' */
	assert_int_equal(hzrig_usb_id_parse(
		"alias usb:v0582p0000d0100dc*dsc*dp*ic*isc*ip*in* snd_usb_audio",
		&id, why, sizeof(why)), 1);
	assert_int_equal(id.bcd, 0x0100);
	/* "[5-9A-B]": a range across the digit/letter edge starts at 5 */
	assert_int_equal(hzrig_usb_id_parse(
		"alias usb:v1234p5678d0[5-9A-B]*dc*dsc*dp*ic*isc*ip*in* x",
		&id, why, sizeof(why)), 1);
	assert_int_equal(id.bcd, 0x0500);
}

static void test_parse_other_and_bad(void **state)
{
	struct hzrig_usb_id id;
	char why[128];

	(void)state;
	assert_int_equal(hzrig_usb_id_parse("alias pci:v00008086d* e1000", &id, why, sizeof(why)), 0);
	assert_int_equal(hzrig_usb_id_parse("# Aliases extracted from modules", &id, why, sizeof(why)), 0);
	assert_int_equal(hzrig_usb_id_parse("", &id, why, sizeof(why)), 0);
	why[0] = 0;
	assert_int_equal(hzrig_usb_id_parse("alias usb:v05ACp*d*dc*dsc*dp*icFFiscFDip01in*", &id, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "module"));
	assert_int_equal(hzrig_usb_id_parse("alias usb:v05AGp*d*dc*dsc*dp*ic*isc*ip*in* m", &id, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "vendor"));
	assert_int_equal(hzrig_usb_id_parse("alias usb:v05ACp*d0[0-*dc*dsc*dp*ic*isc*ip*in* m", &id, why, sizeof(why)), -1);
	assert_int_equal(hzrig_usb_id_parse("alias usb:v05ACp*d*dc*dsc*dp*icFFisc*ip*in* a/b", &id, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "'/'"));
	assert_int_equal(hzrig_usb_id_parse("alias usb:v05ACp*d*dcXXdsc*dp*ic*isc*ip*in* m", &id, why, sizeof(why)), -1);
}

static void test_prefer_vid_pid(void **state)
{
	struct hzrig_usb_id cls, spec, spec2;
	char why[128];

	(void)state;
	hzrig_usb_id_parse(CLASS, &cls, why, sizeof(why));
	hzrig_usb_id_parse(FTDI, &spec, why, sizeof(why));
	hzrig_usb_id_parse(RANGE, &spec2, why, sizeof(why));
	assert_true(hzrig_usb_id_better(&cls, &spec));
	assert_false(hzrig_usb_id_better(&spec, &cls));
	/* the first VID/PID entry stays */
	assert_false(hzrig_usb_id_better(&spec, &spec2));
}

/*
 * usb_match_one_id() (driver.c, 6.1) against the device and one of its
 * interfaces: every field the entry names must be equal, and a device of
 * class 0xff matches interface fields only with a vendor in the entry.
 */
static bool matches(const struct hzrig_usb_id *id, const struct hzg_device_file *d,
		    const struct hzg_dev_intf *in)
{
#define EQ(f, v) ((f) == HZRIG_ID_ANY || (f) == (v))
	if (!EQ(id->vendor, d->vendor) || !EQ(id->product, d->product) ||
	    !EQ(id->bcd, d->bcd) || !EQ(id->dev_class, d->cls) ||
	    !EQ(id->dev_subclass, d->subclass) || !EQ(id->dev_protocol, d->protocol))
		return false;
	if (d->cls == 0xff && id->vendor == HZRIG_ID_ANY &&
	    (id->intf_class != HZRIG_ID_ANY || id->intf_subclass != HZRIG_ID_ANY ||
	     id->intf_protocol != HZRIG_ID_ANY))
		return false;
	return EQ(id->intf_class, in->cls) && EQ(id->intf_subclass, in->subclass) &&
	       EQ(id->intf_protocol, in->protocol) && EQ(id->intf_number, in->number);
#undef EQ
}

static void built_streaming(const char *alias, int stream, struct hzrig_usb_id *id,
			    struct hzg_device_file *d)
{
	char buf[2048], why[128];
	size_t n;

	assert_int_equal(hzrig_usb_id_parse(alias, id, why, sizeof(why)), 1);
	n = hzrig_usb_id_device(id, alias, stream, buf, sizeof(buf));
	assert_true(n > 0 && n < sizeof(buf));
	assert_int_equal(strlen(buf), n);
	if (hzg_dev_parse(d, buf, why, sizeof(why)))
		fail_msg("the built device does not parse: %s\n%s", why, buf);
}

static void built(const char *alias, struct hzrig_usb_id *id,
		  struct hzg_device_file *d)
{
	built_streaming(alias, 0, id, d);
}

static void test_device_matches_its_entry(void **state)
{
	const char *const all[] = { IPHETH, FTDI, RANGE, INTNUM, CLASS };
	struct hzrig_usb_id id;
	struct hzg_device_file d;

	(void)state;
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		built(all[i], &id, &d);
		assert_string_equal(d.module, id.module);
		/* the matched interface is the last one, with the endpoints */
		assert_true(d.n_intf >= 1);
		assert_true(matches(&id, &d, &d.intf[d.n_intf - 1]));
		assert_int_equal(d.intf[d.n_intf - 1].n_ep, 3);
	}
}

static void test_device_fields(void **state)
{
	struct hzrig_usb_id id;
	struct hzg_device_file d;

	(void)state;
	built(IPHETH, &id, &d);
	assert_int_equal(d.vendor, 0x05ac);
	assert_int_equal(d.product, 0);
	assert_int_equal(d.cls, 0);	/* per interface */
	assert_int_equal(d.intf[0].cls, 0xff);
	assert_int_equal(d.intf[0].subclass, 0xfd);
	assert_int_equal(d.intf[0].protocol, 0x01);
	assert_int_equal(d.ep[0].address, 0x81);
	assert_int_equal(d.ep[1].address, 0x02);
	assert_int_equal(d.ep[2].address, 0x83);
	assert_int_equal(d.ep[2].attributes, USB_ENDPOINT_XFER_INT);

	built(RANGE, &id, &d);
	assert_int_equal(d.bcd, 0x0100);

	/* interface 2 asked for: 0 and 1 come first, without endpoints */
	built(INTNUM, &id, &d);
	assert_int_equal(d.n_intf, 3);
	assert_int_equal(d.intf[0].n_ep, 0);
	assert_int_equal(d.intf[1].n_ep, 0);
	assert_int_equal(d.intf[2].number, 2);

	/* a class entry: no vendor, the class triple on the interface */
	built(CLASS, &id, &d);
	assert_int_equal(d.intf[0].cls, 2);
	assert_int_equal(d.intf[0].subclass, 2);
	assert_int_equal(d.intf[0].protocol, 1);
}

/*
 * Audio and video: the matched interface also has alternate setting 1
 * with isochronous endpoints (video IN, audio IN and OUT); alternate
 * setting 0 keeps the default endpoints.
 */
static void test_device_isochronous(void **state)
{
	struct hzrig_usb_id id;
	struct hzg_device_file d;

	(void)state;
	built(VIDEO, &id, &d);
	assert_int_equal(d.n_intf, 2);
	assert_true(matches(&id, &d, &d.intf[0]));
	assert_int_equal(d.intf[0].alt, 0);
	assert_int_equal(d.intf[0].n_ep, 3);
	assert_int_equal(d.intf[1].number, d.intf[0].number);
	assert_int_equal(d.intf[1].alt, 1);
	assert_int_equal(d.intf[1].cls, USB_CLASS_VIDEO);
	assert_int_equal(d.intf[1].n_ep, 1);
	assert_int_equal(d.ep[d.intf[1].first_ep].address, 0x84);
	assert_int_equal(d.ep[d.intf[1].first_ep].attributes & USB_ENDPOINT_XFERTYPE_MASK,
			 USB_ENDPOINT_XFER_ISOC);

	built(AUDIO, &id, &d);
	assert_int_equal(d.n_intf, 2);
	assert_int_equal(d.intf[1].n_ep, 2);
	assert_int_equal(d.ep[d.intf[1].first_ep + 1].address, 0x05);

	/* no other class gets one */
	built(CLASS, &id, &d);
	assert_int_equal(d.n_intf, 1);

	/*
	 * a vendor-specific interface whose driver is built on V4L2 (a
	 * gspca camera): the video alternate all the same, its own class
	 * kept; on ALSA, the audio one; built on nothing, none
	 */
	built_streaming(IPHETH, USB_CLASS_VIDEO, &id, &d);
	assert_int_equal(d.n_intf, 2);
	assert_int_equal(d.intf[1].alt, 1);
	assert_int_equal(d.intf[1].cls, 0xff);
	assert_int_equal(d.intf[1].n_ep, 1);
	assert_int_equal(d.ep[d.intf[1].first_ep].attributes & USB_ENDPOINT_XFERTYPE_MASK,
			 USB_ENDPOINT_XFER_ISOC);
	built_streaming(IPHETH, USB_CLASS_AUDIO, &id, &d);
	assert_int_equal(d.intf[1].n_ep, 2);
	built_streaming(IPHETH, 0, &id, &d);
	assert_int_equal(d.n_intf, 1);
	/* a video interface stays video whatever its driver is built on */
	built_streaming(VIDEO, USB_CLASS_AUDIO, &id, &d);
	assert_int_equal(d.intf[1].n_ep, 1);
}

/* What a driver streams, from its modules.dep line. */
static void test_stream_class(void **state)
{
	char mod[64];

	(void)state;
	assert_int_equal(hzrig_sweep_stream_class(
		"kernel/drivers/media/usb/gspca/gspca_mars.ko: kernel/drivers/media/usb/gspca/gspca_main.ko kernel/drivers/media/v4l2-core/videodev.ko kernel/drivers/media/mc/mc.ko",
		mod, sizeof(mod)), USB_CLASS_VIDEO);
	assert_string_equal(mod, "gspca_mars");
	assert_int_equal(hzrig_sweep_stream_class(
		"kernel/drivers/media/usb/dvb-usb/dvb-usb-a800.ko.xz: kernel/drivers/media/dvb-core/dvb-core.ko.xz",
		mod, sizeof(mod)), USB_CLASS_VIDEO);
	assert_string_equal(mod, "dvb_usb_a800");
	assert_int_equal(hzrig_sweep_stream_class(
		"kernel/sound/usb/caiaq/snd-usb-caiaq.ko: kernel/sound/core/snd-pcm.ko kernel/sound/core/snd.ko",
		mod, sizeof(mod)), USB_CLASS_AUDIO);
	assert_string_equal(mod, "snd_usb_caiaq");
	/* built on both: video (em28xx's ALSA part streams beside V4L2) */
	assert_int_equal(hzrig_sweep_stream_class(
		"a/em28xx.ko: b/snd-pcm.ko c/videodev.ko", mod, sizeof(mod)), USB_CLASS_VIDEO);
	/* a name that only begins like one is not it */
	assert_int_equal(hzrig_sweep_stream_class(
		"kernel/drivers/net/usb/cdc_ether.ko: kernel/drivers/net/usb/usbnet.ko kernel/x/videodevx.ko",
		mod, sizeof(mod)), 0);
	assert_int_equal(hzrig_sweep_stream_class("kernel/drivers/usb/misc/usbtest.ko:", mod,
						  sizeof(mod)), 0);
	/* not a modules.dep line */
	assert_int_equal(hzrig_sweep_stream_class("no colon here", mod, sizeof(mod)), -1);
	assert_int_equal(hzrig_sweep_stream_class("README: x.ko", mod, sizeof(mod)), -1);
	assert_int_equal(hzrig_sweep_stream_class(".ko: x.ko", mod, sizeof(mod)), -1);
	assert_int_equal(hzrig_sweep_stream_class("a/b.ko: x", mod, 1), -1);
}

/* One shape of @alias's device, parsed; false when the entry has none. */
static bool shaped(const char *alias, unsigned int shape, struct hzrig_usb_id *id,
		   struct hzg_device_file *d)
{
	char buf[4096], why[128];
	size_t n;

	assert_int_equal(hzrig_usb_id_parse(alias, id, why, sizeof(why)), 1);
	n = hzrig_usb_id_shape(id, alias, shape, buf, sizeof(buf));
	if (!n)
		return false;
	assert_int_equal(strlen(buf), n);
	if (hzg_dev_parse(d, buf, why, sizeof(why)))
		fail_msg("shape %u does not parse: %s\n%s", shape, why, buf);
	return true;
}

/*
 * Devices that do not bind get other shapes: 1, every kind of endpoint and
 * an isochronous alternate; 2, the matched interface at 1 (or its entry's
 * number) and two more of its class under an association; 3, CDC's
 * control and data interfaces, for a CDC entry only; 4 and 5, an
 * interrupt IN alone, and with an OUT. Each still matches the entry.
 */
static void test_device_shapes(void **state)
{
	struct hzrig_usb_id id;
	struct hzg_device_file d;
	bool iso = false;

	(void)state;
	assert_true(shaped(FTDI, 1, &id, &d));
	assert_int_equal(d.vendor, 0x0403);
	assert_int_equal(d.n_intf, 2);
	assert_int_equal(d.intf[0].n_ep, 6);
	assert_int_equal(d.intf[1].alt, 1);
	for (unsigned int e = 0; e < d.intf[1].n_ep; e++)
		iso |= (d.ep[d.intf[1].first_ep + e].attributes & USB_ENDPOINT_XFERTYPE_MASK) ==
		       USB_ENDPOINT_XFER_ISOC && (d.ep[d.intf[1].first_ep + e].address & 0x80);
	assert_true(iso);

	assert_true(shaped(FTDI, 2, &id, &d));
	assert_int_equal(d.n_iad, 1);
	assert_int_equal(d.iad[0].first, 1);
	assert_int_equal(d.iad[0].count, 3);
	assert_int_equal(d.intf[0].number, 0);
	assert_int_equal(d.intf[1].number, 1);
	assert_int_equal(d.n_intf, 1 + 3 * 2);
	/* an entry's interface number stays the matched one */
	assert_true(shaped(INTNUM, 2, &id, &d));
	assert_int_equal(d.iad[0].first, 2);
	assert_true(matches(&id, &d, &d.intf[2]));

	/* CDC: only for a communications entry */
	assert_false(shaped(FTDI, 3, &id, &d));
	assert_true(shaped(CLASS, 3, &id, &d));
	assert_int_equal(d.n_intf, 2);
	assert_true(matches(&id, &d, &d.intf[0]));
	assert_int_equal(d.intf[0].n_extra, 5 + 5 + 4 + 5);
	assert_int_equal(d.intf[0].extra[5 + 5 + 4 + 2], 0x06);	/* the union */
	assert_int_equal(d.intf[1].cls, USB_CLASS_CDC_DATA);
	assert_int_equal(d.intf[1].n_ep, 2);

	/* 4: one interrupt IN alone; 5: with an interrupt OUT; for any entry */
	assert_true(shaped(FTDI, 4, &id, &d));
	assert_int_equal(d.n_intf, 1);
	assert_int_equal(d.intf[0].n_ep, 1);
	assert_int_equal(d.ep[0].address, 0x81);
	assert_int_equal(d.ep[0].attributes & USB_ENDPOINT_XFERTYPE_MASK, USB_ENDPOINT_XFER_INT);
	assert_true(matches(&id, &d, &d.intf[0]));
	assert_true(shaped(INTNUM, 5, &id, &d));
	assert_int_equal(d.intf[d.n_intf - 1].n_ep, 2);
	assert_int_equal(d.ep[d.intf[d.n_intf - 1].first_ep + 1].address, 0x02);
	assert_true(matches(&id, &d, &d.intf[d.n_intf - 1]));

	/* no sixth shape, no shape 0 */
	assert_false(shaped(CLASS, HZRIG_SWEEP_SHAPES + 1, &id, &d));
	assert_false(shaped(CLASS, 0, &id, &d));
}

static void test_device_too_small(void **state)
{
	struct hzrig_usb_id id;
	char why[128], buf[64];

	(void)state;
	hzrig_usb_id_parse(FTDI, &id, why, sizeof(why));
	assert_int_equal(hzrig_usb_id_device(&id, FTDI, 0, buf, sizeof(buf)), 0);
	assert_int_equal(hzrig_usb_id_device(&id, FTDI, 0, buf, 0), 0);
}

static struct hzrig_site_wait wait_at(int hz, int arg, int64_t median_ns)
{
	struct hzrig_window w;
	struct hzrig_site_wait s = { .hz = hz, .timeout_arg = arg,
				     .median_ns = median_ns,
				     .allowance_ns = 2 * MS };

	assert_int_equal(hzrig_model_window(hz, arg, false, &w), 0);
	s.lo_ns = w.lo_ns;
	s.hi_ns = w.hi_ns;
	return s;
}

/*
 * ipheth's IPHETH_CTRL_TIMEOUT = 5 * HZ: 500 at HZ=100 (500 ms), 5000 at
 * HZ=1000 (5000..5008 ms: level 1 of the wheel, 8 ms granules).
 */
static void test_rule_flags_hz_based(void **state)
{
	struct hzrig_site_wait a = wait_at(100, 500, 503 * MS);
	struct hzrig_site_wait b = wait_at(1000, 5000, 5004 * MS);
	char why[320];

	(void)state;
	assert_true(hzrig_sweep_hz_dependent(&a, &b, why, sizeof(why)));
	assert_non_null(strstr(why, "more than"));
	assert_true(hzrig_sweep_hz_dependent(&b, &a, why, sizeof(why)));
}

/*
 * A driver that passes 500 ms at both: (500, 510] ms at HZ=100 (50
 * jiffies, level 0) and (500, 508] at HZ=1000 (500 jiffies, level 1).
 * Its waits differ by the phases and the noise alone.
 */
static void test_rule_spares_ms(void **state)
{
	struct hzrig_site_wait a = wait_at(100, 500, 509 * MS);
	struct hzrig_site_wait b = wait_at(1000, 500, 501 * MS);
	char why[320];

	(void)state;
	assert_int_equal(a.hi_ns - a.lo_ns, 10 * MS);
	assert_int_equal(b.hi_ns - b.lo_ns, 8 * MS);
	assert_false(hzrig_sweep_hz_dependent(&a, &b, why, sizeof(why)));
	assert_non_null(strstr(why, "within"));
}

/*
 * Waits that differ, but by less than the windows and the noise allow
 * (10 + 8 + 2 + 2 = 22 ms of room): not flagged; one nanosecond past the
 * room: flagged.
 */
/*
 * One helper, other requests at each HZ (the walk): timeouts not in
 * proportion to HZ are not one call's, and not judged HZ-dependent; a
 * count of jiffies is (5 * HZ: 500 and 5000).
 */
static void test_rule_other_requests(void **state)
{
	struct hzrig_site_wait a = { .hz = 100, .timeout_arg = 50, .median_ns = 60000000,
				     .lo_ns = 50000000, .hi_ns = 60000000,
				     .allowance_ns = 10000000 };
	struct hzrig_site_wait b = { .hz = 1000, .timeout_arg = 1000, .median_ns = 1033000000,
				     .lo_ns = 1000000000, .hi_ns = 1064000000,
				     .allowance_ns = 1000000 };
	char why[320];

	(void)state;
	assert_false(hzrig_sweep_hz_dependent(&a, &b, why, sizeof(why)));
	assert_non_null(strstr(why, "not in proportion to HZ"));
	a.timeout_arg = 100;	/* 1000 at HZ=1000 is 100 at HZ=100: HZ / 10 */
	assert_true(hzrig_sweep_hz_dependent(&a, &b, why, sizeof(why)));
}

static void test_rule_room_edge(void **state)
{
	/* HZ / 2 passed as milliseconds: 50 and 500, windows 10 and 8 ms wide */
	struct hzrig_site_wait a = wait_at(100, 50, 500 * MS);
	struct hzrig_site_wait b = wait_at(1000, 500, 522 * MS);
	char why[320];

	(void)state;
	assert_int_equal(a.hi_ns - a.lo_ns, 10 * MS);
	assert_int_equal(b.hi_ns - b.lo_ns, 8 * MS);
	assert_false(hzrig_sweep_hz_dependent(&a, &b, why, sizeof(why)));
	b.median_ns += 1;
	assert_true(hzrig_sweep_hz_dependent(&a, &b, why, sizeof(why)));
}

/*
 * The same timeout at both HZ, and one call late past the room
 * (appledisplay's 250 ms: 298.6 ms at HZ=100, 252.7 ms at HZ=1000): a
 * late call, not HZ; so too one nanosecond past the room.
 */
static void test_rule_same_timeout_late(void **state)
{
	struct hzrig_site_wait a = wait_at(100, 250, 298624 * 1000);
	struct hzrig_site_wait b = wait_at(1000, 250, 252661 * 1000);
	char why[320];

	(void)state;
	assert_false(hzrig_sweep_hz_dependent(&a, &b, why, sizeof(why)));
	assert_non_null(strstr(why, "came late"));
	assert_false(hzrig_sweep_hz_dependent(&b, &a, why, sizeof(why)));
	a = wait_at(100, 500, 500 * MS);
	b = wait_at(1000, 500, 522 * MS + 1);
	assert_false(hzrig_sweep_hz_dependent(&a, &b, why, sizeof(why)));
}


/*
 * One guest batch as initramfs/sweep.sh prints it (the trace lines as
 * ftrace prints kprobe events with stacks): ipheth's probe NAKed on bus
 * 1, ch341's usb_control_msg_recv() (which calls usb_control_msg())
 * answered on bus 2, the USB core's own enumeration request on bus 1, a
 * CR at a line end, the console's framing on one line, and a frame at a
 * function's first byte (+0x0, not a caller) in ipheth's stack.
 */
static const char BATCH[] =
	"boot noise before the batch\n"
	"sweep begin batch=0 size=32 k=2 devices=2 t0=2.00 settled_s=3 max_s=120\r\n"
	"file index=0 name=ipheth.device\n"
	"file index=1 name=ch341.device\n"
	"bind intf=1-0:1.0 driver=hub\n"
	"device name=1-1 vendor=05ac product=12a8\n"
	"device name=2-1 vendor=1a86 product=7523\n"
	"bind intf=2-1:1.0 driver=ch341\n"
	"modprobe module=ch341 rc=0 t=2.10\n"
	"modprobe module=ipheth rc=0 t=2.60\n"
	"rawdev=1 note=\"/etc/hzrig/sweep/ch341.device on dummy_udc.1\"\n"
	"rawdev=1 t_us=2050100 type=0xc0 request=0x5f value=0 index=0 length=8 action=answer\n"
	"rawdev=0 t_us=2100100 type=0xc0 request=0x00 value=0 index=2 length=64 action=nak\n"
	"usbmon t_us=1900000 id=0xffff888000000500 type=S xfer=2 ep=0x80 bus=1 dev=2 status=-115 setup=80,06,00,01,00,00,12,00\n"
	"usbmon t_us=1900300 id=0xffff888000000500 type=C xfer=2 ep=0x80 bus=1 dev=2 status=0\n"
	"usbmon t_us=2050000 id=0xffff888000002000 type=S xfer=2 ep=0x80 bus=2 dev=2 status=-115 setup=c0,5f,00,00,00,00,08,00\n"
	"usbmon t_us=2050400 id=0xffff888000002000 type=C xfer=2 ep=0x80 bus=2 dev=2 status=0\n"
	"usbmon t_us=2100000 id=0xffff888000001000 type=S xfer=2 ep=0x80 bus=1 dev=2 status=-115 setup=c0,00,00,00,02,00,40,00\n"
	"hzrig-sweep usbmon t_us=2606010 id=0xffff888000001000 type=C xfer=2 ep=0x80 bus=1 dev=2 status=-2\n"
	"usbmon end dropped=0\n"
	"trace      kworker/0:2-14      [000] .....     1.899900: ctl: (usb_control_msg+0x0/0x105) pipe=2147484288 req=6 type=128 timeout=5000 ip=arch_rethook_trampoline+0x0/0x4d\n"
	"trace      kworker/0:2-14      [000] .....     1.899910: <stack trace>\n"
	"trace  => usb_control_msg+0x1/0x105\n"
	"trace  => usb_get_device_descriptor+0x5a/0x90\n"
	"trace      kworker/0:2-14      [000] .....     1.899950: submit: (usb_submit_urb+0x0/0x536) urb=0xffff888000000500 ip=usb_start_wait_urb+0x5f/0x108\n"
	"trace      kworker/0:2-14      [000] .....     1.900400: ctl_ret: (usb_get_device_descriptor+0x5a/0x90 <- usb_control_msg) ret=18\n"
	"trace         modprobe-160     [000] .....     2.049900: ctl_recv: (usb_control_msg_recv+0x0/0xa0) timeout=1000 ip=arch_rethook_trampoline+0x0/0x4d\n"
	"trace         modprobe-160     [000] .....     2.049910: <stack trace>\n"
	"trace  => usb_control_msg_recv+0x1/0xa0\n"
	"trace  => ch341_control_in+0x3e/0x90 [ch341]\n"
	"trace  => ch341_attach+0x20/0x1c0 [ch341]\n"
	"trace  => usb_serial_probe+0x3a0/0x8c0 [usbserial]\n"
	"trace         modprobe-160     [000] .....     2.049920: ctl: (usb_control_msg+0x0/0x105) pipe=2147484288 req=95 type=192 timeout=1001 ip=arch_rethook_trampoline+0x0/0x4d\n"
	"trace         modprobe-160     [000] .....     2.049930: <stack trace>\n"
	"trace  => usb_control_msg+0x1/0x105\n"
	"trace  => usb_control_msg_recv+0x5c/0xa0\n"
	"trace  => ch341_control_in+0x3e/0x90 [ch341]\n"
	"trace         modprobe-160     [000] .....     2.049950: submit: (usb_submit_urb+0x0/0x536) urb=0xffff888000002000 ip=usb_start_wait_urb+0x5f/0x108\n"
	"trace         modprobe-160     [000] .....     2.050500: ctl_ret: (usb_control_msg_recv+0x5c/0xa0 <- usb_control_msg) ret=8\n"
	"trace         modprobe-160     [000] .....     2.050510: ctl_recv_ret: (ch341_control_in+0x3e/0x90 [ch341] <- usb_control_msg_recv) ret=0\n"
	"trace         modprobe-155     [000] .....     2.099900: ctl: (usb_control_msg+0x0/0x105) pipe=2147484288 req=0 type=192 timeout=500 ip=arch_rethook_trampoline+0x0/0x4d\n"
	"trace         modprobe-155     [000] .....     2.099910: <stack trace>\n"
	"trace  => usb_control_msg+0x1/0x105\n"
	"trace  => ipheth_tx_timeout+0x0/0x40 [ipheth]\n"
	"trace  => ipheth_probe+0x160/0x393 [ipheth]\n"
	"trace  => usb_probe_interface+0x138/0x189\n"
	"trace         modprobe-155     [000] .....     2.099950: submit: (usb_submit_urb+0x0/0x536) urb=0xffff888000001000 ip=usb_start_wait_urb+0x5f/0x108\n"
	"trace         modprobe-155     [000] d..1.     2.099990: timer_start: timer=00000000b8e1a2c4 function=process_timeout expires=4294667346 [timeout=50] cpu=0 idx=50 flags=\n"
	"trace      kworker/u2:0-9       [000] d..1.     2.300000: timer_start: timer=00000000b8e1a2d0 function=process_timeout expires=4294667317 [timeout=1] cpu=0 idx=1 flags=\n"
	"trace         modprobe-155     [000] .....     2.606100: ctl_ret: (ipheth_probe+0x160/0x393 [ipheth] <- usb_control_msg) ret=-110\n"
	"trace      hzrig-sweep-150     [000] .....     2.000100: tracing_mark_write+0x130/0x3ee: hzrig modprobe-begin module=ipheth\n"
	"trace      hzrig-sweep-150     [000] .....     2.612345: tracing_mark_write+0x130/0x3ee: hzrig modprobe-end module=ipheth rc=0\n"
	"sweep trace overrun=12\n"
	"sweep trace overrun=7\n"
	"sweep end\n";

static const struct hzrig_sweep_call *call_where(const struct hzrig_sweep_batch *b,
						 const char *prefix)
{
	for (size_t i = 0; i < b->ncall; i++)
		if (!strncmp(b->call[i].where, prefix, strlen(prefix)))
			return &b->call[i];
	return NULL;
}

static void test_batch_parse(void **state)
{
	struct hzrig_sweep_batch b;
	const struct hzrig_sweep_call *c;
	char why[160];

	(void)state;
	if (hzrig_sweep_batch_parse(BATCH, &b, why, sizeof(why)))
		fail_msg("%s", why);
	assert_true(b.complete);
	assert_int_equal(b.k, 2);
	assert_int_equal(b.ndrv, 2);
	assert_string_equal(b.drv[0].module, "ipheth");
	assert_int_equal(b.drv[0].bus, 1);
	assert_true(b.drv[0].enumerated);
	assert_false(b.drv[0].bound);
	/* the trace's marks, not uptime's 10 ms steps (2.60 - 2.00 s) */
	assert_int_equal(b.drv[0].probe_us, 612245);
	assert_int_equal(b.drv[1].probe_us, 100000);
	assert_int_equal(b.drv[0].nak, 1);
	assert_true(b.drv[1].bound);
	assert_int_equal(b.drv[1].answer, 1);
	assert_int_equal(b.usbmon_dropped, 0);
	assert_int_equal(b.unmatched_urbs, 0);
	/* the trace's events overwritten: the most the guest said */
	assert_int_equal(b.trace_overrun, 12);
	/* the core's enumeration, ch341's outer call and ipheth's: three */
	assert_int_equal(b.ncall, 3);

	c = call_where(&b, "ipheth_probe+0x160/0x393 [ipheth]");
	assert_non_null(c);
	assert_int_equal(c->kind, HZRIG_CALL_CONTROL);
	assert_int_equal(c->timeout_arg, 500);
	assert_int_equal(c->nchain, 1);
	assert_string_equal(c->module, "ipheth");
	assert_int_equal(c->bus, 1);
	assert_int_equal(c->urb_us, 506010);	/* usbmon's S to C, framed C */
	assert_int_equal(c->urb_status, -2);
	assert_string_equal(c->action, "nak");
	assert_true(c->returned);
	assert_int_equal(c->ret, -110);
	/* the timer its wait armed: the task's, while the call was open */
	assert_true(c->has_timer);
	assert_int_equal(c->timer.expires, 4294667346ULL);
	assert_int_equal(c->timer.timeout, 50);
	assert_int_equal(c->timer.t_ns, 2099990000LL);
	/* every process_timeout timer is a sighting of the grid */
	assert_int_equal(b.ntimers, 2);
	assert_int_equal(b.timers[1].pid, 9);

	/*
	 * The inner usb_control_msg() (its timeout made different here) is
	 * the outer call's: the outer timeout counts, and the inner URB.
	 */
	c = call_where(&b, "ch341_control_in+0x3e/0x90 [ch341]");
	assert_non_null(c);
	assert_int_equal(c->kind, HZRIG_CALL_CONTROL_RECV);
	assert_int_equal(c->timeout_arg, 1000);
	assert_int_equal(c->nchain, 3);
	assert_string_equal(c->chain[1], "ch341_attach+0x20/0x1c0 [ch341]");
	assert_string_equal(c->module, "ch341");
	assert_int_equal(c->urb_us, 400);
	assert_string_equal(c->action, "answer");
	assert_int_equal(c->ret, 0);
	assert_false(c->has_timer);	/* none in the trace */

	/* the core's own request: no module frame, so no driver's call */
	c = call_where(&b, "");
	assert_non_null(c);
	assert_int_equal(c->nchain, 0);
	hzrig_sweep_batch_free(&b);
}

/*
 * A batch of one device whose line @line (after a good "sweep begin") is
 * refused: -1, and the reason holds @said (NULL: any reason).
 */
static void assert_line_refused(const char *line, const char *said)
{
	struct hzrig_sweep_batch b;
	char text[512], why[160];

	snprintf(text, sizeof(text), "%s%s",
		 "sweep begin batch=0 size=1 k=2 devices=1 t0=1 settled_s=1 max_s=9\n", line);
	assert_int_equal(hzrig_sweep_batch_parse(text, &b, why, sizeof(why)), -1);
	if (said && !strstr(why, said))
		fail_msg("'%s' refused as '%s', not '%s'", line, why, said);
}

static void test_batch_refused(void **state)
{
	struct hzrig_sweep_batch b;
	char why[160];

	(void)state;
	assert_int_equal(hzrig_sweep_batch_parse("just a console\n", &b, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "no 'sweep begin'"));
	assert_int_equal(hzrig_sweep_batch_parse("sweep begin batch=0 size=32\n", &b, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "line 1"));
	assert_line_refused("file index=3 name=x.device\n", "line 2: 'file' needs index=0");
	assert_line_refused("usbmon t_us=1 id=0x1 type=S bus=1\n", "usbmon line lacks");
	assert_line_refused("trace   a-1 [000] ..... 1.000001: timer_start: timer=0 function=process_timeout expires=x [timeout=1]\n", "line 2: a timer_start event");
}

/*
 * The unplug pass: the batch says its delay, and rawdev's "unplug" line
 * marks the device unplugged under its NAKed request (which still counts
 * as the NAK it was); a batch from before the pass has no delay (0).
 */
static void test_batch_unplug(void **state)
{
	static const char text[] =
		"sweep begin batch=0 size=1 k=2 devices=1 t0=1.00 settled_s=3 max_s=60 unplug_ms=100\n"
		"file index=0 name=ipheth.device\n"
		"device name=1-1 vendor=05ac product=12a8\n"
		"rawdev=0 t_us=1100000 type=0xc0 request=0x00 value=0 index=2 length=64 action=nak\n"
		"rawdev=0 t_us=1200000 type=0xc0 request=0x00 value=0 index=2 length=64 action=unplug\n"
		"sweep end\n";
	struct hzrig_sweep_batch b;
	char why[160];

	(void)state;
	if (hzrig_sweep_batch_parse(text, &b, why, sizeof(why)))
		fail_msg("%s", why);
	assert_int_equal(b.unplug_ms, 100);
	assert_true(b.drv[0].unplugged);
	assert_int_equal(b.drv[0].nak, 1);
	hzrig_sweep_batch_free(&b);
	if (hzrig_sweep_batch_parse(BATCH, &b, why, sizeof(why)))
		fail_msg("%s", why);
	assert_int_equal(b.unplug_ms, 0);
	assert_false(b.drv[0].unplugged);
	hzrig_sweep_batch_free(&b);
	assert_int_equal(hzrig_sweep_batch_parse(
		"sweep begin batch=0 size=1 k=2 devices=1 t0=1 settled_s=1 max_s=9 unplug_ms=-5\n",
		&b, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "unplug_ms= is not 0..60000"));
}

/*
 * A kretprobe misses returns when many tasks wait at once: a task's next
 * usb_control_msg() entry while one is open is a new call (only _send,
 * _recv and usb_interrupt_msg() call another), not a nesting, however
 * many come (a whole-tree batch had one task with more than 8).
 */
static void test_batch_missed_returns(void **state)
{
	char text[8192];
	size_t o;
	struct hzrig_sweep_batch b;
	char why[160];

	(void)state;
	o = (size_t)snprintf(text, sizeof(text), "%s",
			     "sweep begin batch=0 size=1 k=2 devices=1 t0=1.00 settled_s=3 max_s=60\n"
			     "file index=0 name=foo.device\n");
	for (int i = 0; i < 12; i++)
		o += (size_t)snprintf(text + o, sizeof(text) - o,
			"trace         modprobe-155     [000] .....     2.%06d: ctl: (usb_control_msg+0x0/0x105) pipe=2147484288 req=0 type=192 timeout=%d ip=arch_rethook_trampoline+0x0/0x4d\n",
			i * 1000, 100 + i);
	snprintf(text + o, sizeof(text) - o, "sweep end\n");
	if (hzrig_sweep_batch_parse(text, &b, why, sizeof(why)))
		fail_msg("%s", why);
	assert_int_equal(b.ncall, 12);
	assert_int_equal(b.call[11].timeout_arg, 111);
	assert_false(b.call[0].returned);
	hzrig_sweep_batch_free(&b);
}

/*
 * Bulk and interrupt transfers: rawdev's usbmon watcher says what the
 * device did with each (within K: nak; after: the endpoint halted, stall),
 * and each call takes its endpoint's line at or after its submission; the
 * driver's counts take them as they take control requests.
 */
static void test_batch_bulk(void **state)
{
	static const char text[] =
		"sweep begin batch=0 size=1 k=1 devices=1 t0=1.00 settled_s=3 max_s=60\n"
		"file index=0 name=foo.device\n"
		"driver module=foo\n"
		"device name=1-1 vendor=1234 product=5678\n"
		"bind device=1-1:1.0 driver=foo\n"
		"usbmon t_us=2000000 id=0xffff888000003000 type=S xfer=3 ep=0x81 bus=1 dev=2 status=-115\n"
		"rawdev=0 t_us=2000900 ep=0x81 xfer=bulk action=nak\n"
		"usbmon t_us=3000100 id=0xffff888000003000 type=C xfer=3 ep=0x81 bus=1 dev=2 status=-2\n"
		"usbmon t_us=3001000 id=0xffff888000003100 type=S xfer=3 ep=0x81 bus=1 dev=2 status=-115\n"
		"rawdev=0 t_us=3001800 ep=0x81 xfer=bulk action=stall\n"
		"usbmon t_us=3003000 id=0xffff888000003100 type=C xfer=3 ep=0x81 bus=1 dev=2 status=-32\n"
		"trace         modprobe-155     [000] .....     1.999900: bulk: (usb_bulk_msg+0x0/0x105) pipe=3221259904 timeout=1000 ip=arch_rethook_trampoline+0x0/0x4d\n"
		"trace         modprobe-155     [000] .....     1.999910: <stack trace>\n"
		"trace  => usb_bulk_msg+0x1/0x105\n"
		"trace  => foo_probe+0x10/0x90 [foo]\n"
		"trace         modprobe-155     [000] .....     1.999950: submit: (usb_submit_urb+0x0/0x536) urb=0xffff888000003000 ip=usb_start_wait_urb+0x5f/0x108\n"
		"trace         modprobe-155     [000] .....     3.000200: bulk_ret: (foo_probe+0x10/0x90 [foo] <- usb_bulk_msg) ret=-110\n"
		"trace         modprobe-155     [000] .....     3.000900: bulk: (usb_bulk_msg+0x0/0x105) pipe=3221259904 timeout=1000 ip=arch_rethook_trampoline+0x0/0x4d\n"
		"trace         modprobe-155     [000] .....     3.000910: <stack trace>\n"
		"trace  => usb_bulk_msg+0x1/0x105\n"
		"trace  => foo_probe+0x20/0x90 [foo]\n"
		"trace         modprobe-155     [000] .....     3.000950: submit: (usb_submit_urb+0x0/0x536) urb=0xffff888000003100 ip=usb_start_wait_urb+0x5f/0x108\n"
		"trace         modprobe-155     [000] .....     3.003100: bulk_ret: (foo_probe+0x20/0x90 [foo] <- usb_bulk_msg) ret=-32\n"
		"sweep end\n";
	struct hzrig_sweep_batch b;
	const struct hzrig_sweep_call *c;
	char why[160];

	(void)state;
	if (hzrig_sweep_batch_parse(text, &b, why, sizeof(why)))
		fail_msg("%s", why);
	assert_int_equal(b.drv[0].nak, 1);
	assert_int_equal(b.drv[0].stall, 1);
	c = call_where(&b, "foo_probe+0x10/0x90 [foo]");
	assert_non_null(c);
	assert_int_equal(c->kind, HZRIG_CALL_BULK);
	assert_int_equal(c->ep, 0x81);
	assert_string_equal(c->action, "nak");
	assert_int_equal(c->urb_status, -2);
	c = call_where(&b, "foo_probe+0x20/0x90 [foo]");
	assert_non_null(c);
	assert_string_equal(c->action, "stall");
	assert_int_equal(c->urb_status, -32);
	assert_int_equal(c->urb_us, 2000);
	hzrig_sweep_batch_free(&b);
	/* an ep= that is not a bulk or interrupt endpoint is refused */
	assert_line_refused("rawdev=0 t_us=5 ep=0x80 xfer=bulk action=nak\n", "ep= is not a bulk or interrupt endpoint");
}

/*
 * A freed URB's address is reused at once: a driver that resubmits its
 * interrupt URB in a loop got, 1 ms before its clear-halt's entry, the
 * address the clear-halt's control URB then had. The control message takes
 * the URB with a setup packet, not the interrupt one in its slack. A
 * softirq's submit on a task's stack is not the task's call's (the call's
 * is the one usb_start_wait_urb() submits); a call that failed before its
 * URB reached the bus is counted apart.
 */
static void test_batch_urb_reused(void **state)
{
	static const char text[] =
		"sweep begin batch=0 size=1 k=1 devices=1 t0=1.00 settled_s=3 max_s=60\n"
		"file index=0 name=foo.device\n"
		"driver module=foo\n"
		"device name=1-1 vendor=1234 product=5678\n"
		"bind device=1-1:1.0 driver=foo\n"
		"usbmon t_us=1999000 id=0xffff888000004000 type=S xfer=1 ep=0x81 bus=1 dev=2 status=-115\n"
		"rawdev=0 t_us=1999100 ep=0x81 xfer=int action=stall\n"
		"usbmon t_us=1999200 id=0xffff888000004000 type=C xfer=1 ep=0x81 bus=1 dev=2 status=-32\n"
		"trace         kworker-15     [000] .....     2.000000: ctl: (usb_control_msg+0x0/0x105) pipe=2147483648 req=1 type=2 timeout=5000 ip=arch_rethook_trampoline+0x0/0x4d\n"
		"trace         kworker-15     [000] .....     2.000010: <stack trace>\n"
		"trace  => usb_control_msg+0x1/0x105\n"
		"trace  => foo_clear+0x10/0x50 [foo]\n"
		"trace         kworker-15     [000] .....     2.000050: submit: (usb_submit_urb+0x0/0x536) urb=0xffff888000004000 ip=usb_start_wait_urb+0x5f/0x108\n"
		"usbmon t_us=2000060 id=0xffff888000004000 type=S xfer=2 ep=0x00 bus=1 dev=2 status=-115 setup=02,01,00,00,81,00,00,00\n"
		"usbmon t_us=2000300 id=0xffff888000004000 type=C xfer=2 ep=0x00 bus=1 dev=2 status=0\n"
		"trace         kworker-15     [000] .....     2.000400: ctl_ret: (foo_clear+0x10/0x50 [foo] <- usb_control_msg) ret=0\n"
		/* a softirq on its stack resubmits the hub's status URB */
		"trace         kworker-15     [000] .....     3.000000: ctl: (usb_control_msg+0x0/0x105) pipe=2147483648 req=1 type=2 timeout=5000 ip=arch_rethook_trampoline+0x0/0x4d\n"
		"trace         kworker-15     [000] .....     3.000010: <stack trace>\n"
		"trace  => usb_control_msg+0x1/0x105\n"
		"trace  => foo_clear+0x20/0x50 [foo]\n"
		/* under an int3 kprobe a softirq's submit looks like the task's */
		"trace         kworker-15     [000] d.Z1.     3.000040: submit: (usb_submit_urb+0x0/0x536) urb=0xffff888000008000 ip=ld_usb_interrupt_in_callback+0x32c/0x408 [ldusb]\n"
		"usbmon t_us=3000045 id=0xffff888000008000 type=S xfer=1 ep=0x81 bus=1 dev=2 status=-115\n"
		"trace         kworker-15     [000] .....     3.000050: submit: (usb_submit_urb+0x0/0x536) urb=0xffff888000005000 ip=usb_start_wait_urb+0x5f/0x108\n"
		"usbmon t_us=3000060 id=0xffff888000005000 type=S xfer=2 ep=0x00 bus=1 dev=2 status=-115 setup=02,01,00,00,81,00,00,00\n"
		"trace         kworker-15     [000] d.s..     3.000100: submit: (usb_submit_urb+0x0/0x536) urb=0xffff888000006000 ip=hub_resubmit_irq_urb+0x1f/0x66\n"
		"usbmon t_us=3000110 id=0xffff888000006000 type=S xfer=1 ep=0x81 bus=1 dev=1 status=-115\n"
		"usbmon t_us=3000300 id=0xffff888000005000 type=C xfer=2 ep=0x00 bus=1 dev=2 status=0\n"
		"trace         kworker-15     [000] .....     3.000400: ctl_ret: (foo_clear+0x20/0x50 [foo] <- usb_control_msg) ret=0\n"
		/* refused before the bus: the device was away (an int3 kprobe) */
		"trace         stty-20     [000] .....     4.000000: ctl: (usb_control_msg+0x0/0x105) pipe=2147483648 req=34 type=33 timeout=100 ip=arch_rethook_trampoline+0x0/0x4d\n"
		"trace         stty-20     [000] .....     4.000010: <stack trace>\n"
		"trace  => usb_control_msg+0x1/0x105\n"
		"trace  => foo_lines+0x20/0x50 [foo]\n"
		"trace         stty-20     [000] d.Z..     4.000050: submit: (usb_submit_urb+0x0/0x536) urb=0xffff888000007000 ip=usb_start_wait_urb+0x5f/0x108\n"
		"trace         stty-20     [000] .....     4.000070: ctl_ret: (foo_lines+0x20/0x50 [foo] <- usb_control_msg) ret=-19\n"
		/*
		 * the refused call's URB, freed, is the next call's, whose
		 * submission comes within the slack after the refused one's
		 * return: it is the next call's, not the refused one's
		 */
		"trace         kworker-15     [000] .....     4.000500: ctl: (usb_control_msg+0x0/0x105) pipe=2147483648 req=1 type=35 timeout=1000 ip=arch_rethook_trampoline+0x0/0x4d\n"
		"trace         kworker-15     [000] .....     4.000510: <stack trace>\n"
		"trace  => usb_control_msg+0x1/0x105\n"
		"trace  => foo_port+0x20/0x50 [foo]\n"
		"trace         kworker-15     [000] .....     4.001000: submit: (usb_submit_urb+0x0/0x536) urb=0xffff888000007000 ip=usb_start_wait_urb+0x5f/0x108\n"
		"usbmon t_us=4000990 id=0xffff888000007000 type=S xfer=2 ep=0x00 bus=1 dev=2 status=-115 setup=23,01,14,00,01,00,00,00\n"
		"usbmon t_us=4001100 id=0xffff888000007000 type=C xfer=2 ep=0x00 bus=1 dev=2 status=0\n"
		"trace         kworker-15     [000] .....     4.001200: ctl_ret: (foo_port+0x20/0x50 [foo] <- usb_control_msg) ret=0\n"
		"sweep end\n";
	struct hzrig_sweep_batch b;
	const struct hzrig_sweep_call *c;
	char why[160];

	(void)state;
	if (hzrig_sweep_batch_parse(text, &b, why, sizeof(why)))
		fail_msg("%s", why);
	c = call_where(&b, "foo_clear+0x10/0x50 [foo]");
	assert_non_null(c);
	assert_true(c->has_setup);
	assert_int_equal(c->ep, 0);
	assert_int_equal(c->urb_status, 0);
	assert_int_equal(c->urb_us, 240);
	/* dummy_hcd answers a clear-halt itself: the device said nothing */
	assert_string_equal(c->action, "");
	c = call_where(&b, "foo_clear+0x20/0x50 [foo]");
	assert_non_null(c);
	assert_true(c->urb == 0xffff888000005000ULL);
	assert_true(c->has_setup);
	assert_int_equal(c->urb_us, 240);
	c = call_where(&b, "foo_lines+0x20/0x50 [foo]");
	assert_non_null(c);
	assert_int_equal(c->ret, -19);
	/* an int3 kprobe's event says NMI ("d.Z.."): still the task's own */
	assert_true(c->urb == 0xffff888000007000ULL);
	assert_int_equal(c->urb_us, -1);
	c = call_where(&b, "foo_port+0x20/0x50 [foo]");
	assert_non_null(c);
	assert_true(c->has_setup);
	assert_int_equal(c->submit_us, 4000990);
	assert_int_equal(c->urb_us, 110);
	assert_int_equal(b.unmatched_urbs, 0);
	assert_int_equal(b.refused_urbs, 1);
	hzrig_sweep_batch_free(&b);
}

/*
 * A call whose own submission usbmon lost (its ring overran) is left
 * without an URB, not given the next one its freed address went to: the
 * hub's port status on a root hub, a new device's SET_ADDRESS at the
 * default address, or another driver's request (its frames name their
 * own driver). A call whose submission was seen is matched as before.
 */
static void test_batch_urb_lost(void **state)
{
	static const char text[] =
		"sweep begin batch=0 size=2 k=1 devices=2 t0=1.00 settled_s=3 max_s=60\n"
		"file index=0 name=foo.device\n"
		"file index=1 name=bar.device\n"
		"device name=1-1 vendor=1234 product=5678\n"
		"device name=2-1 vendor=1234 product=5679\n"
		/* foo's NAKed read: its S lost; the root hub's port status next */
		"trace         kworker-15     [000] .....     2.000000: ctl: (usb_control_msg+0x0/0x105) pipe=2147484288 req=1 type=192 timeout=500 ip=arch_rethook_trampoline+0x0/0x4d\n"
		"trace         kworker-15     [000] .....     2.000010: <stack trace>\n"
		"trace  => usb_control_msg+0x1/0x105\n"
		"trace  => foo_read+0x10/0x50 [foo]\n"
		"trace         kworker-15     [000] .....     2.000050: submit: (usb_submit_urb+0x0/0x536) urb=0xffff888000004000 ip=usb_start_wait_urb+0x5f/0x108\n"
		"trace         kworker-15     [000] .....     2.505000: ctl_ret: (foo_read+0x10/0x50 [foo] <- usb_control_msg) ret=-110\n"
		"usbmon t_us=2505100 id=0xffff888000004000 type=S xfer=2 ep=0x80 bus=1 dev=1 status=-115 setup=a3,00,00,00,01,00,04,00\n"
		"usbmon t_us=2505200 id=0xffff888000004000 type=C xfer=2 ep=0x80 bus=1 dev=1 status=0\n"
		/* again: a new device's SET_ADDRESS at the default address */
		"trace         kworker-15     [000] .....     3.000000: ctl: (usb_control_msg+0x0/0x105) pipe=2147484288 req=1 type=192 timeout=500 ip=arch_rethook_trampoline+0x0/0x4d\n"
		"trace         kworker-15     [000] .....     3.000010: <stack trace>\n"
		"trace  => usb_control_msg+0x1/0x105\n"
		"trace  => foo_read+0x20/0x50 [foo]\n"
		"trace         kworker-15     [000] .....     3.000050: submit: (usb_submit_urb+0x0/0x536) urb=0xffff888000005000 ip=usb_start_wait_urb+0x5f/0x108\n"
		"trace         kworker-15     [000] .....     3.505000: ctl_ret: (foo_read+0x20/0x50 [foo] <- usb_control_msg) ret=-110\n"
		"usbmon t_us=3505100 id=0xffff888000005000 type=S xfer=2 ep=0x00 bus=1 dev=0 status=-115 setup=00,05,04,00,00,00,00,00\n"
		/* again: bar's request on bus 2 */
		"trace         kworker-15     [000] .....     4.000000: ctl: (usb_control_msg+0x0/0x105) pipe=2147484288 req=1 type=192 timeout=500 ip=arch_rethook_trampoline+0x0/0x4d\n"
		"trace         kworker-15     [000] .....     4.000010: <stack trace>\n"
		"trace  => usb_control_msg+0x1/0x105\n"
		"trace  => foo_read+0x30/0x50 [foo]\n"
		"trace         kworker-15     [000] .....     4.000050: submit: (usb_submit_urb+0x0/0x536) urb=0xffff888000006000 ip=usb_start_wait_urb+0x5f/0x108\n"
		"trace         kworker-15     [000] .....     4.505000: ctl_ret: (foo_read+0x30/0x50 [foo] <- usb_control_msg) ret=-110\n"
		"usbmon t_us=4505100 id=0xffff888000006000 type=S xfer=2 ep=0x80 bus=2 dev=2 status=-115 setup=c0,07,00,00,00,00,01,00\n"
		/* foo's own, seen: matched */
		"trace         kworker-15     [000] .....     5.000000: ctl: (usb_control_msg+0x0/0x105) pipe=2147484288 req=1 type=192 timeout=500 ip=arch_rethook_trampoline+0x0/0x4d\n"
		"trace         kworker-15     [000] .....     5.000010: <stack trace>\n"
		"trace  => usb_control_msg+0x1/0x105\n"
		"trace  => foo_read+0x40/0x50 [foo]\n"
		"trace         kworker-15     [000] .....     5.000050: submit: (usb_submit_urb+0x0/0x536) urb=0xffff888000007000 ip=usb_start_wait_urb+0x5f/0x108\n"
		"usbmon t_us=5000060 id=0xffff888000007000 type=S xfer=2 ep=0x80 bus=1 dev=2 status=-115 setup=c0,01,00,00,00,00,01,00\n"
		"usbmon t_us=5504900 id=0xffff888000007000 type=C xfer=2 ep=0x80 bus=1 dev=2 status=-2\n"
		"trace         kworker-15     [000] .....     5.505000: ctl_ret: (foo_read+0x40/0x50 [foo] <- usb_control_msg) ret=-110\n"
		"sweep end\n";
	static const char *const lost[] = {
		"foo_read+0x10/0x50 [foo]", "foo_read+0x20/0x50 [foo]", "foo_read+0x30/0x50 [foo]",
	};
	struct hzrig_sweep_batch b;
	const struct hzrig_sweep_call *c;
	char why[160];

	(void)state;
	if (hzrig_sweep_batch_parse(text, &b, why, sizeof(why)))
		fail_msg("%s", why);
	for (size_t i = 0; i < sizeof(lost) / sizeof(lost[0]); i++) {
		c = call_where(&b, lost[i]);
		assert_non_null(c);
		if (c->bus || c->has_setup || c->module[0])
			fail_msg("%s took bus %d's URB (dev %d), driver '%s'", lost[i], c->bus, c->dev,
				 c->module);
	}
	c = call_where(&b, "foo_read+0x40/0x50 [foo]");
	assert_non_null(c);
	assert_int_equal(c->bus, 1);
	assert_int_equal(c->dev, 2);
	assert_string_equal(c->module, "foo");
	assert_int_equal(c->urb_us, 504840);
	assert_int_equal(b.unmatched_urbs, 3);
	hzrig_sweep_batch_free(&b);
}

/*
 * More tasks than the parser keeps slots for made calls, one after
 * another (the opener and the walk run hundreds of processes in a batch):
 * a task with no call open gives its slot up, and no call is lost.
 */
static void test_many_tasks(void **state)
{
	size_t cap = 1 << 20, len = 0;
	char *text = malloc(cap), why[160];
	struct hzrig_sweep_batch b;

	(void)state;
	assert_non_null(text);
	len += (size_t)snprintf(text + len, cap - len,
		"sweep begin batch=0 size=1 k=2 devices=1 t0=1.00 settled_s=3 max_s=60\n"
		"file index=0 name=foo.device\n");
	for (int i = 0; i < 600; i++) {
		double t = 2.0 + i * 0.001;

		len += (size_t)snprintf(text + len, cap - len,
			"trace  stty-%d  [000] .....  %.6f: ctl: (usb_control_msg+0x0/0x105) pipe=2147483648 req=34 type=33 timeout=100 ip=arch_rethook_trampoline+0x0/0x4d\n"
			"trace  stty-%d  [000] .....  %.6f: <stack trace>\n"
			"trace  => usb_control_msg+0x1/0x105\n"
			"trace  => foo_lines+0x20/0x50 [foo]\n"
			"trace  stty-%d  [000] .....  %.6f: ctl_ret: (foo_lines+0x20/0x50 [foo] <- usb_control_msg) ret=-19\n",
			1000 + i, t, 1000 + i, t + 0.0001, 1000 + i, t + 0.0005);
		assert_true(len < cap);
	}
	snprintf(text + len, cap - len, "sweep end\n");
	if (hzrig_sweep_batch_parse(text, &b, why, sizeof(why)))
		fail_msg("%s", why);
	assert_int_equal(b.ncall, 600);
	assert_int_equal(b.call[599].ret, -19);
	assert_true(b.call[599].returned);
	assert_int_equal(b.call[599].timeout_arg, 100);
	hzrig_sweep_batch_free(&b);
	free(text);
}

/*
 * The unplug pass walks: each "walk=replug pass=P" line says when pass P
 * began, and a kernel report is put down to the request of the pass that
 * was on at its time (its excerpt's first timestamp).
 */
static void test_walk_passes(void **state)
{
	static const char text[] =
		"sweep begin batch=0 size=1 k=2 devices=1 t0=1.00 settled_s=3 max_s=60 unplug_ms=100 walk=6\n"
		"file index=0 name=foo.device\n"
		"rawdev=0 t_us=1500000 walk=nak pass=1 request=1\n"
		"rawdev=0 t_us=2000000 walk=replug pass=2\n"
		"rawdev=0 t_us=2500000 walk=nak pass=2 request=7\n"
		"rawdev=0 t_us=5000000 walk=replug pass=3\n"
		"rawdev=0 t_us=8000000 walk=done passes=3\n"
		"sweep end\n";
	/*
	 * a shape whose trial got no further (its walk done at once), then
	 * one walked from pass 1 for two passes: the longest walk is the
	 * driver's, the last shape its shape
	 */
	static const char shapes[] =
		"sweep begin batch=0 size=1 k=2 devices=1 t0=1.00 settled_s=3 max_s=60 walk=6\n"
		"file index=0 name=foo.device\n"
		"rawdev=0 t_us=2000000 walk=replug pass=2\n"
		"rawdev=0 t_us=3000000 walk=replug pass=3\n"
		"rawdev=0 t_us=4000000 walk=done passes=3\n"
		"rawdev=0 t_us=5000000 shape=1\n"
		"rawdev=0 t_us=6000000 walk=done passes=0\n"
		"rawdev=0 t_us=7000000 shape=2\n"
		"rawdev=0 t_us=8000000 walk=replug pass=1\n"
		"rawdev=0 t_us=9000000 walk=replug pass=2\n"
		"rawdev=0 t_us=9500000 walk=done passes=2\n"
		"sweep end\n";
	struct hzrig_sweep_batch b;
	char why[160];

	(void)state;
	if (hzrig_sweep_batch_parse(shapes, &b, why, sizeof(why)))
		fail_msg("%s", why);
	assert_int_equal(b.drv[0].walk_passes, 3);
	assert_int_equal(b.drv[0].shape, 2);
	hzrig_sweep_batch_free(&b);
	if (hzrig_sweep_batch_parse(text, &b, why, sizeof(why)))
		fail_msg("%s", why);
	assert_int_equal(b.walk, 6);
	assert_int_equal(b.unplug_ms, 100);
	assert_int_equal(b.drv[0].walk_passes, 3);
	assert_int_equal(hzrig_sweep_pass_at(&b.drv[0], 1500000), 1);
	assert_int_equal(hzrig_sweep_pass_at(&b.drv[0], 2000000), 2);
	assert_int_equal(hzrig_sweep_pass_at(&b.drv[0], 4999999), 2);
	assert_int_equal(hzrig_sweep_pass_at(&b.drv[0], 9000000), 3);
	/*
	 * the request each pass NAKed: its walk=nak line's (round 1 of the
	 * walk NAKs by kind: pass 2 NAKed request 7); pass 3 said none
	 */
	assert_int_equal(hzrig_sweep_request_at(&b.drv[0], 1500000), 1);
	assert_int_equal(hzrig_sweep_request_at(&b.drv[0], 4999999), 7);
	assert_int_equal(hzrig_sweep_request_at(&b.drv[0], 9000000), 3);
	hzrig_sweep_batch_free(&b);
	/* a walk=nak line without its numbers, or out of range: refused */
	assert_line_refused("rawdev=0 t_us=1 walk=nak pass=1\n", "walk=nak");
	assert_line_refused("rawdev=0 t_us=1 walk=nak request=3\n", "walk=nak");
	assert_line_refused("rawdev=0 t_us=1 walk=nak pass=65 request=3\n", "walk=nak");
	assert_line_refused("rawdev=0 t_us=1 walk=nak pass=1 request=0\n", "walk=nak");
	assert_line_refused("rawdev=0 t_us=1 walk=nak pass=1 request=1000001\n", "walk=nak");
	/* a report's time: its first timestamp, blanks in it or not */
	assert_int_equal(hzrig_sweep_report_us(
		"------------[ cut here ]------------\n"
		"[    5.250001] WARNING: CPU: 0 PID: 7 at drivers/usb/core/urb.c:1\n"
		"[    5.250101] Modules linked in: foo\n"), 5250001);
	assert_int_equal(hzrig_sweep_report_us("[12345.000002] BUG: x\n"), 12345000002LL);
	assert_int_equal(hzrig_sweep_report_us("BUG: no time\n[ cut here ]\n"), -1);
	assert_int_equal(hzrig_sweep_report_us(""), -1);
	/* a replug line out of range, or without its time, is refused */
	assert_line_refused("rawdev=0 t_us=5 walk=replug pass=65\n", "pass= 1..64");
	assert_line_refused("rawdev=0 t_us=5 walk=replug pass=0\n", "pass= 1..64");
	assert_line_refused("rawdev=0 walk=replug pass=2\n", NULL);
}

/*
 * A kernel report is the driver's when a frame of its stack is in the
 * driver's module; a module whose name another one's ends with, or one
 * named only in "Modules linked in", is not.
 */
static void test_report_names(void **state)
{
	static const char kasan[] =
		"[   12.000000] BUG: KASAN: slab-use-after-free in ipheth_rcvbulk_callback+0x40/0x2a0 [ipheth]\r\n"
		"[   12.000001] Read of size 8 at addr ffff888003a1b000 by task swapper/0/0\n"
		"[   12.000002] Call Trace:\n"
		"[   12.000003]  <IRQ>\n"
		"[   12.000004]  ipheth_rcvbulk_callback+0x40/0x2a0 [ipheth]\r\n"
		"[   12.000005]  __usb_hcd_giveback_urb+0x9a/0x130\n";
	static const char linked[] =
		"[   13.000000] WARNING: CPU: 0 PID: 1 at kernel/workqueue.c:3066 __flush_work+0x1/0x2\n"
		"[   13.000001] Modules linked in: ipheth usbnet\n"
		"[   13.000002]  __flush_work+0x1/0x2\n"
		"[   13.000003]  my_ipheth+0x1/0x2 [my_ipheth]\n";

	/* the sweep's prism2_usb crash: no frame of its own, its work item */
	static const char work[] =
		"[    5.760472] BUG: kernel NULL pointer dereference, address: 00000000000000c8\r\n"
		"[    5.762357] Workqueue: events hfa384x_usb_defer [prism2_usb]\r\n"
		"[    5.762903] RIP: 0010:__netif_schedule+0x0/0x44\r\n"
		"[    5.765735]  ? netif_tx_wake_queue+0x14/0x15\r\n"
		"[    5.766121] Modules linked in: r8152(+) quatech2(+) prism2_usb\r\n";

	(void)state;
	assert_true(hzrig_sweep_report_names(work, "prism2_usb"));
	assert_false(hzrig_sweep_report_names(work, "r8152"));
	assert_true(hzrig_sweep_report_names(kasan, "ipheth"));
	assert_false(hzrig_sweep_report_names(kasan, "usbnet"));
	assert_false(hzrig_sweep_report_names(linked, "ipheth"));
	assert_true(hzrig_sweep_report_names(linked, "my_ipheth"));
	assert_false(hzrig_sweep_report_names(kasan, ""));
}

/*
 * A streamed batch (initramfs/sweep.sh with hzrig-stream): its lines come
 * as they were made, interleaved, with heartbeats; settled and t0 are
 * lines of their own. One whose guest died has no "sweep end" and may end
 * in half a line, which is not read; what came before it all is.
 */
static const char STREAMED[] =
	"sweep begin batch=0 size=32 k=2 devices=2 max_s=240 unplug_ms=0 stream=1\n"
	"file index=0 name=hzrig_sweeptest.device\n"
	"file index=1 name=ch341.device\n"
	"sweep alive t_us=1500000\n"
	"device name=1-1 vendor=1209 product=0001\n"
	"device name=2-1 vendor=1a86 product=7523\n"
	"sweep t0 t=2.000000\n"
	"trace         modprobe-155     [000] .....     2.099900: ctl: (usb_control_msg+0x0/0x105) pipe=2147484288 req=1 type=192 timeout=300 ip=arch_rethook_trampoline+0x0/0x4d\n"
	"rawdev=0 t_us=2100100 type=0xc0 request=0x01 value=0 index=0 length=8 action=nak\n"
	"trace         modprobe-155     [000] .....     2.099910: <stack trace>\n"
	"sweep alive t_us=2500000\n"
	"trace  => usb_control_msg+0x1/0x105\n"
	"trace  => sweeptest_probe+0x60/0x300 [hzrig_sweeptest]\n"
	"usbmon t_us=2100000 id=0xffff888000001000 type=S xfer=2 ep=0x80 bus=1 dev=2 status=-115 setup=c0,01,00,00,00,00,08,00\n"
	"trace         modprobe-155     [000] .....     2.099950: submit: (usb_submit_urb+0x0/0x536) urb=0xffff888000001000 ip=usb_start_wait_urb+0x5f/0x108\n"
	"usbmon t_us=2406010 id=0xffff888000001000 type=C xfer=2 ep=0x80 bus=1 dev=2 status=-2\n"
	"trace         modprobe-155     [000] .....     2.406100: ctl_ret: (sweeptest_probe+0x60/0x300 [hzrig_sweeptest] <- usb_control_msg) ret=-110\n"
	"trace      hzrig-sweep-150     [000] .....     2.000100: tracing_mark_write+0x130/0x3ee: hzrig modprobe-begin module=hzrig_sweeptest\n"
	"trace      hzrig-sweep-150     [000] .....     2.500000: tracing_mark_write+0x130/0x3ee: hzrig modprobe-end module=hzrig_sweeptest rc=0\n"
	"modprobe module=hzrig_sweeptest rc=0 t=2.51\n"
	"bind intf=1-1:1.0 driver=hzrig_sweeptest\n"
	"open module=hzrig_sweeptest bus=1 entry=tty:ttyUSB0 rc=0 t=2.6\n"
	"open module=nobody bus=9 entry=net:eth0 rc=0 t=2.6\n"
	"sweep alive t_us=3500000\n"
	"rawdev=0 t_us=5600000 contain=loop count=812 since_us=3000000 ep=0x83 clear_halts=406\n"
	"sweep alive t_us=6500000\n"
	"usbmon t_us=6600000 id=0xffff8880000";

static void test_batch_streamed(void **state)
{
	struct hzrig_sweep_batch b;
	const struct hzrig_sweep_call *c;
	char why[160], *text;

	(void)state;
	/* cut mid-line: the guest died; what came is kept */
	if (hzrig_sweep_batch_parse(STREAMED, &b, why, sizeof(why)))
		fail_msg("%s", why);
	assert_false(b.complete);
	assert_true(b.streamed);
	assert_true(b.cut_line);
	assert_int_equal(b.last_alive_us, 6500000);
	assert_int_equal(b.ndrv, 2);
	assert_true(b.drv[0].bound);
	assert_true(b.drv[0].modprobe_done);
	assert_int_equal(b.drv[0].end_mark_us, 2500000);
	/* the stack came after a heartbeat, still its event's */
	c = call_where(&b, "sweeptest_probe+0x60/0x300 [hzrig_sweeptest]");
	assert_non_null(c);
	assert_int_equal(c->timeout_arg, 300);
	assert_int_equal(c->urb_us, 306010);
	assert_string_equal(c->action, "nak");
	assert_string_equal(b.drv[0].contain, "loop");
	assert_int_equal(b.drv[0].contain_count, 812);
	assert_int_equal(b.drv[0].contain_since_us, 3000000);
	assert_int_equal(b.drv[0].contain_us, 5600000);
	assert_int_equal(b.drv[0].contain_ep, 0x83);
	assert_int_equal(b.drv[0].contain_clear_halts, 406);
	assert_string_equal(b.drv[1].contain, "");
	/* the entry the guest used once it bound; another module's is not its */
	assert_int_equal(b.drv[0].nopened, 1);
	assert_string_equal(b.drv[0].opened[0], "tty:ttyUSB0 rc=0");
	assert_int_equal(b.drv[1].nopened, 0);
	hzrig_sweep_batch_free(&b);

	/* settled, then the end: complete, nothing cut */
	text = malloc(sizeof(STREAMED) + 256);
	assert_non_null(text);
	sprintf(text, "%.*s\nsweep settled s=7\nsweep end\n",
		(int)(strrchr(STREAMED, '\n') - STREAMED), STREAMED);
	if (hzrig_sweep_batch_parse(text, &b, why, sizeof(why)))
		fail_msg("%s", why);
	assert_true(b.complete);
	assert_false(b.cut_line);
	assert_int_equal(b.settled_s, 7);
	hzrig_sweep_batch_free(&b);

	/*
	 * A streamed batch's line that is not whole (bytes the serial line
	 * lost) is skipped and counted, the first one's reason kept; the
	 * lines around it are read.
	 */
	sprintf(text, "%.*s\nrawdev=0 t_us=5 contain=spin count=1 since_us=1\n"
		"rawdev=0 t_us=5 contain=loop count=1 since_us=9\n"
		"open module=x entry=tty rc=0\nsweep trace overrun=\nsweep trace overrun=-3\n"
		"sweep trace overrun=4\nsweep settled s=9\nsweep end\n",
		(int)(strrchr(STREAMED, '\n') - STREAMED), STREAMED);
	if (hzrig_sweep_batch_parse(text, &b, why, sizeof(why)))
		fail_msg("%s", why);
	assert_int_equal(b.bad_lines, 5);
	assert_non_null(strstr(b.bad_why, "contain="));
	assert_int_equal(b.settled_s, 9);
	/* an overrun that is not a count is a broken line; the good one is read */
	assert_int_equal(b.trace_overrun, 4);
	assert_true(b.complete);
	hzrig_sweep_batch_free(&b);
	/* no overrun said (an older guest): unknown, not 0 */
	if (hzrig_sweep_batch_parse(STREAMED, &b, why, sizeof(why)))
		fail_msg("%s", why);
	assert_int_equal(b.trace_overrun, -1);
	hzrig_sweep_batch_free(&b);
	/* an unstreamed batch is read as it was: a cut last line is an error */
	assert_int_equal(hzrig_sweep_batch_parse(
		"sweep begin batch=0 size=32 k=2 settled_s=3 max_s=240\n"
		"usbmon t_us=6600000 id=0xffff8880000", &b, why, sizeof(why)), -1);
	/* nor does a streamed one lack settled_s= at its begin */
	assert_int_equal(hzrig_sweep_batch_parse(
		"sweep begin batch=0 size=32 k=2 max_s=240\n", &b, why, sizeof(why)), -1);
	free(text);
}

/* The small sweep's sweep.json (tests/data/sweep/small-100), its text and loaded. */
static char *small_sweep(struct hzrig_sweep_run *r, size_t *len)
{
	char why[256], *text;

	text = hzrig_in_slurp(DATA_DIR "/sweep/small-100/sweep.json", 1 << 24, len, why, sizeof(why));
	assert_non_null(text);
	if (hzrig_sweep_load(text, r, why, sizeof(why)))
		fail_msg("%s", why);
	return text;
}

/*
 * A driver's diagnosis and a batch's end in sweep.json: read when there,
 * absent in older files; the outcomes that need one must carry it, and
 * neither may hold a control character.
 */
static void test_load_diagnosis(void **state)
{
	struct hzrig_sweep_run r;
	char *text, *edited, why[256];
	const char *at, *bat;
	size_t len;

	(void)state;
	text = small_sweep(&r, &len);
	assert_string_equal(r.drivers[0].diagnosis, "");
	assert_int_equal(r.batches[0].last_alive_ms, HZRIG_ABSENT);
	hzrig_sweep_run_free(&r);

	at = strstr(text, "\"outcome\":");
	bat = strstr(text, "\"complete\":");
	assert_non_null(at);
	assert_non_null(bat);
	assert_true(bat < at);
	edited = malloc(len + 512);
	assert_non_null(edited);
#define EDIT(batch_ins, drv_ins)						\
	sprintf(edited, "%.*s%s%.*s%s\"was\":%s", (int)(bat - text), text, batch_ins,	\
		(int)(at - bat), bat, drv_ins, at + strlen("\"outcome\":"))
	EDIT("\"ended\": \"hung\", \"last_alive_ms\": 61234, ",
	     "\"diagnosis\": \"looped after probe on STALL / clear-halt: 812 refusals\", \"outcome\": \"contained\", ");
	if (hzrig_sweep_load(edited, &r, why, sizeof(why)))
		fail_msg("%s", why);
	assert_string_equal(r.drivers[0].outcome, "contained");
	assert_string_equal(r.drivers[0].diagnosis,
			    "looped after probe on STALL / clear-halt: 812 refusals");
	assert_string_equal(r.batches[0].ended, "hung");
	assert_int_equal(r.batches[0].last_alive_ms, 61234);
	hzrig_sweep_run_free(&r);

	EDIT("", "\"diagnosis\": null, \"outcome\": \"hung the guest\", ");
	assert_int_equal(hzrig_sweep_load(edited, &r, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "drivers[0].outcome: 'hung the guest' without"));
	EDIT("", "\"diagnosis\": \"a \\u001b[31m red\", \"outcome\": \"bound\", ");
	assert_int_equal(hzrig_sweep_load(edited, &r, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "drivers[0].diagnosis: a control character"));
	EDIT("\"ended\": \"melted\", \"last_alive_ms\": null, ", "\"outcome\": \"bound\", ");
	assert_int_equal(hzrig_sweep_load(edited, &r, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "batches[0].ended: 'melted'"));
	EDIT("\"ended\": \"ok\", \"last_alive_ms\": -1, ", "\"outcome\": \"bound\", ");
	assert_int_equal(hzrig_sweep_load(edited, &r, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "batches[0].last_alive_ms"));
#undef EDIT
	free(edited);
	free(text);
}

/*
 * The unplug pass's fields in sweep.json: read when there, absent in
 * older files; a driver whose outcome is "kernel report" must carry the
 * reports, and no more than the record keeps.
 */
static void test_load_unplug_fields(void **state)
{
	struct hzrig_sweep_run r;
	char *text, *edited, why[256];
	const char *at;
	size_t len;

	(void)state;
	text = small_sweep(&r, &len);
	assert_int_equal(r.batches[0].unplug_ms, 0);
	assert_int_equal(r.drivers[0].nreports, 0);
	assert_false(r.drivers[0].unplugged);
	hzrig_sweep_run_free(&r);

	/* the first driver: a report of its own, unplugged */
	at = strstr(text, "\"outcome\":");
	assert_non_null(at);
	edited = malloc(len + 256);
	assert_non_null(edited);
	sprintf(edited, "%.*s\"unplugged\": true, \"reports\": [\"KASAN: use-after-free Read in x\"], \"outcome\": \"kernel report\", \"was\":%s",
		(int)(at - text), text, at + strlen("\"outcome\":"));
	if (hzrig_sweep_load(edited, &r, why, sizeof(why)))
		fail_msg("%s", why);
	assert_string_equal(r.drivers[0].outcome, "kernel report");
	assert_true(r.drivers[0].unplugged);
	assert_int_equal(r.drivers[0].nreports, 1);
	assert_string_equal(r.drivers[0].reports[0], "KASAN: use-after-free Read in x");
	hzrig_sweep_run_free(&r);

	sprintf(edited, "%.*s\"reports\": [], \"outcome\": \"kernel report\", \"was\":%s",
		(int)(at - text), text, at + strlen("\"outcome\":"));
	assert_int_equal(hzrig_sweep_load(edited, &r, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "drivers[0].outcome: 'kernel report' without"));
	sprintf(edited, "%.*s\"reports\": [1], \"outcome\":%s",
		(int)(at - text), text, at + strlen("\"outcome\":"));
	assert_int_equal(hzrig_sweep_load(edited, &r, why, sizeof(why)), -1);
	if (!strstr(why, "drivers[0].reports: "))
		fail_msg("%s", why);
	free(edited);
	free(text);
}

/*
 * A real small sweep at HZ=100 and HZ=1000 (tests/data/sweep): the rule
 * flags ipheth's IPHETH_CTRL_TIMEOUT (5 * HZ) and orinoco_usb's
 * DEF_TIMEOUT (3 * HZ), and spares ch341's and cp210x's millisecond
 * timeouts, whose waits differ at the two HZ too (cp210x: 5072 against
 * 5501 ms, the wheel's granule at HZ=1000 is 512 ms there).
 */
static void test_real_sweep(void **state)
{
	struct hzrig_sweep_run r[2];
	struct hzrig_sweep_site *s;
	size_t n, dep = 0;
	char why[256];

	(void)state;
	if (hzrig_sweep_load_file(DATA_DIR "/sweep/small-100/sweep.json", &r[0], why, sizeof(why)) ||
	    hzrig_sweep_load_file(DATA_DIR "/sweep/small-1000/sweep.json", &r[1], why, sizeof(why)))
		fail_msg("%s", why);
	assert_int_equal(r[0].hz, 100);
	assert_int_equal(r[1].hz, 1000);
	assert_int_equal(hzrig_sweep_sites(r, 2, &s, &n), 0);
	for (size_t i = 0; i < n; i++) {
		bool hz_based = !strcmp(s[i].site, "drivers/net/usb/ipheth.c:289") ||
			!strcmp(s[i].site, "drivers/net/wireless/intersil/orinoco/orinoco_usb.c:1362");

		if (s[i].dependent != hz_based)
			fail_msg("%s: %s", s[i].site, s[i].why);
		dep += s[i].dependent;
		if (!strcmp(s[i].module, "cp210x")) {
			assert_int_equal(s[i].per[0].timeout_arg, 5000);
			assert_int_equal(s[i].per[1].timeout_arg, 5000);
		}
		if (!strcmp(s[i].module, "ipheth")) {
			assert_int_equal(s[i].per[0].timeout_arg, 500);
			assert_int_equal(s[i].per[1].timeout_arg, 5000);
		}
	}
	assert_int_equal(dep, 2);
	assert_true(n >= 4);
	free(s);
	hzrig_sweep_run_free(&r[0]);
	hzrig_sweep_run_free(&r[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_fields),
		cmocka_unit_test(test_parse_exact_bcd),
		cmocka_unit_test(test_parse_other_and_bad),
		cmocka_unit_test(test_prefer_vid_pid),
		cmocka_unit_test(test_device_matches_its_entry),
		cmocka_unit_test(test_device_fields),
		cmocka_unit_test(test_device_isochronous),
		cmocka_unit_test(test_stream_class),
		cmocka_unit_test(test_device_shapes),
		cmocka_unit_test(test_device_too_small),
		cmocka_unit_test(test_rule_flags_hz_based),
		cmocka_unit_test(test_rule_spares_ms),
		cmocka_unit_test(test_rule_room_edge),
		cmocka_unit_test(test_rule_same_timeout_late),
		cmocka_unit_test(test_rule_other_requests),
		cmocka_unit_test(test_batch_parse),
		cmocka_unit_test(test_batch_bulk),
		cmocka_unit_test(test_batch_urb_reused),
		cmocka_unit_test(test_batch_urb_lost),
		cmocka_unit_test(test_walk_passes),
		cmocka_unit_test(test_many_tasks),
		cmocka_unit_test(test_batch_missed_returns),
		cmocka_unit_test(test_batch_refused),
		cmocka_unit_test(test_batch_unplug),
		cmocka_unit_test(test_report_names),
		cmocka_unit_test(test_load_unplug_fields),
		cmocka_unit_test(test_batch_streamed),
		cmocka_unit_test(test_load_diagnosis),
		cmocka_unit_test(test_real_sweep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
