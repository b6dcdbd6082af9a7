// SPDX-License-Identifier: GPL-2.0
/*
 * fake_gadgetfs.c - run hzrig-gadget against a model of gadgetfs and
 * dummy_hcd, on the build machine, with a scripted host.
 *
 * Linked into the gadget with ld --wrap for open/read/write/close/fcntl/
 * poll/ppoll/access, so that paths under SIM_DIR reach the model and all
 * else the real calls. The ep0 model follows drivers/usb/gadget/legacy/
 * inode.c (6.1) closely - state, event queue with its de-duplication, the
 * setup_abort report, what read()/write()/poll() mean in each state - and
 * the endpoint model the parts of dummy_hcd the gadget depends on: NAK when
 * nothing is queued, the single-request IN FIFO, halts, maxpacket checks.
 * It is a model: it catches the gadget mishandling those semantics, not
 * the semantics being modelled wrongly. The guest boot stays the real test.
 *
 * The host thread starts when the descriptors are written, runs the
 * scenarios in host_main(), prints KTAP and sends SIGTERM; the exit code is
 * the number of failed checks (capped), or 99 if the host never finished.
 */
#include "sim.h"

/*
 * ep0 as the host driver uses it, step by step.
 * Long: a scenario is a script of checks read top to bottom, each step
 * building on the state the one before left.
 */
