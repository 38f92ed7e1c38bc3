package sqlite

import (
	"fmt"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/drivertest"
)

func TestCreateTable(t *testing.T) {
	// Engine and Options are MySQL's; SQLite ignores them.
	sysbench := drivertest.Sbtest("sbtest1")
	sysbench.Options = "ROW_FORMAT=COMPRESSED"
	secondary := drivertest.Sbtest("sbtest2")
	secondary.Options = "ROW_FORMAT=COMPRESSED"
	secondary.PrimaryKey = nil
	secondary.IDKey = &driver.Index{Name: "xid", Columns: []string{"id"}}

	types := drivertest.MixedTypes()
	types.PartitionByHash = 4
	sbBody := "  k INTEGER DEFAULT '0' NOT NULL,\n" +
		"  c TEXT DEFAULT '' NOT NULL,\n" +
		"  pad TEXT DEFAULT '' NOT NULL\n)"
	cases := []struct {
		name  string
		table driver.Table
		want  []string
	}{
		{"sysbench default", sysbench, []string{"CREATE TABLE sbtest1(\n" +
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
	drivertest.SysbenchStatements(t, d)
	cases := []struct{ got, want string }{
		{d.Name(), "sqlite"},
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
