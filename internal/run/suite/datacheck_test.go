package suite

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/record/suitedir"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// twoCellPlan is a plan of two 1-second cells (1 and 2 threads) of workload
// on data, that runs sql between them.
func twoCellPlan(target, data, workload, sql string) string {
	return target + "name: datacheck\ndata: {" + data + "}\nmatrix: {workloads: [" + workload + "], threads: [1, 2]}\nrun: {time: 1}\n" +
		"steps:\n  prepare: reuse\n  between_cells:\n    - sql: " + sql + "\n"
}

// TestSuiteCellsCheckTheirData changes the data between two cells, as a
// delete or insert workload or a between_cells step can: an OLTP cell on
// tables whose ids end below table_size runs and records the warning with
// both sizes; a TPC-C cell on an incomplete load fails before it runs,
// writing no result.
func TestSuiteCellsCheckTheirData(t *testing.T) {
	t.Parallel()
	cfg := testdb.SQLite(t)
	tgt := targetYAML(cfg)
	run := func(plan string) (*suitedir.Manifest, string, string, error) {
		dir := filepath.Join(t.TempDir(), "s")
		m, out, err := runPlan(context.Background(), t, writePlan(t, plan), dir, false)
		return m, out, dir, err
	}
	m, out, dir, err := run(twoCellPlan(tgt, "tables: 1, table_size: 1000", "oltp_point_select", "DELETE FROM sbtest1 WHERE id > 300"))
	if err != nil {
		t.Fatalf("suite: %v\n%s", err, out)
	}
	if n := strings.Count(out, "Warning: --table-size is 1000, but the largest id is 300 in sbtest1"); n != 1 {
		t.Errorf("suite output has the warning %d times, want once (the second cell):\n%s", n, out)
	}
	for i, want := range []int{0, 1} {
		res, err := result.Read(filepath.Join(dir, m.Cells[i].File))
		if err != nil {
			t.Fatal(err)
		}
		res.Warnings = ownWarnings(res.Warnings)
		if len(res.Warnings) != want || len(res.Data) != 1 || res.Data[0].Asked != "1000" || res.Options["table-size"] != "1000" {
			t.Errorf("cell %d: warnings %q data %+v table-size %q; want %d warning(s)", i+1, res.Warnings, res.Data, res.Options["table-size"], want)
		}
		if want == 1 && (res.Data[0].Found != "300" || !strings.Contains(res.Warnings[0], "300 in sbtest1")) {
			t.Errorf("cell %d: data %+v warnings %q; want 300 found", i+1, res.Data, res.Warnings)
		}
	}

	m, out, _, err = run(twoCellPlan(tgt, "warehouses: 1", "tpcc", "DELETE FROM tpcc_meta WHERE name = 'loaded_w_1'"))
	var failed *CellsFailedError
	if !errors.As(err, &failed) {
		t.Fatalf("tpcc on an incomplete load: err %v, want the cell failed\n%s", err, out)
	}
	if c := m.Cells[0]; c.Status != suitedir.StatusComplete {
		t.Errorf("first cell: %s %s", c.Status, c.Error)
	}
	if c := m.Cells[1]; c.Status != suitedir.StatusFailed || c.File != "" || !strings.Contains(c.Error, "warehouses 1 are not loaded") {
		t.Errorf("second cell: status %s file %q error %q; want failed before running (no result), saying why", c.Status, c.File, c.Error)
	}
}
