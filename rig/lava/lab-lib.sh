# shellcheck shell=bash
# lab-lib.sh: what rig/lava/lab.sh, rig/lava/submit.sh and
# tests/lava/lab-faults.sh share about the local lab (sourced, after B is
# set): where its state is, how to talk to it, and a service's processes.

LAB=${LAB:-$B/lava-lab}

# lavacli as the lab's admin: the identity lab.sh wrote (mode 0600).
lavacli_lab() { XDG_CONFIG_HOME=$LAB/config lavacli -i hzrig "$@"; }

# Every process of the session a service leads (itself included): each
# service runs under setsid, and what it starts (lava-run, QEMU) stays in
# its session.
session_pids() {
	ps -e -o pid=,sid= | awk -v s="$1" '$2 == s { print $1 }'
}
