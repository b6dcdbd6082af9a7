#!/bin/bash
# same-outputs.sh OLD_REV [NEW_REV]: the proof a refactor owes. Builds hzrig
# at both revisions (NEW_REV: the working tree) and runs every output of
# the sample's path on the repository's fixtures through each: collect of
# every capture, report, compare (table, CSV, JSON), report --kcidb,
# ingest, history (table, JSON, one case), the dashboard of every run, and
# the history's samples and variant rows as SQLite has them. Times of day
# and the scratch directory's name are masked; everything else must be
# byte-identical. Prints the files that differ; exit 1 if any does.
#
#   tests/refactor/same-outputs.sh HEAD~3
#   RUNS="/path/to/results/runs/*" tests/refactor/same-outputs.sh main~1
#
# RUNS adds run directories that have ttyS1.jsonl and console.log per
# variant (a real `make` run's results/runs/ID) to collect again; KEEP=1
# keeps the outputs for a look.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OLD=${1:?usage: same-outputs.sh OLD_REV [NEW_REV]}
NEW=${2:-}
W=$(mktemp -d /tmp/hzrig-same-XXXXXX)
cleanup() {
	cd / || return
	git -C "$TOP" worktree remove --force "$W/old" 2>/dev/null
	[ -z "$NEW" ] || git -C "$TOP" worktree remove --force "$W/new" 2>/dev/null
	[ -n "${KEEP:-}" ] && echo "same-outputs: kept $W" || rm -rf "$W"
}
trap cleanup EXIT

# build REV DIR: hzrig of REV (a worktree), or of the working tree.
build() {
	local src=$TOP
	if [ -n "$1" ]; then
		git -C "$TOP" worktree add --detach -q "$W/$2" "$1" || exit 2
		src=$W/$2
	fi
	make -s -C "$src/rig" O="$W/bin-$2" >/dev/null || exit 2
	echo "$W/bin-$2/hzrig"
}

# mask < FILE: times of day and the scratch directory out.
mask() {
	sed -E -e "s#$W/out-(old|new)#OUT#g" \
		-e 's/"(collected_at|ingested_at|checked_at|set_at)": ?"[^"]*"/"\1":"T"/g' \
		-e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|\+00:00)/T/g' \
		-e 's/[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}(:[0-9]{2})? UTC/T/g'
}

# outputs HZRIG OUT: every output into OUT.
outputs() {
	local h=$1 o=$2 c r v b n=10
	mkdir -p "$o/runs"
	# each capture a run of its own, its id a time (so the history's order
	# does not hang on the second each was ingested in)
	for c in "$TOP"/tests/data/captures/*.jsonl; do
		b=$(basename "$c" .jsonl)
		n=$((n + 1))
		"$h" collect --variant "$(sed -n 's/.*"variant":"\([^"]*\)".*/\1/p;q' "$c")" \
			--serial "$c" --console "$TOP/tests/data/captures/console.log" \
			--out "$o/runs/20261201T0000${n}Z" --boot-status ok \
			>"$o/collect-$b.out" 2>&1
		echo "rc=$?" >>"$o/collect-$b.out"
	done
	for r in ${RUNS:-}; do
		for v in "$r"/*/; do
			[ -f "$v/ttyS1.jsonl" ] || continue
			"$h" collect --variant "$(basename "$v")" --serial "$v/ttyS1.jsonl" \
				--console "$v/console.log" --out "$o/runs/$(basename "$r")" \
				--boot-status "$([ -f "$v/status.json" ] && echo "$v/status.json" || echo ok)" \
				>>"$o/collect-$(basename "$r").out" 2>&1
			[ ! -f "$v/build.json" ] || cp "$v/build.json" "$o/runs/$(basename "$r")/$(basename "$v")/"
		done
	done
	cp -r "$TOP"/tests/data/history/2026* "$TOP"/tests/data/kcidb/2026* "$o/runs/" 2>/dev/null
	for r in "$o"/runs/*/; do
		b=$(basename "$r")
		"$h" report "$r" >"$o/report-$b" 2>&1
		"$h" compare "$r" >"$o/compare-$b" 2>&1
		"$h" compare --format csv "$r" >"$o/comparec-$b" 2>&1
		"$h" compare --format json "$r" >"$o/comparej-$b" 2>&1
		"$h" report --kcidb="$o/kcidb-$b.json" "$r" >"$o/kcidb-$b" 2>&1
		"$h" ingest --db "$o/h.db" "$r" >>"$o/ingest" 2>&1
	done
	"$h" history --db "$o/h.db" >"$o/history" 2>&1
	"$h" history --db "$o/h.db" --format json >"$o/historyj" 2>&1
	"$h" history --db "$o/h.db" --case "bulk-in nak ms T=100" >"$o/historyc" 2>&1
	for r in "$o"/runs/*/; do
		b=$(basename "$r")
		"$h" dashboard --db "$o/h.db" --out "$o/dash-$b" --run "$b" >/dev/null 2>&1
	done
	sqlite3 "$o/h.db" "SELECT * FROM samples ORDER BY variant_run, case_idx, rep" >"$o/db-samples"
	sqlite3 "$o/h.db" "SELECT * FROM variant_runs" >"$o/db-variants"
	rm -f "$o"/h.db*
	find "$o" -type f | while read -r f; do mask <"$f" >"$f.m" && mv "$f.m" "$f"; done
}

old=$(build "$OLD" old)
new=$(build "$NEW" new)
outputs "$old" "$W/out-old"
outputs "$new" "$W/out-new"
n=$(find "$W/out-new" -type f | wc -l)
if diff -rq "$W/out-old" "$W/out-new"; then
	echo "same-outputs: $OLD and ${NEW:-the working tree}: $n files, all the same"
else
	echo "same-outputs: $OLD and ${NEW:-the working tree} differ (above)"
	exit 1
fi
