#!/bin/bash
# tests/lava/check.sh HZRIG: the LAVA path without a dispatcher (make check;
# make lava-check runs the real one). HZRIG is the hzrig to test (make check
# passes the ASan + UBSan build).
#   jobs     hzrig lava jobs / device from a stand-in build: what each job
#            carries (kernel command line, QEMU options, monitor, timeouts),
#            valid by LAVA's own schemas (lava-common), and bad input refused
#   ingest   a real lava-run log (tests/data/lava/hz-250-quick.yaml.xz, the
#            hz-250 quick plan under lava-dispatcher 2023.01) into a run
#            directory: the same samples collect makes of the unpacked
#            capture, as lava-run writes it and as the server's output.yaml
#   hostile  the log cut, a sample line lost, doubled or renumbered, the end
#            count wrong, no build record, a LAVA result missing or different
#            from the KTAP, junk: each an error naming it, nothing written
#   match    tests/lava/match.py on runs that match and that do not
#   sweep    a sweep batch's job log (the real batch of
#            tests/data/sweep/small-100, framed on a console among kernel
#            lines, as LAVA logs it): hzrig lava console gives back a file
#            hzrig sweep collect makes the same drivers and calls of
set -u

HZRIG=$(readlink -f "${1:?usage: tests/lava/check.sh HZRIG}")
TOP=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { local what=$1; shift; if "$@"; then ok; else ko "$what"; fi; }

# --- jobs -----------------------------------------------------------------
for v in hz-250 hz-250-legacy; do
	mkdir -p "$T/build/$v/kernel/arch/x86/boot"
	echo kernel > "$T/build/$v/kernel/arch/x86/boot/bzImage"
	echo initrd > "$T/build/$v/initramfs.cpio"
done
"$HZRIG" lava jobs --build "$T/build" --out "$T/jobs" --tsc-khz 2600000 hz-250 hz-250-legacy > "$T/jobs.out"
check "lava jobs writes a job per variant" [ $? -eq 0 ] && [ -s "$T/jobs/hz-250.yaml" ] && [ -s "$T/jobs/hz-250-legacy.yaml" ]
J=$T/jobs/hz-250.yaml
check "the job boots with the rig's kernel command line, in-band samples" \
	grep -q 'console=ttyS0 tsc=reliable panic=-1 oops=panic loglevel=5 tsc_early_khz=2600000 hzrig.variant=hz-250 hzrig.accel=tcg hzrig.plan=quick.plan hzrig.samples=console"' "$J"
check "a variant's own cmdline goes into its job" grep -q 'hzrig.samples=console hzrig.module=sync_timeout_jiffies=1"' "$T/jobs/hz-250-legacy.yaml"
check "the QEMU settings come from x86_64.conf" \
	grep -qx '  memory: 256' "$J"
for o in "'-no-reboot'" "'-machine pc'" "'-smp 1'" "'-accel tcg'" "'-cpu max'"; do
	check "extra option $o" grep -qx "  - $o" "$J"
done
check "what the qemu template sets itself is left out" bash -c "! grep -q -- '-nodefaults\|-display\|-m 256' '$J'"
check "TCG: no_kvm" grep -qx '  no_kvm: true' "$J"
check "file:// images of the build" grep -q "url: 'file://$T/build/hz-250/initramfs.cpio'" "$J"
check "the KTAP monitor" grep -q "start: 'KTAP version 1'" "$J"
# the test's timeout is hzrig boot's watchdog for the plan, in minutes
budget=$(awk '/^boot_budget_s/ {b = $3} /^slack_percent/ {s = $3} END {print b, s}' "$TOP/rig/boot/qemu/x86_64.conf")
waits=$("$HZRIG" plan "$TOP/rig/plan/plans/quick.plan" | sed -n 's/.*, \([0-9.]*\) s of requested waits.*/\1/p' | head -1)
if [ -n "$waits" ]; then
	want=$(awk -v b="${budget% *}" -v s="${budget#* }" -v w="$waits" 'BEGIN { t = b + int(w * 1000 * (100 + s) / 100000); printf "%d", (t + 59) / 60 }')
	check "the test's timeout is the plan's budget ($want min)" grep -A2 '^- test:' "$J" | grep -qx "      minutes: $want"
else
	ko "hzrig plan printed no summed waits"
