#!/bin/bash
# sweep.sh HZRIG: the driver sweep's inputs, hostile (docs/sweep.md): each
# refused with a message naming the problem, no sanitizer report, and
# nothing recorded or half-written. The fixture is a real batch and its
# sweep.json (tests/data/sweep/small-100: 6.1 at HZ=100).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/tests/hostile/harness.sh"
run() { "$@" > "$T/out" 2> "$T/err"; rc=$?; }
SW=$DATA/sweep/small-100

# --- hzrig sweep devices ----------------------------------------------------
printf 'alias usb:v05ACp*d*dc*dsc*dp*icFFiscFDip01in* ipheth\nalias usb:v05AGp*d*dc*dsc*dp*ic*isc*ip*in* bad\n' > "$T/bad.alias"
run $HZRIG sweep devices --alias "$T/bad.alias" --out "$T/dev"
check "devices: a bad modules.alias line is named by file:line, no device written" \
	"[ $rc -eq 2 ] && said 'bad.alias:2: no vendor and product' && [ ! -e '$T/dev' ] && quiet"
mkfifo "$T/fifo"
run $HZRIG sweep devices --alias "$T/fifo" --out "$T/dev"
check "devices: a FIFO as modules.alias is refused before reading" \
	"[ $rc -eq 2 ] && said 'fifo' && quiet"
run $HZRIG sweep devices --alias "$T/bad.alias"
check "devices: --out missing is bad usage" "[ $rc -eq 2 ] && said 'needed' && quiet"
printf 'alias usb:v05ACp*d*dc*dsc*dp*icFFiscFDip01in* ipheth\n' > "$T/ok.alias"
mkdir -p "$T/over"
printf 'device vendor=1\n' > "$T/over/ipheth.device"
run $HZRIG sweep devices --alias "$T/ok.alias" --overrides "$T/over" --out "$T/dev2"
check "devices: an override is used as it is (its own faults are the gadget's to name)" \
	"[ $rc -eq 0 ] && cmp -s '$T/over/ipheth.device' '$T/dev2/ipheth.device' && quiet"
mkdir -p "$T/over2"
printf 'device vendor=2\n' > "$T/over2/ipheth.device"
run $HZRIG sweep devices --alias "$T/ok.alias" --overrides "$T/none::$T/over2:$T/over" --out "$T/dev3"
check "devices: --overrides DIR:DIR: the first that has the module's file wins, a missing or empty one skipped" \
	"[ $rc -eq 0 ] && cmp -s '$T/over2/ipheth.device' '$T/dev3/ipheth.device' && quiet"

printf 'alias usb:v0402p5602d*dc*dsc*dp*ic*isc*ip*in* gspca_m5602\n' >> "$T/ok.alias"
printf '%s\n' 'kernel/drivers/media/usb/gspca/m5602/gspca_m5602.ko: kernel/drivers/media/usb/gspca/gspca_main.ko kernel/drivers/media/v4l2-core/videodev.ko' \
	'kernel/drivers/net/usb/ipheth.ko:' > "$T/ok.dep"
run $HZRIG sweep devices --alias "$T/ok.alias" --dep "$T/ok.dep" --out "$T/dev4"
check "devices --dep: a driver built on V4L2 gets the isochronous alternate, one built on nothing none" \
	"[ $rc -eq 0 ] && grep -q '^interface number=0 alt=1 class=0xff' '$T/dev4/gspca_m5602.device' && grep -q 'type=isochronous' '$T/dev4/gspca_m5602.device' && ! grep -q 'alt=1' '$T/dev4/ipheth.device' && quiet"
printf 'kernel/a.ko: b.ko\nthis is not modules.dep\n' > "$T/bad.dep"
run $HZRIG sweep devices --alias "$T/ok.alias" --dep "$T/bad.dep" --out "$T/dev5"
check "devices --dep: a line that is not modules.dep's is named by file:line, no device written" \
	"[ $rc -eq 2 ] && said 'bad.dep:2: not a modules.dep line' && [ ! -e '$T/dev5' ] && quiet"
run $HZRIG sweep devices --alias "$T/ok.alias" --dep "$T/no.dep" --out "$T/dev5"
check "devices --dep: a missing file is named, no device written" \
	"[ $rc -eq 2 ] && said 'no.dep' && [ ! -e '$T/dev5' ] && quiet"
printf 'kernel/a.ko: b\000.ko\n' > "$T/nul.dep"
run $HZRIG sweep devices --alias "$T/ok.alias" --dep "$T/nul.dep" --out "$T/dev5"
check "devices --dep: a NUL byte is refused" "[ $rc -eq 2 ] && said 'NUL' && quiet"

