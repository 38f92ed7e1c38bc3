package driver

import (
	"strconv"
	"strings"
)

// ColumnDefinition spells the part of a CREATE TABLE column definition that
// MySQL, PostgreSQL and SQLite write alike: "name type", then " DEFAULT d"
// when c has a default and " NOT NULL" when c is NOT NULL. typ is the
// dialect's spelling of c's type; what a dialect adds for an auto-increment
// column is left to it.
func ColumnDefinition(c Column, typ string) string {
	s := c.Name + " " + typ
	if c.Default != "" {
		s += " DEFAULT " + c.Default
	}
	if c.NotNull {
		s += " NOT NULL"
	}
	return s
}

// StandardType spells c's type the way standard SQL, MySQL and PostgreSQL all
// write it: INTEGER, SMALLINT, BIGINT, CHAR(Size), VARCHAR(Size) or
// DECIMAL(Size,Scale). ok is false for Float and Timestamp, whose names differ
// between servers, and for an unknown type.
func StandardType(c Column) (typ string, ok bool) {
	switch c.Type {
	case Integer:
		return "INTEGER", true
	case SmallInt:
		return "SMALLINT", true
	case BigInt:
		return "BIGINT", true
	case Char:
		return "CHAR(" + strconv.Itoa(c.Size) + ")", true
	case Varchar:
		return "VARCHAR(" + strconv.Itoa(c.Size) + ")", true
	case Decimal:
		return "DECIMAL(" + strconv.Itoa(c.Size) + "," + strconv.Itoa(c.Scale) + ")", true
	}
	return "", false
}

// AddForeignKeySQL spells the ALTER TABLE … ADD CONSTRAINT name FOREIGN KEY
// (cols) REFERENCES ref (refcols) that standard SQL, MySQL and PostgreSQL
// all accept.
func AddForeignKeySQL(table string, fk ForeignKey) string {
	return "ALTER TABLE " + table + " ADD CONSTRAINT " + fk.Name + " FOREIGN KEY (" + strings.Join(fk.Columns, ", ") +
		") REFERENCES " + fk.RefTable + " (" + strings.Join(fk.RefColumns, ", ") + ")"
}
