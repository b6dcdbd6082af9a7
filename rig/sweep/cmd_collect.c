// SPDX-License-Identifier: GPL-2.0
/*
 * hzrig sweep collect: one variant's guest batches into DIR/sweep.json
 * (docs/sweep.md, "What is recorded").
 *
 * For each batch, DIR/batch-N.txt (the guest's ttyS1) and DIR/console-N.log.
 * Every driver gets its outcome, and every call it made its site, the
 * timeout it passed, what the device did, usbmon's time and, for a call the
 * device NAKed, the model's window for that timeout at this HZ and whether
 * the time fell inside it. The allowance for noise is the batch's own: p99
 * of the answered ep0 requests' round trips, at least one jiffy.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "boot/crash.h"
#include "collect/scan.h"
#include "lib/io.h"
#include "lib/json.h"
#include "lib/opts.h"
#include "lib/util.h"
#include "model/model.h"
#include "sweep/sweep.h"

#define NAK_STATUS_MIN	(-104)	/* -ECONNRESET / -ENOENT: killed at timeout */

struct collect {
	const char *dir, *variant, *tree, *kolist, *firmware, *sweep_id;
	long long hz, batches;
	const struct hzrig_tree_model *model;
	char *kos;			/* the .ko paths, one per line */
	char *fw;	/* "module file present|missing|made|standin" */
	struct line_cache { char key[160], site[200], func[64]; } *lines;
	size_t nlines, linecap;
	/* the batch's tick grid, fitted from its timers (none: !grid) */
	bool grid;
	int64_t grid_ns;
	uint64_t grid_jiffies;
};

static void collect_usage(FILE *f)
{
	fputs("usage: hzrig sweep collect --dir DIR --variant NAME --sweep-id ID --hz HZ\n"
	      "                           --batches N [--tree KSRC] [--modules KO_LIST]\n"
	      "                           [--firmware FILE]\n"
	      "Reads DIR/batch-I.txt and DIR/console-I.log (I = 0..N-1), a\n"
	      "variant's sweep, and writes DIR/sweep.json. With --tree and\n"
	      "--modules (the built modules' paths, one per line) each call's\n"
	      "return address becomes file:line through the tree's\n"
	      "scripts/faddr2line. --firmware: the modules' firmware files and\n"
	      "whether the guest had them (initramfs/mkinitramfs.sh).\n", f);
}

/* The .ko of @module (dashes and underscores alike), or NULL. */
static const char *ko_of(struct collect *c, const char *module, char *buf,
			 size_t n)
{
	for (const char *s = c->kos; s && *s;) {
		size_t l = strcspn(s, "\n"), bl;
		const char *base = s + l;

		while (base > s && base[-1] != '/')
			base--;
		bl = (size_t)(s + l - base);
		if (bl > 3 && bl - 3 == strlen(module)) {
			size_t i;

			for (i = 0; i < bl - 3; i++) {
				char a = base[i] == '-' ? '_' : base[i];
				char b = module[i] == '-' ? '_' : module[i];

				if (a != b)
					break;
			}
			if (i == bl - 3 && !strncmp(base + i, ".ko", 3)) {
				snprintf(buf, n, "%.*s", (int)l, s);
				return buf;
			}
		}
		s += l + (s[l] == '\n');
	}
	return NULL;
}

static void quote(char *dst, size_t n, const char *s)
{
	size_t o = 0;

	if (n < 3)
		return;
	dst[o++] = '\'';
	for (; *s && o + 5 < n; s++) {
		if (*s == '\'') {
			memcpy(dst + o, "'\\''", 4);
			o += 4;
		} else {
			dst[o++] = *s;
		}
	}
	dst[o++] = '\'';
	dst[o] = 0;
}

/*
 * "ipheth_probe+0x1e2/0x380 [ipheth]" to file:line and function, through
 * faddr2line on the module (the byte before the return address: the
 * call's own line). Empty when anything is missing.
 */
static void site_of(struct collect *c, const char *where, char *site,
		    size_t sn, char *func, size_t fnn)
{
	char fn[64], mod[64], ko[4096], q1[8300], q2[256], cmd[17000], out[512];
	unsigned long off;
	FILE *p;

	site[0] = func[0] = 0;
	for (size_t i = 0; i < c->nlines; i++)
		if (!strcmp(c->lines[i].key, where)) {
			snprintf(site, sn, "%s", c->lines[i].site);
			snprintf(func, fnn, "%s", c->lines[i].func);
			return;
		}
	if (sscanf(where, "%63[^+]+%lx/%*x [%63[^]]]", fn, &off, mod) != 3)
		return;
	snprintf(func, fnn, "%s", fn);
	if (c->tree && c->kos && ko_of(c, mod, ko, sizeof(ko)) && off) {
		char addr[128], tool[4200];

		snprintf(addr, sizeof(addr), "%s+0x%lx", fn, off - 1);
		snprintf(tool, sizeof(tool), "%s/scripts/faddr2line", c->tree);
		quote(q1, sizeof(q1), ko);
		quote(q2, sizeof(q2), addr);
		quote(cmd, sizeof(cmd), tool);
		snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd),
			 " %s %s 2>/dev/null", q1, q2);
		p = popen(cmd, "r");
		while (p && fgets(out, sizeof(out), p)) {
			char *at = strstr(out, " at ");

			if (!at || site[0])
				continue;
			out[strcspn(out, "\n")] = 0;
			/* "file.c:90 (discriminator 4)": the line is the site */
			at[4 + strcspn(at + 4, " ")] = 0;
			snprintf(site, sn, "%s", at + 4);
			snprintf(func, fnn, "%.*s", (int)(at - out), out);
		}
		if (p)
			pclose(p);
	}
	/* a path under the tree is named from the tree's top */
	if (c->tree && !strncmp(site, c->tree, strlen(c->tree)) &&
	    site[strlen(c->tree)] == '/')
		memmove(site, site + strlen(c->tree) + 1,
			strlen(site + strlen(c->tree) + 1) + 1);
	{
		struct line_cache *g = hzrig_grow(c->lines, c->nlines,
						  &c->linecap, 64, sizeof(*g));

		if (g) {
			c->lines = g;
			snprintf(g[c->nlines].key, sizeof(g->key), "%s", where);
			snprintf(g[c->nlines].site, sizeof(g->site), "%s", site);
			snprintf(g[c->nlines].func, sizeof(g->func), "%s", func);
			c->nlines++;
		}
	}
}

