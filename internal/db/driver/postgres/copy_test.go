package postgres

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// sliceRows is a RowSource over fixed rows.
type sliceRows struct {
	rows [][]any
	i    int
}

func (r *sliceRows) Next() bool             { r.i++; return r.i <= len(r.rows) }
func (r *sliceRows) Values() ([]any, error) { return r.rows[r.i-1], nil }
func (r *sliceRows) Err() error             { return nil }

func TestBulkInsertRoundTripsEveryType(t *testing.T) {
	c := connectTo(t, freshDB(t, true))
	ctx := testContext(t)
	ts := time.Date(2024, 2, 29, 13, 4, 5, 123456000, time.FixedZone("X", 3600))
	columns := []driver.Column{
		{Name: "a", Type: driver.Integer},
		{Name: "b", Type: driver.SmallInt},
		{Name: "c", Type: driver.BigInt},
		{Name: "d", Type: driver.Char, Size: 4},
		{Name: "e", Type: driver.Varchar, Size: 24},
		{Name: "g", Type: driver.Float},
		{Name: "h", Type: driver.Timestamp},
	}
	row := []any{int64(-7), 12, int64(math.MaxInt64), "ab", "tab\tnl\n\\'", 2.5, ts}
	nulls := []any{nil, nil, nil, []byte(nil), nil, nil, nil}
	want := [][]string{
		{"-7", "12", "9223372036854775807", "ab  ", "tab\tnl\n\\'", "2.5", "2024-02-29 13:04:05.123456"},
		{"", "", "", "", "", "", ""},
	}
	cases := []struct {
		name   string
		extra  []driver.Column
		values []any
	}{
		{"binary", nil, nil},
		{"text, for a decimal column", []driver.Column{{Name: "f", Type: driver.Decimal, Size: 10, Scale: 2}}, []any{"3.25"}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			table := driver.Table{Name: "types" + string(rune('a'+i)), Columns: append(append([]driver.Column(nil), columns...), tc.extra...)}
			if _, err := c.Exec(ctx, (Dialect{}).CreateTable(table)[0]); err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, col := range table.Columns {
				names = append(names, col.Name)
			}
			rows := &sliceRows{rows: [][]any{append(append([]any(nil), row...), tc.values...), append(append([]any(nil), nulls...), make([]any, len(tc.values))...)}}
			if n, err := c.BulkInsert(ctx, table.Name, names, rows); err != nil || n != 2 {
				t.Fatalf("BulkInsert: %d, %v", n, err)
			}
			got, err := c.QueryStrings(ctx, "SELECT a, b, c, d, e, g, h FROM "+table.Name+" ORDER BY a NULLS LAST")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("loaded rows = %q, want %q", got, want)
			}
		})
	}
}

func TestBulkInsertErrors(t *testing.T) {
	c := connectTo(t, freshDB(t, true))
	ctx := testContext(t)
	_, err := c.BulkInsert(ctx, "no_such_table", []string{"a"}, &sliceRows{})
	if !errors.Is(err, driver.ErrTableMissing) {
		t.Errorf("BulkInsert into a missing table: %v, want ErrTableMissing", err)
	}
	if _, err := c.Exec(ctx, "CREATE TABLE small (a SMALLINT)"); err != nil {
		t.Fatal(err)
	}
	_, err = c.BulkInsert(ctx, "small", []string{"a"}, &sliceRows{rows: [][]any{{int64(1)}, {int64(40000)}}})
	if err == nil || !strings.Contains(err.Error(), "out of range for SMALLINT") {
		t.Errorf("BulkInsert of an out-of-range value: %v", err)
	}
	if n, err := c.Query(ctx, "SELECT 1"); err != nil || n != 1 {
		t.Errorf("connection after a failed COPY: %d, %v", n, err)
	}
}
