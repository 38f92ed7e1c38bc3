package mysql

import (
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
	}
}

func TestCreateTable(t *testing.T) {
	secondary := sbtest("sbtest2")
	secondary.PrimaryKey = nil
	secondary.IDKey = &driver.Index{Name: "xid", Columns: []string{"id"}}

	options := sbtest("sbtest3")
	options.Options = "ROW_FORMAT=COMPRESSED"
	options.PartitionByHash = 4
	options.Engine = ""

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
		PrimaryKey: []string{"a", "b"},
		Engine:     "myisam",
	}

	cases := []struct {
		name  string
		table driver.Table
		want  string
	}{
		{"sysbench default", sbtest("sbtest1"), "CREATE TABLE sbtest1(\n" +
			"  id INTEGER NOT NULL AUTO_INCREMENT,\n" +
			"  k INTEGER DEFAULT '0' NOT NULL,\n" +
			"  c CHAR(120) DEFAULT '' NOT NULL,\n" +
			"  pad CHAR(60) DEFAULT '' NOT NULL,\n" +
			"  PRIMARY KEY (id)\n" +
			") /*! ENGINE = innodb */"},
		{"secondary id key", secondary, "CREATE TABLE sbtest2(\n" +
			"  id INTEGER NOT NULL AUTO_INCREMENT,\n" +
			"  k INTEGER DEFAULT '0' NOT NULL,\n" +
			"  c CHAR(120) DEFAULT '' NOT NULL,\n" +
			"  pad CHAR(60) DEFAULT '' NOT NULL,\n" +
			"  KEY xid (id)\n" +
			") /*! ENGINE = innodb */"},
		{"options and partitions", options, "CREATE TABLE sbtest3(\n" +
			"  id INTEGER NOT NULL AUTO_INCREMENT,\n" +
			"  k INTEGER DEFAULT '0' NOT NULL,\n" +
			"  c CHAR(120) DEFAULT '' NOT NULL,\n" +
			"  pad CHAR(60) DEFAULT '' NOT NULL,\n" +
			"  PRIMARY KEY (id)\n" +
			") /*! ENGINE = innodb */ ROW_FORMAT=COMPRESSED PARTITION BY HASH(id) PARTITIONS 4"},
		{"every column type", types, "CREATE TABLE t(\n" +
			"  a SMALLINT,\n" +
			"  b BIGINT NOT NULL,\n" +
			"  c VARCHAR(24),\n" +
			"  d DECIMAL(12,2) DEFAULT 0.00,\n" +
			"  e DOUBLE,\n" +
			"  f DATETIME,\n" +
			"  PRIMARY KEY (a, b)\n" +
			") /*! ENGINE = myisam */"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Dialect{}.CreateTable(tc.table)
			if len(got) != 1 || got[0] != tc.want {
				t.Fatalf("CreateTable =\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

func TestDialectStatements(t *testing.T) {
	d := Dialect{}
	cases := []struct{ got, want string }{
		{d.Name(), "mysql"},
		{d.CreateIndex("sbtest1", driver.Index{Name: "k_1", Columns: []string{"k"}}), "CREATE INDEX k_1 ON sbtest1(k)"},
		{d.CreateIndex("t", driver.Index{Name: "u", Columns: []string{"a", "b"}, Unique: true}), "CREATE UNIQUE INDEX u ON t(a, b)"},
		{d.DropTable("sbtest1"), "DROP TABLE IF EXISTS sbtest1"},
		{d.Begin(), "BEGIN"},
		{d.Commit(), "COMMIT"},
		{d.Rollback(), "ROLLBACK"},
		{d.QuoteString("plain"), "'plain'"},
		{d.QuoteString(`it's a \ back`), `'it\'s a \\ back'`},
		{d.QuoteString(""), "''"},
	}
	for _, tc := range cases {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	if d.InsertOmitsAutoIncrement() {
		t.Error("InsertOmitsAutoIncrement = true, want false (sysbench passes 0)")
	}
	if d.AfterLoad(sbtest("sbtest1")) != nil {
		t.Error("AfterLoad should be nil on MySQL")
	}
}
