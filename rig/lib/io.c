// SPDX-License-Identifier: GPL-2.0
/*
 * Inputs and outputs, checked (io.h has the rules).
 */
#define _GNU_SOURCE		/* fopencookie() */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/io.h"

static const char *kind_of(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a file";
}

/* @v bytes in words: "64 MiB", "1 GiB", "1234 bytes". */
static const char *size_text(uint64_t v, char *buf, size_t n)
{
	static const char *const unit[] = { "bytes", "KiB", "MiB", "GiB", "TiB" };
	size_t u = 0;

	while (u + 1 < sizeof(unit) / sizeof(unit[0]) && v >= 1024 && !(v % 1024)) {
		v /= 1024;
		u++;
	}
	snprintf(buf, n, "%llu %s", (unsigned long long)v, unit[u]);
	return buf;
}

/* A reader that fails once more than its bound has come. */
struct bounded {
	int fd;
	uint64_t left;
};

static ssize_t bounded_read(void *cookie, char *buf, size_t size)
{
	struct bounded *b = cookie;
	ssize_t got;
	char one;

	if (!b->left) {
		do
			got = read(b->fd, &one, 1);
		while (got < 0 && errno == EINTR);
		if (got > 0) {
			errno = EFBIG;
			return -1;
		}
		return got;
	}
	if (size > b->left)
		size = (size_t)b->left;
	do
		got = read(b->fd, buf, size);
	while (got < 0 && errno == EINTR);
	if (got > 0)
		b->left -= (uint64_t)got;
	return got;
}

static int bounded_close(void *cookie)
{
	struct bounded *b = cookie;
	int rc = close(b->fd);

	free(b);
	return rc;
}

FILE *hzrig_in_open(const char *path, uint64_t max, char *why, size_t n)
{
	cookie_io_functions_t fns = { .read = bounded_read,
				      .close = bounded_close };
	struct bounded *b;
	struct stat st;
	char s1[32], s2[32];
	FILE *f;
	int fd;

	/* Non-blocking: opening a FIFO must not wait for a writer. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		snprintf(why, n, "%s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st)) {
		snprintf(why, n, "%s", strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, n, "is %s, not a regular file: give a file", kind_of(st.st_mode));
		goto fail;
	}
	if ((uint64_t)st.st_size > max) {
		snprintf(why, n, "is %s, over the %s hzrig reads of a file of this kind",
			 size_text((uint64_t)st.st_size, s1, sizeof(s1)),
			 size_text(max, s2, sizeof(s2)));
		goto fail;
	}
	if (fcntl(fd, F_SETFL, 0) || !(b = malloc(sizeof(*b)))) {
		snprintf(why, n, "%s", strerror(errno));
		goto fail;
	}
	b->fd = fd;
	b->left = max;
	f = fopencookie(b, "r", fns);
	if (!f) {
		snprintf(why, n, "%s", strerror(errno));
		free(b);
		goto fail;
	}
	return f;
fail:
	close(fd);
	return NULL;
}

const char *hzrig_in_error(char *why, size_t n, uint64_t max)
{
	char s[32];

	if (errno == EFBIG)
		snprintf(why, n, "grew past the %s hzrig reads of a file of this kind",
			 size_text(max, s, sizeof(s)));
	else
		snprintf(why, n, "%s", strerror(errno ? errno : EIO));
	return why;
}

char *hzrig_in_slurp(const char *path, uint64_t max, size_t *lenp, char *why,
		     size_t n)
{
	FILE *f = hzrig_in_open(path, max, why, n);
	size_t cap = 0, len = 0, got;
	char *buf = NULL, *nb;

	if (!f)
		return NULL;
	do {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 8192;
			nb = realloc(buf, cap);
			if (!nb) {
				snprintf(why, n, "out of memory");
				goto fail;
			}
			buf = nb;
		}
		got = fread(buf + len, 1, cap - len - 1, f);
		len += got;
	} while (got);
	if (ferror(f)) {
		hzrig_in_error(why, n, max);
		goto fail;
	}
	fclose(f);
	buf[len] = '\0';
	*lenp = len;
	return buf;
fail:
	free(buf);
	fclose(f);
	return NULL;
}

/* A new or regular file: a temporary file beside @target. */
static int out_file(struct hzrig_out *o, const char *target, mode_t mode,
		    char *why, size_t n)
{
	const char *slash = strrchr(target, '/');
	int dlen = slash ? (int)(slash - target + 1) : 0;
	int fd;

	if (snprintf(o->path, sizeof(o->path), "%s", target) >= (int)sizeof(o->path) ||
	    snprintf(o->tmp, sizeof(o->tmp), "%.*s.%s.XXXXXX", dlen, target,
		     slash ? slash + 1 : target) >= (int)sizeof(o->tmp)) {
		snprintf(why, n, "the path is too long");
		return -1;
	}
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		snprintf(why, n, "cannot write beside it: %s", strerror(errno));
		o->tmp[0] = '\0';
		return -1;
	}
	if (fchmod(fd, mode) || !(o->f = fdopen(fd, "w"))) {
		snprintf(why, n, "%s", strerror(errno));
		close(fd);
		unlink(o->tmp);
		o->tmp[0] = '\0';
		return -1;
	}
	return 0;
}

