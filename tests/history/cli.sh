#!/bin/bash
# cli.sh [HZRIG]: the history commands end to end, on the fixture runs of
# tests/data/history/ and runs synthesized from them with jq, in a scratch
# database: usage errors, ingest (idempotent), compare from a directory and
# from the database (the same figures), history, baselines, and
# check-regressions' exit statuses, including a patched variant held
# against its clean counterpart. `hzrig report` must keep working on them.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
HZRIG=${1:-$TOP/build/rig/hzrig}
DATA=$TOP/tests/data/history
Q=$DATA/20261203T102031Z	# quick plan: hz-250, hz-1000
D=$DATA/20261203T094306Z	# default plan: hz-100
T=$(mktemp -d /tmp/hzrig-history-XXXXXX)
trap 'rm -rf "$T"' EXIT
DB=$T/h.db
pass=0 failn=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
ko() { echo "not ok - $1"; failn=$((failn + 1)); }
check() { if eval "$2"; then ok "$1"; else ko "$1"; sed 's/^/# /' "$T/out" "$T/err" 2>/dev/null | head -20; fi; }
# run CMD...: exit status in $rc, output in $T/out and $T/err
run() { "$@" >"$T/out" 2>"$T/err"; rc=$?; }

[ -x "$HZRIG" ] || { echo "not ok - no $HZRIG (make -C rig first)"; exit 1; }

# --- usage -------------------------------------------------------------
for c in compare ingest history baseline check-regressions; do
	run "$HZRIG" $c --help
	check "$c --help: exit 0, usage on stdout" "[ $rc -eq 0 ] && grep -q '^usage: hzrig $c' '$T/out'"
	run "$HZRIG" $c --no-such-flag
	check "$c --no-such-flag: exit 2" "[ $rc -eq 2 ] && grep -q '^usage: hzrig $c' '$T/err'"
done
run "$HZRIG" --help
check "hzrig --help lists the history commands, aligned" \
	"grep -qE '^  check-regressions  hold' '$T/out' && grep -qE '^  ingest {13}record' '$T/out'"
run "$HZRIG" help check-regressions
check "hzrig help check-regressions" "[ $rc -eq 0 ] && grep -q -- '--against VARIANT' '$T/out'"
run "$HZRIG" compare --format xml "$Q"
check "compare --format xml: exit 2, named" "[ $rc -eq 2 ] && grep -q \"'xml' is not table, csv or json\" '$T/err'"
run "$HZRIG" check-regressions --db "$DB" --format csv
check "check-regressions has no csv: exit 2" "[ $rc -eq 2 ]"
run "$HZRIG" check-regressions --db "$DB" --threshold-ms -3
check "--threshold-ms -3: exit 2" "[ $rc -eq 2 ] && grep -q 'not a number of ms >= 0' '$T/err'"
run "$HZRIG" baseline --db "$DB" frobnicate
check "baseline frobnicate: exit 2" "[ $rc -eq 2 ] && grep -q \"'frobnicate' is not set, show or clear\" '$T/err'"
run "$HZRIG" ingest --db "$DB"
check "ingest without RUN_DIR: exit 2" "[ $rc -eq 2 ]"

# --- no database yet ----------------------------------------------------
run "$HZRIG" history --db "$DB"
check "history without a database: exit 2, says how to make one" \
	"[ $rc -eq 2 ] && grep -q 'ingest a run first' '$T/err' && [ ! -e '$DB' ]"

# --- ingest ---------------------------------------------------------------
run "$HZRIG" ingest --db "$DB" "$D" "$Q"
check "ingest two runs: exit 0" "[ $rc -eq 0 ] && [ \$(grep -c ': ingested' '$T/out') -eq 2 ]"
run "$HZRIG" ingest --db "$DB" "$Q"
check "ingest again: exit 0, unchanged" "[ $rc -eq 0 ] && grep -q '20261203T102031Z: already ingested, unchanged' '$T/out'"
check "user_version is set" "[ \$(sqlite3 '$DB' 'PRAGMA user_version') -ge 2 ]"
run "$HZRIG" ingest --db "$DB" "$T/nonexistent"
check "ingest of a missing directory: exit 2" "[ $rc -eq 2 ] && grep -q 'No such file' '$T/err'"

