#!/bin/bash
# snapshot.sh HTML PNG: a picture of a dashboard page as a reader sees it
# (headless Chromium, 1280 pixels wide, the page's top 1600), for
# docs/img/dashboard.png from a real run: `make dashboard-image` after
# `make`. Nothing is fetched: the page has no network resource.
set -eu
html=${1:?usage: snapshot.sh HTML PNG}
png=${2:?usage: snapshot.sh HTML PNG}
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -f "$html" ] || { echo "snapshot: no $html: run make first (it draws results/dashboard/)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/hzrig-snapshot-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# As root Chromium needs --no-sandbox; its profile stays in $tmp.
"$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars \
	--user-data-dir="$tmp/profile" --window-size=1280,1600 \
	--screenshot="$tmp/shot.png" "file://$(cd "$(dirname "$html")" && pwd)/$(basename "$html")" \
	> "$tmp/log" 2>&1 || { cat "$tmp/log" >&2; exit 1; }
[ "$(head -c 8 "$tmp/shot.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
	{ echo "snapshot: Chromium wrote no PNG" >&2; cat "$tmp/log" >&2; exit 1; }
mv "$tmp/shot.png" "$png"
echo "snapshot: $png ($(stat -c %s "$png") bytes) from $html"
