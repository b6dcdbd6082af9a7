// SPDX-License-Identifier: GPL-2.0
/*
 * hzrig boot / hzrig accel: run a guest under QEMU with a host-side watchdog.
 *
 * Stages, each returning a status, as in tools/testing/kunit: load the QEMU
 * settings (data, rig/boot/qemu/<arch>.conf), pick the accelerator (KVM only once a
 * smoke boot proved it reaches /init), run the guest while reading its console
 * (progress to our stdout, everything to the console log, crash patterns and
 * the guest's own "done" line noted), kill it past its time budget.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "boot/boot.h"
#include "lib/io.h"
#include "plan/plan.h"
#include "lib/opts.h"

#define MAX_ARGS	64
/* x86's COMMAND_LINE_SIZE, its NUL included */
#define KCMDLINE_MAX	2048

enum boot_status {
	BOOT_OK,		/* guest ran the plan and said rc=0 */
	BOOT_FAILED,		/* guest finished, some KTAP test failed */
	BOOT_CRASHED,		/* panic, oops, BUG, or exit without "done" */
	BOOT_HUNG,		/* watchdog fired */
	BOOT_ERROR,		/* could not even start QEMU */
};

/*
 * The exit status of `hzrig boot`: 2 stays bad usage, as in every hzrig
 * command, so a crash is 5.
 */
static const int boot_status_exit[] = {
	[BOOT_OK] = 0, [BOOT_FAILED] = 1, [BOOT_HUNG] = 3, [BOOT_ERROR] = 4,
	[BOOT_CRASHED] = 5,
};
#define BOOT_EXIT_USAGE	2

static const char *const boot_status_name[] = {
	[BOOT_OK] = "ok", [BOOT_FAILED] = "failed", [BOOT_CRASHED] = "crashed",
	[BOOT_HUNG] = "hung", [BOOT_ERROR] = "error",
};

struct guest {
	const char *variant;
	const char *kernel;
	const char *initrd;
	const char *accel;
	const char *console_path;
	const char *samples_path;
	char extra_append[KCMDLINE_MAX];
	unsigned int timeout_s;
	unsigned int quiet_s;	/* --quiet-s: a stream silent this long hung */
	bool quiet;
};

struct guest_result {
	enum boot_status status;
	double wall_s;
	double first_sample_s;	/* console time of the first KTAP result */
	double first_case_s;	/* of "# running N cases": the plan begins */
	struct hzrig_console_end con;	/* done rc, first crash line, last line */
};

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' ||
			 e[-1] == '\r'))
		*--e = '\0';
	return s;
}

static int conf_str(char *dst, size_t len, const char *key, const char *val,
		    const char *path, int line)
{
	if (strlen(val) >= len) {
		fprintf(stderr, "%s:%d: %s: value longer than %zu\n", path,
			line, key, len - 1);
		return -1;
	}
	strcpy(dst, val);
	return 0;
}

static int conf_uint(unsigned int *dst, const char *key, const char *val,
		     const char *path, int line)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(val, &end, 10);
	if (errno || *end || end == val || v > 100000) {
		fprintf(stderr, "%s:%d: %s: '%s' is not a number 0..100000\n",
			path, line, key, val);
		return -1;
	}
	*dst = (unsigned int)v;
	return 0;
}

