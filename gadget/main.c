// SPDX-License-Identifier: GPL-2.0
/*
 * hzrig-gadget - the hzrig test device, a gadgetfs program on dummy_hcd.
 *
 * It NAKs, delays, stalls or answers the next transfer on each target as the
 * host driver armed it over ep0 (include/hzrig/wire.h).
 *
 * What gadgetfs does (drivers/usb/gadget/legacy/inode.c, 6.1), and what this
 * program relies on:
 *
 * - Writing the descriptors to the controller file binds gadgetfs to the UDC
 *   synchronously; the endpoint files exist when write() returns. Userspace
 *   is only asked about control requests once it has read ep0 at least once
 *   (usermode_setup); before that, SET_CONFIGURATION is taken in the kernel
 *   and never reaches us. So ep0 is read right after the descriptors.
 * - Reading a SETUP event puts ep0 into "setup" state. In that state read()
 *   and write() are the data/status stage of that request, not events:
 *   read(len 0) acks an OUT without data, write() answers an IN, read() on
 *   an IN stalls (-EL2HLT), write() on a no-data OUT stalls (-EL2HLT). An
 *   OUT data stage (<= 256 bytes) is queued by the kernel before we hear of
 *   the request and completes the host's transfer on its own; read() only
 *   collects it. Such a request can be neither held nor stalled.
 * - Doing nothing keeps the request pending: the host sees NAKs. The host
 *   times out and kills its URB; gadgetfs is not told. When the next setup
 *   arrives while ep0 is still in setup state, gadgetfs flags an abort
 *   (reported once, by poll() as POLLHUP or by read()/write() as -EIDRM),
 *   queues the new SETUP event, and leaves ep0 in setup state for the *new*
 *   request, whose event cannot be read until its data/status stage has been
 *   done. ep0_resolve() deals with that.
 * - poll() on ep0: POLLIN = events (not in setup state); in setup state
 *   POLLOUT iff the request is IN or a stallable no-data OUT, nothing for an
 *   OUT with a data stage or SET_CONFIGURATION.
 * - Bulk/interrupt endpoint files: open, write tag 1 + descriptors (only
 *   after the host connected, when the speed is known), then blocking
 *   read()/write(); a signal dequeues the request (-EINTR). I/O in the wrong
 *   direction halts the endpoint (-EBADMSG). dummy_hcd clears a halt on the
 *   host's CLEAR_FEATURE itself; closing the file disables the endpoint and
 *   drops whatever was queued.
 */
#include "gadget.h"

/* ---- logging ---- */

static bool verbose;
bool hzg_smp;		/* another CPU can run the kernel's side */
static uint64_t t_start;

uint64_t hzg_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

struct timespec hzg_ns_to_ts(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = ns / 1000000000ull,
		.tv_nsec = ns % 1000000000ull,
	};

	return ts;
}

double hzg_ms_since(uint64_t t)
{
	return (double)(hzg_now_ns() - t) / 1e6;
}

/* One line per call, written at once so that threads do not interleave. */
static void vlog(const char *level, int err, const char *fmt, va_list ap)
{
	char msg[512];
	int n;

	n = snprintf(msg, sizeof(msg), PROG ": %10.6f %s",
		     (double)(hzg_now_ns() - t_start) / 1e9, level);
	if (n > 0 && (size_t)n < sizeof(msg))
		n += vsnprintf(msg + n, sizeof(msg) - n, fmt, ap);
	if (err && n > 0 && (size_t)n < sizeof(msg))
		snprintf(msg + n, sizeof(msg) - n, ": %s", strerror(err));
	fprintf(stderr, "%s\n", msg);
}

__attribute__((format(printf, 1, 2)))
void hzg_info(const char *fmt, ...)
{
	va_list ap;

	if (!verbose)
		return;
	va_start(ap, fmt);
	vlog("", 0, fmt, ap);
	va_end(ap);
}

/* Always printed: hints after an error. */
__attribute__((format(printf, 1, 2)))
static void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("note: ", 0, fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 1, 2)))
void hzg_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("warning: ", 0, fmt, ap);
	va_end(ap);
}

