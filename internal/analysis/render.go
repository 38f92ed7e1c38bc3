package analysis

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// table is one rendered table: a header and rows of cells; left marks the
// columns aligned left (the others align right).
type table struct {
	caption string
	header  []string
	rows    [][]string
	left    map[int]bool
}

// section is one workload's tables and the footnotes under them.
type section struct {
	title     string
	tables    []table
	footnotes []string
	// ref says which part of the comparison the section renders.
	ref SectionRef
}

// SectionRef names the part of a comparison a rendered section shows: the
// Index-th of Comparison.Sections (Kind SectionRows), of Comparison.ByCPUs
// (SectionCPUs) or of Comparison.Scaling (SectionScaling).
type SectionRef struct {
	Kind  string
	Index int
}

// The kinds of SectionRef.
const (
	SectionRows    = "rows"
	SectionCPUs    = "cpus"
	SectionScaling = "scaling"
)

// document is a comparison laid out for text and Markdown.
type document struct {
	title   string
	differs *table // what differs between the systems; nil with one system
	systems []string
	notes   []string
	legend  []string
	body    []section
}

// layout lays out c for the text renderers.
func layout(c *Comparison) document {
	base := c.BaselineSystem()
	better := "higher is better"
	if c.Metric.LowerIsBetter {
		better = "lower is better"
	}
	// One system is measured, not compared: nothing is against a baseline.
	d := document{title: fmt.Sprintf("Figures of %s (%s), %s of rounds", c.Metric.Unit, better, c.Center)}
	if len(c.Systems) > 1 {
		d.title = fmt.Sprintf("Comparison of %s (%s), %s of rounds, baseline %s", c.Metric.Unit, better, c.Center, base.Label)
	}
	if len(c.Systems) > 1 {
		t := c.Differences.table()
		d.differs = &t
	}
	for _, s := range c.Systems {
		d.systems = append(d.systems, s.Label+": "+describeSystem(s))
	}
	d.notes = c.Notes
	sections := c.Sections()
	for i, rows := range sections {
		main := c.layoutSection(rows)
		main.ref = SectionRef{SectionRows, i}
		d.body = append(d.body, main)
		g := rows[0].Key
		if ss := c.ScaleSectionOf(g, SweepThreads); ss != nil {
			d.body = append(d.body, c.layoutScaling(*ss))
		}
		// A key group's by-CPUs table follows its last CPU set's section.
		if i+1 < len(sections) && sameBesideCPUs(sections[i+1][0].Key, g) {
			continue
		}
		if cs := c.cpuSectionOf(g); cs != nil {
			d.body = append(d.body, c.layoutCPUSection(*cs))
			if ss := c.ScaleSectionOf(g, SweepCPUs); ss != nil {
				d.body = append(d.body, c.layoutScaling(*ss))
			}
		}
	}
	d.legend = c.Legend()
	return d
}

// Legend explains the main tables' columns and marks: the frequency
// scaling (when scaled) and the significance test; nothing for one system,
// which has neither.
func (c *Comparison) Legend() []string {
	if len(c.Systems) < 2 {
		return nil
	}
	base := c.BaselineSystem()
	var legend []string
	if c.Scaled {
		formula := fmt.Sprintf("value × %s GHz / system GHz", fmtGHz(base.GHz))
		if c.Metric.LowerIsBetter {
			formula = fmt.Sprintf("value × system GHz / %s GHz", fmtGHz(base.GHz))
		}
		legend = append(legend, fmt.Sprintf("fscaled: the value at the baseline's frequency, %s.", formula))
	}
	return append(legend, fmt.Sprintf("%g%% CI: the %g %% confidence interval of the change against %s, in %% (%s; docs/statistics.md); %s marks an interval that holds no change: the rounds could not tell — not \"no difference\"; %s too few: a side has fewer than two rounds.",
		c.confidence()*100, c.confidence()*100, base.Label, MethodWelchLog, CouldNotTellMark, CouldNotTellMark))
}

// sectionTitle names a key group as section titles do: "tpcc (uniform,
// w100)", "oltp_point_select (uniform, 1x10000, cpus=4)".
func sectionTitle(k Key) string {
	title := k.Workload
	var qual []string
	for _, p := range []string{k.RandType, k.Profile, k.Data, k.Options, k.CPUs} {
		if p != "" {
			qual = append(qual, p)
		}
	}
	if len(qual) > 0 {
		title += " (" + strings.Join(qual, ", ") + ")"
	}
	return title
}