int hzrig_out_open(struct hzrig_out *o, const char *path, char *why, size_t n)
{
	struct stat st;
	char *real;
	int fd, rc;

	memset(o, 0, sizeof(*o));
	if (!path[0]) {
		snprintf(why, n, "an empty file name");
		return -1;
	}
	if (stat(path, &st)) {
		if (errno != ENOENT) {
			snprintf(why, n, "%s", strerror(errno));
			return -1;
		}
		if (!lstat(path, &st)) {
			snprintf(why, n, "is a symbolic link to nothing: remove it or name its target");
			return -1;
		}
		return out_file(o, path, 0644, why, n);
	}
	if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
		/* Written through: a device or pipe is not ours to replace. */
		fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
			snprintf(why, n, "%s", strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
		snprintf(o->path, sizeof(o->path), "%s", path);
		return 0;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, n, "is %s: give a file name", kind_of(st.st_mode));
		return -1;
	}
	/* A regular file, maybe through links: the target is replaced. */
	real = realpath(path, NULL);
	if (!real) {
		snprintf(why, n, "%s", strerror(errno));
		return -1;
	}
	rc = out_file(o, real, st.st_mode & 07777, why, n);
	free(real);
	return rc;
}

int hzrig_out_commit(struct hzrig_out *o, char *why, size_t n)
{
	int bad = fflush(o->f) || ferror(o->f);
	int e = errno;

	if (fclose(o->f) && !bad) {
		bad = 1;
		e = errno;
	}
	o->f = NULL;
	if (bad) {
		snprintf(why, n, "cannot write: %s", strerror(e ? e : EIO));
		hzrig_out_abort(o);
		return -1;
	}
	if (o->tmp[0] && rename(o->tmp, o->path)) {
		snprintf(why, n, "%s", strerror(errno));
		hzrig_out_abort(o);
		return -1;
	}
	o->tmp[0] = '\0';
	return 0;
}

void hzrig_out_abort(struct hzrig_out *o)
{
	if (o->f)
		fclose(o->f);
	o->f = NULL;
	if (o->tmp[0])
		unlink(o->tmp);
	o->tmp[0] = '\0';
}

bool hzrig_path_within(const char *real, const char *root_real)
{
	size_t n = strlen(root_real);

	if (!strcmp(root_real, "/"))
		return real[0] == '/';
	return !strncmp(real, root_real, n) && (real[n] == '/' || !real[n]);
}

bool hzrig_same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return a && b && !stat(a, &sa) && !stat(b, &sb) &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

bool hzrig_plain_name(const char *s, char *why, size_t n)
{
	char dummy[8];
	size_t i;

	if (!why) {
		why = dummy;
		n = sizeof(dummy);
	}
	if (!s[0]) {
		snprintf(why, n, "is empty");
		return false;
	}
	if (s[0] == '.' || s[0] == '-') {
		snprintf(why, n, "starts with '%c': a name starts with a letter, digit, _ or +",
			 s[0]);
		return false;
	}
	for (i = 0; s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (i + 1 >= HZRIG_NAME_MAX) {
			snprintf(why, n, "is longer than %d characters", HZRIG_NAME_MAX - 1);
			return false;
		}
		if (c == '/') {
			snprintf(why, n, "has a '/' (character %zu): a name, not a path", i + 1);
			return false;
		}
		if (!isalnum(c) && !strchr("-_.+", c)) {
			snprintf(why, n, "has byte 0x%02x (character %zu): only letters, digits and - _ . +",
				 c, i + 1);
			return false;
		}
	}
	return true;
}

bool hzrig_url_ok(const char *s, const char *schemes, char *why, size_t n)
{
	size_t slen = strcspn(s, ":"), i;
	const char *w = schemes;
	bool known = false;

	while (*w && !known) {
		size_t wl = strcspn(w, " ");

		known = wl == slen && !strncasecmp(s, w, wl);
		w += wl + (w[wl] == ' ');
	}
	if (!known || strncmp(s + slen, "://", 3)) {
		snprintf(why, n, "is not a URL of scheme %s (like https://host/path)",
			 schemes);
		return false;
	}
	if (strncasecmp(s, "file", slen) && (!s[slen + 3] || s[slen + 3] == '/')) {
		snprintf(why, n, "has no host after '://'");
		return false;
	}
	for (i = 0; s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c <= 0x20 || c == 0x7f || strchr("\"'<>\\`", c)) {
			snprintf(why, n, "has byte 0x%02x (character %zu): blanks, control characters, quotes, <, >, \\ and ` must be %%-encoded",
				 c, i + 1);
			return false;
		}
	}
	return true;
}

/* The length of the UTF-8 character at @s (at most @len bytes), 0 if bad. */
static size_t utf8_char(const unsigned char *s, size_t len)
{
	uint32_t cp;
	size_t need, i;

	if (s[0] < 0x80)
		return s[0] ? 1 : 0;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		need = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		need = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		need = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len < need)
		return 0;
	for (i = 1; i < need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((need == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (need == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return need;
}

char *hzrig_utf8_clean(char *dst, size_t dlen, const char *src, size_t len)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t i = 0, o = 0, c;

	if (!dlen)
		return dst;
	while (i < len) {
		c = utf8_char(s + i, len - i);
		if (o + (c ? c : 3) >= dlen)
			break;
		if (c) {
			memcpy(dst + o, s + i, c);
			o += c;
			i += c;
		} else {
			memcpy(dst + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		}
	}
	dst[o] = '\0';
	return dst;
}
