package cli

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/fairbench/fairbench/internal/base/syncbuf"
	"github.com/fairbench/fairbench/internal/compat/sysbenchout"
	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// lockedRun is a sysbench-form oltp_point_select run on MariaDB during which
// another session holds LOCK TABLES sbtest1 WRITE: the threads' events wait
// for it on the server, in flight, from about 1 s into the measured phase
// (seen by the "[ 1s ]" interval line) until release returns, called once
// the "[ Ns ]" line of --time has printed (the measured phase's end).
type lockedRun struct {
	code   int
	stdout string
	stderr string
}

func runLocked(t *testing.T, cfg driver.Config, args []string, timeSecs int, release func()) lockedRun {
	t.Helper()
	mc := mysql.NewConfig()
	mc.User, mc.Net, mc.Addr, mc.DBName = cfg.User, "tcp", fmt.Sprintf("%s:%d", cfg.Hosts[0], cfg.Ports[0]), cfg.Database
	db, err := sql.Open("mysql", mc.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	locker, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close()

	var out, errb syncbuf.Buffer
	app := &App{Stdout: &out, Stderr: &errb, Version: "test", Getenv: func(string) string { return "" }}
	done := make(chan int, 1)
	go func() { done <- app.Execute(ctx, args) }()
	waitFor := func(line string) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for !strings.Contains(out.String(), line) {
			select {
			case code := <-done:
				if strings.Contains(out.String(), line) {
					done <- code // the line came just before the end (without the option, the run ends at --time)
					return
				}
				t.Fatalf("the run ended (exit %d) before %q:\n%s%s", code, line, out.String(), errb.String())
			case <-time.After(5 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				t.Fatalf("no %q after 60 s:\n%s%s", line, out.String(), errb.String())
			}
		}
	}
	waitFor("[ 1s ]")
	if _, err := locker.ExecContext(ctx, "LOCK TABLES sbtest1 WRITE"); err != nil {
		t.Fatal(err)
	}
	unlocked := false
	unlock := func() {
		if !unlocked {
			unlocked = true
			if _, err := locker.ExecContext(ctx, "UNLOCK TABLES"); err != nil {
				t.Error(err)
			}
		}
	}
	defer unlock()
	waitFor(fmt.Sprintf("[ %ds ]", timeSecs))
	var code int
	if release != nil {
		release()
		unlock()
		code = <-done
	} else {
		code = <-done // the lock outlives the run
		unlock()
	}
	return lockedRun{code: code, stdout: out.String(), stderr: errb.String()}
}

// TestForcedShutdownWaitsForEventsInFlight: the events blocked by the lock
// when --time=3 ends are released 300 ms later. With --forced-shutdown=10
// they finish then and are counted — their latency (over 1.5 s, the lock's
// hold) is in the summary — and the result records the grace; without the
// option (the rule it replaces, still the default) they are abandoned at
// --time, uncounted: no event that long is counted and the phase is 3 s.
// Either way no thread had an answer for some 2 s of the phase: the run is
// failed for the stall (exit 1), which the released events end when they
// are waited for and which lasts to the end of the phase when they are not.
func TestForcedShutdownWaitsForEventsInFlight(t *testing.T) {
	cfg := testdb.MySQL(t)
	base := join(targetArgs(cfg), []string{"--tables=1", "--table-size=100"})
	if r := runCLI(context.Background(), nil, join(base, []string{"oltp_point_select", "prepare"})...); r.code != ExitOK {
		t.Fatalf("prepare: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, tc := range []struct {
		name string
		opt  []string
	}{{"forced-shutdown=10", []string{"--forced-shutdown=10"}}, {"without", nil}} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run.json")
			args := join(base, []string{"--threads=2", "--time=3", "--report-interval=1", "--rand-type=uniform"}, tc.opt, []string{"oltp_point_select", "run", "-o", out})
			r := runLocked(t, cfg, args, 3, func() { time.Sleep(300 * time.Millisecond) })
			if r.code != ExitFailed {
				t.Fatalf("exit %d, want %d (failed for the stall)\n%s%s", r.code, ExitFailed, r.stdout, r.stderr)
			}
			res := readResult(t, out)
			waiting := 2 // abandoned at --time, still waiting for an answer then
			if tc.opt != nil {
				waiting = 0 // waited for: their answers end the stall
			}
			if len(res.Outages) != 1 || !res.Outages[0].Stall || res.Outages[0].Unrecovered != waiting {
				t.Errorf("outages %+v, want one stall with %d thread(s) still waiting at the end", res.Outages, waiting)
			}
			maxMs := res.Totals.Latency.MaxMs
			if tc.opt == nil {
				if res.Shutdown != nil || maxMs >= 1500 || math.Abs(res.Totals.Seconds-3) > 0.05 || strings.Contains(r.stdout, "Forcing shutdown") {
					t.Errorf("without --forced-shutdown: shutdown %+v, max latency %.1f ms, phase %.3fs: want the events in flight abandoned at --time\n%s",
						res.Shutdown, maxMs, res.Totals.Seconds, r.stdout)
				}
				return
			}
			sh := res.Shutdown
			if sh == nil || sh.Forced || sh.LimitSeconds == nil || *sh.LimitSeconds != 10 || sh.GraceSeconds < 0.25 || sh.GraceSeconds > 9 {
				t.Fatalf("shutdown %+v: want a grace of about 0.3 s within the 10 s limit, not forced", sh)
			}
			if maxMs < 1500 {
				t.Errorf("max latency %.1f ms: the events held by the lock (over 1.5 s) were not counted", maxMs)
			}
			if math.Abs(res.Totals.Seconds-(3+sh.GraceSeconds)) > 0.02 {
				t.Errorf("measured phase %.3fs, want --time plus the grace, %.3fs", res.Totals.Seconds, 3+sh.GraceSeconds)
			}
			if !strings.Contains(r.stdout, "\n\nForcing shutdown in 13 seconds\n\nInitializing worker threads...") || strings.Contains(r.stdout, "FATAL") {
				t.Errorf("want sysbench's header line and no FATAL line:\n%s", r.stdout)
			}
		})
	}
}

