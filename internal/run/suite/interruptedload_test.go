package suite

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver/open"
	"github.com/fairbench/fairbench/internal/record/suitedir"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// TestSuiteResumeReloadsAnInterruptedPrepare interrupts a suite's prepare
// (one loader: sbtest1, then sbtest2) once sbtest1 holds all its rows and
// sbtest2 not yet, as a Ctrl-C during the load does; the resumed suite with
// prepare: reuse loads the data again (saying why) and never reuses it, and
// its cells run on complete tables.
func TestSuiteResumeReloadsAnInterruptedPrepare(t *testing.T) {
	t.Parallel()
	cfg := testdb.MySQL(t)
	const size = 50000
	plan := targetYAML(cfg) + `
name: interrupted-load
data: {tables: 2, table_size: 50000, prepare_threads: 1}
matrix: {workloads: [oltp_point_select], threads: [1]}
run: {time: 1}
steps: {prepare: reuse}
`
	path := writePlan(t, plan)
	dir := filepath.Join(t.TempDir(), "s")

	drv, err := open.Driver(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer drv.Close()
	conn, err := drv.Connect(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	maxID := func(table string) string {
		rows, err := conn.QueryStrings(context.Background(), "SELECT COALESCE(MAX(id), 0) FROM "+table)
		if err != nil || len(rows) != 1 {
			return ""
		}
		return rows[0][0]
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// Ctrl-C once sbtest1 is loaded, while sbtest2 is not.
		deadline := time.Now().Add(2 * time.Minute)
		for time.Now().Before(deadline) && ctx.Err() == nil {
			if maxID("sbtest1") == "50000" {
				cancel()
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	_, out, err := runPlan(ctx, t, path, dir, false)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err = %v, want the suite interrupted during its prepare\n%s", err, out)
	}
	if got := maxID("sbtest2"); got == "50000" {
		t.Fatalf("sbtest2 was loaded before the interrupt took effect (max id %s): nothing to test", got)
	}

	m, out, err := runPlan(context.Background(), t, path, dir, true)
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	var prepare *suitedir.StepRecord
	for i := range m.Steps {
		if m.Steps[i].Name == "prepare" && m.Steps[i].Error == "" {
			prepare = &m.Steps[i]
		}
	}
	if prepare == nil {
		t.Fatalf("no successful prepare step in %+v\n%s", m.Steps, out)
	}
	if strings.Contains(prepare.Detail, "reusing") || !strings.Contains(prepare.Detail, "loaded 100000 rows") || !strings.Contains(prepare.Detail, "did not finish") {
		t.Errorf("resumed prepare: %q; want the data loaded again because its load did not finish", prepare.Detail)
	}
	for _, table := range []string{"sbtest1", "sbtest2"} {
		if got := maxID(table); got != "50000" {
			t.Errorf("%s: largest id %s after the resume, want %d", table, got, size)
		}
	}
	checkComplete(t, dir)
}
