package suite

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/fairbench/fairbench/internal/base/progress"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/record/suitedir"
	"github.com/fairbench/fairbench/internal/run/runner"
	"github.com/fairbench/fairbench/internal/run/warmup"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/randgen"
)

// prepareData loads the group's data set (or reuses it), then runs the
// checksum and query warm-ups. A data set this session prepared already (a
// server_cpus sweep restarted the server on it) is warmed again, not prepared.
func (s *session) prepareData(ctx context.Context, g group, tg *target) error {
	p := s.plan
	d := p.Data[g.Dataset]
	wl, _, err := p.newWorkload(s.env.Registry, p.Matrix.Workloads[0], d)
	if err != nil {
		return err
	}
	key := dataKey{g.Profile, g.Dataset}
	if s.prepared[key] {
		fmt.Fprintf(s.out, "-- prepare: the data set is loaded already; the server was restarted on %s\n", p.setOf(g.Cells[0]).describe())
	} else {
		if err := s.step(g, "prepare", func() (string, error) { return s.prepare(ctx, wl, d, tg) }); err != nil {
			return err
		}
		if s.prepared == nil {
			s.prepared = map[dataKey]bool{}
		}
		s.prepared[key] = true
	}
	if ds, ok := wl.(workload.Dataset); ok && p.Steps.ChecksumWarmup {
		err := s.step(g, "checksum warm-up", func() (string, error) {
			prog := warmup.NewProgress()
			stop := s.display().Start(ctx, prog.Line)
			rep, err := warmup.Run(ctx, tg.Driver, tg.Server, ds.Tables(), prepThreads(d), s.stepLog, prog)
			stop()
			return rep.String(), err
		})
		if err != nil {
			return err
		}
	}
	if q := p.Steps.QueryWarmup; q != nil {
		return s.step(g, "query warm-up", func() (string, error) { return s.queryWarmup(ctx, q, d, tg) })
	}
	return nil
}

// prepare loads the data set as steps.prepare says and tells what it did.
func (s *session) prepare(ctx context.Context, wl workload.Workload, d Data, tg *target) (string, error) {
	mode := s.plan.Steps.Prepare
	conn, err := tg.Driver.Connect(ctx, 0)
	if err != nil {
		return "", fmt.Errorf("connect: %w", err)
	}
	missing, err := wl.Missing(ctx, conn, tg.Driver.Dialect())
	ok, why := missing.None(), missing.String()+" missing"
	if r, isReusable := wl.(workload.Reusable); err == nil && ok && isReusable {
		ok, why, err = r.Matches(ctx, conn, tg.Driver.Dialect())
	}
	conn.Close()
	if err != nil {
		return "", fmt.Errorf("looking at the data already there: %w", err)
	}
	switch {
	case mode == PrepareSkip && !ok:
		return "", fmt.Errorf("steps.prepare is skip, but the data set is not there (%s): use prepare: reuse to load it", why)
	case mode == PrepareSkip:
		return "data set present, not checked further (prepare: skip)", nil
	case mode == PrepareReuse && ok:
		return "reusing the matching data set already loaded", nil
	}
	randType, randWhy := s.stepRandType()
	rng, err := s.newRand(randType, false)
	if err != nil {
		return "", err
	}
	prog := workload.NewProgress(0)
	start := time.Now()
	stop := s.display().Start(ctx, func() string { return prog.Line("loaded", progress.Rows) })
	err = wl.Prepare(ctx, workload.PrepareEnv{Driver: tg.Driver, Threads: prepThreads(d), Rand: rng, Replace: true, Log: s.stepLog, Progress: prog})
	stop()
	if err != nil {
		return "", fmt.Errorf("loading the data set: %w", err)
	}
	done, _, _ := prog.Snapshot()
	secs := time.Since(start).Seconds()
	detail := fmt.Sprintf("loaded %d rows in %.1fs (%.0f rows/s), values drawn with rand type %s (%s)", done, secs, float64(done)/max(secs, 1e-9), randType, randWhy)
	if mode == PrepareReuse && missing.Count < len(tablesOf(wl)) {
		detail += "; the data there did not match (" + why + ")"
	}
	return detail, nil
}

// tablesOf names a workload's tables (none when it does not say).
func tablesOf(wl workload.Workload) []string {
	if ds, ok := wl.(workload.Dataset); ok {
		return ds.Tables()
	}
	return nil
}

