#!/bin/bash
# check-setup.sh: rig/boot/setup.sh and its list, rig/boot/commands
# (make check-unit). setup.sh is run on lists made up for each case, with
# a stand-in apt-get first on PATH, so nothing is installed or removed here:
#   - a missing command, file, Python module: named, with its package;
#     not root: the exact apt-get line and exit 1; root: apt-get is run for
#     exactly the missing packages, and a package that does not bring what
#     it was installed for is an error naming the list's wrong line;
#   - a target's needs include its parts' needs, and only those;
#   - an unknown target, a malformed line: exit 2, named;
#   - the real list: every package it names is one Debian knows (apt-cache),
#     and rsync, which the kernel's headers_install runs, is installed for
#     `make` (the fresh-machine failure this list was made for).
# check-fresh's reading of a failed step's log (explain.sh): each kind of
# missing need named with its package, a test's own "# ..." lines not read.
# Then tests/setup/check-commands.py against a copy of the repository whose
# list lacks a program a script runs, lists one for another target only, or
# has a target that does not call setup.sh: each must fail, naming it.
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# A copy another user can read (the clone may sit in root's home); the
# lists it reads are given with HZRIG_COMMANDS, but for the real one.
SETUP=$T/setup.sh
cp "$TOP/rig/boot/setup.sh" "$SETUP"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; sed 's/^/# /' "$T/out" 2>/dev/null | head -20; }
check() { if eval "$2"; then ok; else ko "$1"; fi; }

# A stand-in apt-get: logs its arguments; "install" makes the file
# $T/provides/PKG names, if any (what the package would bring).
mkdir -p "$T/bin" "$T/provides"
cat > "$T/bin/apt-get" <<EOF
#!/bin/sh
echo "apt-get \$*" >> "$T/apt.log"
[ "\$1" = install ] || exit 0
for p in "\$@"; do
	[ -f "$T/provides/\$p" ] && touch "\$(cat "$T/provides/\$p")"
done
exit 0
EOF
chmod +x "$T/bin/apt-get"

