#!/bin/bash
# lab.sh start|stop|status: a LAVA lab on this machine (docs/lava.md
# "A lab on this machine"): Debian's lava-server with PostgreSQL 15, one
# lava-worker with LAB_DEVICES qemu devices, and lavacli to talk to it.
# PID 1 is not systemd here, so the services are started by hand, the way
# LAVA's own container entrypoints start them (docker/share/entrypoints/).
#
#   start   installs nothing (rig/boot/setup.sh lava-lab has), then, each
#           step only when it is not done yet: PostgreSQL's cluster, the
#           server's configuration and database (postinst.py --config
#           --db: migrations), the admin user LAB_USER and its token,
#           gunicorn on 127.0.0.1:LAB_PORT, lava-scheduler, the qemu
#           device type, the worker LAB_WORKER and its devices (their
#           dictionaries from `hzrig lava device --dictionary N`), health
#           Good, and lava-worker. Idempotent: a second start checks and
#           returns.
#   stop    stops, by pid, every process start started: each service runs
#           in its own session (setsid), and every process of that session
#           (lava-run and QEMU under the worker) is stopped with it; then
#           PostgreSQL, if start started it.
#   status  each service (running or not, pid), the server's version, the
#           worker, the devices (state, health) and the queue.
#
# State: LAB (default build/lava-lab): run/*.pid, log/*.log (the
# scheduler's in /var/log/lava-server/, where its user can write), config/
# (lavacli.yaml: identity "hzrig", the user's token, mode 0600, never
# printed; use it with XDG_CONFIG_HOME=LAB/config lavacli -i hzrig ...),
# worker/ (lava-worker's directory and token). Exit: 0 done, 1 a step
# failed (named, with its log).
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$TOP/build}
. "$TOP/rig/lava/lab-lib.sh"
LAB_PORT=${LAB_PORT:-8093}
LAB_USER=${LAB_USER:-hzrig}
LAB_WORKER=${LAB_WORKER:-hzrig-worker}
LAB_DEVICES=${LAB_DEVICES:-2}
HZRIG=${HZRIG:-$B/rig/hzrig}
URL=http://127.0.0.1:$LAB_PORT
SERVICES="gunicorn lava-scheduler lava-worker"

say() { printf '[lava-lab] %s\n' "$*"; }
fail() { echo "lava-lab: FAILED: $*" >&2; exit 1; }

manage() { lava-server manage "$@"; }

# The pid of a service started here, if it still runs.
pid_of() {
	local p
	[ -r "$LAB/run/$1.pid" ] || return 1
	p=$(cat "$LAB/run/$1.pid")
	case $p in '' | *[!0-9]*) return 1 ;; esac
	kill -0 "$p" 2> /dev/null || return 1
	echo "$p"
}


# Wait up to $2 s for command $1 to succeed.
wait_for() {
	local i
	for ((i = 0; i < $2 * 2; i++)); do
		eval "$1" > /dev/null 2>&1 && return 0
		sleep 0.5
	done
	return 1
}

start_service() {
	local name=$1
	shift
	if p=$(pid_of "$name"); then
		say "$name running (pid $p)"
		return 0
	fi
	setsid "$@" > "$LAB/log/$name.out" 2>&1 < /dev/null &
	echo $! > "$LAB/run/$name.pid"
	say "$name started (pid $!; log: ${LAB#$TOP/}/log/$name.log)"
}

server_up() {
	python3 - "$URL" << 'EOF'
import sys, urllib.request
with urllib.request.urlopen(sys.argv[1] + "/api/v0.2/system/version/", timeout=5) as r:
    sys.exit(0 if r.status == 200 else 1)
EOF
}

# Remove LAB_USER's tokens that no lab uses: this lab's earlier one (its
# identity no longer logs in), those of labs whose directory has no
# identity any more (a clone deleted), and the ones named only "hzrig lab"
# (made before tokens named their lab). By description, in the server's
# own Django shell: no secret on a command line. Prints how many.
drop_stale_tokens() {
	LAB="$LAB" LAB_USER="$LAB_USER" manage shell -c '
import os
from linaro_django_xmlrpc.models import AuthToken
lab, n = os.environ["LAB"], 0
for t in AuthToken.objects.filter(user__username=os.environ["LAB_USER"],
                                  description__startswith="hzrig lab"):
    d = t.description[len("hzrig lab"):].strip()
    if not d or d == lab or not os.path.exists(os.path.join(d, "config", "lavacli.yaml")):
        t.delete()
        n += 1
print(n)
' 2> "$LAB/log/tokens.log" | tail -1 | grep -x '[0-9]*'
}