/* p99 of the answered ep0 requests' URB times, at least one jiffy. */
static int64_t allowance(const struct hzrig_sweep_batch *b, int hz)
{
	int64_t *v = calloc(b->ncall + 1, sizeof(*v)), a, tick = 1000000000LL / hz;
	size_t n = 0;

	if (!v)
		return tick;
	for (size_t i = 0; i < b->ncall; i++)
		if (b->call[i].urb_us >= 0 && !strcmp(b->call[i].action, "answer"))
			v[n++] = b->call[i].urb_us * 1000;
	qsort(v, n, sizeof(*v), hzrig_cmp_i64);
	a = n ? hzrig_percentile(v, n, 99) : 0;
	free(v);
	return a > tick ? a : tick;
}

/* What the console says of @d: its probe's error, a firmware failure. */
/*
 * A probe below the interface's that failed: usb-serial binds the
 * interface, then probes its port ("ch341-uart: probe of ttyUSB0 failed
 * with error -110"), the port driver named after the module. 0: none.
 */
static int port_error(const char *console, const char *module)
{
	size_t ml = strlen(module);

	for (const char *s = console; s && *s;) {
		size_t l = strcspn(s, "\n");
		const char *name = s, *q;
		char line[512];
		bool same = true;

		snprintf(line, sizeof(line), "%.*s", (int)l, s);
		q = strstr(line, ": probe of ");
		/* the name starts after the timestamp "[    3.24] " */
		name = strchr(line, ']') ? strchr(line, ']') + 1 : line;
		name += strspn(name, " ");
		for (size_t i = 0; q && i < ml; i++) {
			char a = name[i] == '-' ? '_' : name[i];
			char b = module[i] == '-' ? '_' : module[i];

			same &= name + i < q && a == b;
		}
		/*
		 * not the interface's own probe ("probe of 5-1:1.0"): a probe
		 * the walk made again may have failed before one bound
		 */
		if (q && same && strstr(q, "failed with error ") &&
		    !(isdigit((unsigned char)q[11]) && strchr(q + 11, ':') &&
		      strspn(q + 11, "0123456789-.") == (size_t)(strchr(q + 11, ':') - (q + 11))))
			return atoi(strstr(q, "failed with error ") + strlen("failed with error "));
		s += l + (s[l] == '\n');
	}
	return 0;
}

static void outcome(struct collect *c, const char *console,
		    const struct hzrig_sweep_driver *d, bool reported,
		    const char **what, int *err, char *fwname, size_t fwn)
{
	char pat[64];
	const char *q;

	*err = 0;
	fwname[0] = 0;
	snprintf(pat, sizeof(pat), "probe of %d-1:", d->bus);
	q = console && d->bus ? strstr(console, pat) : NULL;
	if (q) {
		q = strstr(q, "failed with error ");
		if (q)
			*err = atoi(q + strlen("failed with error "));
	}
	for (const char *s = c->fw; s && *s;) {
		size_t l = strcspn(s, "\n");
		char mod[64], file[256], state[16];

		if (sscanf(s, "%63s %255s %15s", mod, file, state) == 3 &&
		    !strcmp(mod, d->module) && !strcmp(state, "missing")) {
			char needle[300];

			snprintf(needle, sizeof(needle), "firmware load for %s failed", file);
			if (console && strstr(console, needle))
				snprintf(fwname, fwn, "%s", file);
		}
		s += l + (s[l] == '\n');
	}
	if (!d->enumerated)
		*what = "not enumerated";
	else if (reported)
		*what = "kernel report";	/* its code in a report's stack */
	else if (d->contain[0])
		*what = "contained";	/* unplugged: it looped or flooded */
	else if (fwname[0])
		*what = "firmware missing";
	else if (d->bound && (*err = port_error(console, d->module)))
		*what = "probe failed";	/* its port's, after the interface's */
	else if (d->bound)
		*what = "bound";
	else if (*err)
		*what = "probe failed";
	else
		*what = "not bound";
}

/*
 * How stale jiffies was when @k armed its timer of @n jiffies: the
 * timer_start the trace saw for it against the batch's grid
 * (docs/model.md section 10). -1 when unknown: no grid, no timer, or one
 * of another length.
 */
static int64_t call_lag(const struct collect *c, const struct hzrig_sweep_call *k,
			uint64_t n)
{
	uint64_t armed;
	int64_t lag;

	if (!c->grid || !k->has_timer ||
	    hzrig_timer_lag(&k->timer, n, c->grid_ns, c->grid_jiffies,
			    hzrig_tick_ns((int)c->hz), &armed, &lag))
		return -1;
	return lag > 0 ? lag : 0;
}

