package importer

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/base/lazyre"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/run/metrics"
)

// What sysbench 1.0.x prints (sysbench.c, sysbench.lua), matched anywhere in a
// line so that prefixes (time stamps added by a logger) do not matter.
const (
	sbRunning    = "Running the test with following options:"
	sbSQLStats   = "SQL statistics:"
	sbHistogram  = "Latency histogram (values are in milliseconds)"
	sbCheckpoint = "Checkpoint report:"
	// sbCumulative marks fairbench's checkpoint reports, which cover the
	// measured phase from its start (sysbench's restart at each).
	sbCumulative = "Checkpoint report: (cumulative)"
)

var (
	sbVersionRe    = lazyre.New(`^\s*sysbench (\d+\.\d+(?:\.\d+)?)([-+~]\S*)?\s+\(using [^)]*\)\s*$`)
	sbOldVersionRe = lazyre.New(`^\s*sysbench (0\.\d+(?:\.\d+)?):`)
	sbThreadsRe    = lazyre.New(`Number of threads: (\d+)`)
	sbIntervalRe   = lazyre.New(`Report intermediate results every (\d+) second`)
	sbRateRe       = lazyre.New(`Target transaction rate: (\d+)/sec`)
	sbSeedRe       = lazyre.New(`Initializing random number generator from seed \((\d+)\)`)
	sbWarmupRe     = lazyre.New(`Warmup time: (\d+)s`)
	sbCheckpointRe = lazyre.New(`Report checkpoint\(s\) at (.+) seconds`)
	sbCreatingRe   = lazyre.New(`Creating table '(\w+)'`)
	sbInsertingRe  = lazyre.New(`Inserting (\d+) records into '(\w+)'`)
	sbFatalRe      = lazyre.New(`FATAL: (.*)$`)
	// sbReportRe is an interval line; sysbench.report_default (custom Lua
	// reports) prints "err/s" without the colon.
	sbReportRe = lazyre.New(`\[\s*(\d+(?:\.\d+)?)s\s*\] thds: (\d+) tps: (\S+) qps: (\S+) \(r/w/o: ([^/\s]+)/([^/\s]+)/([^/\s)]+)\) lat \(ms,(\d+)%\): (\S+) err/s:? (\S+) reconn/s: (\S+)`)
	// sbQueueRe is the line after an interval line in a --rate run.
	sbQueueRe  = lazyre.New(`\[\s*(\d+(?:\.\d+)?)s\s*\] queue length: (\d+),? concurrency: (\d+)`)
	sbBucketRe = lazyre.New(`^\s*(\d+(?:\.\d+)?) \|\**\s+(\d+)\s*$`)

	sbCountRe      = lazyre.New(`^\s*(read|write|other|total):\s+(\d+)\s*$`)
	sbRatedRe      = lazyre.New(`(transactions|queries|ignored errors|reconnects):\s+(\d+)\s+\(\s*(\S+) per sec\.\)`)
	sbTotalTimeRe  = lazyre.New(`total time:\s+(\d+(?:\.\d+)?)s\s*$`)
	sbEventsRe     = lazyre.New(`total number of events:\s+(\d+)\s*$`)
	sbLatencyRe    = lazyre.New(`^\s*(min|avg|max|sum):\s+(\d+(?:\.\d+)?)\s*$`)
	sbPercentileRe = lazyre.New(`(\d+)th percentile:\s+(\d+(?:\.\d+)?)\s*$`)
	sbPctOffRe     = lazyre.New(`percentile stats:\s+disabled`)
	sbFairRe       = lazyre.New(`(events|execution time) \(avg/stddev\):\s+(\S+)/(\S+)\s*$`)
)

// sbRequired are the summary lines a complete sysbench 1.0 summary has, in the
// order it prints them.
var sbRequired = []string{"read", "write", "other", "total", "transactions", "queries",
	"ignored errors", "reconnects", "total time", "total number of events",
	"min", "avg", "max", "sum", "events (avg/stddev)", "execution time (avg/stddev)"}

