#!/bin/bash
# submit.sh [--out DIR] [--results DIR] [--db FILE] [--no-ingest] JOB.yaml...
# Runs `hzrig lava jobs`' jobs on the local lab (rig/lava/lab.sh; make
# lava-submit, docs/lava.md "A lab on this machine"):
#   1. each job submitted with lavacli jobs submit (its images are file://
#      paths of the build, which the worker on this machine reads);
#   2. waited for, with its state said as it changes, until LAVA finishes
#      it (the job's own timeouts end a job that hangs; a server that stops
#      answering for LAB_DEAD_S seconds fails the wait, and so does a wait
#      longer than the jobs' own timeouts together and 10 minutes more: a
#      job left queued behind a device that never frees);
#   3. a job that ends Complete: its log fetched (lavacli jobs logs --raw)
#      into OUT/<job>/output.yaml; a job that ends Incomplete or Canceled is
#      listed with LAVA's reason (failure_comment) and its log kept there,
#      but not ingested;
#   4. the complete jobs' logs ingested as one run (hzrig ingest --lava:
#      RESULTS/runs/<id>/, the history DB), and the dashboard redrawn;
#      with --no-ingest (a sweep's batch jobs: rig/sweep/sweep.sh --lab
#      makes batches of their logs) not: every job's log is left in
#      OUT/<job>/output.yaml, Complete or not.
# Exit 0: every job complete, recorded and its verdicts pass; 1: a job
# failed or was cancelled (the others recorded), or the lab does not
# answer; 2: bad usage; 3: every job recorded, but hzrig report fails a
# verdict (as make's would).
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$TOP/build}
. "$TOP/rig/lava/lab-lib.sh"
HZRIG=${HZRIG:-$B/rig/hzrig}
LAB_DEAD_S=${LAB_DEAD_S:-120}
OUT=$B/lava-submit
RESULTS=$TOP/results
DB=
INGEST=1

say() { printf '[lava-submit] %s\n' "$*"; }
usage() {
	echo "usage: rig/lava/submit.sh [--out DIR] [--results DIR] [--db FILE] [--no-ingest] JOB.yaml..." >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--out) [ $# -ge 2 ] || usage; OUT=$2; shift 2 ;;
	--results) [ $# -ge 2 ] || usage; RESULTS=$2; shift 2 ;;
	--db) [ $# -ge 2 ] || usage; DB=$2; shift 2 ;;
	--no-ingest) INGEST=0; shift ;;
	--) shift; break ;;
	-*) echo "submit.sh: unknown option '$1'" >&2; usage ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || usage
DB=${DB:-$RESULTS/hzrig.db}
for f in "$@"; do
	[ -f "$f" ] && [ -r "$f" ] || { echo "submit.sh: $f: no such job file" >&2; exit 2; }
done
[ -r "$LAB/config/lavacli.yaml" ] && lavacli_lab system version > /dev/null 2>&1 || {
	echo "lava-submit: the lab does not answer (make lava-lab starts it; make lava-lab-status)" >&2
	exit 1
}

# The longest the jobs can take, one after another: their timeouts.
limit=600
for f in "$@"; do
	m=$(awk '/^timeouts:/ { t = 1 } t && /^  job:/ { j = 1 } j && /minutes:/ { print $2; exit }' "$f")
	case $m in '' | *[!0-9]*) m=60 ;; esac
	limit=$((limit + m * 60))
done

mkdir -p "$OUT"
declare -A NAME
jobs=()
for f in "$@"; do
	n=$(basename "$f" .yaml)
	r=$(lavacli_lab jobs submit "$f" 2>&1)
	case $r in
	'' | *[!0-9]*)
		echo "lava-submit: $f: LAVA refused it: $r" >&2
		exit 1
		;;
	esac
	NAME[$r]=$n
	jobs+=("$r")
	say "$n: job $r submitted"
done

