package result

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

var mergeBase = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// clientSpec describes one constructed client result.
type clientSpec struct {
	id, of    int
	seed      uint64
	n         int           // events
	skew      time.Duration // start after the common start
	seconds   float64       // measured seconds
	perThread []int64       // events per thread (sums to n)
	busy      []float64     // busy seconds per thread
	status    Status
}

// clientResult builds a coordinated client result whose latency histogram holds
// n pseudo-random latencies, with one interval per second.
func clientResult(t testing.TB, c clientSpec) *Result {
	t.Helper()
	h := hdrhistogram.New(1, 3_600_000_000, 3)
	rng := rand.New(rand.NewPCG(c.seed, 7))
	var sum, minUs, maxUs int64
	for i := 0; i < c.n; i++ {
		v := int64(300 + rng.ExpFloat64()*float64(500*(c.id+1)))
		if i%997 == 0 {
			v *= 50
		}
		if err := h.RecordValue(v); err != nil {
			t.Fatal(err)
		}
		sum += v
		if i == 0 || v < minUs {
			minUs = v
		}
		maxUs = max(maxUs, v)
	}
	enc, err := EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	minMs, maxMs := float64(minUs)/1000, float64(maxUs)/1000
	lat := Latency{
		MinMs: minMs, MaxMs: maxMs, SumMs: float64(sum) / 1000, AvgMs: float64(sum) / 1000 / float64(c.n),
		Percentiles: map[string]float64{
			"95": HistogramQuantileMs(h, 0.95, minMs, maxMs),
			"99": HistogramQuantileMs(h, 0.99, minMs, maxMs),
		},
		Histogram: enc,
	}
	if c.id == 2 {
		lat.Percentiles["99.9"] = HistogramQuantileMs(h, 0.999, minMs, maxMs)
	}
	n := int64(c.n)
	counts := Counters{Events: n, Reads: 10 * n, Others: 2 * n, Queries: 12 * n, Reconnects: int64(c.id),
		Errors: map[string]int64{"1213": int64(c.id + 1)}}
	threads := len(c.perThread)
	var fair Fairness
	for i := range c.perThread {
		fair.EventsAvg += float64(c.perThread[i]) / float64(threads)
		fair.ExecSecAvg += c.busy[i] / float64(threads)
	}
	for i := range c.perThread {
		fair.EventsStddev += math.Pow(float64(c.perThread[i])-fair.EventsAvg, 2) / float64(threads)
		fair.ExecSecStddev += math.Pow(c.busy[i]-fair.ExecSecAvg, 2) / float64(threads)
	}
	fair.EventsStddev, fair.ExecSecStddev = math.Sqrt(fair.EventsStddev), math.Sqrt(fair.ExecSecStddev)

	status := c.status
	if status == "" {
		status = StatusComplete
	}
	start := mergeBase.Add(c.skew)
	r := &Result{
		Schema: SchemaVersion, Workload: "oltp_point_select", Seed: c.seed,
		Options: map[string]string{
			"tables": "1", "table-size": "1000", "time": "10", "warmup-time": "0", "report-interval": "1",
			"threads": strconv.Itoa(threads), "client-id": strconv.Itoa(c.id), "clients": strconv.Itoa(c.of),
			"start-at": strconv.FormatInt(mergeBase.Unix(), 10), "rand-seed": strconv.FormatUint(c.seed, 10),
			"output": "c" + strconv.Itoa(c.id) + ".json", "mysql-host": "host" + strconv.Itoa(c.id),
		},
		Target:  Target{Driver: "mysql", Hosts: []string{"host" + strconv.Itoa(c.id)}, Database: "sbtest", PSMode: "prepared"},
		Status:  status,
		Start:   start,
		End:     start.Add(time.Duration(c.seconds * float64(time.Second))),
		Threads: threads,
		Totals: Phase{Seconds: c.seconds, Counts: counts, TPS: float64(n) / c.seconds, QPS: float64(12*n) / c.seconds,
			Latency: lat, Service: Latency{MinMs: minMs, MaxMs: maxMs}, Fairness: fair},
		Client: &ClientInfo{ID: c.id, Of: c.of, StartAt: mergeBase},
	}
	r.Server.Flavor, r.Server.Version = "MariaDB", "10.11.6"
	r.Machine.Hostname = "client" + strconv.Itoa(c.id)
	// One interval per whole second, the events spread evenly, the rest in the last.
	secs := int(c.seconds)
	per := n / int64(secs)
	for i := 1; i <= secs; i++ {
		ev := per
		if i == secs {
			ev = n - per*int64(secs-1)
		}
		r.Intervals = append(r.Intervals, Interval{At: float64(i), Seconds: 1, Threads: threads,
			Counts: Counters{Events: ev, Reads: 10 * ev, Others: 2 * ev, Queries: 12 * ev}, MaxMs: float64(i + c.id)})
	}
	return r
}