start() {
	local t0=$SECONDS v n dev
	command -v lava-server > /dev/null && command -v lava-worker > /dev/null &&
		command -v lavacli > /dev/null ||
		fail "lava-server, lava-worker or lavacli missing (rig/boot/setup.sh lava-lab installs them)"
	[ "$(id -u)" = 0 ] || fail "the lab's services run as root and lavaserver: run make lava-lab as root"
	mkdir -p "$LAB/run" "$LAB/log" "$LAB/config" "$LAB/worker"
	chmod 700 "$LAB/config" "$LAB/worker"

	# 1. PostgreSQL
	if ! pg_isready -q; then
		v=$(pg_lsclusters -h 2> /dev/null | awk '$1 == 15 && $2 == "main"')
		[ -n "$v" ] || pg_createcluster 15 main > "$LAB/log/postgres.log" 2>&1 ||
			fail "creating PostgreSQL 15's cluster (log: $LAB/log/postgres.log)"
		pg_ctlcluster 15 main start >> "$LAB/log/postgres.log" 2>&1 ||
			fail "starting PostgreSQL 15 (log: $LAB/log/postgres.log)"
		touch "$LAB/run/postgres.started"
		wait_for "pg_isready -q" 30 || fail "PostgreSQL does not answer"
		say "PostgreSQL 15 started"
	else
		say "PostgreSQL running"
	fi

	# 2. the server's configuration and database (idempotent; migrations)
	if [ ! -e "$LAB/run/db.done" ] || ! manage showmigrations --plan 2> /dev/null | grep -q '\[X\]'; then
		say "configuring lava-server and migrating its database (about 30 s)"
		/usr/share/lava-server/postinst.py --config --db > "$LAB/log/postinst.log" 2>&1 ||
			fail "lava-server's postinst.py --config --db (log: $LAB/log/postinst.log)"
		touch "$LAB/run/db.done"
	fi

	# 3. the admin user (random password: the lab is driven by token)
	manage users details "$LAB_USER" > /dev/null 2>&1 ||
		manage users add --staff --superuser "$LAB_USER" > /dev/null 2>&1 ||
		fail "adding the user $LAB_USER"

	# 4. the web server (XML-RPC and REST), loopback only; a server on the
	# port that is not this lab's (another clone's lab?) is not taken over
	if ! pid_of gunicorn > /dev/null && server_up 2> /dev/null; then
		fail "127.0.0.1:$LAB_PORT already answers, but not from this lab ($LAB): stop that lab, or choose another LAB_PORT"
	fi
	start_service gunicorn gunicorn3 lava_server.wsgi -u lavaserver -g lavaserver \
		--bind "127.0.0.1:$LAB_PORT" --workers 2 --worker-class eventlet \
		--log-level info --log-file "$LAB/log/gunicorn.log" --timeout 120
	wait_for server_up 60 || fail "gunicorn does not answer on $URL (log: $LAB/log/gunicorn.log, $LAB/log/gunicorn.out)"

	# 5. lavacli's identity: the user's token, kept in a 0600 file; the
	# tokens this lab made before and those of labs whose directory is
	# gone are removed first, so they do not pile up in the database
	if ! lavacli_lab system whoami > /dev/null 2>&1; then
		n=$(drop_stale_tokens) || fail "removing the stale tokens of $LAB_USER"
		[ "$n" = 0 ] || say "removed $n stale token(s) of $LAB_USER (labs gone, or this lab's old one)"
		(
			umask 077
			tok=$(manage tokens add --user "$LAB_USER" --description "hzrig lab $LAB" 2> /dev/null) ||
				exit 1
			[ -n "$tok" ] || exit 1
			printf 'hzrig:\n  uri: %s/RPC2\n  username: %s\n  token: %s\n' \
				"$URL" "$LAB_USER" "$tok" > "$LAB/config/lavacli.yaml.new" &&
				mv "$LAB/config/lavacli.yaml.new" "$LAB/config/lavacli.yaml"
		) || fail "making a token for $LAB_USER"
		lavacli_lab system whoami > /dev/null 2>&1 || fail "lavacli does not log in with the new token"
		say "lavacli identity 'hzrig' written (${LAB#$TOP/}/config/lavacli.yaml, mode 0600)"
	fi

	# 6. the scheduler; it drops to lavaserver before it opens its log, so
	# the log is where Debian keeps it (a clone under /root is not
	# reachable by lavaserver)
	start_service lava-scheduler lava-server manage lava-scheduler --level INFO \
		--log-file /var/log/lava-server/lava-scheduler.log

	# 7. the device type, the worker, its devices (health Good)
	manage device-types details qemu > /dev/null 2>&1 ||
		manage device-types add qemu > /dev/null || fail "adding the qemu device type"
	if ! manage workers details "$LAB_WORKER" > /dev/null 2>&1; then
		manage workers add --description "hzrig's local worker" "$LAB_WORKER" > /dev/null ||
			fail "adding the worker $LAB_WORKER"
	fi
	(
		umask 077
		manage workers details "$LAB_WORKER" | sed -n 's/^token *: *//p' > "$LAB/worker/token.new" &&
			[ -s "$LAB/worker/token.new" ] && mv "$LAB/worker/token.new" "$LAB/worker/token"
	) || fail "reading the worker's token"
	for ((n = 1; n <= LAB_DEVICES; n++)); do
		dev=$(printf 'hzrig-qemu-%02d' "$n")
		if ! manage devices details "$dev" > /dev/null 2>&1; then
			manage devices add --device-type qemu --worker "$LAB_WORKER" \
				--description "hzrig: a local QEMU" "$dev" > /dev/null ||
				fail "adding the device $dev"
		fi
		"$HZRIG" lava device --dictionary "$n" --out "$LAB/config/$dev.jinja2" ||
			fail "hzrig lava device --dictionary $n"
		lavacli_lab devices dict set "$dev" "$LAB/config/$dev.jinja2" > /dev/null ||
			fail "setting $dev's dictionary"
		if ! manage devices details "$dev" 2> /dev/null | grep -q 'health *: *Good'; then
			manage devices update --health GOOD "$dev" > /dev/null ||
				fail "setting $dev's health"
		fi
	done

	# 8. the worker (polls the server; runs lava-run under nice for each job)
	start_service lava-worker lava-worker --name "$LAB_WORKER" --url "$URL/" \
		--worker-dir "$LAB/worker" --token-file "$LAB/worker/token" \
		--level INFO --log-file "$LAB/log/lava-worker.log" --ping-interval 5
	wait_for "worker_online" 60 || fail "the worker did not come online (log: $LAB/log/lava-worker.log)"
	# every service still there (one that dies at once says why in .out)
	for n in $SERVICES; do
		pid_of "$n" > /dev/null || {
			tail -5 "$LAB/log/$n.out" >&2
			fail "$n exited after it started (log: $LAB/log/$n.out)"
		}
	done
	say "ready in $((SECONDS - t0)) s: $URL (lavacli: XDG_CONFIG_HOME=${LAB#$TOP/}/config lavacli -i hzrig ...)"
}

