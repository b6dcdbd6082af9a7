#!/bin/bash
# inputs.sh HZRIG: hostile input, round two (issue 25), through an hzrig
# built with ASan and UBSan. Each class failed before rig/lib/io.c and the
# fixes beside it:
#   1 reads that never end (FIFOs, devices, files without bound)
#   2 partial data recorded as whole (ingest --lava)
#   3 "nothing written", but something was
#   4 output paths replaced (symlinks, devices, the input itself)
#   5 check-tree trusting file names and expressions
#   6 lava jobs trusting variant names, command lines and URLs
#   7 numbers, text and odd cases
#   8 messages a user cannot act on
# No command may take more than 5 s on a FIFO or a device given as any
# input: each runs under `timeout 5`, and 124 fails the check.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/tests/hostile/harness.sh"
RUN=$DATA/kcidb/20261203T102031Z
run() { timeout 5 "$@" >"$T/out" 2>"$T/err" </dev/null; rc=$?; }
# spatch on a busy machine: a bound that is not about hanging
run_long() { timeout 120 "$@" >"$T/out" 2>"$T/err" </dev/null; rc=$?; }

# fresh NAME: a copy of the two-variant fixture run as $T/NAME.
fresh() { rm -rf "${T:?}/$1"; cp -r "$RUN" "$T/$1"; }
xz -dc "$DATA/lava/hz-250-quick.yaml.xz" > "$T/log.yaml"

# --- 1. reads that never end ---------------------------------------------
# Each kind of input, as a FIFO (nobody writes it), /dev/zero and
# /dev/urandom: refused at once, by name.
for kind in fifo zero urandom; do
	mk() {	# mk PATH: PATH as this kind
		rm -f "$1"
		case $kind in
		fifo) mkfifo "$1" ;;
		*) ln -s "/dev/$kind" "$1" ;;
		esac
	}
	what=$([ $kind = fifo ] && echo "a FIFO" || echo "a character device")

	fresh "s-$kind"
	mk "$T/s-$kind/samples.jsonl"
	for c in compare report "report --kcidb" "ingest --db $T/h-$kind.db"; do
		run $HZRIG $c "$T/s-$kind"
		check "samples.jsonl $kind: $c refuses it at once, says $what" \
			"[ $rc -eq 2 ] && said 'samples.jsonl: is $what' && quiet"
	done
	fresh "b-$kind"
	mk "$T/b-$kind/hz-100/build.json"
	run $HZRIG compare "$T/b-$kind"
	check "build.json $kind: compare refuses it at once" "[ $rc -eq 2 ] && said 'build.json: is $what' && quiet"

	mk "$T/lava-$kind"
	run $HZRIG ingest --db "$T/l.db" --lava --results "$T/res" "$T/lava-$kind"
	check "ingest --lava of $kind: refused at once, says $what" \
		"[ $rc -eq 2 ] && said 'is $what' && quiet"
	mkdir -p "$T/lavadir-$kind"
	mk "$T/lavadir-$kind/output.yaml"
	run $HZRIG ingest --db "$T/l.db" --lava --results "$T/res" "$T/lavadir-$kind"
	check "ingest --lava of a directory whose output.yaml is $kind: refused at once" \
		"[ $rc -eq 2 ] && said 'output.yaml: is $what' && quiet"

	mk "$T/console-$kind"
	run $HZRIG findings --console "$T/console-$kind"
	check "findings --console $kind: refused at once, says $what" \
		"[ $rc -eq 2 ] && said 'is $what' && quiet"

	for opt in serial console boot-status; do
		rm -f "$T/serial" "$T/console" "$T/status"
		cp "$DATA/captures/good.jsonl" "$T/serial"
		cp "$DATA/captures/console.log" "$T/console"
		cp "$DATA/captures/status-ok.json" "$T/status"
		case $opt in
		serial) mk "$T/serial" ;;
		console) mk "$T/console" ;;
		boot-status) mk "$T/status" ;;
		esac
		mkdir -p "$T/col-$kind-$opt"
		run $HZRIG collect --variant hz-1000 --serial "$T/serial" --console "$T/console" \
			--boot-status "$T/status" --out "$T/col-$kind-$opt"
		check "collect --$opt $kind: refused at once" \
			"[ $rc -eq 2 ] && said 'is $what' && quiet && [ -z \"\$(ls -A '$T/col-$kind-$opt')\" ]"
	done

	mk "$T/cocci-$kind"
	run $HZRIG check-tree --cocci "$T/cocci-$kind" "$T"
	check "check-tree --cocci $kind: refused at once" "[ $rc -eq 2 ] && said 'is $what' && quiet"
	mk "$T/planb-$kind"
	run $HZRIG lava jobs --plan "$T/planb-$kind" hz-250
	check "lava jobs --plan $kind: refused at once" "[ $rc -eq 2 ] && said 'is $what' && quiet"
	printf 'x' > "$T/img"
	run $HZRIG boot --variant v --kernel "$T/img" --initrd "$T/img" --plan "$T/planb-$kind" \
		--qemu-config "$TOP/rig/boot/qemu/x86_64.conf" --console "$T/c.log" --samples "$T/s.jsonl"
	check "boot --plan $kind: refused at once" "[ $rc -eq 2 ] && said 'is $what' && quiet"
	run $HZRIG boot --variant v --kernel "$T/planb-$kind" --initrd "$T/img" --timeout 5 \
		--qemu-config "$TOP/rig/boot/qemu/x86_64.conf" --console "$T/c.log" --samples "$T/s.jsonl"
	check "boot --kernel $kind: refused before QEMU starts" "[ $rc -eq 2 ] && said 'kernel .*is $what' && quiet"
	run $HZRIG boot --variant v --kernel "$T/img" --initrd "$T/planb-$kind" --timeout 5 \
		--qemu-config "$TOP/rig/boot/qemu/x86_64.conf" --console "$T/c.log" --samples "$T/s.jsonl"
	check "boot --initrd $kind: refused before QEMU starts" "[ $rc -eq 2 ] && said 'initrd .*is $what' && quiet"
	mk "$T/db-$kind"
	for c in "history" "dashboard --out $T/dash" "check-regressions" "baseline show"; do
		run $HZRIG $c --db "$T/db-$kind"
		check "$c --db $kind: refused at once" "[ $rc -eq 2 ] && said 'not a regular file' && quiet"
	done
	mk "$T/plan-$kind.plan"
	run $HZRIG plan "$T/plan-$kind.plan"
	check "plan FILE $kind: refused at once" "[ $rc -eq 1 ] && said 'is $what' && quiet"
	mk "$T/qemu-$kind.conf"
	run $HZRIG lava device --qemu-config "$T/qemu-$kind.conf"
	check "lava device --qemu-config $kind: refused at once" "[ $rc -eq 2 ] && said 'is $what' && quiet"
