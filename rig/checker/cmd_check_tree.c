// SPDX-License-Identifier: GPL-2.0
/*
 * hzrig check-tree [KSRC [PATH...]]: the C files of a kernel tree that call
 * the synchronous USB messages, each through spatch with
 * rig/checker/timeouts.cocci (JOBS at a time), their facts resolved into
 * the sites whose timeout is built from HZ or jiffies; printed as a table
 * (and JSON), optionally with the patch that fixes them. docs/checker.md.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "checker/checker.h"
#include "lib/util.h"

#ifndef HZRIG_TOP
#define HZRIG_TOP "."
#endif

struct files {
	char **v;		/* tree-relative paths */
	size_t n, cap;
	size_t c_files;
	size_t root_len;
	int oom;
};

static struct files *walk_files;

/* @a/@b into @buf; -1 if it does not fit. */
static int join(char *buf, size_t n, const char *a, const char *b)
{
	int r = snprintf(buf, n, "%s/%s", a, b);

	return r < 0 || (size_t)r >= n ? -1 : 0;
}

/* A C file calling one of the six APIs (their names are prefixes). */
static bool calls_usb_msg(const char *path)
{
	static const char *const names[] = { "usb_control_msg", "usb_bulk_msg",
					     "usb_interrupt_msg", NULL };
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	bool hit = false;
	int i;

	if (!f)
		return false;
	while (!hit && getline(&line, &cap, f) > 0)
		for (i = 0; names[i] && !hit; i++)
			hit = strstr(line, names[i]) != NULL;
	free(line);
	fclose(f);
	return hit;
}

static int visit(const char *path, const struct stat *st, int type,
		 struct FTW *ftw)
{
	struct files *fs = walk_files;
	size_t len = strlen(path);
	char **v;

	(void)st;
	if (type == FTW_D && path[ftw->base] == '.' && ftw->level > 0)
		return FTW_SKIP_SUBTREE;	/* .git, .tmp_versions */
	if (type != FTW_F || len < 2 || strcmp(path + len - 2, ".c"))
		return FTW_CONTINUE;
	fs->c_files++;
	if (!calls_usb_msg(path))
		return FTW_CONTINUE;
	v = hzrig_grow(fs->v, fs->n, &fs->cap, 256, sizeof(*v));
	if (!v || !(v[fs->n] = strdup(path + fs->root_len))) {
		fs->oom = 1;
		return FTW_STOP;
	}
	fs->v = v;
	fs->n++;
	return FTW_CONTINUE;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The macros of @file and of the headers in its directory. */
static void read_defines(const char *tree, const char *file,
			 struct hzrig_facts *facts)
{
	char path[4096], dir[4096], *slash;
	struct dirent *d;
	DIR *dh;

