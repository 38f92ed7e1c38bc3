package cli

import (
	"context"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/fairbench/fairbench/internal/db/dbclock"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/run/setup"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// TestCoordinatedClientsMerge runs three clients in-process against one MariaDB
// database, launched at staggered moments before a common --start-at, then
// merges their results through the CLI: the merged totals are the sums of the
// parts and the merged percentiles those of the pooled histograms.
func TestCoordinatedClientsMerge(t *testing.T) {
	t.Parallel()
	cfg := testdb.MySQL(t)
	prepareMySQL(t, cfg)
	dir := t.TempDir()
	start := time.Now().Add(4 * time.Second).Truncate(time.Second)
	// The same instant written both ways the flag accepts.
	startFlags := []string{start.UTC().Format(time.RFC3339), strconv.FormatInt(start.Unix(), 10), start.Format(time.RFC3339)}
	files := make([]string, 3)
	runs := make([]cliRun, 3)
	var wg sync.WaitGroup
	for i := range 3 {
		files[i] = filepath.Join(dir, "c"+strconv.Itoa(i)+".json")
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(i) * 700 * time.Millisecond) // staggered launches
			runs[i] = runCLI(context.Background(), nil, join([]string{"run", "oltp_point_select", "--table-size=1000",
				"--threads=" + strconv.Itoa(i+1), "--time=2", "--report-interval=1", "--percentile=50,95,99",
				"--client-id=" + strconv.Itoa(i), "--clients=3", "--start-at=" + startFlags[i], "--output=" + files[i]}, targetArgs(cfg))...)
		}()
	}
	wg.Wait()

	parts := make([]*result.Result, 3)
	for i, r := range runs {
		if r.code != ExitOK {
			t.Fatalf("client %d: exit %d\n%s%s", i, r.code, r.stdout, r.stderr)
		}
		if want := "Client " + strconv.Itoa(i) + " of 3 (client ids 0..2): starting at"; !strings.Contains(r.stdout, want) {
			t.Errorf("client %d output lacks %q:\n%s", i, want, r.stdout)
		}
		p := readResult(t, files[i])
		if p.Client == nil || p.Client.ID != i || p.Client.Of != 3 || !p.Client.StartAt.Equal(start) {
			t.Fatalf("client %d recorded %+v, want id %d of 3 at %v", i, p.Client, i, start)
		}
		// --start-at is read on the server's clock (the default): the client
		// measured the server's clock against its own and waited for the
		// start in it, within the measurement's error.
		if p.Client.Clock != "server" || p.Client.ClockErrorMs <= 0 {
			t.Errorf("client %d: clock %q, error %v ms: want the server's clock, measured", i, p.Client.Clock, p.Client.ClockErrorMs)
		}
		onServer := p.Start.Add(time.Duration(p.Client.ClockOffsetMs * float64(time.Millisecond)))
		if slack := time.Duration(p.Client.ClockErrorMs*float64(time.Millisecond)) + time.Millisecond; onServer.Before(start.Add(-slack)) {
			t.Fatalf("client %d started measuring at %v on the server's clock, before --start-at %v", i, onServer, start)
		}
		if !strings.Contains(r.stdout, "Clock: the server's clock is") {
			t.Errorf("client %d does not say how its clock compares with the server's:\n%s", i, r.stdout)
		}
		if p.Status != result.StatusComplete || p.Totals.Counts.Events == 0 {
			t.Fatalf("client %d: status %s, %d events", i, p.Status, p.Totals.Counts.Events)
		}
		parts[i] = p
	}

	merged := filepath.Join(dir, "merged.json")
	r := runCLI(context.Background(), nil, "merge", files[2], files[0], files[1], "-o", merged)
	if r.code != ExitOK {
		t.Fatalf("merge: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"3 clients, 6 threads in all", "SQL statistics:", "95th percentile:", "Merged result written to"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("merge output lacks %q:\n%s", want, r.stdout)
		}
	}
	m := readResult(t, merged)
	var sum result.Counters
	var secs float64
	pooled := hdrhistogram.New(1, 3_600_000_000, 3)
	minMs, maxMs := math.Inf(1), 0.0
	for _, p := range parts {
		c := p.Totals.Counts
		sum.Events += c.Events
		sum.Queries += c.Queries
		sum.Reads += c.Reads
		secs += p.Totals.Seconds / 3
		h, err := p.Totals.Latency.Histogram.Decode()
		if err != nil {
			t.Fatal(err)
		}
		// The runner's percentiles follow the convention the merge recomputes with.
		if got := result.HistogramQuantileMs(h, 0.95, p.Totals.Latency.MinMs, p.Totals.Latency.MaxMs); got != p.Totals.Latency.Percentiles["95"] {
			t.Fatalf("client p95 %v, recomputed %v", p.Totals.Latency.Percentiles["95"], got)
		}
		pooled.Merge(h)
		minMs, maxMs = math.Min(minMs, p.Totals.Latency.MinMs), math.Max(maxMs, p.Totals.Latency.MaxMs)
	}
	got := m.Totals.Counts
	if got.Events != sum.Events || got.Queries != sum.Queries || got.Reads != sum.Reads || m.Threads != 6 {
		t.Fatalf("merged events %d queries %d reads %d threads %d; parts sum to %d %d %d 6",
			got.Events, got.Queries, got.Reads, m.Threads, sum.Events, sum.Queries, sum.Reads)
	}
	if math.Abs(m.Totals.Seconds-secs) > 1e-9 || math.Abs(m.Totals.TPS-float64(sum.Events)/secs) > 1e-6 {
		t.Fatalf("merged seconds %v tps %v; want the mean %v and %v", m.Totals.Seconds, m.Totals.TPS, secs, float64(sum.Events)/secs)
	}
	for key, q := range map[string]float64{"50": 0.5, "95": 0.95, "99": 0.99} {
		if want := result.HistogramQuantileMs(pooled, q, minMs, maxMs); m.Totals.Latency.Percentiles[key] != want {
			t.Errorf("merged p%s = %v, pooled histogram says %v", key, m.Totals.Latency.Percentiles[key], want)
		}
	}
	if m.Totals.Latency.MinMs != minMs || m.Totals.Latency.MaxMs != maxMs {
		t.Errorf("merged min/max %v/%v, want %v/%v", m.Totals.Latency.MinMs, m.Totals.Latency.MaxMs, minMs, maxMs)
	}
	var inIntervals int64
	for _, iv := range m.Intervals {
		inIntervals += iv.Counts.Events
	}
	if inIntervals != got.Events {
		t.Errorf("merged intervals hold %d events, totals %d", inIntervals, got.Events)
	}
	if len(m.MergedFrom) != 3 || m.MergedFrom[0].File != files[0] || m.Client != nil || m.Options["threads"] != "6" {
		t.Fatalf("merged_from %+v client %v threads option %q", m.MergedFrom, m.Client, m.Options["threads"])
	}

	// A failed client makes the merged result failed, and merge exits as the
	// failed run did, after writing what the clients measured.
	failedPart := *parts[1]
	failedPart.Status, failedPart.Error = result.StatusFailed, "server went away"
	failedFile := filepath.Join(dir, "failed.json")
	if err := result.Write(failedFile, &failedPart); err != nil {
		t.Fatal(err)
	}
	failedMerged := filepath.Join(dir, "failed-merged.json")
	if r := runCLI(context.Background(), nil, "merge", files[0], failedFile, files[2], "-o", failedMerged); r.code != ExitFailed ||
		!strings.Contains(r.stderr, "the merged result is failed") || !strings.Contains(r.stderr, "server went away") {
		t.Errorf("merge with a failed client: exit %d, want %d naming the failure\n%s%s", r.code, ExitFailed, r.stdout, r.stderr)
	} else if m := readResult(t, failedMerged); m.Status != result.StatusFailed || m.Totals.Counts.Events == 0 {
		t.Errorf("merged result status %s with %d events, want failed with the figures kept", m.Status, m.Totals.Counts.Events)
	}

	// Refusals through the CLI, by message.
	other := parts[2]
	other.Options["table-size"] = "5000"
	otherFile := filepath.Join(dir, "other.json")
	if err := result.Write(otherFile, other); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		files []string
		want  string
	}{
		{"missing client", []string{files[0], files[1]}, "3 clients (--clients=3) but 2 result(s) were given"},
		{"duplicate id", []string{files[0], files[1], files[1]}, "client id 1 appears twice, in " + files[1] + " and in " + files[1]},
		{"other data set", []string{files[0], files[1], otherFile}, "option --table-size differs (\"1000\" in " + files[0] + ", \"5000\" in " + otherFile + ")"},
		{"merged again", []string{merged}, "it is already a merged result"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(context.Background(), nil, append([]string{"merge", "-o", filepath.Join(dir, "x.json")}, tc.files...)...)
			if r.code != ExitUsage || !strings.Contains(r.stderr, tc.want) {
				t.Fatalf("exit %d, want %d with %q:\n%s", r.code, ExitUsage, tc.want, r.stderr)
			}
			if _, err := os.Stat(filepath.Join(dir, "x.json")); err == nil {
				t.Fatal("a refused merge wrote its output")
			}
		})
	}
}

