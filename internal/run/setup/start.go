package setup

import (
	"context"
	"time"

	"github.com/fairbench/fairbench/internal/db/dbclock"
	"github.com/fairbench/fairbench/internal/record/result"
)

// Whose clock a coordinated start is read on, as results record it
// (result.ClientInfo.Clock) and the run command's --start-clock takes it.
const (
	// ClockServer is the database server's clock, measured from each client
	// (dbclock.Measure), so that the clients' own clocks need not agree.
	ClockServer = "server"
	// ClockLocal is the clock of the machine the client runs on.
	ClockLocal = "local"
)

// ClockSamples are the round trips that measure the server's clock before
// coordinated clients start (dbclock.Measure keeps the shortest).
const ClockSamples = 7

// Start is the moment coordinated clients (or one run given a start time)
// begin, on the database server's clock or on this machine's.
type Start struct {
	// At is the moment; zero: at once.
	At time.Time
	// Clock is whose clock At is read on: ClockServer or ClockLocal.
	Clock string
	// Server is the server's clock as this client measured it; zero on
	// ClockLocal.
	Server dbclock.Reading
}

// Until is how long after now (this machine's clock) the start is: negative
// once it has passed.
func (s Start) Until(now time.Time) time.Duration {
	return s.At.Sub(now.Add(s.Server.Offset))
}

// Client is what a result records of client id of of clients that began
// at s: on the server's clock, with the offset measured and its error bound
// (half the shortest round trip).
func (s Start) Client(id, of int) *result.ClientInfo {
	c := &result.ClientInfo{ID: id, Of: of, StartAt: s.At.UTC(), Clock: s.Clock}
	if s.Clock == ClockServer {
		c.ClockOffsetMs = ms(s.Server.Offset)
		c.ClockErrorMs = ms(s.Server.RoundTrip) / 2
	}
	return c
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Sleep waits d, or returns ctx's error when it ends first.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
