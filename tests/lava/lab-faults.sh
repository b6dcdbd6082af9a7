#!/bin/bash
# lab-faults.sh [VARIANT]: the local LAVA lab (rig/lava/lab.sh) under
# faults, one variant's quick plan each time (make lava-faults; docs/lava.md
# "Faults"). KTAP on stdout, a test per fault:
#   1. a worker killed mid-job (its whole session: lava-worker, lava-run,
#      QEMU, as a worker machine that dies) under submit.sh: once the
#      worker is back the job ends Incomplete, submit.sh names it with a
#      reason and records nothing, and the same job submitted again
#      completes and is recorded;
#   2. the server restarted (gunicorn and lava-scheduler killed) with a job
#      queued: it runs afterwards and completes;
#   3. a job whose kernel image is missing: submit.sh ends with LAVA's
#      reason, exit 1, within its bound, and records nothing;
#   4. make lava-submit's scripts (lab-run.sh, lab-batches.sh): bad usage
#      refused, and a lab that does not run, before any build.
# Everything goes to build/lava-faults/ (results/ is untouched). A lab this
# script started is stopped at its end.
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$TOP/build}
V=${1:-hz-250}
D=$B/lava-faults
. "$TOP/rig/lava/lab-lib.sh"
HZRIG=$B/rig/hzrig
LAB_SH=$TOP/rig/lava/lab.sh
SUBMIT=$TOP/rig/lava/submit.sh
n=0
failed=0

diag() { sed 's/^/# /'; }
result() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		failed=$((failed + 1))
	fi
}
die() { echo "Bail out! $*"; exit 1; }

# Kill a lab service's whole session, as if its machine had died.
kill_service() {
	local p
	p=$(cat "$LAB/run/$1.pid" 2> /dev/null) || return 1
	# shellcheck disable=SC2046
	kill -KILL $(session_pids "$p") 2> /dev/null
	sleep 1
}

# The job's state or health (lavacli jobs show), "" if it cannot be read.
job_field() { lavacli_lab jobs show "$1" 2> /dev/null | sed -n "s/^$2 *: *//p"; }

# Wait up to $3 s for job $1's state to be $2.
wait_state() {
	local i
	for ((i = 0; i < $3; i += 2)); do
		[ "$(job_field "$1" state)" = "$2" ] && return 0
		sleep 2
	done
	return 1
}

echo "KTAP version 1"
echo "1..4"
rm -rf "$D"
mkdir -p "$D"
"$TOP/rig/boot/matrix.sh" --build-only "$V" > "$D/build.log" 2>&1 || die "building $V (log: $D/build.log)"
"$HZRIG" lava jobs --plan quick --out "$D/jobs" "$V" > /dev/null || die "hzrig lava jobs"
JOB=$D/jobs/$V.yaml
lab_for_script "$D"
[ $? != 2 ] || die "starting the lab (log: $D/lab-start.log)"

# 1. the worker killed mid-job, under submit.sh as a user would run it
rc=1
"$SUBMIT" --out "$D/killed" --results "$D/results-1k" --db "$D/1k.db" "$JOB" \
	> "$D/killed.log" 2>&1 &
spid=$!
id=
i=0
while [ -z "$id" ] && [ $i -lt 60 ]; do
	sleep 1
	i=$((i + 1))
	id=$(sed -n 's/.*: job \([0-9]*\) submitted$/\1/p' "$D/killed.log")
done
if [ -n "$id" ] && wait_state "$id" Running 120; then
	# into the test action: the guest has booted and is measuring
	sleep 25
	kill_service lava-worker
	"$LAB_SH" start > "$D/restart-1.log" 2>&1 || echo "restarting the worker failed" | diag
	timeout 300 tail --pid=$spid -f /dev/null
	wait $spid
	r=$?
	grep 'lava-submit:' "$D/killed.log" | diag
	echo "job $id after its worker was killed: $(job_field "$id" Health); submit.sh exited $r" | diag
	if [ $r = 1 ] && [ "$(job_field "$id" Health)" = Incomplete ] &&
		grep -q "job $id ended Incomplete: ..*" "$D/killed.log" &&
		! grep -q 'LAVA gave no reason' "$D/killed.log" &&
		[ ! -e "$D/1k.db" ]; then
		"$SUBMIT" --out "$D/again" --results "$D/results-1" --db "$D/1.db" "$JOB" \
			> "$D/again.log" 2>&1
		r=$?
		grep '^\[lava-submit\]\|^report:' "$D/again.log" | diag
		runs=$(sqlite3 -batch "$D/1.db" 'SELECT COUNT(*) FROM runs' 2> /dev/null)
		[ $r != 1 ] && [ $r != 2 ] && [ "$runs" = 1 ] && rc=0
	fi
