#!/bin/bash
# test-dashboard.sh [HZRIG [OUTDIR]]: the dashboard end to end in a real
# browser. Builds a history database from the committed fixture
# (tests/browser/fixture: two trimmed real runs, one synthesized
# regression) with hzrig ingest, baseline and check-regressions, writes the
# page with `hzrig dashboard`, then opens it in Debian's headless Chromium,
# driven through chromedriver's WebDriver HTTP API with curl and jq, and
# checks:
#   - the page loads with no console error and fetches no resource at all
#     (a negative control page with a deliberate error and a remote image
#     must fail both checks, so the checks can fail);
#   - the sections are there (stable ids), the charts have data points,
#     every SVG has a <title>, no coordinate is NaN or infinite;
#   - the unexplained table has one row per non-inside sample of the
#     fixture's newest run (counted with jq from the fixture files), the
#     regression marks match the regressions table, the baseline is marked;
#   - strings from the database arrive as text (a build.json with <, & and ");
#   - an empty database gives a page that says so; bad input exits 2.
# Leaves OUTDIR/dashboard.png (1280x2400 screenshot), OUTDIR/site/index.html
# and the logs. Prints TAP; exits 1 on any failure.
#
# Needs: chromium, chromium-driver, curl, jq, sqlite3 (Debian packages).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
HZRIG=${1:-$TOP/build/rig/hzrig}
OUT=${2:-$TOP/build/browser-test}
FIX=$TOP/tests/browser/fixture
OLD=20261203T094306Z
NEW=20261203T102031Z
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
CHROMEDRIVER=${CHROMEDRIVER:-/usr/bin/chromedriver}

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
ko() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
# check NAME CONDITION: ok when the shell condition (evaluated) holds
check() { if eval "$2"; then ok "$1"; else ko "$1"; fi; }
diag() { sed 's/^/# /' "$@" 2>/dev/null | head -40; }
bail() { echo "Bail out! $*"; exit 1; }

[ -x "$HZRIG" ] || bail "no $HZRIG (make -C rig first)"
for t in "$CHROMIUM" "$CHROMEDRIVER"; do
	[ -x "$t" ] || bail "no $t (apt-get install chromium chromium-driver)"
done
for t in curl jq sqlite3; do
	command -v $t >/dev/null || bail "no $t (apt-get install $t)"
done

