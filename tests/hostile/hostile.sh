#!/bin/bash
# hostile.sh HZRIG: inputs a careless or hostile user gives hzrig, each
# once a defect (issue 10), run through an hzrig built with ASan and UBSan
# (-fno-sanitize-recover: any memory error or overflow aborts the command,
# and the check fails). Every command that reads a run directory must agree:
# compare, ingest, report and report --kcidb refuse the same runs.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/tests/hostile/harness.sh"
run() { "$@" >"$T/out" 2>"$T/err"; rc=$?; }

# fresh NAME: a copy of the two-variant KCIDB fixture run as $T/NAME.
fresh() {
	rm -rf "${T:?}/$1"
	cp -r "$DATA/kcidb/20261203T102031Z" "$T/$1"
}

# refused_by_all DESC DIR PATTERN: every reader exits 2, names PATTERN,
# and the history database is untouched.
refused_by_all() {
	local desc=$1 dir=$2 pat=$3 c before
	before=$(sha256sum "$T/h.db" | cut -d' ' -f1)
	for c in compare report "report --kcidb" "ingest --db $T/h.db"; do
		run $HZRIG $c "$dir"
		check "$desc: $c refuses it (exit 2, names it)" \
			"[ $rc -eq 2 ] && grep -q -- \"$pat\" '$T/err' && sanitizer_quiet"
	done
	check "$desc: the history database is unchanged" \
		"[ \"\$(sha256sum '$T/h.db' | cut -d' ' -f1)\" = $before ]"
}

run $HZRIG ingest --db "$T/h.db" "$DATA/history/20261203T094306Z"
check "a history database to hold unchanged" "[ $rc -eq 0 ]"

# --- build.json patch names -----------------------------------------------
fresh traversal
jq '.patches = ["../../../../etc/passwd"] | del(.patch_sha256)' \
	"$DATA/kcidb/20261203T102031Z/hz-1000/build.json" > "$T/traversal/hz-1000/build.json"
refused_by_all "patch name ../../../../etc/passwd" "$T/traversal" \
	"is not the name of a file in the patch directory"
fresh blank
jq '.patches = ["0001 two words.patch"] | del(.patch_sha256)' \
	"$DATA/kcidb/20261203T102031Z/hz-1000/build.json" > "$T/blank/hz-1000/build.json"
refused_by_all "patch name with blanks" "$T/blank" "0001 two words.patch"

# A patch directory entry that is a device: refused at once, not read.
fresh zero
jq '.patches = ["zero.patch"] | del(.patch_sha256)' \
	"$DATA/kcidb/20261203T102031Z/hz-1000/build.json" > "$T/zero/hz-1000/build.json"
mkdir -p "$T/pdir"
ln -s /dev/zero "$T/pdir/zero.patch"
run timeout 60 $HZRIG report --kcidb --patch-dir "$T/pdir" "$T/zero"
check "patch file /dev/zero: not read, no patchset_hash, warned" \
	"[ $rc -eq 0 ] && grep -q 'zero.patch: not a regular file' '$T/err' && ! grep -q patchset_hash '$T/out' && sanitizer_quiet"
# One over the size cap (16 MiB), sparse.
truncate -s $((16 * 1024 * 1024 + 1)) "$T/pdir/big.patch"
jq '.patches = ["big.patch"] | del(.patch_sha256)' \
	"$DATA/kcidb/20261203T102031Z/hz-1000/build.json" > "$T/zero/hz-1000/build.json"
run timeout 60 $HZRIG report --kcidb --patch-dir "$T/pdir" "$T/zero"
check "patch file over 16 MiB: not hashed, warned" \
	"[ $rc -eq 0 ] && grep -q 'big.patch: File too large' '$T/err' && ! grep -q patchset_hash '$T/out'"

# --- nanosecond fields near INT64_MAX ---------------------------------------
for f in elapsed_ns window_hi_ns allowance_ns phase_ns; do
	fresh "big-$f"
	sed -i "1s/\"$f\":[0-9]*/\"$f\":9223372036854775000/" "$T/big-$f/samples.jsonl"
	refused_by_all "$f near INT64_MAX" "$T/big-$f" "field \\\"$f\\\": 9223372036854775000 out of range"