static json_object *call_json(struct collect *c, const struct hzrig_sweep_call *k,
			      int64_t allow)
{
	json_object *o = json_object_new_object();
	char site[200], func[64];
	bool naked = !strcmp(k->action, "nak") ||
		     (k->ret == -110 && k->urb_status <= 0 &&
		      k->urb_status >= NAK_STATUS_MIN && !k->action[0]);

	site_of(c, k->where, site, sizeof(site), func, sizeof(func));
	hzrig_json_put(o, "call", hzrig_json_str(hzrig_sweep_call_name(k->kind)));
	hzrig_json_put(o, "where", hzrig_json_str(k->where));
	hzrig_json_put(o, "site", hzrig_json_str(site));
	hzrig_json_put(o, "function", hzrig_json_str(func));
	{
		json_object *st = json_object_new_array();

		for (int f = 0; f < k->nchain; f++) {
			char fs[200], ff[64];

			site_of(c, k->chain[f], fs, sizeof(fs), ff, sizeof(ff));
			json_object_array_add(st, hzrig_json_str(fs[0] ? fs : k->chain[f]));
		}
		hzrig_json_put(o, "stack", st);
	}
	hzrig_json_put(o, "timeout_arg", json_object_new_int(k->timeout_arg));
	hzrig_json_put(o, "ret", k->returned ? json_object_new_int(k->ret) : NULL);
	/*
	 * Bulk and interrupt endpoints never get a request: a transfer
	 * rawdev's watcher did not say (past its lines per endpoint, or from
	 * before it) NAKed, unless it ended in a STALL (the endpoint halted).
	 */
	hzrig_json_put(o, "action", hzrig_json_str(k->action[0] ? k->action :
						    !(k->ep & 0x7f) ? "unknown" :
						    k->urb_us >= 0 && k->urb_status == -EPIPE ?
						    "stall" : "nak"));
	hzrig_json_put(o, "ep", json_object_new_int(k->ep));
	if (k->has_setup) {
		char setup[32];

		snprintf(setup, sizeof(setup), "%02x%02x%02x%02x%02x%02x%02x%02x",
			 k->setup[0], k->setup[1], k->setup[2], k->setup[3],
			 k->setup[4], k->setup[5], k->setup[6], k->setup[7]);
		hzrig_json_put(o, "setup", hzrig_json_str(setup));
	}
	hzrig_json_put(o, "urb_ns", k->urb_us >= 0 ? hzrig_json_int(k->urb_us * 1000) : NULL);
	hzrig_json_put(o, "urb_status", k->urb_us >= 0 ? json_object_new_int(k->urb_status) : NULL);
	hzrig_json_put(o, "call_ns", k->returned ?
		       hzrig_json_int((k->return_us - k->entry_us) * 1000) : NULL);
	if ((naked || k->kind >= HZRIG_CALL_BULK) && k->ret == -110 && k->urb_us >= 0) {
		struct hzrig_window w;

		if (!hzrig_tree_window(c->model, (int)c->hz, k->timeout_arg, false, &w) &&
		    !w.forever) {
			int64_t t = k->urb_us * 1000, lag = call_lag(c, k, w.jiffies);
			bool in;

			/* armed on stale jiffies: lo moves down that many */
			hzrig_window_stale_jiffies(&w, lag);
			in = t > (int64_t)w.lo_ns && t <= (int64_t)w.hi_ns + allow;
			hzrig_json_put(o, "jiffies_lag", lag >= 0 ? hzrig_json_int(lag) : NULL);
			hzrig_json_put(o, "window_lo_ns", hzrig_json_int((int64_t)w.lo_ns));
			hzrig_json_put(o, "window_hi_ns", hzrig_json_int((int64_t)w.hi_ns));
			hzrig_json_put(o, "verdict", hzrig_json_str(in ? "inside" : "outside"));
		}
	}
	return o;
}

/* Kernel reports on a batch's console: each start line, as a title. */
static json_object *reports(const char *console)
{
	json_object *a = json_object_new_array();

	for (const char *s = console; s && *s;) {
		size_t l = strcspn(s, "\n");
		char *line = strndup(s, l);

		if (line && hzrig_crash_line(line) >= 0)
			json_object_array_add(a, hzrig_json_str(line + hzrig_timestamp_len(line)));
		free(line);
		s += l + (s[l] == '\n');
	}
	return a;
}

/* Did batch @i's guest die (status-N.json, hzrig boot's: not "ok")? */
static bool guest_died(const struct collect *c, int i, char *st, size_t n)
{
	char path[4096], why[HZRIG_WHY];
	json_object *j, *v;
	size_t len;
	char *text;
	bool died = false;

	snprintf(path, sizeof(path), "%s/status-%d.json", c->dir, i);
	text = hzrig_in_slurp(path, 1 << 16, &len, why, sizeof(why));
	j = text ? json_tokener_parse(text) : NULL;
	if (j && json_object_object_get_ex(j, "status", &v) &&
	    json_object_is_type(v, json_type_string)) {
		snprintf(st, n, "%s", json_object_get_string(v));
		/* hzrig boot's words: hung, crash, ...; anything else is not */
		died = st[0] && strspn(st, "abcdefghijklmnopqrstuvwxyz-") == strlen(st) &&
		       strcmp(st, "ok") != 0;
	}
	json_object_put(j);
	free(text);
	return died;
}

/* hzrig boot's word for how a guest ended, as sweep.json takes it. */
static const char *ended_word(const char *st)
{
	static const char *const words[] = { "ok", "failed", "crashed", "hung", "error" };

	for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++)
		if (!strcmp(st, words[k]))
			return words[k];
	return "unknown";
}

/* A batch whose guest died before it said its lines: empty, incomplete. */
static void lost_batch(const struct collect *c, int i, const char *ended,
		       json_object *batches)
{
	json_object *bo = json_object_new_object();
	char path[4096], why[HZRIG_WHY];
	size_t len;
	char *console;

	snprintf(path, sizeof(path), "%s/console-%d.log", c->dir, i);
	console = hzrig_in_slurp(path, HZRIG_MAX_CONSOLE, &len, why, sizeof(why));
	hzrig_json_put(bo, "batch", json_object_new_int(i));
	hzrig_json_put(bo, "complete", json_object_new_boolean(false));
	hzrig_json_put(bo, "ended", hzrig_json_str(ended_word(ended)));
	hzrig_json_put(bo, "last_alive_ms", NULL);
	hzrig_json_put(bo, "settled_s", json_object_new_int(0));
	hzrig_json_put(bo, "k", json_object_new_int(0));
	hzrig_json_put(bo, "allowance_ns", hzrig_json_int(0));
	hzrig_json_put(bo, "usbmon_dropped", json_object_new_int(0));
	hzrig_json_put(bo, "trace_overrun", NULL);
	hzrig_json_put(bo, "calls_without_urb", json_object_new_int(0));
	hzrig_json_put(bo, "calls_refused", json_object_new_int(0));
	hzrig_json_put(bo, "kernel_reports", reports(console));
	json_object_array_add(batches, bo);
	free(console);
}

/*
 * One driver's record in sweep.json, its fields in the order load.c reads
 * them: what the batch saw of it (@d; NULL for a driver known only as a
 * suspect: no bus, no requests, no modprobe's return), its @outcome, @err
 * (0: none), @fw ("": none), and @reports and @calls, which it takes.
 */
