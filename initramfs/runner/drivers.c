// SPDX-License-Identifier: GPL-2.0
/*
 * Path usbmon: an in-tree driver's own call, timed by usbmon; see drivers.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/usbdevice_fs.h>

#include "device_file.h"
#include "drivers.h"
#include "model/model.h"
#include "usbmon.h"
#include "userpath.h"

#define READY_FILE	"/tmp/hzrig-drivers-ready"
#define TRACEFS		"/sys/kernel/tracing"
#define WAIT_STEP_US	50000
#define ENUM_WAIT_S	10

struct drv {
	struct hzg_device_file dev;
	char path[256];
	const struct hzg_dev_rule *nak;	/* the request timed */
	pid_t gadget;
	unsigned int bus, devnum;
	char intf[64];		/* "1-1:1.0" */
};

static int64_t last_rtt[DRIVERS_RTT_N];
static size_t last_nrtt;

size_t drivers_last_rtt(int64_t *rtt)
{
	memcpy(rtt, last_rtt, last_nrtt * sizeof(*rtt));
	return last_nrtt;
}

/*
 * The allowance's round trip (docs/checker.md): GET_DESCRIPTOR(device)
 * through usbfs, before any driver binds; what failed is left out.
 */
static void measure_rtt(unsigned int bus, unsigned int devnum)
{
	uint8_t buf[18];
	struct usbdevfs_ctrltransfer ct = {
		.bRequestType = 0x80, .bRequest = 6, .wValue = 0x0100,
		.wLength = sizeof(buf), .timeout = 1000, .data = buf,
	};
	char path[64];
	int fd, i;

	last_nrtt = 0;
	snprintf(path, sizeof(path), "/dev/bus/usb/%03u/%03u", bus, devnum);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return;
	for (i = 0; i < DRIVERS_RTT_N; i++) {
		int64_t t0 = now_ns();

		if (ioctl(fd, USBDEVFS_CONTROL, &ct) == (int)sizeof(buf))
			last_rtt[last_nrtt++] = now_ns() - t0;
	}
	close(fd);
}

static int fail(char *err, size_t len, int e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return e;
}

/* The tick grid and the trace: drivers_ticks_init(). */
static struct {
	bool on;
	int64_t ref_ns;
	uint64_t ref_jiffies, tick_ns;
} ticks;

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -EIO;
}

/*
 * Both timer events filtered to schedule_timeout()'s timers (function
 * process_timeout, its address from /proc/kallsyms), as the sweep's guest
 * does: the measured wait then traces those alone. Unfiltered when the
 * symbol is not found (the parsers skip the other timers either way).
 */
static void ticks_filter(void)
{
	char line[256], filter[64] = "";
	unsigned long long addr;
	char type, name[128];
	FILE *f = fopen("/proc/kallsyms", "r");

	while (f && !filter[0] && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %127s", &addr, &type, name) == 3 &&
		    (type == 't' || type == 'T') && !strcmp(name, "process_timeout") && addr)
			snprintf(filter, sizeof(filter), "function == 0x%llx", addr);
	if (f)
		fclose(f);
	if (!filter[0] ||
	    write_file(TRACEFS "/events/timer/timer_start/filter", filter) ||
	    write_file(TRACEFS "/events/timer/timer_expire_entry/filter", filter))
		printf("# drivers mode: timer events not filtered to process_timeout\n");
}

