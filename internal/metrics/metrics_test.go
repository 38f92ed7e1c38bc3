package metrics

import (
	"math"
	"sync"
	"testing"
	"time"
)

func TestDrainMergesWorkersExactly(t *testing.T) {
	c := NewCollector(3, Shape{})
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			r := c.Recorder(w)
			for i := 1; i <= 1000; i++ {
				d := time.Duration(i*(w+1)) * time.Microsecond
				r.Event(&Event{Latency: d, Service: d, Reads: 2, Writes: 1, Others: 1})
			}
			r.Error(0, "1213")
			r.Reconnect()
		}(w)
	}
	wg.Wait()
	win := c.NewWindow()
	per := make([]ThreadTotals, 3)
	c.Drain(win, per)
	if win.Events != 3000 || win.Reads != 6000 || win.Writes != 3000 || win.Others != 3000 {
		t.Fatalf("counters = %+v", win.Counters)
	}
	if win.Errors["1213"] != 3 || win.Reconnects != 3 || win.ErrorCount() != 3 {
		t.Fatalf("errors %v reconnects %d", win.Errors, win.Reconnects)
	}
	if win.Latency.Min != time.Microsecond || win.Latency.Max != 3000*time.Microsecond {
		t.Fatalf("exact min/max = %v/%v", win.Latency.Min, win.Latency.Max)
	}
	if got := win.Latency.Hist.TotalCount(); got != 3000 {
		t.Fatalf("histogram count = %d", got)
	}
	for i, p := range per {
		if p.Events != 1000 {
			t.Fatalf("thread %d events = %d", i, p.Events)
		}
	}
	// A second drain finds nothing new.
	again := c.NewWindow()
	c.Drain(again, nil)
	if again.Events != 0 || again.Latency.Count != 0 || len(again.Errors) != 0 {
		t.Fatalf("drain did not reset: %+v", again.Counters)
	}
}

func TestQuantileHasThreeSignificantDigits(t *testing.T) {
	cases := []struct {
		values []time.Duration
		q      float64
		want   time.Duration
	}{
		{[]time.Duration{time.Millisecond}, 0.5, time.Millisecond},
		{[]time.Duration{1234567 * time.Microsecond}, 0.99, 1234567 * time.Microsecond},
		{[]time.Duration{10 * time.Microsecond, 20 * time.Microsecond, 30 * time.Microsecond, 40 * time.Microsecond}, 0.5, 20 * time.Microsecond},
		{[]time.Duration{59 * time.Minute}, 0.95, 59 * time.Minute},
	}
	for _, tc := range cases {
		w := NewWindow(Shape{})
		for _, v := range tc.values {
			w.Latency.record(v)
		}
		got := w.Latency.Quantile(tc.q)
		if rel := math.Abs(float64(got-tc.want)) / float64(tc.want); rel > 0.001 {
			t.Errorf("q%.2f of %v = %v, want %v within 0.1%%", tc.q, tc.values, got, tc.want)
		}
	}
}

func TestServiceKeptApartWithRate(t *testing.T) {
	c := NewCollector(1, Shape{WithService: true})
	c.Recorder(0).Event(&Event{Latency: 10 * time.Millisecond, Service: 2 * time.Millisecond, Reads: 1})
	w := c.NewWindow()
	c.Drain(w, nil)
	if w.Latency.Max != 10*time.Millisecond || w.ServiceLatency().Max != 2*time.Millisecond {
		t.Fatalf("latency %v service %v", w.Latency.Max, w.ServiceLatency().Max)
	}
}

func TestFairness(t *testing.T) {
	ea, es, ba, bs := Fairness([]ThreadTotals{{Events: 10, Busy: time.Second}, {Events: 30, Busy: 3 * time.Second}})
	if ea != 20 || es != 10 || ba != 2 || bs != 1 {
		t.Fatalf("fairness = %v %v %v %v", ea, es, ba, bs)
	}
}

func BenchmarkRecorderEvent(b *testing.B) {
	c := NewCollector(1, Shape{})
	r := c.Recorder(0)
	b.ReportAllocs()
	e := Event{Reads: 1}
	for i := 0; i < b.N; i++ {
		e.Latency = time.Duration(i%5000) * time.Microsecond
		r.Event(&e)
	}
}

func TestKindsAreKeptApart(t *testing.T) {
	c := NewCollector(2, Shape{Kinds: 3})
	c.Recorder(0).Event(&Event{Latency: time.Millisecond, Kind: 0})
	c.Recorder(1).Event(&Event{Latency: 3 * time.Millisecond, Kind: 2, Rollback: true})
	c.Recorder(1).Event(&Event{Latency: 5 * time.Millisecond, Kind: 2})
	c.Recorder(0).Error(2, "40001")
	w := c.NewWindow()
	c.Drain(w, nil)
	k0, k1, k2 := w.Kinds[0], w.Kinds[1], w.Kinds[2]
	if k0.Events != 1 || k1.Events != 0 || k2.Events != 2 || k2.Rollbacks != 1 || k2.Errors["40001"] != 1 {
		t.Fatalf("kinds: %+v %+v %+v", k0, k1, k2)
	}
	if k2.Latency.Min != 3*time.Millisecond || k2.Latency.Max != 5*time.Millisecond || w.Events != 3 || w.Errors["40001"] != 1 {
		t.Fatalf("kind 2 latency %v..%v, events %d", k2.Latency.Min, k2.Latency.Max, w.Events)
	}
	again := c.NewWindow()
	c.Drain(again, nil)
	if again.Kinds[2].Events != 0 || len(again.Kinds[2].Errors) != 0 {
		t.Fatalf("drain did not reset kinds: %+v", again.Kinds[2])
	}
}