# --- compare --------------------------------------------------------------
run "$HZRIG" compare --format csv "$Q"
check "compare csv: header + 66 cases x 2 variants" \
	"[ $rc -eq 0 ] && [ \$(wc -l < '$T/out') -eq 133 ] && head -1 '$T/out' | grep -q '^run_id,case_idx,case_key,'"
cp "$T/out" "$T/dir.csv"
run "$HZRIG" compare --db "$DB" --run 20261203T102031Z --format csv
check "compare from the database gives the same figures as from the files" \
	"[ $rc -eq 0 ] && cmp -s '$T/out' '$T/dir.csv'"
run "$HZRIG" compare --db "$DB" --format json
check "compare --db alone: the newest run, valid JSON, 132 rows" \
	"[ $rc -eq 0 ] && [ \$(jq length '$T/out') -eq 132 ] && [ \$(jq -r '.[0].run_id' '$T/out') = 20261203T102031Z ]"
check "compare json: hz-1000 ctrl-in T=1 is 1 of 2 inside, p95 10.333768 ms" \
	"[ \"\$(jq -c '.[] | select(.variant == \"hz-1000\" and .case_key == \"ctrl-in nak ms T=1\") | [.inside, .n, .p95_ms]' '$T/out')\" = '[1,2,10.333768]' ]"
run "$HZRIG" compare "$Q"
check "compare table: variants by HZ, one row per case and variant" \
	"[ $rc -eq 0 ] && grep -A1 -E '^bulk-in nak ms T=100 ' '$T/out' | sed -n 1p | grep -qE ' hz-250 +250 ' &&
	 grep -A1 -E '^bulk-in nak ms T=100 ' '$T/out' | sed -n 2p | grep -qE '^ +hz-1000 +1000 '"
run "$HZRIG" compare "$DATA"
check "compare of a directory that is no run: exit 2" "[ $rc -eq 2 ] && grep -q 'not a run directory' '$T/err'"
run "$HZRIG" compare --db "$DB" "$Q"
check "compare with both a directory and --db: exit 2" "[ $rc -eq 2 ]"

# --- history --------------------------------------------------------------
run "$HZRIG" history --db "$DB" --format json
check "history json: one object per run and variant, oldest first" \
	"[ $rc -eq 0 ] && [ \"\$(jq -r '[.[].variant] | join(\" \")' '$T/out')\" = 'hz-100 hz-250 hz-1000' ]"
run "$HZRIG" history --db "$DB" --variant hz-250 --format csv
check "history --variant csv: header and one row" "[ $rc -eq 0 ] && [ \$(wc -l < '$T/out') -eq 2 ]"
run "$HZRIG" history --db "$DB" --case 'bulk-in nak ms T=1'
check "history --case: the case in every run that has it" \
	"[ $rc -eq 0 ] && [ \$(grep -cE 'hz-(100|250|1000) ' '$T/out') -eq 3 ]"
run "$HZRIG" history --db "$DB" --case 'nak T=100'
check "history --case with an unknown key: exit 2, similar keys" \
	"[ $rc -eq 2 ] && grep -q \"similar: .*'bulk-in nak ms T=100'\" '$T/err'"

# --- baselines and regressions ---------------------------------------------
run "$HZRIG" check-regressions --db "$DB"
check "check-regressions without a baseline: exit 2, says what to do" \
	"[ $rc -eq 2 ] && grep -q 'no baseline for hz-250: set one with .hzrig baseline set RUN' '$T/err'"
run "$HZRIG" baseline --db "$DB" set 20261203T102031Z
check "baseline set: every variant of the run" "[ $rc -eq 0 ] && [ \$(grep -c '^baseline of' '$T/out') -eq 2 ]"
run "$HZRIG" baseline --db "$DB" set 20991231T000000Z
check "baseline set of an unknown run: exit 2" "[ $rc -eq 2 ] && grep -q 'not in the database' '$T/err'"
run "$HZRIG" baseline --db "$DB" show
check "baseline show" "[ $rc -eq 0 ] && grep -qE '^hz-1000 +1000 +20261203T102031Z' '$T/out'"
run "$HZRIG" check-regressions --db "$DB"
check "a run against itself: exit 0, no regression" \
	"[ $rc -eq 0 ] && grep -q '2 variants, 0 regressions' '$T/out'"

