/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The driver sweep (docs/sweep.md), host side:
 *
 *  ids.c     modules.alias' USB entries, and a device for each driver
 *            built from one of them (hzrig sweep devices);
 *  guest.c   one guest batch's lines (initramfs/sweep.sh) read back:
 *            each synchronous call a driver made, with the timeout it
 *            passed, its return address, its URB as usbmon timed it,
 *            and what the device did with it (hzrig sweep collect);
 *  judge.c   each NAKed call against the model's window, and the rule
 *            that names a site HZ-dependent (hzrig sweep report).
 */
#ifndef HZRIG_SWEEP_H
#define HZRIG_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

/* ---------------------------------------------------------------- ids.c */

#define HZRIG_ID_ANY	(-1)

/*
 * One "alias usb:v...p...d...dc..dsc..dp..ic..isc..ip..in.. MODULE" line:
 * each field its value, or HZRIG_ID_ANY for '*'. bcd is the lowest
 * bcdDevice the entry's pattern matches (modpost writes a range as a
 * glob: "d01[0-9]*"), or HZRIG_ID_ANY.
 */
struct hzrig_usb_id {
	char module[64];
	int vendor, product, bcd;
	int dev_class, dev_subclass, dev_protocol;
	int intf_class, intf_subclass, intf_protocol, intf_number;
};

/*
 * Parse one line of modules.alias. 1 for a USB entry, 0 for another bus's
 * (or a comment), -1 for a USB line that is not of that form, with the
 * reason in @why.
 */
int hzrig_usb_id_parse(const char *line, struct hzrig_usb_id *id, char *why,
		       size_t n);

/* True when @id names both vendor and product (the entries preferred). */
bool hzrig_usb_id_specific(const struct hzrig_usb_id *id);

/*
 * Which of a module's entries its device is built from: the first one
 * that names vendor and product, else its first entry. True when @cand,
 * seen after @cur, takes its place.
 */
bool hzrig_usb_id_better(const struct hzrig_usb_id *cur,
			 const struct hzrig_usb_id *cand);

/*
 * The device file (gadget/device_file.h's format) of a device that
 * @id matches: its VID/PID and bcdDevice, its device class triple, and
 * interfaces 0..N with the matched one last (number N = the entry's, or
 * 0), carrying the entry's interface class triple and the default
 * endpoints: bulk in 0x81, bulk out 0x02, interrupt in 0x83; for an audio
 * or video interface class also its alternate setting 1 with an
 * isochronous IN endpoint 0x84 (and for audio an OUT one, 0x05), and so
 * for a driver whose @stream (USB_CLASS_AUDIO or USB_CLASS_VIDEO, from
 * what it is built on: hzrig_sweep_stream_class(); 0 none) says it
 * streams, though its entry's class is vendor-specific. A field the
 * entry leaves open gets 0, except an open interface class, which gets
 * 0xff (vendor-specific). @alias is the line it came from, for the
 * file's comment. The length written, or 0 when @cap is too small or the
 * entry's interface number leaves no room (HZRIG_SWEEP_INTF_MAX).
 */
#define HZRIG_SWEEP_INTF_MAX	8	/* interfaces a built device has at most */
size_t hzrig_usb_id_device(const struct hzrig_usb_id *id, const char *alias,
			   int stream, char *buf, size_t cap);

/*
 * What a driver streams, from one line of modules.dep ("kernel/.../M.ko:
 * DEP.ko ..."), the modules it is built on: USB_CLASS_VIDEO for V4L2's
 * videodev or DVB's dvb-core (gspca's subdrivers match vendor-specific
 * interfaces, and their streaming start, where most of their requests
 * are, wants an isochronous endpoint), USB_CLASS_AUDIO for ALSA's
 * snd-pcm, else 0. The module's own name, '-' as '_', into @mod (@n
 * bytes). -1 when the line is not of that form.
 */
int hzrig_sweep_stream_class(const char *line, char *mod, size_t n);
/*
 * Other shapes of the device for the same entry, tried in turn when the
 * default one does not bind (docs/sweep.md, "Devices that do not bind"):
 * 1, more endpoints (interrupt-out, a second bulk pair) and an
 * alternate setting 1 with isochronous endpoints; 2, the matched
 * interface at number 1 (or the entry's) with two more of its class,
 * under an interface association, each with an isochronous alternate;
 * 3, for a CDC entry (communications or CDC-data class), a control
 * interface with its header, call-management, ACM and union descriptors
 * and a data interface; 4, the matched interface with one interrupt IN
 * endpoint alone (a tablet's, a remote's probe wants exactly that); 5,
 * with an interrupt IN and OUT pair alone. Written into @buf like
 * hzrig_usb_id_device(); 0 when @shape is not one for this entry (or does
 * not fit): the device's files are numbered by shape, with gaps, and the
 * guest tries those there are in turn.
 */