mkdir -p "$OUT" || bail "cannot create $OUT"
OUT=$(cd "$OUT" && pwd)
rm -rf "$OUT/site" "$OUT/empty" "$OUT/profile" "$OUT/h.db" "$OUT/h.db-"* \
	"$OUT/dashboard.png" "$OUT"/*.log "$OUT/bad.html"
DB=$OUT/h.db
SITE=$OUT/site

# --- the database ---------------------------------------------------------
"$HZRIG" ingest --db "$DB" "$FIX/$OLD" "$FIX/$NEW" >"$OUT/hzrig.log" 2>&1 ||
	{ diag "$OUT/hzrig.log"; bail "hzrig ingest of the fixture failed"; }
"$HZRIG" baseline --db "$DB" set $OLD >>"$OUT/hzrig.log" 2>&1 ||
	{ diag "$OUT/hzrig.log"; bail "hzrig baseline set failed"; }
"$HZRIG" check-regressions --db "$DB" >>"$OUT/hzrig.log" 2>&1
rc=$?
check "check-regressions finds the fixture's regression (exit 1)" '[ $rc -eq 1 ]'

# What the page must show, from the fixture files and the database.
want_bad=$(jq -s '[.[] | select(.verdict != "inside")] | length' "$FIX/$NEW/samples.jsonl")
want_reg=$(sqlite3 "$DB" "SELECT count(*) FROM (SELECT DISTINCT r.run_id,
	r.variant, r.case_key FROM regressions r JOIN variant_runs v ON
	v.run_id = r.run_id AND v.variant = r.variant JOIN samples s ON
	s.variant_run = v.id AND s.case_key = r.case_key)")
want_rows=$(sqlite3 "$DB" "SELECT count(*) FROM regressions WHERE run_id = '$NEW'")
want_keys=$(sqlite3 "$DB" "SELECT count(DISTINCT case_key) FROM samples")
want_nak=$(jq -s '[.[] | select(.mode == "ms" and .behaviour == "nak")] | length' \
	"$FIX/$NEW/samples.jsonl")
want_base=$(sqlite3 "$DB" "SELECT count(*) FROM samples s JOIN variant_runs v
	ON v.id = s.variant_run JOIN baselines b ON b.variant = v.variant AND
	b.run_id = v.run_id GROUP BY v.variant, s.case_key" | wc -l)
check "the fixture has unexplained samples and a regression ($want_bad, $want_reg)"\
	'[ "$want_bad" -gt 0 ] && [ "$want_reg" -gt 0 ]'

# --- hzrig dashboard --------------------------------------------------------
"$HZRIG" dashboard --db "$DB" --out "$SITE" >"$OUT/dashboard.log" 2>&1
rc=$?
check "hzrig dashboard: exit 0, index.html written" '[ $rc -eq 0 ] && [ -s "$SITE/index.html" ]'
[ $rc -eq 0 ] || diag "$OUT/dashboard.log"
check "only index.html, no temporary file left"\
	'[ "$(ls -A "$SITE")" = "index.html" ]'
check "the page names the newest run" 'grep -q "id=\"run-id\">$NEW<" "$SITE/index.html"'
check "no script, no external reference in the page"\
	'! grep -Eqi "<script|<link|<img|src=|https?:|@import" "$SITE/index.html"'

"$HZRIG" dashboard --db "$DB" --out "$OUT/run-old" --run $OLD >"$OUT/old.log" 2>&1
check "--run picks an older run" 'grep -q "id=\"run-id\">$OLD<" "$OUT/run-old/index.html"'
cp "$SITE/index.html" "$OUT/before.html"
"$HZRIG" dashboard --db "$DB" --out "$SITE" --run 19990101T000000Z >"$OUT/bad-run.log" 2>&1
rc=$?
check "--run with an unknown run: exit 2, named, the old page kept"\
	'[ $rc -eq 2 ] && grep -q "no run '\''19990101T000000Z'\''" "$OUT/bad-run.log" &&
	cmp -s "$SITE/index.html" "$OUT/before.html"'
"$HZRIG" dashboard --db "$OUT/missing.db" --out "$OUT/x" >"$OUT/missing.log" 2>&1
rc=$?
check "a missing database: exit 2, nothing written" '[ $rc -eq 2 ] && [ ! -e "$OUT/x" ] &&
	[ ! -e "$OUT/missing.db" ]'
"$HZRIG" dashboard --frobnicate >"$OUT/usage.log" 2>&1
rc=$?
check "an unknown option: exit 2 with usage" '[ $rc -eq 2 ] && grep -q '\''^usage: hzrig dashboard'\'' "$OUT/usage.log"'
: > "$OUT/empty.db"
"$HZRIG" dashboard --db "$OUT/empty.db" --out "$OUT/empty" >"$OUT/empty.log" 2>&1
rc=$?
check "an empty database: exit 0, a page that says so" '[ $rc -eq 0 ] &&
	grep -q '\''id="empty"'\'' "$OUT/empty/index.html"'

# --- the browser ------------------------------------------------------------
CD_PID=
SID=
cleanup() {
	[ -n "$SID" ] && curl -s -X DELETE "$WD/session/$SID" >/dev/null 2>&1
	[ -n "$CD_PID" ] && kill "$CD_PID" 2>/dev/null && wait "$CD_PID" 2>/dev/null
}
trap cleanup EXIT

# Port 0: chromedriver picks a free port and says which.
"$CHROMEDRIVER" --port=0 >"$OUT/chromedriver.log" 2>&1 &
CD_PID=$!
port=
for _ in $(seq 100); do
	port=$(sed -n 's/.*started successfully on port \([0-9]*\).*/\1/p' "$OUT/chromedriver.log")
	[ -n "$port" ] && break
	kill -0 $CD_PID 2>/dev/null || break
	sleep 0.1
done
[ -n "$port" ] || { diag "$OUT/chromedriver.log"; bail "chromedriver did not start"; }
WD=http://127.0.0.1:$port