static json_object *driver_json(const char *module, int batch,
				const struct hzrig_sweep_driver *d,
				const char *outcome, int err, const char *fw,
				const char *diagnosis, json_object *reports,
				json_object *calls)
{
	json_object *o = json_object_new_object();

	hzrig_json_put(o, "module", hzrig_json_str(module));
	hzrig_json_put(o, "batch", json_object_new_int(batch));
	hzrig_json_put(o, "bus", json_object_new_int(d ? d->bus : 0));
	hzrig_json_put(o, "outcome", hzrig_json_str(outcome));
	hzrig_json_put(o, "errno", err ? json_object_new_int(err) : NULL);
	hzrig_json_put(o, "firmware", fw[0] ? hzrig_json_str(fw) : NULL);
	hzrig_json_put(o, "modprobe_rc", d && d->modprobe_done ?
		       json_object_new_int(d->modprobe_rc) : NULL);
	hzrig_json_put(o, "probe_ns", d && d->probe_us >= 0 ?
		       hzrig_json_int(d->probe_us * 1000) : NULL);
	hzrig_json_put(o, "nak", json_object_new_int(d ? (int)d->nak : 0));
	hzrig_json_put(o, "stall", json_object_new_int(d ? (int)d->stall : 0));
	hzrig_json_put(o, "answer", json_object_new_int(d ? (int)d->answer : 0));
	hzrig_json_put(o, "unplugged", json_object_new_boolean(d && d->unplugged));
	hzrig_json_put(o, "diagnosis", diagnosis[0] ? hzrig_json_str(diagnosis) : NULL);
	{
		/* the user-facing entries the guest used after it bound */
		json_object *op = json_object_new_array();

		for (int k = 0; d && k < d->nopened; k++)
			json_object_array_add(op, hzrig_json_str(d->opened[k]));
		hzrig_json_put(o, "opened", op);
	}
	/* the walk's passes that NAKed a request of its probe (null: no walk) */
	hzrig_json_put(o, "walk_passes", d && d->walk_passes >= 0 ?
		       json_object_new_int(d->walk_passes) : NULL);
	/*
	 * the last shape its device was plugged in as, when the default one
	 * did not bind (null: only the default); bound, it bound in that one
	 */
	hzrig_json_put(o, "shape", d && d->shape > 0 ? json_object_new_int(d->shape) : NULL);
	hzrig_json_put(o, "reports", reports);
	hzrig_json_put(o, "calls", calls);
	return o;
}

/*
 * What the guest saw @d do, in words (docs/sweep.md, "A looping driver
 * is contained"): a contained loop or flood, with its figures; "" when
 * nothing of the kind.
 */
static void contain_words(const struct hzrig_sweep_driver *d, char *w, size_t n)
{
	/* after probe: it still looped once its modprobe had returned */
	const char *when = d->end_mark_us >= 0 && d->end_mark_us <= d->contain_us ?
			   "after probe" : "during probe";
	double secs = (double)(d->contain_us - d->contain_since_us) / 1e6;
	bool loop = !strcmp(d->contain, "loop");
	/* the guest's counts are a second's at least */
	double shown = loop || secs > 0 ? secs : 1.0;

	w[0] = 0;
	/*
	 * a STALL / clear-halt loop: caught by the device's count of
	 * refusals, or first by the guest's of its calls or log lines while
	 * the device saw it clear a halt (its ep= then)
	 */
	if (d->contain_clear_halts && (loop || d->contain_ep >= 0))
		snprintf(w, n, "looped %s on STALL / clear-halt: %u %s in %.1f s (ep 0x%02x, %u clear-halts), unplugged after %.1f s",
			 when, d->contain_count,
			 loop ? "refusals" : !strcmp(d->contain, "calls") ? "calls" : "log lines",
			 shown, d->contain_ep < 0 ? 0 : d->contain_ep, d->contain_clear_halts, shown);
	else if (loop)
		snprintf(w, n, "looped %s on refused transfers: %u in %.1f s (ep 0x%02x), unplugged after %.1f s",
			 when, d->contain_count, secs, d->contain_ep < 0 ? 0 : d->contain_ep, secs);
	else if (!strcmp(d->contain, "calls"))
		snprintf(w, n, "looped %s on its calls: %u in %.1f s, unplugged",
			 when, d->contain_count, shown);
	else if (!strcmp(d->contain, "flood"))
		snprintf(w, n, "flooded the log %s: %u lines in %.1f s, unplugged",
			 when, d->contain_count, shown);
}

/* Visible ASCII alone: what goes into a one-line field as it is. */
static bool printable_word(const char *s)
{
	for (; *s; s++)
		if (*s <= ' ' || *s > '~')
			return false;
	return true;
}

/*
 * The firmware stand-ins of @module (mkinitramfs.sh: zero-filled files
 * the guest had in place of firmware Debian does not ship), into @out as
 * "FILE[, FILE...]"; "" none.
 */
static void standins(const struct collect *c, const char *module, char *out, size_t n)
{
	size_t o = 0;

	out[0] = 0;
	for (const char *s = c->fw; s && *s;) {
		size_t l = strcspn(s, "\n");
		char mod[64], file[256], state[16];

		if (sscanf(s, "%63s %255s %15s", mod, file, state) == 3 &&
		    !strcmp(mod, module) && !strcmp(state, "standin") &&
		    printable_word(file) && o + strlen(file) + 3 < n)
			o += (size_t)snprintf(out + o, n - o, "%s%s", o ? ", " : "", file);
		s += l + (s[l] == '\n');
	}
}

/*
 * One driver @dr of the parsed batch @b, with its calls and the reports
 * in @found that name it; @diag says what the guest saw it do when the
 * caller knows more (a suspect's), else the containment's words.
 */
