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
}

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
}
