// SPDX-License-Identifier: GPL-2.0
/*
 * hzrig report --kcidb (rig/output/kcidb/kcidb.c): the export of a real, trimmed run
 * (tests/data/kcidb/) checked against the KCIDB I/O schema as written down
 * in tests/kcidb/kcidb.v04_04.schema.json, and against the run itself.
 *
 * The schema file is read by a small validator below that implements
 * exactly the JSON Schema keywords the file uses and refuses any other, so
 * the file cannot say more than is checked; the validator is itself tested
 * on documents that break each rule. What the schema cannot say is checked
 * by walking the export: ids unique per kind and derived from the origin,
 * parents that exist, no nulls, finite numbers. The expected verdicts and
 * medians are recomputed here from samples.jsonl, not taken from rig code.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "output/kcidb/kcidb.h"
#include "testutil.h"

#define FIXTURE_ID	"20261203T102031Z"
#define FIXTURE		DATA_DIR "/kcidb/" FIXTURE_ID
#define SCHEMA		DATA_DIR "/../kcidb/kcidb.v04_04.schema.json"

/* ---------------------------------------------------------------------- */
/* Files and temporary run directories                                      */
/* ---------------------------------------------------------------------- */

/* A copy of the fixture as <tmp>/runs/<FIXTURE_ID>, for a test to change. */
struct tmprun {
	char top[256];
	char dir[512];
};

static int tmprun_setup(void **state)
{
	struct tmprun *r = calloc(1, sizeof(*r));
	char runs[300];

	assert_non_null(r);
	*state = r;
	make_tmpdir(r->top, sizeof(r->top), "kcidb");
	snprintf(runs, sizeof(runs), "%s/runs", r->top);
	assert_int_equal(mkdir(runs, 0755), 0);
	snprintf(r->dir, sizeof(r->dir), "%s/%s", runs, FIXTURE_ID);
	copy_tree(FIXTURE, r->dir);
	return 0;
}

static int tmprun_teardown(void **state)
{
	struct tmprun *r = *state;

	rm_rf(r->top);
	free(r);
	return 0;
}

/* A fresh copy again, for the test's next case. */
static void tmprun_renew(struct tmprun *r)
{
	rm_rf(r->dir);
	copy_tree(FIXTURE, r->dir);
}

/* Write @t (freed) to @path with @text in place of its part @from to @end. */
static void put_spliced(const char *path, char *t, const char *from,
			const char *end, const char *text)
{
	char *n;

	assert_true(asprintf(&n, "%.*s%s%s", (int)(from - t), t, text,
			     end) >= 0);
	write_file(path, n);
	free(n);
	free(t);
}

/* Replace the first @from in file @rel of run @r with @to. */
static void edit(struct tmprun *r, const char *rel, const char *from,
		 const char *to)
{
	char path[1024], *t, *p;

	snprintf(path, sizeof(path), "%s/%s", r->dir, rel);
	t = read_file(path, NULL);
	p = strstr(t, from);
	if (!p)
		fail_msg("%s: no '%s' to replace", rel, from);
	put_spliced(path, t, p, p + strlen(from), to);
}

/* Replace line @lineno (1-based) of file @rel with @text. */
static void edit_line(struct tmprun *r, const char *rel, unsigned int lineno,
		      const char *text)
{
	char path[1024], *t, *p, *e;
	unsigned int i;

	snprintf(path, sizeof(path), "%s/%s", r->dir, rel);
	t = read_file(path, NULL);
	for (p = t, i = 1; i < lineno; i++) {
		p = strchr(p, '\n');
		assert_non_null(p);
		p++;
	}
	e = strchr(p, '\n');
	assert_non_null(e);
	put_spliced(path, t, p, e, text);
}

/* Export @dir; what it says is in err_text() until err_free(). */
static struct json_object *export(const char *dir, const char *origin,
				  const char *patch_dir)
{
	struct hzrig_kcidb_opts o = {
		.run_dir = dir, .origin = origin, .patch_dir = patch_dir,
		.err = err_open(),
	};

	return hzrig_kcidb_document(&o);
}

/* Export @dir, which must work; with @quiet, without a word. */
static struct json_object *export_ok(const char *dir, const char *origin,
				     const char *patch_dir, bool quiet)
{
	struct json_object *doc = export(dir, origin, patch_dir);

	if (!doc)
		fail_msg("export of %s failed: %s", dir, err_text());
	if (quiet)
		assert_string_equal(err_text(), "");
	err_free();
	return doc;
}

/* Export @dir, which must fail saying @msg and, unless NULL, @also. */
static void export_fails(const char *dir, const char *origin,
			 const char *patch_dir, const char *msg,
			 const char *also)
{
	assert_null(export(dir, origin, patch_dir));
	assert_contains(err_text(), msg);
	if (also)
		assert_contains(err_text(), also);
	err_free();
}

/* ---------------------------------------------------------------------- */
/* A validator for the JSON Schema keywords the schema file uses            */
/* ---------------------------------------------------------------------- */

struct verrs {
	struct json_object *root;	/* the schema, for $ref */
	char **msg;
	size_t n;
	bool schema_bad;		/* a keyword or form not implemented */
};

static void verr(struct verrs *v, const char *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void verr(struct verrs *v, const char *at, const char *fmt, ...)
{
	char *m = NULL, *line = NULL;
	va_list ap;

	va_start(ap, fmt);
	assert_true(vasprintf(&m, fmt, ap) >= 0);
	va_end(ap);
	assert_true(asprintf(&line, "%s: %s", at, m) >= 0);
	free(m);
	v->msg = realloc(v->msg, (v->n + 1) * sizeof(*v->msg));
	assert_non_null(v->msg);
	v->msg[v->n++] = line;
}

static void verrs_free(struct verrs *v)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		free(v->msg[i]);
	free(v->msg);
	v->msg = NULL;
	v->n = 0;
}

