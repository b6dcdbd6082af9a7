/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers the C unit tests share: capturing what a function under test
 * writes to its error stream, scratch directories, fixture copies.
 * Include after <cmocka.h>; failures are cmocka assertions.
 */
#ifndef HZRIG_TESTUTIL_H
#define HZRIG_TESTUTIL_H

#include <stdbool.h>
#include <stdio.h>

/* A fresh memory stream for errors; err_text() closes it and returns them. */
FILE *err_open(void);
const char *err_text(void);
void err_free(void);

void assert_contains(const char *hay, const char *needle);

/* Make a new directory /tmp/hzrig-@tag-XXXXXX; its name in @dir (@size). */
void make_tmpdir(char *dir, size_t size, const char *tag);
/* Remove a directory tree (like rm -rf); missing is fine. */
void rm_rf(const char *dir);
void copy_file(const char *from, const char *to);
/* Copy the tree @src to @dst (created); asserts on any failure. */
void copy_tree(const char *src, const char *dst);

/*
 * The whole of file @path, NUL-terminated (caller frees); its length, which
 * counts any NUL bytes in it, in *@len unless @len is NULL. Fails the test if
 * the file cannot be read.
 */
char *read_file(const char *path, size_t *len);
/* Write @text to @path, created or truncated. */
void write_file(const char *path, const char *text);

/*
 * Rewrite file @path line by line: @fn gets each line (1-based @n, @arg) and
 * returns the text to write in its place (NULL: none). With @chomp, @fn sees
 * the line without its newline and a newline follows the text it returns;
 * without, both are as they stand, so a line returned without its newline
 * joins the next.
 */
typedef const char *(*line_fn)(unsigned int n, char *line, void *arg);
void rewrite_lines(const char *path, bool chomp, line_fn fn, void *arg);

#endif /* HZRIG_TESTUTIL_H */
