#!/bin/bash
# bench.sh: hzrig's turnaround figures, printed and appended to
# results/bench.jsonl (one JSON object a variant and run).
#
#   cold build   a fresh build directory, ccache off: what a new HZ costs
#                (HZ is inlined through jiffies.h, so ccache cannot share
#                objects between HZ variants anyway)
#   warm build   kbuild again on an up-to-date tree: the price of `make`
#                when nothing changed
#   boot to first sample, guest time for the plan, Σwaits/wall efficiency
#                and the noise floor, from one matrix run of the plan per
#                way of running it: serial, and lanes (the long cases beside
#                the others, fanned out: docs/measurement.md), so both
#                efficiency figures and their noise stand side by side
#   late tail    p99 of how late each timed-out level-0 NAK call ended after
#                the tick its start and timeout make it due on
#                (elapsed - ((n + 1) * TICK_NSEC - phase)), per mode; then
#                whether the lanes' tail is within serial's plus the noise
#                allowance (the larger of the two runs')
#
# usage: rig/boot/bench.sh [--plan NAME] [--no-cold] [--parallel serial|lanes]...
#                     [--reuse] [--out FILE] VARIANT...
# --reuse: no new runs, the figures of the last ones (build/bench/results-*).
# Timing goals are not asserted anywhere; these are figures to read and to
# compare across commits and machines (the goal: lanes at efficiency 2 or
# more on the full plan, with a tail no wider than serial's).
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$TOP/build}
KSRC=${KSRC:-$B/src/linux-source-6.1}
JOBS=${JOBS:-$(nproc)}
export B KSRC JOBS
PLAN=quick
COLD=1
REUSE=0
OUT=$TOP/results/bench.jsonl
MODES=()

while [ $# -gt 0 ]; do
	case "$1" in
	--plan) PLAN=${2:?--plan needs a name}; shift 2 ;;
	--no-cold) COLD=0; shift ;;
	--reuse) REUSE=1; COLD=0; shift ;;
	--parallel)
		case "${2:-}" in serial|lanes) MODES+=("$2") ;;
		*) echo "bench: --parallel must be serial or lanes" >&2; exit 2 ;; esac
		shift 2 ;;
	--out) OUT=${2:?--out needs a file}; shift 2 ;;
	--) shift; break ;;
	-*) echo "bench: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "bench: no variants given" >&2; exit 2; }