int hzrig_qemu_conf_load(const char *path, struct hzrig_qemu_conf *c)
{
	char buf[1024], why[HZRIG_WHY];
	int line = 0, ret = 0;
	FILE *f = hzrig_in_open(path, HZRIG_MAX_TEXT, why, sizeof(why));

	memset(c, 0, sizeof(*c));
	c->boot_budget_s = 90;
	c->slack_percent = 200;
	c->smoke_timeout_s = 30;
	c->done_grace_s = 15;
	if (!f) {
		fprintf(stderr, "hzrig: %s: %s\n", path, why);
		return -1;
	}
	while (!ret && fgets(buf, sizeof(buf), f)) {
		char *key = trim(buf), *val;

		line++;
		if (!*key || *key == '#')
			continue;
		val = strchr(key, '=');
		if (!val) {
			fprintf(stderr, "%s:%d: expected key = value\n", path,
				line);
			ret = -1;
			break;
		}
		*val++ = '\0';
		key = trim(key);
		val = trim(val);
		if (!strcmp(key, "binary"))
			ret = conf_str(c->binary, sizeof(c->binary), key, val, path, line);
		else if (!strcmp(key, "args"))
			ret = conf_str(c->args, sizeof(c->args), key, val, path, line);
		else if (!strcmp(key, "cpu_tcg"))
			ret = conf_str(c->cpu_tcg, sizeof(c->cpu_tcg), key, val, path, line);
		else if (!strcmp(key, "cpu_kvm"))
			ret = conf_str(c->cpu_kvm, sizeof(c->cpu_kvm), key, val, path, line);
		else if (!strcmp(key, "append"))
			ret = conf_str(c->append, sizeof(c->append), key, val, path, line);
		else if (!strcmp(key, "append_tcg"))
			ret = conf_str(c->append_tcg, sizeof(c->append_tcg), key, val, path, line);
		else if (!strcmp(key, "samples_args"))
			ret = conf_str(c->samples_args, sizeof(c->samples_args), key, val, path, line);
		else if (!strcmp(key, "boot_budget_s"))
			ret = conf_uint(&c->boot_budget_s, key, val, path, line);
		else if (!strcmp(key, "slack_percent"))
			ret = conf_uint(&c->slack_percent, key, val, path, line);
		else if (!strcmp(key, "smoke_timeout_s"))
			ret = conf_uint(&c->smoke_timeout_s, key, val, path, line);
		else if (!strcmp(key, "done_grace_s"))
			ret = conf_uint(&c->done_grace_s, key, val, path, line);
		else if (strcmp(key, "console") && strcmp(key, "samples")) {
			fprintf(stderr, "%s:%d: unknown key '%s'\n", path, line,
				key);
			ret = -1;
		}
	}
	fclose(f);
	if (!ret && (!*c->binary || !*c->cpu_tcg)) {
		fprintf(stderr, "%s: binary and cpu_tcg are required\n", path);
		ret = -1;
	}
	return ret;
}

/*
 * Under TCG the guest's TSC is the host's TSC, but the guest often fails to
 * calibrate it against the emulated PIT ("tsc: Unable to calibrate against
 * PIT"), drops it and ends on refined-jiffies. Measuring the rate here and
 * passing it as tsc_early_khz= makes the guest skip that calibration.
 */
unsigned long hzrig_host_tsc_khz(void)
{
#if defined(__x86_64__) || defined(__i386__)
	struct timespec a, b;
	uint64_t c0, c1;
	double ns;

	clock_gettime(CLOCK_MONOTONIC_RAW, &a);
	c0 = __rdtsc();
	do {
		clock_gettime(CLOCK_MONOTONIC_RAW, &b);
		ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
	} while (ns < 200e6);
	c1 = __rdtsc();
	return (unsigned long)((c1 - c0) / ns * 1e6 + 0.5);
#else
	return 0;
#endif
}

/* Expand %HOST_TSC_KHZ% in @in into @out, with @tsc_khz. */
void hzrig_expand_append(char *out, size_t len, const char *in,
			 unsigned long tsc_khz)
{
	static const char tok[] = "%HOST_TSC_KHZ%";
	const char *p = strstr(in, tok);

	if (!p) {
		snprintf(out, len, "%s", in);
		return;
	}
	snprintf(out, len, "%.*s%lu%s", (int)(p - in), in, tsc_khz,
		 p + strlen(tok));
}

/* Split @s (modified) on spaces into @argv starting at *argc. */
static int split_args(char *s, char **argv, int *argc)
{
	char *save = NULL, *tok;

	for (tok = strtok_r(s, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save)) {
		if (*argc >= MAX_ARGS - 1)
			return -1;
		argv[(*argc)++] = tok;
	}
	return 0;
}

