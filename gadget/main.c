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
#define _GNU_SOURCE
#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <linux/usb/gadgetfs.h>

#include "gadget_logic.h"

#define PROG			"hzrig-gadget"
#define UDC_FILE		"dummy_udc"
#define N_EVENTS		5	/* gadgetfs queues at most 5 */
#define EP0_MAX_DATA		256	/* gadgetfs RBUF_SIZE */
#define CANCEL_POLL_NS		200000ull
#define CANCEL_TRIES		5000	/* 1 s */
#define ORPHAN_DATA_WAIT_NS	100000000ull
#define ORPHAN_SETTLE_NS	50000ull
#define DUMMY_FIFO_SIZE		64	/* dummy_hcd.c FIFO_SIZE */

/* ---- logging ---- */

static bool verbose;
static bool smp;		/* another CPU can run the kernel's side */
static uint64_t t_start;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static struct timespec ns_to_ts(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = ns / 1000000000ull,
		.tv_nsec = ns % 1000000000ull,
	};

	return ts;
}

static double ms_since(uint64_t t)
{
	return (double)(now_ns() - t) / 1e6;
}

/* One line per call, written at once so that threads do not interleave. */
static void vlog(const char *level, int err, const char *fmt, va_list ap)
{
	char msg[512];
	int n;

	n = snprintf(msg, sizeof(msg), PROG ": %10.6f %s",
		     (double)(now_ns() - t_start) / 1e9, level);
	if (n > 0 && (size_t)n < sizeof(msg))
		n += vsnprintf(msg + n, sizeof(msg) - n, fmt, ap);
	if (err && n > 0 && (size_t)n < sizeof(msg))
		snprintf(msg + n, sizeof(msg) - n, ": %s", strerror(err));
	fprintf(stderr, "%s\n", msg);
}

__attribute__((format(printf, 1, 2)))
static void info(const char *fmt, ...)
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
static void warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("warning: ", 0, fmt, ap);
	va_end(ap);
}

/* perror() style: the failed operation, then strerror(err). */
__attribute__((format(printf, 2, 3)))
static void error(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("error: ", err, fmt, ap);
	va_end(ap);
}

/* ---- endpoint workers ---- */

enum wstate {
	W_IDLE,
	W_WAIT,		/* DELAY: waiting for the deadline */
	W_IO,		/* in a blocking read()/write() on the endpoint */
};

struct job {
	struct hzg_arm	arm;
	uint64_t	t0;	/* arm taken: DELAY counts from here unless
				 * the host gave its start_ns
				 */
};

/*
 * One thread per endpoint, because gadgetfs endpoint I/O is a blocking
 * read()/write() and ep0 must never wait for it. A worker does I/O only for
 * an armed job: gadgetfs cannot tell us when the host starts a transfer, so
 * a request queued "just in case" would answer a transfer that the next ARM
 * (which the kernel completes before we have read it) wanted NAKed.
 */
struct worker {
	const struct hzg_ep_info *info;
	pthread_t	thread;
	bool		started;
	pthread_mutex_t	lock;
	pthread_cond_t	cond;
	/* P: lock */
	int		fd;		/* -1 unless configured */
	unsigned int	maxp;
	bool		has_job;
	struct job	job;
	enum wstate	state;
	bool		stop;
	uint64_t	gen;		/* bumped to supersede the job */
	bool		fifo_dirty;	/* an answer may sit unread in the FIFO */
	uint8_t		buf[HZRIG_MAX_XFER];
};

static uint64_t worker_gen(struct worker *w)
{
	return __atomic_load_n(&w->gen, __ATOMIC_ACQUIRE);
}

static bool superseded(struct worker *w, uint64_t gen)
{
	return worker_gen(w) != gen;
}

/*
 * One transfer. A signal from worker_cancel_locked() dequeues the request in
 * ep_io() and the call fails with EINTR; a stray one is retried.
 */
static ssize_t ep_xfer(struct worker *w, int fd, bool in, size_t len,
		       uint64_t gen)
{
	ssize_t r;

	for (;;) {
		if (superseded(w, gen))
			return -ECANCELED;
		r = in ? write(fd, w->buf, len) : read(fd, w->buf, len);
		if (r >= 0)
			return r;
		if (errno != EINTR)
			return -errno;
	}
}

static void worker_halt(struct worker *w, int fd, const struct job *job)
{
	bool in = hzg_ep_is_in(w->info);
	ssize_t r;

	/* wrong direction: read an IN endpoint, write an OUT one */
	r = in ? read(fd, w->buf, 0) : write(fd, w->buf, 0);
	if (r < 0 && errno == EBADMSG)
		info("%s seq %u STALL: halted after %.3f ms", w->info->name,
		     job->arm.seq, ms_since(job->t0));
	else
		error(r < 0 ? errno : 0,
		      "%s seq %u: halt %s by wrong-direction %s",
		      w->info->name, job->arm.seq, w->info->file,
		      in ? "read" : "write");
}