fi
"$HZRIG" lava jobs --build "$T/build" --out "$T/kvm" --accel kvm --artifacts https://lab.example/hzrig hz-250 > /dev/null
check "KVM: the template's own -cpu host, no TCG options" bash -c "! grep -q 'no_kvm\|-accel tcg\|tsc_early_khz' '$T/kvm/hz-250.yaml'"
check "--artifacts URLs" grep -q "url: 'https://lab.example/hzrig/hz-250/kernel/arch/x86/boot/bzImage'" "$T/kvm/hz-250.yaml"
"$HZRIG" lava device --out "$T/device.yaml"
check "the device dictionary has the template's options and ours" \
	grep -q -- '- -nographic' "$T/device.yaml"
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import lava_common.schemas' 2> /dev/null; then
	check "jobs and device are valid by LAVA's schemas" \
		"$TOP/tests/lava/validate.py" --device "$T/device.yaml" "$J" "$T/jobs/hz-250-legacy.yaml" "$T/kvm/hz-250.yaml" > /dev/null
	sed 's/^priority: medium/priority: medium\nbogus: 1/' "$J" > "$T/bad-job.yaml"
	check "the validation catches a key LAVA does not know" \
		bash -c "! '$TOP/tests/lava/validate.py' '$T/bad-job.yaml' | grep -q valid\$"
else
	ko "lava-common is not installed (rig/boot/setup.sh --check installs it)"
fi
refuse() {
	local what=$1 want=$2
	shift 2
	"$@" > "$T/out" 2> "$T/err"
	local rc=$?
	check "$what: exit 2 ($rc)" [ $rc -eq 2 ]
	check "$what: says '$want'" grep -q -- "$want" "$T/err"
}
refuse "unknown variant" "no variant hz-nope" "$HZRIG" lava jobs --build "$T/build" --out "$T/j2" hz-nope
refuse "variant not built" "hz-1000/kernel/arch/x86/boot/bzImage" "$HZRIG" lava jobs --build "$T/build" --out "$T/j2" hz-1000
refuse "bad --accel" "is not tcg or kvm" "$HZRIG" lava jobs --accel xen hz-250
refuse "bad --tsc-khz" "is not a rate in kHz" "$HZRIG" lava jobs --tsc-khz fast hz-250
refuse "bad plan" "no plan" "$HZRIG" lava jobs --plan nope hz-250
refuse "no subcommand" "say jobs, device, console or result" "$HZRIG" lava
check "a refused variant leaves no job" [ ! -e "$T/j2/hz-nope.yaml" ]

# --- ingest ---------------------------------------------------------------
LOG=$T/log/output.yaml
mkdir -p "$T/log"
xz -dc "$TOP/tests/data/lava/hz-250-quick.yaml.xz" > "$LOG"
"$HZRIG" ingest --db "$T/h.db" --lava --results "$T/res" "$T/log" > "$T/ingest.out" 2>&1
check "ingest --lava of a real lava-run log" [ $? -eq 0 ]
RUN=$(ls -d "$T"/res/runs/*/ 2> /dev/null | head -1)
RUN=${RUN%/}
check "the run is named when the job started" [ "$(basename "$RUN")" = 20261205T153841Z ]
for f in run.json build.json console.log ttyS1.jsonl status.json; do
	check "the variant directory has $f" [ -s "$RUN/hz-250/$f" ]
done
check "all 408 samples" [ "$(grep -c '"variant":"hz-250"' "$RUN/samples.jsonl")" = 408 ]
check "every in-band line, in order (412 = the guest's count)" [ "$(wc -l < "$RUN/hz-250/ttyS1.jsonl")" = 412 ]
check "the console keeps the guest's lines, not the tags" bash -c "grep -q '^hzrig: guest done rc=0' '$RUN/hz-250/console.log' && ! grep -q '^hzrig-jsonl' '$RUN/hz-250/console.log'"
check "LAVA's quote escaping undone" bash -c "head -1 '$RUN/hz-250/ttyS1.jsonl' | jq -e '.type == \"meta\" and .variant == \"hz-250\"' > /dev/null"
check "status: ok, from the console; LAVA's 200 test cases and job result" \
	jq -e '.status == "ok" and .guest_rc == 0 and .lava.test_cases == 200 and .lava.job_result == "pass"' "$RUN/hz-250/status.json" > /dev/null
check "build.json is the guest's build record" jq -e '.variant == "hz-250" and .tree == "linux-source-6.1"' "$RUN/hz-250/build.json" > /dev/null
check "the history has it" [ "$(sqlite3 -batch "$T/h.db" "SELECT COUNT(*) FROM variant_runs WHERE run_id = '20261205T153841Z'")" = 1 ]
"$HZRIG" collect --variant hz-250 --serial "$RUN/hz-250/ttyS1.jsonl" --console "$RUN/hz-250/console.log" \
	--boot-status "$RUN/hz-250/status.json" --out "$T/direct" > /dev/null 2>&1
check "the same samples as collect of the unpacked capture" cmp -s "$RUN/samples.jsonl" "$T/direct/samples.jsonl"
check "report reads it" bash -c "'$HZRIG' report '$RUN' | grep -q 'KTAP 200 ok / 0 not ok'"
sed 's/^/- /' "$LOG" > "$T/server.yaml"
"$HZRIG" ingest --db "$T/h2.db" --lava --results "$T/res2" "$T/server.yaml" > /dev/null 2>&1
check "the server's output.yaml ('- ' items) too" cmp -s "$RUN/samples.jsonl" "$(ls -d "$T"/res2/runs/*/)samples.jsonl"

