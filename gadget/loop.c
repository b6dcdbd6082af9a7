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
