#!/bin/bash
# check-fresh.sh: the README's two commands on a machine that has nothing
# (make check-fresh; .ci/run). This machine cannot fool it: the commands run
# in a Debian bookworm root that mmdebstrap builds anew each time, minbase
# plus only what .ci/run itself installs (make and gcc), as root, in a mount
# and PID namespace of their own, with a clean clone of this repository's
# HEAD. From the host they take only:
#   - the kernel (and so /dev, /proc: QEMU's /dev/kvm, the build's /dev/null);
#   - the apt mirror, through this machine's Debian apt sources;
#   - a ccache directory kept on the host between runs (--ccache DIR, or
#     "none" for a cold build).
# Inside, in turn, each timed:
#   make VARIANTS="$VARIANTS" PLAN=$PLAN     (the README's make)
#   make check-unit                          (the unit part of make check)
# A step that fails fails the whole; when the cause is a command that is
# not there ("rsync: not found"), it is named with the package
# rig/boot/commands says provides it, or as missing from that list.
#
# usage: tests/fresh/check-fresh.sh [--variants "V..."] [--plan NAME]
#            [--ccache DIR|none] [--keep] [--again] [--make-only]
#            [--no-make] [--step "MAKE ARGS"]...
# Defaults: --variants hz-250 --plan quick --ccache
# ~/.cache/hzrig/fresh-ccache; --step "check-unit" after make (none with
# --make-only: the README's figure, measured); --no-make runs the steps
# alone (a target that needs no kernel: make lava-lab). Everything
# goes to build/fresh/ (root/, the log, times.txt); without --keep the
# root is removed after a pass (a failure keeps it). --again is for working
# on a failure: the kept root and its clone, brought to HEAD, not a fresh
# machine (its packages and build stay).
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$TOP/build}
D=$B/fresh
ROOT=$D/root
VARIANTS=hz-250
PLAN=quick
CCACHE=${HOME:-/root}/.cache/hzrig/fresh-ccache
KEEP=0
AGAIN=0
MAKE_ONLY=0
NO_MAKE=0
STEPS=()
SUITE=bookworm

usage() { sed -n '2,/^set -u/p' "$0" | sed -n 's/^# \{0,1\}//p' | sed '$d' >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
	--variants) [ $# -ge 2 ] || usage; VARIANTS=$2; shift 2 ;;
	--plan) [ $# -ge 2 ] || usage; PLAN=$2; shift 2 ;;
	--ccache) [ $# -ge 2 ] || usage; CCACHE=$2; shift 2 ;;
	--keep) KEEP=1; shift ;;
	--again) AGAIN=1; KEEP=1; shift ;;
	--make-only) MAKE_ONLY=1; shift ;;
	--no-make) NO_MAKE=1; shift ;;
	--step) [ $# -ge 2 ] || usage; STEPS+=("$2"); shift 2 ;;
	-h|--help) usage ;;
	*) echo "check-fresh: unknown argument '$1'" >&2; usage ;;
	esac
done
[ ${#STEPS[@]} -gt 0 ] || [ "$MAKE_ONLY" = 1 ] || STEPS=(check-unit)
case "$VARIANTS$PLAN" in
*[!A-Za-z0-9._\ -]*) echo "check-fresh: --variants and --plan take names (letters, digits, '.', '_', '-')" >&2; exit 2 ;;
esac

say() { printf '[check-fresh] %s\n' "$*"; }
die() { echo "check-fresh: FAILED: $*" >&2; exit 1; }


# This machine's apt sources, Debian's own suites only: a third-party
# repository's keyring is not in the new root.
sources() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk -v s="$SUITE" '/^[ \t]*deb[ \t]/ {
			n = 2; if ($2 ~ /^\[/) while ($n !~ /\]$/) n++
			if (n > 2) n++
			if ($(n + 1) == s || index($(n + 1), s "-") == 1) print }' "$f"
	done > "$D/sources.list"
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v s="$SUITE" 'BEGIN { RS = ""; ORS = "\n\n" }
			{ ok = 0; n = split($0, l, "\n")
			  for (i = 1; i <= n; i++) if (l[i] ~ /^Suites:/) {
				m = split(substr(l[i], 8), w, /[ \t]+/); ok = 1
				for (j = 1; j <= m; j++)
					if (w[j] != "" && w[j] != s && index(w[j], s "-") != 1) ok = 0 }
			  if (ok) print }' "$f"
	done > "$D/sources.sources"
	[ -s "$D/sources.list" ] || [ -s "$D/sources.sources" ] ||
		die "this machine's apt sources name no $SUITE suite (/etc/apt/sources.list{,.d})"
}

# Each line of what runs inside, stamped with the minutes and seconds since
# the start, into the log and onto the terminal.
T0=$SECONDS
stamp() {
	local line
	while IFS= read -r line; do
		printf '%3d:%02d %s\n' $(((SECONDS - T0) / 60)) $(((SECONDS - T0) % 60)) "$line"
	done
}

# explain LOG: what a failed step's log says was not installed
# (tests/fresh/explain.sh).
explain() { "$TOP/tests/fresh/explain.sh" "$1" >&2; }

