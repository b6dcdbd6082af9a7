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
# The rwsem scenarios (rwsem-urb, rwsem-hrtimer; rwsem-irqs-off, the
# negative control the demo expects reported) run once, RWSEM_CYCLES cycles
# inside the driver (HZRIG_IOC_RWSEM_TEST); ioctl-fuzz runs once, that
# many ioctl calls (hzrig-ioctl-fuzz).
#
# usage: robustness.sh SCENARIOS CYCLES HEARTBEAT_MS STOP_ON_REPORT RWSEM_CYCLES
#                      GADGET_ARGS...
#   SCENARIOS: comma-separated, of disconnect, gadget-kill, unbind, rmmod,
#   reset, authorized, usbfs-disconnect, rwsem-urb, rwsem-hrtimer,
#   rwsem-irqs-off, ioctl-fuzz
#   STOP_ON_REPORT=1: end a scenario at the first kernel report (the demos:
#   after a use-after-free the kernel's state is not to be trusted)

SCENARIOS=$1 CYCLES=$2 HB=$3 STOP=$4 RWSEM_CYCLES=$5
shift 5
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
	hzrig-gadget $GADGET_ARGS -r /tmp/gadget-ready >> /tmp/gadget.log 2>&1 &
	GADGET=$!
	wait_for "[ -e /tmp/gadget-ready ]" 100
}

# The interface the driver is bound to (1-1:1.0), empty when none.
bound_intf() {
	for d in "$DRV"/*:*; do
		[ -e "$d" ] && { basename "$d"; return; }
	done
}

# Where the gadget's threads are, for a scenario that failed: state,
# kernel function waited in and the system call (number, then arguments).
gadget_state() {
	for t in /proc/"$GADGET"/task/*; do
		[ -e "$t/stat" ] || continue
		echo "# gadget thread ${t##*/}: $(cut -d' ' -f3 "$t/stat") in $(cat "$t/wchan" 2>/dev/null), syscall $(cat "$t/syscall" 2>/dev/null)"
	done
}

# drain_kmsg: read and clear the kernel's log buffer (the console keeps
# everything; the buffer wraps, so sums over it shrank): add the heartbeat
# summaries the driver prints at disconnect to HB_A/HB_F, set KREPORT when
# the kernel reported a bug.
drain_kmsg() {
	dmesg -c > /tmp/kmsg.new
	# shellcheck disable=SC2046
	set -- $(sed -n 's/.*heartbeat: \([0-9]*\) answered, \([0-9]*\) failed.*/\1 \2/p' /tmp/kmsg.new |
		awk '{a += $1; f += $2} END {print a + 0, f + 0}')
	HB_A=$((HB_A + $1)) HB_F=$((HB_F + $2))
	if grep -qE 'BUG: |WARNING: |ODEBUG: |INFO: task .* blocked' /tmp/kmsg.new; then
		KREPORT=1
	fi
}

# Centiseconds since boot, for "finished within a second".
now_cs() { tr -d . < /proc/uptime | cut -d' ' -f1; }

# The device's usbfs node and sysfs directory.
dev_sys() { echo "/sys/bus/usb/devices/$(bound_intf | cut -d: -f1)"; }
usbfs_node() {
	d=$(dev_sys)
	printf '/dev/bus/usb/%03d/%03d' "$(cat "$d/busnum")" "$(cat "$d/devnum")"
}

# teardown_within NAME T0 [LIMIT_CS]: the teardown that started at T0
# took less than LIMIT_CS centiseconds (default 100: a second).
teardown_within() {
	took=$(( $(now_cs) - $2 ))
	[ $took -lt "${3:-100}" ] && return 0
	echo "# $1: took $((took * 10)) ms with a call in flight (limit $((${3:-100} * 10)))"
	return 1
}