	if (!join(path, sizeof(path), tree, file))
		hzrig_facts_read_defines(facts, path, file);
	snprintf(dir, sizeof(dir), "%s", file);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	else
		strcpy(dir, ".");
	dh = join(path, sizeof(path), tree, dir) ? NULL : opendir(path);
	if (!dh)
		return;
	while ((d = readdir(dh))) {
		size_t n = strlen(d->d_name);
		char rel[4096];

		if (n < 3 || strcmp(d->d_name + n - 2, ".h"))
			continue;
		if (!join(rel, sizeof(rel), dir, d->d_name) &&
		    !join(path, sizeof(path), tree, rel))
			hzrig_facts_read_defines(facts, path, rel);
	}
	closedir(dh);
}

struct job {
	pid_t pid;
	size_t file;
	char out[64], err[64];
};

static pid_t start_spatch(const char *tree, const char *cocci,
			  const char *file, struct job *j)
{
	int o, e;
	pid_t pid;

	snprintf(j->out, sizeof(j->out), "/tmp/hzrig-spatch-XXXXXX");
	snprintf(j->err, sizeof(j->err), "/tmp/hzrig-spatch-XXXXXX");
	o = mkstemp(j->out);
	e = o >= 0 ? mkstemp(j->err) : -1;
	if (e < 0) {
		if (o >= 0) {
			close(o);
			unlink(j->out);
		}
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		dup2(o, 1);
		dup2(e, 2);
		if (chdir(tree))
			_exit(126);
		execlp("spatch", "spatch", "--sp-file", cocci, "--very-quiet",
		       "--timeout", "300", file, (char *)NULL);
		_exit(127);
	}
	close(o);
	close(e);
	return pid;
}

/* Read a finished job's facts; print what spatch said if it failed. */
static int finish(struct job *j, int status, const char *file,
		  struct hzrig_facts *facts, size_t *failed)
{
	char *line = NULL, err[160];
	size_t cap = 0;
	FILE *f;
	int rc = 0, lineno = 0;

	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "hzrig check-tree: spatch failed on %s (%s %d)%s\n",
			file, WIFEXITED(status) ? "exit" : "signal",
			WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
			WIFEXITED(status) && WEXITSTATUS(status) == 127 ?
			": is coccinelle installed?" : ":");
		f = fopen(j->err, "r");
		while (f && getline(&line, &cap, f) > 0 && lineno++ < 5)
			fprintf(stderr, "  %s", line);
		if (f)
			fclose(f);
		(*failed)++;
	} else if ((f = fopen(j->out, "r"))) {
		while (getline(&line, &cap, f) > 0) {
			line[strcspn(line, "\n")] = 0;
			if (hzrig_facts_parse_line(facts, line, err, sizeof(err))) {
				fprintf(stderr, "hzrig check-tree: %s: %s\n",
					file, err);
				rc = -1;
			}
		}
		fclose(f);
	}
	free(line);
	unlink(j->out);
	unlink(j->err);
	return rc;
}

static void progress(size_t done, size_t total, bool tty)
{
	if (tty)
		fprintf(stderr, "\rspatch: %zu/%zu files", done, total);
	else if (total >= 20 && done % (total / 10) == 0 && done < total)
		fprintf(stderr, "spatch: %zu/%zu files\n", done, total);
	if (tty && done == total)
		fputc('\n', stderr);
}

/* Long: a small job pool; each finished file's facts resolved at once. */
static int run_all(const char *tree, const char *cocci, struct files *fs,
		   long jobs, struct hzrig_facts *facts,
		   struct hzrig_sites *sites, size_t *failed)
{
	struct job *pool = calloc((size_t)jobs, sizeof(*pool));
	size_t next = 0, done = 0, running = 0;
	bool tty = isatty(2);
	int rc = 0, status;
	long k;

	if (!pool)
		return -1;
	while (done < fs->n) {
		while (!rc && next < fs->n && running < (size_t)jobs) {
			for (k = 0; pool[k].pid; k++)
				;
			pool[k].file = next;
			pool[k].pid = start_spatch(tree, cocci, fs->v[next],
						   &pool[k]);
			if (pool[k].pid < 0) {
				fprintf(stderr, "hzrig check-tree: cannot start spatch: %s\n",
					strerror(errno));
				pool[k].pid = 0;
				rc = -1;
				break;
			}
			next++;
			running++;
		}
		if (!running)
			break;
		{
			pid_t pid = wait(&status);
			size_t f;

			for (k = 0; k < jobs && pool[k].pid != pid; k++)
				;
			if (pid < 0 || k == jobs)
				continue;
			f = pool[k].file;
			read_defines(tree, fs->v[f], &facts[f]);
			if (finish(&pool[k], status, fs->v[f], &facts[f], failed) ||
			    hzrig_sites_resolve(&facts[f], sites))
				rc = -1;
			pool[k].pid = 0;
			running--;
			progress(++done, fs->n, tty);
		}
	}
	free(pool);
	return rc;
}

