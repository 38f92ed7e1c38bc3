package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/testdb"
)

func TestConnectCreatesDirectoryAndSetsPragmas(t *testing.T) {
	cfg := sqliteTarget(t, true)
	cfg.Path = filepath.Join(filepath.Dir(cfg.Path), "new", "dir", "bench.db")
	d := openDriver(t, cfg)
	c := connect(t, d, 3)
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
	if _, err := New(driver.Config{Kind: driver.KindSQLite}); err == nil || !contains(err.Error(), "path") {
		t.Errorf("New without a path: %v, want an error that asks for a path", err)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := New(driver.Config{Kind: driver.KindSQLite, Path: filepath.Join(file, "db")})
	if err == nil || !contains(err.Error(), "writable path") {
		t.Errorf("New under a file: %v, want an error that asks for a writable path", err)
	}
}

func TestStatements(t *testing.T) {
	for _, prepared := range []bool{true, false} {
		t.Run("prepared="+strconv.FormatBool(prepared), func(t *testing.T) {
			ctx := context.Background()
			d := openDriver(t, sqliteTarget(t, prepared))
			c := connect(t, d, 0)
			loadSbtest(t, d, c, "sbtest1", 1000)

			prep := func(q string) driver.Stmt {
				s, err := c.Prepare(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { s.Close() })
				return s
			}
			rangeQ := prep("SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?")
			update := prep("UPDATE sbtest1 SET k=k+1 WHERE id BETWEEN ? AND ?")
			del := prep("DELETE FROM sbtest1 WHERE id=?")

			queries := []struct {
				name   string
				lo, hi any
				want   int
			}{
				{"range of 100", 1, 100, 100},
				{"range past the end", int64(990), int64(2000), 11},
				{"empty range", 5000, 6000, 0},
			}
			for _, q := range queries {
				for round := 0; round < 2; round++ { // the second run reuses the statement
					got, err := rangeQ.Query(ctx, q.lo, q.hi)
					if err != nil || got != q.want {
						t.Errorf("%s: Query = %d, %v; want %d rows", q.name, got, err, q.want)
					}
				}
			}
			execs := []struct {
				name string
				st   driver.Stmt
				args []any
				want int64
			}{
				{"update 10 rows", update, []any{1, 10}, 10},
				{"update nothing", update, []any{5000, 6000}, 0},
				{"delete one", del, []any{5}, 1},
				{"delete it again", del, []any{5}, 0},
			}
			for _, e := range execs {
				got, err := e.st.Exec(ctx, e.args...)
				if err != nil || got != e.want {
					t.Errorf("%s: Exec = %d, %v; want %d", e.name, got, err, e.want)
				}
			}
			if got, err := c.Query(ctx, "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?", 1, 10); err != nil || got != 9 {
				t.Errorf("Conn.Query after delete = %d, %v; want 9", got, err)
			}
			if got, err := c.Exec(ctx, "UPDATE sbtest1 SET pad=? WHERE id=?", "it's \\ new", 7); err != nil || got != 1 {
				t.Errorf("Conn.Exec = %d, %v; want 1", got, err)
			}
			rows, err := c.QueryStrings(ctx, "SELECT pad, NULL FROM sbtest1 WHERE id=?", 7)
			if err != nil || len(rows) != 1 || rows[0][0] != "it's \\ new" || rows[0][1] != "" {
				t.Errorf("QueryStrings = %q, %v; want the pad and an empty NULL", rows, err)
			}
		})
	}
}

func TestTransactionsAndAutoIncrement(t *testing.T) {
	ctx := context.Background()
	d := openDriver(t, sqliteTarget(t, true))
	c := connect(t, d, 0)
	loadSbtest(t, d, c, "sbtest1", 10)
	// The dialect leaves the id out, and SQLite generates the next one.
	ins, err := c.Prepare(ctx, "INSERT INTO sbtest1 (k, c, pad) VALUES (?, ?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	defer ins.Close()
	dl := d.Dialect()
	steps := []struct {
		name  string
		end   string
		want  int
		maxID string
	}{
		{"rollback discards", dl.Rollback(), 10, "10"},
		{"commit keeps", dl.Commit(), 11, "11"},
	}
	for _, s := range steps {
		if _, err := c.Exec(ctx, dl.Begin()); err != nil {
			t.Fatal(err)
		}
		if n, err := ins.Exec(ctx, 1, "c", "pad"); err != nil || n != 1 {
			t.Fatalf("%s: insert = %d, %v", s.name, n, err)
		}
		if _, err := c.Exec(ctx, s.end); err != nil {
			t.Fatal(err)
		}
		if got := count(t, c, "sbtest1"); got != s.want {
			t.Errorf("%s: %d rows, want %d", s.name, got, s.want)
		}
		rows, err := c.QueryStrings(ctx, "SELECT MAX(id) FROM sbtest1")
		if err != nil || rows[0][0] != s.maxID {
			t.Errorf("%s: MAX(id) = %q, %v; want %s", s.name, rows, err, s.maxID)
		}
	}
	tables, err := c.QueryStrings(ctx, dl.ListTables())
	if err != nil || len(tables) != 1 || tables[0][0] != "sbtest1" {
		t.Errorf("ListTables = %q, %v; want only sbtest1", tables, err)
	}
	if _, err := c.Exec(ctx, dl.DropTable("sbtest1")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, dl.DropTable("sbtest1")); err != nil {
		t.Errorf("DropTable twice: %v", err)
	}
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
