package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/machine/localserver"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// stallLines returns the interval lines of out (sysbench's "[ 3s ] thds: …")
// and those of them marked as lying in a stall.
func stallLines(out string) (lines, stalled []string) {
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "[ ") || !strings.Contains(l, " thds: ") {
			continue
		}
		lines = append(lines, l)
		if strings.HasSuffix(l, " stall") {
			stalled = append(stalled, l)
		}
	}
	return lines, stalled
}

// stopServerDuring runs oltp_point_select on srv with 2 threads for seconds
// (and extra flags) with interval lines, and stops the server with SIGSTOP
// for hold, from at after the run began. It returns the run, its result,
// when the server was stopped and for how long.
func stopServerDuring(t *testing.T, srv *localserver.Server, seconds int, extra []string, at, hold time.Duration) (cliRun, *result.Result, time.Time, time.Duration) {
	t.Helper()
	_, tcp := srv.ConnectFlags()
	out := filepath.Join(t.TempDir(), "r.json")
	done := make(chan cliRun, 1)
	go func() {
		done <- runCLI(context.Background(), nil, join([]string{"run", "oltp_point_select", "--table-size=1000", "--threads=2",
			"--time=" + strconv.Itoa(seconds), "--report-interval=1", "--output=" + out}, extra, tcp)...)
	}()
	time.Sleep(at)
	if err := syscall.Kill(srv.PID, syscall.SIGSTOP); err != nil {
		t.Fatalf("stop the private MariaDB: %v", err)
	}
	stopped := time.Now()
	time.Sleep(hold)
	if err := syscall.Kill(srv.PID, syscall.SIGCONT); err != nil {
		t.Fatalf("continue the private MariaDB: %v", err)
	}
	held := time.Since(stopped)
	select {
	case r := <-done:
		return r, readResult(t, out), stopped, held
	case <-time.After(time.Duration(seconds)*time.Second + 3*time.Minute):
		t.Fatalf("the run has not ended 3 minutes after --time=%d", seconds)
	}
	return cliRun{}, nil, time.Time{}, 0
}

// checkStall checks that res recorded one stall of both threads, recovered,
// from the last answer before the server was stopped to the first after it
// was continued, with the latency-bound limit; that every interval without
// events is marked and at least marked ones are; that the interval lines
// mark at most those (the first second of a stall is not known when its
// line is printed) and at least lines; and that the human summary and the
// result's warnings name it. It returns the stall.
func checkStall(t *testing.T, r cliRun, res *result.Result, stopped time.Time, held time.Duration, marked, lines int) result.Outage {
	t.Helper()
	if len(res.Outages) != 1 {
		t.Fatalf("outages %+v, want one stall", res.Outages)
	}
	o := res.Outages[0]
	t.Logf("server stopped for %v; stall %+v", held, o)
	if !o.Stall || o.Unrecovered != 0 || o.Threads != 2 {
		t.Errorf("outage %+v: want a stall of both threads, recovered", o)
	}
	if o.LimitSeconds < 1 || o.LimitSeconds >= 30 {
		t.Errorf("stall limit %.3fs: want the latency-bound one (at least 1 s), not --reconnect-timeout's 30 s", o.LimitSeconds)
	}
	if d := o.Start.Sub(stopped); d < -500*time.Millisecond || d > 500*time.Millisecond {
		t.Errorf("stall starts %v from the stop: want it at the last answer before it", d)
	}
	if o.Seconds < 0.9*held.Seconds() || o.Seconds > held.Seconds()+2 {
		t.Errorf("stall of %.3fs, want about the %v the server was stopped", o.Seconds, held)
	}
	n := 0
	for _, iv := range res.Intervals {
		if iv.Stall {
			n++
		}
		if !iv.Warmup && iv.Counts.Events == 0 && !iv.Stall {
			t.Errorf("interval at %gs has no events and is not marked as a stall", iv.At)
		}
	}
	if n < marked {
		t.Errorf("%d intervals of the result marked, want the %d or more the stall overlaps", n, marked)
	}
	all, stalled := stallLines(r.stdout)
	t.Logf("interval lines:\n%s", strings.Join(all, "\n"))
	if len(stalled) < lines || len(stalled) > n {
		t.Errorf("%d of %d interval lines end with \"stall\", want at least %d and at most the %d intervals marked", len(stalled), len(all), lines, n)
	}
	named := fmt.Sprintf("the server stopped answering: 1 stall (some thread waited for an answer and none came for longer than the stall limit, %.1fs): %.1fs into the measured phase, for %.1fs",
		o.LimitSeconds, o.Start.Sub(res.Start).Seconds(), o.Seconds)
	if !strings.Contains(r.stdout, "WARNING: "+named) || !hasWarning(res, named) {
		t.Errorf("the summary or the result's warnings %q do not name the stall (%q):\n%s", res.Warnings, named, r.stdout)
	}
	return o
}