/* VERSION.PATCHLEVEL.SUBLEVEL of the tree's Makefile, or NULL. */
static char *tree_release(const char *tree)
{
	char path[4096], *line = NULL, *out = NULL;
	long ver[3] = { -1, -1, -1 };
	static const char *const keys[] = { "VERSION = ", "PATCHLEVEL = ",
					    "SUBLEVEL = " };
	size_t cap = 0;
	FILE *f;
	int i;

	f = join(path, sizeof(path), tree, "Makefile") ? NULL : fopen(path, "r");
	if (!f)
		return NULL;
	while (getline(&line, &cap, f) > 0)
		for (i = 0; i < 3; i++)
			if (ver[i] < 0 && !strncmp(line, keys[i], strlen(keys[i])))
				ver[i] = strtol(line + strlen(keys[i]), NULL, 10);
	free(line);
	fclose(f);
	if (ver[0] >= 0 && ver[1] >= 0 && ver[2] >= 0 &&
	    asprintf(&out, "%ld.%ld.%ld", ver[0], ver[1], ver[2]) < 0)
		out = NULL;
	return out;
}

static void usage(FILE *f)
{
	fputs("usage: hzrig check-tree [--json FILE] [--patch FILE] [--jobs N]\n"
	      "                        [--cocci FILE] [--format table|json]\n"
	      "                        [KSRC [PATH...]]\n"
	      "Finds the timeouts of usb_control_msg(), usb_bulk_msg(),\n"
	      "usb_interrupt_msg(), usb_bulk_msg_killable() and\n"
	      "usb_control_msg_send()/_recv() that are built from HZ, jiffies or\n"
	      "x_to_jiffies(): written at the call, through macros, local\n"
	      "variables and file-scope constants, and through one level of\n"
	      "wrapper function. Per site: the value at HZ=100/250/300/1000 and\n"
	      "the window the model gives it. KSRC defaults to the extracted 6.1\n"
	      "tree; PATHs (files or directories inside KSRC) narrow the search.\n"
	      "  --json FILE   also write the sites as JSON ('-': stdout)\n"
	      "  --patch FILE  write a patch (-p1 in KSRC) turning each site into\n"
	      "                milliseconds\n"
	      "  --jobs N      spatch processes at once (default: JOBS or nproc)\n"
	      "Exit status: 0 no site, 1 sites found, 2 error. docs/checker.md.\n",
	      f);
}

static int write_out(const char *path, const char *what,
		     const struct hzrig_sites *sites,
		     const struct hzrig_check_run *run, const char *tree)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
	int rc;

	if (!f) {
		fprintf(stderr, "hzrig check-tree: --%s: cannot write %s: %s\n",
			what, path, strerror(errno));
		return -1;
	}
	rc = what[0] == 'j' ? hzrig_check_json(f, sites, run) :
			      hzrig_check_patch(f, sites, tree);
	if (f != stdout && fclose(f))
		rc = -1;
	return rc;
}

