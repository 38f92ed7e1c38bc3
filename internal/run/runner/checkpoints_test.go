package runner

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

func TestParseCheckpoints(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    []time.Duration
		wantErr string
	}{
		{"", nil, ""},
		{"10", []time.Duration{10 * time.Second}, ""},
		{"60, 10,2.5", []time.Duration{2500 * time.Millisecond, 10 * time.Second, time.Minute}, ""},
		{"10,,20", nil, "element 2 of 3 is empty"},
		{"0", nil, "more than 0"},
		{"-5", nil, "more than 0"},
		{"NaN", nil, "not a moment"},
		{"1e99", nil, "at most"},
		{"10s", nil, "not a moment"},
		{"5,5", nil, "given twice"},
		{".0000000001", nil, "too close to the start"},
		{"0.001", []time.Duration{time.Millisecond}, ""},
	} {
		got, err := ParseCheckpoints(tc.in)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%q: %v", tc.in, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%q: error %v, want one saying %q", tc.in, err, tc.wantErr)
		case !slices.Equal(got, tc.want):
			t.Errorf("%q: %v, want %v", tc.in, got, tc.want)
		}
	}
}

func FuzzParseCheckpoints(f *testing.F) {
	for _, s := range []string{"10", "1,3", "60, 10,2.5", "", ",", "0x10", "1e3", "5,5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cps, err := ParseCheckpoints(s)
		if err != nil {
			return
		}
		for i, d := range cps {
			if d <= 0 || (i > 0 && d <= cps[i-1]) {
				t.Fatalf("%q: %v is not increasing and positive", s, cps)
			}
		}
	})
}

// TestCheckpointPastTimeIsRefused: a checkpoint after --time would never be
// reported, so the configuration is refused before anything runs.
func TestCheckpointPastTimeIsRefused(t *testing.T) {
	cfg := Config{Threads: 1, Duration: 10 * time.Second, Checkpoints: []time.Duration{5 * time.Second, 11 * time.Second}}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "past --time=10") {
		t.Fatalf("error %v, want one naming the checkpoint past --time", err)
	}
	cfg.Checkpoints = []time.Duration{10 * time.Second}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("a checkpoint at --time: %v", err)
	}
	cfg.Duration, cfg.Events = 0, 100 // no time limit: any checkpoint may be reached
	cfg.Checkpoints = []time.Duration{time.Hour}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("an --events run: %v", err)
	}
}

// TestCheckpointsAreCumulative runs 20 ms events on two threads after a
// warm-up, with checkpoints inside the measured phase and one at --time:
// each checkpoint counts at least the events of the measured intervals that
// ended before it (it is cumulative, not since the one before), no fewer than
// the one before, its fairness adds up to its events, and the one at --time
// is the totals. The interval series and the totals are those of a run
// without checkpoints (the series is not cut at them).
func TestCheckpointsAreCumulative(t *testing.T) {
	drv := openDriver(t, testdb.SQLite(t))
	cfg := Config{Threads: 2, Duration: 1200 * time.Millisecond, Warmup: 300 * time.Millisecond,
		ReportInterval: 250 * time.Millisecond, Percentiles: []float64{95},
		Checkpoints: []time.Duration{500 * time.Millisecond, 1200 * time.Millisecond}}
	var seen []result.Checkpoint
	out := Run(context.Background(), cfg, Deps{Driver: drv, Workload: &deafWorkload{took: 20 * time.Millisecond}, Rand: newRand(t),
		OnCheckpoint: func(cp result.Checkpoint) { seen = append(seen, cp) }})
	if out.Status != result.StatusComplete {
		t.Fatalf("status %s: %v", out.Status, out.Err)
	}
	if len(out.Checkpoints) != 2 || len(seen) != 2 || out.Checkpoints[0].At != 0.5 || out.Checkpoints[1].At != 1.2 {
		t.Fatalf("checkpoints %+v (callback saw %d), want at 0.5 s and 1.2 s", out.Checkpoints, len(seen))
	}
	var prev int64
	for i, cp := range out.Checkpoints {
		var before int64 // events of the measured intervals that ended by the checkpoint
		for _, iv := range out.Intervals {
			if !iv.Warmup && iv.At <= cfg.Warmup.Seconds()+cp.At+1e-9 {
				before += iv.Counts.Events
			}
		}
		n := cp.Counts.Events
		if n < before || n < prev || n > out.Totals.Counts.Events || n == 0 {
			t.Errorf("checkpoint %d (%vs): %d events; intervals before it %d, checkpoint before %d, totals %d",
				i, cp.At, n, before, prev, out.Totals.Counts.Events)
		}
		if sum := cp.Fairness.EventsAvg * float64(cfg.Threads); math.Abs(sum-float64(n)) > 1e-6 {
			t.Errorf("checkpoint %d: the threads' events add up to %v, not its %d", i, sum, n)
		}
		if cp.Seconds < cp.At-1e-9 || cp.Latency.Percentiles["95"] <= 0 {
			t.Errorf("checkpoint %d covers %vs (want at least %v), p95 %v", i, cp.Seconds, cp.At, cp.Latency.Percentiles["95"])
		}
		prev = n
	}
	last := out.Checkpoints[1]
	if last.Counts.Events != out.Totals.Counts.Events || last.Seconds != out.Totals.Seconds {
		t.Errorf("the checkpoint at --time holds %d events over %vs, the totals %d over %vs",
			last.Counts.Events, last.Seconds, out.Totals.Counts.Events, out.Totals.Seconds)
	}
	var sum int64
	for i, iv := range out.Intervals {
		// The last interval may be partial (it ends when the run stops, late
		// on a loaded machine); the others end on the grid.
		last := i == len(out.Intervals)-1
		if q := iv.At / cfg.ReportInterval.Seconds(); !iv.Warmup && !last && math.Abs(q-math.Round(q)) > 1e-6 {
			t.Errorf("an interval ends at %vs, off the --report-interval grid: the checkpoints cut the series", iv.At)
		}
		if !iv.Warmup {
			sum += iv.Counts.Events
		}
	}
	if sum != out.Totals.Counts.Events {
		t.Errorf("measured intervals hold %d events, totals %d", sum, out.Totals.Counts.Events)
	}
}
