#!/bin/bash
# regression-demo.sh CLEAN_RUN_DIR: proves that the regression check catches
# the real thing, and only it.
#
# The hz-250-legacy variant is hz-250 plus kernel/patches/0001-*, which makes
# usb_start_wait_urb() take its timeout as jiffies again (pre-2.6.12). This
# test boots it with the quick plan, boots the clean hz-250 once more, ingests
# both runs and CLEAN_RUN_DIR (an earlier quick-plan run of hz-250, e.g. the
# one behaviours.sh made) into a fresh history database, and asserts:
#   - the clean hz-250 run held against the earlier clean run: no regression
#     (two consecutive runs make a history with nothing flagged), exit 0;
#   - hz-250-legacy held against the clean run: exit 1, and the flagged cases
#     are the ones the kernel change predicts: every case that times out in
#     the clean run whose wait the patch moves far beyond the check's noise
#     threshold is flagged, and no case the device answers (answer, short,
#     stall, a delay shorter than the timeout) nor one the patch leaves alone
#     (T = 1 ms: one jiffy either way) is.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$TOP/build}
CLEAN=${1:?usage: regression-demo.sh CLEAN_RUN_DIR}
HZRIG=$B/rig/hzrig
OUT=$B/tests/e2e-demo
DB=$OUT/hzrig.db
HZ=250
. "$TOP/tests/e2e/lib.sh"
sql() { sqlite3 -batch -noheader "$DB" "$@"; }

CLEAN=$(readlink -f "$CLEAN")
[ -f "$CLEAN/samples.jsonl" ] || { echo "regression-demo: no samples.jsonl in $CLEAN" >&2; exit 2; }
rm -rf "$OUT"
mkdir -p "$OUT"
"$TOP/rig/boot/matrix.sh" --plan quick --out "$OUT" hz-250 hz-250-legacy
echo "matrix exit status: $? (hz-250-legacy is expected to fail its model check)"
NEW=$(readlink -f "$OUT/latest")
A=$(basename "$CLEAN") N=$(basename "$NEW")

"$HZRIG" ingest --db "$DB" "$CLEAN" "$NEW"
check "both runs ingested" "[ \"\$(sql 'SELECT count(*) FROM runs')\" = 2 ]"
"$HZRIG" ingest --db "$DB" "$NEW" > /dev/null
check "ingest is idempotent" "[ \"\$(sql 'SELECT count(*) FROM samples')\" = \"\$(cat '$CLEAN/samples.jsonl' '$NEW/samples.jsonl' | wc -l)\" ]"

"$HZRIG" check-regressions --db "$DB" --run "$N" --variant hz-250 --baseline-run "$A"
check "two clean runs: no regression flagged (exit 0)" "[ $? -eq 0 ]"

"$HZRIG" check-regressions --db "$DB" --run "$N" --variant hz-250-legacy \
	--against hz-250 --baseline-run "$N" --format json > "$OUT/legacy.json"
rc=$?
check "hz-250-legacy against hz-250: regressions, exit 1" "[ $rc -eq 1 ]"
jq -r '.checks[].regressions[].case_key' "$OUT/legacy.json" | sort -u > "$OUT/flagged"
echo "# $(wc -l < "$OUT/flagged") cases flagged"

# What the patch predicts, per case of the clean run: the argument a is
# waited as msecs_to_jiffies(a) jiffies by the clean kernel and as a jiffies
# by the patched one (both after the 60 s clamp), so the wait moves by the
# difference. "Far beyond" the threshold: three times a bound on it (window
# width + both allowances + a jiffy).
sql "SELECT s.case_key, min(s.expected_status), max(s.expected_status),
	max(s.timeout_arg), max(s.window_hi_ns - s.window_lo_ns), max(s.allowance_ns)
	FROM samples s JOIN variant_runs v ON s.variant_run = v.id
	WHERE v.run_id = '$N' AND v.variant = 'hz-250'
	AND coalesce(nullif(s.path, ''), 'kernel') = 'kernel'
	GROUP BY s.case_key" | tr '|' '\t' > "$OUT/cases"
