// SPDX-License-Identifier: GPL-2.0
/*
 * A guest's console, line by line, as every reader takes it: `hzrig boot`
 * while the guest runs, `hzrig ingest --lava` from a lab's job log. Both
 * judge the guest's end the same way from it, and write that down in the
 * same status.json.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot/boot.h"
#include "boot/crash.h"
#include "lib/io.h"

/*
 * One console line, as every reader of a guest's console takes it (hzrig
 * boot live, hzrig ingest --lava from a lab's log): the first crash line,
 * the last line, the guest's own "done" line; and what the line is, for
 * the times to the first KTAP result and to the plan's first case.
 */
enum hzrig_console_line hzrig_console_note(struct hzrig_console_end *e,
					   const char *line)
{
	const char *p;

	/* the first line that starts a kernel report (boot/crash.h) */
	if (!e->crash[0] && hzrig_crash_line(line) >= 0) {
		/*
		 * Truncation is fine: the log has the rest. It goes into
		 * JSON, so as UTF-8.
		 */
		hzrig_utf8_clean(e->crash, sizeof(e->crash), line, strlen(line));
	}
	if (*line) {
		size_t n = strnlen(line, sizeof(e->last) - 1);

		memcpy(e->last, line, n);
		e->last[n] = '\0';
	}
	p = strstr(line, "hzrig: guest done rc=");
	if (p)
		e->guest_rc = atoi(p + strlen("hzrig: guest done rc="));
	if (!strncmp(line, "ok ", 3) || !strncmp(line, "not ok ", 7))
		return HZRIG_LINE_RESULT;
	if (!strncmp(line, "# running ", 10))
		return HZRIG_LINE_PLAN;
	return HZRIG_LINE_OTHER;
}

/*
 * How the guest ended by its console alone: crashed on a crash line or
 * without its "done" line (then @e->crash says why), failed on rc != 0.
 */
const char *hzrig_console_status(struct hzrig_console_end *e)
{
	if (e->crash[0] || e->guest_rc < 0) {
		if (!e->crash[0])
			snprintf(e->crash, sizeof(e->crash),
				 "guest stopped before it was done, last line: %.180s",
				 e->last);
		return "crashed";
	}
	return e->guest_rc ? "failed" : "ok";
}


int hzrig_boot_status_write(const char *path,
			    const struct hzrig_boot_status *st, FILE *err)
{
	struct hzrig_out out;
	char why[HZRIG_WHY];
	const char *s;
	FILE *f;

	if (hzrig_out_open(&out, path, why, sizeof(why))) {
		fprintf(err, "hzrig: %s: %s\n", path, why);
		return -1;
	}
	f = out.f;
	fprintf(f, "{\"variant\":\"%s\",\"status\":\"%s\",\"guest_rc\":%d",
		st->variant, st->status, st->guest_rc);
	if (*st->accel)
		fprintf(f, ",\"accel\":\"%s\"", st->accel);
	if (st->timeout_s)
		fprintf(f, ",\"timeout_s\":%u", st->timeout_s);
	fprintf(f, ",\"wall_s\":%.3f,\"first_result_s\":%.3f,"
		"\"first_case_s\":%.3f,\"crash\":\"", st->wall_s,
		st->first_result_s, st->first_case_s);
	for (s = st->crash; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
	}
	fprintf(f, "\"%s}\n", st->extra ? st->extra : "");
	if (hzrig_out_commit(&out, why, sizeof(why))) {
		fprintf(err, "hzrig: %s: %s\n", path, why);
		return -1;
	}
	return 0;
}
