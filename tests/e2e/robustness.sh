#!/bin/bash
# robustness.sh VARIANT [OTHER]: what the rig claims about bad devices and
# bad modules, in booted guests of VARIANT (its kernel and module must be
# built, e.g. by rig/boot/matrix.sh, and the tools by `make tools`).
#
# 1. A device lacking an endpoint: the gadget leaves 0x02, 0x81 or 0x85 out
#    of its descriptors (hzrig.gadget=-x,ADDR). Without a bulk endpoint the
#    host driver's probe must refuse the device, without an oops; without the
#    optional interrupt IN it must bind and refuse only the int-in cases.
# 2. A module built for another HZ: VARIANT's kernel with OTHER's module
#    (default: the first of hz-250, hz-1000, hz-100 built with another HZ).
#    Same release string, no modversions, no signing: the kernel loads it,
#    and the module's init must refuse to run (HZ mismatch), so insmod fails
#    and /init stops with rc 13.
#
# Everything (gadget, initramfs, logs) goes to build/tests/robustness/VARIANT;
# build/VARIANT/initramfs.cpio is neither used nor changed. One boot is some
# 5-30 s under TCG (a refused device makes the runner wait 20 s for it).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
V=${1:?usage: robustness.sh VARIANT [OTHER]}
OTHER=${2:-}
B=$TOP/build
W=$B/tests/robustness/$V
HZRIG=${HZRIG:-$B/rig/hzrig}
KERNEL=$B/$V/kernel/arch/x86/boot/bzImage
MODULE=$B/$V/module/hzrig_host.ko
RUNNER=$B/runner/hzrig-runner
GADGET=$W/gadget/hzrig-gadget
pass=0 failn=0 skipn=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
ko() { echo "not ok - $1"; failn=$((failn + 1)); }
skip() { echo "ok - $1 # SKIP $2"; skipn=$((skipn + 1)); }
check() { if eval "$2"; then ok "$1"; else ko "$1"; fi; }
summary() {
	[ $skipn -gt 0 ] && echo "# $skipn skipped"
	echo "robustness: $pass passed, $failn failed"
	[ $failn -eq 0 ]
	exit
}
# The kernel's words for a broken kernel; `hzrig boot` also calls a
# WARNING a crash, so do we.
OOPS='Oops|BUG:|Call Trace|Kernel panic|general protection fault|WARNING:|Unable to handle kernel'
config_hz() { sed -n 's/^CONFIG_HZ=//p' "$B/$1/kernel/.config" 2>/dev/null; }

for f in "$HZRIG" "$KERNEL" "$MODULE" "$RUNNER" /bin/busybox; do
	[ -e "$f" ] || { ko "$f exists (build the variant and the tools first)"; summary; }
done
rm -rf "$W"
mkdir -p "$W"

# Our own gadget, from the current source: the test needs -x.
if ! make -s -C "$TOP/gadget" O="$W/gadget" > "$W/gadget.log" 2>&1; then
	cat "$W/gadget.log"
	ko "gadget builds"
	summary
fi

# -x on the build machine: bad values are refused before anything is opened.
"$GADGET" -x 0x03 -d "$W/none" > "$W/x03.out" 2>&1
check "gadget: -x 0x03 (no such endpoint) exits 2 and names it" \
	"[ $? -eq 2 ] && grep -q 'no endpoint 0x03' '$W/x03.out'"
"$GADGET" -x 0x8g -d "$W/none" > "$W/x8g.out" 2>&1
check "gadget: -x 0x8g (not a number) exits 2 and names it" \
	"[ $? -eq 2 ] && grep -q \"'0x8g': not an endpoint address\" '$W/x8g.out'"
"$GADGET" -x 0x02 -x 0x81 -d "$W/none" > "$W/xok.out" 2>&1
check "gadget: -x 0x02 -x 0x81 accepted (fails only at $W/none)" \
	"[ $? -eq 1 ] && grep -q 'open $W/none/dummy_udc' '$W/xok.out'"

# A plan of two quick cases: bulk-in always works when the driver binds,
# int-in only with the interrupt endpoint.
PLAN=$W/robustness.plan
cat > "$PLAN" <<'EOF'
# robustness.plan: written by tests/e2e/robustness.sh
case transfer=bulk-in,int-in behaviour=nak timeout=1 reps=1
EOF
mkinit() {	# OUT MODULE
	"$TOP/initramfs/mkinitramfs.sh" "$1" /bin/busybox "$GADGET" "$RUNNER" \
		"$2" "$PLAN"
}
if ! mkinit "$W/initramfs.cpio" "$MODULE"; then
	ko "initramfs of $V"
	summary
fi

# boot NAME INITRD [APPEND]: sets rc, CON (console log), ST (status JSON).
boot() {
	CON=$W/$1.console ST=$W/$1.status.json
	"$HZRIG" boot --quiet --variant "$V" --kernel "$KERNEL" --initrd "$2" \
		--plan "$PLAN" --accel tcg --timeout 150 \
		--qemu-config "$TOP/rig/boot/qemu/x86_64.conf" \
		${3:+--append "$3"} --console "$CON" \
		--samples "$W/$1.ttyS1" --status "$ST"
	rc=$?
	echo "# $1: hzrig boot exit $rc, $(jq -c '{status, guest_rc, crash}' "$ST" 2>/dev/null)"
}
# finished NAME: the guest got to its end, not crashed or hung.
finished() {
	check "$1: guest finished (hzrig boot exit 0 or 1, status ok or failed)" \
		"[ $rc -le 1 ] && jq -e '.status == \"ok\" or .status == \"failed\"' '$ST' >/dev/null"
	check "$1: no oops, BUG, WARNING, call trace or panic on the console" \
		"! grep -qE '$OOPS' '$CON'"
}
# shellcheck disable=SC2317 # called from check strings
guest_rc() { sed -n 's/.*hzrig: guest done rc=\([0-9]*\).*/\1/p' "$CON" | tail -1; }
show() { grep -E "$1" "$CON" | head -5 | sed 's/^/# console: /'; }

