// Package observe answers, for one measured phase, "was this run CPU-bound or
// IO-bound, and how much did the client take?". Begin snapshots the server's
// counters, the machine's CPU times (/proc/stat) and the client's own CPU time
// (getrusage); End snapshots them again and returns the deltas as a
// result.Observed, with derived rates and a one-line verdict; Judge judges it
// again once the server's machines and the run's transactions are known.
// Observer puts these and the server's machines behind one interface
// (ProbeObserver, MachinesObserver, VerdictObserver), which measure.Run
// begins and ends around the measured phase.
//
// The machine figures are those of the machine fairbench runs on: they describe
// the server's machine as well only when the server runs on the same machine.
//
// Observing never fails a run: what cannot be read is left out and noted.
//
// Other processes: each observed machine's CPU share used by processes that
// are neither the client nor the database server (its process and its
// workers of the same name) is user + nice + system less theirs. Above
// result.OtherProcessesLimitPct (10% of the machine) the run was not measured
// on a quiet machine: NoisyWarning says so, and the verdict lines name it.
//
// The verdict, in order of precedence:
//   - commit-bound (log flushes) when the server flushed its redo log or WAL
//     to storage at least 0.5 times per transaction of the run over at least
//     20 transactions (every commit waited for a flush: MySQL/MariaDB with
//     innodb_flush_log_at_trx_commit=1, PostgreSQL with synchronous_commit
//     on, at thread counts that group commit does not merge), or when
//     PostgreSQL spent at least 50% of the phase in WAL syncs (counted with
//     track_wal_io_timing on); a server that flushes once a second
//     (innodb_flush_log_at_trx_commit=2) does not qualify;
//   - IO-bound when the machine's iowait is at least 20% of all CPU time;
//   - IO-bound when the server's buffer-pool hit ratio is below 95% with at least
//     100 disk reads per second (the server reads from storage, even if the
//     machine measured is not the server's; busy CPUs are then mostly serving
//     those reads, so this comes before CPU-bound); with iowait below 5% the
//     line adds that the misses came from the OS page cache, not the disk;
//   - CPU-bound when the machine's CPUs are at least 85% busy
//     (user+nice+system+irq+softirq+steal); "CPU-bound by other processes"
//     when processes other than the client and the server used more than
//     10% of the machine and at least half of its busy time;
//   - otherwise neither: the client, the network or locking may limit;
//   - unknown when the machine's CPU use could not be read and the server does
//     not show IO-bound.
//
// A phase shorter than half a second is not judged: the machine's CPU shares
// count 10 ms clock ticks, too few to tell. Steal time of 5% or more is
// mentioned, as it means the hypervisor takes CPU, and other processes above
// 10% of the machine too. When the counters of a server that has them could
// not be read, the verdict says so and why, since reads missing its cache
// could then not be judged.
package observe

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/record/result"
)

// sampleInterval is how often the gauges are sampled during a phase.
const sampleInterval = time.Second

// queryTimeout bounds every query the probe sends.
const queryTimeout = 10 * time.Second

// serverProbe reads one family of servers.
type serverProbe interface {
	// source names where the counters come from.
	source() string
	// snapshot reads the cumulative counters. A partial snapshot comes with an
	// error saying what is missing.
	snapshot(ctx context.Context, conn driver.Conn) (map[string]int64, error)
	// gauges samples the values that go up and down (nil when there are none).
	gauges(ctx context.Context, conn driver.Conn) (map[string]float64, error)
	// derive fills the derived figures of s from its counters.
	derive(s *result.ObservedServer, seconds float64)
}

// cpuUsage is the CPU time a process used and its largest resident set.
type cpuUsage struct {
	user, system time.Duration
	maxRSS       int64
}

// env is what the probe reads besides the server, injected so that tests can
// replace it.
type env struct {
	fsys     fs.FS                    // root file system: proc/stat
	now      func() time.Time         // wall clock
	usage    func() (cpuUsage, error) // the process's CPU time
	interval time.Duration            // gauge sampling interval
	numCPU   func() int               // fallback CPU count
}

func realEnv() env {
	return env{fsys: os.DirFS("/"), now: time.Now, usage: selfUsage, interval: sampleInterval, numCPU: runtime.NumCPU}
}

// Probe observes one phase. It is made by Begin and finished by End; it is not
// safe for use by several goroutines at once.
type Probe struct {
	env   env
	notes []string

	start      time.Time
	cpuStart   *cpuTimes
	usageStart *cpuUsage

	// clientOnly is set when no server process runs beside the client: a
	// dry run, or SQLite inside fairbench.
	clientOnly bool

	conn      driver.Conn
	server    serverProbe
	snapStart map[string]int64
	// serverNote is why the counters of a server that has them (MySQL family,
	// PostgreSQL) could not be read; the verdict says so.
	serverNote string

	stopSampling chan struct{}
	sampled      chan gaugeSamples

	done *result.Observed
}

// Begin snapshots counters at the start of a measured phase. It never fails: what
// cannot be read is noted in the result. It opens its own connection via
// drv.Connect(ctx, 0) (MySQL-family or PostgreSQL; for SQLite only machine and
// client figures), on which it samples the gauges about once a second until End.
// A nil drv is a run without a server (a dry run): machine and client figures
// only.
func Begin(ctx context.Context, drv driver.Driver, server result.Server) *Probe {
	return begin(ctx, drv, server, realEnv())
}

func begin(ctx context.Context, drv driver.Driver, server result.Server, e env) *Probe {
	p := &Probe{env: e}
	p.beginServer(ctx, drv, server)
	if c, err := readCPUTimes(e.fsys); err != nil {
		p.note(err)
	} else {
		p.cpuStart = &c
	}
	if u, err := e.usage(); err != nil {
		p.note(err)
	} else {
		p.usageStart = &u
	}
	p.start = e.now()
	return p
}