// sbSummary is one final (or checkpoint) summary.
type sbSummary struct {
	line    int
	seen    map[string]bool
	c       result.Counters
	trx     int64
	tps     float64
	qps     float64
	errors  int64
	seconds float64
	lat     result.Latency
	fair    result.Fairness
	pct     string // the percentile printed ("95"); "0" when disabled
}

func (s *sbSummary) missing() []string {
	var out []string
	for _, k := range sbRequired {
		if !s.seen[k] {
			out = append(out, fmt.Sprintf("%q", k+":"))
		}
	}
	return out
}

type sbBucket struct {
	ms    float64
	count int64
}

// sbRun is a sysbench run being read.
type sbRun struct {
	run
	threads        int
	reportInterval float64
	rate           float64
	seedKnown      bool
	percentile     string
	checkpoints    []*sbSummary
	nextCheckpoint bool // the next summary is a checkpoint report
	// nextCumulative: the next summary is fairbench's cumulative checkpoint
	// report, which the final summary contains; it is left out.
	nextCumulative bool
	sum            *sbSummary
	buckets        []sbBucket
	inHistogram    bool
	fatal          string
	lastAt         float64
	// outOfOrder counts interval lines that did not end after the one
	// before (a "[ 0s ]" line, a time going backwards): no run prints them,
	// so they are left out, and the result says so.
	outOfOrder int
}

type sbParser struct {
	name  string
	opts  Options
	runs  []*run
	cur   *sbRun
	cmds  commands
	data  map[string]string // tables and table-size from prepare output
	seenT map[string]bool
	// version and commit are from the last version line, at versionLine.
	version, commit string
	versionLine     int
}

func parseSysbench(name string, lines []string, opts Options) ([]*run, error) {
	p := &sbParser{name: name, opts: opts, cmds: commands{format: FormatSysbench}, data: map[string]string{}, seenT: map[string]bool{}}
	for i, l := range lines {
		if err := p.line(i+1, l); err != nil {
			return nil, err
		}
	}
	if err := p.closeIncomplete(len(lines), "the log ends"); err != nil {
		return nil, err
	}
	return p.runs, nil
}

// start begins a run at line n.
func (p *sbParser) start(n int) error {
	if err := p.closeIncomplete(n, "a new run begins"); err != nil {
		return err
	}
	line := n
	if p.versionLine > 0 && n-p.versionLine <= 3 {
		line = p.versionLine
	}
	r := &sbRun{run: run{format: FormatSysbench, line: line, res: &result.Result{},
		version: p.version, commit: p.commit, infer: inferSysbenchWorkload, defaults: sysbenchDefaults}}
	cmd, opts := p.cmds.take()
	for k, v := range p.data {
		if _, ok := opts[k]; !ok {
			opts[k] = v
		}
	}
	r.options = opts
	if cmd != nil {
		r.cmd = cmd.argv
		r.res.Workload = cmd.test
	}
	p.cur = r
	return nil
}

// closeIncomplete ends the current run if it has not ended, because event
// happened at line n: an error, or a failed result with KeepIncomplete.
func (p *sbParser) closeIncomplete(n int, event string) error {
	r := p.cur
	if r == nil {
		return nil
	}
	p.cur = nil
	at, line := fmt.Sprintf("%s at line %d", event, n), r.line
	var msg string
	switch {
	case r.sum != nil:
		line = r.sum.line
		msg = fmt.Sprintf("the summary of the run that begins at line %d is cut: it lacks %s (%s); import the complete output of the run",
			r.line, strings.Join(r.sum.missing(), ", "), at)
	case r.fatal != "":
		msg = fmt.Sprintf("the run has no summary: sysbench stopped with \"FATAL: %s\"", r.fatal)
	default:
		msg = fmt.Sprintf("the run has no summary (\"%s\" … \"Threads fairness:\"): %s; import the complete output of the run", sbSQLStats, at)
	}
	r.fill()
	rn, err := incomplete(p.name, &r.run, line, msg, p.opts)
	if err != nil {
		return err
	}
	p.runs = append(p.runs, rn)
	return nil
}

