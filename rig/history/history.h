/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The history database's commands (rig/history/cmd_history.c); the
 * database itself is db.h.
 */
#ifndef HZRIG_HISTORY_H
#define HZRIG_HISTORY_H

int cmd_ingest(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_baseline(int argc, char **argv);
int cmd_check_regressions(int argc, char **argv);

#endif /* HZRIG_HISTORY_H */
