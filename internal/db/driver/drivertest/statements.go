package drivertest

import (
	"context"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// Statements loads sbtest1 with 1000 rows through c and checks what the OLTP
// workload relies on: Stmt.Query counts the rows of a range (twice, the second
// time reusing the statement) and Stmt.Drain receives them all, Stmt.Exec
// counts the rows an UPDATE or DELETE changed, Conn.Query and Conn.Exec do the same for text with arguments, and
// QueryStrings returns a quoted string as stored and NULL as "".
func Statements(t *testing.T, d driver.Driver, c driver.Conn) {
	t.Helper()
	ctx := context.Background()
	LoadSbtest(t, d, c, "sbtest1", 1000)

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
		// Drain receives the whole result: the statement and the connection are
		// ready for the next one (a row left unread would be taken for its reply).
		if err := rangeQ.Drain(ctx, q.lo, q.hi); err != nil {
			t.Errorf("%s: Drain: %v", q.name, err)
		}
		if got, err := rangeQ.Query(ctx, 1, 3); err != nil || got != 3 {
			t.Errorf("%s: Query after Drain = %d, %v; want 3 rows", q.name, got, err)
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
		t.Errorf("QueryStrings = %q, %v; want the quoted pad and an empty NULL", rows, err)
	}
}
