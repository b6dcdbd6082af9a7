# hzrig: how long USB timeouts really take, per HZ. See README.md.
#
#   make            set-up, then the HZ matrix (build, boot, collect) and report
#   make check      set-up, then unit tests and one end-to-end guest boot
#   make check-fresh `make` and `make check-unit` in a Debian root made from
#                   nothing (mmdebstrap): set-up proven, not assumed
#   make fuzz       libFuzzer on every untrusted-input reader (FUZZ_SECONDS each)
#   make bench      turnaround figures, efficiency and late tail of the
#                   full plan serial vs. lanes; make regression-demo: the
#                   pre-2.6.12 patch held against the clean kernel
#   make check-tree the HZ-based USB timeouts of KSRC (Coccinelle), with
#                   their windows per HZ and the patch that fixes them
#   make drivers    those drivers, unmodified, measured with usbmon at
#                   HZ=100/250/1000, before and after the fix
#   make sweep      every USB driver of the tree probed against a device
#                   built from its id table, NAKed; the HZ-dependent sites
#                   by measurement (SWEEP_TREE, SWEEP_HZ, SWEEP_SET)
#   make lava-jobs  LAVA jobs of VARIANTS for a lab (docs/lava.md);
#                   make lava-check: one under lava-run, matched with here
#   make robustness the driver's teardown on a KASAN + lockdep kernel;
#                   make robustness-demo: the unsafe teardown, reported
#
# Variables: VARIANTS (default: hz-100 hz-250 hz-1000; "all": every plain
# HZ variant, 100/250/300/1000 on 6.1 and on 6.12), PLAN (a name under
# rig/plan/plans/; default quick: every transfer, behaviour and caller mode), ACCEL (auto|kvm|tcg), PARALLEL (serial|lanes: overrides the
# plan's), KSRC (another kernel tree), JOBS.

TOP := $(CURDIR)
B := $(TOP)/build
KSRC ?= $(B)/src/linux-source-6.1
VARIANTS ?= hz-100 hz-250 hz-1000
PLAN ?= quick
ACCEL ?= auto
JOBS ?= $(shell nproc)
CHECK_VARIANT ?= hz-250
export KSRC JOBS B

HZRIG := $(B)/rig/hzrig
TOOLS := $(HZRIG) $(B)/gadget/hzrig-gadget $(B)/runner/hzrig-runner

# Every target first makes sure this machine has what it runs: setup.sh
# TARGET installs (as root) or names (otherwise) what rig/boot/commands
# lists for it and its parts; a second call finds everything and is silent.
SETUP = @$(TOP)/rig/boot/setup.sh $@

all:
	$(SETUP)
	@$(MAKE) --no-print-directory matrix

# what `make` needs, installed, and nothing run
setup:
	@$(TOP)/rig/boot/setup.sh all

matrix: tools ksrc
	$(SETUP)
	$(TOP)/rig/boot/matrix.sh --plan $(PLAN) --accel $(ACCEL) $(if $(PARALLEL),--parallel $(PARALLEL)) $(VARIANTS)

tools:
	$(SETUP)
	@t0=$$(date +%s); \
	$(MAKE) --no-print-directory -j$(JOBS) -C rig O=$(B)/rig && \
	$(MAKE) --no-print-directory -j$(JOBS) -C gadget O=$(B)/gadget && \
	$(MAKE) --no-print-directory -j$(JOBS) -C initramfs/runner O=$(B)/runner || exit 1; \
	t=$$(($$(date +%s) - t0)); [ $$t -eq 0 ] || echo "hzrig: time: tools $$t s"

# Debian's tree, extracted once into build/; KSRC= points elsewhere instead.
# (Variants that name another tree get it extracted by matrix.sh.)
ksrc:
	$(SETUP)
	@TOP=$(TOP) B=$(B) bash -c '. $(TOP)/rig/boot/variant.sh && tree_ensure "$(KSRC)"'

