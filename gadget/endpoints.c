// SPDX-License-Identifier: GPL-2.0
/*
 * The gadget's bulk and interrupt endpoints: the endpoint files opened and
 * enabled once the host connected, and one worker thread per endpoint that
 * NAKs, delays, stalls or answers its next transfer as armed (gadget.h).
 */
#include "gadget.h"

/* ---- endpoint workers ---- */


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
		hzg_info("%s seq %u STALL: halted after %.3f ms", w->info->name,
		     job->arm.seq, hzg_ms_since(job->t0));
	else
		hzg_error(r < 0 ? errno : 0,
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
		hzg_info("%s seq %u %s: superseded before the host took it",
		     w->info->name, job->arm.seq,
		     hzg_beh_name(job->arm.behaviour));
	else if (r < 0)
		hzg_error(-r, "%s seq %u: write %u bytes to %s", w->info->name,
		      job->arm.seq, p->len, w->info->file);
	else
		hzg_info("%s seq %u %s: wrote %u bytes%s after %.3f ms",
		     w->info->name, job->arm.seq,
		     hzg_beh_name(job->arm.behaviour), p->len,
		     p->zlp ? " + ZLP" : "", hzg_ms_since(job->t0));
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
		hzg_warn("%s seq %u: discarded %zd bytes of earlier seq %u",
		     w->info->name, job->arm.seq, r, got);
	}
	if (r >= 0 && chk == HZG_PAYLOAD_AHEAD)
		/* the host's next transfer came before its ARM was read */
		hzg_warn("%s seq %u: took %zd bytes of later seq %u: its ARM came "
		     "too late to apply", w->info->name, job->arm.seq, r, got);
	if (r == -EOVERFLOW && job->arm.behaviour == HZRIG_BEH_SHORT)
		/* dummy_hcd: the host sent more than the short read took */
		hzg_info("%s seq %u SHORT: took %u bytes of a longer transfer",
		     w->info->name, job->arm.seq, p->len);
	else if (r == -ECANCELED)
		hzg_info("%s seq %u %s: superseded before data arrived",
		     w->info->name, job->arm.seq,
		     hzg_beh_name(job->arm.behaviour));
	else if (r < 0)
		hzg_error(-r, "%s seq %u: read %u bytes from %s", w->info->name,
		      job->arm.seq, p->len, w->info->file);
	else
		hzg_info("%s seq %u %s: read %zd bytes%s after %.3f ms",
		     w->info->name, job->arm.seq,
		     hzg_beh_name(job->arm.behaviour), r,
		     chk == HZG_PAYLOAD_BADMAGIC ? " (no payload header)" : "",
		     hzg_ms_since(job->t0));
}

static void worker_run(struct worker *w, int fd, const struct job *job,
		       const struct hzg_plan *p, uint64_t gen)
{
	switch (p->action) {
	case HZG_ACT_NONE:
		/* NAK: nothing queued, so nothing can go stale either */
		hzg_info("%s seq %u NAK: nothing queued", w->info->name,
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
	struct timespec ts = hzg_ns_to_ts(deadline);
	bool live;

	w->state = W_WAIT;
	while (!w->stop && !superseded(w, gen) && hzg_now_ns() < deadline)
		pthread_cond_clockwait(&w->cond, &w->lock, CLOCK_MONOTONIC,
				       &ts);
	live = !w->stop && !superseded(w, gen);
	w->state = W_IDLE;
	pthread_cond_broadcast(&w->cond);
	return live;
}

void *hzg_worker_main(void *arg)
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
			hzg_info("%s seq %u DELAY: superseded after %.3f ms",
			     w->info->name, job.arm.seq, hzg_ms_since(job.t0));
			continue;
		}
		/*
		 * The transfer runs on a file descriptor of its own: if it
		 * outlives worker_cancel_locked()'s patience, the caller's
		 * close() of w->fd and a reopen cannot hand its number to
		 * another endpoint file under it. The endpoint is disabled
		 * only when this one is closed too (then the reopen fails
		 * with EBUSY, loudly, rather than I/O going astray).
		 */
		fd = fcntl(w->fd, F_DUPFD_CLOEXEC, 0);
		if (fd < 0) {
			hzg_error(errno, "%s seq %u: dup %s", w->info->name,
				  job.arm.seq, w->info->file);
			continue;
		}
		w->state = W_IO;
		pthread_mutex_unlock(&w->lock);

		worker_run(w, fd, &job, &plan, gen);
		close(fd);

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
		ts = hzg_ns_to_ts(hzg_now_ns() + CANCEL_POLL_NS);
		pthread_cond_clockwait(&w->cond, &w->lock, CLOCK_MONOTONIC,
				       &ts);
		if (++tries == CANCEL_TRIES) {
			/* its own descriptor keeps the file: see the worker */
			hzg_error(0, "%s: worker stuck in a transfer on %s; the "
			      "endpoint stays enabled until it returns",
			      w->info->name, w->info->file);
			break;
		}
	}
}

