package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// TestSuiteTablesAndCompareShowOneFigure: a suite's closing table, its
// status and 'compare' of its directory print the same figure for the same
// cell — the mean of its 3 rounds (not their median) in tps, also for the read-only case (the
// suite showed the median and qps, compare the mean and tps) — and each
// says which center and metric it shows.
func TestSuiteTablesAndCompareShowOneFigure(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.SQLite(t)
	workloads := []string{"oltp_point_select", "oltp_read_only"}
	plan := writeFile(t, "three-rounds.yaml", fmt.Sprintf(`name: three-rounds
target: {sqlite_db: %s}
data: {tables: 1, table_size: 1000}
matrix: {workloads: [%s], threads: [1], rounds: 3}
run: {time: 1}
`, db.Path, strings.Join(workloads, ", ")))
	dir := filepath.Join(t.TempDir(), "suite")
	run := runCLI(ctx, nil, "suite", "run", plan, "--out", dir)
	if run.code != ExitOK {
		t.Fatalf("suite run: %d\n%s%s", run.code, run.stdout, run.stderr)
	}
	status := runCLI(ctx, nil, "suite", "status", dir)
	if status.code != ExitOK {
		t.Fatalf("suite status: %d\n%s%s", status.code, status.stdout, status.stderr)
	}
	cmp := runCLI(ctx, nil, "compare", dir)
	if cmp.code != ExitOK {
		t.Fatalf("compare: %d\n%s%s", cmp.code, cmp.stdout, cmp.stderr)
	}
	if !strings.Contains(cmp.stdout, "Figures of tps (higher is better), mean of rounds") { // one system: figures, no baseline
		t.Errorf("compare does not say it shows the mean of rounds in tps:\n%s", cmp.stdout)
	}
	for name, out := range map[string]string{"suite run": run.stdout, "suite status": status.stdout} {
		table := suiteTable(t, out, "1x1000 · uniform · mean of 3 rounds")
		for _, wl := range workloads {
			got, ok := table[wl+" (tps)"]
			if !ok {
				t.Errorf("%s: the mean table has no column %q (tps, as compare): %v", name, wl+" (tps)", table)
				continue
			}
			if want := compareFigure(t, cmp.stdout, wl+" (uniform, 1x1000)"); got != want {
				t.Errorf("%s shows %s at 1 thread %s, compare %s", name, wl, got, want)
			}
		}
	}
}

// suiteTable reads the row of 1 thread of the suite table titled title:
// column header → figure.
func suiteTable(t *testing.T, out, title string) map[string]string {
	t.Helper()
	_, rest, ok := strings.Cut(out, title+"\n")
	if !ok {
		t.Fatalf("no table %q in:\n%s", title, out)
	}
	lines := strings.Split(rest, "\n")
	head := strings.Split(strings.TrimSpace(lines[0]), "  ")
	var cols []string
	for _, h := range head {
		if h = strings.TrimSpace(h); h != "" {
			cols = append(cols, h)
		}
	}
	row := strings.Fields(lines[1])
	if len(row) != len(cols) || row[0] != "1" {
		t.Fatalf("table %q: header %q, row %q", title, lines[0], lines[1])
	}
	figures := map[string]string{}
	for i := 1; i < len(cols); i++ {
		figures[cols[i]] = row[i]
	}
	return figures
}

// compareFigure reads the figure of 1 thread in compare's section titled
// section (the first column after the thread count), without the marks a
// row or figure may carry (§ on a busy machine, ≈ on a vague figure).
func compareFigure(t *testing.T, out, section string) string {
	t.Helper()
	_, rest, ok := strings.Cut(out, "\n"+section+"\n")
	if !ok {
		t.Fatalf("compare has no section %q:\n%s", section, out)
	}
	for _, line := range strings.Split(rest, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) > 1 && firstField(cells[0]) == "1" {
			return firstField(cells[1])
		}
	}
	t.Fatalf("compare's section %q has no row of 1 thread:\n%s", section, rest)
	return ""
}

// firstField is the first space-separated field of s ("" for none).
func firstField(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}
