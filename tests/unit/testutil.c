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

void copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "r"), *out;
	char buf[65536];
	size_t n;

	assert_non_null(in);
	out = fopen(to, "w");
	assert_non_null(out);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		assert_int_equal(fwrite(buf, 1, n, out), n);
	fclose(in);
	assert_int_equal(fclose(out), 0);
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