# make check's parts. CHECK_SKIP leaves some out: .ci/run skips check-unit,
# which check-fresh has just run from the same commit in a root that has
# nothing (a stricter place for it than this machine).
CHECK_PARTS := check-unit check-kernel check-e2e check-robustness check-sweep
CHECK_SKIP ?=
check:
	$(SETUP)
	$(if $(filter-out $(CHECK_PARTS),$(CHECK_SKIP)),$(error CHECK_SKIP: $(filter-out $(CHECK_PARTS),$(CHECK_SKIP)) is not a part of make check ($(CHECK_PARTS))))
	@$(MAKE) --no-print-directory $(filter-out $(CHECK_SKIP),$(CHECK_PARTS))

check-unit: tools
	$(SETUP)
	@$(TOP)/tests/setup/check-commands.py $(TOP)
	@$(TOP)/tests/setup/check-setup.sh
	@$(TOP)/tests/setup/matrix-fail.sh
	@$(TOP)/tests/setup/sweep-schedule.sh
	@$(TOP)/tests/layout/check-layout.py $(TOP)
	@$(MAKE) --no-print-directory -C tests unit
	@$(MAKE) --no-print-directory -C gadget simtest O=$(B)/gadget-sim
	@$(MAKE) --no-print-directory -C tests history HZRIG=$(HZRIG)
	@$(TOP)/tests/kcidb/validate.sh $(HZRIG)
	@$(MAKE) --no-print-directory -C tests browser HZRIG=$(HZRIG)
	@$(MAKE) --no-print-directory check-hostile
	@$(TOP)/tests/lava/check.sh $(HZRIG_SAN)
	@$(TOP)/tests/checker/check-corpus.py $(HZRIG_SAN)
	@$(MAKE) --no-print-directory check-fuzz

# Hostile inputs (tests/hostile/: round one, hostile.sh; two, inputs.sh;
# the driver sweep's, sweep.sh),
# through an hzrig built with ASan+UBSan; verdicts.sh (every reader of a run
# directory agrees on about 800 hostile ones) through the plain build.
HZRIG_SAN := $(B)/rig-san/hzrig
SAN_CFLAGS := -O1 -fsanitize=address,undefined -fno-sanitize-recover=all
check-hostile:
	$(SETUP)
	@$(MAKE) --no-print-directory -C rig O=$(B)/rig-san CFLAGS="$(SAN_CFLAGS)"
	@$(TOP)/tests/hostile/hostile.sh $(HZRIG_SAN)
	@$(TOP)/tests/hostile/inputs.sh $(HZRIG_SAN)
	@$(TOP)/tests/hostile/sweep.sh $(HZRIG_SAN)
	@$(MAKE) --no-print-directory -C rig
	@$(TOP)/tests/hostile/verdicts.sh $(B)/rig/hzrig

# libFuzzer (clang) on the plan parser, the capture's JSON-lines reader and
# a run directory through the loader, the report and the KCIDB writer.
# make check fuzzes each target FUZZ_CHECK_SECONDS; make fuzz, FUZZ_SECONDS.
FUZZ_SECONDS ?= 300
FUZZ_CHECK_SECONDS ?= 20
fuzz:
	$(SETUP)
	@$(TOP)/tests/fuzz/run.sh $(FUZZ_SECONDS)

check-fuzz:
	$(SETUP)
	@$(TOP)/tests/fuzz/run.sh $(FUZZ_CHECK_SECONDS)

# What needs the kernel trees: the config survival check (every variant on
# its own tree), checkpatch, and the checker against the reviewed sites of
# 6.1 (KSRC; skipped for a tree with no golden file) and of 6.12.
check-kernel: tools ksrc
	$(SETUP)
	@$(MAKE) --no-print-directory -C tests kconfig
	@$(MAKE) --no-print-directory -C host-driver checkpatch KSRC=$(KSRC)
	@$(TOP)/tests/checker/check-golden.py $(HZRIG) $(KSRC) || [ $$? -eq 77 ]
	@$(MAKE) --no-print-directory ksrc KSRC=$(B)/src/linux-source-6.12
	@$(TOP)/tests/checker/check-golden.py $(HZRIG) $(B)/src/linux-source-6.12

