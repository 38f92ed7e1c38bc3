#!/usr/bin/env bash
# Client resources at high concurrency. Not a test: it prints measured figures.
# It starts a private MariaDB with room for 2,000 connections, prepares the OLTP
# and TPC-C tables, then runs fairbench at each thread count while sampling the
# client's resident memory (VmRSS, every second) and CPU time (utime+stime from
# /proc/PID/stat), and prints: workload, threads, max RSS MB, client CPU µs per
# query, QPS. Last, one long run at 1,024 threads samples RSS every 10 s: it
# must stay flat (target: under 200 MB at 1,024 threads).
#
#   bench/scale.sh                                  # defaults below
#   TIME=30 THREADS="64 256 1024" LONG=600 bench/scale.sh
#   LONG=0 bench/scale.sh                           # skip the long run
#   CASES=none LONG=0 bench/scale.sh                # TPC-C only
#   CASES=none LONG_CASE=oltp_point_select bench/scale.sh   # the long run on point selects (the burstiest)
#   FB=/path/to/other/fairbench OUT=bench/out/b bench/scale.sh   # A/B against another build
#
# Needs: MariaDB server binaries (mariadbd, mariadb-install-db), python3.
set -euo pipefail
cd "$(dirname "$0")/.."

TIME=${TIME:-30}
THREADS=${THREADS:-"64 256 1024"}
CASES=${CASES:-"oltp_point_select oltp_read_only"}
[ "$CASES" = none ] && CASES=""
TPCC_THREADS=${TPCC_THREADS:-1000}
WAREHOUSES=${WAREHOUSES:-4}
LONG=${LONG:-600}             # seconds of the long run; 0 skips it
LONG_THREADS=${LONG_THREADS:-1024}
LONG_CASE=${LONG_CASE:-oltp_read_only}
TABLES=${TABLES:-8}
TABLE_SIZE=${TABLE_SIZE:-10000}
FB=${FB:-bin/fairbench}
OUT=${OUT:-bench/out/scale}
SRV=${SRV:-$OUT/server}

[ -x "$FB" ] || make build >/dev/null
mkdir -p "$OUT"
FB=$(cd "$(dirname "$FB")" && pwd)/$(basename "$FB")

# A private server: the shared one allows 151 connections.
"$FB" server stop --dir="$SRV" >/dev/null 2>&1 || true
rm -rf "$SRV" # a fresh data directory each time: prepare must not find earlier tables
"$FB" server start --flavor=mariadb --dir="$SRV" --data-size=1GiB \
	--set max_connections=2000 --set max_prepared_stmt_count=1048576 >"$OUT/server-start.log"
trap '"$FB" server stop --dir="$SRV" >/dev/null 2>&1 || true' EXIT
port=$(awk -F'port ' '/^Started/{split($2,a," "); print a[1]; exit}' "$OUT/server-start.log")
conn=(--mysql-host=127.0.0.1 --mysql-port="$port" --mysql-user=root --mysql-db=sbtest)

echo "== prepare: $TABLES x $TABLE_SIZE OLTP rows, TPC-C $WAREHOUSES warehouses (MariaDB on port $port)"
"$FB" prepare oltp_read_only "${conn[@]}" --tables="$TABLES" --table-size="$TABLE_SIZE" --threads=4 >"$OUT/prepare-oltp.log"
"$FB" prepare tpcc "${conn[@]}" --warehouses="$WAREHOUSES" --threads=4 >"$OUT/prepare-tpcc.log"

