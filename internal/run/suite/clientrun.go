package suite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/machine/sysinfo"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/record/suitedir"
	"github.com/fairbench/fairbench/internal/run/setup"
)

// phaseWait is the Watcher phase of clients meeting.
const phaseWait = "wait for clients"

// cellSync is when a coordinated cell starts; zero for a suite without clients.
type cellSync struct {
	client *result.ClientInfo // recorded in the cell's result
	offset time.Duration      // this client's clock offset to the server's
}

// startClient opens the coordination of a plan with clients (nothing
// otherwise) and records the client and its clock in the manifest.
func (s *session) startClient(ctx context.Context) error {
	if !s.plan.Coordinated() {
		return nil
	}
	cfg, _, err := s.plan.TargetConfig(s.env.Getenv)
	if err != nil {
		return err
	}
	co, err := openCoordinator(ctx, cfg, s.plan, s.opts.Client, s.out)
	if err != nil {
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		return &TargetError{err}
	}
	s.co = co
	s.recordClock()
	role := "the leader: it runs the steps that change data, the others wait for it"
	if !co.leader() {
		role = "client 0 is the leader and runs the steps that change data"
	}
	fmt.Fprintf(s.out, "Client %d of %d (ids 0..%d), run %s; %s. The database server's clock is %+.3f ms from this client's (round trip %.3f ms).\n",
		co.id, co.n, co.n-1, co.runID, role, ms(co.clock.Offset), ms(co.clock.RoundTrip))
	return nil
}

