#!/usr/bin/env bash
# The careful-user trial of issue 14: hostile input, Ctrl-C at random moments
# and kill -9 of the server, against a PRIVATE MariaDB this script starts
# itself (fairbench server start, its own directory, port and socket; never a
# shared server) and the embedded SQLite database. It is not a CI test: it
# takes minutes and reports counts and mismatches instead of stopping at the
# first one.
#
#   bench/trial.sh                 # builds ./cmd/fairbench into the work dir
#   FAIRBENCH=/path/fairbench bench/trial.sh
#
# Knobs (environment):
#   CTRLC=30            Ctrl-Cs (SIGINT at a random moment of prepare, run or suite)
#   KILL_RESTART=10     kill -9s of the server that is restarted during the run
#   KILL_STAY=3         kill -9s of the server that stays down until --time ends
#   BAD_LIMIT=0         try only the first N bad inputs (0: all, about 170)
#   RUN_TIME=6          --time of the runs that get a signal or lose their server
#   KILL_TIME=$RUN_TIME --time of the kill -9 runs; a restart within 5 % of it
#                       (3 s at 60) leaves the run complete, a longer one fails
#                       it (result.OutageLimit), and the trial expects either
#                       from the outage the result records
#   TIMEOUT=30          seconds a bad input may take before it counts as a hang
#   KEEP=0              1 keeps the work directory (default: removed at the end)
#   SEED=$RANDOM        seed of the random delays (printed, to repeat a trial)
#
# The last line is the summary: inputs tried / panics / lost results /
# destroyed files. The exit code is 0 when nothing panicked, was lost or was
# destroyed, 1 otherwise (mismatches such as a bad input that was accepted are
# listed, but do not change the exit code).
set -uo pipefail
cd "$(dirname "$0")/.."

CTRLC=${CTRLC:-30}
KILL_RESTART=${KILL_RESTART:-10}
KILL_STAY=${KILL_STAY:-3}
BAD_LIMIT=${BAD_LIMIT:-0}
RUN_TIME=${RUN_TIME:-6}
KILL_TIME=${KILL_TIME:-$RUN_TIME}
TIMEOUT=${TIMEOUT:-30}
KEEP=${KEEP:-0}
SEED=${SEED:-$RANDOM}
RANDOM=$SEED

WORK=$(mktemp -d /tmp/fairbench-trial.XXXXXX)
log() { printf '==> %s\n' "$*"; }
note() { printf '    %s\n' "$*" | tee -a "$WORK/mismatches"; }

FB=${FAIRBENCH:-}
if [ -z "$FB" ]; then
	log "building fairbench into $WORK"
	go build -o "$WORK/fairbench" ./cmd/fairbench || exit 1
	FB=$WORK/fairbench
fi
FB=$(cd "$(dirname "$FB")" && pwd)/$(basename "$FB")

inputs=0 panics=0 lost=0 destroyed=0 hangs=0 accepted=0 silent=0 stray=0
ctrlc=0 ctrlc_rc=0 kills=0 kill_mismatch=0 kill_late=0
restart_complete=0 restart_failed=0 stay_failed=0 before_run=0

