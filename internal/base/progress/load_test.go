package progress_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/base/progress"
	"github.com/fairbench/fairbench/internal/base/syncbuf"
	"github.com/fairbench/fairbench/internal/db/driver/open"
	"github.com/fairbench/fairbench/internal/testing/testdb"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/oltp"
	"github.com/fairbench/fairbench/internal/workload/randgen"
)

// TestETAFallsDuringARealLoad loads an OLTP data set into SQLite with the
// line redrawn as a terminal would, on a clock that advances one millisecond
// per row loaded: the rate is then exactly 1000 rows/s whatever the machine's
// speed, and every line's ETA must be the rows left in milliseconds, falling
// from line to line. The log lines of the loader must each start on a
// cleared line.
func TestETAFallsDuringARealLoad(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	drv, err := open.Driver(testdb.SQLite(t))
	if err != nil {
		t.Fatal(err)
	}
	defer drv.Close()
	var spec workload.Spec
	for _, s := range oltp.Specs() {
		if s.Name == "oltp_read_only" {
			spec = s
		}
	}
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	wl := spec.New(fs)
	if err := fs.Parse([]string{"--tables=2", "--table-size=100000"}); err != nil {
		t.Fatal(err)
	}
	if err := wl.Validate(); err != nil {
		t.Fatal(err)
	}
	rng, err := randgen.NewFactory(randgen.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}

	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var prog *progress.Counter
	prog = progress.NewCounterClock(0, func() time.Time {
		if prog == nil {
			return base
		}
		return base.Add(time.Duration(prog.Done()) * time.Millisecond)
	})
	var out syncbuf.Buffer
	d := &progress.Display{W: &out, Terminal: true, Every: time.Millisecond}
	stop := d.Start(ctx, func() string { return prog.Line("loaded", progress.Rows) })
	err = wl.Prepare(ctx, workload.PrepareEnv{Driver: drv, Threads: 2, Rand: rng, Replace: true, Log: d, Progress: prog})
	stop()
	if err != nil {
		t.Fatal(err)
	}
	const total = 200000
	if got := prog.Done(); got != total {
		t.Fatalf("counted %d rows, want %d", got, total)
	}

	raw := out.String()
	// Nothing runs into a drawn line: after "ETA x" comes a clear or the end.
	if m := regexp.MustCompile(`ETA [0-9a-z.?]+[^0-9a-z.?\r]`).FindString(raw); m != "" {
		t.Errorf("text written right after a progress line, without clearing it: %q", m)
	}
	lineRe := regexp.MustCompile(`^loaded (\d+)/(\d+) rows \([0-9.]+%\), (\S+) rows/s, ETA (\S+)$`)
	var etas []string
	prevDone := int64(-1)
	logLines := 0
	for _, seg := range strings.Split(raw, "\r\033[K") {
		if seg == "" {
			continue
		}
		if !strings.HasPrefix(seg, "loaded ") {
			logLines++
			continue
		}
		m := lineRe.FindStringSubmatch(seg)
		if m == nil {
			continue // "loaded N rows" before the total is known
		}
		done, _ := strconv.ParseInt(m[1], 10, 64)
		if m[2] != strconv.Itoa(total) {
			t.Fatalf("line %q: total %s, want %d", seg, m[2], total)
		}
		if done <= prevDone || done == 0 || done == total {
			continue // the same line redrawn, nothing done yet (ETA ?), or the end
		}
		prevDone = done
		if m[3] != "1000" {
			t.Errorf("line %q: rate %s, want 1000 on a clock of 1 ms per row", seg, m[3])
		}
		want := progress.Duration(time.Duration(total-done) * time.Millisecond)
		if m[4] != want {
			t.Errorf("line %q: ETA %s, want %s", seg, m[4], want)
		}
		etas = append(etas, m[4])
	}
	if logLines == 0 {
		t.Errorf("no log lines from the loader in %q", raw)
	}
	if len(etas) < 2 {
		t.Fatalf("saw %d lines while loading, want at least 2 to see the ETA move: %q", len(etas), raw)
	}
	first, last := mustDuration(t, etas[0]), mustDuration(t, etas[len(etas)-1])
	if last >= first {
		t.Errorf("ETA did not fall during the load: first %s, last %s (all: %v)", etas[0], etas[len(etas)-1], etas)
	}
	t.Logf("%d lines, ETA from %s down to %s", len(etas), etas[0], etas[len(etas)-1])
}

func mustDuration(t *testing.T, s string) time.Duration {
	t.Helper()
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Fatal(fmt.Errorf("ETA %q: %w", s, err))
	}
	return d
}
