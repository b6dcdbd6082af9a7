#!/bin/bash
# suspects.sh CONSOLE MODULES [STREAM]: the drivers a sweep batch's guest that hung
# or crashed is put down to (docs/sweep.md, "A driver that hangs or
# crashes the guest"), one module name a line, from its console:
#   1. the modprobes the guest said it began ("hzrig-sweep: modprobe-begin
#      module=M") and never said it ended ("... modprobe-end module=M");
#      when a kernel report on the console names some of them (a frame
#      "func+0x../0x.. [M]" or the work item "Workqueue: events func [M]":
#      the crash that stopped the others), only those;
#   2. if every modprobe returned, the driver whose kernel-log flood the
#      guest quoted ("hzrig-sweep: flood: [t] mceusb 16-1:1.0: ..."), when
#      it is one of MODULES (a file of module names, one a line: the
#      tree's modules, so that a subsystem's prefix is not taken for one);
#   3. else, when a flood held the CPU so that the guest never quoted it,
#      the batch's module (one whose modprobe began) that the console's
#      last 200 kernel lines name most, if they name it in 60 or more: a
#      line "[t] W..." names module M when W (up to ':' or ' ', '-' as
#      '_') is M or M ends in _W ("pctv452e: CI error" names
#      dvb_usb_pctv452e);
#   4. else, with STREAM (what the guest streamed: its batch-N.txt), when
#      every modprobe returned and the guest still hung: the driver that
#      bound last (a modprobe's record with a "bind" line after it),
#      whose code (a work item, a URB's handler) is what ran after its
#      probe. What the boot streamed of it is kept; its boot again without
#      it confirms it, or names the next.
# A serial console's lines end in CR LF. Nothing printed: no suspect.
# Exit 0, or 2 when a file cannot be read.
set -u
[ $# -eq 2 ] || [ $# -eq 3 ] || { echo "usage: suspects.sh CONSOLE MODULES [STREAM]" >&2; exit 2; }
for f in "$@"; do
	if [ ! -f "$f" ] || [ ! -r "$f" ]; then
		echo "suspects.sh: cannot read $f" >&2
		exit 2
	fi
done
con=$(tr -d '\r' < "$1")
sus=$(sed -n 's/.*hzrig-sweep: modprobe-begin module=\([^ ]*\).*/\1/p' <<< "$con" | sort -u |
	comm -23 - <(sed -n 's/.*hzrig-sweep: modprobe-end module=\([^ ]*\).*/\1/p' <<< "$con" | sort -u))
if [ -n "$sus" ]; then
	named=$(while read -r m; do
		grep -qE "(\+0x[0-9a-f]+/0x[0-9a-f]+|^\[ *[0-9.]*\] Workqueue: .*) \[$m\]\$" <<< "$con" && echo "$m"
	done <<< "$sus")
	[ -z "$named" ] || sus=$named
fi
if [ -z "$sus" ]; then
	sus=$(sed -n 's/^hzrig-sweep: flood: \[[^]]*\] \([A-Za-z0-9_-]*\) .*/\1/p' <<< "$con" |
		tr - _ | sort -u | grep -xF -f <(tr - _ < "$2" | sed '/^$/d') || true)
fi
if [ -z "$sus" ]; then
	began=$(sed -n 's/.*hzrig-sweep: modprobe-begin module=\([^ ]*\).*/\1/p' <<< "$con" | sort -u)
	sus=$(grep '^\[ *[0-9.]*\] ' <<< "$con" | tail -n 200 |
		sed 's/^\[ *[0-9.]*\] \([A-Za-z0-9_-]*\).*/\1/' | tr - _ | sort | uniq -c |
		sort -rn | awk -v began="$began" '
			BEGIN { n = split(began, m, "\n") }
			$1 >= 60 { for (i = 1; i <= n; i++)
					if (m[i] != "" && (m[i] == $2 || substr(m[i], length(m[i]) - length($2)) == "_" $2)) {
						print m[i]; exit
					} }')
fi
if [ -z "$sus" ] && [ $# -eq 3 ] && [ -z "$(sed -n 's/.*hzrig-sweep: modprobe-begin module=\([^ ]*\).*/\1/p' <<< "$con" | sort -u |
	comm -23 - <(sed -n 's/.*hzrig-sweep: modprobe-end module=\([^ ]*\).*/\1/p' <<< "$con" | sort -u))" ]; then
	sus=$(tr -d '\r' < "$3" | sed 's/^hzrig-sweep //' | awk '
		/^modprobe module=/ { m = $2; sub(/^module=/, "", m); next }
		/^bind intf=/ && m != "" && $0 !~ / driver=(hub|usb)$/ { last = m }
		{ if ($0 !~ /^bind /) m = "" }
		END { if (last != "") print last }')
fi
[ -z "$sus" ] || printf '%s\n' "$sus"
