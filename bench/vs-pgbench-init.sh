#!/usr/bin/env bash
# `fairbench pgbench -i` (the drop-in) vs real pgbench -i on the same
# PostgreSQL database. Not a test: it prints measured
# figures and ratios. For each scale and each generation mode (client-side
# -I dtgvp, server-side -I dtGvp) it runs both tools alternately, PAIRS times
# (which goes first alternates too), reads each run's pgbench-style "done in"
# line, and prints per step the median seconds of each tool and the speed
# ratio pgbench/fairbench (above 1: fairbench is faster). The target is
# ratio >= 1.0 for the client-side generate step.
#
#   bench/vs-pgbench-init.sh                    # defaults below
#   SCALES="10 50" PAIRS=5 bench/vs-pgbench-init.sh
#
# Needs: pgbench and psql (postgresql-client), python3, Go, and a PostgreSQL
# reachable as postgres with trust auth on 127.0.0.1:5432
# (PGSQL_HOST/PGSQL_PORT/PGSQL_USER).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

SCALES=${SCALES:-10}
PAIRS=${PAIRS:-3}
MODES=${MODES:-"dtgvp dtGvp"}
DB=${DB:-fairbench_vs_pgbench_init}
OUT=${OUT:-bench/out}
PGBENCH=${PGBENCH:-pgbench}
FB=${FB:-bin/fairbench}

command -v "$PGBENCH" >/dev/null || { echo "pgbench not found: apt-get install postgresql-client" >&2; exit 1; }
mkdir -p "$OUT"
[ -x "$FB" ] || make build >/dev/null

psql_admin() { psql -h "$PGSQL_HOST" -p "$PGSQL_PORT" -U "$PGSQL_USER" -d postgres -qXc "$1" >/dev/null; }
psql_admin "DROP DATABASE IF EXISTS $DB"
psql_admin "CREATE DATABASE $DB"
trap 'psql_admin "DROP DATABASE IF EXISTS $DB"' EXIT

run_pgbench() { # LOG SCALE STEPS
	"$PGBENCH" -i -h "$PGSQL_HOST" -p "$PGSQL_PORT" -U "$PGSQL_USER" -s "$2" -I "$3" "$DB" >"$1" 2>&1
}
run_fairbench() { # LOG SCALE STEPS
	"$FB" pgbench -i -h "$PGSQL_HOST" -p "$PGSQL_PORT" -U "$PGSQL_USER" -s "$2" -I "$3" "$DB" >"$1" 2>&1
}
# done_line LOG: the run's "done in ..." line, or fail with the log.
done_line() { grep -m1 '^done in ' "$1" || { echo "no 'done in' line in $1:" >&2; cat "$1" >&2; exit 1; }; }

results=$OUT/vs-pgbench-init.tsv
: >"$results"
for scale in $SCALES; do
	for steps in $MODES; do
		for pair in $(seq "$PAIRS"); do
			order="pgbench fairbench"
			[ $((pair % 2)) -eq 0 ] && order="fairbench pgbench"
			for tool in $order; do
				log=$OUT/pgbench-init-$tool-s$scale-$steps-$pair.log
				"run_$tool" "$log" "$scale" "$steps"
				printf '%s\t%s\t%s\t%s\t%s\n' "$scale" "$steps" "$tool" "$pair" "$(done_line "$log")" >>"$results"
				echo "scale $scale -I $steps pair $pair $tool: $(done_line "$log")" >&2
			done
		done
	done
done

"$PYTHON" - "$results" <<'PY'
import re, statistics, sys
from collections import defaultdict
runs = defaultdict(lambda: defaultdict(list))  # (scale, steps) -> (tool, step) -> seconds
for line in open(sys.argv[1]):
    scale, steps, tool, _, done = line.rstrip("\n").split("\t", 4)
    m = re.match(r"done in ([0-9.]+) s \((.*)\)\.$", done)
    runs[(scale, steps)][(tool, "total")].append(float(m.group(1)))
    for part in m.group(2).split(", "):
        name, secs, _ = part.rsplit(" ", 2)
        runs[(scale, steps)][(tool, name)].append(float(secs))
for (scale, steps), r in runs.items():
    print(f"scale {scale}, -I {steps}: median seconds over {len(r[('pgbench', 'total')])} pairs")
    print(f"  {'step':22} {'pgbench':>8} {'fairbench':>10} {'speed ratio':>12}")
    for name in [n for (t, n) in r if t == "pgbench"]:
        pg, fb = statistics.median(r[("pgbench", name)]), statistics.median(r[("fairbench", name)])
        ratio = f"{pg / fb:.2f}x" if pg > 0 and fb > 0 else "-"
        print(f"  {name:22} {pg:8.2f} {fb:10.2f} {ratio:>12}")
PY
