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
# HZRIG_BUILD_JSON: what was built (matrix.sh's build record), one line;
# the guest prints it in-band for a lab's log (hzrig.samples=console).
if [ -n "${HZRIG_BUILD_JSON:-}" ]; then
	mkdir -p "$root/etc/hzrig"
	jq -c . "$HZRIG_BUILD_JSON" > "$root/etc/hzrig/build.json"
fi
# Variants with in-tree drivers (docs/checker.md): HZRIG_KMODS is their
# modules_install tree (modprobe finds them and their dependencies), and
# the device files of gadget/devices/ go to /etc/hzrig/devices. A device
# file's "firmware name=N size=S set=OFF:HH,HH" line makes /lib/firmware/N:
# S zero bytes with those bytes at OFF (a blob the driver accepts).
if [ -n "${HZRIG_KMODS:-}" ]; then
	cp -a "$HZRIG_KMODS/lib/modules/." "$root/lib/modules/"
	mkdir -p "$root/etc/hzrig/devices" "$root/lib/firmware"
	cp "$here/../gadget/devices/"*.device "$root/etc/hzrig/devices/"
	grep -h '^firmware ' "$here/../gadget/devices/"*.device | while read -r line; do
		name=$(printf '%s\n' "$line" | sed -n 's/.* name=\([^ ]*\).*/\1/p')
		size=$(printf '%s\n' "$line" | sed -n 's/.* size=\([0-9]*\).*/\1/p')
		set=$(printf '%s\n' "$line" | sed -n 's/.* set=\([^ ]*\).*/\1/p')
		[ -n "$name" ] && [ -n "$size" ] || {
			echo "mkinitramfs: bad firmware line: $line" >&2
			exit 1
		}
		fw=$root/lib/firmware/$name
		head -c "$size" /dev/zero > "$fw"
		if [ -n "$set" ]; then
			off=$((${set%%:*}))
			for byte in $(printf '%s\n' "${set#*:}" | tr , ' '); do
				# shellcheck disable=SC2059
				printf "\\$(printf '%03o' $((0x$byte)))" |
					dd of="$fw" bs=1 seek="$off" conv=notrunc 2>/dev/null
				off=$((off + 1))
			done
		fi
	done
fi
# The driver sweep (docs/sweep.md): HZRIG_SWEEP_DEVICES is the directory
# of device files `hzrig sweep devices` made, one per driver; the guest
# presents them with hzrig-rawdev and watches with hzrig-usbmon-dump. A
# firmware file a module names (modinfo) goes in when this machine has it
# in /lib/firmware (Debian's firmware packages); else a stand-in of that
# name goes in (64 KiB of zeros), so that the driver's download runs and
# its requests are measured (HZRIG_SWEEP_FW_STANDIN=0: none, the probe
# ends at request_firmware()). HZRIG_SWEEP_FIRMWARE lists each with
# "present", "made" (a device file's), "standin" or "missing" for the
# host's report.
if [ -n "${HZRIG_SWEEP_DEVICES:-}" ]; then
	mkdir -p "$root/etc/hzrig/sweep" "$root/lib/firmware"
	cp "$HZRIG_SWEEP_DEVICES/"*.device "$root/etc/hzrig/sweep/"
	# each device's other shapes (MODULE.shapeN), tried when it does not bind
	find "$HZRIG_SWEEP_DEVICES" -maxdepth 1 -name '*.shape[0-9]' -exec cp -t "$root/etc/hzrig/sweep/" {} +
	cp "$(dirname "$gadget")/hzrig-rawdev" "$root/bin/hzrig-rawdev"
	cp "$(dirname "$runner")/hzrig-usbmon-dump" "$root/bin/hzrig-usbmon-dump"
	cp "$(dirname "$runner")/hzrig-stream" "$root/bin/hzrig-stream"
	cp "$(dirname "$runner")/hzrig-netup" "$root/bin/hzrig-netup"
	cp "$here/sweep.sh" "$root/bin/hzrig-sweep"
	# the host keeps the debug information (file:line); the guest needs none
	find "$root/lib/modules" -name '*.ko' -exec strip --strip-debug {} +
	: > "${HZRIG_SWEEP_FIRMWARE:-/dev/null}"
	find "$root/lib/modules" -name '*.ko' | sort | while read -r ko; do
		for fw in $(modinfo -F firmware "$ko" 2>/dev/null); do
			if [ -f "/lib/firmware/$fw" ]; then
				mkdir -p "$root/lib/firmware/$(dirname "$fw")"
				cp "/lib/firmware/$fw" "$root/lib/firmware/$fw"
				echo "$(basename "$ko" .ko) $fw present"
			elif [ -f "$root/lib/firmware/$fw" ]; then
				echo "$(basename "$ko" .ko) $fw made"
			elif [ "${HZRIG_SWEEP_FW_STANDIN:-1}" = 1 ] && [ -n "${fw##*..*}" ] &&
				mkdir -p "$root/lib/firmware/$(dirname "$fw")" &&
				head -c 65536 /dev/zero > "$root/lib/firmware/$fw"; then
				echo "$(basename "$ko" .ko) $fw standin"
			else
				echo "$(basename "$ko" .ko) $fw missing"
			fi
		done
	done >> "${HZRIG_SWEEP_FIRMWARE:-/dev/null}"
fi
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
