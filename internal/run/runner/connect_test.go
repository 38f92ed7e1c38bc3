package runner

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/base/progress"
	"github.com/fairbench/fairbench/internal/base/syncbuf"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// TestOpeningConnectionsShowsProgress opens 64 connections to MariaDB at a
// paced rate: lines say how many are open of how many, with a rate and an
// ETA, and a last line says they all opened and how long it took.
func TestOpeningConnectionsShowsProgress(t *testing.T) {
	drv := openDriver(t, testdb.MySQL(t))
	var out syncbuf.Buffer
	disp := &progress.Display{W: &out, Every: 20 * time.Millisecond}
	cfg := Config{Threads: 64, Duration: 100 * time.Millisecond, Percentiles: []float64{95}, ConnectRate: 32}
	o := Run(context.Background(), cfg, Deps{Driver: drv, Workload: &queryWorkload{longQuery: "SELECT 1"}, Rand: newRand(t), Progress: disp})
	if o.Status != result.StatusComplete {
		t.Fatalf("status %s, err %v", o.Status, o.Err)
	}
	lineRe := regexp.MustCompile(`^opening connections: (\d+)/64 connections \([0-9.]+%\), [0-9.]+ connections/s, ETA (\S+)$`)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	// First what the pacing alone takes: 63 intervals at 32/s.
	if want := "opening 64 connections at 32/s (--connect-rate): at least 2.0s"; lines[0] != want {
		t.Errorf("first line %q, want %q", lines[0], want)
	}
	prev, progressLines := -1, 0
	for _, l := range lines[1 : len(lines)-1] {
		m := lineRe.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("line %q is not a connection progress line; output:\n%s", l, out.String())
		}
		n, _ := strconv.Atoi(m[1])
		if n < prev {
			t.Errorf("connections open went down from %d to %d", prev, n)
		}
		prev = n
		progressLines++
	}
	if progressLines == 0 {
		t.Fatalf("no progress line while 64 connections opened at 32/s:\n%s", out.String())
	}
	if last := lines[len(lines)-1]; !regexp.MustCompile(`^opened 64 of 64 connections in \S+$`).MatchString(last) {
		t.Errorf("last line %q, want the connections opened and the time it took", last)
	}
}

// TestOpeningConnectionsStopsOnInterrupt: cancelling while connections are
// paced ends the opening at once, and the progress line with it.
func TestOpeningConnectionsStopsOnInterrupt(t *testing.T) {
	drv := openDriver(t, testdb.MySQL(t))
	var out syncbuf.Buffer
	disp := &progress.Display{W: &out, Terminal: true, Every: 10 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	// A second of opening: the progress line (every 10 ms) is drawn even on a
	// loaded machine (at 300 ms a busy CI once drew none).
	time.AfterFunc(time.Second, cancel)
	cfg := Config{Threads: 64, Duration: time.Minute, Percentiles: []float64{95}, ConnectRate: 2} // 32 s to open them all
	start := time.Now()
	o := Run(ctx, cfg, Deps{Driver: drv, Workload: &queryWorkload{longQuery: "SELECT 1"}, Rand: newRand(t), Progress: disp})
	if o.Status != result.StatusInterrupted {
		t.Fatalf("status %s, want interrupted (err %v)", o.Status, o.Err)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("interrupt took %v to end the opening of connections", took)
	}
	s := out.String()
	if !strings.Contains(s, "opening connections: ") || !strings.Contains(s, "opened ") {
		t.Errorf("output %q: want progress lines, then how many opened", s)
	}
}
