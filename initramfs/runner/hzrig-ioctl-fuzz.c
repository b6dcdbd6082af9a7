// SPDX-License-Identifier: GPL-2.0
/*
 * hzrig-ioctl-fuzz: the driver's own surface, fuzzed in the guest
 * (docs/robustness.md). Makes N ioctl calls on /dev/hzrig0 with every field
 * of every struct at random and at its boundaries, wrong sizes (short,
 * long with a zero and a non-zero tail, absurd), bad pointers, unknown
 * command numbers and types. Most calls carry one bad field and must fail
 * at once with a clean error; one in sixteen is a valid case kept short
 * (timeout <= 20 ms, <= 2 repetitions) that must run. Never the rwsem
 * negative control (its report is the demo's). Prints the calls per
 * outcome; exits 1 on any result other than success or a clean error.
 *
 * usage: hzrig-ioctl-fuzz [--dev /dev/hzrig0] [--calls N] [--seed S]
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/types.h>

#include "hzrig/ioctl.h"
#include "hzrig/wire.h"

#define MAX_REPS_VALID	2
#define BIG		8192	/* a struct buffer larger than any struct */

static uint64_t rng;
static int trace;	/* --trace: every case that ran, on stderr */

static uint32_t rnd(void)
{
	/* xorshift64*: reproducible from --seed */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (uint32_t)((rng * 2685821657736338717ULL) >> 32);
}

/* A value for a u32 field: boundaries around @lo..@hi, or anything. */
static uint32_t pick(uint32_t lo, uint32_t hi)
{
	switch (rnd() % 8) {
	case 0: return lo;
	case 1: return hi;
	case 2: return hi + 1;
	case 3: return lo ? lo - 1 : 0xffffffffu;
	case 4: return 0;
	case 5: return 0xffffffffu;
	case 6: return 0x80000000u;
	default: return rnd();
	}
}

/* Errors the driver may return for a bad call or a short valid one. */
static int clean(int e)
{
	return e == EINVAL || e == EFAULT || e == ENOTTY || e == E2BIG ||
	       e == EOPNOTSUPP || e == EPROTO || e == ETIMEDOUT ||
	       e == EPIPE || e == ETIME || e == EINTR || e == ENODEV;
}

struct tally {
	unsigned long calls, ok, unclean;
	unsigned long err[256];
};

/* The size field and the buffer size the call declares. */
static uint32_t pick_size(uint32_t v1, uint32_t cur)
{
	switch (rnd() % 6) {
	case 0: return 0;
	case 1: return v1 - 1;
	case 2: return v1;
	case 3: return cur + 4;		/* a tail the driver does not know */
	case 4: return 4096 + 1;
	default: return cur;
	}
}