static bool matches(const char *re, const char *s)
{
	regex_t rx;
	bool ok;

	/* kcidb-io's patterns are POSIX ERE-compatible: [] classes, {n}, |. */
	assert_int_equal(regcomp(&rx, re, REG_EXTENDED | REG_NOSUB), 0);
	ok = !regexec(&rx, s, 0, NULL, 0);
	regfree(&rx);
	return ok;
}

static bool is_type(struct json_object *o, const char *t)
{
	enum json_type jt = json_object_get_type(o);

	if (!strcmp(t, "object"))
		return jt == json_type_object;
	if (!strcmp(t, "array"))
		return jt == json_type_array;
	if (!strcmp(t, "string"))
		return jt == json_type_string;
	if (!strcmp(t, "integer"))
		return jt == json_type_int;
	if (!strcmp(t, "number"))
		return jt == json_type_int || jt == json_type_double;
	if (!strcmp(t, "boolean"))
		return jt == json_type_boolean;
	if (!strcmp(t, "null"))
		return jt == json_type_null;
	return false;
}

static size_t utf8_len(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static void validate(struct verrs *v, struct json_object *schema,
		     struct json_object *inst, const char *at);

static void validate(struct verrs *v, struct json_object *schema,
		     struct json_object *inst, const char *at)
{
	enum json_type it = json_object_get_type(inst);
	struct json_object *props = NULL, *x;
	char sub[1024];
	size_t i;

	if (!json_object_is_type(schema, json_type_object)) {
		v->schema_bad = true;
		return;
	}
	json_object_object_get_ex(schema, "properties", &props);
	json_object_object_foreach(schema, kw, val) {
		if (!strcmp(kw, "$schema") || !strcmp(kw, "$comment") ||
		    !strcmp(kw, "title") || !strcmp(kw, "$defs")) {
			continue;	/* annotations; $defs via $ref */
		} else if (!strcmp(kw, "$ref")) {
			const char *ref = json_object_get_string(val);
			struct json_object *defs, *target;

			if (strncmp(ref, "#/$defs/", 8) ||
			    !json_object_object_get_ex(v->root, "$defs", &defs) ||
			    !json_object_object_get_ex(defs, ref + 8, &target)) {
				v->schema_bad = true;
				continue;
			}
			validate(v, target, inst, at);
		} else if (!strcmp(kw, "type")) {
			if (!is_type(inst, json_object_get_string(val)))
				verr(v, at, "is %s, not %s",
				     json_type_to_name(it),
				     json_object_get_string(val));
		} else if (!strcmp(kw, "required")) {
			for (i = 0; it == json_type_object &&
				    i < json_object_array_length(val); i++) {
				const char *k = json_object_get_string(
					json_object_array_get_idx(val, i));

				if (!json_object_object_get_ex(inst, k, NULL))
					verr(v, at, "required \"%s\" missing", k);
			}
		} else if (!strcmp(kw, "properties")) {
			if (it != json_type_object)
				continue;
			json_object_object_foreach(val, k, sch) {
				if (json_object_object_get_ex(inst, k, &x)) {
					snprintf(sub, sizeof(sub), "%.500s.%.400s",
						 at, k);
					validate(v, sch, x, sub);
				}
			}
		} else if (!strcmp(kw, "additionalProperties")) {
			/* Only "false" is used: nothing outside "properties". */
			if (!json_object_is_type(val, json_type_boolean) ||
			    json_object_get_boolean(val)) {
				v->schema_bad = true;
				continue;
			}
			if (it != json_type_object)
				continue;
			json_object_object_foreach(inst, k, unused) {
				(void)unused;
				if (!props ||
				    !json_object_object_get_ex(props, k, NULL))
					verr(v, at, "property \"%s\" not allowed", k);
			}
		} else if (!strcmp(kw, "pattern")) {
			if (it == json_type_string &&
			    !matches(json_object_get_string(val),
				     json_object_get_string(inst)))
				verr(v, at, "'%s' does not match %s",
				     json_object_get_string(inst),
				     json_object_get_string(val));
		} else if (!strcmp(kw, "enum")) {
			bool found = false;

			for (i = 0; i < json_object_array_length(val); i++)
				found |= json_object_equal(
					json_object_array_get_idx(val, i), inst);
			if (!found)
				verr(v, at, "%s is not one of %s",
				     json_object_to_json_string(inst),
				     json_object_to_json_string(val));
		} else if (!strcmp(kw, "const")) {
			if (!json_object_equal(val, inst))
				verr(v, at, "%s is not %s",
				     json_object_to_json_string(inst),
				     json_object_to_json_string(val));
		} else if (!strcmp(kw, "minimum") || !strcmp(kw, "maximum")) {
			bool min = kw[1] == 'i';

			if ((it == json_type_int || it == json_type_double) &&
			    (min ? json_object_get_double(inst) <
				   json_object_get_double(val) :
				   json_object_get_double(inst) >
				   json_object_get_double(val)))
				verr(v, at, "%s is %s %s", json_object_to_json_string(inst),
				     min ? "below" : "above",
				     json_object_to_json_string(val));
		} else if (!strcmp(kw, "maxLength")) {
			if (it == json_type_string &&
			    utf8_len(json_object_get_string(inst)) >
			    (size_t)json_object_get_int64(val))
				verr(v, at, "longer than %s",
				     json_object_to_json_string(val));
		} else if (!strcmp(kw, "items")) {
			for (i = 0; it == json_type_array &&
				    i < json_object_array_length(inst); i++) {
				snprintf(sub, sizeof(sub), "%.500s[%zu]", at, i);
				validate(v, val, json_object_array_get_idx(inst, i),
					 sub);
			}
		} else if (!strcmp(kw, "format")) {
			const char *f = json_object_get_string(val), *re;

			/* RFC 3339 date-time; absolute URI; an address. */
			if (!strcmp(f, "date-time"))
				re = "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
				     "[Tt]([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)"
				     "(\\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$";
			else if (!strcmp(f, "uri"))
				re = "^[A-Za-z][A-Za-z0-9+.-]*:[^ ]+$";
			else if (!strcmp(f, "email"))
				re = "^[^@ ]+@[^@ ]+$";
			else {
				v->schema_bad = true;
				continue;
			}
			if (it == json_type_string &&
			    !matches(re, json_object_get_string(inst)))
				verr(v, at, "'%s' is not a %s",
				     json_object_get_string(inst), f);
		} else {
			v->schema_bad = true;	/* a keyword not checked */
		}
	}
}

static struct json_object *load_schema(void)
{
	struct json_object *s = json_object_from_file(SCHEMA);

	if (!s)
		fail_msg("%s: %s", SCHEMA, json_util_get_last_err());
	return s;
}

/* Number of schema errors of @doc; prints them. */
static size_t schema_errors(struct json_object *schema, struct json_object *doc,
			    bool print)
{
	struct verrs v = { .root = schema };
	size_t i, n;

	validate(&v, schema, doc, "document");
	assert_false(v.schema_bad);
	for (i = 0; print && i < v.n && i < 20; i++)
		print_message("schema: %s\n", v.msg[i]);
	n = v.n;
	verrs_free(&v);
	return n;
}

/* ---------------------------------------------------------------------- */
/* What the schema cannot say                                               */
/* ---------------------------------------------------------------------- */

/* No null anywhere, every number finite; counts the numbers seen. */
static void walk_values(struct json_object *o, const char *at, size_t *numbers)
{
	char sub[1024];
	size_t i;

	switch (json_object_get_type(o)) {
	case json_type_null:
		fail_msg("%s is null", at);
		break;
	case json_type_double:
		if (!isfinite(json_object_get_double(o)))
			fail_msg("%s is not finite", at);
		(*numbers)++;
		break;
	case json_type_int:
		(*numbers)++;
		break;
	case json_type_object: {
		json_object_object_foreach(o, k, val) {
			snprintf(sub, sizeof(sub), "%.500s.%.400s", at, k);
			walk_values(val, sub, numbers);
		}
		break;
	}
	case json_type_array:
		for (i = 0; i < json_object_array_length(o); i++) {
			snprintf(sub, sizeof(sub), "%.500s[%zu]", at, i);
			walk_values(json_object_array_get_idx(o, i), sub, numbers);
		}
		break;
	default:
		break;
	}
}

static const char *sget(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static struct json_object *oget(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	json_object_object_get_ex(o, key, &v);
	return v;
}

static struct json_object *arr(struct json_object *doc, const char *key)
{
	struct json_object *a = oget(doc, key);

	assert_non_null(a);
	assert_true(json_object_is_type(a, json_type_array));
	return a;
}

static bool has_id(struct json_object *a, const char *id)
{
	size_t i;

	for (i = 0; id && i < json_object_array_length(a); i++)
		if (!strcmp(sget(json_object_array_get_idx(a, i), "id"), id))
			return true;
	return false;
}

/* Ids unique per kind, of the origin, parents present, values sane. */
static void check_structure(struct json_object *doc, const char *origin)
{
	static const char *const kinds[] = { "checkouts", "builds", "tests" };
	size_t k, i, j, numbers = 0, prefix = strlen(origin);

	walk_values(doc, "document", &numbers);
	assert_true(numbers > 0);
	for (k = 0; k < 3; k++) {
		struct json_object *a = arr(doc, kinds[k]);
		size_t n = json_object_array_length(a);

		assert_true(n > 0);
		for (i = 0; i < n; i++) {
			struct json_object *o = json_object_array_get_idx(a, i);
			const char *id = sget(o, "id");

			assert_non_null(id);
			assert_string_equal(sget(o, "origin"), origin);
			if (strncmp(id, origin, prefix) || id[prefix] != ':')
				fail_msg("%s id '%s' not of origin %s", kinds[k],
					 id, origin);
			for (j = 0; j < i; j++)
				if (!strcmp(id, sget(json_object_array_get_idx(a, j),
						     "id")))
					fail_msg("%s id '%s' twice", kinds[k], id);
			if (k == 1 && !has_id(arr(doc, "checkouts"),
					      sget(o, "checkout_id")))
				fail_msg("build %s: no checkout %s", id,
					 sget(o, "checkout_id"));
			if (k == 2 && !has_id(arr(doc, "builds"),
					      sget(o, "build_id")))
				fail_msg("test %s: no build %s", id,
					 sget(o, "build_id"));
		}
	}
}

static struct json_object *find_test(struct json_object *doc, const char *path)
{
	struct json_object *t = arr(doc, "tests");
	size_t i;

	for (i = 0; i < json_object_array_length(t); i++)
		if (!strcmp(sget(json_object_array_get_idx(t, i), "path"), path))
			return json_object_array_get_idx(t, i);
	fail_msg("no test with path %s", path);
	return NULL;
}

/* ---------------------------------------------------------------------- */
/* The cases, recomputed from samples.jsonl                                 */
/* ---------------------------------------------------------------------- */

struct xcase {
	char variant[32], key[160];
	int64_t elapsed[64];
	size_t n;
	bool all_inside;
};

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* The case key as docs and stats.h define it, formatted here on its own. */
static size_t expected_cases(const char *samples, struct xcase *cs, size_t max)
{
	FILE *f = fopen(samples, "r");
	char *line = NULL;
	size_t cap = 0, n = 0, i;

	assert_non_null(f);
	while (getline(&line, &cap, f) > 0) {
		struct json_object *o = json_tokener_parse(line), *v;
		char key[160];
		int64_t len = 64;

		assert_non_null(o);
		snprintf(key, sizeof(key), "%s %s %s T=%" PRId64,
			 sget(o, "transfer"), sget(o, "behaviour"), sget(o, "mode"),
			 json_object_get_int64(oget(o, "timeout_ms")));
		if (!strcmp(sget(o, "behaviour"), "delay"))
			snprintf(key + strlen(key), sizeof(key) - strlen(key),
				 " D=%" PRId64 "us",
				 json_object_get_int64(oget(o, "delay_us")));
		if ((v = oget(o, "length")))
			len = json_object_get_int64(v);
		if (len != 64)
			snprintf(key + strlen(key), sizeof(key) - strlen(key),
				 " len=%" PRId64, len);
		for (i = 0; i < n; i++)
			if (!strcmp(cs[i].variant, sget(o, "variant")) &&
			    !strcmp(cs[i].key, key))
				break;
		if (i == n) {
			assert_true(n < max);
			memset(&cs[n], 0, sizeof(cs[n]));
			snprintf(cs[n].variant, sizeof(cs[n].variant), "%s",
				 sget(o, "variant"));
			snprintf(cs[n].key, sizeof(cs[n].key), "%s", key);
			cs[n].all_inside = true;
			n++;
		}
		assert_true(cs[i].n < 64);
		cs[i].elapsed[cs[i].n++] = json_object_get_int64(oget(o, "elapsed_ns"));
		cs[i].all_inside &= !strcmp(sget(o, "verdict"), "inside");
		json_object_put(o);
	}
	free(line);
	fclose(f);
	for (i = 0; i < n; i++)
		qsort(cs[i].elapsed, cs[i].n, sizeof(int64_t), cmp_i64);
	return n;
}

/* The test of @variant whose misc.case_key is @key. */
static struct json_object *case_test(struct json_object *doc,
				     const char *variant, const char *key)
{
	struct json_object *t = arr(doc, "tests");
	char bid[256];
	size_t i;

	snprintf(bid, sizeof(bid), "hzrig:%s/%s", FIXTURE_ID, variant);
	for (i = 0; i < json_object_array_length(t); i++) {
		struct json_object *o = json_object_array_get_idx(t, i);
		const char *k = sget(oget(o, "misc"), "case_key");

		if (k && !strcmp(k, key) && !strcmp(sget(o, "build_id"), bid))
			return o;
	}
	fail_msg("no test for %s %s", variant, key);
	return NULL;
}

/* ---------------------------------------------------------------------- */
/* Tests                                                                    */
/* ---------------------------------------------------------------------- */

/* The validator is only worth something if it rejects what it should. */
static void test_validator_rejects(void **state)
{
	struct json_object *schema = load_schema(), *doc, *t, *b, *c;

	(void)state;
	doc = export_ok(FIXTURE, NULL, NULL, false);
	assert_int_equal(schema_errors(schema, doc, true), 0);

	t = json_object_array_get_idx(arr(doc, "tests"), 0);
	b = json_object_array_get_idx(arr(doc, "builds"), 0);
	c = json_object_array_get_idx(arr(doc, "checkouts"), 0);
	json_object_object_add(t, "status", json_object_new_string("OK"));
	assert_int_equal(schema_errors(schema, doc, false), 1);
	json_object_object_add(t, "status", json_object_new_string("PASS"));
	json_object_object_del(t, "build_id");
	assert_int_equal(schema_errors(schema, doc, false), 1);
	json_object_object_add(t, "build_id", json_object_new_string("hzrig:x"));
	json_object_object_add(b, "id", json_object_new_string("no-colon"));
	assert_int_equal(schema_errors(schema, doc, false), 1);
	json_object_object_add(b, "id", json_object_new_string("Hzrig:x"));
	assert_int_equal(schema_errors(schema, doc, false), 1);
	json_object_object_add(b, "id", json_object_new_string("hzrig:x"));
	json_object_object_add(b, "config", json_object_new_string("extra"));
	assert_int_equal(schema_errors(schema, doc, false), 1);
	json_object_object_del(b, "config");
	json_object_object_add(c, "patchset_hash", json_object_new_string("abc"));
	assert_int_equal(schema_errors(schema, doc, false), 1);
	json_object_object_add(c, "patchset_hash", json_object_new_string(""));
	json_object_object_add(t, "path", json_object_new_string("a b"));
	assert_int_equal(schema_errors(schema, doc, false), 1);
	json_object_object_add(t, "path", json_object_new_string("a.b"));
	json_object_object_add(t, "start_time", json_object_new_string("2026-12-03 10:20"));
	assert_int_equal(schema_errors(schema, doc, false), 1);
	json_object_object_add(t, "start_time", json_object_new_string("2026-12-03T10:20:31+00:00"));
	json_object_object_add(oget(t, "environment"), "host",
			       json_object_new_string("x"));
	assert_int_equal(schema_errors(schema, doc, false), 1);
	json_object_object_del(oget(t, "environment"), "host");
	json_object_object_add(t, "number", json_object_new_object());
	assert_int_equal(schema_errors(schema, doc, false), 1);
	json_object_object_add(oget(t, "number"), "value", json_object_new_double(1.5));
	json_object_object_add(oget(t, "number"), "prefix", json_object_new_string("si"));
	assert_int_equal(schema_errors(schema, doc, false), 1);
	json_object_object_del(oget(t, "number"), "prefix");
	json_object_object_add(oget(doc, "version"), "minor", json_object_new_int(5));
	assert_int_equal(schema_errors(schema, doc, false), 1);
	json_object_object_add(oget(doc, "version"), "minor", json_object_new_int(4));
	json_object_object_add(doc, "runs", json_object_new_array());
	assert_int_equal(schema_errors(schema, doc, false), 1);
	json_object_object_del(doc, "runs");
	assert_int_equal(schema_errors(schema, doc, true), 0);
	json_object_put(doc);
	json_object_put(schema);
}

static void test_fixture_valid(void **state)
{
	struct json_object *schema = load_schema(), *doc, *v;

	(void)state;
	doc = export_ok(FIXTURE, NULL, NULL, true);
	assert_int_equal(schema_errors(schema, doc, true), 0);
	check_structure(doc, HZRIG_KCIDB_ORIGIN);
	v = oget(doc, "version");
	assert_int_equal(json_object_get_int(oget(v, "major")), HZRIG_KCIDB_MAJOR);
	assert_int_equal(json_object_get_int(oget(v, "minor")), HZRIG_KCIDB_MINOR);
	json_object_put(doc);
	json_object_put(schema);
}

/* Every case of the fixture, with the verdict and median the samples give. */
static void test_fixture_cases(void **state)
{
	static struct xcase cs[64];
	struct json_object *doc, *builds, *co;
	size_t n, i, per_variant[2] = { 0 };
	bool saw_fail = false;

	(void)state;
	n = expected_cases(FIXTURE "/samples.jsonl", cs, 64);
	assert_true(n > 4);
	doc = export_ok(FIXTURE, NULL, NULL, false);
	for (i = 0; i < n; i++) {
		struct json_object *t = case_test(doc, cs[i].variant, cs[i].key);
		struct json_object *num = oget(t, "number"), *misc = oget(t, "misc");
		int64_t median = cs[i].elapsed[(cs[i].n + 1) / 2 - 1];

		per_variant[!strcmp(cs[i].variant, "hz-1000")]++;
		assert_string_equal(sget(t, "status"),
				    cs[i].all_inside ? "PASS" : "FAIL");
		saw_fail |= !cs[i].all_inside;
		assert_non_null(num);
		assert_string_equal(sget(num, "unit"), "ms");
		/* Nearest-rank median (stats.h), in ms, to the nanosecond. */
		assert_true(fabs(json_object_get_double(oget(num, "value")) -
				 median / 1e6) < 1e-9);
		assert_int_equal(json_object_get_int64(oget(misc, "samples")),
				 cs[i].n);
		assert_true(fabs(json_object_get_double(oget(misc, "max_ms")) -
				 cs[i].elapsed[cs[i].n - 1] / 1e6) < 1e-9);
		assert_non_null(oget(misc, "p5_ms"));
		assert_non_null(oget(misc, "p95_ms"));
		assert_non_null(oget(misc, "window_lo_ms"));
		assert_non_null(oget(misc, "inside_share"));
		assert_non_null(oget(t, "start_time"));
		assert_string_equal(sget(oget(oget(t, "environment"), "misc"),
					 "clocksource"), "tsc");
	}
	/* The fixture has a real late sample: its case must show FAIL. */
	assert_true(saw_fail);
	/* Per variant: its cases and the five variant checks, nothing else. */
	assert_int_equal(json_object_array_length(arr(doc, "tests")),
			 per_variant[0] + per_variant[1] + 2 * 5);
	find_test(doc, "hzrig.hz-100.boot");
	find_test(doc, "hzrig.hz-1000.capture");
	assert_string_equal(sget(find_test(doc, "hzrig.hz-1000.noise"), "status"),
			    "DONE");
	assert_string_equal(sget(find_test(doc, "hzrig.hz-100.jiffy_rate"),
				 "status"), "PASS");

	builds = arr(doc, "builds");
	assert_int_equal(json_object_array_length(builds), 2);
	for (i = 0; i < 2; i++) {
		struct json_object *b = json_object_array_get_idx(builds, i);

		assert_string_equal(sget(b, "architecture"), "x86_64");
		assert_string_equal(sget(b, "config_name"),
				    strrchr(sget(b, "id"), '/') + 1);
		assert_true(json_object_get_boolean(oget(b, "valid")));
		assert_null(oget(b, "config_url"));
		assert_string_equal(sget(b, "start_time"), "2026-12-03T10:20:31+00:00");
	}
	/* Both unpatched: one checkout, known to carry no patches. */
	assert_int_equal(json_object_array_length(arr(doc, "checkouts")), 1);
	co = json_object_array_get_idx(arr(doc, "checkouts"), 0);
	assert_string_equal(sget(co, "id"), "hzrig:" FIXTURE_ID);
	assert_string_equal(sget(co, "patchset_hash"), "");
	assert_string_equal(sget(oget(co, "misc"), "tree_describe"),
			    "linux-source-6.1 6.1.192-3");
	json_object_put(doc);
}

/* Same run, same ids, same bytes: wherever the directory is, via symlinks. */
static void test_stable(void **state)
{
	struct json_object *a, *b;
	struct tmprun *r = *state;
	char link[600], *ta;

	a = export_ok(FIXTURE, NULL, NULL, false);
	ta = strdup(json_object_to_json_string(a));
	b = export_ok(FIXTURE, NULL, NULL, false);
	assert_string_equal(ta, json_object_to_json_string(b));
	json_object_put(b);

	snprintf(link, sizeof(link), "%s/latest", r->top);
	assert_int_equal(symlink(r->dir, link), 0);
	b = export_ok(link, NULL, NULL, false);
	assert_string_equal(ta, json_object_to_json_string(b));
	json_object_put(b);
	free(ta);
	json_object_put(a);
}

static void test_origin(void **state)
{
	struct json_object *schema = load_schema(), *doc;

	(void)state;
	doc = export_ok(FIXTURE, "lab_7", NULL, false);
	check_structure(doc, "lab_7");
	assert_int_equal(schema_errors(schema, doc, true), 0);
	json_object_put(doc);

	assert_false(hzrig_kcidb_origin_ok("Lab-7"));
	assert_false(hzrig_kcidb_origin_ok(""));
	export_fails(FIXTURE, "lab 7", NULL, "origin 'lab 7'", NULL);
	json_object_put(schema);
}

/* A broken line anywhere: nothing exported, the error names file:line. */
static void test_corrupt_samples(void **state)
{
	struct tmprun *r = *state;

	edit_line(r, "samples.jsonl", 5, "{\"schema\":1,\"variant\":\"hz-100\",");
	export_fails(r->dir, NULL, NULL, "samples.jsonl:5: ", "nothing written");

	tmprun_renew(r);
	edit_line(r, "samples.jsonl", 9,
		  "{\"schema\":1,\"variant\":\"hz-100\",\"hz\":100,\"transfer\":\"bulk-in\","
		  "\"behaviour\":\"nak\",\"mode\":\"ms\",\"timeout_ms\":\"100\","
		  "\"timeout_arg\":100,\"status\":-110,\"elapsed_ns\":1,\"case\":99,"
		  "\"rep\":0,\"verdict\":\"inside\"}");
	export_fails(r->dir, NULL, NULL, "samples.jsonl:9: ", "timeout_ms");
}

static void test_corrupt_run_json(void **state)
{
	struct tmprun *r = *state;

	/* Line 4 of the pretty-printed file is "hz": a second comma there. */
	edit(r, "hz-100/run.json", "\"hz\": 100,", "\"hz\": 100,,");
	export_fails(r->dir, NULL, NULL, "hz-100/run.json:4: ", NULL);

	/* Valid JSON, a field of the wrong type that only the export reads. */
	tmprun_renew(r);
	edit(r, "hz-1000/run.json", "\"collected_at\": \"2026-12-03T",
	     "\"collected_at\": \"yesterday ");
	export_fails(r->dir, NULL, NULL,
		     "hz-1000/run.json: field \"collected_at\"", NULL);
}

/*
 * Kernel reports: one issue per distinct title, one incident per report
 * tied to its variant's build and console test; the console test FAILs
 * where there were reports and PASSes where the console was clean.
 */
static void test_findings(void **state)
{
	struct json_object *schema = load_schema(), *doc, *t, *a, *o;
	struct tmprun *r = *state;
	const char *issue;
	size_t i;

	edit(r, "hz-100/run.json", "\"schema\": 1,",
	     "\"schema\": 1, \"findings\": ["
	     "{\"title\": \"KASAN: use-after-free Read in hzrig_heartbeat\","
	     " \"kind\": \"KASAN\", \"where\": null,"
	     " \"running\": \"scenario unbind 8/100\", \"console_line\": 152,"
	     " \"truncated\": false, \"excerpt\": \"BUG: KASAN\"},"
	     "{\"title\": \"KASAN: use-after-free Read in hzrig_heartbeat\","
	     " \"kind\": \"KASAN\", \"running\": \"scenario unbind 9/100\","
	     " \"console_line\": 300, \"truncated\": true},"
	     "{\"title\": \"WARNING in dummy_free_request\", \"kind\": \"WARNING\","
	     " \"where\": \"drivers/usb/gadget/udc/dummy_hcd.c:711\","
	     " \"running\": \"\", \"console_line\": 9, \"truncated\": false}],");
	edit(r, "hz-1000/run.json", "\"schema\": 1,",
	     "\"schema\": 1, \"findings\": [],");
	doc = export_ok(r->dir, NULL, NULL, false);
	assert_int_equal(schema_errors(schema, doc, true), 0);
	check_structure(doc, HZRIG_KCIDB_ORIGIN);
	t = find_test(doc, "hzrig.hz-100.console");
	assert_string_equal(sget(t, "status"), "FAIL");
	assert_non_null(strstr(sget(t, "comment"), "3 kernel reports"));
	t = find_test(doc, "hzrig.hz-1000.console");
	assert_string_equal(sget(t, "status"), "PASS");
	a = arr(doc, "issues");
	assert_int_equal(json_object_array_length(a), 2);
	issue = sget(json_object_array_get_idx(a, 0), "id");
	assert_true(matches("^hzrig:finding-[0-9a-f]{16}$", issue));
	assert_string_equal(sget(json_object_array_get_idx(a, 0), "report_subject"),
			    "KASAN: use-after-free Read in hzrig_heartbeat");
	a = arr(doc, "incidents");
	assert_int_equal(json_object_array_length(a), 3);
	for (i = 0; i < 3; i++) {
		o = json_object_array_get_idx(a, i);
		assert_true(has_id(arr(doc, "builds"), sget(o, "build_id")));
		assert_true(has_id(arr(doc, "tests"), sget(o, "test_id")));
		assert_non_null(strstr(sget(o, "test_id"), "/hz-100/console"));
	}
	/* the two reports of one title are incidents of one issue */
	assert_string_equal(sget(json_object_array_get_idx(a, 0), "issue_id"), issue);
	assert_string_equal(sget(json_object_array_get_idx(a, 1), "issue_id"), issue);
	assert_string_not_equal(sget(json_object_array_get_idx(a, 2), "issue_id"), issue);
	json_object_put(doc);
	/* a run collected before the scanner: no console test, no issues */
	doc = export_ok(FIXTURE, NULL, NULL, true);
	t = arr(doc, "tests");
	for (i = 0; i < json_object_array_length(t); i++)
		assert_null(strstr(sget(json_object_array_get_idx(t, i), "path"),
				   ".console"));
	assert_false(json_object_object_get_ex(doc, "issues", NULL));
	json_object_put(doc);
	json_object_put(schema);
}

/* A crashed boot: its cases ERROR, the boot FAIL, the other variant as is. */
static void test_boot_crashed(void **state)
{
	struct json_object *schema = load_schema(), *doc, *t;
	struct tmprun *r = *state;
	size_t i;

	edit(r, "hz-100/run.json", "\"boot_status\": \"ok\"",
	     "\"boot_status\": \"crashed\"");
	edit(r, "hz-100/run.json", "\"crash\": \"\"",
	     "\"crash\": \"Kernel panic - not syncing: Fatal exception\"");
	doc = export_ok(r->dir, NULL, NULL, false);
	assert_int_equal(schema_errors(schema, doc, true), 0);
	t = find_test(doc, "hzrig.hz-100.boot");
	assert_string_equal(sget(t, "status"), "FAIL");
	assert_non_null(strstr(sget(t, "comment"), "Kernel panic"));
	t = arr(doc, "tests");
	for (i = 0; i < json_object_array_length(t); i++) {
		struct json_object *o = json_object_array_get_idx(t, i);

		if (!sget(oget(o, "misc"), "case_key"))
			continue;
		if (strstr(sget(o, "build_id"), "/hz-1000"))
			assert_string_not_equal(sget(o, "status"), "ERROR");
		else
			assert_string_equal(sget(o, "status"), "ERROR");
	}
	json_object_put(doc);
	json_object_put(schema);
}

/* Timings refused (jiffy clocksource): ERROR, and no number to mislead. */
static void test_refused(void **state)
{
	struct json_object *doc, *t;
	struct tmprun *r = *state;

	edit(r, "hz-1000/run.json", "\"refused\": null",
	     "\"refused\": \"clocksource refined-jiffies has jiffy resolution\"");
	doc = export_ok(r->dir, NULL, NULL, false);
	t = find_test(doc, "hzrig.hz-1000.clocksource");
	assert_string_equal(sget(t, "status"), "ERROR");
	t = find_test(doc, "hzrig.hz-1000.bulk-in.nak.ms.T100");
	assert_string_equal(sget(t, "status"), "ERROR");
	assert_null(oget(t, "number"));
	t = find_test(doc, "hzrig.hz-100.bulk-in.nak.ms.T100");
	assert_string_equal(sget(t, "status"), "PASS");
	assert_non_null(oget(t, "number"));
	json_object_put(doc);
}

/* Delay and length are part of the case, in the key and in the path. */
static void test_case_key_parts(void **state)
{
	struct json_object *doc, *t;
	struct tmprun *r = *state;
	char *text, path[1024], *p, *line, *end;
	int changed = 0;

	/* Give the hz-100 samples of case 46 a 77-byte transfer. */
	snprintf(path, sizeof(path), "%s/samples.jsonl", r->dir);
	text = read_file(path, NULL);
	for (line = text; *line; line = end + 1) {
		end = strchr(line, '\n');
		assert_non_null(end);
		*end = '\0';
		if (strstr(line, "\"variant\":\"hz-100\"") &&
		    strstr(line, "\"case\":46,") &&
		    (p = strstr(line, "\"length\":64,"))) {
			memcpy(p, "\"length\":77,", 12);
			changed++;
		}
		*end = '\n';
	}
	assert_true(changed > 0);
	write_file(path, text);
	free(text);
	doc = export_ok(r->dir, NULL, NULL, false);
	t = find_test(doc, "hzrig.hz-100.bulk-in.delay.ms.T50.D5000us.len77");
	assert_string_equal(sget(oget(t, "misc"), "case_key"),
			    "bulk-in delay ms T=50 D=5000us len=77");
	assert_string_equal(sget(t, "id"),
			    "hzrig:" FIXTURE_ID "/hz-100/bulk-in.delay.ms.T50.D5000us.len77");
	find_test(doc, "hzrig.hz-1000.bulk-in.delay.ms.T50.D5000us");
	json_object_put(doc);
}

/*
 * A patched variant gets its own checkout, with kcidb-io's patchset_hash:
 * sha256 over the patches' sha256 lines. The expected value is sha256sum's:
 * the patches are "abc" (FIPS 180-2's first vector) and the empty file.
 */
#define SHA_ABC	"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
#define SHA_NIL	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define SHA_SET	"ff481ce4c9482a1350469a8ff263915d6a478123e3a0c03f6eba5cb3e38a150f"

static void test_patches(void **state)
{
	struct json_object *schema = load_schema(), *doc, *co, *b;
	char pdir[600], p[700];
	struct tmprun *r = *state;
	size_t i;

	edit(r, "hz-1000/build.json", "\"patches\": []",
	     "\"patches\": [\"0001-a.patch\", \"0002-b.patch\"]");
	snprintf(pdir, sizeof(pdir), "%s/patches", r->top);
	assert_int_equal(mkdir(pdir, 0755), 0);
	snprintf(p, sizeof(p), "%s/0001-a.patch", pdir);
	write_file(p, "abc");
	snprintf(p, sizeof(p), "%s/0002-b.patch", pdir);
	write_file(p, "");

	doc = export_ok(r->dir, NULL, pdir, true);
	assert_int_equal(schema_errors(schema, doc, true), 0);
	check_structure(doc, "hzrig");
	assert_int_equal(json_object_array_length(arr(doc, "checkouts")), 2);
	co = NULL;
	for (i = 0; i < 2; i++) {
		struct json_object *c = json_object_array_get_idx(arr(doc, "checkouts"), i);

		if (strchr(sget(c, "id"), '+'))
			co = c;
		else
			assert_string_equal(sget(c, "id"), "hzrig:" FIXTURE_ID);
	}
	assert_non_null(co);
	assert_string_equal(sget(co, "id"),
			    "hzrig:" FIXTURE_ID "+0001-a.patch+0002-b.patch");
	assert_string_equal(sget(co, "patchset_hash"), SHA_SET);
	for (i = 0; i < 2; i++) {
		b = json_object_array_get_idx(arr(doc, "builds"), i);
		assert_string_equal(sget(b, "checkout_id"),
				    strstr(sget(b, "id"), "hz-1000") ?
				    sget(co, "id") : "hzrig:" FIXTURE_ID);
	}
	json_object_put(doc);

	/* Digests recorded at build time win over the files now. */
	edit(r, "hz-1000/build.json", "\"patches\":",
	     "\"patch_sha256\": [\"" SHA_ABC "\", \"" SHA_NIL "\"], \"patches\":");
	snprintf(p, sizeof(p), "%s/0001-a.patch", pdir);
	write_file(p, "changed since the build");
	doc = export_ok(r->dir, NULL, pdir, false);
	co = json_object_array_get_idx(arr(doc, "checkouts"),
				       strchr(sget(json_object_array_get_idx(
					       arr(doc, "checkouts"), 0), "id"), '+') ? 0 : 1);
	assert_string_equal(sget(co, "patchset_hash"), SHA_SET);
	json_object_put(doc);

	/* No digest to be had: warned, exported without a hash. */
	edit(r, "hz-1000/build.json",
	     "\"patch_sha256\": [\"" SHA_ABC "\", \"" SHA_NIL "\"], ", "");
	snprintf(p, sizeof(p), "%s/0002-b.patch", pdir);
	unlink(p);
	doc = export(r->dir, NULL, pdir);
	assert_non_null(doc);
	assert_contains(err_text(), "0002-b.patch");
	assert_contains(err_text(), "without patchset_hash");
	err_free();
	for (i = 0; i < 2; i++) {
		co = json_object_array_get_idx(arr(doc, "checkouts"), i);
		if (strchr(sget(co, "id"), '+'))
			assert_null(oget(co, "patchset_hash"));
	}
	assert_int_equal(schema_errors(schema, doc, true), 0);
	json_object_put(doc);

	/* A malformed digest is an error in build.json, not a guess. */
	edit(r, "hz-1000/build.json", "\"patches\":",
	     "\"patch_sha256\": [\"xyz\", \"" SHA_NIL "\"], \"patches\":");
	export_fails(r->dir, NULL, pdir,
		     "hz-1000/build.json: field \"patch_sha256[0]\"", NULL);
	json_object_put(schema);
}


/*
 * Two kernel trees in one run (hz-1000 built from linux-source-6.12): a
 * checkout per tree, each id naming its line, the Debian package as the
 * tree's name (where build.json recorded it), each build on its own tree's
 * checkout.
 */
static void test_trees(void **state)
{
	struct json_object *schema = load_schema(), *doc, *co, *b;
	struct tmprun *r = *state;
	bool seen[2] = { false, false };
	size_t i;

	edit(r, "hz-1000/run.json", "\"release\": \"6.1.192\"",
	     "\"release\": \"6.12.118\"");
	edit(r, "hz-1000/build.json", "linux-source-6.1 6.1.192-3",
	     "linux-source-6.12 6.12.118-1~deb12u1");
	doc = export_ok(r->dir, NULL, NULL, true);
	assert_int_equal(schema_errors(schema, doc, true), 0);
	check_structure(doc, "hzrig");
	assert_int_equal(json_object_array_length(arr(doc, "checkouts")), 2);
	for (i = 0; i < 2; i++) {
		const char *id;
		bool six12;

		co = json_object_array_get_idx(arr(doc, "checkouts"), i);
		id = sget(co, "id");
		six12 = !strcmp(id, "hzrig:" FIXTURE_ID "@6.12");
		if (!six12)
			assert_string_equal(id, "hzrig:" FIXTURE_ID "@6.1");
		seen[six12] = true;
		/* hz-100 has no build.json: its tree is not recorded */
		if (six12)
			assert_string_equal(sget(co, "tree_name"), "linux-source-6.12");
		else
			assert_null(oget(co, "tree_name"));
		assert_string_equal(sget(oget(co, "misc"), "kernel_line"),
				    six12 ? "6.12" : "6.1");
	}
	assert_true(seen[0] && seen[1]);
	for (i = 0; i < 2; i++) {
		b = json_object_array_get_idx(arr(doc, "builds"), i);
		assert_string_equal(sget(b, "checkout_id"),
				    strstr(sget(b, "id"), "hz-1000") ?
				    "hzrig:" FIXTURE_ID "@6.12" :
				    "hzrig:" FIXTURE_ID "@6.1");
	}
	json_object_put(doc);
	json_object_put(schema);
}

/* The command: options refused, output written whole or not at all. */
static void test_command(void **state)
{
	struct json_object *doc, *again;
	struct tmprun *r = *state;
	char out[700], *text, *now;
	char a0[] = "report", a1[] = "--kcidb", a2[] = "-o", a4[] = FIXTURE;
	char bad_origin[] = "--origin=Bad", bad_url[] = "--patch-url=nope";
	char other[] = "--kcidb=/tmp/x.json";

	snprintf(out, sizeof(out), "%s/export.json", r->top);
	{
		char *argv[] = { a0, a1, a2, out, a4, NULL };

		assert_int_equal(cmd_report_kcidb(5, argv), 0);
	}
	again = json_object_from_file(out);
	assert_non_null(again);
	doc = export_ok(FIXTURE, NULL, NULL, false);
	/* Text, not values: 100 reads back as an int, was written as a number. */
	text = strdup(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN));
	assert_string_equal(text, json_object_to_json_string_ext(
		again, JSON_C_TO_STRING_PLAIN));
	free(text);
	json_object_put(doc);
	json_object_put(again);

	/* A broken run: exit 2, the earlier export untouched. */
	text = read_file(out, NULL);
	edit_line(r, "samples.jsonl", 3, "garbage");
	{
		char *argv[] = { a0, a1, a2, out, r->dir, NULL };

		assert_int_equal(cmd_report_kcidb(5, argv), 2);
	}
	now = read_file(out, NULL);
	assert_string_equal(now, text);
	free(now);
	free(text);
	{
		char *argv[] = { a0, a1, bad_origin, a4, NULL };

		assert_int_equal(cmd_report_kcidb(4, argv), 2);
	}
	{
		char *argv[] = { a0, a1, bad_url, a4, NULL };

		assert_int_equal(cmd_report_kcidb(4, argv), 2);
	}
	{
		char *argv[] = { a0, other, a2, out, a4, NULL };

		assert_int_equal(cmd_report_kcidb(5, argv), 2);
	}
	{
		char *argv[] = { a0, a1, NULL };

		assert_int_equal(cmd_report_kcidb(2, argv), 2);
	}
}

/* The tests that change a run get a copy of their own. */
#define RUN_TEST(f)	cmocka_unit_test_setup_teardown(f, tmprun_setup, \
							tmprun_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_validator_rejects),
		cmocka_unit_test(test_fixture_valid),
		cmocka_unit_test(test_fixture_cases),
		RUN_TEST(test_stable),
		cmocka_unit_test(test_origin),
		RUN_TEST(test_corrupt_samples),
		RUN_TEST(test_corrupt_run_json),
		RUN_TEST(test_boot_crashed),
		RUN_TEST(test_findings),
		RUN_TEST(test_refused),
		RUN_TEST(test_case_key_parts),
		RUN_TEST(test_patches),
		RUN_TEST(test_trees),
		RUN_TEST(test_command),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
