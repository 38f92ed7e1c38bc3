package oltp

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/workload"
)

// sizeTolerance is how far above --table-size the largest id of a table may
// be before a run warns: the write workloads insert rows and oltp_insert adds
// them, so a table grows a little from run to run.
const sizeTolerance = 0.1

// maxListed bounds the tables a warning names.
const maxListed = 5

// tableMax is the largest id of one table.
type tableMax struct {
	table string
	max   int64
}

// Inspect reads MAX(id) of every table (an index lookup) and compares it with
// --table-size: ids are drawn from 1..--table-size, so a table whose ids end
// below it has ids that find no row, and one whose ids go past
// 1.1 × --table-size has rows no event reaches. Either way the run goes on
// (a smaller size is sometimes deliberate) with a warning naming both
// figures; the result keeps the size asked for and records the one found.
func (w *oltp) Inspect(ctx context.Context, conn driver.Conn, _ driver.Dialect) (workload.DataReport, error) {
	want := w.rowsPerTable()
	if want == 0 {
		// oltp_insert --auto-inc=off starts from empty tables and inserts ids
		// of its own: --table-size describes no loaded data.
		return workload.DataReport{}, nil
	}
	maxes := make([]tableMax, 0, w.opts.Tables)
	for n := 1; n <= w.opts.Tables; n++ {
		name := tableName(n)
		rows, err := conn.QueryStrings(ctx, "SELECT COALESCE(MAX(id), 0) FROM "+name)
		if err != nil {
			return workload.DataReport{}, fmt.Errorf("reading the largest id of %s: %w", name, err)
		}
		if len(rows) != 1 || len(rows[0]) != 1 {
			return workload.DataReport{}, fmt.Errorf("reading the largest id of %s: got %d rows", name, len(rows))
		}
		v, err := strconv.ParseInt(rows[0][0], 10, 64)
		if err != nil {
			return workload.DataReport{}, fmt.Errorf("reading the largest id of %s: %q: %w", name, rows[0][0], err)
		}
		maxes = append(maxes, tableMax{name, v})
	}
	return w.sizeReport(want, maxes), nil
}

// sizeReport compares the largest ids of the tables with want rows per table.
func (w *oltp) sizeReport(want int64, maxes []tableMax) workload.DataReport {
	lo, hi := maxes[0].max, maxes[0].max
	var below, above []tableMax
	limit := int64(float64(want) * (1 + sizeTolerance))
	for _, m := range maxes {
		lo, hi = min(lo, m.max), max(hi, m.max)
		switch {
		case m.max < want:
			below = append(below, m)
		case m.max > limit:
			above = append(above, m)
		}
	}
	found := strconv.FormatInt(lo, 10)
	if hi != lo {
		found += ".." + strconv.FormatInt(hi, 10)
	}
	source := "MAX(id) of " + maxes[0].table
	if len(maxes) > 1 {
		source += ".." + maxes[len(maxes)-1].table
	}
	check := result.DataCheck{Option: "table-size", Asked: strconv.FormatInt(want, 10), Found: found, Source: source,
		Differs: len(below)+len(above) > 0}
	rep := workload.DataReport{Checks: []result.DataCheck{check}}
	fix := fmt.Sprintf("give the --table-size of the data, or load %d rows per table with 'fairbench prepare %s --tables=%d --table-size=%d --replace'",
		want, w.kind.name(), w.opts.Tables, want)
	if len(below) > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("--table-size is %d, but the largest id is %s: ids drawn past a table's largest id find no row, so this is not the data set asked for; %s",
			want, listMaxes(below), fix))
	}
	if len(above) > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("--table-size is %d, but the largest id is %s (more than %.0f%% above): the rows past id %d are never reached, so this is not the data set asked for; %s",
			want, listMaxes(above), sizeTolerance*100, want, fix))
	}
	return rep
}

// listMaxes renders "5000 in sbtest1, 4000 in sbtest2 and 3 more tables".
func listMaxes(ms []tableMax) string {
	parts := make([]string, 0, maxListed)
	for _, m := range ms[:min(len(ms), maxListed)] {
		parts = append(parts, fmt.Sprintf("%d in %s", m.max, m.table))
	}
	s := strings.Join(parts, ", ")
	if len(ms) > maxListed {
		s += fmt.Sprintf(" and %d more tables", len(ms)-maxListed)
	}
	return s
}

// compile-time check that oltp inspects its data.
var _ workload.Inspector = (*oltp)(nil)
