#!/bin/sh
# mkinitramfs.sh OUT.cpio BUSYBOX GADGET RUNNER MODULE PLAN...
# Assemble the guest's initramfs: busybox, our /init, the gadget, the runner,
# the per-variant module and the plans. Unprivileged: no device nodes needed,
# /init attaches the console once devtmpfs is mounted.
set -eu
out=$1 busybox=$2 gadget=$3 runner=$4 module=$5
shift 5
here=$(cd "$(dirname "$0")" && pwd)
root="$out.d"
rm -rf "$root"
mkdir -p "$root/bin" "$root/dev" "$root/proc" "$root/sys" "$root/tmp" \
	"$root/lib/modules" "$root/plans"
cp "$busybox" "$root/bin/busybox"
cp "$here/init" "$root/init"
cp "$gadget" "$root/bin/hzrig-gadget"
cp "$runner" "$root/bin/hzrig-runner"
cp "$module" "$root/lib/modules/hzrig_host.ko"
for p in "$@"; do cp "$p" "$root/plans/"; done
chmod 0755 "$root/init" "$root/bin/"*
(cd "$root" && find . | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0) > "$out.tmp"
mv "$out.tmp" "$out"
