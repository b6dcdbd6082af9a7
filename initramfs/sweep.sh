#!/bin/busybox sh
# hzrig-sweep K BATCH SIZE MAX_S OUT [UNPLUG_MS [SKIP [WALK]]]: one batch of the driver sweep in the
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
#   5. the devices are unplugged (hzrig-rawdev stops), and "sweep end".
# Everything goes to OUT as it is made (hzrig-stream, every 100 ms, with a
# heartbeat "sweep alive" every second): "sweep ..." framing, the device
# list (taken once enumerated, and again at the end), the bindings (each
# driver's as its modprobe returns, and all at the end), rawdev's and
# usbmon's lines and the trace (each call with its stack). A guest that
# hangs or dies loses its last round at most; the host reads what came
# (hzrig sweep collect) and knows a hang by the heartbeat's silence
# (hzrig boot --quiet-s).
# A looping driver is contained: hzrig-rawdev unplugs a device whose
# driver keeps making it refuse (gadget/loop.h), and the log watcher below
# one whose driver floods the kernel log, and the batch goes on.
set -u
K=$1 BATCH=$2 SIZE=$3 MAX_S=$4 OUT=$5 UNPLUG_MS=${6:-0} SKIP=${7:-} WALK=${8:-0}
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

# The stream: the guest's own lines (L), rawdev's, usbmon's, the trace.
# On a console (a LAVA lab, hzrig.samples=console) every line is framed
# "hzrig-sweep ...", apart from the kernel's messages around it.
L=/tmp/lines.txt
{
	echo "sweep begin batch=$BATCH size=$SIZE k=$K devices=$N max_s=$MAX_S unplug_ms=$UNPLUG_MS walk=$WALK stream=1"
	i=0
	while read -r f; do
		echo "file index=$i name=$(basename "$f")"
		i=$((i + 1))
	done < /tmp/batch
} > $L
: > /tmp/rawdev.txt
PREFIX=
[ "$OUT" = /dev/console ] && PREFIX="hzrig-sweep "
# -m/-r: each batch module's synchronous calls a second, for flood()
hzrig-stream -o "$OUT" -p "$PREFIX" -m /tmp/bus-module -r /tmp/calls-rate \
	$L /tmp/rawdev.txt /tmp/usbmon.txt \
	"trace =$T/trace_pipe" "rawdev-err =/tmp/rawdev.err" \
	"usbmon-err =/tmp/usbmon.err" 2>/tmp/stream.err &
ST=$!

: > /tmp/rawdev.ctl
# shellcheck disable=SC2046
# the walk (WALK passes at most): each request of a probe NAKed in turn,
# the device plugged in again for each (hzrig-rawdev -w)
WALK_OPT=
[ "$WALK" -gt 0 ] && WALK_OPT="-w $WALK" && log "the walk: each request NAKed in turn, $WALK passes at most"
# shellcheck disable=SC2086
hzrig-rawdev -k "$K" $WALK_OPT -d "$UNPLUG_MS" -l /tmp/rawdev.txt -c /tmp/rawdev.ctl \
	$(cat /tmp/batch) 2>/tmp/rawdev.err &
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
done >> $L

# bindings BUS: the interfaces of BUS's device (port 1: the root hub's
# own are BUS-0:*) that a driver holds
bindings() {
	for d in /sys/bus/usb/devices/"$1"-1:*; do
		[ -e "$d/driver" ] && echo "bind intf=$(basename "$d") driver=$(basename "$(readlink "$d/driver")")"
	done
}

T0=$(cut -d' ' -f1 /proc/uptime)
echo "sweep t0 t=$T0" >> $L
: > /tmp/modprobe.txt
: > /tmp/bus-module
i=0
while read -r f; do
	m=$(sed -n 's/^driver .*module=\([^ ]*\).*/\1/p' "$f")
	i=$((i + 1))
	[ -n "$m" ] || continue
	# marks in the trace time the probe to the microsecond (uptime: 10 ms)
	# ... and on the console as they happen: if a driver hangs the
	# guest, the modprobes that never returned name the suspects. Its
	# record and what it bound go out at once, in one write.
	( echo "hzrig modprobe-begin module=$m" > $T/trace_marker
	  log "modprobe-begin module=$m"
	  modprobe "$m" > /tmp/modprobe-"$m".log 2>&1
	  rc=$?
	  echo "hzrig modprobe-end module=$m rc=$rc" > $T/trace_marker
	  log "modprobe-end module=$m rc=$rc"
	  echo "modprobe module=$m rc=$rc t=$(cut -d' ' -f1 /proc/uptime)" >> /tmp/modprobe.txt
	  rec="modprobe module=$m rc=$rc t=$(cut -d' ' -f1 /proc/uptime)
$(bindings $i)"
	  echo "$rec" >> $L
	  # the walk goes on from the probe's end
	  echo "probed $((i - 1))" >> /tmp/rawdev.ctl ) &
	echo "$i $m" >> /tmp/bus-module
done < /tmp/batch

