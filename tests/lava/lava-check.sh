#!/bin/bash
# lava-check.sh [VARIANT]: one variant's quick plan through a LAVA lab on
# this machine (rig/lava/lab.sh: lava-server, its scheduler and a
# lava-worker), submitted with lavacli, held against the same variant run
# here (make lava-check; docs/lava.md). Steps, each said as it starts:
#   1. build the variant (rig/boot/matrix.sh --build-only);
#   2. hzrig lava jobs and hzrig lava device: its job and this machine's
#      QEMU as LAVA's qemu device type renders it;
#   3. both validated against LAVA's own schemas (tests/lava/validate.py);
#   4. the lab started (make lava-lab), unless it runs already;
#   5. the job submitted with lavacli, run by the lab's worker, its log
#      fetched and ingested (rig/lava/submit.sh: jobs submit, show, logs
#      --raw; hzrig ingest --lava);
#   6. the same variant and plan run here (matrix.sh);
#   7. the two held against each other: case set, windows, KTAP, verdicts
#      (tests/lava/match.py); the LAVA run in the local history next to
#      the local one, and the dashboard drawn from it.
# Everything goes to build/lava-check/ (the results/ history is untouched).
# A lab this script started is stopped at its end (make lava-lab-stop).
# Exit 0 when they match; 1 with the step that failed.
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$TOP/build}
V=${1:-hz-250}
D=$B/lava-check
HZRIG=$B/rig/hzrig
. "$TOP/rig/lava/lab-lib.sh"

step() { printf '[lava-check] %s\n' "$*"; }
fail() { echo "lava-check: FAILED: $*" >&2; exit 1; }

command -v lavacli > /dev/null && command -v lava-server > /dev/null ||
	fail "no lavacli or lava-server (rig/boot/setup.sh lava-check installs them)"
rm -rf "$D"
mkdir -p "$D"

step "1/7 building $V"
"$TOP/rig/boot/matrix.sh" --build-only "$V" || fail "building $V"

step "2/7 the job and the device dictionary"
"$HZRIG" lava jobs --plan quick --out "$D/jobs" "$V" || fail "hzrig lava jobs"
"$HZRIG" lava device --out "$D/device.yaml" || fail "hzrig lava device"
JOB=$D/jobs/$V.yaml

step "3/7 validating them against LAVA's schemas"
"$TOP/tests/lava/validate.py" --device "$D/device.yaml" "$JOB" || fail "schema validation"

step "4/7 the lab (make lava-lab), started unless it runs already"
lab_for_script "$D"
case $? in
0) step "the lab runs already (make lava-lab-status); it is left running" ;;
1) grep '^\[lava-lab\] ready' "$D/lab-start.log"; step "started here; stopped at the end" ;;
*) tail -5 "$D/lab-start.log"; fail "starting the lab (log: $D/lab-start.log)" ;;
esac

step "5/7 the job through the lab: lavacli jobs submit, the worker runs it, its log ingested"
# (exit 3, a verdict the report fails, is for match.py to judge below)
"$TOP/rig/lava/submit.sh" --out "$D/submit" --results "$D/lava" --db "$D/lava.db" "$JOB" \
	> "$D/submit.log"
rc=$?
[ $rc = 0 ] || [ $rc = 3 ] || { tail -20 "$D/submit.log"; fail "the job on the lab (log: $D/submit.log)"; }
grep '^\[lava-submit\]' "$D/submit.log"
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
step "passed: $V through the lab matches $V run here ($want samples each side recorded in one history)"
