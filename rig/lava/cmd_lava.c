// SPDX-License-Identifier: GPL-2.0
/*
 * hzrig lava jobs: one LAVA job definition (YAML) per variant, to run the
 * variant's guest on a lab's qemu device with the rig's own QEMU settings;
 * hzrig lava device: the device dictionary of a local QEMU, rendered as the
 * qemu device type would render it for those jobs, for lava-run.
 *
 * A job deploys the variant's kernel and initramfs (tmpfs), boots them
 * (method qemu) and follows the console with a monitor: each KTAP result
 * is a LAVA test case, the guest's "done" line ends the test. The samples
 * travel in-band (hzrig.samples=console) and come back with
 * `hzrig ingest --lava` (docs/lava.md).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lava/lava.h"
#include "lib/io.h"
#include "lib/util.h"
#include "lib/opts.h"

/* What the qemu template sets on its own: left out of "extra". */
static const char *const template_owns[] = { "-nodefaults", "-display", "-m" };

static bool owned(const char *opt)
{
	size_t i;

	for (i = 0; i < sizeof(template_owns) / sizeof(*template_owns); i++)
		if (!strcmp(opt, template_owns[i]))
			return true;
	return false;
}

static int add_extra(struct hzrig_lava_qemu *q, const char *a, const char *b,
		     FILE *err)
{
	if (q->nextra >= (int)(sizeof(q->extra) / sizeof(q->extra[0])) ||
	    snprintf(q->extra[q->nextra], sizeof(q->extra[0]), "%s%s%s", a,
		     b ? " " : "", b ? b : "") >= (int)sizeof(q->extra[0])) {
		fprintf(err, "hzrig lava: too many or too long QEMU options at '%s'\n",
			a);
		return -1;
	}
	q->nextra++;
	return 0;
}

int hzrig_lava_qemu(const struct hzrig_qemu_conf *c, const char *accel,
		    unsigned long tsc_khz, const char *extra_append,
		    struct hzrig_lava_qemu *q, FILE *err)
{
	bool kvm = !strcmp(accel, "kvm");
	char args[sizeof(c->args)], tcg[300], *tok[64], *save = NULL, *t;
	int n = 0, i;

	memset(q, 0, sizeof(*q));
	q->binary = c->binary;
	snprintf(q->memory, sizeof(q->memory), "512");
	snprintf(args, sizeof(args), "%s", c->args);
	for (t = strtok_r(args, " \t", &save); t && n < 64;
	     t = strtok_r(NULL, " \t", &save))
		tok[n++] = t;
	for (i = 0; i < n; i++) {
		/* an option's value is the next word unless that is an option */
		const char *val = i + 1 < n && tok[i + 1][0] != '-' ? tok[i + 1] : NULL;

		if (!strcmp(tok[i], "-m") && val)
			snprintf(q->memory, sizeof(q->memory), "%s", val);
		else if (!owned(tok[i]) && add_extra(q, tok[i], val, err))
			return -1;
		i += val ? 1 : 0;
	}
	/* KVM: the template's own -cpu host -enable-kvm (no_kvm unset) */
	if (!kvm && (add_extra(q, "-accel", "tcg", err) ||
		     add_extra(q, "-cpu", c->cpu_tcg, err)))
		return -1;
	hzrig_expand_append(tcg, sizeof(tcg), kvm ? "" : c->append_tcg, tsc_khz);
	if (snprintf(q->append, sizeof(q->append), "%s%s%s %s", c->append,
		     *tcg ? " " : "", tcg, extra_append) >= (int)sizeof(q->append)) {
		fprintf(err, "hzrig lava: the kernel command line is too long\n");
		return -1;
	}
	return 0;
}

