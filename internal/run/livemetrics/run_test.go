package livemetrics

import (
	"context"
	"io"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/db/driver/open"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/run/metrics"
	"github.com/fairbench/fairbench/internal/run/runner"
	"github.com/fairbench/fairbench/internal/testing/testdb"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/oltp"
	"github.com/fairbench/fairbench/internal/workload/randgen"
)

// TestScrapedDuringARealRun runs oltp_read_only on SQLite with the exporter fed
// by the runner's OnInterval, scrapes while it runs, and checks that the
// scrapes saw the warm-up and the measured phase and that the final counters
// equal the run's own intervals.
func TestScrapedDuringARealRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cfg := testdb.SQLite(t)
	drv, err := open.Driver(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer drv.Close()

	const name = "oltp_read_only"
	wl := newWorkload(t, name, "--tables=1", "--table-size=1000")
	rng := factory(t)
	if err := wl.Prepare(ctx, workload.PrepareEnv{Driver: drv, Threads: 1, Rand: rng, Log: io.Discard}); err != nil {
		t.Fatalf("prepare: %v", err)
	}

	e := New(Labels{Target: cfg.Kind})
	addr, err := e.Serve(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}

	// Scrape every 50ms while the run goes on.
	stop := make(chan struct{})
	var seenWarmup, seenMeasure bool
	var measuredEvents float64
	var scrapeErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			s, err := fetch(addr)
			if err != nil {
				scrapeErr = err
				return
			}
			if v, _ := s.value("fairbench_phase", labels("phase=warmup")); v == 1 {
				seenWarmup = true
			}
			if v, _ := s.value("fairbench_phase", labels("phase=measure")); v == 1 {
				seenMeasure = true
				measuredEvents, _ = s.value("fairbench_events_total", labels("workload="+name))
			}
		}
	}()

	const threads = 2
	e.StartRun(name, threads, nil)
	out := runner.Run(ctx, runner.Config{
		Threads: threads, Warmup: time.Second, Duration: 1500 * time.Millisecond,
		ReportInterval: 200 * time.Millisecond, Percentiles: []float64{95},
	}, runner.Deps{Driver: drv, Workload: wl, Rand: rng, OnInterval: e.Observe})
	close(stop)
	wg.Wait()
	e.SetPhase(PhaseDone)
	if out.Status != result.StatusComplete {
		t.Fatalf("run %s: %v", out.Status, out.Err)
	}

	if scrapeErr != nil {
		t.Errorf("scraping during the run: %v", scrapeErr)
	}
	if !seenWarmup || !seenMeasure {
		t.Errorf("scrapes during the run saw warm-up %v, measure %v: want both", seenWarmup, seenMeasure)
	}
	if measuredEvents <= 0 {
		t.Errorf("a scrape in the measured phase saw %v events, want some", measuredEvents)
	}

	var events, reads, others int64
	for _, iv := range out.Intervals {
		events += iv.Counts.Events
		reads += iv.Counts.Reads
		others += iv.Counts.Others
	}
	last := out.Intervals[len(out.Intervals)-1]
	s := get(t, addr)
	cases := []struct {
		name, labels string
		want         float64
	}{
		{"fairbench_events_total", "workload=" + name, float64(events)},
		{"fairbench_queries_total", "type=read", float64(reads)},
		{"fairbench_queries_total", "type=other", float64(others)},
		{"fairbench_queries_total", "type=write", 0},
		{"fairbench_tps", "workload=" + name, last.TPS},
		{"fairbench_threads", "target=sqlite", threads},
		{"fairbench_interval_latency_seconds", "quantile=0.95", last.LatencyMs["95"] / 1000},
		{"fairbench_phase", "phase=done", 1},
	}
	for _, c := range cases {
		got, ok := s.value(c.name, labels(c.labels))
		if !ok || math.Abs(got-c.want) > 1e-9*math.Max(1, c.want) {
			t.Errorf("%s{%s} = %v (present %v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
	if events == 0 || measuredEvents > float64(events) {
		t.Errorf("run counted %d events, a scrape during it saw %v", events, measuredEvents)
	}
}

// newWorkload builds the OLTP workload name with args, validated.
func newWorkload(t *testing.T, name string, args ...string) workload.Workload {
	t.Helper()
	spec, err := workload.NewRegistry(oltp.Specs()...).Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	wl := spec.New(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	if err := wl.Validate(); err != nil {
		t.Fatal(err)
	}
	return wl
}

// factory returns seeded random numbers.
func factory(t *testing.T) *randgen.Factory {
	t.Helper()
	c := randgen.DefaultConfig()
	c.Seed = 42
	f, err := randgen.NewFactory(c)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestLatencyHistogramDuringAMariaDBRun runs oltp_point_select on MariaDB with
// the exporter fed by the runner's OnIntervalHistogram and scrapes while it
// runs. Every scrape sees whole intervals: the histogram's _count equals
// fairbench_events_total and the events of the first k intervals the run
// reported, for some k, and it grows. At the end its buckets are those of the
// run's own interval histograms pooled, and the endpoint still answers, in
// phase "done", while the server lingers.
func TestLatencyHistogramDuringAMariaDBRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := testdb.MySQL(t)
	drv, err := open.Driver(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer drv.Close()
	const name = "oltp_point_select"
	wl := newWorkload(t, name, "--tables=1", "--table-size=1000")
	rng := factory(t)
	if err := wl.Prepare(ctx, workload.PrepareEnv{Driver: drv, Threads: 1, Rand: rng, Log: io.Discard}); err != nil {
		t.Fatalf("prepare: %v", err)
	}

	e := New(Labels{Target: cfg.Kind})
	srv, err := e.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	type seen struct{ count, events float64 }
	var (
		scrapes   []seen
		scrapeErr error
		stop      = make(chan struct{})
		wg        sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			s, err := fetch(srv.Addr())
			if err != nil {
				scrapeErr = err
				return
			}
			m, ok := s.find("fairbench_event_latency_seconds", labels("workload="+name))
			if !ok {
				continue // no interval yet
			}
			events, _ := s.value("fairbench_events_total", labels("workload="+name))
			scrapes = append(scrapes, seen{float64(m.GetHistogram().GetSampleCount()), events})
		}
	}()

	const threads = 2
	e.StartRun(name, threads, nil)
	var fed []result.Interval
	out := runner.Run(ctx, runner.Config{
		Threads: threads, Warmup: time.Second, Duration: 2 * time.Second,
		ReportInterval: 200 * time.Millisecond, Percentiles: []float64{95}, IntervalHistograms: true,
	}, runner.Deps{Driver: drv, Workload: wl, Rand: rng,
		OnIntervalHistogram: func(iv result.Interval, lat *metrics.Latency) {
			fed = append(fed, iv)
			if err := e.ObserveInterval(iv, lat); err != nil {
				t.Errorf("ObserveInterval: %v", err)
			}
		}})
	e.SetPhase(PhaseDone)
	close(stop)
	wg.Wait()
	if out.Status != result.StatusComplete {
		t.Fatalf("run %s: %v", out.Status, out.Err)
	}
	if scrapeErr != nil {
		t.Fatalf("scraping during the run: %v", scrapeErr)
	}
	if len(fed) != len(out.Intervals) {
		t.Fatalf("the exporter was fed %d intervals, the run reported %d", len(fed), len(out.Intervals))
	}

	// Whole intervals in every scrape, and growing.
	prefix := map[float64]bool{0: true}
	var sum float64
	for _, iv := range out.Intervals {
		sum += float64(iv.Counts.Events)
		prefix[sum] = true
	}
	distinct := map[float64]bool{}
	for i, s := range scrapes {
		if s.count != s.events || !prefix[s.count] {
			t.Fatalf("scrape %d: histogram count %v, events_total %v; want equal, and the events of the first k intervals", i, s.count, s.events)
		}
		if i > 0 && s.count < scrapes[i-1].count {
			t.Fatalf("scrape %d: histogram count fell from %v to %v", i, scrapes[i-1].count, s.count)
		}
		distinct[s.count] = true
	}
	if len(distinct) < 2 {
		t.Errorf("the scrapes during the run saw the histogram count take %d value(s), want it to grow: %v", len(distinct), scrapes)
	}

	// The endpoint lingers after the run: phase done, final figures, buckets
	// those of the run's own interval histograms pooled.
	srv.Linger = time.Hour
	lingerCtx, endLinger := context.WithCancel(ctx)
	stopped := make(chan struct{})
	go func() { srv.Stop(lingerCtx); close(stopped) }()
	s := get(t, srv.Addr())
	if v, _ := s.value("fairbench_phase", labels("phase=done")); v != 1 {
		t.Errorf("after the run: phase done = %v, want 1", v)
	}
	m, ok := s.find("fairbench_event_latency_seconds", labels("workload="+name))
	if !ok {
		t.Fatal("after the run: no fairbench_event_latency_seconds")
	}
	h := m.GetHistogram()
	pooled := metrics.NewHistogram()
	var events int64
	for _, iv := range out.Intervals {
		events += iv.Counts.Events
		if iv.Histogram == nil {
			if iv.Counts.Events > 0 {
				t.Fatalf("interval at %vs has %d events and no histogram", iv.At, iv.Counts.Events)
			}
			continue
		}
		ih, err := iv.Histogram.Decode()
		if err != nil {
			t.Fatal(err)
		}
		pooled.Merge(ih)
	}
	if events == 0 || h.GetSampleCount() != uint64(events) || pooled.TotalCount() != events {
		t.Fatalf("histogram count %d, pooled interval histograms %d, events %d", h.GetSampleCount(), pooled.TotalCount(), events)
	}
	if h.GetSampleSum() <= 0 {
		t.Errorf("histogram sum %v, want the events' total latency", h.GetSampleSum())
	}
	bounds := LatencyBounds()
	want := make([]uint64, len(bounds))
	cumulativeCounts(pooled, micros(bounds), want)
	got := map[float64]uint64{}
	for _, b := range h.Bucket {
		got[b.GetUpperBound()] = b.GetCumulativeCount()
	}
	for i, b := range bounds {
		if got[b] != want[i] {
			t.Errorf("bucket le=%v: %d, want %d from the pooled interval histograms", b, got[b], want[i])
		}
	}
	endLinger()
	<-stopped
}
