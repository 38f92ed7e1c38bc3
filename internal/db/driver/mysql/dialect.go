package mysql

import (
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// Dialect is the SQL of MySQL-protocol servers, written as sysbench writes it.
type Dialect struct{}

var _ driver.Dialect = Dialect{}

// Name returns "mysql".
func (Dialect) Name() string { return "mysql" }

// CreateTable returns one CREATE TABLE statement laid out like sysbench's
// oltp_common.lua: columns, PRIMARY KEY and/or "KEY xid (id)", then
// "/*! ENGINE = <engine> */" (innodb when Engine is empty), Options verbatim and,
// with PartitionByHash > 1, "PARTITION BY HASH(<first key column>) PARTITIONS n"
// (with Partitioning, the partitions it names: see partitionClause). Unlogged,
// FillFactor and Tablespace are PostgreSQL's and ignored.
func (Dialect) CreateTable(t driver.Table) []string {
	var b strings.Builder
	b.WriteString("CREATE TABLE ")
	b.WriteString(t.Name)
	b.WriteString("(\n")
	var defs []string
	for _, c := range t.Columns {
		defs = append(defs, columnDef(c))
	}
	if len(t.PrimaryKey) > 0 {
		defs = append(defs, "PRIMARY KEY ("+strings.Join(t.PrimaryKey, ", ")+")")
	}
	if t.IDKey != nil {
		kw := "KEY "
		if t.IDKey.Unique {
			kw = "UNIQUE KEY "
		}
		defs = append(defs, kw+t.IDKey.Name+" ("+strings.Join(t.IDKey.Columns, ", ")+")")
	}
	b.WriteString("  ")
	b.WriteString(strings.Join(defs, ",\n  "))
	b.WriteString("\n)")
	engine := t.Engine
	if engine == "" {
		engine = "innodb"
	}
	b.WriteString(" /*! ENGINE = " + engine + " */")
	if o := strings.TrimSpace(t.Options); o != "" {
		b.WriteString(" " + o)
	}
	if t.Partitioning != nil {
		b.WriteString(partitionClause(t.Name, t.Partitioning))
	} else if t.PartitionByHash > 1 {
		if col := partitionColumn(t); col != "" {
			b.WriteString(" PARTITION BY HASH(" + col + ") PARTITIONS " + strconv.Itoa(t.PartitionByHash))
		}
	}
	return []string{b.String()}
}

// partitionColumn is the first primary-key column, else the first IDKey column.
func partitionColumn(t driver.Table) string {
	if len(t.PrimaryKey) > 0 {
		return t.PrimaryKey[0]
	}
	if t.IDKey != nil && len(t.IDKey.Columns) > 0 {
		return t.IDKey.Columns[0]
	}
	return ""
}

// columnDef spells one column as sysbench does: name, type, DEFAULT, NOT NULL,
// AUTO_INCREMENT.
func columnDef(c driver.Column) string {
	s := driver.ColumnDefinition(c, columnType(c))
	if c.AutoIncrement {
		s += " AUTO_INCREMENT"
	}
	return s
}

// columnType spells a portable column type for MySQL.
func columnType(c driver.Column) string {
	if s, ok := driver.StandardType(c); ok {
		return s
	}
	switch c.Type {
	case driver.Float:
		return "DOUBLE"
	case driver.Timestamp:
		return "DATETIME"
	}
	return "INTEGER"
}

// CreateIndex returns "CREATE [UNIQUE] INDEX name ON table(cols)" (sysbench's form).
func (Dialect) CreateIndex(table string, ix driver.Index) string {
	kw := "CREATE INDEX "
	if ix.Unique {
		kw = "CREATE UNIQUE INDEX "
	}
	return kw + ix.Name + " ON " + table + "(" + strings.Join(ix.Columns, ", ") + ")"
}

// DropTable returns "DROP TABLE IF EXISTS table".
func (Dialect) DropTable(table string) string { return "DROP TABLE IF EXISTS " + table }

// ListTables lists the base tables of the connection's current database.
func (Dialect) ListTables() string {
	return "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_type = 'BASE TABLE' ORDER BY table_name"
}

// AfterLoad returns nil: AUTO_INCREMENT follows explicit values by itself.
func (Dialect) AfterLoad(driver.Table) []string { return nil }

// InsertOmitsAutoIncrement is false: MySQL generates a value for an explicit 0,
// which is how sysbench inserts.
func (Dialect) InsertOmitsAutoIncrement() bool { return false }

// Begin returns "BEGIN".
func (Dialect) Begin() string { return "BEGIN" }

// BeginWrite returns "BEGIN": InnoDB locks rows as statements touch them.
func (Dialect) BeginWrite() string { return "BEGIN" }

// Commit returns "COMMIT".
func (Dialect) Commit() string { return "COMMIT" }

// Rollback returns "ROLLBACK".
func (Dialect) Rollback() string { return "ROLLBACK" }

// QuoteString returns s as a single-quoted literal with ' and \ escaped by a
// backslash (the server's default sql_mode, without NO_BACKSLASH_ESCAPES).
func (Dialect) QuoteString(s string) string {
	return string(appendQuoted(make([]byte, 0, len(s)+2), s))
}

// appendQuoted appends s as a quoted literal; NUL, newline, CR and ^Z are
// escaped too so that the statement text stays printable.
func appendQuoted(b []byte, s string) []byte {
	return append(appendEscaped(append(b, '\''), s, &literalEscapes), '\'')
}

// ForUpdate returns " FOR UPDATE".
func (Dialect) ForUpdate() string { return " FOR UPDATE" }
