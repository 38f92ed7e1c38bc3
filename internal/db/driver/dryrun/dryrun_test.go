package dryrun

import (
	"context"
	"errors"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/drivertest"
	"github.com/fairbench/fairbench/internal/db/driver/mysql"
)

// wrapped is the MySQL driver of a target listening on port, dry.
func wrapped(t *testing.T, port int) driver.Driver {
	t.Helper()
	d, err := mysql.New(driver.Config{Kind: driver.KindMySQL, Hosts: []string{"127.0.0.1"}, Ports: []int{port}, Prepared: true})
	if err != nil {
		t.Fatal(err)
	}
	return Wrap(d)
}

// TestDryRunContactsNoServer connects, prepares and runs every kind of call
// through a dry driver whose target is a listener: every call succeeds with
// no rows, and the listener never sees a connection. The same target without
// Wrap is reached (the check can fail).
func TestDryRunContactsNoServer(t *testing.T) {
	ctx := context.Background()
	port, accepted := drivertest.CountingServer(t)
	d := wrapped(t, port)
	if d.Kind() != driver.KindMySQL || d.Dialect() == nil || len(d.DefaultIgnorable()) == 0 {
		t.Fatalf("the dry driver does not keep MySQL's kind, dialect and ignorable errors: %s %v %v", d.Kind(), d.Dialect(), d.DefaultIgnorable())
	}
	c, err := d.Connect(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.Prepare(ctx, "SELECT c FROM sbtest1 WHERE id=?")
	if err != nil {
		t.Fatal(err)
	}
	var s string
	found, err := st.QueryRow(ctx, []any{&s}, int64(1))
	if found || err != nil {
		t.Errorf("QueryRow: found %v, %v; want no row, no error", found, err)
	}
	called := 0
	if n, err := st.QueryRows(ctx, []any{&s}, func() error { called++; return nil }, int64(1)); n != 0 || called != 0 || err != nil {
		t.Errorf("QueryRows: %d rows, fn called %d times, %v", n, called, err)
	}
	if n, err := st.Exec(ctx, int64(1)); n != 0 || err != nil {
		t.Errorf("Stmt.Exec: %d, %v", n, err)
	}
	if n, err := c.Exec(ctx, "BEGIN"); n != 0 || err != nil {
		t.Errorf("Conn.Exec: %d, %v", n, err)
	}
	if rows, err := c.QueryStrings(ctx, "SELECT VERSION()"); rows != nil || err != nil {
		t.Errorf("QueryStrings: %v, %v", rows, err)
	}
	if err := errors.Join(st.Close(), c.Close(), d.Close()); err != nil {
		t.Fatal(err)
	}
	if n := accepted.Load(); n != 0 {
		t.Fatalf("the dry run made %d connections to the target", n)
	}

	real, err := mysql.New(driver.Config{Kind: driver.KindMySQL, Hosts: []string{"127.0.0.1"}, Ports: []int{port}})
	if err != nil {
		t.Fatal(err)
	}
	if c, err := real.Connect(ctx, 0); err == nil {
		c.Close()
	}
	if accepted.Load() == 0 {
		t.Fatal("the driver without Wrap did not reach the listener: the check above proves nothing")
	}
}

// TestDryStatementsAllocateNothing holds the measured path of a dry
// connection to no allocation per statement: it measures the client.
func TestDryStatementsAllocateNothing(t *testing.T) {
	ctx := context.Background()
	c, err := wrapped(t, 1).Connect(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.Prepare(ctx, "SELECT c FROM sbtest1 WHERE id=?")
	if err != nil {
		t.Fatal(err)
	}
	var s string
	dest := []any{&s}
	args := []any{int64(4242)}
	fn := func() error { return nil }
	allocs := testing.AllocsPerRun(1000, func() {
		_, _ = c.Prepare(ctx, "SELECT 1")
		_, _ = st.Query(ctx, args...)
		_, _ = st.QueryRow(ctx, dest, args...)
		_, _ = st.QueryRows(ctx, dest, fn, args...)
		_, _ = st.Exec(ctx, args...)
		_, _ = c.Exec(ctx, "COMMIT")
		_, _ = c.Query(ctx, "SELECT 1", args...)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per round of statements, want 0", allocs)
	}
}

// TestDryBulkInsertReadsEveryRow: a dry prepare generates every row (as
// sysbench's builds its INSERTs) and stores none; Ctrl-C ends it.
func TestDryBulkInsertReadsEveryRow(t *testing.T) {
	c, err := wrapped(t, 1).Connect(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	rows := drivertest.NewSBRows(10_000)
	n, err := c.BulkInsert(context.Background(), "sbtest1", drivertest.SbtestColumns(), rows)
	if n != 10_000 || err != nil || rows.Next() {
		t.Fatalf("BulkInsert: %d rows, %v (source exhausted: %v); want 10000", n, err, !rows.Next())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if n, err := c.BulkInsert(ctx, "sbtest1", drivertest.SbtestColumns(), drivertest.NewSBRows(1_000_000)); !errors.Is(err, context.Canceled) || n >= 1_000_000 {
		t.Fatalf("cancelled BulkInsert: %d rows, %v; want it to stop with context.Canceled", n, err)
	}
}

// BenchmarkDryPointSelect is the cost of one dry prepared statement.
func BenchmarkDryPointSelect(b *testing.B) {
	ctx := context.Background()
	d, _ := mysql.New(driver.Config{Kind: driver.KindMySQL, Hosts: []string{"127.0.0.1"}, Ports: []int{1}, Prepared: true})
	c, _ := Wrap(d).Connect(ctx, 0)
	st, _ := c.Prepare(ctx, "SELECT c FROM sbtest1 WHERE id=?")
	var s string
	dest, args := []any{&s}, []any{int64(1)}
	b.ReportAllocs()
	for b.Loop() {
		_, _ = st.QueryRow(ctx, dest, args...)
	}
}
