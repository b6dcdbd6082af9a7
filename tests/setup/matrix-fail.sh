#!/bin/bash
# matrix-fail.sh: a matrix whose every variant fails at one stage says so
# once, with the cause and the fix, and stops (make check-unit). No kernel
# is built: KSRC is a stand-in tree whose kconfig targets write a .config
# and whose headers_install runs a command that is not installed, as the
# real one ran rsync on a machine without it. Cases:
#   - every variant fails at userspace: the failing output shown once, one
#     line per later variant ("as hz-100 did"), one summary naming the
#     command, and the fix: the list's package and setup.sh, or that the
#     list lacks it; no report, compare, ingest or dashboard; no run
#     directory, no history, exit 1;
#   - a variant that fails elsewhere besides: each failure once, apart.
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/setup/harness.sh
. "$TOP/tests/setup/harness.sh"

tree=$T/tree
mkdir -p "$tree/scripts/kconfig"
cat > "$tree/Makefile" <<'EOF'
VERSION = 6
PATCHLEVEL = 1
SUBLEVEL = 0
tinyconfig olddefconfig:
	@mkdir -p $(O) && touch $(O)/.config
headers_install:
	hzrig-no-such-rsync -a include/ '$(INSTALL_HDR_PATH)' && echo installed
EOF
cat > "$tree/scripts/kconfig/merge_config.sh" <<'EOF'
#!/bin/sh
# merge_config.sh -m -O OBJ BASE FRAGMENT...: the fragments, appended
shift 3
base=$1
shift
cat "$@" >> "$base"
EOF
chmod +x "$tree/scripts/kconfig/merge_config.sh"

matrix() {
	KSRC=$tree B=$T/build HZRIG_DB=$T/results/hzrig.db \
		"$TOP/rig/boot/matrix.sh" --plan quick --accel tcg --out "$T/results" "$@" > "$T/out" 2>&1
}
count() { grep -c -F -- "$1" "$T/out"; }

# --- every variant, one stage, one cause: a command the list lacks ----------
matrix hz-100 hz-250 hz-1000
rc=$?
check "exit 1" '[ $rc = 1 ]'
# (make[N] when this runs under make, as in make check-unit)
check "the failing output shown once" \
	'[ "$(grep -c -E "^make(\[[0-9]+\])?: \*\*\* \[Makefile:7: headers_install\] Error 127" "$T/out")" = 1 ]'
check "the first variant's failure, with its cause" \
	'grep -qxF "[hz-100] FAILED at userspace: /bin/sh: 1: hzrig-no-such-rsync: not found" "$T/out"'
check "the others in a line each, without it" \
	'grep -qxF "[hz-250] FAILED at userspace, as hz-100 did" "$T/out" && grep -qxF "[hz-1000] FAILED at userspace, as hz-100 did" "$T/out"'
check "one summary: every variant, the stage, the cause" \
	'[ "$(count "matrix: every variant (hz-100 hz-250 hz-1000) failed at stage userspace: /bin/sh: 1: hzrig-no-such-rsync: not found")" = 1 ]'
check "the fix: the command is not in the list" \
	'[ "$(count "matrix: hzrig-no-such-rsync is not installed, and rig/boot/commands does not list it")" = 1 ]'
check "then it stops: nothing reported, compared or recorded" \
	'grep -qF "matrix: no variant was built" "$T/out" && ! grep -qiE "not a run directory|KTAP|dashboard|ingest" "$T/out"'
check "no run directory, no history, no latest" \
	'[ ! -e "$T/results/runs" ] && [ ! -e "$T/results/hzrig.db" ] && [ ! -e "$T/results/latest" ]'

# --- the same, the command in the list: its package and setup.sh ------------
printf 'target all = @k\nhzrig-no-such-rsync  rsync  @k\n' > "$T/commands"
HZRIG_COMMANDS=$T/commands matrix hz-100 hz-250
check "a listed command: its package and rig/boot/setup.sh" \
	'grep -qF "matrix: hzrig-no-such-rsync is not installed (Debian package rsync): run rig/boot/setup.sh as root" "$T/out"'

# --- make running the line itself: "make: X: No such file or directory" --------
sed -i "s/ '\$(INSTALL_HDR_PATH)' && echo installed/ x/" "$tree/Makefile"
matrix hz-100 hz-250
check "make's own report of a missing command: named, the fix said" \
	'grep -qE "^make(\[[0-9]+\])?: hzrig-no-such-rsync: No such file or directory" "$T/out" && grep -qF "matrix: hzrig-no-such-rsync is not installed, and rig/boot/commands does not list it" "$T/out"'
sed -i "s/ x\$/ '\$(INSTALL_HDR_PATH)' \&\& echo installed/" "$tree/Makefile"

# --- two causes: each once -----------------------------------------------------
matrix hz-100 hz-250-legacy hz-1000
rc=$?
check "two causes: exit 1" '[ $rc = 1 ]'
check "two causes: the two that share one, together" \
	'grep -qxF "matrix: hz-100 hz-1000 failed at stage userspace: /bin/sh: 1: hzrig-no-such-rsync: not found" "$T/out"'
check "two causes: the other apart, with its own" \
	'grep -qF "matrix: hz-250-legacy failed at stage tree: matrix: kernel/patches/0001-usb-core-synchronous-timeout-as-jiffies.patch does not apply" "$T/out"'
check "two causes: not \"every variant\"" '! grep -qF "every variant" "$T/out"'

done_checks matrix-fail
