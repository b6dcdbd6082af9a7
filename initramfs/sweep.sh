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
#      unplugged that long into its first NAKed request (walking, into
#      each pass's, and plugged in again for the next pass);
#   3. once the devices are enumerated, every device's module is loaded at
#      once (modprobe in parallel: each probe runs in its modprobe);
#   4. the batch ends when every modprobe has returned and no device did
#      anything new for QUIET_S seconds (hzrig-rawdev -p: a request not
#      seen since its last plug; a driver's poll, or a root hub's, does
#      not keep the batch up), or after MAX_S seconds;
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
# 8 MB: a firmware loader answered by its device file makes thousands of
# calls a plug, each five events and a stack (go7007_loader: 53357 in one
# batch of the eighth run, which overran the 4 MB the stream had not read)
echo 8192 > $T/buffer_size_kb ||
	{ log "trace ring buffer: 8 MB refused, 4 MB"; echo 4096 > $T/buffer_size_kb; }
# r64: a kretprobe keeps 64 calls in flight (the default, 10 on one CPU,
# runs out when a batch's 32 probes wait at once, and their returns are
# missed).
# x86_64 at a function's entry: %di %si %dx %cx %r8 %r9 the first six
# arguments, $stack0 the return address, $stackN (N >= 1) argument 6 + N.
# usb_control_msg(dev, pipe, request, requesttype, value, index, data,
# size, timeout): timeout is the ninth; usb_control_msg_send/_recv too.
# usb_bulk_msg and usb_interrupt_msg(dev, pipe, data, len, actual,
# timeout): the sixth.
# A call's stack is taken from inside its kprobe. Only the guessing
# unwinder sees past an optimized kprobe's trampoline: ORC's (the debugging
# kernel's) and the frame-pointer one's stacks end there, and no call would
# be a driver's. With those, the kprobes are plain int3 ones.
if grep -qE ' (unwind_module_init|update_stack_state)$' /proc/kallsyms 2>/dev/null &&
   [ -w /proc/sys/debug/kprobes-optimization ]; then
	echo 0 > /proc/sys/debug/kprobes-optimization &&
		log "kprobes not optimized: this kernel's unwinder stops at their trampoline"
fi
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
# Calls to a root hub (device 1: the hub driver's port status, each plug
# of the walk) are no driver's, and are not traced: the pipe's device
# number (bits 8-14) is 2 or more.
echo sym-offset > $T/trace_options
for e in ctl ctl_send ctl_recv bulk intr; do
	E=$T/events/hzrig/$e
	[ -d $E ] || continue
	# (usb_control_msg_send/_recv's events have no pipe: their calls go
	# through usb_control_msg's, which has)
	if ! grep -q ' pipe;' $E/format 2>/dev/null; then
		echo stacktrace > $E/trigger
	elif ! { echo 'pipe & 0x7e00' > $E/filter &&
		 echo 'stacktrace if pipe & 0x7e00' > $E/trigger; } 2>/dev/null; then
		log "$e: root hubs' calls traced too (the pipe filter was refused)"
		echo stacktrace > $E/trigger
	fi
done
# usb_submit_urb(): only the URBs the synchronous calls submit matter
# (their pairing with usbmon), so only a submit from the USB core's
# message functions is traced, not a driver's resubmitting its interrupt
# URB a thousand times a second: ip within usb_start_wait_urb() or a
# caller it may be inlined into, each up to the next symbol (kallsyms'
# addresses are 16 hex digits: compared as strings).
submit_filter() {
	awk '$2 ~ /^[tT]$/ {
		a = "" $1
		for (f in want) if (a > want[f] && (!(f in end) || a < end[f])) end[f] = a
		if ($3 in name) want[$3] = a
	}
	BEGIN { split("usb_start_wait_urb usb_internal_control_msg usb_control_msg usb_bulk_msg usb_interrupt_msg usb_control_msg_send usb_control_msg_recv", n, " ")
		for (i in n) name[n[i]] = 1 }
	END { for (f in want) if (f in end) { printf "%s(ip >= 0x%s && ip < 0x%s)", sep, want[f], end[f]; sep = " || " } }' /proc/kallsyms
}
SF=$(submit_filter 2>/dev/null)
if [ -n "$SF" ] && [ -d $T/events/hzrig/submit ] && echo "$SF" > $T/events/hzrig/submit/filter 2>/dev/null; then
	log "usb_submit_urb traced from the synchronous calls' own code only"