check-e2e: tools ksrc
	$(SETUP)
	@$(MAKE) --no-print-directory -C tests e2e VARIANT=$(CHECK_VARIANT)

# The README's two commands on a machine that has nothing
# (tests/fresh/check-fresh.sh): a Debian bookworm root made by mmdebstrap
# (minbase, make and gcc), a clean clone of HEAD in it, then `make
# VARIANTS=$(FRESH_VARIANTS)` and `make check-unit` inside, as root. Only
# the kernel, the apt mirror and a ccache directory (FRESH_CCACHE, "none"
# for a cold build) come from this machine. Needs root.
FRESH_VARIANTS ?= $(CHECK_VARIANT)
FRESH_CCACHE ?= $(HOME)/.cache/hzrig/fresh-ccache
check-fresh:
	$(SETUP)
	@$(TOP)/tests/fresh/check-fresh.sh --variants "$(FRESH_VARIANTS)" --plan $(PLAN) \
		--ccache "$(FRESH_CCACHE)"

# LAVA (docs/lava.md). lava-jobs: one job per variant in build/lava, for a
# lab's qemu device type (LAVA_ARGS: more hzrig lava jobs options, e.g.
# --artifacts URL --accel kvm). lava-check: one variant's quick plan under a
# real dispatcher (Debian's lava-dispatcher, lava-run), ingested and held
# against the same variant run here.
LAVA_VARIANT ?= $(CHECK_VARIANT)
lava-jobs:
	$(SETUP)
	@$(MAKE) --no-print-directory tools ksrc
	$(TOP)/rig/boot/matrix.sh --build-only $(VARIANTS)
	$(HZRIG) lava jobs --plan $(PLAN) $(LAVA_ARGS) $$(TOP=$(TOP) B=$(B) bash -c '. $(TOP)/rig/boot/variant.sh && variant_expand $(VARIANTS)')

lava-check:
	$(SETUP)
	@$(MAKE) --no-print-directory tools ksrc
	$(TOP)/tests/lava/lava-check.sh $(LAVA_VARIANT)

# A LAVA lab on this machine (docs/lava.md "A lab on this machine"):
# lava-server (PostgreSQL 15, gunicorn on 127.0.0.1:LAB_PORT, the
# scheduler) and one lava-worker with two qemu devices, started by hand
# (rig/lava/lab.sh; state in build/lava-lab). lava-submit runs VARIANTS'
# PLAN there through lavacli and records the runs in results/hzrig.db; a
# sweep variant's batches run there as jobs (rig/lava/lab-run.sh).
LAB_PORT ?= 8093
LAB_ENV = LAB_PORT=$(LAB_PORT) B=$(B)
lava-lab: tools
	$(SETUP)
	@$(LAB_ENV) $(TOP)/rig/lava/lab.sh start

lava-lab-stop:
	$(SETUP)
	@$(LAB_ENV) $(TOP)/rig/lava/lab.sh stop

lava-lab-status:
	$(SETUP)
	@$(LAB_ENV) $(TOP)/rig/lava/lab.sh status

lava-submit:
	$(SETUP)
	@$(MAKE) --no-print-directory tools ksrc
	@$(LAB_ENV) LAVA_ARGS="$(LAVA_ARGS)" SWEEP_NAK=$(SWEEP_NAK) SWEEP_MAX_S=$(SWEEP_MAX_S) \
		$(TOP)/rig/lava/lab-run.sh $(PLAN) $(VARIANTS)

# The lab under faults (tests/lava/lab-faults.sh: a worker killed mid-job,
# the server restarted with a job queued, a job whose image is missing):
# about 8 min, its own target and not in .ci/run.
lava-faults: tools ksrc
	$(SETUP)
	@$(LAB_ENV) $(TOP)/tests/lava/lab-faults.sh $(LAVA_VARIANT)

