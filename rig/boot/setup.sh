#!/bin/sh
# setup.sh: make sure this machine has what hzrig needs. Run by `make` and
# `make check` before anything else. As root, installs what is missing with
# apt-get; otherwise prints the command to run and fails. With --check, also
# what only the tests need; with --lava, that and a LAVA dispatcher.
set -eu

# Debian packages, each with what it is for (lz4: the guest kernels'
# compression, kernel/configs/base.config; coccinelle: spatch, for
# hzrig check-tree; diffutils: its patch; the kernel trees the variants
# name, linux-source-6.12 from Debian's security suite, bookworm-security).
PKGS="
make gcc libc6-dev
bc bison flex libelf-dev libssl-dev cpio xz-utils lz4 kmod perl patch procps
ccache
linux-source-6.1 linux-source-6.12
qemu-system-x86
busybox-static
libusb-1.0-0-dev pkg-config
libjson-c-dev libyaml-dev
libcmocka-dev
sqlite3 libsqlite3-dev jq
coccinelle diffutils
"

# `make check` also opens the dashboard in a real browser, validates the
# KCIDB export against a JSON schema and fuzzes the input readers with
# libFuzzer (clang's runtime libraries).
# It also validates the LAVA jobs against LAVA's own schema (lava-common,
# read by /usr/bin/python3: Debian's, whatever python3 is first on PATH).
CHECK_PKGS="
chromium chromium-driver curl
python3-jsonschema
clang libclang-rt-14-dev
lava-common
"
# `make lava-check` runs a job under a real LAVA dispatcher (lava-run) and
# lavacli is how jobs go to a lab (docs/lava.md).
LAVA_PKGS="
lava-dispatcher lavacli
"
case "${1:-}" in
--check) PKGS="$PKGS $CHECK_PKGS" ;;
--lava) PKGS="$PKGS $CHECK_PKGS $LAVA_PKGS" ;;
esac

missing=""
for p in $PKGS; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$status" in
	*"install ok installed"*) ;;
	*) missing="$missing $p" ;;
	esac
done

[ -z "$missing" ] && exit 0

cmd="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" -ne 0 ]; then
	echo "hzrig: missing Debian packages:$missing" >&2
	echo "hzrig: run as root:  apt-get update && $cmd" >&2
	exit 1
fi
echo "hzrig: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
