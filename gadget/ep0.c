// SPDX-License-Identifier: GPL-2.0
/*
 * The gadget's ep0: the data and status stages, the requests it answers
 * itself (ARM, RESET, SYNC, TEST, configuration, strings), the gadgetfs
 * events, and a setup that arrived while another was still pending
 * (main.c's header says what gadgetfs does; gadget.h lists the files).
 */
#include "gadget.h"

/* ---- ep0 data/status stages ---- */

static enum ep0_rc ep0_rc(ssize_t r, int expect, const char *what)
{
	int err = r < 0 ? errno : 0;

	if (err == expect)
		return EP0_OK;
	if (err == EIDRM)
		return EP0_ABORT;
	hzg_error(err, "ep0: %s", what);
	return EP0_GONE;
}

static enum ep0_rc ep0_ack(struct gadget *g)
{
	return ep0_rc(read(g->fd, g->ep0buf, 0), 0, "status stage (read 0)");
}

static enum ep0_rc ep0_halt(struct gadget *g, bool in)
{
	ssize_t r;

	r = in ? read(g->fd, g->ep0buf, 0) : write(g->fd, g->ep0buf, 0);
	return ep0_rc(r, EL2HLT, in ? "stall IN (read)" : "stall OUT (write)");
}

static enum ep0_rc ep0_write(struct gadget *g, const void *buf, size_t len)
{
	ssize_t r = write(g->fd, buf, len);

	if (r >= 0 && (size_t)r != len) {
		hzg_error(0, "ep0: wrote %zd of %zu bytes", r, len);
		return EP0_GONE;
	}
	return ep0_rc(r, 0, "write IN data stage");
}

static void sleep_ns(uint64_t ns);

/* read() on ep0 under the read guard (main.c, read_guard_init()). */
static ssize_t ep0_read_guarded(struct gadget *g, void *buf, size_t len)
{
	struct itimerspec on = { .it_value = hzg_ns_to_ts(EP0_READ_GUARD_NS) };
	struct itimerspec off = { 0 };
	ssize_t r;
	int err;

	timer_settime(g->read_guard, 0, &on, NULL);
	r = read(g->fd, buf, len);
	err = errno;
	timer_settime(g->read_guard, 0, &off, NULL);
	errno = err;
	return r;
}

/*
 * An OUT data stage into @buf. ep0 stays O_NONBLOCK: the data is nearly
 * always in by the time the event is read; if not (EAGAIN), look again
 * every EP0_DATA_POLL_NS. Even so gadgetfs can put the read to sleep for
 * good when a newer setup comes at the wrong moment: the guard's signal
 * ends that with EINTR, and the next read reports the newer setup as EIDRM.
 * That was the ep0 wedge the ioctl fuzzer found (docs/robustness.md).
 * Returns what read() did, or -1 with errno EAGAIN once @deadline
 * (CLOCK_MONOTONIC ns; 0: none) has passed or the gadget stops.
 */
static ssize_t ep0_read_data(struct gadget *g, void *buf, size_t len,
			     uint64_t deadline)
{
	ssize_t r;

	for (;;) {
		r = ep0_read_guarded(g, buf, len);
		if (r >= 0 || (errno != EAGAIN && errno != EINTR))
			return r;
		if (g->done || hzg_stop_requested() ||
		    (deadline && hzg_now_ns() >= deadline)) {
			errno = EAGAIN;
			return -1;
		}
		if (errno == EAGAIN)
			sleep_ns(EP0_DATA_POLL_NS);
	}
}

/*
 * Read an OUT data stage of @len bytes (the host's wLength) into ep0buf.
 * 6.1's gadgetfs caps a data stage at its own 256-byte buffer, but the
 * gadget does not rely on another program's limit for its own buffer's
 * bounds: @len is clamped to it. A newer setup ends it with EP0_ABORT
 * (hzg_ep0_resolve() takes over).
 */
static enum ep0_rc ep0_read(struct gadget *g, size_t len, size_t *got)
{
	ssize_t r;

	if (len > sizeof(g->ep0buf))
		len = sizeof(g->ep0buf);
	r = ep0_read_data(g, g->ep0buf, len, 0);
	*got = r > 0 ? (size_t)r : 0;
	return ep0_rc(r, 0, "read OUT data stage");
}

/*
 * The finish_*() helpers do the data/status stage of the setup being
 * handled, unless hzg_ep0_resolve() already did it (@o set): then they only
 * report what happened.
 */