func (p *sbParser) line(n int, l string) error {
	if c, ok := parseCommand(l); ok {
		p.cmds.see(c)
		return nil
	}
	if m := sbOldVersionRe().FindStringSubmatch(l); m != nil {
		return &ParseError{Name: p.name, Line: n, Msg: fmt.Sprintf("sysbench %s logs are not supported: this reads the report of sysbench 1.0 and later", m[1])}
	}
	if m := sbVersionRe().FindStringSubmatch(l); m != nil {
		if err := p.closeIncomplete(n, "a new sysbench output begins"); err != nil {
			return err
		}
		p.version, p.commit, p.versionLine = m[1], "", n
		if suffix := strings.TrimLeft(m[2], "-+~"); isHex(suffix) {
			p.commit = suffix
		} else if suffix != "" {
			p.version += m[2]
		}
		return nil
	}
	if strings.Contains(l, sbRunning) {
		return p.start(n)
	}
	if m := sbCreatingRe().FindStringSubmatch(l); m != nil && p.cur == nil {
		p.seenT[m[1]] = true
		p.data["tables"] = strconv.Itoa(len(p.seenT))
		return nil
	}
	if m := sbInsertingRe().FindStringSubmatch(l); m != nil && p.cur == nil {
		p.data["table-size"] = m[1]
		return nil
	}
	r := p.cur
	if r == nil {
		if !sbReportRe().MatchString(l) && !strings.Contains(l, sbSQLStats) {
			return nil
		}
		// A report without its header (the log begins in the middle of a run).
		if err := p.start(n); err != nil {
			return err
		}
		r = p.cur
	}
	if m := sbFatalRe().FindStringSubmatch(l); m != nil {
		// Keep the first few distinct messages: the first alone is often vague
		// ("mysql_stmt_prepare() failed"), the next says why.
		msg := strings.TrimSpace(m[1])
		if !strings.Contains(r.fatal, msg) && strings.Count(r.fatal, "; ") < 2 {
			if r.fatal != "" {
				r.fatal += "; "
			}
			r.fatal += msg
		}
		return nil
	}
	if r.sum == nil {
		return p.header(r, n, l)
	}
	return p.summary(r, n, l)
}

// header reads the lines before the summary: options, intervals, the histogram.
func (p *sbParser) header(r *sbRun, n int, l string) error {
	if r.inHistogram {
		if m := sbBucketRe().FindStringSubmatch(l); m != nil {
			r.buckets = append(r.buckets, sbBucket{ms: parseFloat(m[1]), count: parseInt(m[2])})
			return nil
		}
		if !strings.Contains(l, "distribution") {
			r.inHistogram = false
		}
	}
	switch {
	case strings.Contains(l, sbSQLStats):
		r.sum = &sbSummary{line: n, seen: map[string]bool{}}
	case strings.Contains(l, sbHistogram):
		r.inHistogram = true
	case strings.Contains(l, sbCumulative):
		r.nextCumulative = true
	case strings.Contains(l, sbCheckpoint):
		r.nextCheckpoint = true
	}
	if m := sbThreadsRe().FindStringSubmatch(l); m != nil {
		r.threads = int(parseInt(m[1]))
	}
	if m := sbIntervalRe().FindStringSubmatch(l); m != nil {
		r.reportInterval = parseFloat(m[1])
		r.options["report-interval"] = m[1]
	}
	if m := sbRateRe().FindStringSubmatch(l); m != nil {
		r.rate = parseFloat(m[1])
		r.options["rate"] = m[1]
	}
	if m := sbSeedRe().FindStringSubmatch(l); m != nil {
		seed, _ := strconv.ParseUint(m[1], 10, 64)
		r.res.Seed, r.seedKnown = seed, true
		r.options["rand-seed"] = m[1]
	}
	if m := sbWarmupRe().FindStringSubmatch(l); m != nil {
		r.options["warmup-time"] = m[1]
	}
	if m := sbCheckpointRe().FindStringSubmatch(l); m != nil {
		r.options["report-checkpoints"] = strings.ReplaceAll(m[1], " ", "")
	}
	if m := sbReportRe().FindStringSubmatch(l); m != nil {
		r.interval(m)
	}
	if m := sbQueueRe().FindStringSubmatch(l); m != nil {
		if n := len(r.res.Intervals); n > 0 && r.res.Intervals[n-1].At == parseFloat(m[1]) {
			r.res.Intervals[n-1].OpenLoop = &result.OpenLoop{QueueLength: parseInt(m[2]), Concurrency: int(parseInt(m[3]))}
		}
	}
	return nil
}