static void scenario_ep0(void)
{
	uint8_t b[256];
	uint64_t t0;
	int r;

	r = sim_ctrl(0x80, USB_REQ_GET_DESCRIPTOR, USB_DT_STRING << 8 | 1, b, 255,
		 1000);
	sim_check(r == 12 && b[0] == 12 && b[1] == USB_DT_STRING &&
	      !memcmp(b + 2, "h\0z\0r\0i\0g\0", 10),
	      "string 1 answered by the gadget (%d)", r);
	r = sim_ctrl(0x80, USB_REQ_GET_DESCRIPTOR, USB_DT_STRING << 8 | 9, b, 255,
		 1000);
	sim_check(r == -EPIPE, "unknown string stalled (%d)", r);
	r = sim_ctrl(VOUT, 0x77, 0, NULL, 0, 1000);
	sim_check(r == -EPIPE, "unknown vendor OUT stalled (%d)", r);
	r = sim_ctrl(VIN, 0x77, 0, b, 8, 1000);
	sim_check(r == -EPIPE, "unknown vendor IN stalled (%d)", r);
	r = sim_ctrl(VOUT, HZRIG_REQ_RESET, 0, NULL, 0, 1000);
	sim_check(r == 0, "RESET acked (%d)", r);

	r = sim_ctrl(VIN, HZRIG_REQ_TEST_IN, 1, b, 64, 1000);
	sim_check(r == 64 && sim_hdr_seq(b) == 1, "unarmed TEST_IN answered (%d)", r);

	sim_check(sim_arm(HZRIG_TARGET_EP0_IN, HZRIG_BEH_STALL, 2, 0, 0) ==
	      (int)sizeof(struct hzrig_arm), "ARM accepted");
	r = sim_ctrl(VIN, HZRIG_REQ_TEST_IN, 2, b, 64, 1000);
	sim_check(r == -EPIPE, "ep0 IN STALL (%d)", r);

	sim_arm(HZRIG_TARGET_EP0_IN, HZRIG_BEH_DELAY, 3, 30000, 0);
	t0 = sim_now_ns();
	r = sim_ctrl(VIN, HZRIG_REQ_TEST_IN, 3, b, 64, 1000);
	sim_check(r == 64 && sim_hdr_seq(b) == 3 && sim_t_ms(t0) >= 30,
	      "ep0 IN DELAY 30 ms answered after %llu ms (%d)",
	      (unsigned long long)sim_t_ms(t0), r);

	sim_arm(HZRIG_TARGET_EP0_IN, HZRIG_BEH_SHORT, 4, 0, 10);
	r = sim_ctrl(VIN, HZRIG_REQ_TEST_IN, 4, b, 64, 1000);
	sim_check(r == 10 && sim_hdr_seq(b) == 4, "ep0 IN SHORT 10 (%d)", r);

	/* NAK, the host gives up, its next ARM arrives while ep0 holds */
	sim_arm(HZRIG_TARGET_EP0_IN, HZRIG_BEH_NAK, 5, 0, 0);
	t0 = sim_now_ns();
	r = sim_ctrl(VIN, HZRIG_REQ_TEST_IN, 5, b, 64, 50);
	sim_check(r == -ETIMEDOUT && sim_t_ms(t0) >= 50, "ep0 IN NAK times out (%d)",
	      r);
	r = sim_arm(HZRIG_TARGET_EP0_IN, HZRIG_BEH_ANSWER, 6, 0, 0);
	sim_check(r == (int)sizeof(struct hzrig_arm),
	      "ARM after a killed NAK: data stage done (%d)", r);
	sim_msleep(5);
	r = sim_ctrl(VIN, HZRIG_REQ_TEST_IN, 6, b, 64, 200);
	sim_check(r == 64 && sim_hdr_seq(b) == 6,
	      "... and that ARM was applied: TEST_IN answered (%d)", r);

	/* same, with the ARM's data stage late */
	sim_arm(HZRIG_TARGET_EP0_IN, HZRIG_BEH_NAK, 7, 0, 0);
	r = sim_ctrl(VIN, HZRIG_REQ_TEST_IN, 7, b, 64, 30);
	sim_arm(HZRIG_TARGET_EP0_IN, HZRIG_BEH_NAK, 8, 0, 0);
	r = sim_ctrl(VIN, HZRIG_REQ_TEST_IN, 8, b, 64, 30);
	sim_check(r == -ETIMEDOUT, "second NAK in a row (%d)", r);
	{
		struct hzrig_arm a = {
			.version = HZRIG_WIRE_VERSION,
			.target = HZRIG_TARGET_EP0_IN,
			.behaviour = HZRIG_BEH_DELAY,
			.seq = htole32(9),
			.delay_us = htole32(10000),
		};

		r = sim_ctrl_data(VOUT, HZRIG_REQ_ARM, 0, 0, &a, sizeof(a), 1000,
			      5);
	}
	sim_msleep(5);
	t0 = sim_now_ns();
	r = sim_ctrl(VIN, HZRIG_REQ_TEST_IN, 9, b, 64, 500);
	sim_check(r == 64 && sim_hdr_seq(b) == 9 && sim_t_ms(t0) >= 10,
	      "ARM with a late data stage after a held NAK applied (%d)", r);

	/* ep0 OUT without data stage: NAK, then RESET (no data either) */
	sim_arm(HZRIG_TARGET_EP0_OUT, HZRIG_BEH_NAK, 10, 0, 0);
	r = sim_ctrl(VOUT, HZRIG_REQ_TEST_OUT, 10, NULL, 0, 50);
	sim_check(r == -ETIMEDOUT, "ep0 OUT (no data) NAK times out (%d)", r);
	r = sim_ctrl(VOUT, HZRIG_REQ_RESET, 0, NULL, 0, 500);
	sim_check(r == 0, "RESET arriving while ep0 holds is acked (%d)", r);
	r = sim_ctrl(VOUT, HZRIG_REQ_TEST_OUT, 11, NULL, 0, 500);
	sim_check(r == 0, "... RESET disarmed ep0 OUT: TEST_OUT acked (%d)", r);

	/* NAK, then a test the host did not arm: an unseen IN is stalled */
	sim_arm(HZRIG_TARGET_EP0_IN, HZRIG_BEH_NAK, 12, 0, 0);
	r = sim_ctrl(VIN, HZRIG_REQ_TEST_IN, 12, b, 64, 30);
	r = sim_ctrl(VIN, HZRIG_REQ_TEST_IN, 13, b, 64, 300);
	sim_check(r == -EPIPE, "IN arriving while ep0 holds is stalled (%d)", r);
	r = sim_ctrl(VIN, HZRIG_REQ_TEST_IN, 14, b, 64, 300);
	sim_check(r == 64 && sim_hdr_seq(b) == 14, "... and ep0 works after (%d)", r);

	sim_arm(HZRIG_TARGET_EP0_OUT, HZRIG_BEH_STALL, 15, 0, 0);
	r = sim_ctrl(VOUT, HZRIG_REQ_TEST_OUT, 15, NULL, 0, 1000);
	sim_check(r == -EPIPE, "ep0 OUT (no data) STALL (%d)", r);
	sim_arm(HZRIG_TARGET_EP0_OUT, HZRIG_BEH_DELAY, 16, 20000, 0);
	t0 = sim_now_ns();
	r = sim_ctrl(VOUT, HZRIG_REQ_TEST_OUT, 16, NULL, 0, 1000);
	sim_check(r == 0 && sim_t_ms(t0) >= 20, "ep0 OUT DELAY 20 ms: %llu ms (%d)",
	      (unsigned long long)sim_t_ms(t0), r);

	/* with a data stage the kernel answers; the gadget still reads */
	sim_arm(HZRIG_TARGET_EP0_OUT, HZRIG_BEH_NAK, 17, 0, 0);
	sim_fill_out(b, 32, 17);
	r = sim_ctrl(VOUT, HZRIG_REQ_TEST_OUT, 17, b, 32, 1000);
	sim_check(r == 32, "ep0 OUT with data cannot be NAKed (%d)", r);
	r = sim_ctrl(VIN, HZRIG_REQ_TEST_IN, 18, b, 64, 300);
	sim_check(r == 64, "... and its data was collected: ep0 works (%d)", r);

	/* DELAY longer than the host waits: answered late, then flushed */
	sim_arm(HZRIG_TARGET_EP0_IN, HZRIG_BEH_DELAY, 19, 60000, 0);
	r = sim_ctrl(VIN, HZRIG_REQ_TEST_IN, 19, b, 64, 20);
	sim_check(r == -ETIMEDOUT, "ep0 DELAY beyond the timeout (%d)", r);
	r = sim_arm(HZRIG_TARGET_EP0_IN, HZRIG_BEH_ANSWER, 20, 0, 0);
	sim_msleep(5);
	r = sim_ctrl(VIN, HZRIG_REQ_TEST_IN, 20, b, 64, 300);
	sim_check(r == 64 && sim_hdr_seq(b) == 20, "... next seq answered (%d)", r);
	sim_msleep(60);
	r = sim_ctrl(VIN, HZRIG_REQ_TEST_IN, 21, b, 64, 300);
	sim_check(r == 64 && sim_hdr_seq(b) == 21,
	      "... and the dead DELAY never answered later (%d)", r);

	/* invalid arms are ignored: the target stays unarmed */
	{
		struct hzrig_arm a = {
			.version = 9,
			.target = HZRIG_TARGET_EP0_IN,
			.behaviour = HZRIG_BEH_STALL,
			.seq = htole32(22),
		};

		r = sim_ctrl(VOUT, HZRIG_REQ_ARM, 0, &a, sizeof(a), 1000);
		sim_msleep(5);
		r = sim_ctrl(VIN, HZRIG_REQ_TEST_IN, 22, b, 64, 300);
		sim_check(r == 64, "ARM with a bad version ignored (%d)", r);
	}
}

