package drivertest

import (
	"context"
	"errors"
	"testing"
	"time"
	"unsafe"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// scanTable has a column of each type the TPC-C transactions scan.
var scanTable = driver.Table{
	Name: "scan_t",
	Columns: []driver.Column{
		{Name: "id", Type: driver.Integer, NotNull: true},
		{Name: "big", Type: driver.BigInt},
		{Name: "amount", Type: driver.Decimal, Size: 12, Scale: 2},
		{Name: "ratio", Type: driver.Float},
		{Name: "name", Type: driver.Varchar, Size: 40},
		{Name: "code", Type: driver.Char, Size: 2},
		{Name: "at", Type: driver.Timestamp},
		{Name: "flag", Type: driver.SmallInt},
	},
	PrimaryKey: []string{"id"},
}

// ScanRowsLoaded is how many rows LoadScanTable adds after the two typed rows.
const ScanRowsLoaded = 1000

// LoadScanTable creates the table scan_t through c, with a column of each
// type the TPC-C transactions scan (id, big, amount, ratio, name, code, at,
// flag): row 1 holds a value of every type (at in the at column), row 2 only
// NULLs, and rows 100..100+ScanRowsLoaded-1 hold id*2 in big and id/4 in amount.
func LoadScanTable(t testing.TB, d driver.Driver, c driver.Conn, at time.Time) {
	t.Helper()
	ctx := context.Background()
	for _, q := range d.Dialect().CreateTable(scanTable) {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("create: %v", err)
		}
	}
	ins := "INSERT INTO scan_t (id, big, amount, ratio, name, code, at, flag) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
	if _, err := c.Exec(ctx, ins, 1, int64(9000000000), 1234.56, 0.25, "héllo wörld", "BC", at, 1); err != nil {
		t.Fatalf("insert typed row: %v", err)
	}
	if _, err := c.Exec(ctx, ins, 2, nil, nil, nil, nil, nil, nil, nil); err != nil {
		t.Fatalf("insert NULL row: %v", err)
	}
	rows := make([][]any, ScanRowsLoaded)
	for i := range rows {
		id := int64(100 + i)
		rows[i] = []any{id, id * 2, float64(id) / 4}
	}
	n, err := c.BulkInsert(ctx, "scan_t", []string{"id", "big", "amount"}, NewFixedRows(rows))
	if err != nil || n != ScanRowsLoaded {
		t.Fatalf("BulkInsert = %d, %v", n, err)
	}
}

// scanValues are destinations of every supported type.
type scanValues struct {
	big     int64
	amount  float64
	ratio   float64
	name    string
	nameRaw []byte
	code    string
	at      time.Time
	flag    bool
	amtInt  int64
}

func (v *scanValues) dest() []any {
	return []any{&v.big, &v.amount, &v.ratio, &v.name, &v.nameRaw, &v.code, &v.at, &v.flag, &v.amtInt}
}

const selectTyped = "SELECT big, amount, ratio, name, name, code, at, flag, amount FROM scan_t WHERE id = ?"