static enum ep0_rc finish_ack(struct gadget *g, const struct orphan *o)
{
	return o ? EP0_OK : ep0_ack(g);
}

static enum ep0_rc get_out_data(struct gadget *g,
				const struct usb_ctrlrequest *ctrl,
				const struct orphan *o,
				const uint8_t **data, size_t *len)
{
	enum ep0_rc rc;

	if (o) {
		if (o->kind != HZG_ORPHAN_DATA)
			return EP0_GONE;
		*data = o->data;
		*len = o->len;
		return EP0_OK;
	}
	rc = ep0_read(g, le16toh(ctrl->wLength), len);
	*data = g->ep0buf;
	return rc;
}

static enum ep0_rc finish_halt(struct gadget *g,
			       const struct usb_ctrlrequest *ctrl,
			       const struct orphan *o)
{
	bool in = ctrl->bRequestType & USB_DIR_IN;
	const uint8_t *data;
	size_t len;

	if (!in && ctrl->wLength) {
		/* the kernel has completed it already; collect and drop */
		hzg_warn("ep0: cannot stall request %02x.%02x: its OUT data stage "
		     "is complete", ctrl->bRequestType, ctrl->bRequest);
		return get_out_data(g, ctrl, o, &data, &len) == EP0_ABORT ?
		       EP0_ABORT : EP0_OK;
	}
	if (o) {
		if (o->kind != HZG_ORPHAN_STALLED)
			hzg_warn("ep0: request %02x.%02x was acknowledged, not "
			     "stalled", ctrl->bRequestType, ctrl->bRequest);
		return EP0_OK;
	}
	return ep0_halt(g, in);
}

static enum ep0_rc finish_write(struct gadget *g, const struct orphan *o,
				const void *buf, size_t len)
{
	if (o) {
		hzg_warn("ep0: IN answer of %zu bytes not sent: the request was "
		     "stalled before its event could be read", len);
		return EP0_OK;
	}
	return ep0_write(g, buf, len);
}

/* ---- requests ---- */

static void arm_apply(struct gadget *g, const struct hzg_arm *arm);

static enum ep0_rc do_arm(struct gadget *g, const struct usb_ctrlrequest *ctrl,
			  const struct orphan *o)
{
	enum hzg_arm_err err;
	struct hzg_arm arm;
	const uint8_t *data;
	enum ep0_rc rc;
	size_t len;

	if (!ctrl->wLength) {
		hzg_error(0, "ep0 ARM without data stage: stalled");
		return finish_halt(g, ctrl, o);
	}
	rc = get_out_data(g, ctrl, o, &data, &len);
	if (rc != EP0_OK)
		return rc;
	err = hzg_arm_parse(data, len, &arm);
	if (err) {
		/* the host already has its status: all we can do is tell */
		hzg_error(0, "ep0 ARM rejected (%zu bytes, want %zu, version %u): "
		      "%s; nothing armed", len, sizeof(struct hzrig_arm),
		      len ? data[0] : 0, hzg_arm_strerror(err));
		return EP0_OK;
	}
	arm_apply(g, &arm);
	return EP0_OK;
}

static void arm_apply(struct gadget *g, const struct hzg_arm *a)
{
	const struct hzg_ep_info *ep;
	struct hzg_arm arm = *a;

	g->last_arm_seq = arm.seq;
	ep = hzg_ep_for_target(arm.target);
	if (ep && g->omit[ep - hzg_eps])
		hzg_warn("ARM of %s, an endpoint omitted with -x: ignored",
		     ep->name);
	else if (ep)
		hzg_worker_post(g, &g->w[ep - hzg_eps], &arm);
	else
		hzg_slot_arm(&g->slot[arm.target], &arm);
	hzg_info("ARM %s seq %u %s delay %u us length %u start %+.3f ms",
	     hzg_target_name(arm.target), arm.seq, hzg_beh_name(arm.behaviour),
	     arm.delay_us, arm.length, arm.start_ns ?
	     ((double)arm.start_ns - (double)hzg_now_ns()) / 1e6 : 0.0);
}

