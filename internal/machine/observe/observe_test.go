package observe

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/open"
	"github.com/fairbench/fairbench/internal/machine/sysinfo"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// target opens cfg's driver, creates table t (id, k) and fingerprints the server.
func target(t *testing.T, cfg driver.Config) (driver.Driver, driver.Conn, result.Server) {
	t.Helper()
	ctx := context.Background()
	drv, err := open.Driver(cfg)
	if err != nil {
		t.Fatalf("open %s: %v", cfg.Kind, err)
	}
	t.Cleanup(func() { drv.Close() })
	conn, err := drv.Connect(ctx, 0)
	if err != nil {
		t.Fatalf("connect %s: %v", cfg.Kind, err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := conn.Exec(ctx, "CREATE TABLE t (id INTEGER PRIMARY KEY, k INTEGER NOT NULL)"); err != nil {
		t.Fatalf("create table: %v", err)
	}
	return drv, conn, sysinfo.DetectServer(ctx, cfg.Kind, conn)
}

// insertRows inserts n rows into t in one statement.
func insertRows(t *testing.T, conn driver.Conn, n int) {
	t.Helper()
	var b strings.Builder
	b.WriteString("INSERT INTO t (id, k) VALUES ")
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "(%d,%d)", i, i%7)
	}
	if got, err := conn.Exec(context.Background(), b.String()); err != nil || got != int64(n) {
		t.Fatalf("insert %d rows: %d, %v", n, got, err)
	}
}

// testEnv is an environment whose /proc/stat, clock and CPU time the test sets.
type testEnv struct {
	fsys  fstest.MapFS
	now   time.Time
	usage cpuUsage
}

func (te *testEnv) env() env {
	return env{
		fsys:     te.fsys,
		now:      func() time.Time { return te.now },
		usage:    func() (cpuUsage, error) { return te.usage, nil },
		interval: time.Hour,
		numCPU:   func() int { return 64 },
	}
}