int drivers_ticks_init(int64_t ref_ns, uint64_t ref_jiffies, uint64_t tick_ns,
		       char *err, size_t errlen)
{
	int ret;

	ticks.on = false;
	if (!ref_ns || !tick_ns)
		return fail(err, errlen, -ENOENT,
			    "hzrig_host has no tick_ref_ns (an older module?)");
	if (access(TRACEFS "/trace", F_OK) &&
	    mount("tracefs", TRACEFS, "tracefs", 0, NULL))
		return fail(err, errlen, -errno, "tracefs at %s: %s (CONFIG_FTRACE?)",
			    TRACEFS, strerror(errno));
	ret = write_file(TRACEFS "/trace_clock", "mono");
	if (!ret)
		ticks_filter();
	if (!ret)
		ret = write_file(TRACEFS "/events/timer/timer_start/enable", "1");
	/* when each timer ran: the diagnostic line of ticks_say() */
	if (!ret)
		ret = write_file(TRACEFS "/events/timer/timer_expire_entry/enable", "1");
	if (!ret)
		ret = write_file(TRACEFS "/tracing_on", "1");
	if (ret)
		return fail(err, errlen, ret, "%s: the mono clock or timer:timer_start: %s",
			    TRACEFS, strerror(-ret));
	ticks.ref_ns = ref_ns;
	ticks.ref_jiffies = ref_jiffies;
	ticks.tick_ns = tick_ns;
	ticks.on = true;
	return 0;
}

/*
 * Where a call's time went, for the console (not the sample): from the
 * URB's submission to its timer's arming (@start), to the timer's run
 * (its timer_expire_entry, read on from @f), to the URB's completion.
 */
static void ticks_say(FILE *f, const struct hzrig_timer_start *start,
		      int64_t sub_ns, int64_t done_ns, unsigned int rep)
{
	struct hzrig_timer_expire ex;
	char line[512];

	while (fgets(line, sizeof(line), f)) {
		if (hzrig_timer_expire_parse(line, &ex) ||
		    strcmp(ex.timer, start->timer) || ex.now < start->expires)
			continue;
		printf("# drivers: rep %u: submitted, armed +%.3f ms, ran +%.3f ms, completed +%.3f ms\n",
		       rep, (double)(start->t_ns - sub_ns) / 1e6,
		       (double)(ex.t_ns - start->t_ns) / 1e6,
		       (double)(done_ns - ex.t_ns) / 1e6);
		return;
	}
}

/*
 * The timer @u's call armed: a schedule_timeout() timer_start of @n
 * jiffies (hzrig_timer_lag()) between the URB's submission and its
 * completion. Its jiffies, and the lag of those at that moment, go to @s.
 */
static void ticks_find(const struct usbmon_urb *u, uint64_t n, int64_t off_ns,
		       struct hzrig_sample *s)
{
	int64_t from = u->submit_us * 1000 - off_ns - 50000;
	int64_t to = u->complete_us * 1000 - off_ns + 50000;
	struct hzrig_timer_start ev;
	char line[512];
	FILE *f;

	s->jiffies_lag = DRIVERS_LAG_NONE;
	if (!ticks.on)
		return;
	f = fopen(TRACEFS "/trace", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		uint64_t armed;
		int64_t lag;

		if (hzrig_timer_start_parse(line, &ev) || ev.t_ns < from ||
		    ev.t_ns > to ||
		    hzrig_timer_lag(&ev, n, ticks.ref_ns, ticks.ref_jiffies,
				    ticks.tick_ns, &armed, &lag))
			continue;
		s->start_jiffies = armed;
		s->jiffies_lag = (int32_t)lag;
		ticks_say(f, &ev, u->submit_us * 1000 - off_ns,
			  u->complete_us * 1000 - off_ns, s->seq);
		break;
	}
	fclose(f);
}

