package importer

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/base/lazyre"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/workload/tpcc/txn"
)

// What go-tpc 1.0.x prints with --output plain (tpcc/workload.go,
// pkg/measurement, cmd/go-tpc).
var (
	// gtLineRe is a per-transaction line: "[Current] NEW_ORDER - Takes(s): 10.0,
	// Count: 1234, TPM: 7404.0, Sum(ms): …". Older versions (1.0.8) print fewer
	// percentiles and no Max.
	gtLineRe = lazyre.New(`\[(Current|Summary)\]\s+(\S+)\s+-\s+(Takes\(s\):.*?)\s*$`)
	// gtTpmCRe is the last line of a run; older versions (1.0.8) print tpmC only.
	gtTpmCRe    = lazyre.New(`\btpmC: (\d+(?:\.\d+)?)(?:, tpmTotal: (\d+(?:\.\d+)?))?(?:, efficiency: (\d+(?:\.\d+)?)%)?`)
	gtErrorRe   = lazyre.New(`execute run failed, err (.*)$`)
	gtCodeRe    = lazyre.New(`Error (\d{4,5})\b|SQLSTATE (\w{5})`)
	gtSignalRe  = lazyre.New(`Got signal \[([^\]]*)\] to exit`)
	gtVersionRe = lazyre.New(`Release version: v?(\d\S*)`)
	gtTableRe   = lazyre.New(`(?i)PREFIX\s*\|\s*OPERATION|"Prefix":`)
)

// specTpmCPerWarehouse is TPC-C's tpmC ceiling per warehouse, which go-tpc's
// efficiency divides by.
const specTpmCPerWarehouse = 12.86

// gtStat is one per-transaction line.
type gtStat struct {
	key    string // go-tpc's key: "new_order", "new_order_ERR"
	kind   string // fairbench's kind: "new_order"
	err    bool
	takes  float64
	count  int64
	tpm    float64
	values map[string]float64 // "Sum(ms)": 123.4…
}

// gtRun is a go-tpc run being read.
type gtRun struct {
	run
	blocks      [][]gtStat // the [Current] blocks, one per interval
	summary     []gtStat
	finished    bool
	interrupted string
	errorLines  []string
}

type gtParser struct {
	name    string
	opts    Options
	runs    []*run
	cur     *gtRun
	cmds    commands
	version string // from a "Release version:" line
	table   bool   // the log holds --output table or json reports
	// errorLines are the "execute run failed" lines since the last run ended:
	// go-tpc may print them before the first report of the next run.
	errorLines []string
}

func parseGoTPC(name string, lines []string, opts Options) ([]*run, error) {
	p := &gtParser{name: name, opts: opts, cmds: commands{format: FormatGoTPC}}
	for i, l := range lines {
		if err := p.line(i+1, l); err != nil {
			return nil, err
		}
	}
	if p.cur != nil {
		if err := p.closeIncomplete(len(lines), "the log ends"); err != nil {
			return nil, err
		}
	}
	if len(p.runs) == 0 && p.table {
		return nil, fmt.Errorf("%s: %w: the go-tpc reports are tables or JSON (--output table|json); this reads the default --output plain", name, ErrNotLog)
	}
	return p.runs, nil
}

func (p *gtParser) start(n int) {
	c, opts := p.cmds.take()
	r := &gtRun{run: run{format: FormatGoTPC, line: n, res: &result.Result{Workload: "tpcc"}, version: p.version, options: opts},
		errorLines: p.errorLines}
	p.errorLines = nil
	if v, err := strconv.Atoi(opts["threads"]); err == nil && v > 0 {
		r.res.Threads = v
	}
	if c != nil {
		r.cmd = c.argv
		if c.version != "" {
			r.version = c.version
		}
		if c.test != "" && c.test != "tpcc" {
			r.res.Workload = c.test
		}
	}
	p.cur = r
}

