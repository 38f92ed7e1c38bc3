package workload

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// ListTables returns the base tables of the connection's database as a set of
// lower-case names.
func ListTables(ctx context.Context, conn driver.Conn, d driver.Dialect) (map[string]bool, error) {
	rows, err := conn.QueryStrings(ctx, d.ListTables())
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	present := make(map[string]bool, len(rows))
	for _, r := range rows {
		if len(r) > 0 {
			present[strings.ToLower(r[0])] = true
		}
	}
	return present, nil
}

// IndexKey names index on table in the set ListIndexes returns.
func IndexKey(table, index string) string {
	return strings.ToLower(table) + "." + strings.ToLower(index)
}

// ListIndexes returns the indexes of the connection's database (schema) as a
// set of IndexKey(table, index), read with one catalog query. Index catalogs
// differ between servers and the Dialect has no query for them, so this
// switches on the dialect's name; an unknown dialect lists none.
func ListIndexes(ctx context.Context, conn driver.Conn, d driver.Dialect) (map[string]bool, error) {
	var q string
	switch d.Name() {
	case "mysql":
		q = "SELECT DISTINCT table_name, index_name FROM information_schema.statistics WHERE table_schema = DATABASE()"
	case "postgres":
		q = "SELECT tablename, indexname FROM pg_catalog.pg_indexes WHERE schemaname = current_schema()"
	case "sqlite":
		q = "SELECT tbl_name, name FROM sqlite_master WHERE type = 'index'"
	default:
		return map[string]bool{}, nil
	}
	rows, err := conn.QueryStrings(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("list indexes: %w", err)
	}
	set := make(map[string]bool, len(rows))
	for _, r := range rows {
		if len(r) == 2 {
			set[IndexKey(r[0], r[1])] = true
		}
	}
	return set, nil
}

// maxNamed bounds the names an Absent spells out.
const maxNamed = 5

// Absent is what a workload's tables lack: how many of how many, and the
// first few names, so that a message stays short however many tables the
// options ask for.
type Absent struct {
	// Count is how many of the tables needed are missing.
	Count int
	// Needed names the tables needed, for a message: "sbtest1…sbtest8", or
	// the tables themselves when they are few.
	Needed string
	// First names the first missing tables, in order, at most maxNamed.
	First []string
}

// None reports whether nothing is missing.
func (a Absent) None() bool { return a.Count == 0 }

// Add records one more missing table.
func (a *Absent) Add(name string) {
	a.Count++
	if len(a.First) < maxNamed {
		a.First = append(a.First, name)
	}
}

// String renders "table(s) sbtest1, sbtest2" when every missing table is
// named, or "tables sbtest1…sbtest100000000: 99,999,998 missing; first:
// sbtest3, …" when there are more than a message should list.
func (a Absent) String() string {
	if a.Count <= len(a.First) {
		return "table(s) " + strings.Join(a.First, ", ")
	}
	return fmt.Sprintf("tables %s: %s missing; first: %s, …", a.Needed, GroupDigits(int64(a.Count)), strings.Join(a.First, ", "))
}

// GroupDigits renders n with a comma between groups of three digits
// ("99,999,998").
func GroupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