# One cycle of scenario $1 ($2: the cycle number); 0 when userspace saw
# what it should.
cycle() {
	s=$1
	wait_for "[ -c /dev/hzrig0 ]" 100 || { echo "# $s: /dev/hzrig0 did not come back"; return 1; }
	# The call in flight: a NAKed bulk IN (usbcore kills it before our
	# disconnect runs) or, every other cycle, a NAKed control IN that
	# nothing kills on unbind; for a reset, a killable call that would
	# wait forever. Teardown must not wait for any of them.
	case $s in
	reset)
		if [ $(($2 % 2)) -eq 1 ]; then
			args="--transfer bulk-in-killable --timeout 0"
		else
			args="--transfer ctrl-in --timeout 1500"
		fi ;;
	unbind|authorized|usbfs-disconnect|gadget-kill)
		if [ $(($2 % 2)) -eq 1 ]; then
			args="--transfer bulk-in --timeout 1500"
		else
			args="--transfer ctrl-in --timeout 1500"
		fi ;;
	rmmod)	args="--transfer bulk-in --timeout 1500" ;;
	*)	args="--transfer bulk-in --timeout 200" ;;
	esac
	# shellcheck disable=SC2086
	hzrig-hold --once $args > /tmp/hold.out 2>&1 &
	hold=$!
	# the call is armed and waiting, a heartbeat due or running
	usleep 30000
	tc0=$(now_cs)
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
	gadget-kill)
		# The device dies mid-transfer: SIGKILL, no cleanup in the
		# gadget; its files close as the process goes, gadgetfs
		# unbinds from dummy_udc, the hub sees the port go. The call
		# waiting on the NAK must fail with an error at once (usbcore
		# kills every URB of a device it disconnects), not time out.
		kill -KILL "$GADGET"
		wait "$GADGET" 2>/dev/null
		wait_for "! kill -0 $hold 2>/dev/null" 10 || { echo "# gadget-kill: the call in flight still waits 1 s after the gadget died"; bad_time=1; }
		start_gadget || { echo "# gadget-kill: gadget did not come back"; return 1; }
		case "$(cat /tmp/hold.out)" in
		*"last 0 "*|*"last -110 "*)
			echo "# gadget-kill: the call did not fail with the device gone: $(cat /tmp/hold.out)"
			bad_time=1 ;;
		esac
		;;
	unbind)
		intf=$(bound_intf)
		[ -n "$intf" ] || { echo "# unbind: driver bound to nothing"; return 1; }
		echo "$intf" > "$DRV/unbind" || return 1
		teardown_within "unbind" "$tc0" || bad_time=1
		echo "$intf" > "$DRV/bind" || return 1
		;;
	authorized)
		# Our disconnect must be done within a second: the char device
		# goes then. The write itself returns when usbcore's own
		# SET_CONFIGURATION gets through ep0, which a NAKed control
		# call in flight holds to its timeout: nothing a driver can
		# abort (docs/robustness.md).
		d=$(dev_sys)
		echo 0 > "$d/authorized" &
		deauth=$!
		wait_for "[ ! -c /dev/hzrig0 ]" 10 || { echo "# authorized=0: /dev/hzrig0 still there after 1 s"; bad_time=1; }
		teardown_within "authorized=0 (our disconnect)" "$tc0" || bad_time=1
		wait "$deauth" || return 1
		echo 1 > "$d/authorized" || return 1
		;;
	usbfs-disconnect)
		out=$(hzrig-hold --usbfs-disconnect "$(usbfs_node)" --ifno 0) || { echo "# $out"; return 1; }
		teardown_within "USBDEVFS_DISCONNECT" "$tc0" || bad_time=1
		;;
	reset)
		out=$(hzrig-hold --reset "$(usbfs_node)") || { echo "# $out"; return 1; }
		# A reset enumerates the device again (address, descriptors,
		# configuration: the gadget answers each from userspace), which
		# under KASAN and TCG took up to 1.05 s by itself. 1.4 s still
		# catches a reset that waits for the 1.5 s control call.
		teardown_within "USBDEVFS_RESET" "$tc0" 140 || bad_time=1
		;;
	rmmod)
		# The open char device pins the module: rmmod while the call
		# waits must fail (EBUSY) and leave the call and the device
		# alone. Then kill the caller mid-call and unload as soon as
		# the module lets go.
		if rmmod hzrig_host 2>/dev/null; then
			echo "# rmmod: unloaded while a call waited on /dev/hzrig0"
			return 1
		fi
		if [ ! -c /dev/hzrig0 ] || ! kill -0 "$hold" 2>/dev/null; then
			echo "# rmmod: a refused rmmod ended the call or the device"
			return 1
		fi
		kill -KILL "$hold"
		wait_for "rmmod hzrig_host 2>/dev/null" 50 || { echo "# rmmod: module still busy after 5 s"; return 1; }
		# shellcheck disable=SC2086
		insmod /lib/modules/hzrig_host.ko heartbeat_ms="$HB" $MODULE_ARGS || return 1
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
	[ "$bad_time" = 0 ]
}

