package cli

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testdb"
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

// TestRunServerStoppedBriefly: a private server stopped with SIGSTOP for 3 s
// of a 10-s run, then continued, keeps its connections and answers nothing
// meanwhile. With the default --reconnect-timeout (30 s, far longer than
// the stop) the run used to end complete, exit 0, with the gap averaged
// into its figures. Now the stall limit follows the events' own latency
// (at least 1 s): the stall is recorded from the last answer before the stop
// to the first after it, it is more than 5 % of the measured phase, so the
// run fails (exit 1, result written); the interval lines in it end with
// "stall", and every interval of the result without events is marked.
func TestRunServerStoppedBriefly(t *testing.T) {
	srv := privateMariaDB(t, filepath.Join(t.TempDir(), "srv"))
	// Runs before privateMariaDB's cleanup stops the server: a stopped
	// process cannot shut down.
	t.Cleanup(func() { _ = syscall.Kill(srv.PID, syscall.SIGCONT) })
	_, tcp := srv.ConnectFlags()
	if r := runCLI(context.Background(), nil, join([]string{"prepare", "oltp_point_select", "--table-size=1000"}, tcp)...); r.code != ExitOK {
		t.Fatalf("prepare: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	out := filepath.Join(t.TempDir(), "r.json")
	done := make(chan cliRun, 1)
	go func() {
		done <- runCLI(context.Background(), nil, join([]string{"run", "oltp_point_select", "--table-size=1000", "--threads=2",
			"--time=10", "--report-interval=1", "--output=" + out}, tcp)...)
	}()
	// The run connects in well under a second; the stop lands a few seconds
	// into the measured phase, once the stall limit has followed the events.
	time.Sleep(3 * time.Second)
	if err := syscall.Kill(srv.PID, syscall.SIGSTOP); err != nil {
		t.Fatalf("stop the private MariaDB: %v", err)
	}
	stopped := time.Now()
	time.Sleep(3 * time.Second)
	if err := syscall.Kill(srv.PID, syscall.SIGCONT); err != nil {
		t.Fatalf("continue the private MariaDB: %v", err)
	}
	held := time.Since(stopped)
	var r cliRun
	select {
	case r = <-done:
	case <-time.After(3 * time.Minute):
		t.Fatal("the run has not ended 3 minutes after it began (--time=10)")
	}
	if r.code != ExitFailed {
		t.Fatalf("exit %d, want %d (failed: stalled for more than 5 %% of the measured phase)\n%s%s", r.code, ExitFailed, r.stdout, r.stderr)
	}
	res := readResult(t, out)
	if res.Status != result.StatusFailed || !strings.Contains(res.Error, "unreachable or answered nothing for") || !strings.Contains(res.Error, "more than 5 %") {
		t.Errorf("result: status %s, error %q; want failed by the 5 %% rule", res.Status, res.Error)
	}
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
	// From the last answer before the stop to the first after it.
	if d := o.Start.Sub(stopped); d < -500*time.Millisecond || d > 500*time.Millisecond {
		t.Errorf("stall starts %v from the stop: want it at the last answer before it", d)
	}
	if o.Seconds < 0.9*held.Seconds() || o.Seconds > held.Seconds()+2 {
		t.Errorf("stall of %.3fs, want about the %v the server was stopped", o.Seconds, held)
	}
	marked := 0
	for _, iv := range res.Intervals {
		if iv.Stall {
			marked++
		}
		if !iv.Warmup && iv.Counts.Events == 0 && !iv.Stall {
			t.Errorf("interval at %gs has no events and is not marked as a stall", iv.At)
		}
	}
	if marked < 3 {
		t.Errorf("%d intervals of the result marked, want the 3 or more the stall overlaps", marked)
	}
	lines, stalled := stallLines(r.stdout)
	t.Logf("interval lines:\n%s", strings.Join(lines, "\n"))
	if len(stalled) < 2 || len(stalled) > marked {
		t.Errorf("%d of %d interval lines end with \"stall\", want at least 2 (the first second of a stall is not known yet) and at most the %d intervals marked:\n%s",
			len(stalled), len(lines), marked, strings.Join(lines, "\n"))
	}
	if !strings.Contains(r.stdout, "WARNING: the server stopped answering: 1 stall (") || !strings.Contains(r.stdout, "into the measured phase, for ") {
		t.Errorf("the summary does not name the stall:\n%s", r.stdout)
	}
	if !hasWarning(res, "the server stopped answering: 1 stall (") {
		t.Errorf("warnings %q: want the stall named in the result", res.Warnings)
	}
}

// TestThinkTimesAreNoStall: TPC-C with keying and think times (--wait)
// sleeps at least 2 s before each transaction, while the stall limit is
// 1 s (--reconnect-timeout=1 sets the limit before the first answer too):
// a thread in its sleep does not wait for the server, so no stall is
// recorded and the run is complete.
func TestThinkTimesAreNoStall(t *testing.T) {
	tgt := targetArgs(testdb.SQLite(t))
	if r := runCLI(context.Background(), nil, join([]string{"prepare", "tpcc", "--warehouses=1", "--threads=2"}, tgt)...); r.code != ExitOK {
		t.Fatalf("prepare: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
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
