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

enum hzg_walk_act hzg_walk_action(unsigned int p, unsigned int j)
{
	return j < p ? HZG_WALK_ANSWER : j == p ? HZG_WALK_NAK : HZG_WALK_STALL;
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

	/* a pass that went on too long (an asynchronous poll NAKs for good) */
	if (now_us - w->pass_us >= HZG_WALK_PASS_US)
		return last || w->in_pass < w->pass ? HZG_WALK_DONE : HZG_WALK_REPLUG;
	if (w->nak_pending || now_us - w->active_us < HZG_WALK_QUIET_US)
		return HZG_WALK_WAIT;
	/* quiet: request pass never came, so the probe has no more; open's may */
	if (w->in_pass < w->pass)
		return now_us - w->active_us < HZG_WALK_OPEN_US ? HZG_WALK_WAIT :
		       HZG_WALK_DONE;
	if (last)
		return HZG_WALK_DONE;
	return HZG_WALK_REPLUG;
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
