// SPDX-License-Identifier: GPL-2.0
/*
 * hzrig-stream: the sweep guest's records, streamed to the host as they
 * are made (initramfs/sweep.sh; docs/sweep.md, "Streamed out of the
 * guest").
 *
 *   hzrig-stream -o OUT [-p PREFIX] [-i MS] [-a MS] [-m MODULES -r RATES]
 *                [TAG=]FILE...
 *
 * Every MS (default 100) milliseconds each FILE's new whole lines go to
 * OUT (the guest's ttyS1, or its console on a lab), each as "PREFIX TAG
 * line": a file that a writer appends to (rawdev's log, usbmon's dump, the
 * modprobe record) or a pipe-like file read without blocking (the
 * tracer's trace_pipe). A FILE that does not exist yet is tried again
 * each round. This process is OUT's one writer, so lines from different
 * sources never interleave within a line. Every -a MS (default 1000) a
 * heartbeat, "sweep alive t_us=T" (CLOCK_MONOTONIC, the trace's and
 * rawdev's clock), tells the host that the guest still runs: a host that
 * hears nothing for long knows the guest hung (hzrig boot --quiet-s), and
 * what the guest measured before then is already out, but for its last
 * round. SIGTERM or SIGINT: one last round, half lines included, then
 * exit 0.
 *
 * With -m MODULES (lines "BUS MODULE": the batch's modules, read again
 * each second as it grows) and -r RATES, it also counts, in the lines
 * tagged "trace ", the synchronous calls each of those modules made (a
 * call's event, then the first frame of its stack in one of them), and
 * each second writes RATES anew: "BUS COUNT" a line for the last second.
 * A driver that loops on a call that fails before the device sees it (an
 * endpoint its device lacks: -EINVAL at once) floods the trace, not the
 * device, and the guest contains it from there (initramfs/sweep.sh).
 *
 * A stack frame of the trace outside any module (" => f+0x1/0x2", no
 * "[module]") does not go out: a call is put down to the first frame of
 * a module in its stack, and the rest of each stack (the kprobe's own,
 * the USB core's, the probe's path from modprobe) was more than half of
 * the bytes a batch streamed through the guest's serial port (a 50 MB
 * batch in the eighth whole-tree run, its trace ring buffer overrun while
 * this process wrote).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SRC_MAX		16
#define LINE_MAX_B	8192	/* a longer line goes out in pieces */
#define READ_MAX	(256 * 1024)	/* a source's bytes per round at most */

#define MODS_MAX	64

/* -m/-r: the calls each batch module made in the last second */
static struct {
	char name[MODS_MAX][64];
	unsigned int bus[MODS_MAX], count[MODS_MAX];
	unsigned int n;
	bool want_frame;	/* a call's event came: its first module frame next */
	const char *mods, *rates;
} calls;

struct src {
	const char *path, *tag;
	int fd;
	char part[LINE_MAX_B];	/* the line begun, not yet ended */
	size_t plen;
};

static volatile sig_atomic_t stop;
static const char *prefix = "";
static int out = -1;
static char obuf[1 << 20];
static size_t olen;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* Everything buffered to OUT, whole; a write error drops it (no host). */
static void flush(void)
{
	size_t off = 0;

	while (off < olen) {
		ssize_t n = write(out, obuf + off, olen - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	olen = 0;
}

static void put(const char *tag, const char *s, size_t n)
{
	size_t need = strlen(prefix) + strlen(tag) + n + 1;

	if (olen + need > sizeof(obuf))
		flush();
	if (need > sizeof(obuf))
		return;
	memcpy(obuf + olen, prefix, strlen(prefix));
	olen += strlen(prefix);
	memcpy(obuf + olen, tag, strlen(tag));
	olen += strlen(tag);
	memcpy(obuf + olen, s, n);
	olen += n;
	obuf[olen++] = '\n';
}

/* MODULES again: "BUS MODULE" lines (initramfs/sweep.sh's bus-module). */
static void calls_modules(void)
{
	FILE *f = calls.mods ? fopen(calls.mods, "r") : NULL;
	char line[128], name[64];
	unsigned int bus;

	while (f && calls.n < MODS_MAX && fgets(line, sizeof(line), f)) {
		bool known = false;

		if (sscanf(line, "%u %63s", &bus, name) != 2)
			continue;
		for (unsigned int i = 0; i < calls.n && !known; i++)
			known = !strcmp(calls.name[i], name);
		if (!known) {
			snprintf(calls.name[calls.n], sizeof(calls.name[0]), "%s", name);
			calls.bus[calls.n++] = bus;
		}
	}
	if (f)
		fclose(f);
}

/* A trace line: a call's event, or a frame " => f+0x1/0x2 [module]". */
static void calls_note(const char *s, size_t n)
{
	static const char *const events[] = {
		": ctl: (", ": ctl_send: (", ": ctl_recv: (", ": bulk: (", ": intr: (",
	};
	const char *lb, *rb;

	if (!calls.rates)
		return;
	while (n && s[n - 1] == '\r')
		n--;
	if (memmem(s, n, "=> ", 3)) {
		if (!calls.want_frame || n < 3 || s[n - 1] != ']')
			return;
		rb = s + n - 1;
		for (lb = rb; lb > s && *lb != '['; lb--)
			;
		for (unsigned int i = 0; *lb == '[' && i < calls.n; i++)
			if (strlen(calls.name[i]) == (size_t)(rb - lb - 1) &&
			    !memcmp(calls.name[i], lb + 1, (size_t)(rb - lb - 1))) {
				calls.count[i]++;
				calls.want_frame = false;
			}
		return;
	}
	if (memmem(s, n, "<stack trace>", 13))
		return;
	calls.want_frame = false;
	for (size_t k = 0; k < sizeof(events) / sizeof(events[0]); k++)
		if (memmem(s, n, events[k], strlen(events[k])))
			calls.want_frame = true;
}

/* Each second: RATES anew with the last second's counts, then zeroed. */
static void calls_write(void)
{
	char tmp[4200];
	FILE *f;

	if (!calls.rates)
		return;
	snprintf(tmp, sizeof(tmp), "%s.new", calls.rates);
	f = fopen(tmp, "w");
	for (unsigned int i = 0; f && i < calls.n; i++)
		if (calls.count[i])
			fprintf(f, "%u %u\n", calls.bus[i], calls.count[i]);
	if (f && !fclose(f))
		rename(tmp, calls.rates);
	memset(calls.count, 0, sizeof(calls.count));
	calls_modules();
}

/* A trace line that is a stack frame in no module (see above). */
static bool core_frame(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && s[i] == ' ')
		i++;
	return n - i >= 2 && s[i] == '=' && s[i + 1] == '>' && !memchr(s + i, '[', n - i);
}

/* @s's new bytes: whole lines out, the rest kept; @last: that too. */
static void take(struct src *s, const char *buf, size_t n, bool last)
{
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '\n') {
			bool trace = !strcmp(s->tag, "trace ");

			if (trace)
				calls_note(s->part, s->plen);
			if (!trace || !core_frame(s->part, s->plen))
				put(s->tag, s->part, s->plen);
			s->plen = 0;
			continue;
		}
		if (s->plen == sizeof(s->part)) {
			put(s->tag, s->part, s->plen);
			s->plen = 0;
		}
		s->part[s->plen++] = buf[i];
	}
	if (last && s->plen) {
		put(s->tag, s->part, s->plen);
		s->plen = 0;
	}
}