/* perror() style: the failed operation, then strerror(err). */
__attribute__((format(printf, 2, 3)))
void hzg_error(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("error: ", err, fmt, ap);
	va_end(ap);
}

/* ---- the device ---- */


static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

bool hzg_stop_requested(void)
{
	return stop_signal != 0;
}

/*
 * A watchdog for reading an OUT data stage on ep0. gadgetfs' ep0_read()
 * (drivers/usb/gadget/legacy/inode.c:963-970, 6.1) checks setup_out_ready
 * under its lock, drops the lock and then sleeps until setup_out_ready is
 * set - also for an O_NONBLOCK file. A newer setup in between (the host's
 * SYNC right after its ARM: dummy_hcd completes the ARM when the data is
 * in, before we read it) clears the flag again in gadgetfs_setup(), and
 * nothing that follows (SYNC, RESET: no OUT data) sets it: the read would
 * sleep for good, and ep0 with it. So every such read runs with a one-shot
 * POSIX timer that signals this thread (SIGALRM, no SA_RESTART) after
 * EP0_READ_GUARD_NS (ep0.c, ep0_read_guarded()); the read then fails with
 * EINTR, and the next one reports the newer setup (EIDRM). A read that does
 * not sleep costs two timer_settime() calls.
 */
static int read_guard_init(struct gadget *g)
{
	struct sigevent sev = {
		.sigev_notify = SIGEV_THREAD_ID,
		.sigev_signo = SIGALRM,
	};

	sev._sigev_un._tid = gettid();	/* glibc 2.36 names no macro for it */
	if (timer_create(CLOCK_MONOTONIC, &sev, &g->read_guard) < 0) {
		hzg_error(errno, "ep0 read guard timer");
		return -1;
	}
	return 0;
}

static void on_interrupt(int sig)
{
	(void)sig;	/* only there to interrupt a blocking read/write */
}

void hzg_fatal(struct gadget *g)
{
	g->exit_code = 1;
	g->done = true;
}

bool hzg_high_speed(const struct gadget *g)
{
	return g->speed == USB_SPEED_HIGH;
}

const char *hzg_speed_name(int speed)
{
	switch (speed) {
	case USB_SPEED_LOW:
		return "low";
	case USB_SPEED_FULL:
		return "full";
	case USB_SPEED_HIGH:
		return "high";
	case USB_SPEED_SUPER:
		return "super";
	}
	return "unknown";
}

/* ---- main loop ---- */

static sigset_t poll_sigmask;	/* blocked set while in ppoll() */

static int wait_fds(struct pollfd *p, int n)
{
	int r = ppoll(p, n, NULL, &poll_sigmask);

	if (r < 0 && errno != EINTR) {
		hzg_error(errno, "ppoll");
		return -1;
	}
	return r < 0 ? 0 : r;
}

