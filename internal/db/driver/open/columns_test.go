package open

import (
	"context"
	"slices"
	"testing"

	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// TestQueryColumnsNamesTheColumns: every driver names a result's columns as
// the query aliases them, with the rows as text (NULL as ""), with and
// without arguments and for a result without rows.
func TestQueryColumnsNamesTheColumns(t *testing.T) {
	for name, cfg := range testdb.All(t) {
		t.Run(name, func(t *testing.T) {
			d, err := Driver(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			ctx := context.Background()
			conn, err := d.Connect(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			cols, rows, err := conn.QueryColumns(ctx, "SELECT 1 AS one, NULL AS empty, ? AS given", int64(42))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(cols, []string{"one", "empty", "given"}) || len(rows) != 1 || !slices.Equal(rows[0], []string{"1", "", "42"}) {
				t.Errorf("columns %q rows %q, want [one empty given] [[1  42]]", cols, rows)
			}
			cols, rows, err = conn.QueryColumns(ctx, "SELECT 1 AS a, 2 AS b WHERE 1 = 0")
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(cols, []string{"a", "b"}) || len(rows) != 0 {
				t.Errorf("no rows: columns %q rows %q, want [a b] and none", cols, rows)
			}
		})
	}
}