// sameBesideCPUs reports whether a and b are of one key group but for their
// CPU sets.
func sameBesideCPUs(a, b Key) bool {
	a.CPUs, a.Threads, b.CPUs, b.Threads = "", 0, "", 0
	return a == b
}

// layoutSection lays out the tables of one key group.
func (c *Comparison) layoutSection(rows []Row) section {
	sec := section{title: sectionTitle(rows[0].Key)}
	if len(rows[0].Mixed) > 0 {
		sec.title += " " + MixedMark + " mixed"
		sec.footnotes = append(sec.footnotes, fmt.Sprintf("%s mixed: %s (put together by --allow-mixed: not the same measurement).", MixedMark, MixedString(rows[0].Mixed)))
	}
	sec.tables = append(sec.tables, c.mainTable(rows))
	if n := caveatNote(c.Systems, rows); n != "" {
		sec.footnotes = append(sec.footnotes, n)
	}
	if c.PerCompute {
		sec.tables = append(sec.tables, c.computeTable(rows))
	}
	for _, r := range rows {
		if slices.ContainsFunc(r.Cells, func(cl Cell) bool { return cl.Stats.N > 1 }) {
			sec.tables = append(sec.tables, c.roundsTable(rows))
			break
		}
	}
	return sec
}

// CaveatCV is the coefficient of variation between a cell's rounds above
// which its figure is flagged as resting on noisy rounds.
const CaveatCV = 0.10

// FigureCaveat says why a figure of st needs care: "one round" when it
// rests on a single round, "CV 12 %" when its rounds vary by more than
// CaveatCV; "" otherwise (and without a figure).
func FigureCaveat(st Stats) string {
	switch {
	case st.N == 1:
		return "one round"
	case st.N > 1 && st.CV > CaveatCV:
		return "CV " + fmtPct(st.CV*100) + " %"
	}
	return ""
}

// caveatNote is the footnote of a main table naming, per system, the
// thread counts whose figures rest on one round and those whose rounds
// vary by more than CaveatCV (consecutive rows as a range, with the largest
// CV); "" when no figure needs such care.
func caveatNote(systems []*System, rows []Row) string {
	var single, noisy []string
	for i, s := range systems {
		var one, cv []string
		for j := 0; j < len(rows); {
			st := rows[j].Cells[i].Stats
			isOne, isNoisy := st.N == 1, st.N > 1 && st.CV > CaveatCV
			if !isOne && !isNoisy {
				j++
				continue
			}
			k, worst := j, st.CV
			for k+1 < len(rows) {
				next := rows[k+1].Cells[i].Stats
				if (isOne && next.N != 1) || (isNoisy && !(next.N > 1 && next.CV > CaveatCV)) {
					break
				}
				k++
				worst = math.Max(worst, next.CV)
			}
			at := threadRange(rows[j].Key.Threads, rows[k].Key.Threads)
			if isOne {
				one = append(one, at)
			} else {
				what := "CV " + fmtPct(worst*100) + " %"
				if k > j {
					what = "CV up to " + fmtPct(worst*100) + " %"
				}
				cv = append(cv, at+" ("+what+")")
			}
			j = k + 1
		}
		if len(one) > 0 {
			single = append(single, s.Label+" at "+strings.Join(one, ", "))
		}
		if len(cv) > 0 {
			noisy = append(noisy, s.Label+" at "+strings.Join(cv, ", "))
		}
	}
	var parts []string
	if len(single) > 0 {
		parts = append(parts, "figures resting on one round (no spread known, no test possible): "+strings.Join(single, "; "))
	}
	if len(noisy) > 0 {
		parts = append(parts, fmt.Sprintf("rounds varying by more than %s %% (coefficient of variation): %s", fmtPct(CaveatCV*100), strings.Join(noisy, "; ")))
	}
	if len(parts) == 0 {
		return ""
	}
	return "Caveat — " + strings.Join(parts, "; and ") + "."
}

// others returns the indexes of the systems other than the baseline.
func (c *Comparison) others() []int {
	var out []int
	for i := range c.Systems {
		if i != c.Baseline {
			out = append(out, i)
		}
	}
	return out
}

