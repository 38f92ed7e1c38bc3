package cost

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/base/lazyre"
)

// cell is a table cell: text for people, raw for CSV.
type cell struct{ text, raw string }

func txt(s string) cell            { return cell{s, s} }
func num(s string, x float64) cell { return cell{s, raw(x)} }

type column struct {
	head  string
	right bool // numbers are right-aligned; in CSV the column holds only numbers
	// csvOnly columns are written to CSV alone: the unit of a price whose
	// number is in the column before.
	csvOnly bool
}

// table is one of a report's tables, rendered by every writer.
type table struct {
	id       string // CSV's first field, e.g. "cost" or "evaluation"
	title    string
	cols     []column
	rows     [][]cell
	notes    []string
	noHeader bool // key/value tables print without a header in text
}

func (t *table) add(cells ...cell) { t.rows = append(t.rows, cells) }

// human is the table as text and Markdown show it: without its CSV-only
// columns.
func (t *table) human() *table {
	if !slices.ContainsFunc(t.cols, func(c column) bool { return c.csvOnly }) {
		return t
	}
	h := *t
	h.cols, h.rows = nil, nil
	for _, c := range t.cols {
		if !c.csvOnly {
			h.cols = append(h.cols, c)
		}
	}
	for _, row := range t.rows {
		var r []cell
		for j, c := range row {
			if !t.cols[j].csvOnly {
				r = append(r, c)
			}
		}
		h.rows = append(h.rows, r)
	}
	return &h
}

// csvRecords are the table's header and rows as CSV writes them: a numeric
// column holds only numbers (or nothing); a word in one ("baseline", "does
// not fit") moves to a last column, note, added when some row has one.
func (t *table) csvRecords() [][]string {
	head := make([]string, 0, len(t.cols)+1)
	for _, c := range t.cols {
		head = append(head, c.head)
	}
	rows := make([][]string, 0, len(t.rows))
	hasNote := false
	for _, row := range t.rows {
		rec := make([]string, 0, len(row)+1)
		var notes []string
		for j, c := range row {
			v := c.raw
			if t.cols[j].right && v != "" {
				if _, err := strconv.ParseFloat(v, 64); err != nil {
					if !slices.Contains(notes, v) {
						notes = append(notes, v)
					}
					v = ""
				}
			}
			rec = append(rec, v)
		}
		if len(notes) > 0 {
			hasNote = true
		}
		rec = append(rec, strings.Join(notes, "; "))
		rows = append(rows, rec)
	}
	if !hasNote {
		for i := range rows {
			rows[i] = rows[i][:len(rows[i])-1]
		}
	} else {
		head = append(head, "note")
	}
	return append([][]string{head}, rows...)
}

// tables lays the report out as the tables every writer renders.
func (r *Report) tables() []*table {
	var out []*table
	out = append(out, r.sheetTable())
	if len(r.Costs) > 0 {
		out = append(out, r.costsTable())
		for _, c := range r.Costs {
			out = append(out, linesTable(c))
		}
	}
	for _, ev := range r.Evaluations {
		out = append(out, evaluationTable(ev))
	}
	for _, ec := range r.EqualCosts {
		out = append(out, equalCostTable(ec))
	}
	if len(r.Claims) > 0 {
		t := &table{id: "claims", title: "What the rounds show", cols: []column{{head: "claim"}}, noHeader: true}
		for _, c := range r.Claims {
			t.add(txt(c))
		}
		out = append(out, t)
	}
	if len(r.Warnings) > 0 {
		t := &table{id: "warnings", title: "Warnings", cols: []column{{head: "warning"}}, noHeader: true}
		for _, w := range r.Warnings {
			t.add(txt("warning: " + w))
		}
		out = append(out, t)
	}
	return out
}

func (r *Report) sheetTable() *table {
	s := r.Sheet
	t := &table{id: "sheet", title: "Price sheet", noHeader: true, cols: []column{{head: "key"}, {head: "value"}}}
	t.add(txt("file"), txt(s.File))
	t.add(txt("source"), txt(s.Source))
	if s.URL != "" {
		t.add(txt("url"), txt(s.URL))
	}
	if s.Date != "" {
		t.add(txt("date"), txt(s.Date))
	}
	t.add(txt("currency"), txt(s.Currency))
	t.add(txt("hours per month"), num(trimFloat(s.HoursPerMonth), s.HoursPerMonth))
	t.add(txt("period"), txt(fmt.Sprintf("%s (%d months)", s.Period, s.PeriodMonths)))
	if s.RoundMonthlyTo > 0 {
		t.add(txt("monthly lines rounded to"), num(trimFloat(s.RoundMonthlyTo), s.RoundMonthlyTo))
	}
	if s.Notes != "" {
		t.add(txt("notes"), txt(strings.Join(strings.Fields(s.Notes), " ")))
	}
	return t
}

