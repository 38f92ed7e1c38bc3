package mysql

import (
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// TestSchemaStatements: partitions named as pgbench names them, keys,
// truncate with foreign key checks off, analyze, the SEQUENCE engine series.
func TestSchemaStatements(t *testing.T) {
	d := Dialect{}
	cols := []driver.Column{{Name: "aid", Type: driver.Integer, NotNull: true}}
	rng := d.CreateTable(driver.Table{Name: "a", Columns: cols, FillFactor: 90, Unlogged: true,
		Partitioning: &driver.Partitioning{Column: "aid", Count: 3, Bounds: []int64{11, 21}}})
	hash := d.CreateTable(driver.Table{Name: "a", Columns: cols, Partitioning: &driver.Partitioning{Column: "aid", Count: 2, Hash: true}})
	cases := []struct{ got, want string }{
		{rng[0], "CREATE TABLE a(\n  aid INTEGER NOT NULL\n) /*! ENGINE = innodb */ PARTITION BY RANGE (aid) (PARTITION a_1 VALUES LESS THAN (11), " +
			"PARTITION a_2 VALUES LESS THAN (21), PARTITION a_3 VALUES LESS THAN MAXVALUE)"},
		{hash[0], "CREATE TABLE a(\n  aid INTEGER NOT NULL\n) /*! ENGINE = innodb */ PARTITION BY HASH (aid) (PARTITION a_1, PARTITION a_2)"},
		{d.AddPrimaryKey("t", driver.Index{Name: "t_pkey", Columns: []string{"id"}}), "ALTER TABLE t ADD PRIMARY KEY (id)"},
		{d.AddForeignKey("c", driver.ForeignKey{Name: "c_p_fkey", Columns: []string{"p"}, RefTable: "p", RefColumns: []string{"id"}}),
			"ALTER TABLE c ADD CONSTRAINT c_p_fkey FOREIGN KEY (p) REFERENCES p (id)"},
		{strings.Join(d.Truncate("a"), ";"), "TRUNCATE TABLE a"},
		{strings.Join(d.Truncate("a", "b"), ";"), "SET @fairbench_fk_checks = @@foreign_key_checks;SET foreign_key_checks = 0;" +
			"TRUNCATE TABLE a;TRUNCATE TABLE b;SET foreign_key_checks = @fairbench_fk_checks"},
		{d.VacuumAnalyze("a"), "ANALYZE TABLE a"},
		{d.IntegerSeries("aid", 5), "(SELECT seq AS aid FROM seq_1_to_5) AS aid_series"},
		{d.IntDiv("(aid - 1)", "10"), "(aid - 1) DIV 10"},
	}
	for _, tc := range cases {
		if tc.got != tc.want {
			t.Errorf("got  %q\nwant %q", tc.got, tc.want)
		}
	}
	if d.Supports(driver.FeatureUnlogged) || d.Supports(driver.FeatureFillFactor) || d.Supports(driver.FeaturePartitionedForeignKeys) ||
		!d.Supports(driver.FeatureHashPartitions) || !d.Supports(driver.FeatureForeignKeys) {
		t.Error("MySQL's features misreported")
	}
}