SRV=$WORK/mariadb
server_pid() { # the pid of the private mariadbd (its state file), when it runs
	local p
	p=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pid"])' "$SRV/fairbench-server.json" 2>/dev/null)
	[ -n "$p" ] && [ "$(cat /proc/"$p"/comm 2>/dev/null)" = mariadbd ] && echo "$p"
}
cleanup() {
	if [ -d "$SRV" ]; then "$FB" server stop --dir="$SRV" >/dev/null 2>&1 || true; fi
	local p
	p=$(server_pid)
	if [ -n "$p" ]; then kill -9 "$p" 2>/dev/null; fi
	if [ "$KEEP" = 1 ]; then echo "work directory kept: $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

start_server() {
	"$FB" server start --flavor=mariadb --dir="$SRV" >"$WORK/server.out" 2>&1 || {
		cat "$WORK/server.out"
		return 1
	}
	SOCK=$(grep -o -- '--mysql-socket=[^ ]*' "$WORK/server.out" | head -n1 | cut -d= -f2-)
	MYUSER=$(grep -o -- '--mysql-user=[^ ]*' "$WORK/server.out" | head -n1 | cut -d= -f2-)
	[ -n "$SOCK" ]
}

# outage_share FILE: the share of the measured phase during which the result's
# outages had threads without a connection (spans clipped to the phase,
# overlaps counted once, as result.OutageSeconds), or INVALID.
outage_share() {
	python3 - "$1" <<'EOF' 2>/dev/null || echo INVALID
import json, sys
from datetime import datetime, timedelta
r = json.load(open(sys.argv[1]))
t = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00"))
start, end = t(r["start"]), t(r["end"])
spans = sorted((max(t(o["start"]), start), min(t(o["start"]) + timedelta(seconds=o["seconds"]), end)) for o in r.get("outages", []))
down, last = 0.0, start
for a, b in spans:
    a = max(a, last)
    if b > a:
        down += (b - a).total_seconds()
        last = b
phase = (end - start).total_seconds()
print("%.4f" % (down / phase if phase > 0 else 0))
EOF
}

# stack trace or panic in a command's output
has_panic() { grep -qE '^panic:|^goroutine [0-9]+ \[|runtime error:' "$1"; }

# json_field FILE EXPR: prints the Python expression over the result r, or
# "INVALID" when FILE is not a JSON document
json_field() {
	python3 - "$1" "$2" <<'EOF' 2>/dev/null || echo INVALID
import json, sys
r = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))
EOF
}

log "seed $SEED, work directory $WORK, fairbench $FB"
log "starting a private MariaDB in $SRV"
start_server || { echo "cannot start the private MariaDB" >&2; exit 1; }
MY=(--mysql-socket="$SOCK" --mysql-user="${MYUSER:-root}")
log "  socket $SOCK, pid $(server_pid)"

# The Ctrl-C trials interrupt loads in a database of their own.
mariadb -S "$SOCK" -u "${MYUSER:-root}" -e 'CREATE DATABASE IF NOT EXISTS trialprep' || exit 1

DB=$WORK/sqlite.db
SQ=(--sqlite-db="$DB")
"$FB" prepare oltp_point_select "${SQ[@]}" --tables=1 --table-size=1000 >/dev/null || exit 1
"$FB" prepare oltp_point_select "${MY[@]}" --tables=2 --table-size=20000 --threads=2 --replace >/dev/null || exit 1

