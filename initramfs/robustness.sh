#!/bin/busybox sh
# robustness.sh: the guest side of `make robustness` (docs/robustness.md).
# Tears the hzrig device down under the driver, CYCLES times per scenario,
# each time while the driver's heartbeat runs and a NAKed call is in flight
# (hzrig-hold), then checks that the device comes back and that the call
# ended with a clean error. KTAP on the console, one result per scenario,
# "# scenario NAME i/N" before each cycle so the host's report scanner can
# tell which cycle a kernel report came from. The kernel's reports are the
# host's to judge (rig/collect/scan.c); this script judges what userspace
# sees.
#
# usage: robustness.sh SCENARIOS CYCLES HEARTBEAT_MS STOP_ON_REPORT GADGET_ARGS...
#   SCENARIOS: comma-separated, of disconnect, unbind, rmmod
#   STOP_ON_REPORT=1: end a scenario at the first kernel report (the demos:
#   after a use-after-free the kernel's state is not to be trusted)

SCENARIOS=$1 CYCLES=$2 HB=$3 STOP=$4
shift 4
GADGET_ARGS="$*"
DRV=/sys/bus/usb/drivers/hzrig_host
GADGET=""

# wait_for TEST TENTHS: poll the shell test until true, at most TENTHS x 0.1 s.
wait_for() {
	n=0
	while ! eval "$1"; do
		n=$((n + 1))
		[ $n -ge "$2" ] && return 1
		usleep 100000
	done
	return 0
}

start_gadget() {
	rm -f /tmp/gadget-ready
	# shellcheck disable=SC2086
	hzrig-gadget $GADGET_ARGS -r /tmp/gadget-ready > /dev/null 2>&1 &
	GADGET=$!
	wait_for "[ -e /tmp/gadget-ready ]" 100
}

# The interface the driver is bound to (1-1:1.0), empty when none.
bound_intf() {
	for d in "$DRV"/*:*; do
		[ -e "$d" ] && { basename "$d"; return; }
	done
}

reported() {
	dmesg | grep -qE 'BUG: |WARNING: |ODEBUG: |INFO: task .* blocked'
}

# One cycle of scenario $1; 0 when userspace saw what it should.
cycle() {
	s=$1
	wait_for "[ -c /dev/hzrig0 ]" 100 || { echo "# $s: /dev/hzrig0 did not come back"; return 1; }
	hzrig-hold --timeout 200 > /tmp/hold.out 2>&1 &
	hold=$!
	# the call is armed and waiting, a heartbeat due or running
	usleep 30000
	case $s in
	disconnect)
		# The device goes away and comes back: the gadget process ends
		# (gadgetfs unbinds it from dummy_udc) and starts again. On 6.1
		# its exit during a control transfer can trip a gadgetfs
		# use-after-free (docs/robustness.md): the scanner reports it.
		kill "$GADGET"
		wait "$GADGET" 2>/dev/null
		start_gadget || { echo "# disconnect: gadget did not come back"; return 1; }
		;;
	unbind)
		intf=$(bound_intf)
		[ -n "$intf" ] || { echo "# unbind: driver bound to nothing"; return 1; }
		echo "$intf" > "$DRV/unbind" || return 1
		echo "$intf" > "$DRV/bind" || return 1
		;;
	rmmod)
		# The open char device pins the module: rmmod can only follow
		# the last close. Kill the caller mid-call and unload as soon
		# as the module lets go.
		kill -KILL "$hold"
		wait_for "rmmod hzrig_host 2>/dev/null" 50 || { echo "# rmmod: module still busy after 5 s"; return 1; }
		insmod /lib/modules/hzrig_host.ko heartbeat_ms="$HB" || return 1
		;;
	esac
	# the call in flight must end, and cleanly
	wait_for "! kill -0 $hold 2>/dev/null" 50 || { echo "# $s: the call in flight did not end in 5 s"; kill -KILL "$hold"; return 1; }
	wait "$hold" 2>/dev/null
	rc=$?
	if [ "$s" != rmmod ] && [ $rc -ne 0 ]; then
		echo "# $s: $(cat /tmp/hold.out)"
		return 1
	fi
	return 0
}

start_gadget || { echo "Bail out! gadget did not start"; exit 1; }
wait_for "[ -c /dev/hzrig0 ]" 100 || { echo "Bail out! no /dev/hzrig0"; exit 1; }

set -- $(echo "$SCENARIOS" | tr , ' ')
echo "KTAP version 1"
echo "1..$#"
idx=0 failed=0
for s in "$@"; do
	idx=$((idx + 1))
	case $s in disconnect|unbind|rmmod) ;; *)
		echo "not ok $idx $s # unknown scenario"; failed=$((failed + 1)); continue ;;
	esac
	i=0 bad=0 t0=$(cut -d' ' -f1 /proc/uptime)
	while [ $i -lt "$CYCLES" ]; do
		i=$((i + 1))
		echo "# scenario $s $i/$CYCLES, heartbeat every $HB ms"
		[ $((i % 10)) -eq 0 ] && echo "hzrig: $s $i/$CYCLES cycles"
		cycle "$s" || bad=$((bad + 1))
		if [ "$STOP" = 1 ] && reported; then
			echo "# $s: the kernel reported a bug: stopping after cycle $i"
			break
		fi
	done
	hb=$(dmesg | sed -n 's/.*heartbeat: \([0-9]*\) answered, \([0-9]*\) failed.*/\1 \2/p' |
		awk '{a += $1; f += $2} END {printf "%d answered, %d failed", a, f}')
	t1=$(cut -d' ' -f1 /proc/uptime)
	msg="$s # cycles $i, $bad with errors, heartbeats so far $hb, $(awk "BEGIN {printf \"%.1f\", $t1 - $t0}") s"
	if [ $bad -eq 0 ]; then echo "ok $idx $msg"; else echo "not ok $idx $msg"; failed=$((failed + 1)); fi
done
kill "$GADGET" 2>/dev/null
[ $failed -eq 0 ]