#define BULK_IN		0x81
#define BULK_OUT	0x02
#define INT_IN		0x85

/*
 * The bulk and interrupt endpoints, step by step.
 * Long: a scenario is a script of checks read top to bottom, each step
 * building on the state the one before left.
 */
static void scenario_bulk(void)
{
	uint8_t b[4096];
	uint64_t t0;
	int r;

	sim_arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_ANSWER, 100, 0, 100);
	r = sim_xfer_in(BULK_IN, b, 100, 500);
	sim_check(r == 100 && sim_hdr_seq(b) == 100, "bulk IN ANSWER 100 (%d)", r);

	sim_arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_ANSWER, 101, 0, 1024);
	r = sim_xfer_in(BULK_IN, b, 1024, 500);
	sim_check(r == 1024 && sim_hdr_seq(b) == 101, "bulk IN ANSWER 1024 (%d)", r);

	sim_arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_NAK, 102, 0, 8);
	r = sim_xfer_in(BULK_IN, b, 8, 50);
	sim_check(r == -ETIMEDOUT, "bulk IN NAK (%d)", r);
	sim_arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_ANSWER, 103, 0, 8);
	r = sim_xfer_in(BULK_IN, b, 8, 500);
	sim_check(r == 8 && sim_hdr_seq(b) == 103, "bulk IN after NAK (%d)", r);

	/* bulk DELAY runs from the ARM: the gadget cannot see more */
	t0 = sim_now_ns();
	sim_arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_DELAY, 104, 25000, 8);
	r = sim_xfer_in(BULK_IN, b, 8, 500);
	sim_check(r == 8 && sim_hdr_seq(b) == 104 && sim_t_ms(t0) >= 25,
	      "bulk IN DELAY 25 ms: %llu ms (%d)",
	      (unsigned long long)sim_t_ms(t0), r);

	/* a DELAY the host gave up on must not answer the next seq */
	sim_arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_DELAY, 105, 200000, 8);
	r = sim_xfer_in(BULK_IN, b, 8, 30);
	sim_check(r == -ETIMEDOUT, "bulk IN DELAY beyond the timeout (%d)", r);
	sim_arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_ANSWER, 106, 0, 8);
	r = sim_xfer_in(BULK_IN, b, 8, 500);
	sim_check(r == 8 && sim_hdr_seq(b) == 106, "... next seq gets its own (%d)",
	      r);
	sim_arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_NAK, 107, 0, 8);
	r = sim_xfer_in(BULK_IN, b, 8, 300);
	sim_check(r == -ETIMEDOUT, "... the superseded DELAY never wrote (%d)",
	      r);

	sim_arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_STALL, 108, 0, 0);
	r = sim_xfer_in(BULK_IN, b, 8, 500);
	sim_check(r == -EPIPE, "bulk IN STALL (%d)", r);
	sim_clear_halt(BULK_IN);
	sim_arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_ANSWER, 109, 0, 8);
	r = sim_xfer_in(BULK_IN, b, 8, 500);
	sim_check(r == 8 && sim_hdr_seq(b) == 109, "bulk IN after clear halt (%d)",
	      r);

	/* SHORT of whole packets needs the ZLP to end the transfer */
	sim_arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_SHORT, 110, 0, 512);
	r = sim_xfer_in(BULK_IN, b, 1024, 300);
	sim_check(r == 512 && sim_hdr_seq(b) == 110, "bulk IN SHORT 512 + ZLP (%d)",
	      r);
	sim_arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_SHORT, 111, 0, 5);
	r = sim_xfer_in(BULK_IN, b, 64, 300);
	sim_check(r == 5, "bulk IN SHORT 5 (%d)", r);

	sim_arm(HZRIG_TARGET_BULK_OUT, HZRIG_BEH_ANSWER, 120, 0, 100);
	sim_fill_out(b, 100, 120);
	r = sim_xfer_out(BULK_OUT, b, 100, 500);
	sim_check(r == 100, "bulk OUT ANSWER 100 (%d)", r);
	sim_arm(HZRIG_TARGET_BULK_OUT, HZRIG_BEH_NAK, 121, 0, 100);
	r = sim_xfer_out(BULK_OUT, b, 100, 50);
	sim_check(r == -ETIMEDOUT, "bulk OUT NAK (%d)", r);
	sim_fill_out(b, 64, 122);
	t0 = sim_now_ns();
	sim_arm(HZRIG_TARGET_BULK_OUT, HZRIG_BEH_DELAY, 122, 20000, 64);
	r = sim_xfer_out(BULK_OUT, b, 64, 500);
	sim_check(r == 64 && sim_t_ms(t0) >= 20, "bulk OUT DELAY 20 ms: %llu (%d)",
	      (unsigned long long)sim_t_ms(t0), r);
	sim_arm(HZRIG_TARGET_BULK_OUT, HZRIG_BEH_STALL, 123, 0, 0);
	r = sim_xfer_out(BULK_OUT, b, 64, 500);
	sim_check(r == -EPIPE, "bulk OUT STALL (%d)", r);
	sim_clear_halt(BULK_OUT);

	/* a read pending for one arm is cancelled (signal) by the next */
	sim_arm(HZRIG_TARGET_BULK_OUT, HZRIG_BEH_ANSWER, 124, 0, 100);
	sim_msleep(10);
	sim_arm(HZRIG_TARGET_BULK_OUT, HZRIG_BEH_ANSWER, 125, 0, 64);
	sim_msleep(10);
	pthread_mutex_lock(&sim_mutex);
	r = sim_eps[1].req_active ? (int)sim_eps[1].req_len : -1;
	pthread_mutex_unlock(&sim_mutex);
	sim_check(r == 64, "pending bulk OUT read replaced by the new arm's (%d)",
	      r);
	sim_fill_out(b, 64, 125);
	r = sim_xfer_out(BULK_OUT, b, 64, 500);
	sim_check(r == 64, "... which gets the data (%d)", r);

	sim_arm(HZRIG_TARGET_INT_IN, HZRIG_BEH_ANSWER, 130, 0, 16);
	r = sim_xfer_in(INT_IN, b, 16, 500);
	sim_check(r == 16 && sim_hdr_seq(b) == 130, "interrupt IN ANSWER (%d)", r);
	sim_arm(HZRIG_TARGET_INT_IN, HZRIG_BEH_NAK, 131, 0, 16);
	r = sim_xfer_in(INT_IN, b, 16, 50);
	sim_check(r == -ETIMEDOUT, "interrupt IN NAK (%d)", r);

	/* RESET flushes: an answer nobody took is gone */
	sim_arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_ANSWER, 140, 0, 8);
	sim_msleep(10);
	r = sim_ctrl(VOUT, HZRIG_REQ_RESET, 0, NULL, 0, 1000);
	sim_check(r == 0, "RESET (%d)", r);
	sim_arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_NAK, 141, 0, 8);
	r = sim_xfer_in(BULK_IN, b, 8, 50);
	sim_check(r == -ETIMEDOUT, "... dropped the unread answer (%d)", r);
}

