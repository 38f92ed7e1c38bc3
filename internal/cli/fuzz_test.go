package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// exitReachedConnect is the code the flag fuzz target's beforeConnect hook
// ends a command with: the command line passed validation.
const exitReachedConnect = 97

// fuzzCommands are the commands FuzzCommandLine starts from; the fuzzed
// flags are appended. File arguments name the fixtures fuzzFixtures writes
// into the iteration's working directory.
var fuzzCommands = [][]string{
	{"run", "oltp_read_write"},
	{"run", "oltp_point_select"},
	{"run", "tpcc"},
	{"tpcc", "run"}, // the go-tpc form
	{"tpcc", "prepare"},
	{"prepare", "oltp_read_write"},
	{"prepare", "tpcc"},
	{"cleanup", "oltp_insert"},
	{"check", "tpcc"},
	{"warmup", "oltp_read_only"},
	{"suite", "run", "plan.yaml"},
	{"suite", "status", "suite"},
	{"server", "start"},
	{"merge", "r.json", "r.json"},
	{"compare", "a=r.json", "b=r.json"},
	{"report", "r.json"},
	{"report", "--bar-threads", "8", "r.json"},
	{"cost", "--prices", "prices.yaml"},
	{"import", "sysbench.log"},
	{"list"},
	{"run"},
	{},
	{"agent", "--listen", "127.0.0.1:0"},
	{"oltp_read_write", "run"}, // sysbench's order (sysbenchcli)
	{"--test=/usr/share/sysbench/oltp_point_select.lua", "prepare"},
}

// fuzzFixtures are the files the fuzzed commands find in their working
// directory: name -> the file in the repository it is copied from.
var fuzzFixtures = map[string]string{
	"r.json":       "../record/result/testdata/result.golden.json",
	"plan.yaml":    "../../plans/quick.yaml",
	"prices.yaml":  "../analysis/cost/testdata/tidb-eks.yaml",
	"sysbench.log": "../compat/importer/testdata/sysbench-1.0.20-histogram.log",
}

// FuzzCommandLine parses and validates every command's flags up to the point
// where the command would connect, start a server or listen (App.beforeConnect
// stops it there): no input panics, every refusal exits non-zero with a
// message, and nothing is written outside the iteration's temporary directory
// (arguments naming another directory are skipped).
func FuzzCommandLine(f *testing.F) {
	fixtures := map[string][]byte{}
	for name, src := range fuzzFixtures {
		b, err := os.ReadFile(src)
		if err != nil {
			f.Fatal(err)
		}
		fixtures[name] = b
	}
	seeds := []string{
		"",
		"--threads=4 --time=1",
		"--threads=0",
		"--threads=-1 --time=-5",
		"--threads=6148914691236517206",
		"--time=9223372036854775807",
		"--events=-1 --rate=NaN",
		"--rate=1e309 --report-interval=-1",
		"--report-interval=0.0001 --warmup-time=-3",
		"--histogram --verbosity=-1",
		"--histogram=off --verbosity=9 --percentile=0",
		"--tables=100000000 --table-size=-1",
		"--tables=0 --table-size=99999999999",
		"--warehouses=0",
		"--warehouses=1000000",
		"--percentile=101",
		"--percentile=50,,99",
		"--mysql-host=127.0.0.1 --mysql-port=0",
		"--mysql-host=, --mysql-port=1,2,3",
		"--pgsql-host=h --mysql-host=h",
		"--db-driver=oracle",
		"--db-driver=sqlite --mysql-host=x",
		"--mysql-ssl=verify-full",
		"--mysql-ignore-errors=zzz",
		"--sqlite-ignore-errors=all",
		"--rand-type=nope --rand-spec-pct=200",
		"--rand-zipfian-exp=-1",
		"--clients=2 --client-id=5",
		"--clients=2 --start-at=yesterday",
		"--metrics-addr=:99999",
		"--format=xml",
		"--dry-run",
		"--dry-run --scale=-1",
		"--resume --out=nosuch",
		"--flavor=oracle",
		"--port=70000",
		"-o m.json",
		"--format=html --out=x.html",
		"--format=md --ghz a=x",
		"--system=a=ARM",
		"--out=imported",
		"--server-agent-service=fairbench-agent:9901 --server-pods=app=db --server-pods-namespace=bench",
		"--server-agent-service=Bad:0 --server-pods= --server-agent=http://a --server-agent-token-env=X",
		"--unknown-flag",
		"--threads",
		"--help",
	}
	// Every command bare, and every seed on one command (a cross product
	// makes the baseline slower than the fuzzing time CI gives it).
	for i := range fuzzCommands {
		f.Add(uint8(i), "")
	}
	for i, s := range seeds {
		f.Add(uint8(i%len(fuzzCommands)), s)
	}
	agentCmd := uint8(slices.IndexFunc(fuzzCommands, func(c []string) bool { return len(c) > 0 && c[0] == "agent" }))
	for _, s := range []string{"--cloud-metadata auto", "--cloud-metadata=GCP --process mariadbd", "--cloud-metadata ibm", "--cloud-metadata-endpoint x --pid 1"} {
		f.Add(agentCmd, s)
	}
	f.Fuzz(func(t *testing.T, which uint8, line string) {
		args := strings.Fields(line)
		for _, a := range args {
			// Only relative names inside the working directory; no PNGs
			// (rendering charts is execution, not parsing).
			if strings.ContainsAny(a, `/\`) || strings.Contains(strings.ToLower(a), "png") {
				t.Skip()
			}
		}
		dir := t.TempDir()
		for name, b := range fixtures {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t.Chdir(dir)
		argv := append(slices.Clone(fuzzCommands[int(which)%len(fuzzCommands)]), args...)
		var out, errb bytes.Buffer
		app := &App{Stdout: &out, Stderr: &errb, Version: "fuzz", Getenv: func(string) string { return "" },
			beforeConnect: func() error { return withCode(exitReachedConnect, errors.New("reached connect")) }}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		code := app.Execute(ctx, argv)
		all := out.String() + errb.String()
		if strings.Contains(all, "goroutine ") || strings.Contains(all, "panic:") {
			t.Fatalf("%q printed a stack trace:\n%s", argv, all)
		}
		switch code {
		case ExitOK, exitReachedConnect:
		case ExitInterrupted:
			t.Fatalf("%q: exit %d without an interrupt\n%s", argv, code, all)
		default:
			if !strings.Contains(errb.String(), "fairbench: ") {
				t.Fatalf("%q: exit %d without a message on stderr\nstdout: %s\nstderr: %s", argv, code, out.String(), errb.String())
			}
		}
	})
}