# measure LOG EVERY CMD...: runs CMD with output to LOG, samples VmRSS every
# EVERY seconds into LOG.rss, and prints "max_rss_mb cpu_seconds".
measure() {
	local log=$1 every=$2; shift 2
	python3 - "$log" "$every" "$@" <<'PY'
import os, subprocess, sys, time
log, every, cmd = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
tick = os.sysconf("SC_CLK_TCK")
def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0
def cpu_s(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / tick  # utime, stime
import resource
r0 = resource.getrusage(resource.RUSAGE_CHILDREN)  # a python3 wrapper's (pyenv) own children: not the run's
with open(log, "w") as out, open(log + ".rss", "w") as series:
    p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
    t0, peak, cpu = time.time(), 0, 0.0
    while p.poll() is None:
        try:
            kb, cpu = rss_kb(p.pid), cpu_s(p.pid)  # the last reading before exit
        except (OSError, IndexError, ValueError):
            break
        peak = max(peak, kb)
        series.write(f"{time.time()-t0:.0f} {kb/1024:.1f}\n")
        series.flush()
        time.sleep(every)
    rc = p.wait()
r = resource.getrusage(resource.RUSAGE_CHILDREN)
# ru_maxrss is the kernel's high-water mark (KiB): exact where sampling may miss a peak.
peak = max(peak, r.ru_maxrss)
print(f"{peak/1024:.1f} {r.ru_utime + r.ru_stime - r0.ru_utime - r0.ru_stime:.3f}")
sys.exit(rc)
PY
}
qps_of() { awk '/^ *queries: /{gsub(/[()]/,""); print $3; exit}' "$1"; }
queries_of() { awk '/^ *queries: /{print $2; exit}' "$1"; }

row() { # workload threads log "maxrss cpu"
	python3 - "$1" "$2" "$(queries_of "$3")" "$(qps_of "$3")" $4 <<'PY'
import sys
wl, th, n, qps, rss, cpu = sys.argv[1], sys.argv[2], float(sys.argv[3] or 0), float(sys.argv[4] or 0), float(sys.argv[5]), float(sys.argv[6])
per = cpu / n * 1e6 if n else float("nan")
print(f"{wl:<20} {th:>7} {rss:12.1f} {per:14.1f} {qps:12.1f}")
PY
}

echo
echo "== runs of ${TIME}s; CPU covers the whole process (connecting and preparing statements included)"
printf '%-20s %7s %12s %14s %12s\n' workload threads max_rss_MB cpu_us/query qps
for case in $CASES; do
	for th in $THREADS; do
		log="$OUT/$case-$th.log"
		m=$(measure "$log" 1 "$FB" run "$case" "${conn[@]}" --tables="$TABLES" --table-size="$TABLE_SIZE" \
			--threads="$th" --time="$TIME" --rand-seed=1 --output "$OUT/$case-$th.json")
		row "$case" "$th" "$log" "$m"
	done
done
log="$OUT/tpcc-$TPCC_THREADS.log"
m=$(measure "$log" 1 "$FB" run tpcc "${conn[@]}" --warehouses="$WAREHOUSES" --threads="$TPCC_THREADS" \
	--time="$TIME" --rand-seed=1 --mysql-ignore-errors=all --output "$OUT/tpcc-$TPCC_THREADS.json")
row tpcc "$TPCC_THREADS" "$log" "$m"

if [ "$LONG" -gt 0 ]; then
	echo
	echo "== long run: $LONG_CASE, $LONG_THREADS threads, ${LONG}s, RSS every 10s (MB)"
	log="$OUT/long-$LONG_CASE-$LONG_THREADS.log"
	m=$(measure "$log" 10 "$FB" run "$LONG_CASE" "${conn[@]}" --tables="$TABLES" --table-size="$TABLE_SIZE" \
		--threads="$LONG_THREADS" --time="$LONG" --rand-seed=1 --output "$OUT/long.json")
	python3 - "$log.rss" <<'PY'
import sys
pts = [tuple(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
print(" ".join(f"{t:.0f}s:{mb:.0f}" for t, mb in pts))
if len(pts) >= 4:
    # flat: the last third's mean against the second third's (the first third holds start-up)
    n = len(pts) // 3
    mid = sum(m for _, m in pts[n:2*n]) / n
    last = sum(m for _, m in pts[2*n:]) / len(pts[2*n:])
    print(f"RSS mean, second third {mid:.1f} MB, last third {last:.1f} MB: drift {100*(last-mid)/mid:+.1f}%")
PY
	row "$LONG_CASE" "$LONG_THREADS" "$log" "$m"
fi
echo
echo "logs, RSS series (*.rss) and results in $OUT/"