// interval reads one interval line.
func (r *sbRun) interval(m []string) {
	at := parseFloat(m[1])
	if !(at > r.lastAt) {
		r.outOfOrder++
		return
	}
	secs := r.reportInterval
	if secs <= 0 {
		secs = at - r.lastAt
	}
	r.lastAt = at
	tps, qps := parseFloat(m[3]), parseFloat(m[4])
	count := func(rate float64) int64 { return int64(math.Round(rate * secs)) }
	iv := result.Interval{
		At: at, Seconds: secs, Threads: int(parseInt(m[2])), TPS: tps, QPS: qps,
		Counts: result.Counters{
			Events: count(tps), Queries: count(qps),
			Reads: count(parseFloat(m[5])), Writes: count(parseFloat(m[6])), Others: count(parseFloat(m[7])),
			Reconnects: count(parseFloat(m[11])),
		},
	}
	if e := count(parseFloat(m[10])); e > 0 {
		iv.Counts.Errors = map[string]int64{ErrorCodeUnknown: e}
	}
	if m[8] != "0" {
		iv.LatencyMs = map[string]float64{m[8]: parseFloat(m[9])}
		r.percentile = m[8]
	}
	r.res.Intervals = append(r.res.Intervals, iv)
}

// summary reads the lines of the final summary (or of a checkpoint report).
func (p *sbParser) summary(r *sbRun, n int, l string) error {
	s := r.sum
	if m := sbCountRe().FindStringSubmatch(l); m != nil {
		v := parseInt(m[2])
		switch m[1] {
		case "read":
			s.c.Reads = v
		case "write":
			s.c.Writes = v
		case "other":
			s.c.Others = v
		case "total":
			s.c.Queries = v
		}
		s.seen[m[1]] = true
	}
	if m := sbRatedRe().FindStringSubmatch(l); m != nil {
		v, rate := parseInt(m[2]), parseFloat(m[3])
		switch m[1] {
		case "transactions":
			s.trx, s.tps = v, rate
		case "queries":
			s.c.Queries, s.qps = v, rate
		case "ignored errors":
			s.errors = v
		case "reconnects":
			s.c.Reconnects = v
		}
		s.seen[m[1]] = true
	}
	if m := sbTotalTimeRe().FindStringSubmatch(l); m != nil {
		s.seconds = parseFloat(m[1])
		s.seen["total time"] = true
	}
	if m := sbEventsRe().FindStringSubmatch(l); m != nil {
		s.c.Events = parseInt(m[1])
		s.seen["total number of events"] = true
	}
	if m := sbLatencyRe().FindStringSubmatch(l); m != nil {
		v := parseFloat(m[2])
		switch m[1] {
		case "min":
			s.lat.MinMs = v
		case "avg":
			s.lat.AvgMs = v
		case "max":
			s.lat.MaxMs = v
		case "sum":
			s.lat.SumMs = v
		}
		s.seen[m[1]] = true
	}
	if m := sbPercentileRe().FindStringSubmatch(l); m != nil {
		s.pct = m[1]
		s.lat.Percentiles = map[string]float64{m[1]: parseFloat(m[2])}
	}
	if sbPctOffRe().MatchString(l) {
		s.pct = "0"
	}
	if m := sbFairRe().FindStringSubmatch(l); m != nil {
		avg, sd := parseFloat(m[2]), parseFloat(m[3])
		if m[1] == "events" {
			s.fair.EventsAvg, s.fair.EventsStddev = avg, sd
		} else {
			s.fair.ExecSecAvg, s.fair.ExecSecStddev = avg, sd
		}
		s.seen[m[1]+" (avg/stddev)"] = true
		if m[1] == "execution time" {
			return p.endSummary(r, n)
		}
	}
	return nil
}