# Open as well as probe: once a driver holds a batch device's interface,
# each device node it made under it is used once, as a program would,
# bounded in time (in the background: an open that blocks holds nobody
# up): a network interface is set up, a tty opened and set to 9600 baud
# raw (tcsetattr), an input or hidraw node, a USB class node (/dev/usb/*)
# or a video node opened and read, a PCM opened the way it streams. Each
# becomes a line "open module=M bus=B entry=KIND:NODE rc=R" in the stream;
# a node made again (the walk plugs the device in again) is used again.
entry() {	# entry BUS MODULE SYSFS_NODE
	n=$(sed -n 's/^DEVNAME=//p' "$3/uevent" 2>/dev/null)
	sub=$(basename "$(readlink "$3/subsystem" 2>/dev/null)")
	kind=$sub
	case "$sub" in
	net)
		n=$(basename "$3")
		timeout 10 ip link set dev "$n" up > /tmp/open-"$n".err 2>&1 ;;
	tty)
		timeout 10 stty -F "/dev/$n" 9600 raw > /dev/null 2>&1 ;;
	input | hidraw | usbmisc | usb | video4linux)
		timeout 5 head -c 1 "/dev/$n" > /dev/null 2>&1 ;;
	sound)
		case "$n" in
		*p) timeout 5 sh -c ": > /dev/$n" 2>/dev/null ;;
		*) timeout 5 head -c 1 "/dev/$n" > /dev/null 2>&1 ;;
		esac ;;
	*) return ;;
	esac
	rc=$?
	# a failed network set-up says why (ip's first line, one word)
	err=
	[ "$rc" -eq 0 ] || [ "$sub" != net ] ||
		err=" err=$(head -n 1 /tmp/open-"$n".err 2>/dev/null | tr -c 'A-Za-z0-9:._-' '_' | cut -c1-80)"
	echo "open module=$2 bus=$1 entry=$kind:${n:-?} rc=$rc t=$(cut -d' ' -f1 /proc/uptime)$err" >> $L
}
opener() {
	: > /tmp/opened
	while [ ! -e /tmp/stop-open ]; do
		while read -r bus m; do
			for intf in /sys/bus/usb/devices/"$bus"-1:*; do
				[ -e "$intf/driver" ] || continue
				dn=$(cat "/sys/bus/usb/devices/$bus-1/devnum" 2>/dev/null)
				for node in $(find "$intf"/ -mindepth 2 -maxdepth 5 -name uevent 2>/dev/null |
					xargs -r grep -l '^DEVNAME=\|^INTERFACE=' 2>/dev/null); do
					node=${node%/uevent}
					key="$bus-$dn-$(basename "$node")"
					grep -qxF "$key" /tmp/opened && continue
					echo "$key" >> /tmp/opened
					entry "$bus" "$m" "$node" &
				done
			done
		done < /tmp/bus-module
		usleep 200000
	done
}
opener &
OP=$!

