/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The dashboard's insides, shared by its files (the interface is
 * dashboard.h):
 *   data.c              the chosen run's samples, from the history's view
 *                       (history/view.h: every run loaded, no SQL here)
 *   page.c              the page: head, summary, sections in order, writing
 *   charts.c            scales, axes, the model's band, colours
 *   sections_timing.c   observed vs requested, error per HZ, legacy modes
 *   sections_history.c  every case across runs, regressions, runs, samples
 *                       the model does not explain
 *   sections_trees.c    one HZ on two kernel trees
 */
#ifndef HZRIG_DASH_H
#define HZRIG_DASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "history/view.h"
#include "output/dashboard/dashboard.h"
#include "runs/runs.h"

/*
 * Every string read from the database once, by index: samples and history
 * groups then compare indices instead of strings. Open addressing on a
 * power-of-two table; index 0 is reserved for NULL.
 */
struct strtab {
	char **s;
	size_t n, cap;
	size_t *slot;		/* hash slot -> index + 1; 0: free */
	size_t nslot;
};

/* A variant of the chosen run. */
struct dvar {
	const struct hzrig_variant *lv;	/* as loaded: HZ, samples, inside */
	size_t name;			/* interned */
};

/*
 * A sample of the chosen run: the loaded sample itself, and its strings
 * interned for the charts' comparisons.
 */
struct dsample {
	const struct hzrig_run_sample *s;
	size_t v;		/* index into dash.v */
	size_t key, transfer, behaviour, mode, verdict;
	size_t path;		/* "kernel" for samples recorded without one */
};

struct dash {
	const struct hzrig_dash_opts *o;
	FILE *err;
	FILE *f;		/* the page being written */
	struct hzrig_view view;	/* the whole history, loaded */
	struct strtab st;
	const struct hzrig_view_run *cur;	/* the chosen run */
	const char *run;	/* its id */
	const char **runs;	/* every run's id, oldest first (view.r) */
	size_t nruns;
	struct dvar *v;		/* by HZ, then name */
	size_t nv;
	struct dsample *s;	/* by variant, case, rep */
	size_t ns;
	unsigned int nsvg;	/* for unique ids */
	bool failed;		/* out of memory half-way: no page */
};

#define NO_STR	0
struct plot {
	double w, h;			/* the whole SVG */
	double l, t, r, b;		/* the plot area's edges */
	struct hzrig_dash_scale x, y;
};

struct hist {
	struct hvar *v;
	size_t nv;
	struct hkey *k;
	size_t nk;
	struct hpoint *p;
	size_t np;
	size_t *order;		/* keys in display order */
};

char *dash_ms3(char *buf, size_t n, int64_t ns);
#define MS(ns)	dash_ms3((char[32]){ 0 }, 32, (ns))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
/* A coordinate: two decimals are far below a pixel. */
#define XY(v)	((double)(int64_t)((v) * 100 + ((v) < 0 ? -0.5 : 0.5)) / 100)

#define DASH_NPALETTE		8
#define DASH_NTRANSFERS		6
#define DASH_NBEHAVIOURS	5
extern const char *const dash_palette[DASH_NPALETTE];
extern const char *const dash_transfers[DASH_NTRANSFERS];
extern const char *const dash_behaviours[DASH_NBEHAVIOURS];

size_t dash_name_rank(const char *const *names, size_t n, const char *s);

const char *dash_transfer_colour(const char *t);

const char *dash_behaviour_colour(const char *b);

const char *dash_variant_colour(size_t v);

void dash_plot_init(struct plot *p, double w, double h, double ml,
		      double mt, double mr, double mb);

void dash_plot_domain(struct plot *p, bool xlog, double x0, double x1,
			bool ylog, double y0, double y1);

double dash_px(const struct plot *p, double v);

double dash_py(const struct plot *p, double v);

void dash_svg_open(struct dash *d, const struct plot *p, const char *cls,
		     const char *title, const char *desc);

void dash_axes(struct dash *d, const struct plot *p, const char *xlabel,
		 const char *ylabel);

void dash_clip_open(struct dash *d, const struct plot *p);

double dash_worst_error(int hz, double a, double b);

void dash_model_band(struct dash *d, const struct plot *p, int hz,
		       const char *cls, const char *colour, bool err);

uint64_t dash_hash_str(const char *s);

void dash_strtab_free(struct strtab *t);

const char *dash_S(const struct dash *d, size_t i);

void dash_out_of_memory(struct dash *d);

/* The chosen run's variants and samples (d->cur) into d->v and d->s. */
int dash_load_samples(struct dash *d);

/* A string into d->st; NO_STR for NULL, (size_t)-1 out of memory. */
size_t dash_intern(struct dash *d, const char *s);

bool dash_is(const struct dash *d, size_t i, const char *s);

bool dash_inside(const struct dash *d, const struct dsample *x);
/* Made by the host driver (the path the kernel-model sections show). */
bool dash_kernel(const struct dash *d, const struct dsample *x);

void __attribute__((format(printf, 2, 3)))
dash_out(struct dash *d, const char *fmt, ...);

void dash_esc(struct dash *d, const char *s);

void dash_cell_two(struct dash *d, const char *a, const char *b,
		     const char *cls);

size_t dash_n_unexplained(const struct dash *d);

/* The regressions recorded for the chosen run. */
int64_t dash_run_regressions(const struct dash *d);

size_t dash_lookup(const struct strtab *t, const char *s);

void dash_section_observed(struct dash *d);
/* The call paths side by side (sections_paths.c). */
void dash_section_paths(struct dash *d);

void dash_section_error(struct dash *d);

void dash_section_legacy(struct dash *d);

void dash_hist_free(struct hist *h);

int dash_hist_load(struct dash *d, struct hist *h);

void dash_section_history(struct dash *d, const struct hist *h);

void dash_section_regressions(struct dash *d);

void dash_section_runs(struct dash *d);
/* One HZ on two kernel trees (sections_trees.c, output/trees.h). */
void dash_section_trees(struct dash *d);
/* The kernel reports of the history and of this run (sections_findings.c). */
void dash_section_findings(struct dash *d);
/* sections_drivers.c: the newest driver sweep; nothing without one */
void dash_section_drivers(struct dash *d);

void dash_section_unexplained(struct dash *d);

#endif /* HZRIG_DASH_H */