// QueryRowScanning loads scan_t (see LoadScanTable) through c and checks
// Stmt.QueryRow and Stmt.QueryRows: every destination type, NULL, no row, the
// first of many rows, many rows, errors from fn and from bad destinations, and
// a statement without rows. Each driver package's tests run it against their
// own driver, once per statement mode.
func QueryRowScanning(t *testing.T, d driver.Driver, c driver.Conn) {
	t.Helper()
	ctx := context.Background()
	at := time.Date(2026, 11, 22, 1, 2, 3, 0, time.UTC)
	LoadScanTable(t, d, c, at)
	prep := func(q string) driver.Stmt {
		s, err := c.Prepare(ctx, q)
		if err != nil {
			t.Fatalf("prepare %q: %v", q, err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	typed := prep(selectTyped)

	t.Run("types", func(t *testing.T) {
		v := scanValues{nameRaw: make([]byte, 0, 64)}
		buf := unsafe.SliceData(v.nameRaw)
		ok, err := typed.QueryRow(ctx, v.dest(), 1)
		if err != nil || !ok {
			t.Fatalf("QueryRow = %v, %v", ok, err)
		}
		want := scanValues{big: 9000000000, amount: 1234.56, ratio: 0.25, name: "héllo wörld", code: "BC", at: at, flag: true, amtInt: 1234}
		if v.big != want.big || v.amount != want.amount || v.ratio != want.ratio || v.name != want.name ||
			v.code != want.code || !v.at.Equal(want.at) || v.flag != want.flag || v.amtInt != want.amtInt {
			t.Fatalf("scanned %+v, want %+v", v, want)
		}
		if string(v.nameRaw) != want.name {
			t.Fatalf("[]byte = %q, want %q", v.nameRaw, want.name)
		}
		if unsafe.SliceData(v.nameRaw) != buf {
			t.Fatal("[]byte destination got a new buffer instead of reusing the caller's")
		}
	})
	t.Run("NULL gives zero values", func(t *testing.T) {
		v := scanValues{big: 7, amount: 7, ratio: 7, name: "x", nameRaw: []byte("x"), code: "x", at: at, flag: true, amtInt: 7}
		ok, err := typed.QueryRow(ctx, v.dest(), 2)
		if err != nil || !ok {
			t.Fatalf("QueryRow = %v, %v", ok, err)
		}
		if v.big != 0 || v.amount != 0 || v.ratio != 0 || v.name != "" || len(v.nameRaw) != 0 || v.code != "" ||
			!v.at.IsZero() || v.flag || v.amtInt != 0 {
			t.Fatalf("NULL row scanned as %+v, want zero values", v)
		}
	})
	t.Run("no row", func(t *testing.T) {
		v := scanValues{big: 7}
		ok, err := typed.QueryRow(ctx, v.dest(), 99999)
		if err != nil || ok {
			t.Fatalf("QueryRow = %v, %v; want false, nil", ok, err)
		}
		if v.big != 7 {
			t.Fatalf("destination changed to %d without a row", v.big)
		}
	})
	all := prep("SELECT id, big, amount FROM scan_t WHERE id >= ? ORDER BY id")
	t.Run("QueryRow reads the first of many rows", func(t *testing.T) {
		var id, big int64
		var amount float64
		for range 2 { // the second call shows the discarded rows left the connection clean
			ok, err := all.QueryRow(ctx, []any{&id, &big, &amount}, 100)
			if err != nil || !ok || id != 100 || big != 200 || amount != 25 {
				t.Fatalf("QueryRow = %v, %v: id %d big %d amount %v; want the row of id 100", ok, err, id, big, amount)
			}
		}
	})
	t.Run("QueryRows", func(t *testing.T) {
		var id, big, sum int64
		var amount, amounts float64
		prev := int64(0)
		n, err := all.QueryRows(ctx, []any{&id, &big, &amount}, func() error {
			if id <= prev || big != 2*id {
				return errors.New("rows out of order or mis-scanned")
			}
			prev = id
			sum += big
			amounts += amount
			return nil
		}, 100)
		if err != nil || n != ScanRowsLoaded {
			t.Fatalf("QueryRows = %d, %v; want %d rows", n, err, ScanRowsLoaded)
		}
		// ids 100..1099: sum of 2*id and of id/4.
		if wantSum := int64(2 * (100 + 1099) * ScanRowsLoaded / 2); sum != wantSum {
			t.Fatalf("sum of big = %d, want %d", sum, wantSum)
		}
		if want := float64((100+1099)*ScanRowsLoaded/2) / 4; amounts != want {
			t.Fatalf("sum of amount = %v, want %v", amounts, want)
		}
	})
	t.Run("an error from fn stops and is returned", func(t *testing.T) {
		stop := errors.New("enough")
		var id int64
		calls := 0
		_, err := all.QueryRows(ctx, []any{&id}, func() error {
			calls++
			if calls == 3 {
				return stop
			}
			return nil
		}, 100)
		if !errors.Is(err, stop) || calls != 3 {
			t.Fatalf("QueryRows = %v after %d calls; want the fn error after 3", err, calls)
		}
		if ok, err := typed.QueryRow(ctx, []any{&id}, 1); err != nil || !ok {
			t.Fatalf("connection unusable after an fn error: %v, %v", ok, err)
		}
	})
	t.Run("bad destinations", func(t *testing.T) {
		var i int
		if _, err := typed.QueryRow(ctx, []any{&i}, 1); err == nil {
			t.Fatal("*int destination accepted")
		}
		dest := make([]any, 10)
		for k := range dest {
			dest[k] = new(int64)
		}
		if _, err := typed.QueryRow(ctx, dest, 1); err == nil {
			t.Fatal("more destinations than columns accepted")
		}
		var id int64
		if ok, err := typed.QueryRow(ctx, []any{&id}, 1); err != nil || !ok {
			t.Fatalf("connection unusable after a scan error: %v, %v", ok, err)
		}
	})
	t.Run("DML with RETURNING-less QueryRow", func(t *testing.T) {
		// A statement without rows reports no row and no error.
		upd := prep("UPDATE scan_t SET big = big + 1 WHERE id = ?")
		ok, err := upd.QueryRow(ctx, nil, 100)
		if err != nil || ok {
			t.Fatalf("QueryRow of an UPDATE = %v, %v; want false, nil", ok, err)
		}
		var big int64
		if ok, err := all.QueryRow(ctx, []any{new(int64), &big}, 100); err != nil || !ok || big != 201 {
			t.Fatalf("after UPDATE big = %d (%v, %v), want 201", big, ok, err)
		}
	})
}