// endSummary ends a summary at its last line n.
func (p *sbParser) endSummary(r *sbRun, n int) error {
	s := r.sum
	r.sum = nil
	if miss := s.missing(); len(miss) > 0 {
		r.sum = s // report the cut summary
		return p.closeIncomplete(n, "the summary ends")
	}
	if r.nextCumulative {
		r.nextCumulative = false
		return nil
	}
	if r.nextCheckpoint {
		r.checkpoints = append(r.checkpoints, s)
		r.nextCheckpoint = false
		return nil
	}
	r.checkpoints = append(r.checkpoints, s)
	if err := r.complete(); err != nil {
		return &ParseError{Name: p.name, Line: n, Msg: err.Error()}
	}
	p.runs = append(p.runs, &r.run)
	p.cur = nil
	return nil
}

// fill sets what the header and intervals gave, for complete and incomplete runs.
func (r *sbRun) fill() {
	res := r.res
	res.Threads = r.threads
	res.Rate = r.rate
	if res.Threads == 0 && len(res.Intervals) > 0 {
		res.Threads = res.Intervals[0].Threads
	}
	if r.percentile != "" && r.percentile != "0" {
		r.options["percentile"] = r.percentile
	}
	r.missing = append(r.missing, "start-end")
	if !r.seedKnown {
		r.missing = append(r.missing, "seed")
	}
	if len(res.Intervals) > 0 {
		r.missing = append(r.missing, "interval-max")
	}
	if r.fatal != "" && res.Error == "" {
		res.Status, res.Error = result.StatusFailed, "FATAL: "+r.fatal
	}
	if r.outOfOrder > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d interval line(s) of the log did not end after the one before (a [ 0s ] line or a time going backwards) and were left out of the series", r.outOfOrder))
	}
}

// complete turns the summaries (the final one, after any checkpoint reports)
// into the totals.
func (r *sbRun) complete() error {
	r.fill()
	final := r.checkpoints[len(r.checkpoints)-1]
	t := &r.res.Totals
	t.Seconds = final.seconds
	t.Counts = final.c
	t.TPS, t.QPS = final.tps, final.qps
	t.Latency = final.lat
	t.Fairness = final.fair
	errs := final.errors
	pct := final.pct
	if len(r.checkpoints) > 1 {
		// sysbench resets its counters at each checkpoint: the run is the sum of
		// the reports; total time counts from the start.
		var c result.Counters
		var lat result.Latency
		var fair result.Fairness
		errs = 0
		for i, s := range r.checkpoints {
			c.Events += s.c.Events
			c.Queries += s.c.Queries
			c.Reads += s.c.Reads
			c.Writes += s.c.Writes
			c.Others += s.c.Others
			c.Reconnects += s.c.Reconnects
			errs += s.errors
			lat.SumMs += s.lat.SumMs
			if i == 0 || s.lat.MinMs < lat.MinMs {
				lat.MinMs = s.lat.MinMs
			}
			lat.MaxMs = math.Max(lat.MaxMs, s.lat.MaxMs)
			fair.EventsAvg += s.fair.EventsAvg
			fair.ExecSecAvg += s.fair.ExecSecAvg
		}
		if c.Events > 0 {
			lat.AvgMs = round(lat.SumMs/float64(c.Events), 2)
		}
		t.Counts, t.Latency, t.Fairness = c, lat, fair
		if t.Seconds > 0 {
			t.TPS = round(float64(c.Events)/t.Seconds, 2)
			t.QPS = round(float64(c.Queries)/t.Seconds, 2)
		}
		r.missing = append(r.missing, "percentiles", "fairness-stddev")
		pct = ""
	}
	if errs > 0 {
		t.Counts.Errors = map[string]int64{ErrorCodeUnknown: errs}
		r.missing = append(r.missing, "error-codes")
	}
	if pct != "" && pct != "0" {
		r.options["percentile"] = pct
	}
	if len(r.buckets) > 0 {
		h := metrics.NewHistogram()
		for _, b := range r.buckets {
			us := int64(math.Round(b.ms * 1000))
			us = max(metrics.LowestMicros, min(us, metrics.HighestMicros))
			if err := h.RecordValues(us, b.count); err != nil {
				return fmt.Errorf("latency histogram: %w", err)
			}
		}
		enc, err := result.EncodeHistogram(h)
		if err != nil {
			return err
		}
		t.Latency.Histogram = enc
	} else {
		r.missing = append(r.missing, "histogram")
	}
	if r.rate > 0 {
		// With --rate, sysbench's latency counts from the moment the event was
		// queued; it prints no service time apart.
		r.missing = append(r.missing, "service")
	} else {
		t.Service = t.Latency
	}
	return nil
}