else
	log "usb_submit_urb traced from everywhere (no filter: ${SF:-no symbols})"
fi
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
if [ "$UNPLUG_MS" -gt 0 ] && [ "$WALK" -gt 0 ]; then
	log "each device unplugged $UNPLUG_MS ms into each pass's NAKed request, and plugged in again for the next"
elif [ "$UNPLUG_MS" -gt 0 ]; then
	log "each device unplugged $UNPLUG_MS ms into its first NAKed request"
fi

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
: > /tmp/rawdev.news
# shellcheck disable=SC2046
# the walk (WALK passes at most): each request of a probe NAKed in turn,
# the device plugged in again for each (hzrig-rawdev -w)
WALK_OPT=
[ "$WALK" -gt 0 ] && WALK_OPT="-w $WALK" && log "the walk: each request NAKed in turn, $WALK passes at most"
# shellcheck disable=SC2086
hzrig-rawdev -k "$K" $WALK_OPT -d "$UNPLUG_MS" -l /tmp/rawdev.txt -c /tmp/rawdev.ctl -p /tmp/rawdev.news \
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
	net) n=$(basename "$3") ;;
	tty | input | hidraw | usbmisc | usb | video4linux | sound) ;;
	*) return ;;
	esac
	# on the console as it begins and ends, as a modprobe: an open that
	# crashes the guest (gspca's read starts streaming) is the suspect
	# (rig/sweep/suspects.sh), where the stream goes out every 100 ms
	log "open-begin module=$2 bus=$1 entry=$kind:${n:-?}"
	case "$sub" in
	net)
		# (busybox's ip wants an INET or PACKET socket, which the
		# sweep's kernels lack: hzrig-netup asks through netlink's)
		timeout 10 hzrig-netup "$n" > /tmp/open-"$n".err 2>&1 ;;
	tty)
		timeout 10 stty -F "/dev/$n" 9600 raw > /dev/null 2>&1 ;;
	sound)
		case "$n" in
		*p) timeout 5 sh -c ": > /dev/$n" 2>/dev/null ;;
		*) timeout 5 head -c 1 "/dev/$n" > /dev/null 2>&1 ;;
		esac ;;
	*)
		timeout 5 head -c 1 "/dev/$n" > /dev/null 2>&1 ;;
	esac
	rc=$?
	log "open-end module=$2 bus=$1 entry=$kind:${n:-?} rc=$rc"
	# a failed network set-up says why (hzrig-netup's line, one word)
	err=
	[ "$rc" -eq 0 ] || [ "$sub" != net ] ||
		err=" err=$(head -n 1 /tmp/open-"$n".err 2>/dev/null | tr -c 'A-Za-z0-9:._-' '_' | cut -c1-80)"
	echo "open module=$2 bus=$1 entry=$kind:${n:-?} rc=$rc t=$(cut -d' ' -f1 /proc/uptime)$err" >> $L
}
# Each plug a driver bound to (a walk's pass, a shape) is said once,
# "bound module=M bus=B dev=D t=T": a driver that binds only in a later
# pass and then hangs the guest is the one that bound last
# (rig/sweep/suspects.sh), though its modprobe's probe failed.
opener() {
	# what was said bound and what was used, " KEY KEY ... " in the
	# shell (no process a round: the guest's one CPU is the drivers')
	bound=" " opened=" " was="" young=0 round=0
	while [ ! -e /tmp/stop-open ]; do
		# the interfaces a driver holds, "INTF,BUS,MODULE,DEVNUM ..."
		held=""
		while read -r bus m; do
			for intf in /sys/bus/usb/devices/"$bus"-1:*; do
				[ -e "$intf/driver" ] || continue
				dn=
				read -r dn 2>/dev/null < "/sys/bus/usb/devices/$bus-1/devnum"
				held="$held $intf,$bus,$m,$dn"
				case "$bound" in
				*" $bus-$dn "*) ;;
				*)
					bound="$bound$bus-$dn "
					read -r up _ < /proc/uptime
					echo "bound module=$m bus=$bus dev=${dn:-?} t=$up" >> $L
					# the walk's pass waits for what open() asks
					echo "hold $((bus - 1))" >> /tmp/rawdev.ctl ;;
				esac
			done
		done < /tmp/bus-module
		# Their nodes are looked for (find and grep: processes) for 2 s
		# after what is held changed, and every 5 s: each round, for
		# each interface held, they were most of the guest's forks.
		round=$((round + 1))
		[ "$held" = "$was" ] || young=10
		was=$held
		if [ $young -gt 0 ] || [ $((round % 25)) -eq 0 ]; then
			[ $young -eq 0 ] || young=$((young - 1))
			for h in $held; do
				intf=${h%%,*} h=${h#*,}
				bus=${h%%,*} h=${h#*,}
				m=${h%%,*} dn=${h#*,}
				for node in $(find "$intf"/ -mindepth 2 -maxdepth 5 -name uevent 2>/dev/null |
					xargs -r grep -l '^DEVNAME=\|^INTERFACE=' 2>/dev/null); do
					node=${node%/uevent}
					key="$bus-$dn-${node##*/}"
					case "$opened" in *" $key "*) continue ;; esac
					opened="$opened$key "
					entry "$bus" "$m" "$node" &
				done
			done
		fi
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
	# (the last 3000 lines hold the last second of any flood this counts:
	# awk over the whole buffer, each second, was the guest's CPU's)
	dmesg -r | tail -n 3000 | awk -v now="$now" -v flood=$FLOOD -v need=$FLOOD_S '
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

# Devices that do not bind: once a device's walk is over and no driver
# holds an interface of it, it is plugged in again in its next shape
# (MODULE.shapeN beside its device file; hzrig-rawdev's "shape I"), and
# walked again, until one binds or none is left. /tmp/final counts the
# devices that are through, and each is said ("through module=M bus=B":
# a batch whose guest crashed later boots again without them, and keeps
# what they streamed). Not in the unplug pass, nor without the walk.
echo 0 > /tmp/final
# the devices through, " I I ... ": not looked at again (bindings() and
# the files are processes, and the shaper runs on each second's news)
through=" "
shaper() {
	# per device index: walks over, gone for good, the last walk had no
	# pass, shapes asked for, walks asked for, bound in a plug before
	# (one process, not three a device)
	awk 'FILENAME == "/tmp/rawdev.ctl" { if ($1 == "shape") a[$2]++; else if ($1 == "walk") w[$2]++; next }
	     FILENAME == L { if ($1 == "bound" && $3 ~ /^bus=[0-9]+$/) { sub("bus=", "", $3); b[$3 - 1] = 1 }; next }
	     /walk=done/ { sub("rawdev=", "", $1); d[$1]++; p[$1] = $4 }
	     /shape=none|contain=/ { sub("rawdev=", "", $1); x[$1] = 1 }
	     END { for (i in d) print i, d[i], (i in x), (p[i] == "passes=0"), a[i] + 0, w[i] + 0, (i in b) }' \
		L=$L /tmp/rawdev.ctl /tmp/rawdev.txt $L > /tmp/walks
	final=0
	while read -r bus m; do
		i=$((bus - 1))
		case "$through" in *" $i "*) final=$((final + 1)); continue ;; esac
		set -- 0 0 0 0 0 0
		while read -r wi wd wx wp wa ww wb; do
			[ "$wi" = "$i" ] && set -- "$wd" "$wx" "$wp" "$wa" "$ww" "$wb" && break
		done < /tmp/walks
		asked=$4 walks=$5 ever=$6
		# gone for good (contained), or refused a shape asked for
		# (shape=none: a replug that failed left it unplugged): through
		if [ "$2" -eq 1 ]; then
			final=$((final + 1)) through="$through$i "
			echo "through module=$m bus=$bus" >> $L
			continue
		fi
		# its walk (of its current shape) is not over yet
		[ "$1" -gt $((asked + walks)) ] || continue
		# a shape that bound in its trial but was not walked (the trial
		# made no more requests than a pass before it): walked all the
		# same, once, for the code binding reaches
		if [ "$3" -eq 1 ] && [ "$asked" -gt 0 ] && [ "$walks" -lt "$asked" ] &&
		   [ -n "$(bindings "$bus")" ]; then
			log "$m bound in its shape's trial: its walk"
			echo "walk $i" >> /tmp/rawdev.ctl
			continue
		fi
		f=$(sed -n "${bus}p" /tmp/batch)
		# its shapes (numbered by kind, with gaps: hzrig-rawdev takes
		# the next there is)
		shapes=$(ls "${f%.device}".shape[0-9] 2>/dev/null | wc -l)
		# bound (what bindings() lists, or in any plug before: the
		# walk's last pass NAKs a request its probe may not survive,
		# and a shape is for a device no plug of which bound), out of
		# shapes, or the unplug pass (which tries none)
		if [ "$ever" -eq 1 ] || [ -n "$(bindings "$bus")" ] ||
		   [ "$asked" -ge "$shapes" ] || [ "$UNPLUG_MS" -gt 0 ]; then
			final=$((final + 1)) through="$through$i "
			echo "through module=$m bus=$bus" >> $L
			continue
		fi
		log "$m did not bind: its next shape ($((asked + 1)) of $shapes)"
		echo "shape $i" >> /tmp/rawdev.ctl
	done < /tmp/bus-module
	echo "$final" > /tmp/final
}

# Quiet: every modprobe returned, and no device did anything new for
# QUIET_S seconds (/tmp/rawdev.news stood still: a driver that polls its
# device, the same request every few seconds, or a root hub's port
# status, kept the batch up to MAX_S when usbmon's log was watched).
# MAX_S by the clock: a loaded guest's rounds take longer than their sleep
# The trace's ring buffer overwrites what the stream has not read yet
# when the stream waits for the CPU (drivers looping in softirq): the
# events it lost, said every 10 s and at the end ("sweep trace
# overrun=N"), make the batch's calls a lower bound.
overrun() {
	ov=$(awk '/^overrun:/ { n += $2 } END { print n + 0 }' $T/per_cpu/cpu*/stats 2>/dev/null) &&
		echo "sweep trace overrun=$ov" >> $L
}
# (the shell's own read for the clock and the counts it keeps: a
# process each 100 ms is the drivers' CPU under TCG)
last="" still=0 s=0 shaped="" walked=$N
read -r up _ < /proc/uptime
deadline=$((${up%%.*} + MAX_S))
while read -r up _ < /proc/uptime && [ "${up%%.*}" -lt "$deadline" ]; do
	usleep 100000
	s=$((s + 1))
	[ $((s % 10)) -ne 0 ] || flood
	[ $((s % 100)) -ne 0 ] || overrun
	now=$(wc -c < /tmp/rawdev.news)
	if [ "$now" = "$last" ]; then still=$((still + 1)); else still=0; last=$now; fi
	done_n=$(wc -l < /tmp/modprobe.txt)
	# and, walking, every device's walk is over (and its shapes')
	# (shaper reads rawdev's whole log: once a second at most, and only
	# when a device did something new: a walk's end is news)
	if [ "$WALK" -gt 0 ]; then
		if [ $((s % 10)) -eq 5 ] && [ "$now" != "$shaped" ]; then
			shaper
			shaped=$now
		fi
		read -r walked < /tmp/final
	fi
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
# at MAX_S unsettled: what it waited for (each costs a batch its limit)
read -r up _ < /proc/uptime
if [ "${up%%.*}" -ge "$deadline" ]; then
	[ "$done_n" -ge "$N" ] || log "unsettled: modprobes returned $done_n of $N"
	if [ "$walked" -lt "$N" ]; then
		# the devices whose walk has not ended once (rawdev indices)
		left=$(awk -v n="$N" '/walk=done/ { sub("rawdev=", "", $1); d[$1] = 1 }
			END { for (i = 0; i < n; i++) if (!(i in d)) printf "%d ", i }' /tmp/rawdev.txt)
		log "unsettled: walks through $walked of $N (no walk ended yet: ${left:-none of them})"
	fi
	# the devices whose news kept coming (a line per event: its index)
	[ $still -ge $((QUIET_S * 10)) ] ||
		log "unsettled: news still coming, of the last 50 from rawdev index (count): $(tail -n 50 /tmp/rawdev.news |
			sort -n | uniq -c | sort -rn | head -n 3 | awk '{ printf "%s (%s) ", $2, $1 }')"
fi
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
overrun
kill "$UM"
reap "$UM" 5
# the stream's last round, then its end, from this one writer
kill "$ST"
reap "$ST" 10
if [ -s /tmp/stream.err ]; then
	sed 's/^/hzrig-sweep: stream: /' /tmp/stream.err
fi
if [ "$OUT" = /dev/console ]; then echo "hzrig-sweep sweep end"; else echo "sweep end"; fi > "$OUT"