done

# check-tree on a tree holding a FIFO x.c, a FIFO x.h, a .h that is
# /dev/zero and a FIFO Makefile: nothing blocks, each is said.
mkdir -p "$T/tree"
printf 'int f(struct usb_device *d)\n{\n\treturn usb_bulk_msg(d, 0, 0, 0, 0, HZ);\n}\n' > "$T/tree/a.c"
mkfifo "$T/tree/x.c" "$T/tree/x.h" "$T/tree/Makefile"
ln -s /dev/zero "$T/tree/zero.h"
if command -v spatch >/dev/null; then
	run $HZRIG check-tree "$T/tree"
	check "check-tree: FIFO x.c, FIFO x.h, a .h to /dev/zero, FIFO Makefile: done in time, each said, exit 2" \
		"[ $rc -eq 2 ] && said 'x.c: left out: not a regular file' && said 'x.h: macros not read: is a FIFO' && said 'zero.h: macros not read: is a character device' && grep -q 'a.c' '$T/out' && quiet"
else
	ok "# SKIP check-tree needs spatch"
fi

# A file over its kind's bound (sparse): refused with the bound named.
fresh big
truncate -s $((1024 * 1024 * 1024 + 1)) "$T/big/samples.jsonl"
run $HZRIG compare "$T/big"
check "samples.jsonl of 1 GiB + 1 byte: refused, the bound named" \
	"[ $rc -eq 2 ] && said 'over the 1 GiB' && quiet"
truncate -s $((512 * 1024 * 1024 + 1)) "$T/big-console"
run $HZRIG findings --console "$T/big-console"
check "a console of 512 MiB + 1 byte: refused, the bound named" \
	"[ $rc -eq 2 ] && said 'over the 512 MiB' && quiet"