func (r *Report) costsTable() *table {
	p := r.Sheet.Period
	t := &table{id: "costs", title: fmt.Sprintf("Costs (%s)", r.Sheet.Currency), cols: []column{
		{head: "system"}, {head: "arch"}, {head: "vCPU", right: true},
		{head: "compute/month", right: true}, {head: "storage/month", right: true}, {head: "fees/month", right: true},
		{head: "hour", right: true}, {head: "month", right: true}, {head: "year", right: true}, {head: p, right: true}}}
	for _, c := range r.Costs {
		t.add(txt(c.System), txt(c.Arch), vcpuCell(c.VCPU),
			num(money(c.ComputeMonthly), c.ComputeMonthly), num(money(c.StorageMonthly), c.StorageMonthly),
			num(money(c.FeesMonthly), c.FeesMonthly), num(hourly(c.Hourly), c.Hourly),
			num(money(c.Monthly), c.Monthly), num(money(c.Yearly), c.Yearly), num(money(c.PeriodCost), c.PeriodCost))
	}
	return t
}

func linesTable(c *SystemCost) *table {
	title := "Cost of " + c.System
	if c.Description != "" {
		title += ": " + c.Description
	}
	if c.VCPU > 0 {
		title += fmt.Sprintf(" (%s, %d vCPU, %s)", c.Arch, c.VCPU, c.Currency)
	} else {
		title += fmt.Sprintf(" (%s, %s)", c.Arch, c.Currency)
	}
	t := &table{id: "lines:" + c.System, title: title, cols: []column{
		{head: "role"}, {head: "kind"}, {head: "item"}, {head: "count", right: true}, {head: "unit price", right: true},
		{head: "per", csvOnly: true}, {head: "hour", right: true}, {head: "month", right: true}, {head: c.Period, right: true}}}
	for _, l := range c.Lines {
		t.add(txt(l.Role), txt(string(l.Kind)), txt(l.Name), num(strconv.Itoa(l.Count), float64(l.Count)),
			num(l.UnitPrice.String(), l.UnitPrice.Amount), txt(string(l.UnitPrice.Per)),
			num(hourly(l.Hourly), l.Hourly), num(money(l.Monthly), l.Monthly), num(money(l.Period), l.Period))
	}
	t.add(txt("total"), txt(""), txt(""), txt(""), txt(""), txt(""), num(hourly(c.Hourly), c.Hourly), num(money(c.Monthly), c.Monthly), num(money(c.PeriodCost), c.PeriodCost))
	return t
}

func evaluationTable(ev *Evaluation) *table {
	title := "Cost comparison"
	if ev.Scenario != "" {
		title = "Equal compute (same vCPU, cost allowed to differ)"
	}
	if ev.Workload != "" {
		title += ": " + ev.Workload
	}
	pp, pd := basisLabel(ev.PricePerf, ev.Period), basisLabel(ev.PerDollar, ev.Period)
	m, cur := ev.Metric, ev.Currency
	t := &table{id: "evaluation", title: title}
	t.cols = []column{{head: "system"}, {head: "arch"}, {head: "vCPU", right: true}}
	power := slices.ContainsFunc(ev.Rows, func(r Row) bool { return r.ComputePower > 0 })
	if power {
		t.cols = append(t.cols, column{head: "vCPU×GHz", right: true})
	}
	t.cols = append(t.cols, column{head: "cost/" + pp, right: true})
	if pd != pp {
		t.cols = append(t.cols, column{head: "cost/" + pd, right: true})
	}
	if ev.HasThroughput {
		t.cols = append(t.cols, column{head: m, right: true}, column{head: m + " per " + cur + "/" + pd, right: true},
			column{head: cur + "/" + pp + " per " + m, right: true})
	}
	t.cols = append(t.cols, column{head: "cost %", right: true})
	if ev.HasThroughput {
		t.cols = append(t.cols, column{head: m + " %", right: true}, column{head: "per " + cur + " %", right: true},
			column{head: "price-perf %", right: true})
	}
	for _, r := range ev.Rows {
		cells := []cell{txt(r.System), txt(r.Arch), vcpuCell(r.VCPU)}
		if power {
			cells = append(cells, powerCell(r.ComputePower))
		}
		cpp := r.Cost.On(ev.PricePerf)
		cells = append(cells, num(money(cpp), cpp))
		if pd != pp {
			cpd := r.Cost.On(ev.PerDollar)
			cells = append(cells, num(money(cpd), cpd))
		}
		if ev.HasThroughput {
			cells = append(cells, num(figure(r.Throughput), r.Throughput), num(ratio(r.PerDollar), r.PerDollar),
				num(ratio(r.PricePerformance), r.PricePerformance))
		}
		if r.Diff == nil {
			cells = append(cells, txt("baseline"))
			if ev.HasThroughput {
				cells = append(cells, txt(""), txt(""), txt(""))
			}
		} else {
			cells = append(cells, pctCell(r.Diff.Cost))
			if ev.HasThroughput {
				cells = append(cells, pctCell(r.Diff.Throughput), pctCell(r.Diff.PerDollar), pctCell(r.Diff.PricePerformance))
			}
		}
		t.add(cells...)
	}
	if ev.HasThroughput {
		t.notes = append(t.notes, fmt.Sprintf("%s: %s. Price-performance is cost/%s ÷ %s: lower is better.",
			m, describeRows(ev.Rows, m), pp, m))
	}
	t.notes = append(t.notes, centerNote(ev.HasThroughput, m, ev.Center)...)
	t.notes = append(t.notes, fmt.Sprintf("%% is (system − %s) ÷ %s.", ev.Baseline, ev.Baseline))
	markMixed(t, ev.Mixed)
	markOutages(t, ev.Outages)
	return t
}