func (c *Comparison) mainTable(rows []Row) table {
	cols := c.MainColumns(rows)
	t := table{header: []string{"threads"}}
	for _, col := range cols {
		t.header = append(t.header, col.Head)
	}
	for _, r := range rows {
		line := []string{threadsCell(r)}
		for _, col := range cols {
			line = append(line, col.Text(r))
		}
		t.rows = append(t.rows, line)
	}
	return t
}

// ColumnKind is what a column of the main table holds.
type ColumnKind int

// The kinds of main table columns, in the order the seeds print them.
const (
	// ColumnFigure is a system's figure (Cell.Value).
	ColumnFigure ColumnKind = iota
	// ColumnFScaled is a system's figure at the baseline's frequency
	// (Cell.FScaled).
	ColumnFScaled
	// ColumnPct is a system's % difference against the baseline (Cell.Pct).
	ColumnPct
	// ColumnPctFScaled is the % difference of the frequency-scaled figure
	// (Cell.PctFScaled).
	ColumnPctFScaled
	// ColumnChange is the confidence interval of a system's change against
	// the baseline, in % (Cell.Ratio), marked CouldNotTellMark when it holds
	// no change.
	ColumnChange
)

// CouldNotTellMark marks a comparison whose rounds could not tell a
// difference (its interval holds no change, or there is none).
const CouldNotTellMark = "?"

// MainColumn is one column of the main table after "threads": a system's
// figure, its frequency-scaled figure, a % difference or the interval of a
// change. The
// text, Markdown, wide CSV and HTML layouts all take their columns from
// MainColumns.
type MainColumn struct {
	// Head is the column's heading in the text, Markdown and CSV tables.
	Head string
	Kind ColumnKind
	// System indexes Comparison.Systems.
	System int
}

// Value is the column's number in a row (NaN: does not apply).
func (col MainColumn) Value(r Row) float64 {
	cl := r.Cells[col.System]
	switch col.Kind {
	case ColumnFScaled:
		return cl.FScaled
	case ColumnPct:
		return cl.Pct
	case ColumnPctFScaled:
		return cl.PctFScaled
	case ColumnChange:
		return cl.Ratio.P
	}
	return cl.Value
}

// Text renders the column's entry of a row as the tables print it: figures
// with three significant digits (VagueMark after a figure whose interval is
// wider than itself), whole percentages without a sign ("-0" never), the
// interval of a change as FormatChange does.
func (col MainColumn) Text(r Row) string {
	switch col.Kind {
	case ColumnChange:
		return FormatChange(r.Cells[col.System])
	case ColumnFigure:
		if cl := r.Cells[col.System]; cl.Stats.Vague() {
			return fmtNum(cl.Value) + " " + VagueMark
		}
	case ColumnPct, ColumnPctFScaled:
		return fmtPct(col.Value(r))
	}
	return fmtNum(col.Value(r))
}

// MainColumns are the seeds' columns of the main table of rows: every
// system's figure, the others' frequency-scaled figures (when scaled),
// their % against the baseline, the scaled %, and the intervals of the
// changes when some cell has rounds of both sides.
func (c *Comparison) MainColumns(rows []Row) []MainColumn {
	base := c.BaselineSystem().Label
	others := c.others()
	var cols []MainColumn
	for i, s := range c.Systems {
		cols = append(cols, MainColumn{Head: fmt.Sprintf("%s (%s)", s.Label, c.Metric.Unit), Kind: ColumnFigure, System: i})
	}
	if c.Scaled {
		for _, i := range others {
			cols = append(cols, MainColumn{Head: c.Systems[i].Label + " fscaled", Kind: ColumnFScaled, System: i})
		}
	}
	for _, i := range others {
		cols = append(cols, MainColumn{Head: fmt.Sprintf("%% %s-vs-%s", c.Systems[i].Label, base), Kind: ColumnPct, System: i})
	}
	if c.Scaled {
		for _, i := range others {
			cols = append(cols, MainColumn{Head: fmt.Sprintf("%% %s(FS)-vs-%s", c.Systems[i].Label, base), Kind: ColumnPctFScaled, System: i})
		}
	}
	rounds := false
	for _, r := range rows {
		rounds = rounds || slices.ContainsFunc(r.Cells, func(cl Cell) bool { return cl.Stats.N > 1 })
	}
	if rounds {
		for _, i := range others {
			cols = append(cols, MainColumn{Head: fmt.Sprintf("%g%% CI %s-vs-%s", c.confidence()*100, c.Systems[i].Label, base), Kind: ColumnChange, System: i})
		}
	}
	return cols
}

