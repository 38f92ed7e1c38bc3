// Package gotpcout prints a TPC-C run the way go-tpc prints one, so that
// scripts that scrape go-tpc's output keep working with fairbench: a
// "[Current]" line per transaction type at every interval, "[Summary]" lines
// at the end and the tpmC line, in go-tpc's plain, table or json style:
//
//	[Current] NEW_ORDER - Takes(s): 10.0, Count: 1234, TPM: 7404.0, Sum(ms): …, Avg(ms): …, 50th(ms): …, 90th(ms): …, 95th(ms): …, 99th(ms): …, 99.9th(ms): …, Max(ms): …
//	[Summary] NEW_ORDER - Takes(s): …
//	tpmC: 7404.0, tpmTotal: 16450.2, efficiency: 5757.4%
//
// The figures are fairbench's own measurements (exact HDR histograms per
// transaction type, the result's tpmC figures), rendered with go-tpc's names
// and one decimal. Failed attempts that the run ignored appear as go-tpc's
// NAME_ERR lines with their count and rate only: fairbench counts them but
// does not time them.
package gotpcout

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/run/metrics"
)

// Styles, as go-tpc's --output names them.
const (
	Plain = "plain"
	Table = "table"
	JSON  = "json"
)

// Percentiles are the latency percentiles go-tpc's lines show; a run in
// go-tpc's layout reports at least these (WithPercentiles).
var Percentiles = []float64{50, 90, 95, 99, 99.9}

// Prefixes of the per-transaction lines. Warm-up intervals (a fairbench
// extra, excluded from the summary) are printed with their own prefix so
// that a script summing the [Current] lines counts what the summary counts.
const (
	current = "[Current] "
	summary = "[Summary] "
	warmup  = "[Warmup] "
)

// header names go-tpc's columns; the first two are the prefix and the operation.
var header = []string{"Prefix", "Operation", "Takes(s)", "Count", "TPM", "Sum(ms)", "Avg(ms)", "50th(ms)", "90th(ms)", "95th(ms)", "99th(ms)", "99.9th(ms)", "Max(ms)"}

// op is one transaction type's figures over a span, as go-tpc shows them.
type op struct {
	key     string // go-tpc's key: "new_order", "new_order_ERR"
	seconds float64
	count   int64
	timed   bool       // false for the _ERR lines: no latency figures
	lat     [8]float64 // Sum, Avg, 50th, 90th, 95th, 99th, 99.9th, Max in ms
}

// cells renders the op's columns after the prefix and operation.
func (o op) cells() []string {
	tpm := 0.0
	if o.seconds > 0 {
		tpm = float64(o.count) / o.seconds * 60
	}
	c := []string{one(o.seconds), strconv.FormatInt(o.count, 10), one(tpm)}
	if o.timed {
		for _, v := range o.lat {
			c = append(c, one(v))
		}
	}
	return c
}

