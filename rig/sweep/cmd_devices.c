// SPDX-License-Identifier: GPL-2.0
/*
 * hzrig sweep devices: a device file for every driver of modules.alias
 * (docs/sweep.md, "A device for every driver").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/io.h"
#include "lib/opts.h"
#include "lib/util.h"
#include "sweep/sweep.h"

struct pick {
	struct hzrig_usb_id id;
	char alias[256];
	unsigned int entries;
	int stream;	/* what it streams, from --dep (ids.c) */
};

static void devices_usage(FILE *f)
{
	fputs("usage: hzrig sweep devices --alias MODULES.ALIAS --out DIR\n"
	      "                           [--overrides DIR[:DIR...]] [--dep MODULES.DEP]\n"
	      "Writes DIR/MODULE.device for every module with a USB entry in\n"
	      "MODULES.ALIAS: a device one of its entries matches (a\n"
	      "vendor/product entry when it has one, else its first), with the\n"
	      "default endpoints (docs/sweep.md), and MODULE.shape1.. its other\n"
	      "shapes, tried in turn when it does not bind. A file MODULE.device in\n"
	      "--overrides (the first DIR that has it) replaces the built one.\n"
	      "With --dep, a driver built on V4L2, DVB or ALSA (its modules.dep\n"
	      "line names videodev, dvb-core or snd-pcm) gets the isochronous\n"
	      "alternate of a video or audio interface, whatever its class.\n"
	      "DIR/index\n"
	      "lists each module, where its device came from, and how many\n"
	      "entries it has.\n", f);
}

/* Keep, per module, the entry the device is built from. */
static int add(struct pick **p, size_t *n, size_t *cap,
	       const struct hzrig_usb_id *id, const char *line)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp((*p)[i].id.module, id->module))
			break;
	if (i == *n) {
		struct pick *g = hzrig_grow(*p, *n, cap, 64, sizeof(**p));

		if (!g)
			return -1;
		*p = g;
		memset(&g[i], 0, sizeof(g[i]));
		g[i].id = *id;
		snprintf(g[i].alias, sizeof(g[i].alias), "%.*s",
			 (int)strcspn(line, "\n"), line);
		(*n)++;
	} else if (hzrig_usb_id_better(&(*p)[i].id, id)) {
		(*p)[i].id = *id;
		snprintf((*p)[i].alias, sizeof((*p)[i].alias), "%.*s",
			 (int)strcspn(line, "\n"), line);
	}
	(*p)[i].entries++;
	return 0;
}

static int write_file(const char *path, const char *text, size_t len)
{
	struct hzrig_out o;
	char why[HZRIG_WHY];

	if (hzrig_out_open(&o, path, why, sizeof(why))) {
		fprintf(stderr, "hzrig sweep devices: %s: %s\n", path, why);
		return -1;
	}
	if (fwrite(text, 1, len, o.f) != len) {
		hzrig_out_abort(&o);
		fprintf(stderr, "hzrig sweep devices: %s: write failed\n", path);
		return -1;
	}
	if (hzrig_out_commit(&o, why, sizeof(why))) {
		fprintf(stderr, "hzrig sweep devices: %s: %s\n", path, why);
		return -1;
	}
	return 0;
}

/* The override file for @module, slurped, or NULL (none, or unreadable). */
static char *override(const char *dirs, const char *module, size_t *len,
		      int *err)
{
	char path[4096], why[HZRIG_WHY];
	char *text;

	*err = 0;
	/* DIR[:DIR...]: the first that has the module's file */
	for (const char *d = dirs; d && *d; d += strcspn(d, ":"), d += *d == ':') {
		int dl = (int)strcspn(d, ":");

		if (!dl)
			continue;
		if (snprintf(path, sizeof(path), "%.*s/%s.device", dl, d, module) >=
		    (int)sizeof(path) || access(path, F_OK))
			continue;
		text = hzrig_in_slurp(path, HZRIG_MAX_TEXT, len, why, sizeof(why));
		if (!text) {
			fprintf(stderr, "hzrig sweep devices: %s: %s\n", path, why);
			*err = -1;
		}
		return text;
	}
	return NULL;
}

