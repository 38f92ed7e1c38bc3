package drivertest

import (
	"context"
	"strconv"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// BenchPointSelect measures Stmt.Query of sysbench's point select on a live
// connection, with prepared statements and without; run with -benchmem to see
// allocs/op. newDriver is the driver package's constructor and cfg a fresh
// database, into which it loads sbtest1 with 1000 rows first.
func BenchPointSelect[D driver.Driver](b *testing.B, newDriver func(driver.Config) (D, error), cfg driver.Config) {
	setup := Open(b, newDriver, cfg)
	LoadSbtest(b, setup, Connect(b, setup, 0), "sbtest1", 1000)
	for _, prepared := range []bool{true, false} {
		b.Run("prepared="+strconv.FormatBool(prepared), func(b *testing.B) {
			cfg.Prepared = prepared
			ctx, s := benchStmt(b, newDriver, cfg, "SELECT c FROM sbtest1 WHERE id=?")
			ids := make([]any, 1000)
			for i := range ids {
				ids[i] = int64(i + 1)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if n, err := s.Query(ctx, ids[i%len(ids)]); err != nil || n != 1 {
					b.Fatalf("Query = %d, %v", n, err)
				}
			}
		})
	}
}

// BenchRangeSelect measures sysbench's simple range (100 rows) through a
// prepared Stmt, read with Query (every row decoded and counted) and with
// Drain (received, not decoded); run with -benchmem to see allocs/op.
// newDriver and cfg are as for BenchPointSelect.
func BenchRangeSelect[D driver.Driver](b *testing.B, newDriver func(driver.Config) (D, error), cfg driver.Config) {
	setup := Open(b, newDriver, cfg)
	LoadSbtest(b, setup, Connect(b, setup, 0), "sbtest1", 1000)
	cfg.Prepared = true
	ctx, s := benchStmt(b, newDriver, cfg, "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?")
	for _, drain := range []bool{false, true} {
		b.Run("drain="+strconv.FormatBool(drain), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				lo := int64(i%900 + 1)
				if drain {
					if err := s.Drain(ctx, lo, lo+99); err != nil {
						b.Fatalf("Drain: %v", err)
					}
				} else if n, err := s.Query(ctx, lo, lo+99); err != nil || n != 100 {
					b.Fatalf("Query = %d, %v", n, err)
				}
			}
		})
	}
}

// BenchIndexUpdate measures Stmt.Exec of sysbench's index update (the write
// path: a command sent, its OK or CommandComplete read) through a prepared
// Stmt; run with -benchmem to see allocs/op. newDriver and cfg are as for
// BenchPointSelect.
func BenchIndexUpdate[D driver.Driver](b *testing.B, newDriver func(driver.Config) (D, error), cfg driver.Config) {
	setup := Open(b, newDriver, cfg)
	LoadSbtest(b, setup, Connect(b, setup, 0), "sbtest1", 1000)
	cfg.Prepared = true
	ctx, s := benchStmt(b, newDriver, cfg, "UPDATE sbtest1 SET k=k+1 WHERE id=?")
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if n, err := s.Exec(ctx, int64(i%1000+1)); err != nil || n != 1 {
			b.Fatalf("Exec = %d, %v", n, err)
		}
	}
}

// benchStmt connects to cfg and prepares query for a benchmark's loop; the
// statement and its context end with b.
func benchStmt[D driver.Driver](b *testing.B, newDriver func(driver.Config) (D, error), cfg driver.Config, query string) (context.Context, driver.Stmt) {
	c := Connect(b, Open(b, newDriver, cfg), 0)
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	s, err := c.Prepare(ctx, query)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return ctx, s
}
