package dbclock_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/db/dbclock"
	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/open"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// TestMeasureAgainstRealServers reads MariaDB's and PostgreSQL's clocks: they
// run on this machine, so the offset must be within the round trip (plus the
// servers' clock resolution of 1 µs).
func TestMeasureAgainstRealServers(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  func(testing.TB) driver.Config
	}{
		{"mariadb", testdb.MySQL},
		{"postgres", testdb.PgSQL},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg(t)
			ctx := context.Background()
			drv, err := open.Driver(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer drv.Close()
			conn, err := drv.Connect(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			query := func(ctx context.Context, q string) ([][]string, error) { return conn.QueryStrings(ctx, q) }
			r, err := dbclock.Measure(ctx, cfg.Kind, query, 5)
			if err != nil {
				t.Fatal(err)
			}
			if r.RoundTrip <= 0 {
				t.Errorf("round trip %s, want > 0", r.RoundTrip)
			}
			if limit := r.RoundTrip + time.Millisecond; r.Offset > limit || r.Offset < -limit {
				t.Errorf("offset %s to a server on this machine, want within the round trip %s", r.Offset, r.RoundTrip)
			}
			if !strings.Contains(r.String(), "this machine's") {
				t.Errorf("String() = %q", r.String())
			}
		})
	}
}

// TestMeasureTakesTheShortestRoundTrip feeds a server clock 5 s ahead whose
// answers are delayed: the offset comes from the fastest sample.
func TestMeasureTakesTheShortestRoundTrip(t *testing.T) {
	delays := []time.Duration{40 * time.Millisecond, 2 * time.Millisecond, 30 * time.Millisecond}
	n := 0
	query := func(ctx context.Context, q string) ([][]string, error) {
		d := delays[n%len(delays)]
		n++
		// The server reads its clock after the request's trip (half the delay).
		time.Sleep(d / 2)
		at := time.Now().Add(5 * time.Second).UTC().Format("2006-01-02T15:04:05.000000Z")
		time.Sleep(d / 2)
		return [][]string{{at}}, nil
	}
	r, err := dbclock.Measure(context.Background(), driver.KindMySQL, query, 3)
	if err != nil {
		t.Fatal(err)
	}
	if r.RoundTrip >= 30*time.Millisecond {
		t.Errorf("round trip %s: not the fastest sample's", r.RoundTrip)
	}
	if off := r.Offset - 5*time.Second; off > r.RoundTrip || off < -r.RoundTrip {
		t.Errorf("offset %s, want 5s within the round trip %s", r.Offset, r.RoundTrip)
	}
	if got := r.Local(time.Unix(100, 0)); !got.Equal(time.Unix(100, 0).Add(-r.Offset)) {
		t.Errorf("Local = %s", got)
	}
}

func TestMeasureErrors(t *testing.T) {
	if _, err := dbclock.Measure(context.Background(), driver.KindSQLite, nil, 3); !errors.Is(err, dbclock.ErrNoServerClock) {
		t.Errorf("SQLite: %v, want ErrNoServerClock", err)
	}
	boom := errors.New("boom")
	failing := func(context.Context, string) ([][]string, error) { return nil, boom }
	if _, err := dbclock.Measure(context.Background(), driver.KindPgSQL, failing, 2); !errors.Is(err, boom) {
		t.Errorf("every sample failing: %v, want the last error", err)
	}
	garbage := func(context.Context, string) ([][]string, error) { return [][]string{{"yesterday"}}, nil }
	if _, err := dbclock.Measure(context.Background(), driver.KindMySQL, garbage, 1); err == nil || !strings.Contains(err.Error(), "yesterday") {
		t.Errorf("an unreadable clock: %v, want it named", err)
	}
}
