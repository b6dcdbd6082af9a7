/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The gadget simulator's shared state (fake_gadgetfs.c says what it is):
 *   model.c      gadgetfs's ep0 and endpoint files and dummy_hcd, modelled
 *   wrap.c       the wrapped calls (ld --wrap) that route the gadget to it
 *   host.c       the scripted host: control and bulk transfers, checks
 *   fake_gadgetfs.c  the scenarios, the host thread, start and end
 * Everything is guarded by sim_mutex.
 */
#ifndef HZRIG_SIM_H
#define HZRIG_SIM_H

#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <linux/usb/gadgetfs.h>

#include "hzrig/wire.h"

#define SIM_DIR		"/hzrig-sim"
#define UDC_NAME	"dummy_udc"
#define RBUF_SIZE	256
#define N_EVENT		5
#define FIFO_SIZE	64
#define MAX_FDS		1024

int __real_open(const char *path, int flags, ...);
ssize_t __real_read(int fd, void *buf, size_t n);
ssize_t __real_write(int fd, const void *buf, size_t n);
int __real_close(int fd);
int __real_fcntl(int fd, int cmd, ...);
int __real_access(const char *path, int mode);
int __real_poll(struct pollfd *p, nfds_t n, int timeout);
int __real_ppoll(struct pollfd *p, nfds_t n, const struct timespec *ts,
		 const sigset_t *mask);

/* ---------------------------------------------------------------- */
/* ep0 and the device: inode.c's struct dev_data, reduced */

enum {
	ST_DISABLED, ST_OPENED, ST_UNCONNECTED, ST_CONNECTED, ST_SETUP,
};

struct sim_dev {
	int		state;
	int		wake;		/* eventfd: ep0_readable() */
	struct usb_gadgetfs_event ev[N_EVENT];
	unsigned int	ev_next;
	bool		usermode_setup, setup_in, setup_can_stall;
	bool		setup_out_ready, setup_out_error, setup_abort;
	unsigned int	setup_wlength;
	int		speed;
	bool		hs;
	uint8_t		rbuf[RBUF_SIZE];
	unsigned int	actual;
	bool		req_busy;	/* queued, not given back yet */
	uint8_t		config_value;
	uint8_t		fs_eps[8][7], hs_eps[8][7];	/* from the configs */
	int		n_eps;
};

/* the host's control transfer in flight on ep0 */
struct sim_hx {
	bool		active, done;
	struct usb_ctrlrequest setup;
	uint8_t		data[4096];
	unsigned int	len, actual;
	int		status;
};

enum { EP_DISABLED, EP_READY, EP_ENABLED };

#define N_EPS	6

struct fep {
	const char	*name;
	int		wake;
	int		state;
	uint8_t		desc[7];	/* the enabled one */
	bool		halted;
	/* the gadget's one blocking request */
	bool		req_active, req_done;
	uint8_t		*req_buf;
	unsigned int	req_len, req_actual;
	int		req_status;
	/* dummy_hcd's single-request FIFO: IN data taken at once */
	uint8_t		fifo[FIFO_SIZE];
	unsigned int	fifo_len;
	bool		fifo_full;
	unsigned int	enables;	/* how often enabled */
	unsigned int	refs;		/* descriptors open on the file */
};

struct sim_fd {
	int	kind;		/* 0 none, 1 ep0, 2 ep */
	int	ep;
	bool	nonblock;
};

#define VOUT	(USB_DIR_OUT | USB_TYPE_VENDOR | USB_RECIP_DEVICE)
#define VIN	(USB_DIR_IN | USB_TYPE_VENDOR | USB_RECIP_DEVICE)

extern pthread_mutex_t sim_mutex;
extern pthread_cond_t sim_cond;		/* host side waits; CLOCK_MONOTONIC */
extern struct sim_dev sim_dev;
extern struct sim_hx sim_hx;
extern struct fep sim_eps[N_EPS];
extern struct sim_fd sim_fds[MAX_FDS];
extern bool sim_bound;
extern bool sim_race_read, sim_race_in_read;	/* race_window() */
extern pthread_t sim_host_thread;
extern volatile int sim_host_finished;
/*
 * SIM_DEVICE set: the gadget runs with -D (another device; make simtest's
 * second run): its own IDs, no endpoint files, scenario_device() only.
 */
extern bool sim_device;
extern int sim_failures, sim_checks;
extern bool sim_configured;

uint64_t sim_now_ns(void);

void sim_wake(int efd);

void sim_drain(int efd);

int sim_fail(int err);

struct usb_gadgetfs_event *sim_next_event(int type);

void sim_deliver_out_data(void);

int sim_gadgetfs_setup(const struct usb_ctrlrequest *sim_ctrl, bool hold_data);

ssize_t sim_ep0_read(bool nonblock, void *buf, size_t len);

ssize_t sim_ep0_write(const void *buf, size_t len);

short sim_ep0_poll(void);

unsigned int sim_ep_maxp(const struct fep *e);

void sim_ep_disable(struct fep *e);

ssize_t sim_ep_rw(struct fep *e, void *buf, size_t len, bool write);

void sim_check(bool ok, const char *fmt, ...);

void sim_msleep(unsigned int ms);

/* sim_ctrl_data()'s @data_delay_ms: the OUT data stage never comes */
#define SIM_DATA_NEVER	(~0u)
int sim_ctrl_data(uint8_t type, uint8_t req, uint16_t value,
		     uint16_t index, void *data, uint16_t len,
		     unsigned int timeout_ms, unsigned int data_delay_ms);

int sim_ctrl(uint8_t type, uint8_t req, uint16_t value, void *data,
		uint16_t len, unsigned int timeout_ms);

struct hzrig_arm sim_arm_record(unsigned int target, unsigned int beh,
				uint32_t seq, uint32_t delay_us,
				uint32_t length, uint64_t start_ns);
int sim_arm_at(unsigned int target, unsigned int beh, uint32_t seq,
		  uint32_t delay_us, uint32_t length, uint64_t start_ns);

int sim_arm(unsigned int target, unsigned int beh, uint32_t seq,
	       uint32_t delay_us, uint32_t length);

uint32_t sim_hdr_seq(const uint8_t *b);

void sim_fill_out(uint8_t *b, unsigned int len, uint32_t seq);

int sim_xfer_in(uint8_t addr, uint8_t *buf, unsigned int len,
		   unsigned int timeout_ms);

int sim_xfer_out(uint8_t addr, const uint8_t *buf, unsigned int len,
		    unsigned int timeout_ms);

void sim_clear_halt(uint8_t addr);

void sim_disconnect(void);

bool sim_all_enabled(unsigned int min_enables);

void sim_enumerate(unsigned int round);

uint64_t sim_t_ms(uint64_t t0);

void *sim_host_main(void *arg);

#endif /* HZRIG_SIM_H */
