package oltp

import (
	"strconv"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// The value templates of sysbench's get_c_value and get_pad_value: groups of 11
// random digits joined by '-'.
const (
	cTemplate   = "###########-###########-###########-###########-###########-###########-###########-###########-###########-###########" // 10 groups, 119 characters
	padTemplate = "###########-###########-###########-###########-###########"                                                             // 5 groups, 59 characters
)

// The statements of oltp_common.lua; %d is the table number.
const (
	sqlPointSelect   = "SELECT c FROM sbtest%d WHERE id=?"
	sqlSimpleRange   = "SELECT c FROM sbtest%d WHERE id BETWEEN ? AND ?"
	sqlSumRange      = "SELECT SUM(k) FROM sbtest%d WHERE id BETWEEN ? AND ?"
	sqlOrderRange    = "SELECT c FROM sbtest%d WHERE id BETWEEN ? AND ? ORDER BY c"
	sqlDistinctRange = "SELECT DISTINCT c FROM sbtest%d WHERE id BETWEEN ? AND ? ORDER BY c"
	sqlIndexUpdate   = "UPDATE sbtest%d SET k=k+1 WHERE id=?"
	sqlNonIndexUpd   = "UPDATE sbtest%d SET c=? WHERE id=?"
	sqlDelete        = "DELETE FROM sbtest%d WHERE id=?"
	sqlInsert        = "INSERT INTO sbtest%d (id, k, c, pad) VALUES (?, ?, ?, ?)"
)

// loadColumns returns the columns the loader fills; ids are explicit so that the
// data of a batch does not depend on the order in which batches land.
func loadColumns() []string { return []string{"id", "k", "c", "pad"} }

// tableName returns "sbtest<n>".
func tableName(n int) string { return "sbtest" + strconv.Itoa(n) }

// indexName returns "k_<n>", the secondary index on k.
func indexName(n int) string { return "k_" + strconv.Itoa(n) }

// tableDef returns the schema of sbtest<n> exactly as oltp_common.lua creates it.
func (o *Options) tableDef(n int) driver.Table {
	t := driver.Table{
		Name: tableName(n),
		Columns: []driver.Column{
			{Name: "id", Type: driver.Integer, NotNull: true, AutoIncrement: o.AutoInc},
			{Name: "k", Type: driver.Integer, NotNull: true, Default: "'0'"},
			{Name: "c", Type: driver.Char, Size: 120, NotNull: true, Default: "''"},
			{Name: "pad", Type: driver.Char, Size: 60, NotNull: true, Default: "''"},
		},
		Engine:  o.StorageEngine,
		Options: o.CreateTableOptions,
	}
	if o.Secondary {
		t.IDKey = &driver.Index{Name: "xid", Columns: []string{"id"}}
	} else {
		t.PrimaryKey = []string{"id"}
	}
	return t
}

// kIndex returns the secondary index k_<n> on k.
func kIndex(n int) driver.Index {
	return driver.Index{Name: indexName(n), Columns: []string{"k"}}
}