# --- hostile ----------------------------------------------------------------
n=0
bad_log() {
	local what=$1 want=$2 res
	n=$((n + 1))
	res=$T/hostile-$n
	"$HZRIG" ingest --db "$res/h.db" --lava --results "$res" "$T/bad.yaml" > "$T/out" 2> "$T/err"
	local rc=$?
	check "$what: exit 2 ($rc)" [ $rc -eq 2 ]
	check "$what: says '$want'" grep -q -- "$want" "$T/err"
	check "$what: nothing written, not even the results directory" [ ! -e "$res" ]
}
head -n 1500 "$LOG" > "$T/bad.yaml"
bad_log "a log cut in the samples" "without the guest's end count (hzrig-jsonl-end): cut short" 
grep -v '"msg": "hzrig-jsonl 17 ' "$LOG" > "$T/bad.yaml"
bad_log "a lost sample line" "sample line 17 is missing"
awk '/"msg": "hzrig-jsonl 30 / {print} {print}' "$LOG" > "$T/bad.yaml"
bad_log "a doubled sample line" "comes twice or out of order"
sed 's/hzrig-jsonl-end 412/hzrig-jsonl-end 413/' "$LOG" > "$T/bad.yaml"
bad_log "a wrong end count" "the guest counted 413 sample lines"
grep -v '"msg": "hzrig-build ' "$LOG" > "$T/bad.yaml"
bad_log "no build record" "no build record"
grep -v '"case": "bulk_in_nak_ms_10ms", "definition": "hzrig"' "$LOG" > "$T/bad.yaml"
bad_log "a KTAP result LAVA did not record" "LAVA recorded no test case bulk_in_nak_ms_10ms"
sed '/"case": "ctrl_in_nak_ms_1ms", "definition": "hzrig"/s/"result": "pass"/"result": "fail"/' "$LOG" > "$T/bad.yaml"
bad_log "a LAVA result other than the KTAP" "LAVA's result for ctrl_in_nak_ms_1ms differs"
{ head -n 5 "$LOG"; echo 'this is not yaml: {['; tail -n +6 "$LOG"; } > "$T/bad.yaml"
bad_log "junk in the log" "not a LAVA log record"
grep -v '"msg": "hzrig-jsonl' "$LOG" > "$T/bad.yaml"
bad_log "no in-band samples" "no in-band samples"
refuse "no such log" "No such file or directory" "$HZRIG" ingest --db "$T/x.db" --lava --results "$T/x" "$T/nope"
refuse "one variant twice" "variant hz-250 comes twice" "$HZRIG" ingest --db "$T/x.db" --lava --results "$T/x" "$T/log" "$T/server.yaml"
refuse "a run already there" "already there" "$HZRIG" ingest --db "$T/h.db" --lava --results "$T/res" "$T/log"
check "the run already there is untouched" cmp -s "$RUN/samples.jsonl" "$T/direct/samples.jsonl"

