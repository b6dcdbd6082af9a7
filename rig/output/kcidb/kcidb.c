// SPDX-License-Identifier: GPL-2.0
/*
 * hzrig report --kcidb: a run directory as one KCIDB I/O document (see
 * kcidb.h and docs/kcidb.md).
 *
 * The run is loaded and validated by rig/runs/load.c; this file only maps it.
 * What the run loader (runs/load.c) does not keep (collected_at, refused, boot, capture, ...) is
 * read here from the run.json and build.json texts it keeps, with the same
 * rule: a field of the wrong type is an error naming the file and field,
 * and any error means nothing is written. Before anything is written the
 * document is checked once more for what the schema forbids and a bug here
 * could produce: nulls, non-finite numbers, duplicate ids.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "lib/json.h"
#include "model/model.h"
#include "output/kcidb/kcidb.h"
#include "runs/runs.h"
#include "output/kcidb/export.h"
#include "lib/opts.h"


struct checkout {
	const char *patches;	/* space-separated names; "" for none */
	const char *tree;	/* tree_describe; "" when not recorded */
	char line[16];		/* the kernel line its guests ran: "6.12" */
	const char *tree_from;	/* the variant that gave it */
	bool known;		/* some variant of it has a build.json */
	size_t first;		/* its first variant */
	char id[ID_MAX];
};