# ---------------------------------------------------------------- bad inputs
# Each line: a command line (words split on spaces; @W@ is the work directory).
# Every one must exit non-zero with a message on stderr, without a stack
# trace, within TIMEOUT, and must leave no file in its working directory.
bad_inputs() {
	local f v
	local RUN="run oltp_point_select --sqlite-db=@W@/sqlite.db --tables=1 --table-size=1000 --time=1"
	# flag -> bad values of `run`
	declare -A bad=(
		[threads]="0 -1 x 1.5 6148914691236517206 9223372036854775807 99999999999999999999 65537"
		[time]="-1 x 9223372036854775807 1.5 99999999999"
		[events]="-1 x 1e3 9223372036854775808"
		[rate]="-1 x NaN Inf -Inf"
		[report-interval]="-1 x NaN Inf"
		[warmup-time]="-1 x 9223372036854775807"
		[percentile]="0 101 -5 x 50,,99 NaN"
		[format]="xml JSON ''"
		[tables]="0 -1 x 100000000"
		[table-size]="0 -1 x 2147483648"
		[rand-type]="nope ''"
		[rand-seed]="-1 x"
		[rand-spec-pct]="-1 101"
		[rand-spec-res]="-1 101"
		[rand-zipfian-exp]="-1 NaN"
		[rand-pareto-h]="0 2 NaN"
		[db-driver]="oracle x"
		[db-ps-mode]="maybe"
		[sqlite-ignore-errors]="SQLITE_NOPE 99999"
		[connect-rate]="-1 NaN"
		[metrics-linger]="-1 NaN Inf"
		[metrics-addr]=":99999 nohost:x"
		[clients]="-1"
		[start-at]="yesterday 2026-13-01T00:00:00Z"
		[start-clock]="sundial"
		[output]="@W@"
	)
	for f in "${!bad[@]}"; do
		for v in ${bad[$f]}; do
			[ "$v" = "''" ] && v=
			echo "$RUN --$f=$v"
		done
	done
	echo "$RUN --clients=2 --client-id=5 --start-at=1"
	echo "$RUN --client-id=1"
	echo "$RUN --no-such-flag"
	echo "$RUN --threads"
	echo "run no_such_workload --threads=4"
	echo "run no_such_workload"
	echo "run"
	echo "frobnicate"
	# the MySQL connection flags (against the private server's socket)
	local MYRUN="run oltp_point_select --mysql-socket=$SOCK --mysql-user=${MYUSER:-root} --tables=2 --table-size=20000 --time=1"
	for v in 0 -1 x 65536 1,2,3; do echo "run oltp_point_select --mysql-host=127.0.0.1 --mysql-port=$v --time=1"; done
	for v in verify-full nope; do echo "$MYRUN --mysql-ssl=$v"; done
	for v in x 99999999999 1213,abc; do echo "$MYRUN --mysql-ignore-errors=$v"; done
	echo "$MYRUN --mysql-db=no_such_db"
	echo "$MYRUN --tables=3"
	echo "run oltp_point_select --mysql-host=, --time=1"
	echo "run oltp_point_select --mysql-host=127.0.0.1 --pgsql-host=127.0.0.1 --time=1"
	echo "run oltp_point_select --mysql-socket=@W@/no.sock --time=1"
	# prepare, cleanup, check, warmup
	for v in 0 -1 x 6148914691236517206 65537; do echo "prepare oltp_point_select --sqlite-db=@W@/p.db --threads=$v"; done
	for v in 0 -1 x 2147483648; do echo "prepare oltp_point_select --sqlite-db=@W@/p.db --table-size=$v"; done
	for v in 0 -1 x 65537; do echo "prepare oltp_point_select --sqlite-db=@W@/p.db --tables=$v"; done
	for v in 0 -1 x 100001; do echo "prepare tpcc --sqlite-db=@W@/p.db --warehouses=$v"; done
	echo "prepare oltp_point_select --sqlite-db=@W@/sqlite.db --tables=1 --table-size=1000"
	echo "prepare tpcc --output-dir=@W@/sqlite.db"
	echo "run tpcc --sqlite-db=@W@/sqlite.db --time=1 --warehouses=0"
	echo "check tpcc --sqlite-db=@W@/sqlite.db"
	echo "check tpcc --mysql-socket=$SOCK --mysql-user=${MYUSER:-root}"
	echo "check oltp_point_select --sqlite-db=@W@/sqlite.db"
	for v in 0 -1 x; do echo "check tpcc --sqlite-db=@W@/sqlite.db --threads=$v"; done
	for v in 0 -1 x; do echo "warmup oltp_point_select --sqlite-db=@W@/sqlite.db --threads=$v"; done
	echo "cleanup oltp_point_select --sqlite-db=@W@/sqlite.db --tables=x"
	# files: plans, price sheets, results, logs
	echo "suite run @W@/bad/empty.yaml"
	echo "suite run @W@/bad/list.yaml"
	echo "suite run @W@/bad/unknown-key.yaml"
	echo "suite run @W@/bad/threads.yaml"
	echo "suite run @W@/bad/workload.yaml"
	echo "suite run @W@/bad/password.yaml"
	echo "suite run @W@/bad/binary.yaml"
	echo "suite run @W@/bad/time.yaml"
	echo "suite run @W@/nosuch.yaml"
	echo "suite run @W@/bad/good.yaml --scale=-1"
	echo "suite run @W@/bad/good.yaml --scale=x"
	echo "suite run @W@/bad/good.yaml --resume --out=@W@/nosuch"
	echo "suite run @W@/bad/good.yaml --out=/etc/hostname"
	echo "suite status @W@/nosuch"
	echo "cost --prices @W@/bad/empty.yaml"
	echo "cost --prices @W@/bad/binary.yaml"
	echo "cost --prices @W@/bad/sheet-negative.yaml"
	echo "cost --prices @W@/nosuch.yaml"
	for v in empty.json binary.json truncated.json list.json schema.json; do
		echo "merge @W@/bad/$v @W@/bad/$v"
		echo "compare @W@/bad/$v @W@/bad/$v"
		echo "report @W@/bad/$v"
	done
	echo "merge @W@/nosuch.json"
	echo "merge"
	echo "compare @W@/bad/good.json @W@/nosuch.json"
	echo "report @W@/bad/good.json --format=pdf"
	echo "report @W@/bad/good.json --png @W@/bad/good.json"
	echo "import @W@/bad/binary.json --out=@W@/imp"
	echo "import @W@/bad/empty.json --out=@W@/imp"
	echo "import @W@/nosuch.log --out=@W@/imp"
	# server start with bad flags (refused before anything starts)
	for v in "--flavor=oracle" "--flavor=mariadb --port=70000" "--flavor=mariadb --port=-1" \
		"--flavor=mariadb --profile=fast" "--flavor=mariadb --data-size=lots" "--flavor=mariadb --set=nokey"; do
		echo "server start $v --dry-run"
	done
}

