#!/bin/busybox sh
# hzrig-sweep K BATCH SIZE MAX_S OUT [UNPLUG_MS]: one batch of the driver sweep in the
# guest (hzrig.mode=sweep; docs/sweep.md). The devices are the files of
# /etc/hzrig/sweep/, in name order; batch BATCH is SIZE of them, each on
# its own dummy_hcd instance (the command line's dummy_hcd.num). Then:
#   1. kprobe events on the synchronous calls (the timeout each driver
#      passes, its return address) and on usb_submit_urb (which URB each
#      call made), and timer:timer_start of schedule_timeout()'s timers
#      (the jiffies each wait was armed against), on the monotonic clock;
#      usbmon's URB events of every bus (hzrig-usbmon-dump);
#   2. hzrig-rawdev presents the batch: it answers enumeration, NAKs the
#      first K class or vendor requests of each device and STALLs the rest;
#      with UNPLUG_MS (the unplug pass, on a debug kernel), each device is
#      unplugged that long into its first NAKed request;
#   3. once the devices are enumerated, every device's module is loaded at
#      once (modprobe in parallel: each probe runs in its modprobe);
#   4. the batch ends when every modprobe has returned and nothing moved on
#      any bus for QUIET_S seconds, or after MAX_S seconds;
#   5. the devices are unplugged (hzrig-rawdev stops), and everything goes
#      to OUT as lines: "sweep ..." framing, the device list (taken once
#      enumerated, and again at the end), the bindings, rawdev's and usbmon's lines and the trace (each call
#      with its stack). The host reads them (hzrig sweep collect).
set -u
K=$1 BATCH=$2 SIZE=$3 MAX_S=$4 OUT=$5 UNPLUG_MS=${6:-0} SKIP=${7:-}
QUIET_S=3
T=/sys/kernel/debug/tracing
DIR=/etc/hzrig/sweep

log() { echo "hzrig-sweep: $*"; }

mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
[ -d $T ] || mount -t tracefs tracefs $T 2>/dev/null
[ -w $T/kprobe_events ] || { log "no kprobe events (CONFIG_KPROBE_EVENTS)"; exit 20; }
echo mono > $T/trace_clock || { log "no mono trace clock"; exit 20; }
echo 4096 > $T/buffer_size_kb
# r64: a kretprobe keeps 64 calls in flight (the default, 10 on one CPU,
# runs out when a batch's 32 probes wait at once, and their returns are
# missed).
# x86_64 at a function's entry: %di %si %dx %cx %r8 %r9 the first six
# arguments, $stack0 the return address, $stackN (N >= 1) argument 6 + N.
# usb_control_msg(dev, pipe, request, requesttype, value, index, data,
# size, timeout): timeout is the ninth; usb_control_msg_send/_recv too.
# usb_bulk_msg and usb_interrupt_msg(dev, pipe, data, len, actual,
# timeout): the sixth.
for ev in \
	'p:hzrig/ctl usb_control_msg pipe=%si:u32 req=%dx:u8 type=%cx:u8 timeout=$stack3:s32 ip=$stack0:symbol' \
	'r64:hzrig/ctl_ret usb_control_msg ret=$retval:s32' \
	'p:hzrig/ctl_send usb_control_msg_send timeout=$stack3:s32 ip=$stack0:symbol' \
	'r64:hzrig/ctl_send_ret usb_control_msg_send ret=$retval:s32' \
	'p:hzrig/ctl_recv usb_control_msg_recv timeout=$stack3:s32 ip=$stack0:symbol' \
	'r64:hzrig/ctl_recv_ret usb_control_msg_recv ret=$retval:s32' \
	'p:hzrig/bulk usb_bulk_msg pipe=%si:u32 timeout=%r9:s32 ip=$stack0:symbol' \
	'r64:hzrig/bulk_ret usb_bulk_msg ret=$retval:s32' \
	'p:hzrig/intr usb_interrupt_msg pipe=%si:u32 timeout=%r9:s32 ip=$stack0:symbol' \
	'r64:hzrig/intr_ret usb_interrupt_msg ret=$retval:s32' \
	'p:hzrig/submit usb_submit_urb urb=%di:x64 ip=$stack0:symbol'; do
	echo "$ev" >> $T/kprobe_events || log "kprobe not set: $ev"
