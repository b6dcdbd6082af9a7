/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One sample's fields, defined once. Every reader and writer of a sample
 * takes its fields from HZRIG_SAMPLE_FIELDS:
 *   the guest's ttyS1 record    capture.c parses the fields marked GUEST
 *   samples.jsonl               collect.c writes every present field, in
 *                               this order; runs/load.c reads them back
 *   the history's samples table history/db.c binds and selects them by
 *                               column name (the member's name)
 *   everything after            struct hzrig_run_sample's members
 *
 * Adding a field is one line here, plus a migration in history/db.c that
 * adds its column (docs/architecture.md, "Adding a sample field"). A field
 * the guest measures is also filled by the runner (initramfs/runner) from
 * struct hzrig_sample (include/hzrig/ioctl.h), which is the driver's ABI.
 *
 * INT(member, key, lo, hi, flags): an integer, int64_t member; absent is
 *   HZRIG_ABSENT. Values outside lo..hi are refused by every reader.
 * TEXT(member, key, size, flags, check, what): a string of at most size - 1
 *   bytes; absent is "". check(value) < 0 refuses the value ("'x' is not
 *   <what>"); hzrig_sample_any() accepts every value.
 * flags:
 *   HZRIG_SF_REQ    every samples.jsonl record has it
 *   HZRIG_SF_GUEST  the guest's record carries it (collect.c derives the rest)
 *   HZRIG_SF_GREQ   every guest record has it
 *   HZRIG_SF_NULL   written as null when absent (a wait without a window)
 *
 * samples.jsonl's envelope, "schema", "variant" and "hz", comes before the
 * fields and belongs to the variant, not to the sample.
 */
#ifndef HZRIG_SAMPLE_H
#define HZRIG_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hzrig/ioctl.h>

#include "lib/util.h"		/* HZRIG_ABSENT */
#include "model/model.h"	/* HZRIG_NS_MAX */

#define HZRIG_SF_REQ	0x1
#define HZRIG_SF_GUEST	0x2
#define HZRIG_SF_GREQ	0x4
#define HZRIG_SF_NULL	0x8

#define HZRIG_SF_G	(HZRIG_SF_GUEST)
#define HZRIG_SF_RG	(HZRIG_SF_REQ | HZRIG_SF_GUEST | HZRIG_SF_GREQ)
#define HZRIG_SF_OG	(HZRIG_SF_GUEST | HZRIG_SF_GREQ)

#define HZRIG_STATUS_MIN	(-4095)	/* 0 or a negative errno */

#define HZRIG_SAMPLE_FIELDS(INT, TEXT)					\
	TEXT(path, "path", 16, HZRIG_SF_G, hzrig_path_parse,		\
	     "kernel, usbfs, libusb-sync, libusb-async or usbmon")	\
	TEXT(transfer, "transfer", 32, HZRIG_SF_RG,			\
	     hzrig_transfer_parse, "a transfer of the plan")		\
	TEXT(behaviour, "behaviour", 32, HZRIG_SF_RG,			\
	     hzrig_behaviour_parse, "a behaviour of the plan")		\
	TEXT(mode, "mode", 32, HZRIG_SF_RG, hzrig_mode_parse,		\
	     "a timeout mode of the plan")				\
	INT(timeout_ms, "timeout_ms", 0, HZRIG_MAX_TIMEOUT_MS, HZRIG_SF_RG) \
	INT(timeout_arg, "timeout_arg", INT32_MIN, INT32_MAX, HZRIG_SF_RG) \
	INT(status, "status", HZRIG_STATUS_MIN, 0, HZRIG_SF_RG)	\
	INT(elapsed_ns, "elapsed_ns", 0, HZRIG_NS_MAX, HZRIG_SF_RG)	\
	INT(actual_length, "actual_length", 0, HZRIG_MAX_LENGTH, HZRIG_SF_OG) \
	INT(seq, "seq", 0, UINT32_MAX, HZRIG_SF_OG)			\
	INT(phase_ns, "phase_ns", 0, UINT32_MAX, HZRIG_SF_OG)		\
	INT(case_idx, "case", 0, INT32_MAX, HZRIG_SF_RG)		\
	INT(rep, "rep", 0, HZRIG_MAX_REPS - 1, HZRIG_SF_RG)		\
	INT(window_lo_ns, "window_lo_ns", 0, HZRIG_NS_MAX, HZRIG_SF_NULL) \
	INT(window_hi_ns, "window_hi_ns", 0, HZRIG_NS_MAX, HZRIG_SF_NULL) \
	INT(jiffies, "jiffies", 0, INT64_MAX, HZRIG_SF_NULL)		\
	INT(level, "level", 0, 64, HZRIG_SF_NULL)			\
	INT(granule, "granule", 0, INT64_MAX, HZRIG_SF_NULL)		\
	INT(cancel_ns, "cancel_ns", 0, HZRIG_NS_MAX, 0)		\
	INT(allowance_ns, "allowance_ns", 0, HZRIG_NS_MAX, 0)		\
	TEXT(verdict, "verdict", 16, HZRIG_SF_REQ, hzrig_verdict_parse, \
	     "a verdict")						\
	INT(expected_status, "expected_status", HZRIG_STATUS_MIN, 0, 0)	\
	INT(start_jiffies, "start_jiffies", 0, INT64_MAX, HZRIG_SF_G)	\
	INT(length, "length", 0, HZRIG_MAX_LENGTH, HZRIG_SF_G)		\
	INT(delay_us, "delay_us", 0, UINT32_MAX, HZRIG_SF_G)		\
	INT(jiffies_lag, "jiffies_lag", INT32_MIN, INT32_MAX, HZRIG_SF_G) \
	INT(urb_ns, "urb_ns", 0, HZRIG_NS_MAX, HZRIG_SF_G)		\
	TEXT(driver, "driver", 32, HZRIG_SF_G, hzrig_sample_any,	\
	     "a driver")						\
	TEXT(site, "site", 160, HZRIG_SF_G, hzrig_sample_any, "a site")

#define HZRIG_SAMPLE_INT_MEMBER(m, key, lo, hi, fl)	int64_t m;
#define HZRIG_SAMPLE_TEXT_MEMBER(m, key, sz, fl, check, what)	char m[sz];

/*
 * One timed call as samples.jsonl and the samples table hold it, and as
 * the guest's record gives it (its GUEST fields). The members come from
 * the table; variant and line say where the sample was read.
 */
struct hzrig_run_sample {
	HZRIG_SAMPLE_FIELDS(HZRIG_SAMPLE_INT_MEMBER, HZRIG_SAMPLE_TEXT_MEMBER)
	size_t variant;			/* index into hzrig_run.v */
	unsigned int line;		/* of samples.jsonl; 0 from the DB */
};

/* What the table says of one field, for the loops that walk it. */
struct hzrig_sample_field {
	const char *member;		/* also its column in the samples table */
	const char *key;		/* in JSON */
	bool text;
	size_t off, size;		/* in struct hzrig_run_sample */
	int64_t lo, hi;			/* integers */
	unsigned int flags;
	int (*check)(const char *);	/* text */
	const char *what;		/* text: what check() accepts */
};

extern const struct hzrig_sample_field hzrig_sample_fields[];
extern const size_t hzrig_nsample_fields;

/* check() of a text field that takes any value. */
int hzrig_sample_any(const char *s);

/* A sample with every field absent. */
void hzrig_sample_init(struct hzrig_run_sample *s);

static inline int64_t *hzrig_sample_int(struct hzrig_run_sample *s,
					const struct hzrig_sample_field *f)
{
	return (int64_t *)((char *)s + f->off);
}

static inline char *hzrig_sample_text(struct hzrig_run_sample *s,
				      const struct hzrig_sample_field *f)
{
	return (char *)s + f->off;
}

static inline bool hzrig_sample_has(const struct hzrig_run_sample *s,
				    const struct hzrig_sample_field *f)
{
	const char *p = (const char *)s + f->off;

	return f->text ? p[0] != '\0' : *(const int64_t *)p != HZRIG_ABSENT;
}

/*
 * Read the fields of JSON object @o into @s (which hzrig_sample_init()
 * cleared). @need is HZRIG_SF_REQ for samples.jsonl (every field read) or
 * HZRIG_SF_GREQ for a guest record (the GUEST fields only); a field that
 * is null counts as absent. Each problem goes to @report(@arg, message),
 * one message per field ("field \"rep\": 1000 out of range 0..999");
 * returns their number. Relations between fields are the callers'.
 */
struct json_object;
unsigned int hzrig_sample_from_json(struct json_object *o, unsigned int need,
				    struct hzrig_run_sample *s,
				    void (*report)(void *arg, const char *msg),
				    void *arg);

/* Add every present field of @s to @o in table order (nulls: HZRIG_SF_NULL). */
void hzrig_sample_to_json(const struct hzrig_run_sample *s,
			  struct json_object *o);

#endif /* HZRIG_SAMPLE_H */