func (c *Comparison) computeTable(rows []Row) table {
	base := c.BaselineSystem().Label
	t := table{caption: fmt.Sprintf("Per compute power (%s per vCPU, per GHz·vCPU):", c.Metric.Unit), header: []string{"threads"}}
	for _, s := range c.Systems {
		t.header = append(t.header, s.Label+" /vCPU")
	}
	for _, s := range c.Systems {
		t.header = append(t.header, s.Label+" /GHz·vCPU")
	}
	for _, i := range c.others() {
		t.header = append(t.header, fmt.Sprintf("%% %s-vs-%s /GHz·vCPU", c.Systems[i].Label, base))
	}
	for _, r := range rows {
		line := []string{threadsCell(r)}
		for _, cl := range r.Cells {
			line = append(line, fmtNum(cl.PerVCPU))
		}
		for _, cl := range r.Cells {
			line = append(line, fmtNum(cl.PerGHzVCPU))
		}
		for _, i := range c.others() {
			line = append(line, fmtPct(r.Cells[i].PctPerGHzVCPU))
		}
		t.rows = append(t.rows, line)
	}
	return t
}

func (c *Comparison) roundsTable(rows []Row) table {
	t := table{
		caption: fmt.Sprintf("Rounds (%s; %g%% CI: confidence interval of the mean, on the log scale; %s: wider than the mean):", c.Metric.Unit, c.confidence()*100, VagueMark),
		header:  []string{"threads", "system", "n", "mean", fmt.Sprintf("%g%% CI", c.confidence()*100), "sd", "cv %", "min", "median", "max"},
		left:    map[int]bool{1: true},
	}
	for _, r := range rows {
		for i, cl := range r.Cells {
			st := cl.Stats
			t.rows = append(t.rows, []string{
				threadsCell(r), c.Systems[i].Label, strconv.Itoa(st.N),
				fmtNum(st.Mean), FormatInterval(st), fmtNum(st.StdDev), fmtFixed(st.CV*100, 1),
				fmtNum(st.Min), fmtNum(st.Median), fmtNum(st.Max),
			})
		}
	}
	return t
}

// layoutCPUSection lays out a by-CPUs section: one row per CPU count (and
// system), the series side by side.
func (c *Comparison) layoutCPUSection(cs CPUSection) section {
	t, caveats := c.cpuTable(cs)
	sec := section{title: CPUSectionTitle(cs), tables: []table{t}, ref: SectionRef{SectionCPUs, slices.IndexFunc(c.ByCPUs, func(o CPUSection) bool { return o.Group == cs.Group })}}
	sec.footnotes = append(sec.footnotes, fmt.Sprintf("%s at the best thread count of each CPU set (threads: the peak over the thread counts run, as seed 002 charts one figure per set: a larger set needs more clients to be loaded; the peak of noisy rounds leans high). %g%% CI: confidence interval of that cell's mean (log scale), n its rounds. speed-up: against the series' smallest set; eff/CPU: speed-up ÷ (CPUs ÷ smallest CPUs), 100 %% = linear; %s: the figure's interval, or the interval of the set it is relative to, is wider than the figure — the speed-up and efficiency tell nothing.",
		c.Metric.Unit, c.confidence()*100, VagueMark))
	for _, cv := range caveats {
		sec.footnotes = append(sec.footnotes, SuperlinearMark+" "+cv)
	}
	if slices.ContainsFunc(cs.Curves, func(cv CPUCurve) bool { return cv.SMT != "" }) {
		for _, s := range c.Systems {
			if noSMT(s) && slices.ContainsFunc(cs.Curves, func(cv CPUCurve) bool { return cv.System == s.Label && cv.SMT == "" }) {
				sec.footnotes = append(sec.footnotes, fmt.Sprintf("%s: its server machine has one thread per core: its sets have no SMT siblings, whatever the column says.", s.Label))
			}
		}
	}
	return sec
}

