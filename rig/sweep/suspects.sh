#!/bin/bash
# suspects.sh [--why FILE] CONSOLE MODULES [STREAM]: the drivers a sweep batch's guest that hung
# or crashed is put down to (docs/sweep.md, "A driver that hangs or
# crashes the guest"), one module name a line, from its console:
#   1. when the console holds a fatal kernel report (an oops: "BUG:",
#      "Oops:", "general protection fault", "kernel BUG at", "Unable to
#      handle"), the batch's module (one whose modprobe the guest said it
#      began, "hzrig-sweep: modprobe-begin module=M") that the first such
#      report names first: its faulting frame ("RIP: ...func+0x../0x..
#      [M]"), then its call trace's frames, innermost first, then its work
#      item ("Workqueue: events func [M]"). Whether M's modprobe returned
#      does not matter: ums_sddr09's transport thread crashed long after
#      its probe, while four other modprobes waited, and those four were
#      blamed (and their batch booted three times) where its report named
#      it. A library's frames (usbserial, gspca_main) are passed over for
#      the driver's beneath them;
#   2. else, when that report's task is the guest's opener (Comm: head,
#      stty, sh, hzrig-netup: gspca_main's alt_xfer crashed in a read of
#      a video node, a library's frames only), the drivers whose open the
#      guest said it began and never said it ended ("hzrig-sweep:
#      open-begin module=M bus=B entry=E", "... open-end ... rc=R");
#   3. else, the modprobes the guest said it began and never said it
#      ended ("... modprobe-end module=M");
#   4. if every modprobe returned, the driver whose kernel-log flood the
#      guest quoted ("hzrig-sweep: flood: [t] mceusb 16-1:1.0: ..."), when
#      it is one of MODULES (a file of module names, one a line: the
#      tree's modules, so that a subsystem's prefix is not taken for one);
#   5. else, when a flood held the CPU so that the guest never quoted it,
#      the batch's module (one whose modprobe began) that the console's
#      last 200 kernel lines name most, if they name it in 60 or more: a
#      line "[t] W..." names module M when W (up to ':' or ' ', '-' as
#      '_') is M or M ends in _W ("pctv452e: CI error" names
#      dvb_usb_pctv452e);
#   6. else, with STREAM (what the guest streamed: its batch-N.txt), when
#      every modprobe returned and the guest still hung: the driver that
#      bound last (a modprobe's record with a "bind" line after it, or the
#      guest's "bound module=M" when a walk's pass or a shape bound it:
#      its modprobe's own probe may have failed), whose code (a work
#      item, a URB's handler) is what ran after its probe. What the boot
#      streamed of it is kept; its boot again without it confirms it, or
#      names the next.
# With --why FILE, FILE gets "oops" when rule 1 named them (the module
# whose code faulted: certain), else "guess".
# A serial console's lines end in CR LF. Nothing printed: no suspect.
# Exit 0, or 2 when a file cannot be read.
set -u
WHY=
if [ "${1:-}" = --why ]; then
	WHY=${2:-}
	shift 2 || { echo "usage: suspects.sh [--why FILE] CONSOLE MODULES [STREAM]" >&2; exit 2; }
