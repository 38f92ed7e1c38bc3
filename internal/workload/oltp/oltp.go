package oltp

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/workload"
)

// oltp is one configured workload of the family.
type oltp struct {
	kind kind
	opts Options

	// ids hands out oltp_insert's client-generated ids (--auto-inc=off), unique
	// across the workers of this workload like sysbench.rand.unique().
	ids uniqueIDs
}

// newOLTP returns workload k with its options registered on fs.
func newOLTP(k kind, fs *pflag.FlagSet) *oltp {
	w := &oltp{kind: k, opts: DefaultOptions()}
	w.opts.register(fs)
	return w
}

// Validate checks the parsed options.
func (w *oltp) Validate() error {
	if err := w.opts.validate(); err != nil {
		return fmt.Errorf("%s: %w", w.kind.name(), err)
	}
	if planFor(w.kind, &w.opts).statements() == 0 {
		return fmt.Errorf("%s: these options leave no statement to run in an event: raise one of the per-transaction counts (e.g. --point-selects) or turn --range-selects on", w.kind.name())
	}
	return nil
}

// rowsPerTable is how many rows Prepare loads into each table: oltp_insert with
// --auto-inc=off starts from empty tables (sysbench sets table_size=0 for its
// prepare), so that loaded ids cannot collide with the client-generated ones.
func (w *oltp) rowsPerTable() int64 {
	if w.kind == insert && !w.opts.AutoInc {
		return 0
	}
	return int64(w.opts.TableSize)
}

// Missing returns the names of sbtest1..sbtestN that the database lacks.
func (w *oltp) Missing(ctx context.Context, conn driver.Conn, d driver.Dialect) ([]string, error) {
	present, err := workload.ListTables(ctx, conn, d)
	if err != nil {
		return nil, err
	}
	var missing []string
	for n := 1; n <= w.opts.Tables; n++ {
		if name := tableName(n); !present[name] {
			missing = append(missing, name)
		}
	}
	return missing, nil
}

// Cleanup drops sbtest1..sbtestN if they exist, saying so for each table.
func (w *oltp) Cleanup(ctx context.Context, db driver.Driver, log io.Writer) error {
	conn, err := db.Connect(ctx, 0)
	if err != nil {
		return fmt.Errorf("cleanup %s: connect: %w", w.kind.name(), err)
	}
	defer conn.Close()
	return dropTables(ctx, conn, db.Dialect(), w.opts.Tables, log)
}

// dropTables drops sbtest1..sbtest<tables> (IF EXISTS), logging each.
func dropTables(ctx context.Context, conn driver.Conn, d driver.Dialect, tables int, log io.Writer) error {
	for n := 1; n <= tables; n++ {
		name := tableName(n)
		fmt.Fprintf(log, "Dropping table '%s'...\n", name)
		if _, err := conn.Exec(ctx, d.DropTable(name)); err != nil {
			return fmt.Errorf("drop table %s: %w", name, err)
		}
	}
	return nil
}

// compile-time check that oltp is a workload.
var _ workload.Workload = (*oltp)(nil)

// bytesPerRow is the size of one sbtest row in InnoDB with its k index, as
// measured on MySQL 8 and MariaDB 10.11 (about 240 MB per million rows).
const bytesPerRow = 240

// Tables names sbtest1..sbtestN.
func (w *oltp) Tables() []string {
	names := make([]string, w.opts.Tables)
	for n := range names {
		names[n] = tableName(n + 1)
	}
	return names
}

// DataBytes estimates the loaded size of the tables.
func (w *oltp) DataBytes() int64 {
	return int64(w.opts.Tables) * int64(w.opts.TableSize) * bytesPerRow
}

// reuseTolerance is how far the row count of a reused table may be from
// --table-size: the write workloads delete and insert rows, and oltp_insert adds them.
const reuseTolerance = 0.1

// Matches reports whether every table is there and the first holds about
// --table-size rows (counting one table keeps the check cheap).
func (w *oltp) Matches(ctx context.Context, conn driver.Conn, d driver.Dialect) (bool, string, error) {
	missing, err := w.Missing(ctx, conn, d)
	if err != nil {
		return false, "", err
	}
	if len(missing) > 0 {
		return false, fmt.Sprintf("%s missing", strings.Join(missing, ", ")), nil
	}
	rows, err := conn.QueryStrings(ctx, "SELECT COUNT(*) FROM "+tableName(1))
	if err != nil {
		return false, "", fmt.Errorf("counting the rows of %s: %w", tableName(1), err)
	}
	n, _ := strconv.ParseInt(rows[0][0], 10, 64)
	want := w.rowsPerTable()
	if math.Abs(float64(n-want)) > reuseTolerance*float64(want) {
		return false, fmt.Sprintf("%s has %d rows, not %d", tableName(1), n, want), nil
	}
	return true, "", nil
}
