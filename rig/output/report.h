/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `hzrig report`: a run directory as per-variant tables (rig/output/report.c).
 */
#ifndef HZRIG_REPORT_H
#define HZRIG_REPORT_H

#include <stdio.h>

/*
 * Report run directory @dir to @out, errors to @err: 0 every variant
 * passes, 1 one fails, 2 the run is unreadable or invalid (nothing printed
 * to @out but what came before the error).
 */
int hzrig_report(const char *dir, FILE *out, FILE *err);

int cmd_report(int argc, char **argv);

#endif /* HZRIG_REPORT_H */
