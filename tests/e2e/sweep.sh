#!/bin/bash
# sweep.sh: a small driver sweep end to end (docs/sweep.md): the drivers
# of rig/sweep/check.drivers (ipheth among them) built on 6.1 at HZ=100
# and HZ=1000, each presented its device through raw-gadget, NAKed twice
# then stalled; then one more boot at HZ=100 that stalls everything at
# once. (orinoco_usb, the other driver `make drivers` measures, is in
# `make sweep SWEEP_SET=small`: its PCI and cfg80211 would double this
# test's build.) Asserts what a maintainer reads off the report:
#   - every batch ran to its end, usbmon lost nothing, every call found
#     its URB, and no kernel report came up;
#   - every driver the rule kept and Kconfig built has its outcome;
#   - ipheth: its probe NAKed at the site check-tree flags (file:line from
#     the module's line tables, through the stack), with the timeout it
#     passes at each HZ (the checker's values), and a wait inside the
#     model's window for it: equal to `make drivers`' measurement within
#     the model's granule;
#   - ipheth's interface comes up (the guest's opener), the walk answers
#     the rx URB its open() submits, and the carrier check that follows
#     makes the request at check-tree's other ipheth site, ipheth.c:248;
#   - the report names those two sites HZ-dependent and nothing else, and
#     puts them under "both" beside check-tree;
#   - stalled at once, ipheth's probe ends in -EPIPE within milliseconds;
#   - the unplug pass on the debugging kernel (sweep-check-debug-hz-250:
#     KASAN, lockdep) takes the walk: every device that got a NAKed request
#     is unplugged under each pass's, and plugged in again for the next;
#     the driver's calls end with an error, not a timeout; any kernel
#     report is put down to a driver whose module is in its stack, with the
#     request it came under (a real finding is printed, not failed on).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$TOP/build}
OUT=$B/tests/sweep-results
GOLDEN=$TOP/tests/checker/golden-6.1.json
. "$TOP/tests/e2e/lib.sh"

rm -rf "$OUT"
"$TOP/rig/sweep/sweep.sh" --out "$OUT" --db "$OUT/hzrig.db" sweep-check-hz-100 sweep-check-hz-1000
rc=$?
check "sweep ran (exit 0)" "[ $rc -eq 0 ]"
R=$OUT/report.json
S100=$OUT/sweep-check-hz-100/sweep.json
S1000=$OUT/sweep-check-hz-1000/sweep.json

