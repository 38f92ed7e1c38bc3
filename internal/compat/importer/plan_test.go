package importer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/record/result"
)

// A result that cannot be written takes back those written before it: an
// import is whole or not at all.
func TestImportWriteIsWholeOrNothing(t *testing.T) {
	out := t.TempDir()
	blocker := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(blocker, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := &result.Result{Schema: result.SchemaVersion, Workload: "oltp_point_select", Threads: 1}
	p := &Plan{Runs: []Run{
		{Log: "a.log", Path: filepath.Join(out, "a-1.json"), Result: res},
		{Log: "b.log", Path: filepath.Join(blocker, "b-1.json"), Result: res},
	}}
	err := p.Write()
	if err == nil || !strings.Contains(err.Error(), "removed the 1 results written before it, so nothing was imported") {
		t.Errorf("write: %v", err)
	}
	if got, err := os.ReadDir(out); err != nil || len(got) != 0 {
		t.Errorf("--out holds %v (%v) after a failed write", got, err)
	}
}

// TestResultStems names the result files of logs: by the log's name, with as
// many directories as tell logs of one name apart, else their extensions.
func TestResultStems(t *testing.T) {
	for _, tc := range []struct {
		name  string
		logs  []string
		want  []string
		notes int
		err   string
	}{
		{"one log", []string{"/x/run.log"}, []string{"run"}, 0, ""},
		{"distinct names", []string{"/x/a.log", "/x/b.log"}, []string{"a", "b"}, 0, ""},
		{"one name, two directories", []string{"/x/a/run.log", "/x/b/run.log"}, []string{"a_run", "b_run"}, 2, ""},
		{"one name, parents differ higher up", []string{"/p/d/run.log", "/q/d/run.log", "/x/other.log"}, []string{"p_d_run", "q_d_run", "other"}, 2, ""},
		{"one name, two extensions", []string{"/x/run.log", "/x/run.txt"}, []string{"x_run.log", "x_run.txt"}, 2, ""},
		{"one log twice", []string{"/x/run.log", "/x/run.log"}, nil, 0, "would both be named"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, notes, err := resultStems(tc.logs)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil || strings.Join(got, " ") != strings.Join(tc.want, " ") || len(notes) != tc.notes {
				t.Errorf("stems %q, %d notes (%q), %v; want %q and %d notes", got, len(notes), notes, err, tc.want, tc.notes)
			}
		})
	}
}