else
	kill $spid 2> /dev/null
	echo "job ${id:-?} did not start" | diag
fi
result $rc "a worker killed mid-job: the job ends Incomplete and a resubmission completes"

# 2. the server restarted with a job queued
rc=1
kill_service lava-worker
id=$(lavacli_lab jobs submit "$JOB")
sleep 3
s=$(job_field "$id" state)
echo "job $id queued while the worker is away: $s" | diag
kill_service gunicorn
kill_service lava-scheduler
if "$LAB_SH" start > "$D/restart-2.log" 2>&1; then
	if wait_state "$id" Finished 300; then
		h=$(job_field "$id" Health)
		echo "job $id after the server's restart: $h" | diag
		# queued: Submitted, or Scheduled on a device when the server has
		# not yet seen the worker go (it takes a missed ping), not Running
		case $s in Submitted | Scheduled) [ "$h" = Complete ] && rc=0 ;; esac
	else
		echo "job $id did not finish within 300 s of the restart" | diag
	fi
else
	echo "restarting the lab failed (log: $D/restart-2.log)" | diag
fi
result $rc "the server restarted with a job queued: the job runs afterwards"

# 3. a job whose kernel image is missing
rc=1
sed "s|file://[^ ]*/bzImage|file://$D/missing/bzImage|" "$JOB" > "$D/missing.yaml"
if grep -q "file://$D/missing/bzImage" "$D/missing.yaml"; then
	t0=$SECONDS
	timeout 600 "$SUBMIT" --out "$D/missing" --results "$D/results-3" --db "$D/3.db" \
		"$D/missing.yaml" > "$D/missing.log" 2>&1
	r=$?
	grep 'lava-submit:' "$D/missing.log" | diag
	echo "submit.sh exited $r after $((SECONDS - t0)) s" | diag
	[ $r = 1 ] && grep -q 'ended Incomplete: ..*' "$D/missing.log" &&
		! grep -q 'LAVA gave no reason' "$D/missing.log" &&
		[ ! -e "$D/3.db" ] && [ ! -d "$D/results-3/runs" ] && rc=0
else
	echo "the job has no file:// kernel to take away" | diag
fi
result $rc "a job whose artifacts are missing: LAVA's reason, exit 1, nothing recorded"

# 4. make lava-submit's scripts refuse what they cannot run, before any
# build, and a lab that does not run (another LAB, with this one up)
rc=0
LR=$TOP/rig/lava/lab-run.sh
LB=$TOP/rig/lava/lab-batches.sh
mkdir -p "$D/nolab" "$D/refuse"
refuses() { # WANT_RC WANT_TEXT CMD...: exit WANT_RC, WANT_TEXT said, no status written
	local want=$1 text=$2 r
	shift 2
	"$@" > "$D/refuse/out" 2> "$D/refuse/err"
	r=$?
	if [ $r != "$want" ] || ! grep -q -- "$text" "$D/refuse/err" || grep -q building "$D/refuse/out" ||
		[ -e "$D/refuse/status-0.json" ]; then
		echo "$* exited $r, said: $(head -c 200 "$D/refuse/err")" | diag
		rc=1
	fi
}
refuses 1 'the lab does not run (make lava-lab starts it' env LAB="$D/nolab" "$LR" quick "$V"
refuses 2 'usage: rig/lava/lab-run.sh PLAN VARIANT' "$LR" quick
refuses 2 'is not a variant or set name' "$LR" quick ../x
refuses 2 'usage: rig/lava/lab-batches.sh' "$LB"
refuses 2 'usage: rig/lava/lab-batches.sh' "$LB" boot sweep-small-hz-100 "$D/refuse"
refuses 2 'usage: rig/lava/lab-batches.sh' "$LB" start ../x "$D/refuse" 1
refuses 2 "$D/nope: no such directory" "$LB" start sweep-small-hz-100 "$D/nope" 1
refuses 1 'the lab does not run (make lava-lab starts it' env LAB="$D/nolab" "$LB" batch sweep-small-hz-100 "$D/refuse" 0 11 "" 0
result $rc "make lava-submit's scripts: bad usage and a lab that does not run refused, nothing built or written"

echo "# lava-faults: $((n - failed)) passed, $failed failed"
[ $failed = 0 ]