# Wait, saying each job's state as it changes.
declare -A STATE HEALTH WHY
left=${#jobs[@]}
dead=0
t0=$SECONDS
while [ "$left" -gt 0 ]; do
	sleep 5
	if [ $((SECONDS - t0)) -gt $limit ]; then
		echo "lava-submit: the jobs are not finished after $limit s, their timeouts together and 10 minutes: left as they are (lavacli jobs cancel ID); make lava-lab-status" >&2
		exit 1
	fi
	for j in "${jobs[@]}"; do
		[ "${STATE[$j]:-}" = Finished ] && continue
		if ! show=$(lavacli_lab jobs show "$j" 2> /dev/null); then
			dead=$((dead + 5))
			[ $dead -lt "$LAB_DEAD_S" ] && continue
			echo "lava-submit: the server has not answered for $dead s (make lava-lab-status); jobs left: ${jobs[*]}" >&2
			exit 1
		fi
		dead=0
		s=$(sed -n 's/^state *: *//p' <<< "$show")
		h=$(sed -n 's/^Health *: *//p' <<< "$show")
		d=$(sed -n 's/^device *: *//p' <<< "$show")
		[ "$d" != None ] || d=
		if [ "$s" != "${STATE[$j]:-}" ]; then
			say "${NAME[$j]}: job $j $s${d:+ on $d}"
			STATE[$j]=$s
		fi
		if [ "$s" = Finished ]; then
			HEALTH[$j]=$h
			WHY[$j]=$(sed -n 's/^failure *: *//p' <<< "$show")
			left=$((left - 1))
		fi
	done
done

# Logs: complete jobs are ingested; the others are listed with LAVA's reason.
ok=()
rc=0
for j in "${jobs[@]}"; do
	d=$OUT/${NAME[$j]}
	rm -rf "$d"
	mkdir -p "$d"
	if ! lavacli_lab jobs logs --raw "$j" > "$d/output.yaml.part" 2> "$d/logs.err"; then
		echo "lava-submit: ${NAME[$j]}: job $j: fetching its log failed: $(head -c 300 "$d/logs.err")" >&2
		rc=1
		continue
	fi
	mv "$d/output.yaml.part" "$d/output.yaml"
	if [ "${HEALTH[$j]}" = Complete ]; then
		ok+=("$d")
		continue
	fi
	# LAVA's reason: the server's failure comment, else the job's error
	# as its log gives it (hzrig lava result), else that it has none.
	why=${WHY[$j]:-}
	if [ -z "$why" ]; then
		r=$("$HZRIG" lava result "$d" 2> /dev/null)
		case $r in
		none*) why="no job result in its log: its dispatcher was stopped (a worker killed?)${r#none}" ;;
		fail:*) why=${r#fail: } ;;
		esac
	fi
	echo "lava-submit: ${NAME[$j]}: job $j ended ${HEALTH[$j]}: ${why:-LAVA gave no reason} (log: ${d#$TOP/}/output.yaml; not ingested)" >&2
	rc=1
done
[ $INGEST = 1 ] || exit $rc
[ ${#ok[@]} -gt 0 ] || { echo "lava-submit: no job completed: nothing recorded" >&2; exit 1; }

say "ingesting ${#ok[@]} job log(s) into ${DB#$TOP/}"
"$HZRIG" ingest --db "$DB" --lava --results "$RESULTS" "${ok[@]}" > "$OUT/ingest.log" 2>&1
irc=$?
cat "$OUT/ingest.log"
run=$(sed -n 's/^hzrig ingest --lava: run directory //p' "$OUT/ingest.log" | tail -1)
[ $irc = 0 ] && [ -d "$run" ] || {
	echo "lava-submit: hzrig ingest --lava refused the logs (above): nothing recorded" >&2
	exit 1
}
"$HZRIG" report "$run" || { [ $rc != 0 ] || rc=3; }
"$HZRIG" dashboard --db "$DB" --out "$RESULTS/dashboard" > /dev/null &&
	say "dashboard: ${RESULTS#$TOP/}/dashboard/index.html (run $(basename "$run"))"
exit $rc