static json_object *record_of(struct collect *c, const struct hzrig_sweep_batch *b,
			      int i, const struct hzrig_sweep_driver *dr,
			      const char *console, const struct hzrig_findings *found,
			      int64_t allow, const char *force_outcome, const char *diag)
{
	json_object *calls = json_object_new_array();
	json_object *rep = json_object_new_array();
	json_object *req = json_object_new_array();
	json_object *o;
	const char *what;
	char fw[256], words[320], si[256];
	int err;

	/*
	 * Its reports, and, when the unplug pass walked, the request each
	 * came under: that of the pass that was on at the report's time.
	 */
	for (size_t f = 0; f < found->n; f++)
		if (json_object_array_length(rep) < HZRIG_SWEEP_REPORTS_MAX &&
		    hzrig_sweep_report_names(found->v[f].excerpt, dr->module)) {
			int64_t t = hzrig_sweep_report_us(found->v[f].excerpt);

			json_object_array_add(rep, hzrig_json_str(found->v[f].title));
			json_object_array_add(req, b->walk && b->unplug_ms && t >= 0 ?
					      json_object_new_int(hzrig_sweep_request_at(dr, t)) :
					      NULL);
		}
	outcome(c, console, dr, json_object_array_length(rep) > 0, &what,
		&err, fw, sizeof(fw));
	if (force_outcome && strcmp(what, "kernel report"))
		what = force_outcome;
	contain_words(dr, words, sizeof(words));
	if (diag && diag[0])
		snprintf(words, sizeof(words), "%s", diag);
	else if (!words[0] && !b->complete && dr->mark_us >= 0 && !dr->modprobe_done &&
		 dr->end_mark_us < 0)
		snprintf(words, sizeof(words),
			 "its probe was cut short: the guest died before its modprobe returned");
	/*
	 * The driver's calls: on its device's bus, and made from a
	 * module (the USB core's own, enumerating the device or
	 * polling the root hub, have no module in their stack).
	 */
	for (size_t k = 0; k < b->ncall; k++)
		if (!strcmp(b->call[k].module, dr->module) && b->call[k].nchain)
			json_object_array_add(calls, call_json(c, &b->call[k], allow));
	o = driver_json(dr->module, i, dr, what, err, fw, words, rep, calls);
	/* beside its reports: the walk's request each came under (unplug pass) */
	hzrig_json_put(o, "report_requests", req);
	/* beside the outcome: it ran on a stand-in, not a real device's */
	standins(c, dr->module, si, sizeof(si));
	hzrig_json_put(o, "firmware_standin", si[0] ? hzrig_json_str(si) : NULL);
	return o;
}

/*
 * The kernel reports of batch @i's boots that hung or crashed and were
 * booted again (sweep.sh keeps their consoles as console-I-first.log and
 * console-I-retryK.log), into @found.
 */
static void earlier_boots(const struct collect *c, int i,
			  struct hzrig_findings *found)
{
	char path[4096], why[HZRIG_WHY];

	for (int k = 0; k < 8; k++) {
		if (k)
			snprintf(path, sizeof(path), "%s/console-%d-retry%d.log", c->dir, i, k);
		else
			snprintf(path, sizeof(path), "%s/console-%d-first.log", c->dir, i);
		if (access(path, F_OK))
			continue;
		if (hzrig_scan_file(path, found, why, sizeof(why)))
			fprintf(stderr, "hzrig sweep collect: %s: %s (its reports not put down to drivers)\n",
				path, why);
	}
}

/*
 * Batch @i's earlier boot @k (0: console-I-first.log / batch-I-first.txt,
 * K: the K-th boot again), its file's path in @path; false when none.
 */
static bool earlier_boot(const struct collect *c, int i, int k, const char *what,
			 const char *ext, char *path, size_t n)
{
	if (k)
		snprintf(path, n, "%s/%s-%d-retry%d.%s", c->dir, what, i, k, ext);
	else
		snprintf(path, n, "%s/%s-%d-first.%s", c->dir, what, i, ext);
	return !access(path, F_OK);
}

/*
 * The entry of @mod that the guest on @console began to use and never
 * finished ("hzrig-sweep: open-begin module=M bus=B entry=E" without its
 * "open-end ... rc=R": initramfs/sweep.sh's opener), "KIND:NODE" into
 * @entry; false when there is none.
 */
static bool open_left(const char *console, const char *mod, char *entry, size_t n)
{
	static const char begin[] = "hzrig-sweep: open-begin module=";
	size_t ml = strlen(mod);

	for (const char *p = console; p && (p = strstr(p, begin)); p++) {
		const char *what = p + sizeof(begin) - 1, *e;
		char end[512];
		size_t l;

		if (strncmp(what, mod, ml) || what[ml] != ' ')
			continue;
		l = strcspn(what, "\r\n");
		/* "M bus=B entry=E" ended is "open-end module=M bus=B entry=E rc=" */
		if (snprintf(end, sizeof(end), "hzrig-sweep: open-end module=%.*s rc=",
			     (int)l, what) >= (int)sizeof(end) || strstr(console, end))
			continue;
		e = strstr(what, " entry=");
		if (!e || e > what + l)
			continue;
		e += strlen(" entry=");
		snprintf(entry, n, "%.*s", (int)(what + l - e), e);
		return true;
	}
	return false;
}

/*
 * What the guest was seen doing when it died with suspect @dr loaded
 * (@console: that boot's; @boot: its file's name), into @w; @confirmed:
 * a boot of the batch without it ended well. A kernel panic on the
 * console is a crash, else a hang; an open of its entry that never
 * ended is where.
 */
static void suspect_words(const struct hzrig_sweep_driver *dr, const char *console,
			  int i, const char *boot, bool confirmed, char *w, size_t n)
{
	bool returned = dr->modprobe_done || dr->end_mark_us >= 0;
	bool flood = console && strstr(console, "hzrig-sweep: kernel log flood");
	bool crash = console && strstr(console, "Kernel panic");
	char entry[128], what[192];

	if (!returned)
		snprintf(what, sizeof(what), "its modprobe never returned: the guest %s",
			 crash ? "crashed" : "hung or crashed");
	else if (console && open_left(console, dr->module, entry, sizeof(entry)))
		snprintf(what, sizeof(what), "%s the guest on open (%s)",
			 crash ? "crashed" : "hung", entry);
	else if (flood)
		snprintf(what, sizeof(what), "flooded the log after probe: the guest hung");
	else
		snprintf(what, sizeof(what), "%s the guest after probe",
			 crash ? "crashed" : "hung");
	snprintf(w, n, "%s (batch %d, %s%s)", what, i, boot,
		 confirmed ? "; the boot without it ended well" :
		 "; not confirmed: no boot without it ended well");
}

/*
 * A suspect's own record from the last earlier boot of batch @i that had
 * it (its stream, streamed as the guest ran: docs/sweep.md): its calls,
 * what it bound, its modprobe. @kept: not a suspect, but a driver that
 * boot was through with before its guest crashed (kept-N.txt), recorded
 * as it did. NULL when no boot's stream has it.
 */
