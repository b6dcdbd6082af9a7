#!/bin/bash
# robustness.sh: the driver's teardown held against a debugging kernel
# (docs/robustness.md). Builds VARIANT (kernel, module, initramfs, through
# matrix.sh), boots it with the guest in robustness mode (initramfs/
# robustness.sh runs the scenarios of rig/boot/robustness.scenarios: the
# teardown ones CYCLES times each while the heartbeat runs and a NAKed call
# is in flight, the rwsem test and the ioctl fuzzer once), then scans
# the console for kernel reports (`hzrig findings`). Prints the cycles run
# per scenario and the findings; exits non-zero on any finding or failed
# scenario. With --expect TEXT (demonstrations), exits 0 only when each
# expected finding is reported.
#
# usage: rig/boot/robustness.sh [--cycles N] [--scenarios all|check|LIST]
#                               [--accel A]
#                               [--rwsem-cycles N] [--heartbeat-ms N]
#                               [--fuzz-trace] [--gadget-args ARGS]
#                               [--stop-on-report]
#                               [--expect TEXT]... VARIANT
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$TOP/build}
HZRIG=$B/rig/hzrig
# shellcheck source=rig/boot/variant.sh
. "$TOP/rig/boot/variant.sh"
CYCLES=100
SCENARIOS=all
LIST=$TOP/rig/boot/robustness.scenarios
ACCEL=auto
STOP=0
RWSEM_CYCLES=10000
EXTRA=""
EXPECT=()

while [ $# -gt 0 ]; do
	case "$1" in
	--cycles) CYCLES=$2; shift 2 ;;
	--scenarios) SCENARIOS=$2; shift 2 ;;
	--accel) ACCEL=$2; shift 2 ;;
	--stop-on-report) STOP=1; shift ;;
	--expect) EXPECT+=(--expect "$2"); shift 2 ;;
	--rwsem-cycles) RWSEM_CYCLES=$2; shift 2 ;;
	--fuzz-trace) EXTRA="$EXTRA hzrig.fuzz_trace=1"; shift ;;
	--heartbeat-ms) EXTRA="$EXTRA hzrig.heartbeat_ms=$2"; shift 2 ;;
	--gadget-args) EXTRA="$EXTRA hzrig.gadget=${2// /,}"; shift 2 ;;
	-*) echo "robustness: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { echo "robustness: one variant, please" >&2; exit 2; }
V=$1
case "$CYCLES" in ''|*[!0-9]*) echo "robustness: --cycles: '$CYCLES' is not a number" >&2; exit 2 ;; esac
[ "$CYCLES" -ge 1 ] || { echo "robustness: --cycles must be at least 1" >&2; exit 2; }
case "$RWSEM_CYCLES" in ''|*[!0-9]*) echo "robustness: --rwsem-cycles: '$RWSEM_CYCLES' is not a number" >&2; exit 2 ;; esac
case "$EXTRA" in *hzrig.heartbeat_ms=*)
	hb=${EXTRA##*hzrig.heartbeat_ms=}; hb=${hb%% *}
	case "$hb" in ''|*[!0-9]*) echo "robustness: --heartbeat-ms: '$hb' is not a number of ms" >&2; exit 2 ;; esac ;;
esac
case ",$SCENARIOS," in *[!a-z,-]*) echo "robustness: --scenarios: '$SCENARIOS': names and commas only" >&2; exit 2 ;; esac
# scenario_kind NAME: cycles or once, empty for an unknown name;
# scenario_set SET: the names in SET, comma-separated (robustness.scenarios).
scenario_kind() { awk -v n="$1" '!/^#/ && $1 == n { print $2 }' "$LIST"; }
scenario_set() {
	awk -v s="$1" '!/^#/ && NF { for (i = 3; i <= NF; i++) if ($i == s) print $1 }' "$LIST" | paste -sd, -
}
case $SCENARIOS in
all|check) SCENARIOS=$(scenario_set "$SCENARIOS") ;;
esac
for s in ${SCENARIOS//,/ }; do
	[ -n "$(scenario_kind "$s")" ] || { echo "robustness: --scenarios: unknown scenario '$s' (known: $(awk '!/^#/ && NF { print $1 }' "$LIST" | paste -sd' ' -); or all, check)" >&2; exit 2; }
done
[ -f "$TOP/kernel/variants/$V.variant" ] || { echo "robustness: no variant kernel/variants/$V.variant" >&2; exit 2; }

"$TOP/rig/boot/matrix.sh" --build-only "$V" || exit 1

if [ "$ACCEL" = auto ]; then
	ACCEL=$("$HZRIG" accel --kernel "$B/$V/kernel/arch/x86/boot/bzImage" \
		--initrd "$B/$V/initramfs.cpio" --qemu-config "$TOP/rig/boot/qemu/x86_64.conf") || ACCEL=tcg
fi
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
OUT=$TOP/results/robustness/$STAMP/$V
mkdir -p "$OUT"
ln -sfn "$STAMP" "$TOP/results/robustness/latest"
cmdline=$(variant_field "$V" cmdline)
# Each cycle takes about a second under TCG with KASAN; the watchdog allows
# five, plus the boot. The single-run scenarios (rwsem-*, ioctl-fuzz) get
# 300 s each for 10,000 iterations, more for more.
nscen=0 nonce=0
for s in ${SCENARIOS//,/ }; do
	case $(scenario_kind "$s") in once) nonce=$((nonce + 1)) ;; *) nscen=$((nscen + 1)) ;; esac
done
timeout=$((120 + nscen * CYCLES * 5 + nonce * (300 + RWSEM_CYCLES / 50)))
echo "[$V] robustness: $SCENARIOS, $CYCLES cycles each (watchdog $timeout s); results in results/robustness/$STAMP/$V"
"$HZRIG" boot --variant "$V" --kernel "$B/$V/kernel/arch/x86/boot/bzImage" \
	--initrd "$B/$V/initramfs.cpio" \
	--accel "$ACCEL" --qemu-config "$TOP/rig/boot/qemu/x86_64.conf" \
	--console "$OUT/console.log" --samples "$OUT/ttyS1.jsonl" \
	--status "$OUT/status.json" --timeout "$timeout" \
	--append "$cmdline hzrig.mode=robustness hzrig.scenarios=$SCENARIOS hzrig.cycles=$CYCLES hzrig.stop_on_report=$STOP hzrig.rwsem_cycles=$RWSEM_CYCLES$EXTRA"
boot_rc=$?

echo "[$V] scenarios:"
grep -aE '^(not )?ok [0-9]+ ' "$OUT/console.log" | sed 's/^/  /'
"$HZRIG" findings --console "$OUT/console.log" --variant "$V" \
	--out "$OUT/findings.jsonl" --ktap "$OUT/findings.ktap" "${EXPECT[@]}"
find_rc=$?
[ $find_rc -eq 2 ] && exit 2
if [ ${#EXPECT[@]} -gt 0 ]; then
	# A demonstration: the expected reports are the point.
	exit $find_rc
fi
[ $boot_rc -eq 0 ] && [ $find_rc -eq 0 ] || exit 1
