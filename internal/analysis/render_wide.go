package analysis

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteWideCSV renders c in the seeds' layout for a spreadsheet: one record
// per row (workload, rand type, profile, data set, options, server CPU set,
// threads), one
// column per system's figure, then the frequency-scaled figures, the %
// differences against the baseline and the intervals of the changes — the
// main table's columns (MainColumns; an interval as three columns: its lower
// and upper bound in % and its p value), numbers at full precision, empty
// where a figure does not apply. mixed says what a mixed row puts together; outage is true when a
// figure of the row comes from a run whose server went away.
func WriteWideCSV(w io.Writer, c *Comparison) error {
	cw := csv.NewWriter(w)
	cols := c.MainColumns(c.Rows)
	head := []string{"workload", "rand_type", "profile", "data", "options", "server_cpus", "threads"}
	for _, col := range cols {
		if col.Kind == ColumnChange {
			head = append(head, col.Head+" lo %", col.Head+" hi %", col.Head+" p")
			continue
		}
		head = append(head, col.Head)
	}
	head = append(head, "mixed", "outage")
	if err := cw.Write(head); err != nil {
		return fmt.Errorf("write CSV: %w", err)
	}
	for _, r := range c.Rows {
		rec := []string{r.Key.Workload, r.Key.RandType, r.Key.Profile, r.Key.Data, r.Key.Options, r.Key.CPUs, strconv.Itoa(r.Key.Threads)}
		for _, col := range cols {
			if col.Kind == ColumnChange {
				lo, hi := r.Cells[col.System].Ratio.Pct()
				rec = append(rec, csvNum(lo), csvNum(hi), csvNum(col.Value(r)))
				continue
			}
			rec = append(rec, csvNum(col.Value(r)))
		}
		rec = append(rec, MixedString(r.Mixed), strconv.FormatBool(r.HasOutage()))
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("write CSV: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write CSV: %w", err)
	}
	return nil
}

// WriteWideMarkdown renders c as the seeds' tables alone, for a blog post:
// per workload a heading and the main table (one row per thread count, one
// column per system, the frequency-scaled figures and % beside them), its
// footnotes and the legend, and each sweep's scalability model (its
// parameters, readings and contrasts) — without the systems' descriptions,
// the differences, per-compute and rounds tables of WriteMarkdown.
func WriteWideMarkdown(w io.Writer, c *Comparison) error {
	d := layout(c)
	var b strings.Builder
	sections := c.Sections()
	first := true
	for _, sec := range d.body {
		if sec.ref.Kind == SectionCPUs || (sec.ref.Kind == SectionScaling && len(sec.tables) == 0) {
			continue // by server CPUs, and sweeps without a model: the full rendering has them
		}
		if !first {
			b.WriteString("\n")
		}
		first = false
		fmt.Fprintf(&b, "### %s\n\n", mdEscape(sec.title))
		switch {
		case sec.ref.Kind == SectionRows:
			writePipeTable(&b, c.mainTable(sections[sec.ref.Index]))
		default:
			writePipeTable(&b, sec.tables[0]) // a sweep's fitted parameters
		}
		for _, f := range sec.footnotes {
			b.WriteString("\n" + mdEscape(f) + "\n")
		}
	}
	b.WriteString("\n")
	for _, l := range d.legend {
		b.WriteString(mdEscape(l) + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
