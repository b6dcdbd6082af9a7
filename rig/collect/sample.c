// SPDX-License-Identifier: GPL-2.0
/*
 * The sample's field table (sample.h) made into data, and the two loops
 * over it that JSON needs: read a record, write one.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "collect/sample.h"
#include "lib/json.h"
#include "model/model.h"
#include "plan/plan.h"

#define INT_FIELD(m, k, l, h, fl)					\
	{ .member = #m, .key = k, .off = offsetof(struct hzrig_run_sample, m), \
	  .size = sizeof(int64_t), .lo = l, .hi = h, .flags = fl },
#define TEXT_FIELD(m, k, sz, fl, chk, w)				\
	{ .member = #m, .key = k, .text = true,				\
	  .off = offsetof(struct hzrig_run_sample, m), .size = sz,	\
	  .flags = fl, .check = chk, .what = w },

const struct hzrig_sample_field hzrig_sample_fields[] = {
	HZRIG_SAMPLE_FIELDS(INT_FIELD, TEXT_FIELD)
};

const size_t hzrig_nsample_fields =
	sizeof(hzrig_sample_fields) / sizeof(hzrig_sample_fields[0]);

int hzrig_sample_any(const char *s)
{
	(void)s;
	return 0;
}

void hzrig_sample_init(struct hzrig_run_sample *s)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < hzrig_nsample_fields; i++)
		if (!hzrig_sample_fields[i].text)
			*hzrig_sample_int(s, &hzrig_sample_fields[i]) = HZRIG_ABSENT;
}

/* One field of @o into @s: NULL when it is fine, else what is wrong. */
static const char *read_field(struct json_object *o, unsigned int need,
			      const struct hzrig_sample_field *f,
			      struct hzrig_run_sample *s, char *why, size_t len)
{
	struct json_object *v;
	const char *str;

	if (!json_object_object_get_ex(o, f->key, &v))
		return f->flags & need ? "missing" : NULL;
	if (!v) {
		if (!(f->flags & need))
			return NULL;	/* null: absent */
		return f->text ? "is null, expected a string" :
				 "is null, expected an integer";
	}
	if (f->text) {
		if (!json_object_is_type(v, json_type_string)) {
			snprintf(why, len, "is %s, expected a string",
				 hzrig_json_what(v));
			return why;
		}
		str = json_object_get_string(v);
		if ((size_t)json_object_get_string_len(v) >= f->size ||
		    strlen(str) != (size_t)json_object_get_string_len(v)) {
			snprintf(why, len, "longer than %zu bytes or holds a NUL",
				 f->size - 1);
			return why;
		}
		if (!*str)
			return "empty";
		if (f->check(str) < 0) {
			snprintf(why, len, "'%s' is not %s", str, f->what);
			return why;
		}
		snprintf(hzrig_sample_text(s, f), f->size, "%s", str);
		return NULL;
	}
	if (!json_object_is_type(v, json_type_int)) {
		snprintf(why, len, "is %s, expected an integer",
			 hzrig_json_what(v));
		return why;
	}
	if (!hzrig_json_int_in(v, f->lo, f->hi, hzrig_sample_int(s, f))) {
		snprintf(why, len, "%s out of range %" PRId64 "..%" PRId64,
			 json_object_to_json_string(v), f->lo, f->hi);
		return why;
	}
	return NULL;
}

unsigned int hzrig_sample_from_json(struct json_object *o, unsigned int need,
				    struct hzrig_run_sample *s,
				    void (*report)(void *arg, const char *msg),
				    void *arg)
{
	const struct hzrig_sample_field *f;
	unsigned int errors = 0;
	char why[256], msg[320];
	const char *bad;
	size_t i;

	for (i = 0; i < hzrig_nsample_fields; i++) {
		f = &hzrig_sample_fields[i];
		if (need == HZRIG_SF_GREQ && !(f->flags & HZRIG_SF_GUEST))
			continue;
		bad = read_field(o, need, f, s, why, sizeof(why));
		if (!bad)
			continue;
		snprintf(msg, sizeof(msg), "field \"%s\": %s", f->key, bad);
		report(arg, msg);
		errors++;
	}
	return errors;
}

void hzrig_sample_to_json(const struct hzrig_run_sample *s,
			  struct json_object *o)
{
	const struct hzrig_sample_field *f;
	const char *p;
	size_t i;

	for (i = 0; i < hzrig_nsample_fields; i++) {
		f = &hzrig_sample_fields[i];
		p = (const char *)s + f->off;
		if (!hzrig_sample_has(s, f)) {
			if (f->flags & HZRIG_SF_NULL)
				json_object_object_add(o, f->key, NULL);
			continue;
		}
		json_object_object_add(o, f->key, f->text ? hzrig_json_str(p) :
				       hzrig_json_int(*(const int64_t *)p));
	}
}