// cpuTable is the table of a by-CPUs section and the caveats of its
// efficiencies above 100 %.
func (c *Comparison) cpuTable(cs CPUSection) (table, []string) {
	// One group of columns per series kind, whatever a system's curve of
	// it is called (a machine without SMT sits with the siblings).
	type kind struct{ smt, placement string }
	var modes []kind
	for _, cv := range cs.Curves {
		if k := (kind{cv.SMT, cv.Placement}); !slices.Contains(modes, k) {
			modes = append(modes, k)
		}
	}
	smtKinds, spreadKinds := seriesKinds(cs.Curves)
	base := c.BaselineSystem().Label
	multi := len(c.Systems) > 1
	t := table{caption: fmt.Sprintf("Throughput by server CPUs (%s):", c.Metric.Unit), header: []string{"CPUs"}, left: map[int]bool{}}
	if multi {
		t.left[1] = true
		t.header = append(t.header, "system")
	}
	for _, m := range modes {
		p := modeName(smtKinds, spreadKinds, m.smt, m.placement)
		if p != "" {
			p += ": "
		}
		t.header = append(t.header, p+c.Metric.Unit, fmt.Sprintf("%g%% CI", c.confidence()*100), "n", "threads", "speed-up", "eff/CPU")
		if multi {
			t.header = append(t.header, fmt.Sprintf("%% vs %s", base))
		}
	}
	find := func(system string, mode kind, cpus int) (CPUPoint, bool) {
		for _, cv := range cs.Curves {
			if cv.System != system || (kind{cv.SMT, cv.Placement}) != mode {
				continue
			}
			for _, p := range cv.Points {
				if p.CPUs == cpus {
					return p, true
				}
			}
		}
		return CPUPoint{}, false
	}
	var counts []int
	for _, cv := range cs.Curves {
		for _, p := range cv.Points {
			if !slices.Contains(counts, p.CPUs) {
				counts = append(counts, p.CPUs)
			}
		}
	}
	slices.Sort(counts)
	var caveats []string
	for _, n := range counts {
		for _, s := range c.Systems {
			line := []string{strconv.Itoa(n)}
			if multi {
				line = append(line, s.Label)
			}
			has := false
			for _, m := range modes {
				p, ok := find(s.Label, m, n)
				if !ok {
					line = append(line, "-", "", "", "", "", "")
					if multi {
						line = append(line, "")
					}
					continue
				}
				has = true
				value := fmtNum(p.Value)
				if p.Outages > 0 {
					value += " " + OutageMark
				}
				eff := fmtPct(p.Efficiency*100) + " %"
				if p.Caveat != "" {
					eff += " " + SuperlinearMark
					for _, cv := range cs.Curves {
						if cv.System == s.Label && (kind{cv.SMT, cv.Placement}) == m {
							caveats = append(caveats, describeCaveat(cv, p))
						}
					}
				}
				speedUp := fmtFixed(p.SpeedUp, 2) + "×"
				if p.Vague {
					speedUp += " " + VagueMark
					eff += " " + VagueMark
				}
				line = append(line, value, FormatInterval(p.Stats), strconv.Itoa(p.Stats.N), strconv.Itoa(p.Threads), speedUp, eff)
				if multi {
					pct := ""
					if bp, ok := find(base, m, n); ok && s.Label != base {
						pct = fmtPct(pctDiff(p.Value, bp.Value))
					}
					line = append(line, pct)
				}
			}
			if has {
				t.rows = append(t.rows, line)
			}
		}
	}
	return t, caveats
}

// threadsCell is a row's thread count, marked when the row is mixed, when
// a figure of it comes from a run with an outage and when one comes from a
// run on a busy machine.
func threadsCell(r Row) string {
	s := strconv.Itoa(r.Key.Threads)
	if len(r.Mixed) > 0 {
		s += " " + MixedMark
	}
	if r.HasOutage() {
		s += " " + OutageMark
	}
	if r.HasNoisy() {
		s += " " + NoisyMark
	}
	return s
}