func threeClients(t *testing.T) []Part {
	t.Helper()
	specs := []clientSpec{
		{id: 2, of: 3, seed: 3, n: 3000, skew: 120 * time.Millisecond, seconds: 10.1, perThread: []int64{1000, 1100, 900}, busy: []float64{9.5, 9.9, 9.1}},
		{id: 0, of: 3, seed: 1, n: 5000, skew: 0, seconds: 10, perThread: []int64{2600, 2400}, busy: []float64{9.8, 9.7}},
		{id: 1, of: 3, seed: 2, n: 4000, skew: 300 * time.Millisecond, seconds: 9.9, perThread: []int64{4000}, busy: []float64{9.6}},
	}
	var parts []Part
	for _, s := range specs {
		parts = append(parts, Part{File: "c" + strconv.Itoa(s.id) + ".json", Result: clientResult(t, s)})
	}
	return parts
}

func TestMergeSumsCountsAndPoolsHistograms(t *testing.T) {
	parts := threeClients(t)
	parts[2].Result.Status = StatusInterrupted
	parts[2].Result.Error = ""
	for _, p := range parts {
		p.Result.Observed = &Observed{Seconds: 10, Bound: BoundCPU, Client: &ObservedClient{UserSeconds: float64(p.Result.Client.ID + 1)}}
	}
	m, err := Merge(parts, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Exact sums.
	c := m.Totals.Counts
	if c.Events != 12000 || c.Reads != 120000 || c.Queries != 144000 || c.Others != 24000 || c.Reconnects != 3 || c.Errors["1213"] != 6 {
		t.Fatalf("counts = %+v", c)
	}
	if m.Threads != 6 || m.Options["threads"] != "6" || m.Options["client-id"] != "" || m.Options["table-size"] != "1000" {
		t.Fatalf("threads %d options %v", m.Threads, m.Options)
	}
	if m.Client != nil || m.Status != StatusInterrupted || m.Seed != 0 {
		t.Fatalf("client %v status %s seed %d", m.Client, m.Status, m.Seed)
	}
	// Mean duration (10 + 9.9 + 10.1)/3 = 10 s; rates over it.
	if math.Abs(m.Totals.Seconds-10) > 1e-9 || math.Abs(m.Totals.TPS-1200) > 1e-6 || math.Abs(m.Totals.QPS-14400) > 1e-6 {
		t.Fatalf("seconds %v tps %v qps %v", m.Totals.Seconds, m.Totals.TPS, m.Totals.QPS)
	}
	if !m.Start.Equal(mergeBase) || m.End.Sub(mergeBase.Add(10220*time.Millisecond)).Abs() > time.Microsecond {
		t.Fatalf("start %v end %v", m.Start, m.End)
	}
	// The merged histogram is the pooled one; the percentiles are its own.
	pooled := hdrhistogram.New(1, 3_600_000_000, 3)
	minMs, maxMs, sumMs := math.Inf(1), 0.0, 0.0
	for _, p := range parts {
		h, err := p.Result.Totals.Latency.Histogram.Decode()
		if err != nil {
			t.Fatal(err)
		}
		pooled.Merge(h)
		l := p.Result.Totals.Latency
		minMs, maxMs, sumMs = math.Min(minMs, l.MinMs), math.Max(maxMs, l.MaxMs), sumMs+l.SumMs
	}
	got, err := m.Totals.Latency.Histogram.Decode()
	if err != nil {
		t.Fatal(err)
	}
	sameCounts(t, got, pooled)
	l := m.Totals.Latency
	for key, q := range map[string]float64{"95": 0.95, "99": 0.99, "99.9": 0.999} {
		want := HistogramQuantileMs(pooled, q, minMs, maxMs)
		if l.Percentiles[key] != want {
			t.Errorf("p%s = %v, want %v (pooled)", key, l.Percentiles[key], want)
		}
	}
	// Averaging the parts' p99 would not give the pooled one: the test data tell them apart.
	var avg99 float64
	for _, p := range parts {
		avg99 += p.Result.Totals.Latency.Percentiles["99"] / 3
	}
	if avg99 == l.Percentiles["99"] {
		t.Fatal("test data too uniform: averaged p99 equals pooled p99")
	}
	if l.MinMs != minMs || l.MaxMs != maxMs || math.Abs(l.SumMs-sumMs) > 1e-6 || math.Abs(l.AvgMs-sumMs/12000) > 1e-9 {
		t.Fatalf("latency %+v, want min %v max %v sum %v", l, minMs, maxMs, sumMs)
	}
	if m.Totals.Service.MaxMs != maxMs || m.Totals.Service.Histogram != nil {
		t.Fatalf("service without --rate should equal latency without histogram: %+v", m.Totals.Service)
	}
	// merged_from in client id order, with each part's machine.
	if m.Observed != nil {
		t.Errorf("merged observed = %+v, want none", m.Observed)
	}
	if len(m.MergedFrom) != 3 {
		t.Fatalf("merged_from has %d parts", len(m.MergedFrom))
	}
	for i, mp := range m.MergedFrom {
		if mp.ClientID != i || mp.File != "c"+strconv.Itoa(i)+".json" || mp.Machine.Hostname != "client"+strconv.Itoa(i) {
			t.Errorf("merged_from[%d] = %+v", i, mp)
		}
		// Each client's observations are kept with it; the client machines differ,
		// so the merged result has none of its own.
		if mp.Observed == nil || mp.Observed.Client == nil || mp.Observed.Client.UserSeconds != float64(i+1) {
			t.Errorf("merged_from[%d].observed = %+v, want the client's own", i, mp.Observed)
		}
	}
}

func TestMergePoolsFairnessOverAllThreads(t *testing.T) {
	parts := threeClients(t)
	m, err := Merge(parts, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	events := []float64{1000, 1100, 900, 2600, 2400, 4000}
	busy := []float64{9.5, 9.9, 9.1, 9.8, 9.7, 9.6}
	meanStd := func(xs []float64) (float64, float64) {
		var m, v float64
		for _, x := range xs {
			m += x / float64(len(xs))
		}
		for _, x := range xs {
			v += (x - m) * (x - m) / float64(len(xs))
		}
		return m, math.Sqrt(v)
	}
	em, es := meanStd(events)
	bm, bs := meanStd(busy)
	f := m.Totals.Fairness
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"events avg", f.EventsAvg, em}, {"events stddev", f.EventsStddev, es}, {"exec avg", f.ExecSecAvg, bm}, {"exec stddev", f.ExecSecStddev, bs}} {
		if math.Abs(c.got-c.want) > 1e-6 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestMergeAlignsIntervalsOnAbsoluteTime(t *testing.T) {
	parts := threeClients(t)
	// Client 1 started 300 ms late and had a 2 s warm-up: its run began 2 s
	// before its measured start, and its intervals are warm-up for the first two.
	r1 := parts[2].Result
	r1.Options["warmup-time"] = "2"
	for _, p := range parts {
		p.Result.Options["warmup-time"] = "2"
		p.Result.Warmup = &Phase{Seconds: 2}
	}
	for _, p := range parts {
		r := p.Result
		r.Start = r.Start.Add(2 * time.Second)
		r.End = r.End.Add(2 * time.Second)
		ivs := []Interval{{At: 1, Seconds: 1, Warmup: true, Threads: r.Threads, Counts: Counters{Events: 7}},
			{At: 2, Seconds: 1, Warmup: true, Threads: r.Threads, Counts: Counters{Events: 7}}}
		for _, iv := range r.Intervals {
			iv.At += 2
			ivs = append(ivs, iv)
		}
		r.Intervals = ivs
	}
	m, err := Merge(parts, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var measured int64
	for i, iv := range m.Intervals {
		if iv.Warmup {
			if iv.Counts.Events != 21 || iv.Threads != 6 {
				t.Errorf("warm-up interval %d: %+v", i, iv)
			}
			continue
		}
		measured += iv.Counts.Events
	}
	if measured != m.Totals.Counts.Events {
		t.Fatalf("measured intervals hold %d events, totals %d", measured, m.Totals.Counts.Events)
	}
	// 2 warm-up + 10 measured slots: the 120 ms and 300 ms skews snap to the same grid.
	if len(m.Intervals) != 12 {
		for _, iv := range m.Intervals {
			t.Logf("at %v warm %v events %d", iv.At, iv.Warmup, iv.Counts.Events)
		}
		t.Fatalf("%d merged intervals, want 12", len(m.Intervals))
	}
	third := m.Intervals[4] // at 5 s: 500 + 444 + 300 events
	if third.At != 5 || third.Counts.Events != 1244 || third.Threads != 6 || third.TPS != 1244 || third.MaxMs != 5 {
		t.Fatalf("interval at 5s: %+v", third)
	}
}

func TestMergeKindsAndFigures(t *testing.T) {
	parts := threeClients(t)
	kinds := []string{"new_order", "payment"}
	for i, p := range parts {
		r := p.Result
		r.Kinds = kinds
		r.Totals.Kinds = []KindPhase{
			{Name: "new_order", Events: int64(100 * (i + 1)), Rollbacks: int64(i), Latency: Latency{MinMs: float64(i + 1), MaxMs: float64(10 * (i + 1)), SumMs: 50}},
			{Name: "payment", Events: int64(90 * (i + 1)), Errors: map[string]int64{"1213": 1}},
		}
		for j := range r.Intervals {
			r.Intervals[j].KindEvents = []int64{1, 2}
		}
	}
	var seen *Phase
	m, err := Merge(parts, MergeOptions{Figures: func(p *Phase) []Figure {
		seen = p
		return []Figure{{Name: "tpmC", Value: float64(p.Kinds[0].Events) * 60 / p.Seconds, Unit: "transactions/min"}}
	}})
	if err != nil {
		t.Fatal(err)
	}
	no := m.Totals.Kinds[0]
	if no.Events != 600 || no.Rollbacks != 3 || no.Latency.MinMs != 1 || no.Latency.MaxMs != 30 || no.Latency.AvgMs != 150.0/600 || no.TPS != 60 {
		t.Fatalf("new_order = %+v", no)
	}
	if pay := m.Totals.Kinds[1]; pay.Events != 540 || pay.Errors["1213"] != 3 {
		t.Fatalf("payment = %+v", pay)
	}
	if seen != &m.Totals || len(m.Figures) != 1 || m.Figures[0].Value != 600*60/10.0 {
		t.Fatalf("figures %+v", m.Figures)
	}
	if ke := m.Intervals[0].KindEvents; len(ke) != 2 || ke[0] != 3 || ke[1] != 6 {
		t.Fatalf("kind events of the first interval: %v", ke)
	}
}

func TestMergeRefusals(t *testing.T) {
	cases := []struct {
		name   string
		change func(parts []Part) []Part
		want   []string
	}{
		{"workload", func(p []Part) []Part { p[1].Result.Workload = "oltp_read_only"; return p },
			[]string{"workload differs", `"oltp_read_only" in c0.json`, "c2.json"}},
		{"workload option", func(p []Part) []Part { p[2].Result.Options["range-size"] = "100"; return p },
			[]string{"option --range-size differs", `"(not set)" in c2.json`, `"100" in c1.json`}},
		{"data set", func(p []Part) []Part { p[1].Result.Options["table-size"] = "2000"; return p },
			[]string{"option --table-size differs", `"1000" in c2.json`, `"2000" in c0.json`}},
		{"database", func(p []Part) []Part { p[1].Result.Target.Database = "other"; return p },
			[]string{"target database differs", `"other" in c0.json`}},
		{"server", func(p []Part) []Part { p[2].Result.Server.Version = "11.4.2"; return p },
			[]string{"server differs", "MariaDB 11.4.2", "c1.json"}},
		{"clients", func(p []Part) []Part { p[0].Result.Client.Of = 4; return p },
			[]string{"clients (--clients) differs", `"4" in c2.json`, `"3" in c0.json`}},
		{"start", func(p []Part) []Part { p[2].Result.Client.StartAt = mergeBase.Add(time.Second); return p },
			[]string{"start time (--start-at) differs", "c1.json"}},
		{"duplicate id", func(p []Part) []Part { p[2].Result.Client.ID = 0; return p },
			[]string{"client id 0 appears twice, in c0.json and in c1.json"}},
		{"missing client", func(p []Part) []Part { return p[:2] },
			[]string{"3 clients (--clients=3) but 2 result(s) were given (c2.json, c0.json)", "0..2"}},
		{"id out of range", func(p []Part) []Part { p[0].Result.Client.ID = 3; return p },
			[]string{"client id 3 of c2.json is outside 0..2"}},
		{"not a client", func(p []Part) []Part { p[1].Result.Client = nil; return p },
			[]string{"cannot merge c0.json: it is not the result of a coordinated client", "--client-id"}},
		{"already merged", func(p []Part) []Part { p[1].Result.MergedFrom = []MergedPart{{}}; return p },
			[]string{"c0.json: it is already a merged result"}},
		{"no histogram", func(p []Part) []Part { p[1].Result.Totals.Latency.Histogram = nil; return p },
			[]string{"c0.json: its measured phase has no latency histogram"}},
		{"no overlap", func(p []Part) []Part {
			p[1].Result.End = p[1].Result.Start.Add(time.Millisecond)
			p[2].Result.Start = p[1].Result.End.Add(time.Second)
			return p
		}, []string{"did not overlap: c0.json ended at", "before c1.json started"}},
		{"open and closed loop", func(p []Part) []Part { p[2].Result.Rate = 50; return p },
			[]string{"open or closed loop (--rate) differs"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Merge(tc.change(threeClients(t)), MergeOptions{})
			if err == nil {
				t.Fatal("merged; want a refusal")
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
		})
	}
}

func TestMergeAllowsPerClientDifferencesAndWarnsOnSameSeed(t *testing.T) {
	parts := threeClients(t)
	parts[0].Result.Options["percentile"] = "50,99"
	parts[1].Result.Options["mysql-user"] = "other"
	parts[2].Result.Options["connect-rate"] = "50" // one client connects more gently
	parts[2].Result.Options["mem-profile"] = "c2.prof"
	parts[1].Result.Options["start-at"] = mergeBase.Format(time.RFC3339) // the same instant, written otherwise
	parts[1].Result.Seed, parts[2].Result.Seed = 9, 9
	var warnings []string
	if _, err := Merge(parts, MergeOptions{Warn: func(s string) { warnings = append(warnings, s) }}); err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "same --rand-seed 9") {
		t.Fatalf("warnings = %q", warnings)
	}
}

// The merged result keeps the server's machines as the first client that knew
// them described them, and warns when another client described them otherwise.
func TestMergeKeepsServerMachines(t *testing.T) {
	db := ServerMachine{Machine: Machine{CPUModel: "Kunpeng 920", LogicalCPUs: 64}, Role: RoleServer, Source: ServerSourceAgent}
	parts := threeClients(t)
	parts[1].Result.ServerMachines = []ServerMachine{db}
	parts[2].Result.ServerMachines = []ServerMachine{db}
	m, err := Merge(parts, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.ServerMachines) != 1 || m.ServerMachines[0].CPUModel != "Kunpeng 920" {
		t.Fatalf("server machines %+v: want the clients' one", m.ServerMachines)
	}
	for _, w := range m.Warnings {
		if strings.Contains(w, "describe the server's machines differently") {
			t.Errorf("warned although the clients agree: %s", w)
		}
	}

	other := db
	other.LogicalCPUs = 32
	parts = threeClients(t)
	for _, p := range parts { // client 0 describes it as db, client 2 as other
		switch p.Result.Client.ID {
		case 0:
			p.Result.ServerMachines = []ServerMachine{db}
		case 2:
			p.Result.ServerMachines = []ServerMachine{other}
		}
	}
	m, err = Merge(parts, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, w := range m.Warnings {
		if strings.Contains(w, "describe the server's machines differently") && strings.Contains(w, "×64") && strings.Contains(w, "×32") {
			found = true
		}
	}
	if !found || m.ServerMachines[0].LogicalCPUs != 64 {
		t.Errorf("differing descriptions: warnings %q, kept %+v", m.Warnings, m.ServerMachines)
	}
}

// TestMergeScripts: clients of one scripted run merge their per-statement
// figures (counts summed, means weighted by counts); clients whose scripts
// differ are refused.
func TestMergeScripts(t *testing.T) {
	parts := threeClients(t)
	for i, p := range parts {
		p.Result.Scripts = []Script{{Name: "tpcb-like", Builtin: true, Weight: 1, SHA256: "abc", Text: "x",
			Statements: []Statement{{Line: 1, Text: "\\set aid random(1, 100000 * :scale)", Count: int64(10 * (i + 1)), AvgMs: float64(i + 1), Retries: 1}}}}
	}
	m, err := Merge(parts, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st := m.Scripts[0].Statements[0]
	// Counts 10, 20, 30 with means 1, 2, 3 ms (in the parts' order).
	if st.Count != 60 || st.Retries != 3 || math.Abs(st.AvgMs-(10*1+20*2+30*3)/60.0) > 1e-12 {
		t.Errorf("merged statement %+v", st)
	}
	parts = threeClients(t)
	for i, p := range parts {
		p.Result.Scripts = []Script{{Name: "mine.sql", Weight: 1, SHA256: "hash" + strconv.Itoa(i)}}
	}
	if _, err := Merge(parts, MergeOptions{}); err == nil || !strings.Contains(err.Error(), "scripts differs") {
		t.Errorf("clients with different scripts: err = %v, want a refusal naming the scripts", err)
	}
}
