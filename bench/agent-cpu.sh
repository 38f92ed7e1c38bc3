#!/usr/bin/env bash
# The CPU cost of `fairbench agent` (issue 15). Not a test: it prints a figure.
# It builds fairbench, starts the agent with --pid of the running MariaDB
# server (pgrep mariadbd), fetches GET /v1/counters and GET /v1/machine once a
# second for DURATION seconds with curl, and prints the agent's CPU use over
# that window as a percentage of one core, from utime+stime of
# /proc/AGENT/stat (target: under 0.5 %).
#
#   bench/agent-cpu.sh                    # 60 s against mariadbd
#   DURATION=10 PROCESS=postgres bench/agent-cpu.sh
#
# Needs: go, curl, a running server process named $PROCESS.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

DURATION=${DURATION:-60}
PROCESS=${PROCESS:-mariadbd}
PORT=${PORT:-0}

server=$(pgrep -o -x "$PROCESS" || true)
if [ -z "$server" ]; then
	echo "agent-cpu: no process named $PROCESS is running (set PROCESS=)" >&2
	exit 1
fi

tmp=$(mktemp -d)
trap 'kill "$agent" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/fairbench" ./cmd/fairbench

start_agent "$tmp/fairbench" "$tmp/out" "$tmp/err" --listen "127.0.0.1:$PORT" --pid "$server"

hz=$(getconf CLK_TCK)
ticks() { proc_ticks "$agent"; }
bytes=0
t0=$(ticks)
s0=$(date +%s.%N)
for _ in $(seq "$DURATION"); do
	n=$(curl -sf -o /dev/null -w '%{size_download}' "$url/v1/counters")
	curl -sf -o /dev/null "$url/v1/machine"
	bytes=$((bytes + n))
	sleep 1
done
t1=$(ticks)
s1=$(date +%s.%N)
awk -v t="$((t1 - t0))" -v hz="$hz" -v s0="$s0" -v s1="$s1" -v n="$DURATION" -v b="$bytes" -v p="$PROCESS" -v pid="$server" 'BEGIN {
	secs = s1 - s0
	printf "agent --pid %d (%s): %d × (GET /v1/counters + GET /v1/machine) over %.1f s\n", pid, p, n, secs
	printf "counters response: %.0f bytes on average\n", b / n
	printf "agent CPU: %d ticks (%.2f s) = %.3f %% of one core (target < 0.5 %%)\n", t, t / hz, 100 * t / hz / secs
}'
