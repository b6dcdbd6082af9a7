#!/bin/bash
# matrix.sh: the HZ matrix, stage by stage. For each variant: kernel tree
# (the one it names, extracted once; a patched copy if the variant has
# patches), config, the tree's userspace (its UAPI headers, the gadget and
# the runner built against them, once per tree), kernel, module,
# initramfs; then, with every build done so no compiler competes with the
# guests for the CPU, boot and collect each variant in turn. A stage that fails
# marks its variant failed and the others go on. Ends with `hzrig report`,
# `hzrig compare`, the history (ingest, regressions against the baselines),
# the comparison across kernel trees and the dashboard.
#
# usage: rig/boot/matrix.sh [--plan NAME] [--accel auto|kvm|tcg] [--parallel serial|lanes]
#                      [--out DIR] [--build-only] VARIANT|SET...
# The plan defaults to quick, as `make` has it. A set ("all") stands for
# the variants whose "sets =" line names it (rig/boot/variant.sh).
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$TOP/build}
KSRC=${KSRC:-$B/src/linux-source-6.1}
JOBS=${JOBS:-$(nproc)}
PLAN=quick
ACCEL=auto
OUT=""
PARALLEL=""
BUILD_ONLY=0
HZRIG=$B/rig/hzrig

while [ $# -gt 0 ]; do
	case "$1" in
	--plan) PLAN=$2; shift 2 ;;
	--accel) ACCEL=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	--parallel) PARALLEL=$2; shift 2 ;;
	--build-only) BUILD_ONLY=1; shift ;;
	--) shift; break ;;
	-*) echo "matrix: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "matrix: no variants given" >&2; exit 2; }
# shellcheck source=rig/boot/variant.sh
. "$TOP/rig/boot/variant.sh"
VLIST=$(variant_expand "$@") || { echo "matrix: a variant list names an unknown variant (above)" >&2; exit 2; }
# shellcheck disable=SC2086
set -- $VLIST

# A variant with "against = W" (hz-250-6.12: hz-250) is compared with W
# across trees (hzrig compare --trees): when the history has no run of W
# with this plan, W joins this run, so the comparison has both sides.
RESULTS=${OUT:-$TOP/results}
DB=${HZRIG_DB:-$RESULTS/hzrig.db}
for v in "$@"; do
	[ -f "$TOP/kernel/variants/$v.variant" ] || continue
	w=$(variant_field "$v" against)
	[ -n "$w" ] || continue
	case " $* " in *" $w "*) continue ;; esac
	if [ ! -s "$DB" ] || [ -z "$(sqlite3 -batch -readonly "$DB" "SELECT 1 FROM variant_runs v JOIN runs r ON r.run_id = v.run_id
		WHERE v.variant = '$w' AND r.plan = '$PLAN.plan' LIMIT 1" 2>/dev/null)" ]; then
		echo "matrix: $v is held against $w, which the history has no $PLAN run of: $w joins this run"
		set -- "$@" "$w"
	fi
done
PLAN_FILE=$TOP/rig/plan/plans/$PLAN.plan
[ -f "$PLAN_FILE" ] || { echo "matrix: no plan $PLAN_FILE" >&2; exit 2; }
case "$ACCEL" in auto|kvm|tcg) ;; *) echo "matrix: --accel must be auto, kvm or tcg" >&2; exit 2 ;; esac
case "$PARALLEL" in ""|serial|lanes) ;; *) echo "matrix: --parallel must be serial or lanes" >&2; exit 2 ;; esac

log() { printf '[%s] %s\n' "$1" "$2"; }

