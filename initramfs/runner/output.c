// SPDX-License-Identifier: GPL-2.0
/*
 * What the runner writes (output.h): KTAP on the console, the JSON-line
 * records on ttyS1 or, with --inband, tagged on the console.
 */
#define _GNU_SOURCE	/* fopencookie(): the --inband stream */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <termios.h>
#include <unistd.h>

#include "drivers.h"
#include "output.h"

void ktap(struct runner *r, bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d ", ok ? "ok" : "not ok", ++r->ktap_index);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!ok)
		r->failures++;
}

void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c > 0x7e)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/*
 * --inband: the JSON lines go to stdout, the console, as tagged lines
 * "hzrig-jsonl SEQ JSON" (SEQ from 1), then "hzrig-jsonl-end COUNT": for a
 * lab that reads one serial console (LAVA, docs/lava.md). The host checks
 * the sequence and the count, so a lost or cut line is an error there,
 * never a silently shorter run. They are kept in memory and printed when
 * the stream closes, after the plan: LAVA's monitor searches only the last
 * 4000 characters of what it has read for the next KTAP result, and
 * samples printed between results pushed some out of that window (6 of
 * 200 results unrecorded in a quick plan). The console then carries only
 * KTAP while calls are timed, too. A guest that dies mid-plan leaves its
 * KTAP and crash lines but no samples.
 */
struct inband {
	char *buf;
	size_t len, cap;
};

static ssize_t inband_write(void *cookie, const char *buf, size_t n)
{
	struct inband *ib = cookie;

	while (ib->len + n > ib->cap) {
		size_t cap = ib->cap ? ib->cap * 2 : 1 << 16;
		char *b = realloc(ib->buf, cap);

		if (!b)
			return -1;
		ib->buf = b;
		ib->cap = cap;
	}
	memcpy(ib->buf + ib->len, buf, n);
	ib->len += n;
	return (ssize_t)n;
}

static int inband_close(void *cookie)
{
	struct inband *ib = cookie;
	unsigned long seq = 0;
	size_t at = 0;

	while (at < ib->len) {
		char *nl = memchr(ib->buf + at, '\n', ib->len - at);
		size_t n = nl ? (size_t)(nl - (ib->buf + at)) : ib->len - at;

		printf("hzrig-jsonl %lu %.*s\n", ++seq, (int)n, ib->buf + at);
		at += n + 1;
	}
	printf("hzrig-jsonl-end %lu\n", seq);
	fflush(stdout);
	free(ib->buf);
	free(ib);
	return 0;
}

int open_out(struct runner *r)
{
	static const cookie_io_functions_t inband_io = {
		.write = inband_write, .close = inband_close,
	};
	struct termios tio;
	struct inband *ib;
	int fd;

	if (r->inband) {
		ib = calloc(1, sizeof(*ib));
		r->out = ib ? fopencookie(ib, "w", inband_io) : NULL;
		if (!r->out)
			free(ib);
		return r->out ? 0 : -1;
	}
	fd = open(r->out_path, O_WRONLY | O_NOCTTY | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "hzrig-runner: %s: %s\n", r->out_path,
			strerror(errno));
		return -1;
	}
	/* No \n -> \r\n translation: the host reads plain JSON lines. */
	if (isatty(fd) && !tcgetattr(fd, &tio)) {
		cfmakeraw(&tio);
		tcsetattr(fd, TCSANOW, &tio);
	}
	r->out = fdopen(fd, "w");
	return r->out ? 0 : -1;
}

void emit_meta(struct runner *r, const char *plan_name)
{
	struct utsname u;
	char cmdline[1024] = "";
	FILE *f;

	uname(&u);
	f = fopen("/proc/cmdline", "r");
	if (f) {
		if (fgets(cmdline, sizeof(cmdline), f))
			cmdline[strcspn(cmdline, "\n")] = '\0';
		fclose(f);
	}
	fputs("{\"type\":\"meta\",\"variant\":", r->out);
	json_str(r->out, r->variant);
	fprintf(r->out, ",\"hz\":%u,\"release\":", r->info.hz);
	json_str(r->out, u.release);
	fputs(",\"clocksource\":", r->out);
	json_str(r->out, r->clocksource);
	fprintf(r->out, ",\"jiffy_rate_mhz\":%u,\"abi\":%d,"
		"\"usb_max_sync_timeout_ms\":%u,\"plan\":",
		r->info.jiffy_rate_mhz, HZRIG_ABI_VERSION,
		r->info.usb_max_sync_timeout_ms);
	json_str(r->out, plan_name);
	fputs(",\"accel\":", r->out);
	json_str(r->out, r->accel);
	fputs(",\"cmdline\":", r->out);
	json_str(r->out, cmdline);
	/* What ran the userspace paths: the library, and the kernel's view. */
	fputs(",\"libusb\":", r->out);
	json_str(r->out, r->up.libusb_version);
	fprintf(r->out, ",\"usbmon\":%s", r->up.mon.fd >= 0 ? "true" : "false");
	fputs("}\n", r->out);
	fflush(r->out);
}

