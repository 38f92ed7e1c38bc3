package suite

import (
	"context"
	"time"

	"github.com/fairbench/fairbench/internal/db/dbclock"
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
	co.offset, co.rtt = r.Offset, r.RoundTrip
	return nil
}

// serverNow is the server's clock now, by the measured offset.
func (co *coordinator) serverNow() time.Time { return time.Now().Add(co.offset) }

// waitUntil sleeps until the server's clock reads at, and reports how late
// this client was when it got there (0 when it waited).
func (co *coordinator) waitUntil(ctx context.Context, at time.Time) (time.Duration, error) {
	d := time.Until(at.Add(-co.offset))
	if d <= 0 {
		return -d, nil
	}
	if !sleepCtx(ctx, d) {
		return 0, ErrInterrupted
	}
	return 0, nil
}