# --- 2. partial data recorded as whole -------------------------------------
lava_ingest() {	# lava_ingest NAME LOG: into $T/r-NAME, history $T/r-NAME.db
	run $HZRIG ingest --db "$T/r-$1.db" --lava --results "$T/r-$1" "$2"
}
nothing_left() { [ ! -e "$T/r-$1.db" ] && [ -z "$(ls -A "$T/r-$1/runs" 2>/dev/null)" ]; }
# mutate KIND: $T/log.yaml with one thing changed, to $T/KIND.yaml. The
# log writes a quote of the guest's line as \\\" (LAVA's escaping, then
# YAML's).
mutate() {
	python3 - "$T/log.yaml" "$T/$1.yaml" "$1" <<'PY'
import re, sys
src, dst, kind = sys.argv[1:]
q = '\\\\\\"'
text = open(src).read()
def line10(f):
    global text
    m = re.search(r'^.*hzrig-jsonl 10 .*$', text, re.M)
    text = text[:m.start()] + f(m.group(0)) + text[m.end():]
if kind == 'notjson':
    line10(lambda l: l[:l.index('hzrig-jsonl 10 ') + 15] + '{not json"}')
elif kind == 'range':
    line10(lambda l: re.sub(r'(elapsed_ns' + re.escape(q) + r':)[0-9]+', r'\g<1>-5', l))
elif kind == 'transfer':
    line10(lambda l: re.sub(r'(transfer' + re.escape(q) + ':' + re.escape(q) + r')[a-z-]+', r'\g<1>..', l))
elif kind == 'build':
    text = text.replace('patches' + q + ':[]', 'patches' + q + ':[' + q + '../x' + q + ']', 1)
open(dst, 'w').write(text)
PY
	if cmp -s "$T/log.yaml" "$T/$1.yaml"; then
		ko "mutate $1: the fixture did not change (test broken)"
		return 1
	fi
}
for k in notjson range transfer; do
	mutate $k || continue
	lava_ingest $k "$T/$k.yaml"
	check "ingest --lava with one bad sample line ($k): refused whole, nothing written" \
		"[ $rc -eq 2 ] && said 'refused whole' && said 'nothing written' && nothing_left $k && quiet"
done
sed 's/hzrig-jsonl-end 412/hzrig-jsonl-end 412junk/' "$T/log.yaml" > "$T/junk.yaml"
lava_ingest junk "$T/junk.yaml"
check "ingest --lava: 'hzrig-jsonl-end 412junk' refused" \
	"[ $rc -eq 2 ] && said 'a bad end count' && nothing_left junk && quiet"
sed 's/hzrig-jsonl 7 /hzrig-jsonl +7 /' "$T/log.yaml" > "$T/plus.yaml"
lava_ingest plus "$T/plus.yaml"
check "ingest --lava: a sample number with a sign refused" \
	"[ $rc -eq 2 ] && said 'without its number' && nothing_left plus && quiet"

# --- 3. "nothing written", but something was --------------------------------
# A build record that fails the loader (a patch name with a '/'): the run
# directory made for it goes too, and the good log is taken afterwards.
if mutate build; then
	lava_ingest build "$T/build.yaml"
	check "ingest --lava with a build record the loader refuses: nothing left behind" \
		"[ $rc -eq 2 ] && said 'nothing written' && [ -z \"\$(ls -A '$T/r-build/runs')\" ] && quiet"
	lava_ingest build "$T/log.yaml"
	check "... then the good log: recorded (not 'already there')" \
		"[ $rc -eq 0 ] && [ \$(ls '$T/r-build/runs' | wc -l) -eq 1 ] && quiet"
fi

# --- 4. output paths -------------------------------------------------------
# Devices of our own as root: an hzrig that replaced its output (the bug
# this tests) must not take this machine's /dev/full and /dev/null with it.
FULL=/dev/full NULLDEV=/dev/null
if [ "$(id -u)" = 0 ] && mknod -m 666 "$T/full" c 1 7 2>/dev/null &&
   mknod -m 666 "$T/null" c 1 3 2>/dev/null; then
	FULL=$T/full NULLDEV=$T/null
fi
C=$DATA/consoles/kasan-uaf.log
echo precious > "$T/target"
ln -s "$T/target" "$T/link"
run $HZRIG findings --console "$C" --out "$T/link"
check "findings --out through a symlink: the link stays, its target written" \
	"[ $rc -eq 1 ] && [ -L '$T/link' ] && grep -q KASAN '$T/target' && quiet"
