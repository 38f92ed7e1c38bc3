package sqlite

import (
	"fmt"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
)

// sbtest returns the sysbench table as the OLTP workload describes it.
func sbtest(name string) driver.Table {
	return driver.Table{
		Name: name,
		Columns: []driver.Column{
			{Name: "id", Type: driver.Integer, NotNull: true, AutoIncrement: true},
			{Name: "k", Type: driver.Integer, NotNull: true, Default: "'0'"},
			{Name: "c", Type: driver.Char, Size: 120, NotNull: true, Default: "''"},
			{Name: "pad", Type: driver.Char, Size: 60, NotNull: true, Default: "''"},
		},
		PrimaryKey: []string{"id"},
		Engine:     "innodb",
		Options:    "ROW_FORMAT=COMPRESSED",
	}
}

func TestCreateTable(t *testing.T) {
	secondary := sbtest("sbtest2")
	secondary.PrimaryKey = nil
	secondary.IDKey = &driver.Index{Name: "xid", Columns: []string{"id"}}

	types := driver.Table{
		Name: "t",
		Columns: []driver.Column{
			{Name: "a", Type: driver.SmallInt},
			{Name: "b", Type: driver.BigInt, NotNull: true},
			{Name: "c", Type: driver.Varchar, Size: 24},
			{Name: "d", Type: driver.Decimal, Size: 12, Scale: 2, Default: "0.00"},
			{Name: "e", Type: driver.Float},
			{Name: "f", Type: driver.Timestamp},
		},
		PrimaryKey:      []string{"a", "b"},
		PartitionByHash: 4,
	}
	sbBody := "  k INTEGER DEFAULT '0' NOT NULL,\n" +
		"  c TEXT DEFAULT '' NOT NULL,\n" +
		"  pad TEXT DEFAULT '' NOT NULL\n)"
	cases := []struct {
		name  string
		table driver.Table
		want  []string
	}{
		{"sysbench default", sbtest("sbtest1"), []string{"CREATE TABLE sbtest1(\n" +
			"  id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,\n" + sbBody}},
		{"secondary id key", secondary, []string{"CREATE TABLE sbtest2(\n" +
			"  id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,\n" + sbBody,
			"CREATE INDEX sbtest2_xid ON sbtest2(id)"}},
		{"every column type, composite key", types, []string{"CREATE TABLE t(\n" +
			"  a INTEGER,\n" +
			"  b INTEGER NOT NULL,\n" +
			"  c TEXT,\n" +
			"  d NUMERIC DEFAULT 0.00,\n" +
			"  e REAL,\n" +
			"  f TEXT,\n" +
			"  PRIMARY KEY (a, b)\n)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Dialect{}.CreateTable(tc.table)
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tc.want) {
				t.Fatalf("CreateTable =\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

func TestDialectStatements(t *testing.T) {
	d := Dialect{}
	cases := []struct{ got, want string }{
		{d.Name(), "sqlite"},
		{d.CreateIndex("sbtest1", driver.Index{Name: "k_1", Columns: []string{"k"}}), "CREATE INDEX k_1 ON sbtest1(k)"},
		{d.CreateIndex("t", driver.Index{Name: "u", Columns: []string{"a", "b"}, Unique: true}), "CREATE UNIQUE INDEX u ON t(a, b)"},
		{d.DropTable("sbtest1"), "DROP TABLE IF EXISTS sbtest1"},
		{d.Begin(), "BEGIN"},
		{d.Commit(), "COMMIT"},
		{d.Rollback(), "ROLLBACK"},
		{d.QuoteString("plain"), "'plain'"},
		{d.QuoteString(`it's \ here`), `'it''s \ here'`},
	}
	for _, tc := range cases {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	if !d.InsertOmitsAutoIncrement() {
		t.Error("InsertOmitsAutoIncrement = false, want true")
	}
	if d.AfterLoad(sbtest("sbtest1")) != nil {
		t.Error("AfterLoad should be nil on SQLite")
	}
}

func TestCodeName(t *testing.T) {
	cases := []struct {
		code int
		want string
	}{
		{5, "SQLITE_BUSY"},
		{5 | 2<<8, "SQLITE_BUSY"}, // SQLITE_BUSY_SNAPSHOT
		{6, "SQLITE_LOCKED"},
		{6 | 1<<8, "SQLITE_LOCKED"}, // SQLITE_LOCKED_SHAREDCACHE
		{19 | 6<<8, "SQLITE_CONSTRAINT"},
		{0, ""},
		{200, ""},
	}
	for _, tc := range cases {
		if got := codeName(tc.code); got != tc.want {
			t.Errorf("codeName(%d) = %q, want %q", tc.code, got, tc.want)
		}
	}
}
