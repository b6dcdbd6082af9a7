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
#include "lib/io.h"
#include "lib/util.h"
#include "lib/opts.h"

#ifndef HZRIG_TOP
#define HZRIG_TOP "."
#endif

struct files {
	char **v;		/* tree-relative paths */
	size_t n, cap;
	size_t c_files;
	size_t root_len;
	size_t refused;		/* files left out, each said */
	int oom;
};

static struct files *walk_files;

/* @a/@b into @buf; -1 if it does not fit. */
static int join(char *buf, size_t n, const char *a, const char *b)
{
	int r = snprintf(buf, n, "%s/%s", a, b);

	return r < 0 || (size_t)r >= n ? -1 : 0;
}

/*
 * A tree-relative path that can go into a patch header as it is:
 * printable, no blank. The reason in @why otherwise.
 */
static bool path_ok(const char *rel, char *why, size_t n)
{
	size_t i;

	for (i = 0; rel[i]; i++)
		if ((unsigned char)rel[i] <= ' ' || rel[i] == 0x7f) {
			snprintf(why, n, "has byte 0x%02x at %zu: a blank or control character cannot go into a patch header",
				 (unsigned char)rel[i], i + 1);
			return false;
		}
	return true;
}

/* A C file calling one of the six APIs (their names are prefixes). */
static bool calls_usb_msg(const char *path, char *why, size_t n)
{
	static const char *const names[] = { "usb_control_msg", "usb_bulk_msg",
					     "usb_interrupt_msg", NULL };
	FILE *f = hzrig_in_open(path, HZRIG_MAX_SOURCE, why, n);
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
	char why[HZRIG_WHY] = "";
	char **v;

	if (type == FTW_D && path[ftw->base] == '.' && ftw->level > 0)
		return FTW_SKIP_SUBTREE;	/* .git, .tmp_versions */
	if (type != FTW_F || len < 2 || strcmp(path + len - 2, ".c"))
		return FTW_CONTINUE;
	fs->c_files++;
	if (!S_ISREG(st->st_mode) || !path_ok(path + fs->root_len, why, sizeof(why)) ||
	    !calls_usb_msg(path, why, sizeof(why))) {
		if (why[0] || !S_ISREG(st->st_mode)) {
			fprintf(stderr, "hzrig check-tree: %s: left out: %s\n",
				path, why[0] ? why : "not a regular file");
			fs->refused++;
		}
		return FTW_CONTINUE;
	}
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
	char path[4096], dir[4096], why[HZRIG_WHY], *slash;
	struct dirent *d;
	DIR *dh;

	if (!join(path, sizeof(path), tree, file) &&
	    hzrig_facts_read_defines(facts, path, file, why, sizeof(why)))
		fprintf(stderr, "hzrig check-tree: %s: macros not read: %s\n",
			path, why);
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
		    !join(path, sizeof(path), tree, rel) &&
		    hzrig_facts_read_defines(facts, path, rel, why, sizeof(why)))
			fprintf(stderr, "hzrig check-tree: %s: macros not read: %s\n",
				path, why);
	}
	closedir(dh);
}

struct job {
	pid_t pid;
	size_t file;
	int out, err;		/* spatch's output and errors, unlinked files */
};

/*
 * A temporary file with no name left: nothing to clean up, even when
 * hzrig is killed.
 */
static int anon_tmp(void)
{
	char name[] = "/tmp/hzrig-spatch-XXXXXX";
	int fd = mkostemp(name, O_CLOEXEC);

	if (fd >= 0)
		unlink(name);
	return fd;
}

static pid_t start_spatch(const char *tree, const char *cocci,
			  const char *file, struct job *j)
{
	char arg[4096 + 2];
	pid_t pid;

	j->out = anon_tmp();
	j->err = j->out >= 0 ? anon_tmp() : -1;
	if (j->err < 0) {
		if (j->out >= 0)
			close(j->out);
		return -1;
	}
	/*
	 * A name spatch cannot take for an option: it has no "--", so one
	 * starting with '-' goes as ./NAME.
	 */
	snprintf(arg, sizeof(arg), "%s%s", file[0] == '-' ? "./" : "", file);
	pid = fork();
	if (pid == 0) {
		dup2(j->out, 1);
		dup2(j->err, 2);
		if (chdir(tree))
			_exit(126);
		execlp("spatch", "spatch", "--sp-file", cocci, "--very-quiet",
		       "--timeout", "300", arg, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* A job's file from its start, as a stream (the descriptor then its). */
static FILE *rewound(int fd)
{
	FILE *f;

	if (lseek(fd, 0, SEEK_SET) || !(f = fdopen(fd, "r"))) {
		close(fd);
		return NULL;
	}
	return f;
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
		f = rewound(j->err);
		j->err = -1;
		while (f && getline(&line, &cap, f) > 0 && lineno++ < 5)
			fprintf(stderr, "  %s", line);
		if (f)
			fclose(f);
		(*failed)++;
	} else if ((f = rewound(j->out))) {
		j->out = -1;
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
	if (j->out >= 0)
		close(j->out);
	if (j->err >= 0)
		close(j->err);
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

/* A small job pool; each finished file's facts resolved at once. */
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
	char path[4096], why[HZRIG_WHY], *line = NULL, *out = NULL;
	long ver[3] = { -1, -1, -1 };
	static const char *const keys[] = { "VERSION = ", "PATCHLEVEL = ",
					    "SUBLEVEL = " };
	size_t cap = 0;
	FILE *f;
	int i;

	f = join(path, sizeof(path), tree, "Makefile") ? NULL :
	    hzrig_in_open(path, HZRIG_MAX_TEXT, why, sizeof(why));
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
	      "Files that are not regular, or whose names cannot go into a patch\n"
	      "header (blanks, control characters), are left out and named.\n"
	      "Exit status: 0 no site, 1 sites found, 2 error, or a file spatch\n"
	      "failed on or that was left out (the outputs cover the rest).\n"
	      "docs/checker.md.\n",
	      f);
}

/*
 * --json or --patch (@try: only whether it can be written, so that a bad
 * path fails before the tree is walked, and no temporary file waits the
 * whole run); "-" is standard output.
 */
static int open_out(struct hzrig_out *o, const char *path, const char *what,
		    bool try)
{
	char why[HZRIG_WHY];

	memset(o, 0, sizeof(*o));
	if (!path)
		return 0;
	if (!strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	if (hzrig_out_open(o, path, why, sizeof(why))) {
		fprintf(stderr, "hzrig check-tree: --%s %s: %s\n", what, path, why);
		return -1;
	}
	if (try)
		hzrig_out_abort(o);
	return 0;
}

static int write_out(const char *path, const char *what,
		     const struct hzrig_sites *sites,
		     const struct hzrig_check_run *run, const char *tree)
{
	struct hzrig_out oo, *o = &oo;
	char why[HZRIG_WHY];
	bool std;
	int rc;

	if (open_out(o, path, what, false))
		return -1;
	std = o->f == stdout;

	rc = what[0] == 'j' ? hzrig_check_json(o->f, sites, run) :
			      hzrig_check_patch(o->f, sites, tree);
	if (rc) {
		if (!std)
			hzrig_out_abort(o);
		fprintf(stderr, "hzrig check-tree: --%s %s: not written\n",
			what, path);
		return -1;
	}
	if (std ? fflush(stdout) != 0 : hzrig_out_commit(o, why, sizeof(why))) {
		fprintf(stderr, "hzrig check-tree: --%s %s: %s; nothing written\n",
			what, std ? "standard output" : path,
			std ? strerror(errno) : why);
		return -1;
	}
	return 0;
}

/* Is @path (which exists) inside the directory @root_real? */
static bool inside(const char *path, const char *root_real)
{
	char *r = realpath(path, NULL);
	bool in = r && hzrig_path_within(r, root_real);

	free(r);
	return in;
}

/* What the command line asks for. */
struct ct_opts {
	const char *json, *patch, *cocci, *tree;
	long long jobs;
	bool as_json;
	int first;		/* argv's first PATH after the tree */
	char treebuf[4096];
};

/* --format table or json. */
static int format_opt(const char *cmd, const char *arg, void *dst)
{
	if (strcmp(arg, "table") && strcmp(arg, "json")) {
		fprintf(stderr, "hzrig %s: --format: '%s' is not table or json\n",
			cmd, arg);
		return -1;
	}
	*(bool *)dst = arg[0] == 'j';
	return 0;
}

/* Options into @o; 0, 1 after --help, -1 after a message. */
static int parse_opts(int argc, char **argv, struct ct_opts *o)
{
	const struct hzrig_opt opts[] = {
		HZRIG_OPT_S("json", &o->json),
		HZRIG_OPT_S("patch", &o->patch),
		HZRIG_OPT_N("jobs", &o->jobs, 1, 256),
		HZRIG_OPT_S("cocci", &o->cocci),
		HZRIG_OPT_F("format", format_opt, &o->as_json),
		HZRIG_OPT_END
	};
	const char *env_jobs = getenv("JOBS");
	int first;

	o->jobs = sysconf(_SC_NPROCESSORS_ONLN);
	if (env_jobs && hzrig_parse_ll(env_jobs, 1, 256, &o->jobs)) {
		fprintf(stderr, "hzrig check-tree: JOBS='%s' is not 1..256\n",
			env_jobs);
		return -1;
	}
	first = hzrig_opts("check-tree", argc, argv, opts, usage);
	if (first < 0)
		return first == HZRIG_OPTS_HELP ? 1 : -1;
	snprintf(o->treebuf, sizeof(o->treebuf), "%s/build/src/linux-source-6.1",
		 HZRIG_TOP);
	o->tree = first < argc ? argv[first++] : o->treebuf;
	o->first = first;
	if (!o->cocci)
		o->cocci = HZRIG_TOP "/rig/checker/timeouts.cocci";
	return 0;
}

/*
 * The inputs and outputs checked before anything runs: the semantic patch
 * (a regular file: spatch would wait on a FIFO), the tree, --json and
 * --patch. Their resolved paths in *@cocci_real and *@tree_real (the
 * caller frees); -1 after a message.
 */
static int check_paths(const struct ct_opts *o, char **cocci_real,
		       char **tree_real)
{
	struct hzrig_out jout, pout;
	char why[HZRIG_WHY];
	struct stat st;
	FILE *f;

	*cocci_real = *tree_real = NULL;
	f = hzrig_in_open(o->cocci, HZRIG_MAX_TEXT, why, sizeof(why));
	if (!f) {
		fprintf(stderr, "hzrig check-tree: --cocci: cannot read %s: %s\n",
			o->cocci, why);
		return -1;
	}
	fclose(f);
	*cocci_real = realpath(o->cocci, NULL);
	if (!*cocci_real) {
		fprintf(stderr, "hzrig check-tree: %s: %s\n", o->cocci, strerror(errno));
		return -1;
	}
	if (stat(o->tree, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "hzrig check-tree: '%s' is not a directory "
			"(a kernel tree: make ksrc extracts the 6.1 one)\n",
			o->tree);
		return -1;
	}
	if (o->json && o->patch && strcmp(o->json, "-") &&
	    (!strcmp(o->json, o->patch) || hzrig_same_file(o->json, o->patch))) {
		fprintf(stderr, "hzrig check-tree: --json and --patch name the same file %s\n",
			o->json);
		return -1;
	}
	*tree_real = realpath(o->tree, NULL);
	if (!*tree_real) {
		fprintf(stderr, "hzrig check-tree: %s: %s\n", o->tree, strerror(errno));
		return -1;
	}
	return open_out(&jout, o->json, "json", true) ||
	       open_out(&pout, o->patch, "patch", true) ? -1 : 0;
}

/*
 * The C files under each PATH (argv[first..]; the whole tree without one)
 * into @fs, tree-relative and sorted. 0, or -1 after a message.
 */
static int walk_paths(const char *tree, const char *tree_real, int argc,
		      char **argv, int first, struct files *fs)
{
	size_t k;
	int i;

	walk_files = fs;
	for (i = first; i == first || i < argc; i++) {
		char start[4096];

		if (join(start, sizeof(start), tree, i < argc ? argv[i] : ".") ||
		    (i < argc && access(start, R_OK))) {
			fprintf(stderr, "hzrig check-tree: %s: no such path in %s\n",
				argv[i], tree);
			return -1;
		}
		if (i < argc && !inside(start, tree_real)) {
			fprintf(stderr, "hzrig check-tree: %s: outside the tree %s: a PATH names a file or directory inside KSRC\n",
				argv[i], tree);
			return -1;
		}
		fs->root_len = strlen(tree) + 1;
		/* a single file: nftw visits it like any other */
		if (nftw(start, visit, 32, FTW_PHYS | FTW_ACTIONRETVAL) < 0 ||
		    fs->oom) {
			fprintf(stderr, "hzrig check-tree: cannot walk %s\n", start);
			return -1;
		}
		if (i >= argc)
			break;
	}
	/* "./x" from the tree's own walk reads as "x" */
	for (k = 0; k < fs->n; k++)
		if (!strncmp(fs->v[k], "./", 2))
			memmove(fs->v[k], fs->v[k] + 2, strlen(fs->v[k]) - 1);
	qsort(fs->v, fs->n, sizeof(*fs->v), cmp_str);
	return 0;
}

/* The table (or JSON) on stdout, then --json and --patch; the exit status. */
static int report(const struct ct_opts *o, const struct hzrig_sites *sites,
		  const struct hzrig_check_run *run, const struct files *fs)
{
	int rc = 0;

	if (o->as_json)
		rc = hzrig_check_json(stdout, sites, run) ? 2 : 0;
	else
		hzrig_check_table(stdout, sites, run);
	if (!rc && o->json && write_out(o->json, "json", sites, run, o->tree))
		rc = 2;
	if (!rc && o->patch && write_out(o->patch, "patch", sites, run, o->tree))
		rc = 2;
	if (!rc && (run->failed || fs->refused))
		rc = 2;
	return rc ? rc : sites->n ? 1 : 0;
}

/* Options, checked paths, walk, the spatch pool, the report. */
int cmd_check_tree(int argc, char **argv)
{
	struct ct_opts o = { 0 };
	struct hzrig_check_run run = { 0 };
	struct hzrig_sites sites = { 0 };
	struct hzrig_facts *facts = NULL;
	struct files fs = { 0 };
	struct timespec t0, t1;
	char *real = NULL, *tree_real = NULL;
	int rc = 0;
	size_t k;

	rc = parse_opts(argc, argv, &o);
	if (rc)
		return rc > 0 ? 0 : 2;
	if (check_paths(&o, &real, &tree_real)) {
		free(real);
		free(tree_real);
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (walk_paths(o.tree, tree_real, argc, argv, o.first, &fs))
		rc = 2;
	if (!rc && fs.n) {
		facts = calloc(fs.n, sizeof(*facts));
		if (!facts || run_all(o.tree, real, &fs, (long)o.jobs, facts,
				      &sites, &run.failed))
			rc = 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	hzrig_sites_sort(&sites);
	run.tree = o.tree;
	run.release = tree_release(o.tree);
	run.files = fs.c_files;
	run.scanned = fs.n;
	run.seconds = (double)(t1.tv_sec - t0.tv_sec) +
		      (t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (!rc)
		rc = report(&o, &sites, &run, &fs);
	hzrig_sites_free(&sites);
	for (k = 0; facts && k < fs.n; k++)
		hzrig_facts_free(&facts[k]);
	for (k = 0; k < fs.n; k++)
		free(fs.v[k]);
	free(fs.v);
	free(facts);
	free(real);
	free(tree_real);
	free((char *)run.release);
	return rc;
}
