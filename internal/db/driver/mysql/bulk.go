package mysql

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unsafe"

	mysqldrv "github.com/go-sql-driver/mysql"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// insertBatchBytes is the target size of one multi-row INSERT statement.
const insertBatchBytes = 1 << 20

// tsvChunk is how much row text the LOAD DATA reader formats ahead.
const tsvChunk = 64 << 10

// Server errors that mean LOAD DATA LOCAL INFILE is switched off.
const (
	erNotAllowedCommand      = 1148 // ER_NOT_ALLOWED_COMMAND (MySQL 5.x, MariaDB)
	erClientLocalFilesOff    = 3948 // ER_CLIENT_LOCAL_FILES_DISABLED (MySQL 8)
	erLoadInfileCapabilityMa = 4166 // ER_LOAD_INFILE_CAPABILITY_DISABLED (MariaDB)
)

// BulkInsert loads rows into table. By default it streams them as
// tab-separated text through LOAD DATA LOCAL INFILE (one statement, no
// temporary file); when the server refuses local infile it sends multi-row
// INSERT statements of about 1 MiB (less when max_allowed_packet is smaller).
func (c *conn) BulkInsert(ctx context.Context, table string, columns []string, rows driver.RowSource) (int64, error) {
	if c.bulk == bulkLoadData {
		n, started, err := c.loadData(ctx, table, columns, rows)
		if err == nil {
			return n, nil
		}
		if started || !localInfileRefused(err) {
			return n, fmt.Errorf("mysql: load data into %s: %w", table, err)
		}
	}
	n, err := c.insertBatches(ctx, table, columns, rows)
	if err != nil {
		return n, fmt.Errorf("mysql: bulk insert into %s: %w", table, err)
	}
	return n, nil
}

func localInfileRefused(err error) bool {
	var me *mysqldrv.MySQLError
	if !errors.As(err, &me) {
		return false
	}
	switch me.Number {
	case erNotAllowedCommand, erClientLocalFilesOff, erLoadInfileCapabilityMa:
		return true
	}
	return false
}

// loadData streams rows through LOAD DATA LOCAL INFILE. started reports whether
// the server asked for the data (after which rows cannot be replayed).
func (c *conn) loadData(ctx context.Context, table string, columns []string, rows driver.RowSource) (n int64, started bool, err error) {
	c.loads++
	name := "fairbench-" + strconv.FormatUint(uint64(uintptr(unsafe.Pointer(c))), 16) + "-" + strconv.Itoa(c.loads)
	r := &tsvReader{rows: rows, ncols: len(columns)}
	mysqldrv.RegisterReaderHandler(name, func() io.Reader {
		started = true
		return r
	})
	defer mysqldrv.DeregisterReaderHandler(name)

	q := "LOAD DATA LOCAL INFILE 'Reader::" + name + "' INTO TABLE " + table +
		` CHARACTER SET utf8mb4 FIELDS TERMINATED BY '\t' ESCAPED BY '\\' LINES TERMINATED BY '\n' (` +
		strings.Join(columns, ", ") + ")"
	if err := c.dl.enter(ctx); err != nil {
		return 0, false, err
	}
	res, err := c.execer.Exec(q, nil)
	c.dl.leave()
	if r.err != nil {
		return 0, started, r.err
	}
	if err != nil {
		return 0, started, c.callError(ctx, err)
	}
	n, err = res.RowsAffected()
	if err != nil {
		return n, started, err
	}
	if n != r.sent {
		return n, started, fmt.Errorf("server stored %d of %d rows (duplicate keys or invalid values are skipped by LOAD DATA LOCAL; run SHOW WARNINGS)", n, r.sent)
	}
	return n, started, nil
}

// tsvReader formats rows as LOAD DATA text on demand, a chunk at a time.
type tsvReader struct {
	rows  driver.RowSource
	ncols int
	buf   []byte
	off   int
	sent  int64
	eof   bool
	err   error
}

// Read implements io.Reader.
func (r *tsvReader) Read(p []byte) (int, error) {
	for r.off == len(r.buf) {
		if r.err != nil {
			return 0, r.err
		}
		if r.eof {
			return 0, io.EOF
		}
		r.fill()
	}
	n := copy(p, r.buf[r.off:])
	r.off += n
	return n, nil
}

// fill formats the next chunk of rows into buf.
func (r *tsvReader) fill() {
	r.buf, r.off = r.buf[:0], 0
	for len(r.buf) < tsvChunk {
		if !r.rows.Next() {
			r.eof = true
			if err := r.rows.Err(); err != nil {
				r.err = fmt.Errorf("row source: %w", err)
			}
			return
		}
		vals, err := r.rows.Values()
		if err != nil {
			r.err = fmt.Errorf("row source: %w", err)
			return
		}
		if len(vals) != r.ncols {
			r.err = fmt.Errorf("row %d has %d values for %d columns", r.sent+1, len(vals), r.ncols)
			return
		}
		for i, v := range vals {
			if i > 0 {
				r.buf = append(r.buf, '\t')
			}
			if r.buf, err = appendTSV(r.buf, v); err != nil {
				r.err = fmt.Errorf("row %d column %d: %w", r.sent+1, i+1, err)
				return
			}
		}
		r.buf = append(r.buf, '\n')
		r.sent++
	}
}

// insertBatches sends rows as multi-row INSERT statements.
func (c *conn) insertBatches(ctx context.Context, table string, columns []string, rows driver.RowSource) (int64, error) {
	limit, err := c.batchLimit(ctx)
	if err != nil {
		return 0, err
	}
	prefix := "INSERT INTO " + table + " (" + strings.Join(columns, ", ") + ") VALUES "
	buf := make([]byte, 0, limit+4096)
	buf = append(buf, prefix...)
	var row []byte
	var total, pending int64
	flush := func() error {
		if pending == 0 {
			return nil
		}
		if err := c.dl.enter(ctx); err != nil {
			return err
		}
		// The statement text is only read during Exec, before buf is reused.
		res, err := c.execer.Exec(unsafe.String(&buf[0], len(buf)), nil)
		c.dl.leave()
		if err != nil {
			return c.callError(ctx, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		total += n
		pending = 0
		buf = append(buf[:0], prefix...)
		return nil
	}
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return total, fmt.Errorf("row source: %w", err)
		}
		if len(vals) != len(columns) {
			return total, fmt.Errorf("row has %d values for %d columns", len(vals), len(columns))
		}
		row = append(row[:0], '(')
		for i, v := range vals {
			if i > 0 {
				row = append(row, ',')
			}
			if row, err = appendLiteral(row, v); err != nil {
				return total, fmt.Errorf("column %s: %w", columns[i], err)
			}
		}
		row = append(row, ')')
		if pending > 0 && len(buf)+1+len(row) > limit {
			if err := flush(); err != nil {
				return total, err
			}
		}
		if pending > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, row...)
		pending++
	}
	if err := rows.Err(); err != nil {
		return total, fmt.Errorf("row source: %w", err)
	}
	return total, flush()
}

// batchLimit is the statement size to aim for: 1 MiB, or half the server's
// max_allowed_packet when that is smaller.
func (c *conn) batchLimit(ctx context.Context) (int, error) {
	rows, err := c.QueryStrings(ctx, "SELECT @@max_allowed_packet")
	if err != nil {
		return 0, err
	}
	limit := insertBatchBytes
	if len(rows) == 1 && len(rows[0]) == 1 {
		if m, err := strconv.Atoi(rows[0][0]); err == nil && m/2 < limit {
			limit = m / 2
		}
	}
	return limit, nil
}