/*
 * dummy_hcd completes an IN write of up to FIFO_SIZE bytes at once, copying
 * it into a single device-wide FIFO request that waits on the endpoint for
 * the host (dummy_queue()). write() has returned: no signal can take it
 * back, only disabling the endpoint does (nuke()). If the host gave up on
 * the transfer, or armed a new seq before starting it, that answer would
 * go to its next IN transfer. Note it, so the next ARM flushes it.
 */
static void fifo_mark(struct worker *w)
{
	pthread_mutex_lock(&w->lock);
	w->fifo_dirty = true;
	pthread_mutex_unlock(&w->lock);
}

static void worker_write(struct worker *w, int fd, const struct job *job,
			 const struct hzg_plan *p, uint64_t gen)
{
	ssize_t r;

	hzg_payload_fill(w->buf, p->len, job->arm.seq);
	r = ep_xfer(w, fd, true, p->len, gen);
	if (r >= 0 && p->len <= DUMMY_FIFO_SIZE)
		fifo_mark(w);
	if (r >= 0 && p->zlp) {
		r = ep_xfer(w, fd, true, 0, gen);
		if (r >= 0)
			fifo_mark(w);
	}
	if (r == -ECANCELED)
		info("%s seq %u %s: superseded before the host took it",
		     w->info->name, job->arm.seq,
		     hzg_beh_name(job->arm.behaviour));
	else if (r < 0)
		error(-r, "%s seq %u: write %u bytes to %s", w->info->name,
		      job->arm.seq, p->len, w->info->file);
	else
		info("%s seq %u %s: wrote %u bytes%s after %.3f ms",
		     w->info->name, job->arm.seq,
		     hzg_beh_name(job->arm.behaviour), p->len,
		     p->zlp ? " + ZLP" : "", ms_since(job->t0));
}

static void worker_read(struct worker *w, int fd, const struct job *job,
			const struct hzg_plan *p, uint64_t gen)
{
	enum hzg_payload chk = HZG_PAYLOAD_OK;
	uint32_t got = 0;
	ssize_t r;

	for (;;) {
		r = ep_xfer(w, fd, false, p->len, gen);
		if (r < 0)
			break;
		chk = hzg_payload_check(w->buf, r, job->arm.seq, &got);
		if (chk != HZG_PAYLOAD_STALE)
			break;
		/* a late OUT payload of an earlier transfer: not ours */
		warn("%s seq %u: discarded %zd bytes of earlier seq %u",
		     w->info->name, job->arm.seq, r, got);
	}
	if (r >= 0 && chk == HZG_PAYLOAD_AHEAD)
		/* the host's next transfer came before its ARM was read */
		warn("%s seq %u: took %zd bytes of later seq %u: its ARM came "
		     "too late to apply", w->info->name, job->arm.seq, r, got);
	if (r == -EOVERFLOW && job->arm.behaviour == HZRIG_BEH_SHORT)
		/* dummy_hcd: the host sent more than the short read took */
		info("%s seq %u SHORT: took %u bytes of a longer transfer",
		     w->info->name, job->arm.seq, p->len);
	else if (r == -ECANCELED)
		info("%s seq %u %s: superseded before data arrived",
		     w->info->name, job->arm.seq,
		     hzg_beh_name(job->arm.behaviour));
	else if (r < 0)
		error(-r, "%s seq %u: read %u bytes from %s", w->info->name,
		      job->arm.seq, p->len, w->info->file);
	else
		info("%s seq %u %s: read %zd bytes%s after %.3f ms",
		     w->info->name, job->arm.seq,
		     hzg_beh_name(job->arm.behaviour), r,
		     chk == HZG_PAYLOAD_BADMAGIC ? " (no payload header)" : "",
		     ms_since(job->t0));
}

static void worker_run(struct worker *w, int fd, const struct job *job,
		       const struct hzg_plan *p, uint64_t gen)
{
	switch (p->action) {
	case HZG_ACT_NONE:
		/* NAK: nothing queued, so nothing can go stale either */
		info("%s seq %u NAK: nothing queued", w->info->name,
		     job->arm.seq);
		break;
	case HZG_ACT_HALT:
		worker_halt(w, fd, job);
		break;
	case HZG_ACT_WRITE:
		worker_write(w, fd, job, p, gen);
		break;
	case HZG_ACT_READ:
		worker_read(w, fd, job, p, gen);
		break;
	case HZG_ACT_ACK:
		break;
	}
}

/* DELAY: sleep on the condvar (an absolute CLOCK_MONOTONIC hrtimer, like
 * clock_nanosleep(TIMER_ABSTIME)) so that a new ARM or RESET can cut it
 * short without a signal. Called and returns with w->lock held.
 */
