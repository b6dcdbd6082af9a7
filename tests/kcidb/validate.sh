#!/bin/sh
# validate.sh HZRIG [RUN_DIR...]: export each run directory (default: the
# test fixture tests/data/kcidb/20261203T102031Z) with `HZRIG report --kcidb`
# and validate the document against kcidb.v04_04.schema.json with
# python3-jsonschema (Draft 2020-12, date-time format checked). This is a
# second, independent validator next to the one in tests/unit/test_kcidb.c;
# it also checks that the schema file itself is a valid JSON Schema.
#
# Exit: 0 all valid, 1 a document is invalid or an export failed, 77 when
# python3-jsonschema is not installed (the automake "skipped" status).
set -u

here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 HZRIG [RUN_DIR...]" >&2; exit 2; }
hzrig=$1
shift
[ $# -ge 1 ] || set -- "$here/../data/kcidb/20261203T102031Z"

# Debian's python3-jsonschema is for /usr/bin/python3; a python3 earlier
# on PATH (pyenv, a venv) may lack it, or have its own.
PY=
for p in /usr/bin/python3 python3; do
	if "$p" -c 'import jsonschema' 2>/dev/null; then
		PY=$p
		break
	fi
done
if [ -z "$PY" ]; then
	echo "kcidb: SKIP: python3-jsonschema is not installed"
	exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# By default also the fixture with kernel reports on one variant's console:
# the issues and incidents objects.
if [ $# -eq 1 ] && [ "$1" = "$here/../data/kcidb/20261203T102031Z" ] && command -v jq >/dev/null; then
	f=$tmp/runs/20261203T102031Z
	mkdir -p "$tmp/runs"
	cp -r "$1" "$f"
	jq '.findings = [{title: "KASAN: use-after-free Read in hzrig_heartbeat", kind: "KASAN",
		where: null, running: "scenario unbind 8/100", console_line: 152, truncated: false},
		{title: "WARNING in dummy_free_request", kind: "WARNING",
		where: "drivers/usb/gadget/udc/dummy_hcd.c:711", running: "", console_line: 9,
		truncated: false}]' "$1/hz-100/run.json" > "$f/hz-100/run.json"
	set -- "$1" "$f"
fi
pass=0
fail=0
for run in "$@"; do
	out=$tmp/export.json
	if ! "$hzrig" report --kcidb -o "$out" "$run"; then
		echo "kcidb: FAIL: $run: export failed"
		fail=$((fail + 1))
		continue
	fi
	if "$PY" - "$here/kcidb.v04_04.schema.json" "$out" "$run" <<'EOF'
import json
import sys

import jsonschema

schema_path, doc_path, run = sys.argv[1:4]
with open(schema_path) as f:
    schema = json.load(f)
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(
    schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
with open(doc_path) as f:
    doc = json.load(f)
errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
for e in errors[:20]:
    where = "/".join(str(p) for p in e.path)
    print(f"kcidb: {run}: {where}: {e.message}")
n = sum(len(doc.get(k, [])) for k in ("checkouts", "builds", "tests", "issues", "incidents"))
print(f"kcidb: {run}: {n} objects, {len(errors)} schema errors")
sys.exit(1 if errors else 0)
EOF
	then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
	fi
done
echo "kcidb: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