start_gadget || { echo "Bail out! gadget did not start"; exit 1; }
wait_for "[ -c /dev/hzrig0 ]" 100 || { echo "Bail out! no /dev/hzrig0"; exit 1; }

set -- $(echo "$SCENARIOS" | tr , ' ')
echo "KTAP version 1"
echo "1..$#"
idx=0 failed=0
for s in "$@"; do
	idx=$((idx + 1))
	case $s in
	disconnect|gadget-kill|unbind|rmmod|reset|authorized|usbfs-disconnect) ;;
	rwsem-urb|rwsem-hrtimer|rwsem-irqs-off|ioctl-fuzz)
		echo "# scenario $s 1/1"
		t0=$(cut -d' ' -f1 /proc/uptime)
		if [ "$s" = ioctl-fuzz ]; then
			out=$(hzrig-ioctl-fuzz --calls "$RWSEM_CYCLES" $FUZZ_TRACE)
		else
			out=$(hzrig-hold --rwsem "${s#rwsem-}" --cycles "$RWSEM_CYCLES")
		fi
		rc=$?
		t1=$(cut -d' ' -f1 /proc/uptime)
		if [ $rc -ne 0 ]; then
			tail -40 /tmp/gadget.log | sed 's/^/# gadget: /'
			gadget_state
		fi
		out=${out#hzrig-hold: rwsem }
		msg="$s # ${out#hzrig-ioctl-fuzz: }, $(awk "BEGIN {printf \"%.1f\", $t1 - $t0}") s"
		if [ $rc -eq 0 ]; then echo "ok $idx $msg"; else echo "not ok $idx $msg"; failed=$((failed + 1)); fi
		continue ;;
	*)
		echo "not ok $idx $s # unknown scenario"; failed=$((failed + 1)); continue ;;
	esac
	i=0 bad=0 t0=$(cut -d' ' -f1 /proc/uptime)
	drain_kmsg
	HB_A=0 HB_F=0 KREPORT=0
	while [ $i -lt "$CYCLES" ]; do
		i=$((i + 1))
		echo "# scenario $s $i/$CYCLES, heartbeat every $HB ms"
		[ $((i % 10)) -eq 0 ] && echo "hzrig: $s $i/$CYCLES cycles"
		bad_time=0
		cycle "$s" "$i" || bad=$((bad + 1))
		drain_kmsg
		if [ "$STOP" = 1 ] && [ "$KREPORT" = 1 ]; then
			echo "# $s: the kernel reported a bug: stopping after cycle $i"
			break
		fi
	done
	t1=$(cut -d' ' -f1 /proc/uptime)
	msg="$s # cycles $i, $bad with errors, heartbeats reported at unbind $HB_A answered, $HB_F failed, $(awk "BEGIN {printf \"%.1f\", $t1 - $t0}") s"
	if [ $bad -eq 0 ]; then echo "ok $idx $msg"; else echo "not ok $idx $msg"; failed=$((failed + 1)); fi
done
kill "$GADGET" 2>/dev/null
[ $failed -eq 0 ]