# 1. Without a bulk endpoint the probe refuses the device: no /dev/hzrig0.
for ep in 0x02:bulk-out 0x81:bulk-in; do
	a=${ep%%:*} n=${ep#*:}
	boot "omit-$a" "$W/initramfs.cpio" "hzrig.gadget=-x,$a"
	show "gadget|hzrig_host|Bail out|guest done|$OOPS"
	finished "no $n ($a)"
	check "no $n ($a): the gadget left $a out of its descriptors" \
		"grep -q 'endpoint $a ($n) omitted from the descriptors' '$CON'"
	check "no $n ($a): the probe refused the device" \
		"grep -q 'hzrig_host .*: needs a bulk IN and a bulk OUT endpoint' '$CON'"
	check "no $n ($a): the runner found no device, guest rc 1" \
		"grep -q 'Bail out! cannot open' '$CON' && [ \"\$(guest_rc)\" = 1 ]"
done

# Without the optional interrupt IN the driver binds; int-in cases only fail.
boot omit-0x85 "$W/initramfs.cpio" "hzrig.gadget=-x,0x85"
show "gadget|hzrig_host|Bail out|^(not )?ok|guest done|$OOPS"
finished "no int-in (0x85)"
check "no int-in (0x85): the gadget left 0x85 out of its descriptors" \
	"grep -q 'endpoint 0x85 (int-in) omitted from the descriptors' '$CON'"
check "no int-in (0x85): the probe took the device" \
	"! grep -q 'needs a bulk IN' '$CON' && ! grep -q 'Bail out' '$CON'"
check "no int-in (0x85): the module's HZ check passed (the control for 2.)" \
	"! grep -q 'compiled for HZ=' '$CON' && grep -qE '^ok [0-9]+ jiffy_rate' '$CON'"
check "no int-in (0x85): bulk-in case ran" \
	"grep -qE '^ok [0-9]+ bulk-in_nak_ms_1ms ' '$CON'"
check "no int-in (0x85): int-in case refused (EOPNOTSUPP)" \
	"grep -qE '^not ok [0-9]+ int-in_nak_ms_1ms # ioctl: Operation not supported' '$CON'"
check "no int-in (0x85): guest rc 1 (that one failure)" "[ \"\$(guest_rc)\" = 1 ]"

# 2. A module built for another HZ.
hz=$(config_hz "$V")
if [ -z "$OTHER" ]; then
	for o in hz-250 hz-1000 hz-100; do
		if [ -e "$B/$o/module/hzrig_host.ko" ] && [ -n "$hz" ] &&
		   [ "$(config_hz "$o")" != "$hz" ]; then
			OTHER=$o
			break
		fi
	done
fi
if [ -z "$OTHER" ]; then
	skip "HZ mismatch" "no module built for another HZ than $V's ($hz): build hz-250 or hz-1000 with rig/boot/matrix.sh"
	summary
fi
OMOD=$B/$OTHER/module/hzrig_host.ko
ohz=$(config_hz "$OTHER")
echo "# HZ mismatch: $V kernel (HZ=$hz) with $OTHER's module (HZ=$ohz)"
check "HZ mismatch: $OTHER has another HZ than $V" \
	"[ -e '$OMOD' ] && [ -n '$ohz' ] && [ '$ohz' != '$hz' ]"
# What lets the kernel load it at all; if that changes, so does the outcome.
check "HZ mismatch: same vermagic, so the kernel loads the module" \
	"[ \"\$(modinfo -F vermagic '$OMOD')\" = \"\$(modinfo -F vermagic '$MODULE')\" ]"
if mkinit "$W/initramfs-$OTHER.cpio" "$OMOD"; then
	boot "module-$OTHER" "$W/initramfs-$OTHER.cpio"
	show "hzrig_host|insmod|guest done|$OOPS"
	finished "HZ mismatch"
	check "HZ mismatch: not refused by the kernel (vermagic, symbols)" \
		"! grep -qE 'version magic|disagrees about version|Unknown symbol' '$CON'"
	# The refusal shows twice: busybox's insmod falls back from
	# finit_module() to init_module() on any failure, running init again.
	check "HZ mismatch: the module's init names it (compiled for HZ=$ohz)" \
		"grep -q 'hzrig_host: compiled for HZ=$ohz but measured ' '$CON'"
	check "HZ mismatch: insmod failed, guest rc 13" \
		"grep -q \"insmod: can't insert\" '$CON' && [ \"\$(guest_rc)\" = 13 ]"
	check "HZ mismatch: the runner never started" "! grep -q '^KTAP version' '$CON'"
	check "HZ mismatch: no hzrig.gadget=, no extra gadget arguments" \
		"! grep -q 'hzrig: gadget arguments' '$CON'"
else
	ko "initramfs of $V with $OTHER's module"
fi
summary