func (p *gtParser) line(n int, l string) error {
	if c, ok := parseCommand(l); ok {
		p.cmds.see(c)
		return nil
	}
	if m := gtVersionRe().FindStringSubmatch(l); m != nil {
		p.version = m[1]
		return nil
	}
	if gtTableRe().MatchString(l) {
		p.table = true
	}
	if m := gtLineRe().FindStringSubmatch(l); m != nil {
		st, err := parseGTStat(m[2], m[3])
		if err != nil {
			return &ParseError{Name: p.name, Line: n, Msg: err.Error()}
		}
		if p.cur != nil && len(p.cur.summary) > 0 && (m[1] == "Current" || p.cur.hasSummary(st.key)) {
			if err := p.closeIncomplete(n, "a new run begins"); err != nil {
				return err
			}
		}
		if p.cur == nil {
			p.start(n)
		}
		r := p.cur
		if m[1] == "Summary" {
			r.summary = append(r.summary, st)
			return nil
		}
		if k := len(r.blocks); k == 0 || r.blocks[k-1][len(r.blocks[k-1])-1].key >= st.key {
			r.blocks = append(r.blocks, nil) // go-tpc prints each interval sorted by key
		}
		r.blocks[len(r.blocks)-1] = append(r.blocks[len(r.blocks)-1], st)
		return nil
	}
	if m := gtTpmCRe().FindStringSubmatch(l); m != nil {
		if p.cur == nil || len(p.cur.summary) == 0 {
			if p.cur == nil {
				p.start(n)
			}
			return p.closeIncomplete(n, "the tpmC line comes")
		}
		return p.complete(n, m)
	}
	if p.cur == nil {
		if m := gtErrorRe().FindStringSubmatch(l); m != nil {
			p.errorLines = append(p.errorLines, m[1])
		}
		return nil
	}
	switch {
	case strings.TrimSpace(l) == "Finished":
		p.cur.finished = true
	case gtSignalRe().MatchString(l):
		p.cur.interrupted = gtSignalRe().FindStringSubmatch(l)[1]
	case gtErrorRe().MatchString(l):
		p.cur.errorLines = append(p.cur.errorLines, gtErrorRe().FindStringSubmatch(l)[1])
	}
	return nil
}

// hasSummary says whether the run has a [Summary] line for key.
func (r *gtRun) hasSummary(key string) bool {
	for _, st := range r.summary {
		if st.key == key {
			return true
		}
	}
	return false
}

// parseGTStat reads "Takes(s): 10.0, Count: 1234, TPM: 7404.0, Sum(ms): …".
func parseGTStat(name, fields string) (gtStat, error) {
	key := strings.ToLower(name)
	st := gtStat{key: key, kind: key, values: map[string]float64{}}
	if base, ok := strings.CutSuffix(key, "_err"); ok {
		st.key, st.kind, st.err = base+"_ERR", base, true
	}
	for _, f := range strings.Split(fields, ", ") {
		k, v, ok := strings.Cut(f, ": ")
		if !ok {
			return st, fmt.Errorf("unreadable go-tpc field %q in the %s line: expected \"Name: value\"", f, name)
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return st, fmt.Errorf("unreadable go-tpc value %q of %s in the %s line", v, k, name)
		}
		st.values[k] = x
	}
	for _, k := range []string{"Takes(s)", "Count", "TPM"} {
		if _, ok := st.values[k]; !ok {
			return st, fmt.Errorf("the go-tpc %s line has no %s", name, k)
		}
	}
	st.takes, st.count, st.tpm = st.values["Takes(s)"], int64(st.values["Count"]), st.values["TPM"]
	return st, nil
}

// closeIncomplete ends the current run, which has no tpmC line, because event
// happened at line n.
func (p *gtParser) closeIncomplete(n int, event string) error {
	r := p.cur
	p.cur = nil
	at := fmt.Sprintf("%s at line %d", event, n)
	var msg string
	switch {
	case len(r.summary) > 0:
		msg = fmt.Sprintf("the run's [Summary] lines are not followed by its \"tpmC: …\" line (%s): the log is cut; import the complete output of the run", at)
	case len(r.blocks) > 0:
		msg = fmt.Sprintf("the run has [Current] reports but no [Summary] lines and no \"tpmC: …\" line (%s): go-tpc was killed or the log is cut; import the complete output of the run", at)
	default:
		msg = fmt.Sprintf("a \"tpmC: …\" line without the run's [Summary] lines before it (%s): import the complete output of the run", at)
	}
	kinds := r.kinds()
	r.res.Kinds = kinds // the intervals' kind counts are in this order
	r.fillIntervals(kinds)
	rn, err := incomplete(p.name, &r.run, r.line, msg, p.opts)
	if err != nil {
		return err
	}
	p.runs = append(p.runs, rn)
	return nil
}