# Turnaround figures (cold/warm build, boot to first sample, guest time,
# efficiency and late tail serial vs. lanes, noise floor), printed and
# appended to results/bench.jsonl: the full plan on one variant, each way
# (about an hour). BENCH_PLAN=quick for a quick look; BENCH_COLD=0 skips
# the cold build (minutes); BENCH_VARIANTS, the variants.
BENCH_PLAN ?= full
BENCH_COLD ?= 1
BENCH_VARIANTS ?= hz-250
bench:
	$(SETUP)
	@$(MAKE) --no-print-directory tools ksrc
	$(TOP)/rig/boot/bench.sh --plan $(BENCH_PLAN) $(if $(filter 0,$(BENCH_COLD)),--no-cold) $(BENCH_VARIANTS)

# The regression demo: hz-250 and the patched hz-250-legacy (timeouts taken
# as jiffies again, kernel/patches/0001-*) in one run, the latter held
# against the former. Exits non-zero: the regressions are the point.
regression-demo:
	$(SETUP)
	@$(MAKE) --no-print-directory tools ksrc
	-$(TOP)/rig/boot/matrix.sh --plan quick --accel $(ACCEL) hz-250 hz-250-legacy
	$(HZRIG) check-regressions --db $(TOP)/results/hzrig.db \
		--run $$(basename $$(readlink -f $(TOP)/results/latest)) \
		--variant hz-250-legacy --against hz-250 \
		--baseline-run $$(basename $$(readlink -f $(TOP)/results/latest))

# The driver's teardown and locking on hz-250-debug (KASAN, lockdep, debug
# objects; docs/robustness.md): disconnect, unbind/bind, rmmod/insmod,
# USBDEVFS_RESET, authorized=0/1 and USBDEVFS_DISCONNECT, ROBUSTNESS_CYCLES
# each with the heartbeat and a NAKed call in flight; an rwsem released
# from interrupt context and the driver's ioctls fuzzed, 10,000 times each.
# Prints the cycles per scenario and every kernel report by title; exits
# non-zero on any. The scenarios and their sets: rig/boot/robustness.scenarios.
# make check runs the "check" set with CHECK_ROBUSTNESS_CYCLES cycles each
# and CHECK_ROBUSTNESS_ITERATIONS rwsem cycles and fuzzed calls.
ROBUSTNESS_CYCLES ?= 100
ROBUSTNESS_SCENARIOS ?= all
CHECK_ROBUSTNESS_CYCLES ?= 10
CHECK_ROBUSTNESS_ITERATIONS ?= 10000
robustness:
	$(SETUP)
	@$(MAKE) --no-print-directory tools ksrc
	$(TOP)/rig/boot/robustness.sh --cycles $(ROBUSTNESS_CYCLES) \
		--scenarios $(ROBUSTNESS_SCENARIOS) --accel $(ACCEL) hz-250-debug

check-robustness: tools ksrc
	$(SETUP)
	$(TOP)/rig/boot/robustness.sh --cycles $(CHECK_ROBUSTNESS_CYCLES) \
		--rwsem-cycles $(CHECK_ROBUSTNESS_ITERATIONS) --scenarios check \
		--accel $(ACCEL) hz-250-debug