static json_object *suspect_from_stream(struct collect *c, int i, const char *mod,
					const struct hzrig_findings *found, bool confirmed,
					bool kept)
{
	for (int k = 8; k >= 0; k--) {
		char path[4096], cpath[4096], why[HZRIG_WHY], diag[320];
		struct hzrig_sweep_batch b;
		size_t len;
		char *text, *console;
		json_object *o = NULL;

		if (!earlier_boot(c, i, k, "batch", "txt", path, sizeof(path)))
			continue;
		text = hzrig_in_slurp(path, HZRIG_MAX_CAPTURE, &len, why, sizeof(why));
		if (!text || strlen(text) != len ||
		    hzrig_sweep_batch_parse(text, &b, why, sizeof(why))) {
			fprintf(stderr, "hzrig sweep collect: %s: %s (not read for its suspects)\n",
				path, text && strlen(text) != len ? "a NUL byte in the file" : why);
			free(text);
			continue;
		}
		free(text);
		earlier_boot(c, i, k, "console", "log", cpath, sizeof(cpath));
		console = hzrig_in_slurp(cpath, HZRIG_MAX_CONSOLE, &len, why, sizeof(why));
		for (size_t d = 0; d < b.ndrv && !o; d++) {
			const struct hzrig_sweep_driver *dr = &b.drv[d];

			if (strcmp(dr->module, mod))
				continue;
			c->grid = !hzrig_jiffy_grid_fit(b.timers, b.ntimers,
							hzrig_tick_ns((int)c->hz),
							&c->grid_ns, &c->grid_jiffies);
			suspect_words(dr, console, i, strrchr(path, '/') + 1, confirmed,
				      diag, sizeof(diag));
			o = record_of(c, &b, i, dr, console, found, allowance(&b, (int)c->hz),
				      kept ? NULL : "hung the guest", kept ? NULL : diag);
		}
		free(console);
		hzrig_sweep_batch_free(&b);
		if (o)
			return o;
	}
	return NULL;
}

/* Is @mod one of @b's drivers (NULL: none)? */
static bool in_batch(const struct hzrig_sweep_batch *b, const char *mod)
{
	for (size_t d = 0; b && d < b->ndrv; d++)
		if (!strcmp(b->drv[d].module, mod))
			return true;
	return false;
}

/*
 * Batch @i's suspects (sweep.sh: DIR/suspects-N.txt, a module a line:
 * every driver an earlier boot that hung or crashed was put down to), or
 * (@what "kept") the drivers an earlier boot that crashed was through
 * with, not booted again (DIR/kept-N.txt), into @list, one a line; NULL
 * none. 0, or -1 when the file is not module names.
 */
static int module_list(const struct collect *c, const char *what, int i, char **list)
{
	char path[4096], why[HZRIG_WHY];
	size_t len;

	*list = NULL;
	snprintf(path, sizeof(path), "%s/%s-%d.txt", c->dir, what, i);
	if (access(path, F_OK))
		return 0;
	*list = hzrig_in_slurp(path, 1 << 16, &len, why, sizeof(why));
	if (!*list) {
		fprintf(stderr, "hzrig sweep collect: %s: %s\n", path, why);
		return -1;
	}
	for (char *s = *list; *s;) {
		size_t l = strcspn(s, "\n");
		char mod[HZRIG_NAME_MAX];

		if (l >= sizeof(mod) || (l && (memcpy(mod, s, l), mod[l] = 0,
					       !hzrig_plain_name(mod, why, sizeof(why))))) {
			fprintf(stderr, "hzrig sweep collect: %s: not a list of module names, one a line\n",
				path);
			free(*list);
			*list = NULL;
			return -1;
		}
		s += l + (s[l] == '\n');
	}
	return 0;
}

/* Is @mod a line of @list? */
static bool listed(const char *list, const char *mod)
{
	size_t ml = strlen(mod);

	for (const char *s = list; s && *s;) {
		size_t l = strcspn(s, "\n");

		if (l == ml && !memcmp(s, mod, l))
			return true;
		s += l + (s[l] == '\n');
	}
	return false;
}

/*
 * The drivers a batch's earlier boots hung or crashed with and that the
 * final boot (@last, NULL when it left nothing) did not load: each keeps
 * what the last boot that had it streamed, with outcome "kernel report"
 * when a report of those boots names its module (a crash's title), else
 * "hung the guest", and what the guest saw it do; confirmed when the
 * final boot ended well. A suspect the final boot loaded again is its
 * (batch_json()). 0, or -1 when the list is not module names.
 */
static int suspects(struct collect *c, int i, const struct hzrig_sweep_batch *last,
		    json_object *drivers)
{
	char *text, *s, *kept;
	struct hzrig_findings found = { 0 };
	bool confirmed = last && last->complete;

	if (module_list(c, "suspects", i, &text))
		return -1;
	if (module_list(c, "kept", i, &kept)) {
		free(text);
		return -1;
	}
	if (!text && !kept)
		return 0;
	earlier_boots(c, i, &found);
	for (s = text; s && *s;) {
		size_t l = strcspn(s, "\n");
		char mod[HZRIG_NAME_MAX], line[256];
		json_object *rep, *o;

		if (l) {
			memcpy(mod, s, l);
			mod[l] = 0;
			if (in_batch(last, mod)) {
				;	/* loaded again: the final boot's */
			} else if ((o = suspect_from_stream(c, i, mod, &found, confirmed, false))) {
				json_object_array_add(drivers, o);
			} else {
				bool named = false;

				rep = json_object_new_array();
				for (size_t f = 0; f < found.n; f++)
					if (json_object_array_length(rep) < HZRIG_SWEEP_REPORTS_MAX &&
					    hzrig_sweep_report_names(found.v[f].excerpt, mod)) {
						json_object_array_add(rep, hzrig_json_str(found.v[f].title));
						named = true;
					}
				snprintf(line, sizeof(line),
					 "the guest hung or crashed with it loaded, and no stream of batch %d's earlier boots has it (console-%d-first.log)",
					 i, i);
				json_object_array_add(drivers,
						      driver_json(mod, i, NULL,
								  named ? "kernel report" : "hung the guest",
								  0, "", line, rep,
								  json_object_new_array()));
			}
		}
		s += l + (s[l] == '\n');
	}
	/* the drivers a crashed boot was through with: as that boot saw them */
	for (s = kept; s && *s;) {
		size_t l = strcspn(s, "\n");
		char mod[HZRIG_NAME_MAX], line[256];
		json_object *o;

		memcpy(mod, s, l);
		mod[l] = 0;
		s += l + (s[l] == '\n');
		if (!l || in_batch(last, mod) || listed(text, mod))
			continue;
		o = suspect_from_stream(c, i, mod, &found, confirmed, true);
		if (!o) {
			snprintf(line, sizeof(line),
				 "kept from an earlier boot of batch %d, which crashed after it was through, but no stream of those boots has it",
				 i);
			o = driver_json(mod, i, NULL, "hung the guest", 0, "", line,
					json_object_new_array(), json_object_new_array());
		}
		json_object_array_add(drivers, o);
	}
	hzrig_findings_free(&found);
	free(text);
	free(kept);
	return 0;
}

