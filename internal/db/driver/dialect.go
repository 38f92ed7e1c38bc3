package driver

// ColumnType is a portable column type; each Dialect spells it for its server.
type ColumnType int

// The portable column types. Size and Scale qualify Char, Varchar and Decimal.
const (
	Integer   ColumnType = iota // 32-bit integer
	SmallInt                    // 16-bit integer
	BigInt                      // 64-bit integer
	Char                        // fixed-length text of Size characters
	Varchar                     // variable-length text of at most Size characters
	Decimal                     // exact number, Size digits, Scale after the point
	Float                       // double precision
	Timestamp                   // date and time, no zone
)

// Column describes one column of a Table.
type Column struct {
	Name    string
	Type    ColumnType
	Size    int
	Scale   int
	NotNull bool
	// Default is a literal already quoted as SQL ("'0'", "''"); empty for none.
	Default string
	// AutoIncrement makes the server assign the column's value (MySQL
	// AUTO_INCREMENT, PostgreSQL SERIAL, SQLite INTEGER PRIMARY KEY).
	AutoIncrement bool
}

// Index is a named index over columns.
type Index struct {
	Name    string
	Columns []string
	Unique  bool
	// Tablespace is where PostgreSQL stores the index (a primary key's
	// USING INDEX TABLESPACE); "" for the default. Dialects without
	// FeatureTablespaces ignore it.
	Tablespace string
}

// ForeignKey is a named constraint: Columns of a table reference RefColumns
// of RefTable.
type ForeignKey struct {
	Name       string
	Columns    []string
	RefTable   string
	RefColumns []string
}

// Partitioning splits a table by one integer column into Count partitions
// named <table>_1 … <table>_<Count>, as pgbench names them.
type Partitioning struct {
	Column string
	// Hash splits by a hash of Column; otherwise the table is split by range
	// at Bounds.
	Hash  bool
	Count int
	// Bounds are the exclusive upper bounds of the range partitions but the
	// last, ascending: partition 1 holds the values below Bounds[0], partition
	// Count those from Bounds[Count-2] up.
	Bounds []int64
}

// Feature is something a target may lack; Dialect.Supports says which it has.
type Feature int

// The features a Dialect may support.
const (
	// FeatureUnlogged: tables whose writes skip the write-ahead log (Table.Unlogged).
	FeatureUnlogged Feature = iota + 1
	// FeatureFillFactor: a per-table fill factor of pages (Table.FillFactor).
	FeatureFillFactor
	// FeatureTablespaces: named tablespaces for tables and indexes.
	FeatureTablespaces
	// FeatureRangePartitions and FeatureHashPartitions: Table.Partitioning.
	FeatureRangePartitions
	FeatureHashPartitions
	// FeatureForeignKeys: AddForeignKey on existing tables.
	FeatureForeignKeys
	// FeaturePartitionedForeignKeys: foreign keys from or to a partitioned table.
	FeaturePartitionedForeignKeys
)

// Table describes a table to create. PrimaryKey may be empty; IDKey, when set,
// is a non-unique key created inside CREATE TABLE (sysbench's --secondary "KEY xid (id)").
type Table struct {
	Name       string
	Columns    []Column
	PrimaryKey []string
	IDKey      *Index
	// Engine is the MySQL storage engine ("innodb"); other dialects ignore it.
	Engine string
	// Options is appended verbatim to CREATE TABLE on MySQL (--mysql-table-options
	// style); other dialects ignore it.
	Options string
	// PartitionByHash, when > 1 and supported, partitions by hash of the first
	// primary-key column into that many parts.
	PartitionByHash int
	// Unlogged makes a table whose writes skip the write-ahead log
	// (PostgreSQL's UNLOGGED); dialects without FeatureUnlogged ignore it.
	Unlogged bool
	// FillFactor, when > 0, is how full (10..100 %) inserts fill the
	// table's pages (PostgreSQL's fillfactor storage parameter, set on each
	// partition of a partitioned table); dialects without FeatureFillFactor
	// ignore it.
	FillFactor int
	// Tablespace is where PostgreSQL stores the table and its partitions;
	// dialects without FeatureTablespaces ignore it.
	Tablespace string
	// Partitioning, when set, splits the table as it says (it wins over
	// PartitionByHash); dialects without the feature ignore it.
	Partitioning *Partitioning
}

// Dialect holds the SQL that differs between targets.
type Dialect interface {
	// Name is "mysql", "postgres" or "sqlite".
	Name() string
	// CreateTable returns the statements that create t (more than one where the
	// dialect needs separate statements, e.g. PostgreSQL's non-unique IDKey).
	CreateTable(t Table) []string
	// CreateIndex returns the statement that creates index ix on table.
	CreateIndex(table string, ix Index) string
	// DropTable returns the statement that drops table if it exists.
	DropTable(table string) string
	// ListTables returns a query whose first column is the name of each base table
	// in the connection's current database/schema.
	ListTables() string
	// AfterLoad returns statements to run after rows with explicit values were loaded
	// into an auto-increment column (PostgreSQL: setval on the sequence); may be nil.
	AfterLoad(t Table) []string
	// InsertOmitsAutoIncrement is true when an INSERT must leave out the
	// auto-increment column to get a generated value (PostgreSQL, SQLite), and
	// false when it passes 0 for it (MySQL), as sysbench does.
	InsertOmitsAutoIncrement() bool
	// Begin, Commit and Rollback are the transaction statements sent as text.
	Begin() string
	// BeginWrite starts a transaction that will write (where the target needs to
	// know up front, as SQLite does; elsewhere the same as Begin).
	BeginWrite() string
	Commit() string
	Rollback() string
	// ForUpdate returns the clause appended to a SELECT that locks the rows it
	// reads (" FOR UPDATE"), or "" where the target locks otherwise (SQLite locks
	// the database when a write transaction begins).
	ForUpdate() string
	// QuoteString returns s as a SQL string literal.
	QuoteString(s string) string
	// Supports reports whether the target has feature f.
	Supports(f Feature) bool
	// AddPrimaryKey returns the statement that gives an existing table the
	// primary key ix.Columns (where the target cannot alter a table's key,
	// as SQLite, a unique index named ix.Name).
	AddPrimaryKey(table string, ix Index) string
	// AddForeignKey returns the statement that adds fk to an existing table
	// ("" without FeatureForeignKeys).
	AddForeignKey(table string, fk ForeignKey) string
	// Truncate returns the statements that delete every row of the tables
	// (one statement where the target truncates tables that refer to each
	// other only together, as PostgreSQL does).
	Truncate(tables ...string) []string
	// VacuumAnalyze returns the statement that tidies table after a bulk load
	// and refreshes its planner statistics (PostgreSQL: VACUUM ANALYZE); it may
	// return rows (MySQL's ANALYZE TABLE), so run it with Query.
	VacuumAnalyze(table string) string
	// IntegerSeries returns a FROM item whose one column, named column, holds
	// the integers 1..n, for INSERT … SELECT generating rows in the server.
	IntegerSeries(column string, n int64) string
	// IntDiv returns the SQL of the integer quotient of x by y (both integer
	// expressions, parenthesised by the caller where needed).
	IntDiv(x, y string) string
}
