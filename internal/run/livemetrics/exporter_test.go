package livemetrics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/fairbench/fairbench/internal/record/result"
)

// scrape is the parsed text exposition of one GET /metrics.
type scrape map[string]*dto.MetricFamily

// serve starts e on a free loopback port until the test ends and returns its address.
func serve(t *testing.T, e *Exporter) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	addr, err := e.Serve(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatalf("Serve: %v", err)
	}
	return addr
}

// get scrapes addr's /metrics and parses the text format.
func get(t testing.TB, addr string) scrape {
	t.Helper()
	s, err := fetch(addr)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// fetch scrapes addr's /metrics and parses the text format; safe off the test goroutine.
func fetch(addr string) (scrape, error) {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return nil, fmt.Errorf("scrape: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		return nil, fmt.Errorf("scrape: %s: %s", resp.Status, body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("parsing the exposition: %w", err)
	}
	return fams, nil
}

// find returns the metric of family name whose labels include want.
func (s scrape) find(name string, want map[string]string) (*dto.Metric, bool) {
	f := s[name]
	if f == nil {
		return nil, false
	}
next:
	for _, m := range f.Metric {
		have := map[string]string{}
		for _, lp := range m.Label {
			have[lp.GetName()] = lp.GetValue()
		}
		for k, v := range want {
			if have[k] != v {
				continue next
			}
		}
		return m, true
	}
	return nil, false
}

// value returns the counter or gauge value of the metric name{want…}.
func (s scrape) value(name string, want map[string]string) (float64, bool) {
	m, ok := s.find(name, want)
	switch {
	case !ok:
		return 0, false
	case m.Counter != nil:
		return m.Counter.GetValue(), true
	case m.Gauge != nil:
		return m.Gauge.GetValue(), true
	case m.Untyped != nil:
		return m.Untyped.GetValue(), true
	}
	return 0, false
}

// series counts the series of family name.
func (s scrape) series(name string) int {
	if f := s[name]; f != nil {
		return len(f.Metric)
	}
	return 0
}

// labels renders a "k=v,k=v" list as a map.
func labels(s string) map[string]string {
	out := map[string]string{}
	if s == "" {
		return out
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, _ := strings.Cut(kv, "=")
		out[k] = v
	}
	return out
}

func TestScrapeShowsWhatTheIntervalsFed(t *testing.T) {
	e := New(Labels{Target: "sqlite", Plan: "arm-vs-x86"})
	addr := serve(t, e)
	e.StartRun("tpcc", 4, []string{"new_order", "payment"})
	e.Observe(result.Interval{ // warm-up
		Warmup: true, Seconds: 1, Threads: 4, TPS: 10, QPS: 100,
		Counts:     result.Counters{Events: 10, Reads: 60, Writes: 30, Others: 10},
		KindEvents: []int64{6, 4},
		LatencyMs:  map[string]float64{"95": 20, "99.9": 40}, MaxMs: 50,
	})
	e.Observe(result.Interval{
		Seconds: 1, Threads: 4, TPS: 30, QPS: 300,
		Counts: result.Counters{Events: 30, Reads: 180, Writes: 90, Others: 30, Reconnects: 1,
			Errors: map[string]int64{"1213": 2, "40001": 1}},
		KindEvents: []int64{20, 10},
		LatencyMs:  map[string]float64{"95": 12, "99.9": 30}, MaxMs: 45,
	})
	e.Observe(result.Interval{
		Seconds: 1, Threads: 4, TPS: 25, QPS: 250,
		Counts:     result.Counters{Events: 25, Reads: 150, Writes: 75, Others: 25, Errors: map[string]int64{"1213": 3}},
		KindEvents: []int64{15, 10},
		LatencyMs:  map[string]float64{"95": 14, "99.9": 35}, MaxMs: 48,
	})
	s := get(t, addr)

	cases := []struct {
		name, labels string
		want         float64
	}{
		{"fairbench_events_total", "workload=tpcc,kind=new_order", 41},
		{"fairbench_events_total", "workload=tpcc,kind=payment", 24},
		{"fairbench_queries_total", "workload=tpcc,type=read", 390},
		{"fairbench_queries_total", "workload=tpcc,type=write", 195},
		{"fairbench_queries_total", "workload=tpcc,type=other", 65},
		{"fairbench_errors_total", "workload=tpcc,code=1213", 5},
		{"fairbench_errors_total", "workload=tpcc,code=40001", 1},
		{"fairbench_reconnects_total", "workload=tpcc", 1},
		{"fairbench_tps", "workload=tpcc", 25},
		{"fairbench_qps", "workload=tpcc", 250},
		{"fairbench_threads", "workload=tpcc", 4},
		{"fairbench_interval_latency_seconds", "workload=tpcc,quantile=0.95", 0.014},
		{"fairbench_interval_latency_seconds", "workload=tpcc,quantile=0.999", 0.035},
		{"fairbench_interval_latency_seconds", "workload=tpcc,quantile=1", 0.048},
		{"fairbench_phase", "phase=measure", 1},
		{"fairbench_phase", "phase=warmup", 0},
		{"fairbench_phase", "phase=connecting", 0},
		{"fairbench_phase", "phase=idle", 0},
		{"fairbench_events_total", "target=sqlite,plan=arm-vs-x86,kind=payment", 24},
		{"fairbench_phase", "target=sqlite,plan=arm-vs-x86,phase=measure", 1},
	}
	for _, c := range cases {
		got, ok := s.value(c.name, labels(c.labels))
		if !ok {
			t.Errorf("%s{%s} missing", c.name, c.labels)
			continue
		}
		if math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s{%s} = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	if n := s.series("fairbench_events_total"); n != 2 {
		t.Errorf("fairbench_events_total has %d series, want one per kind (2)", n)
	}
	if m, ok := s.find("fairbench_tps", nil); ok {
		for _, lp := range m.Label {
			if lp.GetName() == "server" {
				t.Errorf("empty Labels.Server became a label: %v", m.Label)
			}
		}
	}
	if _, ok := s.value("go_goroutines", nil); !ok {
		t.Error("the exporter's registry lacks the Go runtime metrics")
	}
	if f := s["fairbench_events_total"]; f == nil || f.GetType() != dto.MetricType_COUNTER {
		t.Errorf("fairbench_events_total is not a counter: %v", f)
	}
}

func TestSingleKindWorkloadsCountEventsWithoutKind(t *testing.T) {
	e := New(Labels{})
	addr := serve(t, e)
	e.StartRun("oltp_point_select", 2, nil)
	e.Observe(result.Interval{Seconds: 1, TPS: 7, Counts: result.Counters{Events: 7, Reads: 7}})
	e.Observe(result.Interval{Seconds: 1, TPS: 5, Counts: result.Counters{Events: 5, Reads: 5}})
	s := get(t, addr)
	if got, _ := s.value("fairbench_events_total", labels("workload=oltp_point_select")); got != 12 {
		t.Errorf("events_total = %v, want 12", got)
	}
	if n := s.series("fairbench_events_total"); n != 1 {
		t.Errorf("events_total has %d series, want 1", n)
	}
	if m, _ := s.find("fairbench_events_total", nil); m != nil {
		for _, lp := range m.Label {
			if lp.GetName() == "kind" && lp.GetValue() != "" {
				t.Errorf("single-kind events labelled kind=%q", lp.GetValue())
			}
		}
	}
}

func TestPhaseFollowsRunAndSteps(t *testing.T) {
	cases := []struct {
		name  string
		steps func(e *Exporter)
		want  string
	}{
		{"new exporter is idle", func(e *Exporter) {}, PhaseIdle},
		{"start run connects", func(e *Exporter) { e.StartRun("w", 1, nil) }, PhaseConnecting},
		{"warm-up interval", func(e *Exporter) {
			e.StartRun("w", 1, nil)
			e.Observe(result.Interval{Warmup: true})
		}, PhaseWarmup},
		{"measured interval after warm-up", func(e *Exporter) {
			e.StartRun("w", 1, nil)
			e.Observe(result.Interval{Warmup: true})
			e.Observe(result.Interval{})
		}, PhaseMeasure},
		{"no warm-up goes straight to measure", func(e *Exporter) {
			e.StartRun("w", 1, nil)
			e.Observe(result.Interval{})
		}, PhaseMeasure},
		{"explicit done is kept by a late interval", func(e *Exporter) {
			e.StartRun("w", 1, nil)
			e.Observe(result.Interval{})
			e.SetPhase(PhaseDone)
			e.Observe(result.Interval{})
		}, PhaseDone},
		{"a suite step is not overridden", func(e *Exporter) {
			e.SetPhase("checksum warm-up")
			e.Observe(result.Interval{Warmup: true})
		}, "checksum warm-up"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := New(Labels{})
			addr := serve(t, e)
			c.steps(e)
			s := get(t, addr)
			ones := 0
			for _, m := range s["fairbench_phase"].GetMetric() {
				if m.GetGauge().GetValue() == 1 {
					ones++
				}
			}
			if ones != 1 {
				t.Errorf("%d phases at 1, want exactly one", ones)
			}
			if got, _ := s.value("fairbench_phase", map[string]string{"phase": c.want}); got != 1 {
				t.Errorf("fairbench_phase{phase=%q} = %v, want 1", c.want, got)
			}
		})
	}
}

func TestANewRunDropsTheGaugesButKeepsTheCounters(t *testing.T) {
	e := New(Labels{})
	addr := serve(t, e)
	e.StartRun("oltp_read_only", 8, nil)
	e.Observe(result.Interval{TPS: 100, Counts: result.Counters{Events: 100}, LatencyMs: map[string]float64{"95": 3}, MaxMs: 9})
	e.StartRun("oltp_write_only", 16, nil)
	s := get(t, addr)
	if got, _ := s.value("fairbench_events_total", labels("workload=oltp_read_only")); got != 100 {
		t.Errorf("events of the first run = %v after the second started, want 100", got)
	}
	for _, name := range []string{"fairbench_tps", "fairbench_threads", "fairbench_interval_latency_seconds"} {
		if _, ok := s.find(name, labels("workload=oltp_read_only")); ok {
			t.Errorf("%s of the previous run is still exposed", name)
		}
	}
	if got, _ := s.value("fairbench_threads", labels("workload=oltp_write_only")); got != 16 {
		t.Errorf("threads = %v, want 16", got)
	}
	if got, ok := s.value("fairbench_tps", labels("workload=oltp_write_only")); !ok || got != 0 {
		t.Errorf("tps of the new run = %v (present %v), want 0", got, ok)
	}
}

func TestSuiteProgressShowsOneCell(t *testing.T) {
	e := New(Labels{Plan: "p"})
	addr := serve(t, e)
	e.SetSuiteProgress(1, 6, "oltp_read_only/t1/r1")
	e.SetSuiteProgress(2, 6, "oltp_read_only/t2/r1")
	s := get(t, addr)
	if n := s.series("fairbench_suite_cell"); n != 1 {
		t.Errorf("fairbench_suite_cell has %d series, want 1", n)
	}
	if got, _ := s.value("fairbench_suite_cell", labels("cell=oltp_read_only/t2/r1")); got != 2 {
		t.Errorf("suite_cell = %v, want 2", got)
	}
	if got, _ := s.value("fairbench_suite_cells", nil); got != 6 {
		t.Errorf("suite_cells = %v, want 6", got)
	}
}

func TestObserveHistogramAccumulatesIntervals(t *testing.T) {
	e := New(Labels{})
	addr := serve(t, e)
	e.StartRun("oltp_point_select", 1, nil)
	if _, ok := get(t, addr)["fairbench_event_latency_seconds"]; ok {
		t.Fatal("the histogram is exposed before it was fed")
	}
	bounds := []float64{0.001, 0.01, 0.1, math.Inf(1)}
	if err := e.ObserveHistogram(bounds, []uint64{5, 8, 9, 10}, 0.25); err != nil {
		t.Fatal(err)
	}
	if err := e.ObserveHistogram(bounds, []uint64{1, 4, 4, 4}, 0.02); err != nil {
		t.Fatal(err)
	}
	s := get(t, addr)
	f := s["fairbench_event_latency_seconds"]
	if f == nil || f.GetType() != dto.MetricType_HISTOGRAM || len(f.Metric) != 1 {
		t.Fatalf("fairbench_event_latency_seconds = %v, want one histogram", f)
	}
	h := f.Metric[0].GetHistogram()
	if h.GetSampleCount() != 14 || math.Abs(h.GetSampleSum()-0.27) > 1e-9 {
		t.Errorf("count %d sum %v, want 14 and 0.27", h.GetSampleCount(), h.GetSampleSum())
	}
	got := map[float64]uint64{}
	for _, b := range h.Bucket {
		got[b.GetUpperBound()] = b.GetCumulativeCount()
	}
	want := map[float64]uint64{0.001: 6, 0.01: 12, 0.1: 13, math.Inf(1): 14}
	for b, n := range want {
		if got[b] != n {
			t.Errorf("bucket le=%v = %d, want %d (all: %v)", b, got[b], n, got)
		}
	}
}

func TestObserveHistogramRefusesBadInput(t *testing.T) {
	cases := []struct {
		name   string
		bounds []float64
		counts []uint64
		sum    float64
		want   string
	}{
		{"lengths differ", []float64{1, 2}, []uint64{1}, 0, "2 bounds and 1 counts"},
		{"empty", nil, nil, 0, "0 bounds"},
		{"bounds not increasing", []float64{1, 1}, []uint64{1, 1}, 0, "does not increase"},
		{"counts decreasing", []float64{1, 2}, []uint64{3, 2}, 0, "must be cumulative"},
		{"negative sum", []float64{1}, []uint64{1}, -1, "non-negative"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := New(Labels{}).ObserveHistogram(c.bounds, c.counts, c.sum)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
	t.Run("bounds change within a run", func(t *testing.T) {
		e := New(Labels{})
		e.StartRun("w", 1, nil)
		if err := e.ObserveHistogram([]float64{1, 2}, []uint64{1, 2}, 1); err != nil {
			t.Fatal(err)
		}
		err := e.ObserveHistogram([]float64{1, 3}, []uint64{1, 2}, 1)
		if err == nil || !strings.Contains(err.Error(), "bounds changed") {
			t.Errorf("error %v, want one about changed bounds", err)
		}
	})
}

func TestLatencyBoundsAreUsable(t *testing.T) {
	b := LatencyBounds()
	if !sort.Float64sAreSorted(b) || b[0] > 0.001 || b[len(b)-1] < 10 {
		t.Errorf("LatencyBounds() = %v: want sorted, from under 1ms to over 10s", b)
	}
}

func TestServeRefusesAPortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	_, err = New(Labels{}).Serve(context.Background(), ln.Addr().String())
	if err == nil {
		t.Fatal("Serve on a port in use succeeded")
	}
	if !strings.Contains(err.Error(), "port "+port+" is already in use") {
		t.Errorf("error %q does not name port %s as in use", err, port)
	}
}

func TestServeRefusesABadAddress(t *testing.T) {
	_, err := New(Labels{}).Serve(context.Background(), "no-port-here")
	if err == nil || !strings.Contains(err.Error(), "no-port-here") {
		t.Errorf("error %v, want one naming the address", err)
	}
}

func TestServeStopsWhenTheContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := New(Labels{})
	addr, err := e.Serve(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	get(t, addr) // it serves
	cancel()
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			if !errors.Is(err, syscall.ECONNREFUSED) {
				t.Logf("dial after stop: %v", err)
			}
			return
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatalf("%s still accepts connections 5s after the context ended", addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestRootGivesAHintAndOtherPathsAreNotFound(t *testing.T) {
	addr := serve(t, New(Labels{}))
	cases := []struct {
		path   string
		status int
		body   string
	}{
		{"/", http.StatusOK, "/metrics"},
		{"/nothing", http.StatusNotFound, ""},
	}
	for _, c := range cases {
		resp, err := http.Get("http://" + addr + c.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || !strings.Contains(string(body), c.body) {
			t.Errorf("GET %s: %s %q, want %d with %q", c.path, resp.Status, body, c.status, c.body)
		}
	}
}

// TestObserveWhileScraping feeds intervals and scrapes at the same time (run
// with -race); the counters must end exact.
func TestObserveWhileScraping(t *testing.T) {
	e := New(Labels{})
	addr := serve(t, e)
	e.StartRun("w", 2, []string{"a", "b"})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 200 {
			e.Observe(result.Interval{Warmup: i < 50, Counts: result.Counters{Events: 3, Reads: 2}, KindEvents: []int64{2, 1},
				LatencyMs: map[string]float64{"95": float64(i)}})
			if i%40 == 0 {
				e.SetSuiteProgress(i/40+1, 5, "cell")
			}
		}
	}()
	for range 10 {
		get(t, addr)
	}
	wg.Wait()
	s := get(t, addr)
	if got, _ := s.value("fairbench_events_total", labels("kind=a")); got != 400 {
		t.Errorf("events{kind=a} = %v, want 400", got)
	}
	if got, _ := s.value("fairbench_queries_total", labels("type=read")); got != 400 {
		t.Errorf("queries{type=read} = %v, want 400", got)
	}
}