static enum ep0_rc do_reset(struct gadget *g,
			    const struct usb_ctrlrequest *ctrl,
			    const struct orphan *o)
{
	const uint8_t *data;
	enum ep0_rc rc = EP0_OK;
	unsigned int mask;
	size_t len;

	if (ctrl->wLength) {
		rc = get_out_data(g, ctrl, o, &data, &len);
		if (rc == EP0_ABORT)
			return rc;
	}
	if (!hzg_reset_mask(le16toh(ctrl->wValue), &mask)) {
		hzg_error(0, "ep0 RESET of targets %#x: no such target; stalled",
		      le16toh(ctrl->wValue));
		return ctrl->wLength ? rc : finish_halt(g, ctrl, o);
	}
	/*
	 * Only the targets asked for: the host runs transfers on the other
	 * endpoints meanwhile. Flush before the host gets its status, so it
	 * is race free.
	 */
	for (unsigned int t = 0; t < HZRIG_TARGET_COUNT; t++) {
		const struct hzg_ep_info *ep = hzg_ep_for_target(t);

		if (!(mask & (1u << t)))
			continue;
		hzg_slot_clear(&g->slot[t]);
		if (ep && hzg_endpoint_restart(g, ep - hzg_eps) < 0) {
			hzg_fatal(g);
			return EP0_GONE;
		}
	}
	if (!ctrl->wLength)
		rc = finish_ack(g, o);
	hzg_info("RESET: targets %#x disarmed%s", mask, g->configured ?
	     ", their endpoints flushed and unhalted" : "");
	return rc;
}

enum ep0_rc hzg_ep0_exec(struct gadget *g,
			    const struct usb_ctrlrequest *ctrl,
			    const struct hzg_plan *p, uint32_t seq)
{
	bool in = ctrl->bRequestType & USB_DIR_IN;
	enum hzg_payload chk;
	const uint8_t *data;
	enum ep0_rc rc;
	uint32_t got;
	size_t len;

	switch (p->action) {
	case HZG_ACT_WRITE:
		hzg_payload_fill(g->ep0buf, p->len, seq);
		return ep0_write(g, g->ep0buf, p->len);
	case HZG_ACT_READ:
		rc = get_out_data(g, ctrl, NULL, &data, &len);
		if (rc != EP0_OK)
			return rc;
		chk = hzg_payload_check(data, len, seq, &got);
		if (chk == HZG_PAYLOAD_STALE || chk == HZG_PAYLOAD_AHEAD)
			hzg_warn("ep0-out seq %u: payload carries seq %u", seq,
			     got);
		return rc;
	case HZG_ACT_ACK:
		return ep0_ack(g);
	case HZG_ACT_HALT:
		return ep0_halt(g, in);
	case HZG_ACT_NONE:
		break;
	}
	return EP0_OK;
}

static const char *match_name(enum hzg_match m)
{
	switch (m) {
	case HZG_MATCH_ARMED:
		return "armed";
	case HZG_MATCH_UNARMED:
		return "unarmed";
	case HZG_MATCH_STALE:
		return "armed for another seq";
	}
	return "?";
}

/*
 * Hold the setup just read (NAK, DELAY). A DELAY is answered at the host's
 * start_ns + delay_us; without start_ns, delay_us after the setup was read.
 */
static void hold_start(struct gadget *g, const struct usb_ctrlrequest *ctrl,
		       const struct hzg_plan *p, const struct hzg_arm *arm)
{
	struct itimerspec its = { 0 };

	g->hold.active = true;
	g->hold.ctrl = *ctrl;
	g->hold.plan = *p;
	g->hold.seq = arm->seq;
	g->hold.t0 = hzg_now_ns();
	if (!p->delay_ns)
		return;
	g->hold.deadline = hzg_arm_deadline(arm, g->hold.t0);
	its.it_value = hzg_ns_to_ts(g->hold.deadline);
	if (timerfd_settime(g->tfd, TFD_TIMER_ABSTIME, &its, NULL) < 0) {
		hzg_error(errno, "timerfd_settime for ep0 DELAY");
		hzg_fatal(g);
	}
}

void hzg_hold_stop(struct gadget *g)
{
	struct itimerspec its = { 0 };

	g->hold.active = false;
	timerfd_settime(g->tfd, 0, &its, NULL);
}

static void test_report(const struct usb_ctrlrequest *ctrl,
			const struct hzg_arm *arm, enum hzg_match m,
			const struct hzg_plan *p, const struct orphan *o)
{
	bool in = ctrl->bRequestType & USB_DIR_IN;
	const char *t = hzg_target_name(in ? HZRIG_TARGET_EP0_IN :
					HZRIG_TARGET_EP0_OUT);
	const char *beh = hzg_beh_name(arm->behaviour);

	hzg_info("%s seq %u (%s) %s, wLength %u%s", t, arm->seq, match_name(m),
	     beh, le16toh(ctrl->wLength), p->hold ? ": held" : "");
	/*
	 * The host arms every test. gadgetfs drops an ARM whose event was
	 * not read before the next setup came: a test then finds nothing.
	 */
	if (m != HZG_MATCH_ARMED)
		hzg_warn("%s seq %u: no ARM for it (lost: sent too close before "
		     "the test?); answered", t, arm->seq);
	if (p->unsupported)
		hzg_warn("%s seq %u: %s impossible on a control OUT with a data "
		     "stage (the kernel completes it); answered", t, arm->seq,
		     beh);
	/* finished blind by hzg_ep0_resolve(): an IN got a stall */
	if (o && (in || arm->behaviour != HZRIG_BEH_ANSWER))
		hzg_warn("%s seq %u: %s not applied: the request was %s before "
		     "its event could be read", t, arm->seq, beh,
		     hzg_orphan_name(o->kind));
}

