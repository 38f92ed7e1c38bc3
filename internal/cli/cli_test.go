package cli

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/fairbench/fairbench/internal/base/syncbuf"
	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/open"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/testing/testdb"
	"github.com/fairbench/fairbench/internal/workload/oltp"
)

type cliRun struct {
	code           int
	stdout, stderr string
}

func runCLI(ctx context.Context, env map[string]string, args ...string) cliRun {
	var out, errb syncbuf.Buffer
	app := &App{
		Stdout: &out, Stderr: &errb, Version: "test",
		Getenv: func(k string) string { return env[k] },
	}
	code := app.Execute(ctx, args)
	return cliRun{code: code, stdout: out.String(), stderr: errb.String()}
}

// targetArgs returns the connection flags for cfg.
func targetArgs(cfg driver.Config) []string {
	switch cfg.Kind {
	case driver.KindSQLite:
		return []string{"--sqlite-db=" + cfg.Path}
	case driver.KindMySQL:
		return []string{"--db-driver=mysql", "--mysql-host=" + cfg.Hosts[0], "--mysql-port=" + strconv.Itoa(cfg.Ports[0]),
			"--mysql-user=" + cfg.User, "--mysql-db=" + cfg.Database}
	}
	return []string{"--db-driver=pgsql", "--pgsql-host=" + cfg.Hosts[0], "--pgsql-port=" + strconv.Itoa(cfg.Ports[0]),
		"--pgsql-user=" + cfg.User, "--pgsql-db=" + cfg.Database}
}

