package postgres

import (
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// TestCreateTableStorage: unlogged, fillfactor, tablespace and pgbench-style
// partitions, spelled as pgbench 15 spells them.
func TestCreateTableStorage(t *testing.T) {
	cols := []driver.Column{{Name: "aid", Type: driver.Integer, NotNull: true}, {Name: "filler", Type: driver.Char, Size: 84}}
	cases := []struct {
		name string
		t    driver.Table
		want []string
	}{
		{"fillfactor", driver.Table{Name: "a", Columns: cols, FillFactor: 90},
			[]string{"CREATE TABLE a (aid INTEGER NOT NULL, filler CHAR(84)) WITH (fillfactor=90)"}},
		{"unlogged in a tablespace", driver.Table{Name: "a", Columns: cols, Unlogged: true, FillFactor: 100, Tablespace: `my"ts`},
			[]string{`CREATE UNLOGGED TABLE a (aid INTEGER NOT NULL, filler CHAR(84)) WITH (fillfactor=100) TABLESPACE "my""ts"`}},
		{"range", driver.Table{Name: "a", Columns: cols, FillFactor: 90,
			Partitioning: &driver.Partitioning{Column: "aid", Count: 3, Bounds: []int64{11, 21}}},
			[]string{
				"CREATE TABLE a (aid INTEGER NOT NULL, filler CHAR(84)) PARTITION BY RANGE (aid)",
				"CREATE TABLE a_1 PARTITION OF a FOR VALUES FROM (MINVALUE) TO (11) WITH (fillfactor=90)",
				"CREATE TABLE a_2 PARTITION OF a FOR VALUES FROM (11) TO (21) WITH (fillfactor=90)",
				"CREATE TABLE a_3 PARTITION OF a FOR VALUES FROM (21) TO (MAXVALUE) WITH (fillfactor=90)",
			}},
		{"hash, unlogged", driver.Table{Name: "a", Columns: cols, Unlogged: true,
			Partitioning: &driver.Partitioning{Column: "aid", Count: 2, Hash: true}},
			[]string{
				"CREATE UNLOGGED TABLE a (aid INTEGER NOT NULL, filler CHAR(84)) PARTITION BY HASH (aid)",
				"CREATE UNLOGGED TABLE a_1 PARTITION OF a FOR VALUES WITH (MODULUS 2, REMAINDER 0)",
				"CREATE UNLOGGED TABLE a_2 PARTITION OF a FOR VALUES WITH (MODULUS 2, REMAINDER 1)",
			}},
	}
	for _, tc := range cases {
		if got := (Dialect{}).CreateTable(tc.t); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// TestSchemaStatements: keys, truncate, vacuum and the server-side series.
func TestSchemaStatements(t *testing.T) {
	d := Dialect{}
	cases := []struct{ got, want string }{
		{d.AddPrimaryKey("t", driver.Index{Name: "t_pkey", Columns: []string{"id"}}), "ALTER TABLE t ADD PRIMARY KEY (id)"},
		{d.AddPrimaryKey("t", driver.Index{Columns: []string{"id"}, Tablespace: "ix"}), `ALTER TABLE t ADD PRIMARY KEY (id) USING INDEX TABLESPACE "ix"`},
		{d.AddForeignKey("c", driver.ForeignKey{Name: "c_p_fkey", Columns: []string{"p"}, RefTable: "p", RefColumns: []string{"id"}}),
			"ALTER TABLE c ADD CONSTRAINT c_p_fkey FOREIGN KEY (p) REFERENCES p (id)"},
		{strings.Join(d.Truncate("a", "b"), ";"), "TRUNCATE TABLE a, b"},
		{d.VacuumAnalyze("a"), "VACUUM ANALYZE a"},
		{d.IntegerSeries("aid", 200000), "generate_series(1, 200000) AS aid"},
		{d.IntDiv("(aid - 1)", "100000"), "(aid - 1) / 100000"},
	}
	for _, tc := range cases {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	for _, f := range []driver.Feature{driver.FeatureUnlogged, driver.FeatureFillFactor, driver.FeatureTablespaces,
		driver.FeatureRangePartitions, driver.FeatureHashPartitions, driver.FeatureForeignKeys, driver.FeaturePartitionedForeignKeys} {
		if !d.Supports(f) {
			t.Errorf("feature %d not supported", f)
		}
	}
}