// sbVersionNumRe reads the major and minor of a sysbench version ("1.0.20").
var sbVersionNumRe = lazyre.New(`^(\d+)\.(\d+)`)

// sbRandParams are the parameters of each --rand-type and their defaults,
// alike in sysbench 1.0 and 1.1 (src/sb_rand.c).
var sbRandParams = map[string]map[string]string{
	"special":  {"rand-spec-iter": "12", "rand-spec-pct": "1", "rand-spec-res": "75"},
	"gaussian": {"rand-spec-iter": "12"},
	"pareto":   {"rand-pareto-h": "0.2"},
	"zipfian":  {"rand-zipfian-exp": "0.8"},
}

// sysbenchDefaults are the defaults of sysbench's version that shape what a
// run measured when the log shows no value: the distribution of the keys,
// --rand-type, whose default is "special" in sysbench 1.0 (sb_rand.c of 1.0.x:
// SB_OPT("rand-type", …, "special", STRING); `sysbench 1.0.20 --help` prints
// [special]) and "uniform" from 1.1 (the master branch), and the parameters of
// that distribution. With no version, or one whose default is unknown,
// --rand-type is left unknown with a warning.
func sysbenchDefaults(version string, given map[string]string) versionDefaults {
	d := versionDefaults{values: map[string]string{}}
	randType := given["rand-type"]
	if randType == "" {
		major, minor := -1, -1
		if m := sbVersionNumRe().FindStringSubmatch(version); m != nil {
			major, _ = strconv.Atoi(m[1])
			minor, _ = strconv.Atoi(m[2])
		}
		switch {
		case major == 1 && minor == 0:
			randType = "special"
		case major == 1 && minor >= 1:
			randType = "uniform"
		case version == "":
			d.unknown = []string{"rand-type"}
			d.warning = "the log does not say which sysbench version wrote it (no \"sysbench 1.0.20 (using …)\" line) nor the run's --rand-type, so the distribution of its keys is unknown (sysbench 1.0 defaults to special, 1.1 to uniform): give it with --set rand-type=special (or uniform)"
			return d
		default:
			d.unknown = []string{"rand-type"}
			d.warning = fmt.Sprintf("the log shows no --rand-type and fairbench does not know the default of sysbench %s (1.0: special, 1.1: uniform), so the distribution of its keys is unknown: give it with --set rand-type=…", version)
			return d
		}
		d.values["rand-type"] = randType
	}
	for k, v := range sbRandParams[randType] {
		d.values[k] = v
	}
	return d
}

// sbMixes are the queries per event of the default sysbench OLTP workloads with
// a distinctive mix (reads, writes, others).
var sbMixes = []struct {
	name string
	mix  [3]float64
}{
	{"oltp_point_select", [3]float64{1, 0, 0}},
	{"oltp_read_only", [3]float64{14, 0, 2}},
	{"oltp_read_write", [3]float64{14, 4, 2}},
	{"oltp_write_only", [3]float64{0, 4, 2}},
}

// inferSysbenchWorkload names the default OLTP workload whose query mix the
// totals show, or "" when none matches. Events that failed with an ignored
// error add queries without an event, hence the tolerance.
func inferSysbenchWorkload(res *result.Result) string {
	c := res.Totals.Counts
	if c.Events <= 0 {
		return ""
	}
	got := [3]float64{float64(c.Reads), float64(c.Writes), float64(c.Others)}
	for _, w := range sbMixes {
		ok := true
		for i := range got {
			per := got[i] / float64(c.Events)
			if math.Abs(per-w.mix[i]) > 0.02*math.Max(w.mix[i], 1) {
				ok = false
			}
		}
		if ok {
			return w.name
		}
	}
	return ""
}

func isHex(s string) bool {
	if len(s) < 7 {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

// round rounds v to d decimals, as the tool would print it.
func round(v float64, d int) float64 {
	p := math.Pow(10, float64(d))
	return math.Round(v*p) / p
}
