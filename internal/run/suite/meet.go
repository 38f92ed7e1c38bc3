package suite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/run/setup"
)

// meet is one meeting point, named point in the table and what in messages:
// this client reports there with payload; the leader waits until every
// client has, runs work with their reports and publishes the decision work
// returns, which the others wait for. work runs on the leader only; when it
// returns an error the decision is not published and meet returns the error.
// Other errors are the meeting failing: a client did not come within
// clients.wait or stopped, or ctx ended (ErrInterrupted).
func (co *coordinator) meet(ctx context.Context, point, what, payload string, work func(reports map[int]string) (decision, error)) (decision, error) {
	if err := co.put(ctx, point, co.id, payload); err != nil {
		return decision{}, co.putError(ctx, err, point)
	}
	if !co.leader() {
		return co.awaitDecision(ctx, point, what)
	}
	stop := co.beat(ctx)
	defer stop()
	reports, err := co.awaitAll(ctx, point, what)
	if err != nil {
		return decision{}, err
	}
	d, err := work(reports)
	if err != nil {
		return d, err
	}
	b, err := json.Marshal(d)
	if err != nil {
		return d, err
	}
	if err := co.put(ctx, point, decisionID, string(b)); err != nil {
		return d, co.putError(ctx, err, point)
	}
	return d, nil
}

// putError explains a failed write at a meeting point.
func (co *coordinator) putError(ctx context.Context, err error, point string) error {
	switch {
	case ctx.Err() != nil:
		return ErrInterrupted
	case errors.Is(err, errTaken):
		return fmt.Errorf("client %d has reported at %q of run %s already: another client runs with --client-id %d, or the run id was used before; "+
			"give every client its own --client-id and start them all again with a new --run-id", co.id, point, co.runID, co.id)
	}
	return err
}

// awaitAll is the leader waiting until every client has reported at point.
func (co *coordinator) awaitAll(ctx context.Context, point, what string) (map[int]string, error) {
	deadline := time.Now().Add(co.wait)
	var lastErr error
	for {
		rows, err := co.rows(ctx, point, pointAbort)
		reports := map[int]string{}
		if err != nil {
			lastErr = err
		}
		for _, r := range rows {
			switch {
			case r.point == pointAbort && r.client != co.id:
				return nil, fmt.Errorf("client %d stopped the run: %s", r.client, r.payload)
			case r.point == point && r.client >= 0 && r.client < co.n:
				reports[r.client] = r.payload
			}
		}
		if len(reports) == co.n {
			return reports, nil
		}
		if time.Now().After(deadline) {
			var missing []string
			for id := range co.n {
				if _, ok := reports[id]; !ok {
					missing = append(missing, strconv.Itoa(id))
				}
			}
			who := "client " + missing[0]
			if len(missing) > 1 {
				who = "clients " + strings.Join(missing, ", ")
			}
			msg := fmt.Sprintf("%s did not reach %s within %s (clients.wait): check that every client runs 'fairbench suite run' with this plan, "+
				"its own --client-id (0 to %d) and --run-id %s, and reaches the database (its output says why it stopped); raise clients.wait if they start later than that",
				who, what, co.wait, co.n-1, co.runID)
			if lastErr != nil {
				msg += fmt.Sprintf(" (reading the sync table last failed: %v)", lastErr)
			}
			return nil, errors.New(msg)
		}
		if setup.Sleep(ctx, co.poll) != nil {
			return nil, ErrInterrupted
		}
	}
}

