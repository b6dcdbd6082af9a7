#!/bin/bash
# make-fixture.sh [RESULTS_RUNS_DIR]: rebuild tests/browser/fixture/ from two
# real runs of this machine (results/runs/20261203T094306Z, the default plan,
# and results/runs/20261203T102031Z, the quick plan), trimmed to a few cases
# per variant. Run by hand when the fixture has to change; the test only
# reads what this wrote (and is committed). See fixture/README.md.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SRC=${1:-$TOP/results/runs}
DST=$TOP/tests/browser/fixture
A=20261203T094306Z	# default plan: NAK backbone, 5 reps
B=20261203T102031Z	# quick plan: every behaviour and mode, 2-3 reps

for r in $A $B; do
	[ -f "$SRC/$r/samples.jsonl" ] || { echo "make-fixture: no $SRC/$r/samples.jsonl" >&2; exit 2; }
done
rm -rf "${DST:?}/$A" "${DST:?}/$B"

# Run A: bulk-in and ctrl-in NAKed, T = 1, 5, 100, 1000 ms (both of its
# late samples: hz-250 ctrl-in T=5 and hz-100 ctrl-in T=100).
SEL_A='select(.mode == "ms" and .behaviour == "nak" and
	(.transfer == "bulk-in" or .transfer == "ctrl-in") and
	([.timeout_ms] | inside([1, 5, 100, 1000])))'
# Run B: the same NAKed transfers at T = 1, 100 (in common with A), 504 and
# 640 (wheel level edges); bulk-in in the jiffies modes, delayed, answered,
# short and stalled.
SEL_B='select((.behaviour == "nak" and .mode == "ms" and
	(.transfer == "bulk-in" or .transfer == "ctrl-in") and
	([.timeout_ms] | inside([1, 100, 504, 640]))) or
	(.transfer == "bulk-in" and (.mode != "ms" or .behaviour != "nak")))'
# The synthesized regression: hz-250's bulk-in T=100 calls take four times
# as long, as with the jiffies patch of hz-250-legacy; collect would call
# them late.
REG='if .variant == "hz-250" and .transfer == "bulk-in" and .behaviour == "nak"
	and .mode == "ms" and .timeout_ms == 100
	then .elapsed_ns *= 4 | .verdict = "late" else . end'

trim() {	# trim RUN SELECT EDIT
	local r=$1 sel=$2 edit=$3 v
	mkdir -p "$DST/$r"
	jq -c "$sel | $edit" "$SRC/$r/samples.jsonl" > "$DST/$r/samples.jsonl"
	for v in $(jq -r .variant "$DST/$r/samples.jsonl" | sort -u); do
		mkdir -p "$DST/$r/$v"
		# run.json's counts must agree with the trimmed samples.
		jq --slurpfile s <(jq -c "select(.variant == \"$v\")" "$DST/$r/samples.jsonl") '
			.counts = {samples: ($s | length),
				inside: ([$s[] | select(.verdict == "inside")] | length),
				early: ([$s[] | select(.verdict == "early")] | length),
				late: ([$s[] | select(.verdict == "late")] | length),
				wrong_status: ([$s[] | select(.verdict == "wrong-status")] | length),
				refused: ([$s[] | select(.verdict == "refused")] | length),
				outside: ([$s[] | select(.verdict == "early" or .verdict == "late")] | length)}
			| .capture.end.samples = ($s | length)' \
			"$SRC/$r/$v/run.json" > "$DST/$r/$v/run.json"
	done
}
trim $A "$SEL_A" .
trim $B "$SEL_B" "$REG"

# build.json for run B (real runs of that date had none; the values are
# examples of the format). tree_describe carries markup and characters
# HTML must escape: the browser test checks they arrive as text and that
# no <x-tree> element appears.
for v in hz-100 hz-250 hz-1000; do
	# A stand-in for the sha256 of the variant's .config.
	hash=$(printf 'CONFIG_HZ_%s=y\n' "${v#hz-}" | sha256sum | cut -d' ' -f1)
	jq -n --arg v "$v" --arg hash "$hash" '{schema: 1, variant: $v,
		fragments: ["base", "usb", "clock", $v],
		patches: [],
		config_hash: ("sha256:" + $hash),
		tree_describe: "linux-source-6.1 <x-tree>6.1.192-1</x-tree> & \"stable\"",
		hzrig_version: "v0.3-12-g1e29d18",
		kernel_build_s: 241, module_build_s: 6}' > "$DST/$B/$v/build.json"
done
wc -l "$DST"/*/samples.jsonl
