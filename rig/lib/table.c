// SPDX-License-Identifier: GPL-2.0
/* Aligned text tables and CSV fields; see table.h. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/table.h"
#include "lib/util.h"

void hzrig_table_init(struct hzrig_table *t, const char *align)
{
	memset(t, 0, sizeof(*t));
	t->align = align;
	t->ncols = strlen(align);
}

void hzrig_table_row(struct hzrig_table *t, const char *const *cells)
{
	char **c;
	size_t i;

	c = hzrig_grow(t->cell, t->nrows, &t->cap, 32, t->ncols * sizeof(*c));
	if (!c) {
		t->oom = 1;
		return;
	}
	t->cell = c;
	for (i = 0; i < t->ncols; i++) {
		char *s = strdup(cells[i] ? cells[i] : "");

		if (!s)
			t->oom = 1;
		t->cell[t->nrows * t->ncols + i] = s;
	}
	t->nrows++;
}

int hzrig_table_print(const struct hzrig_table *t, FILE *out,
		      const char *indent)
{
	size_t *w, r, i;

	w = calloc(t->ncols + 1, sizeof(*w));
	if (!w)
		return -1;
	for (r = 0; r < t->nrows; r++)
		for (i = 0; i < t->ncols; i++) {
			const char *s = t->cell[r * t->ncols + i];
			size_t n = s ? strlen(s) : 0;

			if (n > w[i])
				w[i] = n;
		}
	for (r = 0; r < t->nrows; r++) {
		char *const *row = &t->cell[r * t->ncols];
		size_t last = t->ncols;

		/* No trailing blanks: stop after the last non-empty cell. */
		while (last > 1 && (!row[last - 1] || !row[last - 1][0]))
			last--;
		fputs(indent, out);
		for (i = 0; i < last; i++) {
			const char *s = row[i] ? row[i] : "";
			int width = (int)w[i];

			if (t->align[i] == 'r')
				fprintf(out, "%*s", width, s);
			else if (i == last - 1)
				fputs(s, out);
			else
				fprintf(out, "%-*s", width, s);
			if (i < last - 1)
				fputs("  ", out);
		}
		fputc('\n', out);
	}
	free(w);
	return t->oom ? -1 : 0;
}

void hzrig_table_free(struct hzrig_table *t)
{
	size_t i;

	for (i = 0; i < t->nrows * t->ncols; i++)
		free(t->cell[i]);
	free(t->cell);
	memset(t, 0, sizeof(*t));
}

void hzrig_csv_field(FILE *out, const char *s, int last)
{
	if (!s)
		s = "";
	if (strpbrk(s, ",\"\r\n")) {
		fputc('"', out);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', out);
			fputc(*s, out);
		}
		fputc('"', out);
	} else {
		fputs(s, out);
	}
	fputc(last ? '\n' : ',', out);
}

int hzrig_format_parse(const char *s, unsigned int allowed,
		       enum hzrig_format *f)
{
	static const char *const names[] = { "table", "csv", "json" };
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(s, names[i]) && (allowed & (1u << i))) {
			*f = (enum hzrig_format)i;
			return 0;
		}
	}
	return -1;
}

static int format_opt(const char *cmd, const char *arg, void *dst,
		      unsigned int allowed, const char *names)
{
	if (!hzrig_format_parse(arg, allowed, dst))
		return 0;
	fprintf(stderr, "hzrig %s: --format: '%s' is not %s\n", cmd, arg, names);
	return -1;
}

int hzrig_format_opt(const char *cmd, const char *arg, void *dst)
{
	return format_opt(cmd, arg, dst, HZRIG_FMT_ALL, "table, csv or json");
}

int hzrig_format_opt_tj(const char *cmd, const char *arg, void *dst)
{
	return format_opt(cmd, arg, dst, (1u << HZRIG_FMT_TABLE) |
			  (1u << HZRIG_FMT_JSON), "table or json");
}
