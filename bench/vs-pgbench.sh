#!/usr/bin/env bash
# fairbench's pgbench drop-in (`fairbench pgbench …`) against pgbench on the
# same PostgreSQL database, in every cell of issue 34's table: transport (Unix
# socket, TCP) x query mode (-M prepared, simple) x script (select-only -S,
# tpcb-like) x clients (1, 4, 16). Not a test: it prints measured figures.
#
# Each cell runs ROUNDS alternating pairs (the order swapping each round) of
# the same command line given to both tools, and reports the medians over the
# pairs of the tps ratio (fairbench/pgbench, "tps = N (without initial
# connection time)") and of the ratio of client CPU per transaction
# (user+system seconds of the whole client process over the transactions it
# processed), with the median 1-minute load average: the machine may be
# shared, so only ratios of neighbouring runs mean anything. Loading is
# bench/vs-pgbench-init.sh's.
#
#   bench/vs-pgbench.sh                                          # everything: 10 s runs, 5 pairs
#   TIME=3 ROUNDS=2 CLIENTS=4 MODES=prepared TRANSPORTS=socket SCRIPTS=select-only bench/vs-pgbench.sh
#
# Knobs: TIME ROUNDS CLIENTS MODES ("prepared simple") TRANSPORTS ("socket tcp")
# SCRIPTS ("select-only tpcb-like") SCALE (the runs' data set, 10), the
# server as PGSQL_* in bench/lib.sh, DB, FB, OUT. Needs pgbench and python3.
# Targets (issue 34): tps_x >= 1.0 and cpu_x <= 1.0 in every cell. cs/tx is
# fairbench's context switches per transaction and cs_x the ratio to
# pgbench's: counts that move little with the machine's load, so they show a
# change of the client's path where the CPU ratios drown in noise.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

TIME=${TIME:-10}
ROUNDS=${ROUNDS:-5}
CLIENTS=${CLIENTS:-"1 4 16"}
MODES=${MODES:-"prepared simple"}
TRANSPORTS=${TRANSPORTS:-"socket tcp"}
SCRIPTS=${SCRIPTS:-"select-only tpcb-like"}
SCALE=${SCALE:-10}
DB=${DB:-fb_vs_pgbench}
FB=${FB:-bin/fairbench}
OUT=${OUT:-bench/out}
mkdir -p "$OUT"
# The drop-in keeps each run's result: here, beside the logs.
export FAIRBENCH_RESULTS=${FAIRBENCH_RESULTS:-$OUT/results}
[ -x "$FB" ] || make build >/dev/null

psql_cli=(psql -X -q -h "$PGSQL_SOCKET_DIR" -p "$PGSQL_PORT" -U "$PGSQL_USER" -d postgres)
"${psql_cli[@]}" -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
trap '"${psql_cli[@]}" -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true' EXIT

host_of() { if [ "$1" = socket ]; then echo "$PGSQL_SOCKET_DIR"; else echo "$PGSQL_HOST"; fi; }
# tps_of LOG / txns_of LOG: pgbench's summary lines, the same in both tools' output.
tps_of() { awk '/^tps = /{print $3; exit}' "$1"; }
txns_of() { awk '/number of transactions actually processed:/{print $NF; exit}' "$1"; }
load1() { cut -d' ' -f1 /proc/loadavg; }
median() { "$PYTHON" -c 'import statistics,sys; v=[float(x) for x in sys.argv[1:]]; print(f"{statistics.median(v):.2f}" if v else "n/a")' "$@"; }
div() { "$PYTHON" -c 'import sys; a,b=map(float,sys.argv[1:]); print(f"{a/b:.4f}" if b else "0")' "$1" "$2"; }

pgbench -i -q -s "$SCALE" -h "$PGSQL_SOCKET_DIR" -p "$PGSQL_PORT" -U "$PGSQL_USER" "$DB" >"$OUT/pgbench-init.log" 2>&1

export MEASURE_CS=1
printf '%-40s %8s %8s %6s %6s %6s %5s %5s\n' "cell (transport mode script clients)" "pg_tps" "fb_tps" "tps_x" "cpu_x" "cs/tx" "cs_x" "load"
for tr in $TRANSPORTS; do
	for mode in $MODES; do
		for script in $SCRIPTS; do
			for c in $CLIENTS; do
				j=$(( c < 4 ? c : 4 ))
				args=(-n -c "$c" -j "$j" -T "$TIME" -M "$mode" -h "$(host_of "$tr")" -p "$PGSQL_PORT" -U "$PGSQL_USER")
				[ "$script" = select-only ] && args+=(-S)
				tx=() cx=() pgt=() fbt=() loads=() csf=() csx=()
				for r in $(seq "$ROUNDS"); do
					order="pg fb"; [ $((r % 2)) -eq 0 ] && order="fb pg"
					for who in $order; do
						log="$OUT/vs-pgbench-$tr-$mode-$script-$c-$who.log"
						if [ "$who" = pg ]; then
							out=$(measure "$log" pgbench "${args[@]}" "$DB") || { echo "pgbench failed: $log" >&2; cat "$log" >&2; exit 1; }
						else
							out=$(measure "$log" "$FB" pgbench "${args[@]}" "$DB") || { echo "fairbench failed: $log" >&2; cat "$log" >&2; exit 1; }
						fi
						read -r _ cpu cs <<<"$out"
						eval "${who}_tps=\$(tps_of \"\$log\") ${who}_cpu=$cpu ${who}_cs=$cs ${who}_txns=\$(txns_of \"\$log\")"
					done
					loads+=("$(load1)")
					pgt+=("$pg_tps") fbt+=("$fb_tps")
					tx+=("$(div "$fb_tps" "$pg_tps")")
					cx+=("$("$PYTHON" -c 'import sys; fc,ft,pc,pt=map(float,sys.argv[1:]); print((fc/ft)/(pc/pt) if ft and pt and pc else 0)' "$fb_cpu" "$fb_txns" "$pg_cpu" "$pg_txns")")
					csf+=("$(div "$fb_cs" "$fb_txns")")
					csx+=("$("$PYTHON" -c 'import sys; fc,ft,pc,pt=map(float,sys.argv[1:]); print((fc/ft)/(pc/pt) if ft and pt and pc else 0)' "$fb_cs" "$fb_txns" "$pg_cs" "$pg_txns")")
				done
				printf '%-40s %8s %8s %6s %6s %6s %5s %5s\n' "$tr $mode $script $c" "$(median "${pgt[@]}")" "$(median "${fbt[@]}")" \
					"$(median "${tx[@]}")" "$(median "${cx[@]}")" "$(median "${csf[@]}")" "$(median "${csx[@]}")" "$(median "${loads[@]}")"
			done
		done
	done
done

echo
echo "tps_x = fairbench/pgbench tps; cpu_x = fairbench/pgbench client CPU per transaction"
echo "targets: tps_x >= 1.0, cpu_x <= 1.0; logs in $OUT/ (loading: bench/vs-pgbench-init.sh)"