func join(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// ownWarnings are a run's warnings but the busy machine's
// (observe.NoisyWarning), which any run may get on a shared test machine, and
// whether its human output prints one of them.
func ownWarnings(res *result.Result, stdout string) ([]string, bool) {
	busy := func(w string) bool { return strings.HasPrefix(w, "other processes used ") }
	var own []string
	for _, w := range res.Warnings {
		if !busy(w) {
			own = append(own, w)
		}
	}
	printed := false
	for _, line := range strings.Split(stdout, "\n") {
		if w, ok := strings.CutPrefix(line, "WARNING: "); ok && !busy(w) || !ok && strings.Contains(line, "WARNING") {
			printed = true
		}
	}
	return own, printed
}

func readResult(t *testing.T, path string) *result.Result {
	t.Helper()
	r, err := result.Read(path)
	if err != nil {
		t.Fatalf("reading result %s: %v", path, err)
	}
	return r
}

func TestBadInput(t *testing.T) {
	my := testdb.MySQL(t)
	sqlitePath := filepath.Join(t.TempDir(), "x.db")
	cases := []struct {
		name     string
		args     []string
		env      map[string]string
		code     int
		contains []string
		absent   []string
	}{
		{"unknown workload", []string{"run", "oltp_nonsense"}, nil, ExitUsage,
			[]string{`unknown workload "oltp_nonsense"`, "fairbench list"}, nil},
		{"unknown workload with flags", []string{"run", "oltp_nonsense", "--threads=4", "--time", "5", "--mysql-host=db1"}, nil, ExitUsage,
			[]string{`unknown workload "oltp_nonsense"`, "oltp_point_select"}, []string{"unknown flag"}},
		{"unknown workload to prepare with flags", []string{"prepare", "--tables=2", "oltp_nonsense"}, nil, ExitUsage,
			[]string{`unknown workload "oltp_nonsense"`, "oltp_point_select"}, []string{"unknown flag"}},
		{"flags but no workload", []string{"run", "--threads=4"}, nil, ExitUsage,
			[]string{"run needs a workload", "oltp_point_select"}, []string{"unknown flag"}},
		{"no workload", []string{"prepare"}, nil, ExitUsage, []string{"prepare needs a workload"}, nil},
		{"bad flag value", []string{"run", "oltp_point_select", "--threads=many"}, nil, ExitUsage,
			[]string{"--threads", "many"}, nil},
		{"unknown flag", []string{"run", "oltp_point_select", "--thread=4"}, nil, ExitUsage,
			[]string{"unknown flag --thread; did you mean --threads?"}, nil},
		{"zero threads", []string{"run", "oltp_point_select", "--threads=0", "--sqlite-db=" + sqlitePath}, nil, ExitUsage,
			[]string{"--threads=0: give 1 to 65536 threads"}, nil},
		// Counts are bounded before anything is sized by them (issue 14:
		// --threads=6148914691236517206 panicked in makeslice, a huge prepare
		// --threads spun, --time=MaxInt64 said "must not be negative").
		{"huge run threads", []string{"run", "oltp_point_select", "--threads=6148914691236517206", "--sqlite-db=" + sqlitePath}, nil, ExitUsage,
			[]string{"--threads=6148914691236517206: give 1 to 65536 threads"}, []string{"panic", "ulimit"}},
		{"threads just above the bound", []string{"run", "oltp_point_select", "--threads=65537", "--sqlite-db=" + sqlitePath}, nil, ExitUsage,
			[]string{"--threads=65537: give 1 to 65536 threads"}, nil},
		{"huge prepare threads", []string{"prepare", "oltp_point_select", "--threads=9223372036854775807", "--sqlite-db=" + sqlitePath}, nil, ExitUsage,
			[]string{"--threads=9223372036854775807: give 1 to 65536 threads"}, nil},
		{"huge check threads", []string{"check", "tpcc", "--threads=100000", "--sqlite-db=" + sqlitePath}, nil, ExitUsage,
			[]string{"--threads=100000: give 1 to 65536 threads"}, nil},
		{"huge warmup threads", []string{"warmup", "oltp_point_select", "--threads=100000", "--sqlite-db=" + sqlitePath}, nil, ExitUsage,
			[]string{"--threads=100000: give 1 to 65536 threads"}, nil},
		{"huge time", []string{"run", "oltp_point_select", "--time=9223372036854775807", "--sqlite-db=" + sqlitePath}, nil, ExitUsage,
			[]string{`--time: duration 9223372036854775807 s is longer than 30 days: give at most 2592000 seconds`}, []string{"must not be negative"}},
		{"negative time", []string{"run", "oltp_point_select", "--time=-1", "--sqlite-db=" + sqlitePath}, nil, ExitUsage,
			[]string{`--time: duration -1 is negative`}, nil},
		{"huge warm-up time", []string{"run", "oltp_point_select", "--warmup-time=2592001", "--sqlite-db=" + sqlitePath}, nil, ExitUsage,
			[]string{`--warmup-time: duration 2592001 s is longer than 30 days`}, nil},
		{"huge events", []string{"run", "oltp_point_select", "--events=1000000000001", "--sqlite-db=" + sqlitePath}, nil, ExitUsage,
			[]string{"--events=1000000000001: give 0 to 1000000000000 events"}, nil},
		{"huge report interval", []string{"run", "oltp_point_select", "--report-interval=1e300", "--sqlite-db=" + sqlitePath}, nil, ExitUsage,
			[]string{"--report-interval=1e+300: give 0 (only the summary) to 2592000 seconds"}, nil},
		{"huge clients", []string{"run", "oltp_point_select", "--clients=9223372036854775807", "--start-at=" + strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10), "--sqlite-db=" + sqlitePath}, nil, ExitUsage,
			[]string{"--clients=9223372036854775807: give 1 to 1024 coordinated clients"}, nil},
		{"NaN rate", []string{"run", "oltp_point_select", "--rate=NaN", "--sqlite-db=" + sqlitePath}, nil, ExitUsage,
			[]string{"--rate=NaN: give 0 (as fast as possible) to 1e+09 events per second"}, nil},
		{"infinite rate", []string{"run", "oltp_point_select", "--rate=Inf", "--sqlite-db=" + sqlitePath}, nil, ExitUsage,
			[]string{"--rate=+Inf: give 0"}, nil},
		{"huge tables", []string{"prepare", "oltp_point_select", "--tables=100000000", "--sqlite-db=" + sqlitePath}, nil, ExitUsage,
			[]string{"--tables=100000000: use 1 to 65536 tables"}, nil},
		{"table size past the id column", []string{"run", "oltp_point_select", "--table-size=2147483648", "--sqlite-db=" + sqlitePath}, nil, ExitUsage,
			[]string{"--table-size=2147483648", "at most 2147483647"}, nil},
		{"huge warehouses", []string{"prepare", "tpcc", "--warehouses=100001", "--sqlite-db=" + sqlitePath}, nil, ExitUsage,
			[]string{"--warehouses=100001: use 1 to 100000"}, nil},
		{"bad distribution", []string{"run", "oltp_point_select", "--rand-type=normal", "--sqlite-db=" + sqlitePath}, nil, ExitUsage,
			[]string{`--rand-type "normal"`}, nil},
		{"bad percentile", []string{"run", "oltp_point_select", "--percentile=101", "--sqlite-db=" + sqlitePath}, nil, ExitUsage,
			[]string{"--percentile"}, nil},
		{"empty percentile", []string{"run", "oltp_point_select", "--percentile=50,,99", "--sqlite-db=" + sqlitePath}, nil, ExitUsage,
			[]string{"--percentile=50,,99", "element 2 of 3 is empty"}, nil},
		{"reconnect timeout not a duration", []string{"run", "oltp_point_select", "--reconnect-timeout=soon", "--sqlite-db=" + sqlitePath}, nil, ExitUsage,
			[]string{`"soon" is not a duration`, "--reconnect-timeout"}, nil},
		{"zero reconnect timeout", []string{"run", "oltp_point_select", "--reconnect-timeout=0", "--sqlite-db=" + sqlitePath}, nil, ExitUsage,
			[]string{"--reconnect-timeout must be more than 0"}, nil},
		{"huge reconnect timeout", []string{"run", "oltp_point_select", "--reconnect-timeout=1e30", "--sqlite-db=" + sqlitePath}, nil, ExitUsage,
			[]string{"--reconnect-timeout", "longer than 30 days"}, nil},
		{"unknown driver", []string{"run", "oltp_point_select", "--db-driver=oracle"}, nil, ExitUsage,
			[]string{`unknown --db-driver "oracle"`}, nil},
		{"both protocols", []string{"run", "oltp_point_select", "--mysql-host=a", "--pgsql-host=b"}, nil, ExitUsage,
			[]string{"choose one with --db-driver"}, nil},
		{"bad table size", []string{"run", "oltp_point_select", "--table-size=0", "--sqlite-db=" + sqlitePath}, nil, ExitUsage,
			[]string{"--table-size"}, nil},
		{"profile below a regular file", []string{"run", "oltp_point_select", "--mem-profile=cli_test.go/m.prof", "--sqlite-db=" + sqlitePath}, nil, ExitUsage,
			[]string{"--mem-profile", "not a directory"}, nil},
		// Codes no error of the driver carries never match: refused before connecting.
		{"unknown MySQL error code", []string{"run", "oltp_point_select", "--mysql-host=127.0.0.1", "--mysql-port=1", "--mysql-ignore-errors=1213,deadlock"}, nil, ExitUsage,
			[]string{`--mysql-ignore-errors=1213,deadlock: "DEADLOCK" is not a MySQL error number`, "or all, or none"}, []string{"cannot connect"}},
		{"SQLSTATE for PostgreSQL", []string{"run", "oltp_point_select", "--pgsql-host=127.0.0.1", "--pgsql-port=1", "--pgsql-ignore-errors=1213"}, nil, ExitUsage,
			[]string{`--pgsql-ignore-errors=1213: "1213" is not a PostgreSQL SQLSTATE`}, []string{"cannot connect"}},
		{"unknown SQLite error code", []string{"run", "oltp_point_select", "--sqlite-ignore-errors=SQLITE_BUZY", "--sqlite-db=" + sqlitePath}, nil, ExitUsage,
			[]string{`--sqlite-ignore-errors=SQLITE_BUZY: "SQLITE_BUZY" is not an SQLite result code name`}, nil},
		{"unreachable server", []string{"run", "oltp_point_select", "--mysql-host=127.0.0.1", "--mysql-port=1", "--mysql-user=root"}, nil, ExitTarget,
			[]string{"cannot connect to mysql://root@127.0.0.1:1/sbtest", "check --mysql-host"}, nil},
		{"wrong password", join([]string{"run", "oltp_point_select"}, targetArgs(my), []string{"--mysql-password=Wr0ngSecret"}), nil, ExitTarget,
			[]string{"cannot connect", "ccess denied"}, []string{"Wr0ngSecret"}},
		{"wrong password from env", join([]string{"run", "oltp_point_select"}, targetArgs(my)), map[string]string{"MYSQL_PWD": "EnvSecret9"}, ExitTarget,
			[]string{"cannot connect"}, []string{"EnvSecret9"}},
		{"check on missing tables", join([]string{"check", "tpcc"}, targetArgs(my)), nil, ExitTarget,
			[]string{"the tpcc tables are missing", "fairbench prepare tpcc"}, []string{"1146", "SELECT"}},
		{"check on missing tables in SQLite", []string{"check", "tpcc", "--sqlite-db=" + sqlitePath}, nil, ExitTarget,
			[]string{"the tpcc tables are missing", "fairbench prepare tpcc"}, []string{"no such table", "SELECT"}},
		{"missing tables on a server", join([]string{"run", "oltp_read_write", "--tables=2"}, targetArgs(my)), nil, ExitTarget,
			[]string{"lacks table(s) sbtest1, sbtest2", "fairbench prepare oltp_read_write", "--tables=2"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(context.Background(), tc.env, tc.args...)
			if r.code != tc.code {
				t.Fatalf("exit code %d, want %d\nstdout: %s\nstderr: %s", r.code, tc.code, r.stdout, r.stderr)
			}
			all := r.stdout + r.stderr
			for _, want := range tc.contains {
				if !strings.Contains(all, want) {
					t.Errorf("output lacks %q:\n%s", want, all)
				}
			}
			for _, bad := range tc.absent {
				if strings.Contains(all, bad) {
					t.Errorf("output shows secret %q:\n%s", bad, all)
				}
			}
		})
	}
}

