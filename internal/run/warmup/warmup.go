// Package warmup reads every table of a benchmark, and its indexes, once before
// the measured runs, so that the server's cache holds them: the checksum-based
// warm-up of the method fairbench follows ("for checksum, flow needs to fetch the
// rows in the buffer pool there-by causing it to warm up").
//
// How each target is read:
//   - MySQL, MariaDB, Percona: CHECKSUM TABLE (which reads every row through the
//     clustered index), then SELECT COUNT(*) FORCE INDEX over each secondary
//     B-tree index, which reads that index and gives the exact row count (cheap, as
//     the checksum has just cached the rows); a table without secondary indexes
//     is counted with a plain SELECT COUNT(*).
//   - TiDB: ADMIN CHECKSUM TABLE (table and index key-value pairs), then SELECT COUNT(*).
//   - PostgreSQL: pg_prewarm of each table and each of its indexes into shared
//     buffers (installing the extension with CREATE EXTENSION IF NOT EXISTS when it
//     is not yet installed), then SELECT count(*). When the extension cannot be
//     had, full scans instead: a sequential count(*) of the table and an ordered
//     index(-only) scan of each plain B-tree index. Sequential scans of tables
//     larger than a quarter of shared_buffers go through a small ring buffer, so
//     without pg_prewarm such tables warm mostly the operating system's cache.
//   - SQLite: a count(*) over the table's B-tree (NOT INDEXED) and a scan of each
//     index (INDEXED BY), which warms the operating system's page cache.
//
// Tables are read in parallel on up to the given number of connections.
package warmup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/fairbench/fairbench/internal/base/progress"
	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/record/result"
)

// The methods a Report names.
const (
	MethodChecksum      = "CHECKSUM TABLE"       // MySQL, MariaDB, Percona
	MethodAdminChecksum = "ADMIN CHECKSUM TABLE" // TiDB
	MethodPrewarm       = "pg_prewarm"           // PostgreSQL with the extension
	MethodFullScan      = "full scan"            // PostgreSQL without it, SQLite
)

// Report is what a warm-up did.
type Report struct {
	Method   string        // one of the Method constants
	Tables   int           // tables read
	Rows     int64         // rows over all tables (exact counts)
	Duration time.Duration // wall time of the whole warm-up
	PerTable []TableReport // in the order the tables were given
	// Note says why a fallback method was used, when one was.
	Note string
}

// TableReport is what the warm-up did to one table.
type TableReport struct {
	Table    string
	Rows     int64
	Indexes  int           // secondary indexes read
	Blocks   int64         // pg_prewarm: blocks of table and indexes read into shared buffers
	Checksum string        // CHECKSUM TABLE's / ADMIN CHECKSUM TABLE's checksum
	Duration time.Duration // wall time of this table
	// Skipped names the indexes that could not be read by a full scan (expression,
	// partial or non-B-tree indexes).
	Skipped []string
}

// String gives a one-line summary:
// "warm-up by CHECKSUM TABLE: 8 tables, 800000 rows in 3.21s".
func (r Report) String() string {
	s := fmt.Sprintf("warm-up by %s: %d tables, %d rows in %.2fs", r.Method, r.Tables, r.Rows, r.Duration.Seconds())
	if r.Note != "" {
		s += " (" + r.Note + ")"
	}
	return s
}

// method reads one table on one connection.
type method interface {
	name() string
	table(ctx context.Context, conn driver.Conn, table string) (TableReport, error)
}

// options are the choices tests make; Run uses the zero value.
type options struct {
	noPrewarm bool // use full scans on PostgreSQL even when pg_prewarm is there
}

// Run reads every table (and for PostgreSQL its indexes) so the server's cache
// holds them. Tables are read in parallel on up to threads connections; one line
// per table and the summary go to log (which may be nil), and prog (which may be
// nil) counts the tables and bytes read as they are. A table that is missing is
// an error wrapping driver.ErrTableMissing that names it.
func Run(ctx context.Context, drv driver.Driver, server result.Server, tables []string, threads int, log io.Writer, prog *Progress) (Report, error) {
	return run(ctx, drv, server, tables, threads, log, prog, options{})
}

// Progress follows a warm-up as it reads: tables done of all and, where the
// server says how large the tables are, their bytes. Safe for concurrent use;
// a nil Progress counts nothing.
type Progress struct {
	tables, bytes *progress.Counter
	sizes         sync.Map // table name -> its bytes (int64)
}

// NewProgress returns a Progress that counts from now.
func NewProgress() *Progress {
	return &Progress{tables: progress.NewCounter(0), bytes: progress.NewCounter(0)}
}