# The processes of PostgreSQL 15's main cluster (their titles say so).
pg_processes() {
	ps -e -o pid=,args= | awk '$2 ~ /^\/usr\/lib\/postgresql\/15\/bin\/postgres$/ || $2 $3 ~ /^postgres:15\/main:/ { print $1 }' | grep .
}

worker_online() {
	manage workers details "$LAB_WORKER" 2> /dev/null | grep -q 'state *: *Online'
}

stop() {
	local s p pids left sids=""
	for s in $SERVICES; do
		[ -r "$LAB/run/$s.pid" ] || continue
		p=$(cat "$LAB/run/$s.pid")
		case $p in '' | *[!0-9]*) rm -f "$LAB/run/$s.pid"; continue ;; esac
		sids="$sids $p"
		pids=$(session_pids "$p")
		if [ -n "$pids" ]; then
			# shellcheck disable=SC2086
			kill -TERM $pids 2> /dev/null
			say "$s stopped (session $p: $(echo $pids | wc -w) processes)"
		fi
	done
	for p in $sids; do
		if ! wait_for "[ -z \"\$(session_pids $p)\" ]" 15; then
			left=$(session_pids "$p")
			# shellcheck disable=SC2086
			[ -z "$left" ] || kill -KILL $left 2> /dev/null
			say "session $p: killed what did not stop ($(echo $left))"
			wait_for "[ -z \"\$(session_pids $p)\" ]" 5
		fi
	done
	for s in $SERVICES; do
		rm -f "$LAB/run/$s.pid"
	done
	if [ -e "$LAB/run/postgres.started" ]; then
		pg_ctlcluster 15 main stop > /dev/null 2>&1 && say "PostgreSQL 15 stopped"
		# its backends go after the postmaster: wait for the last one
		wait_for "! pg_processes" 15
		! pg_isready -q 2> /dev/null && ! pg_processes ||
			fail "PostgreSQL 15, which the lab started, is still there: $(pg_processes)"
		rm -f "$LAB/run/postgres.started"
	fi
	# nothing of it is left
	for p in $sids; do
		left=$(session_pids "$p")
		[ -z "$left" ] || fail "processes of session $p are left: $(echo $left)"
	done
	return 0
}

status() {
	local s p rc=0
	for s in $SERVICES; do
		if p=$(pid_of "$s"); then
			echo "$s: running (pid $p, $(session_pids "$p" | wc -l) processes)"
		else
			echo "$s: stopped"
			rc=3
		fi
	done
	if pg_isready -q 2> /dev/null; then
		echo "postgresql: running$([ -e "$LAB/run/postgres.started" ] && echo ' (started by the lab)')"
	else
		echo "postgresql: stopped"
		rc=3
	fi
	[ $rc = 0 ] || { echo "lab: not running (make lava-lab starts it)"; return $rc; }
	echo "server: $URL, $(lavacli_lab system version 2> /dev/null || echo 'not answering')"
	lavacli_lab workers list 2> /dev/null | sed 's/^/workers: /'
	lavacli_lab devices list 2> /dev/null | sed 's/^/devices: /'
	echo "queue: $(lavacli_lab jobs queue 2> /dev/null | grep -c '^\* ') job(s) waiting"
	lavacli_lab jobs list --state RUNNING 2> /dev/null | sed 's/^/running: /'
	return 0
}

case ${1:-} in
start) start ;;
stop) stop ;;
status) status ;;
*)
	echo "usage: rig/lava/lab.sh start|stop|status (docs/lava.md)" >&2
	exit 2
	;;
esac