/* The device file: parsed as the gadget does, with a driver line and a NAK. */
static int load(struct drv *d, const char *driver, char *err, size_t len)
{
	char text[16384], perr[160];
	FILE *f;
	size_t n, i;

	snprintf(d->path, sizeof(d->path), "%s/%s.device", DRIVERS_DIR, driver);
	f = fopen(d->path, "r");
	if (!f)
		return fail(err, len, -errno, "%s: %s", d->path, strerror(errno));
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = 0;
	if (hzg_dev_parse(&d->dev, text, perr, sizeof(perr)))
		return fail(err, len, -EINVAL, "%s: %s", d->path, perr);
	if (!d->dev.driver[0] || !d->dev.site[0])
		return fail(err, len, -EINVAL, "%s: no driver line with site=", d->path);
	for (i = 0; i < d->dev.n_rule && !d->nak; i++)
		if (d->dev.rule[i].action == HZG_DEV_NAK)
			d->nak = &d->dev.rule[i];
	if (!d->nak || d->nak->value < 0)
		return fail(err, len, -EINVAL, "%s: no request with action=nak and value=",
			    d->path);
	return 0;
}

/* The device on the bus with the file's IDs: bus, address, interface. */
static bool find_device(struct drv *d)
{
	char name[32];
	int n;

	if (usb_sysfs_find(d->dev.vendor, d->dev.product, &d->bus, &d->devnum,
			   name, sizeof(name)))
		return false;
	n = snprintf(d->intf, sizeof(d->intf), "%s:1.%u", name,
		     d->dev.intf[0].number);
	return n > 0 && (size_t)n < sizeof(d->intf);
}

static void gadget_stop(struct drv *d)
{
	if (d->gadget <= 0)
		return;
	kill(d->gadget, SIGTERM);
	waitpid(d->gadget, NULL, 0);
	d->gadget = 0;
}

