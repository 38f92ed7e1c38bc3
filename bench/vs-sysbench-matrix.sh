#!/usr/bin/env bash
# fairbench against sysbench (and pgbench) in every cell of issue 19's target
# table, in one invocation: transport (Unix socket, TCP) x database (MariaDB/
# MySQL, PostgreSQL) x test case x threads. Not a test: it prints figures.
#
# Each cell runs ROUNDS alternating pairs on the same tables (the order
# rotating each round) and reports the median over the
# pairs of the QPS ratio (fairbench/sysbench) and of the ratio of client CPU
# per query (user+system seconds of the whole client process over its
# queries), with the median 1-minute load average seen at the pairs: the
# machine may be shared, so only ratios of neighbouring runs mean anything.
# On PostgreSQL it adds per transport and thread count the pair fairbench
# oltp_point_select / pgbench -S -M prepared (pgbench's own tables, scale 1).
#
#   bench/vs-sysbench-matrix.sh                                  # everything, 10 s runs, 5 pairs
#   TIME=3 ROUNDS=2 CASES=oltp_update_index THREADS=4 DRIVERS=mysql TRANSPORTS=socket \
#     bench/vs-sysbench-matrix.sh                                # one small cell
#
# BASE_FB=/path/to/an/older/fairbench adds it to every pair (a triple, the
# order rotating), so that one run gives "before" and "after" columns against
# the same reference runs.
#
# Knobs: TIME ROUNDS CASES THREADS DRIVERS ("mysql pgsql") TRANSPORTS ("socket
# tcp") PGBENCH (1: the pgbench pair; 0: not) TABLES TABLE_SIZE, the servers
# as in bench/vs-sysbench.sh (MYSQL_*, PGSQL_*), DB, FB, OUT.
# Needs: sysbench, pgbench (for PGBENCH=1), python3, the mariadb and psql
# clients. Targets (issue 19): qps_x >= 1.0 and cpu_x <= 1.0 in every cell.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

TIME=${TIME:-10}
ROUNDS=${ROUNDS:-5}
THREADS=${THREADS:-"1 4 16"}
CASES=${CASES:-"oltp_point_select oltp_read_only oltp_read_write oltp_update_index oltp_update_non_index"}
DRIVERS=${DRIVERS:-"mysql pgsql"}
TRANSPORTS=${TRANSPORTS:-"socket tcp"}
PGBENCH=${PGBENCH:-1}
TABLES=${TABLES:-4}
TABLE_SIZE=${TABLE_SIZE:-10000}
DB=${DB:-fairbench_matrix}
FB=${FB:-bin/fairbench}
OUT=${OUT:-bench/out/matrix}

need() { command -v "$1" >/dev/null || { echo "vs-sysbench-matrix: $1 not found: $2" >&2; exit 1; }; }
need sysbench "apt-get install sysbench"
need python3 "apt-get install python3"
for d in $DRIVERS; do
	case "$d" in
	mysql) need mariadb "apt-get install mariadb-client" ;;
	pgsql)
		need psql "apt-get install postgresql-client"
		[ "$PGBENCH" = 1 ] && need pgbench "apt-get install postgresql-contrib, or PGBENCH=0"
		;;
	*) echo "vs-sysbench-matrix: DRIVERS takes mysql and pgsql, not $d" >&2; exit 2 ;;
	esac
done
for t in $TRANSPORTS; do
	case "$t" in socket | tcp) ;; *) echo "vs-sysbench-matrix: TRANSPORTS takes socket and tcp, not $t" >&2; exit 2 ;; esac
done
[ -x "$FB" ] || make build >/dev/null
mkdir -p "$OUT"

# sql DRIVER STATEMENT: runs a statement as the admin user over TCP.
sql() {
	case "$1" in
	mysql) mariadb -h "$MYSQL_HOST" -P "$MYSQL_PORT" -u "$MYSQL_USER" -e "$2" ;;
	pgsql) psql -h "$PGSQL_HOST" -p "$PGSQL_PORT" -U "$PGSQL_USER" -d postgres -qc "$2" >/dev/null ;;
	esac
}
drop_all() { for d in $DRIVERS; do sql "$d" "DROP DATABASE IF EXISTS $DB" || true; done; }
trap 'drop_all; exit 130' INT TERM
trap drop_all EXIT

