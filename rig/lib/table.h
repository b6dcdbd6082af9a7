/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output helpers shared by the history commands: an aligned text table
 * (text columns left, numbers right, two spaces apart), CSV fields quoted
 * as RFC 4180 wants, and the --format option; their JSON is lib/json.h.
 */
#ifndef HZRIG_TABLE_H
#define HZRIG_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "lib/json.h"

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

/*
 * --format as an option of lib/opts.h (HZRIG_OPT_F): table, csv or json,
 * or table or json where CSV has no meaning; @dst an enum hzrig_format.
 */
int hzrig_format_opt(const char *cmd, const char *arg, void *dst);
int hzrig_format_opt_tj(const char *cmd, const char *arg, void *dst);

#define HZRIG_FMT_ALL	((1u << HZRIG_FMT_TABLE) | (1u << HZRIG_FMT_CSV) | \
			 (1u << HZRIG_FMT_JSON))

#endif /* HZRIG_TABLE_H */