// kinds returns the transaction kinds of the run: fairbench's five, then any
// other the log names.
func (r *gtRun) kinds() []string {
	kinds := append([]string(nil), txn.Kinds...)
	known := map[string]bool{}
	for _, k := range kinds {
		known[k] = true
	}
	add := func(sts []gtStat) {
		for _, st := range sts {
			if !known[st.kind] {
				known[st.kind] = true
				kinds = append(kinds, st.kind)
			}
		}
	}
	add(r.summary)
	for _, b := range r.blocks {
		add(b)
	}
	return kinds
}

// fillIntervals turns the [Current] blocks into intervals.
func (r *gtRun) fillIntervals(kinds []string) {
	index := map[string]int{}
	for i, k := range kinds {
		index[k] = i
	}
	var at float64
	skipped := 0
	for _, b := range r.blocks {
		iv := result.Interval{KindEvents: make([]int64, len(kinds))}
		var errs int64
		for _, st := range b {
			iv.Seconds = math.Max(iv.Seconds, st.takes)
			if st.err {
				errs += st.count
				continue
			}
			iv.Counts.Events += st.count
			iv.KindEvents[index[st.kind]] += st.count
			if mx, ok := st.values["Max(ms)"]; ok {
				iv.MaxMs = math.Max(iv.MaxMs, mx)
			}
		}
		if errs > 0 {
			iv.Counts.Errors = map[string]int64{ErrorCodeUnknown: errs}
		}
		if !(iv.Seconds > 0) || round(at+iv.Seconds, 1) <= round(at, 1) {
			// "Takes(s): 0": a block of no length is no interval of a run.
			skipped++
			continue
		}
		at += iv.Seconds
		iv.At = round(at, 1)
		if iv.Seconds > 0 {
			iv.TPS = float64(iv.Counts.Events) / iv.Seconds
		}
		r.res.Intervals = append(r.res.Intervals, iv)
	}
	if skipped > 0 {
		r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("%d [Current] block(s) of the log took no time (Takes(s): 0) and were left out of the series", skipped))
	}
}