mkdir -p "$WORK/bad"
: >"$WORK/bad/empty.yaml"
: >"$WORK/bad/empty.json"
echo '[1, 2]' >"$WORK/bad/list.yaml"
cp "$WORK/bad/list.yaml" "$WORK/bad/list.json"
printf 'name: x\nfrobnicate: 1\n' >"$WORK/bad/unknown-key.yaml"
printf 'name: x\nmatrix:\n  workloads: [oltp_point_select]\n  threads: [0, -4]\n' >"$WORK/bad/threads.yaml"
printf 'name: x\nmatrix:\n  workloads: [no_such]\n  threads: [1]\n' >"$WORK/bad/workload.yaml"
printf 'name: x\ntarget:\n  driver: mysql\n  password: secret\nmatrix:\n  workloads: [oltp_point_select]\n  threads: [1]\n' >"$WORK/bad/password.yaml"
printf 'name: x\nmatrix:\n  workloads: [oltp_point_select]\n  threads: [1]\nrun:\n  time: -5\n' >"$WORK/bad/time.yaml"
head -c 4096 /dev/urandom >"$WORK/bad/binary.yaml"
cp "$WORK/bad/binary.yaml" "$WORK/bad/binary.json"
printf 'name: good\ntarget:\n  sqlite_db: %s\ndata:\n  tables: 1\n  table_size: 1000\nmatrix:\n  workloads: [oltp_point_select]\n  threads: [1]\nrun:\n  time: 1\n' "$DB" >"$WORK/bad/good.yaml"
printf 'currency: USD\ninstances:\n  - name: a\n    hourly: -1\nsystems:\n  - name: A\n    instances: [{name: a, count: -2}]\n' >"$WORK/bad/sheet-negative.yaml"
"$FB" run oltp_point_select "${SQ[@]}" --tables=1 --table-size=1000 --time=1 -o "$WORK/bad/good.json" >/dev/null
# a coordinated client's result, which merge takes
"$FB" run oltp_point_select "${SQ[@]}" --tables=1 --table-size=1000 --time=1 --clients=1 --client-id=0 \
	--start-at=$(($(date +%s) + 1)) --start-clock=local -o "$WORK/bad/client.json" >/dev/null
head -c 300 "$WORK/bad/good.json" >"$WORK/bad/truncated.json"
sed 's/"schema": *"[^"]*"/"schema": "9.9"/' "$WORK/bad/good.json" >"$WORK/bad/schema.json"

