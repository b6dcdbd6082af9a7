// SPDX-License-Identifier: GPL-2.0
/*
 * hzrig-hold: keep one NAKed synchronous call in flight through the hzrig
 * driver, again and again, until the device goes away or a signal ends it.
 * The robustness scenarios (initramfs/robustness.sh) tear the device down
 * under it. Prints one line when it ends: the calls made, how the last one
 * ended, and whether every error was a clean one (an errno a driver may
 * return when its device goes away or a call is interrupted).
 *
 * usage: hzrig-hold [--dev /dev/hzrig0] [--transfer bulk-in|ctrl-in]
 *                   [--timeout MS]
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/types.h>

#include "hzrig/ioctl.h"
#include "hzrig/wire.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* Errors a call may end with while its device is torn down under it. */
static int clean_error(int e)
{
	return e == ENODEV || e == ESHUTDOWN || e == EPROTO || e == EPIPE ||
	       e == ETIMEDOUT || e == EINTR || e == ENOENT || e == ECONNRESET ||
	       e == EIO || e == EILSEQ;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "transfer", required_argument, NULL, 't' },
		{ "timeout", required_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dev = "/dev/hzrig0";
	struct hzrig_sample s;
	struct hzrig_case c = {
		.version = HZRIG_ABI_VERSION, .size = sizeof(c),
		.transfer = HZRIG_XFER_BULK_IN, .behaviour = HZRIG_BEH_NAK,
		.mode = HZRIG_MODE_MS, .timeout_ms = 1000, .reps = 1,
		.length = 64, .sample_size = sizeof(s),
	};
	struct sigaction sa = { .sa_handler = on_signal };
	unsigned long calls = 0, unclean = 0;
	int fd, opt, last = 0;
	char *end;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		case 't':
			if (!strcmp(optarg, "bulk-in"))
				c.transfer = HZRIG_XFER_BULK_IN;
			else if (!strcmp(optarg, "ctrl-in"))
				c.transfer = HZRIG_XFER_CTRL_IN;
			else {
				fprintf(stderr, "hzrig-hold: --transfer: '%s' is not bulk-in or ctrl-in\n",
					optarg);
				return 2;
			}
			break;
		case 'T':
			errno = 0;
			c.timeout_ms = (__u32)strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || c.timeout_ms < 1 ||
			    c.timeout_ms > 60000) {
				fprintf(stderr, "hzrig-hold: --timeout: '%s' is not 1..60000 ms\n",
					optarg);
				return 2;
			}
			break;
		default:
			fprintf(stderr, "usage: hzrig-hold [--dev DEV] [--transfer bulk-in|ctrl-in] [--timeout MS]\n");
			return 2;
		}
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	fd = open(dev, O_RDWR);
	if (fd < 0) {
		printf("hzrig-hold: %s: %s\n", dev, strerror(errno));
		return 1;
	}
	c.samples = (__u64)(unsigned long)&s;
	while (!stop) {
		calls++;
		if (ioctl(fd, HZRIG_IOC_RUN_CASE, &c)) {
			last = -errno;
			if (!clean_error(errno))
				unclean++;
			if (errno == ENODEV || errno == ESHUTDOWN)
				break;
			continue;
		}
		last = s.status;
		if (s.status < 0 && !clean_error(-s.status))
			unclean++;
	}
	close(fd);
	printf("hzrig-hold: %lu calls, last %d (%s), %lu unclean errors\n",
	       calls, last, last ? strerror(-last) : "ok", unclean);
	return unclean ? 1 : 0;
}