static bool worker_wait(struct worker *w, uint64_t gen, uint64_t deadline)
{
	struct timespec ts = ns_to_ts(deadline);
	bool live;

	w->state = W_WAIT;
	while (!w->stop && !superseded(w, gen) && now_ns() < deadline)
		pthread_cond_clockwait(&w->cond, &w->lock, CLOCK_MONOTONIC,
				       &ts);
	live = !w->stop && !superseded(w, gen);
	w->state = W_IDLE;
	pthread_cond_broadcast(&w->cond);
	return live;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct hzg_plan plan;
	struct job job;
	uint64_t gen;
	sigset_t set;
	int fd;

	/* SIGUSR1 interrupts this thread's endpoint I/O, nothing else */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);

	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->stop && !(w->has_job && w->fd >= 0))
			pthread_cond_wait(&w->cond, &w->lock);
		if (w->stop)
			break;
		job = w->job;
		w->has_job = false;
		gen = worker_gen(w);
		plan = hzg_plan_ep(&job.arm, hzg_ep_is_in(w->info), w->maxp);
		if (plan.delay_ns &&
		    !worker_wait(w, gen, hzg_arm_deadline(&job.arm, job.t0))) {
			info("%s seq %u DELAY: superseded after %.3f ms",
			     w->info->name, job.arm.seq, ms_since(job.t0));
			continue;
		}
		w->state = W_IO;
		fd = w->fd;
		pthread_mutex_unlock(&w->lock);

		worker_run(w, fd, &job, &plan, gen);

		pthread_mutex_lock(&w->lock);
		w->state = W_IDLE;
		pthread_cond_broadcast(&w->cond);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/*
 * Supersede whatever the worker does and wait until it is idle, so the
 * caller may post a new job or close the endpoint. The signal is repeated
 * because one that lands between the worker's check and its read() is lost.
 */
static void worker_cancel_locked(struct worker *w)
{
	int tries = 0;
	struct timespec ts;

	__atomic_add_fetch(&w->gen, 1, __ATOMIC_RELEASE);
	w->has_job = false;
	pthread_cond_broadcast(&w->cond);
	while (w->started && w->state != W_IDLE) {
		if (w->state == W_IO)
			pthread_kill(w->thread, SIGUSR1);
		ts = ns_to_ts(now_ns() + CANCEL_POLL_NS);
		pthread_cond_clockwait(&w->cond, &w->lock, CLOCK_MONOTONIC,
				       &ts);
		if (++tries == CANCEL_TRIES) {
			error(0, "%s: worker stuck in a transfer on %s",
			      w->info->name, w->info->file);
			break;
		}
	}
}

/* ---- the device ---- */

struct hold {
	bool			active;
	struct usb_ctrlrequest	ctrl;
	struct hzg_plan		plan;
	uint32_t		seq;
	uint64_t		t0;		/* setup read */
	uint64_t		deadline;	/* DELAY: answer then */
};

struct orphan {
	enum hzg_orphan	kind;
	size_t		len;
	uint8_t		data[EP0_MAX_DATA];
};

struct gadget {
	const char		*dir;
	const char		*ready_file;
	const char		*config_file;
	bool			with_hs;
	bool			omit[HZG_EP_COUNT]; /* -x: not in descriptors */
	int			fd;		/* ep0: the controller file */
	int			tfd;		/* timerfd for a held DELAY */
	int			speed;		/* enum usb_device_speed */
	bool			configured;
	bool			abort_pending;
	int			exit_code;
	bool			done;
	uint32_t		last_arm_seq;	/* echoed by SYNC */
	struct hzg_slot		slot[HZRIG_TARGET_COUNT]; /* ep0 targets */
	struct worker		w[HZG_EP_COUNT];
	struct hold		hold;
	struct orphan		orphan;
	uint8_t			ep0buf[HZRIG_MAX_XFER];
	struct usb_gadgetfs_event ev[N_EVENTS];
};

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

static void on_cancel(int sig)
{
	(void)sig;	/* only there to interrupt a blocking read/write */
}

static void fatal(struct gadget *g)
{
	g->exit_code = 1;
	g->done = true;
}

static bool high_speed(const struct gadget *g)
{
	return g->speed == USB_SPEED_HIGH;
}

static const char *speed_name(int speed)
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

static int create_file(const char *path, const char *what, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		error(errno, "create %s file %s", what, path);
		return -1;
	}
	fputs(text, f);
	if (fclose(f) != 0) {
		error(errno, "write %s file %s", what, path);
		return -1;
	}
	return 0;
}

static void ep_path(const struct gadget *g, const struct hzg_ep_info *ep,
		    char *path, size_t cap)
{
	snprintf(path, cap, "%s/%s", g->dir, ep->file);
}

/*
 * Drop the endpoints given with -x from the configurations of a controller
 * file buffer (tag, configs, device), fixing bNumEndpoints and wTotalLength:
 * a device lacking an endpoint, for testing how the host driver's probe
 * refuses it. Returns the new length.
 */
