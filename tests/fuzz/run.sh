#!/bin/bash
# run.sh SECONDS [TARGET...]: build the fuzz targets, seed each corpus from
# tests/data and rig/plan/plans, and fuzz each target for SECONDS. The corpus
# grows in build/fuzz/corpus/TARGET across runs; a crash leaves its input
# in build/fuzz/artifacts/ and fails the target. Ends with one line
# "fuzz: N passed, N failed".
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
O=$TOP/build/fuzz
SECS=${1:?usage: run.sh SECONDS [TARGET...]}
shift
TARGETS=${*:-fuzz_plan fuzz_capture fuzz_run fuzz_scan fuzz_lava fuzz_expr fuzz_sweep}

make --no-print-directory -C "$TOP/tests/fuzz" O="$O" >"$O.build.log" 2>&1 || {
	cat "$O.build.log"
	echo "fuzz: 0 passed, 1 failed"
	exit 1
}

# seed TARGET: the corpus to start from, written fresh each run.
seed() {
	local s=$O/seed/$1 f i=0
	rm -rf "$s"
	mkdir -p "$s"
	case $1 in
	fuzz_plan)
		cp "$TOP"/rig/plan/plans/*.plan "$s/" ;;
	fuzz_capture)
		cp "$TOP"/tests/data/captures/*.jsonl "$s/" ;;
	fuzz_scan)
		cp "$TOP"/tests/data/consoles/*.log "$TOP"/tests/data/captures/console.log "$s/" ;;
	fuzz_lava)
		# A real lava-run log cut down to a few lines of each kind that
		# still unpacks: the build record, KTAP with LAVA's results for
		# it, three sample lines and their count, the done line.
		xz -dc "$TOP/tests/data/lava/hz-250-quick.yaml.xz" | awk '
			/"msg": "hzrig-build / || /"msg": "KTAP version 1"/ ||
			/"msg": "ok [12] / || /"case": "(jiffy_rate|clocksource)", "definition": "hzrig"/ ||
			/"msg": "hzrig-jsonl [123] / || /"msg": "hzrig: guest done/ ||
			/"case": "job", "definition": "lava"/ { print }
			' | sed 's/hzrig-jsonl-end 412/hzrig-jsonl-end 3/' > "$s/small.yaml"
		printf '%s\n' '{"dt": "2026-12-05T15:39:26.916714", "lvl": "target", "msg": "hzrig-jsonl-end 3"}' >> "$s/small.yaml"
		# a job LAVA failed, its error in the job result (hzrig lava result)
		cp "$TOP/tests/data/lava/missing-image.yaml" "$s/" ;;
	fuzz_expr)
		# First byte: the HZ; then a header of #defines.
		for f in "$TOP"/tests/checker/corpus/*.c; do
			i=$((i + 1)); { printf '\1'; cat "$f"; } > "$s/corpus-$i"
		done
		printf '\2#define A (DIV_ROUND_UP(B, 2) + HZ)\n#define B 9223372036854775807\n#define C -(-9223372036854775807 - 1)\n#define D (5 * \\\n  HZ)\n' > "$s/edges" ;;
	fuzz_run)
		# First byte: 0 samples.jsonl, 1 run.json, 2 build.json.
		# The first 20 lines: small inputs keep the runs per second up.
		for f in "$TOP"/tests/data/{kcidb,history}/*/samples.jsonl; do
			i=$((i + 1)); { printf '\0'; head -20 "$f"; } > "$s/samples-$i"
		done
		for f in "$TOP"/tests/data/{kcidb,history}/*/*/run.json; do
			i=$((i + 1)); { printf '\1'; cat "$f"; } > "$s/run-$i"
		done
		for f in "$TOP"/tests/data/kcidb/*/*/build.json; do
			i=$((i + 1)); { printf '\2'; cat "$f"; } > "$s/build-$i"
		done ;;
	fuzz_sweep)
		# First byte: 0 a guest batch, 1 sweep.json, 2 a modules.alias
		# line, 3 a device file.
		for f in "$TOP"/tests/data/sweep/*/batch-*.txt; do
			i=$((i + 1)); { printf '\0'; head -c 12000 "$f"; } > "$s/batch-$i"
		done
		for f in "$TOP"/tests/data/sweep/*/sweep.json; do
			i=$((i + 1)); { printf '\1'; cat "$f"; } > "$s/sweep-$i"
		done
		printf '\2alias usb:v05ACp*d*dc*dsc*dp*icFFiscFDip01in* ipheth\n' > "$s/alias-1"
		printf '\2alias usb:v0451p3410d01[0-3]*dc*dsc*dp*ic*isc*ip*in02* x\n' > "$s/alias-2"
		printf '\2alias usb:v*p*d*dc*dsc*dp*ic02isc02ip01in* cdc_acm\n' > "$s/alias-3"
		# 3: a device file, as hzrig-rawdev and hzrig-gadget read them
		for f in "$TOP"/gadget/devices/*.device "$TOP"/gadget/devices/sweep/*.device; do
			i=$((i + 1)); { printf '\3'; cat "$f"; } > "$s/device-$i"
		done ;;
	esac
	echo "$s"
}

pass=0 failn=0
for t in $TARGETS; do
	corpus=$O/corpus/$t
	mkdir -p "$corpus" "$O/artifacts"
	s=$(seed "$t")
	echo "fuzz: $t for ${SECS}s (corpus $(ls "$corpus" | wc -l) inputs, $(ls "$s" | wc -l) seeds)"
	case $t in
	fuzz_plan) max=4096 ;;
	*) max=16384 ;;
	esac
	if "$O/$t" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 \
		-max_len=$max -print_final_stats=1 \
		-artifact_prefix="$O/artifacts/$t-" "$corpus" "$s" \
		>"$O/$t.log" 2>&1; then
		echo "ok - $t: $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$O/$t.log" | grep -o '[0-9]*$') runs, no crash"
		pass=$((pass + 1))
	else
		echo "not ok - $t: see $O/$t.log"
		grep -m5 -A12 'ERROR\|runtime error\|deadly signal' "$O/$t.log" | sed 's/^/# /'
		failn=$((failn + 1))
	fi
done
echo "fuzz: $pass passed, $failn failed"
[ $failn -eq 0 ]
