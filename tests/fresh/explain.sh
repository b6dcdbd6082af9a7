#!/bin/sh
# explain.sh LOG: what a failed step of make check-fresh says was not
# installed, one line each, as a need of rig/boot/commands with the package
# that list names for it, or saying the list lacks it. check-fresh.sh runs
# it on a failed step's log; tests/setup/check-setup.sh on made-up ones.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
[ -r "${1:-}" ] || { echo "usage: explain.sh LOG" >&2; exit 2; }

# What a failed step's log says was not installed, as needs of
# rig/boot/commands: a command ("X: not found" from dash, "X: command not
# found" from bash, "make: X: No such file or directory" from make running
# a line itself), a header ("fatal error: X.h: No such file or directory",
# as /usr/include/X.h) or a Python module ("No module named 'X'", as
# python3:X). A test's own diagnostics ("# ..." lines) are not read: a test
# may fake a missing command on purpose. Then the failed checks themselves
# ("not ok" lines of TAP and KTAP, and the "# ..." lines after each, a few),
# so that the tail of a CI log names what failed, not only a count.
missing_needs() {
	grep -v -E '^ *[0-9]+:[0-9]+ #' "$1" | sed -n \
		-e 's/.*: \([A-Za-z0-9._+-]*\): not found$/\1/p' \
		-e 's/.*: \([A-Za-z0-9._+-]*\): command not found$/\1/p' \
		-e 's/.*make[^:]*: \([A-Za-z0-9._+-]*\): No such file or directory$/\1/p' \
		-e 's|.*fatal error: \([A-Za-z0-9._+/-]*\.h\): No such file or directory$|/usr/include/\1|p' \
		-e "s/.*No module named '\([A-Za-z0-9_]*\).*/python3:\1/p" | sort -u
}

for c in $(missing_needs "$1"); do
	pkg=$(awk -v c="$c" '!/^#/ && $1 == c && NF >= 3 { print $2; exit }' "$TOP/rig/boot/commands")
	if [ -n "$pkg" ]; then
		echo "check-fresh: missing: $c (Debian package $pkg, in rig/boot/commands, but not installed for this target: check its targets there)"
	else
		echo "check-fresh: missing: $c (not in rig/boot/commands: add it with its Debian package and the targets that need it)"
	fi
done

# The failed checks, each with up to 12 of the diagnostic lines that follow.
awk '{ line = $0; sub(/^ *[0-9]+:[0-9]+ /, "", line) }
	line ~ /^ *not ok / { print "check-fresh: failed: " line; n = 12; next }
	n > 0 && line ~ /^ *#/ { print "check-fresh:   " line; n--; next }
	{ n = 0 }' "$1"
