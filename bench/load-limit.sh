#!/usr/bin/env bash
# How fast fairbench loads compared with the server's own bulk path (issue 19):
# the physical limit is the server reading a server-local file of the same
# rows (MariaDB LOAD DATA INFILE, PostgreSQL COPY ... FROM 'file'), with the same
# tables and the same index-after rule. Not a test: it prints figures.
#
# sbtest, per database (DRIVERS), TABLES x TABLE_SIZE rows, each round running
# in rotating order:
#   fairbench  `fairbench prepare oltp_read_write --threads=TABLES` (MariaDB: one
#              LOAD DATA LOCAL INFILE stream per job; PostgreSQL: COPY FROM STDIN
#              in binary format), k index after the load, as sysbench does
#   sysbench   `sysbench oltp_read_write prepare --threads=TABLES` (multi-row INSERT)
#   limit      the rows fairbench loaded, dumped once beforehand to files the
#              server can read (SELECT ... INTO OUTFILE / COPY ... TO 'file'
#              binary), loaded into the same empty tables (created by fairbench
#              with 1 row, truncated, their k index dropped: not timed) by TABLES sessions
#              at once, then CREATE INDEX k_N in TABLES sessions at once: timed
#   base       BASE_FB (an older fairbench binary), when given: before -> after
# Each side loads into a fresh database, dropped after it, then waits SETTLE
# seconds (the server purges and flushes after a drop, and the next side would
# pay for it); the order rotates, so with ROUNDS a multiple of the number of
# sides (3, 4 with BASE_FB) every side runs in every position equally often
# (the script warns otherwise). The table gives the
# medians over ROUNDS of the wall time, rows/s, and the per-round speed ratios
# (limit/fairbench = fairbench reaches this fraction of the limit; sysbench/
# fairbench = times faster than sysbench), the client's CPU (user+system) and
# per row, the server's CPU during the side (from /proc when the server runs on
# this machine: where the time goes) and how busy the machine's CPUs were
# ((client + server CPU) / (wall x CPUs): near 1, the load is CPU-bound and
# every cycle the client saves is the server's), with the median 1-minute
# load. On a small machine the client's CPU is taken from the server, and it
# changes less with the noise than the time.
# Every side's wall time is taken by the process that starts it (measure in
# bench/lib.sh): until then fairbench's, sysbench's and go-tpc's included the
# start of a python wrapper (~0.1-0.3 s) that the limit's did not.
#
# TPC-C on MariaDB (TPCC_W warehouses, 0 skips it): fairbench tpcc prepare vs
# go-tpc v1.0.12 prepare (both --no-check, LOAD_THREADS loaders) vs the limit:
# every table fairbench loaded dumped to a file, then CREATE TABLE ... LIKE
# (indexes with the tables, as fairbench creates them on MySQL) and LOAD DATA
# INFILE of all tables, LOAD_THREADS at a time, largest first.
#
#   bench/load-limit.sh                                       # 4 x 100000, 3 rounds, TPC-C 2 wh
#   TABLES=2 TABLE_SIZE=20000 ROUNDS=1 TPCC_W=0 bench/load-limit.sh
#   BASE_FB=/tmp/fb-main bench/load-limit.sh                  # before -> after in one run
#
# Knobs: TABLES TABLE_SIZE ROUNDS SETTLE DRIVERS ("mysql pgsql") TPCC_W LOAD_THREADS
# DB (database name prefix) DUMP (a directory both servers' users can read and
# write, under /tmp: the servers read the files themselves) FB BASE_FB OUT, the
# servers as in bench/lib.sh (MYSQL_*, PGSQL_*, over TCP). Needs: sysbench,
# python3, the mariadb and psql clients, the admin users' FILE privilege
# (MariaDB, with secure_file_priv allowing DUMP) and pg_read_server_files /
# pg_write_server_files (PostgreSQL), go (to build go-tpc).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

TABLES=${TABLES:-4}
TABLE_SIZE=${TABLE_SIZE:-100000}
ROUNDS=${ROUNDS:-3}
SETTLE=${SETTLE:-3}
DRIVERS=${DRIVERS:-"mysql pgsql"}
TPCC_W=${TPCC_W:-2}
LOAD_THREADS=${LOAD_THREADS:-4}
DB=${DB:-fairbench_load}
DUMP=${DUMP:-/tmp/fairbench-load-limit}
FB=${FB:-bin/fairbench}
OUT=${OUT:-bench/out/load-limit}
GOTPC=${GOTPC:-bench/out/go-tpc}