run $HZRIG findings --console "$C" --out $FULL
check "findings --out $FULL: written through, the error said, $FULL still a device" \
	"[ $rc -eq 2 ] && said 'No space left on device' && [ -c $FULL ] && quiet"
run $HZRIG findings --console "$C" --out $NULLDEV
check "findings --out $NULLDEV: written through, $NULLDEV still a device" \
	"[ $rc -eq 1 ] && [ -c $NULLDEV ] && quiet"
cp "$C" "$T/console.log"
run $HZRIG findings --console "$T/console.log" --out "$T/console.log"
check "findings --out equal to --console: refused, the console untouched" \
	"[ $rc -eq 2 ] && said 'other files than --console' && cmp -s '$C' '$T/console.log' && quiet"
ln -s "$T/console.log" "$T/console-link"
run $HZRIG findings --console "$T/console.log" --ktap "$T/console-link"
check "findings --ktap a link to --console: refused" "[ $rc -eq 2 ] && cmp -s '$C' '$T/console.log' && quiet"
ln -s "$T/nowhere/x" "$T/dangling"
run $HZRIG findings --console "$C" --out "$T/dangling"
check "findings --out a dangling link: refused, said" "[ $rc -eq 2 ] && said 'symbolic link to nothing' && quiet"
fresh kout
echo precious > "$T/kcidb-target"
ln -s "$T/kcidb-target" "$T/kcidb-link"
run $HZRIG report --kcidb -o "$T/kcidb-link" "$T/kout"
check "report --kcidb -o through a symlink: the link stays, its target written" \
	"[ $rc -eq 0 ] && [ -L '$T/kcidb-link' ] && grep -q '\"version\"' '$T/kcidb-target' && quiet"
run $HZRIG report --kcidb -o $FULL "$T/kout"
check "report --kcidb -o $FULL: the error said, still a device" \
	"[ $rc -eq 2 ] && said 'No space left on device' && [ -c $FULL ] && quiet"
run $HZRIG check-tree --json $FULL "$T/tree" 2>/dev/null
if command -v spatch >/dev/null; then
	check "check-tree --json $FULL: exit 2 with a message" \
		"[ $rc -eq 2 ] && said 'json $FULL: cannot write: No space left on device' && quiet"
fi
run $HZRIG lava device --out $FULL
check "lava device --out $FULL: exit 2 with a message" \
	"[ $rc -eq 2 ] && said 'No space left on device' && [ -c $FULL ] && quiet"

# --- 5. check-tree --------------------------------------------------------
if command -v spatch >/dev/null; then
	mkdir -p "$T/outside"
	cp "$T/tree/a.c" "$T/outside/o.c"
	rm -f "$T/tree/x.c" "$T/tree/x.h" "$T/tree/Makefile" "$T/tree/zero.h"
	run_long $HZRIG check-tree --patch "$T/p.patch" "$T/tree" ../outside
	check "check-tree with a PATH outside the tree: refused, no patch" \
		"[ $rc -eq 2 ] && said 'outside the tree' && [ ! -e '$T/p.patch' ] && quiet"
	cp "$T/tree/a.c" "$T/tree/"$'n\n+++ b\netc_passwd x.c'
	run_long $HZRIG check-tree --patch "$T/p.patch" "$T/tree"
	check "check-tree: a file name with a newline: left out and said, no header injected" \
		"[ $rc -eq 2 ] && said 'left out: has byte 0x0a' && ! grep -q 'etc_passwd' '$T/out' && quiet"
	rm -f "$T/tree/n"*
	cp "$T/tree/a.c" "$T/tree/--help.c"
	cp "$T/tree/a.c" "$T/tree/-x.c"
	run_long $HZRIG check-tree "$T/tree"
	check "check-tree: files named --help.c and -x.c reach spatch as files" \
		"[ $rc -eq 1 ] && grep -q 'help.c' '$T/out' && grep -q -- '-x.c' '$T/out' && ! said 'Usage: spatch' && quiet"
	rm -f "$T/tree/--help.c" "$T/tree/-x.c"
	# The evaluator: overflow and nesting in a header's #defines.
	{
		echo '#define BIG_TO (DIV_ROUND_UP(9223372036854775807, 2) + HZ)'
		echo '#define NEG_TO (HZ + -(-9223372036854775807 - 1))'
		printf '#define DEEP_TO '; for i in $(seq 20000); do printf '('; done
		printf 'HZ'; for i in $(seq 20000); do printf ')'; done; echo
		printf '#define LONG_TO HZ'; for i in $(seq 200000); do printf ' \\\n + 1'; done; echo
	} > "$T/tree/defs.h"
	for m in BIG_TO NEG_TO DEEP_TO LONG_TO; do
		printf '#include "defs.h"\nint f_%s(struct usb_device *d)\n{\n\treturn usb_bulk_msg(d, 0, 0, 0, 0, %s);\n}\n' "$m" "$m" > "$T/tree/$m.c"
	done
	SECONDS=0
	timeout 60 $HZRIG check-tree "$T/tree" >"$T/out" 2>"$T/err"; rc=$?
	check "check-tree on overflowing, 20,000-deep and 200,000-line #defines: no overflow, no crash, in time (${SECONDS} s)" \
		"[ $rc -le 1 ] && [ $SECONDS -lt 30 ] && quiet"
	# Killed while spatch runs: no /tmp/hzrig-spatch-* left by it.
	before=$(ls /tmp | grep -c '^hzrig-spatch-')
	$HZRIG check-tree "$T/tree" >/dev/null 2>&1 &
	pid=$!
	sleep 1
	kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
	sleep 1
	check "check-tree killed mid-run: no /tmp/hzrig-spatch-* files left" \
		"[ \$(ls /tmp | grep -c '^hzrig-spatch-') -le $before ]"
