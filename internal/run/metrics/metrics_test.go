package metrics

import (
	"math"
	"sync"
	"testing"
	"time"
	"unsafe"
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

func TestFullRingSpillsAndDrainIsExact(t *testing.T) {
	c := NewCollector(2, Shape{Kinds: 2, WithService: true})
	fast, slow := c.Recorder(0), c.Recorder(1)
	n := 3*len(fast.ring) + 7 // no sweep in between: the ring fills and the rest spills
	for i := 1; i <= n; i++ {
		d := time.Duration(i) * time.Microsecond
		fast.Event(&Event{Latency: d + 3*time.Nanosecond, Service: d, Reads: 1, Kind: i % 2})
	}
	slow.Event(&Event{Latency: time.Second, Service: time.Second, Writes: 1, Kind: 1})
	if fast.stripe.w == nil || slow.stripe.w != nil {
		t.Fatalf("spill window allocated: fast %v, slow %v; want only the stripe of the worker whose ring overflowed", fast.stripe.w != nil, slow.stripe.w != nil)
	}
	w := c.NewWindow()
	per := make([]ThreadTotals, 2)
	c.Drain(w, per)
	if w.Events != int64(n)+1 || w.Reads != int64(n) || w.Writes != 1 {
		t.Fatalf("counters = %+v, want %d events", w.Counters, n+1)
	}
	if got := w.Latency.Hist.TotalCount(); got != int64(n)+1 {
		t.Fatalf("histogram holds %d values, want %d", got, n+1)
	}
	if w.Latency.Min != time.Microsecond+3*time.Nanosecond || w.Latency.Max != time.Second || w.Service.Min != time.Microsecond {
		t.Fatalf("exact extremes: latency %v..%v, service min %v", w.Latency.Min, w.Latency.Max, w.Service.Min)
	}
	if w.Kinds[0].Events+w.Kinds[1].Events != int64(n)+1 || w.Kinds[0].Events != int64(n/2) {
		t.Fatalf("kinds = %d, %d", w.Kinds[0].Events, w.Kinds[1].Events)
	}
	if per[0].Events != int64(n) || per[1].Events != 1 || per[1].Busy != time.Second {
		t.Fatalf("per thread = %+v", per)
	}
	wantBusy := time.Duration(n*(n+1)/2) * time.Microsecond
	if per[0].Busy != wantBusy {
		t.Fatalf("busy = %v, want %v", per[0].Busy, wantBusy)
	}
}

func TestEveryWorkerSpillingKeepsFewWindows(t *testing.T) {
	// A stalled collector: every worker's ring overflows before a sweep.
	const workers = 64
	c := NewCollector(workers, Shape{Kinds: 3, WithService: true})
	extra := func(i int) int { return 5 + i%7 }
	var total int64
	for i := range workers {
		r := c.Recorder(i)
		n := len(r.ring) + extra(i)
		for j := range n {
			r.Event(&Event{Latency: time.Duration(i+1) * time.Millisecond, Service: time.Millisecond, Reads: 1, Kind: j % 3})
		}
		total += int64(n)
	}
	windows := 0
	for i := range c.stripes {
		if c.stripes[i].w != nil {
			windows++
		}
	}
	if windows == 0 || windows > spillStripes {
		t.Fatalf("%d spill windows for %d spilling workers, want 1..%d", windows, workers, spillStripes)
	}
	w := c.NewWindow()
	per := make([]ThreadTotals, workers)
	c.Drain(w, per)
	if w.Events != total || w.Reads != total || w.Latency.Hist.TotalCount() != total || w.Latency.Max != workers*time.Millisecond {
		t.Fatalf("drained %d events (%d reads, %d latencies, max %v), want %d", w.Events, w.Reads, w.Latency.Hist.TotalCount(), w.Latency.Max, total)
	}
	var kinds int64
	for _, k := range w.Kinds {
		kinds += k.Events
	}
	for i, p := range per {
		n := int64(len(c.Recorder(i).ring) + extra(i))
		if p.Events != n || p.Busy != time.Duration(n)*time.Millisecond {
			t.Fatalf("worker %d: %+v, want %d events and as many ms busy", i, p, n)
		}
	}
	if kinds != total {
		t.Fatalf("kinds hold %d events, want %d", kinds, total)
	}

	// The next drain starts empty: the stripes were reset.
	c.Recorder(0).Event(&Event{Latency: time.Second})
	w2 := c.NewWindow()
	c.Drain(w2, nil)
	if w2.Events != 1 || w2.Latency.Hist.TotalCount() != 1 {
		t.Fatalf("second drain: %d events, %d latencies; want 1", w2.Events, w2.Latency.Hist.TotalCount())
	}
}

func TestSweepWhileWorkersRecord(t *testing.T) {
	const workers, events = 4, 20000
	c := NewCollector(workers, Shape{Kinds: 3})
	stop := make(chan struct{})
	swept := c.NewWindow()
	sweeperDone := make(chan struct{})
	go func() { // the reporter: sweeps as fast as it can, as a busy one would
		defer close(sweeperDone)
		for {
			select {
			case <-stop:
				return
			default:
				c.Sweep(swept)
			}
		}
	}()
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			r := c.Recorder(w)
			for i := 1; i <= events; i++ {
				r.Event(&Event{Latency: time.Duration(i) * time.Microsecond, Service: time.Microsecond, Others: 1, Kind: i % 3})
			}
		}(w)
	}
	wg.Wait()
	close(stop)
	<-sweeperDone
	per := make([]ThreadTotals, workers)
	c.Drain(swept, per)
	if swept.Events != workers*events || swept.Others != workers*events || swept.Latency.Hist.TotalCount() != workers*events {
		t.Fatalf("events %d, others %d, histogram %d; want %d each", swept.Events, swept.Others, swept.Latency.Hist.TotalCount(), workers*events)
	}
	if swept.Latency.Max != events*time.Microsecond || swept.Latency.Min != time.Microsecond {
		t.Fatalf("extremes %v..%v", swept.Latency.Min, swept.Latency.Max)
	}
	for i, p := range per {
		if p.Events != events || p.Busy != events*time.Microsecond {
			t.Fatalf("thread %d: %+v", i, p)
		}
	}
}

