#!/bin/bash
# sweep-loop.sh: the sweep keeps what it measured of a driver that loops
# or hangs the guest after its probe (docs/sweep.md, "Streamed out of the
# guest" and "A looping driver is contained"). A driver of its own,
# tests/e2e/sweep-loop/hzrig_sweeptest.c, built out of tree against the
# sweep kernels of make check-sweep (sweep-check-hz-100 and -1000), is
# swept beside ipheth at both HZ, twice:
#   - loop (device 1209:0001): after its NAKed requests (HZ * 3, the
#     seeds' bug, and 500 ms) it loops on STALL, clear-halt and resubmit
#     until hzrig-rawdev unplugs its device; the batch goes on;
#   - hang (1209:0002): two seconds after its probe returned it takes the
#     guest's CPU for good; the host stops the guest when its stream goes
#     quiet (30 s, not the 360 s watchdog) and boots the batch again
#     without it;
#   - shape (1209:0003): its probe wants an alternate setting 1 with an
#     isochronous IN endpoint, which the default device lacks (tm6000's
#     kind): its devices come from `hzrig sweep devices`, shapes and all,
#     and the sweep plugs it in again in its shape 1, where it binds and
#     makes its NAKed requests.
# The sweep walks (each request NAKed in turn): 1209:0001 and 0002 first
# read their bulk-in endpoint and go on only with data, so the first pass
# NAKs that read (measured, 250 ms at both HZ) and the second, which
# answers it with zeros (hzrig-rawdev's answer to a bulk transfer before
# the pass's request), reaches the HZ * 3 request; the loop starts in the
# second pass, after that request, and is contained there.
# Asserts, at both HZ and in both, that the driver keeps its NAKed sites
# with their waits inside their windows, the report names its HZ * 3 site
# HZ-dependent, its outcome and diagnosis say what it did (looped after
# probe / hung the guest after probe, not "modprobe never returned" and
# not a kernel report), and ipheth is measured too. Its probe first loads
# a firmware file nobody ships: the guest's stand-in lets it go on, and its
# record says so.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$TOP/build}
HZRIG=$B/rig/hzrig
W=$B/tests/sweep-loop
. "$TOP/tests/e2e/lib.sh"
VARIANTS="sweep-check-hz-100 sweep-check-hz-1000"
SITE=tests/e2e/sweep-loop/hzrig_sweeptest.c
# the lines of its HZ * 3 call (faddr2line names one of them)
L=$(grep -n 'SWEEPTEST_VENDOR_REQ,$' "$TOP/$SITE" | head -n 1 | cut -d: -f1)
SITE_RE="hzrig_sweeptest.c:($L|$((L + 1))|$((L + 2)))\$"

# shellcheck disable=SC2086
"$TOP/rig/boot/matrix.sh" --build-only $VARIANTS > /dev/null || {
	echo "sweep-loop: the sweep kernels did not build" >&2
	exit 1
}
rm -rf "$W"
mkdir -p "$W"

