#!/bin/sh
# kconfig.sh KSRC OBJ FRAGMENT...
# Configure a variant's kernel: x86_64 tinyconfig, the variant's fragments
# merged with the tree's own merge_config.sh, olddefconfig, then check that
# every option a fragment asks for survived (Kconfig silently drops options
# whose dependencies are unmet). Fails listing those that did not.
# KCONFIG_REPORT_ONLY=FRAGMENT: that fragment's options may be dropped (the
# sweep's drivers, rig/sweep/select.py: a rule's pick, not a request); the
# ones that were are listed in OBJ/dropped.config instead. A pick asked as
# a module that is built in (another fragment wants it =y: usbcore, whose
# hub driver has a USB id table) is built, not dropped.
set -eu
ksrc=$1 obj=$2
shift 2
mkdir -p "$obj"
# kconfig's own programs through ccache (depend mode), as matrix.sh builds
# the kernel's host tools: the same for every variant of a tree, so only
# the first one compiles them.
hostcc=gcc
command -v ccache > /dev/null && hostcc="ccache gcc"
export CCACHE_DEPEND="${CCACHE_DEPEND:-true}" CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
kmake() { make -s -C "$ksrc" O="$obj" ARCH=x86_64 HOSTCC="$hostcc" "$@"; }

# Kconfig's chatter (choice overrides and the like) goes to a log; it is
# shown only when a step fails.
kmake tinyconfig > "$obj/merge_config.log" 2>&1 || {
	cat "$obj/merge_config.log" >&2
	exit 1
}
"$ksrc/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$@" \
	>> "$obj/merge_config.log" 2>&1 || {
	cat "$obj/merge_config.log" >&2
	exit 1
}
kmake olddefconfig >> "$obj/merge_config.log" 2>&1 || { cat "$obj/merge_config.log" >&2; exit 1; }

bad=0
: > "$obj/dropped.config"
for frag in "$@"; do
	if [ "$frag" = "${KCONFIG_REPORT_ONLY:-}" ]; then
		grep -E '^CONFIG_[A-Za-z0-9_]+=' "$frag" | while IFS= read -r line; do
			grep -qxF "$line" "$obj/.config" ||
				{ [ "${line%=m}" != "$line" ] && grep -qxF "${line%=m}=y" "$obj/.config"; } ||
				echo "$line"
		done > "$obj/dropped.config"
		continue
	fi
	# CONFIG_X=value lines must appear verbatim; "is not set" lines must
	# not be enabled.
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*)
			grep -qxF "$line" "$obj/.config" || {
				opt=${line%%=*}
				got=$(grep -E "^$opt=|^# $opt is not set" "$obj/.config" || echo "absent")
				echo "kconfig: $(basename "$frag"): wanted $line, got $got" >&2
				bad=1
			} ;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }
			opt=${opt%% *}
			if grep -qE "^$opt=[ym]" "$obj/.config"; then
				echo "kconfig: $(basename "$frag"): wanted $opt off, got $(grep -E "^$opt=" "$obj/.config")" >&2
				bad=1
			fi ;;
		esac
	done < "$frag"
done
[ $bad -eq 0 ] || { echo "kconfig: requested options did not survive olddefconfig" >&2; exit 1; }
