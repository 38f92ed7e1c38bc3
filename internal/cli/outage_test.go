package cli

import (
	"context"
	"maps"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/machine/localserver"
	"github.com/fairbench/fairbench/internal/record/result"
)

// privateMariaDB starts a small MariaDB of its own in dir (never the shared
// one: these tests kill it), stopped when the test ends.
func privateMariaDB(t *testing.T, dir string) *localserver.Server {
	t.Helper()
	return privateMariaDBWith(t, dir, nil)
}

// privateMariaDBWith starts it with settings besides a 32 MB buffer pool.
func privateMariaDBWith(t *testing.T, dir string, settings map[string]string) *localserver.Server {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a private MariaDB")
	}
	if _, err := os.Stat("/usr/sbin/mariadbd"); err != nil {
		t.Skip("MariaDB's server is not installed (scripts/test.sh installs it)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	all := map[string]string{"innodb_buffer_pool_size": "32M"}
	maps.Copy(all, settings)
	srv, err := localserver.Start(ctx, localserver.Options{Flavor: localserver.FlavorMariaDB, Profile: localserver.ProfileCustom, Dir: dir, Settings: all})
	if err != nil {
		t.Fatalf("start a private MariaDB: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = localserver.Stop(ctx, dir)
	})
	return srv
}

// killServer kills the private server outright and waits until it is gone.
func killServer(t *testing.T, srv *localserver.Server) {
	t.Helper()
	if err := syscall.Kill(srv.PID, syscall.SIGKILL); err != nil {
		t.Fatalf("kill the private MariaDB: %v", err)
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if syscall.Kill(srv.PID, 0) != nil {
			return
		}
	}
	t.Fatalf("the private MariaDB (pid %d) still runs after SIGKILL", srv.PID)
}

// restartServer starts the killed server's directory again (same port) and
// returns how long that took.
func restartServer(t *testing.T, dir string) (*localserver.Server, time.Duration) {
	t.Helper()
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := localserver.Start(ctx, localserver.Options{Flavor: localserver.FlavorMariaDB, Profile: localserver.ProfileCustom, Dir: dir,
		Settings: map[string]string{"innodb_buffer_pool_size": "32M"}})
	if err != nil {
		t.Errorf("restart the private MariaDB: %v", err)
		return nil, 0
	}
	return srv, time.Since(began)
}

// runAgainstKill prepares oltp_point_select on srv, runs it for seconds with
// 2 threads over TCP, and calls kill once the measured phase has run for a
// second. It returns the run and its result.
func runAgainstKill(t *testing.T, srv *localserver.Server, seconds int, kill func()) (cliRun, *result.Result) {
	t.Helper()
	_, tcp := srv.ConnectFlags()
	if r := runCLI(context.Background(), nil, join([]string{"prepare", "oltp_point_select", "--table-size=1000"}, tcp)...); r.code != ExitOK {
		t.Fatalf("prepare: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	out := filepath.Join(t.TempDir(), "r.json")
	done := make(chan cliRun, 1)
	go func() {
		done <- runCLI(context.Background(), nil, join([]string{"run", "oltp_point_select", "--table-size=1000", "--threads=2",
			"--time=" + strconv.Itoa(seconds), "--reconnect-timeout=10m", "--output=" + out}, tcp)...)
	}()
	time.Sleep(time.Second) // the run connects in well under this; the kill lands in the measured phase
	kill()
	r := <-done
	return r, readResult(t, out)
}

// TestRunServerKilledNotRestarted: a server killed mid-run and not back when
// --time ends fails the run (it used to be complete, exit 0): exit 1, status
// failed with what it measured kept, the outage recorded with both threads
// still without a connection, and said on the human output.
func TestRunServerKilledNotRestarted(t *testing.T) {
	t.Parallel() // its own private server: waits on it, beside the other tests
	srv := privateMariaDB(t, filepath.Join(t.TempDir(), "srv"))
	r, res := runAgainstKill(t, srv, 4, func() { killServer(t, srv) })
	if r.code != ExitFailed {
		t.Fatalf("exit %d, want %d (failed)\n%s%s", r.code, ExitFailed, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "2 of 2 threads had no connection when the measured phase ended") {
		t.Errorf("stderr does not say why the run failed:\n%s", r.stderr)
	}
	if !strings.Contains(r.stdout, "WARNING: the server went away") {
		t.Errorf("the human summary does not warn of the outage:\n%s", r.stdout)
	}
	if res.Status != result.StatusFailed || res.Totals.Counts.Events == 0 {
		t.Errorf("result: status %s, %d events; want failed with what ran before the kill", res.Status, res.Totals.Counts.Events)
	}
	if len(res.Outages) != 1 || res.Outages[0].Unrecovered != 2 || res.Outages[0].Threads != 2 {
		t.Fatalf("outages %+v, want one with both threads unrecovered", res.Outages)
	}
	if o := res.Outages[0]; o.Start.Before(res.Start) || o.End().Sub(res.End).Abs() > time.Millisecond {
		t.Errorf("outage %v..%v, want from inside the measured phase %v..%v to its end", o.Start, o.End(), res.Start, res.End)
	}
	if got := res.Options["reconnect-timeout"]; got != "600" {
		t.Errorf("options record reconnect-timeout %q, want 600 (seconds)", got)
	}
}

// TestRunServerKilledAndRestarted: a server killed mid-run and restarted at
// once leaves the run complete, with the reconnects counted and the outage
// recorded and warned about. The measured phase is made long enough (40
// times this machine's restart, plus the reconnect back-off) for the outage
// to stay under 5 % of it, so the test does not depend on the machine's speed.
func TestRunServerKilledAndRestarted(t *testing.T) {
	t.Parallel() // its own private server: waits on it, beside the other tests
	dir := filepath.Join(t.TempDir(), "srv")
	srv := privateMariaDB(t, dir)
	// How long a restart after a kill takes here.
	killServer(t, srv)
	srv, took := restartServer(t, dir)
	if srv == nil {
		t.FailNow()
	}
	seconds := max(10, int(math.Ceil(40*(took.Seconds()+1))))
	t.Logf("a restart took %v: running for %ds", took, seconds)
	r, res := runAgainstKill(t, srv, seconds, func() {
		killServer(t, srv)
		srv, _ = restartServer(t, dir)
	})
	if r.code != ExitOK {
		t.Fatalf("exit %d, want 0\n%s%s", r.code, r.stdout, r.stderr)
	}
	if res.Status != result.StatusComplete {
		t.Fatalf("status %s (%s), want complete", res.Status, res.Error)
	}
	if res.Totals.Counts.Reconnects < 2 {
		t.Errorf("reconnects %d, want both threads' counted", res.Totals.Counts.Reconnects)
	}
	if len(res.Outages) != 1 || res.Outages[0].Unrecovered != 0 || res.Outages[0].Threads != 2 {
		t.Fatalf("outages %+v, want one that both threads survived", res.Outages)
	}
	if res.Outages[0].Seconds <= 0 {
		t.Errorf("outage of %vs", res.Outages[0].Seconds)
	}
	warned := false
	for _, w := range res.Warnings {
		warned = warned || strings.Contains(w, "every thread reconnected and the run counts as complete")
	}
	if !warned || !strings.Contains(r.stdout, "WARNING: the server went away") {
		t.Errorf("warnings %q / output without the outage warning:\n%s", res.Warnings, r.stdout)
	}
}

// TestRunServerStoppedStalls: a private server stopped with SIGSTOP mid-run
// keeps its connections open and answers nothing. The run used to end
// complete with few events; now the stall is recorded and fails the run
// (exit 1, result written), and the calls blocked on the stopped server are
// abandoned at --time, so the run ends soon after it.
func TestRunServerStoppedStalls(t *testing.T) {
	t.Parallel() // its own private server: waits on it, beside the other tests
	srv := privateMariaDB(t, filepath.Join(t.TempDir(), "srv"))
	// Runs before privateMariaDB's cleanup stops the server: a stopped
	// process cannot shut down.
	t.Cleanup(func() { _ = syscall.Kill(srv.PID, syscall.SIGCONT) })
	_, tcp := srv.ConnectFlags()
	if r := runCLI(context.Background(), nil, join([]string{"prepare", "oltp_point_select", "--table-size=1000"}, tcp)...); r.code != ExitOK {
		t.Fatalf("prepare: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	out := filepath.Join(t.TempDir(), "r.json")
	const seconds = 8
	done := make(chan cliRun, 1)
	began := time.Now()
	go func() {
		done <- runCLI(context.Background(), nil, join([]string{"run", "oltp_point_select", "--table-size=1000", "--threads=2",
			"--time=" + strconv.Itoa(seconds), "--reconnect-timeout=2", "--output=" + out}, tcp)...)
	}()
	time.Sleep(time.Second) // the run connects in well under this; the stop lands in the measured phase
	if err := syscall.Kill(srv.PID, syscall.SIGSTOP); err != nil {
		t.Fatalf("stop the private MariaDB: %v", err)
	}
	var r cliRun
	select {
	case r = <-done:
	case <-time.After(seconds*time.Second + 2*time.Minute):
		t.Fatalf("the run has not ended %v after it began (--time=%d): calls blocked on the stopped server were not abandoned", time.Since(began), seconds)
	}
	took := time.Since(began)
	if err := syscall.Kill(srv.PID, syscall.SIGCONT); err != nil {
		t.Errorf("continue the private MariaDB: %v", err)
	}
	if r.code != ExitFailed {
		t.Fatalf("exit %d, want %d (failed)\n%s%s", r.code, ExitFailed, r.stdout, r.stderr)
	}
	res := readResult(t, out)
	if res.Status != result.StatusFailed || !strings.Contains(res.Error, "were still waiting for an answer when the measured phase ended") {
		t.Errorf("result: status %s, error %q; want failed for the stall", res.Status, res.Error)
	}
	if res.Totals.Counts.Events == 0 {
		t.Errorf("no events kept: what ran before the stop must stay in the result")
	}
	if len(res.Outages) != 1 || !res.Outages[0].Stall || res.Outages[0].Unrecovered != 2 {
		t.Fatalf("outages %+v, want one stall with both threads waiting at the end", res.Outages)
	}
	if !strings.Contains(r.stdout, "WARNING: the server stopped answering") {
		t.Errorf("the human summary does not warn of the stall:\n%s", r.stdout)
	}
	// Generous: connecting, the run and writing the result within 15 s of --time.
	if late := took - seconds*time.Second; late > 15*time.Second {
		t.Errorf("the run ended %v after --time (it took %v in all)", late, took)
	}
	t.Logf("the run took %v for --time=%d", took, seconds)
}