static enum ep0_rc do_test(struct gadget *g,
			   const struct usb_ctrlrequest *ctrl,
			   const struct orphan *o)
{
	bool in = ctrl->bRequestType & USB_DIR_IN;
	unsigned int target = in ? HZRIG_TARGET_EP0_IN : HZRIG_TARGET_EP0_OUT;
	enum ep0_rc rc = EP0_OK;
	enum hzg_match m;
	struct hzg_plan p;
	struct hzg_arm arm;

	m = hzg_slot_take_seq(&g->slot[target], le16toh(ctrl->wValue), &arm);
	p = hzg_plan_ep0(&arm, in, le16toh(ctrl->wLength));
	if (o)
		p.hold = false;		/* done already */
	else if (p.hold)
		hold_start(g, ctrl, &p, &arm);
	else
		rc = hzg_ep0_exec(g, ctrl, &p, arm.seq);
	test_report(ctrl, &arm, m, &p, o);
	return rc;
}

/* -c FILE: tell the world the host configured us (once per configuration). */
static void note_configured(struct gadget *g)
{
	if (g->configured && g->config_file &&
	    hzg_create_file(g->config_file, "configured", "configured\n") < 0)
		hzg_fatal(g);
}

static enum ep0_rc do_set_configuration(struct gadget *g,
					const struct usb_ctrlrequest *ctrl,
					const struct orphan *o)
{
	unsigned int value = le16toh(ctrl->wValue) & 0xff;
	enum ep0_rc rc;

	/*
	 * gadgetfs passes only our configuration value or 0 and wants the
	 * endpoints ready before the status stage lets the host go on.
	 */
	if (value && hzg_endpoints_up(g) < 0) {
		hzg_fatal(g);
		return EP0_GONE;
	}
	if (!value)
		hzg_endpoints_down(g);
	g->configured = value != 0;
	hzg_disarm_all(g);
	rc = finish_ack(g, o);
	hzg_info("SET_CONFIGURATION %u at %s speed%s", value, hzg_speed_name(g->speed),
	     rc == EP0_OK ? "" : " (status stage failed)");
	note_configured(g);
	return rc;
}

static enum ep0_rc do_set_interface(struct gadget *g,
				    const struct usb_ctrlrequest *ctrl,
				    const struct orphan *o)
{
	if (ctrl->wIndex || ctrl->wValue || !g->configured) {
		hzg_info("SET_INTERFACE %u alt %u: no such setting, stalled",
		     le16toh(ctrl->wIndex), le16toh(ctrl->wValue));
		return finish_halt(g, ctrl, o);
	}
	/* same interface again: endpoints start afresh, halts cleared */
	if (hzg_endpoints_up(g) < 0) {
		hzg_fatal(g);
		return EP0_GONE;
	}
	for (int i = 0; i < HZRIG_TARGET_COUNT; i++)
		if (hzg_ep_for_target(i))
			hzg_slot_clear(&g->slot[i]);
	hzg_info("SET_INTERFACE 0 alt 0: endpoints reset");
	return finish_ack(g, o);
}

static enum ep0_rc do_get_interface(struct gadget *g,
				    const struct usb_ctrlrequest *ctrl,
				    const struct orphan *o)
{
	uint8_t alt = 0;

	if (ctrl->wIndex || !ctrl->wLength || !g->configured)
		return finish_halt(g, ctrl, o);
	return finish_write(g, o, &alt, 1);
}

/* SYNC: which ARM did we apply last? The host re-sends a lost one. */
static enum ep0_rc do_sync(struct gadget *g, const struct usb_ctrlrequest *ctrl,
			   const struct orphan *o)
{
	uint32_t seq = htole32(g->last_arm_seq);

	if (le16toh(ctrl->wLength) < sizeof(seq))
		return finish_halt(g, ctrl, o);
	return finish_write(g, o, &seq, sizeof(seq));
}

