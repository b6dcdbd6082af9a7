#!/bin/bash
# boot-one.sh VARIANT: the end-to-end test. Builds and boots one variant with
# the default plan through the same rig/boot/matrix.sh that `make` uses, into a
# results directory of its own, then asserts what the backbone promises:
# the guest finished, KTAP has no failure, every sample has the fields of
# docs/results.md, NAK samples are -ETIMEDOUT, and >= 95% of them fall inside
# the model window plus the noise allowance the run measured.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
V=${1:?usage: boot-one.sh VARIANT}
OUT=$TOP/build/tests/e2e-results
. "$TOP/tests/e2e/lib.sh"

e2e_run default "$OUT" "$V"
check "run.json written" "[ -s '$RUN' ]"
check "guest finished (boot status ok)" "[ \"\$(jq -r .boot_status '$RUN' 2>/dev/null)\" = ok ]"
check "KTAP header on the console" "grep -q '^KTAP version 1' '$CON'"
check "KTAP plan line" "grep -qE '^1\\.\\.[0-9]+' '$CON'"
check "no KTAP failure" "! grep -q '^not ok' '$CON'"
# What went wrong, in CI's log: the failed KTAP lines and the module's words.
grep -E '^not ok|hzrig_host' "$CON" | sed 's/^/# console: /' | head -20
check "no Bail out" "! grep -q 'Bail out' '$CON'"
check "clocksource recorded, not jiffies" "jq -e '.clocksource | test(\"jiffies\") | not' '$RUN' >/dev/null"
hz=${V#hz-}
check "hz recorded as $hz" "[ \"\$(jq -r .hz '$RUN')\" = '$hz' ]"

n=$(wc -l < "$S" 2>/dev/null || echo 0)
check "140 samples (4 transfers x 7 timeouts x 5 reps)" "[ '$n' -eq 140 ]"
check "every sample has the backbone fields" \
	"jq -se 'length > 0 and all(has(\"variant\") and has(\"hz\") and .path == \"kernel\" and has(\"transfer\") and .behaviour == \"nak\" and .mode == \"ms\" and has(\"timeout_ms\") and has(\"timeout_arg\") and has(\"status\") and has(\"elapsed_ns\"))' '$S' >/dev/null"
check "timeout_arg equals timeout_ms in ms mode" "[ \"\$(jq -s 'map(select(.timeout_arg != .timeout_ms)) | length' '$S')\" = 0 ]"
check "every NAK sample is -ETIMEDOUT" "[ \"\$(jq -s 'map(select(.status != -110)) | length' '$S')\" = 0 ]"
for t in bulk-in bulk-out ctrl-in ctrl-out; do
	check "samples for $t" "[ \"\$(jq -s 'map(select(.transfer == \"$t\")) | length' '$S')\" = 35 ]"
done
inside=$(jq -s 'map(select(.verdict == "inside")) | length' "$S" 2>/dev/null || echo 0)
echo "# $inside of $n samples inside the model window"
check ">= 95% inside the model window" "[ \$((inside * 100)) -ge \$((n * 95)) ]"
# A start on stale jiffies lowers lo by the lag (docs/model.md section 10).
check "model window sane (lo < hi, both above timeout)" \
	"[ \"\$(jq -s 'map(select(.jiffies_lag <= 0 and (.window_lo_ns >= .window_hi_ns or .window_lo_ns < .timeout_ms * 1000000 * 0.9))) | length' '$S')\" = 0 ]"
# jiffies_lag is measured against the tick grid the module learnt at load:
# a wrong anchor would make every sample look stale (or ahead).
check "every sample records jiffies_lag" "jq -se 'all(has(\"jiffies_lag\"))' '$S' >/dev/null"
lag0=$(jq -s 'map(select(.jiffies_lag == 0)) | length' "$S" 2>/dev/null || echo 0)
echo "# $lag0 of $n samples started with jiffies on the tick grid"
check "jiffies anchored to the tick grid (>= 95% with jiffies_lag 0)" "[ \$((lag0 * 100)) -ge \$((n * 95)) ]"

# The watchdog: the same guest, given less time than its plan needs, is
# reported hung and killed; a guest whose kernel panics is reported crashed.
K=$TOP/build/$V/kernel/arch/x86/boot/bzImage
I=$TOP/build/$V/initramfs.cpio
W=$TOP/build/tests/watchdog
mkdir -p "$W"
"$TOP/build/rig/hzrig" boot --quiet --variant "$V" --kernel "$K" --initrd "$I" \
	--plan "$TOP/rig/plan/plans/default.plan" --accel tcg --timeout 4 \
	--qemu-config "$TOP/rig/boot/qemu/x86_64.conf" \
	--console "$W/hung.log" --samples "$W/hung.ttyS1" --status "$W/hung.json"
check "watchdog: a guest past its budget exits 3, status hung" "[ $? -eq 3 ] && [ \"\$(jq -r .status '$W/hung.json')\" = hung ]"
check "watchdog: no QEMU left behind" "! pgrep -f 'hung.ttyS1' >/dev/null"
"$TOP/build/rig/hzrig" boot --quiet --variant "$V" --kernel "$K" --initrd "$I" \
	--plan "$TOP/rig/plan/plans/default.plan" --accel tcg --timeout 60 \
	--qemu-config "$TOP/rig/boot/qemu/x86_64.conf" --append "rdinit=/nonexistent" \
	--console "$W/panic.log" --samples "$W/panic.ttyS1" --status "$W/panic.json"
check "watchdog: a panicking guest exits 5, status crashed, panic named" \
	"[ $? -eq 5 ] && [ \"\$(jq -r .status '$W/panic.json')\" = crashed ] && jq -r .crash '$W/panic.json' | grep -q 'Kernel panic'"

e2e_done boot-one