fi

# --- 6. lava jobs ---------------------------------------------------------
for v in ./hz-250 ../../../x/evil hz-250/../hz-250 -hz $'hz\n250'; do
	run $HZRIG lava jobs --out "$T/jobs" -- "$v"
	check "lava jobs variant '$v': refused by name, nothing written" \
		"[ $rc -eq 2 ] && said 'name a variant of kernel/variants' && [ -z \"\$(ls -A '$T/jobs' 2>/dev/null)\" ] && quiet"
done
# The shell side takes plain names too (matrix.sh, make VARIANTS=...).
run "$TOP/rig/boot/matrix.sh" --build-only ../kernel/variants/hz-250
check "matrix.sh with a variant '../kernel/variants/hz-250': refused by name" \
	"[ $rc -eq 2 ] && said 'is not a variant or set name'"
# A variant whose command line does not fit a job: refused, not cut.
V=zz-hostile-$$
trap 'rm -f "$TOP/kernel/variants/$V.variant"; chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT
printf 'fragments = base usb clock hz-250\ncmdline = %s\n' "$(head -c 1200 /dev/zero | tr '\0' x)" \
	> "$TOP/kernel/variants/$V.variant"
run $HZRIG lava jobs --out "$T/jobs" "$V"
check "lava jobs: a variant's 1,200-character command line refused, not cut" \
	"[ $rc -eq 2 ] && said 'cmdline is 1200 characters' && [ ! -e '$T/jobs/$V.yaml' ] && quiet"
rm -f "$TOP/kernel/variants/$V.variant"
for a in 'x y' 'javascript:alert(1)' 'http://' 'https://h/a"b' $'http://h/\nx'; do
	run $HZRIG lava jobs --artifacts "$a" --out "$T/jobs" hz-250
	check "lava jobs --artifacts '$a': refused" "[ $rc -eq 2 ] && said -- '--artifacts' && quiet"
done

# --- 7. numbers, text and odd cases ----------------------------------------
refused() {	# refused DESC DIR PATTERN: compare, ingest and report --kcidb
	local c
	for c in compare "ingest --db $T/n.db" "report --kcidb"; do
		run $HZRIG $c "$2"
		check "$1: $c refuses it, names it" "[ $rc -eq 2 ] && said \"$3\" && quiet"
	done
}
fresh wall
jq '.boot.wall_s = 1e300' "$RUN/hz-100/run.json" > "$T/wall/hz-100/run.json"
refused "boot.wall_s 1e300" "$T/wall" 'boot.wall_s'
for f in seq start_jiffies jiffies; do
	fresh "big-$f"
	sed -i "1s/\"$f\":[0-9]*/\"$f\":9223372036854775808/" "$T/big-$f/samples.jsonl"
	refused "$f of 2^63 (was clamped)" "$T/big-$f" "field \\\"$f\\\": 9223372036854775808 out of range"
