// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: a LAVA job's log read back (rig/lava/log.c,
 * `hzrig ingest --lava`). Any input is a log a lab hands back; the reader
 * must never crash, leak or overflow, and it either unpacks the whole
 * capture (console.log, ttyS1.jsonl, status.json, build.json, a variant
 * name) or leaves nothing behind: no directory, no ".part".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lava/lava.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void rm(const char *dir)
{
	char p[256];
	size_t i;

	for (i = 0; i < HZRIG_LAVA_CAPTURE_N; i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, hzrig_lava_capture[i]);
		unlink(p);
	}
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char log[128], dir[128], part[160], variant[64], started[32], p[256];
	struct stat st;
	FILE *f, *err = fopen("/dev/null", "w");
	size_t i;
	int ret;

	snprintf(log, sizeof(log), "/tmp/hzrig-fuzz-lava-%d.yaml", (int)getpid());
	snprintf(dir, sizeof(dir), "/tmp/hzrig-fuzz-lava-%d", (int)getpid());
	snprintf(part, sizeof(part), "%s.part", dir);
	rm(dir);
	f = fopen(log, "w");
	if (!f || !err || fwrite(data, 1, size, f) != size)
		abort();
	fclose(f);
	ret = hzrig_lava_unpack(log, dir, variant, sizeof(variant), started,
				sizeof(started), err);
	{
		/* LAVA's verdict: one line, or nothing for a bad log */
		char *line = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&line, &len);
		int r;

		if (!out)
			abort();
		r = hzrig_lava_result(log, out, err);
		fclose(out);
		if (r < -1 || r > 1 || (r < 0 && len) ||
		    (r >= 0 && (!len || line[len - 1] != '\n' ||
				memchr(line, '\n', len - 1))))
			abort();
		free(line);
	}
	{
		/*
		 * A sweep batch's console and status: the console whole or
		 * not at all; the status, when written, a status word of
		 * hzrig boot's
		 */
		char con[160], stp[160], text[1024];
		int r;

		snprintf(con, sizeof(con), "%s.console", dir);
		snprintf(stp, sizeof(stp), "%s.status", dir);
		r = hzrig_lava_console(log, con, stp, "sweep-fuzz", err);
		snprintf(p, sizeof(p), "%s.part", con);
		if (!stat(p, &st) || (r && !stat(con, &st)) || (!r && stat(con, &st)))
			abort();
		f = fopen(stp, "r");
		if (!r && !f)
			abort();
		if (f) {
			size_t n = fread(text, 1, sizeof(text) - 1, f);

			text[n] = 0;
			fclose(f);
			if (!strstr(text, "\"status\":\"ok\"") && !strstr(text, "\"status\":\"crashed\"") &&
			    !strstr(text, "\"status\":\"failed\"") && !strstr(text, "\"status\":\"hung\"") &&
			    !strstr(text, "\"status\":\"error\""))
				abort();
		}
		unlink(con);
		unlink(stp);
	}
	fclose(err);
	if (!stat(part, &st))
		abort();	/* never left half-written */
	if (ret) {
		if (!stat(dir, &st))
			abort();
	} else {
		for (i = 0; i < HZRIG_LAVA_CAPTURE_N; i++) {
			snprintf(p, sizeof(p), "%s/%s", dir, hzrig_lava_capture[i]);
			if (stat(p, &st))
				abort();
		}
		if (!variant[0] || !memchr(variant, 0, sizeof(variant)) ||
		    !memchr(started, 0, sizeof(started)))
			abort();
	}
	rm(dir);
	unlink(log);
	return 0;
}
