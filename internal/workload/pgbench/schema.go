// Package pgbench is pgbench's workload: its data set (the four tables
// pgbench_branches, pgbench_tellers, pgbench_accounts and pgbench_history,
// as pgbench 15 creates them), the steps of its initialization (pgbench -i),
// and reading back the scale of a loaded data set. Every difference between
// PostgreSQL, MariaDB and SQLite goes through the driver's Dialect.
package pgbench

import (
	"github.com/fairbench/fairbench/internal/db/driver"
)

// The tables of pgbench's data set.
const (
	Branches = "pgbench_branches"
	Tellers  = "pgbench_tellers"
	Accounts = "pgbench_accounts"
	History  = "pgbench_history"
)

// The rows of each table per unit of scale, as pgbench sizes them.
const (
	BranchesPerScale = 1
	TellersPerScale  = 10
	AccountsPerScale = 100000
)

// BigAidScale is the scale from which account ids do not fit an integer
// column and pgbench makes aid a bigint (its SCALE_32BIT_THRESHOLD).
const BigAidScale = 20000

// Tables lists the four tables in the order Drop removes them (those that
// refer to another first).
func Tables() []string { return []string{History, Accounts, Tellers, Branches} }

// schemaTables returns the four tables in the order pgbench creates them
// (history, tellers, accounts, branches), with pgbench 15's columns, types and
// nullability, and opts' storage: fillfactor on all but history, unlogged,
// tablespace, and the partitions of pgbench_accounts. Primary keys are added
// later by step p.
func schemaTables(opts InitOptions) []driver.Table {
	aid := driver.Integer
	if opts.Scale >= BigAidScale {
		aid = driver.BigInt
	}
	col := func(name string, t driver.ColumnType) driver.Column { return driver.Column{Name: name, Type: t} }
	key := func(name string, t driver.ColumnType) driver.Column {
		return driver.Column{Name: name, Type: t, NotNull: true}
	}
	filler := func(size int) driver.Column { return driver.Column{Name: "filler", Type: driver.Char, Size: size} }
	table := func(name string, fill bool, cols ...driver.Column) driver.Table {
		t := driver.Table{Name: name, Columns: cols, Unlogged: opts.Unlogged, Tablespace: opts.Tablespace}
		if fill {
			t.FillFactor = opts.FillFactor
		}
		return t
	}
	accounts := table(Accounts, true, key("aid", aid), col("bid", driver.Integer), col("abalance", driver.Integer), filler(84))
	accounts.Partitioning = partitioning(opts)
	return []driver.Table{
		table(History, false, col("tid", driver.Integer), col("bid", driver.Integer), col("aid", aid),
			col("delta", driver.Integer), col("mtime", driver.Timestamp), filler(22)),
		table(Tellers, true, key("tid", driver.Integer), col("bid", driver.Integer), col("tbalance", driver.Integer), filler(84)),
		accounts,
		table(Branches, true, key("bid", driver.Integer), col("bbalance", driver.Integer), filler(88)),
	}
}

// partitioning is how pgbench splits pgbench_accounts by aid: into
// opts.Partitions parts by hash, or by range in parts of equal size (the
// first from the lowest value, the last to the highest); nil for none.
func partitioning(opts InitOptions) *driver.Partitioning {
	if opts.Partitions < 1 {
		return nil
	}
	p := &driver.Partitioning{Column: "aid", Count: opts.Partitions, Hash: opts.partitionMethod() == "hash"}
	if !p.Hash {
		accounts := int64(AccountsPerScale) * int64(opts.Scale)
		part := (accounts + int64(opts.Partitions) - 1) / int64(opts.Partitions)
		for i := 1; i < opts.Partitions; i++ {
			p.Bounds = append(p.Bounds, int64(i)*part+1)
		}
	}
	return p
}

// keyDef is a primary key step p adds to a table.
type keyDef struct {
	table string
	index driver.Index
}

// primaryKeys are the keys step p adds, in pgbench's order; PostgreSQL names
// their indexes <table>_pkey, and so does fairbench where it names them.
func primaryKeys(indexTablespace string) []keyDef {
	pk := func(table, column string) keyDef {
		return keyDef{table, driver.Index{Name: table + "_pkey", Columns: []string{column}, Unique: true, Tablespace: indexTablespace}}
	}
	return []keyDef{pk(Branches, "bid"), pk(Tellers, "tid"), pk(Accounts, "aid")}
}

// fkDef is a foreign key step f adds to a table.
type fkDef struct {
	table string
	fk    driver.ForeignKey
}

// foreignKeys are the constraints step f adds, named and ordered as pgbench's.
func foreignKeys() []fkDef {
	fk := func(table, column, ref, refColumn string) fkDef {
		return fkDef{table, driver.ForeignKey{Name: table + "_" + column + "_fkey", Columns: []string{column},
			RefTable: ref, RefColumns: []string{refColumn}}}
	}
	return []fkDef{
		fk(Tellers, "bid", Branches, "bid"),
		fk(Accounts, "bid", Branches, "bid"),
		fk(History, "bid", Branches, "bid"),
		fk(History, "tid", Tellers, "tid"),
		fk(History, "aid", Accounts, "aid"),
	}
}
