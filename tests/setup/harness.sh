# shellcheck shell=bash
# tests/setup/harness.sh: what the script tests here that run stand-ins
# (matrix-fail.sh, sweep-schedule.sh) share, sourced after TOP is set: $T
# a scratch directory removed at exit; check DESC EXPR counts, and on a
# failure prints DESC with the head of $T/out (and of $T/log, when the
# test keeps one); done_checks NAME prints the count and is the exit.
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() {
	fail=$((fail + 1))
	echo "FAIL: $*"
	sed 's/^/# /' "$T/out" | head -40
	[ ! -f "$T/log" ] || sed 's/^/# log: /' "$T/log" | head -40
}
check() { if eval "$2"; then ok; else ko "$1"; fi; }
done_checks() {
	echo "$1: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}
