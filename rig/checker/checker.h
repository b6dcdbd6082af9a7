/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hzrig check-tree: find the timeouts of the synchronous USB calls that a
 * kernel tree builds from HZ, jiffies or the *_to_jiffies() helpers (the
 * pre-2.6.12 unit), say what each waits at every HZ, and write the fix
 * (docs/checker.md). Coccinelle (rig/checker/timeouts.cocci) reports the
 * facts of each file; this stage resolves and evaluates them.
 */
#ifndef HZRIG_CHECKER_H
#define HZRIG_CHECKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The HZ values every finding is evaluated at. */
#define HZRIG_CHECK_NHZ		4
extern const int hzrig_check_hz[HZRIG_CHECK_NHZ];

/* ---- expr.c: C integer expressions as a kernel with HZ=hz computes them */

struct hzrig_expr_val {
	bool known;		/* v is the value */
	int64_t v;
	bool hz_based;		/* HZ, jiffies or x_to_jiffies() reach it */
	bool runtime;		/* it reads jiffies: no value without a clock */
	int origin;		/* definition whose own text holds the HZ
				 * token (see hzrig_expr_lookup), -1: the
				 * expression itself */
};

/*
 * Resolves an identifier the expression uses: the text it stands for (a
 * macro body, a constant's or a variable's initialiser) and an id for it
 * (>= 0), or NULL when the name is unknown.
 */
typedef const char *(*hzrig_expr_lookup)(void *ctx, const char *name,
					 int *id);

/*
 * Evaluate @text at @hz: + - * / % << >> comparisons ?: casts, integer
 * literals, HZ, jiffies, msecs/usecs/nsecs/secs_to_jiffies(),
 * jiffies_to_msecs/usecs(), min/max(_t), clamp(_t), DIV_ROUND_UP().
 * Unknown identifiers and calls leave the value unknown, never fail.
 * 0, or -1 with @err filled when @text is not an expression.
 */
int hzrig_expr_eval(const char *text, int hz, hzrig_expr_lookup lookup,
		    void *ctx, struct hzrig_expr_val *out, char *err,
		    size_t errlen);

/* ---- facts.c: what the semantic patch and the macro reader report */

enum hzrig_fact_kind {
	HZRIG_FACT_SINK,	/* a call's timeout argument */
	HZRIG_FACT_WRAPPER,	/* a function forwarding a parameter to one */
	HZRIG_FACT_WSINK,	/* a wrapper call's argument in that place */
	HZRIG_FACT_FLOW,	/* a local's assignment reaching a call */
	HZRIG_FACT_DECL,	/* an initialised declaration */
	HZRIG_FACT_DEFINE,	/* an object-like macro */
};

struct hzrig_span {
	char *file;		/* as given to spatch (tree-relative) */
	int line, col, line_end, col_end;	/* col 0-based, end exclusive */
};

struct hzrig_fact {
	enum hzrig_fact_kind kind;
	struct hzrig_span at;	/* of the expression (the name: wrapper) */
	char *func;		/* enclosing function ("" at file scope) */
	char *name;		/* wrapper, variable or macro name */
	char *expr;		/* the expression as spatch prints it */
	char *api;		/* sink, wrapper: the usb_*_msg() called */
	char *wrapper;		/* wsink: the wrapper called */
	int index;		/* wrapper: 0-based parameter position */
	int call_line, call_col;	/* sink, wsink, flow: the call */
};

struct hzrig_facts {
	struct hzrig_fact *v;
	size_t n, cap;
};

/*
 * Parse one line of spatch output into @facts: lines that do not start
 * with "HZRIG " are ignored (0); a malformed fact is -1 with @err filled.
 */
int hzrig_facts_parse_line(struct hzrig_facts *facts, const char *line,
			   char *err, size_t errlen);

/*
 * The object-like macros of the C file or header @path (read as
 * @display in the facts): one DEFINE fact each, with the span of the body
 * when it sits on the #define's own line. @path must be a regular file of
 * at most HZRIG_MAX_SOURCE bytes (lib/io.h); a body continued past
 * HZRIG_DEFINE_MAX bytes is left out. 0, or -1 with the reason in @why
 * (may be NULL).
 */
#define HZRIG_DEFINE_MAX	65536
int hzrig_facts_read_defines(struct hzrig_facts *facts, const char *path,
			     const char *display, char *why, size_t n);

void hzrig_facts_free(struct hzrig_facts *facts);

/* ---- sites.c: facts of one file -> findings */

struct hzrig_site {
	char *file;
	int line;		/* the call that passes the timeout */
	char *func;
	char *api;		/* usb_*_msg() in the end */
	char *via;		/* the wrapper, or NULL */
	int via_line;		/* the wrapper's definition */
	char *expr;		/* the argument as written at the call */
	struct hzrig_span expr_at;
	const struct hzrig_fact *origin;	/* where HZ is written, or
						 * NULL: in expr itself */
	char *origin_expr;	/* the text holding the HZ token */
	bool killable;
	bool runtime;		/* reads jiffies: no fixed value */
	bool mixed;		/* another path brings a value without HZ */
	bool known;		/* value[] are known */
	int64_t value[HZRIG_CHECK_NHZ];	/* the timeout_arg at each HZ */
};

struct hzrig_sites {
	struct hzrig_site *v;
	size_t n, cap;
};

/*
 * Resolve the facts of one file (and the macros of its directory's
 * headers, in @facts too) into findings appended to @sites.
 */
int hzrig_sites_resolve(const struct hzrig_facts *facts,
			struct hzrig_sites *sites);

/* Sort by file and line, drop duplicates (one site through two paths). */
void hzrig_sites_sort(struct hzrig_sites *sites);

void hzrig_sites_free(struct hzrig_sites *sites);

/* What the author meant, in ms: the value at HZ=1000 (a jiffy is 1 ms). */
bool hzrig_site_meant_ms(const struct hzrig_site *s, int64_t *ms);

/* ---- report.c: table, JSON and the patch */

struct hzrig_check_run {
	const char *tree;
	const char *release;	/* from the tree's Makefile, or NULL */
	size_t files, scanned;	/* .c files, files handed to spatch */
	size_t failed;		/* files spatch could not run on */
	double seconds;
};

void hzrig_check_table(FILE *out, const struct hzrig_sites *sites,
		       const struct hzrig_check_run *run);
int hzrig_check_json(FILE *out, const struct hzrig_sites *sites,
		     const struct hzrig_check_run *run);

/*
 * A unified diff (patch -p1 from the tree's top) that rewrites every site
 * to milliseconds: the HZ expression where it is written when nothing but
 * these timeouts uses it, else jiffies_to_msecs() around the argument.
 * The files are read from @tree. 0, or -1 with a message on stderr.
 */
int hzrig_check_patch(FILE *out, const struct hzrig_sites *sites,
		      const char *tree);

/* cmd_check_tree.c */
int cmd_check_tree(int argc, char **argv);

#endif /* HZRIG_CHECKER_H */