[ "$(id -u)" -eq 0 ] || die "needs root (mmdebstrap's root mode, a mount namespace, chroot)"
for c in mmdebstrap unshare chroot git; do
	command -v "$c" > /dev/null || die "no $c on this machine (rig/boot/setup.sh check-fresh installs it)"
done

mkdir -p "$D"
LOG=$D/check-fresh.log
: > "$LOG"
: > "$D/times.txt"
timed() {	# timed NAME CMD...: run, log, and note the seconds
	local name=$1 t=$SECONDS rc
	shift
	say "$name"
	"$@" 2>&1 | stamp | tee -a "$LOG"
	rc=${PIPESTATUS[0]}
	printf '%-28s %5d s\n' "$name" $((SECONDS - t)) | tee -a "$D/times.txt"
	return "$rc"
}

if [ "$AGAIN" = 1 ]; then
	[ -d "$ROOT/root/hzrig/.git" ] || die "--again: no kept root in $ROOT"
	say "1-2 AGAIN: the kept root, its clone brought to $(git -C "$TOP" rev-parse --short HEAD) (not a fresh machine)"
	git -C "$ROOT/root/hzrig" fetch -q "$TOP" HEAD &&
		git -C "$ROOT/root/hzrig" reset -q --hard FETCH_HEAD || die "git fetch into the kept clone"
else
	say "1 a minimal $SUITE root (mmdebstrap --variant=minbase --include=make,gcc)"
	sources
	if [ -d "$ROOT" ]; then
		rm -rf --one-file-system "$ROOT" || die "could not remove the old root $ROOT"
	fi
	mirrors=()
	[ -s "$D/sources.list" ] && mirrors+=("$D/sources.list")
	[ -s "$D/sources.sources" ] && mirrors+=("$D/sources.sources")
	timed "mmdebstrap" mmdebstrap --quiet --variant=minbase --include=make,gcc \
		"$SUITE" "$ROOT" "${mirrors[@]}" || die "mmdebstrap (log: $LOG)"
	# What every installed Debian system has and no package provides: the
	# installer writes /etc/hosts. Without "localhost" in it chromedriver
	# cannot reach the browser it starts.
	printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' > "$ROOT/etc/hosts"

	say "2 a clean clone of $(git -C "$TOP" rev-parse --short HEAD) in /root/hzrig"
	git clone -q --no-local "$TOP" "$ROOT/root/hzrig" || die "git clone"
fi
CCACHE_IN=
if [ "$CCACHE" != none ]; then
	mkdir -p "$CCACHE" "$ROOT/var/cache/hzrig-ccache" || die "ccache directory $CCACHE"
	CCACHE_IN=/var/cache/hzrig-ccache
fi

# inside SCRIPT: run SCRIPT as root in the new root, in its own mount and PID
# namespaces (every process it starts ends with it; its mounts vanish), with
# no environment from this machine but what names the ccache.
inside() {
	unshare --mount --pid --fork --propagation private /bin/sh -eu -c '
		r=$1 cc=$2 cin=$3 script=$4
		mount -t proc proc "$r/proc"
		mount --rbind /dev "$r/dev"
		mount --make-rslave "$r/dev"
		[ -z "$cin" ] || mount --bind "$cc" "$r$cin"
		exec chroot "$r" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			${cin:+CCACHE_DIR=$cin} /bin/sh -ec "cd /root/hzrig && $script"
	' inside "$ROOT" "$CCACHE" "$CCACHE_IN" "$1"
}

rc=0
if [ "$NO_MAKE" = 1 ]; then
	say "3 (no make: --no-make)"
elif say "3 make VARIANTS=\"$VARIANTS\" PLAN=$PLAN, as the README has it" &&
	! timed "make" inside "make VARIANTS='$VARIANTS' PLAN=$PLAN"; then
	rc=1
	explain "$LOG"
	echo "check-fresh: FAILED: make VARIANTS=\"$VARIANTS\" (log: $LOG)" >&2
fi
if [ $rc -eq 0 ]; then
	n=4
	for s in ${STEPS[@]+"${STEPS[@]}"}; do
		say "$n make $s"
		start=$(wc -l < "$LOG")
		if ! timed "make $s" inside "make $s"; then
			rc=1
			tail -n +"$((start + 1))" "$LOG" > "$D/step.log"
			explain "$D/step.log"
			echo "check-fresh: FAILED: make $s (log: $LOG)" >&2
			break
		fi
		n=$((n + 1))
	done
fi

echo
say "times (build/fresh/times.txt; ccache: $CCACHE):"
cat "$D/times.txt"
say "the parts of make (build/fresh/check-fresh.log):"
grep -h -E '^ *[0-9]+:[0-9]+ hzrig: time: ' "$LOG" | sed 's/^ *[0-9]*:[0-9]* //'
if [ $rc -eq 0 ]; then
	[ "$KEEP" = 1 ] || rm -rf --one-file-system "$ROOT"
	if [ "$NO_MAKE" = 1 ]; then
		say "PASS: a fresh $SUITE root ran make ${STEPS[*]}"
	else
		say "PASS: a fresh $SUITE root ran make${STEPS[*]+ and ${STEPS[*]}}"
	fi
fi
exit $rc