/*
 * One sample. A userspace path has no jiffies of its own to report; a
 * driver's call (path usbmon) has those of the timer the trace saw it arm.
 * The URB's lifetime as usbmon saw it (urb_ns) comes with every path when
 * usbmon paired it.
 */
void emit_sample(struct runner *r, size_t ci, uint32_t rep,
		 const struct hzrig_plan_case *pc, const struct hzrig_sample *s,
		 int64_t urb_ns)
{
	fprintf(r->out,
		"{\"type\":\"sample\",\"case\":%zu,\"rep\":%u,\"path\":\"%s\","
		"\"transfer\":\"%s\",\"behaviour\":\"%s\",\"mode\":\"%s\","
		"\"timeout_ms\":%u,\"timeout_arg\":%d,\"length\":%u,"
		"\"delay_us\":%u,\"status\":%d,\"elapsed_ns\":%" PRId64 ","
		"\"actual_length\":%u,\"seq\":%u,\"phase_ns\":%u",
		ci, rep, hzrig_path_name(pc->path),
		hzrig_transfer_name(pc->transfer),
		hzrig_behaviour_name(pc->behaviour), hzrig_mode_name(pc->mode),
		pc->timeout_ms, s->timeout_arg, pc->length, pc->delay_us,
		s->status, (int64_t)s->elapsed_ns, s->actual_length, s->seq,
		s->phase_ns);
	if (pc->path == HZRIG_PATH_KERNEL ||
	    (pc->path == HZRIG_PATH_USBMON && s->jiffies_lag != DRIVERS_LAG_NONE))
		fprintf(r->out, ",\"start_jiffies\":%" PRIu64 ",\"jiffies_lag\":%d",
			(uint64_t)s->start_jiffies, s->jiffies_lag);
	if (urb_ns >= 0)
		fprintf(r->out, ",\"urb_ns\":%" PRId64, urb_ns);
	if (pc->path == HZRIG_PATH_USBMON) {
		fputs(",\"driver\":", r->out);
		json_str(r->out, pc->driver);
		fputs(",\"site\":", r->out);
		json_str(r->out, r->site);
	}
	fputs("}\n", r->out);
}

void emit_noise(struct runner *r, int sleep_us, int n, int64_t over_p50,
		int64_t over_p99, size_t rtt_n, int64_t rtt_p50, int64_t rtt_p99,
		size_t at_case)
{
	fprintf(r->out,
		"{\"type\":\"noise\",\"sleep_us\":%d,\"n\":%d,"
		"\"overshoot_p50_ns\":%" PRId64 ",\"overshoot_p99_ns\":%" PRId64
		",\"rtt_n\":%zu,\"rtt_p50_ns\":%" PRId64 ",\"rtt_p99_ns\":%" PRId64
		",\"at_case\":%zu}\n", sleep_us, n, over_p50, over_p99, rtt_n,
		rtt_p50, rtt_p99, at_case);
	fflush(r->out);
}

void emit_end(struct runner *r, size_t cases, size_t samples,
	      int64_t waits_ms, int64_t wall_ms, const char *parallel)
{
	fprintf(r->out, "{\"type\":\"end\",\"cases\":%zu,\"samples\":%zu,"
		"\"failures\":%d", cases, samples, r->failures);
	if (waits_ms >= 0)
		fprintf(r->out, ",\"waits_ms\":%" PRId64 ",\"wall_ms\":%" PRId64
			",\"parallel\":\"%s\"", waits_ms, wall_ms, parallel);
	fputs("}\n", r->out);
	fflush(r->out);
}