// beginServer connects, takes the first snapshot and starts the sampler.
func (p *Probe) beginServer(ctx context.Context, drv driver.Driver, server result.Server) {
	if drv == nil {
		p.clientOnly = true
		return
	}
	switch drv.Kind() {
	case driver.KindMySQL:
		p.server = mysqlProbe{flavor: server.Flavor}
	case driver.KindPgSQL:
		p.server = &pgProbe{}
	default: // SQLite runs inside fairbench: the client figures are the database's.
		p.clientOnly = true
		return
	}
	cctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	conn, err := drv.Connect(cctx, 0)
	if err != nil {
		p.noteServer(fmt.Errorf("server counters: connect: %w", err))
		p.server = nil
		return
	}
	snap, err := p.server.snapshot(cctx, conn)
	if err != nil {
		p.noteServer(fmt.Errorf("server counters: %w", err))
	}
	if snap == nil {
		conn.Close()
		p.server = nil
		return
	}
	p.conn, p.snapStart = conn, snap
	p.stopSampling = make(chan struct{})
	p.sampled = make(chan gaugeSamples, 1)
	go sampleGauges(context.WithoutCancel(ctx), p.server, conn, p.env.interval, p.stopSampling, p.sampled)
}

func (p *Probe) note(err error) { p.notes = append(p.notes, err.Error()) }

// noteServer notes why the server's counters could not be read.
func (p *Probe) noteServer(err error) {
	p.note(err)
	if p.serverNote == "" {
		p.serverNote = err.Error()
	}
}

// End snapshots again and returns the deltas over the phase; it closes the
// connection. Calling it again returns the same result.
func (p *Probe) End(ctx context.Context) *result.Observed {
	if p == nil {
		return nil
	}
	if p.done != nil {
		return p.done
	}
	end := p.env.now()
	cpuEnd, cpuErr := readCPUTimes(p.env.fsys)
	usageEnd, usageErr := p.env.usage()

	o := &result.Observed{Seconds: end.Sub(p.start).Seconds()}
	if p.cpuStart != nil {
		if cpuErr != nil {
			p.note(cpuErr)
		} else if m, err := cpuUse(*p.cpuStart, cpuEnd); err != nil {
			p.note(err)
		} else {
			o.Machine = m
		}
	}
	if p.usageStart != nil {
		if usageErr != nil {
			p.note(usageErr)
		} else {
			o.Client = p.clientUse(*p.usageStart, usageEnd, o.Seconds, o.Machine)
		}
	}
	if p.clientOnly && o.Client != nil && o.Machine != nil {
		// The other processes of a server's machine are known once the
		// server's process is (Judge).
		o.Machine.OtherProcessesPct = othersOf(o.Machine, o.Client.MachinePct)
	}
	o.Server = p.endServer(ctx, o.Seconds)
	o.Bound, o.Verdict = verdict(o)
	if o.Server == nil && p.serverNote != "" {
		o.Verdict = withUnreadServer(o.Verdict, p.serverNote)
	}
	o.Note = strings.Join(p.notes, "; ")
	p.done = o
	return o
}

// clientUse is the client's CPU use between two readings.
func (p *Probe) clientUse(a, b cpuUsage, seconds float64, m *result.ObservedMachine) *result.ObservedClient {
	c := &result.ObservedClient{
		UserSeconds:   max(b.user-a.user, 0).Seconds(),
		SystemSeconds: max(b.system-a.system, 0).Seconds(),
		MaxRSSBytes:   b.maxRSS,
	}
	cpus := p.env.numCPU()
	if m != nil && m.CPUs > 0 {
		cpus = m.CPUs
	}
	if seconds > 0 && cpus > 0 {
		c.MachinePct = 100 * (c.UserSeconds + c.SystemSeconds) / (seconds * float64(cpus))
	}
	return c
}

// endServer stops the sampler, takes the last snapshot and closes the connection.
func (p *Probe) endServer(ctx context.Context, seconds float64) *result.ObservedServer {
	if p.server == nil {
		return nil
	}
	close(p.stopSampling)
	samples := <-p.sampled
	defer p.conn.Close()

	cctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	// One sample at the end, so that even a short phase has one.
	if g, err := p.server.gauges(cctx, p.conn); err != nil {
		samples.fail(err)
	} else {
		samples.add(g)
	}
	if samples.err != nil {
		p.note(fmt.Errorf("server gauges: %w", samples.err))
	}
	snap, err := p.server.snapshot(cctx, p.conn)
	if err != nil {
		p.note(fmt.Errorf("server counters at the end: %w", err))
	}
	s := &result.ObservedServer{Source: p.server.source(), Gauges: samples.summary()}
	s.Counters = p.deltas(p.snapStart, snap)
	p.server.derive(s, seconds)
	return s
}

// deltas subtracts the snapshots counter by counter. A counter that went
// backwards (a server restart, a statistics reset) is left out and noted.
func (p *Probe) deltas(a, b map[string]int64) map[string]int64 {
	d := make(map[string]int64, len(b))
	var backwards []string
	for name, end := range b {
		start, ok := a[name]
		if !ok {
			continue
		}
		if end < start {
			backwards = append(backwards, name)
			continue
		}
		d[name] = end - start
	}
	if len(backwards) > 0 {
		p.note(fmt.Errorf("server counters went backwards and were left out (server restarted or statistics reset?): %s",
			strings.Join(sortedCopy(backwards), ", ")))
	}
	if len(d) == 0 {
		return nil
	}
	return d
}
