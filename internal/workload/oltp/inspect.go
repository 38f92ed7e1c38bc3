package oltp

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/workload"
)

// sizeTolerance is how far above --table-size the largest id of a table may
// be before a run warns and a suite reloads: the write workloads insert rows
// and oltp_insert adds them, so a table grows a little from run to run.
const sizeTolerance = 0.1

// maxListed bounds the tables a warning names.
const maxListed = 5

// tableMax is the largest id of one table.
type tableMax struct {
	table string
	max   int64
}

// dataState is what the database holds of sbtest1..sbtest<tables>: the
// marks of an unfinished load, the largest id of every table and the tables
// whose secondary index k_<n> is not as --create-secondary says.
type dataState struct {
	marks marks
	maxes []tableMax
	// indexOff are the tables lacking k_<n> (with --create-secondary) or
	// having it (without); at most maxListed names, indexOffCount in all.
	indexOff      []string
	indexOffCount int
}

// readState reads the state of the tables: one catalog query for the tables
// and one for the indexes, the marks, and MAX(id) of every table (an index
// lookup, however large the table).
func (w *oltp) readState(ctx context.Context, conn driver.Conn, d driver.Dialect) (dataState, error) {
	var st dataState
	present, err := workload.ListTables(ctx, conn, d)
	if err != nil {
		return st, err
	}
	if st.marks, err = readMarks(ctx, conn, present, w.opts.Tables); err != nil {
		return st, err
	}
	if len(st.marks) > 0 {
		return st, nil // refused: the rest does not matter
	}
	indexes, err := workload.ListIndexes(ctx, conn, d)
	if err != nil {
		return st, err
	}
	st.maxes = make([]tableMax, 0, w.opts.Tables)
	for n := 1; n <= w.opts.Tables; n++ {
		name := tableName(n)
		if indexes[workload.IndexKey(name, indexName(n))] != w.opts.CreateSecondary {
			st.indexOffCount++
			if len(st.indexOff) < maxListed {
				st.indexOff = append(st.indexOff, name)
			}
		}
		rows, err := conn.QueryStrings(ctx, "SELECT COALESCE(MAX(id), 0) FROM "+name)
		if err != nil {
			return st, fmt.Errorf("reading the largest id of %s: %w", name, err)
		}
		if len(rows) != 1 || len(rows[0]) != 1 {
			return st, fmt.Errorf("reading the largest id of %s: got %d rows", name, len(rows))
		}
		v, err := strconv.ParseInt(rows[0][0], 10, 64)
		if err != nil {
			return st, fmt.Errorf("reading the largest id of %s: %q: %w", name, rows[0][0], err)
		}
		st.maxes = append(st.maxes, tableMax{name, v})
	}
	return st, nil
}

// Inspect reads the state of every table (readState). Tables an interrupted
// prepare left marked are refused with the command that loads them again.
// Otherwise MAX(id) of each is compared with --table-size: ids are drawn
// from 1..--table-size, so a table whose ids end below it has ids that find
// no row, and one whose ids go past 1.1 × --table-size has rows no event
// reaches; and the secondary index k_<n> with --create-secondary. Either way
// the run goes on (a smaller size is sometimes deliberate, and tables
// sysbench loaded carry no mark) with a warning naming both figures; the
// result keeps the size asked for and records the one found.
func (w *oltp) Inspect(ctx context.Context, conn driver.Conn, d driver.Dialect) (workload.DataReport, error) {
	st, err := w.readState(ctx, conn, d)
	if err != nil {
		return workload.DataReport{}, err
	}
	if err := st.marks.refusal("load them again with '" + w.reloadCommand() + "'"); err != nil {
		return workload.DataReport{}, err
	}
	var rep workload.DataReport
	if want := w.rowsPerTable(); want > 0 {
		// oltp_insert --auto-inc=off starts from empty tables and inserts ids
		// of its own: --table-size describes no loaded data.
		rep = w.sizeReport(want, st.maxes)
	}
	if st.indexOffCount > 0 {
		rep.Checks = append(rep.Checks, w.indexCheck(st))
		rep.Warnings = append(rep.Warnings, w.indexWarning(st))
	}
	return rep, nil
}

// indexCheck is the data check of --create-secondary, when tables differ.
func (w *oltp) indexCheck(st dataState) result.DataCheck {
	notAsked := !w.opts.CreateSecondary
	found := onOff{&notAsked}.String()
	if st.indexOffCount < w.opts.Tables {
		found = fmt.Sprintf("%s in %d of %d tables", found, st.indexOffCount, w.opts.Tables)
	}
	return result.DataCheck{Option: "create-secondary", Asked: onOff{&w.opts.CreateSecondary}.String(), Found: found,
		Source: "the indexes k_<n> of the tables", Differs: true}
}

// indexDiffers says which tables' secondary index is not as asked:
// "--create-secondary is on, but sbtest2 lacks the secondary index on k".
func (w *oltp) indexDiffers(st dataState) string {
	names := strings.Join(st.indexOff, ", ")
	if st.indexOffCount > len(st.indexOff) {
		names += fmt.Sprintf(" and %d more tables", st.indexOffCount-len(st.indexOff))
	}
	has := map[bool]string{true: "lacks", false: "has"}[w.opts.CreateSecondary]
	if st.indexOffCount > 1 {
		has = map[bool]string{true: "lack", false: "have"}[w.opts.CreateSecondary]
	}
	return fmt.Sprintf("--create-secondary is %s, but %s %s the secondary index on k (k_<n>)", onOff{&w.opts.CreateSecondary}.String(), names, has)
}

// indexWarning is indexDiffers with what it means and the fix.
func (w *oltp) indexWarning(st dataState) string {
	return fmt.Sprintf("%s: lookups on k and the cost of index updates are not those of the data set asked for; give the --create-secondary of the data, or load it again with '%s'",
		w.indexDiffers(st), w.reloadCommand())
}

// mismatch says in a few words how the data differs from what the options
// would load, for a suite deciding whether to reuse it ("" when it matches).
func (w *oltp) mismatch(st dataState) string {
	if len(st.marks) > 0 {
		return st.marks.refusal("").Error()
	}
	want := w.rowsPerTable()
	limit := int64(float64(want) * (1 + sizeTolerance))
	for _, m := range st.maxes {
		if m.max < want || m.max > limit {
			return fmt.Sprintf("the largest id of %s is %d, not %d", m.table, m.max, want)
		}
	}
	if st.indexOffCount > 0 {
		return w.indexDiffers(st)
	}
	return ""
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
	fix := fmt.Sprintf("give the --table-size of the data, or load %d rows per table with '%s'", want, w.reloadCommand())
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
