/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `hzrig compare`: one run's cases side by side across its variants
 * (rig/output/compare.c).
 */
#ifndef HZRIG_COMPARE_H
#define HZRIG_COMPARE_H

int cmd_compare(int argc, char **argv);

#endif /* HZRIG_COMPARE_H */