/* wire v2: a DELAY is answered at start_ns + delay_us */
static void scenario_start_ns(void)
{
	uint64_t t0, start;
	uint8_t b[64];
	int r;

	/* ep0: the host started 15 ms ago: 20 ms are 5 ms from now */
	start = sim_now_ns() - 15000000ull;
	sim_arm_at(HZRIG_TARGET_EP0_IN, HZRIG_BEH_DELAY, 500, 20000, 0, start);
	t0 = sim_now_ns();
	r = sim_ctrl(VIN, HZRIG_REQ_TEST_IN, 500, b, 64, 500);
	sim_check(r == 64 && sim_hdr_seq(b) == 500 && sim_now_ns() >= start + 20000000ull &&
	      sim_t_ms(t0) < 20, "ep0 IN DELAY counts from start_ns: %llu ms "
	      "after the setup (%d)", (unsigned long long)sim_t_ms(t0), r);

	/* bulk: start 30 ms ahead, 10 ms delay: not before 40 ms */
	t0 = sim_now_ns();
	start = t0 + 30000000ull;
	sim_arm_at(HZRIG_TARGET_BULK_IN, HZRIG_BEH_DELAY, 501, 10000, 8, start);
	r = sim_xfer_in(BULK_IN, b, 8, 500);
	sim_check(r == 8 && sim_hdr_seq(b) == 501 && sim_t_ms(t0) >= 40,
	      "bulk IN DELAY answered at start_ns + delay: %llu ms (%d)",
	      (unsigned long long)sim_t_ms(t0), r);

	/* a DELAY with start_ns that a RESET overtakes never answers */
	start = sim_now_ns() + 5000000ull;
	sim_arm_at(HZRIG_TARGET_INT_IN, HZRIG_BEH_DELAY, 502, 20000, 16, start);
	r = sim_xfer_in(INT_IN, b, 16, 10);
	sim_check(r == -ETIMEDOUT, "int IN DELAY past the timeout (%d)", r);
	sim_ctrl(VOUT, HZRIG_REQ_RESET, 0, NULL, 0, 1000);
	sim_msleep(30);
	r = sim_xfer_in(INT_IN, b, 16, 10);
	sim_check(r == -ETIMEDOUT, "... no late answer after RESET (%d)", r);
}