func one(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

// WithPercentiles returns pcts with go-tpc's percentiles added where missing,
// in ascending order.
func WithPercentiles(pcts []float64) []float64 {
	out := slices.Clone(pcts)
	for _, p := range Percentiles {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// Printer writes one run's lines in one style.
type Printer struct {
	w     io.Writer
	style string
	kinds []string // the workload's kinds, in the runner's order
}

// New returns a printer of the run's lines to w in style (Plain, Table or
// JSON) for a workload whose kinds of event are kinds (TPC-C's transactions).
func New(w io.Writer, style string, kinds []string) (*Printer, error) {
	switch style {
	case Plain, Table, JSON:
	default:
		return nil, fmt.Errorf("unknown go-tpc output style %q: use plain, table or json", style)
	}
	if len(kinds) < 2 {
		return nil, fmt.Errorf("go-tpc's layout shows one line per transaction type: this workload has no types; use fairbench's layout")
	}
	return &Printer{w: w, style: style, kinds: kinds}, nil
}

// Interval prints the [Current] lines of one interval from its per-kind
// figures (runner.Deps.OnIntervalKinds).
func (p *Printer) Interval(iv result.Interval, kinds []metrics.Kind) {
	var ops []op
	for i := range kinds {
		if i >= len(p.kinds) {
			break
		}
		k := &kinds[i]
		l := &k.Latency
		if l.Count > 0 {
			o := op{key: p.kinds[i], seconds: iv.Seconds, count: l.Count, timed: true}
			o.lat[0], o.lat[1] = ms(l.Sum), ms(l.Mean())
			for j, pc := range Percentiles {
				o.lat[2+j] = ms(l.Quantile(pc / 100))
			}
			o.lat[7] = ms(l.Max)
			ops = append(ops, o)
		}
		ops = appendErr(ops, p.kinds[i], k.Errors, iv.Seconds)
	}
	prefix := current
	if iv.Warmup {
		prefix = warmup
	}
	p.lines(prefix, ops)
}

// Summary prints "Finished" (a run that completed), the [Summary] lines of
// the measured phase and the tpmC line from the result's figures.
func (p *Printer) Summary(res *result.Result) {
	t := res.Totals
	var ops []op
	for _, k := range t.Kinds {
		if k.Events > 0 {
			o := op{key: k.Name, seconds: t.Seconds, count: k.Events, timed: true}
			o.lat[0], o.lat[1] = k.Latency.SumMs, k.Latency.AvgMs
			for j, pc := range Percentiles {
				o.lat[2+j] = k.Latency.Percentiles[result.PercentileKey(pc)]
			}
			o.lat[7] = k.Latency.MaxMs
			ops = append(ops, o)
		}
		ops = appendErr(ops, k.Name, k.Errors, t.Seconds)
	}
	if res.Status == result.StatusComplete {
		fmt.Fprintln(p.w, "Finished")
	}
	p.lines(summary, ops)
	fig := map[string]float64{}
	for _, f := range res.Figures {
		fig[f.Name] = f.Value
	}
	tpmC, ok := fig["tpmC"]
	if !ok || len(t.Kinds) == 0 || t.Kinds[0].Events == 0 {
		return // go-tpc prints the line only when New-Order ran
	}
	row := []string{one(tpmC), one(fig["tpmTotal"]), one(fig["efficiency"]) + "%"}
	names := []string{"tpmC", "tpmTotal", "efficiency"}
	switch p.style {
	case Plain:
		fmt.Fprintf(p.w, "tpmC: %s, tpmTotal: %s, efficiency: %s\n", row[0], row[1], row[2])
	case Table:
		table(p.w, names, [][]string{row})
	case JSON:
		jsonRows(p.w, names, [][]string{row})
	}
}

// appendErr adds the NAME_ERR op of a kind's ignored errors, if any.
func appendErr(ops []op, kind string, errs map[string]int64, seconds float64) []op {
	var n int64
	for _, c := range errs {
		n += c
	}
	if n == 0 {
		return ops
	}
	return append(ops, op{key: kind + "_ERR", seconds: seconds, count: n})
}

// lines prints ops in go-tpc's order (sorted by key) and style.
func (p *Printer) lines(prefix string, ops []op) {
	if len(ops) == 0 {
		return
	}
	slices.SortFunc(ops, func(a, b op) int { return strings.Compare(a.key, b.key) })
	rows := make([][]string, len(ops))
	for i, o := range ops {
		rows[i] = append([]string{prefix, strings.ToUpper(o.key)}, o.cells()...)
	}
	switch p.style {
	case Plain:
		for _, r := range rows {
			fields := make([]string, 0, len(r)-2)
			for j, c := range r[2:] {
				fields = append(fields, header[2+j]+": "+c)
			}
			fmt.Fprintf(p.w, "%s%-6s - %s\n", r[0], r[1], strings.Join(fields, ", "))
		}
	case Table:
		table(p.w, header, rows)
	case JSON:
		jsonRows(p.w, header, rows)
	}
}

// table draws rows under names in a bordered text table (go-tpc's table
// style); short rows leave their last cells empty.
func table(w io.Writer, names []string, rows [][]string) {
	width := make([]int, len(names))
	for i, n := range names {
		width[i] = len(n)
	}
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len(strings.TrimSpace(c)))
		}
	}
	rule := "+"
	for _, n := range width {
		rule += strings.Repeat("-", n+2) + "+"
	}
	line := func(cells []string) {
		var b strings.Builder
		b.WriteString("|")
		for i := range width {
			c := ""
			if i < len(cells) {
				c = strings.TrimSpace(cells[i])
			}
			fmt.Fprintf(&b, " %-*s |", width[i], c)
		}
		fmt.Fprintln(w, b.String())
	}
	fmt.Fprintln(w, rule)
	upper := make([]string, len(names))
	for i, n := range names {
		upper[i] = strings.ToUpper(n)
	}
	line(upper)
	fmt.Fprintln(w, rule)
	for _, r := range rows {
		line(r)
	}
	fmt.Fprintln(w, rule)
}

// jsonRows prints rows as one JSON array of objects keyed by names (go-tpc's
// json style); short rows leave out their last keys.
func jsonRows(w io.Writer, names []string, rows [][]string) {
	out := make([]map[string]string, len(rows))
	for i, r := range rows {
		out[i] = make(map[string]string, len(r))
		for j, c := range r {
			out[i][names[j]] = c
		}
	}
	b, _ := json.Marshal(out) // maps of strings always encode
	fmt.Fprintln(w, string(b))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
