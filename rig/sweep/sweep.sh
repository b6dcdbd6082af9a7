#!/bin/bash
# sweep.sh: the driver sweep (docs/sweep.md), stage by stage.
#
# usage: rig/sweep/sweep.sh [--nak K] [--unplug-ms MS] [--batch-size N]
#                           [--max-s S] [--out DIR] [--db FILE]
#                           [--accel auto|kvm|tcg] [--collect-only]
#                           [--no-build] [--quiet-s S] [--walk P]
#                           [--boot-with SCRIPT] [--jobs J]
#                           [--build-first] VARIANT...
#
# Each VARIANT is a kernel/variants/*.variant with a "sweep =" line
# (sweep-hz-100, sweep-small-hz-1000, ...). For each:
#   1. build: rig/boot/matrix.sh --build-only (the tree, its patched copy,
#      the config with rig/sweep/select.py's drivers, the kernel, the
#      modules, the initramfs with a device file per driver made by
#      `hzrig sweep devices` from the modules' id tables);
#   2. boot: one guest per batch of N devices (default 32, dummy_hcd's
#      limit), each device on its own dummy_hcd instance, the drivers NAKed
#      K times (default 2) then stalled; with --unplug-ms (the unplug
#      pass, for the debug variants sweep-debug-*: KASAN, lockdep), each
#      device is unplugged MS ms into its first NAKed request instead;
#      with --boot-with SCRIPT the batches boot there instead
#      (rig/lava/lab-batches.sh: jobs on the local LAVA lab, make
#      lava-submit with a sweep variant), the same files coming back;
#   3. collect: `hzrig sweep collect` into OUT/VARIANT/sweep.json.
# --collect-only: no build and no boot; stage 3 and what follows again on
# the batches an earlier run left in OUT (after hzrig itself changed).
# --no-build: boot what B holds for each variant as it is (a test that
# made its own initramfs there). --quiet-s S (default 30): a guest whose
# stream (it beats every second) stays silent S seconds hung, and is
# stopped then instead of at the watchdog; what it streamed is kept.
# --walk P (default 6; 0: none): each request of a probe NAKed in turn,
# the device plugged in again for each pass, P passes at most (--nak 0
# walks nothing; with --unplug-ms each pass unplugs under its request, and
# a kernel report is put down to the request of its pass).
# --jobs J (default: 2 on a machine with 2 cores or more, else 1): J
# batches' guests at once, each a TCG guest on a core of its own (the
# batches' own noise allowance, in sweep.json and the report, says whether
# the timing suffered); --boot-with boots one batch at a time.
# The first variant's kernel is built alone, the others' beside its
# guests (nice 19: the guests' idle cores), each variant's batches
# joining the pool once its kernel is in; --build-first builds every
# kernel before any guest boots.
# Then `hzrig sweep report` over all of them, beside `hzrig check-tree` on
# the swept drivers' files of the first variant's tree, as a table
# (OUT/report.txt) and JSON (OUT/report.json), with the coverage and the
# time each stage took; each variant's sweep.json goes into the history
# (--db, default HZRIG_DB or results/hzrig.db) and the dashboard is redrawn. Exit: 0, 1 if a stage failed for a variant, 2 bad
# usage. (The report's own exit 1, "HZ-dependent sites found", is what a
# sweep is for, not a failure.)
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$TOP/build}
HZRIG=${HZRIG:-$B/rig/hzrig}
# (tests/setup/sweep-schedule.sh stands in its own for both)
MATRIX=${HZRIG_MATRIX:-$TOP/rig/boot/matrix.sh}
K=2
UNPLUG_MS=0
SIZE=32
MAX_S=240
RETRIES=3	# boots of a batch that hung, each without the last's suspects
ACCEL=auto
COLLECT_ONLY=0
NO_BUILD=0
QUIET_S=30
WALK=6
BOOT_WITH=
BUILD_FIRST=0
JOBS=$(($(nproc) >= 2 ? 2 : 1))
OUT=$TOP/results/sweep
DB=${HZRIG_DB:-$TOP/results/hzrig.db}

