package postgres

import (
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// TestBulkInsertFrozen: COPY FREEZE loads into a table truncated in the
// transaction (in text and binary format), and PostgreSQL's refusal outside
// one comes back as an error.
func TestBulkInsertFrozen(t *testing.T) {
	c := connectTo(t, freshDB(t, true))
	ctx := testContext(t)
	fz, ok := c.(driver.FrozenBulkInserter)
	if !ok {
		t.Fatal("the PostgreSQL connection cannot load frozen")
	}
	for _, s := range []string{"CREATE TABLE f (a INTEGER, b NUMERIC)", "CREATE TABLE g (a INTEGER, b CHAR(4))"} {
		if _, err := c.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	rows := func() driver.RowSource { return &sliceRows{rows: [][]any{{int64(1), "2"}, {int64(2), "3"}}} }
	if _, err := fz.BulkInsertFrozen(ctx, "f", []string{"a", "b"}, rows()); err == nil || !strings.Contains(err.Error(), "FREEZE") {
		t.Errorf("COPY FREEZE outside the truncating transaction: %v, want PostgreSQL's refusal", err)
	}
	for _, table := range []string{"f", "g"} { // NUMERIC goes as text, CHAR as binary
		for _, s := range []string{"BEGIN", "TRUNCATE TABLE " + table} {
			if _, err := c.Exec(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
		n, err := fz.BulkInsertFrozen(ctx, table, []string{"a", "b"}, rows())
		if err != nil || n != 2 {
			t.Fatalf("%s: BulkInsertFrozen = %d, %v", table, n, err)
		}
		if _, err := c.Exec(ctx, "COMMIT"); err != nil {
			t.Fatal(err)
		}
		if got := queryOne(t, c, "SELECT count(*) FROM "+table); got != "2" {
			t.Errorf("%s: %s rows after commit", table, got)
		}
	}
}
