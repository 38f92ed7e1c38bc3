package postgres

import (
	"reflect"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
)

func TestCreateTable(t *testing.T) {
	secondary := sbtest("sbtest2")
	secondary.PrimaryKey = nil
	secondary.Columns[0].AutoIncrement = false
	secondary.IDKey = &driver.Index{Name: "xid", Columns: []string{"id"}}
	secondary.Engine, secondary.Options = "innodb", "ROW_FORMAT=COMPRESSED"

	partitioned := sbtest("sbtest3")
	partitioned.PartitionByHash = 3

	bigSerial := driver.Table{Name: "h", Columns: []driver.Column{{Name: "id", Type: driver.BigInt, AutoIncrement: true}}}

	allTypes := driver.Table{Name: "types", Columns: []driver.Column{
		{Name: "a", Type: driver.Integer},
		{Name: "b", Type: driver.SmallInt, NotNull: true},
		{Name: "c", Type: driver.BigInt, Default: "7"},
		{Name: "d", Type: driver.Char, Size: 2},
		{Name: "e", Type: driver.Varchar, Size: 24},
		{Name: "f", Type: driver.Decimal, Size: 12, Scale: 2},
		{Name: "g", Type: driver.Float},
		{Name: "h", Type: driver.Timestamp},
	}, PrimaryKey: []string{"a", "b"}}

	cases := []struct {
		name  string
		table driver.Table
		want  []string
	}{
		{"sysbench", sbtest("sbtest1"), []string{
			"CREATE TABLE sbtest1 (id SERIAL, k INTEGER DEFAULT '0' NOT NULL, c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id))",
		}},
		{"secondary id key", secondary, []string{
			"CREATE TABLE sbtest2 (id INTEGER NOT NULL, k INTEGER DEFAULT '0' NOT NULL, c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL)",
			"CREATE INDEX xid_sbtest2 ON sbtest2 (id)",
		}},
		{"hash partitions", partitioned, []string{
			"CREATE TABLE sbtest3 (id SERIAL, k INTEGER DEFAULT '0' NOT NULL, c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id)) PARTITION BY HASH (id)",
			"CREATE TABLE sbtest3_p0 PARTITION OF sbtest3 FOR VALUES WITH (MODULUS 3, REMAINDER 0)",
			"CREATE TABLE sbtest3_p1 PARTITION OF sbtest3 FOR VALUES WITH (MODULUS 3, REMAINDER 1)",
			"CREATE TABLE sbtest3_p2 PARTITION OF sbtest3 FOR VALUES WITH (MODULUS 3, REMAINDER 2)",
		}},
		{"bigserial", bigSerial, []string{"CREATE TABLE h (id BIGSERIAL)"}},
		{"all types", allTypes, []string{
			"CREATE TABLE types (a INTEGER, b SMALLINT NOT NULL, c BIGINT DEFAULT 7, d CHAR(2), e VARCHAR(24), f DECIMAL(12,2), g DOUBLE PRECISION, h TIMESTAMP, PRIMARY KEY (a, b))",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := (Dialect{}).CreateTable(tc.table); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("CreateTable =\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

func TestDialectStatements(t *testing.T) {
	d := Dialect{}
	cases := []struct{ name, got, want string }{
		{"name", d.Name(), "postgres"},
		{"index", d.CreateIndex("sbtest1", driver.Index{Name: "k_1", Columns: []string{"k"}}), "CREATE INDEX k_1 ON sbtest1 (k)"},
		{"unique index", d.CreateIndex("t", driver.Index{Name: "u", Columns: []string{"a", "b"}, Unique: true}), "CREATE UNIQUE INDEX u ON t (a, b)"},
		{"drop", d.DropTable("sbtest1"), "DROP TABLE IF EXISTS sbtest1 CASCADE"},
		{"begin", d.Begin(), "BEGIN"},
		{"begin write", d.BeginWrite(), "BEGIN"},
		{"commit", d.Commit(), "COMMIT"},
		{"rollback", d.Rollback(), "ROLLBACK"},
		{"quote", d.QuoteString(`it's a \ test`), `'it''s a \ test'`},
		{"quote empty", d.QuoteString(""), "''"},
	}
	for _, tc := range cases {
		if tc.got != tc.want {
			t.Errorf("%s = %q, want %q", tc.name, tc.got, tc.want)
		}
	}
	if !d.InsertOmitsAutoIncrement() {
		t.Error("InsertOmitsAutoIncrement is false")
	}
	wantAfter := []string{"SELECT setval(pg_get_serial_sequence('sbtest1', 'id'), (SELECT COALESCE(MAX(id), 0) + 1 FROM sbtest1), false)"}
	if got := d.AfterLoad(sbtest("sbtest1")); !reflect.DeepEqual(got, wantAfter) {
		t.Errorf("AfterLoad = %q, want %q", got, wantAfter)
	}
	if got := d.AfterLoad(driver.Table{Name: "t", Columns: []driver.Column{{Name: "a"}}}); got != nil {
		t.Errorf("AfterLoad without auto-increment = %q, want nil", got)
	}
}

func TestSplitPlaceholdersAndRebind(t *testing.T) {
	cases := []struct {
		query  string
		parts  []string
		rebind string
	}{
		{"SELECT 1", []string{"SELECT 1"}, "SELECT 1"},
		{"SELECT c FROM t WHERE id=?", []string{"SELECT c FROM t WHERE id=", ""}, "SELECT c FROM t WHERE id=$1"},
		{"x BETWEEN ? AND ?", []string{"x BETWEEN ", " AND ", ""}, "x BETWEEN $1 AND $2"},
		{"SELECT '?', \"a?\", ? -- ?\n, ? /* ? */", []string{"SELECT '?', \"a?\", ", " -- ?\n, ", " /* ? */"}, "SELECT '?', \"a?\", $1 -- ?\n, $2 /* ? */"},
		{"SELECT 'it''s?', ?", []string{"SELECT 'it''s?', ", ""}, "SELECT 'it''s?', $1"},
		{"SELECT 'open ?", []string{"SELECT 'open ?"}, "SELECT 'open ?"},
	}
	for _, tc := range cases {
		if got := splitPlaceholders(tc.query); !reflect.DeepEqual(got, tc.parts) {
			t.Errorf("split(%q) = %q, want %q", tc.query, got, tc.parts)
		}
		if got, n := rebind(tc.query); got != tc.rebind || n != len(tc.parts)-1 {
			t.Errorf("rebind(%q) = %q, %d; want %q, %d", tc.query, got, n, tc.rebind, len(tc.parts)-1)
		}
	}
}