# as_user CMD...: CMD as an unprivileged user (nobody), or as is when this
# is not root.
as_user() {
	if [ "$(id -u)" = 0 ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
	else
		"$@"
	fi
}
chmod 755 "$T"

cat > "$T/list" <<EOF
# a made-up list
target all      = matrix
target matrix   = @build
target other    = @other
sh                              dash            any
hzrig-no-such-command-a         pkg-a           @build
$T/missing-header.h             pkg-b           @build
python3:hzrig_no_such_module    pkg-c           @build
$T/glob-*/lib.a                 pkg-d           @build
hzrig-no-such-command-e         pkg-e           @other
EOF
mkdir -p "$T/glob-1"
touch "$T/glob-1/lib.a"

# --- not root: named, and the apt-get line ----------------------------------
HZRIG_COMMANDS=$T/list as_user "$SETUP" all > "$T/out" 2>&1
rc=$?
check "not root, something missing: exit 1" '[ $rc = 1 ]'
check "the missing command named with its package" 'grep -q "hzrig-no-such-command-a .*(Debian package pkg-a)" "$T/out"'
check "the missing file named" 'grep -q "missing-header.h .*(Debian package pkg-b)" "$T/out"'
check "the missing Python module named" 'grep -q "python3:hzrig_no_such_module .*(Debian package pkg-c)" "$T/out"'
check "the exact apt-get line, the missing packages only" \
	'grep -qx "hzrig: run as root:  apt-get update && apt-get install -y --no-install-recommends pkg-a pkg-b pkg-c" "$T/out"'
check "a glob that matches is there" '! grep -q pkg-d "$T/out"'
check "another target's need is not asked for" '! grep -q pkg-e "$T/out"'

# --- parts: a target needs what its parts need, and nothing else -------------
HZRIG_COMMANDS=$T/list "$SETUP" --print other > "$T/out" 2>&1
check "--print other: its own need" 'grep -q "^MISSING.*hzrig-no-such-command-e" "$T/out"'
check "--print other: not matrix's" '! grep -q "hzrig-no-such-command-a" "$T/out"'
check "--print other: the needs of every target" 'grep -q "^ok .* sh " "$T/out"'
HZRIG_COMMANDS=$T/list "$SETUP" --print all > "$T/out" 2>&1
check "--print all: matrix's needs through its part" 'grep -q "^MISSING.*hzrig-no-such-command-a" "$T/out"'

# --- bad input --------------------------------------------------------------
HZRIG_COMMANDS=$T/list "$SETUP" no-such-target > "$T/out" 2>&1
rc=$?
check "unknown target: exit 2, named" '[ $rc = 2 ] && grep -q "no target \"no-such-target\"" "$T/out"'
printf 'target all = x\nlonely\n' > "$T/bad"
HZRIG_COMMANDS=$T/bad "$SETUP" all > "$T/out" 2>&1
rc=$?
check "malformed line: exit 2, file and line" '[ $rc = 2 ] && grep -q "bad:2: a need line" "$T/out"'
HZRIG_COMMANDS=$T/list "$SETUP" --frobnicate > "$T/out" 2>&1
rc=$?
check "unknown option: exit 2" '[ $rc = 2 ] && grep -q "unknown option" "$T/out"'

# --- root: apt-get for what is missing; a wrong package is an error ---------
if [ "$(id -u)" = 0 ]; then
	cat > "$T/list2" <<EOF
target all = @x
$T/made-by-pkg-good    pkg-good    @x
$T/never-made          pkg-wrong   @x
EOF
	echo "$T/made-by-pkg-good" > "$T/provides/pkg-good"
	: > "$T/apt.log"
	PATH=$T/bin:$PATH HZRIG_COMMANDS=$T/list2 "$SETUP" all > "$T/out" 2>&1
	rc=$?
	check "root: apt-get install of exactly the missing packages" \
		'grep -qx "apt-get install -y -qq --no-install-recommends pkg-good pkg-wrong" "$T/apt.log"'
	check "root: a package that does not bring its need: exit 1, the line named" \
		'[ $rc = 1 ] && grep -q "pkg-wrong is installed, but $T/never-made is still missing" "$T/out"'
	sed -i '/never-made/d' "$T/list2"
	rm -f "$T/made-by-pkg-good"
	PATH=$T/bin:$PATH HZRIG_COMMANDS=$T/list2 "$SETUP" all > "$T/out" 2>&1
	rc=$?
	check "root: installed and found: exit 0, the time said" '[ $rc = 0 ] && grep -q "hzrig: time: apt" "$T/out"'
	: > "$T/apt.log"
	PATH=$T/bin:$PATH HZRIG_COMMANDS=$T/list2 "$SETUP" all > "$T/out" 2>&1
	check "root: nothing missing: silent, apt-get not run" '[ ! -s "$T/out" ] && [ ! -s "$T/apt.log" ]'
else
	echo "# not root: the apt-get cases are skipped"
fi

# --- the real list ------------------------------------------------------------
"$TOP/rig/boot/setup.sh" --print all > "$T/out" 2>&1
check "make's needs include rsync (the kernel's headers_install)" 'grep -q " rsync  *rsync$" "$T/out"'
check "make's needs include lz4 and xz (compressed kernels, Debian's trees)" \
	'grep -q " lz4 " "$T/out" && grep -q " xz " "$T/out"'
pkgs=$(awk '!/^#/ && NF >= 3 && $1 != "target" {print $2}' "$TOP/rig/boot/commands" | sort -u)
# shellcheck disable=SC2086 # one word a package
known=$(apt-cache policy $pkgs 2> /dev/null | awk '/^[^ ].*:$/ {p = substr($1, 1, length($1) - 1)}
	/^  Candidate:/ && $2 != "(none)" {print p}')
unknown=$(printf '%s\n' $pkgs | grep -vxF "$known" | tr '\n' ' ')
echo "$unknown" > "$T/out"
check "every package the list names is a Debian package apt knows${unknown:+ (not:$unknown)}" '[ -z "$unknown" ]'

# --- check-fresh: what a failed step's log says was missing ------------------------
cat > "$T/step.log" <<'EOF'
  0:01 /bin/sh: 1: rsync: not found
  0:02 make[2]: hzrig-nope: No such file or directory
  0:03 gadget/main.c:9:10: fatal error: json-c/json.h: No such file or directory
  0:04 ModuleNotFoundError: No module named 'jsonschema'
  0:05 # /bin/sh: 1: hzrig-faked-by-a-test: not found
  0:06 ok - a check that passed
  0:07 not ok - 26 concurrent ingests of one run: none fails
  0:07 # hzrig: c.db: the history database is busy
  0:08 ok - the next check
  0:09 # not this diagnostic: it follows a pass
EOF
"$TOP/tests/fresh/explain.sh" "$T/step.log" > "$T/out" 2>&1
check "check-fresh names a missing command with its package" \
	'grep -qx "check-fresh: missing: rsync (Debian package rsync, .*" "$T/out"'
check "check-fresh names a command the list lacks" \
	'grep -q "^check-fresh: missing: hzrig-nope (not in rig/boot/commands" "$T/out"'
check "check-fresh names a missing header as the list's need" \
	'grep -q "^check-fresh: missing: /usr/include/json-c/json.h (Debian package libjson-c-dev" "$T/out"'
check "check-fresh names a missing Python module" \
	'grep -q "^check-fresh: missing: python3:jsonschema (Debian package python3-jsonschema" "$T/out"'
check "check-fresh does not take a test's own diagnostics for the cause" \
	'! grep -q hzrig-faked-by-a-test "$T/out" && [ "$(grep -c "missing:" "$T/out")" = 4 ]'
check "check-fresh names a failed check with its diagnostics, and no passed one's" \
	'grep -qx "check-fresh: failed: not ok - 26 concurrent ingests of one run: none fails" "$T/out" &&
	 grep -qx "check-fresh:   # hzrig: c.db: the history database is busy" "$T/out" &&
	 ! grep -q "passed\|not this" "$T/out"'

# --- check-commands.py on a copy with a defect --------------------------------
copy() {
	rm -rf "$T/repo"
	mkdir -p "$T/repo"
	(cd "$TOP" && git ls-files -z | xargs -0 cp --parents -t "$T/repo")
}
copy
"$TOP/tests/setup/check-commands.py" "$T/repo" > "$T/out" 2>&1
rc=$?
check "check-commands: the repository as it is passes" '[ $rc = 0 ]'
copy
sed -i '/^jq /d' "$T/repo/rig/boot/commands"
"$TOP/tests/setup/check-commands.py" "$T/repo" > "$T/out" 2>&1
rc=$?
check "check-commands: jq dropped from the list: fails, naming jq where it runs" \
	'[ $rc = 1 ] && grep -q "^rig/boot/matrix.sh:[0-9]*: jq: not in rig/boot/commands" "$T/out"'
copy
sed -i 's/^\(sqlite3 .*\) @unit/\1/' "$T/repo/rig/boot/commands"
"$TOP/tests/setup/check-commands.py" "$T/repo" > "$T/out" 2>&1
rc=$?
check "check-commands: sqlite3 not listed for the tests: fails, naming the target" \
	'[ $rc = 1 ] && grep -q "make check-hostile runs sqlite3, but rig/boot/commands lists it only for @history" "$T/out"'
copy
echo 'rsync_user() { rsync -a "$1" "$2"; }; rsync_user a b' >> "$T/repo/tests/e2e/boot-one.sh"
sed -i '/^rsync /d' "$T/repo/rig/boot/commands"
"$TOP/tests/setup/check-commands.py" "$T/repo" > "$T/out" 2>&1
rc=$?
check "check-commands: a test that runs rsync, rsync not listed: fails" \
	'[ $rc = 1 ] && grep -q "tests/e2e/boot-one.sh:[0-9]*: rsync: not in rig/boot/commands" "$T/out"'
copy
sed -i 's/^\(target sweep *= .*\) @checker/\1/' "$T/repo/rig/boot/commands"
"$TOP/tests/setup/check-commands.py" "$T/repo" > "$T/out" 2>&1
rc=$?
check "check-commands: a script runs hzrig check-tree, spatch not listed for its target: fails, naming both" \
	'[ $rc = 1 ] && grep -q "rig/sweep/sweep.sh: make sweep runs hzrig check-tree, whose rig/checker/cmd_check_tree.c:[0-9]* runs spatch" "$T/out"'
copy
awk '/^check-tree:/ {print; getline; next} {print}' "$T/repo/Makefile" > "$T/mk" && mv "$T/mk" "$T/repo/Makefile"
"$TOP/tests/setup/check-commands.py" "$T/repo" > "$T/out" 2>&1
rc=$?
check "check-commands: a target that does not call setup.sh first: fails" \
	'[ $rc = 1 ] && grep -q "target check-tree does not start with \$(SETUP)" "$T/out"'
copy
sed -i '/^target check-fresh /d' "$T/repo/rig/boot/commands"
"$TOP/tests/setup/check-commands.py" "$T/repo" > "$T/out" 2>&1
rc=$?
check "check-commands: a target with no target line: fails" \
	'[ $rc = 1 ] && grep -q "target check-fresh has no \"target check-fresh = ...\" line" "$T/out"'

echo "setup: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