while [ $# -gt 0 ]; do
	case "$1" in
	--nak) K=$2; shift 2 ;;
	--unplug-ms) UNPLUG_MS=$2; shift 2 ;;
	--batch-size) SIZE=$2; shift 2 ;;
	--max-s) MAX_S=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	--db) OUT_DB=$2; shift 2 ;;
	--accel) ACCEL=$2; shift 2 ;;
	--collect-only) COLLECT_ONLY=1; shift ;;
	--no-build) NO_BUILD=1; shift ;;
	--quiet-s) QUIET_S=$2; shift 2 ;;
	--walk) WALK=$2; shift 2 ;;
	--boot-with) BOOT_WITH=$2; shift 2 ;;
	--jobs) JOBS=$2; shift 2 ;;
	--build-first) BUILD_FIRST=1; shift ;;
	-*) echo "sweep: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "sweep: no variants given" >&2; exit 2; }
DB=${OUT_DB:-$DB}
for n in "$K" "$UNPLUG_MS" "$SIZE" "$MAX_S" "$QUIET_S" "$WALK" "$JOBS"; do
	case "$n" in '' | *[!0-9]*) echo "sweep: --nak, --unplug-ms, --batch-size, --max-s, --quiet-s, --walk and --jobs take a number, not '$n'" >&2; exit 2 ;; esac
done
[ "$JOBS" -ge 1 ] && [ "$JOBS" -le 16 ] || { echo "sweep: --jobs must be 1..16 guests at once" >&2; exit 2; }
[ -z "$BOOT_WITH" ] || JOBS=1
[ "$WALK" -le 64 ] || { echo "sweep: --walk must be 0..64 passes" >&2; exit 2; }
# the walk NAKs: the stall pass does not walk; the unplug pass does, each
# pass unplugged under its request
[ "$K" -gt 0 ] || WALK=0
[ "$QUIET_S" -ge 5 ] && [ "$QUIET_S" -le 3600 ] || { echo "sweep: --quiet-s must be 5..3600" >&2; exit 2; }
[ "$UNPLUG_MS" -le 60000 ] || { echo "sweep: --unplug-ms must be 0..60000" >&2; exit 2; }
[ "$UNPLUG_MS" -eq 0 ] || [ "$K" -ge 1 ] || {
	echo "sweep: --unplug-ms unplugs a device during a NAKed request: it needs --nak 1 or more" >&2
	exit 2
}
[ "$SIZE" -ge 1 ] && [ "$SIZE" -le 32 ] || { echo "sweep: --batch-size must be 1..32 (dummy_hcd.num)" >&2; exit 2; }
case "$ACCEL" in auto|kvm|tcg) ;; *) echo "sweep: --accel must be auto, kvm or tcg" >&2; exit 2 ;; esac
[ -z "$BOOT_WITH" ] || [ "$COLLECT_ONLY" = 0 ] || {
	echo "sweep: --boot-with boots the batches, --collect-only boots nothing: one or the other" >&2
	exit 2
}
[ -z "$BOOT_WITH" ] || [ -x "$BOOT_WITH" ] || {
	echo "sweep: --boot-with: $BOOT_WITH is not an executable script" >&2
	exit 2
}
# shellcheck source=rig/boot/variant.sh
. "$TOP/rig/boot/variant.sh"
for v in "$@"; do
	[ -n "$(variant_field "$v" sweep 2>/dev/null)" ] || {
		echo "sweep: $v is not a sweep variant (kernel/variants/$v.variant has no 'sweep =' line)" >&2
		exit 2
	}
done

