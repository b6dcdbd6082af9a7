/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers the C unit tests share: capturing what a function under test
 * writes to its error stream, scratch directories, fixture copies.
 * Include after <cmocka.h>; failures are cmocka assertions.
 */
#ifndef HZRIG_TESTUTIL_H
#define HZRIG_TESTUTIL_H

#include <stdio.h>

/* A fresh memory stream for errors; err_text() closes it and returns them. */
FILE *err_open(void);
const char *err_text(void);
void err_free(void);

void assert_contains(const char *hay, const char *needle);

/* Remove a directory tree (like rm -rf); missing is fine. */
void rm_rf(const char *dir);
void copy_file(const char *from, const char *to);
/* Copy the tree @src to @dst (created); asserts on any failure. */
void copy_tree(const char *src, const char *dst);

#endif /* HZRIG_TESTUTIL_H */
