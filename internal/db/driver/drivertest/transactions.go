package drivertest

import (
	"context"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// Transactions loads sbtest1 with 10 rows through c and checks the dialect's
// transaction statements: a rolled-back insert is gone, a committed one stays.
// The insert gets a generated id the way the workload asks for one: it leaves
// the id out when the dialect says InsertOmitsAutoIncrement, else passes 0.
// With idsRollBack (SQLite) it also checks that the rolled-back insert gave its
// id back, so that the committed row is id 11; InnoDB keeps the id it handed
// out. Last, ListTables must list only sbtest1, and DropTable must succeed
// twice.
func Transactions(t *testing.T, d driver.Driver, c driver.Conn, idsRollBack bool) {
	t.Helper()
	ctx := context.Background()
	LoadSbtest(t, d, c, "sbtest1", 10)
	dl := d.Dialect()
	query, args := "INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)", []any{0, 1, "c", "pad"}
	if dl.InsertOmitsAutoIncrement() {
		query, args = "INSERT INTO sbtest1 (k, c, pad) VALUES (?, ?, ?)", args[1:]
	}
	ins, err := c.Prepare(ctx, query)
	if err != nil {
		t.Fatal(err)
	}
	defer ins.Close()
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
		if n, err := ins.Exec(ctx, args...); err != nil || n != 1 {
			t.Fatalf("%s: insert = %d, %v", s.name, n, err)
		}
		if _, err := c.Exec(ctx, s.end); err != nil {
			t.Fatal(err)
		}
		if got := Count(t, c, "sbtest1"); got != s.want {
			t.Errorf("%s: %d rows, want %d", s.name, got, s.want)
		}
		if !idsRollBack {
			continue
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