// describeSystem is the one-line description of a system: its machine under
// test (and where that came from), server, frequency, vCPUs.
func describeSystem(s *System) string {
	var parts []string
	u := s.UnderTest
	switch {
	case u.Known:
		parts = append(parts, "server machine "+u.describe()+" from "+u.From)
	default:
		parts = append(parts, "server machine unknown")
		if d := DescribeMachine(s.Machine); d != "an unknown machine" {
			parts = append(parts, "client "+d)
		}
	}
	if s.Server.Flavor != "" || s.Server.Version != "" {
		parts = append(parts, serverID(s.Server))
	}
	// A source within the machine already named is said without its place.
	within := func(v, unit, source string) string {
		if u.Known {
			source = strings.TrimPrefix(strings.TrimPrefix(source, u.From), ": ")
		}
		if source == "" {
			return v + " " + unit
		}
		return v + " " + unit + " (" + source + ")"
	}
	if s.GHz > 0 {
		parts = append(parts, within(fmtGHz(s.GHz), "GHz", s.GHzSource))
	} else {
		parts = append(parts, "GHz unknown")
	}
	if s.VCPUs > 0 {
		parts = append(parts, within(strconv.Itoa(s.VCPUs), "vCPU", s.VCPUsSource))
	}
	if cp := s.ComputePower(); cp > 0 {
		parts = append(parts, "compute power "+strconv.FormatFloat(cp, 'g', 6, 64)+" GHz·vCPU")
	}
	parts = append(parts, fmt.Sprintf("%d runs", len(s.Samples)))
	if s.Skipped > 0 {
		parts = append(parts, fmt.Sprintf("%d skipped (%s)", s.Skipped, statusList(s.SkippedByStatus)))
	}
	return strings.Join(parts, ", ")
}

// differsCaption introduces the table of differences; noDifference replaces
// it when nothing recorded differs.
const (
	differsCaption = "What differs between the systems (— not recorded; varies: differs between a system's own results):"
	noDifference   = "What differs between the systems: nothing recorded (server machine, server and settings are the same)."
)