need() { command -v "$1" >/dev/null || { echo "load-limit: $1 not found: $2" >&2; exit 1; }; }
need sysbench "apt-get install sysbench"
need python3 "apt-get install python3"
need mariadb "apt-get install mariadb-client"
need psql "apt-get install postgresql-client"
[ -x "$FB" ] || make build >/dev/null
mkdir -p "$OUT"
[ "$TPCC_W" -gt 0 ] && build_gotpc "$GOTPC"

my() { mariadb -h "$MYSQL_HOST" -P "$MYSQL_PORT" -u "$MYSQL_USER" "$@"; }
pg() { PGOPTIONS="-c client_min_messages=warning" psql -h "$PGSQL_HOST" -p "$PGSQL_PORT" -U "$PGSQL_USER" -v ON_ERROR_STOP=1 -qAt "$@"; }
# sql DRIVER DATABASE STATEMENT
sql() {
	case "$1" in
	mysql) my -N -D "$2" -e "$3" ;;
	pgsql) pg -d "$2" -c "$3" ;;
	esac
}
admin_db() { [ "$1" = mysql ] && echo mysql || echo postgres; }
reset_db() { sql "$1" "$(admin_db "$1")" "DROP DATABASE IF EXISTS $2" >/dev/null && sql "$1" "$(admin_db "$1")" "CREATE DATABASE $2"; }
drop_db() { sql "$1" "$(admin_db "$1")" "DROP DATABASE IF EXISTS $2" >/dev/null 2>&1 || true; }
suffixes="fb sb lim base src tfb tgt tlim tsrc"
cleanup() {
	for s in $suffixes; do
		drop_db mysql "${DB}_$s"
		drop_db pgsql "${DB}_$s"
	done
	rm -rf "$DUMP"
}
trap 'cleanup; exit 130' INT TERM
trap cleanup EXIT

conn() { # conn DRIVER DATABASE: the connection flags fairbench and sysbench share (TCP)
	case "$1" in
	mysql) conn=(--db-driver=mysql --mysql-host="$MYSQL_HOST" --mysql-port="$MYSQL_PORT" --mysql-user="$MYSQL_USER" --mysql-db="$2") ;;
	pgsql) conn=(--db-driver=pgsql --pgsql-host="$PGSQL_HOST" --pgsql-port="$PGSQL_PORT" --pgsql-user="$PGSQL_USER" --pgsql-db="$2") ;;
	esac
}
load1() { cut -d' ' -f1 /proc/loadavg; }
# parallel N CMD...: runs CMD for every line of standard input (appended as
# the last argument), N at a time; fails when one fails.
parallel() { local n=$1; shift; xargs -d '\n' -P "$n" -I{} "$@" {}; }

nsides=3
[ -n "${BASE_FB:-}" ] && nsides=4
[ $((ROUNDS % nsides)) = 0 ] || echo "load-limit: ROUNDS=$ROUNDS is not a multiple of the $nsides sides: some sides run first (after the previous drop) more often than others" >&2
rows="$OUT/rounds.txt"
: >"$rows"
mkdir -p "$DUMP"
chmod 1777 "$DUMP"

# record KIND DRIVER SIDE ROUND SECONDS ROWS CPU SERVER: one measured side (CPU:
# the client's user+system seconds, 0 for the limit, whose clients only send
# SQL; SERVER: the server's CPU seconds during the side, "-" when remote).
record() { echo "$1 $2 $3 $4 $5 $6 $(load1) $7 $8" >>"$rows"; printf '  %-6s %-5s round %d %-9s %8ss  client cpu %6ss  server cpu %6ss  load %s\n' "$1" "$2" "$4" "$3" "$5" "$7" "$8" "$(load1)" >&2; }
# server_since DRIVER START: the server's CPU seconds since server_cpu printed START.
server_since() {
	local now
	now=$(server_cpu "$1")
	[ "$now" = - ] || [ "$2" = - ] && { echo -; return; }
	awk -v a="$2" -v b="$now" 'BEGIN { printf "%.2f", b - a }'
}

