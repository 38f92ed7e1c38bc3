package suite

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/base/syncbuf"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// section returns the lines of out from "-- name" to "-- name done".
func section(t *testing.T, out, name string) []string {
	t.Helper()
	start := strings.Index(out, "-- "+name+"\n")
	end := strings.Index(out, "-- "+name+" done")
	if start < 0 || end < start {
		t.Fatalf("no step %q in:\n%s", name, out)
	}
	return strings.Split(strings.TrimSpace(out[start:end]), "\n")[1:]
}

// TestSuiteStepsShowProgress: prepare, the checksum warm-up, the query
// warm-up and the opening of a cell's connections each print progress lines
// while they run (they used to print nothing until they finished): rows
// loaded of all with rate and ETA, tables (and bytes) read of all, time run of
// the warm-up's time, connections opened of all.
func TestSuiteStepsShowProgress(t *testing.T) {
	t.Parallel()
	cfg := testdb.MySQL(t)
	plan := targetYAML(cfg) + `
name: progress
data:
  tables: 4
  table_size: 20000
matrix:
  workloads: [oltp_point_select]
  threads: [32]
  rounds: 1
run:
  time: 1
  connect_rate: 320 # ~0.1 s to open the cell's 32: many 2 ms progress ticks, whatever the machine's speed
steps:
  checksum_warmup: true
  query_warmup: {workload: oltp_read_only, threads: 2, time: 2}
`
	var out syncbuf.Buffer
	dir := filepath.Join(t.TempDir(), "suite")
	_, err := Run(context.Background(), loadPlan(t, writePlan(t, plan)), testEnv(), Options{
		Dir: dir, Out: &out, ProgressEvery: 2 * time.Millisecond, Tool: result.Tool{Name: "fairbench", Version: "test"},
	})
	text := out.String()
	if err != nil {
		t.Fatalf("suite: %v\n%s", err, text)
	}
	steps := []struct {
		name string
		line *regexp.Regexp
	}{
		{"prepare", regexp.MustCompile(`^   loaded (\d+ rows \([0-9.]+ rows/s\)|\d+/80000 rows \([0-9.]+%\), [0-9.]+ rows/s, ETA (\?|[0-9.hms]+))$`)},
		{"checksum warm-up", regexp.MustCompile(`^   warm-up: (0 tables \(0\.0 tables/s\)|[0-4]/4 tables, [0-9.]+ [KMG]?i?B of [0-9.]+ [KMG]?i?B \([0-9.]+%\), [0-9.]+ [KMG]?i?B/s, ETA (\?|[0-9.hms]+))$`)},
		{"query warm-up", regexp.MustCompile(`^   (query warm-up [0-2]\.0s of 2\.0s \([0-9.]+%\), ETA [0-9.]+s|opening connections: [0-2]/2 connections .*|opened 2 of 2 connections in \S+)$`)},
	}
	for _, s := range steps {
		lines := section(t, text, s.name)
		if len(lines) == 0 {
			t.Errorf("step %s printed no progress:\n%s", s.name, text)
		}
		for _, l := range lines {
			if !s.line.MatchString(l) {
				t.Errorf("step %s: line %q is not its progress line", s.name, l)
				break
			}
		}
	}
	// Rows were counted towards the total with a real ETA on the way.
	if !regexp.MustCompile(`(?m)^   loaded [1-9]\d*/80000 rows \([0-9.]+%\), [0-9.]+ rows/s, ETA [0-9.hms]+$`).MatchString(text) {
		t.Errorf("prepare never showed rows loaded of 80000 with an ETA:\n%s", text)
	}
	if !strings.Contains(text, "   query warm-up ") {
		t.Errorf("the query warm-up never showed its time:\n%s", text)
	}
	if !regexp.MustCompile(`(?m)^   opening connections: \d+/32 connections`).MatchString(text) ||
		!regexp.MustCompile(`(?m)^   opened 32 of 32 connections in \S+$`).MatchString(text) {
		t.Errorf("the cell did not show its 32 connections opening:\n%s", text)
	}
}