# The demonstrations, each of which must be reported (docs/robustness.md):
# the module of hz-250-debug-unsafe stops its heartbeat with plain
# cancel_delayed_work() and frees it, unbound while the heartbeat runs: a
# use-after-free in the heartbeat; hz-250-debug-rwsem's kernel takes the
# rwsem wait_lock with interrupts on (kernel/patches/0002-*) while the
# driver releases readers from a hard-irq hrtimer: lockdep's inconsistent
# lock state; down_read() with interrupts off on hz-250-debug (the negative
# control): sleeping in an invalid context. Exits 0 only when the scanner
# reports each.
robustness-demo:
	$(SETUP)
	@$(MAKE) --no-print-directory tools ksrc
	@rc=0; \
	$(TOP)/rig/boot/robustness.sh --cycles 100 --scenarios unbind \
		--stop-on-report --accel $(ACCEL) \
		--expect "KASAN: use-after-free" --expect "in hzrig_heartbeat" \
		hz-250-debug-unsafe || rc=1; \
	$(TOP)/rig/boot/robustness.sh --cycles 1 --scenarios rwsem-hrtimer \
		--accel $(ACCEL) --expect "lockdep: inconsistent lock state" \
		hz-250-debug-rwsem || rc=1; \
	$(TOP)/rig/boot/robustness.sh --cycles 1 --scenarios rwsem-irqs-off \
		--accel $(ACCEL) \
		--expect "BUG: sleeping function called from invalid context in hzrig_rwsem_irqs_off" \
		hz-250-debug || rc=1; \
	if [ $$rc -eq 0 ]; then echo "robustness-demo: every expected report was found"; \
	else echo "robustness-demo: an expected report is missing (above)"; fi; \
	exit $$rc

# docs/img/dashboard.png from this machine's own dashboard (after make):
# the README's picture, of a real run.
dashboard-image:
	$(SETUP)
	@$(TOP)/tests/browser/snapshot.sh $(TOP)/results/dashboard/index.html $(TOP)/docs/img/dashboard.png

# The checker (docs/checker.md): every timeout of the synchronous USB
# calls in KSRC built from HZ or jiffies, with its value and window at each
# HZ; results/check-tree/sites.json and fix.patch (patch -p1 in KSRC).
# Finding sites is not a failure here (hzrig check-tree exits 1 for them).
check-tree:
	$(SETUP)
	@$(MAKE) --no-print-directory tools ksrc
	@mkdir -p $(TOP)/results/check-tree
	@rc=0; $(HZRIG) check-tree --json $(TOP)/results/check-tree/sites.json \
		--patch $(TOP)/results/check-tree/fix.patch $(KSRC) || rc=$$?; \
	[ $$rc -le 1 ] && echo "check-tree: results/check-tree/sites.json, fix.patch"

# The drivers check-tree flags, unmodified, bound to the gadget presenting
# their devices, their own calls timed by usbmon (docs/checker.md): the
# hz-*-drivers variants with PLAN=drivers, then the hz-*-drivers-fixed ones
# (check-tree's patch applied) with PLAN=drivers-fixed. Two runs in the
# history; about 8 min of guest time plus six kernel builds.
DRIVERS_HZ ?= 100 250 1000
drivers:
	$(SETUP)
	@$(MAKE) --no-print-directory tools ksrc
	@rc=0; \
	$(TOP)/rig/boot/matrix.sh --plan drivers --accel $(ACCEL) \
		$(foreach h,$(DRIVERS_HZ),hz-$(h)-drivers) || rc=1; \
	$(TOP)/rig/boot/matrix.sh --plan drivers-fixed --accel $(ACCEL) \
		$(foreach h,$(DRIVERS_HZ),hz-$(h)-drivers-fixed) || rc=1; \
	exit $$rc