# --- sbtest -----------------------------------------------------------------
fb_prepare() { # fb_prepare BINARY DRIVER DATABASE LOG: prints "WALL CPU" (see measure)
	conn "$2" "$3"
	measure "$4" "$1" prepare oltp_read_write "${conn[@]}" --tables="$TABLES" --table-size="$TABLE_SIZE" --threads="$TABLES" ||
		{ echo "load-limit: $1 prepare failed:" >&2; tail -5 "$4" >&2; exit 1; }
}
# limit_load DRIVER DATABASE TABLE: the server reads the dumped file of TABLE.
limit_load() {
	case "$1" in
	mysql) sql mysql "$2" "LOAD DATA INFILE '$DUMP/$1-$3.tsv' INTO TABLE $3 CHARACTER SET utf8mb4 (id, k, c, pad)" ;;
	pgsql) sql pgsql "$2" "COPY $3 (id, k, c, pad) FROM '$DUMP/$1-$3.bin' WITH (FORMAT binary)" ;;
	esac
}
# limit_side DRIVER DATABASE: the limit's timed part: TABLES sessions load the
# dumped files at once, then TABLES sessions create the k indexes at once.
limit_side() {
	seq "$TABLES" | sed 's/^/sbtest/' | parallel "$TABLES" bash -c 'limit_load "$0" "$1" "$2"' "$1" "$2"
	seq "$TABLES" | parallel "$TABLES" bash -c 'sql "$0" "$1" "CREATE INDEX k_$2 ON sbtest$2 (k)"' "$1" "$2"
}
export -f limit_load limit_side parallel sql my pg
export DUMP TABLES MYSQL_HOST MYSQL_PORT MYSQL_USER PGSQL_HOST PGSQL_PORT PGSQL_USER

sbtest_side() { # sbtest_side DRIVER SIDE ROUND
	local d=$1 side=$2 r=$3 db="${DB}_$2" t i cpu=0 log="$OUT/$1-$2-$3.log" srv
	reset_db "$d" "$db"
	case "$side" in
	fb | base)
		local bin=$FB
		[ "$side" = base ] && bin=$BASE_FB
		srv=$(server_cpu "$d")
		read -r t cpu <<<"$(fb_prepare "$bin" "$d" "$db" "$log")" ;;
	sb)
		conn "$d" "$db"
		srv=$(server_cpu "$d")
		m=$(measure "$log" sysbench oltp_read_write "${conn[@]}" --tables="$TABLES" --table-size="$TABLE_SIZE" --threads="$TABLES" prepare) ||
			{ echo "load-limit: sysbench prepare failed:" >&2; tail -5 "$log" >&2; exit 1; }
		read -r t cpu <<<"$m" ;;
	lim)
		conn "$d" "$db"
		"$FB" prepare oltp_read_write "${conn[@]}" --tables="$TABLES" --table-size=1 >"$log" 2>&1 ||
			{ echo "load-limit: fairbench prepare failed:" >&2; tail -5 "$log" >&2; exit 1; }
		for i in $(seq "$TABLES"); do
			case "$d" in
			mysql) sql "$d" "$db" "TRUNCATE TABLE sbtest$i; DROP INDEX k_$i ON sbtest$i" ;;
			pgsql) sql "$d" "$db" "TRUNCATE TABLE sbtest$i; DROP INDEX k_$i" ;;
			esac
		done
		srv=$(server_cpu "$d")
		m=$(measure "$log.timed" bash -c 'set -o pipefail; limit_side "$0" "$1"' "$d" "$db") ||
			{ echo "load-limit: the limit's load failed:" >&2; tail -5 "$log.timed" >&2; exit 1; }
		read -r t _ <<<"$m" ;;
	esac
	record sbtest "$d" "$side" "$r" "$t" $((TABLES * TABLE_SIZE)) "$cpu" "$(server_since "$d" "$srv")"
	drop_db "$d" "$db"
	sleep "$SETTLE"
}