# The variant's tree: BASE the one it names (extracted the first time),
# TREE what it builds (BASE, or BASE's patched copy), TKEY the per-tree
# build directory's name ($B/trees/TKEY).
stage_tree() {
	local v=$1 patches tree stamp
	BASE=$(variant_tree "$v")
	tree_ensure "$BASE" || return 1
	TKEY=$(tree_key "$BASE")
	patches=$(variant_field "$v" patches)
	if [ -z "$patches" ]; then
		TREE=$BASE
		return 0
	fi
	# A patched variant gets its own hard-linked copy of the tree; patch(1)
	# replaces files rather than writing through the links.
	tree=$B/$v/src
	# the patches by name and content: an edited patch is applied anew
	stamp="$BASE $patches $(for p in $patches; do sha256sum < "$TOP/kernel/patches/$p" | cut -c1-16; done | tr '\n' ' ')"
	if [ ! -f "$tree/.hzrig-patched" ] || [ "$(cat "$tree/.hzrig-patched")" != "$stamp" ]; then
		rm -rf "$tree"
		mkdir -p "$B/$v"
		cp -al "$BASE" "$tree" || return 1
		for p in $patches; do
			log "$v" "applying kernel/patches/$p"
			patch -s -p1 --batch -d "$tree" < "$TOP/kernel/patches/$p" >&2 || {
				echo "matrix: kernel/patches/$p does not apply to $BASE" >&2
				return 1
			}
		done
		echo "$stamp" > "$tree/.hzrig-patched"
	fi
	TREE=$tree
}