/* One batch's drivers, each with its calls, in one pass each. */
/*
 * Batch @i's console (NULL if it has none), and the kernel reports on it,
 * whole, into @found: each is put down to a driver later.
 */
static char *batch_console(const struct collect *c, int i,
			   struct hzrig_findings *found)
{
	char path[4096], why[HZRIG_WHY];
	size_t len;
	char *console;
	FILE *cf;

	snprintf(path, sizeof(path), "%s/console-%d.log", c->dir, i);
	console = hzrig_in_slurp(path, HZRIG_MAX_CONSOLE, &len, why, sizeof(why));
	if (!console)
		return NULL;
	cf = fmemopen(console, len, "r");
	if (!cf || hzrig_scan_console(cf, found))
		fprintf(stderr, "hzrig sweep collect: %s: %s (reports not put down to drivers)\n",
			path, cf ? "cannot scan it" : strerror(errno));
	if (cf)
		fclose(cf);
	return console;
}

/* A parsed batch's own entry in sweep.json's "batches". */
static json_object *batch_object(int i, const struct hzrig_sweep_batch *b,
				 const char *ended, int64_t allow,
				 const char *console)
{
	json_object *bo;

	bo = json_object_new_object();
	hzrig_json_put(bo, "batch", json_object_new_int(i));
	hzrig_json_put(bo, "complete", json_object_new_boolean(b->complete));
	/* how its guest ended, and its last heartbeat (a streamed batch) */
	hzrig_json_put(bo, "ended", hzrig_json_str(ended));
	hzrig_json_put(bo, "last_alive_ms", b->last_alive_us >= 0 ?
		       hzrig_json_int(b->last_alive_us / 1000) : NULL);
	hzrig_json_put(bo, "settled_s", json_object_new_int(b->settled_s));
	/* a streamed batch's lines that came broken, skipped */
	hzrig_json_put(bo, "bad_lines", json_object_new_int((int)b->bad_lines));
	hzrig_json_put(bo, "k", json_object_new_int(b->k));
	hzrig_json_put(bo, "unplug_ms", json_object_new_int(b->unplug_ms));
	hzrig_json_put(bo, "allowance_ns", hzrig_json_int(allow));
	/* how many schedule_timeout() timers the grid was fitted from */
	hzrig_json_put(bo, "timers", json_object_new_int((int)b->ntimers));
	hzrig_json_put(bo, "usbmon_dropped", json_object_new_int((int)b->usbmon_dropped));
	/* trace events overwritten before read: its calls are a lower bound */
	hzrig_json_put(bo, "trace_overrun", b->trace_overrun >= 0 ?
		       hzrig_json_int(b->trace_overrun) : NULL);
	hzrig_json_put(bo, "calls_without_urb", json_object_new_int((int)b->unmatched_urbs));
	/* calls that failed before their URB reached the bus (-ENODEV) */
	hzrig_json_put(bo, "calls_refused", json_object_new_int((int)b->refused_urbs));
	hzrig_json_put(bo, "kernel_reports", reports(console));
	return bo;
}

static int batch_json(struct collect *c, int i, json_object *drivers,
		      json_object *batches)
{
	char path[4096], why[HZRIG_WHY];
	char *text, *console;
	size_t len;
	struct hzrig_sweep_batch b;
	int64_t allow;
	struct hzrig_findings found = { 0 };
	const char *ended;
	char ended_buf[32] = "", *sus = NULL;
	int rc;

	snprintf(path, sizeof(path), "%s/batch-%d.txt", c->dir, i);
	text = hzrig_in_slurp(path, HZRIG_MAX_CAPTURE, &len, why, sizeof(why));
	if (!text || hzrig_sweep_batch_parse(text, &b, why, sizeof(why))) {
		char st[32];

		free(text);
		/*
		 * A guest that died (its status says so): the batch is lost,
		 * not the sweep. Anything else wrong with the file is an
		 * error, and nothing is written.
		 */
		if (!guest_died(c, i, st, sizeof(st))) {
			fprintf(stderr, "hzrig sweep collect: %s: %s\n", path, why);
			return -1;
		}
		fprintf(stderr, "hzrig sweep collect: %s: %s; its guest ended '%s': the batch is recorded as lost\n",
			path, why, st);
		lost_batch(c, i, st, batches);
		return suspects(c, i, NULL, drivers);
	}
	free(text);
	console = batch_console(c, i, &found);
	allow = allowance(&b, (int)c->hz);
	{
		bool died = guest_died(c, i, ended_buf, sizeof(ended_buf));

		if (!b.complete)
			fprintf(stderr, "hzrig sweep collect: %s: no 'sweep end': its guest ended '%s'%s; what it streamed is kept%s\n",
				path, ended_buf[0] ? ended_buf : "unknown",
				died ? "" : " (not a death its status shows)",
				b.cut_line ? ", but for its last line, cut short" : "");
		ended = b.complete ? "ok" : ended_word(ended_buf);
		if (b.bad_lines)
			fprintf(stderr, "hzrig sweep collect: %s: %u lines were not whole and were skipped (the first: %s)\n",
				path, b.bad_lines, b.bad_why);
	}
	c->grid = !hzrig_jiffy_grid_fit(b.timers, b.ntimers, hzrig_tick_ns((int)c->hz),
					&c->grid_ns, &c->grid_jiffies);
	json_object_array_add(batches, batch_object(i, &b, ended, allow, console));
	if (module_list(c, "suspects", i, &sus)) {
		free(console);
		hzrig_findings_free(&found);
		hzrig_sweep_batch_free(&b);
		return -1;
	}
	for (size_t d = 0; d < b.ndrv; d++) {
		char diag[320];

		/*
		 * A suspect of this very boot, which hung or crashed with it
		 * and was not booted again (nothing was left to boot): hung
		 * the guest, not confirmed.
		 */
		if (!b.complete && listed(sus, b.drv[d].module)) {
			char name[32];

			snprintf(name, sizeof(name), "batch-%d.txt", i);
			suspect_words(&b.drv[d], console, i, name, false, diag, sizeof(diag));
			json_object_array_add(drivers, record_of(c, &b, i, &b.drv[d], console,
								 &found, allow, "hung the guest", diag));
		} else {
			json_object_array_add(drivers, record_of(c, &b, i, &b.drv[d], console,
								 &found, allow, NULL, NULL));
		}
	}
	free(sus);
	free(console);
	hzrig_findings_free(&found);
	rc = suspects(c, i, &b, drivers);
	hzrig_sweep_batch_free(&b);
	return rc;
}