static void hold_expired(struct gadget *g)
{
	struct hold h = g->hold;
	uint64_t ticks;
	enum ep0_rc rc;

	if (read(g->tfd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
		hzg_error(errno, "read timerfd");
	hzg_hold_stop(g);
	rc = hzg_ep0_exec(g, &h.ctrl, &h.plan, h.seq);
	if (rc == EP0_ABORT) {
		hzg_info("%s seq %u DELAY: host gave up first",
		     hzg_target_name(h.ctrl.bRequestType & USB_DIR_IN ?
				     HZRIG_TARGET_EP0_IN :
				     HZRIG_TARGET_EP0_OUT), h.seq);
		g->abort_pending = true;
	} else if (rc == EP0_OK) {
		hzg_info("ep0 seq %u DELAY: answered after %.3f ms", h.seq,
		     hzg_ms_since(h.t0));
	}
}

/* ep0 holds a setup (NAK or DELAY): wait for its end. */
static void wait_hold(struct gadget *g)
{
	struct pollfd p[2] = {
		{ .fd = g->fd, .events = POLLIN },
		{ .fd = g->tfd, .events = POLLIN },
	};

	if (wait_fds(p, g->hold.plan.delay_ns ? 2 : 1) < 0) {
		hzg_fatal(g);
		return;
	}
	if (p[0].revents & POLLHUP) {
		/* the host killed the URB and sent its next setup */
		hzg_info("ep0 seq %u %s: host gave up after %.3f ms", g->hold.seq,
		     g->hold.plan.delay_ns ? "DELAY" : "NAK",
		     hzg_ms_since(g->hold.t0));
		hzg_hold_stop(g);
		g->abort_pending = true;
	} else if (p[0].revents & POLLIN) {
		hzg_info("ep0 seq %u: held request ended by disconnect",
		     g->hold.seq);
		hzg_hold_stop(g);
	} else if (p[0].revents & (POLLERR | POLLNVAL)) {
		hzg_error(0, "poll %s/%s: revents %#x", g->dir, UDC_FILE,
		      p[0].revents);
		hzg_fatal(g);
	} else if (p[1].revents & POLLIN) {
		hold_expired(g);
	}
}

static void wait_events(struct gadget *g)
{
	struct pollfd p = { .fd = g->fd, .events = POLLIN };

	if (wait_fds(&p, 1) < 0) {
		hzg_fatal(g);
		return;
	}
	if (p.revents & POLLHUP) {
		g->abort_pending = true;
	} else if (p.revents & POLLIN) {
		hzg_read_events(g, NULL);
	} else if (p.revents & (POLLERR | POLLNVAL)) {
		hzg_error(0, "poll %s/%s: revents %#x", g->dir, UDC_FILE,
		      p.revents);
		hzg_fatal(g);
	}
}

static void run(struct gadget *g)
{
	while (!g->done && !stop_signal) {
		if (g->abort_pending) {
			g->abort_pending = false;
			if (hzg_ep0_resolve(g))
				continue;	/* held unseen (-D): ep0.c */
			/* its event, if any, is queued already */
			hzg_read_events(g, &g->orphan);
			if (g->orphan.kind != HZG_ORPHAN_NONE)
				hzg_orphan_no_event(g, &g->orphan);
		} else if (g->hold.active) {
			wait_hold(g);
		} else {
			wait_events(g);
		}
	}
	if (stop_signal)
		hzg_info("%s: shutting down", strsignal(stop_signal));
}

/* ---- setup and teardown ---- */

static int signals_init(void)
{
	struct sigaction sa = { .sa_handler = on_stop };
	sigset_t block;

	/* no SA_RESTART: the point is to interrupt blocking calls */
	if (sigaction(SIGINT, &sa, NULL) < 0 ||
	    sigaction(SIGTERM, &sa, NULL) < 0)
		goto fail;
	/* SIGUSR1: a worker's cancel; SIGALRM: the ep0 read guard */
	sa.sa_handler = on_interrupt;
	if (sigaction(SIGUSR1, &sa, NULL) < 0 ||
	    sigaction(SIGALRM, &sa, NULL) < 0)
		goto fail;

	/* all threads start with these blocked; see hzg_worker_main(), run() */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGUSR1);
	if (pthread_sigmask(SIG_BLOCK, &block, &poll_sigmask) != 0)
		goto fail;
	sigaddset(&poll_sigmask, SIGUSR1);
	sigdelset(&poll_sigmask, SIGINT);
	sigdelset(&poll_sigmask, SIGTERM);
	return 0;
fail:
	hzg_error(errno, "install signal handlers");
	return -1;
}

static int workers_start(struct gadget *g)
{
	for (int i = 0; i < HZG_EP_COUNT; i++) {
		struct worker *w = &g->w[i];
		pthread_condattr_t ca;
		int err;

		w->info = &hzg_eps[i];
		w->fd = -1;
		pthread_mutex_init(&w->lock, NULL);
		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&w->cond, &ca);
		pthread_condattr_destroy(&ca);
		err = pthread_create(&w->thread, NULL, hzg_worker_main, w);
		if (err) {
			hzg_error(err, "create %s worker thread", w->info->name);
			return -1;
		}
		w->started = true;
	}
	return 0;
}