done
for t in 12 ..; do
	fresh "tr-$t"
	sed -i "1s/\"transfer\":\"[a-z-]*\"/\"transfer\":\"$t\"/" "$T/tr-$t/samples.jsonl"
	refused "transfer '$t'" "$T/tr-$t" "is not a transfer of the plan"
done
run $HZRIG report --kcidb --patch-url 'javascript:alert(1)' "$RUN"
check "report --kcidb --patch-url javascript:: refused" "[ $rc -eq 2 ] && said 'patch-url' && quiet"
# Invalid UTF-8 on a guest's console: valid UTF-8 in every JSON output.
{ cat "$C"; } | sed 's/KASAN: use-after-free/KASAN: use-after-free \xff\xfe\xc3/' > "$T/bad-utf8.log"
run $HZRIG findings --console "$T/bad-utf8.log" --out "$T/bad-utf8.jsonl"
check "findings of a console with bytes that are not UTF-8: JSON lines in UTF-8" \
	"[ $rc -eq 1 ] && iconv -f UTF-8 -t UTF-8 '$T/bad-utf8.jsonl' >/dev/null 2>&1 && grep -q \$'\\xef\\xbf\\xbd' '$T/bad-utf8.jsonl' && quiet"
# ... and through collect into run.json, and from there into KCIDB.
mkdir -p "$T/utf8run"
{ cat "$DATA/captures/console.log"; cat "$T/bad-utf8.log"; } > "$T/utf8-console.log"
run $HZRIG collect --variant hz-1000 --serial "$DATA/captures/good.jsonl" \
	--console "$T/utf8-console.log" --boot-status crashed --out "$T/utf8run"
check "collect of that console: run.json in UTF-8, the bad bytes replaced" \
	"[ $rc -le 1 ] && iconv -f UTF-8 -t UTF-8 '$T/utf8run/hz-1000/run.json' >/dev/null 2>&1 && grep -q \$'\\xef\\xbf\\xbd' '$T/utf8run/hz-1000/run.json' && quiet"
run $HZRIG report --kcidb "$T/utf8run"
check "... and its KCIDB export in UTF-8" \
	"[ $rc -eq 0 ] && iconv -f UTF-8 -t UTF-8 '$T/out' >/dev/null 2>&1 && quiet"
# A line of 100,000 nested '[' in a LAVA log: refused quickly.
{ head -5 "$T/log.yaml"; printf -- '- {"dt": "2026-12-05T15:39:26.916714", "lvl": "target", "msg": '; \
  head -c 100000 /dev/zero | tr '\0' '['; echo '}'; } > "$T/nest.yaml"
SECONDS=0
lava_ingest nest "$T/nest.yaml"
check "ingest --lava: a line nesting 100,000 deep refused in time (${SECONDS} s)" \
	"[ $rc -eq 2 ] && said 'nests more than' && [ $SECONDS -lt 5 ] && quiet"

# --- 8. messages ----------------------------------------------------------
# A history this user cannot write (root writes through modes, so as
# nobody, with copies of hzrig and of the run nobody can reach: the
# clone may sit in root's home).
run $HZRIG ingest --db "$T/ro.db" "$RUN"
chmod 0755 "$T"
chmod 0444 "$T/ro.db"
mkdir -p "$T/rorun"
cp -r "$DATA/history/20261203T094306Z" "$T/rorun/"
chmod -R a+rX "$T/rorun"
as=()
if [ "$(id -u)" = 0 ]; then
	cp "$HZRIG" "$T/hzrig-ro"
	as=(setpriv --reuid=nobody --regid=nogroup --clear-groups "$T/hzrig-ro")
else
	as=("$HZRIG")
fi
run "${as[@]}" ingest --db "$T/ro.db" "$T/rorun/20261203T094306Z"
check "ingest into a read-only history: says read-only in words, names the file" \
	"[ $rc -eq 2 ] && said 'ro.db: the history database is read-only here' && quiet"
mkdir -p "$T/logdir/output.yaml"
run $HZRIG ingest --db "$T/d.db" --lava --results "$T/res" "$T/logdir"
check "ingest --lava of a directory whose output.yaml is a directory: says so" \
	"[ $rc -eq 2 ] && said 'output.yaml: is a directory' && ! said 'no in-band samples' && quiet"

echo "inputs: $pass passed, $failn failed"
[ $failn -eq 0 ]