#define HZRIG_SWEEP_SHAPES	5
size_t hzrig_usb_id_shape(const struct hzrig_usb_id *id, const char *alias,
			  unsigned int shape, char *buf, size_t cap);

/* ---------------------------------------------------------------- guest.c */

#define HZRIG_SWEEP_CHAIN	4

enum hzrig_sweep_call_kind {
	HZRIG_CALL_CONTROL, HZRIG_CALL_CONTROL_SEND, HZRIG_CALL_CONTROL_RECV,
	HZRIG_CALL_BULK, HZRIG_CALL_INTERRUPT, HZRIG_CALL_KINDS
};

const char *hzrig_sweep_call_name(enum hzrig_sweep_call_kind k);

/* One synchronous call a driver made, from the trace and usbmon. */
struct hzrig_sweep_call {
	enum hzrig_sweep_call_kind kind;
	int pid;
	int timeout_arg;
	uint64_t ip;			/* the driver's return address */
	char where[128];		/* "func+0x1f/0x80 [module]", or "" */
	/* the stack's frames in modules, innermost first (where is [0]) */
	char chain[HZRIG_SWEEP_CHAIN][128];
	int nchain;
	char module[64];		/* the device's driver, by its bus */
	int64_t entry_us, return_us;	/* trace, monotonic */
	int ret;			/* the call's return */
	bool returned;
	/* its (last) URB, as usbmon saw it; urb_us -1 when none was found */
	uint64_t urb;
	bool urb_sync;			/* usb_start_wait_urb() submitted it */
	int bus, dev, ep;
	uint8_t setup[8];
	bool has_setup;
	int64_t submit_us, urb_us;
	int urb_status;
	/* what hzrig-rawdev did with its control request: nak, stall, ... */
	char action[8];
	/* the schedule_timeout() timer it armed (timer:timer_start) */
	bool has_timer;
	struct hzrig_timer_start timer;
};

/* One driver of the batch. */
struct hzrig_sweep_driver {
	char module[64];
	char file[96];			/* its device file's name */
	int bus;			/* dummy_hcd bus it was on, 0: never seen */
	bool enumerated, bound;
	bool modprobe_done;
	int modprobe_rc;
	int64_t probe_us;		/* modprobe start to return, -1 if not */
	int64_t mark_us;		/* trace_marker's start, -1 if none */
	unsigned int nak, stall, answer;	/* class/vendor requests */
	bool unplugged;			/* unplugged under a NAKed one */
	/*
	 * Contained (hzrig-rawdev's "contain=" line): its device unplugged
	 * because the driver looped on its refusals ("loop"), flooded the
	 * kernel log ("flood") or made calls without end ("calls"); how
	 * many since when, and the endpoint and
	 * clear-halts of a loop. contain[0] == 0: not contained.
	 */
	char contain[8];
	unsigned int contain_count, contain_clear_halts;
	int64_t contain_since_us, contain_us;
	int contain_ep;
	int64_t end_mark_us;		/* trace's modprobe-end mark, -1 */
	int walk_passes;		/* the walk's passes that NAKed; -1 none */
	/* the last shape its device was plugged in as (0: its device file) */
#define HZRIG_SWEEP_SHAPES_MAX	9
	int shape;
	/*
	 * When each pass of the walk began (its "walk=replug pass=P" line):
	 * pass_us[P], 0 for a pass not seen; pass 1 begins with the batch.
	 */
#define HZRIG_SWEEP_PASSES_MAX	64
	int64_t pass_us[HZRIG_SWEEP_PASSES_MAX + 1];
	/*
	 * The request each pass NAKed (its "walk=nak pass=P request=J"
	 * line: the J-th counted request of the plug), 0 when not seen.
	 */
#define HZRIG_SWEEP_REQUEST_MAX	1000000
	int pass_req[HZRIG_SWEEP_PASSES_MAX + 1];
	/* the user-facing entries the guest used: "tty:ttyUSB0 rc=0" */
#define HZRIG_SWEEP_OPENED_MAX	8
	char opened[HZRIG_SWEEP_OPENED_MAX][64];
	int nopened;
};

