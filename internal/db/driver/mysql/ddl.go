package mysql

import (
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// partitionClause spells p after CREATE TABLE: " PARTITION BY RANGE (col)
// (PARTITION table_1 VALUES LESS THAN (b1), …, PARTITION table_n VALUES LESS
// THAN MAXVALUE)" or " PARTITION BY HASH (col) (PARTITION table_1, …)", the
// partitions named as pgbench names PostgreSQL's.
func partitionClause(table string, p *driver.Partitioning) string {
	method := "RANGE"
	if p.Hash {
		method = "HASH"
	}
	parts := make([]string, p.Count)
	for i := range parts {
		parts[i] = "PARTITION " + table + "_" + strconv.Itoa(i+1)
		if p.Hash {
			continue
		}
		if i < p.Count-1 && i < len(p.Bounds) {
			parts[i] += " VALUES LESS THAN (" + strconv.FormatInt(p.Bounds[i], 10) + ")"
		} else {
			parts[i] += " VALUES LESS THAN MAXVALUE"
		}
	}
	return " PARTITION BY " + method + " (" + p.Column + ") (" + strings.Join(parts, ", ") + ")"
}

// Supports reports what MySQL and MariaDB have: range and hash partitions and
// foreign keys, but InnoDB refuses foreign keys on partitioned tables and has
// no unlogged tables, per-table fill factor or (for these tables) tablespaces
// as PostgreSQL has them.
func (Dialect) Supports(f driver.Feature) bool {
	switch f {
	case driver.FeatureRangePartitions, driver.FeatureHashPartitions, driver.FeatureForeignKeys:
		return true
	}
	return false
}

// AddPrimaryKey returns ALTER TABLE … ADD PRIMARY KEY (cols); ix.Name and
// ix.Tablespace do not apply (MySQL names every primary key PRIMARY).
func (Dialect) AddPrimaryKey(table string, ix driver.Index) string {
	return "ALTER TABLE " + table + " ADD PRIMARY KEY (" + strings.Join(ix.Columns, ", ") + ")"
}

// AddForeignKey returns ALTER TABLE … ADD CONSTRAINT … FOREIGN KEY … REFERENCES.
func (Dialect) AddForeignKey(table string, fk driver.ForeignKey) string {
	return driver.AddForeignKeySQL(table, fk)
}

// Truncate returns TRUNCATE TABLE for each table (each commits implicitly)
// and, for more than one, turns the session's foreign key checks off around
// them: InnoDB refuses to truncate a table another refers to, and emptying
// them all together leaves no reference dangling (PostgreSQL's TRUNCATE of
// several tables at once).
func (Dialect) Truncate(tables ...string) []string {
	var stmts []string
	if len(tables) > 1 {
		stmts = append(stmts, "SET @fairbench_fk_checks = @@foreign_key_checks", "SET foreign_key_checks = 0")
	}
	for _, t := range tables {
		stmts = append(stmts, "TRUNCATE TABLE "+t)
	}
	if len(tables) > 1 {
		stmts = append(stmts, "SET foreign_key_checks = @fairbench_fk_checks")
	}
	return stmts
}

// VacuumAnalyze returns ANALYZE TABLE table, which returns a row of status:
// InnoDB has no vacuum; the statistics are what there is to refresh.
func (Dialect) VacuumAnalyze(table string) string { return "ANALYZE TABLE " + table }

// IntegerSeries returns MariaDB's SEQUENCE engine table seq_1_to_n, its
// column renamed; MySQL, which lacks that engine, refuses it (and its
// recursive CTEs stop at cte_max_recursion_depth, 1000 by default).
func (Dialect) IntegerSeries(column string, n int64) string {
	return "(SELECT seq AS " + column + " FROM seq_1_to_" + strconv.FormatInt(n, 10) + ") AS " + column + "_series"
}

// IntDiv returns x DIV y: MySQL's / gives a decimal, which an INT column would round.
func (Dialect) IntDiv(x, y string) string { return x + " DIV " + y }
