package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver/open"
	"github.com/fairbench/fairbench/internal/record/result"
)

// spinner starts a process that spins on a CPU until the test ends, and
// returns a function that reads the CPU seconds it has used.
func spinner(t *testing.T) func() float64 {
	t.Helper()
	cmd := exec.Command("sh", "-c", "while :; do :; done")
	if err := cmd.Start(); err != nil {
		t.Fatalf("start a spinning process: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
	})
	stat := filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "stat")
	return func() float64 {
		b, err := os.ReadFile(stat)
		if err != nil {
			t.Fatalf("read the spinner's CPU time: %v", err)
		}
		// After "(comm)": state is field 3, utime 14, stime 15, in ticks
		// of USER_HZ (100 on Linux).
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		utime, _ := strconv.ParseFloat(f[11], 64)
		stime, _ := strconv.ParseFloat(f[12], 64)
		return (utime + stime) / 100
	}
}

// TestRunOnABusyMachine: a process spinning beside a run is counted among
// the other processes (not as the client, whose child it is): the result
// records their share, at least the spinner's, and warns; compare marks the
// cell § and names the file.
func TestRunOnABusyMachine(t *testing.T) {
	dir := t.TempDir()
	db := []string{"--db-driver=sqlite", "--sqlite-db=" + filepath.Join(dir, "x.db"), "--table-size=1000"}
	ctx := context.Background()
	if r := runCLI(ctx, nil, join([]string{"prepare", "oltp_point_select"}, db)...); r.code != ExitOK {
		t.Fatalf("prepare: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	spun := spinner(t)
	out := filepath.Join(dir, "busy.json")
	before, began := spun(), time.Now()
	r := runCLI(ctx, nil, join([]string{"run", "oltp_point_select", "--threads=1", "--time=3", "--output=" + out}, db)...)
	spinShare := 100 * (spun() - before) / (time.Since(began).Seconds() * float64(procStatCPUs(t)))
	if r.code != ExitOK {
		t.Fatalf("run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if spinShare <= result.OtherProcessesLimitPct {
		t.Skipf("the spinner got %.0f%% of the machine, too little to flag", spinShare)
	}
	res := readResult(t, out)
	o := res.Observed
	if o == nil || o.Machine == nil || o.Machine.OtherProcessesPct == nil {
		t.Fatalf("observed %+v: no other processes' share", o)
	}
	// The spinner's share is measured over the whole command, the others'
	// over the measured phase: allow a fifth for ticks and the difference.
	if got := *o.Machine.OtherProcessesPct; got < 0.8*spinShare {
		t.Errorf("other processes used %.1f%% of the machine, less than the spinner alone (%.1f%%)", got, spinShare)
	}
	warned := false
	for _, w := range res.Warnings {
		warned = warned || strings.HasPrefix(w, "other processes used ") && strings.Contains(w, "of the machine's CPUs during the measured phase")
	}
	if !warned || !strings.Contains(r.stdout, "WARNING: other processes used ") {
		t.Errorf("no warning of the busy machine: warnings %q\n%s", res.Warnings, r.stdout)
	}
	if !strings.Contains(o.Verdict, "other processes used ") {
		t.Errorf("the verdict does not name the other processes: %q", o.Verdict)
	}

	cmp := runCLI(ctx, nil, "compare", "--format", "md", out)
	if cmp.code != ExitOK {
		t.Fatalf("compare: exit %d\n%s%s", cmp.code, cmp.stdout, cmp.stderr)
	}
	if !strings.Contains(cmp.stdout, "| 1 § |") || !strings.Contains(cmp.stdout, "rows marked § hold 1 run(s) measured while other processes used more than 10 % of a machine's CPUs") ||
		!strings.Contains(cmp.stdout, out) {
		t.Errorf("compare does not mark the busy run and name its file:\n%s", cmp.stdout)
	}
}

// procStatCPUs counts the CPUs of /proc/stat, as the observed machine does.
func procStatCPUs(t *testing.T) int {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		t.Skipf("no /proc/stat: %v", err)
	}
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "cpu") && !strings.HasPrefix(line, "cpu ") {
			n++
		}
	}
	return n
}

