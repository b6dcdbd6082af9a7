/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output helpers shared by the history commands: an aligned text table
 * (text columns left, numbers right, two spaces apart), CSV fields quoted
 * as RFC 4180 wants, and the short names their JSON output is built with.
 */
#ifndef HZRIG_TABLE_H
#define HZRIG_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "stats.h"	/* HZRIG_ABSENT */

struct hzrig_table {
	size_t ncols;
	const char *align;	/* per column 'l' or 'r' */
	char **cell;		/* row-major, strdup'ed */
	size_t nrows, cap;
	int oom;
};

/* @align: one 'l' or 'r' per column, e.g. "llrr". */
void hzrig_table_init(struct hzrig_table *t, const char *align);

/* Append a row of t->ncols cells (NULL cells print empty). */
void hzrig_table_row(struct hzrig_table *t, const char *const *cells);

/* Print with @indent before every row; -1 if a row was lost to memory. */
int hzrig_table_print(const struct hzrig_table *t, FILE *out,
		      const char *indent);

void hzrig_table_free(struct hzrig_table *t);

/* One CSV field: quoted when it holds a comma, quote or line break. */
void hzrig_csv_field(FILE *out, const char *s, int last);

/* --format of the history commands. */
enum hzrig_format { HZRIG_FMT_TABLE, HZRIG_FMT_CSV, HZRIG_FMT_JSON };

/* "table", "csv" or "json" (only those @allowed, a mask of 1 << format). */
int hzrig_format_parse(const char *s, unsigned int allowed,
		       enum hzrig_format *f);

#define HZRIG_FMT_ALL	((1u << HZRIG_FMT_TABLE) | (1u << HZRIG_FMT_CSV) | \
			 (1u << HZRIG_FMT_JSON))

/* json-c's names are long; these keep the object builders readable. */
static inline void put(struct json_object *o, const char *key,
		       struct json_object *v)
{
	json_object_object_add(o, key, v);
}

static inline struct json_object *jstr(const char *s)
{
	return json_object_new_string(s);
}

static inline struct json_object *ji64(int64_t v)
{
	return json_object_new_int64(v);
}

/*
 * @ns as a number of ms written with exactly the ns digits (not
 * 13.742356000000001); NULL, a JSON null, for HZRIG_ABSENT.
 */
static inline struct json_object *jms(int64_t ns)
{
	char b[32];

	if (ns == HZRIG_ABSENT)
		return NULL;
	snprintf(b, sizeof(b), "%.6f", ns / 1e6);
	return json_object_new_double_s(ns / 1e6, b);
}

/* @o pretty-printed on a line of its own. */
static inline void json_print(struct json_object *o, FILE *out)
{
	fprintf(out, "%s\n", json_object_to_json_string_ext(o,
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
		JSON_C_TO_STRING_NOSLASHESCAPE));
}

#endif /* HZRIG_TABLE_H */