done
fresh big-noise
jq '.noise.rtt_p99_ns = 9223372036854775807' "$DATA/kcidb/20261203T102031Z/hz-100/run.json" \
	> "$T/big-noise/hz-100/run.json"
refused_by_all "noise rtt_p99_ns = INT64_MAX" "$T/big-noise" "rtt_p99_ns"

# At the limit itself (2^55 ns) every figure is taken, and nothing
# overflows: the regression rules, the report's median, the KCIDB duration.
MAX=36028797018963968
fresh 20261205T000000Z
for f in elapsed_ns window_lo_ns window_hi_ns allowance_ns; do
	sed -i "s/\"$f\":[0-9]*/\"$f\":$MAX/g" "$T/20261205T000000Z/samples.jsonl"
done
run $HZRIG report "$T/20261205T000000Z"
check "figures at 2^55 ns: report runs clean" "[ $rc -le 1 ] && sanitizer_quiet"
run $HZRIG report --kcidb "$T/20261205T000000Z"
check "figures at 2^55 ns: the KCIDB export runs clean" "[ $rc -eq 0 ] && sanitizer_quiet"
run $HZRIG ingest --db "$T/big.db" "$DATA/kcidb/20261203T102031Z" "$T/20261205T000000Z"
check "figures at 2^55 ns: ingested" "[ $rc -eq 0 ] && sanitizer_quiet"
run $HZRIG check-regressions --db "$T/big.db" --run 20261205T000000Z --baseline-run 20261203T102031Z
check "figures at 2^55 ns: check-regressions runs, without overflow" "[ $rc -le 1 ] && grep -q '2 variants' '$T/out' && sanitizer_quiet"
run $HZRIG check-regressions --db "$T/big.db" --run 20261203T102031Z --baseline-run 20261205T000000Z
check "figures at 2^55 ns as the baseline: no overflow" "[ $rc -le 1 ] && sanitizer_quiet"

# --- a variant without samples --------------------------------------------
fresh nosamples
grep -v '"variant":"hz-1000"' "$DATA/kcidb/20261203T102031Z/samples.jsonl" > "$T/nosamples/samples.jsonl"
jq '.counts.samples = 0' "$DATA/kcidb/20261203T102031Z/hz-1000/run.json" > "$T/nosamples/hz-1000/run.json"
run $HZRIG report "$T/nosamples"
check "a variant with no samples: report says so, no qsort(NULL)" \
	"[ $rc -eq 1 ] && grep -q 'hz-1000: 0 samples.*FAIL (no samples)' '$T/out' && sanitizer_quiet"
for c in compare "report --kcidb"; do
	run $HZRIG $c "$T/nosamples"
	check "a variant with no samples: $c runs clean" "[ $rc -eq 0 ] && sanitizer_quiet"
done

# --- run directory names --------------------------------------------------
fresh "$(printf 'new\nline')"
refused_by_all "a newline in the run directory's name" "$T/$(printf 'new\nline')" \
	"control character (byte 0x0a"

# --- report --kcidb -o into the run ---------------------------------------
fresh own
cp "$T/own/samples.jsonl" "$T/own.keep"
for o in "$T/own/samples.jsonl" "$T/own/hz-100/run.json" "$T/own/export.json"; do
	run $HZRIG report --kcidb -o "$o" "$T/own"
	check "report --kcidb -o ${o#$T/}: refused, inside the run" \
		"[ $rc -eq 2 ] && grep -q 'inside the run directory' '$T/err'"
done
check "the run's samples.jsonl is unchanged" "cmp -s '$T/own/samples.jsonl' '$T/own.keep'"
run $HZRIG report --kcidb -o "$T/export.json" "$T/own"
check "report --kcidb -o outside the run: written" "[ $rc -eq 0 ] && [ -s '$T/export.json' ]"