// Line renders how far the warm-up is: "warm-up: 3/8 tables, 1.2 GiB of 5.0
// GiB (24.0%), 120.0 MiB/s, ETA 30s" when the sizes are known, "warm-up: 3/8
// tables (37.5%), 0.4 tables/s, ETA 12s" otherwise. The ETA moves only as
// whole tables finish: no server says how far one CHECKSUM TABLE has read.
func (p *Progress) Line() string {
	done, total, elapsed := p.tables.Snapshot()
	if b, bt, be := p.bytes.Snapshot(); bt > 0 {
		return progress.Line(fmt.Sprintf("warm-up: %d/%d tables,", done, total), progress.Bytes, b, bt, be)
	}
	return progress.Line("warm-up:", progress.Tables, done, total, elapsed)
}

// begin sets what is to be read: the tables and the bytes of each (nil when
// the server does not say).
func (p *Progress) begin(tables []string, sizes map[string]int64) {
	if p == nil {
		return
	}
	p.tables.SetTotal(int64(len(tables)))
	var sum int64
	for _, t := range tables {
		sum += sizes[t]
		p.sizes.Store(t, sizes[t])
	}
	p.bytes.SetTotal(sum)
}

// read counts table as read.
func (p *Progress) read(table string) {
	if p == nil {
		return
	}
	p.tables.Add(1)
	if n, ok := p.sizes.Load(table); ok {
		p.bytes.Add(n.(int64))
	}
}

func run(ctx context.Context, drv driver.Driver, server result.Server, tables []string, threads int, log io.Writer, prog *Progress, opt options) (Report, error) {
	start := time.Now()
	if log == nil {
		log = io.Discard
	}
	conn0, err := drv.Connect(ctx, 0)
	if err != nil {
		return Report{}, fmt.Errorf("warm-up: connect: %w", err)
	}
	conns := []driver.Conn{conn0}
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	names, err := resolveTables(ctx, drv, conn0, tables)
	if err != nil {
		return Report{}, err
	}
	m, note, err := chooseMethod(ctx, drv.Kind(), server, conn0, opt)
	if err != nil {
		return Report{}, err
	}
	if prog != nil {
		prog.begin(names, tableBytes(ctx, drv.Kind(), conn0, names))
	}
	rep := Report{Method: m.name(), Note: note, PerTable: make([]TableReport, len(names))}
	if note != "" {
		fmt.Fprintf(log, "warm-up: %s\n", note)
	}

	workers := min(max(threads, 1), len(names))
	for i := 1; i < workers; i++ {
		c, err := drv.Connect(ctx, i)
		if err != nil {
			return Report{}, fmt.Errorf("warm-up: connect #%d: %w", i+1, err)
		}
		conns = append(conns, c)
	}
	if err := readAll(ctx, m, conns[:workers], names, rep.PerTable, log, prog); err != nil {
		return Report{}, err
	}
	for _, t := range rep.PerTable {
		rep.Rows += t.Rows
	}
	rep.Tables = len(names)
	rep.Duration = time.Since(start)
	fmt.Fprintln(log, rep.String())
	return rep, nil
}

// readAll reads the tables with one goroutine per connection, storing each
// table's report at its index. The first error stops the others.
func readAll(ctx context.Context, m method, conns []driver.Conn, tables []string, out []TableReport, log io.Writer, prog *Progress) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan int)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex // guards firstErr and log
		firstErr error
	)
	for _, conn := range conns {
		wg.Go(func() {
			for i := range jobs {
				t0 := time.Now()
				rep, err := m.table(ctx, conn, tables[i])
				rep.Table, rep.Duration = tables[i], time.Since(t0)
				mu.Lock()
				if err != nil {
					if firstErr == nil {
						firstErr = fmt.Errorf("warm-up: %s: %w", tables[i], err)
						cancel()
					}
				} else {
					out[i] = rep
					logTable(log, rep)
					prog.read(tables[i])
				}
				mu.Unlock()
			}
		})
	}
feed:
	for i := range tables {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		return fmt.Errorf("warm-up: %w", context.Cause(ctx))
	}
	return firstErr
}

// logTable writes "sbtest3: 100000 rows in 0.21s".
func logTable(log io.Writer, t TableReport) {
	line := fmt.Sprintf("%s: %d rows in %.2fs", t.Table, t.Rows, t.Duration.Seconds())
	if len(t.Skipped) > 0 {
		line += fmt.Sprintf(" (not read: %s)", strings.Join(t.Skipped, "; "))
	}
	fmt.Fprintln(log, line)
}

