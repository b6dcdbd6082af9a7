/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every file the host tool reads or writes for a user goes through here
 * (docs/architecture.md, "Inputs and outputs"):
 *
 * - An input must be a regular file (a FIFO, a device or a directory is
 *   refused before a byte is read, so nothing blocks or reads forever) of
 *   at most the bytes its kind allows. The bound holds while reading too:
 *   a file that grows past it fails.
 * - An output that is a regular file, or absent, is replaced whole: a
 *   temporary file beside it, renamed over it at the end, so a failed
 *   write leaves the old one. A symbolic link is followed: its target is
 *   replaced and the link stays. A character device or a FIFO (/dev/stdout,
 *   a pipe) is written through, and a failed write (/dev/full) is an
 *   error. A directory, a socket, a block device or a dangling link is
 *   refused.
 * - A name that becomes part of a path (a variant, a patch) is a plain
 *   name: letters, digits and -_.+, not starting with '.' or '-'.
 *
 * Each failure leaves its reason in a caller's buffer (@why), in words a
 * user can act on; the caller names the file.
 */
#ifndef HZRIG_IO_H
#define HZRIG_IO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* What each kind of input may hold; each error names its limit. */
#define HZRIG_MAX_JSON		(64ULL << 20)	/* run.json, build.json, status */
#define HZRIG_MAX_CAPTURE	(1ULL << 30)	/* samples.jsonl, ttyS1.jsonl */
#define HZRIG_MAX_CONSOLE	(512ULL << 20)	/* a guest's console log */
#define HZRIG_MAX_LAVA_LOG	(1ULL << 30)	/* a LAVA job's log */
#define HZRIG_MAX_SOURCE	(64ULL << 20)	/* a C file of a kernel tree */
#define HZRIG_MAX_TEXT		(16ULL << 20)	/* plans, variants, settings */
#define HZRIG_MAX_IMAGE		(2ULL << 30)	/* a kernel or initramfs for QEMU */

/* The longest name hzrig_plain_name() takes, with its NUL. */
#define HZRIG_NAME_MAX		64

#define HZRIG_WHY		256	/* room for a reason */

/*
 * @path opened for reading when it is a regular file of at most @max
 * bytes; reads past @max fail (ferror, errno EFBIG). NULL with the reason
 * in @why otherwise.
 */
FILE *hzrig_in_open(const char *path, uint64_t max, char *why, size_t n);

/*
 * Why a read from hzrig_in_open() failed (errno), into @why: a file that
 * grew past @max says so. Returns @why.
 */
const char *hzrig_in_error(char *why, size_t n, uint64_t max);

/*
 * The whole of @path (as hzrig_in_open() takes it), NUL-terminated, its
 * length in *@len; NULL with the reason in @why. The caller frees.
 */
char *hzrig_in_slurp(const char *path, uint64_t max, size_t *len, char *why,
		     size_t n);

/* An output being written; see the top of this file. */
struct hzrig_out {
	FILE *f;
	char path[4096];	/* what is replaced, or written through */
	char tmp[4096 + 16];	/* the temporary file; "" when writing through */
};

/* Start @path: o->f to write to. -1 with the reason in @why. */
int hzrig_out_open(struct hzrig_out *o, const char *path, char *why,
		   size_t n);
/* Finish: flush, close and (for a file) rename. -1 with the reason. */
int hzrig_out_commit(struct hzrig_out *o, char *why, size_t n);
/* Give up: the temporary file is removed, the target left as it was. */
void hzrig_out_abort(struct hzrig_out *o);

/*
 * True when the resolved path @real is @root_real itself or below it (both
 * from realpath()): a path that stays in its tree or directory.
 */
bool hzrig_path_within(const char *real, const char *root_real);

/* True when @a and @b are the same existing file (device and inode). */
bool hzrig_same_file(const char *a, const char *b);

/* True for a plain name; the reason in @why otherwise (may be NULL). */
bool hzrig_plain_name(const char *s, char *why, size_t n);

/*
 * True for a URL that goes into a file others open (a KCIDB patch, a LAVA
 * job's artifacts): one of the schemes in @schemes (space-separated, e.g.
 * "http https"), "://", a host unless the scheme is file, and no blank,
 * control character, quote, '<', '>', '\\' or backquote. The reason in
 * @why otherwise.
 */
bool hzrig_url_ok(const char *s, const char *schemes, char *why, size_t n);

/*
 * @src with every byte sequence that is not UTF-8 (and every NUL up to
 * @len) replaced by U+FFFD, into @dst of @dlen bytes, NUL-terminated and
 * cut only between characters. Returns @dst.
 */
char *hzrig_utf8_clean(char *dst, size_t dlen, const char *src, size_t len);

#endif /* HZRIG_IO_H */