/* Long: option parsing, then walk, pool, output: read top to bottom. */
int cmd_check_tree(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", required_argument, NULL, 'j' },
		{ "patch", required_argument, NULL, 'p' },
		{ "jobs", required_argument, NULL, 'J' },
		{ "cocci", required_argument, NULL, 'c' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *json = NULL, *patch = NULL, *cocci = NULL, *tree;
	const char *env_jobs = getenv("JOBS");
	struct hzrig_check_run run = { 0 };
	struct hzrig_sites sites = { 0 };
	struct hzrig_facts *facts = NULL;
	struct files fs = { 0 };
	struct timespec t0, t1;
	char treebuf[4096], *real = NULL;
	long long jobs = sysconf(_SC_NPROCESSORS_ONLN);
	bool as_json = false;
	int opt, rc = 0, i;
	size_t k;

	if (env_jobs && hzrig_parse_ll(env_jobs, 1, 256, &jobs)) {
		fprintf(stderr, "hzrig check-tree: JOBS='%s' is not 1..256\n",
			env_jobs);
		return 2;
	}
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'j': json = optarg; break;
		case 'p': patch = optarg; break;
		case 'c': cocci = optarg; break;
		case 'J':
			if (hzrig_parse_ll(optarg, 1, 256, &jobs)) {
				fprintf(stderr, "hzrig check-tree: --jobs: '%s' is not 1..256\n",
					optarg);
				return 2;
			}
			break;
		case 'f':
			if (strcmp(optarg, "table") && strcmp(optarg, "json")) {
				fprintf(stderr, "hzrig check-tree: --format: '%s' is not table or json\n",
					optarg);
				return 2;
			}
			as_json = optarg[0] == 'j';
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	snprintf(treebuf, sizeof(treebuf), "%s/build/src/linux-source-6.1",
		 HZRIG_TOP);
	tree = optind < argc ? argv[optind++] : treebuf;
	if (!cocci)
		cocci = HZRIG_TOP "/rig/checker/timeouts.cocci";
	if (access(cocci, R_OK)) {
		fprintf(stderr, "hzrig check-tree: --cocci: cannot read %s: %s\n",
			cocci, strerror(errno));
		return 2;
	}
	real = realpath(cocci, NULL);
	if (!real) {
		fprintf(stderr, "hzrig check-tree: %s: %s\n", cocci, strerror(errno));
		return 2;
	}
	{
		struct stat st;

		if (stat(tree, &st) || !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "hzrig check-tree: '%s' is not a directory "
				"(a kernel tree: make ksrc extracts the 6.1 one)\n",
				tree);
			free(real);
			return 2;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	walk_files = &fs;
	for (i = optind; i == optind || i < argc; i++) {
		char start[4096];

		if (join(start, sizeof(start), tree, i < argc ? argv[i] : ".") ||
		    (i < argc && access(start, R_OK))) {
			fprintf(stderr, "hzrig check-tree: %s: no such path in %s\n",
				argv[i], tree);
			rc = 2;
			break;
		}
		fs.root_len = strlen(tree) + 1;
		/* a single file: nftw visits it like any other */
		if (nftw(start, visit, 32, FTW_PHYS | FTW_ACTIONRETVAL) < 0 ||
		    fs.oom) {
			fprintf(stderr, "hzrig check-tree: cannot walk %s\n", start);
			rc = 2;
			break;
		}
		if (i >= argc)
			break;
	}
	if (!rc && fs.n) {
		/* "./x" from the tree's own walk reads as "x" */
		for (k = 0; k < fs.n; k++)
			if (!strncmp(fs.v[k], "./", 2))
				memmove(fs.v[k], fs.v[k] + 2, strlen(fs.v[k]) - 1);
		qsort(fs.v, fs.n, sizeof(*fs.v), cmp_str);
		facts = calloc(fs.n, sizeof(*facts));
		if (!facts)
			rc = 2;
		else if (run_all(tree, real, &fs, (long)jobs, facts, &sites,
				 &run.failed))
			rc = 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	hzrig_sites_sort(&sites);
	run.tree = tree;
	run.release = tree_release(tree);
	run.files = fs.c_files;
	run.scanned = fs.n;
	run.seconds = (double)(t1.tv_sec - t0.tv_sec) +
		      (t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (!rc) {
		if (as_json)
			rc = hzrig_check_json(stdout, &sites, &run) ? 2 : 0;
		else
			hzrig_check_table(stdout, &sites, &run);
		if (!rc && json && write_out(json, "json", &sites, &run, tree))
			rc = 2;
		if (!rc && patch && write_out(patch, "patch", &sites, &run, tree))
			rc = 2;
		if (!rc && run.failed)
			rc = 2;
		if (!rc)
			rc = sites.n ? 1 : 0;
	}
	hzrig_sites_free(&sites);
	for (k = 0; facts && k < fs.n; k++)
		hzrig_facts_free(&facts[k]);
	for (k = 0; k < fs.n; k++)
		free(fs.v[k]);
	free(fs.v);
	free(facts);
	free(real);
	free((char *)run.release);
	return rc;
}