struct hzrig_sweep_batch {
	int batch, size, k, settled_s, max_s;
	int unplug_ms;			/* the unplug pass's delay; 0: none */
#define HZRIG_SWEEP_UNPLUG_MS_MAX	60000	/* hzrig-rawdev -d's limit */
	bool complete;			/* "sweep end" seen */
	bool streamed;			/* "sweep begin ... stream=1" */
	bool cut_line;			/* its last line cut short, not read */
	/*
	 * A streamed batch's lines that were not whole (bytes the serial
	 * line lost): skipped and counted, the first one's reason kept.
	 */
	unsigned int bad_lines;
	char bad_why[160];
	int walk;			/* the walk's passes at most; 0: none */
	int64_t last_alive_us;		/* the last heartbeat's time, -1: none */
	struct hzrig_sweep_driver *drv;
	size_t ndrv, drvcap;
	struct hzrig_sweep_call *call;
	size_t ncall, callcap;
	unsigned int usbmon_dropped;
	/*
	 * events the trace's ring buffer overwrote before the stream read
	 * them ("sweep trace overrun=N", the guest's count at its last say):
	 * calls lost, so the batch's are a lower bound; -1 not said
	 */
	long long trace_overrun;
	unsigned int unmatched_urbs;	/* calls whose URB usbmon lacks */
	unsigned int refused_urbs;	/* failed calls whose URB never left */
	/* every schedule_timeout() timer armed: the tick grid's sightings */
	struct hzrig_timer_start *timers;
	size_t ntimers, timercap;
};

/*
 * Read one batch's lines (@text, NUL-terminated) into @b. 0, or -1 with
 * the reason (and its line) in @why.
 */
int hzrig_sweep_batch_parse(const char *text, struct hzrig_sweep_batch *b,
			    char *why, size_t n);
void hzrig_sweep_batch_free(struct hzrig_sweep_batch *b);

/*
 * Does a kernel report (@excerpt: its console lines) name @module in its
 * stack: a frame "func+0x../0x.. [module]", or the work item it ran,
 * "Workqueue: events func [module]"? That puts the report down to the
 * driver whose code was running (collect's outcome "kernel report").
 */
bool hzrig_sweep_report_names(const char *excerpt, const char *module);
/*
 * A kernel report's time: its excerpt's first "[  SECS.USECS]" in
 * microseconds (the guest's clock, as the trace's and rawdev's), or -1.
 */
int64_t hzrig_sweep_report_us(const char *excerpt);
/*
 * The walk's pass of @d that was on at @t_us: 1 until its second pass
 * began, and so on.
 */
int hzrig_sweep_pass_at(const struct hzrig_sweep_driver *d, int64_t t_us);

/*
 * The request that pass NAKed (or unplugged under): the number its
 * "walk=nak" line gave, the pass's own number in a stream without one.
 */
int hzrig_sweep_request_at(const struct hzrig_sweep_driver *d, int64_t t_us);

/* ---------------------------------------------------------------- load.c */

/*
 * One variant's sweep.json (hzrig sweep collect writes it), read and
 * checked field by field: what report, ingest, the dashboard and KCIDB
 * read. A field the file leaves null is HZRIG_ABSENT (numbers) or ""
 * (strings).
 */
struct hzrig_sweep_rcall {
	char call[32], where[160], site[200], function[64];
	char action[8], verdict[8], setup[17];
	char stack[HZRIG_SWEEP_CHAIN][200];
	int nstack;
	int timeout_arg, ep;
	int64_t ret, urb_ns, urb_status, call_ns, window_lo_ns, window_hi_ns;
	/* ticks jiffies was behind the grid at its timer; HZRIG_ABSENT */
	int64_t jiffies_lag;
};

#define HZRIG_SWEEP_REPORTS_MAX	8	/* a driver's, kept in its record */
#define HZRIG_SWEEP_DIAGNOSIS_MAX	320

struct hzrig_sweep_rdriver {
	char module[64], outcome[20], firmware[256];
	/* what the guest saw it do: a contained loop, a hang; "" none */
	char diagnosis[HZRIG_SWEEP_DIAGNOSIS_MAX];
	/* the zero-filled files that stood in for its firmware; "" none */
	char firmware_standin[256];
	int64_t walk_passes;	/* the walk's passes; HZRIG_ABSENT: no walk */
	int shape;		/* the last shape tried (0: only the default) */
	char opened[HZRIG_SWEEP_OPENED_MAX][64];	/* entries used after bind */
	int nopened;
	int batch, bus, nak, stall, answer;
	bool unplugged;
	/* the kernel reports whose stack names this module, their titles */
	char reports[HZRIG_SWEEP_REPORTS_MAX][256];
	int nreports;
	/* the walk's request each came under (the unplug pass); 0: unknown */
	int report_request[HZRIG_SWEEP_REPORTS_MAX];
	int64_t err, modprobe_rc, probe_ns;
	struct hzrig_sweep_rcall *calls;
	size_t ncalls;
};

