#!/bin/bash
# drivers.sh [VARIANT]: in-tree drivers, unmodified, measured in a guest
# (docs/checker.md, "Measuring the drivers"). Builds and boots VARIANT
# (default hz-250-drivers) with the drivers plan through rig/boot/matrix.sh,
# into a results directory of its own, and asserts: every probe made the
# flagged call, usbmon timed it, it timed out, the samples carry path,
# driver, site and the checker's timeout_arg for that HZ and the jiffies
# its timer was armed against, and every one falls inside the model's
# window for that integer (lo lowered for a call armed on stale jiffies).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
V=${1:-hz-250-drivers}
OUT=$TOP/build/tests/drivers-results
GOLDEN=$TOP/tests/checker/golden-6.1.json
. "$TOP/tests/e2e/lib.sh"

e2e_run drivers "$OUT" "$V"
hz=$(jq -r .hz "$RUN" 2>/dev/null)
check "guest finished (boot status ok)" "[ \"\$(jq -r .boot_status '$RUN' 2>/dev/null)\" = ok ]"
check "no KTAP failure, no Bail out" "grep -q '^ok' '$CON' && ! grep -qE '^not ok|Bail out' '$CON'"
check "the trace shows each driver's timer (no 'no stale-jiffies record')" "! grep -q 'no stale-jiffies record' '$CON'"
grep -E '^not ok|# driver' "$CON" | sed 's/^/# console: /' | head -10
check "HZ from the measured jiffy rate is the variant's" "[ 'hz-$hz-drivers' = '$V' ]"
for d in ipheth orinoco_usb; do
	n=$(jq -s "[.[] | select(.driver == \"$d\")] | length" "$S" 2>/dev/null || echo 0)
	check "$d: 10 samples" "[ '$n' -eq 10 ]"
	check "$d: the kernel reports the probe's call timed out" \
		"[ \$(grep -cE '$d.*(-110|timed out|failed retval -110)' '$CON') -ge 10 ]"
	site=$(jq -rs "[.[] | select(.driver == \"$d\")][0].site" "$S" 2>/dev/null)
	check "$d: site $site is one the checker found" \
		"jq -e --arg s '$site' '[.sites[].site] | index(\$s)' '$GOLDEN' >/dev/null"
	# the checker's value of the flagged expression at this HZ
	want=$(jq -r --arg s "$site" --arg hz "$hz" \
		'[.sites[] | select(.site == $s)][0].timeout_arg[$hz]' "$GOLDEN")
	check "$d: timeout_arg is the checker's $want at HZ=$hz" \
		"jq -se 'map(select(.driver == \"$d\")) | all(.timeout_arg == $want)' '$S' >/dev/null"
	check "$d: path usbmon, status -ETIMEDOUT, elapsed = usbmon's URB time" \
		"jq -se 'map(select(.driver == \"$d\")) | all(.path == \"usbmon\" and .status == -110 and .elapsed_ns == .urb_ns)' '$S' >/dev/null"
	# the timer each call armed, from timer:timer_start (docs/model.md
	# section 10): an early sample armed on stale jiffies is told apart
	check "$d: every sample has the jiffies its timer was armed against (jiffies_lag)" \
		"jq -se 'map(select(.driver == \"$d\")) | all(.jiffies_lag >= 0 and .start_jiffies > 0)' '$S' >/dev/null"
	stale=$(jq -s "[.[] | select(.driver == \"$d\" and .jiffies_lag > 0)] | length" "$S" 2>/dev/null)
	[ "${stale:-0}" = 0 ] || echo "# $d: $stale samples armed on stale jiffies (window lo lowered)"
	check "$d: every sample inside the model's window" \
		"jq -se 'map(select(.driver == \"$d\")) | all(.verdict == \"inside\")' '$S' >/dev/null"
done
e2e_done drivers
