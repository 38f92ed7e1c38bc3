package pgbenchout

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/fairbench/fairbench/internal/record/result"
	goldenfile "github.com/fairbench/fairbench/internal/testing/golden"
)

// noticeRe matches the server's notices in a transcript, which libpq
// relays on pgbench's stderr.
var noticeRe = regexp.MustCompile(`(?m)^NOTICE: .*\n`)

// digitRe matches the digits the transcripts mask.
var digitRe = regexp.MustCompile(`[0-9]`)

// mask replaces every digit with 9, keeping labels, spacing and number
// formats: "tps = 703.699705" and "tps = 999.999999" compare equal, "3.79"
// and "3.793" do not.
func mask(s string) string { return digitRe.ReplaceAllString(s, "9") }

// TestTranscriptLayouts renders the figures of each recorded pgbench 15.20
// run (transcripts_test.go) and holds the output against the run's
// transcript, digits masked, line for line; the rendering is also the
// golden file testdata/NAME.golden (refreshed with -update).
func TestTranscriptLayouts(t *testing.T) {
	all := transcripts
	files, _ := filepath.Glob(filepath.Join("testdata", "pgbench-15", "*.txt"))
	if len(files) != len(all) {
		t.Errorf("%d transcripts in testdata/pgbench-15, %d rendered", len(files), len(all))
	}
	for _, tc := range all {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", "pgbench-15", tc.name+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			cmdLine, want, _ := strings.Cut(noticeRe.ReplaceAllString(string(raw), ""), "\n")
			if !strings.HasPrefix(cmdLine, "$ pgbench ") {
				t.Fatalf("the transcript begins with %q, not its command line", cmdLine)
			}
			var b bytes.Buffer
			tc.write(&b)
			goldenfile.Check(t, filepath.Join("testdata", tc.name+".golden"), b.Bytes())
			got := mask(b.String())
			if got == want {
				return
			}
			g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
			for i := 0; i < max(len(g), len(w)); i++ {
				var gl, wl string
				if i < len(g) {
					gl = g[i]
				}
				if i < len(w) {
					wl = w[i]
				}
				if gl != wl {
					t.Errorf("line %d differs from pgbench 15.20's (%s)\n got %q\nwant %q", i+1, cmdLine, gl, wl)
					return
				}
			}
		})
	}
}

// TestProgressVariants holds each variant of the progress line.
func TestProgressVariants(t *testing.T) {
	base := Progress{Elapsed: 10, TPS: 1234.56, LatencyMs: 3.2104, StddevMs: 1.2345, Failed: 2}
	for _, tc := range []struct {
		mod  func(p *Progress)
		want string
	}{
		{func(p *Progress) {}, "progress: 10.0 s, 1234.6 tps, lat 3.210 ms stddev 1.234, 2 failed\n"},
		{func(p *Progress) { p.Throttled, p.LagMs = true, 0.25 }, "progress: 10.0 s, 1234.6 tps, lat 3.210 ms stddev 1.234, 2 failed, lag 0.250 ms\n"},
		{func(p *Progress) { p.Throttled, p.LatencyLimit, p.Skipped = true, true, 7 }, "progress: 10.0 s, 1234.6 tps, lat 3.210 ms stddev 1.234, 2 failed, lag 0.000 ms, 7 skipped\n"},
		{func(p *Progress) { p.LatencyLimit, p.Skipped = true, 7 }, "progress: 10.0 s, 1234.6 tps, lat 3.210 ms stddev 1.234, 2 failed\n"}, // -L alone: no skipping
		{func(p *Progress) { p.Retrying, p.Retried, p.Retries = true, 3, 5 }, "progress: 10.0 s, 1234.6 tps, lat 3.210 ms stddev 1.234, 2 failed, 3 retried, 5 retries\n"},
		{func(p *Progress) { p.Timestamp, p.Epoch = true, 1795853633.4161 }, "progress: 1795853633.416 s, 1234.6 tps, lat 3.210 ms stddev 1.234, 2 failed\n"},
	} {
		p := base
		tc.mod(&p)
		var b bytes.Buffer
		WriteProgress(&b, p)
		if b.String() != tc.want {
			t.Errorf("%+v:\n got %q\nwant %q", p, b.String(), tc.want)
		}
	}
}

// TestSummaryEdges holds what pgbench prints of a run without
// transactions, with -C, with an unmeasured latency and failures, and per
// script without transactions.
func TestSummaryEdges(t *testing.T) {
	s := Summary{Scripts: []Script{{Desc: "x.sql", Weight: 1}}, Scale: 1, QueryMode: "simple", Clients: 1, Threads: 1, MaxTries: 1, Duration: 5}
	var b bytes.Buffer
	WriteSummary(&b, s)
	if !strings.HasSuffix(b.String(), "number of transactions actually processed: 0\n") {
		t.Errorf("no transactions: pgbench stops after the count\n%s", b.String())
	}
	s.Processed, s.Failures.Deadlock, s.LatencyAvgMs = 10, 2, 4
	b.Reset()
	WriteSummary(&b, s)
	if !strings.Contains(b.String(), "latency average = 4.000 ms (including failures)\n") {
		t.Errorf("failures with an unmeasured latency:\n%s", b.String())
	}
	s.Connect, s.ConnectionMs, s.TPS = true, 1.5, 2
	s.Scripts = append(s.Scripts, Script{Desc: "y.sql", Weight: 3})
	b.Reset()
	WriteSummary(&b, s)
	for _, want := range []string{
		"transaction type: multiple scripts\n",
		"average connection time = 1.500 ms\ntps = 2.000000 (including reconnection times)\n",
		"SQL script 2: y.sql\n - weight: 3 (targets 75.0% of total)\n - 0 transactions (0.0% of total, tps = 0.000000)\n - number of failed transactions: 0 (-nan%)\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), " - latency average") {
		t.Errorf("a script without transactions has no latency lines (pgbench's printSimpleStats):\n%s", b.String())
	}
}

