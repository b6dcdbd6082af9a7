#!/bin/bash
# behaviours.sh VARIANT: every gadget behaviour in a booted guest. Boots the
# variant with the quick plan (all transfers x behaviours x caller modes)
# and asserts, per behaviour, what a driver must see: NAK and late answers
# time out, answers and early-enough delays succeed at about the delay, stalls
# give -EPIPE, short answers give status 0 with the short length; legacy
# callers pass jiffies; and the model explains the samples.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
V=${1:?usage: behaviours.sh VARIANT}
OUT=$TOP/build/tests/e2e-quick
. "$TOP/tests/e2e/lib.sh"
# q FILTER: how many samples match the jq filter.
q() { jq -s "map(select($1)) | length" "$S"; }

e2e_run quick "$OUT" "$V"
hz=${V#hz-}

check "guest finished (boot status ok)" "[ \"\$(jq -r .boot_status '$RUN' 2>/dev/null)\" = ok ]"
for t in bulk-in bulk-out ctrl-in ctrl-out int-in bulk-in-killable; do
	for b in nak answer stall delay; do
		check "$t $b: samples, all with the expected status" \
			"[ \$(q '.transfer == \"$t\" and .behaviour == \"$b\"') -gt 0 ] && [ \$(q '.transfer == \"$t\" and .behaviour == \"$b\" and .status != .expected_status') -eq 0 ]"
	done
done
check "stall is -EPIPE" "[ \$(q '.behaviour == \"stall\" and .status != -32') -eq 0 ]"
check "short: status 0 and 10 bytes" "[ \$(q '.behaviour == \"short\"') -gt 0 ] && [ \$(q '.behaviour == \"short\" and (.status != 0 or .actual_length != 10)') -eq 0 ]"
check "answer: full length" "[ \$(q '.behaviour == \"answer\" and .actual_length != .length') -eq 0 ]"
check "delay shorter than the timeout: answered after >= 90% of it" \
	"[ \$(q '.behaviour == \"delay\" and .delay_us < .timeout_ms * 1000 and (.status != 0 or .elapsed_ns < .delay_us * 900)') -eq 0 ]"
check "delay longer than the timeout: timed out" \
	"[ \$(q '.behaviour == \"delay\" and .mode != \"zero\" and .delay_us > .timeout_ms * 1000 and .status != -110') -eq 0 ]"
# msecs_to_jiffies(T) for HZ dividing 1000 is T / (1000 / HZ), rounded up.
check "legacy-jiffies passes msecs_to_jiffies(T)" \
	"[ \$(q '.mode == \"legacy-jiffies\"') -gt 0 ] && [ \$(q '.mode == \"legacy-jiffies\" and .timeout_arg != ((.timeout_ms * $hz + 999) / 1000 | floor)') -eq 0 ]"
check "hz-constant passes HZ * T / 1000" \
	"[ \$(q '.mode == \"hz-constant\" and .timeout_arg != (.timeout_ms * $hz / 1000 | floor)') -eq 0 ]"
check "legacy-jiffies waits its argument in ms" \
	"[ \$(q '.mode == \"legacy-jiffies\" and .elapsed_ns < .timeout_arg * 1000000') -eq 0 ]"
check "level edges measured" "[ \$(q '.timeout_ms == 63 or .timeout_ms == 64') -gt 0 ]"
check "random start phase recorded" "[ \$(jq -s 'map(.phase_ns) | unique | length' '$S') -gt 10 ]"
# The userspace paths (docs/model.md §11): NAK and late answers on each,
# held against the path's own window; usbmon's view of every userspace URB.
for p in kernel usbfs libusb-sync libusb-async; do
	for b in nak delay; do
		check "$p $b: samples, all with the expected status" \
			"[ \$(q '.path == \"$p\" and .behaviour == \"$b\"') -gt 0 ] && [ \$(q '.path == \"$p\" and .behaviour == \"$b\" and .status != .expected_status') -eq 0 ]"
	done
	pn=$(q ".path == \"$p\"" 2>/dev/null || echo 0)
	pin=$(q ".path == \"$p\" and .verdict == \"inside\"" 2>/dev/null || echo 0)
	check "$p: >= 95% of its $pn samples inside its path's window ($pin)" "[ $pn -gt 0 ] && [ \$(($pin * 100)) -ge \$(($pn * 95)) ]"
done
check "userspace samples carry usbmon's urb_ns, within their own elapsed time" \
	"[ \$(q '.path != \"kernel\" and .behaviour == \"nak\" and (.urb_ns == null or .urb_ns > .elapsed_ns + 1000)') -eq 0 ]"
check "libusb windows are T itself (no jiffies, no wheel)" \
	"[ \$(q '(.path | startswith(\"libusb\")) and .behaviour == \"nak\" and (.window_lo_ns != .timeout_ms * 1000000 or .granule != 0)') -eq 0 ]"
check "usbfs and libusb: timeout 0 waits for a late answer (no 60 s clamp, no timeout)" \
	"[ \$(q '.path != \"kernel\" and .mode == \"zero\"') -gt 0 ] && [ \$(q '.path != \"kernel\" and .mode == \"zero\" and (.status != 0 or .elapsed_ns < .delay_us * 900)') -eq 0 ]"
med() { jq -s "map(select($1) | .elapsed_ns) | sort | if length == 0 then 0 else .[length / 2 | floor] end" "$S"; }
lib1=$(med '(.path | startswith("libusb")) and .behaviour == "nak" and .timeout_ms == 1')
fs1=$(med '.path == "usbfs" and .behaviour == "nak" and .timeout_ms == 1')
echo "# 1 ms NAK at HZ=$hz: usbfs median $fs1 ns, libusb median $lib1 ns"
# At HZ <= 250 a jiffy is 4 ms or more: usbfs cannot end a 1 ms wait before
# it, libusb's timerfd does.
if [ "$hz" -le 250 ]; then
	check "1 ms: libusb's median wait is under usbfs's jiffy-rounded one" "[ $lib1 -gt 1000000 ] && [ $lib1 -lt $fs1 ]"
fi
check "run.json records the libusb version" "jq -e '.libusb | startswith(\"1.0.\")' '$RUN' >/dev/null"
rep=$("$TOP/build/rig/hzrig" report "$OUT/latest" 2>&1)
check "report: a path column, and the time around the URB for all four paths" \
	"printf '%s\n' \"\$rep\" | grep -q '^  path  *transfer' && printf '%s\n' \"\$rep\" | grep -q 'around the URB.*kernel.*usbfs.*libusb-sync.*libusb-async'"

n=$(wc -l < "$S" 2>/dev/null || echo 0)
inside=$(q '.verdict == "inside"' 2>/dev/null || echo 0)
echo "# $inside of $n samples inside the model window"
check ">= 95% of all samples explained by the model" "[ $n -gt 0 ] && [ \$((inside * 100)) -ge \$((n * 95)) ]"

e2e_done behaviours