[ ${#MODES[@]} -gt 0 ] || MODES=(serial lanes)
# shellcheck source=rig/boot/variant.sh
. "$TOP/rig/boot/variant.sh"
VLIST=$(variant_expand "$@") || { echo "bench: a variant list names an unknown variant (above)" >&2; exit 2; }
# shellcheck disable=SC2086
set -- $VLIST

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
log() { printf '[bench] %s\n' "$*"; }


declare -A COLD_S WARM_S
for v in "$@"; do
	COLD_S[$v]=null
	[ "$COLD" = 1 ] || continue
	# Patched variants are built from their own tree by matrix.sh; the
	# cold figure is about the compiler, so the clean tree stands in.
	tree=$(variant_tree "$v")
	tree_ensure "$tree" || exit 1
	o=$B/bench/$v/kernel
	rm -rf "$o"
	frags=()
	for f in $(variant_field "$v" fragments); do
		frags+=("$TOP/kernel/configs/$f.config")
	done
	"$TOP/rig/boot/kconfig.sh" "$tree" "$o" "${frags[@]}" > /dev/null || exit 1
	log "$v: cold build (ccache off, $JOBS jobs), a few minutes"
	t0=$(now)
	CCACHE_DISABLE=1 make -C "$tree" O="$o" ARCH=x86_64 -j"$JOBS" \
		bzImage modules > "$B/bench/$v/kernel.log" 2>&1 ||
		{ tail -20 "$B/bench/$v/kernel.log" >&2; exit 1; }
	COLD_S[$v]=$(secs "$t0" "$(now)")
	log "$v: cold build ${COLD_S[$v]} s"
	rm -rf "$o"
done

# One matrix run per mode: brings build/<variant> up to date and measures
# the guests.
for m in "${MODES[@]}"; do
	[ "$REUSE" = 1 ] && continue
	rm -rf "$B/bench/results-$m"
	"$TOP/rig/boot/matrix.sh" --plan "$PLAN" --parallel "$m" \
		--out "$B/bench/results-$m" "$@" || true
done

# late_p99 RUN_DIR VARIANT: "p99_ns n" of the late-by of the variant's
# timed-out level-0 NAK calls (docs/measurement.md, "Serial or lanes").
late_p99() {
	jq -rs --arg v "$2" '
		[.[] | select(.variant == $v and (.path // "kernel") == "kernel" and
			.behaviour == "nak" and .status == -110 and .level == 0 and
			.jiffies != null and .phase_ns != null) |
		 (((1000000000 + .hz / 2) / .hz) | floor) as $tick |
		 .elapsed_ns - ((.jiffies + 1) * $tick - .phase_ns)] | sort |
		if length == 0 then "null 0" else
		"\(.[((length - 1) * 0.99) | floor]) \(length)" end' "$1/samples.jsonl"
}

for v in "$@"; do
	WARM_S[$v]=null
	[ "$REUSE" = 1 ] && continue
	tree=$(variant_tree "$v")
	[ -d "$B/$v/src" ] && tree=$B/$v/src
	cc=gcc
	command -v ccache > /dev/null && cc="ccache gcc"
	t0=$(now)
	CCACHE_DEPEND=${CCACHE_DEPEND:-true} \
	make -C "$tree" O="$B/$v/kernel" ARCH=x86_64 CC="$cc" HOSTCC="$cc" -j"$JOBS" \
		bzImage modules > /dev/null 2>&1 && WARM_S[$v]=$(secs "$t0" "$(now)") ||
		WARM_S[$v]=null
done

mkdir -p "$(dirname "$OUT")"
declare -A LATE ALLOW EFF
printf '\n%-16s %-7s %9s %9s %12s %9s %6s %10s %10s %10s %8s %10s\n' variant mode cold_s warm_s \
	first_smp_s guest_s eff sleep_p99 rtt_p99 allowance inside late_p99
for m in "${MODES[@]}"; do
for v in "$@"; do
	run=$B/bench/results-$m/latest/$v/run.json
	if [ ! -s "$run" ]; then
		echo "bench: $v: no run.json (see build/$v/run/console.log)" >&2
		continue
	fi
	read -r late late_n <<< "$(late_p99 "$B/bench/results-$m/latest" "$v")"
	line=$(jq -c --arg v "$v" --arg plan "$PLAN" \
		--argjson late "${late:-null}" --argjson late_n "${late_n:-0}" \
		--argjson cold "${COLD_S[$v]}" --argjson warm "${WARM_S[$v]}" \
		--arg mode "$m" \
		--arg at "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
		--arg host "$(uname -n)" --argjson cpus "$(nproc)" \
		--arg version "$(git -C "$TOP" describe --always --dirty 2>/dev/null || echo unknown)" \
		'{at: $at, hzrig_version: $version, host: $host, cpus: $cpus,
		  variant: $v, hz: .hz, plan: $plan, accel: .accel,
		  cold_build_s: $cold, warm_build_s: $warm,
		  boot_to_first_result_s: .boot.first_result_s,
		  boot_to_first_sample_s: (.boot.first_case_s // null),
		  guest_s: .boot.wall_s,
		  waits_ms: .efficiency.waits_ms, wall_ms: .efficiency.wall_ms,
		  efficiency: .efficiency.ratio,
		  parallel: (.efficiency.parallel // $mode),
		  overshoot_p50_ns: .noise.overshoot_p50_ns,
		  overshoot_p99_ns: .noise.overshoot_p99_ns,
		  rtt_p50_ns: .noise.rtt_p50_ns, rtt_p99_ns: .noise.rtt_p99_ns,
		  allowance_ns: .allowance_ns,
		  samples: .counts.samples, inside: .counts.inside,
		  late_p99_ns: $late, late_n: $late_n}' "$run") || continue
	echo "$line" >> "$OUT"
	jq -r '[.variant, (.cold_build_s // "-"), (.warm_build_s // "-"),
		(.boot_to_first_sample_s // "-"), .guest_s,
		((.efficiency // 0) * 100 | floor / 100),
		((.overshoot_p99_ns // 0) / 1e4 | round / 100),
		((.rtt_p99_ns // 0) / 1e4 | round / 100),
		((.allowance_ns // 0) / 1e4 | round / 100), .parallel,
		(if (.samples // 0) > 0 then (.inside * 1000 / .samples | round / 10) else "-" end),
		(if .late_p99_ns == null then "-" else (.late_p99_ns / 1e4 | round / 100) end)] | @tsv' <<< "$line" |
		awk -F'\t' '{ printf "%-16s %-7s %9s %9s %12s %9s %6s %7s ms %7s ms %7s ms %7s%% %7s ms\n", $1, $10, $2, $3, $4, $5, $6, $7, $8, $9, $11, $12 }'
	LATE[$v/$m]=$late
	ALLOW[$v/$m]=$(jq -r '.allowance_ns // 0' <<< "$line")
	EFF[$v/$m]=$(jq -r '.efficiency // 0' <<< "$line")
done
done
echo
# The goal (docs/measurement.md): lanes at efficiency >= 2 with a late tail
# no wider than serial's by more than the noise allowance.
for v in "$@"; do
	s=${LATE[$v/serial]:-} l=${LATE[$v/lanes]:-}
	[ -n "$s" ] && [ -n "$l" ] && [ "$s" != null ] && [ "$l" != null ] || continue
	a=${ALLOW[$v/serial]}
	[ "${ALLOW[$v/lanes]}" -gt "$a" ] && a=${ALLOW[$v/lanes]}
	awk -v v="$v" -v s="$s" -v l="$l" -v a="$a" -v es="${EFF[$v/serial]}" -v el="${EFF[$v/lanes]}" 'BEGIN {
		printf "bench: %s: efficiency %.2f serial, %.2f lanes (goal >= 2: %s); late p99 %.2f ms serial, %.2f ms lanes, allowance %.2f ms: lanes tail %s\n",
			v, es, el, el >= 2 ? "met" : "not met", s / 1e6, l / 1e6, a / 1e6,
			l <= s + a ? "within serial + allowance" : "WIDER than serial + allowance" }'
done
echo "bench: appended to $OUT"
