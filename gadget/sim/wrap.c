// SPDX-License-Identifier: GPL-2.0
/*
 * The wrapped calls: open/read/write/close/fcntl/poll/ppoll/access on
 * paths under SIM_DIR reach the model, all else the real calls.
 */
#include "sim.h"

/* ---------------------------------------------------------------- */
/* the wrapped calls */

static int fake_index(const char *path)
{
	const char *name;

	if (strncmp(path, SIM_DIR "/", sizeof(SIM_DIR)))
		return -2;
	name = path + sizeof(SIM_DIR);
	if (!strcmp(name, UDC_NAME))
		return -1;
	for (int i = 0; sim_bound && i < N_EPS; i++)
		if (!strcmp(name, sim_eps[i].name))
			return i;
	return -3;
}

int __wrap_open(const char *path, int flags, ...)
{
	va_list ap;
	int mode = 0, idx, fd, err = 0;

	va_start(ap, flags);
	if (flags & O_CREAT)
		mode = va_arg(ap, int);
	va_end(ap);
	idx = fake_index(path);
	if (idx == -2)
		return __real_open(path, flags, mode);
	if (idx == -3)
		return sim_fail(ENOENT);

	pthread_mutex_lock(&sim_mutex);
	if (idx == -1 && sim_dev.state != ST_DISABLED)
		err = EBUSY;
	else if (idx >= 0 && sim_eps[idx].state != EP_DISABLED)
		err = EBUSY;
	fd = err ? -1 : __real_open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd >= MAX_FDS)
		abort();
	if (fd >= 0) {
		sim_fds[fd].kind = idx == -1 ? 1 : 2;
		sim_fds[fd].ep = idx;
		sim_fds[fd].nonblock = flags & O_NONBLOCK;
		if (idx == -1) {
			sim_dev.state = ST_OPENED;
		} else {
			sim_eps[idx].state = EP_READY;
			sim_eps[idx].refs = 1;
		}
	}
	pthread_mutex_unlock(&sim_mutex);
	return err ? sim_fail(err) : fd;
}

int __wrap_access(const char *path, int mode)
{
	int idx = fake_index(path);

	if (idx == -2)
		return __real_access(path, mode);
	return idx == -3 ? sim_fail(ENOENT) : 0;
}

static bool is_fake(int fd)
{
	return fd >= 0 && fd < MAX_FDS && sim_fds[fd].kind;
}

ssize_t __wrap_read(int fd, void *buf, size_t n)
{
	ssize_t r;

	if (!is_fake(fd))
		return __real_read(fd, buf, n);
	pthread_mutex_lock(&sim_mutex);
	if (sim_fds[fd].kind == 1)
		r = sim_ep0_read(sim_fds[fd].nonblock, buf, n);
	else
		r = sim_ep_rw(&sim_eps[sim_fds[fd].ep], buf, n, false);
	pthread_mutex_unlock(&sim_mutex);
	return r;
}

ssize_t __wrap_write(int fd, const void *buf, size_t n)
{
	ssize_t r;

	if (!is_fake(fd))
		return __real_write(fd, buf, n);
	pthread_mutex_lock(&sim_mutex);
	if (sim_fds[fd].kind == 1)
		r = sim_ep0_write(buf, n);
	else
		r = sim_ep_rw(&sim_eps[sim_fds[fd].ep], (void *)buf, n, true);
	pthread_mutex_unlock(&sim_mutex);
	return r;
}

int __wrap_close(int fd)
{
	if (!is_fake(fd))
		return __real_close(fd);
	pthread_mutex_lock(&sim_mutex);
	/* like the file's release: only the last descriptor disables it */
	if (sim_fds[fd].kind == 1)
		sim_dev.state = ST_DISABLED;	/* unbinds; enough here */
	else if (--sim_eps[sim_fds[fd].ep].refs == 0)
		sim_ep_disable(&sim_eps[sim_fds[fd].ep]);
	sim_fds[fd].kind = 0;
	pthread_mutex_unlock(&sim_mutex);
	return __real_close(fd);
}

int __wrap_fcntl(int fd, int cmd, ...)
{
	va_list ap;
	long arg;

	va_start(ap, cmd);
	arg = va_arg(ap, long);
	va_end(ap);
	if (!is_fake(fd))
		return __real_fcntl(fd, cmd, arg);
	if (cmd == F_GETFL)
		return O_RDWR | (sim_fds[fd].nonblock ? O_NONBLOCK : 0);
	if (cmd == F_SETFL) {
		sim_fds[fd].nonblock = arg & O_NONBLOCK;
		return 0;
	}
	if (cmd == F_DUPFD_CLOEXEC && sim_fds[fd].kind == 2) {
		int nfd = __real_fcntl(fd, cmd, arg);

		if (nfd < 0)
			return nfd;
		if (nfd >= MAX_FDS)
			abort();
		pthread_mutex_lock(&sim_mutex);
		sim_fds[nfd] = sim_fds[fd];
		sim_eps[sim_fds[fd].ep].refs++;
		pthread_mutex_unlock(&sim_mutex);
		return nfd;
	}
	return sim_fail(EINVAL);
}

static short fake_revents(int fd, short events)
{
	short m;

	if (sim_fds[fd].kind == 1)
		m = sim_ep0_poll();
	else
		m = POLLIN | POLLOUT;		/* DEFAULT_POLLMASK */
	return m & (events | POLLHUP | POLLERR);
}

int __wrap_ppoll(struct pollfd *p, nfds_t n, const struct timespec *ts,
		 const sigset_t *mask)
{
	struct pollfd q[8];
	uint64_t deadline = 0;
	int ready, r;

	if (n > 8)
		abort();
	if (ts)
		deadline = sim_now_ns() + ts->tv_sec * 1000000000ull + ts->tv_nsec;
	for (;;) {
		struct timespec left, *lp = NULL;

		ready = 0;
		pthread_mutex_lock(&sim_mutex);
		for (nfds_t i = 0; i < n; i++) {
			q[i] = p[i];
			p[i].revents = 0;
			if (!is_fake(p[i].fd))
				continue;
			sim_drain(sim_dev.wake);
			p[i].revents = fake_revents(p[i].fd, p[i].events);
			ready += !!p[i].revents;
			q[i].fd = sim_dev.wake;
			q[i].events = POLLIN;
		}
		pthread_mutex_unlock(&sim_mutex);
		if (ready) {
			/* add what the real fds have right now */
			for (nfds_t i = 0; i < n; i++) {
				if (is_fake(p[i].fd))
					continue;
				r = __real_poll(&p[i], 1, 0);
				ready += r > 0;
			}
			return ready;
		}
		if (ts) {
			uint64_t t = sim_now_ns();
			uint64_t d = t < deadline ? deadline - t : 0;

			left.tv_sec = d / 1000000000;
			left.tv_nsec = d % 1000000000;
			lp = &left;
		}
		r = __real_ppoll(q, n, lp, mask);
		if (r <= 0)
			return r;
		ready = 0;
		for (nfds_t i = 0; i < n; i++) {
			if (is_fake(p[i].fd))
				continue;
			p[i].revents = q[i].revents;
			ready += !!q[i].revents;
		}
		if (ready)
			return ready;
		/* only a fake fd was woken: evaluate again */
	}
}

int __wrap_poll(struct pollfd *p, nfds_t n, int timeout)
{
	struct timespec ts = {
		.tv_sec = timeout / 1000,
		.tv_nsec = (timeout % 1000) * 1000000L,
	};

	return __wrap_ppoll(p, n, timeout < 0 ? NULL : &ts, NULL);
}
