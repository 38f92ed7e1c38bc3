package mysql

import (
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/drivertest"
)

func TestCreateTable(t *testing.T) {
	secondary := drivertest.Sbtest("sbtest2")
	secondary.PrimaryKey = nil
	secondary.IDKey = &driver.Index{Name: "xid", Columns: []string{"id"}}

	options := drivertest.Sbtest("sbtest3")
	options.Options = "ROW_FORMAT=COMPRESSED"
	options.PartitionByHash = 4
	options.Engine = ""

	types := drivertest.MixedTypes()
	types.Engine = "myisam"

	cases := []struct {
		name  string
		table driver.Table
		want  string
	}{
		{"sysbench default", drivertest.Sbtest("sbtest1"), "CREATE TABLE sbtest1(\n" +
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
	drivertest.SysbenchStatements(t, d)
	cases := []struct{ got, want string }{
		{d.Name(), "mysql"},
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
}
