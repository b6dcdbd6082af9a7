# shellcheck shell=bash
# lab-lib.sh: what rig/lava/lab.sh, rig/lava/submit.sh and the lab's
# tests (tests/lava/lava-check.sh, lab-faults.sh) share about the local
# lab (sourced, after TOP and B are set): where its state is, how to talk
# to it, a service's processes, and a lab for the length of a script.

LAB=${LAB:-$B/lava-lab}
case $LAB in /*) ;; *) LAB=$PWD/$LAB ;; esac	# its tokens are named by it

# lavacli as the lab's admin: the identity lab.sh wrote (mode 0600).
lavacli_lab() { XDG_CONFIG_HOME=$LAB/config lavacli -i hzrig "$@"; }

# Every process of the session a service leads (itself included): each
# service runs under setsid, and what it starts (lava-run, QEMU) stays in
# its session.
session_pids() {
	ps -e -o pid=,sid= | awk -v s="$1" '$2 == s { print $1 }'
}

# lab_for_script LOGDIR: the lab for the rest of the calling script. A
# lab that runs already is used and left running; otherwise it is started
# (LOGDIR/lab-start.log) and stopped when the script exits
# (LOGDIR/lab-stop.log). Returns 0 "running already", 1 "started here",
# 2 when it could not be started (its log says why).
lab_for_script() {
	if "$TOP/rig/lava/lab.sh" status > /dev/null 2>&1; then
		return 0
	fi
	# shellcheck disable=SC2064
	trap "\"$TOP/rig/lava/lab.sh\" stop > \"$1/lab-stop.log\" 2>&1" EXIT
	"$TOP/rig/lava/lab.sh" start > "$1/lab-start.log" 2>&1 && return 1
	return 2
}

# lab_require WHO: exit 1, saying how to start it, unless the lab runs.
lab_require() {
	"$TOP/rig/lava/lab.sh" status > /dev/null 2>&1 && return 0
	echo "$1: the lab does not run (make lava-lab starts it; make lava-lab-status)" >&2
	exit 1
}
