#!/usr/bin/env bash
# What reading the server's machine through `fairbench agent` costs a run
# (issue 15). Not a test: it prints figures.
#
# It builds fairbench, prepares oltp_point_select in a database of its own on
# the MariaDB at $HOST:$PORT, starts `fairbench agent --listen 127.0.0.1:0
# --pid $(pgrep -o -x mariadbd)`, and runs
#   fairbench run oltp_point_select --threads $THREADS --time $TIME
# ROUNDS times without and ROUNDS times with --server-agent URL, alternately.
# For each it prints QPS and the client's CPU per query (user+sys of the
# fairbench process over its queries, as bench/vs-sysbench.sh counts it), then
# the means, the ratios with/without (of the means, and the median of each
# round's pair, which cancels most drift of a shared machine), and the agent's own CPU over the
# "with" runs and over the whole window in percent of one core (utime+stime
# of /proc/AGENT/stat).
#
#   bench/server-agent-overhead.sh                 # 3 rounds of 10 s each way
#   ROUNDS=5 TIME=20 bench/server-agent-overhead.sh
#
# A build without run --server-agent is said so; the "without" runs are
# measured all the same, and the script exits 2.
#
# Needs: go, python3, the mariadb client, a running mariadbd. The machine is
# shared: compare the ratios, not the absolute figures, and repeat.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

ROUNDS=${ROUNDS:-3}
TIME=${TIME:-10}
THREADS=${THREADS:-2}
TABLE_SIZE=${TABLE_SIZE:-10000}
HOST=${HOST:-127.0.0.1}
PORT=${PORT:-3306}
USER_=${DB_USER:-root}
PROCESS=${PROCESS:-mariadbd}

server=$(pgrep -o -x "$PROCESS" || true)
if [ -z "$server" ]; then
	echo "server-agent-overhead: no process named $PROCESS is running (set PROCESS=)" >&2
	exit 1
fi