// tableBytes returns the bytes of each table and its indexes as the server
// estimates them (MySQL's information_schema, PostgreSQL's relation sizes),
// for the ETA; nil when it cannot say (SQLite, or the query failed).
func tableBytes(ctx context.Context, kind string, conn driver.Conn, tables []string) map[string]int64 {
	sizes := map[string]int64{}
	switch kind {
	case driver.KindMySQL:
		rows, err := conn.QueryStrings(ctx, "SELECT table_name, coalesce(data_length, 0) + coalesce(index_length, 0)"+
			" FROM information_schema.tables WHERE table_schema = DATABASE()")
		if err != nil {
			return nil
		}
		for _, r := range rows {
			var n int64
			if len(r) == 2 && r[1] != "" {
				if _, err := fmt.Sscan(r[1], &n); err == nil {
					sizes[r[0]] = n
				}
			}
		}
	case driver.KindPgSQL:
		for _, t := range tables {
			n, err := queryInt(ctx, conn, "SELECT CASE WHEN c.relkind = 'p' THEN (SELECT coalesce(sum(pg_total_relation_size(relid)), 0)"+
				" FROM pg_partition_tree(c.oid)) ELSE pg_total_relation_size(c.oid) END FROM pg_class c WHERE c.oid = CAST(? AS regclass)", quoteIdent(t, '"'))
			if err != nil {
				return nil
			}
			sizes[t] = n
		}
	default:
		return nil
	}
	return sizes
}

// resolveTables checks that every table exists and returns the names as the
// database spells them (MySQL and SQLite may match names without regard to case).
func resolveTables(ctx context.Context, drv driver.Driver, conn driver.Conn, tables []string) ([]string, error) {
	rows, err := conn.QueryStrings(ctx, drv.Dialect().ListTables())
	if err != nil {
		return nil, fmt.Errorf("warm-up: list tables: %w", err)
	}
	exact := map[string]bool{}
	folded := map[string]string{}
	for _, r := range rows {
		if len(r) > 0 {
			exact[r[0]] = true
			folded[strings.ToLower(r[0])] = r[0]
		}
	}
	caseless := drv.Kind() != driver.KindPgSQL
	names := make([]string, 0, len(tables))
	var missing []string
	for _, t := range tables {
		switch {
		case exact[t]:
			names = append(names, t)
		case caseless && folded[strings.ToLower(t)] != "":
			names = append(names, folded[strings.ToLower(t)])
		default:
			missing = append(missing, t)
		}
	}
	switch len(missing) {
	case 0:
		return names, nil
	case 1:
		return nil, fmt.Errorf("warm-up: %w: %s is not in the database: run 'fairbench prepare' first", driver.ErrTableMissing, missing[0])
	}
	return nil, fmt.Errorf("warm-up: %w: %s are not in the database: run 'fairbench prepare' first",
		driver.ErrTableMissing, strings.Join(missing, ", "))
}

// chooseMethod picks the method for the target; a note says why a fallback was taken.
func chooseMethod(ctx context.Context, kind string, server result.Server, conn driver.Conn, opt options) (method, string, error) {
	switch kind {
	case driver.KindMySQL:
		if server.Flavor == "TiDB" {
			return tidbChecksum{}, "", nil
		}
		return mysqlChecksum{}, "", nil
	case driver.KindPgSQL:
		if opt.noPrewarm {
			return pgScan{}, "", nil
		}
		schema, err := pgPrewarmSchema(ctx, conn)
		if err != nil {
			if ctx.Err() != nil {
				return nil, "", fmt.Errorf("warm-up: %w", err)
			}
			return pgScan{}, fmt.Sprintf("pg_prewarm unavailable (%v): reading with full scans instead; install the contrib package and run CREATE EXTENSION pg_prewarm as a superuser to warm shared buffers", err), nil
		}
		return pgPrewarm{schema: schema}, "", nil
	case driver.KindSQLite:
		return sqliteScan{}, "", nil
	}
	return nil, "", errors.New("warm-up: unknown driver kind " + kind)
}

// quoteIdent quotes an identifier with q (` or "), doubling q inside it.
func quoteIdent(name string, q byte) string {
	s := string(q)
	return s + strings.ReplaceAll(name, s, s+s) + s
}

// queryInt runs a query that returns one integer.
func queryInt(ctx context.Context, conn driver.Conn, query string, args ...any) (int64, error) {
	rows, err := conn.QueryStrings(ctx, query, args...)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", query, err)
	}
	if len(rows) != 1 || len(rows[0]) < 1 {
		return 0, fmt.Errorf("%s: %d rows, want 1", query, len(rows))
	}
	var n int64
	if _, err := fmt.Sscan(rows[0][0], &n); err != nil {
		return 0, fmt.Errorf("%s: %q is not a number", query, rows[0][0])
	}
	return n, nil
}