static void case_fields(struct hzrig_case *c, struct hzrig_sample *s,
			void *bad_ptr, int valid)
{
	memset(c, 0, sizeof(*c));
	c->version = HZRIG_ABI_VERSION;
	c->size = sizeof(*c);
	c->transfer = rnd() % HZRIG_XFER_COUNT;
	c->behaviour = rnd() % 4;	/* ANSWER, NAK, DELAY, STALL */
	c->mode = HZRIG_MODE_MS;
	c->timeout_ms = 1 + rnd() % 20;
	c->reps = 1 + rnd() % MAX_REPS_VALID;
	c->length = 1 + rnd() % 64;
	c->delay_us = rnd() % 5000;
	c->sample_size = sizeof(*s);
	c->samples = (uintptr_t)s;
	if (valid)
		return;
	switch (rnd() % 14) {
	case 0: c->version = pick(1, 1); break;
	case 1: c->size = pick_size(HZRIG_CASE_SIZE_V1, sizeof(*c)); break;
	case 2: c->transfer = pick(0, HZRIG_XFER_COUNT - 1) | 0x100; break;
	case 3: c->behaviour = pick(HZRIG_BEH_COUNT, HZRIG_BEH_COUNT + 4); break;
	case 4: c->mode = pick(HZRIG_MODE_COUNT, HZRIG_MODE_COUNT + 4); break;
	case 5: c->timeout_ms = HZRIG_MAX_TIMEOUT_MS + 1 + rnd() % 1000; break;
	case 6: c->reps = rnd() % 2 ? 0 : HZRIG_MAX_REPS + 1 + rnd() % 100; break;
	case 7: c->length = rnd() % 2 ? 0 : HZRIG_MAX_LENGTH + 1 + rnd() % 100; break;
	case 8: c->flags = pick(2, 0xfffffffe) | 2; break;
	case 9: c->sample_size = rnd() % 2 ? rnd() % HZRIG_SAMPLE_SIZE_V1 :
				 4097 + rnd(); break;
	case 10: c->samples = (uintptr_t)bad_ptr; break;
	case 11: c->samples = rnd() % 2 ? 0 : 0xffffffffffff0000ULL; break;
	case 12: c->fanout = HZRIG_MAX_FANOUT + 1 + rnd() % 1000; break;
	default:
		c->behaviour = HZRIG_BEH_SHORT;
		c->short_length = c->length + rnd() % 4;	/* >= length */
		break;
	}
	/*
	 * A mutation that lands on a valid mode 0 (timeout 0) would NAK for
	 * 60 s, or for ever on the killable call: the rig's own long waits
	 * are the plans' business, not the fuzzer's.
	 */
	if (c->mode == HZRIG_MODE_ZERO && c->behaviour == HZRIG_BEH_NAK)
		c->behaviour = HZRIG_BEH_ANSWER;
}

static void count(struct tally *t, int ret, int e)
{
	t->calls++;
	if (!ret) {
		t->ok++;
		return;
	}
	t->err[e & 0xff]++;
	if (!clean(e)) {
		t->unclean++;
		printf("# unclean error %d (%s) on call %lu\n", e, strerror(e),
		       t->calls);
	}
}