/*
 * An answer that sits in dummy_hcd's FIFO after its transfer was given up
 * (or never started) must not reach a later seq, even without RESET.
 */
static void scenario_stale_fifo(void)
{
	uint8_t b[64];
	int r;

	/* the host armed, then re-armed a new seq before any transfer */
	sim_arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_ANSWER, 600, 0, 8);
	sim_msleep(5);
	sim_arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_ANSWER, 601, 0, 8);
	r = sim_xfer_in(BULK_IN, b, 8, 200);
	sim_check(r == 8 && sim_hdr_seq(b) == 601,
	      "re-armed bulk IN gets the new seq, not the unread %u (%d)",
	      r >= 8 ? sim_hdr_seq(b) : 0, r);

	/* a late DELAY answer, then a NAK armed without RESET */
	sim_arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_DELAY, 602, 15000, 8);
	r = sim_xfer_in(BULK_IN, b, 8, 5);
	sim_check(r == -ETIMEDOUT, "bulk IN DELAY 15 ms, T 5 ms (%d)", r);
	sim_msleep(25);
	sim_arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_NAK, 603, 0, 8);
	r = sim_xfer_in(BULK_IN, b, 8, 20);
	sim_check(r == -ETIMEDOUT, "... the late answer is withdrawn by the next "
	      "ARM (%d, seq %u)", r, r >= 8 ? sim_hdr_seq(b) : 0);

	/* the same on interrupt IN, answered by the next seq */
	sim_arm(HZRIG_TARGET_INT_IN, HZRIG_BEH_DELAY, 604, 15000, 16);
	r = sim_xfer_in(INT_IN, b, 16, 5);
	sim_check(r == -ETIMEDOUT, "int IN DELAY 15 ms, T 5 ms (%d)", r);
	sim_msleep(25);
	sim_arm(HZRIG_TARGET_INT_IN, HZRIG_BEH_ANSWER, 605, 0, 16);
	r = sim_xfer_in(INT_IN, b, 16, 200);
	sim_check(r == 16 && sim_hdr_seq(b) == 605,
	      "... next int IN seq gets its own answer (%d, seq %u)", r,
	      r >= 8 ? sim_hdr_seq(b) : 0);
}

/* A bulk IN transfer run from its own thread, as a second lane would. */
struct bg_in {
	pthread_t	thread;
	uint8_t		addr;
	unsigned int	len, timeout_ms;
	uint8_t		buf[64];
	int		r;
	uint64_t	t0, t1;
	bool		done;
};

static void *bg_in_main(void *arg)
{
	struct bg_in *x = arg;

	x->t0 = sim_now_ns();
	x->r = sim_xfer_in(x->addr, x->buf, x->len, x->timeout_ms);
	x->t1 = sim_now_ns();
	__atomic_store_n(&x->done, true, __ATOMIC_RELEASE);
	return NULL;
}

static bool bg_done(struct bg_in *x)
{
	return __atomic_load_n(&x->done, __ATOMIC_ACQUIRE);
}

/*
 * Lanes: the host runs transfers on several endpoints at once and arms and
 * resets one target while another endpoint has a transfer in flight.
 */