/* Start hzrig-gadget -D, wait until the host has enumerated the device. */
static int gadget_start(struct drv *d, char *err, size_t len)
{
	int i;

	unlink(READY_FILE);
	d->gadget = fork();
	if (d->gadget < 0)
		return fail(err, len, -errno, "fork: %s", strerror(errno));
	if (d->gadget == 0) {
		execlp("hzrig-gadget", "hzrig-gadget", "-D", d->path, "-r",
		       READY_FILE, (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < ENUM_WAIT_S * 1000000 / WAIT_STEP_US; i++) {
		if (waitpid(d->gadget, NULL, WNOHANG) == d->gadget) {
			d->gadget = 0;
			return fail(err, len, -EIO, "hzrig-gadget -D %s exited",
				    d->path);
		}
		if (!access(READY_FILE, F_OK) && find_device(d))
			return 0;
		usleep(WAIT_STEP_US);
	}
	gadget_stop(d);
	return fail(err, len, -ETIMEDOUT, "%04x:%04x not enumerated after %d s",
		    d->dev.vendor, d->dev.product, ENUM_WAIT_S);
}

/*
 * Make the driver probe once: load its module the first time (it binds
 * the waiting interface), then write the interface to its bind file. The
 * probe fails (that is the point), so the write's error is expected.
 */
static int probe_once(struct drv *d, bool first, char *err, size_t len)
{
	char cmd[128], path[128];
	int fd, rc;

	if (first) {
		snprintf(cmd, sizeof(cmd), "modprobe %s", d->dev.module);
		rc = system(cmd);
		if (rc)
			return fail(err, len, -ENOENT, "%s: exit %d", cmd, rc);
		return 0;
	}
	snprintf(path, sizeof(path), "/sys/bus/usb/drivers/%s/bind", d->dev.driver);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(err, len, -errno, "%s: %s", path, strerror(errno));
	if (write(fd, d->intf, strlen(d->intf)) < 0 && errno != ETIMEDOUT &&
	    errno != EFAULT && errno != EPROTO && errno != EINVAL &&
	    errno != EPIPE && errno != ENODEV) {
		rc = -errno;
		close(fd);
		return fail(err, len, rc, "bind %s to %s: %s", d->intf, d->dev.driver,
			    strerror(-rc));
	}
	close(fd);
	return 0;
}

/* One repetition per bind, each checked against usbmon's view. */
int drivers_run_case(const struct hzrig_plan_case *pc, unsigned int hz,
		     struct hzrig_sample *s, int64_t *urb_ns, uint32_t *filled,
		     char *site, size_t sitelen, char *err, size_t errlen)
{
	static struct drv d;
	struct usbmon mon;
	struct hzrig_window w;
	char cmd[128];
	int64_t arg = hzrig_mode_timeout_arg((int)hz, pc->mode, pc->timeout_ms);
	uint8_t ep;
	uint32_t k;
	int ret;

	*filled = 0;
	memset(&d, 0, sizeof(d));
	ret = load(&d, pc->driver, err, errlen);
	if (ret)
		return ret;
	snprintf(site, sitelen, "%s", d.dev.site);
	if ((d.nak->type & 0x80) != (pc->transfer == HZRIG_XFER_CTRL_IN ? 0x80 : 0))
		return fail(err, errlen, -EINVAL, "%s: the NAKed request is %s, the plan says %s",
			    d.path, d.nak->type & 0x80 ? "IN" : "OUT",
			    hzrig_transfer_name(pc->transfer));
	ret = gadget_start(&d, err, errlen);
	if (ret)
		return ret;
	measure_rtt(d.bus, d.devnum);
	ret = usbmon_open(&mon, d.bus, d.devnum);
	if (ret) {
		gadget_stop(&d);
		return fail(err, errlen, ret, "/dev/usbmon%u: %s", d.bus,
			    strerror(-ret));
	}
	ep = d.nak->type & 0x80;
	if (hzrig_path_window((int)hz, HZRIG_PATH_USBMON, (int)arg, false, &w))
		w.jiffies = 0;
	/*
	 * A warm-up probe, not sampled: the module's load (modprobe) and its
	 * first probe. Under TCG the first call's timeout and kill path runs
	 * code no call has run yet (1.0 ms from the timer's run to the
	 * completion against 0.3-0.65 ms after it), and that probe's timing
	 * sits wherever the module's load left it; the repetitions that count
	 * are binds, as a driver rebinding is.
	 */
	ret = probe_once(&d, true, err, errlen);
	/* its URBs are read off usbmon and dropped, not taken for rep 0's */
	if (!ret && !usbmon_drain(&mon))
		ret = fail(err, errlen, -ENOBUFS, "usbmon dropped events");
	if (!ret)
		printf("# drivers: %s: loaded and probed once (not sampled), then %u binds\n",
		       d.dev.driver, pc->reps);
	for (k = 0; k < pc->reps && !ret; k++) {
		const struct usbmon_urb *u;

		usbmon_reset(&mon);
		if (ticks.on)
			write_file(TRACEFS "/trace", "");
		ret = probe_once(&d, false, err, errlen);
		if (ret)
			break;
		if (!usbmon_drain(&mon)) {
			ret = fail(err, errlen, -ENOBUFS, "usbmon dropped events");
			break;
		}
		u = usbmon_find(&mon, ep, d.nak->request, d.nak->value, 0);
		if (!u) {
			ret = fail(err, errlen, -ENOMSG, "rep %u: no %02x.%02x URB from %s on usbmon",
				   k, d.nak->type, d.nak->request, d.dev.driver);
			break;
		}
		memset(&s[k], 0, sizeof(s[k]));
		urb_ns[k] = usbmon_urb_ns(u);
		s[k].elapsed_ns = urb_ns[k];
		/* usb_start_wait_urb(): a URB killed at its timeout */
		s[k].status = u->status == -ENOENT ? -ETIMEDOUT : u->status;
		s[k].timeout_arg = (int32_t)arg;
		s[k].seq = k;
		ticks_find(u, w.jiffies, usbmon_real_minus_mono_ns(), &s[k]);
		(*filled)++;
	}
	usbmon_close(&mon);
	gadget_stop(&d);
	/* unloaded, so that the next case's device is not probed unwatched */
	snprintf(cmd, sizeof(cmd), "modprobe -r %s", d.dev.module);
	if (system(cmd))
		printf("# %s failed\n", cmd);
	return ret;
}
