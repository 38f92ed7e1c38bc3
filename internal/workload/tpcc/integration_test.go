package tpcc

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/base/syncbuf"
	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/testing/testdb"
	"github.com/fairbench/fairbench/internal/workload"
)

// countRows returns the rows of table (of warehouse w when w > 0).
func countRows(t *testing.T, c driver.Conn, table string, where string) int64 {
	t.Helper()
	q := "SELECT COUNT(*) FROM " + table
	if where != "" {
		q += " WHERE " + where
	}
	rows, err := c.QueryStrings(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	n, err := strconv.ParseInt(rows[0][0], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// expectCounts asserts the exact row count of every table for warehouses 1..n.
func expectCounts(t *testing.T, c driver.Conn, w *tpcc, n int) {
	t.Helper()
	m, err := readMeta(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	f := testFactory(t)
	pop := &population{rand: f, cLoad: m.cLoad}
	var lines int64
	for i := 1; i <= n; i++ {
		lines += pop.orderLineCount(i)
	}
	want := map[string]int64{
		tItem: 100000, tWarehouse: int64(n), tDistrict: 10 * int64(n), tCustomer: 30000 * int64(n),
		tHistory: 30000 * int64(n), tOrders: 30000 * int64(n), tNewOrder: 9000 * int64(n),
		tOrderLine: lines, tStock: 100000 * int64(n),
	}
	for table, rows := range want {
		if got := countRows(t, c, table, ""); got != rows {
			t.Errorf("%s: %d rows, want %d", table, got, rows)
		}
	}
	if !m.complete() || m.warehouses != n || m.seed != testSeed {
		t.Errorf("tpcc_meta: %+v, want a complete load of %d warehouses with seed %d", m, n, testSeed)
	}
}

// checkResults runs Check and returns the ids of the failed conditions.
func checkResults(t *testing.T, w *tpcc, drv driver.Driver, all bool) (failed []int, byID map[int]workload.CheckResult) {
	t.Helper()
	res, err := w.Check(context.Background(), drv, workload.CheckOptions{All: all, Threads: 2})
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	if len(res) != 12 {
		t.Fatalf("check returned %d results, want 12", len(res))
	}
	byID = map[int]workload.CheckResult{}
	for i, r := range res {
		if r.ID != i+1 {
			t.Fatalf("result %d has id %d", i, r.ID)
		}
		byID[r.ID] = r
		if r.Skipped == "" && !r.Passed {
			failed = append(failed, r.ID)
		}
	}
	sort.Ints(failed)
	return failed, byID
}

// TestPrepareCheckResumeCleanup runs the whole life of a 1-warehouse load on
// each target.
func TestPrepareCheckResumeCleanup(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a warehouse on every target")
	}
	for kind, cfg := range testdb.All(t) {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			drv := openDriver(t, cfg)
			w := newWorkload(t, "--warehouses=1")
			log := &syncbuf.Buffer{}
			env := prepareEnv(t, drv, 2, log)

			start := time.Now()
			if err := w.Prepare(ctx, env); err != nil {
				t.Fatalf("prepare: %v\n%s", err, log)
			}
			t.Logf("%s: prepare of 1 warehouse (load, indexes, check) took %.1fs", kind, time.Since(start).Seconds())
			if done, total, _ := env.Progress.Snapshot(); done != total || total == 0 {
				t.Errorf("progress %d of %d rows at the end", done, total)
			}
			c := connect(t, drv)
			expectCounts(t, c, w, 1)

			start = time.Now()
			failed, byID := checkResults(t, w, drv, true)
			t.Logf("%s: check of 1 warehouse took %.2fs", kind, time.Since(start).Seconds())
			if len(failed) != 0 {
				t.Fatalf("conditions %v failed after loading: %+v", failed, byID)
			}
			if _, byID := checkResults(t, w, drv, false); byID[11].Skipped == "" {
				t.Errorf("condition 11 ran without All")
			}

			// A complete load is not loaded again.
			err := w.Prepare(ctx, prepareEnv(t, drv, 2, &syncbuf.Buffer{}))
			if err == nil || !strings.Contains(err.Error(), "already prepared with 1 warehouses") {
				t.Errorf("second prepare: %v, want 'already prepared'", err)
			}

			// One district's d_ytd off by 10.00 breaks exactly conditions 1 and 9.
			if _, err := c.Exec(ctx, "UPDATE district SET d_ytd = d_ytd + 10 WHERE d_w_id = 1 AND d_id = 4"); err != nil {
				t.Fatal(err)
			}
			failed, byID = checkResults(t, w, drv, true)
			if len(failed) != 2 || failed[0] != 1 || failed[1] != 9 {
				t.Fatalf("after corrupting d_ytd: failed %v, want [1 9]", failed)
			}
			want1 := "warehouse 1: w_ytd 300000.00, sum(d_ytd) 300010.00"
			want9 := "warehouse 1 district 4: d_ytd 30010.00, sum(h_amount) 30000.00"
			if r := byID[1]; r.Violations != 1 || len(r.Examples) != 1 || r.Examples[0] != want1 {
				t.Errorf("condition 1: %d violations %q, want 1 %q", r.Violations, r.Examples, want1)
			}
			if r := byID[9]; r.Violations != 1 || len(r.Examples) != 1 || r.Examples[0] != want9 {
				t.Errorf("condition 9: %d violations %q, want 1 %q", r.Violations, r.Examples, want9)
			}
			if _, err := c.Exec(ctx, "UPDATE district SET d_ytd = d_ytd - 10 WHERE d_w_id = 1 AND d_id = 4"); err != nil {
				t.Fatal(err)
			}

			// An interrupted load of warehouse 1: some of its rows and its marker
			// are gone. Prepare resumes with it only (item stays).
			for _, q := range []string{
				"DELETE FROM tpcc_meta WHERE name = 'loaded_w_1'",
				"DELETE FROM stock WHERE s_w_id = 1 AND s_i_id > 500",
				"DELETE FROM order_line WHERE ol_w_id = 1",
			} {
				if _, err := c.Exec(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			log = &syncbuf.Buffer{}
			env = prepareEnv(t, drv, 2, log)
			if err := w.Prepare(ctx, env); err != nil {
				t.Fatalf("resumed prepare: %v\n%s", err, log)
			}
			if !strings.Contains(log.String(), "Resuming: warehouse 1 of 1 is not loaded yet") || strings.Contains(log.String(), "items...") {
				t.Errorf("resumed prepare log:\n%s\nwant a resume of warehouse 1 only", log)
			}
			if _, total, _ := env.Progress.Snapshot(); total >= 100000+w.testRows(t, c) {
				t.Errorf("resumed prepare expected %d rows: item was loaded again", total)
			}
			expectCounts(t, c, w, 1)
			if failed, _ := checkResults(t, w, drv, true); len(failed) != 0 {
				t.Errorf("conditions %v failed after the resumed prepare", failed)
			}

			// A short run through the workers keeps every condition but 11 true.
			perKind, errs := runWorkers(t, w, drv, 2, 100)
			t.Logf("%s: run of 2×100 transactions: %v per kind, %d errors", kind, perKind, errs)
			if perKind[0] == 0 || perKind[1] == 0 || errs > 50 {
				t.Errorf("run: events per kind %v, %d errors: want new orders and payments, few errors", perKind, errs)
			}
			if failed, byID := checkResults(t, w, drv, false); len(failed) != 0 {
				t.Errorf("conditions %v failed after a run: %+v", failed, byID)
			}

			if err := w.Cleanup(ctx, drv, nil); err != nil {
				t.Fatal(err)
			}
			missing, err := w.Missing(ctx, c, drv.Dialect())
			if err != nil {
				t.Fatal(err)
			}
			if missing.Count != len(allTables()) || missing.First[0] != allTables()[0] {
				t.Errorf("after cleanup Missing = %v, want %v", missing, allTables())
			}
		})
	}
}

// testRows returns the rows of warehouse 1 as the loaded meta constants make them.
func (w *tpcc) testRows(t *testing.T, c driver.Conn) int64 {
	m, err := readMeta(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return (&population{rand: testFactory(t), cLoad: m.cLoad}).warehouseRowCount(1)
}

// TestResumeAfterCancel interrupts a 2-warehouse load once warehouse 1 is
// loaded; the next prepare loads warehouse 2 only and the check passes.
func TestResumeAfterCancel(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("loads two warehouses")
	}
	ctx := context.Background()
	drv := openDriver(t, testdb.SQLite(t))
	w := newWorkload(t, "--warehouses=2")
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	log := &cancelOnLine{line: "Warehouse 1 loaded", cancel: cancel}
	env := prepareEnv(t, drv, 1, &syncbuf.Buffer{})
	env.Log = log
	if err := w.Prepare(cctx, env); err == nil {
		t.Fatalf("prepare went through despite the cancel:\n%s", log.String())
	}
	c := connect(t, drv)
	if m, err := readMeta(ctx, c); err != nil || !m.loaded[1] || m.loaded[2] {
		t.Fatalf("after the cancel tpcc_meta says %+v (%v), want warehouse 1 loaded and 2 not", m, err)
	}
	rlog := &syncbuf.Buffer{}
	if err := w.Prepare(ctx, prepareEnv(t, drv, 1, rlog)); err != nil {
		t.Fatalf("resumed prepare: %v\n%s", err, rlog)
	}
	if !strings.Contains(rlog.String(), "Resuming: warehouse 2 of 2 is not loaded yet") || strings.Contains(rlog.String(), "Loading warehouse 1") {
		t.Errorf("resumed prepare log:\n%s\nwant warehouse 2 only", rlog)
	}
	expectCounts(t, c, w, 2)
}

// cancelOnLine cancels a context when a log line containing line is written.
type cancelOnLine struct {
	syncbuf.Buffer
	line   string
	cancel context.CancelFunc
}

func (l *cancelOnLine) Write(p []byte) (int, error) {
	if strings.Contains(string(p), l.line) {
		l.cancel()
	}
	return l.Buffer.Write(p)
}

func TestOutputDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	w := newWorkload(t, "--warehouses=1", "--output-dir="+dir)
	drv := openDriver(t, testdb.SQLite(t))
	env := prepareEnv(t, drv, 2, &syncbuf.Buffer{})
	if err := w.Prepare(context.Background(), env); err != nil {
		t.Fatal(err)
	}
	pop := testPopulation(t)
	want := map[string]int64{
		"item.csv": 100000, "warehouse.1.csv": 1, "district.1.csv": 10, "customer.1.csv": 30000,
		"history.1.csv": 30000, "orders.1.csv": 30000, "new_order.1.csv": 9000,
		"order_line.1.csv": pop.orderLineCount(1), "stock.1.csv": 100000,
	}
	for name, rows := range want {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		if got := int64(len(lines) - 1); got != rows {
			t.Errorf("%s: %d rows, want %d", name, got, rows)
		}
		header := strings.Split(lines[0], ",")
		if fields := strings.Split(lines[1], ","); len(fields) != len(header) {
			t.Errorf("%s: %d fields in the first row, %d in the header", name, len(fields), len(header))
		}
	}
	meta, err := os.ReadFile(filepath.Join(dir, "tpcc_meta.csv"))
	if err != nil || !strings.Contains(string(meta), "loaded_w_1,1") || !strings.Contains(string(meta), "warehouses,1") {
		t.Errorf("tpcc_meta.csv: %q, %v", meta, err)
	}
	if schema, err := os.ReadFile(filepath.Join(dir, "schema.sql")); err != nil || !strings.Contains(string(schema), "CREATE INDEX idx_customer") {
		t.Errorf("schema.sql: %v\n%s", err, schema)
	}
	// No database was touched.
	missing, err := w.Missing(context.Background(), connect(t, drv), drv.Dialect())
	if err != nil || missing.Count != len(allTables()) {
		t.Errorf("after --output-dir Missing = %v (%v), want every table", missing, err)
	}
}

// TestResumeWarehouseParts resumes a warehouse of which two parts were loaded:
// only order_line is loaded again, the rows of the others stay,
// and the warehouse ends marked loaded without part markers.
func TestResumeWarehouseParts(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("loads a warehouse")
	}
	ctx := context.Background()
	drv := openDriver(t, testdb.SQLite(t))
	w := newWorkload(t, "--warehouses=1", "--no-check")
	if err := w.Prepare(ctx, prepareEnv(t, drv, 2, &syncbuf.Buffer{})); err != nil {
		t.Fatal(err)
	}
	c := connect(t, drv)
	// The state of a load stopped while order_line was loading; the mark on
	// stock shows whether the stock part is loaded again.
	for _, q := range []string{
		"DELETE FROM tpcc_meta WHERE name IN ('loaded_w_1', 'indexes')",
		"INSERT INTO tpcc_meta (name, value) VALUES ('loaded_w_1.stock', '1'), ('loaded_w_1.customer', '1')",
		"DELETE FROM order_line WHERE ol_w_id = 1 AND ol_d_id > 3",
		"UPDATE stock SET s_quantity = 1000 WHERE s_w_id = 1 AND s_i_id = 7",
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	log := &syncbuf.Buffer{}
	env := prepareEnv(t, drv, 2, log)
	if err := w.Prepare(ctx, env); err != nil {
		t.Fatalf("resumed prepare: %v\n%s", err, log)
	}
	if _, total, _ := env.Progress.Snapshot(); total != w.testOrderLines(t, c) {
		t.Errorf("resumed prepare loaded %d rows, want the %d order lines only\n%s", total, w.testOrderLines(t, c), log)
	}
	if got := countRows(t, c, tStock, "s_quantity = 1000"); got != 1 {
		t.Errorf("%d marked stock rows after the resume, want 1: stock was loaded again", got)
	}
	expectCounts(t, c, w, 1)
	m, err := readMeta(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if !m.loaded[1] || len(m.parts) != 0 || countRows(t, c, tMeta, "name LIKE 'loaded_w_1.%'") != 0 {
		t.Errorf("tpcc_meta after the resume: loaded %v, parts %v: want warehouse 1 loaded, no part markers", m.loaded, m.parts)
	}
}

// testOrderLines returns the order lines of warehouse 1 as the loaded meta constants make them.
func (w *tpcc) testOrderLines(t *testing.T, c driver.Conn) int64 {
	m, err := readMeta(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return (&population{rand: testFactory(t), cLoad: m.cLoad}).orderLineCount(1)
}