func TestBeginEndExactFigures(t *testing.T) {
	drv, _, server := target(t, testdb.SQLite(t))
	te := &testEnv{
		fsys:  fstest.MapFS{"proc/stat": {Data: []byte(procStatBefore)}},
		now:   time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		usage: cpuUsage{user: time.Second, system: time.Second, maxRSS: 1 << 20},
	}
	p := begin(context.Background(), drv, server, te.env())
	te.fsys["proc/stat"] = &fstest.MapFile{Data: []byte(procStatAfter)}
	te.now = te.now.Add(10 * time.Second)
	te.usage = cpuUsage{user: 3 * time.Second, system: 2 * time.Second, maxRSS: 5 << 20}
	o := p.End(context.Background())

	if o.Seconds != 10 {
		t.Errorf("Seconds = %v, want 10", o.Seconds)
	}
	if o.Server != nil {
		t.Errorf("Server = %+v, want none for SQLite", o.Server)
	}
	if o.Machine == nil || o.Machine.UserPct != 40 || o.Machine.IOWaitPct != 10 || o.Machine.BusyPct != 70 || o.Machine.CPUs != 2 {
		t.Errorf("Machine = %+v, want user 40%%, iowait 10%%, busy 70%% of 2 CPUs", o.Machine)
	}
	// 3 s of CPU over 10 s × 2 CPUs = 15% of the machine.
	want := &result.ObservedClient{UserSeconds: 2, SystemSeconds: 1, MachinePct: 15, MaxRSSBytes: 5 << 20}
	if o.Client == nil || *o.Client != *want {
		t.Errorf("Client = %+v, want %+v", o.Client, want)
	}
	// user 40% + system 15% less the client's 15% (SQLite: the server is the client).
	if m := o.Machine; m == nil || m.OtherProcessesPct == nil || *m.OtherProcessesPct != 40 {
		t.Errorf("Machine = %+v, want other processes 40%%", o.Machine)
	}
	if o.Bound != result.BoundNeither || !strings.HasPrefix(o.Verdict, "neither: CPUs 70% busy, iowait 10%; steal 5% (the hypervisor takes CPU); other processes used 40% of the machine; client used 15% of the machine") {
		t.Errorf("Bound, Verdict = %q, %q", o.Bound, o.Verdict)
	}
	if o.Note != "" {
		t.Errorf("Note = %q, want none", o.Note)
	}
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"seconds":10,`, `"bound":"neither"`, `"machine":{"source":"/proc/stat","cpus":2,"busy_pct":70,`,
		`"iowait_pct":10,`, `"other_processes_pct":40}`, `"client":{"user_seconds":2,"system_seconds":1,"machine_pct":15,"max_rss_bytes":5242880}`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON lacks %s:\n%s", want, b)
		}
	}
	if strings.Contains(string(b), `"server"`) || strings.Contains(string(b), `"note"`) {
		t.Errorf("JSON has an empty server or note:\n%s", b)
	}
	if again := p.End(context.Background()); again != o {
		t.Errorf("a second End returned another result")
	}
}

func TestBeginEndWithoutProc(t *testing.T) {
	drv, _, server := target(t, testdb.SQLite(t))
	te := &testEnv{fsys: fstest.MapFS{}, now: time.Unix(0, 0), usage: cpuUsage{}}
	p := begin(context.Background(), drv, server, te.env())
	te.now = te.now.Add(2 * time.Second)
	te.usage = cpuUsage{user: 640 * time.Millisecond}
	o := p.End(context.Background())
	if o.Machine != nil || !strings.Contains(o.Note, "proc/stat") {
		t.Errorf("Machine, Note = %+v, %q; want none and a note about proc/stat", o.Machine, o.Note)
	}
	// Without /proc/stat the CPU count falls back to numCPU (64): 0.64 s / (2 s × 64).
	if o.Client == nil || o.Client.MachinePct != 0.5 {
		t.Errorf("Client = %+v, want 0.5%% of the machine", o.Client)
	}
	if o.Bound != result.BoundUnknown {
		t.Errorf("Bound = %q, want unknown", o.Bound)
	}
}

func TestClientCPU(t *testing.T) {
	drv, _, server := target(t, testdb.SQLite(t))
	p := Begin(context.Background(), drv, server)
	start, err := selfUsage()
	if err != nil {
		t.Skip(err)
	}
	// Burn at least 30 ms of CPU (measured as CPU time, not wall time).
	sum := sha256.Sum256(nil)
	for {
		for range 1000 {
			sum = sha256.Sum256(sum[:])
		}
		u, _ := selfUsage()
		if u.user+u.system-start.user-start.system >= 30*time.Millisecond {
			break
		}
	}
	o := p.End(context.Background())
	if o.Client == nil || o.Client.UserSeconds+o.Client.SystemSeconds < 0.03 {
		t.Fatalf("Client = %+v, want at least 0.03 s of CPU", o.Client)
	}
	if o.Client.MachinePct <= 0 || o.Client.MaxRSSBytes <= 0 {
		t.Errorf("Client = %+v, want a positive share and max RSS", o.Client)
	}
	if runtime.GOOS == "linux" {
		m := o.Machine
		if m == nil {
			t.Fatalf("Machine = nil on Linux (note %q)", o.Note)
		}
		sum := m.UserPct + m.NicePct + m.SystemPct + m.IOWaitPct + m.IRQPct + m.SoftIRQPct + m.StealPct + m.IdlePct
		// The CPU burnt above is user time, or nice time when the tests
		// run under nice (as scripts/test.sh's may on a shared machine).
		if sum < 99.999 || sum > 100.001 || m.CPUs < 1 || m.UserPct+m.NicePct <= 0 {
			t.Errorf("Machine = %+v: shares add up to %v, want 100 with some user (or nice) time", m, sum)
		}
	}
	if o.Server != nil || o.Verdict == "" {
		t.Errorf("Server, Verdict = %+v, %q; want no server and a verdict", o.Server, o.Verdict)
	}
}

func TestMySQLCounters(t *testing.T) {
	drv, conn, server := target(t, testdb.MySQL(t))
	ctx := context.Background()
	p := begin(ctx, drv, server, withInterval(10*time.Millisecond))
	insertRows(t, conn, 500)
	if n, err := conn.Query(ctx, "SELECT * FROM t WHERE k >= 0"); err != nil || n != 500 {
		t.Fatalf("select: %d, %v", n, err)
	}
	waitJudged()
	o := p.End(ctx)
	if o.Note != "" {
		t.Errorf("Note = %q, want none", o.Note)
	}
	s := o.Server
	if s == nil {
		t.Fatal("Server = nil")
	}
	if s.Source != "SHOW GLOBAL STATUS" {
		t.Errorf("Source = %q", s.Source)
	}
	if s.Counters["Handler_write"] < 500 {
		t.Errorf("Handler_write delta = %d, want ≥ 500 (counters %v)", s.Counters["Handler_write"], s.Counters)
	}
	if n, ok := s.Counters["Innodb_rows_inserted"]; ok && n < 500 { // MySQL has it, MariaDB not
		t.Errorf("Innodb_rows_inserted delta = %d, want ≥ 500", n)
	}
	if s.Counters["Questions"] < 2 || s.Counters["Bytes_received"] <= 0 {
		t.Errorf("Questions, Bytes_received = %d, %d; want ≥ 2 and > 0", s.Counters["Questions"], s.Counters["Bytes_received"])
	}
	if s.RowsChangedPerSec == nil || *s.RowsChangedPerSec <= 0 || s.RowsReadPerSec == nil || *s.RowsReadPerSec <= 0 {
		t.Errorf("rows changed/read per second = %v, %v; want positive", s.RowsChangedPerSec, s.RowsReadPerSec)
	}
	if s.BufferPoolHitPct == nil || *s.BufferPoolHitPct < 0 || *s.BufferPoolHitPct > 100 {
		t.Errorf("BufferPoolHitPct = %v, want a percentage", s.BufferPoolHitPct)
	}
	if g, ok := s.Gauges["Threads_running"]; !ok || g.Samples < 1 || g.Max < g.Mean {
		t.Errorf("Threads_running gauge = %+v, want at least one sample", g)
	}
	checkBound(t, o)
}

func TestPgSQLCounters(t *testing.T) {
	drv, conn, server := target(t, testdb.PgSQL(t))
	ctx := context.Background()
	p := begin(ctx, drv, server, withInterval(10*time.Millisecond))
	insertRows(t, conn, 500)
	// Backends publish their statistics at most once a second; make this one publish now.
	if _, err := conn.Query(ctx, "SELECT pg_stat_force_next_flush()"); err != nil {
		t.Fatal(err)
	}
	waitJudged()
	o := p.End(ctx)
	if o.Note != "" {
		t.Errorf("Note = %q, want none", o.Note)
	}
	s := o.Server
	if s == nil {
		t.Fatal("Server = nil")
	}
	if s.Source != "pg_stat_database, pg_stat_bgwriter, pg_stat_wal, pg_current_wal_lsn()" {
		t.Errorf("Source = %q", s.Source)
	}
	if s.Counters["tup_inserted"] < 500 {
		t.Errorf("tup_inserted delta = %d, want ≥ 500 (counters %v)", s.Counters["tup_inserted"], s.Counters)
	}
	if s.Counters["xact_commit"] < 1 || s.Counters[pgWALBytes] <= 0 {
		t.Errorf("xact_commit, wal_bytes = %d, %d; want ≥ 1 and > 0", s.Counters["xact_commit"], s.Counters[pgWALBytes])
	}
	for _, name := range []string{"blks_read", "blks_hit", "buffers_clean", "checkpoints_req", "wal_sync", "wal_records"} {
		if _, ok := s.Counters[name]; !ok {
			t.Errorf("counter %s missing from %v", name, s.Counters)
		}
	}
	if s.RowsChangedPerSec == nil || *s.RowsChangedPerSec <= 0 || s.LogBytesPerSec == nil || *s.LogBytesPerSec <= 0 || s.BytesWrittenPerSec == nil {
		t.Errorf("rows changed/s, log bytes/s, bytes written/s = %v, %v, %v; want the first two positive, the third present",
			s.RowsChangedPerSec, s.LogBytesPerSec, s.BytesWrittenPerSec)
	}
	if g, ok := s.Gauges["active_backends"]; !ok || g.Samples < 1 {
		t.Errorf("active_backends gauge = %+v, want at least one sample", g)
	}
	checkBound(t, o)
}

func TestServerUnreachable(t *testing.T) {
	cfg := testdb.MySQLServer()
	cfg.Ports = []int{1} // nothing listens there
	drv, err := open.Driver(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer drv.Close()
	p := Begin(context.Background(), drv, result.Server{Flavor: "MySQL"})
	o := p.End(context.Background())
	if o.Server != nil || !strings.Contains(o.Note, "server counters: connect") {
		t.Errorf("Server, Note = %+v, %q; want none and a note about the connection", o.Server, o.Note)
	}
	if o.Client == nil || o.Verdict == "" {
		t.Errorf("Client, Verdict = %+v, %q; want the client figures and a verdict all the same", o.Client, o.Verdict)
	}
	// The verdict itself says that the server's side was not judged.
	if !strings.Contains(o.Verdict, "the server's counters could not be read (server counters: connect") {
		t.Errorf("Verdict = %q; want it to say the server's counters could not be read", o.Verdict)
	}
}

func TestDeriveWithoutInnoDB(t *testing.T) {
	// TiDB's SHOW GLOBAL STATUS has none of the InnoDB counters: nothing is derived.
	s := &result.ObservedServer{Counters: map[string]int64{"Questions": 10}}
	mysqlProbe{flavor: "TiDB"}.derive(s, 10)
	if s.BufferPoolHitPct != nil || s.DiskReadsPerSec != nil || s.RowsReadPerSec != nil || s.RowsChangedPerSec != nil {
		t.Errorf("derived %+v from no InnoDB counters", s)
	}
	// MariaDB: no Innodb_rows_*, so Rows_read and Handler_* stand in.
	s = &result.ObservedServer{Counters: map[string]int64{
		"Rows_read": 100, "Handler_write": 30, "Handler_update": 20, "Handler_delete": 10,
		"Innodb_buffer_pool_reads": 5, "Innodb_buffer_pool_read_requests": 100,
	}}
	mysqlProbe{}.derive(s, 10)
	if *s.RowsReadPerSec != 10 || *s.RowsChangedPerSec != 6 || *s.BufferPoolHitPct != 95 || *s.DiskReadsPerSec != 0.5 {
		t.Errorf("derived read %v changed %v hit %v reads %v; want 10, 6, 95, 0.5",
			*s.RowsReadPerSec, *s.RowsChangedPerSec, *s.BufferPoolHitPct, *s.DiskReadsPerSec)
	}
}

func TestDeltas(t *testing.T) {
	p := &Probe{}
	d := p.deltas(map[string]int64{"a": 10, "b": 5, "c": 7}, map[string]int64{"a": 15, "b": 1, "d": 3})
	if len(d) != 1 || d["a"] != 5 {
		t.Errorf("deltas = %v, want a: 5 only", d)
	}
	if len(p.notes) != 1 || !strings.Contains(p.notes[0], "went backwards") || !strings.Contains(p.notes[0], ": b") {
		t.Errorf("notes = %q, want one naming b", p.notes)
	}
}

func TestParseLSN(t *testing.T) {
	if n, err := parseLSN("16/B374D848"); err != nil || n != 0x16_B374D848 {
		t.Errorf("parseLSN = %#x, %v", n, err)
	}
	if _, err := parseLSN("garbage"); err == nil {
		t.Error("parseLSN(garbage) did not fail")
	}
}

// waitJudged lets the phase last long enough to be judged.
func waitJudged() { time.Sleep(time.Duration(minJudgedSeconds * float64(time.Second))) }

func withInterval(d time.Duration) env {
	e := realEnv()
	e.interval = d
	return e
}

func checkBound(t *testing.T, o *result.Observed) {
	t.Helper()
	if runtime.GOOS != "linux" {
		return
	}
	switch o.Bound {
	case result.BoundCPU, result.BoundIO, result.BoundNeither:
	default:
		t.Errorf("Bound = %q (verdict %q), want cpu, io or neither on Linux", o.Bound, o.Verdict)
	}
}