for s in "$S100" "$S1000"; do
	v=$(jq -r .variant "$s" 2>/dev/null)
	# the walk plugs devices in again: a call made while its device is
	# away fails before the bus (calls_refused); every other has its URB
	check "$v: every batch ended, usbmon lost nothing, every call that reached the bus has its URB" \
		"jq -e '(.batches | length > 0 and all(.complete and .usbmon_dropped == 0 and .calls_without_urb == 0)) and ([.drivers[].calls[] | select(.action == \"nak\" and .urb_ns == null)] | length == 0)' '$s' > /dev/null"
	check "$v: no kernel report" "jq -e 'all(.batches[]; .kernel_reports == [])' '$s' > /dev/null"
	built=$(comm -23 <(jq -r '.kept[].module' "$OUT/$v/select.json" | sort) \
		<(sed -n 's/^CONFIG_\(.*\)=m$/\1/p' "$OUT/$v/dropped.config" | while read -r sym; do
			jq -r --arg s "$sym" '.kept[] | select(.symbol == $s) | .module' "$OUT/$v/select.json"; done | sort))
	check "$v: each driver Kconfig built has an outcome ($(echo $built | wc -w))" \
		"[ \"\$(jq -r '.drivers[].module' '$s' | sort | tr '\n' ' ')\" = \"$(echo "$built" | sort | tr '\n' ' ')\" ] && jq -e 'all(.drivers[]; .outcome | IN(\"bound\", \"probe failed\", \"not bound\", \"firmware missing\", \"not enumerated\", \"contained\"))' '$s' > /dev/null"
	hz=$(jq -r .hz "$s")
	# :289 in probe; :248 in the carrier check after open, once the
	# walk answered the rx URB open submits (a frame: the pairing)
	for site in drivers/net/usb/ipheth.c:289 drivers/net/usb/ipheth.c:248; do
		want=$(jq -r --arg s "$site" --arg hz "$hz" '[.sites[] | select(.site == $s)][0].timeout_arg[$hz]' "$GOLDEN")
		check "$v: $site NAKed with timeout $want (the checker's at HZ=$hz), ETIMEDOUT, inside the window" \
			"jq -e --arg s '$site' '[.drivers[].calls[] | select(.site == \$s and .action == \"nak\")] | length >= 1 and all(.timeout_arg == $want and .ret == -110 and .verdict == \"inside\")' '$s' > /dev/null"
	done
	# the walk: its first probe fails at the NAKed request (ret -110
	# above); the second, its MAC address answered with zeros, binds
	check "$v: ipheth walked: bound once its request was answered" \
		"jq -e '.drivers[] | select(.module == \"ipheth\") | .outcome == \"bound\" and .walk_passes >= 1' '$s' > /dev/null"
	check "$v: ipheth's interface came up (the opener's net entry, rc 0), its rx URB answered once" \
		"jq -e '.drivers[] | select(.module == \"ipheth\") | .opened | any(test(\"^net:.* rc=0\"))' '$s' > /dev/null && i=\$(sed -n 's/^file index=\\([0-9]*\\) name=ipheth\\.device.*/\\1/p' '$OUT/$v/batch-0.txt') && grep -aq \"^rawdev=\$i t_us=[0-9]* ep=0x81 xfer=bulk action=answer\" '$OUT/$v/batch-0.txt'"
done

check "report: ipheth.c:248 and :289 are HZ-dependent, and no other site" \
	"jq -e '[.sites[] | select(.hz_dependent) | .site] | sort == [\"drivers/net/usb/ipheth.c:248\", \"drivers/net/usb/ipheth.c:289\"]' '$R' > /dev/null"
check "report: both found by the sweep and by check-tree" \
	"jq -e '[.cross_check.both[].site] | index(\"drivers/net/usb/ipheth.c:289\") != null and index(\"drivers/net/usb/ipheth.c:248\") != null' '$R' > /dev/null"
check "report: the table names the site with file:line" \
	"grep -q 'HZ-DEPENDENT ipheth drivers/net/usb/ipheth.c:289' '$OUT/report.txt'"
check "history: both variants' drivers and calls recorded" \
	"[ \"\$(sqlite3 '$OUT/hzrig.db' 'SELECT count(*) FROM sweep_runs')\" = 2 ] && [ \"\$(sqlite3 '$OUT/hzrig.db' \"SELECT count(*) FROM sweep_calls WHERE site = 'drivers/net/usb/ipheth.c:289' AND action = 'nak'\")\" -ge 2 ]"
check "dashboard: a Drivers section with ipheth's site in red" \
	"grep -q 'id=\"drivers-table\"' '$OUT/dashboard/index.html' && grep -q '<li class=\"bad\">ipheth <code>drivers/net/usb/ipheth.c:289' '$OUT/dashboard/index.html'"
check "report: every checker site of the swept files is placed in a list with its reason" \
	"jq -e '(.cross_check.checker_only | all(.why | length > 0))' '$R' > /dev/null"

# The stall pass: the same devices refuse every class or vendor request.
"$TOP/rig/sweep/sweep.sh" --nak 0 --out "$OUT/stall" --db "$OUT/stall/hzrig.db" \
	sweep-check-hz-100 > "$OUT/stall.log" 2>&1