/* HEARTBEAT: the driver's status poll; answered at once, arms nothing. */
static enum ep0_rc do_heartbeat(struct gadget *g,
				const struct usb_ctrlrequest *ctrl,
				const struct orphan *o)
{
	uint32_t n = htole32(g->heartbeats);

	if (le16toh(ctrl->wLength) < sizeof(n))
		return finish_halt(g, ctrl, o);
	g->heartbeats++;
	return finish_write(g, o, &n, sizeof(n));
}

static enum ep0_rc do_get_string(struct gadget *g,
				 const struct usb_ctrlrequest *ctrl,
				 const struct orphan *o)
{
	unsigned int index = le16toh(ctrl->wValue) & 0xff;
	uint16_t wlength = le16toh(ctrl->wLength);
	uint8_t buf[EP0_MAX_DATA];
	int n;

	n = hzg_build_string(buf, sizeof(buf), index);
	if (n < 0) {
		hzg_info("GET_DESCRIPTOR string %u: none, stalled", index);
		return finish_halt(g, ctrl, o);
	}
	return finish_write(g, o, buf, n < wlength ? (size_t)n : wlength);
}

static enum ep0_rc dispatch_setup(struct gadget *g,
				  const struct usb_ctrlrequest *ctrl,
				  enum hzg_req req, const struct orphan *o);
static enum ep0_rc dispatch_device(struct gadget *g,
				   const struct usb_ctrlrequest *ctrl,
				   const struct orphan *o, const char **what);

static enum ep0_rc handle_setup(struct gadget *g,
				const struct usb_ctrlrequest *ctrl,
				const struct orphan *o)
{
	enum hzg_req req = hzg_classify(ctrl);
	const char *what = hzg_req_name(req);
	enum ep0_rc rc;

	/* -D: another device's requests go by its file's rules */
	rc = g->dev ? dispatch_device(g, ctrl, o, &what) :
		      dispatch_setup(g, ctrl, req, o);
	/* logged afterwards: nothing may delay reading an ARM's data */
	hzg_info("SETUP %02x.%02x v%04x i%04x l%u: %s%s%s%s", ctrl->bRequestType,
	     ctrl->bRequest, le16toh(ctrl->wValue), le16toh(ctrl->wIndex),
	     le16toh(ctrl->wLength), what,
	     o ? ", finished blind: " : "", o ? hzg_orphan_name(o->kind) : "",
	     rc == EP0_ABORT ? ", replaced by a newer setup" : "");
	return rc;
}

static enum ep0_rc dispatch_setup(struct gadget *g,
				  const struct usb_ctrlrequest *ctrl,
				  enum hzg_req req, const struct orphan *o)
{
	switch (req) {
	case HZG_REQ_ARM:
		return do_arm(g, ctrl, o);
	case HZG_REQ_RESET:
		return do_reset(g, ctrl, o);
	case HZG_REQ_SYNC:
		return do_sync(g, ctrl, o);
	case HZG_REQ_HEARTBEAT:
		return do_heartbeat(g, ctrl, o);
	case HZG_REQ_TEST_IN:
	case HZG_REQ_TEST_OUT:
		return do_test(g, ctrl, o);
	case HZG_REQ_SET_CONFIGURATION:
		return do_set_configuration(g, ctrl, o);
	case HZG_REQ_SET_INTERFACE:
		return do_set_interface(g, ctrl, o);
	case HZG_REQ_GET_INTERFACE:
		return do_get_interface(g, ctrl, o);
	case HZG_REQ_GET_STRING:
		return do_get_string(g, ctrl, o);
	case HZG_REQ_UNKNOWN:
		break;
	}
	hzg_info("unsupported request %02x.%02x: stalled", ctrl->bRequestType,
	     ctrl->bRequest);
	return finish_halt(g, ctrl, o);
}

/* ---- another device (-D FILE): its requests by the file's rules ---- */

