#!/usr/bin/env bash
# fairbench vs go-tpc (pingcap/go-tpc v1.0.12, the engine of `tiup bench tpcc`) on the
# same MariaDB. Not a test: it prints measured figures and ratios.
#   - load time for 2 and 4 warehouses (each tool loads its own database, no check)
#   - tpmC for 2 warehouses at 4 and 16 threads over the same duration
#   - consistency check time for 2 warehouses (go-tpc's takes many minutes here)
#
#   bench/vs-go-tpc.sh
#   TIME=60 LOAD_THREADS=4 SKIP_GOTPC_CHECK=1 bench/vs-go-tpc.sh
#
# go-tpc is built from its Go module copy (go install @latest does not work offline).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

TIME=${TIME:-30}
LOAD_THREADS=${LOAD_THREADS:-4}
RUN_THREADS=${RUN_THREADS:-"4 16"}
WAREHOUSES=${WAREHOUSES:-"2 4"}
CHECK_TIMEOUT=${CHECK_TIMEOUT:-1800}
FB=${FB:-bin/fairbench}
OUT=${OUT:-bench/out}
GOTPC=${GOTPC:-$OUT/go-tpc}
mkdir -p "$OUT"

[ -x "$FB" ] || make build >/dev/null
build_gotpc "$GOTPC"

mysql_cli=(mariadb -h "$MYSQL_HOST" -P "$MYSQL_PORT" -u "$MYSQL_USER")
GT_DB=fb_vs_gotpc_g
FB_DB=fb_vs_gotpc_f
gt=("$GOTPC" tpcc -H "$MYSQL_HOST" -P "$MYSQL_PORT" -U "$MYSQL_USER" -D "$GT_DB")
fb_conn=(--mysql-host="$MYSQL_HOST" --mysql-port="$MYSQL_PORT" --mysql-user="$MYSQL_USER" --mysql-db="$FB_DB")
reset() { "${mysql_cli[@]}" -e "DROP DATABASE IF EXISTS $1; CREATE DATABASE $1"; }
now() { python3 -c 'import time; print(time.time())'; }
since() { python3 -c 'import time,sys; print(f"{time.time()-float(sys.argv[1]):.2f}")' "$1"; }
ratio() { python3 -c 'import sys; a,b=map(float,sys.argv[1:]); print(f"{a/b:.2f}x" if b else "n/a")' "$1" "$2"; }

printf '%-34s %12s %12s %10s\n' "measure" "go-tpc" "fairbench" "ratio"
for w in $WAREHOUSES; do
	reset $GT_DB; t=$(now); "${gt[@]}" prepare --warehouses "$w" -T "$LOAD_THREADS" --no-check >"$OUT/gotpc-prepare-$w.log" 2>&1; g=$(since "$t")
	reset $FB_DB; t=$(now); "$FB" prepare tpcc "${fb_conn[@]}" --warehouses="$w" --threads="$LOAD_THREADS" --no-check >"$OUT/fb-tpcc-prepare-$w.log" 2>&1; f=$(since "$t")
	printf '%-34s %11ss %11ss %10s\n' "load $w warehouses (s, speed-up)" "$g" "$f" "$(ratio "$g" "$f")"
done

# Runs on 2 warehouses: reload both so each starts from fresh data.
reset $GT_DB; "${gt[@]}" prepare --warehouses 2 -T "$LOAD_THREADS" --no-check >/dev/null 2>&1
reset $FB_DB; "$FB" prepare tpcc "${fb_conn[@]}" --warehouses=2 --threads="$LOAD_THREADS" --no-check >/dev/null 2>&1
for th in $RUN_THREADS; do
	"${gt[@]}" run --warehouses 2 -T "$th" --time "${TIME}s" --interval "${TIME}s" >"$OUT/gotpc-run-$th.log" 2>&1 || true
	g=$(grep -o 'tpmC: [0-9.]*' "$OUT/gotpc-run-$th.log" | tail -1 | awk '{print $2}')
	"$FB" run tpcc "${fb_conn[@]}" --threads="$th" --time="$TIME" --output "$OUT/fb-tpcc-$th.json" >"$OUT/fb-tpcc-run-$th.log" 2>&1
	f=$(awk '/^tpmC:/{print $2}' "$OUT/fb-tpcc-run-$th.log")
	printf '%-34s %12s %12s %10s\n' "tpmC, 2 wh, $th threads" "$g" "$f" "$(ratio "$f" "$g")"
done

# Check time on freshly loaded data (conditions hold there for both tools).
reset $FB_DB; "$FB" prepare tpcc "${fb_conn[@]}" --warehouses=2 --threads="$LOAD_THREADS" --no-check >/dev/null 2>&1
t=$(now); "$FB" check tpcc "${fb_conn[@]}" --check-all >"$OUT/fb-tpcc-check.log" 2>&1; f=$(since "$t")
if [ -n "${SKIP_GOTPC_CHECK:-}" ]; then
	printf '%-34s %12s %11ss %10s\n' "check 2 warehouses (s)" "skipped" "$f" "-"
else
	reset $GT_DB; "${gt[@]}" prepare --warehouses 2 -T "$LOAD_THREADS" --no-check >/dev/null 2>&1
	t=$(now)
	if timeout "$CHECK_TIMEOUT" "${gt[@]}" check --warehouses 2 >"$OUT/gotpc-check.log" 2>&1; then
		g=$(since "$t")
	else
		g=">$CHECK_TIMEOUT"
	fi
	printf '%-34s %11ss %11ss %10s\n' "check 2 warehouses (s, speed-up)" "$g" "$f" "$(ratio "${g#>}" "$f")"
fi
echo
echo "targets: load >= 2x faster, tpmC >= 1.0x, check >= 50x faster; logs in $OUT/"
"${mysql_cli[@]}" -e "DROP DATABASE IF EXISTS $GT_DB; DROP DATABASE IF EXISTS $FB_DB"
