// SPDX-License-Identifier: GPL-2.0
/*
 * The scripted host: usbcore, the hzrig host driver and the HCD half of
 * dummy_hcd, as the scenarios call them; every check counted.
 */
#include "sim.h"

/* ---------------------------------------------------------------- */
/* the host: usbcore, the hzrig host driver and the HCD half of dummy_hcd */


bool sim_configured;

void sim_check(bool ok, const char *fmt, ...)
{
	va_list ap;

	sim_checks++;
	if (!ok)
		sim_failures++;
	fprintf(stderr, "%s %d - ", ok ? "ok" : "not ok", sim_checks);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void sim_msleep(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * dummy_hcd works on a 125 us hrtimer: an URB is looked at on the next
 * tick after submission and given back on a tick. Without this the model
 * would be harsher than the hardware (a setup could follow the previous
 * request's completion within microseconds).
 */
static void dummy_tick(void)
{
	struct timespec ts = { 0, 125000 };

	nanosleep(&ts, NULL);
}

/* One wait for any change; false once @deadline has passed. */
static bool wait_step(uint64_t deadline)
{
	struct timespec ts = {
		.tv_sec = deadline / 1000000000ull,
		.tv_nsec = deadline % 1000000000ull,
	};

	if (sim_now_ns() >= deadline)
		return false;
	pthread_cond_timedwait(&sim_cond, &sim_mutex, &ts);
	return true;
}

static bool wait_until(bool *flag, uint64_t deadline)
{
	struct timespec ts = {
		.tv_sec = deadline / 1000000000ull,
		.tv_nsec = deadline % 1000000000ull,
	};

	while (!*flag)
		if (pthread_cond_timedwait(&sim_cond, &sim_mutex, &ts) == ETIMEDOUT)
			return *flag;
	return true;
}

/*
 * usb_control_msg(): returns bytes or -errno. @data_delay_ms holds the
 * OUT data stage back, as a slow controller would; SIM_DATA_NEVER never
 * sends it, and the call times out.
 */
int sim_ctrl_data(uint8_t type, uint8_t req, uint16_t value,
		     uint16_t index, void *data, uint16_t len,
		     unsigned int timeout_ms, unsigned int data_delay_ms)
{
	uint64_t deadline = sim_now_ns() + timeout_ms * 1000000ull;
	int r;

	dummy_tick();
	pthread_mutex_lock(&sim_mutex);
	memset(&sim_hx, 0, sizeof(sim_hx));
	sim_hx.setup.bRequestType = type;
	sim_hx.setup.bRequest = req;
	sim_hx.setup.wValue = htole16(value);
	sim_hx.setup.wIndex = htole16(index);
	sim_hx.setup.wLength = htole16(len);
	sim_hx.len = len;
	if (!(type & USB_DIR_IN) && len)
		memcpy(sim_hx.data, data, len);
	sim_hx.active = true;
	r = sim_gadgetfs_setup(&sim_hx.setup, data_delay_ms > 0);
	if (r < 0) {
		sim_hx.active = false;
		pthread_mutex_unlock(&sim_mutex);
		return -EPIPE;
	}
	if (r == 1 && data_delay_ms != SIM_DATA_NEVER) {
		pthread_mutex_unlock(&sim_mutex);
		sim_msleep(data_delay_ms);
		pthread_mutex_lock(&sim_mutex);
		sim_deliver_out_data();
	}
	if (!wait_until(&sim_hx.done, deadline)) {
		sim_hx.active = false;		/* usb_kill_urb() */
		pthread_mutex_unlock(&sim_mutex);
		return -ETIMEDOUT;
	}
	r = sim_hx.status ? sim_hx.status : (int)sim_hx.actual;
	if ((type & USB_DIR_IN) && r > 0)
		memcpy(data, sim_hx.data, r);
	pthread_mutex_unlock(&sim_mutex);
	dummy_tick();
	pthread_mutex_lock(&sim_mutex);
	sim_dev.req_busy = false;		/* given back on the tick */
	pthread_mutex_unlock(&sim_mutex);
	return r;
}

int sim_ctrl(uint8_t type, uint8_t req, uint16_t value, void *data,
		uint16_t len, unsigned int timeout_ms)
{
	return sim_ctrl_data(type, req, value, 0, data, len, timeout_ms, 0);
}

/* The ARM record for a target; start_ns 0: none. */
struct hzrig_arm sim_arm_record(unsigned int target, unsigned int beh,
				uint32_t seq, uint32_t delay_us,
				uint32_t length, uint64_t start_ns)
{
	/* the length as given, SHORT's too: the scenarios say what they want */
	return hzrig_arm_make(target, beh, seq, delay_us, length, length,
			      start_ns);
}

/* ARM with the host's start time (CLOCK_MONOTONIC ns, 0: none) */
int sim_arm_at(unsigned int target, unsigned int beh, uint32_t seq,
		  uint32_t delay_us, uint32_t length, uint64_t start_ns)
{
	struct hzrig_arm a = sim_arm_record(target, beh, seq, delay_us, length,
					    start_ns);
	int r = sim_ctrl(VOUT, HZRIG_REQ_ARM, 0, &a, sizeof(a), 1000);

	/*
	 * A well-behaved host lets the gadget read the ARM before its next
	 * control request: gadgetfs drops a SETUP event nobody read when
	 * the next one comes (see scenario_race()).
	 */
	sim_msleep(3);
	return r;
}

int sim_arm(unsigned int target, unsigned int beh, uint32_t seq,
	       uint32_t delay_us, uint32_t length)
{
	return sim_arm_at(target, beh, seq, delay_us, length, 0);
}

uint32_t sim_hdr_seq(const uint8_t *b)
{
	struct hzrig_payload_hdr h;

	memcpy(&h, b, sizeof(h));
	return le32toh(h.magic) == HZRIG_PAYLOAD_MAGIC ? le32toh(h.seq) :
	       0xdeadbeef;
}

void sim_fill_out(uint8_t *b, unsigned int len, uint32_t seq)
{
	struct hzrig_payload_hdr h = {
		.magic = htole32(HZRIG_PAYLOAD_MAGIC),
		.seq = htole32(seq),
	};

	memset(b, 0x5a, len);
	memcpy(b, &h, len < sizeof(h) ? len : sizeof(h));
}

static struct fep *ep_by_addr(uint8_t addr)
{
	for (int i = 0; i < N_EPS; i++)
		if (sim_eps[i].state == EP_ENABLED && sim_eps[i].desc[2] == addr)
			return &sim_eps[i];
	return NULL;
}

static bool ep_has_data(struct fep *e)
{
	return e->halted || e->fifo_full || (e->req_active && !e->req_done);
}

/* usb_bulk_msg()/usb_interrupt_msg() IN: bytes or -errno */
int sim_xfer_in(uint8_t addr, uint8_t *buf, unsigned int len,
		   unsigned int timeout_ms)
{
	uint64_t deadline = sim_now_ns() + timeout_ms * 1000000ull;
	unsigned int got = 0, n, maxp;
	struct fep *e;

	pthread_mutex_lock(&sim_mutex);
	for (;;) {
		e = ep_by_addr(addr);
		if (!e) {
			pthread_mutex_unlock(&sim_mutex);
			return -EPROTO;		/* "no ep configured" */
		}
		if (!ep_has_data(e)) {
			if (!wait_step(deadline)) {
				pthread_mutex_unlock(&sim_mutex);
				return -ETIMEDOUT;	/* usb_kill_urb() */
			}
			continue;
		}
		if (e->halted) {
			pthread_mutex_unlock(&sim_mutex);
			return -EPIPE;
		}
		maxp = sim_ep_maxp(e);
		if (e->fifo_full) {
			n = e->fifo_len < len - got ? e->fifo_len : len - got;
			memcpy(buf + got, e->fifo, n);
			e->fifo_full = false;
		} else {
			n = e->req_len < len - got ? e->req_len : len - got;
			memcpy(buf + got, e->req_buf, n);
			e->req_actual = n;
			e->req_done = true;
			e->req_active = false;
			sim_wake(e->wake);
		}
		got += n;
		/* a short packet or a full buffer ends the transfer */
		if (n % maxp || n == 0 || got == len)
			break;
	}
	pthread_mutex_unlock(&sim_mutex);
	return got;
}

/* usb_bulk_msg() OUT */
int sim_xfer_out(uint8_t addr, const uint8_t *buf, unsigned int len,
		    unsigned int timeout_ms)
{
	uint64_t deadline = sim_now_ns() + timeout_ms * 1000000ull;
	struct fep *e;
	unsigned int n;

	pthread_mutex_lock(&sim_mutex);
	for (;;) {
		e = ep_by_addr(addr);
		if (!e) {
			pthread_mutex_unlock(&sim_mutex);
			return -EPROTO;
		}
		if (e->halted) {
			pthread_mutex_unlock(&sim_mutex);
			return -EPIPE;
		}
		if (e->req_active && !e->req_done)
			break;
		if (!wait_step(deadline)) {
			pthread_mutex_unlock(&sim_mutex);
			return -ETIMEDOUT;
		}
	}
	n = len < e->req_len ? len : e->req_len;
	memcpy(e->req_buf, buf, n);
	e->req_actual = n;
	e->req_status = len > e->req_len ? -EOVERFLOW : 0;
	e->req_done = true;
	e->req_active = false;
	sim_wake(e->wake);
	pthread_mutex_unlock(&sim_mutex);
	return n;
}

void sim_clear_halt(uint8_t addr)
{
	struct fep *e;

	pthread_mutex_lock(&sim_mutex);
	e = ep_by_addr(addr);
	if (e)
		e->halted = false;	/* dummy_hcd, CLEAR_FEATURE(HALT) */
	pthread_mutex_unlock(&sim_mutex);
}

/* bus reset: dummy_hcd stop_activity() and gadgetfs_disconnect() */
void sim_disconnect(void)
{
	pthread_mutex_lock(&sim_mutex);
	for (int i = 0; i < N_EPS; i++) {
		struct fep *e = &sim_eps[i];

		if (e->req_active) {
			e->req_active = false;
			e->req_done = true;
			e->req_status = -ESHUTDOWN;
			sim_wake(e->wake);
		}
		e->fifo_full = false;
	}
	if (sim_dev.state != ST_UNCONNECTED) {
		sim_dev.state = ST_UNCONNECTED;
		sim_next_event(GADGETFS_DISCONNECT);
		sim_wake(sim_dev.wake);
	}
	sim_configured = false;
	pthread_mutex_unlock(&sim_mutex);
}

bool sim_all_enabled(unsigned int min_enables)
{
	bool ok = true;

	pthread_mutex_lock(&sim_mutex);
	for (int i = 0; i < 3; i++)
		ok = ok && sim_eps[i].state == EP_ENABLED &&
		     sim_eps[i].enables >= min_enables;
	pthread_mutex_unlock(&sim_mutex);
	return ok;
}

void sim_enumerate(unsigned int round)
{
	uint8_t d[18];
	int r;

	r = sim_ctrl(0x80, USB_REQ_GET_DESCRIPTOR, USB_DT_DEVICE << 8, d, 18,
		 1000);
	sim_check(r == 18, "enumeration %u: device descriptor in the kernel (%d)",
	      round, r);
	r = sim_ctrl(0x00, USB_REQ_SET_CONFIGURATION, 1, NULL, 0, 1000);
	/* another device (-D) opens no endpoint files: nothing to enable */
	sim_check(r == 0 && (sim_device || sim_all_enabled(round)),
	      "enumeration %u: SET_CONFIGURATION acked after endpoints enabled"
	      " (%d)", round, r);
	sim_configured = r == 0;
}

uint64_t sim_t_ms(uint64_t t0)
{
	return (sim_now_ns() - t0) / 1000000;
}