log() { printf '[%s] %s\n' "$1" "$2"; }
# boot_batch VARIANT DIR I NUM SKIP: batch I's guest (NUM devices, the
# modules in SKIP, comma-separated, left out), under the watchdog: the
# batch's own limit, its boot and its output.
boot_batch() {
	"$HZRIG" boot --variant "$1" --kernel "$B/$1/kernel/arch/x86/boot/bzImage" \
		--initrd "$B/$1/initramfs.cpio" --timeout $((MAX_S + 120)) \
		--accel "$ACCEL" --qemu-config "$TOP/rig/boot/qemu/x86_64.conf" \
		--console "$2/console-$3.log" --samples "$2/batch-$3.txt" \
		--status "$2/status-$3.json" --quiet --quiet-s "$QUIET_S" \
		--append "hzrig.mode=sweep hzrig.nak=$K hzrig.batch=$3 hzrig.batch_size=$SIZE hzrig.sweep_max_s=$MAX_S hzrig.unplug_ms=$UNPLUG_MS hzrig.walk=$WALK dummy_hcd.num=$4${5:+ hzrig.sweep_skip=$5}"
}
# --boot-with SCRIPT: the batches boot elsewhere (rig/lava/lab-batches.sh:
# as jobs on the local LAVA lab). SCRIPT start VARIANT DIR NB runs before
# the variant's batches; SCRIPT batch VARIANT DIR I NUM SKIP TRY then
# leaves batch I's batch-I.txt, console-I.log and status-I.json as
# boot_batch does (TRY 0 the first boot, then again without the modules
# SKIP). The sweep's settings reach it as SWEEP_NAK, SWEEP_BATCH_SIZE,
# SWEEP_MAX_S, SWEEP_UNPLUG_MS and SWEEP_ACCEL.
export SWEEP_NAK=$K SWEEP_BATCH_SIZE=$SIZE SWEEP_MAX_S=$MAX_S SWEEP_UNPLUG_MS=$UNPLUG_MS SWEEP_ACCEL=$ACCEL SWEEP_WALK=$WALK

# through_of STREAM: the modules a boot's stream says it was through with
# (the guest's "through module=M", its walk and shapes over) and whose
# modprobe returned, one a line
through_of() {
	tr -d '\r' < "$1" | sed 's/^hzrig-sweep //' | awk '
		/^through module=/ { m = $2; sub(/^module=/, "", m); t[m] = 1 }
		/^modprobe module=/ { m = $2; sub(/^module=/, "", m); p[m] = 1 }
		END { for (m in t) if (m in p) print m }' | sort
}