log "bad inputs"
mapfile -t lines < <(bad_inputs)
n=0
for line in "${lines[@]}"; do
	n=$((n + 1))
	if [ "$BAD_LIMIT" -gt 0 ] && [ "$n" -gt "$BAD_LIMIT" ]; then break; fi
	line=${line//@W@/$WORK}
	read -r -a argv <<<"$line"
	cwd=$WORK/cwd.$n
	mkdir -p "$cwd"
	out=$WORK/out.$n
	(cd "$cwd" && timeout -s KILL "$TIMEOUT" "$FB" "${argv[@]}" >"$out" 2>"$out.err")
	rc=$?
	cat "$out.err" >>"$out"
	inputs=$((inputs + 1))
	if has_panic "$out"; then
		panics=$((panics + 1))
		note "PANIC ($rc): fairbench $line: $(grep -m1 -E 'panic:|runtime error' "$out")"
	elif [ "$rc" = 137 ]; then
		hangs=$((hangs + 1))
		note "HANG (killed after ${TIMEOUT}s): fairbench $line"
	elif [ "$rc" = 0 ]; then
		accepted=$((accepted + 1))
		note "ACCEPTED (exit 0): fairbench $line"
	elif ! [ -s "$out.err" ]; then
		silent=$((silent + 1))
		note "NO MESSAGE (exit $rc): fairbench $line"
	fi
	if [ -n "$(ls -A "$cwd")" ]; then
		stray=$((stray + 1))
		note "FILES CREATED in the working directory ($(cd "$cwd" && find . -mindepth 1 | head -n3 | tr '\n' ' ')): fairbench $line"
	fi
	rm -rf "$cwd"
done
log "  $inputs bad inputs: $panics panics, $hangs hangs, $accepted accepted, $silent without a message, $stray left files"

# ---------------------------------------------- -o onto what is not fairbench's
log "-o onto a symlink, a FIFO and a device node"
od=$WORK/outdest
# fresh_dest NAME: makes od/NAME anew (a symlink to od/target, a FIFO with a
# reader, or a device node like /dev/null); fails when it cannot be made.
fresh_dest() {
	rm -f "$od/$1"
	case $1 in
	link) echo precious >"$od/target" && ln -s target "$od/link" ;;
	fifo) mkfifo "$od/fifo" && { (timeout 60 cat "$od/fifo" >/dev/null) & } ;;
	null) mknod "$od/null" c 1 3 2>/dev/null ;;
	esac
}
# check_dest NAME WHAT: counts od/NAME as destroyed when it lost its kind
check_dest() {
	local ok=1
	case $1 in
	link) [ -L "$od/link" ] || ok=0 ;;
	fifo) [ -p "$od/fifo" ] || ok=0 ;;
	null) [ -c "$od/null" ] || ok=0 ;;
	esac
	if [ "$ok" = 0 ]; then
		destroyed=$((destroyed + 1))
		note "DESTROYED: $2 onto a $1 left a $(stat -c %F "$od/$1" 2>/dev/null || echo 'missing file')"
	fi
}
mkdir -p "$od"
for dest in link fifo null; do
	for cmdname in run merge; do
		fresh_dest "$dest" || { note "cannot make a $dest here (not root?): skipped"; continue; }
		if [ "$cmdname" = run ]; then
			cmd=("$FB" run oltp_point_select "${SQ[@]}" --tables=1 --table-size=1000 --time=1 -o "$od/$dest")
		else
			cmd=("$FB" merge "$WORK/bad/client.json" -o "$od/$dest")
		fi
		inputs=$((inputs + 1))
		timeout -s KILL 60 "${cmd[@]}" >"$WORK/o.out" 2>&1
		rc=$?
		has_panic "$WORK/o.out" && { panics=$((panics + 1)); note "PANIC: $cmdname -o $dest"; }
		check_dest "$dest" "$cmdname -o (exit $rc)"
		if [ "$dest" = link ] && [ "$(json_field "$od/target" 'r["status"]')" != complete ]; then
			note "MISMATCH: $cmdname -o onto a symlink: its target holds no complete result (exit $rc)"
		fi
	done
done
wait 2>/dev/null

# ------------------------------------------------------------------- Ctrl-C
# check_result_after_signal RC FILE WHAT [OUTPUT]: a run's result after
# SIGINT. A command interrupted before its run began (connecting, reading the
# data set, preparing the embedded database) says "nothing was run" on OUTPUT
# and writes no result: nothing was lost.
check_result_after_signal() {
	local rc=$1 file=$2 what=$3 output=${4:-} st
	if [ "$rc" = 0 ]; then
		return # finished before the signal arrived
	fi
	if [ "$rc" != 130 ]; then
		ctrlc_rc=$((ctrlc_rc + 1))
		note "EXIT $rc (want 130) after Ctrl-C: $what"
	fi
	[ -n "$file" ] || return
	if ! [ -e "$file" ] && [ "$rc" = 130 ] && [ -n "$output" ] && grep -q 'nothing was run' "$output"; then
		before_run=$((before_run + 1))
		return
	fi
	if ! [ -e "$file" ]; then
		lost=$((lost + 1))
		note "LOST: no result file after Ctrl-C: $what"
		return
	fi
	st=$(json_field "$file" 'r["status"]')
	case $st in
	interrupted) ;;
	INVALID) lost=$((lost + 1)); note "LOST: the result after Ctrl-C is not valid JSON: $what" ;;
	*) note "MISMATCH: status $st after Ctrl-C (want interrupted): $what" ;;
	esac
}