/* One call; the struct lives at the end of a page followed by a hole. */
static void one(int fd, uint8_t *edge, void *bad_ptr, struct tally *t)
{
	static struct hzrig_sample samples[MAX_REPS_VALID];
	uint8_t *buf = edge - BIG;
	unsigned long cmd;
	int kind = rnd() % 16, ret;

	memset(buf, 0, BIG);
	if (kind == 0) {
		/* a command nobody knows: another nr, another type, no dir */
		cmd = rnd() % 3 == 0 ? _IOWR(HZRIG_IOC_MAGIC, 3 + rnd() % 200, struct hzrig_case) :
		      rnd() % 2 ? _IOWR('h', _IOC_NR(HZRIG_IOC_RUN_CASE), struct hzrig_case) :
		      _IO(HZRIG_IOC_MAGIC, _IOC_NR(HZRIG_IOC_INFO));
		ret = ioctl(fd, cmd, buf);
	} else if (kind == 1) {
		/* a struct whose size field points past the mapping's end */
		struct hzrig_info *info = (void *)(edge - 8);

		info->version = HZRIG_ABI_VERSION;
		info->size = 16 + rnd() % 200;
		ret = ioctl(fd, HZRIG_IOC_INFO, info);
	} else if (kind < 5) {
		struct hzrig_info *info = (void *)buf;

		info->version = rnd() % 4 ? HZRIG_ABI_VERSION : pick(1, 1);
		info->size = pick_size(HZRIG_INFO_SIZE_V1, sizeof(*info));
		if (info->size > sizeof(*info) && info->size < BIG && rnd() % 2)
			buf[info->size - 1] = 0xff;	/* a non-zero tail */
		ret = ioctl(fd, HZRIG_IOC_INFO, rnd() % 16 ? (void *)info : bad_ptr);
	} else if (kind < 7) {
		struct hzrig_rwsem_test *r = (void *)buf;

		r->version = HZRIG_ABI_VERSION;
		r->size = rnd() % 3 ? sizeof(*r) : pick_size(HZRIG_RWSEM_TEST_SIZE_V1, sizeof(*r));
		/* never mode 2, the negative control */
		r->mode = rnd() % 2 ? rnd() % 2 : HZRIG_RWSEM_MODE_COUNT + rnd() % 8;
		r->cycles = rnd() % 2 ? 1 + rnd() % 20 :
			    (rnd() % 2 ? 0 : HZRIG_RWSEM_MAX_CYCLES + 1);
		ret = ioctl(fd, HZRIG_IOC_RWSEM_TEST, r);
		if (trace && (!ret || errno != EINVAL))
			fprintf(stderr, "# fuzz call %lu: rwsem mode %u cycles %u size %u: %s (done %u, urb errors %u)\n",
				t->calls + 1, r->mode, r->cycles, r->size,
				ret ? strerror(errno) : "ok", r->done, r->urb_errors);
	} else {
		struct hzrig_case *c = (void *)buf;

		case_fields(c, samples, bad_ptr, kind == 7);
		if (c->size > sizeof(*c) && c->size < BIG && rnd() % 2)
			buf[c->size - 1] = 0x5a;
		ret = ioctl(fd, HZRIG_IOC_RUN_CASE, c);
		if (trace && (!ret || (errno != EINVAL && errno != EFAULT &&
				       errno != E2BIG)))
			fprintf(stderr, "# fuzz call %lu: case transfer %u behaviour %u mode %u T=%u reps %u len %u delay %u short %u: %s\n",
				t->calls + 1, c->transfer, c->behaviour, c->mode,
				c->timeout_ms, c->reps, c->length, c->delay_us,
				c->short_length, ret ? strerror(errno) : "ok");
	}
	count(t, ret, ret ? errno : 0);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "calls", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 's' },
		{ "trace", no_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dev = "/dev/hzrig0";
	unsigned long calls = 10000, i;
	struct tally t = { 0 };
	long page = sysconf(_SC_PAGESIZE);
	uint8_t *map;
	int fd, opt, e, wedged = 0;

	rng = 0x9e3779b97f4a7c15ULL;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'n': calls = strtoul(optarg, NULL, 10); break;
		case 's': rng = strtoull(optarg, NULL, 0) | 1; break;
		case 't': trace = 1; break;
		default:
			fprintf(stderr, "usage: hzrig-ioctl-fuzz [--dev DEV] [--calls N] [--seed S]\n");
			return 2;
		}
	}
	/* BIG bytes of struct space, then an unmapped page: EFAULT country */
	map = mmap(NULL, BIG + 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED || munmap(map + BIG + page, page)) {
		printf("hzrig-ioctl-fuzz: mmap: %s\n", strerror(errno));
		return 1;
	}
	fd = open(dev, O_RDWR);
	if (fd < 0) {
		printf("hzrig-ioctl-fuzz: %s: %s\n", dev, strerror(errno));
		return 1;
	}
	for (i = 0; i < calls; i++) {
		unsigned long before = t.err[ETIMEDOUT];

		one(fd, map + BIG + page, map + BIG + page, &t);
		/*
		 * The ioctl itself timing out is the driver's ARM or RESET
		 * finding ep0 dead (a case's own timeout is in its samples):
		 * three in a row and the device is wedged. Say so and stop
		 * rather than spend a second on every call left.
		 */
		wedged = t.err[ETIMEDOUT] > before ? wedged + 1 : 0;
		if (wedged == 3) {
			printf("# hzrig-ioctl-fuzz: ep0 stopped answering at call %lu\n",
			       t.calls);
			t.unclean++;
			break;
		}
	}
	close(fd);
	printf("hzrig-ioctl-fuzz: %lu calls, %lu succeeded, %lu unclean", t.calls,
	       t.ok, t.unclean);
	for (e = 0; e < 256; e++)
		if (t.err[e])
			printf("; %s %lu", strerror(e), t.err[e]);
	printf("\n");
	return t.unclean ? 1 : 0;
}