// TestForcedShutdownEndsStuckRun: the lock outlives --time=2 plus
// --forced-shutdown=1, so at 3 s the two events it holds are cancelled and
// the run ends as sysbench's does: its FATAL line, the summary of what was
// measured with the count of unfinished events, exit 2, and the result
// written, failed and marked forced, its figures kept.
func TestForcedShutdownEndsStuckRun(t *testing.T) {
	cfg := testdb.MySQL(t)
	base := join(targetArgs(cfg), []string{"--tables=1", "--table-size=100"})
	if r := runCLI(context.Background(), nil, join(base, []string{"oltp_point_select", "prepare"})...); r.code != ExitOK {
		t.Fatalf("prepare: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	out := filepath.Join(t.TempDir(), "forced.json")
	start := time.Now()
	r := runLocked(t, cfg, join(base, []string{"--threads=2", "--time=2", "--forced-shutdown=1", "--report-interval=1", "--rand-type=uniform", "oltp_point_select", "run", "-o", out}), 2, nil)
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("the run took %s: the stuck events were not cancelled at 3 s", took)
	}
	if r.code != ExitForced {
		t.Fatalf("exit %d, want %d (sysbench's)\n%s%s", r.code, ExitForced, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"Forcing shutdown in 3 seconds\n",
		sysbenchout.ForcedShutdownFatal + "\nSQL statistics:\n",
		"    reconnects:                          0      (0.00 per sec.)\n\nNumber of unfinished transactions on forced shutdown: 2\n\nGeneral statistics:\n",
		"Status: failed: forced shutdown: 2 events were still running 1s after --time",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	if !strings.Contains(r.stderr, "forced shutdown") {
		t.Errorf("stderr does not say why it failed:\n%s", r.stderr)
	}
	res := readResult(t, out)
	if res.Status != "failed" || !strings.Contains(res.Error, "forced shutdown") {
		t.Errorf("result status %s, error %q: want failed, saying the shutdown was forced", res.Status, res.Error)
	}
	if sh := res.Shutdown; sh == nil || !sh.Forced || sh.Unfinished != 2 || sh.GraceSeconds != 1 {
		t.Errorf("result shutdown %+v, want forced, 2 unfinished, a grace of 1 s", sh)
	}
	if res.Totals.Counts.Events == 0 || math.Abs(res.Totals.Seconds-3) > 0.05 {
		t.Errorf("%d events over %.3fs: want the events of the first second kept, over --time plus the limit", res.Totals.Counts.Events, res.Totals.Seconds)
	}
}