// WriteText renders c as aligned plain-text tables.
func WriteText(w io.Writer, c *Comparison) error {
	d := layout(c)
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", d.title)
	if d.differs != nil {
		if len(d.differs.rows) == 0 {
			b.WriteString("\n" + noDifference + "\n")
		} else {
			b.WriteString("\n" + differsCaption + "\n")
			writeAligned(&b, *d.differs)
		}
	}
	b.WriteString("\nSystems:\n")
	for _, s := range d.systems {
		fmt.Fprintf(&b, "  %s\n", s)
	}
	if len(d.notes) > 0 {
		b.WriteString("\nNotes:\n")
		for _, n := range d.notes {
			fmt.Fprintf(&b, "  - %s\n", n)
		}
	}
	for _, sec := range d.body {
		fmt.Fprintf(&b, "\n%s\n", sec.title)
		for _, t := range sec.tables {
			b.WriteString("\n")
			if t.caption != "" {
				b.WriteString(t.caption + "\n")
			}
			writeAligned(&b, t)
		}
		for _, f := range sec.footnotes {
			b.WriteString("\n" + f + "\n")
		}
	}
	b.WriteString("\n")
	for _, l := range d.legend {
		b.WriteString(l + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeAligned writes t with columns padded to their widest cell and joined by
// " | ", a rule under the header.
func writeAligned(b *strings.Builder, t table) {
	widths := make([]int, len(t.header))
	for _, line := range append([][]string{t.header}, t.rows...) {
		for i, cell := range line {
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	write := func(line []string) {
		for i, cell := range line {
			if i > 0 {
				b.WriteString(" | ")
			}
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell))
			if t.left[i] {
				if i == len(line)-1 {
					pad = ""
				}
				b.WriteString(cell + pad)
			} else {
				b.WriteString(pad + cell)
			}
		}
		b.WriteString("\n")
	}
	write(t.header)
	rule := make([]string, len(widths))
	for i, wd := range widths {
		rule[i] = strings.Repeat("-", wd)
	}
	b.WriteString(strings.Join(rule, "-|-") + "\n")
	for _, r := range t.rows {
		write(r)
	}
}

// WriteMarkdown renders c as Markdown pipe tables, one section per workload.
func WriteMarkdown(w io.Writer, c *Comparison) error { return WriteMarkdownWith(w, c, nil) }

// WriteMarkdownWith renders c as WriteMarkdown does, with what after returns
// for each section (which part of c it shows: SectionRef) written under the
// section's heading, before its tables: a report's charts. A nil after adds
// nothing.
func WriteMarkdownWith(w io.Writer, c *Comparison, after func(SectionRef) string) error {
	d := layout(c)
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", mdEscape(d.title))
	if d.differs != nil {
		if len(d.differs.rows) == 0 {
			b.WriteString(mdEscape(noDifference) + "\n\n")
		} else {
			b.WriteString(mdEscape(differsCaption) + "\n\n")
			writePipeTable(&b, *d.differs)
			b.WriteString("\n")
		}
	}
	for _, s := range d.systems {
		fmt.Fprintf(&b, "- %s\n", mdEscape(s))
	}
	if len(d.notes) > 0 {
		b.WriteString("\nNotes:\n\n")
		for _, n := range d.notes {
			fmt.Fprintf(&b, "- %s\n", mdEscape(n))
		}
	}
	for _, sec := range d.body {
		fmt.Fprintf(&b, "\n## %s\n", mdEscape(sec.title))
		if after != nil {
			if extra := after(sec.ref); extra != "" {
				b.WriteString("\n" + extra)
			}
		}
		for _, t := range sec.tables {
			b.WriteString("\n")
			if t.caption != "" {
				b.WriteString(mdEscape(t.caption) + "\n\n")
			}
			writePipeTable(&b, t)
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

func writePipeTable(b *strings.Builder, t table) {
	row := func(cells []string) {
		esc := make([]string, len(cells))
		for i, c := range cells {
			esc[i] = strings.ReplaceAll(c, "|", `\|`)
		}
		b.WriteString("| " + strings.Join(esc, " | ") + " |\n")
	}
	row(t.header)
	align := make([]string, len(t.header))
	for i := range align {
		align[i] = "---:"
		if t.left[i] {
			align[i] = "---"
		}
	}
	b.WriteString("|" + strings.Join(align, "|") + "|\n")
	for _, r := range t.rows {
		row(r)
	}
}

// mdEscape escapes the asterisks Markdown would read as emphasis in prose
// (underscores inside words are literal in CommonMark).
func mdEscape(s string) string {
	return strings.ReplaceAll(s, "*", `\*`)
}

// fmtNum prints v with three significant digits, integers from 100 up; NaN
// is "-".
func fmtNum(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	decimals := 0
	if a := math.Abs(v); a > 0 && a < 100 {
		decimals = min(3-int(math.Floor(math.Log10(a)))-1, 6)
	}
	return fmtFixed(v, decimals)
}

// fmtPct prints a percentage as a whole number, as the seeds do.
func fmtPct(v float64) string { return fmtFixed(v, 0) }

// fmtFixed prints v with the given decimals, without a "-0"; NaN is "-".
func fmtFixed(v float64, decimals int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if strings.Trim(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-")
	}
	return s
}

func fmtGHz(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// FormatChange prints the interval of a cell's change against the baseline
// in %: "+41 to +103" when it excludes no change, "? −9.5 to +12" when it
// holds no change (CouldNotTellMark), "? too few" when a side has fewer than
// two rounds, "? zero round" and "? no spread" when no interval could be
// made; "-" when the cell or the baseline has no figure.
func FormatChange(cl Cell) string {
	r := cl.Ratio
	switch {
	case cl.Stats.N == 0 || math.IsNaN(cl.Pct):
		return "-"
	case !r.Tested && r.Reason == NotTestedNonPositive:
		return CouldNotTellMark + " zero round"
	case !r.Tested && r.Reason == NotTestedNoSpread:
		return CouldNotTellMark + " no spread"
	case !r.Tested:
		return CouldNotTellMark + " too few"
	}
	lo, hi := pctPair(r.Pct())
	s := lo + " to " + hi
	if rowKind(cl) != SpanShown {
		return CouldNotTellMark + " " + s
	}
	return s
}

// FormatInterval prints a figure's interval as "4320–5790", "-" without one
// (one round, or a round of zero), and VagueMark after an interval wider than
// the figure.
func FormatInterval(st Stats) string {
	if st.N < 2 || math.IsNaN(st.CILo) {
		return "-"
	}
	s := fmtNum(st.CILo) + "–" + fmtNum(st.CIHi)
	if st.Vague() {
		s += " " + VagueMark
	}
	return s
}
