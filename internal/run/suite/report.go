package suite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fairbench/fairbench/internal/analysis/usl"
	"github.com/fairbench/fairbench/internal/machine/localserver"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/record/suitedir"
	"github.com/fairbench/fairbench/internal/run/measure"
	"github.com/fairbench/fairbench/internal/run/runner"
	"github.com/fairbench/fairbench/internal/workload"
)

// DryRun prints the expanded matrix, the generated server configurations and
// the estimated duration, without touching any database.
func DryRun(w io.Writer, p *Plan) error {
	cells := p.Expand()
	fmt.Fprintf(w, "Plan %s (%s)\n", p.Name, p.File())
	if p.Description != "" {
		fmt.Fprintf(w, "%s\n", strings.TrimSpace(p.Description))
	}
	if skipped := p.Skipped(); len(skipped) > 0 {
		fmt.Fprintln(w)
		writeSkipped(w, skipped)
	}
	if p.Server != nil {
		for _, prof := range p.profiles() {
			gen, err := p.generateServer(prof)
			if err != nil {
				return err
			}
			pinned := ""
			switch {
			case p.sweep != nil:
				pinned = ", restarted on each CPU set below"
			case gen.CPUList != "":
				pinned = ", every thread on CPUs " + gen.CPUList
			}
			fmt.Fprintf(w, "\nServer %s, profile %s (sized for %s%s):\n%s", p.Server.Flavor, prof, humanBytes(gen.DataBytes), pinned, gen.Config)
		}
		if p.Server.shareNote != "" {
			fmt.Fprintf(w, "\nNote: %s.\n", p.Server.shareNote)
		}
	}
	p.writeSweep(w)
	if c := p.ClientCPUs(); !c.IsZero() {
		switch cpus := p.Run.clientResolved; {
		case c.Rest && !cpus.IsEmpty():
			fmt.Fprintf(w, "\nClient: every thread of fairbench on CPUs %s (client_cpus: rest, the usable CPUs the server's are not)", cpus)
		case c.Rest:
			fmt.Fprint(w, "\nClient: every thread of fairbench on the usable CPUs the server's are not (client_cpus: rest)")
		default:
			fmt.Fprintf(w, "\nClient: every thread of fairbench on CPUs %s", c)
		}
		if p.Run.AllowCPUOverlap {
			fmt.Fprint(w, ", sharing the server's allowed")
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "cell\tworkload\tdata\trand\tthreads\tround\tprofile"
	if p.sweep != nil {
		head += "\tserver cpus"
	}
	fmt.Fprintln(tw, head)
	for _, c := range cells {
		line := fmt.Sprintf("%d\t%s\t%s\t%s\t%d\t%d\t%s", c.Index, c.Workload, c.Data, c.RandType, c.Threads, c.Round, cmpOr(c.Profile, "-"))
		if ss := p.setOf(c); ss.count > 0 {
			line += fmt.Sprintf("\t%s (%s)", ss.label(), ss.cpus)
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
	e := p.estimate(cells)
	fmt.Fprintf(w, "\n%d cells × (%s warm-up + %s measured) = %s\n", e.Cells, p.Run.WarmupTime.D(), p.Run.Time.D(), e.Measured)
	if c := p.Clients; c != nil {
		fmt.Fprintf(w, "%d coordinated clients run every cell together (threads are per client: %d × the thread count in all); each waits at most %s for the others\n",
			c.Count, c.Count, c.Wait.D())
	}
	if e.Sleeps > 0 {
		fmt.Fprintf(w, "change-over sleeps: %s\n", e.Sleeps)
	}
	if e.Warmups > 0 {
		fmt.Fprintf(w, "query warm-ups: %s\n", e.Warmups)
	}
	fmt.Fprintf(w, "estimated duration: %s, plus loading and checksum warm-ups\n", e.Total())
	if notes := shortSweeps(cells); len(notes) > 0 {
		fmt.Fprintf(w, "\n%s\n", strings.Join(notes, "\n"))
	}
	return nil
}

// shortSweeps are the dry run's notes on the sweeps of cells too short for a
// scalability model: one per workload and kind of sweep (thread counts,
// server CPU counts) of at least 2 but fewer than usl.MinPoints distinct
// values, in the order the workloads first run.
func shortSweeps(cells []suitedir.Cell) []string {
	type sweep struct{ threads, cpus []int }
	var order []string
	sweeps := map[string]*sweep{}
	for _, c := range cells {
		s := sweeps[c.Workload]
		if s == nil {
			s = &sweep{}
			sweeps[c.Workload] = s
			order = append(order, c.Workload)
		}
		if !slices.Contains(s.threads, c.Threads) {
			s.threads = append(s.threads, c.Threads)
		}
		if c.ServerCPUs > 0 && !slices.Contains(s.cpus, c.ServerCPUs) {
			s.cpus = append(s.cpus, c.ServerCPUs)
		}
	}
	var notes []string
	for _, wl := range order {
		for _, k := range []struct {
			what string
			n    int
		}{{"thread counts", len(sweeps[wl].threads)}, {"server CPU counts", len(sweeps[wl].cpus)}} {
			if k.n >= 2 && k.n < usl.MinPoints {
				notes = append(notes, fmt.Sprintf("note: %s sweeps %d %s; a scalability model needs at least %d — compare and report will tabulate it without a fitted model",
					wl, k.n, k.what, usl.MinPoints))
			}
		}
	}
	return notes
}

// generateServer returns the configuration a profile would give the plan's
// server; an error is placed at the plan's server key.
func (p *Plan) generateServer(profile string) (*result.ManagedServer, error) {
	gen, err := p.generate(profile)
	if err != nil {
		return nil, p.errAt("server", "profile %s: %v", profile, err)
	}
	return gen, nil
}

// generate is generateServer with localserver's error as it is (a
// *localserver.RoomError for a profile this machine's memory cannot hold).
func (p *Plan) generate(profile string) (*result.ManagedServer, error) {
	flavor, err := localserver.ParseFlavor(p.Server.Flavor)
	if err != nil {
		return nil, err
	}
	prof, err := localserver.ParseProfile(profile)
	if err != nil {
		return nil, err
	}
	gen, err := localserver.Generate(localserver.Options{Flavor: flavor, Profile: prof, Dir: p.Server.Dir, DataBytes: p.dataBytes(), Settings: p.Server.Settings,
		CPUs: p.Server.CPUSet(), MemoryBytes: p.memory})
	if err != nil {
		return nil, err
	}
	return &gen, nil
}

// dataBytes is the largest data set's estimated size.
func (p *Plan) dataBytes() int64 {
	var most int64
	for _, d := range p.Data {
		if wl, _, err := p.newWorkload(p.registry, p.Matrix.Workloads[0], d); err == nil {
			if ds, ok := wl.(workload.Dataset); ok {
				most = max(most, ds.DataBytes())
			}
		}
	}
	return most
}

// Preflight checks what can be checked before anything runs: that the target
// accepts a connection and has room for the largest cell's connections (of
// every coordinated client), and that this process may open as many files
// (runner.Preflight), on the target as measure.Open opens it; or, for a plan that owns its server (started later),
// that the server profiles generate a configuration with room enough.
func Preflight(ctx context.Context, p *Plan, env Env) error {
	if p.Server != nil {
		for _, prof := range p.profiles() {
			gen, err := p.generateServer(prof)
			if err != nil {
				return err
			}
			if err := p.checkConnections(gen.Settings["max_connections"], "server.settings.max_connections"); err != nil {
				return err
			}
		}
		return nil
	}
	cfg, _, err := p.TargetConfig(env.Getenv)
	if err != nil {
		return err
	}
	t, err := measure.Open(ctx, cfg, measure.OpenOptions{})
	var ce *measure.ConnectError
	switch {
	case errors.As(err, &ce):
		return fmt.Errorf("%s: the target %s does not accept a connection: %w; check the plan's target section (host, port, socket, user, db, password_env)", p.File(), cfg.Describe(), ce.Err)
	case err != nil:
		return err
	}
	defer t.Close()
	if err := p.checkConnections(t.Server.Variables["max_connections"], "the server's max_connections"); err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, measure.ConnectTimeout)
	defer cancel()
	if err := runner.Preflight(cctx, t.Driver, p.connectionsPerClient()); err != nil {
		return fmt.Errorf("%s: before the suite starts: %w", p.File(), err)
	}
	return nil
}

// connectionsBeyondThreads are the connections a suite opens besides the
// workers': the probe of server counters and the one for steps; a
// coordinated client also keeps one to the sync table.
const connectionsBeyondThreads = 2

// connectionsPerClient is the most connections one client holds at once.
func (p *Plan) connectionsPerClient() int {
	most := slices.Max(p.Matrix.threadCounts())
	if q := p.Steps.QueryWarmup; q != nil {
		most = max(most, q.Threads)
	}
	most += connectionsBeyondThreads
	if p.Coordinated() {
		most++
	}
	return most
}

// checkConnections refuses a matrix whose thread counts need more connections
// (of all coordinated clients together) than the server allows (limit as the
// server or the profile gives it).
func (p *Plan) checkConnections(limit, what string) error {
	allowed, err := strconv.Atoi(limit)
	if err != nil || allowed <= 0 {
		return nil // unknown: the server will say
	}
	per := p.connectionsPerClient()
	threads := per - connectionsBeyondThreads
	if p.Coordinated() {
		threads--
	}
	if n := p.ClientCount(); n > 1 {
		if need := n * per; need > allowed {
			return p.errAt("matrix.threads", "the matrix needs %d connections (%d clients × (%d threads + %d for the suite)) but %s is %d: raise it to at least %d, or lower the thread counts or clients.count",
				need, n, threads, per-threads, what, allowed, need)
		}
		return nil
	}
	if per > allowed {
		return p.errAt("matrix.threads", "the matrix needs %d connections (%d threads + %d for the suite) but %s is %d: raise it to at least %d, or lower the thread counts", per, threads, per-threads, what, allowed, per)
	}
	return nil
}

// WriteStatus prints a suite's state: the plan, the counts, each cell not yet
// complete, and the tables so far.
func WriteStatus(w io.Writer, m *suitedir.Manifest) {
	counts := m.Counts()
	fmt.Fprintf(w, "Suite %s: %s (%d sessions, last update %s)\n", m.Plan.Name, m.Status, m.Sessions, m.Updated.Format(time.RFC3339))
	fmt.Fprintf(w, "Plan %s (SHA-256 %.12s…, scale %v)\n", m.Plan.File, m.Plan.Hash, m.Plan.Scale)
	if c := m.Client; c != nil {
		fmt.Fprintf(w, "Client %d of %d, run %s; the database server's clock was %+.3f ms from this client's (round trip %.3f ms)\n", c.ID, c.Of, c.RunID, c.ClockOffsetMs, c.ClockRTTMs)
	}
	if mg := m.Merged; mg != nil {
		fmt.Fprintf(w, "Merged from %d clients of run %s:", mg.Clients, mg.RunID)
		for _, f := range mg.From {
			fmt.Fprintf(w, " %d=%s", f.ClientID, f.Dir)
		}
		fmt.Fprintln(w, " (threads are the clients' sum)")
	}
	fmt.Fprintf(w, "Cells: %d complete, %d failed, %d interrupted, %d pending, %d running, of %d\n",
		counts[suitedir.StatusComplete], counts[suitedir.StatusFailed], counts[suitedir.StatusInterrupted], counts[suitedir.StatusPending], counts[suitedir.StatusRunning], len(m.Cells))
	writeSkipped(w, m.Skipped)
	for _, c := range m.Cells {
		if c.Status == suitedir.StatusComplete || c.Status == suitedir.StatusPending {
			continue
		}
		line := fmt.Sprintf("  %d %s: %s", c.Index, c.ID, c.Status)
		if c.Error != "" {
			line += " — " + c.Error
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w)
	WriteTables(w, m)
}

// humanBytes renders a size in binary units.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