awk -F'\t' -v hz=$HZ -v must="$OUT/must" -v mustnot="$OUT/mustnot" '
function clamp(a) { return (a <= 0 || a > 60000) ? 60000 : a }
{
	key = $1; timedout = ($2 == -110 && $3 == -110); answered = ($2 != -110 && $3 != -110)
	a = clamp($4); tick = 1000 / hz
	nclean = int((a * hz + 999) / 1000); nlegacy = a
	shift = (nlegacy - nclean) * tick
	bound = $5 / 1e6 + 2 * $6 / 1e6 + tick
	if (timedout && shift > 3 * bound) {
		print key > must
		if (!minshift || shift < minshift)
			minshift = shift
	} else if (answered || shift == 0) print key > mustnot
}
END { printf "%.3f\n", minshift > minshift_file }' minshift_file="$OUT/minshift" "$OUT/cases"
touch "$OUT/must" "$OUT/mustnot"
sort -o "$OUT/must" "$OUT/must"
sort -o "$OUT/mustnot" "$OUT/mustnot"
echo "# $(wc -l < "$OUT/must") cases must be flagged, $(wc -l < "$OUT/mustnot") must not"
missed=$(comm -23 "$OUT/must" "$OUT/flagged")
wrong=$(comm -12 "$OUT/mustnot" "$OUT/flagged")
check "predicted cases exist on both sides" "[ -s '$OUT/must' ] && [ -s '$OUT/mustnot' ]"
check "every case the patch moves far is flagged" "[ -z \"\$missed\" ]"
[ -z "$missed" ] || echo "$missed" | sed 's/^/#   missed: /'
check "no answered or unmoved case is flagged" "[ -z \"\$wrong\" ]"
# The patch changes usb_start_wait_urb() only: usbfs waits in its own
# usbfs_start_wait_urb() and libusb on its own timerfd, so no userspace
# case may move (docs/model.md §11). Had the patch reached them, their
# timed-out cases would move as far as the kernel's do: at least the
# smallest shift predicted above. So they are held against the clean run
# with half that as the threshold, which a burst of TCG noise on two
# consecutive repetitions (the quick plan has two) does not reach but the
# patch's effect would; the inside-share rule, which any noise burst of a
# few ms trips, is left out.
# (On a copy: check-regressions records its findings, and the demo's
# database keeps those of the default threshold.)
minshift=$(cat "$OUT/minshift")
cp "$DB" "$OUT/userspace.db"
"$HZRIG" check-regressions --db "$OUT/userspace.db" --run "$N" --variant hz-250-legacy \
	--against hz-250 --baseline-run "$N" --format json \
	--threshold-ms "$(awk -v m="$minshift" 'BEGIN { printf "%.3f", m / 2 }')" \
	> "$OUT/userspace.json"
jq -r '.checks[].regressions[] | select(.kind != "inside")
	| select(.case_key | test("^(usbfs|libusb-)")) | "\(.case_key): \(.detail)"' \
	"$OUT/userspace.json" > "$OUT/userspace-moved"
jq -r '.checks[].regressions[] | select(.case_key | test("^(usbfs|libusb-)"))
	| "\(.case_key): \(.detail)"' "$OUT/legacy.json" | sed 's/^/#   userspace case flagged by default: /'
check "userspace paths: the kernel patch moves none of their cases (threshold ${minshift} / 2 ms)" \
	"[ -s '$OUT/minshift' ] && [ ! -s '$OUT/userspace-moved' ] && [ \$(sql \"SELECT count(*) FROM samples s JOIN variant_runs v ON s.variant_run = v.id WHERE v.run_id = '$N' AND v.variant = 'hz-250-legacy' AND s.path = 'usbfs'\") -gt 0 ]"
sed 's/^/#   moved: /' "$OUT/userspace-moved"
[ -z "$wrong" ] || echo "$wrong" | sed 's/^/#   wrongly flagged: /'
check "T=1 ms (one jiffy either way) not flagged" "! grep -q ' T=1\$' '$OUT/flagged'"
check "a regression names case, figures and the model window" \
	"jq -e '[.checks[].regressions[] | select(.detail | test(\"window\"))] | length > 0' '$OUT/legacy.json' > /dev/null"
check "the findings are in the database" "[ \"\$(sql \"SELECT count(*) FROM regressions WHERE run_id = '$N' AND variant = 'hz-250-legacy'\")\" -gt 0 ]"

e2e_done regression-demo