static size_t omit_endpoints(const struct gadget *g, uint8_t *buf,
			     size_t len)
{
	size_t pos = sizeof(uint32_t), config = 0, intf = 0;

	while (pos + 2 <= len && buf[pos] >= 2 && pos + buf[pos] <= len) {
		uint8_t dlen = buf[pos];
		uint16_t total;
		bool drop = false;

		switch (buf[pos + 1]) {
		case USB_DT_CONFIG:
			config = pos;
			break;
		case USB_DT_INTERFACE:
			intf = pos;
			break;
		case USB_DT_ENDPOINT:
			for (int i = 0; i < HZG_EP_COUNT; i++)
				if (g->omit[i] &&
				    buf[pos + 2] == hzg_eps[i].address)
					drop = true;
			break;
		}
		if (!drop) {
			pos += dlen;
			continue;
		}
		memmove(buf + pos, buf + pos + dlen, len - pos - dlen);
		len -= dlen;
		buf[intf + 4]--;			/* bNumEndpoints */
		total = (buf[config + 2] | buf[config + 3] << 8) - dlen;
		buf[config + 2] = total & 0xff;		/* wTotalLength */
		buf[config + 3] = total >> 8;
	}
	return len;
}

/* Open an endpoint file and enable it with our descriptors. */
static int ep_open(struct gadget *g, enum hzg_ep idx)
{
	uint8_t desc[HZG_EP_CONFIG_MAX];
	char path[PATH_MAX];
	size_t len;
	ssize_t r;
	int fd;

	ep_path(g, &hzg_eps[idx], path, sizeof(path));
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		error(errno, "open endpoint %s", path);
		return -1;
	}
	len = hzg_build_ep_config(desc, sizeof(desc), idx, g->with_hs);
	r = write(fd, desc, len);
	if (r != (ssize_t)len) {
		error(r < 0 ? errno : EIO,
		      "enable endpoint %s (write %zu descriptor bytes)",
		      path, len);
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Post the job of a new ARM. An answer an earlier job wrote into dummy_hcd's
 * FIFO may still be there (fifo_mark()): reopen the endpoint, which disables
 * it and drops the FIFO request, before the new job can run. That is race
 * free here, on ep0, before SYNC echoes this ARM: the host starts the
 * transfer under test only after that, and had none running on this
 * endpoint while it armed.
 */
static void worker_post(struct gadget *g, struct worker *w,
			const struct hzg_arm *arm)
{
	pthread_mutex_lock(&w->lock);
	worker_cancel_locked(w);
	if (w->fifo_dirty && w->fd >= 0) {
		close(w->fd);
		w->fd = ep_open(g, w - g->w);
		if (w->fd < 0)
			fatal(g);
		else
			info("%s: flushed an answer the host may not have "
			     "taken", w->info->name);
	}
	w->fifo_dirty = false;
	w->job.arm = *arm;
	w->job.t0 = now_ns();
	w->has_job = true;
	if (w->fd < 0)
		warn("%s armed while not configured: runs once configured",
		     w->info->name);
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

static void endpoints_down(struct gadget *g)
{
	for (int i = 0; i < HZG_EP_COUNT; i++) {
		struct worker *w = &g->w[i];

		pthread_mutex_lock(&w->lock);
		worker_cancel_locked(w);
		if (w->fd >= 0)
			close(w->fd);	/* disables it, drops queued data */
		w->fd = -1;
		w->fifo_dirty = false;
		pthread_mutex_unlock(&w->lock);
	}
}

/* (Re)enable every endpoint; reopening also clears halts and flushes. */
static int endpoints_up(struct gadget *g)
{
	endpoints_down(g);
	for (int i = 0; i < HZG_EP_COUNT; i++) {
		struct worker *w = &g->w[i];
		int fd;

		if (g->omit[i])
			continue;	/* not in the descriptors: not enabled */
		fd = ep_open(g, i);
		if (fd < 0)
			return -1;
		pthread_mutex_lock(&w->lock);
		w->fd = fd;
		w->maxp = hzg_ep_maxp(w->info, high_speed(g));
		pthread_cond_broadcast(&w->cond);
		pthread_mutex_unlock(&w->lock);
	}
	return 0;
}

/*
 * Re-enable one endpoint, dropping its job, whatever it queued and its halt;
 * the other endpoints are not touched.
 */
static int endpoint_restart(struct gadget *g, enum hzg_ep idx)
{
	struct worker *w = &g->w[idx];
	int fd;

	pthread_mutex_lock(&w->lock);
	worker_cancel_locked(w);
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	w->fifo_dirty = false;
	pthread_mutex_unlock(&w->lock);
	if (!g->configured || g->omit[idx])
		return 0;
	fd = ep_open(g, idx);
	if (fd < 0)
		return -1;
	pthread_mutex_lock(&w->lock);
	w->fd = fd;
	w->maxp = hzg_ep_maxp(w->info, high_speed(g));
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	return 0;
}

static void disarm_all(struct gadget *g)
{
	for (int i = 0; i < HZRIG_TARGET_COUNT; i++)
		hzg_slot_clear(&g->slot[i]);
}

/* ---- ep0 data/status stages ---- */

enum ep0_rc {
	EP0_OK,
	EP0_ABORT,	/* a newer setup replaced this one: ep0_resolve() */
	EP0_GONE,	/* setup state left under us (disconnect) or failed */
};

static enum ep0_rc ep0_rc(ssize_t r, int expect, const char *what)
{
	int err = r < 0 ? errno : 0;

	if (err == expect)
		return EP0_OK;
	if (err == EIDRM)
		return EP0_ABORT;
	error(err, "ep0: %s", what);
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
		error(0, "ep0: wrote %zd of %zu bytes", r, len);
		return EP0_GONE;
	}
	return ep0_rc(r, 0, "write IN data stage");
}

static int set_nonblock(struct gadget *g, bool on);

/*
 * ep0 stays O_NONBLOCK (no fcntl() on the hot path). The OUT data stage is
 * nearly always in by the time we read it; if not, wait for it in a blocking
 * read(), which also notices a disconnect (-ECANCELED).
 */
static enum ep0_rc ep0_read(struct gadget *g, size_t len, size_t *got)
{
	ssize_t r = read(g->fd, g->ep0buf, len);

	*got = 0;
	if (r < 0 && errno == EAGAIN && set_nonblock(g, false) == 0) {
		r = read(g->fd, g->ep0buf, len);
		if (set_nonblock(g, true) < 0)
			return EP0_GONE;
	}
	*got = r > 0 ? (size_t)r : 0;
	return ep0_rc(r, 0, "read OUT data stage");
}

/*
 * The finish_*() helpers do the data/status stage of the setup being
 * handled, unless ep0_resolve() already did it (@o set): then they only
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
		warn("ep0: cannot stall request %02x.%02x: its OUT data stage "
		     "is complete", ctrl->bRequestType, ctrl->bRequest);
		return get_out_data(g, ctrl, o, &data, &len) == EP0_ABORT ?
		       EP0_ABORT : EP0_OK;
	}
	if (o) {
		if (o->kind != HZG_ORPHAN_STALLED)
			warn("ep0: request %02x.%02x was acknowledged, not "
			     "stalled", ctrl->bRequestType, ctrl->bRequest);
		return EP0_OK;
	}
	return ep0_halt(g, in);
}

static enum ep0_rc finish_write(struct gadget *g, const struct orphan *o,
				const void *buf, size_t len)
{
	if (o) {
		warn("ep0: IN answer of %zu bytes not sent: the request was "
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
		error(0, "ep0 ARM without data stage: stalled");
		return finish_halt(g, ctrl, o);
	}
	rc = get_out_data(g, ctrl, o, &data, &len);
	if (rc != EP0_OK)
		return rc;
	err = hzg_arm_parse(data, len, &arm);
	if (err) {
		/* the host already has its status: all we can do is tell */
		error(0, "ep0 ARM rejected (%zu bytes, want %zu, version %u): "
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
		warn("ARM of %s, an endpoint omitted with -x: ignored",
		     ep->name);
	else if (ep)
		worker_post(g, &g->w[ep - hzg_eps], &arm);
	else
		hzg_slot_arm(&g->slot[arm.target], &arm);
	info("ARM %s seq %u %s delay %u us length %u start %+.3f ms",
	     hzg_target_name(arm.target), arm.seq, hzg_beh_name(arm.behaviour),
	     arm.delay_us, arm.length, arm.start_ns ?
	     ((double)arm.start_ns - (double)now_ns()) / 1e6 : 0.0);
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
		error(0, "ep0 RESET of targets %#x: no such target; stalled",
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
		if (ep && endpoint_restart(g, ep - hzg_eps) < 0) {
			fatal(g);
			return EP0_GONE;
		}
	}
	if (!ctrl->wLength)
		rc = finish_ack(g, o);
	info("RESET: targets %#x disarmed%s", mask, g->configured ?
	     ", their endpoints flushed and unhalted" : "");
	return rc;
}

static enum ep0_rc ep0_exec(struct gadget *g,
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
			warn("ep0-out seq %u: payload carries seq %u", seq,
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
	g->hold.t0 = now_ns();
	if (!p->delay_ns)
		return;
	g->hold.deadline = hzg_arm_deadline(arm, g->hold.t0);
	its.it_value = ns_to_ts(g->hold.deadline);
	if (timerfd_settime(g->tfd, TFD_TIMER_ABSTIME, &its, NULL) < 0) {
		error(errno, "timerfd_settime for ep0 DELAY");
		fatal(g);
	}
}

static void hold_stop(struct gadget *g)
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

	info("%s seq %u (%s) %s, wLength %u%s", t, arm->seq, match_name(m),
	     beh, le16toh(ctrl->wLength), p->hold ? ": held" : "");
	/*
	 * The host arms every test. gadgetfs drops an ARM whose event was
	 * not read before the next setup came: a test then finds nothing.
	 */
	if (m != HZG_MATCH_ARMED)
		warn("%s seq %u: no ARM for it (lost: sent too close before "
		     "the test?); answered", t, arm->seq);
	if (p->unsupported)
		warn("%s seq %u: %s impossible on a control OUT with a data "
		     "stage (the kernel completes it); answered", t, arm->seq,
		     beh);
	/* finished blind by ep0_resolve(): an IN got a stall */
	if (o && (in || arm->behaviour != HZRIG_BEH_ANSWER))
		warn("%s seq %u: %s not applied: the request was %s before "
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
		rc = ep0_exec(g, ctrl, &p, arm.seq);
	test_report(ctrl, &arm, m, &p, o);
	return rc;
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
	if (value && endpoints_up(g) < 0) {
		fatal(g);
		return EP0_GONE;
	}
	if (!value)
		endpoints_down(g);
	g->configured = value != 0;
	disarm_all(g);
	rc = finish_ack(g, o);
	info("SET_CONFIGURATION %u at %s speed%s", value, speed_name(g->speed),
	     rc == EP0_OK ? "" : " (status stage failed)");
	if (g->configured && g->config_file &&
	    create_file(g->config_file, "configured", "configured\n") < 0)
		fatal(g);
	return rc;
}

static enum ep0_rc do_set_interface(struct gadget *g,
				    const struct usb_ctrlrequest *ctrl,
				    const struct orphan *o)
{
	if (ctrl->wIndex || ctrl->wValue || !g->configured) {
		info("SET_INTERFACE %u alt %u: no such setting, stalled",
		     le16toh(ctrl->wIndex), le16toh(ctrl->wValue));
		return finish_halt(g, ctrl, o);
	}
	/* same interface again: endpoints start afresh, halts cleared */
	if (endpoints_up(g) < 0) {
		fatal(g);
		return EP0_GONE;
	}
	for (int i = 0; i < HZRIG_TARGET_COUNT; i++)
		if (hzg_ep_for_target(i))
			hzg_slot_clear(&g->slot[i]);
	info("SET_INTERFACE 0 alt 0: endpoints reset");
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
		info("GET_DESCRIPTOR string %u: none, stalled", index);
		return finish_halt(g, ctrl, o);
	}
	return finish_write(g, o, buf, n < wlength ? (size_t)n : wlength);
}

static enum ep0_rc dispatch_setup(struct gadget *g,
				  const struct usb_ctrlrequest *ctrl,
				  enum hzg_req req, const struct orphan *o);

static enum ep0_rc handle_setup(struct gadget *g,
				const struct usb_ctrlrequest *ctrl,
				const struct orphan *o)
{
	enum hzg_req req = hzg_classify(ctrl);
	enum ep0_rc rc;

	rc = dispatch_setup(g, ctrl, req, o);
	/* logged afterwards: nothing may delay reading an ARM's data */
	info("SETUP %02x.%02x v%04x i%04x l%u: %s%s%s%s", ctrl->bRequestType,
	     ctrl->bRequest, le16toh(ctrl->wValue), le16toh(ctrl->wIndex),
	     le16toh(ctrl->wLength), hzg_req_name(req),
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
	info("unsupported request %02x.%02x: stalled", ctrl->bRequestType,
	     ctrl->bRequest);
	return finish_halt(g, ctrl, o);
}

/* ---- events ---- */

/*
 * Reading a SETUP event puts ep0 into setup state (inode.c ep0_read()),
 * also for a request ep0_resolve() has finished already; left there, the
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
	error(errno, "ep0: leave setup state of a finished request");
	return EP0_GONE;
}

static void on_disconnect(struct gadget *g, const char *why)
{
	info("%s", why);
	endpoints_down(g);
	g->configured = false;
	disarm_all(g);
}

/*
 * The event of a request ep0_resolve() finished was dropped for a newer
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
		info("ep0: ARM seq %u finished blind, its event lost to a "
		     "newer setup: applied", arm.seq);
		arm_apply(g, &arm);
	} else {
		warn("ep0: event of the request finished blind (%s) was lost "
		     "to a newer setup", hzg_orphan_name(o->kind));
	}
	o->kind = HZG_ORPHAN_NONE;
}

/*
 * @o is how ep0_resolve() finished a request whose event had not been read
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
			info("CONNECT at %s speed", speed_name(g->speed));
			break;
		case GADGETFS_DISCONNECT:
			on_disconnect(g, "DISCONNECT (or bus reset)");
			break;
		case GADGETFS_SUSPEND:
			info("SUSPEND");
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
			warn("ep0: unknown event type %d", ev->type);
			break;
		}
	}
}

static int set_nonblock(struct gadget *g, bool on)
{
	int fl = fcntl(g->fd, F_GETFL);

	if (fl < 0 || fcntl(g->fd, F_SETFL,
			    on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK) < 0) {
		error(errno, "fcntl O_NONBLOCK on %s/%s", g->dir, UDC_FILE);
		fatal(g);
		return -1;
	}
	return 0;
}

/* Read and handle the queued events; 0, or -1 if there were none. */
static int read_events(struct gadget *g, struct orphan *o)
{
	ssize_t r;

	r = read(g->fd, g->ev, sizeof(g->ev));
	if (r < 0) {
		if (errno == EIDRM) {
			g->abort_pending = true;
		} else if (errno != EAGAIN && errno != EINTR) {
			error(errno, "read events from %s/%s", g->dir,
			      UDC_FILE);
			fatal(g);
		}
		return -1;
	}
	process_events(g, r / sizeof(g->ev[0]), o);
	return 0;
}

/* ---- a setup that arrived while another one was pending ---- */

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = ns_to_ts(ns);

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

enum resolve { RES_DONE, RES_RETRY };

/* The new request is an IN, or an OUT without data stage. */
static enum resolve resolve_in_or_nodata(struct gadget *g)
{
	struct pollfd p = { .fd = g->fd, .events = POLLIN | POLLOUT };
	ssize_t r;

	/*
	 * gadgetfs_setup() drops its lock to queue an OUT data stage; until
	 * it is done, that request also reads as stallable (POLLOUT). On SMP
	 * give it the moment, then look again; on one CPU the softirq running
	 * it cannot be half done when we run.
	 */
	if (smp)
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
		error(errno, "ep0: finish unseen request (read 0)");
	return RES_DONE;
}

/*
 * The new request is an OUT whose data stage the kernel queued (ARM, most
 * likely), or SET_CONFIGURATION. Collect the data; if none comes within a
 * dummy_hcd frame or many, it has no data stage: acknowledge it.
 */
static enum resolve resolve_out_data(struct gadget *g)
{
	uint64_t deadline = now_ns() + ORPHAN_DATA_WAIT_NS;
	enum resolve res = RES_DONE;
	ssize_t r;

	for (;;) {
		r = read(g->fd, g->orphan.data, sizeof(g->orphan.data));
		if (r >= 0) {
			g->orphan.kind = HZG_ORPHAN_DATA;
			g->orphan.len = r;
			break;
		}
		if (errno == EAGAIN && now_ns() < deadline) {
			sleep_ns(100000);
			continue;
		}
		if (errno == EIO)
			g->orphan.kind = HZG_ORPHAN_DATA_ERROR;
		else if (errno == EIDRM)
			res = RES_RETRY;
		else if (errno != EAGAIN)
			error(errno, "ep0: read data of unseen request");
		break;
	}
	if (r < 0 && errno == EAGAIN) {
		r = read(g->fd, g->ep0buf, 0);
		if (r == 0)
			g->orphan.kind = HZG_ORPHAN_ACKED;
		else if (errno == EIDRM)
			res = RES_RETRY;
		else
			error(errno, "ep0: acknowledge unseen request");
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
static void ep0_resolve(struct gadget *g)
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
			error(errno, "poll %s/%s", g->dir, UDC_FILE);
			fatal(g);
			return;
		}
		if (p.revents & POLLHUP)	/* replaced once more */
			continue;
		if (p.revents & POLLIN)		/* setup state left: events */
			return;
		if (p.revents & POLLOUT)
			res = resolve_in_or_nodata(g);
		else
			res = resolve_out_data(g);
	}
	if (res == RES_RETRY)
		error(0, "ep0: cannot finish an interrupted request");
}

/*
 * ep0_resolve() finished a request but no event came for it: a SETUP event
 * can be lost in gadgetfs (ep0_read() copies the event out unlocked; a setup
 * that arrives meanwhile replaces it in the queue and is then removed in
 * its stead), or it is still on its way. The host retries what it missed
 * (a stalled SYNC); an ARM whose data we hold is applied.
 */
static void orphan_no_event(struct gadget *g, struct orphan *o)
{
	struct hzg_arm arm;

	if (o->kind == HZG_ORPHAN_DATA &&
	    hzg_arm_parse(o->data, o->len, &arm) == HZG_ARM_OK) {
		info("ep0: ARM seq %u finished blind without event: applied",
		     arm.seq);
		arm_apply(g, &arm);
	} else {
		info("ep0: request finished blind (%s) had no event",
		     hzg_orphan_name(o->kind));
	}
	o->kind = HZG_ORPHAN_NONE;
}

/* ---- main loop ---- */

static sigset_t poll_sigmask;	/* blocked set while in ppoll() */

static int wait_fds(struct pollfd *p, int n)
{
	int r = ppoll(p, n, NULL, &poll_sigmask);

	if (r < 0 && errno != EINTR) {
		error(errno, "ppoll");
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
		error(errno, "read timerfd");
	hold_stop(g);
	rc = ep0_exec(g, &h.ctrl, &h.plan, h.seq);
	if (rc == EP0_ABORT) {
		info("%s seq %u DELAY: host gave up first",
		     hzg_target_name(h.ctrl.bRequestType & USB_DIR_IN ?
				     HZRIG_TARGET_EP0_IN :
				     HZRIG_TARGET_EP0_OUT), h.seq);
		g->abort_pending = true;
	} else if (rc == EP0_OK) {
		info("ep0 seq %u DELAY: answered after %.3f ms", h.seq,
		     ms_since(h.t0));
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
		fatal(g);
		return;
	}
	if (p[0].revents & POLLHUP) {
		/* the host killed the URB and sent its next setup */
		info("ep0 seq %u %s: host gave up after %.3f ms", g->hold.seq,
		     g->hold.plan.delay_ns ? "DELAY" : "NAK",
		     ms_since(g->hold.t0));
		hold_stop(g);
		g->abort_pending = true;
	} else if (p[0].revents & POLLIN) {
		info("ep0 seq %u: held request ended by disconnect",
		     g->hold.seq);
		hold_stop(g);
	} else if (p[0].revents & (POLLERR | POLLNVAL)) {
		error(0, "poll %s/%s: revents %#x", g->dir, UDC_FILE,
		      p[0].revents);
		fatal(g);
	} else if (p[1].revents & POLLIN) {
		hold_expired(g);
	}
}

static void wait_events(struct gadget *g)
{
	struct pollfd p = { .fd = g->fd, .events = POLLIN };

	if (wait_fds(&p, 1) < 0) {
		fatal(g);
		return;
	}
	if (p.revents & POLLHUP) {
		g->abort_pending = true;
	} else if (p.revents & POLLIN) {
		read_events(g, NULL);
	} else if (p.revents & (POLLERR | POLLNVAL)) {
		error(0, "poll %s/%s: revents %#x", g->dir, UDC_FILE,
		      p.revents);
		fatal(g);
	}
}

static void run(struct gadget *g)
{
	while (!g->done && !stop_signal) {
		if (g->abort_pending) {
			g->abort_pending = false;
			ep0_resolve(g);
			/* its event, if any, is queued already */
			read_events(g, &g->orphan);
			if (g->orphan.kind != HZG_ORPHAN_NONE)
				orphan_no_event(g, &g->orphan);
		} else if (g->hold.active) {
			wait_hold(g);
		} else {
			wait_events(g);
		}
	}
	if (stop_signal)
		info("%s: shutting down", strsignal(stop_signal));
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
	sa.sa_handler = on_cancel;
	if (sigaction(SIGUSR1, &sa, NULL) < 0)
		goto fail;

	/* all threads start with these blocked; see worker_main(), run() */
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
	error(errno, "install signal handlers");
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
		err = pthread_create(&w->thread, NULL, worker_main, w);
		if (err) {
			error(err, "create %s worker thread", w->info->name);
			return -1;
		}
		w->started = true;
	}
	return 0;
}

static void workers_stop(struct gadget *g)
{
	endpoints_down(g);
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
		ep_path(g, &hzg_eps[i], path, sizeof(path));
		if (access(path, F_OK) < 0) {
			error(errno, "endpoint file %s", path);
			note("gadgetfs did not bind: is the UDC dummy_hcd "
			     "and not used by another gadget driver?");
			return -1;
		}
	}
	return 0;
}

