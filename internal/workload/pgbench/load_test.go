package pgbench

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/base/progress"
)

// TestLoadWatchLines: pgbench's progress lines, on a clock that advances
// 10.3 µs per row (10.3 s for the million rows): every 100000 rows, or, quiet
// (-q), at the first row checked after each 5 s and at the end.
func TestLoadWatchLines(t *testing.T) {
	const total = 1000000
	for _, tc := range []struct {
		quiet bool
		want  []string
	}{
		{false, []string{
			"100000 of 1000000 tuples (10%) done (elapsed 1.03 s, remaining 9.27 s)",
			"200000 of 1000000 tuples (20%) done (elapsed 2.06 s, remaining 8.24 s)",
			"300000 of 1000000 tuples (30%) done (elapsed 3.09 s, remaining 7.21 s)",
			"400000 of 1000000 tuples (40%) done (elapsed 4.12 s, remaining 6.18 s)",
			"500000 of 1000000 tuples (50%) done (elapsed 5.15 s, remaining 5.15 s)",
			"600000 of 1000000 tuples (60%) done (elapsed 6.18 s, remaining 4.12 s)",
			"700000 of 1000000 tuples (70%) done (elapsed 7.21 s, remaining 3.09 s)",
			"800000 of 1000000 tuples (80%) done (elapsed 8.24 s, remaining 2.06 s)",
			"900000 of 1000000 tuples (90%) done (elapsed 9.27 s, remaining 1.03 s)",
			"1000000 of 1000000 tuples (100%) done (elapsed 10.30 s, remaining 0.00 s)",
		}},
		{true, []string{
			"485500 of 1000000 tuples (48%) done (elapsed 5.00 s, remaining 5.30 s)",
			"970900 of 1000000 tuples (97%) done (elapsed 10.00 s, remaining 0.30 s)",
			"1000000 of 1000000 tuples (100%) done (elapsed 10.30 s, remaining 0.00 s)",
		}},
	} {
		var j int64
		base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		clock := func() time.Time { return base.Add(time.Duration(j) * 10300 * time.Nanosecond) }
		var log bytes.Buffer
		prog := progress.NewCounter(total)
		w := newLoadWatch(&log, tc.quiet, prog, total, clock)
		for j = 1; j <= total; j++ {
			w.row(j)
			if j == 123456 && prog.Done() != 123000 {
				t.Errorf("counter at row 123456: %d, want 123000 (counted every 1000 rows)", prog.Done())
			}
		}
		w.flush()
		got := strings.Split(strings.TrimSpace(log.String()), "\n")
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("quiet %v:\n got %q\nwant %q", tc.quiet, got, tc.want)
		}
		if prog.Done() != total {
			t.Errorf("counter ended at %d", prog.Done())
		}
	}
}