func TestDrainWhileWorkersSpill(t *testing.T) {
	// A reporter that drains slowly: the workers overflow their rings and
	// spill into the shared stripes while drains run.
	const workers, events = 8, 30000
	c := NewCollector(workers, Shape{Kinds: 2, WithService: true})
	acc := c.NewWindow()
	per := make([]ThreadTotals, workers)
	stop, drainerDone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(drainerDone)
		for {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
				c.Drain(acc, per)
			}
		}
	}()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := c.Recorder(w)
			for i := 1; i <= events; i++ {
				r.Event(&Event{Latency: time.Duration(i) * time.Microsecond, Service: time.Microsecond, Writes: 1, Kind: i % 2})
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-drainerDone
	c.Drain(acc, per)
	spilled := false
	for i := range c.stripes {
		spilled = spilled || c.stripes[i].w != nil
	}
	if !spilled {
		t.Skip("no ring overflowed on this machine: the drains kept up")
	}
	if acc.Events != workers*events || acc.Writes != workers*events || acc.Latency.Hist.TotalCount() != workers*events || acc.Service.Hist.TotalCount() != workers*events {
		t.Fatalf("events %d, writes %d, latencies %d, service times %d; want %d each", acc.Events, acc.Writes,
			acc.Latency.Hist.TotalCount(), acc.Service.Hist.TotalCount(), workers*events)
	}
	if acc.Kinds[0].Events+acc.Kinds[1].Events != workers*events || acc.Latency.Max != events*time.Microsecond {
		t.Fatalf("kinds %d + %d, max %v", acc.Kinds[0].Events, acc.Kinds[1].Events, acc.Latency.Max)
	}
	for i, p := range per {
		if p.Events != events || p.Busy != events*time.Microsecond {
			t.Fatalf("thread %d: %+v, want %d events", i, p, events)
		}
	}
}

func TestSweptEventsCountForTheNextDrainOnly(t *testing.T) {
	c := NewCollector(1, Shape{})
	r := c.Recorder(0)
	r.Event(&Event{Latency: time.Millisecond, Service: time.Millisecond})
	warm := c.NewWindow()
	c.Sweep(warm)
	c.Drain(warm, nil) // the end of a warm-up: per-thread totals are not kept
	r.Event(&Event{Latency: 2 * time.Millisecond, Service: 2 * time.Millisecond})
	meas := c.NewWindow()
	c.Sweep(meas)
	per := make([]ThreadTotals, 1)
	c.Drain(meas, per)
	if warm.Events != 1 || meas.Events != 1 || meas.Latency.Min != 2*time.Millisecond {
		t.Fatalf("warm %d events, measured %d (min %v)", warm.Events, meas.Events, meas.Latency.Min)
	}
	if per[0].Events != 1 || per[0].Busy != 2*time.Millisecond {
		t.Fatalf("per thread = %+v, want the measured event only", per[0])
	}
}