int hzg_create_file(const char *path, const char *what, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		hzg_error(errno, "create %s file %s", what, path);
		return -1;
	}
	fputs(text, f);
	if (fclose(f) != 0) {
		hzg_error(errno, "write %s file %s", what, path);
		return -1;
	}
	return 0;
}

void hzg_ep_path(const struct gadget *g, const struct hzg_ep_info *ep,
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
size_t hzg_omit_endpoints(const struct gadget *g, uint8_t *buf,
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

	hzg_ep_path(g, &hzg_eps[idx], path, sizeof(path));
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		hzg_error(errno, "open endpoint %s", path);
		return -1;
	}
	len = hzg_build_ep_config(desc, sizeof(desc), idx, g->with_hs);
	r = write(fd, desc, len);
	if (r != (ssize_t)len) {
		hzg_error(r < 0 ? errno : EIO,
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
void hzg_worker_post(struct gadget *g, struct worker *w,
			const struct hzg_arm *arm)
{
	pthread_mutex_lock(&w->lock);
	worker_cancel_locked(w);
	if (w->fifo_dirty && w->fd >= 0) {
		close(w->fd);
		w->fd = ep_open(g, w - g->w);
		if (w->fd < 0)
			hzg_fatal(g);
		else
			hzg_info("%s: flushed an answer the host may not have "
			     "taken", w->info->name);
	}
	w->fifo_dirty = false;
	w->job.arm = *arm;
	w->job.t0 = hzg_now_ns();
	w->has_job = true;
	if (w->fd < 0)
		hzg_warn("%s armed while not configured: runs once configured",
		     w->info->name);
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

void hzg_endpoints_down(struct gadget *g)
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

/* Open endpoint @idx and hand its file to worker @w; -1 on failure. */
static int worker_enable(struct gadget *g, struct worker *w, enum hzg_ep idx)
{
	int fd = ep_open(g, idx);

	if (fd < 0)
		return -1;
	pthread_mutex_lock(&w->lock);
	w->fd = fd;
	w->maxp = hzg_ep_maxp(w->info, hzg_high_speed(g));
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	return 0;
}

/* (Re)enable every endpoint; reopening also clears halts and flushes. */
int hzg_endpoints_up(struct gadget *g)
{
	hzg_endpoints_down(g);
	for (int i = 0; i < HZG_EP_COUNT; i++) {
		if (g->omit[i])
			continue;	/* not in the descriptors: not enabled */
		if (worker_enable(g, &g->w[i], i))
			return -1;
	}
	return 0;
}

/*
 * Re-enable one endpoint, dropping its job, whatever it queued and its halt;
 * the other endpoints are not touched.
 */
int hzg_endpoint_restart(struct gadget *g, enum hzg_ep idx)
{
	struct worker *w = &g->w[idx];

	pthread_mutex_lock(&w->lock);
	worker_cancel_locked(w);
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	w->fifo_dirty = false;
	pthread_mutex_unlock(&w->lock);
	if (!g->configured || g->omit[idx])
		return 0;
	return worker_enable(g, w, idx);
}

void hzg_disarm_all(struct gadget *g)
{
	for (int i = 0; i < HZRIG_TARGET_COUNT; i++)
		hzg_slot_clear(&g->slot[i]);
}
