/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the gadget's files share (the program is one process, several
 * threads):
 *   main.c       options, logging, the device files, the main loop
 *   ep0.c        the control protocol: data/status stages, our requests,
 *                events, a setup that arrived while another was pending
 *   endpoints.c  the bulk and interrupt endpoints, one worker thread each
 * gadget_logic.h has the decisions they take, unit-tested on their own.
 */
#ifndef HZRIG_GADGET_H
#define HZRIG_GADGET_H

#define _GNU_SOURCE
#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <linux/usb/gadgetfs.h>

#include "device_file.h"
#include "gadget_logic.h"

#define PROG			"hzrig-gadget"
#define UDC_FILE		"dummy_udc"
#define N_EVENTS		5	/* gadgetfs queues at most 5 */
#define EP0_MAX_DATA		256	/* gadgetfs RBUF_SIZE */
#define CANCEL_POLL_NS		200000ull
#define CANCEL_TRIES		5000	/* 1 s */
#define ORPHAN_DATA_WAIT_NS	100000000ull
#define ORPHAN_SETTLE_NS	50000ull
#define EP0_DATA_POLL_NS	100000ull	/* ep0_read_data(): look again */
#define EP0_READ_GUARD_NS	20000000ull	/* ep0.c ep0_read_guarded() */
#define DUMMY_FIFO_SIZE		64	/* dummy_hcd.c FIFO_SIZE */

enum wstate {
	W_IDLE,
	W_WAIT,		/* DELAY: waiting for the deadline */
	W_IO,		/* in a blocking read()/write() on the endpoint */
};

struct job {
	struct hzg_arm	arm;
	uint64_t	t0;	/* arm taken: DELAY counts from here unless
				 * the host gave its start_ns
				 */
};

/*
 * One thread per endpoint, because gadgetfs endpoint I/O is a blocking
 * read()/write() and ep0 must never wait for it. A worker does I/O only for
 * an armed job: gadgetfs cannot tell us when the host starts a transfer, so
 * a request queued "just in case" would answer a transfer that the next ARM
 * (which the kernel completes before we have read it) wanted NAKed.
 */
struct worker {
	const struct hzg_ep_info *info;
	pthread_t	thread;
	bool		started;
	pthread_mutex_t	lock;
	pthread_cond_t	cond;
	/* P: lock */
	int		fd;		/* -1 unless configured */
	unsigned int	maxp;
	bool		has_job;
	struct job	job;
	enum wstate	state;
	bool		stop;
	uint64_t	gen;		/* bumped to supersede the job */
	bool		fifo_dirty;	/* an answer may sit unread in the FIFO */
	uint8_t		buf[HZRIG_MAX_XFER];
};

struct hold {
	bool			active;
	struct usb_ctrlrequest	ctrl;
	struct hzg_plan		plan;
	uint32_t		seq;
	uint64_t		t0;		/* setup read */
	uint64_t		deadline;	/* DELAY: answer then */
};

struct orphan {
	enum hzg_orphan	kind;
	size_t		len;
	uint8_t		data[EP0_MAX_DATA];
};

struct gadget {
	const char		*dir;
	const char		*ready_file;
	const char		*config_file;
	bool			with_hs;
	/* -D FILE: present that device instead of hzrig's (device_file.h) */
	const char		*device_path;
	struct hzg_device_file	*dev;
	bool			omit[HZG_EP_COUNT]; /* -x: not in descriptors */
	int			fd;		/* ep0: the controller file */
	int			tfd;		/* timerfd for a held DELAY */
	timer_t			read_guard;	/* main.c read_guard_init() */
	int			speed;		/* enum usb_device_speed */
	bool			configured;
	bool			abort_pending;
	int			exit_code;
	bool			done;
	uint32_t		last_arm_seq;	/* echoed by SYNC */
	uint32_t		heartbeats;	/* answered HEARTBEATs */
	struct hzg_slot		slot[HZRIG_TARGET_COUNT]; /* ep0 targets */
	struct worker		w[HZG_EP_COUNT];
	struct hold		hold;
	struct orphan		orphan;
	uint8_t			ep0buf[HZRIG_MAX_XFER];
	struct usb_gadgetfs_event ev[N_EVENTS];
};


enum ep0_rc {
	EP0_OK,
	EP0_ABORT,	/* a newer setup replaced this one: ep0_resolve() */
	EP0_GONE,	/* setup state left under us (disconnect) or failed */
};



uint64_t hzg_now_ns(void);

struct timespec hzg_ns_to_ts(uint64_t ns);

double hzg_ms_since(uint64_t t);

void hzg_info(const char *fmt, ...);

void hzg_warn(const char *fmt, ...);

void hzg_error(int err, const char *fmt, ...);

void hzg_fatal(struct gadget *g);
bool hzg_stop_requested(void);	/* SIGTERM or SIGINT came */

bool hzg_high_speed(const struct gadget *g);

const char *hzg_speed_name(int speed);

int hzg_create_file(const char *path, const char *what, const char *text);

void hzg_ep_path(const struct gadget *g, const struct hzg_ep_info *ep,
		    char *path, size_t cap);

size_t hzg_omit_endpoints(const struct gadget *g, uint8_t *buf,
			     size_t len);

void hzg_worker_post(struct gadget *g, struct worker *w,
			const struct hzg_arm *arm);

void hzg_endpoints_down(struct gadget *g);

int hzg_endpoints_up(struct gadget *g);

int hzg_endpoint_restart(struct gadget *g, enum hzg_ep idx);

void hzg_disarm_all(struct gadget *g);

enum ep0_rc hzg_ep0_exec(struct gadget *g,
			    const struct usb_ctrlrequest *ctrl,
			    const struct hzg_plan *p, uint32_t seq);

void hzg_hold_stop(struct gadget *g);

int hzg_read_events(struct gadget *g, struct orphan *o);

/* True if the new request is held unseen (-D): no event to read then. */
bool hzg_ep0_resolve(struct gadget *g);

void hzg_orphan_no_event(struct gadget *g, struct orphan *o);

/* More than one CPU: the kernel side runs while we wait (main.c). */
extern bool hzg_smp;

/* A worker thread's body (pthread_create()). */
void *hzg_worker_main(void *arg);

#endif /* HZRIG_GADGET_H */