# --- one validation: report refuses what the other readers refuse ----------
i=0
while IFS='|' read -r desc filter pat; do
	i=$((i + 1))
	fresh "m$i"
	jq -c "if .variant == \"hz-100\" and .rep == 0 and .case == 0 then $filter else . end" \
		"$DATA/kcidb/20261203T102031Z/samples.jsonl" > "$T/m$i/samples.jsonl"
	refused_by_all "$desc" "$T/m$i" "$pat"
done <<'EOF'
transfer not a name|.transfer = "bulk in"|is not a transfer of the plan
verdict unknown|.verdict = "maybe"|is not a verdict
timeout_ms a string|.timeout_ms = "100"|expected an integer
elapsed_ns negative|.elapsed_ns = -1|out of range
hz missing|del(.hz)|hz.: missing
case beyond int32|.case = 4294967296|out of range
schema from the future|.schema = 99|schema
variant unknown to the run|.variant = "hz-7"|hz-7
EOF
fresh garbage
printf 'not json at all\n' >> "$T/garbage/samples.jsonl"
refused_by_all "a line that is not JSON" "$T/garbage" "not valid JSON"

# --- plans (hzrig plan: exit 1 for a bad plan, 2 for bad usage) -------------
printf 'case transfer=bulk-in behaviour=nak timeout=1 timeout=5 reps=2\n' > "$T/twice.plan"
run $HZRIG plan "$T/twice.plan"
check "plan: a key given twice is an error" "[ $rc -eq 1 ] && grep -q 'timeout: given twice on one line' '$T/err'"
printf 'case transfer=bulk-in behaviour=nak timeout=1 re\0ps=2\n' > "$T/nul.plan"
run $HZRIG plan "$T/nul.plan"
check "plan: a NUL byte is named as such" "[ $rc -eq 1 ] && grep -q 'NUL byte at column 49' '$T/err'"
python3 -c "print('case transfer=bulk-in,bulk-out,ctrl-in,ctrl-out,int-in behaviour=nak,stall,answer,nak,stall mode=ms,legacy-jiffies,hz-constant,ms timeout=' + ','.join(str(i + 1) for i in range(64)) + ' reps=1000')" > "$T/huge.plan"
run $HZRIG plan "$T/huge.plan"
check "plan: 6400 cases of 1000 reps refused (size limit)" "[ $rc -eq 1 ] && grep -q 'more than 1000000 samples' '$T/err'"

# --- history databases ------------------------------------------------------
run $HZRIG history --db "$T/h.db" --variant nosuch
check "history --variant nosuch: exit 2, named" "[ $rc -eq 2 ] && grep -q -- '--variant nosuch: no run' '$T/err'"
run $HZRIG baseline clear --db "$T/h.db" --variant nosuch
check "baseline clear --variant nosuch: exit 2, named" "[ $rc -eq 2 ] && grep -q -- '--variant nosuch' '$T/err'"
cp "$T/h.db" "$T/neg.db"
sqlite3 "$T/neg.db" 'PRAGMA user_version = -3'
run $HZRIG history --db "$T/neg.db"
check "user_version -3: named, not 'not an error'" \
	"[ $rc -eq 2 ] && grep -q 'schema version -3' '$T/err' && ! grep -q 'not an error' '$T/err'"
run $HZRIG dashboard --db "$T/neg.db" --out "$T/negdash"
check "user_version -3: the dashboard names it too" "[ $rc -eq 2 ] && grep -q 'schema version -3' '$T/err'"
run $HZRIG history --db /dev/null
check "--db /dev/null: names the file, not a regular file" \
	"[ $rc -eq 2 ] && grep -q '/dev/null: not a regular file' '$T/err'"
run $HZRIG ingest --db /dev/null "$DATA/kcidb/20261203T102031Z"
check "ingest --db /dev/null: refused, named" "[ $rc -eq 2 ] && grep -q '/dev/null: not a regular file' '$T/err'"

