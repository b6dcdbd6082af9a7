#!/bin/sh
# setup.sh [--print] [TARGET...]: make sure this machine has what the make
# TARGETs run (default: all, the README's `make`). Every make target calls
# it with its own name first. What each target needs, and which Debian
# package provides it, is data: rig/boot/commands. Each need is tested for
# what it is (command -v for a command, a file for a header, an import for
# a Python module), not only asked of dpkg, so a package that is installed
# but does not provide it, or a command from elsewhere, is seen as it is.
#
# As root, installs the missing packages with apt-get, then tests again:
# a need still missing afterwards means rig/boot/commands names the wrong
# package, and is an error. Otherwise prints what is missing and the exact
# apt-get line to run, and fails. --print lists TARGET's needs and whether
# each is there, installing nothing. --check and --lava are the old names of
# the targets check and lava-check.
#
# HZRIG_COMMANDS: another commands file (the tests use it).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
LIST=${HZRIG_COMMANDS:-$here/commands}
PRINT=0
targets=""
for a in "$@"; do
	case "$a" in
	--print) PRINT=1 ;;
	--check) targets="$targets check" ;;
	--lava) targets="$targets lava-check" ;;
	-*) echo "setup.sh: unknown option '$a' (usage: setup.sh [--print] [TARGET...])" >&2; exit 2 ;;
	*) targets="$targets $a" ;;
	esac
done
[ -n "$targets" ] || targets=all
[ -r "$LIST" ] || { echo "setup.sh: cannot read $LIST" >&2; exit 2; }

# The needs of the targets and of their parts, "NEED PACKAGE" a line; a
# target the list does not name, or a malformed line, is an error.
needs=$(awk -v want="$targets" '
	function fail(msg) { print FILENAME ":" NR ": " msg > "/dev/stderr"; bad = 1 }
	{ sub(/#.*/, "") }
	NF == 0 { next }
	$1 == "target" {
		if (NF < 4 || $3 != "=") { fail("a target line is \"target NAME = PART...\""); next }
		known[$2] = 1
		for (i = 4; i <= NF; i++) parts[$2] = parts[$2] " " $i
		next
	}
	NF < 3 { fail("a need line is \"NEED PACKAGE TARGET...\""); next }
	{ n++; need[n] = $1; pkg[n] = $2; tags[n] = ""
	  for (i = 3; i <= NF; i++) tags[n] = tags[n] " " $i " " }
	END {
		if (bad) exit 2
		k = split(want, todo, " ")
		for (i = 1; i <= k; i++) {
			if (!(todo[i] in known)) {
				print "setup.sh: no target \"" todo[i] "\" in " FILENAME > "/dev/stderr"
				exit 2
			}
		}
		# the closure of the targets over their parts
		inset["any"] = 1
		while (k > 0) {
			t = todo[k--]
			if (t in inset) continue
			inset[t] = 1
			m = split(parts[t], p, " ")
			for (i = 1; i <= m; i++) todo[++k] = p[i]
		}
		for (i = 1; i <= n; i++) {
			m = split(tags[i], p, " ")
			for (j = 1; j <= m; j++)
				if (p[j] in inset && !((need[i] " " pkg[i]) in seen)) {
					seen[need[i] " " pkg[i]] = 1
					print need[i], pkg[i]
					break
				}
		}
	}' "$LIST") || exit 2

PATH=$PATH:/usr/sbin:/sbin

# have NEED: 0 when this machine has it.
have() {
	case "$1" in
	python3:*) [ -x /usr/bin/python3 ] && /usr/bin/python3 -c "import ${1#python3:}" 2>/dev/null ;;
	perl:*) perl -M"${1#perl:}" -e 1 2>/dev/null ;;
	/*)
		# shellcheck disable=SC2086 # a glob, expanded on purpose
		set -- $1
		[ -e "$1" ] ;;
	*) command -v "$1" > /dev/null 2>&1 ;;
	esac
}

# missing: the "NEED PACKAGE" lines not met.
missing() {
	printf '%s\n' "$needs" | while read -r need pkg; do
		have "$need" || echo "$need $pkg"
	done
}

if [ "$PRINT" = 1 ]; then
	printf '%s\n' "$needs" | while read -r need pkg; do
		if have "$need"; then s=ok; else s=MISSING; fi
		printf '%-8s %-40s %s\n' "$s" "$need" "$pkg"
	done
	exit 0
fi

gone=$(missing)
[ -z "$gone" ] && exit 0
pkgs=$(printf '%s\n' "$gone" | awk '{print $2}' | sort -u | tr '\n' ' ')
cmd="apt-get install -y --no-install-recommends ${pkgs% }"
if [ "$(id -u)" -ne 0 ]; then
	echo "hzrig: missing for make$targets:" >&2
	printf '%s\n' "$gone" | awk '{printf "hzrig:   %-40s (Debian package %s)\n", $1, $2}' >&2
	echo "hzrig: run as root:  apt-get update && $cmd" >&2
	exit 1
fi
t0=$(date +%s)
# apt's own output goes to a log, shown when it fails.
log=$(mktemp "${TMPDIR:-/tmp}/hzrig-setup-apt.XXXXXX")
echo "hzrig: installing for make$targets: ${pkgs% } (apt-get; log: $log)"
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086 # one word a package
if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends $pkgs; } > "$log" 2>&1; then
	tail -20 "$log" >&2
	echo "setup.sh: apt-get failed (log: $log)" >&2
	exit 1
fi
rm -f "$log"
still=$(missing)
if [ -n "$still" ]; then
	printf '%s\n' "$still" | awk '{printf "setup.sh: %s is installed, but %s is still missing: %s names the wrong package for it\n", $2, $1, list}' list="$LIST" >&2
	exit 1
fi
echo "hzrig: time: apt $(($(date +%s) - t0)) s ($(printf '%s\n' "$gone" | awk '{print $2}' | sort -u | wc -l) packages)"
