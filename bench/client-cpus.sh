#!/usr/bin/env bash
# Client and server on disjoint CPUs against both unpinned (issue 16). Not a
# test: it prints figures.
#
# It builds fairbench and starts a private MariaDB (fairbench server start,
# in a temporary directory) pinned to $SERVER_CPUS, prepares
# oltp_point_select/oltp_read_write tables there, and runs each workload at
# each of $THREAD_LIST threads with `run --client-cpus $CLIENT_CPUS`; then
# restarts the same server unpinned and runs the same with the client
# unpinned. Per run it prints QPS and the client's CPU per query (user+system
# seconds of fairbench over the measured phase, from the result's
# observed.client, over its queries), then per workload and thread count the
# ratios pinned/unpinned. ROUNDS repeats the pair (pinned block, then
# unpinned block); the ratios are of the medians.
#
#   bench/client-cpus.sh                              # 10 s runs, 1 round
#   TIME=30 ROUNDS=3 TABLE_SIZE=100000 bench/client-cpus.sh
#
# Needs: go, python3, mariadbd installed; two CPUs at least (SERVER_CPUS=0
# and CLIENT_CPUS=1 by default). The machine is shared: compare ratios, not
# absolute figures, and repeat.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

ROUNDS=${ROUNDS:-1}
TIME=${TIME:-10}
TABLE_SIZE=${TABLE_SIZE:-10000}
THREAD_LIST=${THREAD_LIST:-"1 2 4"}
WORKLOADS=${WORKLOADS:-"oltp_point_select oltp_read_write"}
SERVER_CPUS=${SERVER_CPUS:-0}
CLIENT_CPUS=${CLIENT_CPUS:-1}

tmp=$(mktemp -d)
srv="$tmp/srv"
FB=$tmp/fairbench
cleanup() {
	[ -x "$FB" ] && "$FB" server stop --dir "$srv" >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT
CGO_ENABLED=0 go build -o "$FB" ./cmd/fairbench

# start_server [--cpus LIST]: (re)starts the private server; sets conn.
start_server() {
	"$FB" server start --flavor mariadb --dir "$srv" --data-size 256MiB "$@" >"$tmp/server.log" 2>&1 || {
		echo "client-cpus: the server did not start:" >&2
		tail -20 "$tmp/server.log" >&2
		exit 1
	}
	conn=(--mysql-socket="$srv/mysqld.sock" --mysql-user=root --mysql-db=sbtest --table-size="$TABLE_SIZE")
}

rows="$tmp/rows"
: >"$rows"
# one MODE WORKLOAD THREADS ROUND ARGS...: a run; appends "mode workload threads qps cpu_us/query" to rows.
one() {
	local mode=$1 wl=$2 th=$3 round=$4
	shift 4
	local out="$tmp/$mode-$wl-$th-$round.json" log="$tmp/$mode-$wl-$th-$round.log"
	if ! "$FB" run "$wl" "${conn[@]}" --threads="$th" --time="$TIME" --output "$out" "$@" >"$log" 2>&1; then
		echo "client-cpus: the $mode run of $wl at $th threads failed:" >&2
		tail -5 "$log" >&2
		exit 1
	fi
	python3 - "$out" "$mode" "$wl" "$th" "$CLIENT_CPUS" <<'PY' | tee -a "$rows"
import json, sys
path, mode, wl, th, want = sys.argv[1:]
r = json.load(open(path))
c = (r.get("observed") or {}).get("client") or {}
q = r["totals"]["counts"]["queries"]
cpu = c.get("user_seconds", 0) + c.get("system_seconds", 0)
got = r["machine"].get("cpu_list", "")
if mode == "pinned" and got != want:
    sys.exit(f"client-cpus: the pinned run recorded machine.cpu_list {got!r}, want {want!r}")
print(f"{mode:8s} {wl:18s} {th:>3s} {r['totals']['qps']:12.1f} {1e6 * cpu / q if q else 0:14.2f}")
PY
}

echo "== server on CPUs $SERVER_CPUS, client on CPUs $CLIENT_CPUS vs both unpinned; ${TIME}s runs, $ROUNDS round(s), table size $TABLE_SIZE"
printf '%-8s %-18s %3s %12s %14s\n' run workload thr qps cpu_us/query
start_server --cpus "$SERVER_CPUS"
# The OLTP workloads share their tables: the first prepares them for all.
set -- $WORKLOADS
"$FB" prepare "$1" "${conn[@]}" >"$tmp/prepare.log" 2>&1 || {
	tail -5 "$tmp/prepare.log" >&2
	exit 1
}
for i in $(seq "$ROUNDS"); do
	[ "$i" = 1 ] || start_server --cpus "$SERVER_CPUS"
	for wl in $WORKLOADS; do
		for th in $THREAD_LIST; do one pinned "$wl" "$th" "$i" --client-cpus "$CLIENT_CPUS"; done
	done
	"$FB" server stop --dir "$srv" >/dev/null
	start_server
	for wl in $WORKLOADS; do
		for th in $THREAD_LIST; do one unpinned "$wl" "$th" "$i"; done
	done
	"$FB" server stop --dir "$srv" >/dev/null
done

echo
echo "== pinned / unpinned (medians)"
python3 - "$rows" <<'PY'
import statistics, sys
from collections import defaultdict
d = defaultdict(list)
for line in open(sys.argv[1]):
    mode, wl, th, qps, cpu = line.split()
    d[(wl, int(th), mode)].append((float(qps), float(cpu)))
print(f"{'workload':18s} {'thr':>3s} {'qps ratio':>10s} {'cpu/query ratio':>16s}")
for wl, th in sorted({(k[0], k[1]) for k in d}):
    p, u = d.get((wl, th, "pinned")), d.get((wl, th, "unpinned"))
    if not p or not u:
        continue
    med = lambda rows, i: statistics.median(r[i] for r in rows)
    qr = med(p, 0) / med(u, 0) if med(u, 0) else float("nan")
    cr = med(p, 1) / med(u, 1) if med(u, 1) else float("nan")
    print(f"{wl:18s} {th:3d} {qr:10.3f} {cr:16.3f}")
PY
