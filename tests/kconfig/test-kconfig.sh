#!/bin/bash
# test-kconfig.sh: rig/boot/kconfig.sh must fail, naming each option that did not
# survive olddefconfig, and pass on the fragments the variants use.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
KSRC=${KSRC:-$TOP/build/src/linux-source-6.1}
O=$TOP/build/tests/kconfig
pass=0 failn=0
check() { if eval "$2"; then echo "ok - $1"; pass=$((pass + 1)); else echo "not ok - $1"; failn=$((failn + 1)); fi; }

rm -rf "$O"
mkdir -p "$O"
"$TOP/rig/boot/kconfig.sh" "$KSRC" "$O/bad" "$TOP/tests/kconfig/dropped.config" 2> "$O.err"
rc=$?
check "dropped option: kconfig.sh fails" "[ $rc -ne 0 ]"
check "dropped option: named with what it became" "grep -q 'dropped.config: wanted CONFIG_USB_DUMMY_HCD=y, got' '$O.err'"
check "option asked off and off: not reported" "! grep -q CONFIG_VT '$O.err'"

C=$TOP/kernel/configs
# The sweep's picks (KCONFIG_REPORT_ONLY, first as matrix.sh puts them):
# one Kconfig drops is listed, not fatal; usbcore, which the rule picks as
# a module, stays built in as the variant's fragments ask, and is no drop.
printf 'CONFIG_USB=m\nCONFIG_USB_GSPCA_BENQ=m\nCONFIG_USB_IPHETH=m\n' > "$O/picks.config"
KCONFIG_REPORT_ONLY=$O/picks.config "$TOP/rig/boot/kconfig.sh" "$KSRC" "$O/picks" "$O/picks.config" \
	"$C/base.config" "$C/clock.config" "$C/hz-250.config" "$C/sweep.config" "$C/sweep-check.config" 2> "$O.err"
check "sweep picks: kconfig passes, what the variant asks wins (CONFIG_USB=y)" \
	"[ $? -eq 0 ] && grep -qx 'CONFIG_USB=y' '$O/picks/.config' && grep -qx 'CONFIG_USB_IPHETH=m' '$O/picks/.config'"
check "sweep picks: the dropped one listed, usbcore (built in) not" \
	"grep -qx 'CONFIG_USB_GSPCA_BENQ=m' '$O/picks/dropped.config' && ! grep -q 'CONFIG_USB=' '$O/picks/dropped.config'"
"$TOP/rig/boot/kconfig.sh" "$KSRC" "$O/good" "$C/base.config" "$C/usb.config" "$C/clock.config" "$C/hz-250.config" 2> "$O.err"
check "hz-250 fragments survive" "[ $? -eq 0 ] && [ ! -s '$O.err' ]"
check "hz-250 .config has CONFIG_HZ=250" "grep -qx 'CONFIG_HZ=250' '$O/good/.config'"
check "hz-250 .config has dummy_hcd and gadgetfs built in" "grep -qx 'CONFIG_USB_DUMMY_HCD=y' '$O/good/.config' && grep -qx 'CONFIG_USB_GADGETFS=y' '$O/good/.config'"

# The in-tree drivers the checker flags, as modules (no variant uses the
# fragment yet: docs/checker.md).
"$TOP/rig/boot/kconfig.sh" "$KSRC" "$O/drivers" "$C/base.config" "$C/usb.config" "$C/clock.config" "$C/hz-250.config" "$C/real-drivers.config" 2> "$O.err"
check "real-drivers fragment survives" "[ $? -eq 0 ] && [ ! -s '$O.err' ]"
check "real-drivers: ipheth and orinoco_usb as modules" "grep -qx 'CONFIG_USB_IPHETH=m' '$O/drivers/.config' && grep -qx 'CONFIG_ORINOCO_USB=m' '$O/drivers/.config'"
# Every variant's fragments survive, on the tree it names (the debug
# variant's KASAN and lockdep options among them; the 6.12 variants on
# linux-source-6.12, extracted the first time).
B=$TOP/build
# shellcheck source=rig/boot/variant.sh
. "$TOP/rig/boot/variant.sh"
# A variant whose fragments other than its HZ one were checked with
# another variant, and whose HZ fragment was checked too (with any
# others), adds nothing: the HZ options survive whatever else is on, and
# the other fragments do not depend on HZ. Skipping those keeps the
# sweep's variants (three HZ on two trees) from tripling this test's time.
# HZDIR and TREEDIR name a checked .config of each HZ and tree, for the
# checks after the loop.
declare -A SEEN HZDIR TREEDIR
for vf in "$TOP"/kernel/variants/*.variant; do
	v=$(basename "$vf" .variant)
	frags=()
	for f in $(variant_field "$v" fragments); do
		frags+=("$C/$f.config")
	done
	tree=$(variant_tree "$v")
	hz=$(variant_field "$v" fragments | tr ' ' '\n' | sed -n 's/^hz-\([0-9]*\)$/\1/p')
	key="$tree|$(variant_field "$v" fragments | tr ' ' '\n' | grep -v '^hz-[0-9]*$' | tr '\n' ' ')|$(variant_field "$v" patches)"
	if [ -n "${SEEN[$key]:-}" ] && [ -n "${HZDIR[$hz]:-}" ]; then
		echo "ok - variant $v: the fragments of ${SEEN[$key]} and the HZ of ${HZDIR[$hz]} (checked there) # SKIP"
		continue
	fi
	SEEN[$key]=$v
	HZDIR[$hz]=${HZDIR[$hz]:-$v}
	TREEDIR[$(basename "$tree")]=${TREEDIR[$(basename "$tree")]:-$v}
	if ! tree_ensure "$tree" > /dev/null 2> "$O.err"; then
		check "variant $v: its tree $(basename "$tree") is there" false
		sed 's/^/#   /' "$O.err"
		continue
	fi
	"$TOP/rig/boot/kconfig.sh" "$tree" "$O/$v" "${frags[@]}" 2> "$O.err"
	check "variant $v: every option survives on $(basename "$tree")" "[ $? -eq 0 ] && [ ! -s '$O.err' ]"
	[ -s "$O.err" ] && sed 's/^/#   /' "$O.err"
done
check "a HZ=300 .config (${HZDIR[300]}) has CONFIG_HZ=300 (the generic msecs_to_jiffies())" \
	"grep -qx 'CONFIG_HZ=300' '$O/${HZDIR[300]}/.config'"
check "a 6.12 variant's .config (${TREEDIR[linux-source-6.12]}) was made from the 6.12 tree" \
	"grep -q '^# Linux/x86_64 6.12' '$O/${TREEDIR[linux-source-6.12]}/.config'"
check "hz-250-debug .config has KASAN and lockdep" "grep -qx 'CONFIG_KASAN=y' '$O/hz-250-debug/.config' && grep -qx 'CONFIG_PROVE_LOCKING=y' '$O/hz-250-debug/.config'"
for v in "$TOP"/kernel/variants/sweep*-debug-*.variant; do
	v=$(basename "$v" .variant)
	check "$v (the sweep's unplug pass) has KASAN, lockdep and the sweep's kprobes" \
		"grep -qx 'CONFIG_KASAN=y' '$O/$v/.config' && grep -qx 'CONFIG_PROVE_LOCKING=y' '$O/$v/.config' && grep -qx 'CONFIG_KPROBE_EVENTS=y' '$O/$v/.config'"
done

echo "kconfig: $pass passed, $failn failed"
[ $failn -eq 0 ]