log "$CTRLC Ctrl-Cs at random moments of prepare, run and suite run"
printf 'name: trial\ntarget:\n  sqlite_db: %s/suite.db\ndata:\n  tables: 2\n  table_size: 20000\nmatrix:\n  workloads: [oltp_point_select]\n  threads: [1, 2]\nrun:\n  time: 2\nsteps:\n  prepare: reuse\n' "$WORK" >"$WORK/suite.yaml"
finished_first=0
for i in $(seq 1 "$CTRLC"); do
	kind=$((i % 5))
	delay=$(printf '%d.%03d' $((RANDOM % 3)) $((RANDOM % 1000)))
	res=$WORK/int.$i.json
	case $kind in
	0) what="prepare (SQLite)"; cmd=("$FB" prepare oltp_read_write --sqlite-db="$WORK/int.$i.db" --tables=2 --table-size=50000 --threads=2) ; res= ;;
	1) what="prepare (MariaDB)"; cmd=("$FB" prepare oltp_read_write "${MY[@]}" --mysql-db=trialprep --tables=3 --table-size=30000 --threads=2 --replace) ; res= ;;
	2) what="run (SQLite)"; cmd=("$FB" run oltp_read_write "${SQ[@]}" --tables=1 --table-size=1000 --time="$RUN_TIME" --report-interval=1 -o "$res") ;;
	3) what="run (MariaDB)"; cmd=("$FB" run oltp_point_select "${MY[@]}" --tables=2 --table-size=20000 --threads=4 --time="$RUN_TIME" --warmup-time=1 -o "$res") ;;
	4) what="suite run (SQLite)"; cmd=("$FB" suite run "$WORK/suite.yaml" --out="$WORK/suite.$i") ; res= ;;
	esac
	"${cmd[@]}" >"$WORK/int.out" 2>&1 &
	pid=$!
	sleep "$delay"
	kill -INT "$pid" 2>/dev/null
	# a second Ctrl-C would not be fair to a slow writer: give it 60 s
	for _ in $(seq 1 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$pid" 2>/dev/null; then
		hangs=$((hangs + 1))
		note "HANG: still running 60 s after Ctrl-C at ${delay}s: $what"
		kill -9 "$pid"
	fi
	wait "$pid"
	rc=$?
	ctrlc=$((ctrlc + 1))
	[ "$rc" = 0 ] && finished_first=$((finished_first + 1))
	has_panic "$WORK/int.out" && { panics=$((panics + 1)); note "PANIC after Ctrl-C at ${delay}s: $what"; }
	check_result_after_signal "$rc" "$res" "$what at ${delay}s" "$WORK/int.out"
	if [ "$kind" = 4 ]; then
		for f in "$WORK/suite.$i"/*.json "$WORK/suite.$i"/*/*.json; do
			[ -e "$f" ] || continue
			if [ "$(json_field "$f" '1')" = INVALID ]; then lost=$((lost + 1)); note "LOST: $f is not valid JSON after Ctrl-C of a suite at ${delay}s"; fi
		done
	fi
done
log "  $ctrlc Ctrl-Cs ($finished_first finished before the signal, $before_run before the run began: no result, 'nothing was run'), $ctrlc_rc with another exit code than 130"

# ------------------------------------------------------ kill -9 of the server
# kill_trial RESTART: a run loses its server at 2 s; with RESTART the server is
# started again 1 s later.
kill_trial() {
	local restart=$1 res=$WORK/kill.$kills.json pid spid rc st rec share killed_at=
	# The server's pid is looked up before the run: a lookup after the sleep
	# (python) can take seconds on a loaded machine and land after the run.
	spid=$(server_pid)
	"$FB" run oltp_point_select "${MY[@]}" --tables=2 --table-size=20000 --threads=4 --time="$KILL_TIME" -o "$res" >"$WORK/kill.out" 2>&1 &
	pid=$!
	sleep 2
	if [ -z "$spid" ] || ! kill -9 "$spid" 2>/dev/null; then
		note "could not kill the server (pid '${spid}'): not running?"
	else
		killed_at=$(date +%s.%N)
		echo "    killed mariadbd $spid" >>"$WORK/kills.log"
	fi
	if [ "$restart" = 1 ]; then
		sleep 1
		start_server || note "the server did not restart"
	fi
	wait "$pid"
	rc=$?
	kills=$((kills + 1))
	has_panic "$WORK/kill.out" && { panics=$((panics + 1)); note "PANIC after kill -9 of the server"; }
	if ! [ -e "$res" ]; then
		lost=$((lost + 1))
		note "LOST: no result after kill -9 of the server (restart=$restart, exit $rc): $(tail -n1 "$WORK/kill.out")"
		return
	fi
	st=$(json_field "$res" 'r["status"]')
	# On a loaded machine the kill can come after the run ended (the sleep and
	# the pid lookup took longer than the run): the server was then never lost
	# by the run, and there is nothing to judge.
	if [ -n "$killed_at" ] && [ "$st" != INVALID ] && python3 - "$res" "$killed_at" <<'PY'
import datetime, json, sys
end = json.load(open(sys.argv[1]))["end"]
end = datetime.datetime.fromisoformat(end.replace("Z", "+00:00")[:26] + "+00:00" if "." in end else end.replace("Z", "+00:00"))
sys.exit(0 if float(sys.argv[2]) >= end.timestamp() else 1)
PY
	then
		kill_late=$((kill_late + 1))
		echo "    restart=$restart: the kill (at $killed_at) came after the run's measured phase ended ($(json_field "$res" 'r["end"]')): not judged" >>"$WORK/kills.log"
		if [ "$restart" = 0 ]; then start_server || note "the server did not restart after the trial"; fi
		return
	fi
	rec=$(json_field "$res" 'r["totals"]["counts"].get("reconnects", 0)')
	share=$(outage_share "$res")
	case "$restart/$st" in
	1/complete) restart_complete=$((restart_complete + 1)) ;;
	1/failed) restart_failed=$((restart_failed + 1)) ;;
	0/failed) stay_failed=$((stay_failed + 1)) ;;
	esac
	echo "    restart=$restart: status $st, exit $rc, reconnects $rec, outage share $share" >>"$WORK/kills.log"
	if [ "$st" = INVALID ] || [ "$share" = INVALID ]; then
		lost=$((lost + 1))
		note "LOST: the result after kill -9 of the server is not valid JSON"
	elif [ "$restart" = 1 ] && python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) <= 0.05 else 1)' "$share" &&
		{ [ "$st" != complete ] || [ "$rc" != 0 ] || [ "$rec" = 0 ]; }; then
		kill_mismatch=$((kill_mismatch + 1))
		note "MISMATCH: server killed and restarted, outage $share of the phase (<= 5 %): status $st, exit $rc, reconnects $rec (want complete, 0, >0)"
	elif [ "$restart" = 1 ] && python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) > 0.05 else 1)' "$share" &&
		{ [ "$st" != failed ] || [ "$rc" != 1 ]; }; then
		kill_mismatch=$((kill_mismatch + 1))
		note "MISMATCH: server killed and restarted, outage $share of the phase (> 5 %): status $st, exit $rc, reconnects $rec (want failed, 1)"
	elif [ "$restart" = 0 ] && { [ "$st" = complete ] || [ "$rc" = 0 ]; }; then
		kill_mismatch=$((kill_mismatch + 1))
		note "MISMATCH: server killed and not restarted: status $st, exit $rc (want not complete, non-zero)"
	fi
	if [ "$restart" = 0 ]; then start_server || note "the server did not restart after the trial"; fi
}

log "$KILL_RESTART kill -9s of the server with a restart, $KILL_STAY without"
for _ in $(seq 1 "$KILL_RESTART"); do kill_trial 1; done
for _ in $(seq 1 "$KILL_STAY"); do kill_trial 0; done
log "  $kills kill -9s ($kill_late came after the run ended: not judged), $kill_mismatch mismatches; with a restart: $restart_complete complete (outage <= 5 %), $restart_failed failed (outage > 5 %); without: $stay_failed failed"

# ------------------------------------------------------------------ summary
echo
if [ -s "$WORK/mismatches" ]; then
	log "mismatches and failures"
	cat "$WORK/mismatches"
fi
echo
echo "details: $hangs hangs, $accepted bad inputs accepted, $silent without a message, $stray left files, $ctrlc Ctrl-Cs ($ctrlc_rc exit codes not 130), $kills server kills ($kill_mismatch mismatches; restarted: $restart_complete complete, $restart_failed failed; not restarted: $stay_failed failed)"
echo "summary: inputs tried $inputs / panics $panics / lost results $lost / destroyed files $destroyed"
[ "$panics" = 0 ] && [ "$lost" = 0 ] && [ "$destroyed" = 0 ]