// complete ends the current run at its tpmC line n.
func (p *gtParser) complete(n int, m []string) error {
	r := p.cur
	p.cur = nil
	res := r.res
	kinds := r.kinds()
	isTPCC := false
	for _, st := range r.summary {
		for _, k := range txn.Kinds {
			isTPCC = isTPCC || st.kind == k
		}
	}
	if !isTPCC {
		return &ParseError{Name: p.name, Line: r.line, Msg: "the go-tpc run reports no TPC-C transaction (NEW_ORDER, PAYMENT…): only tpcc runs are imported"}
	}
	res.Kinds = kinds
	r.fillIntervals(kinds)

	index := map[string]int{}
	t := &res.Totals
	for i, k := range kinds {
		index[k] = i
		t.Kinds = append(t.Kinds, result.KindPhase{Name: k})
	}
	var errs int64
	var tpmTotal float64
	hasMax := false
	for _, st := range r.summary {
		t.Seconds = math.Max(t.Seconds, st.takes)
		kp := &t.Kinds[index[st.kind]]
		if st.err {
			errs += st.count
			if st.count > 0 {
				kp.Errors = map[string]int64{ErrorCodeUnknown: st.count}
			}
			continue
		}
		tpmTotal += st.tpm
		kp.Events = st.count
		if st.takes > 0 {
			kp.TPS = float64(st.count) / st.takes
		}
		kp.Latency = gtLatency(st)
		t.Counts.Events += st.count
		t.Latency.SumMs += kp.Latency.SumMs
		if mx, ok := st.values["Max(ms)"]; ok {
			t.Latency.MaxMs = math.Max(t.Latency.MaxMs, mx)
			hasMax = true
		}
	}
	if t.Seconds > 0 {
		t.TPS = float64(t.Counts.Events) / t.Seconds
	}
	if t.Counts.Events > 0 {
		t.Latency.AvgMs = t.Latency.SumMs / float64(t.Counts.Events)
	}
	if errs > 0 {
		t.Counts.Errors = r.errorCodes(errs)
		for i := range t.Kinds {
			if k := &t.Kinds[i]; k.Errors[ErrorCodeUnknown] == errs {
				k.Errors = t.Counts.Errors // one kind had all the errors: they have its codes
			}
		}
	}

	// Figures: as printed; tpmTotal and efficiency computed as go-tpc does when
	// an older go-tpc did not print them.
	tpmC := parseFloat(m[1])
	if m[2] != "" {
		tpmTotal = parseFloat(m[2])
	} else {
		tpmTotal = round(tpmTotal, 1)
	}
	warehouses := r.warehouses(p.opts, tpmC, m[3])
	res.Figures = []result.Figure{
		{Name: "tpmC", Value: tpmC, Unit: "transactions/min"},
		{Name: "tpmTotal", Value: tpmTotal, Unit: "transactions/min"},
	}
	switch {
	case m[3] != "":
		res.Figures = append(res.Figures, result.Figure{Name: "efficiency", Value: parseFloat(m[3]), Unit: "%"})
	case warehouses > 0:
		res.Figures = append(res.Figures, result.Figure{Name: "efficiency", Value: round(100*tpmC/(specTpmCPerWarehouse*float64(warehouses)), 1), Unit: "%"})
	}
	if warehouses > 0 {
		_, inLog := r.options["warehouses"]
		_, set := p.opts.Settings["warehouses"]
		if !inLog {
			r.options["warehouses"] = strconv.Itoa(warehouses)
		}
		if !inLog && !set {
			r.derived = append(r.derived, "warehouses")
		}
	}

	if r.interrupted != "" {
		res.Status = result.StatusInterrupted
	}
	r.missing = append(r.missing, "start-end", "seed", "histogram", "min-latency", "total-percentiles",
		"interval-percentiles", "queries", "rollbacks", "fairness")
	if !hasMax {
		r.missing = append(r.missing, "max-latency")
	}
	if errs > 0 && t.Counts.Errors[ErrorCodeUnknown] > 0 {
		r.missing = append(r.missing, "error-codes")
	}
	p.runs = append(p.runs, &r.run)
	return nil
}

// gtLatency is the latency of one transaction's line.
func gtLatency(st gtStat) result.Latency {
	l := result.Latency{
		AvgMs: st.values["Avg(ms)"],
		SumMs: st.values["Sum(ms)"],
		MaxMs: st.values["Max(ms)"],
	}
	for k, v := range st.values {
		if p, ok := strings.CutSuffix(k, "th(ms)"); ok {
			if l.Percentiles == nil {
				l.Percentiles = map[string]float64{}
			}
			l.Percentiles[p] = v
		}
	}
	return l
}

// errorCodes counts the run's errors by the codes of its "execute run failed"
// lines; errors no line accounts for count as ErrorCodeUnknown.
func (r *gtRun) errorCodes(total int64) map[string]int64 {
	out := map[string]int64{}
	var coded int64
	for _, l := range r.errorLines {
		if m := gtCodeRe().FindStringSubmatch(l); m != nil {
			code := m[1]
			if code == "" {
				code = m[2]
			}
			out[code]++
			coded++
		}
	}
	if coded > total {
		return map[string]int64{ErrorCodeUnknown: total} // the lines are not this run's errors alone
	}
	if total > coded {
		out[ErrorCodeUnknown] = total - coded
	}
	return out
}

// warehouses returns the warehouse count: from the command line or the user's
// settings, else from go-tpc's efficiency (tpmC / (12.86 × warehouses)) when its
// one printed decimal leaves no doubt; 0 when unknown.
func (r *gtRun) warehouses(opts Options, tpmC float64, efficiency string) int {
	for _, v := range []string{r.options["warehouses"], opts.Settings["warehouses"]} {
		if w, err := strconv.Atoi(v); err == nil && w > 0 {
			return w
		}
	}
	eff := parseFloat(efficiency)
	if efficiency == "" || eff <= 0.05 || tpmC <= 0 {
		return 0
	}
	hi := math.Round(tpmC * 100 / (specTpmCPerWarehouse * (eff - 0.05)))
	lo := math.Round(tpmC * 100 / (specTpmCPerWarehouse * (eff + 0.05)))
	if hi != lo || lo < 1 {
		return 0
	}
	return int(lo)
}
