package cli

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/machine/cpuset"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// TestClientCPUsChecks: --client-cpus is checked before anything starts
// (the pinned runs themselves are cmd/fairbench's TestClientCPUs): a CPU of
// the shared MariaDB (not pinned, so it may use all of them) is refused
// unless --allow-cpu-overlap; an in-process App, which cannot run itself
// again, refuses what passed; a plan's client_cpus overlapping its
// server.cpus is refused by the dry run; nothing writes a result.
func TestClientCPUsChecks(t *testing.T) {
	usable, err := cpuset.Usable(os.DirFS("/"), os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	first := cpuset.Of(usable.CPUs()[0]).String()
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	srv := testdb.MySQLServer()
	mariadb := []string{"--mysql-host=127.0.0.1", "--mysql-port=" + strconv.Itoa(srv.Ports[0]), "--mysql-user=" + srv.User, "--mysql-db=no_such_db"}
	tests := []struct {
		name string
		args []string
		want string
		// needs is the server the case looks for on this machine; "" for none.
		needs string
	}{
		{"overlap with a local server", append([]string{"run", "oltp_point_select", "--client-cpus", first, "-o", out}, mariadb...),
			"--client-cpus " + first + ": CPU " + first + " is also the database server's (mariadbd (pid ", "MariaDB"},
		{"overlap allowed", append([]string{"run", "oltp_point_select", "--client-cpus", first, "--allow-cpu-overlap", "-o", out}, mariadb...),
			"--client-cpus: this fairbench cannot run itself again pinned", ""},
		{"embedded database", []string{"run", "oltp_point_select", "--client-cpus", first, "--sqlite-db", filepath.Join(dir, "fb.db"), "-o", out},
			"--client-cpus: this fairbench cannot run itself again pinned", ""},
		{"rest without a local server", []string{"run", "oltp_point_select", "--client-cpus", "rest", "--sqlite-db", filepath.Join(dir, "fb.db"), "-o", out},
			"--client-cpus rest gives the client the CPUs the server does not use, but the server does not run on this machine", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.needs != "" {
				testdb.SkipShort(t, tt.needs)
			}
			r := runCLI(context.Background(), nil, tt.args...)
			if r.code != ExitUsage || !strings.Contains(r.stderr, tt.want) {
				t.Fatalf("exit %d, want 2 with %q:\n%s%s", r.code, tt.want, r.stdout, r.stderr)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("a refused run left %s (%v)", out, err)
			}
		})
	}
	plan := filepath.Join(dir, "plan.yaml")
	text := "server: {flavor: mariadb, cpus: " + first + "}\ndata: {tables: 1, table_size: 100}\nmatrix: {workloads: [oltp_point_select], threads: [1]}\nrun: {time: 1, client_cpus: " + first + "}\n"
	if err := os.WriteFile(plan, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(context.Background(), nil, "suite", "run", plan, "--dry-run")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "run.client_cpus: client CPUs "+first+": CPU "+first+" is also the database server's (the plan's server (server.cpus)") {
		t.Errorf("dry run of an overlapping plan: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// The flag overrides the plan's key, and --allow-cpu-overlap sets allow_cpu_overlap.
	r = runCLI(context.Background(), nil, "suite", "run", plan, "--dry-run", "--allow-cpu-overlap")
	if r.code != ExitOK || !strings.Contains(r.stdout, "Client: every thread of fairbench on CPUs "+first+", sharing the server's allowed") {
		t.Errorf("dry run with --allow-cpu-overlap: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if usable.Len() > 1 {
		other := cpuset.Of(usable.CPUs()[1]).String()
		r = runCLI(context.Background(), nil, "suite", "run", plan, "--dry-run", "--client-cpus", other)
		if r.code != ExitOK || !strings.Contains(r.stdout, "Client: every thread of fairbench on CPUs "+other+"\n") {
			t.Errorf("dry run with --client-cpus %s: exit %d\n%s%s", other, r.code, r.stdout, r.stderr)
		}
	}
}
