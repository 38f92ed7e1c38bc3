package sqlite

import (
	"strconv"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// Supports reports SQLite's features for schemas: none of them (it cannot
// add a constraint to an existing table, and has no partitions, tablespaces,
// fill factor or unlogged tables).
func (Dialect) Supports(driver.Feature) bool { return false }

// AddPrimaryKey returns CREATE UNIQUE INDEX ix.Name ON table(cols): SQLite
// cannot add a primary key to an existing table, and a unique index is what
// it would build for one.
func (Dialect) AddPrimaryKey(table string, ix driver.Index) string {
	ix.Unique = true
	return Dialect{}.CreateIndex(table, ix)
}

// AddForeignKey returns "": SQLite declares foreign keys only in CREATE TABLE.
func (Dialect) AddForeignKey(string, driver.ForeignKey) string { return "" }

// Truncate returns DELETE FROM for each table (SQLite's truncate
// optimisation applies to a DELETE without WHERE).
func (Dialect) Truncate(tables ...string) []string {
	stmts := make([]string, len(tables))
	for i, t := range tables {
		stmts[i] = "DELETE FROM " + t
	}
	return stmts
}

// VacuumAnalyze returns ANALYZE table: a freshly loaded file has nothing to
// vacuum; the statistics are what the planner needs.
func (Dialect) VacuumAnalyze(table string) string { return "ANALYZE " + table }

// IntegerSeries returns a subquery with a recursive CTE counting 1..n.
func (Dialect) IntegerSeries(column string, n int64) string {
	return "(WITH RECURSIVE " + column + "_series(" + column + ") AS (SELECT 1 UNION ALL SELECT " + column + " + 1 FROM " +
		column + "_series WHERE " + column + " < " + strconv.FormatInt(n, 10) + ") SELECT " + column + " FROM " + column + "_series)"
}

// IntDiv returns x / y: SQLite divides integers to an integer.
func (Dialect) IntDiv(x, y string) string { return x + " / " + y }