// queryWarmup runs the plan's unmeasured warm-up workload.
func (s *session) queryWarmup(ctx context.Context, q *QueryWarmup, d Data, tg *target) (string, error) {
	wl, _, err := s.plan.newWorkload(s.env.Registry, q.Workload, d)
	if err != nil {
		return "", err
	}
	randType, why := s.stepRandType()
	rng, err := s.newRand(randType, false)
	if err != nil {
		return "", err
	}
	rcfg := s.runnerConfig(q.Threads, q.Time.D(), 0, tg)
	// One display for the connections opening, then the time run so far.
	disp := s.display()
	var began atomic.Int64 // when the warm-up's events began (Unix ns; 0: not yet)
	total := int64(q.Time.D().Seconds())
	stop := disp.Start(ctx, func() string {
		b := began.Load()
		if b == 0 {
			return "" // the runner shows the connections opening meanwhile
		}
		secs := min(int64(time.Since(time.Unix(0, b)).Seconds()), total)
		return progress.Line("query warm-up", progress.Seconds, secs, total, 0)
	})
	out := runner.Run(ctx, rcfg, runner.Deps{Driver: tg.Driver, Workload: wl, Rand: rng, Progress: disp,
		OnMeasure: func() { began.Store(time.Now().UnixNano()) }})
	stop()
	switch out.Status {
	case result.StatusInterrupted:
		return "", ErrInterrupted
	case result.StatusFailed:
		return "", fmt.Errorf("query warm-up with %s: %w", q.Workload, out.Err)
	}
	return fmt.Sprintf("%s, %d threads, %.0fs, rand type %s (%s): %d events (%.1f/s)", q.Workload, q.Threads, out.Totals.Seconds, randType, why, out.Totals.Counts.Events, out.Totals.TPS), nil
}

// stepRandType is the distribution that the steps shared by all of a data
// set's cells (loading, query warm-up) draw from, and why: the plan's one
// rand type, or with several the default (uniform), which touches every row
// alike, rather than whichever the plan happens to list first.
func (s *session) stepRandType() (randType, why string) {
	rts := s.plan.Matrix.RandTypes
	if len(rts) == 1 {
		return rts[0], "the plan's rand type"
	}
	return randgen.DefaultConfig().Type, fmt.Sprintf("the default: the plan's cells use %s", strings.Join(rts, ", "))
}

// beforeCell runs the between-cell actions and the change-over sleep.
func (s *session) beforeCell(ctx context.Context, c suitedir.Cell, tg *target) error {
	prev := s.lastRun
	s.lastRun = &c
	if prev == nil || !sameGroup(*prev, c) {
		return nil
	}
	for _, a := range s.plan.Steps.BetweenCells {
		if err := s.action(ctx, a, tg); err != nil {
			return err
		}
	}
	if s.plan.sleepsBefore(*prev, c) {
		d := s.plan.Steps.ChangeoverSleep.D()
		s.opts.Watch.Phase("sleep")
		fmt.Fprintf(s.out, "   change-over sleep %s\n", d)
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ErrInterrupted
		case <-t.C:
		}
	}
	return nil
}

// action runs one between-cell action. Actions that cannot apply here (no
// binary log, not root) are skipped with a note; a failing SQL statement is an
// error.
func (s *session) action(ctx context.Context, a Action, tg *target) error {
	switch {
	case a.DropCaches:
		if os.Geteuid() != 0 {
			fmt.Fprintln(s.out, "   drop_caches skipped: it needs root")
			return nil
		}
		syscall.Sync()
		if err := os.WriteFile("/proc/sys/vm/drop_caches", []byte("3\n"), 0); err != nil {
			fmt.Fprintf(s.out, "   drop_caches skipped: %v\n", err)
		}
		return nil
	case a.PurgeBinaryLogs:
		err := s.exec(ctx, tg, "PURGE BINARY LOGS BEFORE NOW()")
		if err != nil && tg.Driver.Describe(err).Code == "1381" { // binary logging is off
			fmt.Fprintln(s.out, "   purge_binary_logs skipped: the server keeps no binary log")
			return nil
		}
		return err
	default:
		if err := s.exec(ctx, tg, a.SQL); err != nil {
			return fmt.Errorf("between-cell sql %q: %w", a.SQL, err)
		}
		return nil
	}
}

// exec runs one statement on a connection of its own.
func (s *session) exec(ctx context.Context, tg *target, sql string) error {
	conn, err := tg.Driver.Connect(ctx, 0)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close()
	_, err = conn.Exec(ctx, sql)
	return err
}
