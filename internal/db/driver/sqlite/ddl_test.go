package sqlite

import (
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// TestSchemaStatements: a primary key added as a unique index, truncate as
// DELETE, the recursive series, and no storage features.
func TestSchemaStatements(t *testing.T) {
	d := Dialect{}
	cases := []struct{ got, want string }{
		{d.AddPrimaryKey("t", driver.Index{Name: "t_pkey", Columns: []string{"id"}}), "CREATE UNIQUE INDEX t_pkey ON t(id)"},
		{d.AddForeignKey("c", driver.ForeignKey{Name: "f"}), ""},
		{strings.Join(d.Truncate("a", "b"), ";"), "DELETE FROM a;DELETE FROM b"},
		{d.VacuumAnalyze("a"), "ANALYZE a"},
		{d.IntegerSeries("n", 3), "(WITH RECURSIVE n_series(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM n_series WHERE n < 3) SELECT n FROM n_series)"},
		{d.IntDiv("(n - 1)", "10"), "(n - 1) / 10"},
	}
	for _, tc := range cases {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	for f := driver.FeatureUnlogged; f <= driver.FeaturePartitionedForeignKeys; f++ {
		if d.Supports(f) {
			t.Errorf("SQLite claims feature %d", f)
		}
	}
}