// centerNote says which statistic of each thread count's rounds the
// throughputs are, when they are of rounds.
func centerNote(hasThroughput bool, metric, center string) []string {
	if !hasThroughput || center == "" {
		return nil
	}
	return []string{fmt.Sprintf("%s at each thread count is the %s of its rounds.", metric, center)}
}

// markMixed marks a table whose throughputs are of different data sets,
// distributions or profiles: its title, each row (a mixed column whose CSV
// field says what was mixed) and a footnote.
func markMixed(t *table, mixed string) {
	if mixed == "" {
		return
	}
	t.title += " " + analysis.MixedMark + " mixed"
	t.cols = append(t.cols, column{head: "mixed"})
	for i := range t.rows {
		t.rows[i] = append(t.rows[i], cell{text: analysis.MixedMark, raw: mixed})
	}
	t.notes = append(t.notes, fmt.Sprintf("%s mixed: %s (put together by --allow-mixed: not the same measurement).", analysis.MixedMark, mixed))
}

// markOutages marks a table whose throughputs include runs during which the
// server went away: its title and a footnote saying which.
func markOutages(t *table, outages string) {
	if outages == "" {
		return
	}
	t.title += " " + analysis.OutageMark + " outage"
	t.notes = append(t.notes, fmt.Sprintf("%s outage: the throughputs of %s include runs during which the server went away or stopped answering (complete: it was back within 5 %% of the measured phase); run them again for figures of the server up.", analysis.OutageMark, outages))
}

// describeRows says what the rows' throughput is, when they agree on it.
func describeRows(rows []Row, metric string) string {
	for _, r := range rows[1:] {
		if !slices.Equal(r.Threads, rows[0].Threads) {
			return "mean over each system's own thread counts"
		}
	}
	d := describe(metric, rows[0].Threads)
	if d == metric {
		return "as given"
	}
	return strings.TrimPrefix(strings.TrimPrefix(d, metric), ", ")
}