static void round_of(struct src *v, size_t n, bool last)
{
	static char buf[65536];

	for (size_t i = 0; i < n; i++) {
		struct src *s = &v[i];
		size_t got = 0;

		if (s->fd < 0)
			s->fd = open(s->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (s->fd < 0)
			continue;
		while (got < READ_MAX) {
			ssize_t r = read(s->fd, buf, sizeof(buf));

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;	/* the end for now, or nothing yet */
			take(s, buf, (size_t)r, false);
			got += (size_t)r;
		}
		if (last)
			take(s, "", 0, true);
	}
	flush();
}

static unsigned int ms_arg(const char *s, const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v < 10 || v > 60000) {
		fprintf(stderr, "hzrig-stream: %s: '%s' is not 10..60000 ms\n", what, s);
		exit(2);
	}
	return (unsigned int)v;
}

static void usage(void)
{
	fputs("usage: hzrig-stream -o OUT [-p PREFIX] [-i MS] [-a MS] [-m MODULES -r RATES]\n"
	      "                    [TAG=]FILE...\n"
	      "Sends each FILE's new lines to OUT every -i MS (100), each as\n"
	      "PREFIX TAG line, with a heartbeat 'sweep alive t_us=T' every -a MS\n"
	      "(1000); at SIGTERM one last round, then exit.\n", stderr);
}

int main(int argc, char **argv)
{
	static struct src src[SRC_MAX];
	struct sigaction sa = { .sa_handler = on_term };
	unsigned int every = 100, alive = 1000;
	const char *opath = NULL;
	uint64_t next_alive = 0;
	size_t n = 0;
	int opt;

	while ((opt = getopt(argc, argv, "o:p:i:a:m:r:h")) != -1) {
		switch (opt) {
		case 'm':
			calls.mods = optarg;
			break;
		case 'r':
			calls.rates = optarg;
			break;
		case 'o':
			opath = optarg;
			break;
		case 'p':
			prefix = optarg;
			break;
		case 'i':
			every = ms_arg(optarg, "-i");
			break;
		case 'a':
			alive = ms_arg(optarg, "-a");
			break;
		default:
			usage();
			return opt == 'h' ? 0 : 2;
		}
	}
	if (!opath || optind == argc || argc - optind > SRC_MAX || !calls.mods != !calls.rates) {
		fprintf(stderr, "hzrig-stream: -o OUT and 1..%d files are needed (and -m with -r)\n",
			SRC_MAX);
		usage();
		return 2;
	}
	for (int i = optind; i < argc; i++) {
		char *eq = strchr(argv[i], '='), *sl = strchr(argv[i], '/');
		struct src *s = &src[n++];

		s->fd = -1;
		/* "trace =/sys/...": a tag is what stands before an '=' */
		if (eq && (!sl || eq < sl)) {
			*eq = 0;
			s->tag = argv[i];
			s->path = eq + 1;
		} else {
			s->tag = "";
			s->path = argv[i];
		}
		if (!*s->path) {
			fprintf(stderr, "hzrig-stream: '%s': no file\n", argv[i]);
			return 2;
		}
	}
	out = open(opath, O_WRONLY | O_NOCTTY | O_APPEND | O_CLOEXEC);
	if (out < 0) {
		fprintf(stderr, "hzrig-stream: %s: %s\n", opath, strerror(errno));
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	while (!stop) {
		uint64_t now = mono_us();

		round_of(src, n, false);
		if (now >= next_alive) {
			char line[64];
			int l = snprintf(line, sizeof(line), "sweep alive t_us=%llu",
					 (unsigned long long)now);

			put("", line, (size_t)l);
			flush();
			next_alive = now + (uint64_t)alive * 1000;
			calls_write();
		}
		usleep(every * 1000);
	}
	round_of(src, n, true);
	return 0;
}