/* A YAML single-quoted scalar. */
static void yq(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

struct job_opts {
	const char *plan;		/* path */
	const char *plan_name;		/* its file name */
	const char *out_dir;
	const char *build_dir;
	const char *artifacts;		/* URL prefix, or NULL: file:// */
	const char *accel;
	unsigned long tsc_khz;
	unsigned int budget_s;
	struct hzrig_qemu_conf conf;
	/* the driver sweep (docs/sweep.md): a job per batch of devices */
	long long nak, batch_size, max_s, unplug_ms, walk;
	long long only_batch;		/* -1: every batch */
	const char *skip;		/* modules the batch leaves out, or NULL */
};

/* One job: the matrix's (batch < 0), or batch @batch of a sweep of @n. */
struct job {
	const char *v;
	int batch, ndev;
};

/*
 * The variant's "cmdline =" line, "" without one; -1 after a message if
 * @v is not a plain name (it becomes a path and a file name), there is no
 * such variant, or its command line does not fit.
 */
static int variant_cmdline(const char *v, char *out, size_t len, FILE *err)
{
	char path[PATH_MAX], why[HZRIG_WHY], *text, *line, *save = NULL;
	size_t tlen;

	out[0] = '\0';
	if (!hzrig_plain_name(v, why, sizeof(why))) {
		fprintf(err, "hzrig lava jobs: variant '%s' %s: name a variant of kernel/variants\n",
			v, why);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/kernel/variants/%s.variant", HZRIG_TOP, v);
	text = hzrig_in_slurp(path, HZRIG_MAX_TEXT, &tlen, why, sizeof(why));
	if (!text) {
		fprintf(err, "hzrig lava jobs: no variant %s (%s: %s)\n", v, path, why);
		return -1;
	}
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *p = line;

		if (strncmp(p, "cmdline", 7))
			continue;
		p += 7;
		p += strspn(p, " \t");
		if (*p++ != '=')
			continue;
		p += strspn(p, " \t");
		if (strlen(p) >= len) {
			fprintf(err, "hzrig lava jobs: %s: cmdline is %zu characters, over the %zu a job's command line has room for\n",
				path, strlen(p), len - 1);
			free(text);
			return -1;
		}
		snprintf(out, len, "%s", p);
	}
	free(text);
	return 0;
}

static int url_of(const struct job_opts *o, const char *v, const char *file,
		  char *out, size_t len, FILE *err)
{
	char path[PATH_MAX], real[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s/%s", o->build_dir, v, file);
	if (!realpath(path, real)) {
		fprintf(err, "hzrig lava jobs: %s: %s (build it first: make lava-jobs VARIANTS=%s builds and writes)\n",
			path, strerror(errno), v);
		return -1;
	}
	if (o->artifacts)
		snprintf(out, len, "%s/%s/%s", o->artifacts, v, file);
	else
		snprintf(out, len, "file://%s", real);
	return 0;
}

/*
 * A sweep batch prints no KTAP: its guest frames its lines "hzrig-sweep
 * ..." on the console (initramfs/sweep.sh); the batch passed when its end
 * line came.
 */
static void write_sweep_monitor(FILE *f)
{
	fputs("    monitors:\n"
	      "    - name: hzrig-sweep\n"
	      "      start: 'hzrig-sweep sweep begin'\n"
	      "      end: 'hzrig: guest done rc=-?[0-9]+'\n"
	      "      pattern: '(?m)^hzrig-sweep (?P<test_case_id>sweep) (?P<result>end)\\r*\\n'\n"
	      "      fixupdict:\n"
	      "        'end': pass\n", f);
}

static void write_monitor(FILE *f)
{
	/*
	 * A result line as a whole (pexpect matches on a stream: without the
	 * line end a name could match half-read). "not ok" first.
	 */
	fputs("    monitors:\n"
	      "    - name: " HZRIG_LAVA_SUITE "\n"
	      "      start: 'KTAP version 1'\n"
	      "      end: 'hzrig: guest done rc=-?[0-9]+'\n"
	      "      pattern: '(?m)^(?P<result>not ok|ok) [0-9]+ (?P<test_case_id>[^\\s#]+)[^\\r\\n]*\\r*\\n'\n"
	      "      fixupdict:\n"
	      "        'ok': pass\n"
	      "        'not ok': fail\n", f);
}

/* The job's comment and name: the matrix's, or a sweep batch's. */
static void write_head(const struct job_opts *o, const struct job *jb, FILE *f)
{
	char name[256];

	if (jb->batch >= 0)
		fprintf(f, "# hzrig: the driver sweep, variant %s, batch %d of %d devices\n"
			"# (hzrig lava jobs; docs/sweep.md). The guest prints its lines\n"
			"# in-band, each \"hzrig-sweep ...\".\n", jb->v, jb->batch, jb->ndev);
	else
		fprintf(f, "# hzrig: variant %s, plan %s (hzrig lava jobs; docs/lava.md).\n"
			"# The guest prints its samples in-band; bring the log back with\n"
			"# hzrig ingest --lava DIR (DIR/output.yaml: lavacli jobs logs --raw ID).\n",
			jb->v, o->plan_name);
	fprintf(f, "device_type: qemu\njob_name: ");
	if (jb->batch >= 0)
		snprintf(name, sizeof(name), "hzrig sweep %s batch %d", jb->v, jb->batch);
	else
		snprintf(name, sizeof(name), "hzrig %s %s", jb->v, o->plan_name);
	yq(f, name);
}

/* The job is one YAML document written top to bottom. */
static int write_job(const struct job_opts *o, const struct job *jb, FILE *err)
{
	char kernel[PATH_MAX + 256], initrd[PATH_MAX + 256], extra[2048];
	char path[PATH_MAX], why[HZRIG_WHY], cmdline[900], batch[1600] = "";
	const char *v = jb->v;
	struct hzrig_lava_qemu q;
	struct hzrig_out out;
	unsigned int job_min;
	FILE *f;
	int i;

	if (variant_cmdline(v, cmdline, sizeof(cmdline), err) ||
	    url_of(o, v, "kernel/arch/x86/boot/bzImage", kernel, sizeof(kernel), err) ||
	    url_of(o, v, "initramfs.cpio", initrd, sizeof(initrd), err))
		return -1;
	if (jb->batch >= 0)
		snprintf(batch, sizeof(batch),
			 " hzrig.nak=%lld hzrig.batch=%d hzrig.batch_size=%lld hzrig.sweep_max_s=%lld hzrig.unplug_ms=%lld hzrig.walk=%lld dummy_hcd.num=%d%s%s",
			 o->nak, jb->batch, o->batch_size, o->max_s, o->unplug_ms, o->walk, jb->ndev,
			 o->skip ? " hzrig.sweep_skip=" : "", o->skip ? o->skip : "");
	if (snprintf(extra, sizeof(extra),
		     "hzrig.variant=%s hzrig.accel=%s hzrig.plan=%s hzrig.samples=console%s%s%s",
		     v, o->accel, o->plan_name, *cmdline ? " " : "", cmdline, batch) >=
	    (int)sizeof(extra)) {
		fprintf(err, "hzrig lava jobs: %s: the kernel command line is too long\n", v);
		return -1;
	}
	if (hzrig_lava_qemu(&o->conf, o->accel, o->tsc_khz, extra, &q, err))
		return -1;
	if (strchr(q.append, '"')) {
		fprintf(err, "hzrig lava jobs: %s: a '\"' in the kernel command line cannot go into image_arg\n",
			v);
		return -1;
	}
	if (jb->batch >= 0)
		snprintf(path, sizeof(path), "%s/%s-batch-%d.yaml", o->out_dir, v, jb->batch);
	else
		snprintf(path, sizeof(path), "%s/%s.yaml", o->out_dir, v);
	if (hzrig_out_open(&out, path, why, sizeof(why))) {
		fprintf(err, "hzrig lava jobs: %s: %s\n", path, why);
		return -1;
	}
	f = out.f;
	job_min = jb->batch >= 0 ? (unsigned int)(o->max_s + 119) / 60 :
		  (o->budget_s + 59) / 60;
	write_head(o, jb, f);
	fprintf(f, "\npriority: medium\nvisibility: public\n"
		"timeouts:\n  job:\n    minutes: %u\n"
		"  action:\n    minutes: 5\n"
		"  connection:\n    minutes: 2\n", job_min + 10);
	fputs("metadata:\n  hzrig.variant: ", f);
	yq(f, v);
	fputs("\n  hzrig.plan: ", f);
	yq(f, o->plan_name);
	/* the template's variables: the rig's QEMU settings */
	fprintf(f, "\ncontext:\n  arch: x86_64\n  memory: %s\n", q.memory);
	if (strcmp(o->accel, "kvm"))
		fputs("  no_kvm: true\n", f);
	fputs("  extra_options:\n", f);
	for (i = 0; i < q.nextra; i++) {
		fputs("  - ", f);
		yq(f, q.extra[i]);
		fputc('\n', f);
	}
	fputs("actions:\n- deploy:\n    timeout:\n      minutes: 5\n"
	      "    to: tmpfs\n    images:\n      kernel:\n        image_arg: ", f);
	{
		char arg[2200];

		snprintf(arg, sizeof(arg), "-kernel {kernel} -append \"%s\"", q.append);
		yq(f, arg);
	}
	fputs("\n        url: ", f);
	yq(f, kernel);
	fputs("\n      initrd:\n        image_arg: '-initrd {initrd}'\n        url: ", f);
	yq(f, initrd);
	fputs("\n- boot:\n    timeout:\n      minutes: 2\n    method: qemu\n"
	      "    media: tmpfs\n", f);
	fprintf(f, "- test:\n    timeout:\n      minutes: %u\n", job_min);
	if (jb->batch >= 0)
		write_sweep_monitor(f);
	else
		write_monitor(f);
	if (hzrig_out_commit(&out, why, sizeof(why))) {
		fprintf(err, "hzrig lava jobs: %s: %s; nothing written\n", path, why);
		return -1;
	}
	printf("%s\n", path);
	return 0;
}

/*
 * A sweep variant (its build has sweep-devices/index, one line per driver:
 * hzrig sweep devices) gets a job per batch of --batch-size devices, so a
 * lab runs the batches in parallel; any other variant one job.
 */
static int write_jobs(const struct job_opts *o, const char *v, FILE *err)
{
	char path[PATH_MAX], why[HZRIG_WHY];
	struct job jb = { .v = v, .batch = -1 };
	size_t len;
	char *index;
	int n = 0, rc = 0;
	long long nb;

	if (!hzrig_plain_name(v, why, sizeof(why))) {
		fprintf(err, "hzrig lava jobs: variant '%s' %s: name a variant of kernel/variants\n",
			v, why);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%s/sweep-devices/index", o->build_dir, v);
	if (access(path, F_OK)) {
		if (o->only_batch >= 0 || o->skip) {
			fprintf(err, "hzrig lava jobs: %s is not a built sweep variant (no %s): --only-batch and --skip are for a sweep's batches\n",
				v, path);
			return -1;
		}
		return write_job(o, &jb, err);
	}
	index = hzrig_in_slurp(path, HZRIG_MAX_TEXT, &len, why, sizeof(why));
	if (!index) {
		fprintf(err, "hzrig lava jobs: %s: %s\n", path, why);
		return -1;
	}
	for (size_t i = 0; i < len; i++)
		n += index[i] == '\n';
	free(index);
	if (!n) {
		fprintf(err, "hzrig lava jobs: %s: no devices\n", path);
		return -1;
	}
	nb = (n + o->batch_size - 1) / o->batch_size;
	if (o->only_batch >= nb) {
		fprintf(err, "hzrig lava jobs: %s: --only-batch %lld: it has batches 0..%lld of %lld devices\n",
			v, o->only_batch, nb - 1, o->batch_size);
		return -1;
	}
	for (jb.batch = 0; jb.batch < nb && !rc; jb.batch++) {
		if (o->only_batch >= 0 && jb.batch != o->only_batch)
			continue;
		jb.ndev = (int)(n - jb.batch * o->batch_size < o->batch_size ?
				n - jb.batch * o->batch_size : o->batch_size);
		rc = write_job(o, &jb, err);
	}
	return rc;
}

/* The rendered device is one YAML document written top to bottom. */
static int write_device(const struct hzrig_qemu_conf *c, const char *accel,
			const char *path, FILE *err)
{
	struct hzrig_lava_qemu q;
	struct hzrig_out out = { .f = stdout };
	char why[HZRIG_WHY];
	FILE *f;
	int i;

	if (path && !strcmp(path, "-"))
		path = NULL;
	if (hzrig_lava_qemu(c, accel, 0, "", &q, err))
		return -1;
	if (path && hzrig_out_open(&out, path, why, sizeof(why))) {
		fprintf(err, "hzrig lava device: --out %s: %s\n", path, why);
		return -1;
	}
	f = out.f;
	/*
	 * What LAVA's qemu device type renders for arch x86_64, the jobs'
	 * context (memory, no_kvm, extra_options) filled in: lava-run takes a
	 * rendered device, so a local run sees the options a lab's would.
	 */
	fputs("# hzrig: a local QEMU as LAVA's qemu device type renders it for the\n"
	      "# jobs of `hzrig lava jobs` (docs/lava.md); for lava-run --device.\n"
	      "constants:\n"
	      "  shutdown-message: 'The system is going down for reboot NOW'\n"
	      "  kernel-start-message: 'Linux version [0-9]'\n"
	      "  default-shell-prompt: 'lava-test: # '\n"
	      "  spawn_maxread: '4092'\n"
	      /* one attempt: a measurement is not retried until it passes */
	      "  failure_retry: 1\n"
	      "  boot_retry: 1\n"
	      "  posix:\n    lava_test_sh_cmd: /bin/sh\n"
	      "    lava_test_results_dir: /lava-%s\n"
	      "    lava_test_shell_file: ~/.bashrc\n"
	      "parameters:\n  pass:\n"
	      "available_architectures:\n- x86_64\n"
	      "actions:\n  deploy:\n    connections:\n      serial:\n"
	      "    methods:\n      image:\n        parameters:\n          guest:\n"
	      "            size: 512\n            interface: ide\n"
	      "            driveid: lavatest\n"
	      "  boot:\n    connections:\n      serial:\n    methods:\n"
	      "      qemu:\n        parameters:\n          command: ", f);
	yq(f, q.binary);
	fputs("\n          options:\n", f);
	if (!strcmp(accel, "kvm"))
		fputs("          - -cpu host\n          - -enable-kvm\n", f);
	fprintf(f, "          - -nographic\n"
		"          - -net nic,model=virtio,macaddr=52:54:00:12:34:58 -net user\n"
		"          - -m %s\n"
		"          - -monitor none\n"
		"          extra:\n", q.memory);
	for (i = 0; i < q.nextra; i++) {
		fputs("          - ", f);
		yq(f, q.extra[i]);
		fputc('\n', f);
	}
	fputs("timeouts:\n  actions:\n    boot-qemu-image:\n      minutes: 2\n"
	      "    boot-image-retry:\n      minutes: 2\n"
	      "  connections:\n    lava-test-shell:\n      seconds: 10\n", f);
	if (!path ? fflush(f) != 0 : hzrig_out_commit(&out, why, sizeof(why))) {
		fprintf(err, "hzrig lava device: %s: %s; nothing written\n",
			path ? path : "standard output", path ? why : strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The same device for a LAVA server: a device dictionary that extends the
 * server's qemu device type. The job's context (memory, no_kvm,
 * extra_options) must win, so the dictionary sets only what is the
 * device's own: its NIC's MAC (unique per device, from @index) and one
 * boot attempt (a measurement is not retried until it passes).
 */
static int write_dictionary(long long index, const char *path, FILE *err)
{
	struct hzrig_out out = { .f = stdout };
	char why[HZRIG_WHY];

	if (path && !strcmp(path, "-"))
		path = NULL;
	if (path && hzrig_out_open(&out, path, why, sizeof(why))) {
		fprintf(err, "hzrig lava device: --out %s: %s\n", path, why);
		return -1;
	}
	fprintf(out.f, "{# hzrig: device %lld of a local lab, LAVA's qemu device type for the\n"
		"   jobs of `hzrig lava jobs` (docs/lava.md); the job's context sets\n"
		"   memory, no_kvm and the rig's QEMU options. #}\n"
		"{%% extends 'qemu.jinja2' %%}\n"
		"{%% set mac_addr = '52:54:00:12:35:%02llx' %%}\n"
		"{%% set boot_retry = 1 %%}\n"
		"{%% set failure_retry = 1 %%}\n", index, index);
	if (!path ? fflush(out.f) != 0 : hzrig_out_commit(&out, why, sizeof(why))) {
		fprintf(err, "hzrig lava device: %s: %s; nothing written\n",
			path ? path : "standard output", path ? why : strerror(errno));
		return -1;
	}
	return 0;
}

static void lava_usage(FILE *f)
{
	fputs("usage: hzrig lava jobs [--plan NAME|FILE] [--out DIR] [--build DIR]\n"
	      "                       [--artifacts URL] [--accel tcg|kvm]\n"
	      "                       [--tsc-khz N] [--qemu-config FILE]\n"
	      "                       [--nak K] [--unplug-ms MS] [--walk P] [--batch-size N]\n"
	      "                       [--max-s S] [--only-batch N] [--skip MODS]\n"
	      "                       VARIANT...\n"
	      "       hzrig lava device [--accel tcg|kvm] [--qemu-config FILE]\n"
	      "                         [--dictionary N] [--out FILE]\n"
	      "       hzrig lava console --out FILE [--status FILE --variant V] JOB_LOG\n"
	      "       hzrig lava result JOB_LOG\n"
	      "jobs: one LAVA job (DIR/VARIANT.yaml, default build/lava) per built\n"
	      "variant (build/VARIANT: rig/boot/matrix.sh --build-only), for LAVA's\n"
	      "qemu device type with the rig's QEMU settings; the plan (default\n"
	      "quick) sets the test's timeout as hzrig boot's watchdog would.\n"
	      "Images are file:// URLs of the build, or URL/VARIANT/<file> with\n"
	      "--artifacts (upload build/VARIANT/kernel/arch/x86/boot/bzImage and\n"
	      "build/VARIANT/initramfs.cpio there). Under TCG the guest is told\n"
	      "the TSC rate (--tsc-khz, default this host's): a lab's TCG worker\n"
	      "needs its own; a KVM worker none (--accel kvm).\n"
	      "A sweep variant (docs/sweep.md: build/VARIANT/sweep-devices) gets\n"
	      "one job per batch of --batch-size devices (default 32), the\n"
	      "drivers NAKed --nak times (default 2), a batch at most --max-s\n"
	      "seconds (default 240): DIR/VARIANT-batch-N.yaml; --unplug-ms: each\n"
	      "device unplugged MS ms into its first NAKed request (needs --nak 1+);\n"
	      "--walk P: each request of a probe NAKed in turn, P passes at most;\n"
	      "--only-batch N: that batch's job alone; --skip MODS: the batch\n"
	      "boots without the modules MODS (comma-separated: a hung batch again\n"
	      "without its suspects, as rig/sweep/sweep.sh does).\n"
	      "device: the device dictionary of this machine's QEMU for lava-run;\n"
	      "with --dictionary N (1..255), device N of a LAVA server's qemu\n"
	      "type as a dictionary (make lava-lab: lavacli devices dict set).\n"
	      "console: a job's console, its lines as they came (a sweep batch's\n"
	      "job: save it as DIR/batch-N.txt and console-N.log, then hzrig sweep\n"
	      "collect --dir DIR); --status FILE: how its guest ended, as hzrig\n"
	      "boot --status writes it for --variant V (ok, crashed, failed, hung,\n"
	      "or error when the job has no console; written for any LAVA log).\n"
	      "result: LAVA's verdict on the job, one line: pass, fail: ERROR_TYPE:\n"
	      "ERROR_MSG, or none (no job result: its dispatcher was killed).\n"
	      "Exit: 0 written (result: found), 1 result: none, 2 bad usage or\n"
	      "input (nothing half-written).\n", f);
}

static int plan_path(const char *arg, char *out, size_t len)
{
	if (strchr(arg, '/'))
		return snprintf(out, len, "%s", arg) >= (int)len ? -1 : 0;
	return snprintf(out, len, "%s/rig/plan/plans/%s%s", HZRIG_TOP, arg,
			strstr(arg, ".plan") ? "" : ".plan") >= (int)len ? -1 : 0;
}

/* Option parsing for both subcommands, then one job per variant. */
/* --tsc-khz: the guest's TSC rate, as LAVA's QEMU is told it. */
static int khz_opt(const char *cmd, const char *arg, void *dst)
{
	if (!hzrig_parse_ll(arg, 1, 100000000, dst))
		return 0;
	fprintf(stderr, "hzrig %s: --tsc-khz: '%s' is not a rate in kHz\n", cmd,
		arg);
	return -1;
}

/* --skip: module names ([A-Za-z0-9_-]+) separated by single commas. */
static bool skip_ok(const char *s)
{
	const char *ok = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-";
	size_t n = strlen(s);

	if (!n || n > 1200)
		return false;
	while (*s) {
		size_t k = strspn(s, ok);

		if (!k || (s[k] && (s[k] != ',' || !s[k + 1])))
			return false;
		s += k + (s[k] == ',');
	}
	return true;
}

/* The jobs' own options that do not fit together or are not valid. */
static bool jobs_opts_bad(const struct job_opts *o)
{
	char why[HZRIG_WHY];

	if (o->skip && !skip_ok(o->skip)) {
		fprintf(stderr, "hzrig lava jobs: --skip: '%.80s' is not module names separated by commas (at most 1200 characters)\n",
			o->skip);
		return true;
	}
	if (o->unplug_ms && !o->nak) {
		fprintf(stderr, "hzrig lava jobs: --unplug-ms unplugs a device during a NAKed request: it needs --nak 1 or more\n");
		return true;
	}
	if (o->artifacts &&
	    !hzrig_url_ok(o->artifacts, "http https file", why, sizeof(why))) {
		fprintf(stderr, "hzrig lava jobs: --artifacts: '%s' %s\n",
			o->artifacts, why);
		return true;
	}
	return false;
}

/* `hzrig lava console|result`: what a job's log holds. */
static int log_cmd(const char *sub, const char *out, const char *status,
		   const char *variant, int nargs, char **args)
{
	char why[HZRIG_WHY];
	int rc;

	if (!strcmp(sub, "console")) {
		if (!out || nargs != 1) {
			fprintf(stderr, "hzrig lava console: --out FILE and one JOB_LOG are needed\n");
			return 2;
		}
		if (!status != !variant) {
			fprintf(stderr, "hzrig lava console: --status FILE and --variant V go together\n");
			return 2;
		}
		if (variant && !hzrig_plain_name(variant, why, sizeof(why))) {
			fprintf(stderr, "hzrig lava console: --variant '%s' %s\n", variant, why);
			return 2;
		}
		return hzrig_lava_console(args[0], out, status, variant, stderr) ? 1 : 0;
	}
	if (status || variant) {
		fprintf(stderr, "hzrig lava result: --status and --variant are options of hzrig lava console\n");
		return 2;
	}
	if (nargs != 1) {
		fprintf(stderr, "hzrig lava result: one JOB_LOG is needed\n");
		return 2;
	}
	rc = hzrig_lava_result(args[0], stdout, stderr);
	return rc < 0 ? 2 : rc;
}

int cmd_lava(int argc, char **argv)
{
	const char *qconf = HZRIG_TOP "/rig/boot/qemu/x86_64.conf";
	struct job_opts o = { .accel = "tcg", .nak = 2, .batch_size = 32, .max_s = 240,
			      .only_batch = -1 };
	char plan[PATH_MAX], out_dir[PATH_MAX];
	const char *sub, *plan_arg = "quick", *out = NULL, *status = NULL;
	const char *variant = NULL;
	long long khz = -1, dict = 0;
	const struct hzrig_opt opts[] = {
		HZRIG_OPT_S("plan", &plan_arg),
		HZRIG_OPT_S("out", &out),
		HZRIG_OPT_S("build", &o.build_dir),
		HZRIG_OPT_S("artifacts", &o.artifacts),
		HZRIG_OPT_S("accel", &o.accel),
		HZRIG_OPT_F("tsc-khz", khz_opt, &khz),
		HZRIG_OPT_S("qemu-config", &qconf),
		HZRIG_OPT_N("nak", &o.nak, 0, 1000),
		HZRIG_OPT_N("batch-size", &o.batch_size, 1, 32),
		HZRIG_OPT_N("max-s", &o.max_s, 10, 86400),
		HZRIG_OPT_N("unplug-ms", &o.unplug_ms, 0, 60000),
		HZRIG_OPT_N("walk", &o.walk, 0, 64),
		HZRIG_OPT_N("dictionary", &dict, 1, 255),
		HZRIG_OPT_N("only-batch", &o.only_batch, 0, 1000000),
		HZRIG_OPT_S("skip", &o.skip),
		HZRIG_OPT_S("status", &status),
		HZRIG_OPT_S("variant", &variant),
		HZRIG_OPT_END
	};
	int first, i, rc = 0;

	if (argc < 2 || (strcmp(argv[1], "jobs") && strcmp(argv[1], "device") &&
			 strcmp(argv[1], "console") && strcmp(argv[1], "result"))) {
		if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
			lava_usage(stdout);
			return 0;
		}
		fprintf(stderr, "hzrig lava: say jobs, device, console or result\n");
		lava_usage(stderr);
		return 2;
	}
	sub = argv[1];
	/* the options follow the subcommand: parsed as its own command line */
	first = hzrig_opts("lava", argc - 1, argv + 1, opts, lava_usage);
	if (first < 0)
		return HZRIG_OPTS_EXIT(first);
	first++;
	if (!strcmp(sub, "console") || !strcmp(sub, "result"))
		return log_cmd(sub, out, status, variant, argc - first, argv + first);
	if (status || variant) {
		fprintf(stderr, "hzrig lava %s: --status and --variant are options of hzrig lava console\n", sub);
		return 2;
	}
	if (jobs_opts_bad(&o))
		return 2;
	if (strcmp(o.accel, "tcg") && strcmp(o.accel, "kvm")) {
		fprintf(stderr, "hzrig lava: --accel: '%s' is not tcg or kvm\n", o.accel);
		return 2;
	}
	if (hzrig_qemu_conf_load(qconf, &o.conf))
		return 2;
	if (!strcmp(sub, "device")) {
		if (first != argc) {
			fprintf(stderr, "hzrig lava device: unexpected argument '%s'\n",
				argv[first]);
			return 2;
		}
		if (dict)
			return write_dictionary(dict, out, stderr) ? 2 : 0;
		return write_device(&o.conf, o.accel, out, stderr) ? 2 : 0;
	}
	if (dict) {
		fprintf(stderr, "hzrig lava %s: --dictionary is an option of hzrig lava device\n", sub);
		return 2;
	}
	if (first == argc) {
		fprintf(stderr, "hzrig lava jobs: no variants\n");
		return 2;
	}
	if (plan_path(plan_arg, plan, sizeof(plan)) || access(plan, R_OK)) {
		fprintf(stderr, "hzrig lava jobs: --plan: no plan %s\n", plan);
		return 2;
	}
	o.plan = plan;
	o.plan_name = strrchr(plan, '/') + 1;
	o.budget_s = hzrig_boot_budget_s(&o.conf, plan);
	if (!o.budget_s)
		return 2;
	o.build_dir = o.build_dir ? o.build_dir : HZRIG_TOP "/build";
	snprintf(out_dir, sizeof(out_dir), "%s", out ? out : HZRIG_TOP "/build/lava");
	o.out_dir = out_dir;
	if (mkdir(out_dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "hzrig lava jobs: %s: %s\n", out_dir, strerror(errno));
		return 2;
	}
	o.tsc_khz = khz > 0 ? (unsigned long)khz :
		    strcmp(o.accel, "kvm") ? hzrig_host_tsc_khz() : 0;
	for (i = first; i < argc; i++)
		if (write_jobs(&o, argv[i], stderr))
			rc = 2;
	return rc;
}