static void scan_line(const struct guest *g, struct guest_result *r,
		      const char *line, double t0)
{
	bool had_crash = r->con.crash[0];
	enum hzrig_console_line kind = hzrig_console_note(&r->con, line);

	if (kind == HZRIG_LINE_RESULT && r->first_sample_s < 0)
		r->first_sample_s = mono_s() - t0;
	if (kind == HZRIG_LINE_PLAN && r->first_case_s < 0)
		r->first_case_s = mono_s() - t0;
	if (g->quiet)
		return;
	if (!had_crash && r->con.crash[0])
		printf("[%s] CRASH: %s\n", g->variant, line);
	/* Progress: our own lines, KTAP results and case headers. */
	if (strstr(line, "hzrig: ") || !strncmp(line, "ok ", 3) ||
	    !strncmp(line, "not ok ", 7) || !strncmp(line, "# case ", 7) ||
	    !strncmp(line, "# waits ", 8) ||
	    !strncmp(line, "Bail out!", 9)) {
		printf("[%s] %s\n", g->variant, line);
		fflush(stdout);
	}
}

/* Feed console bytes to the log and, line by line, to scan_line(). */
static void consume(const struct guest *g, struct guest_result *r, FILE *log,
		    char *lbuf, size_t *llen, size_t lcap, const char *buf,
		    ssize_t n, double t0)
{
	ssize_t i;

	fwrite(buf, 1, n, log);
	for (i = 0; i < n; i++) {
		if (buf[i] == '\n') {
			lbuf[*llen] = '\0';
			if (*llen && lbuf[*llen - 1] == '\r')
				lbuf[*llen - 1] = '\0';
			scan_line(g, r, lbuf, t0);
			*llen = 0;
		} else if (*llen < lcap - 1) {
			lbuf[(*llen)++] = buf[i];
		}
	}
}