func TestListAndVersion(t *testing.T) {
	r := runCLI(context.Background(), nil, "list")
	if r.code != ExitOK {
		t.Fatalf("list exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"oltp_point_select", "oltp_read_write", "oltp_delete", "--table-size", "10000", "--range-size"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("list lacks %q", want)
		}
	}
	r = runCLI(context.Background(), nil, "version")
	if r.code != ExitOK || !strings.HasPrefix(r.stdout, "fairbench test") {
		t.Fatalf("version: %d %q", r.code, r.stdout)
	}
	r = runCLI(context.Background(), nil, "run", "oltp_read_write", "--help")
	for _, want := range []string{"oltp_read_write options:", "Run length and load:", "Connection options:", "--mysql-host", "--warmup-time"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("help lacks %q:\n%s", want, r.stdout)
		}
	}
}

// TestCommandTreeOfAPhase: a command line that starts with a phase builds
// that phase's workload subcommands only (the others cannot be reached), the
// named workload's alone when one follows, and any other command line builds
// every phase's.
func TestCommandTreeOfAPhase(t *testing.T) {
	a := &App{Workloads: DefaultWorkloads()}
	workloads := len(a.Workloads.Names())
	for _, tc := range []struct {
		args []string
		want map[phase]int // workload subcommands per phase
	}{
		{[]string{"run", "oltp_read_write", "--threads=4"}, map[phase]int{phaseRun: 1}},
		{[]string{"run", "--threads=4", "oltp_read_write"}, map[phase]int{phaseRun: workloads}},
		{[]string{"run", "oltp_rw"}, map[phase]int{phaseRun: workloads}},
		{[]string{"prepare"}, map[phase]int{phasePrepare: workloads}},
		{[]string{"oltp_read_write", "run"}, map[phase]int{phasePrepare: workloads, phaseRun: workloads, phaseCleanup: workloads, phaseCheck: workloads, phaseWarmup: workloads}},
		{[]string{"help", "run"}, map[phase]int{phasePrepare: workloads, phaseRun: workloads, phaseCleanup: workloads, phaseCheck: workloads, phaseWarmup: workloads}},
	} {
		root := a.commandTree(tc.args)
		for _, p := range phases {
			cmd, _, err := root.Find([]string{string(p)})
			if err != nil || cmd.Name() != string(p) {
				t.Fatalf("%v: no %s command (%v)", tc.args, p, err)
			}
			if got := len(cmd.Commands()); got != tc.want[p] {
				t.Errorf("%v: %s has %d workload subcommands, want %d", tc.args, p, got, tc.want[p])
			}
		}
	}
}

// TestEveryWorkloadOnEveryTarget prepares, runs and cleans up each workload through
// the CLI on MariaDB, PostgreSQL and SQLite.
func TestEveryWorkloadOnEveryTarget(t *testing.T) {
	t.Parallel()
	var workloads []string
	for _, s := range oltp.Specs() {
		workloads = append(workloads, s.Name)
	}
	for kind, cfg := range testdb.All(t) {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			tgt := targetArgs(cfg)
			data := []string{"--tables=2", "--table-size=500"}
			if r := runCLI(context.Background(), nil, join([]string{"prepare", "oltp_read_write", "--threads=2"}, data, tgt)...); r.code != ExitOK {
				t.Fatalf("prepare: %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			if r := runCLI(context.Background(), nil, join([]string{"prepare", "oltp_read_write"}, data, tgt)...); r.code != ExitTarget || !strings.Contains(r.stderr, "already exists") {
				t.Fatalf("second prepare: want exit %d and 'already exists', got %d\n%s", ExitTarget, r.code, r.stderr)
			}
			for _, wl := range workloads {
				out := filepath.Join(t.TempDir(), wl+".json")
				r := runCLI(context.Background(), nil, join([]string{"run", wl, "--threads=2", "--events=40", "--time=60", "--output=" + out}, data, tgt)...)
				if r.code != ExitOK {
					t.Fatalf("%s: exit %d\n%s%s", wl, r.code, r.stdout, r.stderr)
				}
				res := readResult(t, out)
				if res.Status != result.StatusComplete || res.Totals.Counts.Events != 40 || res.Target.Driver != kind {
					t.Fatalf("%s: status %s events %d driver %s", wl, res.Status, res.Totals.Counts.Events, res.Target.Driver)
				}
				if res.Totals.Counts.Queries == 0 || res.Totals.Latency.Histogram == nil {
					t.Fatalf("%s: no queries or histogram recorded", wl)
				}
				if res.Server.Flavor == "" || res.Server.Version == "" {
					t.Fatalf("%s: server not fingerprinted: %+v", wl, res.Server)
				}
			}
			plain := filepath.Join(t.TempDir(), "plain.json")
			if r := runCLI(context.Background(), nil, join([]string{"run", "oltp_read_write", "--db-ps-mode=disable", "--events=20", "--output=" + plain}, data, tgt)...); r.code != ExitOK {
				t.Fatalf("--db-ps-mode=disable: exit %d\n%s", r.code, r.stderr)
			}
			if res := readResult(t, plain); res.Target.PSMode != "disable" || res.Totals.Counts.Reads != 14*20 {
				t.Fatalf("--db-ps-mode=disable: ps_mode %q reads %d", res.Target.PSMode, res.Totals.Counts.Reads)
			}
			if r := runCLI(context.Background(), nil, join([]string{"cleanup", "oltp_read_write"}, data, tgt)...); r.code != ExitOK || !strings.Contains(r.stdout, "sbtest2") {
				t.Fatalf("cleanup: %d\n%s%s", r.code, r.stdout, r.stderr)
			}
		})
	}
}

