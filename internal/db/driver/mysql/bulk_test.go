package mysql

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/drivertest"
)

var bulkModes = []struct {
	name string
	mode bulkMode
}{
	{"load data", bulkLoadData},
	{"multi-row insert", bulkInsert},
}

func TestBulkInsert10k(t *testing.T) {
	cfg := mysqlTarget(t, true)
	for i, m := range bulkModes {
		t.Run(m.name, func(t *testing.T) {
			d := openDriver(t, cfg)
			d.bulk = m.mode
			c := drivertest.Connect(t, d, 0)
			drivertest.BulkInsert10k(t, d, c, fmt.Sprintf("sbtest%d", i+1))
		})
	}
}

func TestBulkInsertValuesRoundTrip(t *testing.T) {
	cfg := mysqlTarget(t, true)
	when := time.Date(2024, 2, 29, 13, 14, 15, 0, time.UTC)
	tricky := [][]any{
		{int64(1), "tab\there", 1.5, when},
		{int64(2), "line\nbreak \\ back 'quote'", nil, nil},
		{int64(3), []byte(`\N is text`), -0.25, when},
		{int64(4), nil, float64(3), when},
	}
	want := [][]string{
		{"1", "tab\there", "1.50", "2024-02-29 13:14:15"},
		{"2", "line\nbreak \\ back 'quote'", "", ""},
		{"3", `\N is text`, "-0.25", "2024-02-29 13:14:15"},
		{"4", "", "3.00", "2024-02-29 13:14:15"},
	}
	table := driver.Table{Name: "t", Columns: []driver.Column{
		{Name: "id", Type: driver.Integer, NotNull: true},
		{Name: "s", Type: driver.Varchar, Size: 64},
		{Name: "d", Type: driver.Decimal, Size: 6, Scale: 2},
		{Name: "ts", Type: driver.Timestamp},
	}, PrimaryKey: []string{"id"}}
	for _, m := range bulkModes {
		t.Run(m.name, func(t *testing.T) {
			ctx := context.Background()
			d := openDriver(t, cfg)
			d.bulk = m.mode
			c := drivertest.Connect(t, d, 0)
			for _, q := range append([]string{d.Dialect().DropTable("t")}, d.Dialect().CreateTable(table)...) {
				if _, err := c.Exec(ctx, q); err != nil {
					t.Fatal(err)
				}
			}
			n, err := c.BulkInsert(ctx, "t", []string{"id", "s", "d", "ts"}, drivertest.NewFixedRows(tricky))
			if err != nil || n != int64(len(tricky)) {
				t.Fatalf("BulkInsert = %d, %v", n, err)
			}
			got, err := c.QueryStrings(ctx, "SELECT id, s, d, ts FROM t ORDER BY id")
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
				t.Errorf("rows =\n%q\nwant\n%q", got, want)
			}
		})
	}
}

func TestBulkInsertReportsSkippedRows(t *testing.T) {
	d := openDriver(t, mysqlTarget(t, true))
	c := drivertest.Connect(t, d, 0)
	drivertest.LoadSbtest(t, d, c, "sbtest1", 10)
	// LOAD DATA LOCAL turns duplicate keys into warnings; the count must not lie.
	_, err := c.BulkInsert(context.Background(), "sbtest1", drivertest.SbtestColumns(), drivertest.NewSBRows(20))
	if err == nil || !strings.Contains(err.Error(), "stored 10 of 20 rows") {
		t.Fatalf("err = %v, want a report of 10 skipped rows", err)
	}
}

func TestLocalInfileRefusedIsRecognised(t *testing.T) {
	cases := []struct {
		err  error
		want bool
	}{
		{&mysqldrv.MySQLError{Number: 1148}, true},
		{&mysqldrv.MySQLError{Number: 3948}, true},
		{fmt.Errorf("x: %w", &mysqldrv.MySQLError{Number: 4166}), true},
		{&mysqldrv.MySQLError{Number: 1062}, false},
		{errors.New("other"), false},
	}
	for _, tc := range cases {
		if got := localInfileRefused(tc.err); got != tc.want {
			t.Errorf("localInfileRefused(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// BenchmarkBulkInsert loads 200k sysbench rows per iteration with each method
// and reports rows/s.
func BenchmarkBulkInsert(b *testing.B) {
	cfg := mysqlTarget(b, true)
	for _, m := range bulkModes {
		b.Run(m.name, func(b *testing.B) {
			d := openDriver(b, cfg)
			d.bulk = m.mode
			drivertest.BenchBulkInsert(b, d, drivertest.Connect(b, d, 0))
		})
	}
}
