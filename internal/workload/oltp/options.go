package oltp

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/workload"
)

// Options are the sysbench OLTP options, with sysbench's names and defaults. Every
// workload of the family registers all of them, as sysbench's oltp_common.lua does,
// so a command line written for one script works for the others; one that a
// workload's events never read is named when given (IgnoredOptions).
type Options struct {
	Tables    int // --tables
	TableSize int // --table-size
	RangeSize int // --range-size

	PointSelects    int // --point-selects (oltp_point_select always runs one)
	SimpleRanges    int // --simple-ranges
	SumRanges       int // --sum-ranges
	OrderRanges     int // --order-ranges
	DistinctRanges  int // --distinct-ranges
	IndexUpdates    int // --index-updates
	NonIndexUpdates int // --non-index-updates
	DeleteInserts   int // --delete-inserts

	RangeSelects    bool // --range-selects
	AutoInc         bool // --auto-inc
	SkipTrx         bool // --skip-trx
	Secondary       bool // --secondary
	CreateSecondary bool // --create-secondary

	StorageEngine      string // --mysql-storage-engine
	CreateTableOptions string // --create-table-options
}

// DefaultOptions returns sysbench's defaults.
func DefaultOptions() Options {
	return Options{
		Tables:             1,
		TableSize:          10000,
		RangeSize:          100,
		PointSelects:       10,
		SimpleRanges:       1,
		SumRanges:          1,
		OrderRanges:        1,
		DistinctRanges:     1,
		IndexUpdates:       1,
		NonIndexUpdates:    1,
		DeleteInserts:      1,
		RangeSelects:       true,
		AutoInc:            true,
		SkipTrx:            false,
		Secondary:          false,
		CreateSecondary:    true,
		StorageEngine:      "innodb",
		CreateTableOptions: "",
	}
}

// register binds o's fields to flags on fs, with o's current values as defaults.
func (o *Options) register(fs *pflag.FlagSet) {
	fs.IntVar(&o.Tables, "tables", o.Tables, "Number of tables (sbtest1..sbtestN)")
	fs.IntVar(&o.TableSize, "table-size", o.TableSize, "Number of rows per table")
	fs.IntVar(&o.RangeSize, "range-size", o.RangeSize, "Range size for range SELECT queries (rows between id and id+range-size-1)")
	fs.IntVar(&o.PointSelects, "point-selects", o.PointSelects, "Number of point SELECT queries per transaction (oltp_point_select always runs 1)")
	fs.IntVar(&o.SimpleRanges, "simple-ranges", o.SimpleRanges, "Number of simple range SELECT queries per transaction")
	fs.IntVar(&o.SumRanges, "sum-ranges", o.SumRanges, "Number of SELECT SUM() queries per transaction")
	fs.IntVar(&o.OrderRanges, "order-ranges", o.OrderRanges, "Number of SELECT ORDER BY queries per transaction")
	fs.IntVar(&o.DistinctRanges, "distinct-ranges", o.DistinctRanges, "Number of SELECT DISTINCT queries per transaction")
	fs.IntVar(&o.IndexUpdates, "index-updates", o.IndexUpdates, "Number of UPDATE index queries per transaction")
	fs.IntVar(&o.NonIndexUpdates, "non-index-updates", o.NonIndexUpdates, "Number of UPDATE non-index queries per transaction")
	fs.IntVar(&o.DeleteInserts, "delete-inserts", o.DeleteInserts, "Number of DELETE/INSERT combinations per transaction")
	boolFlag(fs, &o.RangeSelects, "range-selects", "Enable/disable all range SELECT queries (on|off)")
	boolFlag(fs, &o.AutoInc, "auto-inc", "Use an AUTO_INCREMENT column as primary key (MySQL), or its alternative in other databases (PostgreSQL SERIAL); when off, use client-generated ids (on|off)")
	boolFlag(fs, &o.SkipTrx, "skip-trx", "Don't start explicit transactions and execute all queries in AUTOCOMMIT mode (on|off)")
	boolFlag(fs, &o.Secondary, "secondary", "Use a secondary index (KEY xid) in place of the PRIMARY KEY (on|off)")
	boolFlag(fs, &o.CreateSecondary, "create-secondary", "Create a secondary index on k (k_N) in addition to the PRIMARY KEY (on|off)")
	fs.StringVar(&o.StorageEngine, "mysql-storage-engine", o.StorageEngine, "Storage engine, if MySQL is used")
	fs.StringVar(&o.CreateTableOptions, "create-table-options", o.CreateTableOptions, "Text appended to CREATE TABLE on MySQL, e.g. \"ROW_FORMAT=COMPRESSED\" (ignored by other databases)")
}

// maxTableSize keeps ids (and id+range-size-1) inside the INTEGER column.
const maxTableSize = workload.MaxTableSize

// validate checks the options; the error names the flag and says what to change.
func (o *Options) validate() error {
	if o.Tables < 1 || o.Tables > workload.MaxTables {
		return fmt.Errorf("--tables=%d: use 1 to %d tables", o.Tables, workload.MaxTables)
	}
	if o.TableSize < 1 {
		return fmt.Errorf("--table-size=%d: use 1 or more rows per table", o.TableSize)
	}
	if o.TableSize > maxTableSize {
		return fmt.Errorf("--table-size=%d: the id column is a 32-bit INTEGER, use at most %d rows per table", o.TableSize, maxTableSize)
	}
	if o.RangeSize < 1 {
		return fmt.Errorf("--range-size=%d: use 1 or more rows per range", o.RangeSize)
	}
	if int64(o.TableSize)+int64(o.RangeSize)-1 > maxTableSize {
		return fmt.Errorf("--range-size=%d: ranges would end past the largest INTEGER id %d; lower --range-size or --table-size", o.RangeSize, maxTableSize)
	}
	counts := []struct {
		flag string
		n    int
	}{
		{"point-selects", o.PointSelects},
		{"simple-ranges", o.SimpleRanges},
		{"sum-ranges", o.SumRanges},
		{"order-ranges", o.OrderRanges},
		{"distinct-ranges", o.DistinctRanges},
		{"index-updates", o.IndexUpdates},
		{"non-index-updates", o.NonIndexUpdates},
		{"delete-inserts", o.DeleteInserts},
	}
	for _, c := range counts {
		if c.n < 0 {
			return fmt.Errorf("--%s=%d: use 0 or more queries per transaction", c.flag, c.n)
		}
	}
	if o.StorageEngine == "" || !isIdentifier(o.StorageEngine) {
		return fmt.Errorf("--mysql-storage-engine=%q: use an engine name such as innodb, myisam or rocksdb (letters, digits and '_')", o.StorageEngine)
	}
	return nil
}

// isIdentifier reports whether s has only ASCII letters, digits and '_'.
func isIdentifier(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}