func TestRecorderHoldsNoHistogram(t *testing.T) {
	// The point of the ring: a worker costs at most 32 KiB, and 4 KiB at
	// thousands of workers, not the ~190 KB of one histogram (TPC-C with
	// --rate had seven per worker).
	for _, tc := range []struct{ workers, maxBytes int }{{1, 33 << 10}, {128, 33 << 10}, {1024, 5 << 10}, {4096, 5 << 10}} {
		c := NewCollector(tc.workers, Shape{})
		r := c.Recorder(0)
		size := int(unsafe.Sizeof(*r)) + len(r.ring)*int(unsafe.Sizeof(sample{}))
		if size > tc.maxBytes || len(r.ring)&(len(r.ring)-1) != 0 {
			t.Errorf("%d workers: a recorder takes %d bytes (ring of %d); want a power of two and at most %d bytes", tc.workers, size, len(r.ring), tc.maxBytes)
		}
	}
	c := NewCollector(1, Shape{Kinds: 5, WithService: true})
	r := c.Recorder(0)
	r.Event(&Event{Latency: time.Millisecond})
	r.Error(3, "1213")
	r.Reconnect()
	if r.stripe.w != nil {
		t.Fatal("a recorder that never overflowed allocated histograms")
	}
	w := c.NewWindow()
	c.Drain(w, nil)
	if w.Kinds[3].Errors["1213"] != 1 || w.Errors["1213"] != 1 || w.Reconnects != 1 || w.Events != 1 {
		t.Fatalf("window = %+v, kind 3 errors %v", w.Counters, w.Kinds[3].Errors)
	}
}

func TestOversizedCountsTakeTheSpillPath(t *testing.T) {
	c := NewCollector(1, Shape{})
	c.Recorder(0).Event(&Event{Latency: time.Millisecond, Reads: 1 << 40})
	w := c.NewWindow()
	c.Drain(w, nil)
	if w.Reads != 1<<40 || w.Events != 1 {
		t.Fatalf("reads = %d, events = %d", w.Reads, w.Events)
	}
}

func BenchmarkRecorderEventSwept(b *testing.B) {
	c := NewCollector(1, Shape{Kinds: 5, WithService: true})
	r := c.Recorder(0)
	into := c.NewWindow()
	b.ReportAllocs()
	e := Event{Reads: 1}
	for i := 0; i < b.N; i++ {
		e.Latency = time.Duration(i%5000) * time.Microsecond
		e.Service = e.Latency
		e.Kind = i % 5
		r.Event(&e)
		if i%len(r.ring) == len(r.ring)-1 {
			b.StopTimer()
			c.Sweep(into)
			b.StartTimer()
		}
	}
}

// TestSweepSaysHowFullTheFullestRingWas: Sweep returns the share of its ring
// the fullest worker's held, which NextSweep turns into the next period.
func TestSweepSaysHowFullTheFullestRingWas(t *testing.T) {
	c := NewCollector(2, Shape{})
	size := len(c.Recorder(0).ring)
	into := c.NewWindow()
	if got := c.Sweep(into); got != 0 {
		t.Errorf("Sweep of empty rings = %v, want 0", got)
	}
	for range size / 4 {
		c.Recorder(1).Event(&Event{Latency: time.Millisecond, Service: time.Millisecond})
	}
	c.Recorder(0).Event(&Event{Latency: time.Millisecond, Service: time.Millisecond})
	if got := c.Sweep(into); got != 0.25 {
		t.Errorf("Sweep = %v, want 0.25 (a quarter of worker 1's ring)", got)
	}
	if into.Events != int64(size/4+1) {
		t.Errorf("%d events swept, want %d", into.Events, size/4+1)
	}
}

func TestNextSweep(t *testing.T) {
	for _, tc := range []struct {
		name    string
		period  time.Duration
		fullest float64
		want    time.Duration
	}{
		{"nearly empty rings: twice as long", SweepEvery, 0.01, 2 * SweepEvery},
		{"nearly empty, at most SweepIdle", 800 * time.Millisecond, 0, SweepIdle},
		{"between a sixteenth and a quarter: the same", 400 * time.Millisecond, 0.1, 400 * time.Millisecond},
		{"over a quarter: back to SweepEvery", 800 * time.Millisecond, 0.3, SweepEvery},
		{"a full ring: SweepEvery", SweepEvery, 1, SweepEvery},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := NextSweep(tc.period, tc.fullest); got != tc.want {
				t.Errorf("NextSweep(%v, %v) = %v, want %v", tc.period, tc.fullest, got, tc.want)
			}
		})
	}
}
