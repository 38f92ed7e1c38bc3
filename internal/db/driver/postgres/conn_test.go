package postgres

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
)

func TestCreateLoadAndAfterLoad(t *testing.T) {
	c := connectTo(t, freshDB(t, true))
	ctx := testContext(t)
	createAndLoad(t, c, "sbtest1", 10000)
	if got := queryOne(t, c, "SELECT count(*) FROM sbtest1"); got != "10000" {
		t.Fatalf("count = %s, want 10000", got)
	}
	if got := queryOne(t, c, "SELECT length(c) || ',' || length(pad) FROM sbtest1 WHERE id = ?", int64(77)); got != "119,59" {
		t.Errorf("lengths of c,pad = %s, want 119,59", got)
	}
	for _, stmt := range (Dialect{}).AfterLoad(sbtest("sbtest1")) {
		if _, err := c.Exec(ctx, stmt); err != nil {
			t.Fatalf("AfterLoad: %v", err)
		}
	}
	if n, err := c.Exec(ctx, "INSERT INTO sbtest1 (k, c, pad) VALUES (?, ?, ?)", 1, "c", "pad"); err != nil || n != 1 {
		t.Fatalf("insert without id: %d, %v", n, err)
	}
	if got := queryOne(t, c, "SELECT max(id) FROM sbtest1"); got != "10001" {
		t.Errorf("id of the insert without id = %s, want 10001", got)
	}
}

func TestCreateTableVariants(t *testing.T) {
	c := connectTo(t, freshDB(t, true))
	ctx := testContext(t)
	secondary := sbtest("sbsecondary")
	secondary.PrimaryKey = nil
	secondary.IDKey = &driver.Index{Name: "xid", Columns: []string{"id"}}
	partitioned := sbtest("sbpart")
	partitioned.PartitionByHash = 4
	d := Dialect{}
	for _, table := range []driver.Table{secondary, partitioned} {
		for _, stmt := range d.CreateTable(table) {
			if _, err := c.Exec(ctx, stmt); err != nil {
				t.Fatalf("%s: %v", stmt, err)
			}
		}
		if n, err := c.BulkInsert(ctx, table.Name, sbColumns, newSBRows(1000)); err != nil || n != 1000 {
			t.Fatalf("BulkInsert into %s: %d, %v", table.Name, n, err)
		}
	}
	if got := queryOne(t, c, "SELECT indexname FROM pg_indexes WHERE tablename = 'sbsecondary'"); got != "xid_sbsecondary" {
		t.Errorf("index of sbsecondary = %q, want xid_sbsecondary", got)
	}
	if got := queryOne(t, c, "SELECT count(*) FROM pg_inherits WHERE inhparent = 'sbpart'::regclass"); got != "4" {
		t.Errorf("partitions of sbpart = %s, want 4", got)
	}
	if got := queryOne(t, c, "SELECT count(DISTINCT tableoid) FROM sbpart"); got != "4" {
		t.Errorf("rows of sbpart spread over %s partitions, want 4", got)
	}
	tables, err := c.QueryStrings(ctx, d.ListTables())
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]string{{"sbpart"}, {"sbsecondary"}}; !reflect.DeepEqual(tables, want) {
		t.Errorf("ListTables = %v, want %v", tables, want)
	}
	for _, name := range []string{"sbpart", "sbsecondary"} {
		if _, err := c.Exec(ctx, d.DropTable(name)); err != nil {
			t.Fatal(err)
		}
	}
	if got := queryOne(t, c, "SELECT count(*) FROM pg_class WHERE relname LIKE 'sbpart%' OR relname = 'sbsecondary'"); got != "0" {
		t.Errorf("%s relations left after DropTable", got)
	}
}