// TestRunOnEmbeddedDefaultPreparesAndRecords checks the quick-start path: a run on
// SQLite prepares missing tables, prints sysbench-like output, and writes a result
// whose totals add up with the warm-up and the interval series.
func TestRunOnEmbeddedDefaultPreparesAndRecords(t *testing.T) {
	t.Parallel()
	cfg := testdb.SQLite(t)
	out := filepath.Join(t.TempDir(), "r.json")
	r := runCLI(context.Background(), nil, join([]string{"run", "oltp_read_only", "--table-size=1000", "--threads=2",
		"--time=2", "--warmup-time=1", "--report-interval=1", "--rand-seed=42", "--percentile=50,99", "--output=" + out}, targetArgs(cfg))...)
	if r.code != ExitOK {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"preparing it now", "(warm-up) thds: 2 tps:", "lat (ms,99%)", "SQL statistics:",
		"transactions:", "50th percentile:", "99th percentile:", "Threads fairness:", "seed (42)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	res := readResult(t, out)
	if res.Seed != 42 || res.Warmup == nil || res.Threads != 2 || res.Machine.Arch == "" || res.Server.Flavor != "SQLite" {
		t.Fatalf("result: seed %d warmup %v threads %d arch %q flavor %q", res.Seed, res.Warmup, res.Threads, res.Machine.Arch, res.Server.Flavor)
	}
	var warm, meas int64
	for _, iv := range res.Intervals {
		if iv.Warmup {
			warm += iv.Counts.Events
		} else {
			meas += iv.Counts.Events
		}
	}
	if warm != res.Warmup.Counts.Events || meas != res.Totals.Counts.Events || meas == 0 || warm == 0 {
		t.Fatalf("intervals warm %d meas %d; phases warm %d meas %d", warm, meas, res.Warmup.Counts.Events, res.Totals.Counts.Events)
	}
	if res.Totals.Counts.Reads != 14*res.Totals.Counts.Events {
		t.Fatalf("read_only: %d reads for %d events, want 14 per event", res.Totals.Counts.Reads, res.Totals.Counts.Events)
	}
	if res.Options["rand-seed"] != "42" || res.Options["table-size"] != "1000" {
		t.Fatalf("options not recorded: %v", res.Options)
	}
}

func TestProfilesOfTheClient(t *testing.T) {
	cfg := testdb.SQLite(t)
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "mem.prof")
	r := runCLI(context.Background(), nil, join([]string{"run", "oltp_point_select", "--table-size=200", "--events=2000",
		"--cpu-profile=" + cpu, "--mem-profile=" + mem}, targetArgs(cfg))...)
	if r.code != ExitOK {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// A pprof profile is a gzipped protocol buffer whose string table names
	// its sample types.
	for path, types := range map[string][]string{cpu: {"samples", "cpu", "nanoseconds"}, mem: {"alloc_space", "inuse_space", "bytes"}} {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatalf("%s is not gzipped: %v", path, err)
		}
		b, err := io.ReadAll(zr)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, want := range types {
			if !bytes.Contains(b, []byte(want)) {
				t.Errorf("%s names no sample type %q: not a profile of that kind", path, want)
			}
		}
	}
}

func TestJSONToStdout(t *testing.T) {
	cfg := testdb.SQLite(t)
	r := runCLI(context.Background(), nil, join([]string{"run", "oltp_point_select", "--table-size=200", "--events=100", "--format=json"}, targetArgs(cfg))...)
	if r.code != ExitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	var res result.Result
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("stdout is not the JSON result: %v\n%s", err, r.stdout)
	}
	if res.Totals.Counts.Events != 100 || !strings.Contains(r.stderr, "SQL statistics:") {
		t.Fatalf("events %d; human output on stderr: %v", res.Totals.Counts.Events, strings.Contains(r.stderr, "SQL statistics:"))
	}
}

func TestPasswordNeverRecorded(t *testing.T) {
	if got := redactArgs([]string{"run", "--mysql-password", "s3cret", "--pgsql-password=p4ss", "--mysql-user=u"}); strings.Join(got, " ") != "run --mysql-password *** --pgsql-password=*** --mysql-user=u" {
		t.Fatalf("redactArgs = %v", got)
	}
}

