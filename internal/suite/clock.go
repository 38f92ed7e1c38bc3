package suite

import (
	"context"
	"fmt"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
)

// The clients' clocks differ, so a cell starts at a moment of the database
// server's clock: each client measures its offset to it from the midpoint of
// round trips, and waits for the start in that clock.

// serverNowQuery reads the server's clock as RFC 3339 in UTC.
func (co *coordinator) serverNowQuery() string {
	if co.kind == driver.KindPgSQL {
		return `SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
	}
	return `SELECT DATE_FORMAT(UTC_TIMESTAMP(6), '%Y-%m-%dT%H:%i:%s.%fZ')`
}

// measureClock estimates the server's clock minus ours from samples round
// trips: the server's time against the midpoint of the round trip, from the
// sample with the shortest one.
func (co *coordinator) measureClock(ctx context.Context, samples int) error {
	best := time.Duration(-1)
	var lastErr error
	for range samples {
		t0 := time.Now()
		rows, err := co.query(ctx, co.serverNowQuery())
		rtt := time.Since(t0)
		if err == nil && (len(rows) != 1 || len(rows[0]) != 1) {
			err = fmt.Errorf("the server's clock query returned %d rows", len(rows))
		}
		if err != nil {
			lastErr = err
			continue
		}
		server, err := time.Parse(time.RFC3339Nano, rows[0][0])
		if err != nil {
			lastErr = fmt.Errorf("the server's clock %q: %w", rows[0][0], err)
			continue
		}
		if best < 0 || rtt < best {
			best = rtt
			co.offset = server.Sub(t0.Add(rtt / 2))
		}
	}
	if best < 0 {
		return lastErr
	}
	co.rtt = best
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