// recordClock keeps the last clock measurement in the manifest.
func (s *session) recordClock() {
	s.m.Client.ClockOffsetMs, s.m.Client.ClockRTTMs = ms(s.co.clock.Offset), ms(s.co.clock.RoundTrip)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// coordErr turns a failed meeting into the error to return.
func coordErr(ctx context.Context, err error) error {
	if ctx.Err() != nil || errors.Is(err, ErrInterrupted) {
		return ErrInterrupted
	}
	var ce *CoordinationError
	if errors.As(err, &ce) {
		return err
	}
	return &CoordinationError{err}
}

// helloReport is what a client reports at the start of the run.
type helloReport struct {
	Plan  string  `json:"plan"` // the plan file's SHA-256
	Scale float64 `json:"scale"`
	Cells int     `json:"cells"`
	Todo  []int   `json:"todo"` // cells not complete in this client's directory
	Host  string  `json:"host"`
}

// agree is the start of a coordinated run: every client reports its plan and
// the cells it has not completed; the leader checks that all run the same
// plan and decides the cells every client runs (those not complete in some
// client, so that resumed clients stay in step).
func (s *session) agree(ctx context.Context) ([]suitedir.Cell, error) {
	if err := s.co.checkFresh(ctx); err != nil {
		return nil, coordErr(ctx, err)
	}
	mine := helloReport{Plan: s.plan.Hash(), Scale: s.opts.Scale, Cells: len(s.m.Cells), Host: sysinfo.LocalMachine().Hostname}
	for _, c := range s.pending() {
		mine.Todo = append(mine.Todo, c.Index)
	}
	payload, err := json.Marshal(mine)
	if err != nil {
		return nil, err
	}
	if !s.co.leader() {
		fmt.Fprintf(s.out, "Waiting for the other clients (at most %s without a sign from client 0)…\n", s.co.wait)
	} else {
		fmt.Fprintf(s.out, "Waiting for the other clients (at most %s)…\n", s.co.wait)
	}
	d, err := s.co.meet(ctx, pointHello, "the start of the run", string(payload), func(reports map[int]string) (decision, error) {
		return s.decideTodo(mine, reports), nil
	})
	if err != nil {
		return nil, coordErr(ctx, err)
	}
	if d.Error != "" {
		return nil, &CoordinationError{errors.New(d.Error)}
	}
	var cells []suitedir.Cell
	for _, i := range d.Todo {
		if i < 1 || i > len(s.m.Cells) {
			return nil, &CoordinationError{fmt.Errorf("the leader chose cell %d of %d: are all clients the same fairbench version?", i, len(s.m.Cells))}
		}
		rec := s.m.Cells[i-1]
		if rec.Status == suitedir.StatusComplete {
			fmt.Fprintf(s.out, "Cell %d (%s) is complete here but not in every client: it runs again with the others (this result is kept as an attempt).\n", i, rec.ID)
		}
		cells = append(cells, rec.Cell)
	}
	return cells, nil
}

// decideTodo is the leader's decision at the start: the union of the cells
// the clients have not completed, or why they cannot run together.
func (s *session) decideTodo(mine helloReport, reports map[int]string) decision {
	todo := slices.Clone(mine.Todo)
	for id := range s.co.n {
		if id == s.co.id {
			continue
		}
		var r helloReport
		if err := json.Unmarshal([]byte(reports[id]), &r); err != nil {
			return decision{Error: fmt.Sprintf("client %d's report is not readable (%v): run the same fairbench version on every client", id, err)}
		}
		switch {
		case r.Plan != mine.Plan:
			return decision{Error: fmt.Sprintf("client %d (%s) runs another plan file (SHA-256 %.12s…, client 0 has %.12s…): give every client the same plan", id, r.Host, r.Plan, mine.Plan)}
		case r.Scale != mine.Scale:
			return decision{Error: fmt.Sprintf("client %d (%s) runs with --scale %v, client 0 with %v: give every client the same --scale", id, r.Host, r.Scale, mine.Scale)}
		case r.Cells != mine.Cells:
			return decision{Error: fmt.Sprintf("client %d (%s) expands the plan to %d cells, client 0 to %d (threads: auto depends on the CPUs): give matrix.threads explicitly or target_cpus", id, r.Host, r.Cells, mine.Cells)}
		}
		todo = append(todo, r.Todo...)
	}
	slices.Sort(todo)
	return decision{Todo: slices.Compact(todo)}
}

// groupSteps runs the steps before a group's cells: the leader prepares and
// warms the data while the others wait, then they record what it did.
func (s *session) groupSteps(ctx context.Context, g group, tg *target) error {
	if s.co == nil {
		return s.prepareData(ctx, g, tg)
	}
	s.opts.Watch.Phase(phaseWait)
	var stepErr error
	waited := time.Now()
	what := fmt.Sprintf("the preparation of data set %s", s.plan.datasetLabel(g.Dataset))
	d, err := s.co.meet(ctx, fmt.Sprintf("prep %d", g.Dataset), what, "", func(map[int]string) (decision, error) {
		first := len(s.m.Steps)
		stepErr = s.prepareData(ctx, g, tg)
		if ctx.Err() != nil {
			return decision{}, ErrInterrupted
		}
		d := decision{Detail: stepsDetail(s.m.Steps[first:])}
		if stepErr != nil {
			d.Error = stepErr.Error()
		}
		return d, nil
	})
	if err != nil {
		return coordErr(ctx, err)
	}
	if s.co.leader() {
		return stepErr
	}
	s.recordLeaderSteps(g, waited, d)
	if d.Error != "" {
		return fmt.Errorf("client 0 (the leader) could not prepare the data set: %s", d.Error)
	}
	return nil
}

// stepsDetail sums up steps for the clients that waited for them.
func stepsDetail(steps []suitedir.StepRecord) string {
	parts := make([]string, 0, len(steps))
	for _, st := range steps {
		text := st.Detail
		if st.Error != "" {
			text = "failed: " + st.Error
		}
		parts = append(parts, st.Name+": "+text)
	}
	return strings.Join(parts, "; ")
}

// recordLeaderSteps records in a waiting client's manifest what the leader did.
func (s *session) recordLeaderSteps(g group, waited time.Time, d decision) {
	rec := suitedir.StepRecord{Name: "leader's steps", Profile: g.Profile, Dataset: g.Dataset, Start: waited.UTC(), Seconds: time.Since(waited).Seconds(),
		Detail: "client 0 ran them: " + cmpOr(d.Detail, "nothing to do"), Error: d.Error}
	s.m.Steps = append(s.m.Steps, rec)
	fmt.Fprintf(s.out, "-- leader's steps (client 0), waited %.1fs: %s\n", rec.Seconds, rec.Detail)
	_ = s.m.Write(s.opts.Dir)
}

// cellStart readies a cell: without clients, the between-cell actions and
// the change-over sleep; with clients, the meeting before the cell (the
// leader runs those steps once all are ready and sets the start) and the wait
// for the start in the server's clock.
func (s *session) cellStart(ctx context.Context, c suitedir.Cell, tg *target) (cellSync, error) {
	if s.co == nil {
		return cellSync{}, s.beforeCell(ctx, c, tg)
	}
	co := s.co
	if err := co.measureClock(ctx, cellClockSamples); err != nil {
		if ctx.Err() != nil {
			return cellSync{}, ErrInterrupted
		}
		fmt.Fprintf(s.out, "   measuring the server's clock failed (%v): keeping the offset measured before, %+.3f ms\n", err, ms(co.clock.Offset))
	}
	s.recordClock()
	s.opts.Watch.Phase(phaseWait)
	var stepErr error
	d, err := co.meet(ctx, fmt.Sprintf("cell %d", c.Index), fmt.Sprintf("cell %d (%s)", c.Index, c.ID), "", func(map[int]string) (decision, error) {
		if stepErr = s.beforeCell(ctx, c, tg); stepErr != nil {
			if ctx.Err() != nil {
				return decision{}, ErrInterrupted
			}
			return decision{Error: stepErr.Error()}, nil
		}
		return decision{Start: co.clock.ServerNow().Add(co.lead).UTC().Round(time.Millisecond)}, nil
	})
	if err != nil {
		return cellSync{}, coordErr(ctx, err)
	}
	if d.Error != "" {
		if co.leader() {
			return cellSync{}, stepErr
		}
		return cellSync{}, fmt.Errorf("client 0 (the leader) could not run the steps before the cell: %s", d.Error)
	}
	start := setup.Start{At: d.Start, Clock: setup.ClockServer, Server: co.clock}
	co.busyUntil = co.clock.Local(d.Start).Add(s.plan.Run.WarmupTime.D() + s.plan.Run.Time.D())
	late, err := waitUntil(ctx, start)
	if err != nil {
		return cellSync{}, err
	}
	if late > 50*time.Millisecond {
		fmt.Fprintf(s.out, "   started %s late: the start (%s, server clock) was read after it had passed\n", late.Round(time.Millisecond), d.Start.Format("15:04:05.000"))
	}
	return cellSync{client: start.Client(co.id, co.n), offset: co.clock.Offset}, nil
}

// cleanupGroup drops the group's data when the plan says so: with clients,
// the leader does once every client is done with the group's cells.
func (s *session) cleanupGroup(ctx context.Context, g group, tg *target) error {
	if !s.plan.Steps.Cleanup {
		return nil
	}
	if s.co == nil {
		s.cleanup(ctx, g, tg)
		return nil
	}
	what := fmt.Sprintf("the cleanup of data set %s", s.plan.datasetLabel(g.Dataset))
	_, err := s.co.meet(ctx, fmt.Sprintf("cleanup %d", g.Dataset), what, "", func(map[int]string) (decision, error) {
		s.cleanup(ctx, g, tg)
		return decision{}, nil
	})
	if err != nil {
		return coordErr(ctx, err)
	}
	return nil
}

// endClient ends a coordinated run: after a run to its end, the meeting at
// the end (the leader then deletes the run's rows); after a failure, the
// abort row that stops the others at once.
func (s *session) endClient(ctx context.Context, runErr error) error {
	co := s.co
	if co == nil {
		return runErr
	}
	defer co.close()
	if runErr == nil && ctx.Err() == nil {
		if err := co.end(ctx); err != nil {
			fmt.Fprintf(s.out, "the end of the run: %v\n", err)
		}
		return nil
	}
	reason := runErr.Error()
	if ctx.Err() != nil || errors.Is(runErr, ErrInterrupted) {
		reason = "it was interrupted (Ctrl-C or a signal); its completed cells are kept"
	}
	co.abort(ctx, reason)
	return runErr
}
