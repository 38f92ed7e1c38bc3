package oltp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/workload"
)

// loadTable marks the sbtest tables a prepare has begun and not finished, one
// row per table (name, and the prepare command that loads it), as tpcc_meta
// marks the parts of a TPC-C load: Prepare writes the rows before it creates
// the tables and deletes each once its table has its rows and its index, and
// drops the table when no row is left. A run or a suite's reuse refuses a
// marked table. Tables sysbench loaded have no mark and are accepted.
const loadTable = "fairbench_oltp_load"

// loadTableDef is the schema of loadTable.
func loadTableDef() driver.Table {
	return driver.Table{Name: loadTable, PrimaryKey: []string{"name"}, Columns: []driver.Column{
		{Name: "name", Type: driver.Varchar, Size: 64, NotNull: true},
		{Name: "value", Type: driver.Varchar, Size: 255, NotNull: true},
	}}
}

// marks are the rows of loadTable: the numbers of the unfinished tables and,
// for each, the prepare command that was loading it.
type marks map[int]string

// readMarks returns the marks of tables 1..tables (none when loadTable does
// not exist: present is the database's tables, from workload.ListTables).
func readMarks(ctx context.Context, conn driver.Conn, present map[string]bool, tables int) (marks, error) {
	m := marks{}
	if !present[loadTable] {
		return m, nil
	}
	rows, err := conn.QueryStrings(ctx, "SELECT name, value FROM "+loadTable)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", loadTable, err)
	}
	for _, r := range rows {
		if len(r) != 2 {
			continue
		}
		if n, ok := tableNumber(r[0]); ok && n <= tables {
			m[n] = r[1]
		}
	}
	return m, nil
}

// tableNumber returns n of "sbtest<n>" (n ≥ 1 without leading zeros).
func tableNumber(name string) (int, bool) {
	digits, ok := strings.CutPrefix(strings.ToLower(name), "sbtest")
	if !ok || digits == "" || digits[0] == '0' {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	return n, err == nil && n > 0
}

// refusal is the error a run or a reuse gives on marked tables: which, how
// they were being loaded, and the command that loads them again.
func (m marks) refusal(fix string) error {
	if len(m) == 0 {
		return nil
	}
	ns := make([]int, 0, len(m))
	for n := range m {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	names := make([]string, 0, maxListed)
	for _, n := range ns[:min(len(ns), maxListed)] {
		names = append(names, tableName(n))
	}
	what := strings.Join(names, ", ")
	if len(ns) > maxListed {
		what += fmt.Sprintf(" and %d more tables", len(ns)-maxListed)
	}
	msg := fmt.Sprintf("the load of %s did not finish ('%s' was interrupted or failed; %s marks them): their rows or indexes are incomplete, so no run can use them",
		what, m[ns[0]], loadTable)
	if fix != "" {
		msg += "; " + fix
	}
	return errors.New(msg)
}

// prepareCommand is the prepare of these options: the workload, the tables,
// their size and the schema options that differ from the defaults.
func (w *oltp) prepareCommand() string {
	s := fmt.Sprintf("fairbench prepare %s --tables=%d --table-size=%d", w.kind.name(), w.opts.Tables, w.opts.TableSize)
	def := DefaultOptions()
	for _, o := range []struct {
		name      string
		got, want bool
	}{
		{"auto-inc", w.opts.AutoInc, def.AutoInc},
		{"secondary", w.opts.Secondary, def.Secondary},
		{"create-secondary", w.opts.CreateSecondary, def.CreateSecondary},
	} {
		if o.got != o.want {
			s += " --" + o.name + "=" + onOff{&o.got}.String()
		}
	}
	return s
}

// reloadCommand is the command that loads the tables of these options anew.
func (w *oltp) reloadCommand() string { return w.prepareCommand() + " --replace" }

// loadSource yields the mark rows of tables 1..n.
type loadSource struct {
	n, at int
	what  string
	row   []any
}

func (s *loadSource) Next() bool { s.at++; return s.at <= s.n }

func (s *loadSource) Values() ([]any, error) {
	s.row = append(s.row[:0], tableName(s.at), s.what)
	return s.row, nil
}

func (s *loadSource) Err() error { return nil }

// markLoading records that tables 1..w.opts.Tables are being loaded, creating
// loadTable if present (the database's tables) lacks it and replacing the
// marks an earlier load left on the same tables.
func (w *oltp) markLoading(ctx context.Context, conn driver.Conn, d driver.Dialect, present map[string]bool) error {
	if !present[loadTable] {
		for _, q := range d.CreateTable(loadTableDef()) {
			if _, err := conn.Exec(ctx, q); err != nil {
				return fmt.Errorf("create %s: %w", loadTable, err)
			}
		}
	}
	if err := clearMarks(ctx, conn, present, w.opts.Tables); err != nil {
		return err
	}
	if _, err := conn.BulkInsert(ctx, loadTable, []string{"name", "value"}, &loadSource{n: w.opts.Tables, what: w.prepareCommand()}); err != nil {
		return fmt.Errorf("mark the load in %s: %w", loadTable, err)
	}
	return nil
}

// clearMarks deletes the marks of tables 1..tables, if present (the
// database's tables) has loadTable.
func clearMarks(ctx context.Context, conn driver.Conn, present map[string]bool, tables int) error {
	m, err := readMarks(ctx, conn, present, tables)
	if err != nil {
		return err
	}
	for n := range m {
		if err := finishMark(ctx, conn, n); err != nil {
			return err
		}
	}
	return nil
}

// finishMark deletes the mark of table n: its load is complete.
func finishMark(ctx context.Context, conn driver.Conn, n int) error {
	if _, err := conn.Exec(ctx, "DELETE FROM "+loadTable+" WHERE name = ?", tableName(n)); err != nil {
		return fmt.Errorf("clear the mark of %s in %s: %w", tableName(n), loadTable, err)
	}
	return nil
}

// dropMarksIfDone drops loadTable when it marks no table any more (a load
// of other tables may still be unfinished).
func dropMarksIfDone(ctx context.Context, conn driver.Conn, d driver.Dialect, log io.Writer) error {
	present, err := workload.ListTables(ctx, conn, d)
	if err != nil || !present[loadTable] {
		return err
	}
	rows, err := conn.QueryStrings(ctx, "SELECT COUNT(*) FROM "+loadTable)
	if err != nil {
		return fmt.Errorf("read %s: %w", loadTable, err)
	}
	if len(rows) != 1 || len(rows[0]) != 1 || rows[0][0] != "0" {
		return nil
	}
	if log != nil {
		fmt.Fprintf(log, "Dropping table '%s'...\n", loadTable)
	}
	if _, err := conn.Exec(ctx, d.DropTable(loadTable)); err != nil {
		return fmt.Errorf("drop table %s: %w", loadTable, err)
	}
	return nil
}
