/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hzrig: the host tool. One binary, git/perf-style subcommands; each is a
 * function taking the subcommand's own argv (argv[0] is its name) and
 * returning the process exit status. rig/hzrig.c holds the table.
 */
#ifndef HZRIG_H
#define HZRIG_H

/* rig/hzrig.c */
int cmd_model(int argc, char **argv);
int cmd_collect(int argc, char **argv);

/* rig/cmd_plan.c */
int cmd_plan(int argc, char **argv);

/* rig/cmd_boot.c: `boot` and `accel` (argv[0] tells which). */
int cmd_boot(int argc, char **argv);

/* rig/cmd_compare.c */
int cmd_compare(int argc, char **argv);

/* rig/cmd_history.c: the history database's commands. */
int cmd_ingest(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_baseline(int argc, char **argv);
int cmd_check_regressions(int argc, char **argv);

/* rig/cmd_dashboard.c */
int cmd_dashboard(int argc, char **argv);

#endif /* HZRIG_H */