static void scenario_lanes(void)
{
	struct bg_in x = { .addr = BULK_IN, .len = 8, .timeout_ms = 400 };
	uint8_t b[64];
	uint64_t start;
	int r;

	/* bulk IN answers 60 ms after its start; meanwhile the other lanes */
	start = sim_now_ns();
	sim_arm_at(HZRIG_TARGET_BULK_IN, HZRIG_BEH_DELAY, 700, 60000, 8, start);
	pthread_create(&x.thread, NULL, bg_in_main, &x);

	sim_arm(HZRIG_TARGET_BULK_OUT, HZRIG_BEH_ANSWER, 701, 0, 64);
	sim_fill_out(b, 64, 701);
	r = sim_xfer_out(BULK_OUT, b, 64, 200);
	sim_check(r == 64 && !bg_done(&x),
	      "lanes: bulk OUT answered while bulk IN waits for its DELAY (%d)",
	      r);
	sim_arm(HZRIG_TARGET_INT_IN, HZRIG_BEH_ANSWER, 702, 0, 16);
	r = sim_xfer_in(INT_IN, b, 16, 200);
	sim_check(r == 16 && sim_hdr_seq(b) == 702 && !bg_done(&x),
	      "lanes: int IN answered meanwhile (%d)", r);
	r = sim_ctrl_data(VOUT, HZRIG_REQ_RESET, 1u << HZRIG_TARGET_INT_IN, 0,
		      NULL, 0, 1000, 0);
	sim_check(r == 0 && !bg_done(&x),
	      "lanes: RESET of int IN alone acked, bulk IN still waiting (%d)",
	      r);
	r = sim_ctrl(VIN, HZRIG_REQ_TEST_IN, 703, b, 64, 300);
	sim_check(r == 64 && sim_hdr_seq(b) == 703, "lanes: ep0 IN meanwhile (%d)", r);
	pthread_join(x.thread, NULL);
	sim_check(x.r == 8 && sim_hdr_seq(x.buf) == 700 &&
	      x.t1 >= start + 60000000ull,
	      "lanes: ... bulk IN got its DELAY answer at %llu ms (%d)",
	      (unsigned long long)((x.t1 - start) / 1000000), x.r);

	/* RESET of one target leaves another's unread answer alone */
	sim_arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_ANSWER, 710, 0, 8);
	sim_msleep(10);
	r = sim_ctrl(VOUT, HZRIG_REQ_RESET, 1u << HZRIG_TARGET_BULK_OUT, NULL, 0,
		 1000);
	sim_check(r == 0, "lanes: RESET of bulk OUT (%d)", r);
	r = sim_xfer_in(BULK_IN, b, 8, 200);
	sim_check(r == 8 && sim_hdr_seq(b) == 710,
	      "lanes: ... bulk IN's answer survived it (%d)", r);
	sim_arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_ANSWER, 711, 0, 8);
	sim_msleep(10);
	r = sim_ctrl(VOUT, HZRIG_REQ_RESET, 1u << HZRIG_TARGET_BULK_IN, NULL, 0,
		 1000);
	sim_check(r == 0, "lanes: RESET of bulk IN (%d)", r);
	r = sim_xfer_in(BULK_IN, b, 8, 50);
	sim_check(r == -ETIMEDOUT, "lanes: ... dropped its unread answer (%d)", r);

	/* ep0 targets: armed state survives another target's RESET */
	sim_arm(HZRIG_TARGET_EP0_IN, HZRIG_BEH_STALL, 720, 0, 0);
	sim_ctrl(VOUT, HZRIG_REQ_RESET, 1u << HZRIG_TARGET_BULK_IN, NULL, 0, 1000);
	r = sim_ctrl(VIN, HZRIG_REQ_TEST_IN, 720, b, 64, 300);
	sim_check(r == -EPIPE, "lanes: ep0 IN arm survives a bulk IN RESET (%d)",
	      r);
	sim_arm(HZRIG_TARGET_EP0_IN, HZRIG_BEH_STALL, 721, 0, 0);
	sim_ctrl(VOUT, HZRIG_REQ_RESET, (1u << HZRIG_TARGET_EP0_IN) |
	     (1u << HZRIG_TARGET_EP0_OUT), NULL, 0, 1000);
	r = sim_ctrl(VIN, HZRIG_REQ_TEST_IN, 721, b, 64, 300);
	sim_check(r == 64 && sim_hdr_seq(b) == 721,
	      "lanes: ... and is dropped by its own (%d)", r);

	/* a mask naming no target is refused */
	r = sim_ctrl(VOUT, HZRIG_REQ_RESET, 1u << HZRIG_TARGET_COUNT, NULL, 0,
		 1000);
	sim_check(r == -EPIPE, "lanes: RESET of an unknown target stalled (%d)",
	      r);
}

static void scenario_misc(void)
{
	uint8_t b[64];
	int r;

	r = sim_ctrl(0x81, USB_REQ_GET_INTERFACE, 0, b, 1, 1000);
	sim_check(r == 1 && b[0] == 0, "GET_INTERFACE answers alt 0 (%d)", r);
	r = sim_ctrl(0x01, USB_REQ_SET_INTERFACE, 0, NULL, 0, 1000);
	sim_check(r == 0 && sim_all_enabled(2), "SET_INTERFACE 0 re-enables (%d)", r);
	r = sim_ctrl(0x01, USB_REQ_SET_INTERFACE, 1, NULL, 0, 1000);
	sim_check(r == -EPIPE, "SET_INTERFACE alt 1 stalled (%d)", r);
	memset(b, 0, sizeof(b));
	r = sim_ctrl(VOUT, 0x78, 0, b, 20, 1000);
	sim_check(r == 20, "unknown OUT with data: the kernel answered (%d)", r);
	r = sim_ctrl(VIN, HZRIG_REQ_TEST_IN, 300, b, 64, 300);
	sim_check(r == 64, "... and the gadget collected it (%d)", r);
}

