package oltp

import (
	"context"
	"fmt"
	"io"

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
