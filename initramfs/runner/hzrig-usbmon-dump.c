// SPDX-License-Identifier: GPL-2.0
/*
 * hzrig-usbmon-dump: every URB event of every bus, one line each, until
 * SIGTERM (the driver sweep's guest, initramfs/sweep.sh; docs/sweep.md):
 *
 *   usbmon t_us=T id=0xURB type=S|C|E xfer=X ep=0xEP bus=B dev=D status=S
 *          [setup=HH,HH,HH,HH,HH,HH,HH,HH]
 *
 * T is CLOCK_MONOTONIC in microseconds (usbmon stamps realtime; the guest
 * never sets its clock, so one offset taken at start converts them), the
 * clock the trace and hzrig-rawdev use. Ends with "usbmon end dropped=N",
 * N the events the ring lost.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "usbmon.h"

static volatile sig_atomic_t stop;
static int64_t real_minus_mono;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void put(const struct usbmon_event *e, void *ctx)
{
	FILE *f = ctx;

	fprintf(f, "usbmon t_us=%lld id=0x%llx type=%c xfer=%u ep=0x%02x bus=%u dev=%u status=%d",
		(long long)(e->us - real_minus_mono), (unsigned long long)e->id,
		e->type, e->xfer_type, e->epnum, e->busnum, e->devnum,
		e->status);
	if (e->type == 'S' && e->setup_seen)
		fprintf(f, " setup=%02x,%02x,%02x,%02x,%02x,%02x,%02x,%02x",
			e->setup[0], e->setup[1], e->setup[2], e->setup[3],
			e->setup[4], e->setup[5], e->setup[6], e->setup[7]);
	fputc('\n', f);
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_term };
	struct usbmon m;
	int ret;

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	ret = usbmon_open(&m, 0, 0);
	if (ret) {
		fprintf(stderr, "hzrig-usbmon-dump: /dev/usbmon0: %s\n", strerror(-ret));
		return 1;
	}
	if (usbmon_ring_size(&m, 1 << 20))
		fprintf(stderr, "hzrig-usbmon-dump: ring size: %s\n", strerror(errno));
	real_minus_mono = usbmon_real_minus_mono_ns() / 1000;
	while (!stop) {
		usbmon_drain_to(&m, put, stdout);
		fflush(stdout);
		usleep(5000);
	}
	usbmon_drain_to(&m, put, stdout);
	printf("usbmon end dropped=%u\n", m.dropped);
	usbmon_close(&m);
	return 0;
}
