# Shared helpers of the bench/ scripts (sourced, not run).

# qps_of LOG / queries_of LOG: the "queries: N (Q per sec.)" summary line,
# the same in sysbench's and fairbench's output.
qps_of() { awk '/^ *queries: /{gsub(/[()]/,""); print $3; exit}' "$1"; }
queries_of() { awk '/^ *queries: /{print $2; exit}' "$1"; }
# events_of LOG: the "total number of events: N" summary line, the same in both.
events_of() { awk '/total number of events:/{print $NF; exit}' "$1"; }

# proc_ticks PID: user+system clock ticks of a process so far (/proc/PID/stat).
proc_ticks() { awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }

# start_agent FAIRBENCH OUT ERR ARGS...: starts `FAIRBENCH agent ARGS...` in the
# background with its output in OUT and ERR, and sets agent (its pid) and url
# (the address it printed); exits 1 with its errors when it does not start.
start_agent() {
	local fb=$1 out=$2 err=$3
	shift 3
	"$fb" agent "$@" >"$out" 2>"$err" &
	agent=$!
	url=""
	for _ in $(seq 100); do
		url=$(grep -o 'http://[0-9.:]*' "$out" || true)
		[ -n "$url" ] && return 0
		sleep 0.1
	done
	echo "$(basename "$0"): the agent did not start:" >&2
	cat "$err" >&2
	exit 1
}

# PYTHON is the interpreter itself, not a wrapper that finds it: pyenv's shim
# (python3 here) runs processes of its own, ~0.1 s, at every call.
PYTHON=${PYTHON:-$(python3 -c 'import sys; print(sys.executable)')}

# measure LOG CMD...: runs CMD with output to LOG and prints "WALL CPU": the
# seconds from CMD's start to its exit, taken by the process that starts it
# (so no interpreter's start-up counts), and its user+system CPU seconds (a
# difference of RUSAGE_CHILDREN around the run). Exits as CMD did. With
# MEASURE_CS=1 it prints a third field, the context switches of CMD's
# threads (voluntary + involuntary): a count that, unlike CPU time, hardly
# moves with the load of a shared machine.
measure() {
	local log=$1; shift
	"$PYTHON" - "$log" "$@" <<'PY'
import os, resource, subprocess, sys, time
log = sys.argv[1]
with open(log, "w") as f:
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    rc = subprocess.run(sys.argv[2:], stdout=f, stderr=subprocess.STDOUT).returncode
    t = time.monotonic() - t0
r = resource.getrusage(resource.RUSAGE_CHILDREN)
line = f"{t:.3f} {r.ru_utime + r.ru_stime - r0.ru_utime - r0.ru_stime:.3f}"
if os.environ.get("MEASURE_CS") == "1":
    line += f" {r.ru_nvcsw + r.ru_nivcsw - r0.ru_nvcsw - r0.ru_nivcsw}"
print(line)
sys.exit(rc)
PY
}

# cpu_of LOG CMD...: runs CMD with output to LOG and prints its user+system CPU
# seconds (see measure). Until this was a difference of RUSAGE_CHILDREN, the
# processes pyenv's shim ran before it became python (~0.08 s) were added to
# both sides of every pair.
cpu_of() {
	local out rc=0
	out=$(measure "$@") || rc=$?
	echo "${out#* }"
	return $rc
}

# server_cpu DRIVER (mysql or pgsql): the local server's user+system CPU
# seconds so far, read from /proc: every mariadbd/mysqld or postgres process,
# plus what PostgreSQL's postmaster collected from the backends it reaped
# (cutime+cstime: a finished connection's CPU moves there). Prints "-" when no
# such process runs on this machine (a remote server).
server_cpu() {
	"$PYTHON" - "$1" <<'PY'
import os, sys
names = {"mysql": ("mariadbd", "mysqld"), "pgsql": ("postgres",)}[sys.argv[1]]
total, found = 0, False
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        with open(f"/proc/{pid}/stat") as f:
            st = f.read()
    except OSError:
        continue
    if st[st.index("(") + 1:st.rindex(")")] not in names:
        continue
    utime, stime, cutime, cstime = map(int, st[st.rindex(")") + 2:].split()[11:15])
    total += utime + stime + cutime + cstime
    found = True
print(f"{total / os.sysconf('SC_CLK_TCK'):.2f}" if found else "-")
PY
}

# build_gotpc PATH: builds go-tpc v1.0.12 (the engine of `tiup bench tpcc`) at
# PATH, relative to the repository root, from its Go module copy (go install
# @latest does not work offline), unless PATH is already there.
build_gotpc() {
	[ -x "$1" ] && return 0
	echo "building go-tpc v1.0.12 from its module copy..." >&2
	local dir
	dir=$(go mod download -json github.com/pingcap/go-tpc@v1.0.12 | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
	mkdir -p "$(dirname "$1")"
	(cd "$dir" && GOFLAGS=-mod=mod go build -o "$OLDPWD/$1" ./cmd/go-tpc)
}

# The shared servers the comparison scripts reach, unless the environment names others.
MYSQL_HOST=${MYSQL_HOST:-127.0.0.1}
MYSQL_PORT=${MYSQL_PORT:-3306}
MYSQL_USER=${MYSQL_USER:-root}
MYSQL_SOCKET=${MYSQL_SOCKET:-/run/mysqld/mysqld.sock}
PGSQL_HOST=${PGSQL_HOST:-127.0.0.1}
PGSQL_PORT=${PGSQL_PORT:-5432}
PGSQL_USER=${PGSQL_USER:-postgres}
PGSQL_SOCKET_DIR=${PGSQL_SOCKET_DIR:-/var/run/postgresql}