static enum ep0_rc device_rule(struct gadget *g,
			       const struct usb_ctrlrequest *ctrl,
			       const struct hzg_dev_rule *r,
			       const struct orphan *o)
{
	bool in = ctrl->bRequestType & USB_DIR_IN;
	uint16_t wlength = le16toh(ctrl->wLength);
	struct hzg_plan plan = { .hold = true };
	struct hzg_arm arm = { 0 };
	const uint8_t *data;
	size_t len;
	enum ep0_rc rc;

	switch (r->action) {
	case HZG_DEV_NAK:
		if (!in && wlength) {
			/* the kernel completed the data stage already */
			hzg_warn("ep0: rule at line %u cannot NAK an OUT with "
				 "data; answered", r->line);
			break;
		}
		if (!o)
			hold_start(g, ctrl, &plan, &arm);
		return EP0_OK;
	case HZG_DEV_STALL:
		return finish_halt(g, ctrl, o);
	case HZG_DEV_ANSWER:
		if (in)
			return finish_write(g, o, r->data, r->len < wlength ?
					    r->len : wlength);
		break;
	}
	if (wlength) {
		rc = get_out_data(g, ctrl, o, &data, &len);
		return rc == EP0_ABORT ? rc : EP0_OK;
	}
	return finish_ack(g, o);
}

/*
 * The standard requests gadgetfs leaves to us, then the file's rules; what
 * neither knows is stalled, as a device does with a request it lacks.
 */
static enum ep0_rc dispatch_device(struct gadget *g,
				   const struct usb_ctrlrequest *ctrl,
				   const struct orphan *o, const char **what)
{
	const struct hzg_dev_rule *r;
	uint16_t value = le16toh(ctrl->wValue), index = le16toh(ctrl->wIndex);
	uint8_t alt = 0;
	enum ep0_rc rc;

	if (ctrl->bRequestType == USB_RECIP_DEVICE &&
	    ctrl->bRequest == USB_REQ_SET_CONFIGURATION) {
		g->configured = (value & 0xff) != 0;
		*what = "SET_CONFIGURATION";
		rc = finish_ack(g, o);
		note_configured(g);
		return rc;
	}
	if (ctrl->bRequestType == USB_RECIP_INTERFACE &&
	    ctrl->bRequest == USB_REQ_SET_INTERFACE) {
		*what = "SET_INTERFACE";
		return hzg_dev_has_alt(g->dev, index, value) ?
		       finish_ack(g, o) : finish_halt(g, ctrl, o);
	}
	if (ctrl->bRequestType == (USB_DIR_IN | USB_RECIP_INTERFACE) &&
	    ctrl->bRequest == USB_REQ_GET_INTERFACE && ctrl->wLength) {
		*what = "GET_INTERFACE";
		return finish_write(g, o, &alt, 1);
	}
	r = hzg_dev_match(g->dev, ctrl);
	if (r) {
		*what = r->action == HZG_DEV_NAK ? "rule: NAK (held)" :
			r->action == HZG_DEV_STALL ? "rule: stall" : "rule: answer";
		return device_rule(g, ctrl, r, o);
	}
	*what = "no rule: stalled";
	return finish_halt(g, ctrl, o);
}

/* ---- events ---- */

/*
 * Reading a SETUP event puts ep0 into setup state (inode.c ep0_read()),
 * also for a request hzg_ep0_resolve() has finished already; left there, the
 * next setup would be reported as an abort. read(0) leaves it: it stalls an
 * IN or queues a status stage for an OUT, both harmless with no transfer
 * left to act on - dummy_hcd clears the halt and drops the stale request
 * when the next setup comes.
 */
static enum ep0_rc ep0_release(struct gadget *g)
{
	ssize_t r = read(g->fd, g->ep0buf, 0);

	/*
	 * -EINVAL: the blind status stage is still queued (dummy_hcd gives
	 * it back on its next tick), so queueing again fails - after the
	 * state change this is for. -EBUSY likewise.
	 */
	if (r == 0 || errno == EL2HLT || errno == EBUSY || errno == EINVAL)
		return EP0_OK;
	if (errno == EIDRM)
		return EP0_ABORT;
	hzg_error(errno, "ep0: leave setup state of a finished request");
	return EP0_GONE;
}

static void on_disconnect(struct gadget *g, const char *why)
{
	hzg_info("%s", why);
	hzg_endpoints_down(g);
	g->configured = false;
	hzg_disarm_all(g);
}

/*
 * The event of a request hzg_ep0_resolve() finished was dropped for a newer
 * setup. Usually it was an ARM whose data we hold (the host sends SYNC
 * right after it): a data stage that parses as a valid ARM is one - no
 * other OUT request carries 24 bytes starting with the wire version (test
 * payloads start with HZRIG_PAYLOAD_MAGIC) - so apply it; SYNC then echoes
 * it and the host needs no retry.
 */