done
# Each call's stack too, so that a call made through a wrapper (the
# driver's own, or the USB core's) is still put down to the driver.
echo sym-offset > $T/trace_options
for e in ctl ctl_send ctl_recv bulk intr; do
	[ -d $T/events/hzrig/$e ] && echo stacktrace > $T/events/hzrig/$e/trigger
done
# schedule_timeout()'s timers (function process_timeout): each driver's
# wait is one, with the jiffies it was armed against, and all of them
# together show where the tick grid lies (docs/model.md section 10: a
# call armed on stale jiffies ends early). Filtered to that function by
# its address when kallsyms has it.
TS=$T/events/timer/timer_start
if [ -d $TS ]; then
	pt=$(sed -n 's/^\([0-9a-f]*\) [tT] process_timeout$/\1/p' /proc/kallsyms | head -n 1)
	[ -n "$pt" ] && echo "function == 0x$pt" > $TS/filter 2>/dev/null
	echo 1 > $TS/enable || log "timer_start not enabled: no stale-jiffies record"
else
	log "no timer:timer_start event: no stale-jiffies record"
fi
echo 1 > $T/events/hzrig/enable || { log "kprobe events not enabled"; exit 20; }
echo 1 > $T/tracing_on

hzrig-usbmon-dump > /tmp/usbmon.txt 2>/tmp/usbmon.err &
UM=$!

ls $DIR/*.device 2>/dev/null | sort |
	sed -n "$((BATCH * SIZE + 1)),$(((BATCH + 1) * SIZE))p" > /tmp/batch
# A batch booted again leaves out the drivers that hung its first boot.
if [ -n "$SKIP" ]; then
	: > /tmp/batch.kept
	while read -r f; do
		m=$(sed -n 's/^driver .*module=\([^ ]*\).*/\1/p' "$f")
		case ",$SKIP," in
		*",$m,"*) log "left out: $m (its modprobe never returned in an earlier boot of this batch)" ;;
		*) echo "$f" >> /tmp/batch.kept ;;
		esac
	done < /tmp/batch
	mv /tmp/batch.kept /tmp/batch
fi
N=$(wc -l < /tmp/batch)
[ "$N" -gt 0 ] || { log "batch $BATCH of $SIZE: no device files"; exit 21; }
log "batch $BATCH: $N devices, NAK $K then STALL"
[ "$UNPLUG_MS" -gt 0 ] && log "each device unplugged $UNPLUG_MS ms into its first NAKed request"
# shellcheck disable=SC2046
hzrig-rawdev -k "$K" -d "$UNPLUG_MS" -l /tmp/rawdev.txt $(cat /tmp/batch) 2>/tmp/rawdev.err &
RD=$!

# Enumerated: every dummy bus has its device (the root hub is N-0).
n=0
while :; do
	up=$(ls -d /sys/bus/usb/devices/[0-9]*-1 2>/dev/null | wc -l)
	[ "$up" -ge "$N" ] && break
	n=$((n + 1))
	[ $n -gt 300 ] && { log "only $up of $N devices enumerated after 30 s"; break; }
	usleep 100000
done
log "$up of $N devices enumerated"
# Each bus' device now, before any driver: the unplug pass takes them away.
for d in /sys/bus/usb/devices/[0-9]*-[0-9]*; do
	case "$(basename "$d")" in *:*) continue ;; esac
	echo "device name=$(basename "$d") vendor=$(cat "$d/idVendor") product=$(cat "$d/idProduct")"
done > /tmp/devices.txt