static int write_all(const struct pick *p, size_t n, const char *out,
		     const char *over)
{
	char path[4096], buf[4096], *index = NULL;
	size_t ilen = 0, icap = 0;
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i++) {
		size_t len;
		int err;
		char *text = override(over, p[i].id.module, &len, &err);
		const char *src = text ? "override" : "alias";
		char line[512];
		int l;

		if (err)
			return -1;
		if (!text) {
			len = hzrig_usb_id_device(&p[i].id, p[i].alias, p[i].stream,
						  buf, sizeof(buf));
			if (!len) {
				fprintf(stderr, "hzrig sweep devices: %s: its device does not fit\n",
					p[i].id.module);
				return -1;
			}
		}
		snprintf(path, sizeof(path), "%s/%s.device", out, p[i].id.module);
		rc = write_file(path, text ? text : buf, len);
		free(text);
		/* the other shapes, tried when it does not bind; an override has none */
		for (unsigned int s = 1; src[0] == 'a' && !rc && s <= HZRIG_SWEEP_SHAPES; s++) {
			len = hzrig_usb_id_shape(&p[i].id, p[i].alias, s, buf, sizeof(buf));
			snprintf(path, sizeof(path), "%s/%s.shape%u", out, p[i].id.module, s);
			if (len)
				rc = write_file(path, buf, len);
			else
				unlink(path);
		}
		l = snprintf(line, sizeof(line), "%s %s %u %s\n", p[i].id.module,
			     src, p[i].entries, p[i].alias);
		if (l > 0 && ilen + (size_t)l + 1 > icap) {
			char *g = realloc(index, icap = 2 * icap + (size_t)l + 4096);

			if (!g) {
				free(index);
				return -1;
			}
			index = g;
		}
		if (l > 0) {
			memcpy(index + ilen, line, (size_t)l);
			ilen += (size_t)l;
		}
	}
	if (!rc) {
		snprintf(path, sizeof(path), "%s/index", out);
		rc = write_file(path, index ? index : "", ilen);
	}
	free(index);
	return rc;
}

/*
 * modules.dep at @path: each picked driver's stream class (what it is
 * built on). 0, or 2 after a message naming the file and line.
 */
static int read_dep(const char *path, struct pick *p, size_t n)
{
	char why[HZRIG_WHY], mod[64], *text, *line, *save = NULL;
	unsigned int no = 0;
	size_t len;

	text = hzrig_in_slurp(path, HZRIG_MAX_TEXT, &len, why, sizeof(why));
	if (!text) {
		fprintf(stderr, "hzrig sweep devices: %s: %s\n", path, why);
		return 2;
	}
	if (strlen(text) != len) {
		fprintf(stderr, "hzrig sweep devices: %s: a NUL byte: not modules.dep\n", path);
		free(text);
		return 2;
	}
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		int cls = hzrig_sweep_stream_class(line, mod, sizeof(mod));

		no++;
		if (cls < 0) {
			fprintf(stderr, "hzrig sweep devices: %s:%u: not a modules.dep line (MODULE.ko: DEPENDENCY.ko ...)\n",
				path, no);
			free(text);
			return 2;
		}
		for (size_t i = 0; cls && i < n; i++) {
			char want[64];
			size_t k;

			/* modules.alias names modules with '_' */
			for (k = 0; p[i].id.module[k] && k + 1 < sizeof(want); k++)
				want[k] = p[i].id.module[k] == '-' ? '_' : p[i].id.module[k];
			want[k] = 0;
			if (!strcmp(want, mod))
				p[i].stream = cls;
		}
	}
	free(text);
	return 0;
}

/*
 * Reads and checks the options, then modules.alias line by line
 * (each USB line parsed or refused with its number), then writes.
 */
int cmd_sweep_devices(int argc, char **argv)
{
	const char *alias = NULL, *out = NULL, *over = NULL, *dep = NULL;
	const struct hzrig_opt opts[] = {
		HZRIG_OPT_S("alias", &alias), HZRIG_OPT_S("out", &out),
		HZRIG_OPT_S("overrides", &over), HZRIG_OPT_S("dep", &dep),
		HZRIG_OPT_END,
	};
	char why[HZRIG_WHY], *text, *line, *save = NULL;
	struct pick *p = NULL;
	size_t n = 0, cap = 0, len;
	unsigned int no = 0, usb = 0;
	int r = hzrig_opts("sweep devices", argc, argv, opts, devices_usage);

	if (r < 0)
		return HZRIG_OPTS_EXIT(r);
	if (!alias || !out || r != argc) {
		fprintf(stderr, "hzrig sweep devices: --alias and --out are needed, and nothing else\n");
		devices_usage(stderr);
		return 2;
	}
	text = hzrig_in_slurp(alias, HZRIG_MAX_TEXT, &len, why, sizeof(why));
	if (!text) {
		fprintf(stderr, "hzrig sweep devices: %s: %s\n", alias, why);
		return 2;
	}
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct hzrig_usb_id id;

		no++;
		r = hzrig_usb_id_parse(line, &id, why, sizeof(why));
		if (r < 0) {
			fprintf(stderr, "hzrig sweep devices: %s:%u: %s\n", alias, no, why);
			free(text);
			free(p);
			return 2;
		}
		if (r && id.intf_number != HZRIG_ID_ANY &&
		    id.intf_number >= HZRIG_SWEEP_INTF_MAX)
			continue;	/* more interfaces than a device file holds */
		if (r && add(&p, &n, &cap, &id, line)) {
			free(text);
			free(p);
			return 1;
		}
		usb += r;
	}
	free(text);
	if (dep && read_dep(dep, p, n)) {
		free(p);
		return 2;
	}
	if (mkdir(out, 0755) && errno != EEXIST) {
		fprintf(stderr, "hzrig sweep devices: %s: %s\n", out, strerror(errno));
		free(p);
		return 1;
	}
	r = write_all(p, n, out, over);
	if (!r)
		printf("hzrig sweep devices: %zu drivers, %u USB entries, devices in %s\n",
		       n, usb, out);
	free(p);
	return r ? 1 : 0;
}