# The driver sweep (docs/sweep.md): every tristate driver of the tree with
# a USB id table, built as modules, presented its device from its own id
# table through raw-gadget, NAKed SWEEP_NAK times then stalled, at each HZ;
# the report names the sites whose waits depend on HZ. SWEEP_TREE 6.1 or
# 6.12, SWEEP_HZ any of 100 250 1000, SWEEP_SET all (the whole tree),
# small (rig/sweep/small.drivers: ipheth, orinoco_usb and nine more),
# small-fixed (the same with kernel/patches/0006-* and 0007-*, the fixes),
# sites (rig/sweep/sites.drivers, 6.1 only: the drivers of check-tree's
# twelve sites) or check (rig/sweep/check.drivers, 6.1 only: what make
# check runs).
SWEEP_TREE ?= 6.1
SWEEP_HZ ?= 100 1000
SWEEP_SET ?= all
SWEEP_NAK ?= 2
# a batch's limit in the guest (its watchdog: 120 s more; a guest whose
# stream goes quiet for 30 s is stopped sooner)
SWEEP_MAX_S ?= 240
# the walk: each request of a probe NAKed in turn, SWEEP_WALK passes at
# most (0: the first SWEEP_NAK requests alone, as before)
SWEEP_WALK ?= 6
# SWEEP_PASS=unplug: the debugging kernel at HZ=250 (KASAN, lockdep:
# sweep-debug-hz-250, sweep-check-debug-hz-250), each device unplugged
# SWEEP_UNPLUG_MS into its first NAKed request; results/sweep-unplug/.
SWEEP_PASS ?= nak
# SWEEP_COLLECT_ONLY=1: no build, no boot; collect and report again the
# batches the last sweep left in results/ (after hzrig changed).
SWEEP_COLLECT_ONLY ?= 0
SWEEP_UNPLUG_MS ?= 100
# SWEEP_JOBS: batches' guests at once (sweep.sh's default: 2 on 2 cores
# or more; the report's noise allowance per batch says what it cost)
SWEEP_JOBS ?=
SWEEP_SET_PART = $(if $(filter-out all,$(SWEEP_SET)),$(SWEEP_SET)-)
SWEEP_TREE_PART = $(if $(filter 6.12,$(SWEEP_TREE)),-6.12)
SWEEP_VARIANTS = $(if $(filter unplug,$(SWEEP_PASS)),sweep-$(SWEEP_SET_PART)debug-hz-250$(SWEEP_TREE_PART),$(foreach h,$(SWEEP_HZ),sweep-$(SWEEP_SET_PART)hz-$(h)$(SWEEP_TREE_PART)))
sweep:
	$(SETUP)
	$(if $(filter-out nak unplug,$(SWEEP_PASS)),$(error SWEEP_PASS: '$(SWEEP_PASS)' is not nak or unplug))
	@$(MAKE) --no-print-directory tools ksrc
	@$(TOP)/rig/sweep/sweep.sh --nak $(SWEEP_NAK) --max-s $(SWEEP_MAX_S) --walk $(SWEEP_WALK) --accel $(ACCEL) \
		$(if $(filter 1,$(SWEEP_COLLECT_ONLY)),--collect-only) $(if $(SWEEP_JOBS),--jobs $(SWEEP_JOBS)) \
		$(if $(filter unplug,$(SWEEP_PASS)),--unplug-ms $(SWEEP_UNPLUG_MS) --out $(TOP)/results/sweep-unplug,--out $(TOP)/results/sweep) \
		$(SWEEP_VARIANTS)

# The sweep's own end-to-end tests (tests/e2e/sweep.sh, sweep-loop.sh): a
# part of make check (and of .ci/run), and its own target because it is
# heavy (three kernels).
check-sweep: tools ksrc
	$(SETUP)
	@$(MAKE) --no-print-directory -C tests sweep

checkpatch: ksrc
	$(SETUP)
	@$(MAKE) --no-print-directory -C host-driver checkpatch KSRC=$(KSRC)

clean:
	rm -rf $(B)/rig $(B)/gadget $(B)/runner $(B)/tests
	@TOP=$(TOP) B=$(B) bash -c '. $(TOP)/rig/boot/variant.sh && \
		for v in $$(variant_expand $(VARIANTS)); do echo "rm -rf $(B)/$$v"; rm -rf "$(B)/$$v"; done'

distclean:
	rm -rf $(B)

.PHONY: all setup matrix tools ksrc check check-fresh dashboard-image check-tree drivers sweep check-sweep check-unit check-hostile check-fuzz fuzz check-kernel check-e2e checkpatch bench lava-jobs lava-check lava-lab lava-lab-stop lava-lab-status lava-submit lava-faults regression-demo robustness check-robustness robustness-demo clean distclean
