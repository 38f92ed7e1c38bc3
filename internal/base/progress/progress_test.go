package progress

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/base/syncbuf"
)

func TestLine(t *testing.T) {
	cases := []struct {
		name        string
		unit        Unit
		done, total int64
		elapsed     time.Duration
		want        string
	}{
		// Half done in 10 s: 10 s to go. The old renderer said "ETA 0s" here.
		{"half rows", Rows, 500, 1000, 10 * time.Second, "loaded 500/1000 rows (50.0%), 50 rows/s, ETA 10s"},
		{"long eta", Rows, 1000, 100000, 10 * time.Second, "loaded 1000/100000 rows (1.0%), 100 rows/s, ETA 16m30s"},
		{"short eta in tenths", Rows, 900, 1000, 9 * time.Second, "loaded 900/1000 rows (90.0%), 100 rows/s, ETA 1.0s"},
		{"nothing done yet", Rows, 0, 1000, time.Second, "loaded 0/1000 rows (0.0%), 0.0 rows/s, ETA ?"},
		{"all done", Rows, 1000, 1000, 4 * time.Second, "loaded 1000/1000 rows (100.0%), 250 rows/s, ETA 0s"},
		{"total unknown", Rows, 300, 0, 2 * time.Second, "loaded 300 rows (150 rows/s)"},
		{"slow tables", Tables, 1, 8, 4 * time.Second, "loaded 1/8 tables (12.5%), 0.2 tables/s, ETA 28s"},
		{"bytes", Bytes, 3 << 20, 12 << 20, 3 * time.Second, "loaded 3.0 MiB of 12.0 MiB (25.0%), 1.0 MiB/s, ETA 9.0s"},
		{"seconds", Seconds, 45, 300, 45 * time.Second, "loaded 45s of 5m0s (15.0%), ETA 4m15s"},
		{"connections", Connections, 128, 256, 5 * time.Second, "loaded 128/256 connections (50.0%), 26 connections/s, ETA 5.0s"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Line("loaded", c.unit, c.done, c.total, c.elapsed); got != c.want {
				t.Errorf("Line = %q\nwant   %q", got, c.want)
			}
		})
	}
}

func TestCounterUsesItsClock(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := NewCounterClock(100, func() time.Time { return now })
	c.Add(25)
	now = now.Add(5 * time.Second)
	if got, want := c.Line("loaded", Rows), "loaded 25/100 rows (25.0%), 5.0 rows/s, ETA 15s"; got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
	// Once all is done, the rate and the elapsed time stay those of the work.
	c.Add(75)
	now = now.Add(time.Hour)
	if got, want := c.Line("loaded", Rows), "loaded 100/100 rows (100.0%), 20 rows/s, ETA 0s"; got != want {
		t.Errorf("Line after the end = %q, want %q", got, want)
	}
	var nilCounter *Counter
	nilCounter.Add(1) // loaders may run without a counter
	nilCounter.SetTotal(1)
}

// TestDisplayClearsTheLineBeforeLogText: on a terminal, text written while a
// line is drawn starts on a cleared line; without a terminal nothing is erased.
func TestDisplayClearsTheLineBeforeLogText(t *testing.T) {
	var term bytes.Buffer
	d := New(&term, true)
	d.Show("loaded 1/2 rows")
	d.Write([]byte("Creating table 'sbtest1'...\n"))
	d.Write([]byte("second log line\n")) // no line drawn: no clear
	d.Show("loaded 2/2 rows")
	d.Clear()
	want := "\r\033[Kloaded 1/2 rows\r\033[KCreating table 'sbtest1'...\nsecond log line\n\r\033[Kloaded 2/2 rows\r\033[K"
	if got := term.String(); got != want {
		t.Errorf("terminal output %q\nwant %q", got, want)
	}

	var plain bytes.Buffer
	p := New(&plain, false)
	p.Show("loaded 1/2 rows")
	p.Write([]byte("log\n"))
	p.Clear()
	if got, want := plain.String(), "loaded 1/2 rows\nlog\n"; got != want {
		t.Errorf("plain output %q, want %q", got, want)
	}
}

// TestStartStopsWithTheContext: the drawing goroutine ends when the context
// is cancelled (Ctrl-C), and stop still returns and clears.
func TestStartStopsWithTheContext(t *testing.T) {
	var out syncbuf.Buffer
	d := &Display{W: &out, Terminal: true, Every: time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	drawn := make(chan struct{}, 1)
	stop := d.Start(ctx, func() string {
		select {
		case drawn <- struct{}{}:
		default:
		}
		return "working"
	})
	<-drawn
	cancel()
	finished := make(chan struct{})
	go func() { stop(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(10 * time.Second):
		t.Fatal("stop did not return after the context ended")
	}
	if s := out.String(); !strings.HasSuffix(s, "\r\033[K") || !strings.Contains(s, "working") {
		t.Errorf("output %q: want the line drawn, then cleared", s)
	}
}
