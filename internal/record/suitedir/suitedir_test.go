package suitedir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/record/result"
)

func TestManifestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	m := &Manifest{Schema: ManifestSchema, Status: StatusRunning, Cells: []CellRecord{
		{Cell: Cell{Index: 1, ID: "d1/uniform/r1/oltp_read_only/t4", Workload: "oltp_read_only", Threads: 4, Round: 1}, Status: StatusComplete,
			Summary: &Summary{TPS: 10, QPS: 140}},
		{Cell: Cell{Index: 2, ID: "d1/uniform/r1/oltp_read_only/t8"}, Status: StatusPending},
	}}
	if err := m.Write(dir); err != nil {
		t.Fatal(err)
	}
	got, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Updated.IsZero() || len(got.Cells) != 2 || got.Cells[0].Summary.QPS != 140 || got.Cells[1].Threads != 0 {
		t.Fatalf("read back %+v", got)
	}
	if c := got.Counts(); c[StatusComplete] != 1 || c[StatusPending] != 1 || len(c) != 2 {
		t.Fatalf("counts %v", c)
	}
}

func TestReadManifestRefusals(t *testing.T) {
	notJSON := t.TempDir()
	if err := os.WriteFile(filepath.Join(notJSON, ManifestName), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, dir, want string }{
		{"no manifest", t.TempDir(), "is not a suite directory"},
		{"not a manifest", notJSON, "not a suite manifest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadManifest(tc.dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestCellFileNameAndSummaryValue(t *testing.T) {
	c := Cell{Index: 7, ID: "cpu-bound/d1/uniform/r2/oltp_read_write/t16"}
	if got, want := c.FileName(), "0007-cpu-bound-d1-uniform-r2-oltp_read_write-t16.json"; got != want {
		t.Fatalf("file name %q, want %q", got, want)
	}
	s := &Summary{TPS: 1, QPS: 2, TpmC: 3}
	for metric, want := range map[string]float64{"tps": 1, "qps": 2, "tpmC": 3} {
		if got := s.Value(metric); got != want {
			t.Errorf("Value(%q) = %v, want %v", metric, got, want)
		}
	}
}

// TestSummarizeKeepsWhatTheFiguresHide: a cell's summary carries the measured
// phase's reconnects, ignored errors and the result's warnings.
func TestSummarizeKeepsWhatTheFiguresHide(t *testing.T) {
	res := &result.Result{Warnings: []string{"open loop not sustained"}}
	res.Totals.TPS = 10
	res.Totals.Counts.Reconnects = 2
	res.Totals.Counts.Errors = map[string]int64{"1213": 4, "1205": 1}
	res.Totals.Latency.Percentiles = map[string]float64{"99": 3}
	s := Summarize(res)
	if s.Reconnects != 2 || s.IgnoredErrors != 5 || s.Warnings != 1 || s.P95Ms != 0 {
		t.Errorf("summary = %+v, want 2 reconnects, 5 ignored errors, 1 warning and no p95", s)
	}
}