func equalCostTable(ec *EqualCost) *table {
	title := "Equal cost: " + ec.String()
	if ec.Workload != "" {
		title += ": " + ec.Workload
	}
	m, cur, per := ec.Metric, ec.Currency, basisLabel(ec.Per, ec.Period)
	t := &table{id: "equal_cost", title: title}
	t.cols = []column{{head: "system"}, {head: "arch"}, {head: "one/" + per, right: true}, {head: "count", right: true},
		{head: "spent", right: true}, {head: "left", right: true}, {head: "vCPU", right: true}}
	vcpus := !slices.ContainsFunc(ec.Rows, func(r EqualCostRow) bool { return r.VCPU == 0 && r.Count > 0 })
	power := slices.ContainsFunc(ec.Rows, func(r EqualCostRow) bool { return r.ComputePower > 0 })
	if power {
		t.cols = append(t.cols, column{head: "vCPU×GHz", right: true})
	}
	if ec.HasThroughput {
		t.cols = append(t.cols, column{head: m + " each", right: true}, column{head: m + " total", right: true},
			column{head: m + " per " + cur + "/" + per, right: true})
	}
	// The % columns, each with the difference it shows.
	type diffCol struct {
		head string
		of   func(*EqualCostDiff) float64
	}
	var diffs []diffCol
	if vcpus {
		diffs = append(diffs, diffCol{"vCPU %", func(d *EqualCostDiff) float64 { return d.VCPU }})
	}
	if power {
		diffs = append(diffs, diffCol{"vCPU×GHz %", func(d *EqualCostDiff) float64 { return d.ComputePower }})
	}
	if ec.HasThroughput {
		diffs = append(diffs, diffCol{m + " %", func(d *EqualCostDiff) float64 { return d.TotalThroughput }},
			diffCol{"per " + cur + " %", func(d *EqualCostDiff) float64 { return d.PerDollar }})
	}
	diffs = append(diffs, diffCol{"spent %", func(d *EqualCostDiff) float64 { return d.Spent }})
	for _, d := range diffs {
		t.cols = append(t.cols, column{head: d.head, right: true})
	}
	for _, r := range ec.Rows {
		cells := []cell{txt(r.System), txt(r.Arch), num(money(r.UnitCost), r.UnitCost), num(strconv.Itoa(r.Count), float64(r.Count)),
			num(money(r.Spent), r.Spent), num(money(r.Leftover), r.Leftover), vcpuCell(r.VCPU)}
		if power {
			cells = append(cells, powerCell(r.ComputePower))
		}
		if ec.HasThroughput {
			cells = append(cells, num(figure(r.Throughput), r.Throughput), num(figure(r.TotalThroughput), r.TotalThroughput),
				num(ratio(r.PerDollar), r.PerDollar))
		}
		for i, d := range diffs {
			switch {
			case r.Diff != nil:
				cells = append(cells, pctCell(d.of(r.Diff)))
			case i > 0:
				cells = append(cells, txt(""))
			case r.Count == 0:
				cells = append(cells, txt("does not fit"))
			case r.System == ec.Baseline:
				cells = append(cells, txt("baseline"))
			default:
				cells = append(cells, txt(""))
			}
		}
		t.add(cells...)
	}
	if ec.HasThroughput {
		t.notes = append(t.notes, fmt.Sprintf("%s total = count × %s each: it assumes copies add up their throughput (an upper bound).", m, m))
	}
	if out := ec.DoesNotFit(); len(out) > 0 {
		t.notes = append(t.notes, fmt.Sprintf("Not one copy of %s fits the budget: raise it, or allow overspend.", strings.Join(out, ", ")))
	}
	t.notes = append(t.notes, centerNote(ec.HasThroughput, m, ec.Center)...)
	t.notes = append(t.notes, fmt.Sprintf("%% is (system − %s) ÷ %s.", ec.Baseline, ec.Baseline))
	markMixed(t, ec.Mixed)
	markOutages(t, ec.Outages)
	return t
}

// vcpuCell leaves a vCPU count the sheet does not give (0) empty.
func vcpuCell(n int) cell {
	if n == 0 {
		return txt("")
	}
	return num(strconv.Itoa(n), float64(n))
}

func powerCell(x float64) cell {
	if x == 0 {
		return txt("")
	}
	return num(trimFloat(roundTo(x, 0.01)), x)
}

func pctCell(x float64) cell { return num(percent(x), x) }