# conn DRIVER TRANSPORT: sets conn, the connection flags both tools read.
conn() {
	case "$1/$2" in
	mysql/socket) conn=(--db-driver=mysql --mysql-socket="$MYSQL_SOCKET" --mysql-user="$MYSQL_USER" --mysql-db="$DB") ;;
	mysql/tcp) conn=(--db-driver=mysql --mysql-host="$MYSQL_HOST" --mysql-port="$MYSQL_PORT" --mysql-user="$MYSQL_USER" --mysql-db="$DB") ;;
	pgsql/socket) conn=(--db-driver=pgsql --pgsql-host="$PGSQL_SOCKET_DIR" --pgsql-port="$PGSQL_PORT" --pgsql-user="$PGSQL_USER" --pgsql-db="$DB") ;;
	pgsql/tcp) conn=(--db-driver=pgsql --pgsql-host="$PGSQL_HOST" --pgsql-port="$PGSQL_PORT" --pgsql-user="$PGSQL_USER" --pgsql-db="$DB") ;;
	esac
}

rows="$OUT/pairs.txt"
: >"$rows"
load1() { cut -d' ' -f1 /proc/loadavg; }

# side NAME LOG CMD...: runs one side of a pair; prints "qps cpu_us_per_query".
side() {
	local name=$1 log=$2 cpu q
	shift 2
	if ! cpu=$(cpu_of "$log" "$@"); then
		echo "vs-sysbench-matrix: $name failed (log: $log):" >&2
		tail -5 "$log" >&2
		exit 1
	fi
	case "$name" in
	pgbench)
		q=$(awk '/^number of transactions actually processed:/{print $6; exit}' "$log")
		python3 -c 'import sys; q,c,t=map(float,sys.argv[1:]); print(f"{q/t:.1f} {c/q*1e6:.3f}")' "$q" "$cpu" "$TIME"
		;;
	*) python3 -c 'import sys; qps,q,c=map(float,sys.argv[1:]); print(f"{qps} {c/q*1e6:.3f}")' "$(qps_of "$log")" "$(queries_of "$log")" "$cpu" ;;
	esac
}

# pair CELL ROUND REF_NAME REF_CMD... -- FB_CMD...: runs one alternating pair
# (a triple with BASE_FB, FB_CMD's first word replaced) and appends "CELL...
# ref round ref_qps fb_qps ref_us fb_us load [base_qps base_us]" to rows.
pair() {
	local cell=$1 round=$2 ref=$3 a b c="" s
	shift 3
	local refcmd=() fbcmd=()
	while [ "$1" != -- ]; do refcmd+=("$1"); shift; done
	shift
	fbcmd=("$@")
	# BASE_FB's arguments: FB_CMD's, its --output FILE.json named FILE-base.json
	# (the same file would hold whichever side ran last).
	local oldargs=() arg prev=""
	for arg in "${fbcmd[@]:1}"; do
		[ "$prev" = --output ] && arg=${arg%.json}-base.json
		oldargs+=("$arg")
		prev=$arg
	done
	local base="$OUT/${cell// /-}-$round" sides=(ref fb)
	[ -n "${BASE_FB:-}" ] && sides+=(old)
	local n=${#sides[@]} i
	for ((i = 0; i < n; i++)); do
		s=${sides[$(((round - 1 + i) % n))]}
		case "$s" in
		ref) a=$(side "$ref" "$base-$ref.log" "${refcmd[@]}") ;;
		fb) b=$(side fairbench "$base-fairbench.log" "${fbcmd[@]}") ;;
		old) c=$(side fairbench "$base-fairbench-base.log" "$BASE_FB" "${oldargs[@]}") ;;
		esac
	done
	read -r rq ru <<<"$a"
	read -r fq fu <<<"$b"
	echo "$cell $ref $round $rq $fq $ru $fu $(load1) $c" >>"$rows"
	printf '  %-44s pair %d: qps %s/%s, cpu us/q %s/%s (fairbench/%s)%s, load %s\n' "$cell" "$round" "$fq" "$rq" "$fu" "$ru" "$ref" \
		"${c:+; base fairbench qps/us $c}" "$(load1)" >&2
}