# wd METHOD PATH [JSON]: one WebDriver command; the reply on stdout.
wd() {
	curl -s --max-time 120 -X "$1" -H 'Content-Type: application/json' \
		${3:+--data-binary "$3"} "$WD$2"
}

# Flags that work as root in a container, and keep Chromium off the network.
caps=$(jq -n --arg bin "$CHROMIUM" --arg prof "$OUT/profile" '{capabilities: {alwaysMatch: {
	browserName: "chrome",
	"goog:loggingPrefs": {browser: "ALL"},
	"goog:chromeOptions": {binary: $bin, args: ["--headless", "--no-sandbox",
		"--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--disable-dev-shm-usage", "--hide-scrollbars",
		"--window-size=1280,2400", ("--user-data-dir=" + $prof)]}}}}')
reply=$(wd POST /session "$caps")
SID=$(jq -r '.value.sessionId // empty' <<<"$reply")
[ -n "$SID" ] || { echo "# $reply" | head -c 2000; echo; bail "no WebDriver session"; }
wd POST "/session/$SID/window/rect" '{"width":1280,"height":2400}' >/dev/null

# open FILE: load the page; the console log since the last call is discarded.
open_page() {
	wd POST "/session/$SID/url" "$(jq -n --arg u "file://$1" '{url: $u}')" >/dev/null
}
# The browser log since the last call: console messages, exceptions and
# failed loads, as {level, message}.
browser_log() {
	wd POST "/session/$SID/se/log" '{"type":"browser"}' | jq -c '.value // []'
}
js() {
	wd POST "/session/$SID/execute/sync" "$(jq -n --arg s "$1" '{script: $s, args: []}')" |
		jq -c '.value'
}
# What a page fetched beyond itself: every resource timing entry.
resources() { js 'return performance.getEntriesByType("resource").map(e => e.name);'; }

# The negative control first: the checks below must be able to fail.
cat >"$OUT/bad.html" <<'EOF'
<!DOCTYPE html><html><head><meta charset="utf-8"><title>bad</title></head>
<body><p>deliberately broken</p><img src="http://127.0.0.1:9/x.png" alt="">
<script>console.error("deliberate error"); undefinedFunction();</script></body></html>
EOF
open_page "$OUT/bad.html"
sleep 0.5
log=$(browser_log)
echo "$log" >"$OUT/console-bad.log"
nsev=$(jq '[.[] | select(.level == "SEVERE")] | length' <<<"$log")
check "negative control: a broken page's console errors are seen ($nsev)" '[ "$nsev" -ge 2 ]'
nres=$(resources | jq length)
check "negative control: a remote image is seen as a resource ($nres)" '[ "$nres" -ge 1 ]'

# --- the dashboard in the browser -------------------------------------------
browser_log >/dev/null	# start clean
open_page "$SITE/index.html"
log=$(browser_log)
echo "$log" >"$OUT/console.log"
nsev=$(jq '[.[] | select(.level == "SEVERE" or .level == "WARNING")] | length' <<<"$log")
check "the dashboard loads with no console error or warning" '[ "$nsev" -eq 0 ]'
[ "$nsev" -eq 0 ] || jq -r '.[] | "# \(.level): \(.message)"' <<<"$log" | head -20
res=$(resources)
check "the dashboard fetches nothing (no network, no other file)" '[ "$(jq length <<<"$res")" -eq 0 ]'