# A later run where the timed-out bulk-in T=100 calls took 4x as long.
NEW=$T/runs/20261204T080000Z
mkdir -p "$NEW"
cp -r "$Q/hz-250" "$Q/hz-1000" "$NEW/"
jq -c 'if .status == -110 and .transfer == "bulk-in" and .behaviour == "nak" and .mode == "ms" and .timeout_ms == 100
	then .elapsed_ns *= 4 | .verdict = "late" else . end' "$Q/samples.jsonl" > "$NEW/samples.jsonl"
run "$HZRIG" ingest --db "$DB" "$NEW"
run "$HZRIG" check-regressions --db "$DB"
check "4x slower timeouts: exit 1" "[ $rc -eq 1 ]"
check "only that case is flagged, on both variants" \
	"[ \$(grep -c '^  hz-' '$T/out') -gt 0 ] && ! grep '^  hz-' '$T/out' | grep -qv ': bulk-in nak ms T=100: ' && grep -q '^  hz-250: ' '$T/out' && grep -q '^  hz-1000: ' '$T/out'"
check "a line names old and new figures and the window" \
	"grep -qE '^  hz-250: bulk-in nak ms T=100: median [0-9.]+ -> [0-9.]+ ms .*window \\(100.000, 104.000\\] ms' '$T/out'"
n1=$(sqlite3 "$DB" "SELECT count(*) FROM regressions WHERE run_id = '20261204T080000Z'")
run "$HZRIG" check-regressions --db "$DB" --format json
n2=$(sqlite3 "$DB" "SELECT count(*) FROM regressions WHERE run_id = '20261204T080000Z'")
check "checking again replaces the stored findings" "[ $rc -eq 1 ] && [ '$n1' -gt 0 ] && [ '$n1' = '$n2' ]"
check "json: the same findings" "[ \$(jq .regressions '$T/out') = '$n1' ]"
run "$HZRIG" check-regressions --db "$DB" --threshold-ms 100000
check "--threshold-ms 100000: only inside and status can flag" \
	"[ $rc -eq 1 ] && ! grep -qE ': (median|p95) ' '$T/out' && grep -q ': inside ' '$T/out'"
run "$HZRIG" check-regressions --db "$DB" --run 20261203T102031Z --variant hz-250
check "--run and --variant: the baseline itself, clean" "[ $rc -eq 0 ] && grep -q '1 variant, 0 regressions' '$T/out'"
run "$HZRIG" check-regressions --db "$DB" --run 20991231T000000Z
check "unknown --run: exit 2" "[ $rc -eq 2 ] && grep -q 'not in the database' '$T/err'"
run "$HZRIG" check-regressions --db "$DB" --variant hz-300
check "unknown --variant: exit 2" "[ $rc -eq 2 ] && grep -q \"has no variant 'hz-300'\" '$T/err'"

# A patched variant, held against its clean counterpart of the same run.
LEG=$T/runs/20261205T080000Z
mkdir -p "$LEG/hz-250-legacy"
cp -r "$Q/hz-250" "$LEG/"
jq '.variant = "hz-250-legacy"' "$Q/hz-250/run.json" > "$LEG/hz-250-legacy/run.json"
{
	jq -c 'select(.variant == "hz-250")' "$Q/samples.jsonl"
	jq -c 'select(.variant == "hz-250") | .variant = "hz-250-legacy"
		| if .status == -110 and .mode == "ms" and .timeout_ms == 10 then .elapsed_ns *= 4 | .verdict = "late" else . end' "$Q/samples.jsonl"
} > "$LEG/samples.jsonl"
run "$HZRIG" ingest --db "$DB" "$LEG"
check "ingest a run with a free-form variant name" "[ $rc -eq 0 ]"
run "$HZRIG" check-regressions --db "$DB" --run 20261205T080000Z --variant hz-250-legacy
check "hz-250-legacy has no baseline of its own: exit 2" "[ $rc -eq 2 ] && grep -q 'no baseline for hz-250-legacy' '$T/err'"
run "$HZRIG" check-regressions --db "$DB" --run 20261205T080000Z --variant hz-250-legacy --against hz-250 --baseline-run 20261205T080000Z
check "--against hz-250 of the same run: exit 1, the T=10 cases" \
	"[ $rc -eq 1 ] && grep -q 'hz-250-legacy vs 20261205T080000Z hz-250:' '$T/out' && ! grep '^  hz-' '$T/out' | grep -qvE ' T=10( D=[0-9]+us)?: '"
