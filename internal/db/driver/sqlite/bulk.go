package sqlite

import (
	"context"
	sqldriver "database/sql/driver"
	"fmt"
	"strings"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// maxBulkRows is the most rows one INSERT of a bulk load carries; fewer when
// the columns would pass SQLite's limit of 32766 parameters.
const maxBulkRows = 1024

// maxParams is SQLITE_MAX_VARIABLE_NUMBER of SQLite 3.32 and later.
const maxParams = 32766

// BulkInsert loads rows in one write transaction (BEGIN IMMEDIATE) through a
// prepared multi-row INSERT, plus one more statement for the last, shorter batch.
func (c *conn) BulkInsert(ctx context.Context, table string, columns []string, rows driver.RowSource) (int64, error) {
	n, err := c.bulkInsert(ctx, table, columns, rows)
	if err != nil {
		return n, fmt.Errorf("sqlite: bulk insert into %s: %w", table, err)
	}
	return n, nil
}

func (c *conn) bulkInsert(ctx context.Context, table string, columns []string, rows driver.RowSource) (total int64, err error) {
	ncols := len(columns)
	if ncols == 0 {
		return 0, fmt.Errorf("no columns given")
	}
	batch := min(maxBulkRows, max(1, maxParams/ncols))
	if _, err := c.execer.ExecContext(ctx, "BEGIN IMMEDIATE", nil); err != nil {
		return 0, err
	}
	defer func() {
		if err != nil {
			c.execer.ExecContext(context.Background(), "ROLLBACK", nil)
			total = 0
		}
	}()
	full, err := c.preparer.PrepareContext(ctx, insertSQL(table, columns, batch))
	if err != nil {
		return 0, err
	}
	defer full.Close()
	fullExec := full.(sqldriver.StmtExecContext)

	params := make([]sqldriver.NamedValue, 0, batch*ncols)
	pending := 0
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return 0, fmt.Errorf("row source: %w", err)
		}
		if len(vals) != ncols {
			return 0, fmt.Errorf("row %d has %d values for %d columns", total+int64(pending)+1, len(vals), ncols)
		}
		if params, err = appendArgs(params, vals, pending*ncols); err != nil {
			return 0, fmt.Errorf("row %d: %w", total+int64(pending)+1, err)
		}
		for i := len(params) - ncols; i < len(params); i++ {
			if b, ok := params[i].Value.([]byte); ok {
				params[i].Value = string(b) // the source may reuse its buffer
			}
		}
		pending++
		if pending == batch {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			res, err := fullExec.ExecContext(ctx, params)
			if err != nil {
				return 0, err
			}
			n, _ := res.RowsAffected()
			total += n
			params, pending = params[:0], 0
		}
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("row source: %w", err)
	}
	if pending > 0 {
		res, err := c.execer.ExecContext(ctx, insertSQL(table, columns, pending), params)
		if err != nil {
			return 0, err
		}
		n, _ := res.RowsAffected()
		total += n
	}
	if _, err := c.execer.ExecContext(ctx, "COMMIT", nil); err != nil {
		return 0, err
	}
	return total, nil
}

// insertSQL returns an INSERT of rows rows of placeholders.
func insertSQL(table string, columns []string, rows int) string {
	one := "(" + strings.TrimSuffix(strings.Repeat("?,", len(columns)), ",") + ")"
	var b strings.Builder
	b.WriteString("INSERT INTO " + table + " (" + strings.Join(columns, ", ") + ") VALUES ")
	for i := 0; i < rows; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(one)
	}
	return b.String()
}