T0=$(cut -d' ' -f1 /proc/uptime)
: > /tmp/modprobe.txt
while read -r f; do
	m=$(sed -n 's/^driver .*module=\([^ ]*\).*/\1/p' "$f")
	[ -n "$m" ] || continue
	# marks in the trace time the probe to the microsecond (uptime: 10 ms)
	# ... and on the console as they happen: if a driver hangs the
	# guest, the modprobes that never returned name the suspects
	( echo "hzrig modprobe-begin module=$m" > $T/trace_marker
	  log "modprobe-begin module=$m"
	  modprobe "$m" > /tmp/modprobe-"$m".log 2>&1
	  rc=$?
	  echo "hzrig modprobe-end module=$m rc=$rc" > $T/trace_marker
	  log "modprobe-end module=$m rc=$rc"
	  echo "modprobe module=$m rc=$rc t=$(cut -d' ' -f1 /proc/uptime)" >> /tmp/modprobe.txt ) &
done < /tmp/batch

# A driver that floods the kernel log (pctv452e polls a missing endpoint
# and logs each failure) stalls the whole guest under TCG: every printk
# waits for the emulated serial console. Once the log grows by more than
# FLOOD lines in a second, the console takes only KERN_ALERT and worse
# from then on; the batch still ends, and the flood is said.
FLOOD=200
flood() {
	[ -e /tmp/flooded ] && return
	n=$(dmesg | awk -v now="$(cut -d' ' -f1 /proc/uptime)" '
		{ t = $0; sub(/^\[ */, "", t); sub(/\].*/, "", t) }
		t + 0 > now - 1 { n++ } END { print n + 0 }')
	[ "$n" -gt $FLOOD ] || return
	echo 1 > /proc/sys/kernel/printk
	touch /tmp/flooded
	log "kernel log flood: $n lines in the last second; the console now takes alerts only"
	dmesg | tail -n 3 | sed 's/^/hzrig-sweep: flood: /'
}

# Quiet: every modprobe returned, and neither usbmon nor the gadget moved
# for QUIET_S seconds.
last="" still=0 s=0
while [ $s -lt $((MAX_S * 10)) ]; do
	usleep 100000
	s=$((s + 1))
	[ $((s % 10)) -ne 0 ] || flood
	now="$(wc -c < /tmp/usbmon.txt) $(wc -c < /tmp/rawdev.txt 2>/dev/null)"
	if [ "$now" = "$last" ]; then still=$((still + 1)); else still=0; last=$now; fi
	done_n=$(wc -l < /tmp/modprobe.txt)
	[ "$done_n" -ge "$N" ] && [ $still -ge $((QUIET_S * 10)) ] && break
done
log "settled after $((s / 10)) s ($(wc -l < /tmp/modprobe.txt) of $N modprobes returned)"
echo 0 > $T/tracing_on

# What bound: interface, driver, and each bus' device.
{
	for d in /sys/bus/usb/devices/*; do
		b=$(basename "$d")
		case "$b" in
		usb*) ;;
		*:*) [ -e "$d/driver" ] && echo "bind intf=$b driver=$(basename "$(readlink "$d/driver")")" ;;
		*) echo "device name=$b vendor=$(cat "$d/idVendor") product=$(cat "$d/idProduct")" ;;
		esac
	done
} > /tmp/bind.txt

# Unplug: the drivers' disconnect runs now, while the log is still read.
kill "$RD"
wait "$RD" 2>/dev/null
usleep 500000
kill "$UM"
wait "$UM" 2>/dev/null

# On the console (a LAVA lab, hzrig.samples=console) every line is framed
# "hzrig-sweep ...", apart from the kernel's messages around it.
frame() { if [ "$OUT" = /dev/console ]; then sed 's/^/hzrig-sweep /'; else cat; fi; }
{
	echo "sweep begin batch=$BATCH size=$SIZE k=$K devices=$N t0=$T0 settled_s=$((s / 10)) max_s=$MAX_S unplug_ms=$UNPLUG_MS"
	i=0
	while read -r f; do
		echo "file index=$i name=$(basename "$f")"
		i=$((i + 1))
	done < /tmp/batch
	cat /tmp/devices.txt /tmp/bind.txt /tmp/modprobe.txt /tmp/rawdev.txt /tmp/usbmon.txt
	sed 's/^/rawdev-err /' /tmp/rawdev.err
	sed 's/^/usbmon-err /' /tmp/usbmon.err
	grep -v '^#' $T/trace | sed 's/^/trace /'
	echo "sweep end"
} | frame > "$OUT"