check "stored with the baseline variant" \
	"[ \$(sqlite3 '$DB' \"SELECT count(DISTINCT baseline_variant || variant) FROM regressions WHERE run_id = '20261205T080000Z'\") = 1 ] && [ \$(sqlite3 '$DB' \"SELECT baseline_variant FROM regressions WHERE run_id = '20261205T080000Z' LIMIT 1\") = hz-250 ]"
run "$HZRIG" check-regressions --db "$DB" --run 20261205T080000Z --variant hz-250-legacy --against hz-250
check "--against hz-250: its baseline run" "[ $rc -eq 1 ] && grep -q 'hz-250-legacy vs 20261203T102031Z hz-250:' '$T/out'"
# Nothing in common with the baseline: not a clean check.
ODD=$T/runs/20261206T080000Z
mkdir -p "$ODD"
cp -r "$Q/hz-250" "$ODD/"
jq -c 'select(.variant == "hz-250") | .timeout_ms += 7000' "$Q/samples.jsonl" > "$ODD/samples.jsonl"
run "$HZRIG" ingest --db "$DB" "$ODD"
run "$HZRIG" check-regressions --db "$DB" --run 20261206T080000Z
check "no case in common with the baseline: exit 2" \
	"[ $rc -eq 2 ] && grep -q 'hz-250 and 20261203T102031Z hz-250 have no case in common' '$T/err'"
run "$HZRIG" baseline --db "$DB" clear --variant hz-1000
check "baseline clear --variant" "[ $rc -eq 0 ] && grep -q 'cleared 1 baseline' '$T/out'"
run "$HZRIG" check-regressions --db "$DB" --run 20261204T080000Z
check "a variant whose baseline was cleared: exit 2" "[ $rc -eq 2 ] && grep -q 'no baseline for hz-1000' '$T/err'"

# --- kernel reports: ingest, new vs known, the dashboard --------------------
F1=$T/runs/20261207T080000Z F2=$T/runs/20261208T080000Z
FDB=$T/f.db
for r in "$F1" "$F2"; do
	mkdir -p "$r"
	cp -r "$Q/hz-250" "$r/"
	jq -c 'select(.variant == "hz-250")' "$Q/samples.jsonl" > "$r/samples.jsonl"
done
# The first run: the demo's use-after-free, with an excerpt that must be
# escaped; the second: the same title again and a new one.
jq '.findings = [{title: "KASAN: use-after-free Read in hzrig_heartbeat", kind: "KASAN",
	where: null, running: "scenario unbind 8/100", console_line: 152, truncated: false,
	excerpt: "[ 5.1] BUG: KASAN: use-after-free in hzrig_heartbeat+0x1/0x2 <script>"}]' \
	"$Q/hz-250/run.json" > "$F1/hz-250/run.json"
jq '.findings = [{title: "KASAN: use-after-free Read in hzrig_heartbeat", kind: "KASAN",
	running: "scenario unbind 3/100", console_line: 40, truncated: false},
	{title: "lockdep: inconsistent lock state in hzrig_writer", kind: "lockdep",
	where: null, running: "", console_line: 99, truncated: true}]' \
	"$Q/hz-250/run.json" > "$F2/hz-250/run.json"
run "$HZRIG" ingest --db "$FDB" "$F1"
check "ingest a run with a kernel report: counted as new" \
	"[ $rc -eq 0 ] && grep -q '1 kernel report (1 new)' '$T/out'"
