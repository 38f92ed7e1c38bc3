package postgres

import (
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// Dialect spells fairbench's portable schema and statements for PostgreSQL, the
// way sysbench's pgsql driver writes them. Identifiers are written unquoted, so
// PostgreSQL folds them to lower case.
type Dialect struct{}

var _ driver.Dialect = Dialect{}

// Name returns "postgres".
func (Dialect) Name() string { return "postgres" }

// columnType spells a column's type; an auto-increment integer becomes a serial.
func columnType(c driver.Column) string {
	if c.AutoIncrement {
		switch c.Type {
		case driver.SmallInt:
			return "SMALLSERIAL"
		case driver.BigInt:
			return "BIGSERIAL"
		default:
			return "SERIAL"
		}
	}
	if s, ok := driver.StandardType(c); ok {
		return s
	}
	switch c.Type {
	case driver.Float:
		return "DOUBLE PRECISION"
	case driver.Timestamp:
		return "TIMESTAMP"
	}
	return "TEXT"
}

// columnDef spells one column of CREATE TABLE. A serial column gets neither a
// default nor NOT NULL, which it implies, as sysbench writes "id SERIAL".
func columnDef(c driver.Column) string {
	if c.AutoIncrement {
		return c.Name + " " + columnType(c)
	}
	return driver.ColumnDefinition(c, columnType(c))
}

// CreateTable returns CREATE [UNLOGGED] TABLE for t (with its fillfactor and
// tablespace), then CREATE INDEX for its IDKey and, with PartitionByHash > 1,
// one CREATE TABLE … PARTITION OF per hash partition (by the first
// primary-key column, or the first column when there is none); with
// Partitioning, the partitions it names instead (see partitionedTable).
// Engine and Options are MySQL's and ignored.
func (Dialect) CreateTable(t driver.Table) []string {
	var b strings.Builder
	b.WriteString(createPrefix(t))
	b.WriteString(t.Name)
	b.WriteString(" (")
	for i, c := range t.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(columnDef(c))
	}
	if len(t.PrimaryKey) > 0 {
		b.WriteString(", PRIMARY KEY (")
		b.WriteString(strings.Join(t.PrimaryKey, ", "))
		b.WriteString(")")
	}
	b.WriteString(")")
	if t.Partitioning != nil {
		return partitionedTable(&b, t)
	}
	b.WriteString(storageClause(t))
	partitionKey := partitionColumn(t)
	if t.PartitionByHash > 1 && partitionKey != "" {
		b.WriteString(" PARTITION BY HASH (")
		b.WriteString(partitionKey)
		b.WriteString(")")
	}
	stmts := []string{b.String()}
	if t.PartitionByHash > 1 && partitionKey != "" {
		n := strconv.Itoa(t.PartitionByHash)
		for i := 0; i < t.PartitionByHash; i++ {
			stmts = append(stmts, "CREATE TABLE "+t.Name+"_p"+strconv.Itoa(i)+" PARTITION OF "+t.Name+
				" FOR VALUES WITH (MODULUS "+n+", REMAINDER "+strconv.Itoa(i)+")")
		}
	}
	if t.IDKey != nil {
		ix := *t.IDKey
		if ix.Name == "" {
			ix.Name = "xid"
		}
		// Index names share the schema's namespace, so the table name keeps them apart.
		ix.Name += "_" + t.Name
		stmts = append(stmts, Dialect{}.CreateIndex(t.Name, ix))
	}
	return stmts
}

// partitionColumn is the column a hash-partitioned table is split by.
func partitionColumn(t driver.Table) string {
	if len(t.PrimaryKey) > 0 {
		return t.PrimaryKey[0]
	}
	if len(t.Columns) > 0 {
		return t.Columns[0].Name
	}
	return ""
}

// CreateIndex returns CREATE [UNIQUE] INDEX ix.Name ON table (columns).
func (Dialect) CreateIndex(table string, ix driver.Index) string {
	unique := ""
	if ix.Unique {
		unique = "UNIQUE "
	}
	return "CREATE " + unique + "INDEX " + ix.Name + " ON " + table + " (" + strings.Join(ix.Columns, ", ") + ")"
}

// DropTable returns DROP TABLE IF EXISTS table CASCADE (partitions go with it).
func (Dialect) DropTable(table string) string {
	return "DROP TABLE IF EXISTS " + table + " CASCADE"
}

// ListTables lists the tables of the current schema, partitioned parents
// included and their partitions left out.
func (Dialect) ListTables() string {
	return "SELECT t.tablename FROM pg_catalog.pg_tables t" +
		" JOIN pg_catalog.pg_namespace n ON n.nspname = t.schemaname" +
		" JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid AND c.relname = t.tablename" +
		" WHERE t.schemaname = current_schema() AND NOT c.relispartition ORDER BY t.tablename"
}

// AfterLoad moves the sequence of each auto-increment column past the largest
// loaded value, so that an INSERT without the column gets a fresh one.
func (Dialect) AfterLoad(t driver.Table) []string {
	var stmts []string
	for _, c := range t.Columns {
		if !c.AutoIncrement {
			continue
		}
		stmts = append(stmts, "SELECT setval(pg_get_serial_sequence('"+t.Name+"', '"+c.Name+"'), "+
			"(SELECT COALESCE(MAX("+c.Name+"), 0) + 1 FROM "+t.Name+"), false)")
	}
	return stmts
}

// InsertOmitsAutoIncrement is true: PostgreSQL assigns a serial only when the
// INSERT leaves the column out.
func (Dialect) InsertOmitsAutoIncrement() bool { return true }

// Begin returns "BEGIN".
func (Dialect) Begin() string { return "BEGIN" }

// BeginWrite returns "BEGIN": PostgreSQL locks rows as statements touch them.
func (Dialect) BeginWrite() string { return "BEGIN" }

// Commit returns "COMMIT".
func (Dialect) Commit() string { return "COMMIT" }

// Rollback returns "ROLLBACK".
func (Dialect) Rollback() string { return "ROLLBACK" }

// QuoteString returns s as a string literal, doubling single quotes; the server
// is expected to run with standard_conforming_strings on (its default), where a
// backslash is an ordinary character.
func (Dialect) QuoteString(s string) string {
	return string(appendQuoted(make([]byte, 0, len(s)+2), s, false))
}

// ForUpdate returns " FOR UPDATE".
func (Dialect) ForUpdate() string { return " FOR UPDATE" }
