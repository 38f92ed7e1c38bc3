// Package dbclock reads a database server's clock against this machine's.
//
// Clients on several machines that must start together cannot trust their own
// clocks to agree (a pod's node may be off by tens of milliseconds or, without
// NTP, by seconds), but they all reach the same database server. Each client
// measures the offset of the server's clock to its own from the midpoint of
// round trips, keeps the sample with the shortest round trip (its error is at
// most half that round trip), and waits for a start given in the server's clock.
package dbclock

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// QueryFunc runs a query and returns its rows as text (driver.Conn.QueryStrings).
type QueryFunc func(ctx context.Context, query string) ([][]string, error)

// Reading is one measurement of a server's clock.
type Reading struct {
	// Offset is the server's clock minus this machine's.
	Offset time.Duration
	// RoundTrip is the shortest round trip of the samples: the offset is
	// right within half of it.
	RoundTrip time.Duration
}

// ErrNoServerClock is returned for a target without a server of its own (the
// embedded SQLite database runs on this machine's clock).
var ErrNoServerClock = errors.New("the embedded database has no server clock: it runs on this machine")

// NowQuery is the query that reads the server's clock as RFC 3339 in UTC with
// microseconds (kind is driver.KindMySQL or driver.KindPgSQL), or "" for the
// embedded SQLite database.
func NowQuery(kind string) string {
	switch kind {
	case driver.KindPgSQL:
		return `SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
	case driver.KindMySQL:
		return `SELECT DATE_FORMAT(UTC_TIMESTAMP(6), '%Y-%m-%dT%H:%i:%s.%fZ')`
	}
	return ""
}

// Measure reads the server's clock samples times through query and returns
// the offset from the sample with the shortest round trip. It fails only when
// every sample failed, with the last error.
func Measure(ctx context.Context, kind string, query QueryFunc, samples int) (Reading, error) {
	q := NowQuery(kind)
	if q == "" {
		return Reading{}, ErrNoServerClock
	}
	best := Reading{RoundTrip: -1}
	var lastErr error
	for range max(samples, 1) {
		t0 := time.Now()
		rows, err := query(ctx, q)
		rtt := time.Since(t0)
		if err == nil && (len(rows) != 1 || len(rows[0]) != 1) {
			err = fmt.Errorf("the server's clock query returned %d rows", len(rows))
		}
		if err != nil {
			lastErr = fmt.Errorf("reading the server's clock: %w", err)
			if ctx.Err() != nil {
				break
			}
			continue
		}
		server, err := time.Parse(time.RFC3339Nano, rows[0][0])
		if err != nil {
			lastErr = fmt.Errorf("reading the server's clock %q: %w", rows[0][0], err)
			continue
		}
		if best.RoundTrip < 0 || rtt < best.RoundTrip {
			best = Reading{Offset: server.Sub(t0.Add(rtt / 2)), RoundTrip: rtt}
		}
	}
	if best.RoundTrip < 0 {
		return Reading{}, lastErr
	}
	return best, nil
}

// ServerNow is the server's clock now, by the reading.
func (r Reading) ServerNow() time.Time { return time.Now().Add(r.Offset) }

// Local is the moment of this machine's clock when the server's reads at.
func (r Reading) Local(at time.Time) time.Time { return at.Add(-r.Offset) }

// String describes the reading for people: "the server's clock is 12.3 ms
// ahead of this machine's (±0.2 ms)".
func (r Reading) String() string {
	dir, d := "ahead of", r.Offset
	if d < 0 {
		dir, d = "behind", -d
	}
	return fmt.Sprintf("the server's clock is %s %s this machine's (±%s)", ms(d), dir, ms(r.RoundTrip/2))
}

// ms formats d in milliseconds with one decimal.
func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }
