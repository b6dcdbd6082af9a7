// SPDX-License-Identifier: GPL-2.0
/* Helpers the C unit tests share; see testutil.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "testutil.h"

static char *errbuf;
static size_t errlen;
static FILE *errf;

FILE *err_open(void)
{
	errf = open_memstream(&errbuf, &errlen);
	assert_non_null(errf);
	return errf;
}

const char *err_text(void)
{
	if (errf) {
		fclose(errf);
		errf = NULL;
	}
	return errbuf ? errbuf : "";
}

void err_free(void)
{
	err_text();
	free(errbuf);
	errbuf = NULL;
	errlen = 0;
}

void assert_contains(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("'%s' not found in:\n%s", needle, hay);
}

void make_tmpdir(char *dir, size_t size, const char *tag)
{
	assert_true((size_t)snprintf(dir, size, "/tmp/hzrig-%s-XXXXXX", tag) <
		    size);
	if (!mkdtemp(dir))
		fail_msg("%s: %s", dir, strerror(errno));
}

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void rm_rf(const char *dir)
{
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static FILE *open_or_fail(const char *path, const char *mode)
{
	FILE *f = fopen(path, mode);

	if (!f)
		fail_msg("%s: %s", path, strerror(errno));
	return f;
}

/* Copy what is left of @in to @out, then close @in. */
static void copy_stream(FILE *in, FILE *out)
{
	char buf[65536];
	size_t n;

	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		assert_int_equal(fwrite(buf, 1, n, out), n);
	assert_false(ferror(in));
	fclose(in);
}

void copy_file(const char *from, const char *to)
{
	FILE *in = open_or_fail(from, "r");
	FILE *out = open_or_fail(to, "w");

	copy_stream(in, out);
	assert_int_equal(fclose(out), 0);
}

char *read_file(const char *path, size_t *len)
{
	FILE *in = open_or_fail(path, "r"), *out;
	char *buf = NULL;
	size_t n = 0;

	out = open_memstream(&buf, &n);
	assert_non_null(out);
	copy_stream(in, out);
	assert_int_equal(fclose(out), 0);
	if (len)
		*len = n;
	return buf;
}

void write_file(const char *path, const char *text)
{
	FILE *f = open_or_fail(path, "w");

	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

void rewrite_lines(const char *path, bool chomp, line_fn fn, void *arg)
{
	char tmp[PATH_MAX + 8], *line = NULL;
	FILE *in = open_or_fail(path, "r"), *out;
	unsigned int n = 0;
	size_t cap = 0;
	ssize_t len;

	snprintf(tmp, sizeof(tmp), "%s.new", path);
	out = open_or_fail(tmp, "w");
	while ((len = getline(&line, &cap, in)) >= 0) {
		const char *r;

		if (chomp && len && line[len - 1] == '\n')
			line[len - 1] = '\0';
		r = fn(++n, line, arg);
		if (!r)
			continue;
		fputs(r, out);
		if (chomp)
			fputc('\n', out);
	}
	free(line);
	fclose(in);
	assert_int_equal(fclose(out), 0);
	assert_int_equal(rename(tmp, path), 0);
}

/* nftw has no user pointer: the copy in progress. */
static const char *copy_root;
static char copy_base[PATH_MAX];

static int copy_entry(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	char dst[PATH_MAX + 64];

	(void)ftw;
	snprintf(dst, sizeof(dst), "%s%s", copy_base, path + strlen(copy_root));
	if (flag == FTW_D)
		return mkdir(dst, st->st_mode & 0777) && errno != EEXIST;
	copy_file(path, dst);
	return 0;
}

void copy_tree(const char *src, const char *dst)
{
	copy_root = src;
	snprintf(copy_base, sizeof(copy_base), "%s", dst);
	assert_int_equal(nftw(src, copy_entry, 16, FTW_PHYS), 0);
}
