package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/drivertest"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

func TestConnectCreatesDirectoryAndSetsPragmas(t *testing.T) {
	cfg := sqliteTarget(t, true)
	cfg.Path = filepath.Join(filepath.Dir(cfg.Path), "new", "dir", "bench.db")
	d := openDriver(t, cfg)
	c := drivertest.Connect(t, d, 3)
	if _, err := os.Stat(cfg.Path); err != nil {
		t.Fatalf("database file not created: %v", err)
	}
	cases := []struct{ pragma, want string }{
		{"journal_mode", "wal"},
		{"synchronous", "1"}, // NORMAL
		{"busy_timeout", "10000"},
		{"foreign_keys", "0"},
	}
	for _, tc := range cases {
		rows, err := c.QueryStrings(context.Background(), "PRAGMA "+tc.pragma)
		if err != nil || len(rows) != 1 || rows[0][0] != tc.want {
			t.Errorf("PRAGMA %s = %q, %v; want %s", tc.pragma, rows, err, tc.want)
		}
	}
}

func TestConnectErrorsExplain(t *testing.T) {
	if _, err := New(driver.Config{Kind: driver.KindSQLite}); err == nil || !strings.Contains(err.Error(), "path") {
		t.Errorf("New without a path: %v, want an error that asks for a path", err)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := New(driver.Config{Kind: driver.KindSQLite, Path: filepath.Join(file, "db")})
	if err == nil || !strings.Contains(err.Error(), "writable path") {
		t.Errorf("New under a file: %v, want an error that asks for a writable path", err)
	}
}

func TestStatements(t *testing.T) {
	for _, prepared := range []bool{true, false} {
		t.Run("prepared="+strconv.FormatBool(prepared), func(t *testing.T) {
			d := openDriver(t, sqliteTarget(t, prepared))
			drivertest.Statements(t, d, drivertest.Connect(t, d, 0))
		})
	}
}

func TestTransactionsAndAutoIncrement(t *testing.T) {
	d := openDriver(t, sqliteTarget(t, true))
	// The dialect leaves the id out, SQLite generates the next one, and a
	// rollback gives it back.
	drivertest.Transactions(t, d, drivertest.Connect(t, d, 0), true)
}

func TestTransactionStatementsChangeNoRows(t *testing.T) {
	cfg := testdb.SQLite(t)
	d, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ctx := context.Background()
	c, err := d.Connect(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, q := range []string{"CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER)", "INSERT INTO t (v) VALUES (1), (2), (3)"} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		query string
		want  int64
	}{
		{"BEGIN", 0},
		{"UPDATE t SET v = v + 1", 3},
		{"COMMIT", 0},
		{"  delete FROM t WHERE v = 2", 1},
		{"SAVEPOINT s", 0},
		{"RELEASE s", 0},
	}
	for _, tc := range cases {
		got, err := c.Exec(ctx, tc.query)
		if err != nil || got != tc.want {
			t.Errorf("Exec(%q) = %d, %v; want %d", tc.query, got, err, tc.want)
		}
	}
}

// TestConcurrentConnectsToNewFile: the threads of a run (one Driver) and of
// another process (a second Driver on the same file) all connect at once to a
// new database file; switching it to WAL must not fail any of them with
// SQLITE_BUSY (it did, now and then, under -race).
func TestConcurrentConnectsToNewFile(t *testing.T) {
	base := sqliteTarget(t, true)
	for round := 0; round < 20; round++ {
		cfg := base
		cfg.Path = filepath.Join(filepath.Dir(base.Path), "round"+strconv.Itoa(round), "bench.db")
		drivers := []driver.Driver{openDriver(t, cfg), openDriver(t, cfg)}
		const perDriver = 4
		errs := make(chan error, 2*perDriver)
		for _, d := range drivers {
			for n := 0; n < perDriver; n++ {
				go func(d driver.Driver, n int) {
					c, err := d.Connect(context.Background(), n)
					if err == nil {
						c.Close()
					}
					errs <- err
				}(d, n)
			}
		}
		for i := 0; i < 2*perDriver; i++ {
			if err := <-errs; err != nil {
				t.Fatalf("round %d: concurrent connect to a new file: %v", round, err)
			}
		}
	}
}