// TestCommitBound: a private MariaDB that flushes its redo log with fsync at
// every commit (innodb_flush_log_at_trx_commit=1, innodb_flush_method=fsync,
// its data directory on the test's temporary directory — a real disk here,
// not tmpfs, where fsync would be free) is judged commit-bound on
// oltp_write_only, about one flush per transaction; the same server told to
// flush once a second (SET GLOBAL innodb_flush_log_at_trx_commit=2) is not.
func TestCommitBound(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "srv")
	if tmpfs(t, filepath.Dir(dir)) {
		t.Skip("the temporary directory is tmpfs: fsync costs nothing there (set TMPDIR to a disk)")
	}
	srv := privateMariaDBWith(t, dir, map[string]string{"innodb_flush_log_at_trx_commit": "1", "innodb_flush_method": "fsync"})
	_, tcp := srv.ConnectFlags()
	ctx := context.Background()
	wl := []string{"oltp_write_only", "--table-size=1000", "--tables=1"}
	if r := runCLI(ctx, nil, join([]string{"prepare"}, wl, tcp)...); r.code != ExitOK {
		t.Fatalf("prepare: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	run := func(name string) *result.Result {
		out := filepath.Join(t.TempDir(), name+".json")
		r := runCLI(ctx, nil, join([]string{"run"}, wl, tcp, []string{"--threads=1", "--time=3", "--output=" + out})...)
		if r.code != ExitOK {
			t.Fatalf("run %s: exit %d\n%s%s", name, r.code, r.stdout, r.stderr)
		}
		res := readResult(t, out)
		if res.Observed == nil || res.Observed.Server == nil || res.Observed.Server.LogFlushesPerTxn == nil {
			t.Fatalf("run %s: no log flushes per transaction in %+v", name, res.Observed)
		}
		return res
	}
	flush1 := run("flush1")
	o := flush1.Observed
	if o.Bound != result.BoundCommit || !strings.HasPrefix(o.Verdict, "commit-bound (log flushes): ") {
		t.Errorf("flush=1: bound %q, verdict %q; want commit-bound", o.Bound, o.Verdict)
	}
	perTxn1 := *o.Server.LogFlushesPerTxn
	if perTxn1 < 0.5 {
		t.Errorf("flush=1: %.2f log flushes per transaction, want about 1", perTxn1)
	}

	drv, err := open.Driver(srv.DriverConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer drv.Close()
	conn, err := drv.Connect(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "SET GLOBAL innodb_flush_log_at_trx_commit = 2"); err != nil {
		t.Fatalf("SET GLOBAL innodb_flush_log_at_trx_commit = 2: %v", err)
	}
	conn.Close()
	flush2 := run("flush2")
	o = flush2.Observed
	perTxn2 := *o.Server.LogFlushesPerTxn
	if o.Bound == result.BoundCommit || strings.Contains(o.Verdict, "commit-bound") {
		t.Errorf("flush=2: bound %q, verdict %q; want not commit-bound", o.Bound, o.Verdict)
	}
	if perTxn2 > perTxn1/10 {
		t.Errorf("log flushes per transaction: %.3f at flush=2, %.3f at flush=1; want a tenth or less", perTxn2, perTxn1)
	}
	t.Logf("flush=1: %.0f tps, %.2f flushes per transaction, %s", flush1.Totals.TPS, perTxn1, flush1.Observed.Verdict)
	t.Logf("flush=2: %.0f tps, %.4f flushes per transaction, %s", flush2.Totals.TPS, perTxn2, flush2.Observed.Verdict)
}

// tmpfs reports whether dir is on a tmpfs (or ramfs) file system.
func tmpfs(t *testing.T, dir string) bool {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatalf("statfs %s: %v", dir, err)
	}
	const tmpfsMagic, ramfsMagic = 0x01021994, 0x858458f6
	return st.Type == tmpfsMagic || st.Type == ramfsMagic
}
