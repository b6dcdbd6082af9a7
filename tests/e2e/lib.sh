# shellcheck shell=bash
# tests/e2e/lib.sh: what the end-to-end scripts share, sourced after TOP is
# set: TAP-style checks (check DESC EXPR) and one booted run of a variant.
pass=0 failn=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
ko() { echo "not ok - $1"; failn=$((failn + 1)); }
check() { if eval "$2"; then ok "$1"; else ko "$1"; fi; }

# e2e_run PLAN OUT VARIANT: VARIANT booted with PLAN through the matrix
# `make` uses, into the results directory OUT of its own (emptied first).
# Sets R (the run), S (its samples.jsonl), RUN (the variant's run.json)
# and CON (the guest's console).
e2e_run() {
	rm -rf "$2"
	mkdir -p "$2"
	"$TOP/rig/boot/matrix.sh" --plan "$1" --out "$2" "$3"
	echo "matrix exit status: $?"
	R=$2/latest
	S=$R/samples.jsonl
	RUN=$R/$3/run.json
	CON=$TOP/build/$3/run/console.log
}

# e2e_done NAME: the summary line; fails when a check did.
e2e_done() {
	echo "$1: $pass passed, $failn failed"
	[ "$failn" -eq 0 ]
}
