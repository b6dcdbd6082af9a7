#!/bin/bash
# verdicts.sh HZRIG: every command that reads a run directory gives the same
# verdict on it. Each field of a variant's run.json and build.json, and of
# one samples.jsonl record, is replaced in turn by values of another type
# or out of its range (a hostile run directory each); compare, report,
# report --kcidb and ingest then all accept it or all refuse it (exit 2),
# and a refused run never reaches the history. A run that is accepted is
# drawn by the dashboard. ONLY_SPECIAL=1 runs the hand-made cases alone
# (NaN, the longest values writers write, patch digests), not the sweep.
# The cases are spread over the cores (nproc, at most 4 parts).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/tests/hostile/harness.sh"
command -v jq >/dev/null || { echo "not ok - jq is missing"; exit 1; }

# The cases are independent: split them over the cores, case k to part
# k mod N (VERDICTS_PART of VERDICTS_PARTS), each part with its own
# scratch directory, and add up what the parts say.
if [ -z "${VERDICTS_PART:-}" ]; then
	n=$(nproc 2>/dev/null || echo 1)
	[ "$n" -gt 4 ] && n=4
	for p in $(seq 0 $((n - 1))); do
		VERDICTS_PART=$p VERDICTS_PARTS=$n "$0" "$HZRIG" > "$T/part-$p" 2>&1 &
	done
	wait
	cat "$T"/part-*
	read -r passes fails parts < <(awk '/^verdicts: [0-9]+ passed, [0-9]+ failed$/ {
		p += $2; f += $4; n++ } END { print p + 0, f + 0, n + 0 }' "$T"/part-*)
	echo "verdicts: ${passes:-0} passed, ${fails:-0} failed (in $n parts, $parts of them ended)"
	[ "${fails:-1}" -eq 0 ] && [ "$parts" -eq "$n" ] && [ "${passes:-0}" -gt 0 ]
	exit
fi
idx=-1
mine() {	# is the next case this part's?
	idx=$((idx + 1))
	[ $((idx % VERDICTS_PARTS)) -eq "$VERDICTS_PART" ]
}
RUN=$DATA/kcidb/20261203T102031Z
V=hz-1000
ID=20261203T102031Z

# The mutations of one value: a string, a fraction, a negative, a huge
# integer, null, an object, an array, an empty string, a bad date.
MUTATIONS=('"x"' '1.5' '-1' '123456789012345678901' 'null' '{}' '""'
	   '"2026-13-45T99:99:99Z"')

# verdict CMD...: "refused" (exit 2) or "accepted" (0, 1), or "crashed".
verdict() {
	"$@" >"$T/out" 2>"$T/err"
	local rc=$?
	if ! sanitizer_quiet || [ $rc -gt 2 ]; then echo crashed
	elif [ $rc -eq 2 ]; then echo refused
	else echo accepted; fi
}

# judge DESC: the four readers on $T/$ID agree; a refused run is not
# ingested, an accepted one is drawn.
judge() {
	local desc=$1 c v first="" all=""
	rm -f "$T/h.db"*
	for c in compare report "report --kcidb=$T/k.json" "ingest --db $T/h.db"; do
		# shellcheck disable=SC2086
		v=$(verdict $HZRIG $c "$T/$ID")
		all="$all ${c%% *}=$v"
		[ -z "$first" ] && first=$v
		[ "$v" = "$first" ] || first=disagree
		[ "$v" = crashed ] && first=crashed
	done
	case $first in
	accepted)
		v=$(verdict $HZRIG dashboard --db "$T/h.db" --out "$T/dash")
		[ "$v" = accepted ] || first="accepted, but the dashboard $v"
		;;
	refused)
		[ -s "$T/h.db" ] && [ "$(sqlite3 "$T/h.db" 'SELECT count(*) FROM runs' 2>/dev/null)" != 0 ] &&
			first="refused, but ingested"
		;;
	esac
	case $first in
	accepted | refused) ok "$desc: $first by all" ;;
	*) ko "$desc:$all ($first)"; head -3 "$T/err" | sed 's/^/# /' ;;
	esac
}

fresh() { rm -rf "${T:?}/$ID"; cp -r "$RUN" "$T/$ID"; }

# mutate_json FILE: each leaf of FILE, each mutation.
mutate_json() {
	local rel=$1 p m
	while read -r p; do
		for m in "${MUTATIONS[@]}"; do
			mine || continue
			fresh
			jq --argjson p "$p" --argjson m "$m" 'setpath($p; $m)' \
				"$RUN/$rel" >"$T/$ID/$rel"
			judge "$rel $(jq -r 'map(tostring) | join(".")' <<<"$p") = $m"
		done
	done < <(jq -c 'paths(scalars, arrays, objects) | select(length > 0)' "$RUN/$rel")
}

[ -n "${ONLY_SPECIAL:-}" ] || mutate_json "$V/run.json"
[ -n "${ONLY_SPECIAL:-}" ] || mutate_json "$V/build.json"

# What jq cannot write: json-c reads NaN and Infinity as numbers.
for f in tick_ns jiffy_rate_mhz allowance_ns noise_floor_ns; do
	for m in NaN -Infinity; do
		mine || continue
		fresh
		sed -E "s/(\"$f\": )[0-9]+/\1$m/" "$RUN/$V/run.json" >"$T/$ID/$V/run.json"
		judge "$V/run.json $f = $m"
	done
done
if mine; then
fresh
sed -E 's/("wall_s": )[0-9.]+/\1NaN/' "$RUN/$V/run.json" >"$T/$ID/$V/run.json"
judge "$V/run.json boot.wall_s = NaN"
fi

# What the writers write at their longest is accepted by every reader: a
# crash line as long as boot keeps one (boot.h, 255 bytes).
if mine; then
fresh
jq --arg c "Kernel panic - not syncing: $(printf 'x%.0s' $(seq 227))" '.boot.crash = $c' \
	"$RUN/$V/run.json" >"$T/$ID/$V/run.json"
check "a 255-byte crash line: accepted by every reader" \
	"[ \$(jq -r '.boot.crash | length' '$T/$ID/$V/run.json') -eq 255 ] && [ \"\$(verdict $HZRIG compare '$T/$ID')\" = accepted ]"
judge "$V/run.json boot.crash of 255 bytes"
fi

# patch_sha256: the digests of the patches, one each, lowercase hex.
for m in '["0123"]' '["ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef0123456789"]' \
	 '["0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"]' \
	 '[7]'; do
	mine || continue
	fresh
	jq --argjson m "$m" '.patches = ["a.patch"] | .patch_sha256 = $m' \
		"$RUN/$V/build.json" >"$T/$ID/$V/build.json"
	judge "$V/build.json patch_sha256 = $m"
done

# One samples.jsonl record: its first line, field by field.
first=$(head -1 "$RUN/samples.jsonl")
for k in $([ -n "${ONLY_SPECIAL:-}" ] || jq -r 'keys[]' <<<"$first"); do
	for m in "${MUTATIONS[@]}"; do
		mine || continue
		fresh
		{ jq -c --arg k "$k" --argjson m "$m" '.[$k] = $m' <<<"$first"
		  tail -n +2 "$RUN/samples.jsonl"; } >"$T/$ID/samples.jsonl"
		judge "samples.jsonl:1 $k = $m"
	done
done

echo "verdicts: $pass passed, $failn failed"
[ "$failn" -eq 0 ]