static int device_open(struct gadget *g)
{
	uint8_t desc[HZG_DEV_CONFIG_MAX];
	char path[PATH_MAX];
	size_t len;
	ssize_t r;

	snprintf(path, sizeof(path), "%s/%s", g->dir, UDC_FILE);
	g->fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (g->fd < 0) {
		error(errno, "open %s", path);
		note("is gadgetfs mounted on %s, dummy_hcd there, and no "
		     "other gadget program running?", g->dir);
		return -1;
	}
	len = hzg_build_dev_config(desc, sizeof(desc), g->with_hs);
	len = omit_endpoints(g, desc, len);
	r = write(g->fd, desc, len);
	if (r != (ssize_t)len) {
		error(r < 0 ? errno : EIO,
		      "write %zu descriptor bytes to %s", len, path);
		return -1;
	}
	info("descriptors written to %s (%s speed capable)", path,
	     g->with_hs ? "high" : "full");
	for (int i = 0; i < HZG_EP_COUNT; i++)
		if (g->omit[i])
			note("endpoint 0x%02x (%s) omitted from the descriptors "
			     "(-x)", hzg_eps[i].address, hzg_eps[i].name);

	/*
	 * A first read makes gadgetfs hand control requests to us
	 * (usermode_setup); it must happen before the host's
	 * SET_CONFIGURATION, so do it now and without blocking.
	 */
	if (read_events(g, NULL) < 0 && g->done) {
		/* usb_gadget_register_driver() succeeds without a free UDC */
		note("gadgetfs took the descriptors but is not bound to a "
		     "controller: is dummy_hcd's UDC free?");
		return -1;
	}
	return check_ep_files(g);
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

static int parse_args(struct gadget *g, int argc, char **argv)
{
	int c;

	g->dir = "/dev/gadget";
	g->with_hs = true;
	while ((c = getopt(argc, argv, "vfd:r:c:x:h")) != -1) {
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
	return 0;
}

static struct gadget the_gadget = { .fd = -1, .tfd = -1 };

int main(int argc, char **argv)
{
	struct gadget *g = &the_gadget;
	char text[32];

	t_start = now_ns();
	smp = sysconf(_SC_NPROCESSORS_ONLN) > 1;
	if (parse_args(g, argc, argv) < 0)
		return 2;
	/* delays should be hrtimer-exact, not rounded up by 50 us slack */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	if (signals_init() < 0)
		return 1;
	g->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (g->tfd < 0) {
		error(errno, "timerfd_create");
		return 1;
	}
	if (workers_start(g) < 0 || device_open(g) < 0) {
		g->exit_code = 1;
		goto out;
	}
	snprintf(text, sizeof(text), "%d\n", (int)getpid());
	if (g->ready_file && create_file(g->ready_file, "ready", text) < 0) {
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
