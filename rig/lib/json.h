/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JSON values as every writer of the host tool builds them (json-c's names
 * are long): compare and history's --format json, collect's run files and
 * the KCIDB export. Numbers of milliseconds come in two spellings, both
 * with exactly the nanosecond digits (never 13.742356000000001): fixed six
 * decimals for the tables' JSON, and trimmed for KCIDB.
 */
#ifndef HZRIG_JSON_H
#define HZRIG_JSON_H

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/io.h"
#include "lib/util.h"

/* What a JSON value is, for messages: "a string", "an integer", "null". */
static inline const char *hzrig_json_what(struct json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_null: return "null";
	case json_type_boolean: return "a boolean";
	case json_type_double: return "a fractional number";
	case json_type_int: return "an integer";
	case json_type_object: return "an object";
	case json_type_array: return "an array";
	case json_type_string: return "a string";
	}
	return "?";
}

/*
 * The integer JSON value @v (of type int) holds, in *@out, when it is one
 * and lies in @lo..@hi. json-c clamps what does not fit at INT64_MAX: a
 * clamped value is not one.
 */
static inline bool hzrig_json_int_in(struct json_object *v, int64_t lo,
				     int64_t hi, int64_t *out)
{
	int64_t x;

	errno = 0;
	x = json_object_get_int64(v);
	if (errno ||
	    (x == INT64_MAX && json_object_get_uint64(v) != (uint64_t)INT64_MAX) ||
	    x < lo || x > hi)
		return false;
	*out = x;
	return true;
}

static inline void hzrig_json_put(struct json_object *o, const char *key,
				  struct json_object *v)
{
	json_object_object_add(o, key, v);
}

/*
 * A string as JSON holds it: UTF-8, with what is not (a guest's console,
 * a file name) replaced by U+FFFD, so every reader can parse the file.
 */
static inline struct json_object *hzrig_json_str(const char *s)
{
	size_t n = strlen(s), room, i;
	struct json_object *o;
	char *clean;

	/* ASCII, as nearly every string is, needs no copy */
	for (i = 0; i < n && !((unsigned char)s[i] & 0x80); i++)
		;
	if (i == n)
		return json_object_new_string(s);
	if (n > (SIZE_MAX - 1) / 3)
		return NULL;
	room = 3 * n + 1;
	clean = malloc(room);
	if (!clean)
		return NULL;
	o = json_object_new_string(hzrig_utf8_clean(clean, room, s, n));
	free(clean);
	return o;
}

static inline struct json_object *hzrig_json_int(int64_t v)
{
	return json_object_new_int64(v);
}

/* A number written as @text, whose value is what a reader will parse. */
static inline struct json_object *hzrig_json_text(const char *text)
{
	return json_object_new_double_s(strtod(text, NULL), text);
}

/* "1.500000" -> "1.5", "2.000" -> "2". */
static inline void hzrig_json_trim_zeros(char *s)
{
	char *dot = strchr(s, '.'), *e;

	if (!dot)
		return;
	e = s + strlen(s) - 1;
	while (e > dot && *e == '0')
		*e-- = '\0';
	if (e == dot)
		*e = '\0';
}

/* @ns in ms with six decimals; NULL, a JSON null, for HZRIG_ABSENT. */
static inline struct json_object *hzrig_json_ms(int64_t ns)
{
	char b[32];

	if (ns == HZRIG_ABSENT)
		return NULL;
	snprintf(b, sizeof(b), "%.6f", ns / 1e6);
	return json_object_new_double_s(ns / 1e6, b);
}

/* @ns in ms, exactly, trailing zeros trimmed (KCIDB). */
static inline struct json_object *hzrig_json_ms_trim(int64_t ns)
{
	uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
	char buf[48];

	snprintf(buf, sizeof(buf), "%s%" PRIu64 ".%06" PRIu64, ns < 0 ? "-" : "",
		 a / 1000000, a % 1000000);
	hzrig_json_trim_zeros(buf);
	return hzrig_json_text(buf);
}

/* A finite double with @decimals decimals, trimmed; NULL if not finite. */
static inline struct json_object *hzrig_json_number(double v, int decimals)
{
	char buf[64];

	if (!isfinite(v))
		return NULL;
	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	hzrig_json_trim_zeros(buf);
	if (!strcmp(buf, "-0"))
		snprintf(buf, sizeof(buf), "0");
	return hzrig_json_text(buf);
}

/* @o pretty-printed on a line of its own. */
static inline void hzrig_json_print(struct json_object *o, FILE *out)
{
	fprintf(out, "%s\n", json_object_to_json_string_ext(o,
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
		JSON_C_TO_STRING_NOSLASHESCAPE));
}

#endif /* HZRIG_JSON_H */