static pid_t spawn(char **argv, int *out_fd)
{
	int pfd[2];
	pid_t pid;

	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (!pid) {
		int devnull = open("/dev/null", O_RDONLY);

		if (devnull >= 0)
			dup2(devnull, 0);
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		close(pfd[1]);
		setpgid(0, 0);
		execvp(argv[0], argv);
		fprintf(stderr, "hzrig: exec %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	*out_fd = pfd[0];
	return pid;
}

/* QEMU's command line, from qemu/<arch>.conf and the guest; its strings. */
struct qemu_cmd {
	char args[512], sargs[512], append[KCMDLINE_MAX], serial1[8300], tcg_append[300];
	char *argv[MAX_ARGS];
};

static int qemu_argv(const struct hzrig_qemu_conf *c, const struct guest *g,
		     struct qemu_cmd *q)
{
	bool kvm = !strcmp(g->accel, "kvm");
	char **argv = q->argv;
	int argc = 0;

	snprintf(q->args, sizeof(q->args), "%s", c->args);
	hzrig_expand_append(q->tcg_append, sizeof(q->tcg_append),
			    kvm ? "" : c->append_tcg,
			    kvm ? 0 : hzrig_host_tsc_khz());
	if (snprintf(q->append, sizeof(q->append), "%s %s %s", c->append,
		     q->tcg_append, g->extra_append) >= (int)sizeof(q->append)) {
		fprintf(stderr, "hzrig: the kernel command line would be longer than the kernel's %d characters (--append, and the QEMU conf's append)\n",
			KCMDLINE_MAX - 1);
		return -1;
	}
	/*
	 * The samples file is a multiplexed chardev, id hzrig1: ttyS1, and
	 * the conf's samples_args add more frontends (x86_64.conf: a
	 * virtio-serial port a sweep guest streams through when its kernel
	 * has one). QEMU's option syntax doubles a comma.
	 */
	size_t o = (size_t)snprintf(q->serial1, sizeof(q->serial1), "file,id=hzrig1,mux=on,path=");

	for (const char *p = g->samples_path; *p && o + 3 < sizeof(q->serial1); p++) {
		q->serial1[o++] = *p;
		if (*p == ',')
			q->serial1[o++] = ',';
	}
	q->serial1[o] = 0;
	argv[argc++] = (char *)c->binary;
	if (split_args(q->args, argv, &argc) || argc > MAX_ARGS - 20) {
		fprintf(stderr, "hzrig: too many QEMU arguments\n");
		return -1;
	}
	argv[argc++] = "-accel";
	argv[argc++] = kvm ? "kvm" : "tcg";
	argv[argc++] = "-cpu";
	argv[argc++] = (char *)(kvm && c->cpu_kvm[0] ? c->cpu_kvm : c->cpu_tcg);
	argv[argc++] = "-kernel";
	argv[argc++] = (char *)g->kernel;
	argv[argc++] = "-initrd";
	argv[argc++] = (char *)g->initrd;
	argv[argc++] = "-append";
	argv[argc++] = q->append;
	argv[argc++] = "-serial";
	argv[argc++] = "stdio";
	argv[argc++] = "-chardev";
	argv[argc++] = q->serial1;
	argv[argc++] = "-serial";
	argv[argc++] = "chardev:hzrig1";
	snprintf(q->sargs, sizeof(q->sargs), "%s", c->samples_args);
	if (split_args(q->sargs, argv, &argc)) {
		fprintf(stderr, "hzrig: too many QEMU arguments\n");
		return -1;
	}
	argv[argc] = NULL;
	return 0;
}

/* How the guest ended by its console alone. */
static void judge_console(struct guest_result *r)
{
	const char *st = hzrig_console_status(&r->con);

	r->status = !strcmp(st, "ok") ? BOOT_OK :
		    !strcmp(st, "failed") ? BOOT_FAILED : BOOT_CRASHED;
}

/* How the guest ended, once QEMU exited with @wstatus. */
static void judge_exit(struct guest_result *r, int wstatus)
{
	if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus)) {
		/* QEMU itself failed: a bad option, a missing file, KVM. */
		r->status = BOOT_ERROR;
		snprintf(r->con.crash, sizeof(r->con.crash),
			 "QEMU exit status %d: %.200s",
			 WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1,
			 r->con.last);
		return;
	}
	judge_console(r);
}

/*
 * --quiet-s: has the guest's stream (its ttyS1 file, which a sweep guest
 * feeds every second: initramfs/runner/hzrig-stream.c) stood still for
 * quiet_s seconds since it began? @size and @since: its size when it last
 * grew, and when. A stream not begun yet is not quiet: the boot budget
 * stays the watchdog's.
 */
static bool stream_quiet(const struct guest *g, off_t *size, double *since)
{
	struct stat st;

	if (stat(g->samples_path, &st) || st.st_size == 0)
		return false;
	if (st.st_size != *size) {
		*size = st.st_size;
		*since = mono_s();
		return false;
	}
	return mono_s() - *since >= g->quiet_s;
}

/*
 * A guest that said it was done ("hzrig: guest done rc=N") and then did
 * not power off (a driver's shutdown that hangs: the whole-tree sweep's
 * batch 7 twice) is stopped the config's done_grace_s after, and judged
 * by its console: its work is whole, where the stream's silence,
 * expected after its end, called it hung and its batch was booted again.
 */
