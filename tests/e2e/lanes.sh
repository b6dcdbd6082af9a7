#!/bin/bash
# lanes.sh VARIANT: rig/plan/plans/lanes.plan on VARIANT (parallel = lanes).
# Asserts: the 1 s NAKs on bulk and interrupt endpoints ran in the
# background with their repetitions in flight at once (the driver's
# fanout: their four starts lie within less than the three timeouts one
# after the other would take; not within one, since a repetition's arming
# waits for ep0 while the one-at-a-time stream's 1 s control NAK holds
# it), the 1 s control NAK did not (its repetitions one after the other), every case's samples came back in
# repetition order, the KTAP results are all ok and at most one sample is
# outside its window.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
V=${1:?usage: lanes.sh VARIANT}
OUT=$TOP/build/tests/e2e-lanes
. "$TOP/tests/e2e/lib.sh"

HZRIG_DB=$OUT/hzrig.db e2e_run lanes "$OUT" "$V"
C=$R/$V/console.log
hz=$(jq -r .hz "$R/$V/run.json" 2>/dev/null || echo 0)

check "guest finished (boot status ok)" "[ \"\$(jq -r .boot_status '$R/$V/run.json' 2>/dev/null)\" = ok ]"
check "no KTAP failure" "[ -s '$C' ] && ! grep -q '^not ok' '$C'"
for t in bulk-in bulk-out int-in; do
	check "$t 1 s NAK ran in the background, 4 at once" \
		"grep -q '\[$t\] $t nak ms T=1000 ms x4, 4 at once' '$C'"
	# jiffies of the four starts: one after the other, the last would start
	# three timeouts (3 * hz jiffies) after the first
	spread=$(jq -s "[.[] | select(.transfer == \"$t\" and .timeout_ms == 1000) | .start_jiffies] | max - min" "$S")
	check "$t 1 s NAK: the four calls overlapped (starts within $spread jiffies, one after the other $((3 * hz)) at least)" \
		"[ '$spread' -lt $((3 * hz)) ]"
done
check "the control 1 s NAK one after the other" \
	"grep -q '# case [0-9]*/[0-9]* ctrl-in nak ms T=1000 ms x2, ETA' '$C'"
spread=$(jq -s '[.[] | select(.transfer == "ctrl-in" and .timeout_ms == 1000) | .start_jiffies] | max - min' "$S")
check "the control 1 s NAK: its calls did not overlap ($spread >= $hz jiffies)" "[ '$spread' -ge '$hz' ]"
check "every case's samples in repetition order" \
	"jq -se 'group_by(.case) | all(map(.rep) == ([range(length)]))' '$S' > /dev/null"
n=$(jq -s length "$S")
out=$(jq -s '[.[] | select(.verdict != "inside")] | length' "$S")
echo "# $V: $out of $n samples outside their windows"
check "at most one sample outside its window" "[ '$n' -ge 40 ] && [ '$out' -le 1 ]"
check "the run says lanes" "[ \"\$(jq -r .efficiency.parallel '$R/$V/run.json')\" = lanes ]"

e2e_done lanes