tmp=$(mktemp -d)
db="fbagent_$$"
agent=""
cleanup() {
	[ -n "$agent" ] && kill "$agent" 2>/dev/null || true
	wait 2>/dev/null || true
	mariadb -h "$HOST" -P "$PORT" -u "$USER_" -e "DROP DATABASE IF EXISTS $db" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
CGO_ENABLED=0 go build -o "$tmp/fairbench" ./cmd/fairbench
FB=$tmp/fairbench

has_flag=1
# The help is read whole first: grep -q stops reading early, and with pipefail
# the writer's SIGPIPE would read as "no such flag".
help=$("$FB" run oltp_point_select --help 2>&1 || true)
if ! grep -q -- '--server-agent ' <<<"$help"; then
	has_flag=0
	echo "server-agent-overhead: this build of fairbench lacks run --server-agent (issue 15 wiring not merged):" >&2
	echo "  measuring the runs without it only; the agent's own CPU is measured idle" >&2
fi

mariadb -h "$HOST" -P "$PORT" -u "$USER_" -e "CREATE DATABASE $db"
conn=(--db-driver=mysql --mysql-host="$HOST" --mysql-port="$PORT" --mysql-user="$USER_" --mysql-db="$db" --table-size="$TABLE_SIZE")
"$FB" prepare oltp_point_select "${conn[@]}" >"$tmp/prepare.log" 2>&1

start_agent "$FB" "$tmp/agent.out" "$tmp/agent.err" --listen "127.0.0.1:0" --pid "$server"

# cpu_of LOG CMD...: runs CMD with output to LOG and prints the child's user+system CPU seconds.
cpu_of() {
	local log=$1; shift
	python3 - "$log" "$@" <<'PY'
import resource, subprocess, sys
log = sys.argv[1]
r0 = resource.getrusage(resource.RUSAGE_CHILDREN)  # a python3 wrapper's (pyenv) own children: not the run's
with open(log, "w") as f:
    rc = subprocess.run(sys.argv[2:], stdout=f, stderr=subprocess.STDOUT).returncode
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{r.ru_utime + r.ru_stime - r0.ru_utime - r0.ru_stime:.3f} {rc}")
PY
}
hz=$(getconf CLK_TCK)
ticks() { proc_ticks "$agent"; }
now() { date +%s.%N; }

echo "== oltp_point_select, $THREADS threads, ${TIME}s runs, $ROUNDS rounds each way; server $PROCESS pid $server; agent $url (pid $agent)"
printf '%-8s %6s %12s %14s %8s\n' run round qps cpu_us/query agent%
rows="$tmp/rows"
: >"$rows"
with_ticks=0
with_secs=0
w0=$(ticks)
s0=$(now)
for i in $(seq "$ROUNDS"); do
	for mode in without with; do
		args=()
		if [ "$mode" = with ]; then
			[ "$has_flag" = 1 ] || continue
			args=(--server-agent "$url")
		fi
		log="$tmp/$mode-$i.log"
		t0=$(ticks); a0=$(now)
		read -r cpu rc < <(cpu_of "$log" "$FB" run oltp_point_select "${conn[@]}" --threads="$THREADS" --time="$TIME" \
			--output "$tmp/$mode-$i.json" "${args[@]}")
		t1=$(ticks); a1=$(now)
		if [ "$rc" != 0 ]; then
			echo "server-agent-overhead: the $mode run $i failed (exit $rc):" >&2
			tail -5 "$log" >&2
			exit 1
		fi
		if [ "$mode" = with ] && ! python3 -c 'import json,sys
sm = json.load(open(sys.argv[1])).get("server_machines") or [{}]
sys.exit(sm[0].get("source") != "agent")' "$tmp/$mode-$i.json"; then
			echo "server-agent-overhead: the with run $i did not record the server machine from the agent (server_machines[0].source != agent)" >&2
			exit 1
		fi
		q=$(queries_of "$log"); qps=$(qps_of "$log")
		read -r line < <(python3 -c 'import sys
c,q,qps,t,hz,a0,a1=map(float,sys.argv[1:])
print(f"{qps:.1f} {c/q*1e6:.2f} {100*t/hz/(a1-a0):.3f}")' "$cpu" "$q" "$qps" "$((t1 - t0))" "$hz" "$a0" "$a1")
		read -r qps_r us_r ag_r <<<"$line"
		printf '%-8s %6d %12s %14s %8s\n' "$mode" "$i" "$qps_r" "$us_r" "$ag_r"
		echo "$mode $qps_r $us_r" >>"$rows"
		if [ "$mode" = with ]; then
			with_ticks=$((with_ticks + t1 - t0))
			with_secs=$(python3 -c 'import sys; print(float(sys.argv[1]) + float(sys.argv[2]) - float(sys.argv[3]))' "$with_secs" "$a1" "$a0")
		fi
	done
done
w1=$(ticks)
s1=$(now)

python3 - "$rows" "$hz" "$with_ticks" "$with_secs" "$((w1 - w0))" "$s0" "$s1" "$has_flag" <<'PY'
import statistics, sys
rows, hz = sys.argv[1], float(sys.argv[2])
with_ticks, with_secs, all_ticks = int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
secs, has_flag = float(sys.argv[7]) - float(sys.argv[6]), sys.argv[8] == "1"
by = {"with": [], "without": []}
for line in open(rows):
    mode, qps, us = line.split()
    by[mode].append((float(qps), float(us)))
def mean(mode, k):
    return statistics.mean(r[k] for r in by[mode]) if by[mode] else float("nan")
print()
print(f"{'':<8} {'qps':>12} {'cpu_us/query':>14}")
for mode in ("without", "with"):
    if by[mode]:
        print(f"{mode:<8} {mean(mode, 0):12.1f} {mean(mode, 1):14.2f}")
if has_flag and by["with"] and by["without"]:
    print(f"{'ratio':<8} {mean('with', 0) / mean('without', 0):11.3f}x {mean('with', 1) / mean('without', 1):13.3f}x   (with / without, of the means)")
    # Each with run follows its without run: the median of the pair ratios
    # cancels most of the drift of a shared machine.
    pairs = list(zip(by["without"], by["with"]))
    qr = statistics.median(w[0] / o[0] for o, w in pairs)
    cr = statistics.median(w[1] / o[1] for o, w in pairs)
    print(f"{'pairs':<8} {qr:11.3f}x {cr:13.3f}x   (median of with / without per round)")
    print(f"agent CPU during the 'with' runs: {with_ticks} ticks over {with_secs:.1f} s = {100 * with_ticks / hz / with_secs:.3f} % of one core")
else:
    print("ratio: not measured (this build lacks run --server-agent)")
print(f"agent CPU over the whole window: {all_ticks} ticks over {secs:.1f} s = {100 * all_ticks / hz / secs:.3f} % of one core")
PY
[ "$has_flag" = 1 ] || exit 2
