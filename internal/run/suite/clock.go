package suite

import (
	"context"
	"time"

	"github.com/fairbench/fairbench/internal/db/dbclock"
	"github.com/fairbench/fairbench/internal/run/setup"
)

// The clients' clocks differ, so a cell starts at a moment of the database
// server's clock: each client measures its offset to it from the midpoint of
// round trips, and waits for the start in that clock.

// measureClock measures the server's clock against ours (package dbclock)
// from samples round trips.
func (co *coordinator) measureClock(ctx context.Context, samples int) error {
	query := func(ctx context.Context, q string) ([][]string, error) { return co.query(ctx, q) }
	r, err := dbclock.Measure(ctx, co.kind, query, samples)
	if err != nil {
		return err
	}
	co.clock = r
	return nil
}

// waitUntil sleeps until the start (setup.Start, on the server's clock), and
// reports how late this client was when it got there (0 when it waited).
func waitUntil(ctx context.Context, start setup.Start) (time.Duration, error) {
	d := start.Until(time.Now())
	if d <= 0 {
		return -d, nil
	}
	if setup.Sleep(ctx, d) != nil {
		return 0, ErrInterrupted
	}
	return 0, nil
}
