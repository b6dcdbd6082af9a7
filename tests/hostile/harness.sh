# shellcheck shell=bash
# tests/hostile/harness.sh: what hostile.sh and inputs.sh share, sourced
# after TOP is set. $1 is the hzrig under test (an ASan+UBSan build); $T a
# scratch directory removed at exit; check DESC EXPR counts and prints
# TAP-style lines, with the command's output when EXPR fails.
HZRIG=${1:?usage: $(basename "$0") HZRIG (an ASan+UBSan build)}
DATA=$TOP/tests/data
T=$(mktemp -d "/tmp/hzrig-$(basename "$0" .sh)-XXXXXX")
trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT
pass=0 failn=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
ko() { echo "not ok - $1"; failn=$((failn + 1)); }
check() { if eval "$2"; then ok "$1"; else ko "$1"; sed 's/^/# /' "$T/out" "$T/err" 2>/dev/null | head -12; fi; }
sanitizer_quiet() { ! grep -q 'runtime error\|AddressSanitizer\|LeakSanitizer' "$T/err"; }
said() { grep -q -- "$1" "$T/err"; }
quiet() { sanitizer_quiet; }
[ -x "$HZRIG" ] || { echo "not ok - no $HZRIG"; exit 1; }
