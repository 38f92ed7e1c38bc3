#!/usr/bin/env bash
# fairbench vs sysbench on the same server and the same tables. Not a test: it
# prints measured figures and ratios. For each of the seeds' five test cases and
# each thread count it runs sysbench and fairbench alternately and prints the QPS
# ratio (fairbench/sysbench) and the ratio of client CPU time per query; then it
# compares prepare (loading) rows/s.
#
#   bench/vs-sysbench.sh                 # defaults below
#   TIME=30 THREADS="1 4 16" TABLES=4 TABLE_SIZE=100000 bench/vs-sysbench.sh
#   SOCKET=1 bench/vs-sysbench.sh             # over the Unix socket instead of TCP
#   DRIVER=pgsql bench/vs-sysbench.sh         # PostgreSQL (TCP, or SOCKET=1)
#
# Needs: sysbench (Debian package), python3, and a MariaDB/MySQL reachable as root
# on 127.0.0.1:3306 or /run/mysqld/mysqld.sock (MYSQL_HOST/MYSQL_PORT/MYSQL_USER/
# MYSQL_SOCKET), or with DRIVER=pgsql a PostgreSQL reachable as postgres with trust
# auth on 127.0.0.1:5432 or /var/run/postgresql (PGSQL_HOST/PGSQL_PORT/PGSQL_USER/
# PGSQL_SOCKET_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

TIME=${TIME:-20}
THREADS=${THREADS:-"1 4 16"}
TABLES=${TABLES:-4}
TABLE_SIZE=${TABLE_SIZE:-100000}
CASES=${CASES:-"oltp_point_select oltp_read_only oltp_read_write oltp_update_index oltp_update_non_index"}
DRIVER=${DRIVER:-mysql}
SOCKET=${SOCKET:-}
DB=${DB:-fairbench_vs_sysbench}
FB=${FB:-bin/fairbench}
OUT=${OUT:-bench/out}

command -v sysbench >/dev/null || { echo "sysbench not found: apt-get install sysbench" >&2; exit 1; }
[ -x "$FB" ] || make build >/dev/null
mkdir -p "$OUT"

# Both tools take the same connection flags (fairbench reads sysbench's), so one
# array serves both; sysbench's pgsql driver takes a socket directory as --pgsql-host.
case "$DRIVER" in
mysql)
	if [ -n "$SOCKET" ]; then
		conn=(--db-driver=mysql --mysql-socket="$MYSQL_SOCKET" --mysql-user="$MYSQL_USER" --mysql-db="$DB")
	else
		conn=(--db-driver=mysql --mysql-host="$MYSQL_HOST" --mysql-port="$MYSQL_PORT" --mysql-user="$MYSQL_USER" --mysql-db="$DB")
	fi
	reset_db() { mariadb -h "$MYSQL_HOST" -P "$MYSQL_PORT" -u "$MYSQL_USER" -e "DROP DATABASE IF EXISTS $DB; CREATE DATABASE $DB"; }
	drop_db() { mariadb -h "$MYSQL_HOST" -P "$MYSQL_PORT" -u "$MYSQL_USER" -e "DROP DATABASE IF EXISTS $DB"; }
	;;
pgsql)
	host=$PGSQL_HOST
	[ -n "$SOCKET" ] && host=$PGSQL_SOCKET_DIR
	conn=(--db-driver=pgsql --pgsql-host="$host" --pgsql-port="$PGSQL_PORT" --pgsql-user="$PGSQL_USER" --pgsql-db="$DB")
	reset_db() {
		psql -h "$PGSQL_HOST" -p "$PGSQL_PORT" -U "$PGSQL_USER" -d postgres -qc "DROP DATABASE IF EXISTS $DB" >/dev/null
		psql -h "$PGSQL_HOST" -p "$PGSQL_PORT" -U "$PGSQL_USER" -d postgres -qc "CREATE DATABASE $DB" >/dev/null
	}
	drop_db() { psql -h "$PGSQL_HOST" -p "$PGSQL_PORT" -U "$PGSQL_USER" -d postgres -qc "DROP DATABASE IF EXISTS $DB" >/dev/null; }
	;;
*) echo "DRIVER must be mysql or pgsql, not $DRIVER" >&2; exit 2 ;;
esac
data=(--tables="$TABLES" --table-size="$TABLE_SIZE")
via=TCP; [ -n "$SOCKET" ] && via="the Unix socket"
echo "== $DRIVER over $via"

elapsed() { python3 -c 'import time,sys; print(f"{time.time()-float(sys.argv[1]):.2f}")' "$1"; }
now() { python3 -c 'import time; print(time.time())'; }


rows=$((TABLES * TABLE_SIZE))
echo "== prepare: $TABLES tables x $TABLE_SIZE rows, $TABLES loader threads"
reset_db
t=$(now); sysbench oltp_read_write "${conn[@]}" "${data[@]}" --threads="$TABLES" prepare >"$OUT/prepare-sysbench.log"; sb_load=$(elapsed "$t")
reset_db
t=$(now); "$FB" prepare oltp_read_write "${conn[@]}" "${data[@]}" --threads="$TABLES" >"$OUT/prepare-fairbench.log"; fb_load=$(elapsed "$t")
python3 - "$rows" "$sb_load" "$fb_load" <<'PY'
import sys
rows, sb, fb = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
print(f"sysbench  {sb:8.2f}s  {rows/sb:12.0f} rows/s")
print(f"fairbench {fb:8.2f}s  {rows/fb:12.0f} rows/s")
print(f"loading speed ratio fairbench/sysbench: {sb/fb:.2f}x (target >= 3x)")
PY

echo
echo "== runs: ${TIME}s each, sysbench and fairbench alternately on the same tables"
printf '%-24s %7s %12s %12s %9s %14s %14s %9s\n' case threads sb_qps fb_qps qps_x sb_cpu_us/q fb_cpu_us/q cpu_x
for case in $CASES; do
	for th in $THREADS; do
		common=("${conn[@]}" "${data[@]}" --threads="$th" --time="$TIME" --rand-type=uniform --rand-seed=1)
		sb_cpu=$(cpu_of "$OUT/$case-$th-sysbench.log" sysbench "$case" "${common[@]}" run)
		fb_cpu=$(cpu_of "$OUT/$case-$th-fairbench.log" "$FB" run "$case" "${common[@]}" --output "$OUT/$case-$th.json")
		python3 - "$case" "$th" "$(qps_of "$OUT/$case-$th-sysbench.log")" "$(qps_of "$OUT/$case-$th-fairbench.log")" \
			"$sb_cpu" "$fb_cpu" "$(queries_of "$OUT/$case-$th-sysbench.log")" "$(queries_of "$OUT/$case-$th-fairbench.log")" <<'PY'
import sys
case, th = sys.argv[1], sys.argv[2]
sbq, fbq, sbc, fbc, sbn, fbn = map(float, sys.argv[3:9])
sbu, fbu = sbc / sbn * 1e6, fbc / fbn * 1e6
print(f"{case:<24} {th:>7} {sbq:12.1f} {fbq:12.1f} {fbq/sbq:8.2f}x {sbu:14.2f} {fbu:14.2f} {fbu/sbu:8.2f}x")
PY
	done
done
echo
echo "qps_x: fairbench QPS / sysbench QPS (target >= 1.0); cpu_x: fairbench client CPU per query / sysbench's (target <= 1.0)"
echo "logs and fairbench results in $OUT/"
drop_db