// WriteText writes the report as aligned plain-text tables.
func WriteText(w io.Writer, r *Report) error {
	var b strings.Builder
	for i, t := range r.tables() {
		t = t.human()
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(t.title + "\n")
		rows := t.rows
		if !t.noHeader {
			head := make([]cell, len(t.cols))
			for j, c := range t.cols {
				head[j] = txt(c.head)
			}
			rows = append([][]cell{head}, rows...)
		}
		widths := make([]int, len(t.cols))
		for _, row := range rows {
			for j, c := range row {
				widths[j] = max(widths[j], len([]rune(c.text)))
			}
		}
		for _, row := range rows {
			var line strings.Builder
			for j, c := range row {
				pad := strings.Repeat(" ", widths[j]-len([]rune(c.text)))
				if j > 0 {
					line.WriteString("  ")
				}
				if t.cols[j].right {
					line.WriteString(pad + c.text)
				} else {
					line.WriteString(c.text + pad)
				}
			}
			b.WriteString("  " + strings.TrimRight(line.String(), " ") + "\n")
		}
		for _, n := range t.notes {
			b.WriteString("  " + n + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes the report as Markdown: a heading and a table each.
func WriteMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	for i, t := range r.tables() {
		t = t.human()
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString("### " + mdEscape(t.title) + "\n\n")
		b.WriteString("|")
		for _, c := range t.cols {
			b.WriteString(" " + mdEscape(c.head) + " |")
		}
		b.WriteString("\n|")
		for _, c := range t.cols {
			if c.right {
				b.WriteString("---:|")
			} else {
				b.WriteString("---|")
			}
		}
		b.WriteString("\n")
		for _, row := range t.rows {
			b.WriteString("|")
			for _, c := range row {
				b.WriteString(" " + mdEscape(c.text) + " |")
			}
			b.WriteString("\n")
		}
		if len(t.notes) > 0 {
			b.WriteString("\n" + mdEscape(strings.Join(t.notes, " ")) + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdEscape keeps text from breaking a Markdown table.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// WriteCSV writes each table as a block: a header row whose first field is
// "table", then rows whose first field names the table ("sheet", "costs",
// "lines:SYSTEM", "evaluation", "equal_cost"); numbers are plain digits
// without separators, and numeric columns hold nothing else (a word such as
// "baseline" is in a last column, note); blocks are separated by an empty
// line. WriteCSVFiles writes the same tables one per file.
func WriteCSV(w io.Writer, r *Report) error {
	for i, t := range r.tables() {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		recs := t.csvRecords()
		for k, rec := range recs {
			first := t.id
			if k == 0 {
				first = "table"
			}
			recs[k] = append([]string{first}, rec...)
		}
		if err := writeCSVRecords(w, recs); err != nil {
			return err
		}
	}
	return nil
}

// CSVFile is one table of a report as a CSV file of its own.
type CSVFile struct {
	Name string // "evaluation.csv", "lines-x86-us.csv"
	Body []byte
}

// CSVFiles lays the report out as one CSV file per table, named after the
// table's id ("costs.csv", "lines-SYSTEM.csv", "evaluation-2.csv" for a
// second evaluation), each with its header row and the columns WriteCSV
// gives, without the table column.
func CSVFiles(r *Report) ([]CSVFile, error) {
	var files []CSVFile
	seen := map[string]int{}
	for _, t := range r.tables() {
		base := fileSafe().ReplaceAllString(t.id, "-")
		seen[base]++
		name := base
		if n := seen[base]; n > 1 {
			name = fmt.Sprintf("%s-%d", base, n)
		}
		var b strings.Builder
		if err := writeCSVRecords(&b, t.csvRecords()); err != nil {
			return nil, err
		}
		files = append(files, CSVFile{Name: name + ".csv", Body: []byte(b.String())})
	}
	return files, nil
}

// fileSafe matches what may not be in a file name made from a table id.
var fileSafe = lazyre.New(`[^A-Za-z0-9._-]+`)

// writeCSVRecords writes records with encoding/csv.
func writeCSVRecords(w io.Writer, recs [][]string) error {
	cw := csv.NewWriter(w)
	if err := cw.WriteAll(recs); err != nil {
		return err
	}
	return cw.Error()
}

// WriteJSON writes the report as indented JSON (the Report type's fields).
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteHTML writes the report as HTML fragments for a page: per table a
// caption, a <table> (numbers right-aligned, class "num") and its notes as
// paragraphs of class "note". Every text is escaped.
func WriteHTML(w io.Writer, r *Report) error {
	var b strings.Builder
	esc := html.EscapeString
	for _, t := range r.tables() {
		t = t.human()
		fmt.Fprintf(&b, "<table class=\"cost\" id=\"cost-%s\">\n<caption>%s</caption>\n", esc(t.id), esc(t.title))
		if !t.noHeader {
			b.WriteString("<tr>")
			for _, c := range t.cols {
				fmt.Fprintf(&b, "<th%s>%s</th>", numClass(c.right), esc(c.head))
			}
			b.WriteString("</tr>\n")
		}
		for _, row := range t.rows {
			b.WriteString("<tr>")
			for j, c := range row {
				fmt.Fprintf(&b, "<td%s>%s</td>", numClass(t.cols[j].right), esc(c.text))
			}
			b.WriteString("</tr>\n")
		}
		b.WriteString("</table>\n")
		for _, n := range t.notes {
			fmt.Fprintf(&b, "<p class=\"note\">%s</p>\n", esc(n))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func numClass(right bool) string {
	if right {
		return ` class="num"`
	}
	return ""
}