stage_config() {
	local v=$1 frags=() f stamp
	for f in $(variant_field "$v" fragments); do
		[ -f "$TOP/kernel/configs/$f.config" ] || {
			echo "matrix: $v: no fragment kernel/configs/$f.config" >&2
			return 1
		}
		frags+=("$TOP/kernel/configs/$f.config")
	done
	[ ${#frags[@]} -gt 0 ] || { echo "matrix: $v: no fragments" >&2; return 1; }
	# The driver sweep (docs/sweep.md): its drivers are a rule's pick
	# from this tree, not a fixed fragment; Kconfig may drop some.
	sweep_config "$v" || return 1
	# First, so that what the variant's own fragments say wins: the rule
	# picks usbcore too (its hub driver has a USB id table), and a later
	# CONFIG_USB=m would make the whole USB stack modules.
	[ -z "$SWEEP_FRAG" ] || frags=("$SWEEP_FRAG" "${frags[@]}")
	# The same fragments on the same tree give the same .config: skip
	# kconfig (and kbuild's rebuild check of a rewritten .config) then.
	stamp=$( { echo "$TREE"; cat "${frags[@]}" "$TOP/rig/boot/kconfig.sh"; } | sha256sum | cut -d' ' -f1)
	if [ -f "$B/$v/kernel/.config" ] && [ "$(cat "$B/$v/kernel/.hzrig-config" 2>/dev/null)" = "$stamp" ]; then
		return 0
	fi
	KCONFIG_REPORT_ONLY=$SWEEP_FRAG \
		"$TOP/rig/boot/kconfig.sh" "$TREE" "$B/$v/kernel" "${frags[@]}" || return 1
	echo "$stamp" > "$B/$v/kernel/.hzrig-config"
}

# sweep_config VARIANT: for a variant with "sweep = all" or "sweep = NAME"
# (rig/sweep/NAME.drivers lists the drivers), SWEEP_FRAG is the fragment
# rig/sweep/select.py makes from the tree, with its report beside it;
# empty for other variants.
sweep_config() {
	local v=$1 sel out only=()
	SWEEP_FRAG=
	sel=$(variant_field "$v" sweep)
	[ -n "$sel" ] || return 0
	if [ "$sel" != all ]; then
		[ -f "$TOP/rig/sweep/$sel.drivers" ] || {
			echo "matrix: $v: sweep = $sel: no rig/sweep/$sel.drivers" >&2
			return 1
		}
		only=(--only "$(grep -v '^#' "$TOP/rig/sweep/$sel.drivers" | tr -s ' \n' ',' | sed 's/^,//; s/,$//')")
	fi
	mkdir -p "$B/$v"
	out=$("$TOP/rig/sweep/select.py" "$TREE" "$B/$v/sweep-drivers.config" \
		"$B/$v/sweep-select.json" "${only[@]}") || return 1
	log "$v" "$out"
	SWEEP_FRAG=$B/$v/sweep-drivers.config
}

# The userspace the guest runs, built against the tree's own UAPI headers
# (gadgetfs, usbdevice_fs, ch9): headers_install from the variant's
# configured kernel directory, then the gadget and the runner, once per
# tree and run (make keeps them up to date).
declare -A TREE_TOOLS
stage_userspace() {
	local v=$1 td=$B/trees/$TKEY
	[ -z "${TREE_TOOLS[$TKEY]:-}" ] || return 0
	mkdir -p "$td"
	if [ ! -f "$td/uapi/include/linux/usb/gadgetfs.h" ]; then
		log "$v" "installing $TKEY's UAPI headers into build/trees/$TKEY/uapi"
		make -s -C "$TREE" O="$B/$v/kernel" ARCH=x86_64 \
			INSTALL_HDR_PATH="$td/uapi" headers_install > "$td/headers.log" 2>&1 || {
			tail -20 "$td/headers.log" >&2
			return 1
		}
	fi
	{ make --no-print-directory -C "$TOP/gadget" O="$td/gadget" UAPI="$td/uapi/include" &&
	  make --no-print-directory -C "$TOP/initramfs/runner" O="$td/runner" UAPI="$td/uapi/include"; } \
		> "$td/tools.log" 2>&1 || {
		cat "$td/tools.log" >&2
		return 1
	}
	TREE_TOOLS[$TKEY]=1
}

stage_kernel() {
	local v=$1 cc=gcc t0=$SECONDS pid rc
	command -v ccache >/dev/null && cc="ccache gcc"
	log "$v" "building kernel (log: build/$v/kernel.log)"
	# ccache's depend mode: a miss costs the compile alone, not a second
	# run of the preprocessor (kernel/ cold: 46 s against 65 s, gcc alone
	# 43 s; warm the same), and kbuild's -Wp,-MMD gives it the headers.
	# The host tools (objtool, modpost, ...) through it too: they do not
	# depend on HZ, so every variant after the first finds them there
	# (kconfig.sh builds kconfig's the same way).
	# "module_cflags = -g1" (the sweep's variants): the modules' own
	# compiler flags, line tables for file:line without the kernel's
	# debug information.
	local mcf
	mcf=$(variant_field "$v" module_cflags)
	# base_dir: the clone's absolute path out of ccache's keys (kbuild
	# passes the tree and its includes as absolute paths), so that a
	# clone in another place finds the objects another one compiled.
	CCACHE_DEPEND=${CCACHE_DEPEND:-true} CCACHE_BASEDIR=${CCACHE_BASEDIR:-$TOP} \
	make -C "$TREE" O="$B/$v/kernel" ARCH=x86_64 CC="$cc" HOSTCC="$cc" -j"$JOBS" \
		${mcf:+CFLAGS_MODULE="$mcf"} bzImage modules > "$B/$v/kernel.log" 2>&1 &
	pid=$!
	# Progress every 30 s: a cold build takes minutes.
	while ! wait_timeout "$pid" 30; do
		log "$v" "  $((SECONDS - t0)) s, $(grep -c '^  CC' "$B/$v/kernel.log") files compiled, at $(grep '^  CC' "$B/$v/kernel.log" | tail -1 | awk '{print $2}')"
	done
	wait "$pid"
	rc=$?
	if [ $rc -ne 0 ]; then
		tail -20 "$B/$v/kernel.log" >&2
		return 1
	fi
	log "$v" "kernel built in $((SECONDS - t0)) s"
	echo "$((SECONDS - t0))" > "$B/$v/kernel-build-s"
	BUILT[$v]=1
}

# wait_timeout PID SECONDS: 0 once PID has exited, 1 if still running.
wait_timeout() {
	local i
	for ((i = 0; i < $2; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 1
	done
	! kill -0 "$1" 2>/dev/null
}

stage_module() {
	local v=$1 t0=$SECONDS
	make -s -C "$TOP/host-driver" modules KDIR="$B/$v/kernel" \
		BUILD_DIR="$B/$v/module" DEMO="$(variant_field "$v" module_demo)" \
		> "$B/$v/module.log" 2>&1 || {
		cat "$B/$v/module.log" >&2
		return 1
	}
	echo "$((SECONDS - t0))" > "$B/$v/module-build-s"
}

stage_initramfs() {
	local v=$1 kmods=
	# in-tree drivers as modules (docs/checker.md): installed for modprobe
	if [ -n "$(variant_field "$v" drivers)$(variant_field "$v" sweep)" ]; then
		kmods=$B/$v/kmods
		rm -rf "$kmods"
		make -C "$TREE" O="$B/$v/kernel" ARCH=x86_64 \
			INSTALL_MOD_PATH="$kmods" modules_install \
			> "$B/$v/modules_install.log" 2>&1 || {
			tail -20 "$B/$v/modules_install.log" >&2
			return 1
		}
	fi
	# The sweep's devices, one per driver, from the built modules' id
	# tables (docs/sweep.md); the firmware the modules name, found or not.
	local sweep_dev= sweep_fw=
	if [ -n "$(variant_field "$v" sweep)" ]; then
		sweep_dev=$B/$v/sweep-devices
		sweep_fw=$B/$v/sweep-firmware.txt
		rm -rf "$sweep_dev"
		"$HZRIG" sweep devices --alias "$(echo "$kmods"/lib/modules/*/modules.alias)" \
			--overrides "$TOP/gadget/devices/sweep:$TOP/gadget/devices" --out "$sweep_dev" || return 1
	fi
	# The build record goes into the initramfs too: a guest whose samples
	# go in-band (a LAVA job, docs/lava.md) prints it for the host.
	write_build_json "$v" > "$B/$v/build.json.tmp" &&
		mv "$B/$v/build.json.tmp" "$B/$v/build.json" || return 1
	HZRIG_BUILD_JSON=$B/$v/build.json HZRIG_KMODS=$kmods \
		HZRIG_SWEEP_DEVICES=$sweep_dev HZRIG_SWEEP_FIRMWARE=$sweep_fw \
		"$TOP/initramfs/mkinitramfs.sh" "$B/$v/initramfs.cpio" /bin/busybox \
		"$B/trees/$TKEY/gadget/hzrig-gadget" "$B/trees/$TKEY/runner/hzrig-runner" \
		"$B/$v/module/hzrig_host.ko" "$TOP"/rig/plan/plans/*.plan
}

stage_boot() {
	local v=$1 d=$B/$v/run
	rm -rf "$d"
	mkdir -p "$d"
	"$HZRIG" boot --variant "$v" --kernel "$B/$v/kernel/arch/x86/boot/bzImage" \
		--initrd "$B/$v/initramfs.cpio" --plan "$PLAN_FILE" \
		--accel "$ACCEL_USED" --qemu-config "$TOP/rig/boot/qemu/x86_64.conf" \
		--console "$d/console.log" --samples "$d/ttyS1.jsonl" \
		--status "$d/status.json" \
		--append "$(variant_field "$v" cmdline)${PARALLEL:+ hzrig.parallel=$PARALLEL}"
}

stage_collect() {
	local v=$1 d=$B/$v/run
	"$HZRIG" collect --variant "$v" --serial "$d/ttyS1.jsonl" \
		--console "$d/console.log" --boot-status "$d/status.json" \
		--out "$RUN_DIR" || return 1
	# The guest's own words stay with the run; the next boot of this
	# variant overwrites build/$v/run.
	cp "$d/console.log" "$d/ttyS1.jsonl" "$d/status.json" "$RUN_DIR/$v/" 2>/dev/null
	cp "$B/$v/build.json" "$RUN_DIR/$v/build.json.tmp" &&
		mv "$RUN_DIR/$v/build.json.tmp" "$RUN_DIR/$v/build.json"
}

# What was built, for the history: fragments, patches, the .config's hash,
# the tree (its name, version and description) and hzrig's version, and how
# long the builds took.
tree_describe() {
	local t=$1
	# Only a tree that is a git work tree of its own (build/src sits
	# inside hzrig's).
	if [ "$(git -C "$t" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$t" && pwd -P)" ]; then
		git -C "$t" describe --always --dirty && return
	fi
	case "$t" in
	"$B/src/linux-source-"*)
		echo "$(basename "$t") $(dpkg-query -W -f='${Version}' "$(basename "$t")" 2>/dev/null)" ;;
	*)
		echo "$(tree_version "$t") ($t)" ;;
	esac
}

write_build_json() {
	local v=$1 base
	base=$(variant_tree "$v")
	jq -n --arg variant "$v" \
		--arg tree "$(case "$base" in "$B/src/"*) basename "$base" ;; *) echo "$base" ;; esac)" \
		--arg tree_version "$(tree_version "$base")" \
		--arg fragments "$(variant_field "$v" fragments)" \
		--arg patches "$(variant_field "$v" patches)" \
		--arg config_hash "sha256:$(sha256sum < "$B/$v/kernel/.config" | cut -d' ' -f1)" \
		--arg tree_describe "$(tree_describe "$base")" \
		--arg hzrig_version "$HZRIG_VERSION" \
		--arg kernel_build_s "$(cat "$B/$v/kernel-build-s" 2>/dev/null)" \
		--arg module_build_s "$(cat "$B/$v/module-build-s" 2>/dev/null)" \
		--arg compiler "$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"$/\1/p' "$B/$v/kernel/.config")" \
		--arg patch_sha256 "$(for p in $(variant_field "$v" patches); do sha256sum < "$TOP/kernel/patches/$p" | cut -d' ' -f1; done)" \
		'{schema: 1, variant: $variant,
		  fragments: ($fragments | split(" ") | map(select(. != ""))),
		  patches: ($patches | split(" ") | map(select(. != ""))),
		  config_hash: $config_hash, tree: $tree,
		  tree_version: $tree_version, tree_describe: $tree_describe,
		  patch_sha256: ($patch_sha256 | split("\n") | map(select(. != ""))),
		  compiler: $compiler, hzrig_version: $hzrig_version,
		  kernel_build_s: ($kernel_build_s | tonumber? // null),
		  module_build_s: ($module_build_s | tonumber? // null)}'
}

HZRIG_VERSION=$(git -C "$TOP" describe --always --dirty 2>/dev/null || echo unknown)
declare -A FAILED CAUSE
NFAILED=0
# fail VARIANT STAGE [CAUSE [AS]]: VARIANT is out of the run; CAUSE is the
# failing command's last line, AS an earlier variant that failed the same.
FAILED_ORDER=()
fail() {
	FAILED[$1]=$2
	FAILED_ORDER+=("$1")
	CAUSE[$1]=${3:-}
	NFAILED=$((NFAILED + 1))
	# what a boot takes from an earlier build must not be booted as this
	# one's (a sweep boots what --build-only left)
	rm -f "$B/$1/initramfs.cpio"
	if [ -n "${4:-}" ]; then
		log "$1" "FAILED at $2, as $4 did"
	else
		log "$1" "FAILED at $2${3:+: $3}"
	fi
}

# The ways a command that is not installed is reported: by sh ("sh: 1:
# X: not found"), bash ("X: command not found") and make running a recipe
# line itself ("make: X: No such file or directory").
MISSING_RE=': (command )?not found$|^make(\[[0-9]+\])?: [^ :]+: No such file or directory$'

# cause_of FILE: what a failed stage's error output says went wrong: a
# missing command if one is reported, else the last line that is not
# make's own "*** Error" or "Leaving directory" report.
cause_of() {
	local c
	c=$(grep -m1 -E "$MISSING_RE" "$1")
	[ -n "$c" ] || c=$(grep -v -E '^make(\[[0-9]+\])?: (\*\*\*|Leaving directory)|^[[:space:]]*$' "$1" | tail -1)
	printf '%s\n' "${c:0:300}"
}

# run_stage STAGE VARIANT: the stage, in this shell (it sets the tree and
# tools the next stages use), its error output kept for the cause. A
# failure with the same stage and cause as an earlier variant's is said in
# one line: the first one showed the output.
declare -A STAGE_S
run_stage() {
	local s=$1 v=$2 err=$B/$2/stage.err rc w cause t0=$SECONDS
	"stage_$s" "$v" 2> "$err"
	rc=$?
	STAGE_S[$s]=$((${STAGE_S[$s]:-0} + SECONDS - t0))
	[ $rc -ne 0 ] || { cat "$err" >&2; return 0; }
	cause=$(cause_of "$err")
	for w in "${FAILED_ORDER[@]}"; do
		if [ "${FAILED[$w]}" = "$s" ] && [ "${CAUSE[$w]}" = "$cause" ]; then
			fail "$v" "$s" "$cause" "$w"
			return 1
		fi
	done
	cat "$err" >&2
	fail "$v" "$s" "$cause"
	return 1
}

# failures: each distinct stage and cause once, with the variants that
# failed so and, for a missing command, what installs it.
failures() {
	local v key pkg cmd stage cause
	declare -A who
	local order=()
	for v in "$@"; do
		[ -n "${FAILED[$v]:-}" ] || continue
		key="${FAILED[$v]}|${CAUSE[$v]}"
		[ -n "${who[$key]:-}" ] || order+=("$key")
		who[$key]="${who[$key]:-}${who[$key]:+ }$v"
	done
	for key in "${order[@]}"; do
		stage=${key%%|*}
		cause=${key#*|}
		if [ "$(wc -w <<< "${who[$key]}")" -eq "$#" ] && [ "$#" -gt 1 ]; then
			echo "matrix: every variant (${who[$key]}) failed at stage $stage${cause:+: $cause}" >&2
		else
			echo "matrix: ${who[$key]} failed at stage $stage${cause:+: $cause}" >&2
		fi
		cmd=$(grep -E "$MISSING_RE" <<< "$cause" | sed -n -e 's/.*: \([^ :]*\): \(command \)\{0,1\}not found$/\1/p' \
			-e 's/^make[^:]*: \([^ :]*\): No such file or directory$/\1/p')
		[ -n "$cmd" ] || continue
		pkg=$(awk -v c="$cmd" '$1 == c && $1 != "target" && NF >= 3 {print $2; exit}' \
			"${HZRIG_COMMANDS:-$TOP/rig/boot/commands}")
		if [ -n "$pkg" ]; then
			echo "matrix: $cmd is not installed (Debian package $pkg): run rig/boot/setup.sh as root, which installs what rig/boot/commands lists, then make again" >&2
		else
			echo "matrix: $cmd is not installed, and rig/boot/commands does not list it, so rig/boot/setup.sh cannot install it: add it there with its Debian package" >&2
		fi
	done
}

# times: where the matrix's time went, one line (make check-fresh and the
# README's figures read it): the stages summed over the variants; the
# kernel builds also one by one; boot is the guests' time.
times() {
	local s out="" v k=""
	for s in tree config userspace kernel module initramfs boot collect report; do
		[ -n "${STAGE_S[$s]:-}" ] || continue
		out="$out${out:+, }$s ${STAGE_S[$s]} s"
		if [ "$s" = kernel ]; then
			for v in "$@"; do
				[ -f "$B/$v/kernel-build-s" ] && [ -n "${BUILT[$v]:-}" ] &&
					k="$k${k:+, }$v $(cat "$B/$v/kernel-build-s")"
			done
			[ -z "$k" ] || out="$out ($k)"
		fi
	done
	echo "hzrig: time: matrix: $out"
}

declare -A BUILT
for v in "$@"; do
	[ -f "$TOP/kernel/variants/$v.variant" ] || { fail "$v" "variant" "no kernel/variants/$v.variant"; continue; }
	mkdir -p "$B/$v"
	for s in tree config userspace kernel module initramfs; do
		run_stage "$s" "$v" || break
	done
done

if [ "$BUILD_ONLY" = 1 ]; then
	times "$@"
	failures "$@"
	[ "$NFAILED" -eq 0 ]
	exit
fi
# Nothing built: nothing to boot, and no run to report, compare or record.
if [ "$NFAILED" -eq "$#" ]; then
	times "$@"
	failures "$@"
	echo "matrix: no variant was built: nothing booted, nothing recorded" >&2
	exit 1
fi

# One accelerator decision for the whole matrix.
ACCEL_USED=$ACCEL
if [ "$ACCEL" = auto ]; then
	for v in "$@"; do
		[ -z "${FAILED[$v]:-}" ] || continue
		ACCEL_USED=$(variant_accel "$v")
		echo "matrix: accelerator: $ACCEL_USED"
		break
	done
fi

RUN_ID=$(date -u +%Y%m%dT%H%M%SZ)
RUN_DIR=$RESULTS/runs/$RUN_ID
mkdir -p "$RUN_DIR"
for v in "$@"; do
	[ -z "${FAILED[$v]:-}" ] || continue
	t0=$SECONDS
	stage_boot "$v"
	rc=$?
	STAGE_S[boot]=$((${STAGE_S[boot]:-0} + SECONDS - t0))
	[ $rc -le 1 ] || log "$v" "guest did not finish cleanly (exit $rc), see build/$v/run/console.log"
	run_stage collect "$v"
done
if [ "$NFAILED" -eq "$#" ]; then
	failures "$@"
	rmdir "$RUN_DIR" 2> /dev/null
	echo "matrix: no variant was collected: nothing to report, nothing recorded" >&2
	exit 1
fi
ln -sfn "runs/$RUN_ID" "$RESULTS/latest.tmp" && mv -T "$RESULTS/latest.tmp" "$RESULTS/latest"

T_REPORT=$SECONDS
echo
"$HZRIG" report "$RESULTS/latest"
rc=$?

# Across variants, then into the history: the run is ingested, held against
# each variant's baseline (a variant's first run becomes its baseline), and
# the dashboard is redrawn. HZRIG_DB moves the database.
echo
"$HZRIG" compare "$RESULTS/latest" || rc=1
if "$HZRIG" ingest --db "$DB" "$RUN_DIR"; then
	checked=()
	for v in "$@"; do
		[ -z "${FAILED[$v]:-}" ] || continue
		if [ -n "$(sqlite3 -batch "$DB" "SELECT 1 FROM baselines WHERE variant = '$v'")" ]; then
			checked+=(--variant "$v")
		else
			"$HZRIG" baseline --db "$DB" set "$RUN_ID" --variant "$v"
		fi
	done
	if [ ${#checked[@]} -gt 0 ]; then
		echo
		"$HZRIG" check-regressions --db "$DB" --run "$RUN_ID" "${checked[@]}" || rc=1
	fi
	# Across kernel trees: each variant beside the same one built from
	# another tree (this run's, else the history's newest); a newer tree
	# that waits wider or later is a regression of the upgrade.
	echo
	"$HZRIG" compare --trees --db "$DB" --run "$RUN_ID" || rc=1
	if "$HZRIG" dashboard --db "$DB" --out "$RESULTS/dashboard"; then
		echo "matrix: dashboard: $RESULTS/dashboard/index.html"
	else
		rc=1
	fi
else
	echo "matrix: the run was not recorded in $DB" >&2
	rc=1
fi
STAGE_S[report]=$((SECONDS - T_REPORT))
times "$@"
[ "$NFAILED" -eq 0 ] || { failures "$@"; rc=1; }
exit $rc