SS=$OUT/stall/sweep-check-hz-100/sweep.json
check "stall pass: ipheth's request stalled, probe failed with -EPIPE" \
	"jq -e '.drivers[] | select(.module == \"ipheth\") | .outcome == \"probe failed\" and .errno == -32 and .stall >= 1 and .nak == 0' '$SS' > /dev/null"
check "stall pass: no call NAKed, nothing HZ-dependent" \
	"jq -e '[.drivers[].calls[] | select(.action == \"nak\" and (.ep % 128) == 0)] | length == 0' '$SS' > /dev/null"

# The unplug pass: each device unplugged 100 ms into each pass's NAKed
# request, on the debugging kernel (the walk's default passes).
"$TOP/rig/sweep/sweep.sh" --unplug-ms 100 --out "$OUT/unplug" --db "$OUT/unplug/hzrig.db" \
	sweep-check-debug-hz-250 > "$OUT/unplug.log" 2>&1
U=$OUT/unplug/sweep-check-debug-hz-250/sweep.json
check "unplug pass: collected, every batch ran to its end, its delay recorded" \
	"jq -e '.batches | length > 0 and all(.complete and .unplug_ms == 100)' '$U' > /dev/null"
check "unplug pass: the kernel is the debugging one (KASAN built in, lockdep on the console)" \
	"grep -qx 'CONFIG_KASAN=y' '$B/sweep-check-debug-hz-250/kernel/.config' && grep -q 'Lock dependency validator' '$OUT/unplug/sweep-check-debug-hz-250/console-0.log'"
check "unplug pass: every device was enumerated before it was unplugged" \
	"jq -e 'all(.drivers[]; .outcome != \"not enumerated\")' '$U' > /dev/null"
check "unplug pass: ipheth unplugged under its NAKed requests, each ended in an error, not a timeout" \
	"jq -e '.drivers[] | select(.module == \"ipheth\") | .unplugged and .nak >= 1 and ([.calls[] | select(.action == \"nak\")] | length >= 1 and all(.ret < 0 and .ret != -110 and (has(\"verdict\") | not)))' '$U' > /dev/null"
check "unplug pass: every driver with a NAKed request was unplugged" \
	"jq -e 'all(.drivers[] | select(.nak > 0); .unplugged)' '$U' > /dev/null"
# the walk: a device unplugged is plugged in again for the next pass
UC=$OUT/unplug/sweep-check-debug-hz-250/batch-0.txt
check "unplug pass: it walked, each device plugged in again after its unplug, and the walk ended" \
	"jq -e '.batches[0] | .complete' '$U' > /dev/null && grep -q 'walk=replug pass=2' '$UC' && [ \"\$(grep -c 'walk=done' '$UC')\" = \"\$(jq '.drivers | length' '$U')\" ] && jq -e '[.drivers[] | select(.walk_passes != null and .walk_passes >= 2)] | length >= 1' '$U' > /dev/null"
check "unplug pass: more requests unplugged under than devices (the walk's later passes' too)" \
	"[ \"\$(grep -c 'action=unplug' '$UC')\" -gt \"\$(jq '[.drivers[] | select(.unplugged)] | length' '$U')\" ]"
check "unplug pass: a driver with reports has the outcome 'kernel report', and only then; each report has its request" \
	"jq -e 'all(.drivers[]; (.reports | length > 0) == (.outcome == \"kernel report\")) and all(.drivers[] | select(.reports | length > 0); (.report_requests | length) == (.reports | length) and all(.report_requests[]; . != null))' '$U' > /dev/null"
jq -r '.drivers[] | select(.reports | length > 0) | "# unplug pass finding: \(.module): \([.reports, .report_requests] | transpose | map("\(.[0]) (request \(.[1]))") | join("; "))"' "$U" 2> /dev/null
jq -r '.batches[].kernel_reports[] | "# unplug pass, a kernel report: \(.)"' "$U" 2> /dev/null

e2e_done sweep
