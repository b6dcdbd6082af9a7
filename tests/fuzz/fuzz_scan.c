// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the console report scanner (rig/collect/scan.c). Any
 * input is a guest's console log, which a buggy or hostile guest writes;
 * the scanner must never crash, leak or overflow, and every finding it
 * returns must hold its own limits: a non-empty, terminated title of a
 * known kind, a console line within the input, a bounded excerpt, and as
 * JSON (hzrig findings --out) valid UTF-8 whatever bytes the guest wrote.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "collect/scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The finding as JSON must read back under json-c's UTF-8 validation. */
static void utf8_json(const struct hzrig_finding *x)
{
	struct json_object *o = hzrig_finding_json(x), *back;
	struct json_tokener *tok = json_tokener_new();
	const char *text = json_object_to_json_string(o);

	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	back = json_tokener_parse_ex(tok, text, (int)strlen(text));
	if (!back)
		abort();
	json_object_put(back);
	json_tokener_free(tok);
	json_object_put(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hzrig_findings fs = { 0 };
	size_t i, lines = 1;
	FILE *f;

	if (!size)
		return 0;
	for (i = 0; i < size; i++)
		lines += data[i] == '\n';
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	if (hzrig_scan_console(f, &fs))
		abort();
	fclose(f);
	for (i = 0; i < fs.n; i++) {
		const struct hzrig_finding *x = &fs.v[i];

		if (!x->title[0] || !memchr(x->title, 0, sizeof(x->title)) ||
		    !memchr(x->excerpt, 0, sizeof(x->excerpt)) ||
		    !x->kind[0] || !x->line || x->line > lines)
			abort();
		if (i && x->line < fs.v[i - 1].line)
			abort();	/* console order */
		utf8_json(x);
	}
	hzrig_findings_free(&fs);
	return 0;
}