for d in $DRIVERS; do
	sql "$d" "DROP DATABASE IF EXISTS $DB"
	sql "$d" "CREATE DATABASE $DB"
	conn "$d" tcp
	echo "== $d: preparing $TABLES x $TABLE_SIZE sbtest rows" >&2
	"$FB" prepare oltp_read_write "${conn[@]}" --tables="$TABLES" --table-size="$TABLE_SIZE" --threads="$TABLES" >"$OUT/prepare-$d.log" 2>&1 || {
		tail -5 "$OUT/prepare-$d.log" >&2
		exit 1
	}
	if [ "$d" = pgsql ] && [ "$PGBENCH" = 1 ]; then
		pgbench -i -q -s 1 -h "$PGSQL_HOST" -p "$PGSQL_PORT" -U "$PGSQL_USER" "$DB" >"$OUT/prepare-pgbench.log" 2>&1
	fi
	for tr in $TRANSPORTS; do
		conn "$d" "$tr"
		for case in $CASES; do
			for th in $THREADS; do
				common=("${conn[@]}" --tables="$TABLES" --table-size="$TABLE_SIZE" --threads="$th" --time="$TIME" --rand-type=uniform)
				for r in $(seq "$ROUNDS"); do
					pair "$d $tr $case $th" "$r" sysbench sysbench "$case" "${common[@]}" run \
						-- "$FB" run "$case" "${common[@]}" --output "$OUT/$d-$tr-$case-$th-$r.json"
				done
			done
		done
		if [ "$d" = pgsql ] && [ "$PGBENCH" = 1 ]; then
			host=$PGSQL_HOST
			[ "$tr" = socket ] && host=$PGSQL_SOCKET_DIR
			for th in $THREADS; do
				common=("${conn[@]}" --tables="$TABLES" --table-size="$TABLE_SIZE" --threads="$th" --time="$TIME" --rand-type=uniform)
				for r in $(seq "$ROUNDS"); do
					pair "$d $tr pgbench_-S_vs_point_select $th" "$r" pgbench \
						pgbench -S -M prepared -n -c "$th" -j "$th" -T "$TIME" -h "$host" -p "$PGSQL_PORT" -U "$PGSQL_USER" "$DB" \
						-- "$FB" run oltp_point_select "${common[@]}" --output "$OUT/$d-$tr-pgbench-$th-$r.json"
				done
			done
		fi
	done
	sql "$d" "DROP DATABASE IF EXISTS $DB"
done

echo
echo "== fairbench / reference, median over pairs (${TIME}s runs, $ROUNDS pairs per cell)"
python3 - "$rows" <<'PY'
import statistics, sys
from collections import defaultdict
cells = defaultdict(list)
order = []
base = False
for line in open(sys.argv[1]):
    f = line.split()
    d, tr, case, th, ref, rnd, rq, fq, ru, fu, load = f[:11]
    key = (d, tr, case, int(th), ref)
    if key not in cells:
        order.append(key)
    row = [float(fq) / float(rq), float(fu) / float(ru), float(ru), float(fu), float(load)]
    if len(f) == 13:
        base = True
        row += [float(f[11]) / float(rq), float(f[12]) / float(ru)]
    cells[key].append(row)
med = statistics.median
print(f"{'db':5s} {'via':6s} {'case':28s} {'thr':>3s} {'ref':8s} {'pairs':>5s} {'qps_x':>6s} {'cpu_x':>6s} {'ref_us/q':>9s} {'fb_us/q':>8s} {'load1':>5s}  target"
      + ("   base: qps_x  cpu_x" if base else ""))
missed = 0
for k in order:
    v = cells[k]
    qx, cx = med(x[0] for x in v), med(x[1] for x in v)
    ok = qx >= 1.0 and cx <= 1.0
    missed += not ok
    d, tr, case, th, ref = k
    print(f"{d:5s} {tr:6s} {case:28s} {th:3d} {ref:8s} {len(v):5d} {qx:6.2f} {cx:6.2f} {med(x[2] for x in v):9.2f} {med(x[3] for x in v):8.2f} {med(x[4] for x in v):5.2f}  {'met' if ok else 'MISSED':6s}"
          + (f"        {med(x[5] for x in v):6.2f} {med(x[6] for x in v):6.2f}" if len(v[0]) > 5 else ""))
if base:
    print("base: the same ratios for BASE_FB, measured in the same rounds (the target column is for FB)")
print(f"\n{len(order) - missed} of {len(order)} cells meet qps_x >= 1.0 and cpu_x <= 1.0 (medians of ratios of neighbouring runs;"
      " cpu is the whole client process: user+system over its queries)")
PY
echo "pairs: $rows; logs and fairbench results in $OUT/"