static int run_guest(const struct hzrig_qemu_conf *c, const struct guest *g,
		     struct guest_result *r)
{
	char lbuf[4096];
	struct qemu_cmd q;
	double t0 = mono_s(), deadline = t0 + g->timeout_s, stream_since, done_at = 0;
	bool stopped_done = false;
	off_t stream_size;
	size_t llen = 0;
	int fd, wstatus = 0;
	FILE *log;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	stream_size = 0;
	stream_since = t0;
	r->con.guest_rc = -1;
	r->first_sample_s = -1;
	r->first_case_s = -1;
	r->status = BOOT_ERROR;
	if (qemu_argv(c, g, &q))
		return -1;
	log = fopen(g->console_path, "w");
	if (!log) {
		fprintf(stderr, "hzrig: %s: %s\n", g->console_path,
			strerror(errno));
		return -1;
	}
	pid = spawn(q.argv, &fd);
	if (pid < 0) {
		fprintf(stderr, "hzrig: cannot start %s: %s\n", c->binary,
			strerror(errno));
		fclose(log);
		return -1;
	}
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		double left = deadline - mono_s();
		char buf[4096];
		ssize_t n;

		if (r->con.guest_rc >= 0 && !done_at)
			done_at = mono_s();
		if (left <= 0 && !done_at) {
			/* The watchdog: the whole process group goes. */
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			r->status = BOOT_HUNG;
			break;
		}
		if (done_at && (left <= 0 || mono_s() - done_at >= c->done_grace_s)) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			stopped_done = true;
			fprintf(stderr, "hzrig: %s: the guest said it was done but did not power off within %u s: stopped\n",
				g->variant, c->done_grace_s);
			break;
		}
		if (!done_at && g->quiet_s && stream_quiet(g, &stream_size, &stream_since)) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			r->status = BOOT_HUNG;
			snprintf(r->con.crash, sizeof(r->con.crash),
				 "the guest's stream (%s) went quiet for %u s, %.1f s after boot",
				 "ttyS1", g->quiet_s, stream_since - t0);
			break;
		}
		if (poll(&pfd, 1, left > 1 ? 1000 : (int)(left * 1000) + 1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (!(pfd.revents & (POLLIN | POLLHUP)))
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		consume(g, r, log, lbuf, &llen, sizeof(lbuf), buf, n, t0);
	}
	close(fd);
	waitpid(pid, &wstatus, 0);
	fclose(log);
	r->wall_s = mono_s() - t0;
	if (stopped_done)
		judge_console(r);
	else if (r->status != BOOT_HUNG)
		judge_exit(r, wstatus);
	return 0;
}

/* KVM is used only when a smoke boot with it reaches /init. */
static const char *pick_accel(const struct hzrig_qemu_conf *c, const char *kernel,
			      const char *initrd, const char *scratch)
{
	struct guest_result r;
	char console[4096], samples[4096];
	struct guest g = {
		.variant = "smoke", .kernel = kernel, .initrd = initrd,
		.accel = "kvm", .console_path = console,
		.samples_path = samples, .timeout_s = c->smoke_timeout_s,
		.quiet = true,
	};

	if (access("/dev/kvm", R_OK | W_OK))
		return "tcg";
	snprintf(console, sizeof(console), "%s/smoke-kvm.log", scratch);
	snprintf(samples, sizeof(samples), "%s/smoke-kvm.ttyS1", scratch);
	snprintf(g.extra_append, sizeof(g.extra_append), "hzrig.smoke=1");
	if (run_guest(c, &g, &r) || r.status != BOOT_OK)
		return "tcg";
	return "kvm";
}

unsigned int hzrig_boot_budget_s(const struct hzrig_qemu_conf *c,
				 const char *plan)
{
	struct hzrig_plan p;
	char err[256];
	uint64_t ms;

	if (hzrig_plan_load(plan, &p, err, sizeof(err))) {
		fprintf(stderr, "hzrig: %s\n", err);
		return 0;
	}
	ms = hzrig_plan_wait_ms(&p, 0);
	hzrig_plan_free(&p);
	return c->boot_budget_s + (unsigned int)(ms * (100 + c->slack_percent) /
						 100000);
}

static int write_status(const char *path, const struct guest *g,
			const struct guest_result *r)
{
	const struct hzrig_boot_status st = {
		.variant = g->variant, .status = boot_status_name[r->status],
		.accel = g->accel, .crash = r->con.crash,
		.guest_rc = r->con.guest_rc, .timeout_s = g->timeout_s,
		.wall_s = r->wall_s, .first_result_s = r->first_sample_s,
		.first_case_s = r->first_case_s,
	};

	return hzrig_boot_status_write(path, &st, stderr);
}

