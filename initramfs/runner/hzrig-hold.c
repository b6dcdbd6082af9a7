// SPDX-License-Identifier: GPL-2.0
/*
 * hzrig-hold: keep one NAKed synchronous call in flight through the hzrig
 * driver, again and again, until the device goes away or a signal ends it.
 * The robustness scenarios (initramfs/robustness.sh) tear the device down
 * under it. Prints one line when it ends: the calls made, how the last one
 * ended, and whether every error was a clean one (an errno a driver may
 * return when its device goes away or a call is interrupted).
 *
 * usage: hzrig-hold [--dev /dev/hzrig0]
 *                   [--transfer bulk-in|ctrl-in|bulk-in-killable]
 *                   [--timeout MS]   (0: forever, bulk-in-killable only)
 *                   [--once]         (one call, then exit)
 *        hzrig-hold --rwsem urb|hrtimer|irqs-off [--cycles N] [--dev ...]
 *        hzrig-hold --reset /dev/bus/usb/BBB/DDD
 *        hzrig-hold --usbfs-disconnect /dev/bus/usb/BBB/DDD [--ifno N]
 * The last two do one thing through usbfs (USBDEVFS_RESET; USBDEVFS_IOCTL
 * with USBDEVFS_DISCONNECT, then USBDEVFS_CONNECT) and print how long it
 * took: the robustness scenarios hold it to a second.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/types.h>
#include <linux/usbdevice_fs.h>

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

/* --rwsem: HZRIG_IOC_RWSEM_TEST, its counts on one line. */
static int rwsem_test(const char *dev, const char *mode, unsigned long cycles)
{
	static const char *const modes[] = { "urb", "hrtimer", "irqs-off" };
	struct hzrig_rwsem_test t = {
		.version = HZRIG_ABI_VERSION, .size = sizeof(t),
		.cycles = (__u32)cycles,
	};
	int fd, ret;

	for (t.mode = 0; t.mode < HZRIG_RWSEM_MODE_COUNT; t.mode++)
		if (!strcmp(mode, modes[t.mode]))
			break;
	if (t.mode == HZRIG_RWSEM_MODE_COUNT) {
		fprintf(stderr, "hzrig-hold: --rwsem: '%s' is not urb, hrtimer or irqs-off\n",
			mode);
		return 2;
	}
	fd = open(dev, O_RDWR);
	if (fd < 0) {
		printf("hzrig-hold: %s: %s\n", dev, strerror(errno));
		return 1;
	}
	ret = ioctl(fd, HZRIG_IOC_RWSEM_TEST, &t);
	printf("hzrig-hold: rwsem %s: %s, %u of %u cycles, writer contended %u, irq trylocks %u taken %u refused, %u transfers failed\n",
	       mode, ret ? strerror(errno) : "ok", t.done, t.cycles,
	       t.contended, t.trylock_ok, t.trylock_busy, t.urb_errors);
	close(fd);
	/* the negative control makes one call, whatever --cycles says */
	return ret || t.done != (t.mode == HZRIG_RWSEM_IRQS_OFF ? 1 : t.cycles);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* --reset or --usbfs-disconnect on the usbfs node @node. */
static int usbfs_op(const char *node, int disconnect, int ifno)
{
	struct usbdevfs_ioctl cmd = { .ifno = ifno };
	double t0, t1;
	int fd, ret;

	fd = open(node, O_RDWR);
	if (fd < 0) {
		printf("hzrig-hold: %s: %s\n", node, strerror(errno));
		return 1;
	}
	t0 = now_ms();
	if (disconnect) {
		cmd.ioctl_code = USBDEVFS_DISCONNECT;
		ret = ioctl(fd, USBDEVFS_IOCTL, &cmd);
		t1 = now_ms();
		/* CONNECT returns device_attach()'s 1 when it bound a driver */
		if (ret >= 0) {
			cmd.ioctl_code = USBDEVFS_CONNECT;
			ret = ioctl(fd, USBDEVFS_IOCTL, &cmd);
		}
	} else {
		ret = ioctl(fd, USBDEVFS_RESET, 0);
		t1 = now_ms();
	}
	printf("hzrig-hold: %s took %.1f ms: %s\n",
	       disconnect ? "USBDEVFS_DISCONNECT" : "USBDEVFS_RESET", t1 - t0,
	       ret < 0 ? strerror(errno) : "ok");
	close(fd);
	return ret < 0 ? 1 : 0;
}

static int parse_transfer(const char *arg, __u32 *transfer)
{
	if (!strcmp(arg, "bulk-in"))
		*transfer = HZRIG_XFER_BULK_IN;
	else if (!strcmp(arg, "ctrl-in"))
		*transfer = HZRIG_XFER_CTRL_IN;
	else if (!strcmp(arg, "bulk-in-killable"))
		*transfer = HZRIG_XFER_BULK_IN_KILLABLE;
	else {
		fprintf(stderr, "hzrig-hold: --transfer: '%s' is not bulk-in, ctrl-in or bulk-in-killable\n",
			arg);
		return -1;
	}
	return 0;
}

/* Calls @c on @fd until the device goes (or once); its tally on a line. */
static int hold(int fd, struct hzrig_case *c, int once)
{
	struct hzrig_sample s;
	unsigned long calls = 0, unclean = 0;
	int last = 0;

	c->samples = (__u64)(unsigned long)&s;
	while (!stop) {
		calls++;
		if (ioctl(fd, HZRIG_IOC_RUN_CASE, c)) {
			last = -errno;
			if (!clean_error(errno))
				unclean++;
			if (once || errno == ENODEV || errno == ESHUTDOWN)
				break;
			continue;
		}
		last = s.status;
		if (s.status < 0 && !clean_error(-s.status))
			unclean++;
		if (once)
			break;
	}
	close(fd);
	printf("hzrig-hold: %lu calls, last %d (%s), %lu unclean errors\n",
	       calls, last, last ? strerror(-last) : "ok", unclean);
	return unclean ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "transfer", required_argument, NULL, 't' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "reset", required_argument, NULL, 'r' },
		{ "usbfs-disconnect", required_argument, NULL, 'D' },
		{ "ifno", required_argument, NULL, 'i' },
		{ "once", no_argument, NULL, 'o' },
		{ "rwsem", required_argument, NULL, 'w' },
		{ "cycles", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	const char *reset = NULL, *usbfs_disc = NULL;
	int ifno = 0, once = 0;
	const char *rwsem = NULL;
	unsigned long cycles = 10000;
	const char *dev = "/dev/hzrig0";
	struct hzrig_sample s;
	struct hzrig_case c = {
		.version = HZRIG_ABI_VERSION, .size = sizeof(c),
		.transfer = HZRIG_XFER_BULK_IN, .behaviour = HZRIG_BEH_NAK,
		.mode = HZRIG_MODE_MS, .timeout_ms = 1000, .reps = 1,
		.length = 64, .sample_size = sizeof(s),
	};
	struct sigaction sa = { .sa_handler = on_signal };
	int fd, opt;
	char *end;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		case 't':
			if (parse_transfer(optarg, &c.transfer))
				return 2;
			break;
		case 'T':
			errno = 0;
			c.timeout_ms = (__u32)strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || c.timeout_ms > 60000) {
				fprintf(stderr, "hzrig-hold: --timeout: '%s' is not 0..60000 ms\n",
					optarg);
				return 2;
			}
			break;
		case 'r':
			reset = optarg;
			break;
		case 'D':
			usbfs_disc = optarg;
			break;
		case 'i':
			ifno = atoi(optarg);
			break;
		case 'o':
			once = 1;
			break;
		case 'w':
			rwsem = optarg;
			break;
		case 'c':
			errno = 0;
			cycles = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || !cycles ||
			    cycles > HZRIG_RWSEM_MAX_CYCLES) {
				fprintf(stderr, "hzrig-hold: --cycles: '%s' is not 1..%u\n",
					optarg, HZRIG_RWSEM_MAX_CYCLES);
				return 2;
			}
			break;
		default:
			fprintf(stderr, "usage: hzrig-hold [--dev DEV] [--transfer bulk-in|ctrl-in] [--timeout MS]\n");
			return 2;
		}
	}
	if (rwsem)
		return rwsem_test(dev, rwsem, cycles);
	if (reset || usbfs_disc)
		return usbfs_op(reset ? reset : usbfs_disc, !reset, ifno);
	if (!c.timeout_ms && c.transfer != HZRIG_XFER_BULK_IN_KILLABLE) {
		fprintf(stderr, "hzrig-hold: --timeout 0 (forever) only with bulk-in-killable\n");
		return 2;
	}
	if (!c.timeout_ms)
		c.mode = HZRIG_MODE_ZERO;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	fd = open(dev, O_RDWR);
	if (fd < 0) {
		printf("hzrig-hold: %s: %s\n", dev, strerror(errno));
		return 1;
	}
	return hold(fd, &c, once);
}
