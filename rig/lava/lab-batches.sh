#!/bin/bash
# lab-batches.sh start VARIANT DIR NB | batch VARIANT DIR I NUM SKIP TRY:
# the driver sweep's batches as jobs on the local LAVA lab, for
# rig/sweep/sweep.sh --boot-with (make lava-submit with a sweep variant;
# docs/lava.md "The driver sweep on the lab"). The sweep's settings come
# as SWEEP_NAK, SWEEP_BATCH_SIZE, SWEEP_MAX_S, SWEEP_UNPLUG_MS and
# SWEEP_ACCEL (auto is tcg: a lab's qemu device here runs TCG).
#   start  every batch's job (hzrig lava jobs: DIR/lava/jobs/) submitted
#          at once, the lab's devices running them side by side, waited
#          for and each log fetched into DIR/lava/VARIANT-batch-I/
#          (rig/lava/submit.sh --no-ingest);
#   batch  batch I's log as sweep.sh's boot leaves a batch: DIR/batch-I.txt
#          and console-I.log (the job's console: hzrig lava console) and
#          status-I.json (how its guest ended: ok, crashed, hung, or error
#          when the job never showed a console); with TRY > 0, batch I
#          first goes again as a job of its own, without the modules SKIP
#          (--only-batch I --skip SKIP: DIR/lava/batch-I-retryTRY/).
# Exit 0; 1 when the lab does not run (make lava-lab) or a job could not
# be written; 2 bad usage. A job that failed is not an error here: its
# status says how, and sweep.sh goes on as after a boot that failed.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$TOP/build}
HZRIG=$B/rig/hzrig
. "$TOP/rig/lava/lab-lib.sh"
ACCEL=tcg
[ "${SWEEP_ACCEL:-auto}" != kvm ] || ACCEL=kvm

usage() {
	echo "usage: rig/lava/lab-batches.sh start VARIANT DIR NB | batch VARIANT DIR I NUM SKIP TRY" >&2
	exit 2
}

jobs_of() {
	mkdir -p "$1" || return 1
	"$HZRIG" lava jobs --nak "${SWEEP_NAK:-2}" --batch-size "${SWEEP_BATCH_SIZE:-32}" \
		--max-s "${SWEEP_MAX_S:-240}" --unplug-ms "${SWEEP_UNPLUG_MS:-0}" --walk "${SWEEP_WALK:-0}" \
		--accel "$ACCEL" --out "$@" > /dev/null
}

# submit.sh's lines as the sweep's: "[VARIANT] lab: ..."
submit() {
	"$TOP/rig/lava/submit.sh" --no-ingest "$@" 2>&1 |
		sed -u "s/^\[lava-submit\] //; s/^lava-submit: //; s/^/[$V] lab: /"
}

[ $# -ge 3 ] || usage
CMD=$1 V=$2 D=$3
case $CMD in start | batch) ;; *) usage ;; esac
case $V in '' | .* | *[!A-Za-z0-9._+-]*) usage ;; esac
[ -d "$D" ] || { echo "lab-batches.sh: $D: no such directory" >&2; exit 2; }
lab_require lab-batches.sh

case $CMD in
start)
	[ $# = 4 ] || usage
	rm -rf "$D/lava"
	jobs_of "$D/lava/jobs" "$V" || exit 1
	echo "[$V] lab: $4 batch jobs, run side by side on the lab's devices"
	submit --out "$D/lava" "$D/lava/jobs"/*.yaml
	exit 0
	;;
batch)
	[ $# = 7 ] || usage
	I=$4 SKIP=$6 TRY=$7
	case $I$TRY in '' | *[!0-9]*) usage ;; esac
	log=$D/lava/$V-batch-$I/output.yaml
	if [ "$TRY" -gt 0 ]; then
		jd=$D/lava/batch-$I-retry$TRY
		rm -rf "$jd"
		jobs_of "$jd/jobs" --only-batch "$I" --skip "$SKIP" "$V" || exit 1
		submit --out "$jd" "$jd/jobs/$V-batch-$I.yaml"
		log=$jd/$V-batch-$I/output.yaml
	fi
	rm -f "$D/batch-$I.txt" "$D/console-$I.log" "$D/status-$I.json"
	# its status also when the job left no log, or junk ("error")
	"$HZRIG" lava console --out "$D/batch-$I.txt" --status "$D/status-$I.json" \
		--variant "$V" "$log" 2> "$D/lava-console-$I.err"
	[ ! -f "$D/batch-$I.txt" ] || cp "$D/batch-$I.txt" "$D/console-$I.log"
	exit 0
	;;
*) usage ;;
esac