static void kerr(struct ctx *c, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void kerr(struct ctx *c, const char *file, const char *fmt, ...)
{
	va_list ap;

	fprintf(c->err, "%s: ", file);
	va_start(ap, fmt);
	vfprintf(c->err, fmt, ap);
	va_end(ap);
	fputc('\n', c->err);
	c->errors++;
}

static void kwarn(struct ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void kwarn(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	fputs("hzrig report --kcidb: warning: ", c->err);
	va_start(ap, fmt);
	vfprintf(c->err, fmt, ap);
	va_end(ap);
	fputc('\n', c->err);
}

bool hzrig_kcidb_origin_ok(const char *origin)
{
	const char *p;

	if (!origin || !*origin)
		return false;
	for (p = origin; *p; p++)
		if (!islower((unsigned char)*p) &&
		    !isdigit((unsigned char)*p) && *p != '_')
			return false;
	return true;
}

/* ---------------------------------------------------------------------- */
/* Times                                                                    */
/* ---------------------------------------------------------------------- */

/* "2026-12-03T10:20:31[.mmm]+00:00" for @ms milliseconds since the epoch. */
void kcidb_fmt_time(char *buf, size_t len, int64_t ms, bool frac)
{
	time_t t = (time_t)(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
	int64_t rem = ms - (int64_t)t * 1000;
	struct tm tm;
	char base[32];

	gmtime_r(&t, &tm);
	strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
	if (frac)
		snprintf(buf, len, "%s.%03d+00:00", base, (int)rem);
	else
		snprintf(buf, len, "%s+00:00", base);
}


/* ---------------------------------------------------------------------- */
/* Fields runs/load.c does not keep                                          */
/* ---------------------------------------------------------------------- */

/* Member @key of @o when it is an object (the loader checked it is). */
static struct json_object *object_member(struct json_object *o,
					 const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_object))
		return NULL;
	return v;
}

/*
 * What the export needs of a variant beyond struct hzrig_variant: the
 * loader validated every field of run.json, so only the members copied
 * whole into "misc" (boot, ktap, capture) are looked up again here.
 */
static void load_extra(struct ctx *c, size_t vi)
{
	const struct hzrig_variant *v = &c->run.v[vi];
	struct vextra *x = &c->x[vi];

	snprintf(x->run_path, sizeof(x->run_path), "%s/%s/run.json",
		 c->run.source, v->name);
	snprintf(x->build_path, sizeof(x->build_path), "%s/%s/build.json",
		 c->run.source, v->name);
	x->run = json_tokener_parse(v->run_json);
	if (!x->run) {
		kerr(c, x->run_path, "cannot be parsed again (out of memory?)");
		return;
	}
	x->boot = object_member(x->run, "boot");
	x->capture = object_member(x->run, "capture");
	x->ktap = object_member(x->run, "ktap");
}

/* ---------------------------------------------------------------------- */
/* Checkouts: one per (tree, patch series)                                  */
/* ---------------------------------------------------------------------- */

static int sha256_hex(const void *data, size_t len, char hex[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0, i;

	if (!EVP_Digest(data, len, md, &n, EVP_sha256(), NULL) || n != 32)
		return -1;
	for (i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	return 0;
}

/*
 * sha256 of a patch file: a regular file of at most HZRIG_KCIDB_PATCH_MAX
 * bytes (a device or a FIFO named by mistake is refused, not read until
 * memory runs out). -1 with errno set on failure.
 */
static int sha256_file(const char *path, char hex[65]);

/* Whether @path (which may not exist yet) lies inside directory @dir. */
static bool inside_dir(const char *path, const char *dir)
{
	char *rdir = realpath(dir, NULL), *copy = strdup(path), *rparent;
	const char *parent;
	char *slash;
	bool in = false;

	if (!rdir || !copy)
		goto out;
	slash = strrchr(copy, '/');
	if (slash == copy)
		parent = "/";
	else if (slash) {
		*slash = '\0';
		parent = copy;
	} else {
		parent = ".";
	}
	rparent = realpath(parent, NULL);
	if (rparent) {
		in = hzrig_path_within(rparent, rdir);
		free(rparent);
	}
out:
	free(rdir);
	free(copy);
	return in;
}

static int sha256_file(const char *path, char hex[65])
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	char *buf = NULL;
	size_t len = 0;
	struct stat st;
	ssize_t got;
	int ret = -1;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st))
		goto out;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		goto out;
	}
	if (st.st_size > HZRIG_KCIDB_PATCH_MAX) {
		errno = EFBIG;
		goto out;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		goto out;
	/* Read one byte more than stat said: a file still growing fails. */
	while (len <= (size_t)st.st_size) {
		got = read(fd, buf + len, (size_t)st.st_size + 1 - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			goto out;
		if (!got)
			break;
		len += (size_t)got;
	}
	if (len != (size_t)st.st_size) {
		errno = EIO;
		goto out;
	}
	ret = sha256_hex(buf, len, hex);
out:
	free(buf);
	close(fd);
	return ret;
}

/* Number of names in a space-separated list. */
static size_t count_words(const char *s)
{
	size_t n = 0;

	while (*s) {
		while (*s == ' ')
			s++;
		if (!*s)
			break;
		n++;
		while (*s && *s != ' ')
			s++;
	}
	return n;
}

/* The @i-th name of @s into @buf. */
static void nth_word(const char *s, size_t i, char *buf, size_t len)
{
	size_t n = 0, w;

	buf[0] = '\0';
	while (*s) {
		while (*s == ' ')
			s++;
		for (w = 0; s[w] && s[w] != ' '; w++)
			;
		if (w && n++ == i) {
			snprintf(buf, len, "%.*s", (int)w, s);
			return;
		}
		s += w;
	}
}

/*
 * One checkout per kernel source: the tree a variant was built from and
 * its patches. Variants without build.json count as the unpatched tree of
 * their kernel line; a run of several lines (6.1 and 6.12) names the line
 * in each checkout's id.
 */
static void group_checkouts(struct ctx *c)
{
	bool lines = false;
	size_t i, j;

	c->co = calloc(c->run.nv + 1, sizeof(*c->co));
	if (!c->co) {
		kerr(c, c->run.source, "out of memory");
		return;
	}
	for (i = 0; i < c->run.nv; i++) {
		const struct hzrig_variant *v = &c->run.v[i];
		/* No build.json: taken as built from the unpatched tree. */
		const char *patches = v->patches ? v->patches : "";
		const char *tree = v->build_json ? v->tree_describe : "";
		struct checkout *co;
		char line[16];

		hzrig_release_line_name(v->release, line, sizeof(line));
		for (j = 0; j < c->nco; j++)
			if (!strcmp(c->co[j].patches, patches) &&
			    !strcmp(c->co[j].line, line))
				break;
		co = &c->co[j];
		if (j == c->nco) {
			c->nco++;
			co->patches = patches;
			co->tree = tree;
			co->tree_from = v->name;
			co->first = i;
			snprintf(co->line, sizeof(co->line), "%s", line);
			lines |= j && strcmp(c->co[0].line, line);
		} else if (tree[0] && co->tree[0] && strcmp(tree, co->tree)) {
			kerr(c, c->x[i].build_path,
			     "field \"tree_describe\": '%s', but %s was built from '%s' with the same patches",
			     tree, co->tree_from, co->tree);
		} else if (tree[0] && !co->tree[0]) {
			co->tree = tree;
			co->tree_from = v->name;
		}
		co->known |= v->build_json != NULL;
		c->x[i].checkout = j;
	}
	for (j = 0; j < c->nco; j++) {
		struct checkout *co = &c->co[j];
		size_t k, n;

		n = snprintf(co->id, sizeof(co->id), "%s:%s%s%s", c->origin,
			     c->run.id, lines && co->line[0] ? "@" : "",
			     lines ? co->line : "");
		/* The series names a patched checkout: readable, stable. */
		for (k = 0; k < count_words(co->patches); k++) {
			char name[256];

			nth_word(co->patches, k, name, sizeof(name));
			if (n < sizeof(co->id))
				n += snprintf(co->id + n, sizeof(co->id) - n,
					      "+%s", name);
		}
		if (n >= sizeof(co->id))
			kerr(c, c->x[co->first].build_path,
			     "field \"patches\": too long for a checkout id");
	}
}

/*
 * kcidb-io's patchset_hash: sha256 over the newline-terminated sha256 hex
 * digests of the patches in order. Each digest comes from build.json's
 * patch_sha256 (taken when the kernel was built) or, failing that, from the
 * file in the patch directory now. "" for no patches; false when a digest
 * cannot be had (warned: the checkout goes without a hash).
 */
static bool patchset_hash(struct ctx *c, const struct checkout *co,
			  char hash[65])
{
	size_t n = count_words(co->patches), i, vi;
	const char (*given)[65] = NULL;
	char *lines;
	bool ok = true;

	hash[0] = '\0';
	if (!n)
		return true;
	/* the loader checked the digests: one per patch, lowercase hex */
	for (vi = 0; vi < c->run.nv && !given; vi++)
		if (c->x[vi].checkout == (size_t)(co - c->co) &&
		    c->run.v[vi].patch_sha256)
			given = (const char (*)[65])c->run.v[vi].patch_sha256;
	lines = calloc(n, 65);
	if (!lines)
		return false;
	for (i = 0; i < n && ok; i++) {
		char *hex = lines + 65 * i;

		if (given) {
			memcpy(hex, given[i], 64);
		} else {
			const char *dir = c->o->patch_dir ? c->o->patch_dir :
					  HZRIG_KCIDB_PATCH_DIR;
			char name[256], path[PATH_LEN];

			nth_word(co->patches, i, name, sizeof(name));
			snprintf(path, sizeof(path), "%s/%s", dir, name);
			errno = 0;
			if (sha256_file(path, hex)) {
				kwarn(c, "%s: %s: checkout %s goes without patchset_hash (give --patch-dir)",
				      path, errno == EINVAL ? "not a regular file" :
				      strerror(errno ? errno : EIO), co->id);
				ok = false;
				break;
			}
		}
		hex[64] = '\n';
	}
	if (ok && sha256_hex(lines, 65 * n, hash))
		ok = false;
	free(lines);
	if (!ok)
		hash[0] = '\0';
	return ok;
}

/* @name percent-encoded where a URL path segment needs it. */
static void url_segment(char *buf, size_t len, const char *name)
{
	size_t n = 0;

	for (; *name && n + 4 < len; name++) {
		unsigned char ch = (unsigned char)*name;

		if (isalnum(ch) || strchr("-._~", ch))
			buf[n++] = (char)ch;
		else
			n += snprintf(buf + n, len - n, "%%%02X", ch);
	}
	buf[n] = '\0';
}

static struct json_object *checkout_json(struct ctx *c, struct checkout *co)
{
	struct json_object *o = json_object_new_object(), *m, *a;
	size_t n = count_words(co->patches), i;
	char hash[65], buf[1024], t[64];
	bool have_hash;

	json_object_object_add(o, "id", hzrig_json_str(co->id));
	json_object_object_add(o, "origin", hzrig_json_str(c->origin));
	/* A describe without blanks is git's; Debian's is "pkg version". */
	if (co->tree[0] && !strpbrk(co->tree, " \t"))
		json_object_object_add(o, "git_commit_name", hzrig_json_str(co->tree));
	/* Debian's: the package names the tree (linux-source-6.12). */
	if (!strncmp(co->tree, "linux-source-", 13) && strchr(co->tree, ' '))
		json_object_object_add(o, "tree_name", json_object_new_string_len(
				       co->tree, (int)(strchr(co->tree, ' ') - co->tree)));
	have_hash = co->known && patchset_hash(c, co, hash);
	if (have_hash)
		json_object_object_add(o, "patchset_hash", hzrig_json_str(hash));
	if (n && c->o->patch_url) {
		size_t blen = strlen(c->o->patch_url);

		while (blen && c->o->patch_url[blen - 1] == '/')
			blen--;
		a = json_object_new_array();
		for (i = 0; i < n; i++) {
			struct json_object *r = json_object_new_object();
			char name[256], seg[800];

			nth_word(co->patches, i, name, sizeof(name));
			url_segment(seg, sizeof(seg), name);
			snprintf(buf, sizeof(buf), "%.*s/%s", (int)blen,
				 c->o->patch_url, seg);
			json_object_object_add(r, "name", hzrig_json_str(name));
			json_object_object_add(r, "url", hzrig_json_str(buf));
			json_object_array_add(a, r);
		}
		json_object_object_add(o, "patchset_files", a);
	}
	if (co->tree[0])
		snprintf(buf, sizeof(buf), "%s", co->tree);
	else
		snprintf(buf, sizeof(buf), "kernel tree not recorded (no build.json)");
	if (n)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			 " + %zu patch%s: %s", n, n == 1 ? "" : "es",
			 co->patches);
	json_object_object_add(o, "comment", hzrig_json_str(buf));
	if (c->have_run_time) {
		kcidb_fmt_time(t, sizeof(t), (int64_t)c->run_time * 1000, false);
		json_object_object_add(o, "start_time", hzrig_json_str(t));
	}
	/* The variants were built from it: the checkout worked. */
	json_object_object_add(o, "valid", json_object_new_boolean(1));

	m = json_object_new_object();
	json_object_object_add(m, "run_id", hzrig_json_str(c->run.id));
	if (co->line[0])
		json_object_object_add(m, "kernel_line", hzrig_json_str(co->line));
	if (co->tree[0])
		json_object_object_add(m, "tree_describe", hzrig_json_str(co->tree));
	if (co->known) {
		a = json_object_new_array();
		for (i = 0; i < n; i++) {
			nth_word(co->patches, i, buf, sizeof(buf));
			json_object_array_add(a, hzrig_json_str(buf));
		}
		json_object_object_add(m, "patches", a);
	}
	if (c->run.v[co->first].hzrig_version[0])
		json_object_object_add(m, "hzrig_version",
				       hzrig_json_str(c->run.v[co->first].hzrig_version));
	json_object_object_add(o, "misc", m);
	return o;
}