static void orphan_lost(struct gadget *g, struct orphan *o)
{
	struct hzg_arm arm;

	if (o->kind == HZG_ORPHAN_DATA &&
	    hzg_arm_parse(o->data, o->len, &arm) == HZG_ARM_OK) {
		hzg_info("ep0: ARM seq %u finished blind, its event lost to a "
		     "newer setup: applied", arm.seq);
		arm_apply(g, &arm);
	} else {
		hzg_warn("ep0: event of the request finished blind (%s) was lost "
		     "to a newer setup", hzg_orphan_name(o->kind));
	}
	o->kind = HZG_ORPHAN_NONE;
}

/*
 * @o is how hzg_ep0_resolve() finished a request whose event had not been read
 * yet; that event is the first SETUP among the ones read right after.
 */
static void process_events(struct gadget *g, size_t n, struct orphan *o)
{
	for (size_t i = 0; i < n && !g->done; i++) {
		const struct usb_gadgetfs_event *ev = &g->ev[i];
		enum ep0_rc rc;

		switch (ev->type) {
		case GADGETFS_CONNECT:
			if (g->configured)
				on_disconnect(g, "reconnect");
			g->speed = ev->u.speed;
			hzg_info("CONNECT at %s speed", hzg_speed_name(g->speed));
			break;
		case GADGETFS_DISCONNECT:
			on_disconnect(g, "DISCONNECT (or bus reset)");
			break;
		case GADGETFS_SUSPEND:
			hzg_info("SUSPEND");
			break;
		case GADGETFS_SETUP:
			if (o && o->kind != HZG_ORPHAN_NONE &&
			    hzg_orphan_fits(o->kind, &ev->u.setup, o->len)) {
				/*
				 * Leave the setup state first: a setup that
				 * comes while we are in it is another abort,
				 * and the next one (SYNC after ARM) follows
				 * at once. No I/O on ep0 is left to do.
				 */
				if (ep0_release(g) == EP0_ABORT)
					g->abort_pending = true;
				handle_setup(g, &ev->u.setup, o);
				o->kind = HZG_ORPHAN_NONE;
				break;
			}
			if (o && o->kind != HZG_ORPHAN_NONE) {
				/*
				 * The finished request's event was dropped
				 * for this newer one (gadgetfs keeps one
				 * SETUP event): this one is still pending.
				 */
				orphan_lost(g, o);
			}
			rc = handle_setup(g, &ev->u.setup, NULL);
			if (rc == EP0_ABORT)
				g->abort_pending = true;
			break;
		case GADGETFS_NOP:
			break;
		default:
			hzg_warn("ep0: unknown event type %d", ev->type);
			break;
		}
	}
}

/* Read and handle the queued events; 0, or -1 if there were none. */
int hzg_read_events(struct gadget *g, struct orphan *o)
{
	ssize_t r;

	r = read(g->fd, g->ev, sizeof(g->ev));
	if (r < 0) {
		if (errno == EIDRM) {
			g->abort_pending = true;
		} else if (errno != EAGAIN && errno != EINTR) {
			hzg_error(errno, "read events from %s/%s", g->dir,
			      UDC_FILE);
			hzg_fatal(g);
		}
		return -1;
	}
	process_events(g, r / sizeof(g->ev[0]), o);
	return 0;
}

/* ---- a setup that arrived while another one was pending ---- */

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = hzg_ns_to_ts(ns);

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

enum resolve {
	RES_DONE,
	RES_RETRY,
	RES_HELD,	/* -D: the request is held unseen, no event to read */
};

/* The new request is an IN, or an OUT without data stage. */
static enum resolve resolve_in_or_nodata(struct gadget *g)
{
	struct pollfd p = { .fd = g->fd, .events = POLLIN | POLLOUT };
	ssize_t r;

	/*
	 * Another device (-D): its driver repeats the request it gave up on
	 * (a probe per bind) and must find it NAKed again, not stalled. Its
	 * event cannot be read before it is finished (gadgetfs is in setup
	 * state for it: a read would stall it), so it is held unseen, as a
	 * NAK, until the host gives up on it too.
	 */
	if (g->dev) {
		struct usb_ctrlrequest unseen = { 0 };
		struct hzg_plan plan = { .hold = true };
		struct hzg_arm arm = { 0 };

		hold_start(g, &unseen, &plan, &arm);
		hzg_info("ep0: a request came before its event: held unseen");
		return RES_HELD;
	}
	/*
	 * gadgetfs_setup() drops its lock to queue an OUT data stage; until
	 * it is done, that request also reads as stallable (POLLOUT). On SMP
	 * give it the moment, then look again; on one CPU the softirq running
	 * it cannot be half done when we run.
	 */
	if (hzg_smp)
		sleep_ns(ORPHAN_SETTLE_NS);
	if (poll(&p, 1, 0) < 0 || p.revents != POLLOUT)
		return RES_RETRY;

