package drivertest

import (
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// SysbenchStatements checks the statements that the MySQL and SQLite dialects
// both spell as sysbench does: CREATE [UNIQUE] INDEX name ON table(cols), DROP
// TABLE IF EXISTS, BEGIN, COMMIT, ROLLBACK, a plain string quoted in single
// quotes, and no statements after a load.
func SysbenchStatements(t *testing.T, d driver.Dialect) {
	t.Helper()
	cases := []struct{ got, want string }{
		{d.CreateIndex("sbtest1", driver.Index{Name: "k_1", Columns: []string{"k"}}), "CREATE INDEX k_1 ON sbtest1(k)"},
		{d.CreateIndex("t", driver.Index{Name: "u", Columns: []string{"a", "b"}, Unique: true}), "CREATE UNIQUE INDEX u ON t(a, b)"},
		{d.DropTable("sbtest1"), "DROP TABLE IF EXISTS sbtest1"},
		{d.Begin(), "BEGIN"},
		{d.Commit(), "COMMIT"},
		{d.Rollback(), "ROLLBACK"},
		{d.QuoteString("plain"), "'plain'"},
	}
	for _, tc := range cases {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	if got := d.AfterLoad(Sbtest("sbtest1")); got != nil {
		t.Errorf("AfterLoad = %q, want nil on %s", got, d.Name())
	}
}
