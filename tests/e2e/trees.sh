#!/bin/bash
# trees.sh VARIANT: the quick plan on VARIANT's 6.12 counterpart
# (VARIANT-6.12, built from Debian's linux-source-6.12), held against
# VARIANT on 6.1 across trees. The 6.1 side is the quick run behaviours.sh
# made (build/tests/e2e-quick), ingested into this test's own history; if
# there is none, matrix.sh runs VARIANT too (the variant's "against =").
# Asserts: the tree was extracted and its userspace built against its own
# UAPI headers, the guest ran 6.12 and was judged by 6.12's model, >= 99 %
# of the samples inside, and hzrig compare --trees pairs the two variants
# case by case with the same window on both.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
V=${1:?usage: trees.sh VARIANT}
V2=$V-6.12
OUT=$TOP/build/tests/e2e-trees
HZRIG=$TOP/build/rig/hzrig
. "$TOP/tests/e2e/lib.sh"

[ -f "$TOP/kernel/variants/$V2.variant" ] || { echo "not ok - no variant $V2"; exit 1; }
rm -rf "$OUT"
mkdir -p "$OUT"
export HZRIG_DB=$OUT/hzrig.db
Q=$TOP/build/tests/e2e-quick/latest
if [ -f "$Q/$V/run.json" ]; then
	"$HZRIG" ingest --db "$HZRIG_DB" "$Q" > /dev/null
	echo "# the 6.1 side: $V of $(basename "$(readlink -f "$Q")") (behaviours.sh)"
fi
"$TOP/rig/boot/matrix.sh" --plan quick --out "$OUT" "$V2"
echo "matrix exit status: $?"
R=$OUT/latest
RUN=$R/$V2/run.json
S=$R/samples.jsonl
T6=$TOP/build/trees/linux-source-6.12

check "linux-source-6.12 extracted into build/src" "[ -f '$TOP/build/src/linux-source-6.12/.hzrig-extracted' ]"
check "6.12's UAPI headers installed (version.h says 6.12)" \
	"grep -q 'LINUX_VERSION_PATCHLEVEL 12' '$T6/uapi/include/linux/version.h'"
check "gadget and runner built against them" \
	"[ -x '$T6/gadget/hzrig-gadget' ] && [ -x '$T6/runner/hzrig-runner' ] &&
	 make -s -n -B -C '$TOP/gadget' O='$T6/gadget' UAPI='$T6/uapi/include' | grep -q -- '-isystem $T6/uapi/include'"
check "guest finished (boot status ok)" "[ \"\$(jq -r .boot_status '$RUN' 2>/dev/null)\" = ok ]"
check "the guest ran 6.12" "jq -e '.release | startswith(\"6.12.\")' '$RUN' > /dev/null"
check "judged by 6.12's model, derived from that tree" \
	"[ \"\$(jq -c '[.model.tree, .model.exact]' '$RUN')\" = '[\"6.12\",true]' ]"
check "hzrig report says which model judged" \
	"\"$HZRIG\" report '$R' 2>/dev/null | grep -qx '  judged by the model of 6.12'"
check "build.json names the tree" \
	"[ \"\$(jq -r '.tree + \" \" + (.tree_version | split(\".\")[0:2] | join(\".\"))' '$R/$V2/build.json')\" = 'linux-source-6.12 6.12' ]"
check "no KTAP failure" "! grep -q '^not ok' '$TOP/build/$V2/run/console.log'"
n=$(jq -s 'map(select(.variant == "'"$V2"'")) | length' "$S" 2>/dev/null || echo 0)
inside=$(jq -s 'map(select(.variant == "'"$V2"'" and .verdict == "inside")) | length' "$S" 2>/dev/null || echo 0)
echo "# $V2: $inside of $n samples inside"
check "quick plan: samples on every path" "[ $n -gt 300 ] && [ \$(jq -s '[.[].path] | unique | length' '$S') -eq 4 ]"
check ">= 99% inside their windows" "[ \$((inside * 100)) -ge \$((n * 99)) ]"

"$HZRIG" compare --trees --db "$HZRIG_DB" > "$OUT/trees.txt"
rc=$?
sed 's/^/# /' "$OUT/trees.txt" | grep -E 'HZ=|from|to  |cases on both|upgrade|REGRESSION'
hz=${V#hz-}
cases=$(jq -s 'map(select(.variant == "'"$V2"'") | .case) | unique | length' "$S")
check "compare --trees: $V (6.1) beside $V2 (6.12)" \
	"[ $rc -le 1 ] && grep -q '^HZ=$hz: 6.1 beside 6.12' '$OUT/trees.txt' &&
	 grep -qE '^  from 6.1: $V of run ' '$OUT/trees.txt' && grep -qE '^  to   6.12: $V2 of run ' '$OUT/trees.txt'"
check "every case on both trees, the same window on both ($cases cases)" \
	"grep -q '^  $cases cases on both trees; the model.s window is the same on both in $cases\$' '$OUT/trees.txt'"
check "a row per tree for each case" \
	"[ \$(grep -cE '^ +6\\.12 +$V2 ' '$OUT/trees.txt') -eq $cases ]"

e2e_done trees