facts=$(js '
const q = (s) => document.querySelectorAll(s).length;
const ids = ["summary", "observed-vs-requested", "other-behaviours", "error-per-hz",
	"legacy-jiffies", "history", "regressions", "runs", "unexplained"];
const svgs = [...document.querySelectorAll("svg")];
const runs = document.getElementById("runs");
return {
	missing: ids.filter((i) => !document.getElementById(i)),
	title: document.title,
	obs_svgs: q("#observed-vs-requested svg"),
	obs_points: q("#observed-vs-requested circle.pt"),
	obs_out: q("#observed-vs-requested circle.pt.out"),
	err_points: q("#error-per-hz circle"),
	legacy_points: q("#legacy-jiffies circle"),
	untitled_svgs: svgs.filter((s) => !s.querySelector("title")).length,
	// printf writes "nan" and "inf": a coordinate SVG cannot draw.
	bad_numbers: svgs.some((s) => [...s.querySelectorAll("*")].some((e) =>
		[...e.attributes].some((a) => /nan|inf/i.test(a.value) &&
			/^(c?[xy][12]?|r|width|height|d|points|transform|viewBox)$/.test(a.name)))),
	unexplained_rows: q("#unexplained tbody tr.sample"),
	history_rows: q("#history tbody tr.case"),
	reg_marks: q("#history circle.reg-mark"),
	base_marks: q("#history circle.base-mark"),
	reg_rows: q("#regressions tbody tr.regression"),
	runs_rows: q("#runs tbody tr"),
	tables_without_headers: [...document.querySelectorAll("table")].filter((t) => !t.querySelector("th")).length,
	escaped_ok: runs.textContent.includes("linux-source-6.1 <x-tree>6.1.192-1</x-tree> & \"stable\""),
	injected: document.getElementsByTagName("x-tree").length,
	width: document.documentElement.scrollWidth,
	height: document.documentElement.scrollHeight,
};')
echo "$facts" >"$OUT/facts.json"
f() { jq -r ".$1" <<<"$facts"; }
missing=$(f 'missing|join(",")')
check "every section is there (missing: ${missing:-none})" '[ -z "$missing" ]'
check "one observed-vs-requested panel per variant ($(f obs_svgs))" '[ "$(f obs_svgs)" = 3 ]'
check "a dot per NAKed ms-mode sample ($(f obs_points) of $want_nak)" '[ "$(f obs_points)" = "$want_nak" ]'
check "outliers are ringed in the scatter ($(f obs_out))" '[ "$(f obs_out)" -ge 1 ]'
check "the error chart has data points ($(f err_points))" '[ "$(f err_points)" -gt 0 ]'
check "the legacy-jiffies chart has data points ($(f legacy_points))" '[ "$(f legacy_points)" -gt 0 ]'
check "every SVG has a <title> ($(f untitled_svgs) without)" '[ "$(f untitled_svgs)" = 0 ]'
check "no NaN or infinite coordinate" '[ "$(f bad_numbers)" = false ]'
check "every table has headers" '[ "$(f tables_without_headers)" = 0 ]'
check "unexplained: one row per non-inside sample ($(f unexplained_rows) of $want_bad)"\
	'[ "$(f unexplained_rows)" = "$want_bad" ]'
check "history: one row per case key ($(f history_rows) of $want_keys)" '[ "$(f history_rows)" = "$want_keys" ]'
check "history: regressions marked ($(f reg_marks) of $want_reg)" '[ "$(f reg_marks)" = "$want_reg" ]'
check "history: the baseline run marked ($(f base_marks) of $want_base)" '[ "$(f base_marks)" = "$want_base" ]'
check "regressions: one row per recorded regression ($(f reg_rows) of $want_rows)"\
	'[ "$(f reg_rows)" = "$want_rows" ]'
check "runs: one row per variant run ($(f runs_rows))" '[ "$(f runs_rows)" = 6 ]'
check "strings from the database arrive as text, not markup"\
	'[ "$(f escaped_ok)" = true ] && [ "$(f injected)" = 0 ]'
check "fits 1280 px: no horizontal scroll ($(f width) px)" '[ "$(f width)" -le 1280 ]'

shot=$(wd GET "/session/$SID/screenshot" | jq -r '.value // empty')
if [ -n "$shot" ] && base64 -d <<<"$shot" >"$OUT/dashboard.png" 2>/dev/null &&
   [ "$(head -c 8 "$OUT/dashboard.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then
	ok "screenshot: $OUT/dashboard.png ($(stat -c %s "$OUT/dashboard.png") bytes)"
else
	ko "screenshot"
fi

# The empty database's page, in the browser too.
open_page "$OUT/empty/index.html"
log=$(browser_log)
check "the empty-history page loads cleanly and says so"\
	'[ "$(jq '\''[.[] | select(.level == "SEVERE")] | length'\'' <<<"$log")" = 0 ] &&
	[ "$(js '\''return !!document.getElementById("empty") && document.body.textContent.includes("no runs")'\'')" = true ]'

echo "1..$n"
[ $failed -eq 0 ] || { echo "# $failed of $n failed"; exit 1; }
exit 0