# build_module VARIANT: the test driver against VARIANT's kernel, into
# $W/ko/VARIANT; built in one place ($W/mod) for every kernel, so that its
# line tables name one file and the report pairs its sites across HZ.
build_module() {
	rm -rf "$W/mod"
	mkdir -p "$W/mod" "$W/ko/$1"
	cp "$TOP"/tests/e2e/sweep-loop/* "$W/mod/"
	# line tables, as the sweep variants' modules have (module_cflags)
	make -s -C "$B/$1/kernel" M="$W/mod" CFLAGS_MODULE=-g1 modules > "$W/ko/$1/build.log" 2>&1 || {
		cat "$W/ko/$1/build.log" >&2
		return 1
	}
	cp "$W/mod/hzrig_sweeptest.ko" "$W/ko/$1/"
}

# stage VARIANT PRODUCT: B's VARIANT again under $W/PRODUCT/b, with the
# test driver installed among its modules and a batch of two devices
# (the test driver's, ipheth's) in its initramfs.
stage() {
	local v=$1 p=$2 t=$W/$2/b/$1 rel
	mkdir -p "$t"
	ln -s "$B/$v/kernel" "$t/kernel"
	ln -s "$(readlink -f "$B/$v/src")" "$t/src"
	cp "$B/$v/sweep-select.json" "$t/"
	cp -a "$B/$v/kmods" "$t/kmods"
	rel=$(ls "$t/kmods/lib/modules")
	mkdir -p "$t/kmods/lib/modules/$rel/extra"
	cp "$W/ko/$v/hzrig_sweeptest.ko" "$t/kmods/lib/modules/$rel/extra/"
	depmod -b "$t/kmods" "$rel" || return 1
	mkdir -p "$t/sweep-devices"
	cp "$B/$v/sweep-devices/ipheth.device" "$t/sweep-devices/"
	if [ "$p" = 0003 ]; then
		# the sweep's own devices for its 1209:0003 entry: the default and
		# shapes (its other entries left out: the first would be picked)
		grep -i ' *alias usb:v1209p0003' "$t/kmods/lib/modules/$rel/modules.alias" > "$W/$p/alias-$v"
		"$HZRIG" sweep devices --alias "$W/$p/alias-$v" \
			--out "$W/$p/devices-$v" > /dev/null || return 1
		cp "$W/$p/devices-$v/hzrig_sweeptest".* "$t/sweep-devices/"
	else
	cat > "$t/sweep-devices/hzrig_sweeptest.device" <<-DEV
	# the test driver's device (tests/e2e/sweep-loop.sh): 1209:$p
	driver name=hzrig_sweeptest module=hzrig_sweeptest
	device vendor=0x1209 product=0x$p bcd=0x0000 class=0x00 subclass=0x00 protocol=0x00
	interface number=0 alt=0 class=0xff subclass=0x00 protocol=0x00
	endpoint address=0x81 type=bulk
	endpoint address=0x02 type=bulk
	endpoint address=0x83 type=interrupt
	DEV
	fi
	HZRIG_KMODS=$t/kmods HZRIG_SWEEP_DEVICES=$t/sweep-devices \
		HZRIG_SWEEP_FIRMWARE=$t/sweep-firmware.txt \
		"$TOP/initramfs/mkinitramfs.sh" "$t/initramfs.cpio" /bin/busybox \
		"$B/trees/linux-source-6.1/gadget/hzrig-gadget" \
		"$B/trees/linux-source-6.1/runner/hzrig-runner" \
		"$B/$v/module/hzrig_host.ko" "$TOP"/rig/plan/plans/*.plan > "$W/$2/initramfs-$1.log" 2>&1 || {
		cat "$W/$2/initramfs-$1.log" >&2
		return 1
	}
}

for v in $VARIANTS; do
	build_module "$v" || { echo "sweep-loop: the test driver did not build for $v" >&2; exit 1; }
done
for p in 0001 0002 0003; do
	for v in $VARIANTS; do
		stage "$v" "$p" || { echo "sweep-loop: staging $v for 1209:$p failed" >&2; exit 1; }
	done
	t0=$SECONDS
	# shellcheck disable=SC2086
	B=$W/$p/b HZRIG=$HZRIG "$TOP/rig/sweep/sweep.sh" --no-build --out "$W/$p/out" \
		--db "$W/$p/hzrig.db" $VARIANTS > "$W/$p/sweep.log" 2>&1
	echo "sweep-loop: 1209:$p swept in $((SECONDS - t0)) s (exit $?; log: ${W#$TOP/}/$p/sweep.log)"
done

# the driver's record in one sweep.json: jq's . is the driver
drv() { jq -e --arg m hzrig_sweeptest ".drivers[] | select(.module == \$m) | $2" "$1" > /dev/null; }
for p in 0001 0002; do
	what=loop
	[ $p = 0001 ] || what=hang
	for v in $VARIANTS; do
		s=$W/$p/out/$v/sweep.json
		hz=$(jq -r .hz "$s" 2>/dev/null)
		want=$((hz * 3))
		# (every call the device NAKed: a loop's clear-halt, answered
		# by dummy_hcd, once took a NAKed request's line through an
		# interrupt URB at its URB's address; guest.c's match())
		check "$what $v: its NAKed requests measured, ETIMEDOUT, inside their windows" \
			"drv '$s' '[.calls[] | select(.action == \"nak\")] | length >= 1 and all(.verdict == \"inside\" and .ret == -110)'"
		check "$what $v: the HZ * 3 site passes $want and is $SITE" \
			"drv '$s' '[.calls[] | select(.action == \"nak\" and .timeout_arg == $want and (.site | test(\"$SITE_RE\")))] | length == 1'"
		check "$what $v: its modprobe returned 0" "drv '$s' '.modprobe_rc == 0'"
		check "$what $v: its bulk read NAKed in the first pass (250 ms, inside), answered with data in the next (the walk's answer)" \
			"drv '$s' '[.calls[] | select(.timeout_arg == 250)] | any(.action == \"nak\" and .verdict == \"inside\") and any(.action == \"answer\" and .ret == 0)'"
		check "$what $v: its firmware, which no one ships, had a stand-in, and its record says so" \
			"grep -qx 'hzrig_sweeptest hzrig_sweeptest.fw standin' '$W/$p/b/$v/sweep-firmware.txt' && drv '$s' '.firmware_standin == \"hzrig_sweeptest.fw\"'"
		check "$what $v: ipheth measured too (its NAKed site inside its window)" \
			"jq -e '[.drivers[] | select(.module == \"ipheth\") | .calls[] | select(.action == \"nak\" and .verdict == \"inside\")] | length >= 1' '$s' > /dev/null"
		if [ $what = loop ]; then
			check "loop $v: outcome contained, looped after probe on STALL / clear-halt, unplugged" \
				"drv '$s' '.outcome == \"contained\" and (.diagnosis | startswith(\"looped after probe on STALL / clear-halt\")) and (.diagnosis | test(\"unplugged after\"))'"
			check "loop $v: the batch ran to its end (the guest did not hang)" \
				"jq -e 'all(.batches[]; .complete and .ended == \"ok\")' '$s' > /dev/null"
		else
			check "hang $v: outcome 'hung the guest', hung after probe (not 'never returned', no kernel report)" \
				"drv '$s' '.outcome == \"hung the guest\" and (.diagnosis | startswith(\"hung the guest after probe\")) and .reports == []'"
			check "hang $v: the first boot hung and was stopped by its quiet stream, not the watchdog" \
				"jq -e '.status == \"hung\" and (.crash | test(\"went quiet for 30 s\")) and .wall_s < 200' '$W/$p/out/$v/status-0-first.json' > /dev/null"
			check "hang $v: the batch booted again without it ran to its end" \
				"jq -e 'all(.batches[]; .complete)' '$s' > /dev/null"
		fi
	done
	R=$W/$p/out/report.json
	check "$what: the report names the HZ * 3 site HZ-dependent, and of its own only it (the others ipheth's)" \
		"jq -e '[.sites[] | select(.hz_dependent) | .site] | (map(select(test(\"$SITE_RE\"))) | length == 1) and (map(select(test(\"$SITE_RE\") | not)) | length >= 1 and all(startswith(\"drivers/net/usb/ipheth.c:\")))' '$R' > /dev/null"
	check "$what: the report lists what the guest saw it do" \
		"jq -e '[.loops_and_hangs[] | select(.module == \"hzrig_sweeptest\")] | length == 2' '$R' > /dev/null"
	check "$what: the history has its diagnosis" \
		"[ \"\$(sqlite3 '$W/$p/hzrig.db' \"SELECT count(*) FROM sweep_drivers WHERE module = 'hzrig_sweeptest' AND diagnosis IS NOT NULL\")\" = 2 ]"
done

# 1209:0003: the default device does not bind; shape 1 does.
p=0003
for v in $VARIANTS; do
	s=$W/$p/out/$v/sweep.json
	hz=$(jq -r .hz "$s" 2>/dev/null)
	check "shape $v: hzrig sweep devices made its shapes (shape 1: an isochronous alternate)" \
		"[ -e '$W/$p/devices-$v/hzrig_sweeptest.shape1' ] && grep -q 'alt=1' '$W/$p/devices-$v/hzrig_sweeptest.shape1' && ! grep -q 'alt=1' '$W/$p/devices-$v/hzrig_sweeptest.device'"
	check "shape $v: the default device did not bind (-EINVAL), and the guest plugged it in again in shape 1" \
		"grep -q 'hzrig_sweeptest did not bind: its next shape (1 of ' '$W/$p/out/$v/console-0.log' && grep -q '^rawdev=0 t_us=[0-9]* shape=1.\\?\$' '$W/$p/out/$v/batch-0.txt'"
	check "shape $v: shape 1's trial (all answered) got further than the default device, so shape 1 was walked from pass 1" \
		"sed -n '/^rawdev=0 t_us=[0-9]* shape=1/,\$p' '$W/$p/out/$v/batch-0.txt' | grep -m1 '^rawdev=0 t_us=[0-9]* walk=' | grep -q 'walk=replug pass=1.\\?\$'"
	check "shape $v: bound in shape 1, and its record says so" \
		"drv '$s' '.outcome == \"bound\" and .shape == 1'"
	check "shape $v: the HZ * 3 site, reached in its shape, NAKed and inside its window" \
		"drv '$s' '[.calls[] | select(.action == \"nak\" and .timeout_arg == $((hz * 3)) and .verdict == \"inside\" and (.site | test(\"$SITE_RE\")))] | length == 1'"
	check "shape $v: the batch ran to its end" "jq -e 'all(.batches[]; .complete)' '$s' > /dev/null"
done
check "shape: the report names the HZ * 3 site HZ-dependent, and shows the shape it bound in" \
	"jq -e '[.sites[] | select(.hz_dependent) | .site] | map(select(test(\"$SITE_RE\"))) | length == 1' '$W/$p/out/report.json' > /dev/null && grep -Eq 'hzrig_sweeptest +HZ=100 +bound .*\\(shape 1\\)' '$W/$p/out/report.txt'"
e2e_done sweep-loop