# run_batch VARIANT DIR I NUM NB: batch I (NUM devices) of NB, booted
# (again without its suspects when it hung or crashed); a stage that
# failed leaves DIR/failed-I. One at a time, or --jobs at once.
run_batch() {
	local v=$1 d=$2 i=$3 num=$4 nb=$5 st all named out prev_alive try mods sus alive b kept nk
	# boot SKIP TRY: this batch's boot, here or --boot-with's
	boot() {
		if [ -n "$BOOT_WITH" ]; then
			"$BOOT_WITH" batch "$v" "$d" "$i" "$num" "$1" "$2"
		else
			boot_batch "$v" "$d" "$i" "$num" "$1"
		fi
	}
	boot "" 0
	st=$(jq -r .status "$d/status-$i.json" 2>/dev/null)
	log "$v" "batch $((i + 1))/$nb: $st, $(grep -c '^\(hzrig-sweep \)\?trace ' "$d/batch-$i.txt" 2>/dev/null) trace lines"
	# "error": the rig could not boot it (hzrig boot's, or the lab's
	# job never showed a console): a failed stage, not a finding
	if [ "$st" = error ]; then
		log "$v" "batch $((i + 1))/$nb could not be booted: $(jq -r .crash "$d/status-$i.json" 2>/dev/null)"
		touch "$d/failed-$i"
	fi
	# A driver that hangs or crashes the guest is a finding, and the
	# batch's other drivers are not lost: the guest said each
	# modprobe as it began and returned; those that never returned
	# are the suspects (suspects-N.txt, which collect records), and
	# the batch boots again without them, up to RETRIES times (the
	# first boot's console and status kept as *-first.*).
	# Each boot again leaves out the newest suspects, and those the
	# last boot left out when it got further without them (its last
	# heartbeat 5 s or more later than the boot before); those
	# whose leaving out changed nothing (the guest died as early
	# without them) go back in, and are measured whole. What each
	# boot streamed stays (batch-N-first.txt, -retryK.txt), so a
	# suspect keeps what it measured; when nothing is left to boot,
	# the last boot is the batch's.
	all="" named="" out="" prev_alive=0 try=0 kept=""
	mods=$(ls "$B/$v/sweep-devices/"*.device | sort | sed -n "$((i * SIZE + 1)),$((i * SIZE + num))p" |
		xargs -r sed -n 's/^driver .*module=\([^ ]*\).*/\1/p' | sort -u)
	# a batch whose stream ran to its end is whole: a kernel report that
	# did not stop the guest (a WARNING), or a guest that hung or
	# crashed after its end (powering off), is a finding, not a reason
	# to boot it again (nor to blame the driver that bound last)
	ended() { grep -aq '^\(hzrig-sweep \)\?sweep end' "$d/batch-$i.txt" 2>/dev/null; }
	if [ "$st" != ok ] && ended; then
		log "$v" "batch $((i + 1))/$nb: $st, but the batch ran to its end: not booted again"
	fi
	while [ "$st" != ok ] && ! ended && [ $try -lt $RETRIES ]; do
		keep() {	# this boot's files under their -first/-retryK names
			local k=first
			[ $try = 0 ] || k=retry$try
			mv "$d/console-$i.log" "$d/console-$i-$k.log"
			mv "$d/status-$i.json" "$d/status-$i-$k.json"
			mv "$d/batch-$i.txt" "$d/batch-$i-$k.txt" 2> /dev/null
		}
		# the modprobes that never returned, else the flooder,
		# else the driver that bound last (what this boot streamed)
		b=$d/batch-$i.txt
		[ -f "$b" ] || b=
		sus=$("$TOP/rig/sweep/suspects.sh" --why "$d/.why-$i" "$d/console-$i.log" "$d/module-names.txt" $b)
		if [ -z "$sus" ]; then
			log "$v" "batch $((i + 1))/$nb ended $st with no suspect: no modprobe left waiting, no flood, no driver bound (console: ${d#$TOP/}/console-$i.log): not booted again"
			break
		fi
		alive=$(sed -n 's/^\(hzrig-sweep \)\?sweep alive t_us=\([0-9]*\).*/\2/p' "$d/batch-$i.txt" 2>/dev/null | tail -n 1)
		alive=${alive:-0}
		[ $try = 0 ] || [ "$alive" -lt $((prev_alive + 5000000)) ] || out=$all
		prev_alive=$alive
		named=$(printf '%s\n%s\n' "$named" "$sus" | sed '/^$/d' | sort)
		# A crash whose frames named its driver (suspects.sh: oops) is
		# that driver's: the drivers this boot was through with (their
		# walk over, their modprobe returned: "through module=M") are
		# done, kept from its stream (kept-N.txt, which collect reads),
		# and not booted again. A hang's cause is a guess, confirmed
		# only by a boot with every other driver in it.
		if [ "$(cat "$d/.why-$i" 2>/dev/null)" = oops ] && [ -n "$b" ]; then
			kept=$(printf '%s\n%s\n' "$kept" "$(through_of "$b" | comm -23 - <(printf '%s\n' "$named" | sort -u))" |
				sed '/^$/d' | sort -u)
			printf '%s\n' "$kept" | sed '/^$/d' > "$d/kept-$i.txt"
		fi
		rm -f "$d/.why-$i"
		all=$(printf '%s\n%s\n%s\n' "$sus" "$out" "$kept" | sed '/^$/d' | sort -u)
		printf '%s\n' "$named" | sort -u > "$d/suspects-$i.txt"
		if [ -z "$(comm -23 <(printf '%s\n' "$mods") <(printf '%s\n' "$all"))" ]; then
			log "$v" "batch $((i + 1))/$nb ended $st; suspects: $(echo $sus); nothing left to boot again without them"
			break
		fi
		keep
		try=$((try + 1))
		nk=$(printf '%s\n' "$kept" | sed '/^$/d' | wc -l)
		log "$v" "batch $((i + 1))/$nb ended $st; suspects: $(echo $sus); booting it again without $(comm -23 <(printf '%s\n' "$all") <(printf '%s\n' "$kept") | xargs)${kept:+ and the $nk drivers it was through with (kept from its stream)} ($try of $RETRIES)"
		boot "$(echo $all | tr ' ' ,)" "$try"
		st=$(jq -r .status "$d/status-$i.json" 2>/dev/null)
		log "$v" "batch $((i + 1))/$nb again: $st, $(grep -c '^\(hzrig-sweep \)\?trace ' "$d/batch-$i.txt" 2>/dev/null) trace lines"
	done
}