for d in $DRIVERS; do
	echo "== $d: $TABLES x $TABLE_SIZE sbtest rows; dumping fairbench's rows for the limit" >&2
	src="${DB}_src"
	reset_db "$d" "$src"
	fb_prepare "$FB" "$d" "$src" "$OUT/$d-src.log" >/dev/null
	for i in $(seq "$TABLES"); do
		rm -f "$DUMP/$d-sbtest$i".*
		case "$d" in
		mysql) sql mysql "$src" "SELECT id, k, c, pad FROM sbtest$i INTO OUTFILE '$DUMP/mysql-sbtest$i.tsv' CHARACTER SET utf8mb4" ;;
		pgsql) sql pgsql "$src" "COPY sbtest$i (id, k, c, pad) TO '$DUMP/pgsql-sbtest$i.bin' WITH (FORMAT binary)" ;;
		esac
	done
	drop_db "$d" "$src"
	sleep "$SETTLE"
	sides=(fb sb lim)
	[ -n "${BASE_FB:-}" ] && sides+=(base)
	n=${#sides[@]}
	for r in $(seq "$ROUNDS"); do
		for ((i = 0; i < n; i++)); do
			sbtest_side "$d" "${sides[$(((r - 1 + i) % n))]}" "$r"
		done
	done
	rm -f "$DUMP/$d-"*
done

# --- TPC-C on MariaDB ---------------------------------------------------------
if [ "$TPCC_W" -gt 0 ]; then
	echo "== mysql: TPC-C $TPCC_W warehouses; dumping fairbench's tables for the limit" >&2
	src="${DB}_tsrc"
	reset_db mysql "$src"
	conn mysql "$src"
	"$FB" prepare tpcc "${conn[@]}" --warehouses="$TPCC_W" --threads="$LOAD_THREADS" --no-check >"$OUT/tpcc-src.log" 2>&1
	tpcc_tables=$(sql mysql "$src" "SELECT table_name FROM information_schema.tables WHERE table_schema='$src' ORDER BY data_length DESC")
	tpcc_rows=0
	for t in $tpcc_tables; do tpcc_rows=$((tpcc_rows + $(sql mysql "$src" "SELECT COUNT(*) FROM $t"))); done
	for t in $tpcc_tables; do
		rm -f "$DUMP/tpcc-$t.tsv"
		sql mysql "$src" "SELECT * FROM $t INTO OUTFILE '$DUMP/tpcc-$t.tsv' CHARACTER SET utf8mb4"
	done
	# tpcc_limit_side DATABASE TABLE...: the limit's timed part: LOAD_THREADS
	# sessions at a time load the dumped files of the tables, in the order given.
	tpcc_limit_side() {
		local db=$1
		shift
		printf '%s\n' "$@" | parallel "$LOAD_THREADS" bash -c \
			'sql mysql "$0" "LOAD DATA INFILE '"'"'$DUMP/tpcc-$1.tsv'"'"' INTO TABLE $1 CHARACTER SET utf8mb4"' "$db"
	}
	export -f tpcc_limit_side
	export LOAD_THREADS
	tpcc_side() { # tpcc_side SIDE ROUND
		local side=$1 r=$2 db="${DB}_$1" t cpu=0 log="$OUT/tpcc-$1-$2.log" srv
		reset_db mysql "$db"
		case "$side" in
		tfb | base)
			local bin=$FB
			[ "$side" = base ] && bin=$BASE_FB
			conn mysql "$db"
			srv=$(server_cpu mysql)
			m=$(measure "$log" "$bin" prepare tpcc "${conn[@]}" --warehouses="$TPCC_W" --threads="$LOAD_THREADS" --no-check) ||
				{ echo "load-limit: fairbench tpcc prepare failed:" >&2; tail -5 "$log" >&2; exit 1; }
			read -r t cpu <<<"$m" ;;
		tgt)
			srv=$(server_cpu mysql)
			m=$(measure "$log" "$GOTPC" tpcc -H "$MYSQL_HOST" -P "$MYSQL_PORT" -U "$MYSQL_USER" -D "$db" prepare --warehouses "$TPCC_W" -T "$LOAD_THREADS" --no-check) ||
				{ echo "load-limit: go-tpc prepare failed:" >&2; tail -5 "$log" >&2; exit 1; }
			read -r t cpu <<<"$m" ;;
		tlim)
			for x in $tpcc_tables; do sql mysql "$db" "CREATE TABLE $x LIKE $src.$x"; done
			srv=$(server_cpu mysql)
			# shellcheck disable=SC2086 # one argument per table
			m=$(measure "$log" bash -c 'set -o pipefail; tpcc_limit_side "$@"' tpcc_limit_side "$db" $tpcc_tables) ||
				{ echo "load-limit: the TPC-C limit's load failed:" >&2; tail -5 "$log" >&2; exit 1; }
			read -r t _ <<<"$m" ;;
		esac
		record tpcc mysql "$side" "$r" "$t" "$tpcc_rows" "$cpu" "$(server_since mysql "$srv")"
		drop_db mysql "$db"
		sleep "$SETTLE"
	}
	sides=(tfb tgt tlim)
	[ -n "${BASE_FB:-}" ] && sides+=(base)
	n=${#sides[@]}
	for r in $(seq "$ROUNDS"); do
		for ((i = 0; i < n; i++)); do
			tpcc_side "${sides[$(((r - 1 + i) % n))]}" "$r"
		done
	done
	drop_db mysql "$src"
fi

echo
echo "== loading: medians over $ROUNDS rounds (wall seconds; ratios per round, then the median)"
python3 - "$rows" <<'PY'
import os, statistics, sys
from collections import defaultdict
med = statistics.median
t = defaultdict(dict)   # (kind, db) -> side -> {round: (s, rows, load)}
for line in open(sys.argv[1]):
    kind, db, side, rnd, s, rows, load, cpu, srv = (line.split() + ["-"])[:9]
    t[(kind, db)].setdefault(side, {})[int(rnd)] = (float(s), int(rows), float(load), float(cpu), None if srv == "-" else float(srv))
ncpu = len(os.sched_getaffinity(0))
names = {"fb": "fairbench", "tfb": "fairbench", "base": "base (BASE_FB)", "sb": "sysbench", "tgt": "go-tpc", "lim": "limit (server file)", "tlim": "limit (server file)"}
print(f"{'load':6s} {'db':5s} {'side':20s} {'rounds':>6s} {'seconds':>8s} {'rows/s':>9s} {'limit/x':>8s} {'x/ref':>6s} {'cpu_s':>6s} {'us/row':>6s} {'srv_s':>6s} {'busy':>5s} {'load1':>5s}")
for (kind, db), sides in t.items():
    lim = sides.get("lim") or sides.get("tlim") or {}
    ref = sides.get("sb") or sides.get("tgt") or {}
    for side, rs in sides.items():
        s = med(v[0] for v in rs.values())
        n = next(iter(rs.values()))[1]
        xl = [lim[r][0] / v[0] for r, v in rs.items() if r in lim]
        xr = [ref[r][0] / v[0] for r, v in rs.items() if r in ref]
        c = med(v[3] for v in rs.values())
        srv = [v[4] for v in rs.values() if v[4] is not None]
        busy = [(v[3] + v[4]) / (v[0] * ncpu) for v in rs.values() if v[4] is not None]
        srv_s = f"{med(srv):6.2f}" if srv else f"{'-':>6s}"
        busy_s = f"{med(busy):5.2f}" if busy else f"{'-':>5s}"
        print(f"{kind:6s} {db:5s} {names[side]:20s} {len(rs):6d} {s:8.2f} {n / s:9.0f} {med(xl) if xl else 0:8.2f} {med(xr) if xr else 0:6.2f} {c:6.2f} {c / n * 1e6:6.2f} {srv_s} {busy_s} {med(v[2] for v in rs.values()):5.2f}")
print("limit/x: the side's speed as a fraction of the server reading its own file (target >= 0.9 for fairbench);")
print("x/ref: speed relative to sysbench (sbtest) or go-tpc (TPC-C) (target >= 2 for fairbench on TPC-C)")
print("cpu_s, us/row: the client process's user+system CPU (0 for the limit: its clients only send SQL)")
print(f"srv_s: the server's CPU during the side (- when it runs elsewhere); busy: (cpu_s + srv_s) / (seconds x {ncpu} CPUs)")
PY
echo "rounds: $rows; logs in $OUT/"
