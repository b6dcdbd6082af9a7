#!/bin/bash
# lab-run.sh PLAN VARIANT...: make lava-submit (docs/lava.md "A lab on this
# machine"). The variants (names or sets, as make's VARIANTS) run on the
# local lab (rig/lava/lab.sh start, make lava-lab, first):
#   - the matrix's variants: built, their PLAN's jobs written (hzrig lava
#     jobs, LAVA_ARGS more of its options) and run by rig/lava/submit.sh,
#     their logs ingested as one run into results/hzrig.db;
#   - the driver sweep's variants (a "sweep =" line): rig/sweep/sweep.sh
#     --boot-with rig/lava/lab-batches.sh, a job per batch of devices (SWEEP_NAK, SWEEP_MAX_S as make
#     sweep's), collected and reported into results/sweep as a sweep here
#     is, and recorded in the same history.
# Exit: submit.sh's (0, 1 a job failed, 3 a verdict fails), else sweep.sh's
# (1 a stage failed); 1 when a build fails, 2 bad usage.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$TOP/build}
HZRIG=$B/rig/hzrig
. "$TOP/rig/lava/lab-lib.sh"
# shellcheck source=rig/boot/variant.sh
. "$TOP/rig/boot/variant.sh"

[ $# -ge 2 ] || { echo "usage: rig/lava/lab-run.sh PLAN VARIANT..." >&2; exit 2; }
PLAN=$1
shift
vs=$(variant_expand "$@") || exit 2
# the lab before the builds: minutes of building for a lab not there
lab_require lava-submit
matrix=()
sweeps=()
for v in $vs; do
	if [ -n "$(variant_field "$v" sweep)" ]; then
		sweeps+=("$v")
	else
		matrix+=("$v")
	fi
done

rc=0
if [ ${#matrix[@]} -gt 0 ]; then
	"$TOP/rig/boot/matrix.sh" --build-only "${matrix[@]}" || exit 1
	rm -rf "$B/lava-submit/jobs"
	mkdir -p "$B/lava-submit/jobs"
	# shellcheck disable=SC2086
	"$HZRIG" lava jobs --plan "$PLAN" --out "$B/lava-submit/jobs" ${LAVA_ARGS:-} "${matrix[@]}" ||
		exit 1
	"$TOP/rig/lava/submit.sh" --out "$B/lava-submit" "$B/lava-submit/jobs"/*.yaml
	rc=$?
fi
if [ ${#sweeps[@]} -gt 0 ]; then
	"$TOP/rig/sweep/sweep.sh" --boot-with "$TOP/rig/lava/lab-batches.sh" --nak "${SWEEP_NAK:-2}" --max-s "${SWEEP_MAX_S:-240}" \
		--out "$TOP/results/sweep" "${sweeps[@]}"
	r=$?
	[ $rc != 0 ] || rc=$r
fi
exit $rc
