#!/usr/bin/env bash
# fairbench vs sysbench with --mysql-dry-run: no server, so the figures are the
# clients' own cost. Not a test: it prints measured figures and ratios. For each
# case and thread count it runs the same sysbench command line ROUNDS times with
# sysbench and with fairbench in front, alternately (sysbench first in odd
# rounds, fairbench first in even ones, so that a drift of the machine falls on
# both), and prints each pair's events/s and client CPU per event, then the
# median of the pairs' ratios.
#
#   bench/dry-run.sh                          # defaults below
#   TIME=3 ROUNDS=3 THREADS="1 4" bench/dry-run.sh
#
# Needs: sysbench (Debian package) and python3; no database server.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

TIME=${TIME:-10}
ROUNDS=${ROUNDS:-3}
THREADS=${THREADS:-"1 4"}
CASES=${CASES:-"oltp_point_select oltp_read_write"}
FB=${FB:-bin/fairbench}
OUT=${OUT:-bench/out/dry-run}

command -v sysbench >/dev/null || { echo "sysbench not found: apt-get install sysbench" >&2; exit 1; }
[ -x "$FB" ] || make build >/dev/null
mkdir -p "$OUT"

echo "== --mysql-dry-run, ${TIME}s per run, $ROUNDS alternating pairs per row; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-18s %7s %5s %12s %12s %8s %13s %13s %8s\n' case threads round sb_ev/s fb_ev/s ev_x sb_cpu_us/ev fb_cpu_us/ev cpu_x
summary=()
for case in $CASES; do
	for th in $THREADS; do
		# One command line for both, sysbench's order, as a script holds it.
		line=("$case" --db-driver=mysql --mysql-dry-run --threads="$th" --time="$TIME" --rand-type=uniform --rand-seed=1 run)
		pairs=()
		for round in $(seq "$ROUNDS"); do
			order="sysbench fairbench"
			[ $((round % 2)) -eq 0 ] && order="fairbench sysbench"
			for tool in $order; do
				log="$OUT/$case-$th-$round-$tool.log"
				if [ "$tool" = sysbench ]; then
					sb_cpu=$(cpu_of "$log" sysbench "${line[@]}")
				else
					fb_cpu=$(cpu_of "$log" "$FB" "${line[@]}")
				fi
			done
			pair=$(python3 - "$TIME" "$(events_of "$OUT/$case-$th-$round-sysbench.log")" "$(events_of "$OUT/$case-$th-$round-fairbench.log")" "$sb_cpu" "$fb_cpu" <<'PY'
import sys
t, sbn, fbn, sbc, fbc = map(float, sys.argv[1:6])
print(sbn / t, fbn / t, sbc / sbn * 1e6, fbc / fbn * 1e6)
PY
)
			pairs+=("$pair")
			read -r sbe fbe sbu fbu <<<"$pair"
			python3 -c 'import sys; c,th,r=sys.argv[1:4]; a,b,x,y=map(float,sys.argv[4:8]); print(f"{c:<18} {th:>7} {r:>5} {a:12.0f} {b:12.0f} {b/a:7.2f}x {x:13.3f} {y:13.3f} {y/x:7.2f}x")' \
				"$case" "$th" "$round" "$sbe" "$fbe" "$sbu" "$fbu"
		done
		summary+=("$(python3 - "$case" "$th" "${pairs[@]}" <<'PY'
import statistics, sys
case, th = sys.argv[1], sys.argv[2]
rows = [list(map(float, p.split())) for p in sys.argv[3:]]
ev = statistics.median(r[1] / r[0] for r in rows)
cpu = statistics.median(r[3] / r[2] for r in rows)
print(f"{case:<18} {th:>7}   events/s fairbench/sysbench {ev:5.2f}x   client CPU per event fairbench/sysbench {cpu:5.2f}x")
PY
)")
	done
done
echo
echo "== median of the pairs' ratios (ev_x: fairbench/sysbench events/s, higher is better; cpu_x: client CPU per event, lower is better)"
printf '%s\n' "${summary[@]}"
echo "logs in $OUT/"
