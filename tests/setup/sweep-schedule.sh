#!/bin/bash
# sweep-schedule.sh: the sweep's kernels and guests in time (make
# check-unit). rig/sweep/sweep.sh builds the first variant's kernel alone
# and the others' beside its guests, niced; a variant's batches boot only
# once its kernel is in. No kernel is built and no guest booted: a
# stand-in matrix.sh (HZRIG_MATRIX) makes what --build-only leaves, and a
# stand-in hzrig (HZRIG) boots by writing a batch that ended; each says
# when it began and ended in one log. Cases:
#   - two variants: the second's build runs niced while the first's
#     batches boot, and its batches boot only after its build ended; the
#     time line says so; exit 0;
#   - --build-first: every build ends before any batch boots;
#   - the second's build fails: the first is swept and collected, the
#     second is named not built, exit 1;
#   - a batch whose guest crashed in a driver its oops named boots again
#     without it and without the drivers that boot was through with
#     (kept-N.txt); one that hung, without its suspect alone.
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/setup/harness.sh
. "$TOP/tests/setup/harness.sh"

A=sweep-check-hz-100
Z=sweep-check-hz-1000

# matrix.sh --build-only V...: what the sweep boots, per variant; the
# second variant's build takes 3 s (FAIL_SECOND=1: it fails)
cat > "$T/matrix.sh" <<'EOF'
#!/bin/bash
shift
for v in "$@"; do
	echo "build-begin $v $(date +%s%N) nice=$(awk '{ print $19 }' /proc/$$/stat)" >> "$LOG"
	case "$v" in *-1000) sleep 3; [ "${FAIL_SECOND:-0}" = 0 ] || exit 1 ;; esac
	mkdir -p "$B/$v/kernel/arch/x86/boot" "$B/$v/sweep-devices" "$B/$v/kmods"
	: > "$B/$v/kernel/arch/x86/boot/bzImage"
	: > "$B/$v/initramfs.cpio"
	for i in 1 2 3; do echo "driver module=m$i" > "$B/$v/sweep-devices/m$i.device"; done
	echo "CONFIG_HZ=${v##*-}" > "$B/$v/kernel/.config"
	echo '{"kept":[]}' > "$B/$v/sweep-select.json"
	: > "$B/$v/sweep-firmware.txt"
	echo "build-end $v $(date +%s%N)" >> "$LOG"
done
EOF
# hzrig: boot writes a batch that ended; collect a sweep.json; the rest
# what the sweep's report and history need
cat > "$T/hzrig" <<'EOF'
#!/bin/bash
arg() { local k=$1; shift; while [ $# -gt 0 ]; do [ "$1" = "$k" ] && { echo "$2"; return; }; shift; done; }
case "$1" in
boot)
	v=$(arg --variant "$@")
	echo "boot-begin $v $(date +%s%N)" >> "$LOG"
	echo "append $v $(arg --append "$@")" >> "$LOG"
	samples=$(arg --samples "$@") console=$(arg --console "$@") status=$(arg --status "$@")
	# FAKE_DEATH=oops|hang: a first boot's guest dies, m1 through
	# with, m2 and m3 not; oops: m2's code faulted; hang: m3's
	# modprobe never returned
	if [ -n "${FAKE_DEATH:-}" ] && [ ! -e "$samples.died" ]; then
		: > "$samples.died"
		printf '%s\n' 'sweep begin batch=0' 'modprobe module=m1 rc=0 t=2.0' 'through module=m1 bus=1' \
			'modprobe module=m2 rc=0 t=2.1' > "$samples"
		printf 'hzrig-sweep: modprobe-begin module=%s\n' m1 m2 m3 > "$console"
		printf 'hzrig-sweep: modprobe-end module=%s rc=0\n' m1 m2 >> "$console"
		if [ "$FAKE_DEATH" = oops ]; then
			printf '%s\n' '[ 6.0] BUG: kernel NULL pointer dereference, address: 0000000000000008' \
				'[ 6.0] RIP: 0010:m2_work+0x8/0x60 [m2]' '[ 6.0] Kernel panic - not syncing: Fatal exception' >> "$console"
			echo '{"status":"crashed"}' > "$status"
		else
			echo '{"status":"hung"}' > "$status"
		fi
	else
		sleep 1
		echo "sweep end" > "$samples"
		: > "$console"
		echo '{"status":"ok"}' > "$status"
	fi
	echo "boot-end $v $(date +%s%N)" >> "$LOG" ;;
sweep)
	case "$2" in
	collect) d=$(arg --dir "$@"); echo "{\"variant\":\"$(arg --variant "$@")\",\"drivers\":[],\"batches\":[]}" > "$d/sweep.json" ;;
	report) echo "report" ;;
	esac ;;
check-tree) echo '{"sites":[]}' > "$(arg --json "$@")" ;;
esac
exit 0
EOF
chmod +x "$T/matrix.sh" "$T/hzrig"

