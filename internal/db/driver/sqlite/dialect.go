package sqlite

import (
	"strings"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// Dialect is the SQL of SQLite.
type Dialect struct{}

var _ driver.Dialect = Dialect{}

// Name returns "sqlite".
func (Dialect) Name() string { return "sqlite" }

// CreateTable returns CREATE TABLE and, for an IDKey, a CREATE INDEX.
//
// Types are SQLite's affinities (INTEGER, TEXT, NUMERIC, REAL). An
// auto-increment column becomes "INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT",
// the rowid alias: an INSERT that leaves it out gets the next id, explicit ids
// 1..N load as given, and ids are never reused after a delete, as with MySQL's
// AUTO_INCREMENT. The primary key must be written inline for the alias, so a
// table-level PRIMARY KEY is omitted when it names only that column (and with
// sysbench's --secondary, where the id is only an IDKey, the id is still the
// rowid, which is the only way SQLite generates values). Engine, Options and
// PartitionByHash do not apply to SQLite.
func (Dialect) CreateTable(t driver.Table) []string {
	auto := ""
	for _, c := range t.Columns {
		if c.AutoIncrement && c.Type != driver.Char && c.Type != driver.Varchar {
			auto = c.Name
			break
		}
	}
	pk := t.PrimaryKey
	if len(pk) > 1 || (len(pk) == 1 && pk[0] != auto) {
		auto = "" // only a single-column key on the column itself can be the rowid alias
	}
	var defs []string
	for _, c := range t.Columns {
		defs = append(defs, columnDef(c, c.Name == auto))
	}
	if len(pk) > 0 && auto == "" {
		defs = append(defs, "PRIMARY KEY ("+strings.Join(pk, ", ")+")")
	}
	stmts := []string{"CREATE TABLE " + t.Name + "(\n  " + strings.Join(defs, ",\n  ") + "\n)"}
	if t.IDKey != nil {
		ix := *t.IDKey
		// SQLite index names are database-wide; qualify sysbench's "xid" per table.
		ix.Name = t.Name + "_" + ix.Name
		stmts = append(stmts, Dialect{}.CreateIndex(t.Name, ix))
	}
	return stmts
}

// columnDef spells one column; rowid makes it the auto-increment rowid alias.
func columnDef(c driver.Column, rowid bool) string {
	if rowid {
		return c.Name + " INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT"
	}
	return driver.ColumnDefinition(c, affinity(c.Type))
}

// affinity maps a portable type to its SQLite type affinity. SQLite does not
// enforce lengths, so CHAR(n) and VARCHAR(n) are TEXT; DECIMAL is NUMERIC;
// timestamps are stored as ISO text.
func affinity(t driver.ColumnType) string {
	switch t {
	case driver.Integer, driver.SmallInt, driver.BigInt:
		return "INTEGER"
	case driver.Char, driver.Varchar, driver.Timestamp:
		return "TEXT"
	case driver.Decimal:
		return "NUMERIC"
	case driver.Float:
		return "REAL"
	}
	return "INTEGER"
}

// CreateIndex returns "CREATE [UNIQUE] INDEX name ON table(cols)".
func (Dialect) CreateIndex(table string, ix driver.Index) string {
	kw := "CREATE INDEX "
	if ix.Unique {
		kw = "CREATE UNIQUE INDEX "
	}
	return kw + ix.Name + " ON " + table + "(" + strings.Join(ix.Columns, ", ") + ")"
}

// DropTable returns "DROP TABLE IF EXISTS table".
func (Dialect) DropTable(table string) string { return "DROP TABLE IF EXISTS " + table }

// ListTables lists the tables of the database file, without SQLite's own.
func (Dialect) ListTables() string {
	return "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name"
}

// AfterLoad returns nil: AUTOINCREMENT follows explicit ids by itself.
func (Dialect) AfterLoad(driver.Table) []string { return nil }

// InsertOmitsAutoIncrement is true: SQLite stores an explicit 0 as 0, so an
// INSERT must leave the id out to get a generated one.
func (Dialect) InsertOmitsAutoIncrement() bool { return true }

// Begin returns "BEGIN" (deferred): read-only transactions run concurrently,
// and a transaction that cannot upgrade to write gets SQLITE_BUSY, counted
// like a deadlock on a server.
func (Dialect) Begin() string { return "BEGIN" }

// BeginWrite returns "BEGIN IMMEDIATE": the write lock is taken up front, so
// concurrent writers wait (busy_timeout) instead of failing with SQLITE_BUSY when a
// deferred transaction tries to upgrade its read lock.
func (Dialect) BeginWrite() string { return "BEGIN IMMEDIATE" }

// Commit returns "COMMIT".
func (Dialect) Commit() string { return "COMMIT" }

// Rollback returns "ROLLBACK".
func (Dialect) Rollback() string { return "ROLLBACK" }

// QuoteString returns s as a single-quoted literal with ' doubled.
func (Dialect) QuoteString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// ForUpdate returns "": SQLite has no row locks; BeginWrite takes the write lock up front.
func (Dialect) ForUpdate() string { return "" }
