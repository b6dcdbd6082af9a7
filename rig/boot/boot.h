/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Build and boot: the shell stages beside this file build each variant's
 * kernel, module and initramfs (matrix.sh) and `hzrig boot` runs one guest
 * under QEMU with a watchdog, its settings read from qemu/<arch>.conf.
 */
#ifndef HZRIG_BOOT_H
#define HZRIG_BOOT_H

/* `hzrig boot` and `hzrig accel` (argv[0] tells which). */
int cmd_boot(int argc, char **argv);

#endif /* HZRIG_BOOT_H */