sweep() {
	rm -rf "$T/b" "$T/res"
	: > "$T/log"
	LOG=$T/log B=$T/b HZRIG=$T/hzrig HZRIG_MATRIX=$T/matrix.sh HZRIG_DB=$T/res/hzrig.db \
		"$TOP/rig/sweep/sweep.sh" --accel tcg --jobs 2 --batch-size 1 --out "$T/res" "$@" > "$T/out" 2>&1
}
# at V EVENT: the time (ns) of the first EVENT line of variant V; last V
# EVENT: of the last
at() { awk -v e="$2" -v v="$1" '$1 == e && $2 == v { print $3; exit }' "$T/log"; }
last() { awk -v e="$2" -v v="$1" '$1 == e && $2 == v { t = $3 } END { print t }' "$T/log"; }

# --- two variants: the second built beside the first's guests --------------
sweep "$A" "$Z"
rc=$?
check "two variants: exit 0" '[ $rc = 0 ]'
check "the second variant's build began after the first's ended" \
	'[ "$(at $Z build-begin)" -gt "$(at $A build-end)" ]'
check "the first variant's batches booted while the second's kernel was built" \
	'[ "$(at $A boot-begin)" -lt "$(at $Z build-end)" ]'
# (niced by 19 from this shell's own, at most 19: make check-unit may
# itself run niced)
base=$(awk '{ print $19 }' /proc/$$/stat)
niced=$((base + 19 > 19 ? 19 : base + 19))
check "the second variant's build ran niced (19 more than the first, at most 19)" \
	'grep -q "^build-begin $Z .* nice=$niced$" "$T/log" && grep -q "^build-begin $A .* nice=$base$" "$T/log"'
check "the second variant's batches booted only after its build ended" \
	'[ "$(at $Z boot-begin)" -gt "$(at $Z build-end)" ]'
check "each variant's three batches booted, two at a time at most" \
	'[ "$(grep -c "^boot-begin $A " "$T/log")" = 3 ] && [ "$(grep -c "^boot-begin $Z " "$T/log")" = 3 ] &&
	 [ "$(awk "\$1 == \"boot-begin\" { n++; if (n > m) m = n } \$1 == \"boot-end\" { n-- } END { print m }" "$T/log")" -le 2 ]'
check "the time line says the others were built beside the guests" \
	'grep -q "^Time: build [0-9]* s (the others beside the guests, done at [0-9]* s)" "$T/out"'
check "both variants collected" '[ -f "$T/res/$A/sweep.json" ] && [ -f "$T/res/$Z/sweep.json" ]'

# --- --build-first: every kernel before any guest ------------------------------
sweep --build-first "$A" "$Z"
rc=$?
check "--build-first: exit 0" '[ $rc = 0 ]'
check "--build-first: every build ended before the first batch booted" \
	'[ "$(at $A boot-begin)" -gt "$(at $Z build-end)" ] && [ "$(grep -c "nice=$base$" "$T/log")" = 2 ]'

# --- the second variant's build fails --------------------------------------
FAIL_SECOND=1 sweep "$A" "$Z"
rc=$?
check "a build beside the guests that fails: exit 1" '[ $rc = 1 ]'
check "... the first variant swept and collected all the same" \
	'[ "$(grep -c "^boot-end $A " "$T/log")" = 3 ] && [ -f "$T/res/$A/sweep.json" ]'
check "... the second named not built, none of its batches booted" \
	'grep -qxF "[$Z] not built: skipped" "$T/out" && ! grep -q "^boot-begin $Z " "$T/log"'

# --- a batch whose guest died, booted again ----------------------------------
# (one variant, one batch of three: m1 through with before the death)
FAKE_DEATH=oops sweep --batch-size 3 "$A"
rc=$?
check "a crash whose oops named m2: booted again without m2 and m1, which that boot was through with" \
	'[ $rc = 0 ] && [ "$(grep -c "^append $A " "$T/log")" = 2 ] && grep "^append $A " "$T/log" | tail -n 1 | grep -q "hzrig.sweep_skip=m1,m2\( \|$\)"'
check "... m1 listed as kept from that boot's stream, m2 as the suspect, and the log says so" \
	'[ "$(cat "$T/res/$A/kept-0.txt")" = m1 ] && [ "$(cat "$T/res/$A/suspects-0.txt")" = m2 ] &&
	 grep -q "booting it again without m2 and the 1 drivers it was through with (kept from its stream)" "$T/out"'
FAKE_DEATH=hang sweep --batch-size 3 "$A"
rc=$?
check "a hang (a modprobe left waiting, a guess): booted again with every driver but m3, m1 too, nothing kept" \
	'[ $rc = 0 ] && grep "^append $A " "$T/log" | tail -n 1 | grep -q "hzrig.sweep_skip=m3\( \|$\)" && [ ! -e "$T/res/$A/kept-0.txt" ]'

done_checks sweep-schedule