run "$HZRIG" ingest --db "$FDB" "$F2"
check "the same title in a later run is known, the other new" \
	"[ $rc -eq 0 ] && grep -q '2 kernel reports (1 new)' '$T/out'"
check "findings table: 3 rows, 1 known" \
	"[ \"\$(sqlite3 '$FDB' 'SELECT count(*), sum(known) FROM findings')\" = '3|1' ]"
run "$HZRIG" dashboard --db "$FDB" --out "$T/fd"
check "dashboard: per-variant counts of kernel reports" \
	"[ $rc -eq 0 ] && grep -q 'id=\"findings-variants\"' '$T/fd/index.html' && grep -A3 '<td class=\"nw\">hz-250</td>' '$T/fd/index.html' | grep -q '>3</td>'"
check "dashboard: this run's reports, new and known, the cut-off one said so" \
	"grep -q 'lockdep: inconsistent lock state in hzrig_writer' '$T/fd/index.html' && grep -q '>new</span>' '$T/fd/index.html' && grep -q '>known<' '$T/fd/index.html' && grep -q 'cut off' '$T/fd/index.html'"
run "$HZRIG" dashboard --db "$FDB" --run 20261207T080000Z --out "$T/fd1"
check "dashboard of the first run: its excerpt, escaped" \
	"[ $rc -eq 0 ] && grep -q '&lt;script&gt;' '$T/fd1/index.html' && ! grep -q '<script>' '$T/fd1/index.html'"
run "$HZRIG" dashboard --db "$DB" --out "$T/cd"
check "dashboard of runs without reports: none scanned, said so" \
	"[ $rc -eq 0 ] && grep -q 'id=\"findings-none-scanned\"' '$T/cd/index.html'"

# --- across kernel trees ----------------------------------------------------
# $Q's hz-250 as if built from 6.12 (a later run, hz-250-6.12, release
# 6.12.118), beside $Q's own hz-250 (6.1.192): same HZ, plan, fragments and
# patches. hz-1000 there has no other tree.
TDB=$T/trees.db
# mk_612 DIR JQFILTER: the 6.12 run, its samples passed through JQFILTER
mk_612() {
	mkdir -p "$1/hz-250-6.12" "$1/hz-1000"
	cp -r "$Q/hz-1000/." "$1/hz-1000/"
	jq '.variant = "hz-250-6.12" | .release = "'"${3:-6.12.118}"'"' "$Q/hz-250/run.json" > "$1/hz-250-6.12/run.json"
	jq '.variant = "hz-250-6.12"' "$Q/hz-250/build.json" > "$1/hz-250-6.12/build.json"
	jq -c 'if .variant == "hz-250" then .variant = "hz-250-6.12" | '"$2"' else . end' \
		"$Q/samples.jsonl" > "$1/samples.jsonl"
}
mk_612 "$T/tr/20261205T080000Z" '.'
run "$HZRIG" ingest --db "$TDB" "$Q" "$T/tr/20261205T080000Z"
run "$HZRIG" compare --trees --db "$TDB"
check "compare --trees: hz-250 (6.1) beside hz-250-6.12 (6.12), every case, exit 0" \
	"[ $rc -eq 0 ] && grep -q '^HZ=250: 6.1 beside 6.12' '$T/out' &&
	 grep -qE '^  from 6.1: hz-250 of run 20261203T102031Z, 6.1.192' '$T/out' &&
	 grep -qE '^  to   6.12: hz-250-6.12 of run 20261205T080000Z, 6.12.118' '$T/out' &&
	 grep -q '66 cases on both trees; the model.s window is the same on both in 66' '$T/out' &&
	 grep -q 'upgrade 6.1 -> 6.12 at HZ=250: 0 regressions' '$T/out'"
check "compare --trees: a row per tree for each case, the variant with no other tree counted" \
	"grep -A1 -E '^bulk-in nak ms T=100 ' '$T/out' | sed -n 2p | grep -qE '^ +6.12 +hz-250-6.12 ' &&
	 grep -q '1 variant of run 20261205T080000Z with no other tree' '$T/out' && ! grep -q '^HZ=1000' '$T/out'"