fi
[ $# -eq 2 ] || [ $# -eq 3 ] || { echo "usage: suspects.sh [--why FILE] CONSOLE MODULES [STREAM]" >&2; exit 2; }
for f in "$@"; do
	if [ ! -f "$f" ] || [ ! -r "$f" ]; then
		echo "suspects.sh: cannot read $f" >&2
		exit 2
	fi
done
con=$(tr -d '\r' < "$1")
began=$(sed -n 's/.*hzrig-sweep: modprobe-begin module=\([^ ]*\).*/\1/p' <<< "$con" | sort -u)
# the first fatal report's modules, faulting frame, call trace, work item
sus=$(awk -v began="$began" '
	BEGIN { n = split(began, b, "\n"); for (i = 1; i <= n; i++) ours[b[i]] = 1 }
	function mod(line) {
		return match(line, / \[[A-Za-z0-9_]+\]$/) ? substr(line, RSTART + 2, RLENGTH - 3) : ""
	}
	!inrep && /(BUG: |Oops: |general protection fault|kernel BUG at|[Uu]nable to handle)/ { inrep = 1 }
	!inrep { next }
	/Kernel panic|---\[ end trace/ { exit }
	/ RIP: [0-9a-f]+:/ { m = mod($0); if (m != "" && rip == "") rip = m; next }
	/\] Workqueue: / { m = mod($0); if (m != "" && wq == "") wq = m; next }
	/\+0x[0-9a-f]+\/0x[0-9a-f]+ \[[A-Za-z0-9_]+\]$/ { m = mod($0); if (m in ours && fr == "") fr = m }
	/ Comm: (head|stty|sh|timeout|hzrig-netup) / { opener = 1 }
	END {
		if (rip in ours) print rip
		else if (fr != "") print fr
		else if (wq in ours) print wq
		else if (opener) print "-opener"
	}' <<< "$con")
# rule 1 named the module whose code faulted: "oops" (--why); the later
# rules are a guess from what the guest did
why=guess
[ -z "$sus" ] || [ "$sus" = -opener ] || why=oops
if [ "$sus" = -opener ]; then
	# the opens left waiting ("M bus=B entry=E" begun, never ended)
	sus=$(comm -23 <(sed -n 's/.*hzrig-sweep: open-begin module=\([^ ]* bus=[0-9]* entry=[^ ]*\).*/\1/p' <<< "$con" | sort -u) \
		<(sed -n 's/.*hzrig-sweep: open-end module=\([^ ]* bus=[0-9]* entry=[^ ]*\) rc=.*/\1/p' <<< "$con" | sort -u) |
		cut -d' ' -f1 | sort -u)
fi
# the modprobes left waiting
left=$(comm -23 <(printf '%s\n' "$began" | sed '/^$/d') \
	<(sed -n 's/.*hzrig-sweep: modprobe-end module=\([^ ]*\).*/\1/p' <<< "$con" | sort -u))
[ -n "$sus" ] || sus=$left
if [ -z "$sus" ]; then
	sus=$(sed -n 's/^hzrig-sweep: flood: \[[^]]*\] \([A-Za-z0-9_-]*\) .*/\1/p' <<< "$con" |
		tr - _ | sort -u | grep -xF -f <(tr - _ < "$2" | sed '/^$/d') || true)
fi
if [ -z "$sus" ]; then
	sus=$(grep '^\[ *[0-9.]*\] ' <<< "$con" | tail -n 200 |
		sed 's/^\[ *[0-9.]*\] \([A-Za-z0-9_-]*\).*/\1/' | tr - _ | sort | uniq -c |
		sort -rn | awk -v began="$began" '
			BEGIN { n = split(began, m, "\n") }
			$1 >= 60 { for (i = 1; i <= n; i++)
					if (m[i] != "" && (m[i] == $2 || substr(m[i], length(m[i]) - length($2)) == "_" $2)) {
						print m[i]; exit
					} }')
fi
if [ -z "$sus" ] && [ $# -eq 3 ] && [ -z "$left" ]; then
	sus=$(tr -d '\r' < "$3" | sed 's/^hzrig-sweep //' | awk '
		/^modprobe module=/ { m = $2; sub(/^module=/, "", m); next }
		/^bind intf=/ && m != "" && $0 !~ / driver=(hub|usb)$/ { last = m }
		/^bound module=[A-Za-z0-9_]+ / { b = $2; sub(/^module=/, "", b); last = b }
		{ if ($0 !~ /^bind /) m = "" }
		END { if (last != "") print last }')
fi
[ -z "$WHY" ] || echo "$why" > "$WHY"
[ -z "$sus" ] || printf '%s\n' "$sus"
