#!/bin/bash
# lava-check.sh [VARIANT]: one variant's quick plan under a real LAVA
# dispatcher, held against the same variant run here (make lava-check;
# docs/lava.md). Steps, each said as it starts:
#   1. build the variant (rig/boot/matrix.sh --build-only);
#   2. hzrig lava jobs and hzrig lava device: its job and this machine's
#      QEMU as LAVA's qemu device type renders it;
#   3. both validated against LAVA's own schemas (tests/lava/validate.py)
#      and by the dispatcher (lava-run --validate);
#   4. the job run by lava-run, as a lab's worker would run it;
#   5. its log into a run directory and a history (hzrig ingest --lava);
#   6. the same variant and plan run here (matrix.sh);
#   7. the two held against each other: case set, windows, KTAP, verdicts
#      (tests/lava/match.py); the LAVA run in the local history next to
#      the local one, and the dashboard drawn from it.
# Everything goes to build/lava-check/ (the results/ history is untouched).
# Exit 0 when they match; 1 with the step that failed.
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$TOP/build}
V=${1:-hz-250}
D=$B/lava-check
HZRIG=$B/rig/hzrig

step() { printf '[lava-check] %s\n' "$*"; }
fail() { echo "lava-check: FAILED: $*" >&2; exit 1; }

command -v lava-run > /dev/null || fail "no lava-run (rig/boot/setup.sh lava-check installs lava-dispatcher)"
rm -rf "$D"
mkdir -p "$D/out"

step "1/7 building $V"
"$TOP/rig/boot/matrix.sh" --build-only "$V" || fail "building $V"

step "2/7 the job and the device dictionary"
"$HZRIG" lava jobs --plan quick --out "$D/jobs" "$V" || fail "hzrig lava jobs"
"$HZRIG" lava device --out "$D/device.yaml" || fail "hzrig lava device"
JOB=$D/jobs/$V.yaml

step "3/7 validating them against LAVA's schemas and the dispatcher"
"$TOP/tests/lava/validate.py" --device "$D/device.yaml" "$JOB" || fail "schema validation"
lava-run --job-id "hzrig-$V-validate" --output-dir "$D/validate" \
	--device "$D/device.yaml" --validate "$JOB" > /dev/null 2> "$D/validate.yaml"
grep -q '"case": "job", "definition": "lava", "result": "pass"' "$D/validate.yaml" ||
	{ grep '"lvl": "error"\|error_msg' "$D/validate.yaml" >&2; fail "lava-run --validate"; }

step "4/7 running the job under lava-run (about a minute; log: build/lava-check/out/output.yaml)"
lava-run --job-id "hzrig-$V" --output-dir "$D/out" --device "$D/device.yaml" \
	"$JOB" > /dev/null 2> "$D/out/output.yaml" &
pid=$!
while kill -0 "$pid" 2> /dev/null; do
	sleep 10
	step "  lava-run: $(grep -c '"definition": "hzrig"' "$D/out/output.yaml") test cases recorded"
done
wait "$pid" || fail "lava-run exited $? (see $D/out/output.yaml)"

step "5/7 its log into a run directory (hzrig ingest --lava)"
"$HZRIG" ingest --db "$D/lava.db" --lava --results "$D/lava" "$D/out" || fail "hzrig ingest --lava"
LAVA_RUN=$(ls -d "$D"/lava/runs/*/ | head -1)
LAVA_RUN=${LAVA_RUN%/}

step "6/7 the same variant and plan run here"
"$TOP/rig/boot/matrix.sh" --plan quick --out "$D/local" "$V" || fail "the local run of $V"
LOCAL_RUN=$(readlink -f "$D/local/latest")

step "7/7 the LAVA run against the local run"
"$TOP/tests/lava/match.py" "$LOCAL_RUN" "$LAVA_RUN" "$V" || fail "the runs do not match"
# The history, regressions and dashboard do not care where a run was made.
"$HZRIG" ingest --db "$D/local/hzrig.db" "$LAVA_RUN" || fail "recording the LAVA run beside the local one"
want=$(grep -c "\"variant\":\"$V\"" "$LAVA_RUN/samples.jsonl")
got=$(sqlite3 -batch "$D/local/hzrig.db" "SELECT COUNT(*) FROM samples s JOIN variant_runs v ON v.id = s.variant_run
	WHERE v.run_id = '$(basename "$LAVA_RUN")' AND v.variant = '$V'")
[ "$want" = "$got" ] || fail "the history holds $got samples of the LAVA run, its directory $want"
"$HZRIG" check-regressions --db "$D/local/hzrig.db" --run "$(basename "$LAVA_RUN")" \
	--variant "$V" --against "$V" --baseline-run "$(basename "$LOCAL_RUN")"
echo "lava-check: check-regressions of the LAVA run against the local one exited $? (informational)"
"$HZRIG" dashboard --db "$D/local/hzrig.db" --out "$D/dashboard" > /dev/null || fail "the dashboard"
grep -q "$(basename "$LAVA_RUN")" "$D/dashboard/index.html" || fail "the dashboard does not show the LAVA run"
step "passed: $V under lava-run matches $V run here ($want samples each side recorded in one history)"