// awaitDecision is a client other than the leader waiting for the leader's
// decision at point, as long as the leader shows signs of life.
func (co *coordinator) awaitDecision(ctx context.Context, point, what string) (decision, error) {
	lastBeat, lastSign := "", time.Now()
	var lastErr error
	for {
		rows, err := co.rows(ctx, point, pointAbort, pointAlive)
		if err != nil {
			lastErr = err
		}
		for _, r := range rows {
			switch {
			case r.point == point && r.client == decisionID:
				var d decision
				if err := json.Unmarshal([]byte(r.payload), &d); err != nil {
					return d, fmt.Errorf("the leader's decision at %s is not readable (%q): are all clients the same fairbench version?", what, r.payload)
				}
				return d, nil
			case r.point == pointAbort && r.client != co.id:
				return decision{}, fmt.Errorf("client %d stopped the run: %s", r.client, r.payload)
			case r.point == pointAlive && r.client == leaderID && r.payload != lastBeat:
				lastBeat, lastSign = r.payload, time.Now()
			}
		}
		if lastSign.Before(co.busyUntil) {
			lastSign = co.busyUntil
		}
		if time.Since(lastSign) > co.wait {
			msg := fmt.Sprintf("client 0 (the leader) gave no sign of life for %s (clients.wait) while client %d waited at %s: check that client 0 runs "+
				"'fairbench suite run' with this plan and --run-id %s and reaches the database (its output says why it stopped)", co.wait, co.id, what, co.runID)
			if lastErr != nil {
				msg += fmt.Sprintf(" (reading the sync table last failed: %v)", lastErr)
			}
			return decision{}, errors.New(msg)
		}
		if setup.Sleep(ctx, co.poll) != nil {
			return decision{}, ErrInterrupted
		}
	}
}

// checkFresh refuses a run id that an earlier launch used: this client (or
// the leader's decision) reported at its start already, it ended, or it was
// stopped.
func (co *coordinator) checkFresh(ctx context.Context) error {
	rows, err := co.rows(ctx, pointHello, pointEnd, pointAbort)
	if err != nil {
		return fmt.Errorf("reading the sync table: %w", err)
	}
	for _, r := range rows {
		switch {
		case r.point == pointAbort:
			return fmt.Errorf("run %s was stopped earlier (client %d: %s): start every client again with a new --run-id (with --resume to keep the cells done)",
				co.runID, r.client, r.payload)
		case r.point == pointEnd || r.client == co.id || r.client == decisionID:
			return fmt.Errorf("run id %s was used before (its rows are in %s): start every client with a new --run-id (with --resume to keep the cells done); "+
				"a client restarted on its own cannot rejoin a run under way", co.runID, syncTable)
		}
	}
	return nil
}

// end closes the run: every client reports there; the leader waits for the
// others (a missing one is only told) and deletes the run's rows, those of
// stopped and of old runs, and the table once it is empty.
func (co *coordinator) end(ctx context.Context) error {
	if err := co.put(ctx, pointEnd, co.id, ""); err != nil {
		return co.putError(ctx, err, pointEnd)
	}
	if !co.leader() {
		return nil
	}
	_, waitErr := co.awaitAll(ctx, pointEnd, "the end of the run")
	// This run's rows, those of runs that were stopped (their clients have
	// gone; relaunched, they run under a new run id) and old ones.
	done := []any{co.runID}
	if rows, err := co.query(ctx, "SELECT DISTINCT run_id FROM "+syncTable+" WHERE point = ?", pointAbort); err == nil {
		for _, r := range rows {
			done = append(done, r[0])
		}
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(done)), ", ")
	args := append(done, time.Now().Add(-syncRowsKept).Unix())
	if _, err := co.exec(ctx, "DELETE FROM "+syncTable+" WHERE run_id IN ("+marks+") OR written < ?", args...); err != nil {
		return errors.Join(waitErr, fmt.Errorf("deleting the run's rows from %s: %w", syncTable, err))
	}
	if rows, err := co.query(ctx, "SELECT COUNT(*) FROM "+syncTable); err == nil && len(rows) == 1 && rows[0][0] == "0" {
		_, _ = co.exec(ctx, "DROP TABLE IF EXISTS "+syncTable)
	}
	return waitErr
}

// abort tells the others that this client stopped, and why.
func (co *coordinator) abort(ctx context.Context, reason string) {
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := co.put(actx, pointAbort, co.id, reason); err != nil && !errors.Is(err, errTaken) {
		fmt.Fprintf(co.out, "telling the other clients that this one stopped: %v\n", err)
	}
}