# --- match ------------------------------------------------------------------
"$TOP/tests/lava/match.py" "$RUN" "$T/res2/runs/20261205T153841Z" hz-250 > "$T/out" 2>&1
check "match.py: a run matches itself" [ $? -eq 0 ]
cp -r "$RUN" "$T/fewer"
grep -v '"timeout_ms":63,' "$RUN/samples.jsonl" > "$T/fewer/samples.jsonl"
"$TOP/tests/lava/match.py" "$RUN" "$T/fewer" hz-250 > "$T/out" 2>&1
check "match.py: a missing case is a mismatch" bash -c "[ $? -eq 1 ] && grep -q 'MISMATCH: only in the local run' '$T/out'"
cp -r "$RUN" "$T/late"
jq -c 'if .timeout_ms == 100 and .path == "kernel" then .verdict = "late" else . end' "$RUN/samples.jsonl" > "$T/late/samples.jsonl"
"$TOP/tests/lava/match.py" "$RUN" "$T/late" hz-250 > "$T/out" 2>&1
check "match.py: many cases all late on one side are a mismatch" bash -c "[ $? -eq 1 ] && grep -q 'cases with different verdicts' '$T/out'"
# One call behind the tick grid is judged against a window moved by its
# lag: the case's model is the same; all of a case's windows moved is not.
cp -r "$RUN" "$T/lag"
jq -c 'if .timeout_ms == 100 and .path == "kernel" and .rep == 2 then .jiffies_lag = 1 | .window_lo_ns -= 4000000 else . end' \
	"$RUN/samples.jsonl" > "$T/lag/samples.jsonl"
"$TOP/tests/lava/match.py" "$RUN" "$T/lag" hz-250 > "$T/out" 2>&1
check "match.py: one lagged call's moved window is no mismatch" \
	bash -c "[ $? -eq 0 ] && grep -q '\"jiffies_lag\":1,' '$T/lag/samples.jsonl'"
cp -r "$RUN" "$T/moved"
jq -c 'if .timeout_ms == 100 and .path == "kernel" then .window_lo_ns -= 4000000 else . end' \
	"$RUN/samples.jsonl" > "$T/moved/samples.jsonl"
"$TOP/tests/lava/match.py" "$RUN" "$T/moved" hz-250 > "$T/out" 2>&1
check "match.py: a case's window moved on one side is a mismatch" bash -c "[ $? -eq 1 ] && grep -q 'window or expected status differ' '$T/out'"

# --- sweep: a batch's job log back into a sweep batch ----------------------
SW=$TOP/tests/data/sweep/small-100
python3 - "$SW/batch-0.txt" > "$T/sweep-job.yaml" <<'PY'
import json, sys
print(json.dumps({"dt": "2026-12-06T10:00:00.000000", "lvl": "info", "msg": "start: 1 boot"}))
def target(m):
    # LAVA's ShellLogger writes a console '"' as '\\"' before quoting
    print(json.dumps({"dt": "2026-12-06T10:00:01.000000", "lvl": "target",
                      "msg": m.replace('"', '\\"')}))
target("[    0.000000] Linux version 6.1.0 (a kernel line before the batch)")
for n, line in enumerate(open(sys.argv[1], encoding="utf-8")):
    target("hzrig-sweep " + line.rstrip("\r\n"))
    if n % 50 == 7:
        target("[   12.345678] usb 1-1: a kernel line among the framed ones")
print(json.dumps({"dt": "2026-12-06T10:05:00.000000", "lvl": "results",
                  "msg": {"definition": "lava", "case": "job", "result": "pass"}}))
PY
mkdir -p "$T/sw-lava" "$T/sw-local"
"$HZRIG" lava console --out "$T/sw-lava/batch-0.txt" "$T/sweep-job.yaml" 2> "$T/err"
check "lava console: a sweep batch's job log written" [ $? -eq 0 ]
# the same console beside both: the batch's lines are what differs
cp "$T/sw-lava/batch-0.txt" "$T/sw-lava/console-0.log"
cp "$T/sw-lava/batch-0.txt" "$T/sw-local/console-0.log"
cp "$SW/batch-0.txt" "$T/sw-local/batch-0.txt"
for d in sw-lava sw-local; do
	"$HZRIG" sweep collect --dir "$T/$d" --variant sweep-small-hz-100 --sweep-id s1 --hz 100 --batches 1 > /dev/null 2>> "$T/err"
	jq -S .drivers "$T/$d/sweep.json" > "$T/$d.drivers" 2> /dev/null
done
# (the fixture's batch keeps usbmon's and rawdev's lines, not the trace)
naks=$(jq '(length | tostring) + " " + ([.[].nak] | add | tostring)' -r "$T/sw-lava.drivers" 2> /dev/null)
check "lava console: the job's batch collects to the same drivers as the batch file (11, their NAKs counted)" \
	bash -c "[ -s '$T/sw-lava.drivers' ] && cmp -s '$T/sw-lava.drivers' '$T/sw-local.drivers' && [ '${naks%% *}' = 11 ] && [ '${naks##* }' -gt 0 ]"