/* ---------------------------------------------------------------------- */
/* Builds                                                                   */
/* ---------------------------------------------------------------------- */

void kcidb_build_id(char *buf, size_t len, struct ctx *c, size_t vi)
{
	snprintf(buf, len, "%s:%s/%s", c->origin, c->run.id, c->run.v[vi].name);
}

static struct json_object *words_json(const char *s)
{
	struct json_object *a = json_object_new_array();
	size_t i, n = count_words(s);
	char w[256];

	for (i = 0; i < n; i++) {
		nth_word(s, i, w, sizeof(w));
		json_object_array_add(a, hzrig_json_str(w));
	}
	return a;
}

static struct json_object *build_json(struct ctx *c, size_t vi)
{
	const struct hzrig_variant *v = &c->run.v[vi];
	const struct vextra *x = &c->x[vi];
	struct json_object *o = json_object_new_object(), *m;
	char id[ID_MAX], buf[512], t[64];

	kcidb_build_id(id, sizeof(id), c, vi);
	json_object_object_add(o, "id", hzrig_json_str(id));
	json_object_object_add(o, "checkout_id", hzrig_json_str(c->co[x->checkout].id));
	json_object_object_add(o, "origin", hzrig_json_str(c->origin));
	snprintf(buf, sizeof(buf), "%s: HZ=%d kernel %s", v->name, v->hz,
		 v->release[0] ? v->release : "(release not recorded)");
	if (v->fragments)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			 ", fragments %s", v->fragments);
	if (v->patches && v->patches[0])
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			 ", patches %s", v->patches);
	json_object_object_add(o, "comment", hzrig_json_str(buf));
	/*
	 * The run id is taken after the build stage, as the guests are about
	 * to boot: the kernels were built (or found up to date) just before.
	 */
	if (c->have_run_time) {
		kcidb_fmt_time(t, sizeof(t), (int64_t)c->run_time * 1000, false);
		json_object_object_add(o, "start_time", hzrig_json_str(t));
	}
	if (v->kernel_build_s >= 0)
		json_object_object_add(o, "duration",
				       hzrig_json_number(v->kernel_build_s +
					    (v->module_build_s >= 0 ?
					     v->module_build_s : 0), 3));
	json_object_object_add(o, "architecture", hzrig_json_str(HZRIG_KCIDB_ARCH));
	if (v->compiler[0])
		json_object_object_add(o, "compiler", hzrig_json_str(v->compiler));
	json_object_object_add(o, "config_name", hzrig_json_str(v->name));
	/* It booted (run.json exists): it was built. */
	json_object_object_add(o, "valid", json_object_new_boolean(1));

	m = json_object_new_object();
	json_object_object_add(m, "variant", hzrig_json_str(v->name));
	json_object_object_add(m, "hz", hzrig_json_int(v->hz));
	if (v->release[0])
		json_object_object_add(m, "release", hzrig_json_str(v->release));
	if (v->build_json) {
		if (v->fragments)
			json_object_object_add(m, "fragments",
					       words_json(v->fragments));
		if (v->patches)
			json_object_object_add(m, "patches",
					       words_json(v->patches));
		if (v->config_hash[0])
			json_object_object_add(m, "config_hash",
					       hzrig_json_str(v->config_hash));
		if (v->tree_describe[0])
			json_object_object_add(m, "tree_describe",
					       hzrig_json_str(v->tree_describe));
		if (v->hzrig_version[0])
			json_object_object_add(m, "hzrig_version",
					       hzrig_json_str(v->hzrig_version));
		if (v->kernel_build_s >= 0)
			json_object_object_add(m, "kernel_build_s",
					       hzrig_json_number(v->kernel_build_s, 3));
		if (v->module_build_s >= 0)
			json_object_object_add(m, "module_build_s",
					       hzrig_json_number(v->module_build_s, 3));
	} else {
		json_object_object_add(m, "build_json", hzrig_json_str("absent"));
	}
	json_object_object_add(o, "misc", m);
	return o;
}

