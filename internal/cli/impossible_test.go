package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/record/suitedir"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// impossiblePlan is a plan whose server runs on 1 CPU and on two sets no
// machine has (Linux counts at most 8192 CPUs), with its server in dir.
func impossiblePlan(t *testing.T, serverDir, sets string) string {
	return writeFile(t, "impossible.yaml", fmt.Sprintf(`name: impossible
server: {flavor: mariadb, dir: %s}
data: {tables: 1, table_size: 1000}
matrix:
  workloads: [oltp_point_select]
  threads: [1, 2]
  server_cpus: [%s]
run: {time: 1}
`, serverDir, sets))
}

// TestSuiteRefusesImpossibleValues: a dry run and a run of a plan with
// several server_cpus values this machine cannot give exit 2 naming every
// one, before anything connects or runs (no suite directory, no server),
// and suggest --skip-impossible; with it the dry run shows and estimates
// the other cells only; a plan the machine can run still exits 0.
func TestSuiteRefusesImpossibleValues(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	serverDir, out := filepath.Join(tmp, "server"), filepath.Join(tmp, "suite")
	plan := impossiblePlan(t, serverDir, "1, 9000, 10000")
	for _, args := range [][]string{{"--dry-run"}, {"--out", out}} {
		r := runCLI(ctx, nil, append([]string{"suite", "run", plan}, args...)...)
		if r.code != ExitUsage {
			t.Errorf("suite run %v: exit %d, want %d\n%s%s", args, r.code, ExitUsage, r.stdout, r.stderr)
		}
		for _, want := range []string{"2 values of the plan cannot run on this machine",
			"impossible.yaml:7: matrix.server_cpus[1]: 9000 CPUs asked for", "matrix.server_cpus[2]: 10000 CPUs asked for",
			"they take 4 of the plan's 6 cells: give --skip-impossible to run the other 2"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("suite run %v: the refusal lacks %q:\n%s", args, want, r.stderr)
			}
		}
		if strings.Contains(r.stdout, "oltp_point_select") {
			t.Errorf("suite run %v listed cells of a refused plan:\n%s", args, r.stdout)
		}
	}
	for _, dir := range []string{out, serverDir} {
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("a refused run made %s", dir)
		}
	}

	dry := runCLI(ctx, nil, "suite", "run", plan, "--dry-run", "--skip-impossible")
	if dry.code != ExitOK {
		t.Fatalf("dry run --skip-impossible: %d\n%s%s", dry.code, dry.stdout, dry.stderr)
	}
	for _, want := range []string{"Skipped (--skip-impossible)", "matrix.server_cpus[1] = 9000 (2 cells)", "matrix.server_cpus[2] = 10000 (2 cells)",
		"\n2 cells × (0s warm-up + 1s measured)", "c1 ("} {
		if !strings.Contains(dry.stdout, want) {
			t.Errorf("dry run --skip-impossible lacks %q:\n%s", want, dry.stdout)
		}
	}
	if strings.Contains(dry.stdout, "c9000 (") || strings.Contains(dry.stdout, "c10000 (") {
		t.Errorf("dry run --skip-impossible lists a skipped cell:\n%s", dry.stdout)
	}

	ok := runCLI(ctx, nil, "suite", "run", impossiblePlan(t, serverDir, "1"), "--dry-run")
	if ok.code != ExitOK || strings.Contains(ok.stdout, "Skipped") {
		t.Errorf("dry run of a plan this machine can run: %d\n%s%s", ok.code, ok.stdout, ok.stderr)
	}
}

// TestSuiteSkipsImpossibleValues: suite run --skip-impossible runs the cells
// this machine can run, says which values it left out, and records them in
// the manifest, where suite status shows them again.
func TestSuiteSkipsImpossibleValues(t *testing.T) {
	testdb.SkipShort(t, "a private MariaDB")
	if _, err := exec.LookPath("mariadbd"); err != nil {
		if _, err := os.Stat("/usr/sbin/mariadbd"); err != nil {
			t.Skip("MariaDB's server is not installed (scripts/test.sh installs it)")
		}
	}
	ctx := context.Background()
	tmp := t.TempDir()
	serverDir, out := filepath.Join(tmp, "server"), filepath.Join(tmp, "suite")
	t.Cleanup(func() { runCLI(context.Background(), nil, "server", "stop", "--dir", serverDir) })
	r := runCLI(ctx, nil, "suite", "run", impossiblePlan(t, serverDir, "1, 9000"), "--out", out, "--skip-impossible")
	if r.code != ExitOK {
		t.Fatalf("suite run --skip-impossible: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "Skipped (--skip-impossible)") || !strings.Contains(r.stdout, "matrix.server_cpus[1] = 9000 (2 cells): 9000 CPUs asked for") {
		t.Errorf("the run does not say what it skipped:\n%s", r.stdout)
	}
	m, err := suitedir.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Cells) != 2 || len(m.Skipped) != 1 || m.Skipped[0].Key != "matrix.server_cpus[1]" || m.Skipped[0].Value != "9000" || m.Skipped[0].Cells != 2 ||
		!strings.Contains(m.Skipped[0].Reason, "9000 CPUs asked for") {
		t.Errorf("manifest: %d cells, skipped %+v", len(m.Cells), m.Skipped)
	}
	for _, c := range m.Cells {
		if c.ServerCPUs != 1 || c.Status != suitedir.StatusComplete {
			t.Errorf("cell %s: server_cpus %d, %s (%s)", c.ID, c.ServerCPUs, c.Status, c.Error)
		}
	}
	st := runCLI(ctx, nil, "suite", "status", out)
	if st.code != ExitOK || !strings.Contains(st.stdout, "matrix.server_cpus[1] = 9000 (2 cells)") {
		t.Errorf("suite status: %d\n%s%s", st.code, st.stdout, st.stderr)
	}
}
