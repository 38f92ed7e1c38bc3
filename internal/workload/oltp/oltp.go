package oltp

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/db/driver"
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
// DryRuns reports that no event reads an answer it needs: a dry run
// (workload.DryRunner) runs them as they are.
func (w *oltp) DryRuns() bool { return true }

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

// Missing says which of sbtest1..sbtestN the database lacks, from one
// catalog query and without walking 1..N: it counts the tables present among
// them and names the first few missing.
func (w *oltp) Missing(ctx context.Context, conn driver.Conn, d driver.Dialect) (workload.Absent, error) {
	present, err := workload.ListTables(ctx, conn, d)
	if err != nil {
		return workload.Absent{}, err
	}
	return absentTables(present, w.opts.Tables), nil
}

// absentTables is what present (the database's tables) lacks of
// sbtest1..sbtest<tables>; its work grows with the tables present, not with
// tables.
func absentTables(present map[string]bool, tables int) workload.Absent {
	a := workload.Absent{Needed: tableName(1)}
	if tables > 1 {
		a.Needed += "…" + tableName(tables)
	}
	have := 0
	for name := range present {
		if n, ok := tableNumber(name); ok && n <= tables {
			have++
		}
	}
	for n := 1; n <= tables && a.Count < maxListed && a.Count < tables-have; n++ {
		if !present[tableName(n)] {
			a.Add(tableName(n))
		}
	}
	a.Count = tables - have
	return a
}

// firstPresent returns the smallest n ≤ tables whose sbtest<n> is in present.
func firstPresent(present map[string]bool, tables int) (int, bool) {
	first := 0
	for name := range present {
		if n, ok := tableNumber(name); ok && n <= tables && (first == 0 || n < first) {
			first = n
		}
	}
	return first, first > 0
}

// Cleanup drops sbtest1..sbtestN if they exist, saying so for each table, and
// their marks of an unfinished load (the mark table with the last of them).
func (w *oltp) Cleanup(ctx context.Context, db driver.Driver, log io.Writer) error {
	conn, err := db.Connect(ctx, 0)
	if err != nil {
		return fmt.Errorf("cleanup %s: connect: %w", w.kind.name(), err)
	}
	defer conn.Close()
	d := db.Dialect()
	if err := dropTables(ctx, conn, d, w.opts.Tables, log); err != nil {
		return err
	}
	present, err := workload.ListTables(ctx, conn, d)
	if err != nil {
		return fmt.Errorf("cleanup %s: %w", w.kind.name(), err)
	}
	if err := clearMarks(ctx, conn, present, w.opts.Tables); err != nil {
		return err
	}
	return dropMarksIfDone(ctx, conn, d, log)
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

// Matches reports whether every table is there, complete (no mark of an
// unfinished load), with its largest id within --table-size and its
// secondary index as --create-secondary says: what Inspect reads, so that a
// suite reuses only data a run would take without a word.
func (w *oltp) Matches(ctx context.Context, conn driver.Conn, d driver.Dialect) (bool, string, error) {
	missing, err := w.Missing(ctx, conn, d)
	if err != nil {
		return false, "", err
	}
	if !missing.None() {
		return false, missing.String() + " missing", nil
	}
	st, err := w.readState(ctx, conn, d)
	if err != nil {
		return false, "", err
	}
	why := w.mismatch(st)
	return why == "", why, nil
}