/* ---------------------------------------------------------------------- */
/* The document                                                             */
/* ---------------------------------------------------------------------- */

/*
 * What the schema forbids and only a bug here could produce: null anywhere
 * ("no properties can be null"), numbers that are not finite.
 */
static void check_values(struct ctx *c, struct json_object *o, const char *at)
{
	char sub[600];
	size_t i;

	switch (json_object_get_type(o)) {
	case json_type_null:
		kerr(c, c->run.source, "internal: %s is null", at);
		break;
	case json_type_double:
		if (!isfinite(json_object_get_double(o)))
			kerr(c, c->run.source, "internal: %s is not finite", at);
		break;
	case json_type_object: {
		json_object_object_foreach(o, key, val) {
			snprintf(sub, sizeof(sub), "%.300s.%.200s", at, key);
			check_values(c, val, sub);
		}
		break;
	}
	case json_type_array:
		for (i = 0; i < json_object_array_length(o); i++) {
			snprintf(sub, sizeof(sub), "%.300s[%zu]", at, i);
			check_values(c, json_object_array_get_idx(o, i), sub);
		}
		break;
	default:
		break;
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Ids must be unique within their kind: report every duplicate. */
static void check_ids(struct ctx *c, struct json_object *arr, const char *kind)
{
	size_t n = json_object_array_length(arr), i;
	const char **ids = calloc(n + 1, sizeof(*ids));
	struct json_object *v;

	if (!ids) {
		kerr(c, c->run.source, "out of memory");
		return;
	}
	for (i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(arr, i);

		ids[i] = json_object_object_get_ex(o, "id", &v) ?
			 json_object_get_string(v) : "";
	}
	qsort(ids, n, sizeof(*ids), cmp_str);
	for (i = 1; i < n; i++)
		if (!strcmp(ids[i], ids[i - 1]))
			kerr(c, c->run.source, "%s id '%s' is not unique", kind,
			     ids[i]);
	free(ids);
}

/* "origin:finding-<first 16 hex of sha256(title)>": one issue per title. */
static int issue_id(struct ctx *c, const char *title, char *buf, size_t len)
{
	char hex[65];

	if (sha256_hex(title, strlen(title), hex))
		return -1;
	snprintf(buf, len, "%s:finding-%.16s", c->origin, hex);
	return 0;
}

/*
 * The kernel reports as KCIDB issues (one per distinct title, version 1)
 * and incidents (one per report, tying its issue to the variant's build
 * and console test). Both arrays stay empty without reports.
 */
static void add_findings(struct ctx *c, struct json_object *issues,
			 struct json_object *incidents)
{
	/* the issue ids so far, as keys of a json-c object (a hash table) */
	struct json_object *issued = json_object_new_object();
	char id[ID_MAX], iid[ID_MAX];
	size_t vi, i;

	for (vi = 0; vi < c->run.nv; vi++) {
		const struct hzrig_variant *v = &c->run.v[vi];

		for (i = 0; i < v->nfindings; i++) {
			const struct hzrig_run_finding *f = &v->findings[i];
			struct json_object *o, *m;

			if (issue_id(c, f->title, iid, sizeof(iid))) {
				kerr(c, c->run.source, "sha256 failed");
				json_object_put(issued);
				return;
			}
			if (!json_object_object_get_ex(issued, iid, NULL)) {
				json_object_object_add(issued, iid, NULL);
				o = json_object_new_object();
				json_object_object_add(o, "id", hzrig_json_str(iid));
				json_object_object_add(o, "version", hzrig_json_int(1));
				json_object_object_add(o, "origin", hzrig_json_str(c->origin));
				json_object_object_add(o, "report_subject",
						       hzrig_json_str(f->title));
				json_object_object_add(o, "comment", hzrig_json_str(f->title));
				m = json_object_new_object();
				json_object_object_add(m, "kind", hzrig_json_str(f->kind));
				json_object_object_add(o, "misc", m);
				json_object_array_add(issues, o);
			}
			o = json_object_new_object();
			snprintf(id, sizeof(id), "%s:%s/%s/finding-%zu", c->origin,
				 c->run.id, v->name, i);
			json_object_object_add(o, "id", hzrig_json_str(id));
			json_object_object_add(o, "origin", hzrig_json_str(c->origin));
			json_object_object_add(o, "issue_id", hzrig_json_str(iid));
			json_object_object_add(o, "issue_version", hzrig_json_int(1));
			kcidb_build_id(id, sizeof(id), c, vi);
			json_object_object_add(o, "build_id", hzrig_json_str(id));
			snprintf(id, sizeof(id), "%s:%s/%s/console", c->origin,
				 c->run.id, v->name);
			json_object_object_add(o, "test_id", hzrig_json_str(id));
			json_object_object_add(o, "present", json_object_new_boolean(1));
			json_object_object_add(o, "comment", hzrig_json_str(f->running[0] ?
					       f->running : "during boot"));
			m = json_object_new_object();
			json_object_object_add(m, "running", hzrig_json_str(f->running));
			json_object_object_add(m, "console_line",
					       hzrig_json_int(f->console_line));
			json_object_object_add(m, "truncated",
					       json_object_new_boolean(f->truncated));
			if (f->where[0])
				json_object_object_add(m, "where", hzrig_json_str(f->where));
			json_object_object_add(o, "misc", m);
			json_object_array_add(incidents, o);
		}
	}
	json_object_put(issued);
}

/* The issues and incidents arrays, into @doc only when there are any. */
static void add_issues(struct ctx *c, struct json_object *doc)
{
	struct json_object *issues = json_object_new_array();
	struct json_object *incidents = json_object_new_array();

	add_findings(c, issues, incidents);
	if (json_object_array_length(issues)) {
		json_object_object_add(doc, "issues", issues);
		json_object_object_add(doc, "incidents", incidents);
	} else {
		json_object_put(issues);
		json_object_put(incidents);
	}
}

struct json_object *hzrig_kcidb_document(const struct hzrig_kcidb_opts *o)
{
	struct ctx c = { .o = o, .err = o->err ? o->err : stderr };
	struct json_object *doc = NULL, *ver, *cos, *builds, *tests;
	struct json_object *issues, *incidents;
	char t[32];
	size_t i, j;
	int ret;

	c.origin = o->origin ? o->origin : HZRIG_KCIDB_ORIGIN;
	if (!hzrig_kcidb_origin_ok(c.origin)) {
		fprintf(c.err, "hzrig report --kcidb: origin '%s' is not [a-z0-9_]+\n",
			c.origin);
		return NULL;
	}
	ret = hzrig_run_load(o->run_dir, &c.run, c.err);
	if (ret) {
		if (ret > 0)
			fprintf(c.err, "hzrig report --kcidb: %s: %d error%s, nothing written\n",
				o->run_dir, ret, ret == 1 ? "" : "s");
		else
			fprintf(c.err, "hzrig report --kcidb: %s: not readable, nothing written\n",
				o->run_dir);
		hzrig_run_free(&c.run);
		return NULL;
	}
	c.x = calloc(c.run.nv + 1, sizeof(*c.x));
	if (!c.x) {
		kerr(&c, c.run.source, "out of memory");
		goto out;
	}
	for (i = 0; i < c.run.nv; i++)
		load_extra(&c, i);
	/* The run id is the UTC time the run started; other names have none. */
	if (!hzrig_run_id_time(c.run.id, t, sizeof(t)) &&
	    !hzrig_utc_parse(t, &c.run_time))
		c.have_run_time = true;
	if (c.errors)
		goto out;
	group_checkouts(&c);
	if (c.errors)
		goto out;

	doc = json_object_new_object();
	ver = json_object_new_object();
	json_object_object_add(ver, "major", hzrig_json_int(HZRIG_KCIDB_MAJOR));
	json_object_object_add(ver, "minor", hzrig_json_int(HZRIG_KCIDB_MINOR));
	json_object_object_add(doc, "version", ver);
	cos = json_object_new_array();
	for (j = 0; j < c.nco; j++)
		json_object_array_add(cos, checkout_json(&c, &c.co[j]));
	json_object_object_add(doc, "checkouts", cos);
	builds = json_object_new_array();
	tests = json_object_new_array();
	for (i = 0; i < c.run.nv; i++) {
		const struct hzrig_variant *v = &c.run.v[i];

		json_object_array_add(builds, build_json(&c, i));
		json_object_array_add(tests, kcidb_boot_test(&c, i));
		json_object_array_add(tests, kcidb_capture_test(&c, i));
		json_object_array_add(tests, kcidb_clocksource_test(&c, i));
		json_object_array_add(tests, kcidb_jiffy_test(&c, i));
		json_object_array_add(tests, kcidb_noise_test(&c, i));
		if (v->scanned)
			json_object_array_add(tests, kcidb_console_test(&c, i));
		for (j = 0; j < v->ncases; j++)
			json_object_array_add(tests,
					      kcidb_case_test(&c, i, &v->cases[j]));
	}
	json_object_object_add(doc, "builds", builds);
	json_object_object_add(doc, "tests", tests);
	add_issues(&c, doc);

	check_values(&c, doc, "document");
	check_ids(&c, cos, "checkout");
	check_ids(&c, builds, "build");
	check_ids(&c, tests, "test");
	if (json_object_object_get_ex(doc, "issues", &issues)) {
		check_ids(&c, issues, "issue");
		if (json_object_object_get_ex(doc, "incidents", &incidents))
			check_ids(&c, incidents, "incident");
	}
out:
	if (c.errors) {
		fprintf(c.err, "hzrig report --kcidb: %s: %u error%s, nothing written\n",
			o->run_dir, c.errors, c.errors == 1 ? "" : "s");
		json_object_put(doc);
		doc = NULL;
	}
	for (i = 0; c.x && i < c.run.nv; i++) {
		json_object_put(c.x[i].run);
		json_object_put(c.x[i].build);
	}
	free(c.x);
	free(c.co);
	hzrig_run_free(&c.run);
	return doc;
}

int hzrig_kcidb_write(struct json_object *doc, const char *path, FILE *err)
{
	char why[HZRIG_WHY];
	struct hzrig_out o;
	const char *text;
	size_t len;

	if (!err)
		err = stderr;
	text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
					      JSON_C_TO_STRING_SPACED |
					      JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!text) {
		fprintf(err, "hzrig report --kcidb: out of memory\n");
		return -1;
	}
	len = strlen(text);
	if (!path || !strcmp(path, "-")) {
		if (fwrite(text, 1, len, stdout) != len ||
		    fputc('\n', stdout) == EOF || fflush(stdout)) {
			fprintf(err, "hzrig report --kcidb: standard output: %s\n",
				strerror(errno));
			return -1;
		}
		return 0;
	}
	if (hzrig_out_open(&o, path, why, sizeof(why))) {
		fprintf(err, "hzrig report --kcidb: -o %s: %s\n", path, why);
		return -1;
	}
	fwrite(text, 1, len, o.f);
	fputc('\n', o.f);
	if (hzrig_out_commit(&o, why, sizeof(why))) {
		fprintf(err, "hzrig report --kcidb: -o %s: %s; nothing written\n",
			path, why);
		return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------------- */
/* hzrig report --kcidb                                                     */
/* ---------------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f, "usage: hzrig report --kcidb[=FILE] [-o FILE] [--origin NAME]\n"
		"                    [--patch-dir PDIR] [--patch-url URL] DIR\n"
		"       hzrig report --kcidb[=FILE] [-o FILE] [--origin NAME]\n"
		"                    --sweep SWEEP.JSON...\n"
		"--sweep: one driver sweep's variants instead (docs/sweep.md): a\n"
		"test per driver and per NAKed site, FAIL where HZ-dependent.\n"
		"Writes the run directory DIR (results/runs/<id> or results/latest)\n"
		"as one KCIDB I/O document, schema %d.%d, to FILE or standard output,\n"
		"ready for `kcidb-submit`: a checkout per kernel source, a build per\n"
		"variant, and per variant the tests boot, capture, clocksource,\n"
		"jiffy_rate, noise and one per case, with the median elapsed time\n"
		"in ms as its number. Ids are \"ORIGIN:<run id>/...\", the same on\n"
		"every export of the run. ORIGIN defaults to %s and must be\n"
		"[a-z0-9_]+. The patches build.json lists are hashed from PDIR\n"
		"(default %s) unless build.json has their sha256;\n"
		"--patch-url adds their download URLs. See docs/kcidb.md.\n"
		"Exit: 0 written, 2 bad options or a run with errors (nothing written).\n",
		HZRIG_KCIDB_MAJOR, HZRIG_KCIDB_MINOR, HZRIG_KCIDB_ORIGIN,
		HZRIG_KCIDB_PATCH_DIR);
}

/* An absolute URI: scheme ":" something (RFC 3986 scheme alphabet). */
int cmd_report_kcidb(int argc, char **argv)
{
	struct hzrig_kcidb_opts o = { .err = stderr };
	const char *out = NULL, *kout = NULL;
	char why[HZRIG_WHY];
	struct json_object *doc;
	bool sweep = false;
	const struct hzrig_opt opts[] = {
		{ .name = "kcidb", .kind = HZRIG_OPT_STR, .dst = &kout,
		  .optional_arg = true },
		{ .name = "output", .kind = HZRIG_OPT_STR, .dst = &out,
		  .short_name = 'o' },
		HZRIG_OPT_S("origin", &o.origin),
		HZRIG_OPT_S("patch-dir", &o.patch_dir),
		HZRIG_OPT_S("patch-url", &o.patch_url),
		HZRIG_OPT_B("sweep", &sweep),
		HZRIG_OPT_END
	};
	int first, ret;

	first = hzrig_opts("report", argc, argv, opts, usage);
	if (first < 0)
		return HZRIG_OPTS_EXIT(first);
	if (kout && out && strcmp(kout, out)) {
		fprintf(stderr, "hzrig report: --kcidb=%s and -o %s: two outputs\n",
			kout, out);
		return 2;
	}
	if (kout)
		out = kout;
	if (sweep) {
		if (o.origin && !hzrig_kcidb_origin_ok(o.origin)) {
			fprintf(stderr, "hzrig report: --origin: '%s' is not [a-z0-9_]+ (a KCIDB origin)\n",
				o.origin);
			return 2;
		}
		return hzrig_kcidb_sweep(o.origin, out, argv + first, argc - first);
	}
	if (argc - first != 1) {
		fprintf(stderr, "hzrig report --kcidb: one run directory expected\n");
		usage(stderr);
		return 2;
	}
	if (o.origin && !hzrig_kcidb_origin_ok(o.origin)) {
		fprintf(stderr, "hzrig report: --origin: '%s' is not [a-z0-9_]+ (a KCIDB origin)\n",
			o.origin);
		return 2;
	}
	if (o.patch_url && !hzrig_url_ok(o.patch_url, "http https", why, sizeof(why))) {
		fprintf(stderr, "hzrig report: --patch-url: '%s' %s\n",
			o.patch_url, why);
		return 2;
	}
	if (out && !*out) {
		fprintf(stderr, "hzrig report: --kcidb/-o: empty file name\n");
		return 2;
	}
	o.run_dir = argv[first];
	if (out && strcmp(out, "-") && inside_dir(out, o.run_dir)) {
		fprintf(stderr, "hzrig report: --kcidb/-o %s: inside the run directory %s; the export goes elsewhere, so that it can never overwrite what the run recorded\n",
			out, o.run_dir);
		return 2;
	}
	doc = hzrig_kcidb_document(&o);
	if (!doc)
		return 2;
	ret = hzrig_kcidb_write(doc, out, stderr);
	json_object_put(doc);
	return ret ? 2 : 0;
}