static void boot_usage(FILE *f)
{
	fputs("usage: hzrig boot --variant NAME --kernel BZIMAGE --initrd CPIO\n"
	      "                  --plan FILE|--timeout SECONDS --console LOG\n"
	      "                  --samples FILE [--status FILE] [--accel auto|kvm|tcg]\n"
	      "                  [--qemu-config FILE] [--quiet] [--quiet-s SECONDS]\n"
	      "                  [--append 'KERNEL ARGS']\n"
	      "Boots one variant's guest under QEMU with a watchdog (--timeout, or\n"
	      "what the plan's waits need). Without --plan the guest runs what\n"
	      "--append says (hzrig.mode=robustness). Progress\n"
	      "goes to stdout, the console to --console, the guest's ttyS1 to\n"
	      "--samples, the outcome (ok, failed, crashed, hung, error) to\n"
	      "--status as JSON. --quiet-s S: the guest hung when its --samples\n"
	      "stream, once begun, stays silent S seconds (a sweep guest's beats\n"
	      "every second). Exit: 0 ok, 1 failed, 2 bad usage (nothing\n"
	      "booted), 3 hung, 4 error (QEMU did not start), 5 crashed.\n"
	      "\n"
	      "usage: hzrig accel --kernel BZIMAGE --initrd CPIO [--qemu-config FILE]\n"
	      "                   [--scratch DIR]\n"
	      "Prints kvm if a KVM smoke boot reaches /init, else tcg.\n", f);
}

/* --timeout: 1..86400 seconds (lib/opts.h). */
static int timeout_opt(const char *cmd, const char *s, void *dst)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || end == s || v == 0 || v > 86400) {
		fprintf(stderr, "hzrig %s: --timeout: '%s' is not 1..86400 seconds\n",
			cmd, s);
		return -1;
	}
	*(unsigned int *)dst = (unsigned int)v;
	return 0;
}

/* --quiet-s: 5..3600 seconds (a guest beats every second). */
static int quiet_opt(const char *cmd, const char *s, void *dst)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || end == s || s[0] == '-' || v < 5 || v > 3600) {
		fprintf(stderr, "hzrig %s: --quiet-s: '%s' is not 5..3600 seconds\n",
			cmd, s);
		return -1;
	}
	*(unsigned int *)dst = (unsigned int)v;
	return 0;
}

/* What `hzrig boot` needs beyond --kernel and --initrd; true, said, if not. */
/* What QEMU will read: regular files, or it could wait on a FIFO forever. */
static bool images_bad(const struct guest *g)
{
	const char *const img[] = { g->kernel, g->initrd };
	char why[HZRIG_WHY];
	size_t i;
	FILE *f;

	for (i = 0; i < 2; i++) {
		f = hzrig_in_open(img[i], HZRIG_MAX_IMAGE, why, sizeof(why));
		if (!f) {
			fprintf(stderr, "hzrig boot: --%s %s: %s\n",
				i ? "initrd" : "kernel", img[i], why);
			return true;
		}
		fclose(f);
	}
	return false;
}

static bool boot_args_bad(const struct guest *g, const char *plan)
{
	if (!g->variant || !g->console_path || !g->samples_path) {
		fprintf(stderr, "hzrig boot: --variant, --console and --samples are required\n");
		return true;
	}
	/* the watchdog's budget comes from the plan unless --timeout says */
	if (!plan && !g->timeout_s) {
		fprintf(stderr, "hzrig boot: --plan or --timeout is required\n");
		return true;
	}
	if (strcmp(g->accel, "auto") && strcmp(g->accel, "kvm") &&
	    strcmp(g->accel, "tcg")) {
		fprintf(stderr, "hzrig boot: --accel: '%s' is not auto, kvm or tcg\n",
			g->accel);
		return true;
	}
	return false;
}

