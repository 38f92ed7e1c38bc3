package postgres

import (
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// createPrefix is "CREATE TABLE " or, for an unlogged table, "CREATE UNLOGGED TABLE ".
func createPrefix(t driver.Table) string {
	if t.Unlogged {
		return "CREATE UNLOGGED TABLE "
	}
	return "CREATE TABLE "
}

// storageClause is what follows a table's (or a partition's) definition:
// " WITH (fillfactor=n)" and " TABLESPACE name", each when set.
func storageClause(t driver.Table) string {
	s := ""
	if t.FillFactor > 0 {
		s += " WITH (fillfactor=" + strconv.Itoa(t.FillFactor) + ")"
	}
	if t.Tablespace != "" {
		s += " TABLESPACE " + quoteIdent(t.Tablespace)
	}
	return s
}

// partitionedTable finishes CREATE TABLE of a table split by t.Partitioning,
// written in b up to its column list, and returns it with one CREATE TABLE …
// PARTITION OF per partition, named t.Name_1 … as pgbench names them. The
// partitioned parent holds no rows, so its fillfactor goes on each partition.
func partitionedTable(b *strings.Builder, t driver.Table) []string {
	p := t.Partitioning
	method := " PARTITION BY RANGE ("
	if p.Hash {
		method = " PARTITION BY HASH ("
	}
	b.WriteString(method + p.Column + ")")
	if t.Tablespace != "" {
		b.WriteString(" TABLESPACE " + quoteIdent(t.Tablespace))
	}
	stmts := []string{b.String()}
	n := strconv.Itoa(p.Count)
	for i := 0; i < p.Count; i++ {
		var bounds string
		if p.Hash {
			bounds = "WITH (MODULUS " + n + ", REMAINDER " + strconv.Itoa(i) + ")"
		} else {
			from, to := "MINVALUE", "MAXVALUE"
			if i > 0 && i-1 < len(p.Bounds) {
				from = strconv.FormatInt(p.Bounds[i-1], 10)
			}
			if i < p.Count-1 && i < len(p.Bounds) {
				to = strconv.FormatInt(p.Bounds[i], 10)
			}
			bounds = "FROM (" + from + ") TO (" + to + ")"
		}
		stmts = append(stmts, createPrefix(t)+t.Name+"_"+strconv.Itoa(i+1)+" PARTITION OF "+t.Name+
			" FOR VALUES "+bounds+storageClause(t))
	}
	return stmts
}

// quoteIdent returns name as a double-quoted identifier, as libpq's
// PQescapeIdentifier writes it (pgbench quotes tablespaces so).
func quoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// Supports reports PostgreSQL's features: all of them.
func (Dialect) Supports(f driver.Feature) bool {
	switch f {
	case driver.FeatureUnlogged, driver.FeatureFillFactor, driver.FeatureTablespaces,
		driver.FeatureRangePartitions, driver.FeatureHashPartitions,
		driver.FeatureForeignKeys, driver.FeaturePartitionedForeignKeys:
		return true
	}
	return false
}

// AddPrimaryKey returns ALTER TABLE … ADD PRIMARY KEY (cols) [USING INDEX
// TABLESPACE ts]; PostgreSQL names the index <table>_pkey.
func (Dialect) AddPrimaryKey(table string, ix driver.Index) string {
	s := "ALTER TABLE " + table + " ADD PRIMARY KEY (" + strings.Join(ix.Columns, ", ") + ")"
	if ix.Tablespace != "" {
		s += " USING INDEX TABLESPACE " + quoteIdent(ix.Tablespace)
	}
	return s
}

// AddForeignKey returns ALTER TABLE … ADD CONSTRAINT name FOREIGN KEY (cols)
// REFERENCES ref (refcols).
func (Dialect) AddForeignKey(table string, fk driver.ForeignKey) string {
	return driver.AddForeignKeySQL(table, fk)
}

// Truncate returns one TRUNCATE TABLE of all the tables: PostgreSQL refuses
// to truncate a table another refers to unless both go in one statement.
func (Dialect) Truncate(tables ...string) []string {
	return []string{"TRUNCATE TABLE " + strings.Join(tables, ", ")}
}

// VacuumAnalyze returns VACUUM ANALYZE table, as pgbench's step v runs it.
func (Dialect) VacuumAnalyze(table string) string { return "VACUUM ANALYZE " + table }

// IntegerSeries returns generate_series(1, n) AS column.
func (Dialect) IntegerSeries(column string, n int64) string {
	return "generate_series(1, " + strconv.FormatInt(n, 10) + ") AS " + column
}

// IntDiv returns x / y: PostgreSQL divides integers to an integer.
func (Dialect) IntDiv(x, y string) string { return x + " / " + y }