# A read-only database in a read-only directory, read as an unprivileged
# user (root reads anything): history, compare --db and the dashboard.
mkdir -p "$T/ro"
cp "$T/h.db" "$T/ro/h.db"
chmod 444 "$T/ro/h.db"
chmod 555 "$T/ro"
chmod 755 "$T"
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
else
	as_nobody() { "$@"; }
fi
if as_nobody test -x "$HZRIG" && ! as_nobody test -w "$T/ro"; then
	run as_nobody $HZRIG history --db "$T/ro/h.db"
	check "read-only database and directory: history reads it" \
		"[ $rc -eq 0 ] && grep -q 20261203T094306Z '$T/out'"
	run as_nobody $HZRIG compare --db "$T/ro/h.db" --run 20261203T094306Z
	check "read-only database and directory: compare --db reads it" "[ $rc -eq 0 ]"
	mkdir -p "$T/rodash" && chmod 777 "$T/rodash"
	run as_nobody $HZRIG dashboard --db "$T/ro/h.db" --out "$T/rodash"
	check "read-only database and directory: the dashboard reads it" "[ $rc -eq 0 ] && [ -s '$T/rodash/index.html' ]"
	run as_nobody $HZRIG baseline clear --db "$T/ro/h.db"
	check "read-only database: a writing command says so" "[ $rc -eq 2 ] && grep -qi 'readonly\|read-only' '$T/err'"
else
	echo "ok - read-only database # SKIP cannot run $HZRIG as an unprivileged user here"
fi

# 26 ingests of one run at once into a new database: all succeed, one copy.
rm -f "$T/c.db"
for k in $(seq 26); do
	$HZRIG ingest --db "$T/c.db" "$DATA/history/20261203T102031Z" >"$T/c.$k.out" 2>"$T/c.$k.err" &
done
fails=0
for job in $(jobs -p); do wait "$job" || fails=$((fails + 1)); done
cat "$T"/c.*.err > "$T/err"
check "26 concurrent ingests of one run: none fails" "[ $fails -eq 0 ] && sanitizer_quiet"
check "26 concurrent ingests: recorded once, database intact" \
	"[ \"\$(sqlite3 '$T/c.db' 'SELECT count(*) FROM runs')\" = 1 ] && [ \"\$(sqlite3 '$T/c.db' 'PRAGMA integrity_check')\" = ok ]"

# A database in a rollback journal (an older hzrig, or sqlite3 by hand)
# while another writer holds its write lock: switching it to WAL reads,
# then writes, and SQLite says busy at once there instead of waiting. The
# ingest waits for the lock as every other write does.
rm -f "$T/w.db"*
$HZRIG ingest --db "$T/w.db" "$DATA/history/20261203T094306Z" >/dev/null 2>&1
sqlite3 "$T/w.db" 'PRAGMA journal_mode = DELETE' >/dev/null
(echo 'BEGIN IMMEDIATE;'; sleep 2; echo 'COMMIT;') | sqlite3 "$T/w.db" &
holder=$!
sleep 0.5
run $HZRIG ingest --db "$T/w.db" "$DATA/history/20261203T102031Z"
wait $holder
check "ingest into a rollback-journal database another writer holds: waits, then records" \
	"[ $rc -eq 0 ] && [ \"\$(sqlite3 '$T/w.db' 'SELECT count(*) FROM runs')\" = 2 ] && [ \"\$(sqlite3 '$T/w.db' 'PRAGMA journal_mode')\" = wal ]"