func TestCoordinationFlagsRefused(t *testing.T) {
	db := "--sqlite-db=" + filepath.Join(t.TempDir(), "never.db")
	future := strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"clients without start", []string{"--clients=3"}, []string{"--clients needs --start-at"}},
		{"id without clients", []string{"--client-id=1", "--start-at=" + future}, []string{"--client-id needs --clients"}},
		{"id out of range", []string{"--clients=3", "--client-id=3", "--start-at=" + future}, []string{"--client-id 3 is outside 0..2"}},
		{"negative clients", []string{"--clients=-1"}, []string{"--clients must not be negative"}},
		{"start in the past", []string{"--start-at=" + time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)}, []string{"ago: give a moment in the future"}},
		{"unreadable start", []string{"--start-at=tomorrow"}, []string{`--start-at "tomorrow": give an RFC 3339 time`}},
		{"milliseconds", []string{"--start-at=" + strconv.FormatInt(time.Now().Add(time.Minute).UnixMilli(), 10)}, []string{"not milliseconds"}},
		{"unknown clock", []string{"--start-at=" + future, "--start-clock=ntp"}, []string{`--start-clock "ntp": give server`}},
		{"clock without start", []string{"--start-clock=local"}, []string{"--start-clock needs --start-at"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(context.Background(), nil, append([]string{"run", "oltp_point_select", db}, tc.args...)...)
			if r.code != ExitUsage {
				t.Fatalf("exit %d, want %d\n%s%s", r.code, ExitUsage, r.stdout, r.stderr)
			}
			for _, want := range tc.want {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
				}
			}
		})
	}
}