# A driver that floods the kernel log (pctv452e polls a missing endpoint
# and logs each failure) stalls the whole guest under TCG: every printk
# waits for the emulated serial console. Once the log grows by more than
# FLOOD lines in a second, the console takes only KERN_ALERT and worse
# from then on; the batch still ends, and the flood is said.
# Before that, the one driver whose lines make the flood is contained: a
# batch device whose name ("3-1", "3-1:1.0") or whose module ("M", or "W"
# for a module M_W: "pctv452e: CI error" names dvb_usb_pctv452e) begins
# more than FLOOD lines in each of FLOOD_S seconds running is unplugged
# (hzrig-rawdev -c), and rawdev's line says so; so is one whose driver
# makes more than FLOOD synchronous calls a second (hzrig-stream's count:
# a call that fails before the device sees it, -EINVAL for an endpoint
# its device lacks, floods the trace, not the device).
FLOOD=200
FLOOD_S=2
flood() {
	now=$(cut -d' ' -f1 /proc/uptime)
	# raw: "<L>[ t] ...", L the level; only the console's (< loglevel 5)
	# stall the guest, so only they count toward turning the console
	# down (the walk's plugging in again says "new ... USB device" at
	# info level); a device's own count takes every level
	dmesg -r | awk -v now="$now" -v flood=$FLOOD -v need=$FLOOD_S '
		FILENAME == "/tmp/bus-module" { mod[$2] = $1; next }
		FILENAME == "/tmp/flood-hot" { hot[$1] = $2; since[$1] = $3; next }
		FILENAME == "/tmp/flood-done" { done[$1] = 1; next }
		FILENAME == "/tmp/calls-rate" { nc[$1] = $2; next }
		{ lvl = $0; sub(/^</, "", lvl); sub(/>.*/, "", lvl); sub(/^<[0-9]*>/, "") }
		{ t = $0; sub(/^\[ */, "", t); sub(/\].*/, "", t) }
		t + 0 <= now - 1 { next }
		{ all += (lvl % 8) < 5; w = $0; sub(/^\[[^]]*\] */, "", w)
		  split(w, f, " "); d = f[2]; sub(/:.*/, "", d); sub(/:$/, "", f[1])
		  bus = ""
		  if (d ~ /^[0-9]+-1$/) { split(d, b, "-"); bus = b[1] }
		  else for (m in mod) if (m == f[1] || substr(m, length(m) - length(f[1])) == "_" f[1]) bus = mod[m]
		  if (bus != "") n[bus]++ }
		END {
			for (b in n) any[b] = 1
			for (b in nc) any[b] = 1
			for (b in any) {
				c = n[b] > nc[b] ? n[b] : nc[b]
				if (c <= flood || (b in done))
					continue
				h = hot[b] + 1; s = since[b] ? since[b] : now - 1
				print b, h, s > "/tmp/flood-hot.new"
				if (h >= need)
					printf "unplug %d %d %d %s\n", b - 1, c * h, s * 1000000,
					       (nc[b] > n[b] ? "calls" : "flood") > "/tmp/flood-unplug"
			}
			print all + 0
		}' /tmp/bus-module /tmp/flood-hot /tmp/flood-done /tmp/calls-rate - > /tmp/flood-all
	mv /tmp/flood-hot.new /tmp/flood-hot 2>/dev/null || : > /tmp/flood-hot
	if [ -s /tmp/flood-unplug ]; then
		cat /tmp/flood-unplug >> /tmp/rawdev.ctl
		awk '{ print $2 + 1 }' /tmp/flood-unplug >> /tmp/flood-done
		sed 's/^/hzrig-sweep: flood: contained: /' /tmp/flood-unplug
		rm -f /tmp/flood-unplug
	fi
	[ -e /tmp/flooded ] && return
	n=$(cat /tmp/flood-all)
	[ "$n" -gt $FLOOD ] || return
	echo 1 > /proc/sys/kernel/printk
	touch /tmp/flooded
	log "kernel log flood: $n lines in the last second; the console now takes alerts only"
	dmesg | tail -n 3 | sed 's/^/hzrig-sweep: flood: /'
}
: > /tmp/flood-hot
: > /tmp/flood-done
: >> /tmp/calls-rate

# Quiet: every modprobe returned, and neither usbmon nor the gadget moved
# for QUIET_S seconds.
# MAX_S by the clock: a loaded guest's rounds take longer than their sleep
last="" still=0 s=0
deadline=$(($(cut -d. -f1 /proc/uptime) + MAX_S))
while [ "$(cut -d. -f1 /proc/uptime)" -lt "$deadline" ]; do
	usleep 100000
	s=$((s + 1))
	[ $((s % 10)) -ne 0 ] || flood
	now="$(wc -c < /tmp/usbmon.txt) $(wc -c < /tmp/rawdev.txt 2>/dev/null)"
	if [ "$now" = "$last" ]; then still=$((still + 1)); else still=0; last=$now; fi
	done_n=$(wc -l < /tmp/modprobe.txt)
	# and, walking, every device's walk is over
	walked=$N
	[ "$WALK" -eq 0 ] || walked=$(grep -c 'walk=done' /tmp/rawdev.txt)
	[ "$done_n" -ge "$N" ] && [ "$walked" -ge "$N" ] && [ $still -ge $((QUIET_S * 10)) ] && break
done
# reap PID S: PID gone, or S seconds past (a process stuck in the kernel,
# in an open or a device's ioctl, must not keep the batch from its end)
reap() {
	r=0
	while kill -0 "$1" 2>/dev/null && [ $r -lt $(($2 * 10)) ]; do
		usleep 100000
		r=$((r + 1))
	done
	kill -0 "$1" 2>/dev/null && log "pid $1 still there after $2 s: left behind"
}
touch /tmp/stop-open
reap "$OP" 5
settled=$(($(cut -d. -f1 /proc/uptime) - deadline + MAX_S))
log "settled after $settled s ($(wc -l < /tmp/modprobe.txt) of $N modprobes returned)"
echo "sweep settled s=$settled" >> $L

# What bound: interface, driver, and each bus' device.
for d in /sys/bus/usb/devices/*; do
	b=$(basename "$d")
	case "$b" in
	usb*) ;;
	*:*) [ -e "$d/driver" ] && echo "bind intf=$b driver=$(basename "$(readlink "$d/driver")")" ;;
	*) echo "device name=$b vendor=$(cat "$d/idVendor") product=$(cat "$d/idProduct")" ;;
	esac
done >> $L

# Unplug: the drivers' disconnect runs now, while the log is still read.
kill "$RD"
reap "$RD" 10
usleep 500000
echo 0 > $T/tracing_on
kill "$UM"
reap "$UM" 5
# the stream's last round, then its end, from this one writer
kill "$ST"
reap "$ST" 10
if [ -s /tmp/stream.err ]; then
	sed 's/^/hzrig-sweep: stream: /' /tmp/stream.err
fi
if [ "$OUT" = /dev/console ]; then echo "hzrig-sweep sweep end"; else echo "sweep end"; fi > "$OUT"