static void workers_stop(struct gadget *g)
{
	hzg_endpoints_down(g);
	for (int i = 0; i < HZG_EP_COUNT; i++) {
		struct worker *w = &g->w[i];

		if (!w->started)
			continue;
		pthread_mutex_lock(&w->lock);
		w->stop = true;
		pthread_cond_broadcast(&w->cond);
		pthread_mutex_unlock(&w->lock);
		pthread_join(w->thread, NULL);
	}
}

static int check_ep_files(struct gadget *g)
{
	char path[PATH_MAX];

	for (int i = 0; i < HZG_EP_COUNT; i++) {
		if (g->omit[i])
			continue;
		hzg_ep_path(g, &hzg_eps[i], path, sizeof(path));
		if (access(path, F_OK) < 0) {
			hzg_error(errno, "endpoint file %s", path);
			note("gadgetfs did not bind: is the UDC dummy_hcd "
			     "and not used by another gadget driver?");
			return -1;
		}
	}
	return 0;
}

static int device_open(struct gadget *g)
{
	uint8_t desc[HZG_DEV_CONFIG_MAX > HZG_DEV_MAX_BYTES ?
		     HZG_DEV_CONFIG_MAX : HZG_DEV_MAX_BYTES];
	char path[PATH_MAX];
	size_t len;
	ssize_t r;

	snprintf(path, sizeof(path), "%s/%s", g->dir, UDC_FILE);
	g->fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (g->fd < 0) {
		hzg_error(errno, "open %s", path);
		note("is gadgetfs mounted on %s, dummy_hcd there, and no "
		     "other gadget program running?", g->dir);
		return -1;
	}
	if (g->dev) {
		len = hzg_dev_build(g->dev, desc, sizeof(desc), g->with_hs);
	} else {
		len = hzg_build_dev_config(desc, sizeof(desc), g->with_hs);
		len = hzg_omit_endpoints(g, desc, len);
	}
	if (!len) {
		hzg_error(0, "the descriptors do not fit %zu bytes", sizeof(desc));
		return -1;
	}
	r = write(g->fd, desc, len);
	if (r != (ssize_t)len) {
		hzg_error(r < 0 ? errno : EIO,
		      "write %zu descriptor bytes to %s", len, path);
		return -1;
	}
	hzg_info("descriptors written to %s (%s speed capable)%s%s", path,
	     g->with_hs ? "high" : "full", g->dev ? ": device of " : "",
	     g->dev ? g->device_path : "");
	for (int i = 0; i < HZG_EP_COUNT; i++)
		if (g->omit[i])
			note("endpoint 0x%02x (%s) omitted from the descriptors "
			     "(-x)", hzg_eps[i].address, hzg_eps[i].name);

	/*
	 * A first read makes gadgetfs hand control requests to us
	 * (usermode_setup); it must happen before the host's
	 * SET_CONFIGURATION, so do it now and without blocking.
	 */
	if (hzg_read_events(g, NULL) < 0 && g->done) {
		/* usb_gadget_register_driver() succeeds without a free UDC */
		note("gadgetfs took the descriptors but is not bound to a "
		     "controller: is dummy_hcd's UDC free?");
		return -1;
	}
	return g->dev ? 0 : check_ep_files(g);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [-v] [-f] [-d DIR] [-r READY_FILE] "
		"[-c CONFIGURED_FILE] [-x EPADDR]...\n"
		"  -d DIR   gadgetfs mount point (default /dev/gadget)\n"
		"  -r FILE  create FILE once the device is on the bus\n"
		"  -c FILE  create FILE each time the host configured it\n"
		"  -f       full speed only (no high-speed descriptors)\n"
		"  -x ADDR  leave endpoint ADDR (0x81 bulk IN, 0x02 bulk OUT,\n"
		"           0x85 interrupt IN) out of the descriptors, to test\n"
		"           the host driver against a device lacking it;\n"
		"           repeatable\n"
		"  -D FILE  present the device FILE describes instead of hzrig's\n"
		"           (descriptors and request rules: gadget/devices/)\n"
		"  -v       log every event to stderr\n");
}