func TestStatements(t *testing.T) {
	cfg := freshDB(t, true)
	createAndLoad(t, connectTo(t, cfg), "sbtest1", 1000)
	modes(t, func(t *testing.T, prepared bool) {
		cfg.Prepared = prepared
		c := connectTo(t, cfg)
		ctx := testContext(t)
		prepare := func(q string) driver.Stmt {
			s, err := c.Prepare(ctx, q)
			if err != nil {
				t.Fatalf("Prepare(%q): %v", q, err)
			}
			t.Cleanup(func() {
				if err := s.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			return s
		}
		between := prepare("SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?")
		for _, tc := range []struct{ lo, hi, want int }{{1, 100, 100}, {995, 1094, 6}, {2000, 2100, 0}} {
			if n, err := between.Query(ctx, tc.lo, int64(tc.hi)); err != nil || n != tc.want {
				t.Errorf("BETWEEN %d AND %d: %d rows, %v; want %d", tc.lo, tc.hi, n, err, tc.want)
			}
		}
		update := prepare("UPDATE sbtest1 SET k=k+1 WHERE id=?")
		for _, tc := range []struct{ id, want int64 }{{5, 1}, {5000, 0}} {
			if n, err := update.Exec(ctx, tc.id); err != nil || n != tc.want {
				t.Errorf("update id %d: %d rows, %v; want %d", tc.id, n, err, tc.want)
			}
		}
		setC := prepare("UPDATE sbtest1 SET c=? WHERE id=?")
		for i, s := range []string{`it's`, `''?'`, `back\slash`, "tab\tnew\nline", ""} {
			id := int64(10 + i)
			if n, err := setC.Exec(ctx, s, id); err != nil || n != 1 {
				t.Fatalf("set c=%q: %d, %v", s, n, err)
			}
			if got := queryOne(t, c, "SELECT rtrim(c) FROM sbtest1 WHERE id=?", id); got != s {
				t.Errorf("c round-tripped as %q, want %q", got, s)
			}
		}
		if _, err := between.Query(ctx, 1); err == nil {
			t.Error("Query with too few arguments succeeded")
		}
		if n, err := c.Query(ctx, "SELECT id FROM sbtest1 WHERE id < ? AND c <> ?", 11, "?"); err != nil || n != 10 {
			t.Errorf("Conn.Query: %d, %v; want 10", n, err)
		}
		if n, err := c.Exec(ctx, "DELETE FROM sbtest1 WHERE id = ?", -1); err != nil || n != 0 {
			t.Errorf("Conn.Exec deleting nothing: %d, %v; want 0", n, err)
		}
	})
}

func TestTransactions(t *testing.T) {
	cfg := freshDB(t, true)
	c := connectTo(t, cfg)
	other := connectTo(t, cfg)
	ctx := testContext(t)
	d := Dialect{}
	createAndLoad(t, c, "sbtest1", 10)
	insert, err := c.Prepare(ctx, "INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		end  string
		id   int64
		want string
	}{{d.Commit(), 100, "1"}, {d.Rollback(), 200, "0"}} {
		if _, err := c.Exec(ctx, d.Begin()); err != nil {
			t.Fatal(err)
		}
		if n, err := insert.Exec(ctx, tc.id, 1, "c", "p"); err != nil || n != 1 {
			t.Fatalf("insert: %d, %v", n, err)
		}
		if got := queryOne(t, other, "SELECT count(*) FROM sbtest1 WHERE id = "+strconv.FormatInt(tc.id, 10)); got != "0" {
			t.Errorf("uncommitted row seen by another connection")
		}
		if _, err := c.Exec(ctx, tc.end); err != nil {
			t.Fatal(err)
		}
		if got := queryOne(t, other, "SELECT count(*) FROM sbtest1 WHERE id = ?", tc.id); got != tc.want {
			t.Errorf("after %s: %s rows, want %s", tc.end, got, tc.want)
		}
	}
}

func TestQueryStrings(t *testing.T) {
	c := connectTo(t, freshDB(t, false))
	rows, err := c.QueryStrings(testContext(t), "SELECT x, NULL, ? FROM generate_series(1, 2) x", "a'b")
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]string{{"1", "", "a'b"}, {"2", "", "a'b"}}; !reflect.DeepEqual(rows, want) {
		t.Errorf("QueryStrings = %q, want %q", rows, want)
	}
}