# --status: how the batch's guest ended, as hzrig boot says it (sweep.sh --lab)
"$HZRIG" lava console --out "$T/st-ok.txt" --status "$T/st-ok.json" --variant sweep-small-hz-100 "$T/sweep-job.yaml" 2> "$T/err"
check "lava console --status: a batch that said its end: ok, the log's span as wall_s" \
	bash -c "[ $? -eq 0 ] && jq -e '.status == \"ok\" and .variant == \"sweep-small-hz-100\" and .wall_s == 0' '$T/st-ok.json' > /dev/null"
grep -v 'sweep end' "$T/sweep-job.yaml" | grep -v '"lvl": "results"' > "$T/hung-job.yaml"
printf '%s\n' '{"dt": "2026-12-06T10:09:00.0", "lvl": "error", "msg": "lava-test-monitor timed out after 600 seconds"}' >> "$T/hung-job.yaml"
"$HZRIG" lava console --out "$T/st-hung.txt" --status "$T/st-hung.json" --variant sweep-small-hz-100 "$T/hung-job.yaml" 2> "$T/err"
check "lava console --status: a batch cut before its end: hung, LAVA's error and the last line said" \
	bash -c "[ $? -eq 0 ] && jq -e '.status == \"hung\" and (.crash | test(\"before the batch.s end .LAVA: lava-test-monitor timed out after 600 seconds., last line: hzrig-sweep \"))' '$T/st-hung.json' > /dev/null"
{ head -5 "$T/sweep-job.yaml"
  printf '%s\n' '{"dt": "2026-12-06T10:00:02.0", "lvl": "target", "msg": "[   13.1] BUG: kernel NULL pointer dereference, address: 0000000000000000"}'
  tail -n +6 "$T/sweep-job.yaml"; } > "$T/crash-job.yaml"
"$HZRIG" lava console --out "$T/st-crash.txt" --status "$T/st-crash.json" --variant sweep-small-hz-100 "$T/crash-job.yaml" 2> "$T/err"
check "lava console --status: a kernel report on the console: crashed, its line said (even with the end after it)" \
	bash -c "[ $? -eq 0 ] && jq -e '.status == \"crashed\" and (.crash | test(\"NULL pointer dereference\"))' '$T/st-crash.json' > /dev/null"
printf '%s\n' '{"dt": "2026-12-06T10:00:00.0", "lvl": "error", "msg": "Job error: the kernel image is missing"}' > "$T/nocon.yaml"
"$HZRIG" lava console --out "$T/nocon.txt" --status "$T/nocon.json" --variant sweep-small-hz-100 "$T/nocon.yaml" > /dev/null 2> "$T/err"
check "lava console: a job with no console line: exit 1, LAVA's error said, no console written, its status 'error' with LAVA's error" \
	bash -c "[ $? -eq 1 ] && grep -q 'no console lines (level target): LAVA said: Job error: the kernel image is missing' '$T/err' && [ ! -e '$T/nocon.txt' ] && [ ! -e '$T/nocon.txt.part' ] && jq -e '.status == \"error\" and (.crash | test(\"kernel image is missing\"))' '$T/nocon.json' > /dev/null"
"$HZRIG" lava console --out "$T/st-x.txt" --status "$T/st-x.json" "$T/sweep-job.yaml" > /dev/null 2> "$T/err"
check "lava console: --status without --variant: bad usage, nothing written" \
	bash -c "[ $? -eq 2 ] && grep -q 'go together' '$T/err' && [ ! -e '$T/st-x.txt' ] && [ ! -e '$T/st-x.json' ]"
"$HZRIG" lava console --out "$T/st-x.txt" --status "$T/st-x.json" --variant '../x' "$T/sweep-job.yaml" > /dev/null 2> "$T/err"
check "lava console: --variant not a plain name: bad usage, nothing written" \
	bash -c "[ $? -eq 2 ] && grep -q -- \"--variant '../x'\" '$T/err' && [ ! -e '$T/st-x.txt' ] && [ ! -e '$T/st-x.json' ]"