/*
 * An ARM whose OUT data stage never comes, and the host gives up on it: the
 * gadget must not wait for that data for good - gadgetfs' blocking read()
 * does, as a newer setup clears what it waits for (docs/robustness.md, the
 * ep0 wedge) - and must answer the setups after it.
 */
/*
 * After a disturbed ARM: a RESET of ep0 IN is acked (ep0 is not wedged) and
 * the next ARM (@seq, a STALL) applies. @what names the scenario.
 */
static void check_ep0_recovers(const char *what, uint32_t seq)
{
	uint8_t b[64];
	int r;

	r = sim_ctrl(VOUT, HZRIG_REQ_RESET, 1u << HZRIG_TARGET_EP0_IN, NULL, 0,
		     1000);
	sim_check(r == 0, "%s: ... then a RESET is acked: ep0 not wedged (%d)",
		  what, r);
	sim_arm(HZRIG_TARGET_EP0_IN, HZRIG_BEH_STALL, seq, 0, 0);
	r = sim_ctrl(VIN, HZRIG_REQ_TEST_IN, seq, b, 64, 300);
	sim_check(r == -EPIPE, "%s: ... and the next ARM applies (%d)", what,
		  r);
}

static void scenario_lost_data(void)
{
	struct hzrig_arm a = sim_arm_record(HZRIG_TARGET_EP0_IN,
					    HZRIG_BEH_STALL, 450, 0, 0, 0);
	int r;

	r = sim_ctrl_data(VOUT, HZRIG_REQ_ARM, 0, 0, &a, sizeof(a), 50,
			  SIM_DATA_NEVER);
	sim_check(r == -ETIMEDOUT,
		  "lost data: ARM whose data stage never comes times out (%d)",
		  r);
	check_ep0_recovers("lost data", 451);
}

/*
 * The host's SYNC comes while the gadget reads the ARM's data, between
 * gadgetfs' O_NONBLOCK check and its sleep (race_window()): the SYNC clears
 * what that sleep waits for. The gadget must get out (its read guard),
 * finish the SYNC and go on; before, ep0 was wedged for good.
 */
static void scenario_read_race(void)
{
	struct hzrig_arm a = sim_arm_record(HZRIG_TARGET_EP0_IN,
					    HZRIG_BEH_STALL, 460, 0, 0, 0);
	uint8_t b[64];
	bool in_read = false;
	int r;

	pthread_mutex_lock(&sim_mutex);
	sim_race_read = true;
	sim_race_in_read = false;
	pthread_mutex_unlock(&sim_mutex);
	r = sim_ctrl(VOUT, HZRIG_REQ_ARM, 0, &a, sizeof(a), 1000);
	sim_check(r == (int)sizeof(a), "read race: ARM sent (%d)", r);
	for (int i = 0; i < 1000 && !in_read; i++) {
		sim_msleep(1);
		pthread_mutex_lock(&sim_mutex);
		in_read = sim_race_in_read;
		pthread_mutex_unlock(&sim_mutex);
	}
	sim_check(in_read, "read race: the gadget reads the ARM's data");
	r = sim_ctrl(VIN, HZRIG_REQ_SYNC, 0, b, 4, 300);
	sim_check(r == 4 || r == -EPIPE,
		  "read race: SYNC meanwhile answered or stalled, not lost (%d)",
		  r);
	check_ep0_recovers("read race", 461);
	pthread_mutex_lock(&sim_mutex);
	sim_race_read = false;
	pthread_mutex_unlock(&sim_mutex);
}

/*
 * ARM and then the test at once, as hzrig_host does on a one-CPU guest
 * (it busy-waits for the tick, so the gadget cannot run in between):
 * gadgetfs drops the ARM's SETUP event if it was not read before the test
 * setup came. Whatever happens, ep0 must never hang and must recover.
 */
static void scenario_race(void)
{
	struct hzrig_arm a = {
		.version = HZRIG_WIRE_VERSION,
		.target = HZRIG_TARGET_EP0_IN,
		.behaviour = HZRIG_BEH_NAK,
	};
	int applied = 0, lost = 0, stalled = 0, other = 0;
	uint8_t b[64];
	int r;

	for (uint32_t seq = 400; seq < 420; seq++) {
		a.seq = htole32(seq);
		sim_ctrl(VOUT, HZRIG_REQ_ARM, 0, &a, sizeof(a), 1000);
		r = sim_ctrl(VIN, HZRIG_REQ_TEST_IN, seq, b, 64, 20);
		if (r == -ETIMEDOUT)
			applied++;
		else if (r == 64)
			lost++;
		else if (r == -EPIPE)
			stalled++;
		else
			other++;
	}
	fprintf(stderr, "# ARM+TEST back to back: %d applied, %d lost and "
		"answered, %d stalled\n", applied, lost, stalled);
	sim_check(other == 0, "back-to-back ARM+TEST: only known outcomes");
	r = sim_arm(HZRIG_TARGET_EP0_IN, HZRIG_BEH_STALL, 420, 0, 0);
	r = sim_ctrl(VIN, HZRIG_REQ_TEST_IN, 420, b, 64, 300);
	sim_check(r == -EPIPE, "... and the next well-spaced ARM works (%d)", r);
}

