package gotpcout

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/run/metrics"
	goldenfile "github.com/fairbench/fairbench/internal/testing/golden"
	"github.com/fairbench/fairbench/internal/workload/tpcc/txn"
)

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}

// window records n events of each kind with latencies base, 2·base … n·base
// (kind i scaled by i+1), leaving stock_level empty, and two ignored errors
// of new_order, as the runner's collector would hand them over.
func window(n int, base time.Duration) []metrics.Kind {
	c := metrics.NewCollector(1, metrics.Shape{Kinds: len(txn.Kinds)})
	rec := c.Recorder(0)
	for k := 0; k < len(txn.Kinds)-1; k++ {
		for i := 1; i <= n; i++ {
			d := time.Duration(i*(k+1)) * base
			rec.Event(&metrics.Event{Latency: d, Service: d, Kind: k})
		}
	}
	rec.Error(0, "1213")
	rec.Error(0, "1205")
	w := c.NewWindow()
	c.Drain(w, nil)
	return w.Kinds
}

// fixedResult is a measured phase of 60 s with the figures a TPC-C run has.
func fixedResult() *result.Result {
	kind := func(name string, events int64, scale float64) result.KindPhase {
		return result.KindPhase{Name: name, Events: events, TPS: float64(events) / 60, Latency: result.Latency{
			MinMs: 0.4 * scale, AvgMs: 2.51 * scale, MaxMs: 48.26 * scale, SumMs: 2.51 * scale * float64(events),
			Percentiles: map[string]float64{"50": 2.14 * scale, "90": 4.4 * scale, "95": 6.09 * scale, "99": 11.25 * scale, "99.9": 30.5 * scale}}}
	}
	no := kind("new_order", 4500, 1)
	no.Errors = map[string]int64{"1213": 3}
	return &result.Result{
		Status: result.StatusComplete,
		Kinds:  txn.Kinds,
		Totals: result.Phase{Seconds: 60, Kinds: []result.KindPhase{no, kind("payment", 4300, 0.5),
			kind("order_status", 400, 0.3), kind("delivery", 400, 4), kind("stock_level", 0, 1)}},
		Figures: []result.Figure{{Name: "tpmC", Value: 4500}, {Name: "tpmTotal", Value: 9600}, {Name: "efficiency", Value: 3499.22}},
	}
}

// TestGoldenLayouts holds the go-tpc layouts of an interval, a warm-up
// interval and a summary, in the three styles go-tpc has.
func TestGoldenLayouts(t *testing.T) {
	for _, style := range []string{Plain, Table, JSON} {
		var b bytes.Buffer
		p, err := New(&b, style, txn.Kinds)
		if err != nil {
			t.Fatal(err)
		}
		p.Interval(result.Interval{Seconds: 5, Warmup: true}, window(10, time.Millisecond))
		p.Interval(result.Interval{Seconds: 10}, window(100, 250*time.Microsecond))
		p.Summary(fixedResult())
		golden(t, "run."+style+".golden", b.Bytes())
	}
}

// TestIntervalFigures checks the [Current] figures against the events
// recorded, independently of the golden file: 100 new orders of 1..100 ms
// in 10 s are 600 TPM, a sum of 5050 ms, 50.5 ms on average, a median of
// 50 ms and a maximum of 100 ms.
func TestIntervalFigures(t *testing.T) {
	var b bytes.Buffer
	p, _ := New(&b, Plain, txn.Kinds)
	p.Interval(result.Interval{Seconds: 10}, window(100, time.Millisecond))
	var line string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "[Current] NEW_ORDER ") {
			line = l
		}
	}
	for _, want := range []string{"Takes(s): 10.0", "Count: 100,", "TPM: 600.0", "Sum(ms): 5050.0", "Avg(ms): 50.5", "50th(ms): 50.0", "Max(ms): 100.0"} {
		if !strings.Contains(line, want) {
			t.Errorf("NEW_ORDER line lacks %q: %q", want, line)
		}
	}
	if !strings.Contains(b.String(), "[Current] NEW_ORDER_ERR - Takes(s): 10.0, Count: 2, TPM: 12.0\n") {
		t.Errorf("no NEW_ORDER_ERR line with the 2 ignored errors:\n%s", b.String())
	}
	if strings.Contains(b.String(), "STOCK_LEVEL") {
		t.Errorf("a transaction type without events has a line, go-tpc prints none:\n%s", b.String())
	}
}

func TestRefusals(t *testing.T) {
	if _, err := New(nil, "yaml", txn.Kinds); err == nil || !strings.Contains(err.Error(), "plain, table or json") {
		t.Errorf("style yaml: %v", err)
	}
	if _, err := New(nil, Plain, []string{"oltp_read_write"}); err == nil || !strings.Contains(err.Error(), "fairbench's layout") {
		t.Errorf("one kind: %v", err)
	}
}

func TestWithPercentiles(t *testing.T) {
	got := WithPercentiles([]float64{99, 42})
	want := []float64{42, 50, 90, 95, 99, 99.9}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}