/* -x EPADDR: an endpoint address of ours, in C notation (0x81, 129). */
static int parse_omit(struct gadget *g, const char *arg)
{
	unsigned long addr;
	char *end;

	errno = 0;
	addr = strtoul(arg, &end, 0);
	if (!isdigit((unsigned char)*arg) || *end || errno) {
		fprintf(stderr, PROG ": -x '%s': not an endpoint address "
			"(e.g. 0x02)\n", arg);
		return -1;
	}
	for (int i = 0; i < HZG_EP_COUNT; i++) {
		if (hzg_eps[i].address == addr) {
			g->omit[i] = true;
			return 0;
		}
	}
	fprintf(stderr, PROG ": -x %s: the device has no endpoint 0x%02lx; "
		"it has", arg, addr);
	for (int i = 0; i < HZG_EP_COUNT; i++)
		fprintf(stderr, " 0x%02x (%s)", hzg_eps[i].address,
			hzg_eps[i].name);
	fputc('\n', stderr);
	return -1;
}

/* -D FILE: read and check the device file; errors name file and line. */
static int load_device(struct gadget *g)
{
	static struct hzg_device_file dev;
	char text[16384], err[160];
	FILE *f = fopen(g->device_path, "r");
	size_t n;

	if (!f) {
		fprintf(stderr, PROG ": -D %s: %s\n", g->device_path,
			strerror(errno));
		return -1;
	}
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = 0;
	if (ferror(f) || !feof(f)) {
		fprintf(stderr, PROG ": -D %s: unreadable or over %zu bytes\n",
			g->device_path, sizeof(text) - 1);
		fclose(f);
		return -1;
	}
	fclose(f);
	if (hzg_dev_parse(&dev, text, err, sizeof(err)) < 0) {
		fprintf(stderr, PROG ": -D %s: %s\n", g->device_path, err);
		return -1;
	}
	g->dev = &dev;
	return 0;
}

static int parse_args(struct gadget *g, int argc, char **argv)
{
	int c;

	g->dir = "/dev/gadget";
	g->with_hs = true;
	while ((c = getopt(argc, argv, "vfd:r:c:x:D:h")) != -1) {
		switch (c) {
		case 'v':
			verbose = true;
			break;
		case 'f':
			g->with_hs = false;
			break;
		case 'd':
			g->dir = optarg;
			break;
		case 'r':
			g->ready_file = optarg;
			break;
		case 'c':
			g->config_file = optarg;
			break;
		case 'D':
			g->device_path = optarg;
			break;
		case 'x':
			if (parse_omit(g, optarg) < 0) {
				usage(stderr);
				return -1;
			}
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'\n",
			argv[optind]);
		usage(stderr);
		return -1;
	}
	if (!*g->dir) {
		fprintf(stderr, PROG ": -d needs a directory\n");
		return -1;
	}
	return g->device_path ? load_device(g) : 0;
}

static struct gadget the_gadget = { .fd = -1, .tfd = -1 };

int main(int argc, char **argv)
{
	struct gadget *g = &the_gadget;
	char text[32];

	t_start = hzg_now_ns();
	hzg_smp = sysconf(_SC_NPROCESSORS_ONLN) > 1;
	if (parse_args(g, argc, argv) < 0)
		return 2;
	/* delays should be hrtimer-exact, not rounded up by 50 us slack */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	if (signals_init() < 0 || read_guard_init(g) < 0)
		return 1;
	g->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (g->tfd < 0) {
		hzg_error(errno, "timerfd_create");
		return 1;
	}
	if (workers_start(g) < 0 || device_open(g) < 0) {
		g->exit_code = 1;
		goto out;
	}
	snprintf(text, sizeof(text), "%d\n", (int)getpid());
	if (g->ready_file && hzg_create_file(g->ready_file, "ready", text) < 0) {
		g->exit_code = 1;
		goto out;
	}
	run(g);
out:
	workers_stop(g);
	/* closing ep0 unregisters the gadget: the host sees a disconnect */
	if (g->fd >= 0)
		close(g->fd);
	close(g->tfd);
	return g->exit_code;
}