# kill -9 at random moments of an ingest: the database stays intact, and
# the run is in it whole or not at all.
rm -f "$T/ref.db"
$HZRIG ingest --db "$T/ref.db" "$DATA/history/20261203T094306Z" "$DATA/history/20261203T102031Z" >/dev/null 2>&1
whole=$(sqlite3 "$T/ref.db" "SELECT count(*) FROM samples s JOIN variant_runs v ON s.variant_run = v.id WHERE v.run_id = '20261203T102031Z'")
bad=0 killed=0 got=0
for k in $(seq 20); do
	rm -f "$T/k.db" "$T/k.db-wal" "$T/k.db-shm"
	$HZRIG ingest --db "$T/k.db" "$DATA/history/20261203T094306Z" >/dev/null 2>&1
	$HZRIG ingest --db "$T/k.db" "$DATA/history/20261203T102031Z" >/dev/null 2>&1 &
	pid=$!
	sleep "$(printf '0.%03d' $((RANDOM % 200)))"	# an ingest takes ~0.1 s
	kill -9 "$pid" 2>/dev/null && killed=$((killed + 1))
	wait "$pid" 2>/dev/null
	ok_db=$(sqlite3 "$T/k.db" 'PRAGMA integrity_check')
	n=$(sqlite3 "$T/k.db" "SELECT count(*) FROM samples s JOIN variant_runs v ON s.variant_run = v.id WHERE v.run_id = '20261203T102031Z'")
	older=$(sqlite3 "$T/k.db" "SELECT count(*) FROM runs WHERE run_id = '20261203T094306Z'")
	[ "$n" = "$whole" ] && got=$((got + 1))
	if [ "$ok_db" != ok ] || [ "$older" != 1 ] || { [ "$n" != 0 ] && [ "$n" != "$whole" ]; }; then
		bad=$((bad + 1))
		echo "# kill $k: integrity '$ok_db', older run $older, $n of $whole samples"
	fi
done
echo "# $killed of 20 ingests killed before they ended; $got recorded the run"
check "kill -9 during ingest (20 times): intact, the run whole or absent, the older run kept" "[ $bad -eq 0 ] && [ $whole -gt 0 ]"

# --- consoles: hzrig findings ---------------------------------------------------
C=$DATA/consoles
run $HZRIG findings --console "$T/no-such.log"
check "findings: a missing console: exit 2, named" "[ $rc -eq 2 ] && grep -q 'no-such.log: No such file' '$T/err' && sanitizer_quiet"
run $HZRIG findings --console "$T"
check "findings: a directory as console: exit 2" "[ $rc -eq 2 ] && sanitizer_quiet"
run $HZRIG findings --console "$C/kasan-uaf.log" --out "$T/nodir/f.jsonl"
check "findings: --out in a missing directory: exit 2, nothing left" "[ $rc -eq 2 ] && [ ! -e '$T/nodir' ] && sanitizer_quiet"
run $HZRIG findings --console "$C/kasan-uaf.log" --expect ""
check "findings: an empty --expect: exit 2" "[ $rc -eq 2 ]"
# a console of binary junk, NUL bytes, a line of a megabyte, a report that
# never ends: no crash, and the junk is no report
head -c 200000 /dev/urandom > "$T/junk.log"
{ printf '[ 1.0] BUG: KASAN: use-after-free in f+0x1/0x2\n'; head -c 1048576 /dev/zero | tr '\0' 'A'; printf '\n'; } > "$T/long.log"
run $HZRIG findings --console "$T/junk.log"
check "findings: random bytes: scanned, exit 0 or 1, no sanitizer report" "[ $rc -le 1 ] && sanitizer_quiet"
run $HZRIG findings --console "$T/long.log" --out "$T/long.jsonl"
check "findings: a megabyte line inside a report: one finding, excerpt bounded" \
	"[ $rc -eq 1 ] && [ \$(wc -l < '$T/long.jsonl') -eq 1 ] && [ \$(wc -c < '$T/long.jsonl') -lt 20000 ] && sanitizer_quiet"
echo '{"title":"x"}' > "$T/f.jsonl.keep"
cp "$T/f.jsonl.keep" "$T/f.jsonl"
# No byte may be written (ulimit -f 0; root writes anywhere else; its
# messages through a pipe, which the limit does not cover): the write
# fails, and the old file is kept.
run bash -c 'trap "" XFSZ; (ulimit -f 0; exec "$@") 2>&1 | cat >&2; exit ${PIPESTATUS[0]}' - $HZRIG findings \
	--console "$C/kasan-uaf.log" --out "$T/f.jsonl"