run "$HZRIG" compare --trees --db "$TDB" --run 20261203T102031Z --format json
check "compare --trees from the older run finds the same pair (json: 66 rows, from 6.1 to 6.12)" \
	"[ $rc -eq 0 ] && [ \$(jq length '$T/out') -eq 66 ] &&
	 [ \"\$(jq -r '[.[] | .from.tree + \">\" + .to.tree] | unique | join(\" \")' '$T/out')\" = '6.1>6.12' ] &&
	 [ \"\$(jq '[.[] | select(.same_window)] | length' '$T/out')\" = 66 ]"
check "compare --trees json: each side's window from its own tree's model" \
	"[ \"\$(jq -c '[.[] | select(.case_key == \"bulk-in nak ms T=100\")][0] | [.from.window, .to.window]' '$T/out')\" = '[{\"lo_ms\":100,\"hi_ms\":104,\"model\":\"6.1\"},{\"lo_ms\":100,\"hi_ms\":104,\"model\":\"6.12\"}]' ]"
# The upgrade makes timed-out bulk-in T=100 calls 4x longer.
mk_612 "$T/tr/20261205T090000Z" 'if .status == -110 and .transfer == "bulk-in" and .behaviour == "nak" and .mode == "ms" and .timeout_ms == 100 then .elapsed_ns *= 4 | .verdict = "late" else . end'
run "$HZRIG" ingest --db "$TDB" "$T/tr/20261205T090000Z"
run "$HZRIG" compare --trees --db "$TDB"
check "a later tree that waits 4x longer: exit 1, the case flagged as a regression of the upgrade" \
	"[ $rc -eq 1 ] && grep -q 'upgrade 6.1 -> 6.12 at HZ=250: 1 regression$' '$T/out' &&
	 grep -qE '^    REGRESSION bulk-in nak ms T=100 \[median,inside\]: median ' '$T/out'"
run "$HZRIG" dashboard --db "$TDB" --out "$T/td"
check "dashboard: the Kernel trees section, a dot per case, the regression marked" \
	"[ $rc -eq 0 ] && grep -q '<section id=\"trees\">' '$T/td/index.html' &&
	 [ \$(grep -c '<circle class=\"tc\"' '$T/td/index.html') -eq 66 ] &&
	 [ \$(grep -c '<tr class=\"reg\">' '$T/td/index.html') -eq 1 ] &&
	 grep -q '1 regression of the upgrade' '$T/td/index.html'"
run "$HZRIG" dashboard --db "$DB" --out "$T/td1"
check "dashboard of a history with one tree: the section says so" \
	"[ $rc -eq 0 ] && grep -q 'id=\"trees-none\"' '$T/td1/index.html'"
# A kernel line no model covers.
mk_612 "$T/tr/20261205T100000Z" '.' 5.10.0
run "$HZRIG" ingest --db "$TDB" "$T/tr/20261205T100000Z"
run "$HZRIG" compare --trees --db "$TDB"
check "a release older than every modelled tree: exit 2, named" \
	"[ $rc -eq 2 ] && grep -q \"no model for release '5.10.0'\" '$T/err'"
run "$HZRIG" compare --trees "$Q"
check "compare --trees with a RUN_DIR: exit 2, said why" "[ $rc -eq 2 ] && grep -q 'reads the history' '$T/err'"
run "$HZRIG" compare --trees --db "$TDB" --format csv
check "compare --trees --format csv: exit 2" "[ $rc -eq 2 ] && grep -q 'not csv' '$T/err'"
run "$HZRIG" compare --trees --db "$DB" --run 20261203T094306Z
check "compare --trees on a run with one tree only: exit 0, said so" \
	"[ $rc -eq 0 ] && grep -q 'no variant has a counterpart built from another kernel tree' '$T/out'"

# --- report still reads what collect writes --------------------------------
run "$HZRIG" report "$Q"
check "hzrig report on a fixture run: not unreadable" "[ $rc -ne 2 ] && grep -q '^report: 2 variants' '$T/out'"

echo "history: $pass passed, $failn failed"
[ $failn -eq 0 ]