func TestParseStartAt(t *testing.T) {
	want := time.Date(2026, 11, 22, 5, 0, 0, 500_000_000, time.UTC)
	for _, s := range []string{"2026-11-22T05:00:00.5Z", "2026-11-22T06:00:00.5+01:00", strconv.FormatInt(want.Unix(), 10) + ".5"} {
		got, err := parseStartAt(s)
		if err != nil || !got.Equal(want) {
			t.Errorf("parseStartAt(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "now", "1e9", "-5", "2026-11-22 05:00"} {
		if _, err := parseStartAt(s); err == nil {
			t.Errorf("parseStartAt(%q) accepted", s)
		}
	}
}

// TestInterruptWhileWaitingForStart cancels a run that waits for --start-at: it
// ends at once with exit 130 and runs nothing.
func TestInterruptWhileWaitingForStart(t *testing.T) {
	t.Parallel()
	cfg := testdb.SQLite(t)
	out := filepath.Join(t.TempDir(), "r.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(1500*time.Millisecond, cancel)
	began := time.Now()
	r := runCLI(ctx, nil, join([]string{"run", "oltp_point_select", "--table-size=100", "--time=1",
		"--clients=2", "--client-id=1", "--start-at=" + time.Now().Add(time.Minute).UTC().Format(time.RFC3339), "--output=" + out}, targetArgs(cfg))...)
	if r.code != ExitInterrupted {
		t.Fatalf("exit %d, want %d\n%s%s", r.code, ExitInterrupted, r.stdout, r.stderr)
	}
	if took := time.Since(began); took > 30*time.Second {
		t.Fatalf("the wait ended %v after the start, not at the interrupt", took)
	}
	if !strings.Contains(r.stdout, "Client 1 of 2 (client ids 0..1): starting at") || !strings.Contains(r.stderr, "interrupted while waiting for --start-at: nothing was run") {
		t.Fatalf("output:\n%s%s", r.stdout, r.stderr)
	}
	if strings.Contains(r.stdout, "Threads started!") {
		t.Fatal("the run started despite the interrupt")
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("a result was written for a run that never started")
	}
}

// TestMergedIntervalsHaveExactPercentiles runs three coordinated clients on
// MariaDB (--clients keeps interval histograms) and merges them: every merged
// interval's histogram is the pooled one of the client intervals in its slot,
// and its percentiles and maximum are that histogram's. Without interval
// histograms the merged intervals keep no percentiles, as before; with only
// some clients' histograms the merge says why.
func TestMergedIntervalsHaveExactPercentiles(t *testing.T) {
	t.Parallel()
	cfg := testdb.MySQL(t)
	prepareMySQL(t, cfg)
	dir := t.TempDir()
	start := time.Now().Add(3 * time.Second).Truncate(time.Second)
	files := make([]string, 3)
	runs := make([]cliRun, 3)
	var wg sync.WaitGroup
	for i := range 3 {
		files[i] = filepath.Join(dir, "c"+strconv.Itoa(i)+".json")
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(i) * 400 * time.Millisecond)
			runs[i] = runCLI(context.Background(), nil, join([]string{"run", "oltp_point_select", "--table-size=1000",
				"--threads=" + strconv.Itoa(i+1), "--time=3", "--warmup-time=1", "--percentile=50,95,99",
				"--client-id=" + strconv.Itoa(i), "--clients=3", "--start-at=" + strconv.FormatInt(start.Unix(), 10), "--output=" + files[i]}, targetArgs(cfg))...)
		}()
	}
	wg.Wait()
	parts := make([]*result.Result, 3)
	for i, r := range runs {
		if r.code != ExitOK {
			t.Fatalf("client %d: exit %d\n%s%s", i, r.code, r.stdout, r.stderr)
		}
		parts[i] = readResult(t, files[i])
		for _, iv := range parts[i].Intervals {
			if (iv.Histogram != nil) != (iv.Counts.Events > 0) {
				t.Fatalf("client %d: interval at %vs with %d events, histogram %v", i, iv.At, iv.Counts.Events, iv.Histogram != nil)
			}
		}
	}

	merge := func(t *testing.T, files ...string) (*result.Result, cliRun) {
		t.Helper()
		out := filepath.Join(t.TempDir(), "merged.json")
		r := runCLI(context.Background(), nil, append([]string{"merge", "-o", out}, files...)...)
		if r.code != ExitOK {
			t.Fatalf("merge: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		return readResult(t, out), r
	}
	m, r := merge(t, files...)
	if r.stderr != "" {
		t.Errorf("merge warned: %s", r.stderr)
	}
	// Place each client interval in its slot as the merge rule says: its end on
	// absolute time (run start = start - warm-up, + at_s), in interval lengths
	// (1 s) from --start-at, rounded; warm-up and measured ones apart.
	type slot struct {
		at     float64
		warmup bool
	}
	pooled := map[slot]*hdrhistogram.Histogram{}
	events := map[slot]int64{}
	maxMs := map[slot]float64{}
	for _, p := range parts {
		runStart := p.Start.Add(-time.Second)
		for _, iv := range p.Intervals {
			end := runStart.Add(time.Duration(iv.At * float64(time.Second)))
			s := slot{math.Round(end.Sub(start).Seconds()), iv.Warmup}
			events[s] += iv.Counts.Events
			maxMs[s] = math.Max(maxMs[s], iv.MaxMs)
			if pooled[s] == nil {
				pooled[s] = hdrhistogram.New(1, 3_600_000_000, 3)
			}
			if iv.Histogram != nil {
				h, err := iv.Histogram.Decode()
				if err != nil {
					t.Fatal(err)
				}
				pooled[s].Merge(h)
			}
		}
	}
	if len(m.Intervals) != len(pooled) {
		t.Fatalf("%d merged intervals, the clients' fall in %d slots", len(m.Intervals), len(pooled))
	}
	for _, iv := range m.Intervals {
		s := slot{iv.At, iv.Warmup}
		h := pooled[s]
		if h == nil || iv.Counts.Events != events[s] || h.TotalCount() != events[s] || iv.MaxMs != maxMs[s] {
			t.Fatalf("merged interval at %vs (warm-up %v): %d events max %v; the clients' slot holds %d, max %v", iv.At, iv.Warmup, iv.Counts.Events, iv.MaxMs, events[s], maxMs[s])
		}
		for key, q := range map[string]float64{"50": 0.5, "95": 0.95, "99": 0.99} {
			want := result.HistogramQuantileMs(h, q, 0, maxMs[s])
			if got, ok := iv.LatencyMs[key]; !ok || got != want {
				t.Errorf("merged interval at %vs: p%s = %v (present %v), the pooled interval histograms say %v", iv.At, key, got, ok, want)
			}
		}
		if iv.Counts.Events > 0 {
			got, err := iv.Histogram.Decode()
			if err != nil {
				t.Fatal(err)
			}
			if got.TotalCount() != h.TotalCount() || !h.Equals(got) {
				t.Errorf("merged interval at %vs: its histogram is not the pooled one", iv.At)
			}
		}
	}

	// The same results without interval histograms, as older files are.
	strip := func(i int) string {
		p := *parts[i]
		p.Intervals = slices.Clone(p.Intervals)
		for j := range p.Intervals {
			p.Intervals[j].Histogram = nil
		}
		f := filepath.Join(dir, "old"+strconv.Itoa(i)+".json")
		if err := result.Write(f, &p); err != nil {
			t.Fatal(err)
		}
		return f
	}
	old := []string{strip(0), strip(1), strip(2)}
	for _, tc := range []struct {
		name  string
		files []string
		warn  string
	}{
		{"none", old, ""},
		{"some", []string{files[0], old[1], files[2]}, "the intervals of " + old[1] + " carry no latency histograms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, r := merge(t, tc.files...)
			var sum int64
			for _, iv := range m.Intervals {
				sum += iv.Counts.Events
				if len(iv.LatencyMs) != 0 || iv.Histogram != nil {
					t.Fatalf("merged interval at %vs has percentiles %v or a histogram", iv.At, iv.LatencyMs)
				}
			}
			if want := m.Totals.Counts.Events + m.Warmup.Counts.Events; sum != want {
				t.Errorf("merged intervals hold %d events, the phases %d", sum, want)
			}
			if tc.warn == "" && r.stderr != "" || !strings.Contains(r.stderr, tc.warn) {
				t.Errorf("merge stderr %q, want %q", r.stderr, tc.warn)
			}
		})
	}
}

// TestWaitReadsTheServerClock checks that --start-at is compared with the
// server's clock (this machine's plus the measured offset): a start that is
// ahead on this machine's clock is already past on a server 7 s ahead, and one
// that is past here is still ahead on a server 7 s behind.
func TestWaitReadsTheServerClock(t *testing.T) {
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name   string
		now    time.Time     // this machine's clock
		offset time.Duration // the server's minus ours
		want   string        // in the error
	}{
		{"server ahead: already past", at.Add(-time.Second), 7 * time.Second, "already 6s past --start-at"},
		{"server behind: still to come", at.Add(6 * time.Second), -7 * time.Second, "interrupted while waiting"}, // it waits: the cancelled context ends the wait
		{"same clock: still to come", at.Add(-time.Second), 0, "interrupted while waiting"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := coordination{start: setup.Start{At: at, Clock: startClockServer, Server: dbclock.Reading{Offset: tc.offset}}}
			err := c.wait(cancelled, io.Discard, func() time.Time { return tc.now })
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("wait: %v, want %q", err, tc.want)
			}
		})
	}
}