check "findings: --out that cannot be written: exit 2, the old file kept, no temporary file" \
	"[ $rc -eq 2 ] && cmp -s '$T/f.jsonl' '$T/f.jsonl.keep' && grep -q 'nothing written' '$T/err' && ! ls -A '$T' | grep -q '^[.]f[.]jsonl' && sanitizer_quiet"

# --- boot: the watchdog's budget needs a plan or a timeout -------------------
run $HZRIG boot --variant v --kernel /nonexistent --initrd /nonexistent \
	--console "$T/c.log" --samples "$T/s.jsonl"
check "boot without --plan or --timeout: exit 2, says so, nothing booted" \
	"[ $rc -eq 2 ] && grep -q -- '--plan or --timeout is required' '$T/err' && [ ! -e '$T/c.log' ]"

# --- check-tree: a semantic patch or output file that cannot be used -------
mkdir -p "$T/tree"
printf 'int f(struct usb_device *d)\n{\n\treturn usb_bulk_msg(d, 0, 0, 0, 0, HZ);\n}\n' > "$T/tree/a.c"
run $HZRIG check-tree --cocci "$T/no-such.cocci" "$T/tree"
check "check-tree --cocci missing: exit 2, names the file" \
	"[ $rc -eq 2 ] && grep -q 'no-such.cocci' '$T/err' && sanitizer_quiet"
# a semantic patch whose facts are garbage: refused, not half-read
cat > "$T/bad.cocci" <<'COCCI'
@script:python@
@@
print('HZRIG {"kind": "sink", "file": "a.c", "line": -4}')
print('HZRIG {"kind": "sink"')
COCCI
if command -v spatch >/dev/null; then
	run $HZRIG check-tree --cocci "$T/bad.cocci" "$T/tree"
	check "check-tree with malformed facts: exit 2, names the file and field" \
		"[ $rc -eq 2 ] && grep -q 'a.c: a fact without a valid' '$T/err' && sanitizer_quiet"
	mkdir "$T/ro-dir"
	run $HZRIG check-tree --json "$T/ro-dir" "$T/tree"
	check "check-tree --json to a directory: exit 2, names it" \
		"[ $rc -eq 2 ] && grep -q -- '--json .*ro-dir: is a directory' '$T/err' && sanitizer_quiet"
else
	ko "check-tree: spatch (coccinelle) is not installed"
fi
run $HZRIG check-tree --format xml "$T/tree"
check "check-tree --format xml: exit 2, names the value" \
	"[ $rc -eq 2 ] && grep -q \"'xml'\" '$T/err'"
JOBS=zero run $HZRIG check-tree "$T/tree"
check "check-tree with JOBS=zero: exit 2, names JOBS" \
	"[ $rc -eq 2 ] && grep -q 'JOBS=' '$T/err'"

# --- kernel trees -------------------------------------------------------------
for t in 5.4 6 6.x "6.12;rm" ""; do
	run $HZRIG model --hz 250 --tree "$t" 100
	check "model --tree '$t': exit 2, names the tree" \
		"[ $rc -eq 2 ] && grep -qF -- \"--tree: '$t' is no kernel line\" '$T/err' && sanitizer_quiet"
done
run $HZRIG model --hz 300 --tree 6.14.2 1677
check "model --tree 6.14.2: 6.12's model, said so" \
	"[ $rc -eq 0 ] && grep -q 'HZ=300 on 6.12 (model read from linux-source-6.12 6.12.118, the newest older tree)' '$T/out' && grep -qE '^ +1677 .*\\(1680.000, 1893.333\\]' '$T/out'"
run $HZRIG compare --trees --db "$T/no-such.db"
check "compare --trees without a database: exit 2" "[ $rc -eq 2 ] && sanitizer_quiet"

# --- usage errors exit 2 in every command ------------------------------------
for c in boot accel collect report model plan compare ingest history baseline check-regressions dashboard findings check-tree; do
	run $HZRIG $c --no-such-flag
	check "$c --no-such-flag: exit 2" "[ $rc -eq 2 ]"
done

echo "hostile: $pass passed, $failn failed"
[ $failn -eq 0 ]