static char *slurp_opt(const char *path, const char *what)
{
	char why[HZRIG_WHY];
	size_t len;
	char *t;

	if (!path)
		return NULL;
	t = hzrig_in_slurp(path, HZRIG_MAX_TEXT, &len, why, sizeof(why));
	if (!t)
		fprintf(stderr, "hzrig sweep collect: %s %s: %s\n", what, path, why);
	return t;
}

/* The options, then every batch, then one atomic write. */
int cmd_sweep_collect(int argc, char **argv)
{
	struct collect c = { .hz = 0, .batches = 0 };
	const struct hzrig_opt opts[] = {
		HZRIG_OPT_S("dir", &c.dir), HZRIG_OPT_S("variant", &c.variant),
		HZRIG_OPT_S("sweep-id", &c.sweep_id),
		HZRIG_OPT_N("hz", &c.hz, HZRIG_MODEL_HZ_MIN, HZRIG_MODEL_HZ_MAX),
		HZRIG_OPT_N("batches", &c.batches, 1, 1000),
		HZRIG_OPT_S("tree", &c.tree), HZRIG_OPT_S("modules", &c.kolist),
		HZRIG_OPT_S("firmware", &c.firmware), HZRIG_OPT_END,
	};
	json_object *root, *drivers, *batches;
	char path[4096], why[HZRIG_WHY];
	struct hzrig_out o;
	int r = hzrig_opts("sweep collect", argc, argv, opts, collect_usage), rc = 0;

	if (r < 0)
		return HZRIG_OPTS_EXIT(r);
	if (!c.dir || !c.variant || !c.sweep_id || !c.hz || !c.batches || r != argc) {
		fprintf(stderr, "hzrig sweep collect: --dir, --variant, --sweep-id, --hz and --batches are needed, and no operand\n");
		collect_usage(stderr);
		return 2;
	}
	if (!hzrig_plain_name(c.variant, why, sizeof(why)) ||
	    !hzrig_plain_name(c.sweep_id, why, sizeof(why))) {
		fprintf(stderr, "hzrig sweep collect: --variant or --sweep-id: %s\n", why);
		return 2;
	}
	c.model = hzrig_tree_default();
	if (c.tree) {
		char rel[64], vfile[4096];
		char *mk;
		size_t len;

		/* the tree's release line picks its model: "VERSION = 6\nPATCHLEVEL = 12" */
		snprintf(vfile, sizeof(vfile), "%s/Makefile", c.tree);
		mk = hzrig_in_slurp(vfile, HZRIG_MAX_SOURCE, &len, why, sizeof(why));
		if (mk) {
			const char *v = strstr(mk, "VERSION = "), *pl = strstr(mk, "PATCHLEVEL = ");

			if (v && pl) {
				snprintf(rel, sizeof(rel), "%d.%d", atoi(v + 10), atoi(pl + 13));
				if (hzrig_tree_model_for(rel, NULL))
					c.model = hzrig_tree_model_for(rel, NULL);
			}
			free(mk);
		}
	}
	if (c.tree) {
		char tool[4200];

		snprintf(tool, sizeof(tool), "%s/scripts/faddr2line", c.tree);
		if (access(tool, X_OK))
			fprintf(stderr, "hzrig sweep collect: warning: %s: %s; the calls' sites stay function+offset, without file:line\n",
				tool, strerror(errno));
	}
	c.kos = slurp_opt(c.kolist, "--modules");
	c.fw = slurp_opt(c.firmware, "--firmware");
	root = json_object_new_object();
	drivers = json_object_new_array();
	batches = json_object_new_array();
	hzrig_json_put(root, "schema", json_object_new_int(1));
	hzrig_json_put(root, "sweep_id", hzrig_json_str(c.sweep_id));
	hzrig_json_put(root, "variant", hzrig_json_str(c.variant));
	hzrig_json_put(root, "hz", json_object_new_int((int)c.hz));
	hzrig_json_put(root, "tree_model", hzrig_json_str(c.model->name));
	for (int i = 0; i < c.batches && !rc; i++)
		rc = batch_json(&c, i, drivers, batches);
	hzrig_json_put(root, "batches", batches);
	hzrig_json_put(root, "drivers", drivers);
	if (!rc) {
		snprintf(path, sizeof(path), "%s/sweep.json", c.dir);
		if (hzrig_out_open(&o, path, why, sizeof(why))) {
			fprintf(stderr, "hzrig sweep collect: %s: %s\n", path, why);
			rc = -1;
		} else {
			fputs(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
							     JSON_C_TO_STRING_NOSLASHESCAPE), o.f);
			fputc('\n', o.f);
			if (hzrig_out_commit(&o, why, sizeof(why))) {
				fprintf(stderr, "hzrig sweep collect: %s: %s\n", path, why);
				rc = -1;
			}
		}
	}
	if (!rc)
		printf("hzrig sweep collect: %s: %zu drivers in %lld batches\n", path,
		       json_object_array_length(drivers), c.batches);
	json_object_put(root);
	free(c.kos);
	free(c.fw);
	free(c.lines);
	return rc ? 1 : 0;
}