# --- hzrig boot: a guest done, then not powering off -----------------------
# A fake QEMU: its stream beats once, its console says the guest is done,
# and then it neither powers off nor writes again (a driver's shutdown
# that hangs). Its stream's silence is expected after the end: the guest
# is stopped done_grace_s later and judged by its console, not called
# hung (its batch was booted twice again, its last-bound driver blamed).
cat > "$T/fakeqemu" <<'FAKE'
#!/bin/sh
# the guest's stream: the file of the chardev behind ttyS1 (and its
# virtio-serial port), path= last in its options
out=
for a in "$@"; do
	case "$prev" in -chardev) out=${a#*,path=} ;; esac
	prev=$a
done
echo "sweep alive t_us=1" > "$out"
echo "hzrig: guest done rc=${FAKE_RC:-0}"
exec sleep 60
FAKE
chmod +x "$T/fakeqemu"
printf 'binary = %s\nargs = -nodefaults\ncpu_tcg = max\nappend = console=ttyS0\ndone_grace_s = 2\n' "$T/fakeqemu" > "$T/fake.conf"
printf 'x' > "$T/img"
bootit() {
	run timeout 50 $HZRIG boot --variant v --kernel "$T/img" --initrd "$T/img" --timeout 40 --accel tcg \
		--qemu-config "$T/fake.conf" --console "$T/fc.log" --samples "$T/fs" --status "$T/fst.json" --quiet-s 5
}
t0=$SECONDS
bootit
check "boot: a guest done that does not power off is stopped after done_grace_s, ok by its console" \
	"[ $rc -eq 0 ] && [ \$((SECONDS - t0)) -lt 20 ] && jq -e '.status == \"ok\" and .guest_rc == 0' '$T/fst.json' > /dev/null && said 'did not power off within 2 s' && quiet"
FAKE_RC=3 bootit
check "boot: ... and a guest done with rc 3 so stopped is 'failed'" \
	"[ $rc -eq 1 ] && jq -e '.status == \"failed\"' '$T/fst.json' > /dev/null"
sed -i 's/^echo "hzrig: guest done.*/: no done line/' "$T/fakeqemu"
bootit
check "boot: a guest that never says done, its stream silent: hung at --quiet-s" \
	"jq -e '.status == \"hung\" and (.crash | test(\"went quiet for 5 s\"))' '$T/fst.json' > /dev/null"
# a batch booted again without its suspects and the drivers it was
# through with names them all on the kernel's command line (2047
# characters at most): longer is refused, named, before QEMU starts
rm -f "$T/fc.log"
run $HZRIG boot --variant v --kernel "$T/img" --initrd "$T/img" --timeout 40 --accel tcg \
	--qemu-config "$T/fake.conf" --console "$T/fc.log" --samples "$T/fs" \
	--append "hzrig.sweep_skip=$(printf 'm%.0s' $(seq 2100))"
check "boot: an --append past the kernel's command line is refused, named, nothing booted" \
	"[ $rc -eq 2 ] && said 'more than the kernel.s command line takes' && [ ! -e '$T/fc.log' ]"
run $HZRIG boot --variant v --kernel "$T/img" --initrd "$T/img" --timeout 40 --accel tcg \
	--qemu-config "$T/fake.conf" --console "$T/fc.log" --samples "$T/fs" \
	--append "hzrig.sweep_skip=$(printf 'm%.0s' $(seq 1990))"
check "boot: an --append that the conf's own append makes too long is refused, named, nothing booted" \
	"[ $rc -ne 0 ] && said 'longer than the kernel.s 2047 characters' && [ ! -e '$T/fc.log' ]"
printf 'done_grace_s = x\n' >> "$T/fake.conf"
bootit
check "boot: a done_grace_s that is no number is named" "[ $rc -eq 2 ] && said 'done_grace_s' && quiet"

# --- select.py: the rule and the dependencies it opens, on a made-up tree -----
K=$T/ktree
mkdir -p "$K/drivers/cam"
printf 'source "drivers/Kconfig"\n' > "$K/Kconfig"
printf 'menuconfig MEDIA\n\ttristate "media"\nif MEDIA\nsource "drivers/cam/Kconfig"\nendif # MEDIA\nconfig HELPER\n\tbool "helper"\nconfig HIDDEN\n\tbool\n' > "$K/drivers/Kconfig"
printf 'menuconfig CAMS\n\ttristate "cams"\n\tdepends on HELPER && !BROKEN\nif CAMS\nconfig CAM_A\n\ttristate "a"\n\tdepends on USB && (PCI || OF) && HIDDEN\n\thelp\n\t  if you say Y here\nendif\nconfig CAM_B\n\ttristate "b"\nconfig CAM_C\n\tbool "c"\n' > "$K/drivers/cam/Kconfig"
printf 'obj-$(CONFIG_CAM_A) += cam_a.o\nobj-$(CONFIG_CAM_B) += cam_b.o\nobj-$(CONFIG_CAM_C) += cam_c.o\n' > "$K/drivers/cam/Makefile"
for c in a b c; do printf 'MODULE_DEVICE_TABLE(usb, ids);\n' > "$K/drivers/cam/cam_$c.c"; done
run "$TOP/rig/sweep/select.py" "$K" "$T/sel.config" "$T/sel.json"
check "select.py: tristate drivers with a USB id table kept, a bool one dropped with its reason" \
	"[ $rc -eq 0 ] && [ \"\$(jq -r '[.kept[].symbol] | join(\" \")' '$T/sel.json')\" = 'CAM_A CAM_B' ] && jq -e '.dropped[0].reason | test(\"CONFIG_CAM_C is bool\")' '$T/sel.json' > /dev/null"
check "select.py: what they sit under opened (menus by if and depends on), nothing behind ! or ||, no symbol without a prompt" \
	"[ \"\$(jq -r '.opened | join(\" \")' '$T/sel.json')\" = 'CAMS HELPER MEDIA' ] && grep -qx 'CONFIG_CAMS=m' '$T/sel.config' && grep -qx 'CONFIG_HELPER=y' '$T/sel.config'"
run "$TOP/rig/sweep/select.py" "$K" "$T/sel.config" "$T/sel.json" --only cam_b
check "select.py --only: CAM_B, after CAMS's block (a help line starting 'if' opens none), needs MEDIA alone" \
	"[ $rc -eq 0 ] && [ \"\$(jq -r '.opened | join(\" \")' '$T/sel.json')\" = 'MEDIA' ]"
run "$TOP/rig/sweep/select.py" "$T" "$T/x.config" "$T/x.json"
check "select.py: a directory that is no kernel tree is refused, nothing written" \
	"[ $rc -eq 2 ] && said 'not a kernel tree' && [ ! -e '$T/x.config' ]"

# --- hzrig-stream (the guest's streamer, run here on a file) ---------------
# A stack frame in no module does not go out (collect puts a call down to
# the first module frame of its stack); every other line goes out whole.
STREAM=$(dirname "$HZRIG")/../runner/hzrig-stream
if [ -x "$STREAM" ]; then
	printf '%s\n' \
		'  modprobe-155 [000] .....  2.0999: ctl: (usb_control_msg+0x0/0x105) pipe=2147484288 timeout=300' \
		'  modprobe-155 [000] .....  2.0999: <stack trace>' \
		' => optimized_callback+0x59/0x65' ' => 0xffffffffa0002034' ' => usb_control_msg+0x1/0x105' \
		' => reg_w+0x83/0x8e [gspca_conex]' ' => sd_init+0x10/0x200 [gspca_conex]' \
		' => really_probe+0x1/0x2' ' => kthread+0x96/0x9e' > "$T/trace.in"
	: > "$T/stream.out"
	"$STREAM" -o "$T/stream.out" -i 10 "trace =$T/trace.in" 2> "$T/err" &
	sp=$!
	sleep 0.5
	kill -TERM $sp
	wait $sp
	rc=$?
	check "hzrig-stream: a stack's frames in no module left out, its module frames and the event kept, in order" \
		"[ $rc -eq 0 ] && [ \"\$(grep -c '=>' '$T/stream.out')\" = 2 ] && grep -q 'trace  => reg_w+0x83/0x8e \[gspca_conex\]' '$T/stream.out' && [ \"\$(sed -n 3p '$T/stream.out')\" = 'trace  => reg_w+0x83/0x8e [gspca_conex]' ] && grep -q ': ctl: (usb_control_msg' '$T/stream.out' && grep -q '<stack trace>' '$T/stream.out' && ! grep -q 'kthread\|optimized_callback\|0xffffffffa0002034' '$T/stream.out'"
else
	ko "hzrig-stream: $STREAM not built"
fi

# --- hzrig sweep collect ----------------------------------------------------
mkdir -p "$T/c"
printf 'nothing from the guest\n' > "$T/c/batch-0.txt"
run $HZRIG sweep collect --dir "$T/c" --variant v --sweep-id s1 --hz 100 --batches 1
check "collect: a batch without its start is refused, no sweep.json" \
	"[ $rc -eq 1 ] && said \"no 'sweep begin'\" && [ ! -e '$T/c/sweep.json' ] && quiet"
run $HZRIG sweep collect --dir "$T/c" --variant ../x --sweep-id s1 --hz 100 --batches 1
check "collect: a variant that is not a plain name is refused" \
	"[ $rc -eq 2 ] && said 'variant' && quiet"
run $HZRIG sweep collect --dir "$T/c" --variant v --sweep-id s1 --hz 1001 --batches 1
check "collect: --hz out of the model's range is refused" "[ $rc -eq 2 ] && quiet"
mkdir -p "$T/c2" "$T/c3"
cp "$SW/batch-0.txt" "$T/c2/"
head -c 30000 "$SW/batch-0.txt" > "$T/c3/batch-0.txt"
run $HZRIG sweep collect --dir "$T/c3" --variant v --sweep-id s1 --hz 100 --batches 1
check "collect: a batch cut in the middle of a line: that line named, nothing written" \
	"[ $rc -eq 1 ] && said 'batch-0.txt: line [0-9]*: ' && [ ! -e '$T/c3/sweep.json' ] && quiet"
run $HZRIG sweep collect --dir "$T/c2" --variant v --sweep-id s1 --hz 100 --batches 1
check "collect: a whole batch without its console: collected" \
	"[ $rc -eq 0 ] && [ -s '$T/c2/sweep.json' ] && quiet"
rm -f "$T/c2/sweep.json"
run $HZRIG sweep collect --dir "$T/c2" --variant v --sweep-id s1 --hz 100 --batches 2
check "collect: a missing batch file is named, nothing written" \
	"[ $rc -eq 1 ] && said 'batch-1.txt' && [ ! -e '$T/c2/sweep.json' ] && quiet"

# A guest that died (hung, crashed): its batch is lost, not the sweep; the
# drivers whose modprobe never returned (sweep.sh's suspects-N.txt) are
# findings. Only a status that says the guest died makes a bad batch lost.
mkdir -p "$T/c4"
cp "$SW/batch-0.txt" "$T/c4/batch-0.txt"
printf 'nothing from the guest\n' > "$T/c4/batch-1.txt"
printf '{"status":"hung"}\n' > "$T/c4/status-1.json"
printf 'pctv452e\n' > "$T/c4/suspects-1.txt"
# the first boot crashed in pctv452e (sweep.sh kept its console)
printf '%s\n' '[   12.000000] BUG: kernel NULL pointer dereference, address: 0000000000000008' \
	'[   12.000001] #PF: supervisor read access in kernel mode' \
	'[   12.000002] RIP: 0010:__netif_schedule+0x8/0x60' \
	'[   12.000003] Call Trace:' '[   12.000004]  <TASK>' \
	'[   12.000005]  pctv452e_power_ctrl+0x40/0x2a0 [pctv452e]' \
	'[   12.000006]  process_one_work+0x1c4/0x380' '[   12.000007]  </TASK>' > "$T/c4/console-1-first.log"
run $HZRIG sweep collect --dir "$T/c4" --variant v --sweep-id s1 --hz 100 --batches 2
check "collect: a batch whose guest hung is recorded as lost, the rest collected" \
	"[ $rc -eq 0 ] && said 'its guest ended .hung.: the batch is recorded as lost' && jq -e '.batches[1].complete == false and (.drivers | length) > 1' '$T/c4/sweep.json' > /dev/null && quiet"
check "collect: the driver the guest died with is a finding, and the report loads it" \
	"jq -e '.drivers[] | select(.module == \"pctv452e\") | .outcome == \"kernel report\" and (.diagnosis | test(\"hung or crashed with it loaded\"))' '$T/c4/sweep.json' > /dev/null && $HZRIG sweep report '$T/c4/sweep.json' > /dev/null 2>&1; [ \$? -le 1 ]"
check "collect: the crash on the first boot's console whose stack names the suspect is its report, and the only one" \
	"jq -e '.drivers[] | select(.module == \"pctv452e\") | (.reports | length) == 1 and (.reports[0] | test(\"NULL pointer dereference\"))' '$T/c4/sweep.json' > /dev/null"
grep -v BUG "$T/c4/console-1-first.log" > "$T/c4/con" && mv "$T/c4/con" "$T/c4/console-1-first.log"
rm -f "$T/c4/sweep.json"
run $HZRIG sweep collect --dir "$T/c4" --variant v --sweep-id s1 --hz 100 --batches 2
check "collect: a suspect no report names hung the guest, and no kernel report is made up" \
	"[ $rc -eq 0 ] && jq -e '.drivers[] | select(.module == \"pctv452e\") | .outcome == \"hung the guest\" and .reports == []' '$T/c4/sweep.json' > /dev/null"
rm -f "$T/c4/sweep.json"
printf '../etc\n' > "$T/c4/suspects-1.txt"
run $HZRIG sweep collect --dir "$T/c4" --variant v --sweep-id s1 --hz 100 --batches 2
check "collect: a suspects file that is not module names: named, nothing written" \
	"[ $rc -eq 1 ] && said 'suspects-1.txt: not a list of module names' && [ ! -e '$T/c4/sweep.json' ] && quiet"
printf '{"status":"ok"}\n' > "$T/c4/status-1.json"
run $HZRIG sweep collect --dir "$T/c4" --variant v --sweep-id s1 --hz 100 --batches 2
check "collect: a bad batch whose guest ended ok is an error, nothing written" \
	"[ $rc -eq 1 ] && said \"no 'sweep begin'\" && [ ! -e '$T/c4/sweep.json' ] && quiet"

# A STALL / clear-halt loop that the guest's count of its calls caught
# before the device's count of refusals: the device saw the clear-halts,
# so the diagnosis names the loop; a call loop without them does not.
mkdir -p "$T/c6"
for h in halting plain; do
	ch=' ep=0x81 clear_halts=240'
	[ $h = halting ] || ch=
	printf '%s\n' 'sweep begin batch=0 size=32 k=2 devices=1 max_s=240 unplug_ms=0 stream=1' \
		'file index=0 name=loopy.device' 'device name=1-1 vendor=1209 product=0001' \
		'sweep t0 t=2.000000' \
		'trace      hzrig-sweep-150     [000] .....     2.000100: tracing_mark_write+0x130/0x3ee: hzrig modprobe-begin module=loopy' \
		'trace      hzrig-sweep-150     [000] .....     2.500000: tracing_mark_write+0x130/0x3ee: hzrig modprobe-end module=loopy rc=0' \
		'modprobe module=loopy rc=0 t=2.51' 'bind intf=1-1:1.0 driver=loopy' \
		"rawdev=0 t_us=7000000 contain=calls count=574 since_us=2500000$ch" \
		'sweep settled s=8' 'sweep end' > "$T/c6/batch-0.txt"
	rm -f "$T/c6/sweep.json"
	run $HZRIG sweep collect --dir "$T/c6" --variant v --sweep-id s1 --hz 100 --batches 1
	if [ $h = halting ]; then
		check "collect: a loop the guest's call count caught while the device saw clear-halts: 'looped after probe on STALL / clear-halt'" \
			"[ $rc -eq 0 ] && jq -e '.drivers[0] | .outcome == \"contained\" and (.diagnosis | startswith(\"looped after probe on STALL / clear-halt: 574 calls in 4.5 s (ep 0x81, 240 clear-halts)\"))' '$T/c6/sweep.json' > /dev/null && quiet"
	else
		check "collect: a call loop without clear-halts: 'looped after probe on its calls'" \
			"[ $rc -eq 0 ] && jq -e '.drivers[0] | .outcome == \"contained\" and (.diagnosis | startswith(\"looped after probe on its calls: 574 in 4.5 s\"))' '$T/c6/sweep.json' > /dev/null && quiet"
	fi
done

# A streamed first boot that hung after its driver's probe (the driver
# looped and the log flood held the CPU): the suspect keeps what that
# boot streamed of it, its NAKed call judged, though the boot never said
# 'sweep end' and its last line was cut; the boot again without it is
# the batch.
mkdir -p "$T/c5"
{
	printf '%s\n' 'sweep begin batch=0 size=32 k=2 devices=2 max_s=240 unplug_ms=0 stream=1' \
		'file index=0 name=loopy.device' 'file index=1 name=ch341.device' \
		'device name=1-1 vendor=1209 product=0001' 'sweep t0 t=2.000000' 'sweep alive t_us=1500000' \
		'trace         modprobe-155     [000] .....     2.099900: ctl: (usb_control_msg+0x0/0x105) pipe=2147484288 req=1 type=192 timeout=300 ip=arch_rethook_trampoline+0x0/0x4d' \
		'trace         modprobe-155     [000] .....     2.099910: <stack trace>' \
		'rawdev=0 t_us=2100100 type=0xc0 request=0x01 value=0 index=0 length=8 action=nak' \
		'trace  => usb_control_msg+0x1/0x105' 'trace  => loopy_probe+0x60/0x300 [loopy]' \
		'usbmon t_us=2100000 id=0xffff888000001000 type=S xfer=2 ep=0x80 bus=1 dev=2 status=-115 setup=c0,01,00,00,00,00,08,00' \
		'trace         modprobe-155     [000] .....     2.099950: submit: (usb_submit_urb+0x0/0x536) urb=0xffff888000001000 ip=usb_start_wait_urb+0x5f/0x108' \
		'usbmon t_us=2406010 id=0xffff888000001000 type=C xfer=2 ep=0x80 bus=1 dev=2 status=-2' \
		'trace         modprobe-155     [000] .....     2.406100: ctl_ret: (loopy_probe+0x60/0x300 [loopy] <- usb_control_msg) ret=-110' \
		'trace      hzrig-sweep-150     [000] .....     2.000100: tracing_mark_write+0x130/0x3ee: hzrig modprobe-begin module=loopy' \
		'trace      hzrig-sweep-150     [000] .....     2.500000: tracing_mark_write+0x130/0x3ee: hzrig modprobe-end module=loopy rc=0' \
		'modprobe module=loopy rc=0 t=2.51' 'sweep alive t_us=3500000'
	printf 'usbmon t_us=6600000 id=0xffff8880000'
} > "$T/c5/batch-0-first.txt"
printf '{"status":"hung"}\n' > "$T/c5/status-0-first.json"
printf 'hzrig-sweep: modprobe-begin module=loopy\nhzrig-sweep: modprobe-end module=loopy rc=0\n' > "$T/c5/console-0-first.log"
printf 'loopy\n' > "$T/c5/suspects-0.txt"
printf '%s\n' 'sweep begin batch=0 size=32 k=2 devices=1 max_s=240 unplug_ms=0 stream=1' \
	'file index=0 name=ch341.device' 'device name=1-1 vendor=1a86 product=7523' \
	'sweep settled s=3' 'sweep end' > "$T/c5/batch-0.txt"
printf '{"status":"ok"}\n' > "$T/c5/status-0.json"
run $HZRIG sweep collect --dir "$T/c5" --variant v --sweep-id s1 --hz 100 --batches 1
check "collect: a suspect keeps the NAKed call its first boot streamed, judged, and hung the guest after probe" \
	"[ $rc -eq 0 ] && jq -e '.drivers[] | select(.module == \"loopy\") | .outcome == \"hung the guest\" and (.diagnosis | startswith(\"hung the guest after probe\")) and .modprobe_rc == 0 and ([.calls[] | select(.action == \"nak\" and .verdict == \"inside\" and .timeout_arg == 300)] | length == 1) and .reports == []' '$T/c5/sweep.json' > /dev/null"
check "collect: the boot again without it is the batch, whole" \
	"jq -e '.batches[0].complete and .batches[0].ended == \"ok\" and ([.drivers[].module] | sort == [\"ch341\", \"loopy\"])' '$T/c5/sweep.json' > /dev/null"
# the same boot crashed while the guest read the driver's video node
# (gspca's read starts streaming): where it died is said
cp "$T/c5/console-0-first.log" "$T/c5/console.keep"
printf '%s\n' 'hzrig-sweep: open-begin module=loopy bus=1 entry=input:input/event3' \
	'hzrig-sweep: open-end module=loopy bus=1 entry=input:input/event3 rc=143' \
	'hzrig-sweep: open-begin module=loopy bus=1 entry=video4linux:video0' \
	'hzrig-sweep: open-begin module=loopy10 bus=1 entry=tty:ttyUSB0' \
	'[   19.3] general protection fault, probably for non-canonical address 0xdead000000000125: 0000 [#1]' \
	'[   19.4] Kernel panic - not syncing: Fatal exception' >> "$T/c5/console-0-first.log"
rm -f "$T/c5/sweep.json"
run $HZRIG sweep collect --dir "$T/c5" --variant v --sweep-id s1 --hz 100 --batches 1
check "collect: a suspect whose open never ended on a boot that panicked: 'crashed the guest on open (ENTRY)'" \
	"[ $rc -eq 0 ] && jq -e '.drivers[] | select(.module == \"loopy\") | .diagnosis | startswith(\"crashed the guest on open (video4linux:video0)\")' '$T/c5/sweep.json' > /dev/null && quiet"
printf '%s\n' 'hzrig-sweep: open-end module=loopy bus=1 entry=video4linux:video0 rc=1' >> "$T/c5/console-0-first.log"
rm -f "$T/c5/sweep.json"
run $HZRIG sweep collect --dir "$T/c5" --variant v --sweep-id s1 --hz 100 --batches 1
check "collect: its opens all ended (another driver's did not): 'crashed the guest after probe'" \
	"[ $rc -eq 0 ] && jq -e '.drivers[] | select(.module == \"loopy\") | .diagnosis | startswith(\"crashed the guest after probe\")' '$T/c5/sweep.json' > /dev/null && quiet"
mv "$T/c5/console.keep" "$T/c5/console-0-first.log"
rm -f "$T/c5/sweep.json"
printf 'loopy loopy/fw.bin standin\nloopy ok.bin present\nloopy \033[31mred.bin standin\nch341 x.bin missing\n' > "$T/c5/fw.txt"
rm -f "$T/c5/sweep.json"
run $HZRIG sweep collect --dir "$T/c5" --variant v --sweep-id s1 --hz 100 --batches 1 --firmware "$T/c5/fw.txt"
check "collect: a driver whose firmware a stand-in replaced says so beside its outcome (a name with an escape left out)" \
	"[ $rc -eq 0 ] && jq -e '(.drivers[] | select(.module == \"loopy\") | .firmware_standin == \"loopy/fw.bin\") and (.drivers[] | select(.module == \"ch341\") | .firmware_standin == null)' '$T/c5/sweep.json' > /dev/null && $HZRIG sweep report '$T/c5/sweep.json' | grep -q 'fw stand-in'"
sed -i '/modprobe-end/d; /modprobe module=loopy/d' "$T/c5/batch-0-first.txt"
rm -f "$T/c5/sweep.json"
run $HZRIG sweep collect --dir "$T/c5" --variant v --sweep-id s1 --hz 100 --batches 1
check "collect: a suspect whose modprobe's end never came: 'its modprobe never returned', its call kept" \
	"[ $rc -eq 0 ] && jq -e '.drivers[] | select(.module == \"loopy\") | (.diagnosis | startswith(\"its modprobe never returned\")) and (.calls | length == 1)' '$T/c5/sweep.json' > /dev/null"
printf '%s\n' 'sweep begin batch=0 size=32 k=2 devices=1 max_s=240 unplug_ms=0 stream=1' \
	'file index=0 name=ch341.device' 'sweep alive t_us=1500000' 'sweep alive t_us=2500000' > "$T/c5/batch-0.txt"
printf '{"status":"hung"}\n' > "$T/c5/status-0.json"
rm -f "$T/c5/sweep.json"
run $HZRIG sweep collect --dir "$T/c5" --variant v --sweep-id s1 --hz 100 --batches 1
check "collect: a streamed batch whose guest hung: kept, said, its end and last heartbeat recorded" \
	"[ $rc -eq 0 ] && said \"no 'sweep end': its guest ended 'hung'\" && jq -e '.batches[0].complete == false and .batches[0].ended == \"hung\" and .batches[0].last_alive_ms == 2500' '$T/c5/sweep.json' > /dev/null"
run $HZRIG report --kcidb="$T/c5/k.json" --sweep "$T/c5/sweep.json"
check "report --kcidb --sweep: a driver that hung the guest is a FAIL with its diagnosis" \
	"[ $rc -eq 0 ] && jq -e '[.tests[] | select(.path == \"hzrig.sweep.loopy\")][0] | .status == \"FAIL\" and (.misc.diagnosis | test(\"never returned\"))' '$T/c5/k.json' > /dev/null"
run $HZRIG sweep report "$T/c5/sweep.json"
check "sweep report: the hang and the batch that died are listed under loops, floods and hangs" \
	"grep -q 'loopy (hung the guest): its modprobe never returned' '$T/out' && grep -q 'batch 0: its guest ended hung before the batch.s end (last heartbeat 2.5 s after boot)' '$T/out'"

# A first boot that crashed in a driver its oops named (sweep.sh: kept-N.txt
# lists the drivers that boot was through with, and the boot again left
# them out): each keeps what the crashed boot streamed of it, as it was;
# the boot again (one driver left) is the batch.
mkdir -p "$T/c7"
{
	printf '%s\n' 'sweep begin batch=0 size=32 k=2 devices=3 max_s=240 unplug_ms=0 walk=6 stream=1' \
		'file index=0 name=ch341.device' 'file index=1 name=loopy.device' 'file index=2 name=pl2303.device' \
		'device name=1-1 vendor=1a86 product=7523' 'device name=2-1 vendor=1209 product=0001' 'sweep t0 t=2.000000' \
		'modprobe module=ch341 rc=0 t=2.40' 'bind intf=1-1:1.0 driver=ch341' \
		'rawdev=0 t_us=4000000 walk=done passes=2' 'through module=ch341 bus=1' \
		'modprobe module=loopy rc=0 t=2.51' 'sweep alive t_us=5500000'
} > "$T/c7/batch-0-first.txt"
printf '{"status":"crashed"}\n' > "$T/c7/status-0-first.json"
printf '%s\n' 'hzrig-sweep: modprobe-begin module=loopy' 'hzrig-sweep: modprobe-end module=loopy rc=0' \
	'[    6.000000] BUG: kernel NULL pointer dereference, address: 0000000000000008' \
	'[    6.000001] RIP: 0010:loopy_work+0x8/0x60 [loopy]' \
	'[    6.000002] Kernel panic - not syncing: Fatal exception' > "$T/c7/console-0-first.log"
printf 'loopy\n' > "$T/c7/suspects-0.txt"
printf 'ch341\n' > "$T/c7/kept-0.txt"
printf '%s\n' 'sweep begin batch=0 size=32 k=2 devices=1 max_s=240 unplug_ms=0 walk=6 stream=1' \
	'file index=0 name=pl2303.device' 'device name=1-1 vendor=067b product=2303' \
	'modprobe module=pl2303 rc=0 t=2.40' 'sweep settled s=3' 'sweep end' > "$T/c7/batch-0.txt"
printf '{"status":"ok"}\n' > "$T/c7/status-0.json"
: > "$T/c7/console-0.log"
run $HZRIG sweep collect --dir "$T/c7" --variant v --sweep-id s1 --hz 100 --batches 1
check "collect: a driver the crashed boot was through with keeps that boot's record, as it was (bound), not a suspect's" \
	"[ $rc -eq 0 ] && jq -e '(.drivers[] | select(.module == \"ch341\") | .outcome == \"bound\" and .walk_passes == 2 and .reports == []) and ([.drivers[].module] | sort == [\"ch341\", \"loopy\", \"pl2303\"])' '$T/c7/sweep.json' > /dev/null"
check "collect: ... the driver the oops named is the crash's, its report its own" \
	"jq -e '.drivers[] | select(.module == \"loopy\") | .outcome == \"kernel report\" and (.reports | length) == 1' '$T/c7/sweep.json' > /dev/null"
printf 'ch341\nloopy\n' > "$T/c7/kept-0.txt"
rm -f "$T/c7/sweep.json"
run $HZRIG sweep collect --dir "$T/c7" --variant v --sweep-id s1 --hz 100 --batches 1
check "collect: a suspect listed as kept too is the suspect, once" \
	"[ $rc -eq 0 ] && jq -e '[.drivers[] | select(.module == \"loopy\")] | length == 1 and .[0].outcome == \"kernel report\"' '$T/c7/sweep.json' > /dev/null"
printf 'ch341\n../x\n' > "$T/c7/kept-0.txt"
rm -f "$T/c7/sweep.json"
run $HZRIG sweep collect --dir "$T/c7" --variant v --sweep-id s1 --hz 100 --batches 1
check "collect: a kept file that is not module names: named, nothing written" \
	"[ $rc -eq 1 ] && said 'kept-0.txt: not a list of module names' && [ ! -e '$T/c7/sweep.json' ] && quiet"

# --- rig/sweep/suspects.sh: whom a hung batch is put down to ---------------
S=$TOP/rig/sweep/suspects.sh
printf 'mceusb\npctv452e\ndvb_usb_az6007\nipheth\n' > "$T/mods"
printf '[ 1.0] x\r\nhzrig-sweep: modprobe-begin module=ipheth\r\nhzrig-sweep: modprobe-begin module=dvb_usb_az6007\r\nhzrig-sweep: modprobe-end module=ipheth rc=0\r\n' > "$T/con1"
check "suspects: the modprobe that began and never ended (CR LF lines)" \
	"[ \"\$('$S' '$T/con1' '$T/mods')\" = dvb_usb_az6007 ]"
printf 'hzrig-sweep: modprobe-begin module=mceusb\nhzrig-sweep: modprobe-end module=mceusb rc=0\nhzrig-sweep: flood: [  9.1] mceusb 16-1:1.0: Error: request urb status = -32\n' > "$T/con2"
check "suspects: every modprobe returned: the module the flood quoted" \
	"[ \"\$('$S' '$T/con2' '$T/mods')\" = mceusb ]"
printf 'hzrig-sweep: flood: [  9.1] usb 16-1: reset high-speed USB device\n' > "$T/con3"
check "suspects: a flood quoting what is not a module of the tree: no suspect" \
	"[ -z \"\$('$S' '$T/con3' '$T/mods')\" ]"
printf 'hzrig-sweep: modprobe-begin module=a\nhzrig-sweep: modprobe-begin module=b\n' > "$T/con4"
check "suspects: two that never returned, one a line" \
	"[ \"\$('$S' '$T/con4' '$T/mods' | tr '\n' ,)\" = a,b, ]"
{
	printf 'hzrig-sweep: modprobe-begin module=%s\r\n' r8152 prism2_usb quatech2
	printf '%s\r\n' '[    5.760472] BUG: kernel NULL pointer dereference, address: 00000000000000c8' \
		'[    5.762357] Workqueue: events hfa384x_usb_defer [prism2_usb]' \
		'[    5.765735]  ? netif_tx_wake_queue+0x14/0x15' \
		'[    5.766121] Modules linked in: r8152(+) quatech2(+) prism2_usb' \
		'[    5.767463] Kernel panic - not syncing: Fatal exception'
} > "$T/con7"
check "suspects: a crash whose work item is one of the modprobes left waiting: only that one" \
	"[ \"\$('$S' '$T/con7' '$T/mods')\" = prism2_usb ]"
grep -v Workqueue "$T/con7" > "$T/con8"
check "suspects: a crash that names none of them: every modprobe left waiting" \
	"[ \"\$('$S' '$T/con8' '$T/mods' | tr '\n' ,)\" = prism2_usb,quatech2,r8152, ]"
# ums_sddr09's transport thread crashed at 125 s, its modprobe long
# returned, while four other modprobes waited: those four were blamed
# and the batch booted three times more, each crashing the same way.
printf 'ums_sddr09\nusb_storage\nusbtest\nums_karma\nlibertas_tf_usb\nlibertas_tf\n' >> "$T/mods"
{
	printf 'hzrig-sweep: modprobe-begin module=%s\r\n' usb_storage ums_sddr09 usbtest ums_karma
	printf 'hzrig-sweep: modprobe-end module=%s rc=0\r\n' usb_storage ums_sddr09
	printf '%s\r\n' '[  125.720123] BUG: kernel NULL pointer dereference, address: 0000000000000034' \
		'[  125.721074] Oops: 0000 [#1]' \
		'[  125.721198] CPU: 0 PID: 2941 Comm: usb-storage Not tainted 6.1.192 #1 ' \
		'[  125.721390] RIP: 0010:sddr09_transport+0x116/0xcdd [ums_sddr09]' \
		'[  125.723511] Call Trace:' \
		'[  125.723822]  ? dpcm_transport+0x32/0x46 [ums_sddr09]' \
		'[  125.723956]  ? usb_stor_invoke_transport+0x21/0x3aa [usb_storage]' \
		'[  125.726440] Modules linked in: usbtest(+) ums_karma(+) ums_sddr09 usb_storage' \
		'[  125.728838] Kernel panic - not syncing: Fatal exception'
} > "$T/con11"
check "suspects: a crash whose faulting frame is a driver whose modprobe returned, while others wait: that driver" \
	"[ \"\$('$S' '$T/con11' '$T/mods')\" = ums_sddr09 ]"
{
	printf 'hzrig-sweep: modprobe-begin module=%s\r\n' usbtest libertas_tf_usb
	printf 'hzrig-sweep: modprobe-end module=libertas_tf_usb rc=0\r\n'
	printf '%s\r\n' '[  127.0] BUG: kernel NULL pointer dereference, address: 0000000000000000' \
		'[  127.0] Workqueue: libertastf lbtf_cmd_work [libertas_tf]' \
		'[  127.0] RIP: 0010:usb_submit_urb+0x52/0x536' \
		'[  127.0]  ? usb_tx_block+0x6e/0x75 [libertas_tf_usb]' \
		'[  127.0]  ? lbtf_execute_next_command+0xb0/0xf7 [libertas_tf]' \
		'[  127.1] Kernel panic - not syncing: Fatal exception'
} > "$T/con12"
check "suspects: a crash in the core's code, a library's work item: the batch's driver innermost in the trace" \
	"[ \"\$('$S' '$T/con12' '$T/mods')\" = libertas_tf_usb ]"
# --why: "oops" when the crash's frames named the driver (its retry can
# leave out the drivers that were through), "guess" otherwise
check "suspects --why: a crash whose frames name the driver: oops" \
	"[ \"\$('$S' --why '$T/why12' '$T/con12' '$T/mods')\" = libertas_tf_usb ] && [ \"\$(cat '$T/why12')\" = oops ]"
check "suspects --why: a crash that names none of them (the modprobes left waiting): guess" \
	"[ -n \"\$('$S' --why '$T/why8' '$T/con8' '$T/mods')\" ] && [ \"\$(cat '$T/why8')\" = guess ]"
check "suspects --why: a modprobe left waiting, no crash: guess" \
	"'$S' --why '$T/why1' '$T/con1' '$T/mods' > /dev/null && [ \"\$(cat '$T/why1')\" = guess ]"
run "$S" --why
check "suspects --why without its file: usage, exit 2" "[ $rc -eq 2 ] && said usage"
printf 'gspca_m5602\ngspca_main\ngspca_gl860\n' >> "$T/mods"
{
	printf 'hzrig-sweep: modprobe-begin module=%s\r\n' gspca_gl860 gspca_m5602
	printf 'hzrig-sweep: modprobe-end module=gspca_m5602 rc=0\r\n'
	printf 'hzrig-sweep: open-begin module=%s\r\n' 'gspca_m5602 bus=3 entry=input:input/event2' \
		'gspca_m5602 bus=3 entry=video4linux:video1' 'ch341 bus=4 entry=tty:ttyUSB0'
	printf 'hzrig-sweep: open-end module=%s\r\n' 'gspca_m5602 bus=3 entry=input:input/event2 rc=143' \
		'ch341 bus=4 entry=tty:ttyUSB0 rc=0'
	printf '%s\r\n' '[   19.3] general protection fault, probably for non-canonical address 0xdead000000000125: 0000 [#1]' \
		'[   19.3] CPU: 0 PID: 1350 Comm: head Tainted: G        WC         6.1.192 #1 ' \
		'[   19.3] RIP: 0010:alt_xfer+0x14/0x43 [gspca_main]' \
		'[   19.3]  ? gspca_init_transfer.constprop.0+0xdc/0x6a6 [gspca_main]' \
		'[   19.3]  ? v4l2_read+0x40/0x84 [videodev]' \
		'[   19.4] Kernel panic - not syncing: Fatal exception'
} > "$T/con14"
check "suspects: a crash in the opener's read, a library's frames only: the driver whose open never ended" \
	"[ \"\$('$S' '$T/con14' '$T/mods')\" = gspca_m5602 ]"
sed 's/Comm: head/Comm: modprobe/' "$T/con14" > "$T/con15"
check "suspects: the same crash in a modprobe: the modprobe left waiting" \
	"[ \"\$('$S' '$T/con15' '$T/mods')\" = gspca_gl860 ]"
{
	printf 'hzrig-sweep: modprobe-begin module=%s\r\n' usbtest libertas_tf_usb
	printf 'hzrig-sweep: modprobe-end module=libertas_tf_usb rc=0\r\n'
	printf '%s\r\n' '[  17.4] ------------[ cut here ]------------' \
		'[  17.4] WARNING: CPU: 0 PID: 947 at drivers/usb/core/urb.c:411 usb_submit_urb+0x15d/0x536' \
		'[  17.4] RIP: 0010:usb_submit_urb+0x15d/0x536' \
		'[  17.4]  ? usb_tx_block+0x6e/0x75 [libertas_tf_usb]' \
		'[  17.4] ---[ end trace 0000000000000000 ]---'
} > "$T/con13"
check "suspects: a WARNING's trace is no crash: the modprobe left waiting" \
	"[ \"\$('$S' '$T/con13' '$T/mods')\" = usbtest ]"
{
	printf 'hzrig-sweep: modprobe-begin module=%s\r\nhzrig-sweep: modprobe-end module=%s rc=0\r\n' \
		dvb_usb_pctv452e dvb_usb_pctv452e em28xx em28xx
	for i in $(seq 100); do
		printf '[  239.6%05d] dvb-usb: bulk message failed: -22 (4/0)\r\n[  239.6%05d] pctv452e: CI error -22; AA EF 40 -> aa ef 40.\r\n' "$i" "$i"
	done
} > "$T/con5"
check "suspects: a flood the guest never quoted (it held the CPU): the batch's module its lines name" \
	"[ \"\$('$S' '$T/con5' '$T/mods')\" = dvb_usb_pctv452e ]"
{ head -n 4 "$T/con5"; sed -n '5,40p' "$T/con5"; } > "$T/con6"
check "suspects: a hang with no flood (a few lines): no suspect" "[ -z \"\$('$S' '$T/con6' '$T/mods')\" ]"
printf 'hzrig-sweep: modprobe-begin module=ipheth\r\nhzrig-sweep: modprobe-end module=ipheth rc=0\r\nhzrig-sweep: modprobe-begin module=mceusb\r\nhzrig-sweep: modprobe-end module=mceusb rc=0\r\n' > "$T/con9"
printf '%s\r\n' 'modprobe module=mceusb rc=0 t=3.1' 'bind intf=2-1:1.0 driver=mceusb' \
	'modprobe module=ipheth rc=0 t=5.1' 'bind intf=1-0:1.0 driver=hub' 'sweep alive t_us=5200000' 'sweep settled s=9' \
	'bind intf=1-1:1.0 driver=ipheth' > "$T/stream9"
check "suspects: every modprobe returned, no flood: the driver that bound last, from the stream (a root hub's binding is none)" \
	"[ \"\$('$S' '$T/con9' '$T/mods' '$T/stream9')\" = mceusb ]"
printf '%s\r\n' 'modprobe module=mceusb rc=0 t=3.1' 'bind intf=2-1:1.0 driver=mceusb' \
	'modprobe module=ipheth rc=0 t=5.1' 'bound module=mceusb bus=2 dev=2 t=5.0' \
	'rawdev=0 t_us=9000000 walk=replug pass=3' 'bound module=ipheth bus=1 dev=4 t=9.6' 'sweep alive t_us=10200000' > "$T/stream10"
check "suspects: a driver that bound only in a later pass of the walk (its modprobe's probe failed), and last: it" \
	"[ \"\$('$S' '$T/con9' '$T/mods' '$T/stream10')\" = ipheth ]"
check "suspects: the same without the stream: no suspect" \
	"[ -z \"\$('$S' '$T/con9' '$T/mods')\" ]"
check "suspects: a modprobe left waiting wins over the stream's last bound" \
	"[ \"\$('$S' '$T/con1' '$T/mods' '$T/stream9')\" = dvb_usb_az6007 ]"
run "$S" "$T/none" "$T/mods"
check "suspects: a console that is not there is named, exit 2" "[ $rc -eq 2 ] && said 'none'"

# --- stale jiffies (docs/model.md section 10) --------------------------------
# One driver's NAKed 500 ms request at HZ=100 that ended 0.05 ms before
# the window's lo. Other tasks' schedule_timeout() timers give the tick
# grid: jiffies 1000 from 1.000000 s. Its own timer_start says whether it
# was armed on stale jiffies (1029 at 1.3002 s, where the grid says 1030:
# lo moves down a jiffy, inside), on time (outside, with that reason), or
# was not seen at all (outside, no record).
stale_batch() {	# DIR TIMER-LINE
	mkdir -p "$1"
	cat > "$1/batch-0.txt" <<EOB
sweep begin batch=0 size=32 k=2 devices=1 t0=1.00 settled_s=3 max_s=60
file index=0 name=drv.device
device name=1-1 vendor=1234 product=5678
modprobe module=drv rc=0 t=2.00
rawdev=0 note="/etc/hzrig/sweep/drv.device on dummy_udc.0, 1234:5678"
rawdev=0 t_us=1300160 type=0xc0 request=0x01 value=0 index=0 length=8 action=nak
usbmon t_us=1300150 id=0xffff888000001000 type=S xfer=2 ep=0x80 bus=1 dev=2 status=-115 setup=c0,01,00,00,00,00,08,00
usbmon t_us=1800100 id=0xffff888000001000 type=C xfer=2 ep=0x80 bus=1 dev=2 status=-2
usbmon end dropped=0
trace     kworker/u2:0-9       [000] d..1.     1.000050: timer_start: timer=0000000000000001 function=process_timeout expires=1001 [timeout=1] cpu=0 idx=1 flags=
trace     kworker/u2:0-9       [000] d..1.     1.105000: timer_start: timer=0000000000000001 function=process_timeout expires=1011 [timeout=1] cpu=0 idx=1 flags=
trace     kworker/u2:0-9       [000] d..1.     1.207000: timer_start: timer=0000000000000001 function=process_timeout expires=1021 [timeout=1] cpu=0 idx=1 flags=
trace     modprobe-155     [000] .....     1.300100: ctl: (usb_control_msg+0x0/0x105) pipe=2147484288 req=1 type=192 timeout=500 ip=arch_rethook_trampoline+0x0/0x4d
trace     modprobe-155     [000] .....     1.300110: <stack trace>
trace  => usb_control_msg+0x1/0x105
trace  => drv_probe+0x160/0x393 [drv]
trace     modprobe-155     [000] .....     1.300150: submit: (usb_submit_urb+0x0/0x536) urb=0xffff888000001000 ip=usb_start_wait_urb+0x5f/0x108
$2
trace     modprobe-155     [000] .....     1.800200: ctl_ret: (drv_probe+0x160/0x393 [drv] <- usb_control_msg) ret=-110
sweep end
EOB
}
TL='trace     modprobe-155     [000] d..1.     1.300200: timer_start: timer=0000000000000002 function=process_timeout'
stale_batch "$T/st1" "$TL expires=1079 [timeout=50] cpu=0 idx=50 flags="
stale_batch "$T/st2" "$TL expires=1080 [timeout=50] cpu=0 idx=50 flags="
stale_batch "$T/st3" ""
for i in 1 2 3; do
	$HZRIG sweep collect --dir "$T/st$i" --variant v$i --sweep-id s1 --hz 100 --batches 1 > /dev/null 2>&1
done
call() { jq -c '.drivers[] | select(.module == "drv") | .calls[0] | [.jiffies_lag, .window_lo_ns, .verdict]' "$T/st$1/sweep.json" 2>/dev/null; }
check "collect: a wait armed on stale jiffies (lag 1): lo a jiffy lower, inside" \
	"[ '$(call 1)' = '[1,490000000,\"inside\"]' ] && jq -e '.batches[0].timers == 4' '$T/st1/sweep.json' > /dev/null"
check "collect: the same wait armed on time (lag 0): outside" "[ '$(call 2)' = '[0,500000000,\"outside\"]' ]"
check "collect: no timer_start for it: no lag recorded, outside" "[ '$(call 3)' = '[null,500000000,\"outside\"]' ]"
printed() { grep -qF -- "$1" "$T/out"; }
run $HZRIG sweep report "$T/st1/sweep.json" "$T/st2/sweep.json" "$T/st3/sweep.json"
check "report: the calls outside are listed with their reason, the stale one counted" \
	"printed 'HZ=100  drv_probe+0x160/0x393 [drv] timeout 500: 499.950 ms, window (500.000, 510.000] ms: early: armed on jiffies that were on time' && printed 'early: no timer_start seen for it' && printed '3 NAKed calls judged; 1 armed on stale jiffies'"

# --- hzrig sweep report, ingest --sweep, report --kcidb --sweep --------------
bad() {	# NAME JQ-EDIT: a sweep.json with one field made hostile
	jq "$2" "$SW/sweep.json" > "$T/$1.json"
}
bad type '.hz = "100"'
bad range '.drivers[0].calls[0].timeout_arg = 4294967296'
bad outcome '.drivers[0].outcome = "exploded"'
bad window '(.drivers[] | select(.module == "ipheth") | .calls[] | select(.action == "nak")) |= (.window_lo_ns = 600000000)'
bad batch '.drivers[0].batch = 7'
bad twice '.drivers[1].module = .drivers[0].module'
bad name '.variant = "../../etc"'
bad newline '.drivers[0].calls[0].site = "a\nb"'
bad reports '.drivers[0].reports = [1]'
bad unreported '.drivers[0].outcome = "kernel report" | .drivers[0].reports = []'
bad unplug '.batches[0].unplug_ms = 60001'
bad requests '.drivers[0].reports = ["WARNING: x"] | .drivers[0].report_requests = [1000001]'
bad requestn '.drivers[0].reports = ["WARNING: x"] | .drivers[0].report_requests = [1, 2]'
for k in type range outcome window batch twice name newline reports unreported unplug requests requestn; do
	run $HZRIG sweep report "$T/$k.json"
	check "report: sweep.json with a bad $k is refused, the field named" \
		"[ $rc -eq 2 ] && grep -q '$k.json: ' '$T/err' && quiet"
	run $HZRIG ingest --db "$T/h.db" --sweep "$T/$k.json"
	check "ingest --sweep: bad $k, nothing recorded" \
		"[ $rc -eq 2 ] && { [ ! -e '$T/h.db' ] || [ \"\$(sqlite3 '$T/h.db' 'SELECT count(*) FROM sweep_runs')\" = 0 ]; } && quiet"
	run $HZRIG report --kcidb="$T/k.json" --sweep "$T/$k.json"
	check "report --kcidb --sweep: bad $k, nothing written" "[ $rc -eq 2 ] && [ ! -e '$T/k.json' ] && quiet"
done
run $HZRIG sweep report "$SW/sweep.json" "$SW/sweep.json" "$SW/sweep.json" "$SW/sweep.json" \
	"$SW/sweep.json" "$SW/sweep.json" "$SW/sweep.json" "$SW/sweep.json" "$SW/sweep.json"
check "report: more than 8 variants is bad usage" "[ $rc -eq 2 ] && said '1 to 8' && quiet"
run $HZRIG ingest --db "$T/h2.db" --sweep "$SW/sweep.json"
run $HZRIG ingest --db "$T/h2.db" --sweep "$T/range.json" "$SW/sweep.json"
check "ingest --sweep: a bad file beside a good one: the good one stays as it was" \
	"[ $rc -eq 2 ] && [ \"\$(sqlite3 '$T/h2.db' 'SELECT count(*) FROM sweep_runs')\" = 1 ] && quiet"
jq '.drivers[0].nak = 5' "$SW/sweep.json" > "$T/changed.json"
run $HZRIG ingest --db "$T/h2.db" --sweep "$T/changed.json"
check "ingest --sweep: the same sweep and variant, changed: unchanged, exit 1" \
	"[ $rc -eq 1 ] && said 'already ingested but the file differs' && quiet"
run $HZRIG ingest --db "$T/h2.db" --sweep --lava "$SW/sweep.json"
check "ingest: --sweep with --lava is bad usage" "[ $rc -eq 2 ] && said 'one or the other' && quiet"
# schema 9: how far the sweep went with a driver, in columns of its own
jq '.sweep_id = "s9" | .drivers[0].walk_passes = 3 | .drivers[0].shape = 2 | .drivers[0].firmware_standin = "x.fw" | .drivers[0].opened = ["net:eth0 rc=0", "tty:ttyUSB0 rc=1"]' \
	"$SW/sweep.json" > "$T/s9.json"
run $HZRIG ingest --db "$T/h9.db" --sweep "$T/s9.json"
check "ingest --sweep: a driver's walk passes, shape, firmware stand-in and opened entries in their columns" \
	"[ $rc -eq 0 ] && [ \"\$(sqlite3 '$T/h9.db' \"SELECT walk_passes || '|' || shape || '|' || firmware_standin || '|' || replace(opened, char(10), ',') FROM sweep_drivers WHERE module = (SELECT module FROM sweep_drivers ORDER BY rowid LIMIT 1)\")\" = '3|2|x.fw|net:eth0 rc=0,tty:ttyUSB0 rc=1' ] && [ \"\$(sqlite3 '$T/h9.db' 'SELECT count(*) FROM sweep_drivers WHERE shape IS NOT NULL')\" = 1 ]"

# --- hzrig lava jobs on a sweep variant --------------------------------------
mkdir -p "$T/b/sweep-check-hz-100/sweep-devices" "$T/b/sweep-check-hz-100/kernel/arch/x86/boot"
: > "$T/b/sweep-check-hz-100/kernel/arch/x86/boot/bzImage"
: > "$T/b/sweep-check-hz-100/initramfs.cpio"
for i in $(seq 1 40); do echo "m$i alias 1 alias usb:v0001p0001d*dc*dsc*dp*ic*isc*ip*in* m$i"; done > "$T/b/sweep-check-hz-100/sweep-devices/index"
run $HZRIG lava jobs --build "$T/b" --out "$T/jobs" --batch-size 32 sweep-check-hz-100
check "lava jobs: 40 devices in batches of 32 make two jobs, the second of 8 devices" \
	"[ $rc -eq 0 ] && [ -f '$T/jobs/sweep-check-hz-100-batch-0.yaml' ] && grep -q 'dummy_hcd.num=8' '$T/jobs/sweep-check-hz-100-batch-1.yaml' && [ ! -e '$T/jobs/sweep-check-hz-100-batch-2.yaml' ] && quiet"
run $HZRIG lava jobs --build "$T/b" --out "$T/jobs" --batch-size 33 sweep-check-hz-100
check "lava jobs: --batch-size over dummy_hcd's 32 is refused" "[ $rc -eq 2 ] && quiet"
# a hung batch again without its suspects (sweep.sh --lab): one batch's job
run $HZRIG lava jobs --build "$T/b" --out "$T/jobs-r" --only-batch 1 --skip m33,m40 sweep-check-hz-100
check "lava jobs: --only-batch 1 --skip: that batch's job alone, its suspects on its command line" \
	"[ $rc -eq 0 ] && [ \$(ls '$T/jobs-r' | wc -l) = 1 ] && grep -q 'dummy_hcd.num=8 hzrig.sweep_skip=m33,m40' '$T/jobs-r/sweep-check-hz-100-batch-1.yaml' && quiet"
run $HZRIG lava jobs --build "$T/b" --out "$T/jobs-r2" --only-batch 2 sweep-check-hz-100
check "lava jobs: --only-batch past the last batch is refused, named, nothing written" \
	"[ $rc -eq 2 ] && said 'it has batches 0..1' && [ -z \"\$(ls '$T/jobs-r2' 2>/dev/null)\" ]"
long=$(printf 'm%.0s' $(seq 1 1201))
# a boot again without a crash's suspect and the 31 drivers it was
# through with: 31 long names fit
many=$(for k in $(seq 1 31); do printf 'dvb_usb_technisat_usb%02d,' "$k"; done)
many=${many%,}
run $HZRIG lava jobs --build "$T/b" --out "$T/jobs-r5" --only-batch 1 --skip "$many" sweep-check-hz-100
check "lava jobs: --skip of 31 long module names (${#many} characters) reaches the job's command line whole" \
	"[ $rc -eq 0 ] && grep -q 'hzrig.sweep_skip=$many' '$T/jobs-r5/sweep-check-hz-100-batch-1.yaml'"
for bad in 'm1,' ',m1' 'm1,,m2' 'm1 m2' 'm1;reboot' "$long"; do
	run $HZRIG lava jobs --build "$T/b" --out "$T/jobs-r3" --skip "$bad" sweep-check-hz-100
	check "lava jobs: --skip '${bad:0:12}' (${#bad} characters; not module names and commas, or too long) is refused, nothing written" \
		"[ $rc -eq 2 ] && said 'is not module names separated by commas' && [ ! -e '$T/jobs-r3' ]"
done
run $HZRIG lava jobs --build "$T/b" --out "$T/jobs-r4" --skip m1 hz-250
check "lava jobs: --skip on a variant that is not a built sweep is refused" \
	"[ $rc -eq 2 ] && said 'for a sweep.s batches'"

# --- the cross-check: a checker site in another file of a swept module ------
printf '%s' '{"kept":[{"module":"cx231xx","symbol":"VIDEO_CX231XX","files":["drivers/media/usb/cx231xx/cx231xx-cards.c"]},' \
	'{"module":"ipheth","symbol":"USB_IPHETH","files":["drivers/net/usb/ipheth.c"]},' \
	'{"module":"usbnet","symbol":"USB_USBNET","files":["drivers/net/usb/usbnet.c"]}]}' > "$T/sel-x.json"
printf '%s' '{"sites":[{"site":"drivers/media/usb/cx231xx/cx231xx-core.c:1404"},' \
	'{"site":"drivers/net/usb/other.c:10"},{"site":"drivers/net/usb/ipheth.c:248"}]}' > "$T/ct-x.json"
run $HZRIG sweep report --format json --check-tree "$T/ct-x.json" --select "$T/sel-x.json" "$SW/sweep.json"
check "report: a checker site in a module's other file is put down to the module kept in that directory" \
	"jq -e '.cross_check.checker_only[] | select(.site | test(\"cx231xx-core\")) | .why | test(\"^cx231xx was not built\")' '$T/out' > /dev/null"
check "report: a file in a directory of several kept modules, named after none: not in the sweep" \
	"jq -e '.cross_check.checker_only[] | select(.site | test(\"other.c\")) | .why == \"its driver is not in this sweep\"' '$T/out' > /dev/null"

# --- sweep.sh --collect-only: no batches, nothing made ------------------------
run env B="$T/nob" "$TOP/rig/sweep/sweep.sh" --collect-only --out "$T/nosweep" sweep-check-hz-100
check "sweep.sh --collect-only: no batches of an earlier run: named, exit 1, nothing written" \
	"[ $rc -eq 1 ] && grep -q 'no batches in $T/nosweep/sweep-check-hz-100 to collect' '$T/out' && [ ! -e '$T/nosweep/sweep-check-hz-100' ] && [ ! -e '$T/nob' ]"

# --- the unplug pass's options ----------------------------------------------
run "$TOP/rig/sweep/sweep.sh" --unplug-ms 100 --nak 0 sweep-check-debug-hz-250
check "sweep.sh: --unplug-ms with --nak 0 (nothing NAKed to unplug under) is refused" \
	"[ $rc -eq 2 ] && said 'needs --nak 1 or more'"
run "$TOP/rig/sweep/sweep.sh" --unplug-ms 1e3 sweep-check-debug-hz-250
check "sweep.sh: --unplug-ms not a number is refused, named" "[ $rc -eq 2 ] && said \"not '1e3'\""
# --jobs: guests at once, 1..16
run "$TOP/rig/sweep/sweep.sh" --jobs 0 --out "$T/nojobs" sweep-check-hz-100
check "sweep.sh: --jobs 0 is refused, named, nothing written" \
	"[ $rc -eq 2 ] && said '--jobs must be 1..16' && [ ! -e '$T/nojobs' ]"
run "$TOP/rig/sweep/sweep.sh" --jobs two --out "$T/nojobs" sweep-check-hz-100
check "sweep.sh: --jobs not a number is refused, named" "[ $rc -eq 2 ] && said \"not 'two'\" && [ ! -e '$T/nojobs' ]"
run $HZRIG lava jobs --build "$T/b" --out "$T/jobs2" --unplug-ms 100 --nak 0 sweep-check-hz-100
check "lava jobs: --unplug-ms with --nak 0 is refused, nothing written" \
	"[ $rc -eq 2 ] && said 'needs --nak 1 or more' && [ ! -e '$T/jobs2' ] && quiet"
run $HZRIG lava jobs --build "$T/b" --out "$T/jobs3" --unplug-ms 100 sweep-check-hz-100
check "lava jobs: --unplug-ms reaches each batch's command line" \
	"[ $rc -eq 0 ] && grep -q 'hzrig.unplug_ms=100' '$T/jobs3/sweep-check-hz-100-batch-0.yaml' && quiet"

echo "sweep: $pass passed, $failn failed"
[ $failn -eq 0 ]
