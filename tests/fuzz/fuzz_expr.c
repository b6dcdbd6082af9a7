// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the checker's macro reader and evaluator
 * (rig/checker/facts.c, expr.c), which read a kernel tree anyone can hand
 * to `hzrig check-tree`. The input is a header: its #defines are read,
 * then each body is evaluated at the HZ the first byte picks, with the
 * other defines as the lookup (so macros nest). Nothing may crash,
 * overflow (UBSan) or run away; a value is known only without an error,
 * and an error is a terminated message.
 */
#define _GNU_SOURCE		/* memfd_create() */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "checker/checker.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *lookup(void *ctx, const char *name, int *id)
{
	const struct hzrig_facts *f = ctx;
	size_t i;

	for (i = 0; i < f->n; i++)
		if (f->v[i].kind == HZRIG_FACT_DEFINE && !strcmp(f->v[i].name, name)) {
			*id = (int)i;
			return f->v[i].expr;
		}
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int hzs[] = { 100, 250, 300, 1000 };
	struct hzrig_facts facts = { 0 };
	struct hzrig_expr_val v;
	char path[64], err[160];
	size_t i;
	int fd, rc;

	if (!size)
		return 0;
	/* a regular file, as the reader insists on, without touching disk */
	fd = memfd_create("fuzz_expr.h", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data + 1, size - 1) != (ssize_t)(size - 1)) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (hzrig_facts_read_defines(&facts, path, "fuzz.h", err, sizeof(err)) &&
	    !memchr(err, 0, sizeof(err)))
		abort();
	close(fd);
	for (i = 0; i < facts.n; i++) {
		err[0] = 'x';
		err[sizeof(err) - 1] = 'x';
		rc = hzrig_expr_eval(facts.v[i].expr, hzs[data[0] % 4], lookup,
				     &facts, &v, err, sizeof(err));
		if (rc && (v.known || !memchr(err, 0, sizeof(err))))
			abort();
		if (strlen(facts.v[i].expr) > HZRIG_DEFINE_MAX)
			abort();
	}
	hzrig_facts_free(&facts);
	return 0;
}