int cmd_boot(int argc, char **argv)
{
	struct guest g = { .accel = "auto" };
	const char *qconf = "rig/boot/qemu/x86_64.conf", *plan = NULL;
	const char *status = NULL, *scratch = "/tmp", *append = "";
	bool accel_only = !strcmp(argv[0], "accel");
	struct guest_result r;
	struct hzrig_qemu_conf c;
	const char *pname;
	const struct hzrig_opt opts[] = {
		HZRIG_OPT_S("variant", &g.variant),
		HZRIG_OPT_S("kernel", &g.kernel),
		HZRIG_OPT_S("initrd", &g.initrd),
		HZRIG_OPT_S("plan", &plan),
		HZRIG_OPT_S("console", &g.console_path),
		HZRIG_OPT_S("samples", &g.samples_path),
		HZRIG_OPT_S("status", &status),
		HZRIG_OPT_S("accel", &g.accel),
		HZRIG_OPT_S("qemu-config", &qconf),
		HZRIG_OPT_F("timeout", timeout_opt, &g.timeout_s),
		HZRIG_OPT_F("quiet-s", quiet_opt, &g.quiet_s),
		HZRIG_OPT_S("scratch", &scratch),
		HZRIG_OPT_S("append", &append),
		HZRIG_OPT_B("quiet", &g.quiet),
		HZRIG_OPT_END
	};
	int first;

	first = hzrig_opts(argv[0], argc, argv, opts, boot_usage);
	if (first < 0)
		return first == HZRIG_OPTS_HELP ? 0 : BOOT_EXIT_USAGE;
	if (first != argc) {
		fprintf(stderr, "hzrig %s: unexpected argument '%s'\n",
			argv[0], argv[first]);
		return BOOT_EXIT_USAGE;
	}
	if (!g.kernel || !g.initrd) {
		fprintf(stderr, "hzrig %s: --kernel and --initrd are required\n",
			argv[0]);
		return BOOT_EXIT_USAGE;
	}
	if (hzrig_qemu_conf_load(qconf, &c))
		return BOOT_EXIT_USAGE;
	if (accel_only) {
		if (images_bad(&g))
			return BOOT_EXIT_USAGE;
		puts(pick_accel(&c, g.kernel, g.initrd, scratch));
		return 0;
	}
	if (boot_args_bad(&g, plan) || images_bad(&g))
		return BOOT_EXIT_USAGE;
	if (!strcmp(g.accel, "auto"))
		g.accel = pick_accel(&c, g.kernel, g.initrd, scratch);
	if (!g.timeout_s)
		g.timeout_s = hzrig_boot_budget_s(&c, plan);
	if (!g.timeout_s)
		return BOOT_EXIT_USAGE;
	pname = plan ? strrchr(plan, '/') : NULL;
	pname = pname ? pname + 1 : plan;
	if (snprintf(g.extra_append, sizeof(g.extra_append),
		     "hzrig.variant=%s hzrig.accel=%s%s%s %s", g.variant, g.accel,
		     pname ? " hzrig.plan=" : "", pname ? pname : "", append) >=
	    (int)sizeof(g.extra_append)) {
		fprintf(stderr, "hzrig boot: --append: %zu characters, more than the kernel's command line takes (%d)\n",
			strlen(append), KCMDLINE_MAX - 1);
		return BOOT_EXIT_USAGE;
	}
	if (!g.quiet)
		printf("[%s] booting under %s, watchdog %u s\n", g.variant,
		       g.accel, g.timeout_s);
	if (run_guest(&c, &g, &r))
		return 4;
	if (!g.quiet)
		printf("[%s] guest %s after %.1f s%s%s\n", g.variant,
		       boot_status_name[r.status], r.wall_s,
		       r.con.crash[0] ? ": " : "", r.con.crash);
	if (status && write_status(status, &g, &r))
		return 4;
	return boot_status_exit[r.status];
}