declare -A T
rc=0

# The first variant's kernel is built alone; the others' are built beside
# its guests, niced (a guest waiting out its NAKed timeouts leaves its core
# idle; docs/sweep.md, "Kernels beside guests"), and a
# variant's batches join the pool once its kernel is in. --build-first:
# every kernel before any guest.
t_start=$SECONDS
BUILD_PID="" BUILD_RC=$OUT/.build-rest.rc
mkdir -p "$OUT"
rm -f "$BUILD_RC"
if [ "$COLLECT_ONLY" = 0 ] && [ "$NO_BUILD" = 0 ]; then
	if [ "$BUILD_FIRST" = 1 ] || [ -n "$BOOT_WITH" ] || [ $# -eq 1 ]; then
		"$MATRIX" --build-only "$@" || rc=1
	else
		"$MATRIX" --build-only "$1" || rc=1
		log sweep "the first kernel built in $((SECONDS - t_start)) s; the others are built beside its guests (nice 19)"
		( nice -n 19 "$MATRIX" --build-only "${@:2}"; echo $? > "$BUILD_RC" ) &
		BUILD_PID=$!
	fi
fi
T[build]=$((SECONDS - t_start))
# wait_build: the kernels built beside the guests are in (their rc)
wait_build() {
	[ -n "$BUILD_PID" ] || return 0
	while [ ! -f "$BUILD_RC" ] && kill -0 "$BUILD_PID" 2>/dev/null; do
		sleep 1
	done
	if [ ! -f "$BUILD_RC" ]; then
		log sweep "the kernels built beside the guests: their build ended without saying how (killed?)"
		rc=1
	elif [ "$(cat "$BUILD_RC")" != 0 ]; then
		rc=1
	fi
	T[build_rest]=$((SECONDS - t_start))
	BUILD_PID=""
}
# the batches' guests running now (not the build beside them)
running_batches() {
	jobs -rp | grep -cvx "${BUILD_PID:-none}"
}

# One accelerator decision for the sweep (hzrig accel's KVM smoke boot),
# not one a batch: batches boot at once (--jobs), the smoke's files are
# one per variant directory.
if [ "$ACCEL" = auto ] && [ -z "$BOOT_WITH" ] && [ "$COLLECT_ONLY" = 0 ]; then
	for v in "$@"; do
		[ -f "$B/$v/kernel/arch/x86/boot/bzImage" ] && [ -f "$B/$v/initramfs.cpio" ] || continue
		ACCEL=$(variant_accel "$v") || ACCEL=auto
		log sweep "accelerator: $ACCEL, $JOBS guests at once"
		break
	done
fi

mkdir -p "$OUT"
JSONS=()
# one sweep, one ID: its variants' records in the history share it
SWEEP_ID=$(date -u +%Y%m%dT%H%M%SZ)
t0=$SECONDS
# Every variant's batches go to one pool of JOBS guests (a variant's last
# batch does not hold the next variant's first back); each variant is
# collected once all are done.
declare -A NB HZV
for v in "$@"; do
	d=$OUT/$v
	[ "$v" = "$1" ] || wait_build
	if [ "$COLLECT_ONLY" = 1 ] && [ ! -f "$d/batch-0.txt" ] && [ ! -f "$d/status-0.json" ]; then
		log "$v" "no batches in $d to collect: skipped"
		rc=1
		continue
	fi
	[ -f "$B/$v/initramfs.cpio" ] && [ -d "$B/$v/sweep-devices" ] || {
		log "$v" "not built: skipped"
		rc=1
		continue
	}
	if [ "$COLLECT_ONLY" = 0 ]; then
		rm -rf "$d"
		mkdir -p "$d"
	fi
	n=$(find "$B/$v/sweep-devices" -name '*.device' | wc -l)
	nb=$(((n + SIZE - 1) / SIZE))
	hz=$(sed -n 's/^CONFIG_HZ=//p' "$B/$v/kernel/.config")
	NB[$v]=$nb
	HZV[$v]=$hz
	pass="NAK $K then STALL"
	[ "$WALK" -eq 0 ] || pass="each request NAKed in turn, $WALK passes at most"
	if [ "$UNPLUG_MS" -gt 0 ] && [ "$WALK" -gt 0 ]; then
		pass="$pass, each device unplugged $UNPLUG_MS ms into each pass's NAKed request"
	elif [ "$UNPLUG_MS" -gt 0 ]; then
		pass="$pass, each device unplugged $UNPLUG_MS ms into its first NAK"
	fi
	log "$v" "$n devices in $nb batches of at most $SIZE, HZ=$hz, $pass"
	if [ "$UNPLUG_MS" -gt 0 ] && ! grep -q '^CONFIG_KASAN=y' "$B/$v/kernel/.config"; then
		log "$v" "warning: the unplug pass on a kernel without KASAN sees crashes only (a sweep-debug-* variant has KASAN and lockdep)"
	fi
	# the tree's module names, for a flood's suspect (suspects.sh)
	find "$B/$v/kmods" -name '*.ko' | sed 's|.*/||; s/\.ko$//' > "$d/module-names.txt"
	if [ -n "$BOOT_WITH" ] && [ "$COLLECT_ONLY" = 0 ]; then
		# the lab's batches, one variant after the other
		wait
		"$BOOT_WITH" start "$v" "$d" "$nb" || { log "$v" "$BOOT_WITH start failed"; rc=1; }
	fi
	rm -f "$d"/failed-*
	for ((i = 0; i < nb && COLLECT_ONLY == 0; i++)); do
		num=$SIZE
		[ $(((i + 1) * SIZE)) -le "$n" ] || num=$((n - i * SIZE))
		# a free slot, then the batch in the background
		while [ "$(running_batches)" -ge "$JOBS" ]; do
			wait -n
		done
		run_batch "$v" "$d" "$i" "$num" "$nb" &
	done
done
wait
for v in "$@"; do
	[ -n "${NB[$v]:-}" ] || continue
	d=$OUT/$v
	! ls "$d"/failed-* > /dev/null 2>&1 || rc=1
	find "$B/$v/kmods" -name '*.ko' > "$d/modules.list"
	if "$HZRIG" sweep collect --dir "$d" --variant "$v" --sweep-id "$SWEEP_ID" \
		--hz "${HZV[$v]}" --batches "${NB[$v]}" \
		--tree "$(readlink -f "$B/$v/src")" --modules "$d/modules.list" \
		--firmware "$B/$v/sweep-firmware.txt"; then
		JSONS+=("$d/sweep.json")
	else
		rc=1
	fi
	cp "$B/$v/sweep-select.json" "$d/select.json"
	cp "$B/$v/kernel/dropped.config" "$d/dropped.config" 2>/dev/null
done
T[boot]=$((SECONDS - t0))

[ ${#JSONS[@]} -gt 0 ] || { echo "sweep: nothing was collected" >&2; exit 1; }

# check-tree on the swept drivers' directories, in the first variant's
# tree: a module's other files too (cx231xx-core.c beside the id table's
# cx231xx-cards.c), which the report puts down to the module
v=$1
dirs=$(jq -r '.kept[].files[]' "$OUT/$v/select.json" | sed 's|/[^/]*$||' | sort -u)
t0=$SECONDS
# shellcheck disable=SC2086
"$HZRIG" check-tree --json "$OUT/check-tree.json" "$B/$v/src" $dirs > "$OUT/check-tree.txt" 2>&1
T[check_tree]=$((SECONDS - t0))

"$HZRIG" sweep report --check-tree "$OUT/check-tree.json" --select "$OUT/$v/select.json" \
	"${JSONS[@]}" > "$OUT/report.txt"
"$HZRIG" sweep report --check-tree "$OUT/check-tree.json" --select "$OUT/$v/select.json" \
	--format json "${JSONS[@]}" > "$OUT/report.json"
cat "$OUT/report.txt"

# The history: each variant's drivers and calls (the dashboard's Drivers
# section draws the newest sweep from there).
echo
"$HZRIG" ingest --db "$DB" --sweep "${JSONS[@]}" || rc=1
if "$HZRIG" dashboard --db "$DB" --out "$(dirname "$DB")/dashboard" > /dev/null; then
	echo "sweep: dashboard: $(dirname "$DB")/dashboard/index.html"
fi

# Coverage and time: what the rule kept, what Kconfig dropped, what bound.
echo
echo "Coverage:"
for j in "${JSONS[@]}"; do
	v=$(jq -r .variant "$j")
	# the picks Kconfig dropped (dropped.config also has the opened
	# dependencies that did not survive: not drivers)
	jq -r '.kept[].symbol | "CONFIG_\(.)=m"' "$OUT/$v/select.json" > "$OUT/$v/picks.txt"
	printf '  %-24s rule kept %s (and opened %s dependencies), Kconfig dropped %s, devices %s, enumerated %s, bound %s, probe failed %s, firmware missing %s, NAKed calls %s\n' \
		"$v" "$(jq '.kept | length' "$OUT/$v/select.json")" \
		"$(jq '.opened // [] | length' "$OUT/$v/select.json")" \
		"$(grep -cxF -f "$OUT/$v/picks.txt" "$OUT/$v/dropped.config" 2>/dev/null)" \
		"$(jq '.drivers | length' "$j")" \
		"$(jq '[.drivers[] | select(.outcome != "not enumerated")] | length' "$j")" \
		"$(jq '[.drivers[] | select(.outcome == "bound")] | length' "$j")" \
		"$(jq '[.drivers[] | select(.outcome == "probe failed")] | length' "$j")" \
		"$(jq '[.drivers[] | select(.outcome == "firmware missing")] | length' "$j")" \
		"$(jq '[.drivers[].calls[] | select(.verdict != null)] | length' "$j")"
	# the goals (docs/sweep.md): drivers that made a request and were
	# measured (a NAKed call judged), and every NAKed wait inside its
	# window or listed with its reason (the report's "outside" list)
	printf '  %-24s made a request %s, measured %s (goal: 150); NAKed calls inside their window %s of %s, %s armed on stale jiffies; outside: %s (the report lists each with its reason)\n' \
		"" "$(jq '[.drivers[] | select(.nak + .stall + .answer > 0 or (.calls | length) > 0)] | length' "$j")" \
		"$(jq '[.drivers[] | select([.calls[] | select(.verdict != null)] | length > 0)] | length' "$j")" \
		"$(jq '[.drivers[].calls[] | select(.verdict == "inside")] | length' "$j")" \
		"$(jq '[.drivers[].calls[] | select(.verdict != null)] | length' "$j")" \
		"$(jq '[.drivers[].calls[] | select(.verdict != null and (.jiffies_lag // 0) > 0)] | length' "$j")" \
		"$(jq '[.drivers[].calls[] | select(.verdict == "outside")] | length' "$j")"
	# calls the trace lost (its ring buffer overwrote them unread): what
	# the lines above count is a lower bound in those batches
	lost=$(jq -r '[.batches[] | select((.trace_overrun // 0) > 0) | "batch \(.batch + 1): \(.trace_overrun)"] | join(", ")' "$j")
	[ -z "$lost" ] ||
		printf '  %-24s trace events lost (the ring buffer overran; calls there are a lower bound): %s\n' "" "$lost"
done
if [ "$COLLECT_ONLY" = 1 ]; then
	echo "Time: collected again (no build, no boot) in ${T[boot]} s, check-tree ${T[check_tree]} s"
else
	echo "Time: build ${T[build]} s${T[build_rest]:+ (the others beside the guests, done at ${T[build_rest]} s)} (kernels: $(for v in "$@"; do printf '%s %s s ' "$v" "$(cat "$B/$v/kernel-build-s" 2>/dev/null || echo cached)"; done)), guests ${T[boot]} s, check-tree ${T[check_tree]} s, whole $((SECONDS - t_start)) s"
fi
echo "sweep: report in $OUT/report.txt and $OUT/report.json"
exit $rc