// TestRunServerStoppedBriefly: a private server stopped with SIGSTOP and
// continued keeps its connections and answers nothing meanwhile. With the
// default --reconnect-timeout (30 s, far longer than the stop) such a run
// used to end complete, exit 0, the gap averaged into its figures. Now the
// stall limit follows the events' own latency (at least 1 s): the stall is
// recorded, marked on the interval lines and in the result, named in the
// summary, and judged by the 5 % rule.
func TestRunServerStoppedBriefly(t *testing.T) {
	t.Parallel() // its own private server: waits on it, beside the other tests
	srv := privateMariaDB(t, filepath.Join(t.TempDir(), "srv"))
	// Runs before privateMariaDB's cleanup stops the server: a stopped
	// process cannot shut down.
	t.Cleanup(func() { _ = syscall.Kill(srv.PID, syscall.SIGCONT) })
	_, tcp := srv.ConnectFlags()
	if r := runCLI(context.Background(), nil, join([]string{"prepare", "oltp_point_select", "--table-size=1000"}, tcp)...); r.code != ExitOK {
		t.Fatalf("prepare: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// 3 s of a 10-s run (30 %): the run fails, exit 1. The stop lands a
	// few seconds into the measured phase (the run connects in well under
	// a second), once the stall limit has followed the events.
	t.Run("3s of 10s fails", func(t *testing.T) {
		r, res, stopped, held := stopServerDuring(t, srv, 10, nil, 3*time.Second, 3*time.Second)
		if r.code != ExitFailed {
			t.Fatalf("exit %d, want %d (failed: stalled for more than 5 %% of the measured phase)\n%s%s", r.code, ExitFailed, r.stdout, r.stderr)
		}
		if res.Status != result.StatusFailed || !strings.Contains(res.Error, "the server answered nothing for") || !strings.Contains(res.Error, "more than 5 %") {
			t.Errorf("result: status %s, error %q; want failed by the 5 %% rule", res.Status, res.Error)
		}
		checkStall(t, r, res, stopped, held, 3, 2)
	})
	// 1.5 s of a 40-s run (under 4 %): complete, exit 0, with the stall
	// named. An open-loop --rate keeps the long run light on the machine.
	t.Run("1.5s of 40s completes", func(t *testing.T) {
		if testing.Short() {
			t.Skip("runs for 40 s")
		}
		r, res, stopped, held := stopServerDuring(t, srv, 40, []string{"--rate=500"}, 5*time.Second, 1500*time.Millisecond)
		if r.code != ExitOK || res.Status != result.StatusComplete {
			t.Fatalf("exit %d, status %s, want 0 and complete (the stall is within 5 %% of the phase)\n%s%s", r.code, res.Status, r.stdout, r.stderr)
		}
		checkStall(t, r, res, stopped, held, 2, 1)
		if !slices.ContainsFunc(res.Warnings, func(w string) bool {
			return strings.Contains(w, "stall") && strings.Contains(w, "within 5 % of the measured phase, the run counts as complete")
		}) {
			t.Errorf("warnings %q: want the stall said to leave the run complete", res.Warnings)
		}
	})
}

// TestThinkTimesAreNoStall: TPC-C with keying and think times (--wait)
// sleeps at least 2 s before each transaction, while the stall limit is
// 1 s (--reconnect-timeout=1 sets the limit before the first answer too):
// a thread in its sleep does not wait for the server, so no stall is
// recorded and the run is complete.
func TestThinkTimesAreNoStall(t *testing.T) {
	t.Parallel()
	tgt := targetArgs(preparedTPCC(t))
	out := filepath.Join(t.TempDir(), "tpcc.json")
	r := runCLI(context.Background(), nil, join([]string{"run", "tpcc", "--wait", "--threads=2", "--time=6", "--report-interval=1",
		"--reconnect-timeout=1", "--output=" + out}, tgt)...)
	if r.code != ExitOK {
		t.Fatalf("run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	res := readResult(t, out)
	if res.Status != result.StatusComplete || len(res.Outages) != 0 {
		t.Errorf("status %s, outages %+v: keying and think times taken for a stall", res.Status, res.Outages)
	}
	if lines, stalled := stallLines(r.stdout); len(lines) == 0 || len(stalled) > 0 {
		t.Errorf("%d interval lines, %d marked as a stall; want lines, none marked:\n%s", len(lines), len(stalled), r.stdout)
	}
}

// TestLowRateIsNoStall: a --rate of one event every two seconds leaves the
// threads idle on their schedule for seconds at a time, longer than the
// 1-s stall limit: idle is not waiting for the server, so no stall is
// recorded. The run must have had a second without an event for the test
// to prove anything (at this rate, all but certain).
func TestLowRateIsNoStall(t *testing.T) {
	t.Parallel()
	tgt := targetArgs(testdb.SQLite(t))
	if r := runCLI(context.Background(), nil, join([]string{"prepare", "oltp_point_select", "--table-size=100"}, tgt)...); r.code != ExitOK {
		t.Fatalf("prepare: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	out := filepath.Join(t.TempDir(), "rate.json")
	r := runCLI(context.Background(), nil, join([]string{"run", "oltp_point_select", "--table-size=100", "--threads=2", "--rate=0.5",
		"--time=8", "--report-interval=1", "--reconnect-timeout=1", "--output=" + out}, tgt)...)
	if r.code != ExitOK {
		t.Fatalf("run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	res := readResult(t, out)
	if res.Status != result.StatusComplete || len(res.Outages) != 0 {
		t.Errorf("status %s, outages %+v: a low --rate's idle gaps taken for a stall", res.Status, res.Outages)
	}
	idle := 0
	for _, iv := range res.Intervals {
		if iv.Counts.Events == 0 {
			idle++
		}
	}
	if idle == 0 {
		t.Fatalf("every second of the run had an event: the check above proves nothing")
	}
	if lines, stalled := stallLines(r.stdout); len(lines) == 0 || len(stalled) > 0 {
		t.Errorf("%d interval lines, %d marked as a stall; want lines, none marked:\n%s", len(lines), len(stalled), r.stdout)
	}
}
