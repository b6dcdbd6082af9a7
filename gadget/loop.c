// SPDX-License-Identifier: GPL-2.0
/* loop.c - a looping driver seen from its device (loop.h). */
#include "loop.h"

#define WIN_US	1000000ULL

bool hzg_loop_note(struct hzg_loop *l, uint64_t now_us, unsigned int rate,
		   unsigned int secs)
{
	if (!l->started || now_us < l->win_us) {
		*l = (struct hzg_loop){ .win_us = now_us, .hot_us = now_us,
					.started = true };
	} else if (now_us >= l->win_us + WIN_US) {
		/* a window closes: hot when over the rate and the next follows */
		bool next = now_us < l->win_us + 2 * WIN_US;

		if (l->in_win > rate && next)
			l->hot++;
		else
			l->hot = 0;
		l->win_us = next ? l->win_us + WIN_US : now_us;
		l->in_win = 0;
		if (!l->hot) {
			l->hot_us = l->win_us;
			l->total = 0;
		}
	}
	l->in_win++;
	l->total++;
	return secs && l->hot + 1 >= secs && l->in_win == rate + 1;
}

uint64_t hzg_walk_kind(uint64_t key)
{
	return key >> 62 ? key : key & (0xffffULL << 40);
}

/* Was request @j of a pass NAKed by round 1? */
static bool kind_request(const struct hzg_walk *w, unsigned int j)
{
	for (unsigned int i = 0; i < w->nkinds; i++)
		if (w->kind_j[i] == j)
			return true;
	return false;
}

enum hzg_walk_act hzg_walk_decide(struct hzg_walk *w, uint64_t kind)
{
	unsigned int j = ++w->in_pass;

	if (w->pass == HZG_WALK_TRIAL)
		return HZG_WALK_ANSWER;
	if (w->naked_j)
		return HZG_WALK_STALL;	/* the pass's one NAK came */
	if (w->in_order) {
		if (j < w->target)
			return HZG_WALK_ANSWER;
	} else {
		for (unsigned int i = 0; i < w->nkinds; i++)
			if (w->kind[i] == kind)
				return HZG_WALK_ANSWER;
		if (w->nkinds >= HZG_WALK_KINDS_MAX)
			return HZG_WALK_ANSWER;
		w->kind[w->nkinds] = kind;
		w->kind_j[w->nkinds++] = j;
	}
	w->naked_j = j;
	w->nak_pending = true;
	w->naked_passes++;
	return HZG_WALK_NAK;
}

void hzg_walk_advance(struct hzg_walk *w)
{
	if (!w->naked_j)
		w->in_order = true;
	if (w->in_order) {
		/* the first request after the last target round 1 did not NAK */
		do
			w->target++;
		while (kind_request(w, w->target));
	}
	w->pass++;
	w->in_pass = 0;
	w->naked_j = 0;
	w->nak_pending = false;
}

void hzg_walk_restart(struct hzg_walk *w)
{
	w->pass = 1;
	w->in_pass = 0;
	w->naked_j = 0;
	w->nak_pending = false;
	w->in_order = false;
	w->target = 0;
	w->naked_passes = 0;
	w->nkinds = 0;
}

enum hzg_walk_next hzg_walk_next(const struct hzg_walk *w, uint64_t now_us)
{
	/*
	 * a trial answers all: quiet (or too long), its shape is walked or
	 * not; one that has not got further yet is given open()'s wait (a
	 * busy guest's probe can sit that long between two requests)
	 */
	if (w->pass == HZG_WALK_TRIAL) {
		bool further = w->in_pass > w->most && w->fresh;

		if (now_us - w->pass_us < HZG_WALK_PASS_US &&
		    now_us - w->active_us < (further ? HZG_WALK_QUIET_US : HZG_WALK_OPEN_US))
			return HZG_WALK_WAIT;
		return further ? HZG_WALK_REPLUG : HZG_WALK_DONE;
	}
	bool last = w->pass >= w->max_pass ||
		    now_us - w->start_us >= HZG_WALK_TOTAL_US;
	/*
	 * a pass that NAKed nothing: in round 1, no new kind came: it
	 * answered all, and round 2 is next when it saw a request round 1
	 * did not NAK (a probe of one request of each kind has none: done);
	 * in round 2, its request never came (the probe has no more: done)
	 */
	bool more = w->naked_j;

	if (!w->naked_j && !w->in_order) {
		unsigned int kinds_seen = 0;

		for (unsigned int i = 0; i < w->nkinds; i++)
			kinds_seen += w->kind_j[i] <= w->in_pass;
		more = w->in_pass > kinds_seen;
	}

	/* a pass that went on too long (an asynchronous poll NAKs for good) */
	if (now_us - w->pass_us >= HZG_WALK_PASS_US)
		return last || !more ? HZG_WALK_DONE : HZG_WALK_REPLUG;
	if (w->nak_pending || now_us - w->active_us < HZG_WALK_QUIET_US)
		return HZG_WALK_WAIT;
	/*
	 * quiet, nothing NAKed: the probe's requests are over, but open's
	 * may come (the guest opens what the driver made), so open()'s wait
	 */
	if (!w->naked_j && now_us - w->active_us < HZG_WALK_OPEN_US)
		return HZG_WALK_WAIT;
	return last || !more ? HZG_WALK_DONE : HZG_WALK_REPLUG;
}

/* Add @key to @keys (@n of @max); true when it was not there (or full). */
static bool remember(uint64_t *keys, unsigned int *n, unsigned int max,
		     uint64_t key)
{
	for (unsigned int i = 0; i < *n; i++)
		if (keys[i] == key)
			return false;
	if (*n < max)
		keys[(*n)++] = key;
	return true;
}

bool hzg_seen_new(struct hzg_seen *s, uint64_t key)
{
	return remember(s->key, &s->n, HZG_SEEN_MAX, key);
}

bool hzg_known_new(struct hzg_known *k, uint64_t key)
{
	return remember(k->key, &k->n, HZG_KNOWN_MAX, key);
}