// histogramOf encodes latencies (µs) as a result keeps them.
func histogramOf(t *testing.T, us ...int64) *result.Histogram {
	t.Helper()
	h := hdrhistogram.New(1, 60_000_000, 3)
	for _, v := range us {
		if err := h.RecordValue(v); err != nil {
			t.Fatal(err)
		}
	}
	enc, err := result.EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

// TestSummaryFrom maps a result's figures into the report: latencies of
// 1, 2 and 3 ms average 2 ms with a standard deviation of √(2/3) ms, the
// lag is latency less service time, failures are 40001 and 40P01 only,
// each script its kind.
func TestSummaryFrom(t *testing.T) {
	r := &result.Result{Kinds: []string{"a", "b"}, Totals: result.Phase{
		Seconds: 10, TPS: 30,
		Counts:  result.Counters{Events: 300, Errors: map[string]int64{"40001": 4, "40P01": 1, "23505": 9}},
		Latency: result.Latency{AvgMs: 2, Histogram: histogramOf(t, 1000, 2000, 3000)},
		Service: result.Latency{AvgMs: 1.75},
		Kinds: []result.KindPhase{
			{Name: "a", Events: 100, TPS: 10, Errors: map[string]int64{"40001": 4}, Latency: result.Latency{AvgMs: 1.5, Histogram: histogramOf(t, 1000, 2000)}},
			{Name: "b", Events: 200, TPS: 20, Errors: map[string]int64{"40P01": 1}, Latency: result.Latency{AvgMs: 3}},
		},
	}}
	settings := Summary{Clients: 4, Throttled: true, LatencyMeasured: true, Scripts: []Script{{Desc: "a.sql", Weight: 1}, {Desc: "b.sql", Weight: 2}}, ConnectionMs: 3}
	s := SummaryFrom(r, settings)
	near := func(got, want float64) bool { return math.Abs(got-want) < 0.01 }
	if s.Processed != 300 || s.TPS != 30 || s.Failures != (Failures{4, 1}) || s.LatencyAvgMs != 2 || !near(s.LatencyStddevMs, math.Sqrt(2.0/3)) || s.LagAvgMs != 0.25 || s.ConnectionMs != 3 {
		t.Errorf("totals: %+v", s)
	}
	a, b := s.Scripts[0], s.Scripts[1]
	if a.Desc != "a.sql" || a.Processed != 100 || a.Failures.Serialization != 4 || !near(a.LatencyStddevMs, 0.5) || b.Processed != 200 || b.Failures.Deadlock != 1 || b.Weight != 2 {
		t.Errorf("scripts: %+v", s.Scripts)
	}
	if settings.Scripts[0].Processed != 0 {
		t.Error("SummaryFrom changed the settings' scripts")
	}
	settings.LatencyMeasured = false // pgbench: 10 s × 4 clients / 305 transactions
	if s := SummaryFrom(r, settings); !near(s.LatencyAvgMs, 10000.0*4/305) {
		t.Errorf("unmeasured latency average %v", s.LatencyAvgMs)
	}
}

// TestProgressFrom maps an interval: its end, tps, failures, and the
// latency of its histogram; the epoch of --progress-timestamp is the
// start's plus the interval's end.
func TestProgressFrom(t *testing.T) {
	iv := result.Interval{At: 4, Seconds: 2, TPS: 150, LagMs: 0.5, Counts: result.Counters{Errors: map[string]int64{"40001": 3, "XX000": 1}, Retried: 2, Retries: 5}, Histogram: histogramOf(t, 2000, 4000)}
	start := float64(time.Date(2026, 11, 28, 8, 0, 0, 0, time.UTC).Unix())
	p := ProgressFrom(iv, Progress{Timestamp: true, Epoch: start, Throttled: true})
	if p.Elapsed != 4 || p.Epoch != start+4 || p.TPS != 150 || p.Failed != 3 || math.Abs(p.LatencyMs-3) > 0.01 || math.Abs(p.StddevMs-1) > 0.01 || p.LagMs != 0.5 || p.Retried != 2 || p.Retries != 5 {
		t.Errorf("%+v", p)
	}
	if p := ProgressFrom(result.Interval{At: 2, TPS: 5}, Progress{}); p.LatencyMs != 0 || p.Elapsed != 2 {
		t.Errorf("without a histogram: %+v", p)
	}
}

// TestWriteVersion is pgbench's banner, with the server's version when it differs.
func TestWriteVersion(t *testing.T) {
	var b bytes.Buffer
	WriteVersion(&b, "15.20", "")
	WriteVersion(&b, "15.20", "16.4")
	if b.String() != "pgbench (15.20)\npgbench (15.20, server 16.4)\n" {
		t.Errorf("%q", b.String())
	}
}
