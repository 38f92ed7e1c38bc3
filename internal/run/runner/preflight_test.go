package runner

import (
	"context"
	"strings"
	"syscall"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

func TestServerLimitsSayWhatToRaise(t *testing.T) {
	cases := []struct {
		name    string
		kind    string
		lim     serverLimits
		threads int
		want    []string // substrings of the error; none: no error
	}{
		{"fits", driver.KindMySQL, serverLimits{maxConnections: 151, inUse: 10}, 141, nil},
		{"unknown limit", driver.KindMySQL, serverLimits{}, 5000, nil},
		{"mysql too many", driver.KindMySQL, serverLimits{maxConnections: 151, inUse: 10}, 142,
			[]string{"142 threads need 142 connections", "room for 141", "10 already in use", "SET GLOBAL max_connections = 162"}},
		{"mysql per account", driver.KindMySQL, serverLimits{maxConnections: 2000, maxUserConnections: 100}, 200,
			[]string{"max_user_connections = 100", "SET GLOBAL max_user_connections = 210"}},
		{"pgsql reserved", driver.KindPgSQL, serverLimits{maxConnections: 100, reserved: 3, inUse: 1}, 97,
			[]string{"room for 96", "3 reserved for superusers", "ALTER SYSTEM SET max_connections = 111", "restart"}},
		{"pgsql superuser fits", driver.KindPgSQL, serverLimits{maxConnections: 100, inUse: 1}, 99, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.lim.check(tc.kind, tc.threads)
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("check = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("check = nil, want an error with %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("check = %q, want it to contain %q", err, w)
				}
			}
		})
	}
}

func TestFileLimitIsRaisedToTheHardLimit(t *testing.T) {
	var orig syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &orig); err != nil {
		t.Skip(err)
	}
	if orig.Max < 1024 || orig.Max > 1<<20 {
		t.Skipf("hard open file limit %d: cannot test raising below it", orig.Max)
	}
	t.Cleanup(func() { syscall.Setrlimit(syscall.RLIMIT_NOFILE, &orig) })
	low := syscall.Rlimit{Cur: 256, Max: orig.Max}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Skip(err)
	}
	if err := raiseFileLimit(int(orig.Max) - 1); err != nil {
		t.Fatalf("raiseFileLimit(under the hard limit) = %v", err)
	}
	var now syscall.Rlimit
	syscall.Getrlimit(syscall.RLIMIT_NOFILE, &now)
	if now.Cur != orig.Max {
		t.Fatalf("soft limit = %d, want the hard limit %d", now.Cur, orig.Max)
	}
	err := raiseFileLimit(int(orig.Max) + 1)
	if err == nil || !strings.Contains(err.Error(), "ulimit -n ") {
		t.Fatalf("raiseFileLimit(over the hard limit) = %v, want advice to run ulimit -n", err)
	}
}

func TestPreflightReadsTheServersLimits(t *testing.T) {
	ctx := context.Background()
	pg := openDriver(t, testdb.PgSQL(t))
	if err := Preflight(ctx, pg, 2); err != nil {
		t.Fatalf("PostgreSQL, 2 threads: %v", err)
	}
	if err := Preflight(ctx, pg, 15000); err == nil || !strings.Contains(err.Error(), "ALTER SYSTEM SET max_connections") {
		t.Fatalf("PostgreSQL, 15000 threads: %v; want advice to raise max_connections", err)
	}
	my := openDriver(t, testdb.MySQL(t))
	if err := Preflight(ctx, my, 2); err != nil {
		t.Fatalf("MariaDB, 2 threads: %v", err)
	}
	if err := Preflight(ctx, my, 15000); err == nil || !strings.Contains(err.Error(), "SET GLOBAL max_connections") {
		t.Fatalf("MariaDB, 15000 threads: %v; want advice to raise max_connections", err)
	}
	lite := openDriver(t, testdb.SQLite(t))
	if err := Preflight(ctx, lite, 64); err != nil {
		t.Fatalf("SQLite, 64 threads: %v", err)
	}
}