func TestOpenLoopRateReportsQueueing(t *testing.T) {
	t.Parallel()
	cfg := testdb.SQLite(t)
	out := filepath.Join(t.TempDir(), "r.json")
	r := runCLI(context.Background(), nil, join([]string{"run", "oltp_point_select", "--table-size=200", "--threads=2", "--rate=100", "--time=2", "--report-interval=1", "--output=" + out}, targetArgs(cfg))...)
	if r.code != ExitOK {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	res := readResult(t, out)
	// Poisson arrivals at 100/s for 2 s: 200 expected, far beyond 6 standard deviations either side.
	if ev := res.Totals.Counts.Events; ev < 110 || ev > 290 {
		t.Fatalf("%d events at --rate=100 for 2s", ev)
	}
	if res.Totals.Latency.MaxMs < res.Totals.Service.MaxMs || res.Totals.Service.Histogram == nil {
		t.Fatalf("latency from intended start (%v) below service time (%v)", res.Totals.Latency.MaxMs, res.Totals.Service.MaxMs)
	}
	if !strings.Contains(r.stdout, "Latency from intended start (ms):") || !strings.Contains(r.stdout, "Service time (ms):") {
		t.Fatalf("summary lacks the two latency blocks:\n%s", r.stdout)
	}
	// sysbench's second interval line, and the result's record of it.
	if !regexp.MustCompile(`(?m)^\[ 1s \] thds: .*\n\[ 1s \] queue length: \d+, concurrency: [0-2]$`).MatchString(r.stdout) {
		t.Fatalf("no queue length line after the interval line:\n%s", r.stdout)
	}
	for _, iv := range res.Intervals {
		if iv.OpenLoop == nil {
			t.Fatalf("interval at %vs has no open_loop", iv.At)
		}
	}
	// A rate the target sustains is no reason for a warning.
	if own, printed := ownWarnings(res, r.stdout); len(own) > 0 || printed {
		t.Fatalf("a sustained --rate=100 warns: %q\n%s", own, r.stdout)
	}
}

// TestOpenLoopRateNotSustainedWarns asks for a rate no target reaches (10^6
// events/s), bounded by --time and by --events, and one that any target
// reaches with --events: the first two say in the summary and the result that
// the run fell short and that the latency measures a growing queue.
func TestOpenLoopRateNotSustainedWarns(t *testing.T) {
	t.Parallel()
	cfg := testdb.SQLite(t)
	for _, tc := range []struct {
		name  string
		args  []string
		short bool
	}{
		{"time", []string{"--rate=1000000", "--time=2"}, true},
		{"events", []string{"--rate=1000000", "--events=3000"}, true},
		{"events at a sustained rate", []string{"--rate=100", "--events=100"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r.json")
			r := runCLI(context.Background(), nil, join([]string{"run", "oltp_point_select", "--table-size=200", "--threads=2",
				"--output=" + out}, tc.args, targetArgs(cfg))...)
			if r.code != ExitOK {
				t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			res := readResult(t, out)
			if !tc.short {
				if own, printed := ownWarnings(res, r.stdout); len(own) > 0 || printed {
					t.Fatalf("a sustained rate warns: %q\n%s", own, r.stdout)
				}
				return
			}
			res.Warnings, _ = ownWarnings(res, r.stdout)
			if len(res.Warnings) != 1 {
				t.Fatalf("result warnings %q, want the rate shortfall\n%s", res.Warnings, r.stdout)
			}
			w := res.Warnings[0]
			achieved := fmt.Sprintf("achieved %.0f/s", res.Totals.TPS)
			for _, want := range []string{"--rate asked for 1000000 events/s", achieved, "% short", "growing queue"} {
				if !strings.Contains(w, want) {
					t.Errorf("warning %q does not say %q", w, want)
				}
			}
			if !strings.Contains(r.stdout, "WARNING: "+w) {
				t.Errorf("the summary does not print the warning:\n%s", r.stdout)
			}
		})
	}
}

// TestFractionalReportIntervalLabels runs with --report-interval=0.5: the
// lines are labelled 0.5s, 1s, 1.5s … (the third was once "[ 2s ]") and the
// result's at_s values sit on the same half-second grid.
func TestFractionalReportIntervalLabels(t *testing.T) {
	cfg := testdb.SQLite(t)
	out := filepath.Join(t.TempDir(), "r.json")
	r := runCLI(context.Background(), nil, join([]string{"run", "oltp_point_select", "--table-size=200", "--time=2",
		"--report-interval=0.5", "--output=" + out}, targetArgs(cfg))...)
	if r.code != ExitOK {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var labels []string
	for _, line := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(line, "[ ") {
			labels = append(labels, strings.Fields(line)[1])
		}
	}
	want := []string{"0.5s", "1s", "1.5s", "2s"}
	if len(labels) < len(want) || strings.Join(labels[:len(want)], " ") != strings.Join(want, " ") {
		t.Fatalf("interval labels %q, want %q first\n%s", labels, want, r.stdout)
	}
	for i := 1; i < len(labels); i++ {
		prev, _ := strconv.ParseFloat(strings.TrimSuffix(labels[i-1], "s"), 64)
		cur, _ := strconv.ParseFloat(strings.TrimSuffix(labels[i], "s"), 64)
		if cur <= prev {
			t.Errorf("interval labels %q do not increase: %s after %s", labels, labels[i], labels[i-1])
		}
	}
	res := readResult(t, out)
	for i, iv := range res.Intervals[:len(want)] {
		if at := 0.5 * float64(i+1); math.Abs(iv.At-at) > 0.05 {
			t.Errorf("interval %d at_s = %v, want about %v", i+1, iv.At, at)
		}
	}
}

// mysqlDB opens a plain database/sql handle on the test database, for side actions.
func mysqlDB(t *testing.T, cfg driver.Config) *sql.DB {
	t.Helper()
	mc := mysql.NewConfig()
	mc.User, mc.Net, mc.Addr, mc.DBName = cfg.User, "tcp", fmt.Sprintf("%s:%d", cfg.Hosts[0], cfg.Ports[0]), cfg.Database
	db, err := sql.Open("mysql", mc.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func prepareMySQL(t *testing.T, cfg driver.Config, extra ...string) {
	t.Helper()
	if r := runCLI(context.Background(), nil, join([]string{"prepare", "oltp_read_write", "--table-size=1000"}, extra, targetArgs(cfg))...); r.code != ExitOK {
		t.Fatalf("prepare: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestHardDeadlineWhenServerHangs takes a table lock mid-run so every update
// blocks, and checks that the run still ends at --time with its result
// written: failed, since no thread had an answer for the rest of the
// measured phase (a stall of more than 5 % of it, still under way at the end).
func TestHardDeadlineWhenServerHangs(t *testing.T) {
	cfg := testdb.MySQL(t)
	prepareMySQL(t, cfg)
	db := mysqlDB(t, cfg)
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	out := filepath.Join(t.TempDir(), "r.json")
	done := make(chan cliRun, 1)
	start := time.Now()
	go func() {
		done <- runCLI(context.Background(), nil, join([]string{"run", "oltp_update_index", "--table-size=1000", "--threads=2", "--time=4",
			"--mysql-ignore-errors=none", "--output=" + out}, targetArgs(cfg))...)
	}()
	time.Sleep(1500 * time.Millisecond)
	// The lock holds the updates for lock_wait_timeout (a day by default).
	if _, err := conn.ExecContext(context.Background(), "LOCK TABLES sbtest1 WRITE"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(context.Background(), "UNLOCK TABLES")
	r := <-done
	took := time.Since(start)
	if r.code != ExitFailed {
		t.Fatalf("exit %d, want %d (failed: the lock stalled the run)\n%s%s", r.code, ExitFailed, r.stdout, r.stderr)
	}
	if took > 40*time.Second {
		t.Fatalf("run took %v with --time=4: the deadline did not hold", took)
	}
	res := readResult(t, out)
	if res.Status != result.StatusFailed || res.Totals.Seconds > 5 || res.Totals.Counts.Events == 0 {
		t.Fatalf("status %s, %d events over %.1fs with --time=4: want failed, what ran before the lock kept", res.Status, res.Totals.Counts.Events, res.Totals.Seconds)
	}
	if len(res.Outages) != 1 || !res.Outages[0].Stall || res.Outages[0].Unrecovered != 2 || !strings.Contains(res.Error, "2 of 2 threads were still waiting for an answer") {
		t.Errorf("outages %+v, error %q: want a stall both threads still waited in at the end", res.Outages, res.Error)
	}
}

// TestReconnectAfterKilledConnections kills the run's connections mid-run and
// expects reconnects, not a failure. The run is long enough that the time its
// threads spend reconnecting (and preparing their statements again) on a busy
// machine stays well under the 5 % that would fail it as an outage.
func TestReconnectAfterKilledConnections(t *testing.T) {
	cfg := testdb.MySQL(t)
	prepareMySQL(t, cfg)
	db := mysqlDB(t, cfg)
	out := filepath.Join(t.TempDir(), "r.json")
	done := make(chan cliRun, 1)
	go func() {
		done <- runCLI(context.Background(), nil, join([]string{"run", "oltp_read_write", "--table-size=1000", "--threads=2", "--time=12", "--output=" + out}, targetArgs(cfg))...)
	}()
	killed := 0
	deadline := time.Now().Add(3 * time.Second)
	for killed == 0 && time.Now().Before(deadline) {
		time.Sleep(300 * time.Millisecond)
		rows, err := db.Query("SELECT id FROM information_schema.processlist WHERE db = ? AND id <> CONNECTION_ID()", cfg.Database)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for rows.Next() {
			var id int64
			rows.Scan(&id)
			ids = append(ids, id)
		}
		rows.Close()
		for _, id := range ids {
			if _, err := db.Exec(fmt.Sprintf("KILL %d", id)); err == nil {
				killed++
			}
		}
	}
	r := <-done
	if killed == 0 {
		t.Fatal("found no connection of the run to kill")
	}
	if r.code != ExitOK {
		t.Fatalf("exit %d after killing %d connections\n%s%s", r.code, killed, r.stdout, r.stderr)
	}
	res := readResult(t, out)
	if res.Totals.Counts.Reconnects == 0 || res.Totals.Counts.Events == 0 {
		t.Fatalf("killed %d connections: reconnects %d events %d", killed, res.Totals.Counts.Reconnects, res.Totals.Counts.Events)
	}
}

// TestFatalErrorKeepsPartialResult drops the table mid-run: the run stops, exits 1,
// and still writes what it measured, marked failed with the reason.
func TestFatalErrorKeepsPartialResult(t *testing.T) {
	cfg := testdb.MySQL(t)
	prepareMySQL(t, cfg)
	db := mysqlDB(t, cfg)
	out := filepath.Join(t.TempDir(), "r.json")
	done := make(chan cliRun, 1)
	go func() {
		done <- runCLI(context.Background(), nil, join([]string{"run", "oltp_point_select", "--table-size=1000", "--threads=2", "--time=30", "--output=" + out}, targetArgs(cfg))...)
	}()
	time.Sleep(1500 * time.Millisecond)
	if _, err := db.Exec("DROP TABLE sbtest1"); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.code != ExitFailed || !strings.Contains(r.stderr, "1146") {
		t.Fatalf("exit %d (want %d) stderr %s", r.code, ExitFailed, r.stderr)
	}
	res := readResult(t, out)
	if res.Status != result.StatusFailed || !strings.Contains(res.Error, "1146") || res.Totals.Counts.Events == 0 {
		t.Fatalf("status %s error %q events %d", res.Status, res.Error, res.Totals.Counts.Events)
	}
}

// TestInterruptWritesPartialResult cancels the run as Ctrl-C does.
func TestInterruptWritesPartialResult(t *testing.T) {
	cfg := testdb.SQLite(t)
	out := filepath.Join(t.TempDir(), "r.json")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan cliRun, 1)
	go func() {
		done <- runCLI(ctx, nil, join([]string{"run", "oltp_point_select", "--table-size=500", "--time=60", "--output=" + out}, targetArgs(cfg))...)
	}()
	// Wait until the run has measured something, then interrupt.
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := os.Stat(cfg.Path); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("run never started")
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(1500 * time.Millisecond)
	cancel()
	r := <-done
	if r.code != ExitInterrupted {
		t.Fatalf("exit %d, want %d\n%s", r.code, ExitInterrupted, r.stderr)
	}
	res := readResult(t, out)
	if res.Status != result.StatusInterrupted || res.Totals.Counts.Events == 0 {
		t.Fatalf("status %s events %d", res.Status, res.Totals.Counts.Events)
	}
}

// TestTPCCThroughTheCLI prepares one warehouse, runs a few hundred transactions,
// checks the result's per-transaction figures, and runs check: all conditions pass
// (exit 0), then a corrupted district makes check exit 4 naming the condition.
func TestTPCCThroughTheCLI(t *testing.T) {
	t.Parallel()
	for kind, cfg := range map[string]driver.Config{driver.KindSQLite: {}, driver.KindMySQL: testdb.MySQL(t)} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			if kind == driver.KindSQLite {
				cfg = preparedTPCC(t) // the same prepare, made once for the package
			} else if r := runCLI(context.Background(), nil, join([]string{"prepare", "tpcc", "--warehouses=1", "--threads=2"}, targetArgs(cfg))...); r.code != ExitOK {
				t.Fatalf("prepare: %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			tgt := targetArgs(cfg)
			out := filepath.Join(t.TempDir(), "tpcc.json")
			r := runCLI(context.Background(), nil, join([]string{"run", "tpcc", "--threads=2", "--events=300", "--time=120", "--output=" + out}, tgt)...)
			if r.code != ExitOK {
				t.Fatalf("run: %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			res := readResult(t, out)
			if len(res.Kinds) != 5 || len(res.Totals.Kinds) != 5 || res.Totals.Counts.Events != 300 {
				t.Fatalf("kinds %v, %d kind phases, %d events", res.Kinds, len(res.Totals.Kinds), res.Totals.Counts.Events)
			}
			var sum int64
			for _, k := range res.Totals.Kinds {
				sum += k.Events
			}
			if sum != 300 || res.Totals.Kinds[0].Events == 0 || len(res.Figures) == 0 || res.Figures[0].Name != "tpmC" || res.Figures[0].Value <= 0 {
				t.Fatalf("per-kind events sum %d, figures %+v", sum, res.Figures)
			}
			if !strings.Contains(r.stdout, "By kind:") || !strings.Contains(r.stdout, "tpmC:") {
				t.Fatalf("summary lacks the per-kind block or tpmC:\n%s", r.stdout)
			}
			if r := runCLI(context.Background(), nil, join([]string{"check", "tpcc"}, tgt)...); r.code != ExitOK || !strings.Contains(r.stdout, "all passed") {
				t.Fatalf("check after run: %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			corrupt(t, kind, cfg, "UPDATE district SET d_ytd = d_ytd + 10 WHERE d_w_id = 1 AND d_id = 4")
			r = runCLI(context.Background(), nil, join([]string{"check", "tpcc"}, tgt)...)
			if r.code != ExitConsistency || !strings.Contains(r.stdout, "district 4") || !strings.Contains(r.stdout, "FAILED") {
				t.Fatalf("check of a corrupted district: exit %d (want %d)\n%s%s", r.code, ExitConsistency, r.stdout, r.stderr)
			}
			if r := runCLI(context.Background(), nil, join([]string{"cleanup", "tpcc"}, tgt)...); r.code != ExitOK {
				t.Fatalf("cleanup: %d\n%s", r.code, r.stderr)
			}
		})
	}
}

// corrupt runs one statement on the test database through fairbench's own driver.
func corrupt(t *testing.T, kind string, cfg driver.Config, stmt string) {
	t.Helper()
	d, err := open.Driver(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	c, err := d.Connect(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Exec(context.Background(), stmt); err != nil {
		t.Fatalf("%s: %v", kind, err)
	}
}

// promScrape fetches and parses url (a /metrics endpoint).
func promScrape(url string) (map[string]*dto.MetricFamily, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(resp.Body)
}

// promValue is the value of the first series of family name (a counter, gauge
// or the sample count of a histogram) whose labels include want.
func promValue(fams map[string]*dto.MetricFamily, name string, want map[string]string) (float64, bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.Metric {
		for _, lp := range m.Label {
			if v, ok := want[lp.GetName()]; ok && v != lp.GetValue() {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		}
	}
	return 0, false
}

// TestRunMetricsHistogramAndLinger runs against MariaDB with --metrics-addr:
// every scrape's latency histogram counts the events counted so far; after the
// run the endpoint lingers (--metrics-linger) in phase "done" with the final
// figures, those of the result file; Ctrl-C ends the linger at once, and the
// run's exit status stands.
func TestRunMetricsHistogramAndLinger(t *testing.T) {
	t.Parallel()
	cfg := testdb.MySQL(t)
	prepareMySQL(t, cfg)
	file := filepath.Join(t.TempDir(), "r.json")
	var out, errb syncbuf.Buffer
	app := &App{Stdout: &out, Stderr: &errb, Version: "test", Getenv: func(string) string { return "" }}
	ctx, interrupt := context.WithCancel(context.Background())
	defer interrupt()
	done := make(chan int, 1)
	go func() {
		done <- app.Execute(ctx, join([]string{"run", "oltp_point_select", "--table-size=1000", "--threads=2", "--time=2",
			"--report-interval=0.25", "--metrics-addr=127.0.0.1:0", "--metrics-linger=600", "--output=" + file}, targetArgs(cfg)))
	}()
	addrRe := regexp.MustCompile(`Live metrics on (http://\S+/metrics)`)
	wl := map[string]string{"workload": "oltp_point_select"}
	var url string
	scrapes := 0
	for !strings.Contains(out.String(), "Live metrics stay up for 10m0s (--metrics-linger)") {
		select {
		case code := <-done:
			t.Fatalf("the run ended (exit %d) without lingering:\n%s%s", code, out.String(), errb.String())
		case <-time.After(30 * time.Millisecond):
		}
		if m := addrRe.FindStringSubmatch(out.String()); m != nil {
			url = m[1]
		}
		if url == "" {
			continue
		}
		fams, err := promScrape(url)
		if err != nil {
			t.Fatalf("scrape during the run: %v", err)
		}
		count, okH := promValue(fams, "fairbench_event_latency_seconds", wl)
		events, _ := promValue(fams, "fairbench_events_total", wl)
		if okH {
			scrapes++
			if count != events {
				t.Fatalf("a scrape during the run: histogram count %v, events_total %v", count, events)
			}
		}
	}
	if scrapes == 0 {
		t.Error("no scrape during the run saw the latency histogram")
	}
	// Lingering: the result is written and the endpoint answers, phase done.
	r := readResult(t, file)
	var events int64
	for _, iv := range r.Intervals {
		events += iv.Counts.Events
		if iv.Histogram != nil {
			t.Fatal("the run kept interval histograms without --interval-histograms or --clients")
		}
	}
	fams, err := promScrape(url)
	if err != nil {
		t.Fatalf("scrape while lingering: %v", err)
	}
	if v, _ := promValue(fams, "fairbench_phase", map[string]string{"phase": "done"}); v != 1 {
		t.Errorf("phase done = %v while lingering, want 1", v)
	}
	count, _ := promValue(fams, "fairbench_event_latency_seconds", wl)
	total, _ := promValue(fams, "fairbench_events_total", wl)
	if events == 0 || count != float64(events) || total != float64(events) {
		t.Errorf("while lingering: histogram count %v, events_total %v; the result's intervals hold %d", count, total, events)
	}
	interrupt() // Ctrl-C during the linger
	select {
	case code := <-done:
		if code != ExitOK {
			t.Fatalf("exit %d after a complete run, want %d:\n%s", code, ExitOK, errb.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("Ctrl-C did not end the linger")
	}
	if _, err := promScrape(url); err == nil {
		t.Error("the endpoint still answers after the command returned")
	}
}

// TestTLSRecordedAndFallbackWarned runs with --*-ssl=on against the shared
// servers: the result records whether TLS was used, and a fall-back to plain
// text (a MariaDB without TLS, PostgreSQL over its Unix socket) warns in the
// header, the summary and the result; TLS over TCP to a PostgreSQL with TLS
// records its version and warns of nothing.
func TestTLSRecordedAndFallbackWarned(t *testing.T) {
	t.Parallel()
	my := testdb.MySQL(t)
	var haveSSL string
	if err := mysqlDB(t, my).QueryRow("SELECT @@have_ssl").Scan(&haveSSL); err != nil {
		t.Fatal(err)
	}
	mySocket := "/run/mysqld/mysqld.sock"
	if _, err := os.Stat(mySocket); err != nil || my.Hosts[0] != "127.0.0.1" {
		mySocket = "" // not the shared server's socket
	}
	pg := testdb.PgSQL(t)
	pgSocketDir := "/run/postgresql"
	if _, err := os.Stat(fmt.Sprintf("%s/.s.PGSQL.%d", pgSocketDir, pg.Ports[0])); err != nil {
		pgSocketDir = ""
	}
	for _, tc := range []struct {
		name     string
		cfg      driver.Config
		args     []string
		wantUsed bool
		warning  string
	}{
		{"mysql over TCP", my, []string{"--mysql-ssl=on"}, haveSSL == "YES", "--mysql-ssl=on fell back to plain text"},
		{"pgsql over TCP", pg, []string{"--pgsql-ssl=on"}, true, ""},
		{"pgsql over its socket", testdb.PgSQL(t), []string{"--pgsql-ssl=on", "--pgsql-socket=" + pgSocketDir}, false, "--pgsql-ssl=on connected in plain text"},
		// TLS is never used over a socket: even required runs in plain text, and says so.
		{"mysql required over its socket", testdb.MySQL(t), []string{"--mysql-ssl=required", "--mysql-socket=" + mySocket}, false, "--mysql-ssl=required connected in plain text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if strings.HasSuffix(tc.args[len(tc.args)-1], "=") {
				t.Skip("no Unix socket of the shared server")
			}
			if r := runCLI(context.Background(), nil, join([]string{"prepare", "oltp_point_select", "--table-size=100"}, targetArgs(tc.cfg))...); r.code != ExitOK {
				t.Fatalf("prepare: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			out := filepath.Join(t.TempDir(), "r.json")
			r := runCLI(context.Background(), nil, join([]string{"run", "oltp_point_select", "--table-size=100", "--events=20", "--output=" + out},
				targetArgs(tc.cfg), tc.args)...)
			if r.code != ExitOK {
				t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			res := readResult(t, out)
			tls := res.Target.TLS
			if tls == nil || tls.Used != tc.wantUsed || tls.Note != "" {
				t.Fatalf("target.tls = %+v, want used=%v", tls, tc.wantUsed)
			}
			if tc.wantUsed {
				if !strings.HasPrefix(tls.Version, "TLSv1.") || tls.Cipher == "" {
					t.Errorf("target.tls = %+v, want a TLSv1.x version and a cipher", tls)
				}
				if own, printed := ownWarnings(res, r.stdout); len(own) > 0 || printed {
					t.Errorf("TLS used, yet warnings %q\n%s", own, r.stdout)
				}
				if !strings.Contains(r.stdout, "TLS: "+tls.Version+", "+tls.Cipher) {
					t.Errorf("the header does not say TLS %s:\n%s", tls.Version, r.stdout)
				}
				return
			}
			want := tc.warning
			res.Warnings, _ = ownWarnings(res, r.stdout)
			if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], want) {
				t.Fatalf("result warnings %q, want one saying %q", res.Warnings, want)
			}
			if n := strings.Count(r.stdout, "WARNING: "+res.Warnings[0]); n != 2 {
				t.Errorf("the warning is printed %d times, want in the header and the summary:\n%s", n, r.stdout)
			}
		})
	}
}

// TestPgSocketDirectoryAsHost: --pgsql-host naming a directory, as libpq,
// psql and sysbench take it (--pgsql-host=/var/run/postgresql), is the
// server's Unix socket: the result says so and attributes the run to this
// machine's server, not to an unknown remote one.
func TestPgSocketDirectoryAsHost(t *testing.T) {
	pg := testdb.PgSQL(t)
	dir := "/run/postgresql"
	if _, err := os.Stat(fmt.Sprintf("%s/.s.PGSQL.%d", dir, pg.Ports[0])); err != nil {
		t.Skipf("no Unix socket of the shared server: %v", err)
	}
	if r := runCLI(context.Background(), nil, join([]string{"prepare", "oltp_point_select", "--table-size=100"}, targetArgs(pg))...); r.code != ExitOK {
		t.Fatalf("prepare: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	out := filepath.Join(t.TempDir(), "r.json")
	r := runCLI(context.Background(), nil, join([]string{"run", "oltp_point_select", "--table-size=100", "--events=20", "--output=" + out},
		targetArgs(pg), []string{"--pgsql-host=" + dir})...)
	if r.code != ExitOK {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	res := readResult(t, out)
	if res.Target.Socket != dir || res.Target.Transport != result.TransportSocket {
		t.Errorf("target socket %q transport %q, want %q over a socket", res.Target.Socket, res.Target.Transport, dir)
	}
	if len(res.ServerMachines) != 1 || res.ServerMachines[0].Source != result.ServerSourceLocal {
		t.Fatalf("server machines %+v, want this machine (local)\n%s", res.ServerMachines, r.stdout)
	}
	if os.Geteuid() == 0 && res.ServerMachines[0].Process != "postgres" {
		t.Errorf("server process %q (pid %d), want postgres", res.ServerMachines[0].Process, res.ServerMachines[0].PID)
	}
	if strings.Contains(r.stdout, "remote server") {
		t.Errorf("the run took its socket for a remote server:\n%s", r.stdout)
	}
}

// An interrupted load of the embedded database by run names the command
// that starts it over: prepare --replace, since run has no --replace.
func TestInterruptedRunLoadSuggestsPrepareReplace(t *testing.T) {
	cfg := testdb.SQLite(t)
	var out, errb syncbuf.Buffer
	app := &App{Stdout: &out, Stderr: &errb, Version: "test", Getenv: func(string) string { return "" }}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		// Far more rows than load before the cancel below.
		done <- app.Execute(ctx, join([]string{"run", "oltp_point_select", "--tables=4", "--table-size=50000000", "--time=1"}, targetArgs(cfg)))
	}()
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(out.String(), "preparing it now") {
		if time.Now().After(deadline) {
			t.Fatalf("the load never started:\n%s%s", out.String(), errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	var code int
	select {
	case code = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the interrupted load did not return")
	}
	if code != ExitInterrupted {
		t.Fatalf("exit %d, want %d\n%s", code, ExitInterrupted, errb.String())
	}
	msg := errb.String()
	for _, want := range []string{"load them again with 'fairbench prepare oltp_point_select ", "--sqlite-db=" + cfg.Path, "--tables=4", "--table-size=50000000", " --replace'"} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "run it again with --replace") {
		t.Errorf("stderr suggests run's --replace, which run does not have:\n%s", msg)
	}
}

// The help of --metrics-addr says that :PORT is open to the network without
// authentication and names the loopback form (issue 14).
func TestMetricsAddrHelpSaysItIsUnauthenticated(t *testing.T) {
	for _, args := range [][]string{{"run", "oltp_point_select", "--help"}, {"suite", "run", "--help"}} {
		r := runCLI(context.Background(), nil, args...)
		for _, want := range []string{"127.0.0.1:9105", ":PORT listens on every interface, without authentication", "Kubernetes"} {
			if !strings.Contains(r.stdout+r.stderr, want) {
				t.Errorf("%v: help lacks %q", args, want)
			}
		}
	}
}
