#!/bin/sh
# mkinitramfs.sh OUT.cpio BUSYBOX GADGET RUNNER MODULE PLAN...
# Assemble the guest's initramfs: busybox, our /init, the gadget, the runner,
# the per-variant module and the plans. Unprivileged: no device nodes needed,
# /init attaches the console once devtmpfs is mounted.
#
# The runner is linked against Debian's shared libusb-1.0 (docs/measurement.md,
# "Userspace paths"): the shared objects it needs, and theirs, are whatever
# ldd says today, copied to the paths the loader looks in.
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
cp "$(dirname "$runner")/hzrig-hold" "$root/bin/hzrig-hold"
cp "$(dirname "$runner")/hzrig-ioctl-fuzz" "$root/bin/hzrig-ioctl-fuzz"
cp "$here/robustness.sh" "$root/bin/hzrig-robustness"
cp "$module" "$root/lib/modules/hzrig_host.ko"
for p in "$@"; do cp "$p" "$root/plans/"; done
# "libx.so.1 => /lib/.../libx.so.1 (0x...)" and "/lib64/ld-linux...so.2 (0x...)";
# linux-vdso has no file. A library ldd cannot find is an error here, not a
# guest that dies at exec.
libs=$(ldd "$runner") || { echo "mkinitramfs: ldd $runner failed" >&2; exit 1; }
if printf '%s\n' "$libs" | grep -q 'not found'; then
	echo "mkinitramfs: $runner: $(printf '%s\n' "$libs" | grep 'not found')" >&2
	exit 1
fi
for lib in $(printf '%s\n' "$libs" | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) .*/\1/p'); do
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done
chmod 0755 "$root/init" "$root/bin/"*
(cd "$root" && find . | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0) > "$out.tmp"
mv "$out.tmp" "$out"