	/* an IN gets stalled (-EPIPE: a definite error for the host), a
	 * no-data OUT such as RESET gets its status stage
	 */
	r = read(g->fd, g->ep0buf, 0);
	if (r < 0 && errno == EIDRM)
		return RES_RETRY;
	if (r == 0)
		g->orphan.kind = HZG_ORPHAN_ACKED;
	else if (errno == EL2HLT)
		g->orphan.kind = HZG_ORPHAN_STALLED;
	else
		hzg_error(errno, "ep0: finish unseen request (read 0)");
	return RES_DONE;
}

/*
 * The new request is an OUT whose data stage the kernel queued (ARM, most
 * likely), or SET_CONFIGURATION. Collect the data; if none comes within a
 * dummy_hcd frame or many, it has no data stage: acknowledge it.
 */
static enum resolve resolve_out_data(struct gadget *g)
{
	enum resolve res = RES_DONE;
	ssize_t r;
	int err;

	r = ep0_read_data(g, g->orphan.data, sizeof(g->orphan.data),
			  hzg_now_ns() + ORPHAN_DATA_WAIT_NS);
	err = r < 0 ? errno : 0;
	if (r >= 0) {
		g->orphan.kind = HZG_ORPHAN_DATA;
		g->orphan.len = r;
	} else if (err == EIO) {
		g->orphan.kind = HZG_ORPHAN_DATA_ERROR;
	} else if (err == EIDRM) {
		res = RES_RETRY;
	} else if (err != EAGAIN) {
		hzg_error(err, "ep0: read data of unseen request");
	}
	if (err == EAGAIN) {
		r = read(g->fd, g->ep0buf, 0);
		if (r == 0)
			g->orphan.kind = HZG_ORPHAN_ACKED;
		else if (errno == EIDRM)
			res = RES_RETRY;
		else
			hzg_error(errno, "ep0: acknowledge unseen request");
	}
	return res;
}

/*
 * gadgetfs reported an abort: the setup we held or were finishing is dead,
 * and ep0 is in setup state for a newer request whose event we cannot read
 * before its data/status stage is done. Tell the kinds apart by poll(), do
 * the stage blind, then read the event and match it (process_events()).
 * Most often this is the ARM that follows a control transfer the host gave
 * up on, and then nothing is lost: its data is read here.
 */
bool hzg_ep0_resolve(struct gadget *g)
{
	struct pollfd p;
	enum resolve res = RES_RETRY;

	g->orphan.kind = HZG_ORPHAN_NONE;
	g->orphan.len = 0;
	for (int round = 0; round < 16 && res == RES_RETRY; round++) {
		p.fd = g->fd;
		p.events = POLLIN | POLLOUT;
		p.revents = 0;
		if (poll(&p, 1, 0) < 0) {
			if (errno == EINTR)
				continue;
			hzg_error(errno, "poll %s/%s", g->dir, UDC_FILE);
			hzg_fatal(g);
			return false;
		}
		if (p.revents & POLLHUP)	/* replaced once more */
			continue;
		if (p.revents & POLLIN)		/* setup state left: events */
			return false;
		if (p.revents & POLLOUT)
			res = resolve_in_or_nodata(g);
		else
			res = resolve_out_data(g);
	}
	if (res == RES_RETRY)
		hzg_error(0, "ep0: cannot finish an interrupted request");
	return res == RES_HELD;
}

/*
 * hzg_ep0_resolve() finished a request but no event came for it: a SETUP event
 * can be lost in gadgetfs (ep0_read() copies the event out unlocked; a setup
 * that arrives meanwhile replaces it in the queue and is then removed in
 * its stead), or it is still on its way. The host retries what it missed
 * (a stalled SYNC); an ARM whose data we hold is applied.
 */
void hzg_orphan_no_event(struct gadget *g, struct orphan *o)
{
	struct hzg_arm arm;

	if (o->kind == HZG_ORPHAN_DATA &&
	    hzg_arm_parse(o->data, o->len, &arm) == HZG_ARM_OK) {
		hzg_info("ep0: ARM seq %u finished blind without event: applied",
		     arm.seq);
		arm_apply(g, &arm);
	} else {
		hzg_info("ep0: request finished blind (%s) had no event",
		     hzg_orphan_name(o->kind));
	}
	o->kind = HZG_ORPHAN_NONE;
}