printf 'not a record\n' > "$T/junk.yaml"
"$HZRIG" lava console --out "$T/junk.txt" "$T/junk.yaml" > /dev/null 2> "$T/err"
check "lava console: junk: exit 1, the line named, nothing written" \
	bash -c "[ $? -eq 1 ] && grep -q 'junk.yaml:1: not a LAVA log record' '$T/err' && [ ! -e '$T/junk.txt' ]"
"$HZRIG" lava console "$T/junk.yaml" > /dev/null 2> "$T/err"
check "lava console: without --out: bad usage" bash -c "[ $? -eq 2 ] && grep -q -- '--out FILE and one JOB_LOG' '$T/err'"

# --- lava result: LAVA's verdict on a job, for make lava-submit -------------
out=$("$HZRIG" lava result "$LOG" 2> "$T/err")
check "lava result: a complete job: pass, exit 0" bash -c "[ $? -eq 0 ] && [ '$out' = pass ]"
"$HZRIG" lava result "$TOP/tests/data/lava/missing-image.yaml" > "$T/res.out" 2> "$T/err"
check "lava result: a job LAVA failed (a real log: its image missing): its error type and message on one line, exit 0" \
	bash -c "[ $? -eq 0 ] && [ \$(wc -l < '$T/res.out') = 1 ] && grep -qx 'fail: Job: Invalid job data: \[\"Image file .*/bzImage. does not exist or is not readable\"\]' '$T/res.out'"
head -40 "$LOG" > "$T/cut.yaml"
"$HZRIG" lava result "$T/cut.yaml" > "$T/res.out" 2> "$T/err"
check "lava result: a log cut short (its dispatcher killed): none, exit 1" bash -c "[ $? -eq 1 ] && grep -qx none '$T/res.out'"
"$HZRIG" lava result "$T/junk.yaml" > "$T/res.out" 2> "$T/err"
check "lava result: junk: exit 2, the line named, nothing on stdout" \
	bash -c "[ $? -eq 2 ] && grep -q 'junk.yaml:1: not a LAVA log record' '$T/err' && [ ! -s '$T/res.out' ]"
refuse "lava result: two logs" "one JOB_LOG is needed" "$HZRIG" lava result "$LOG" "$LOG"

# --- the device dictionary a lab's server takes (make lava-lab) ----------------
"$HZRIG" lava device --dictionary 2 --out "$T/dev2.jinja2" 2> "$T/err"
check "lava device --dictionary: extends the server's qemu type, its own MAC, one boot attempt" \
	bash -c "[ $? -eq 0 ] && grep -qx \"{% extends 'qemu.jinja2' %}\" '$T/dev2.jinja2' && grep -qx \"{% set mac_addr = '52:54:00:12:35:02' %}\" '$T/dev2.jinja2' && grep -qx '{% set boot_retry = 1 %}' '$T/dev2.jinja2'"
check "lava device --dictionary: leaves memory and the QEMU options to the job's context" \
	bash -c "! grep -q 'set \\(memory\\|extra_options\\|no_kvm\\)' '$T/dev2.jinja2'"
refuse "lava device --dictionary 0" "is not 1..255" "$HZRIG" lava device --dictionary 0
refuse "--dictionary is device's" "--dictionary is an option of hzrig lava device" "$HZRIG" lava jobs --dictionary 1 hz-250

# --- the local lab's scripts, where no lab is needed: their refusals ---------
SUB=$TOP/rig/lava/submit.sh
refuse "submit.sh: no job" "usage: rig/lava/submit.sh" "$SUB"
refuse "submit.sh: an unknown option" "unknown option '--fast'" "$SUB" --fast "$J"
refuse "submit.sh: --out without a value" "usage: rig/lava/submit.sh" "$SUB" --out
refuse "submit.sh: a job file that is not there" "$T/nope.yaml: no such job file" "$SUB" "$T/nope.yaml"
mkdir -p "$T/nolab"
LAB=$T/nolab "$SUB" --out "$T/sub" "$J" > "$T/out" 2> "$T/err"
check "submit.sh: no lab: exit 1, says how to start one, nothing written" \
	bash -c "[ $? -eq 1 ] && grep -q 'the lab does not answer (make lava-lab starts it' '$T/err' && [ ! -e '$T/sub' ]"
refuse "lab.sh: no command" "usage: rig/lava/lab.sh start|stop|status" "$TOP/rig/lava/lab.sh"
refuse "lab.sh: an unknown command" "usage: rig/lava/lab.sh start|stop|status" "$TOP/rig/lava/lab.sh" restart

echo "lava: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