struct hzrig_sweep_rbatch {
	int batch, settled_s, k, usbmon_dropped, calls_without_urb;
	int unplug_ms;
	bool complete;
	/* how its guest ended (hzrig boot's word), its last heartbeat */
	char ended[16];
	int64_t last_alive_ms;	/* HZRIG_ABSENT: none, or an older file */
	int bad_lines;		/* a streamed batch's broken lines, skipped */
	int64_t allowance_ns;
	int64_t timers;		/* the grid's sightings; HZRIG_ABSENT */
	char (*reports)[256];
	size_t nreports;
};

struct hzrig_sweep_run {
	char sweep_id[32], variant[64], tree_model[16];
	int hz;
	struct hzrig_sweep_rbatch *batches;
	size_t nbatches;
	struct hzrig_sweep_rdriver *drivers;
	size_t ndrivers;
};

/*
 * A probe that blocked longer than this is a finding of its own (the
 * report's list, the dashboard's red, KCIDB's FAIL): docs/sweep.md.
 */
#define HZRIG_SWEEP_LONG_PROBE_NS	10000000000LL

/* The driver @module of @r, or NULL. */
const struct hzrig_sweep_rdriver *hzrig_sweep_driver(const struct hzrig_sweep_run *r,
						     const char *module);

/* Did @d's probe block longer than HZRIG_SWEEP_LONG_PROBE_NS? */
bool hzrig_sweep_long_probe(const struct hzrig_sweep_rdriver *d);

/* The outcomes a driver can have, in the order reports list them. */
#define HZRIG_SWEEP_NOUTCOMES	8
extern const char *const hzrig_sweep_outcomes[HZRIG_SWEEP_NOUTCOMES];

/*
 * Parse and check @text (NUL-terminated) into @r. 0, or -1 with the
 * first problem, naming its field ("drivers[3].calls[0].timeout_arg:
 * ..."), in @why; @r is then empty.
 */
int hzrig_sweep_load(const char *text, struct hzrig_sweep_run *r, char *why,
		     size_t n);
/* The same from a file, read through rig/lib/io.c. */
int hzrig_sweep_load_file(const char *path, struct hzrig_sweep_run *r,
			  char *why, size_t n);
void hzrig_sweep_run_free(struct hzrig_sweep_run *r);

/* ---------------------------------------------------------------- judge.c */

/*
 * The HZ-dependence rule (docs/sweep.md): one site's waits at two HZ, each
 * with the model's window for the timeout it passed there and that run's
 * noise allowance. The site is HZ-dependent when the medians differ by
 * more than both windows and both allowances can explain:
 *
 *   |med_a - med_b| > (hi_a - lo_a) + (hi_b - lo_b) + allow_a + allow_b
 *
 * A driver that passes the same milliseconds at both HZ gets windows that
 * start at the same time, so its waits differ by at most
 * the widths and the noise. @why says which way it went.
 */
struct hzrig_site_wait {
	int hz;
	int timeout_arg;
	int64_t median_ns;
	uint64_t lo_ns, hi_ns;
	int64_t allowance_ns;
};

bool hzrig_sweep_hz_dependent(const struct hzrig_site_wait *a,
			      const struct hzrig_site_wait *b, char *why,
			      size_t n);

/*
 * Every NAKed call (a call with a window) of @runs, by driver and site:
 * per run (per[i] is runs[i]'s, n 0 where the site was not measured) the
 * timeout passed, the waits' median, the window, the allowance; then the
 * rule above between the lowest and the highest HZ the site was measured
 * at. The report, the dashboard and KCIDB read the sites from here.
 */
#define HZRIG_SWEEP_RUNS_MAX	8

struct hzrig_sweep_site_hz {
	int hz, timeout_arg, n, inside;
	int64_t median_ns, allowance_ns;
	uint64_t lo, hi;
};

struct hzrig_sweep_site {
	char module[64], site[200], function[64];
	struct hzrig_sweep_site_hz per[HZRIG_SWEEP_RUNS_MAX];
	bool dependent;
	char why[320];
};

/* 0, or -1 out of memory; *@sites freed by the caller. At most 8 runs. */
int hzrig_sweep_sites(const struct hzrig_sweep_run *runs, int nruns,
		      struct hzrig_sweep_site **sites, size_t *n);

int cmd_sweep(int argc, char **argv);

#endif /* HZRIG_SWEEP_H */