static void scenario_reconnect(void)
{
	uint8_t b[64];
	int r;

	sim_arm(HZRIG_TARGET_EP0_IN, HZRIG_BEH_NAK, 200, 0, 0);
	sim_arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_DELAY, 201, 500000, 8);
	sim_ctrl(VIN, HZRIG_REQ_TEST_IN, 200, b, 64, 20);
	sim_disconnect();
	sim_msleep(20);
	sim_enumerate(2);
	sim_arm(HZRIG_TARGET_BULK_IN, HZRIG_BEH_ANSWER, 202, 0, 8);
	r = sim_xfer_in(BULK_IN, b, 8, 500);
	sim_check(r == 8 && sim_hdr_seq(b) == 202, "bulk IN after reconnect (%d)", r);
	r = sim_ctrl(VIN, HZRIG_REQ_TEST_IN, 203, b, 64, 300);
	sim_check(r == 64 && sim_hdr_seq(b) == 203, "ep0 after reconnect (%d)", r);
}

/*
 * hzrig-gadget -D gadget/devices/ipheth.device (SIM_DEVICE set): the rules
 * apply, the standard requests gadgetfs leaves to us are answered from the
 * file, and a driver re-probing after a timeout (the same GET_MACADDR at
 * once) finds it NAKed each time, never stalled (ep0.c's unseen hold).
 */
static void scenario_device(void)
{
	int naks = 0, stalls = 0, other = 0;
	uint8_t b[64];
	int r;

	r = sim_ctrl(0x01, USB_REQ_SET_INTERFACE, 1, NULL, 0, 1000);
	sim_check(r == 0, "device: SET_INTERFACE to its alt 1 acked (%d)", r);
	r = sim_ctrl(0x01, USB_REQ_SET_INTERFACE, 2, NULL, 0, 1000);
	sim_check(r == -EPIPE, "device: SET_INTERFACE to alt 2 stalled (%d)", r);
	r = sim_ctrl(0x81, USB_REQ_GET_INTERFACE, 0, b, 1, 1000);
	sim_check(r == 1, "device: GET_INTERFACE answered (%d)", r);
	r = sim_ctrl_data(0xc0, 0x45, 0, 2, b, 64, 300, 0);
	sim_check(r == -EPIPE, "device: a request without a rule is stalled (%d)",
		  r);
	for (int i = 0; i < 6; i++) {
		r = sim_ctrl_data(0xc0, 0x00, 0, 2, b, 64, 30, 0);
		naks += r == -ETIMEDOUT;
		stalls += r == -EPIPE;
		other += r != -ETIMEDOUT && r != -EPIPE;
	}
	sim_check(naks == 6, "device: GET_MACADDR six times in a row, NAKed "
		  "each time (%d NAKed, %d stalled, %d other)", naks, stalls,
		  other);
}

void *sim_host_main(void *arg)
{
	sigset_t all;

	(void)arg;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	fprintf(stderr, "KTAP version 1\n");
	sim_msleep(20);		/* enumeration does not start at once */
	sim_enumerate(1);
	if (sim_configured && sim_device) {
		scenario_device();
	} else if (sim_configured) {
		scenario_ep0();
		scenario_bulk();
		scenario_start_ns();
		scenario_stale_fifo();
		scenario_lanes();
		scenario_race();
		scenario_lost_data();
		scenario_read_race();
		scenario_reconnect();
		scenario_misc();
	}
	fprintf(stderr, "1..%d\n# %d of %d checks failed\n", sim_checks, sim_failures,
		sim_checks);
	sim_host_finished = 1;
	kill(getpid(), SIGTERM);
	return NULL;
}

__attribute__((constructor))
static void sim_init(void)
{
	pthread_condattr_t ca;

	sim_device = getenv("SIM_DEVICE") != NULL;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&sim_cond, &ca);
	sim_dev.wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	for (int i = 0; i < N_EPS; i++)
		sim_eps[i].wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

/* the gadget's own exit code is replaced by the verdict */
__attribute__((destructor))
static void sim_exit(void)
{
	if (!sim_host_finished) {
		fprintf(stderr, "# host scenario did not finish\n");
		_exit(99);
	}
	_exit(sim_failures > 90 ? 90 : sim_failures);
}
