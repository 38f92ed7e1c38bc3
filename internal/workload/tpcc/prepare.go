package tpcc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/base/gcballast"
	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/randgen"
)

// loadPlan is what one prepare loads.
type loadPlan struct {
	meta       *loadMeta
	pop        *population
	item       bool      // load the item table
	warehouses []int     // warehouses to load (completely or in part), in order
	jobs       []loadJob // the parts of warehouses and the item table, in planJobs' order
	resumed    bool
	indexed    bool // the secondary indexes were created with the tables
}

// Exports reports whether prepare writes CSV files (--output-dir) instead of
// loading the database (workload.Exporter).
func (w *tpcc) Exports() bool { return w.opts.OutputDir != "" }

// Prepare creates the tables, loads item and the warehouses with env.Threads
// loaders (each warehouse in three parts, one job each), creates the secondary
// indexes and, unless --no-check, runs every consistency condition. A prepare
// that was interrupted resumes with the warehouse parts not yet loaded. With --output-dir it writes CSV
// files instead and touches no database.
func (w *tpcc) Prepare(ctx context.Context, env workload.PrepareEnv) error {
	log := workload.SyncWriter(env.Log)
	if w.opts.OutputDir != "" {
		if env.Rand == nil || (env.Dialect == nil && env.Driver == nil) {
			return errors.New("prepare tpcc --output-dir: PrepareEnv needs a Dialect (or a Driver) and a Rand factory")
		}
		return w.writeCSV(ctx, env, log)
	}
	if env.Driver == nil || env.Rand == nil {
		return errors.New("prepare tpcc: PrepareEnv needs a Driver and a Rand factory")
	}
	d := env.Driver.Dialect()
	conn, err := env.Driver.Connect(ctx, 0)
	if err != nil {
		return fmt.Errorf("prepare tpcc: connect: %w", err)
	}
	conns := []driver.Conn{conn}
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	plan, err := w.planLoad(ctx, conn, d, env, log)
	if err != nil {
		return err
	}
	loaders := min(maxLoaders(env.Threads, d), max(1, len(plan.jobs)))
	for i := len(conns); i < loaders; i++ {
		c, err := env.Driver.Connect(ctx, i)
		if err != nil {
			return fmt.Errorf("prepare tpcc: connect loader %d: %w", i+1, err)
		}
		conns = append(conns, c)
	}
	start := time.Now()
	if err := w.load(ctx, conns, plan, env.Progress, log); err != nil {
		return err
	}
	if err := finishLoad(ctx, conns, d, plan, log); err != nil {
		return err
	}
	fmt.Fprintf(log, "Loaded in %.1fs\n", time.Since(start).Seconds())
	if w.opts.NoCheck {
		return nil
	}
	return w.postLoadCheck(ctx, env, log)
}

// maxLoaders returns how many connections load in parallel with --threads=threads.
func maxLoaders(threads int, d driver.Dialect) int {
	if d.Name() == "sqlite" {
		return 1 // SQLite has one writer at a time; parallel loaders would only wait for the lock
	}
	return max(1, threads)
}

// planLoad decides what to load: everything into new tables, or (after an
// interrupted prepare) what tpcc_meta does not mark as loaded. It refuses to
// touch a complete load or one of another size unless env.Replace.
func (w *tpcc) planLoad(ctx context.Context, conn driver.Conn, d driver.Dialect, env workload.PrepareEnv, log io.Writer) (*loadPlan, error) {
	present, err := workload.ListTables(ctx, conn, d)
	if err != nil {
		return nil, fmt.Errorf("prepare tpcc: %w", err)
	}
	exists := false
	for _, t := range allTables() {
		exists = exists || present[t]
	}
	if exists && env.Replace {
		if err := dropTables(ctx, conn, d, log); err != nil {
			return nil, err
		}
		present, exists = map[string]bool{}, false
	}
	if !exists {
		return w.planFresh(ctx, conn, d, env, log)
	}
	startOver := "run 'fairbench cleanup tpcc' with the same connection options, or pass --replace to drop the tables and load again"
	if !present[tMeta] {
		return nil, fmt.Errorf("the database has tpcc tables but no %s table, so fairbench cannot tell what was loaded: %s", tMeta, startOver)
	}
	m, err := readMeta(ctx, conn)
	if err != nil {
		return nil, fmt.Errorf("cannot resume the tpcc load: %w: %s", err, startOver)
	}
	if m.warehouses != w.opts.Warehouses {
		state := "partly loaded"
		if m.complete() {
			state = "complete"
		}
		return nil, fmt.Errorf("the database holds a tpcc load of %d warehouses (%s), not %d: pass --warehouses=%d, or %s",
			m.warehouses, state, w.opts.Warehouses, m.warehouses, startOver)
	}
	if m.complete() {
		return nil, fmt.Errorf("tpcc is already prepared with %d warehouses: run 'fairbench cleanup tpcc --warehouses=%d' with the same connection options, or pass --replace", m.warehouses, m.warehouses)
	}
	return w.planResume(ctx, conn, d, env, m, present, log)
}

// planFresh creates the tables (tpcc_meta first, with the load's constants) and
// plans a full load.
func (w *tpcc) planFresh(ctx context.Context, conn driver.Conn, d driver.Dialect, env workload.PrepareEnv, log io.Writer) (*loadPlan, error) {
	m := &loadMeta{
		warehouses: w.opts.Warehouses,
		cLoad:      chooseCLoad(env.Rand),
		seed:       env.Rand.Config().Seed,
		loaded:     map[int]bool{},
		parts:      map[int]map[string]bool{},
	}
	defs := tableDefs(w.opts.Parts)
	meta := defs[len(defs)-1]
	if err := createTable(ctx, conn, d, meta, log); err != nil {
		return nil, err
	}
	for _, r := range m.rows() {
		if err := setMeta(ctx, conn, r[0], r[1]); err != nil {
			return nil, err
		}
	}
	for _, t := range defs[:len(defs)-1] {
		if err := createTable(ctx, conn, d, t, log); err != nil {
			return nil, err
		}
	}
	plan := &loadPlan{meta: m, pop: newPopulation(env.Rand, m.cLoad), item: true}
	if indexesDuringLoad(d) {
		for _, ix := range secondaryIndexes() {
			if err := createIndex(ctx, conn, d, ix.table, ix.index, log); err != nil {
				return nil, err
			}
		}
		plan.indexed = true
	}
	for n := 1; n <= m.warehouses; n++ {
		plan.warehouses = append(plan.warehouses, n)
	}
	plan.jobs = planJobs(plan.warehouses, m.pendingParts, plan.item, jobWindow(maxLoaders(env.Threads, d)))
	return plan, nil
}

// planResume creates the tables that are missing, deletes the rows of the
// warehouse parts that were not completely loaded and plans to load only
// those, with the seed and C constant of the original load.
func (w *tpcc) planResume(ctx context.Context, conn driver.Conn, d driver.Dialect, env workload.PrepareEnv, m *loadMeta, present map[string]bool, log io.Writer) (*loadPlan, error) {
	cfg := env.Rand.Config()
	cfg.Seed = m.seed
	f, err := randgen.NewFactory(cfg)
	if err != nil {
		return nil, fmt.Errorf("resume tpcc load: %w", err)
	}
	plan := &loadPlan{meta: m, pop: newPopulation(f, m.cLoad), item: !m.item, warehouses: m.unloaded(), resumed: true}
	plan.jobs = planJobs(plan.warehouses, m.pendingParts, plan.item, jobWindow(maxLoaders(env.Threads, d)))
	fmt.Fprintln(log, resumeMessage(plan))
	for _, t := range tableDefs(w.opts.Parts) {
		if !present[t.Name] {
			if err := createTable(ctx, conn, d, t, log); err != nil {
				return nil, err
			}
		}
	}
	if plan.item {
		if _, err := conn.Exec(ctx, "DELETE FROM "+tItem); err != nil {
			return nil, fmt.Errorf("resume tpcc load: empty %s: %w", tItem, err)
		}
	}
	parts := warehouseParts()
	for _, j := range plan.jobs {
		if j.item() {
			continue
		}
		for _, t := range parts[j.part].tables {
			if _, err := conn.Exec(ctx, "DELETE FROM "+t+" WHERE "+warehouseColumn(t)+" = ?", j.warehouse); err != nil {
				return nil, fmt.Errorf("resume tpcc load: delete the partial rows of warehouse %d from %s: %w", j.warehouse, t, err)
			}
		}
	}
	return plan, nil
}

// resumeMessage says what a resumed prepare still loads.
func resumeMessage(p *loadPlan) string {
	var parts []string
	if len(p.warehouses) > 0 {
		ws := make([]string, len(p.warehouses))
		for i, n := range p.warehouses {
			ws[i] = strconv.Itoa(n)
		}
		word := "warehouses"
		if len(ws) == 1 {
			word = "warehouse"
		}
		verb := "are"
		if len(ws) == 1 {
			verb = "is"
		}
		parts = append(parts, fmt.Sprintf("%s %s of %d %s not loaded yet", word, strings.Join(ws, ", "), p.meta.warehouses, verb))
	}
	if p.item {
		parts = append(parts, "the item table is not loaded yet")
	}
	if len(parts) == 0 {
		parts = append(parts, "every warehouse is loaded, the indexes are not complete")
	}
	return "Resuming: " + strings.Join(parts, "; ")
}

// createTable runs the statements that create t.
func createTable(ctx context.Context, conn driver.Conn, d driver.Dialect, t driver.Table, log io.Writer) error {
	fmt.Fprintf(log, "Creating table '%s'...\n", t.Name)
	for _, q := range d.CreateTable(t) {
		if _, err := conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("create table %s: %w", t.Name, err)
		}
	}
	return nil
}

// createIndex creates index ix on table.
func createIndex(ctx context.Context, conn driver.Conn, d driver.Dialect, table string, ix driver.Index, log io.Writer) error {
	fmt.Fprintf(log, "Creating index '%s' on '%s'...\n", ix.Name, table)
	if _, err := conn.Exec(ctx, d.CreateIndex(table, ix)); err != nil {
		return fmt.Errorf("create index %s on %s: %w", ix.Name, table, err)
	}
	return nil
}

// newPopulation returns the generators of a load with C constant cLoad.
func newPopulation(f *randgen.Factory, cLoad int64) *population {
	return &population{rand: f, cLoad: cLoad, now: time.Now().UTC().Truncate(time.Second)}
}

// load runs the jobs of plan on conns in parallel; each job marks its part
// loaded in tpcc_meta when it is complete, and the job that completes a
// warehouse marks the warehouse loaded.
func (w *tpcc) load(ctx context.Context, conns []driver.Conn, plan *loadPlan, progress *workload.Progress, log io.Writer) error {
	parts := warehouseParts()
	var total int64
	for _, j := range plan.jobs {
		if j.item() {
			total += items
			continue
		}
		for _, t := range parts[j.part].tables {
			total += plan.pop.tableRowCount(t, j.warehouse)
		}
	}
	progress.SetTotal(total)
	tracker := newWarehouseTracker(plan.jobs)
	queue := newJobQueue(plan.jobs)
	return gcballast.With(func() error {
		// RunParallel starts one job per entry of plan.jobs; the queue chooses which.
		return workload.RunParallel(ctx, conns, len(plan.jobs), func(ctx context.Context, c driver.Conn, _ int) error {
			j, ok := queue.take()
			if !ok {
				return nil
			}
			defer queue.done(j)
			if j.item() {
				return loadItems(ctx, c, plan.pop, progress, log)
			}
			return loadPart(ctx, c, plan.pop, j, tracker, progress, log)
		})
	})
}

// loadItems loads the item table and marks it loaded.
func loadItems(ctx context.Context, c driver.Conn, pop *population, progress *workload.Progress, log io.Writer) error {
	start := time.Now()
	fmt.Fprintf(log, "Loading %d items...\n", items)
	if err := bulkLoad(ctx, c, pop, tItem, 0, progress); err != nil {
		return err
	}
	if err := setMeta(ctx, c, metaItem, "1"); err != nil {
		return err
	}
	fmt.Fprintf(log, "Items loaded in %.1fs\n", time.Since(start).Seconds())
	return nil
}

// loadPart loads the tables of one part of a warehouse, one BulkInsert per
// table, and marks the part loaded; the loader of the warehouse's last part
// then marks the warehouse loaded and removes the part markers.
func loadPart(ctx context.Context, c driver.Conn, pop *population, j loadJob, tracker *warehouseTracker, progress *workload.Progress, log io.Writer) error {
	n, part := j.warehouse, warehouseParts()[j.part]
	if tracker.start(n) {
		fmt.Fprintf(log, "Loading warehouse %d...\n", n)
	}
	for _, t := range part.tables {
		if err := bulkLoad(ctx, c, pop, t, n, progress); err != nil {
			return fmt.Errorf("load warehouse %d: %w", n, err)
		}
	}
	// The part marker is written before the tracker hears of the part, so the
	// loader of the warehouse's last part removes it after it was written.
	if err := setMeta(ctx, c, partMarker(n, part.name), "1"); err != nil {
		return err
	}
	last, took := tracker.finish(n)
	if !last {
		return nil
	}
	if err := setMeta(ctx, c, warehouseMarker(n), "1"); err != nil {
		return err
	}
	for _, p := range warehouseParts() {
		if _, err := c.Exec(ctx, "DELETE FROM "+tMeta+" WHERE name = ?", partMarker(n, p.name)); err != nil {
			return fmt.Errorf("remove the part markers of warehouse %d from %s: %w", n, tMeta, err)
		}
	}
	fmt.Fprintf(log, "Warehouse %d loaded in %.1fs\n", n, took.Seconds())
	return nil
}

// bulkLoad streams the generated rows of table for warehouse n into the database.
func bulkLoad(ctx context.Context, c driver.Conn, pop *population, table string, n int, progress *workload.Progress) error {
	src := pop.source(table, n, progress)
	got, err := c.BulkInsert(ctx, table, columnNames(tableDef(table)), src)
	if err != nil {
		return fmt.Errorf("load %s: %w", table, err)
	}
	if got != int64(src.row) {
		return fmt.Errorf("load %s: the database stored %d of %d rows", table, got, src.row)
	}
	return nil
}

// finishLoad creates the secondary indexes (those missing, after a resume)
// unless the tables got them before loading, refreshes the planner statistics
// and marks the load complete.
func finishLoad(ctx context.Context, conns []driver.Conn, d driver.Dialect, plan *loadPlan, log io.Writer) error {
	ixs := secondaryIndexes()
	if plan.indexed {
		ixs = nil
	}
	err := workload.RunParallel(ctx, conns, len(ixs), func(ctx context.Context, c driver.Conn, i int) error {
		ix := ixs[i]
		if plan.resumed {
			exists, err := indexExists(ctx, c, d, ix.table, ix.index.Name)
			if err != nil || exists {
				return err
			}
		}
		return createIndex(ctx, c, d, ix.table, ix.index, log)
	})
	if err != nil {
		return err
	}
	if q := analyzeStatement(d); q != "" {
		if _, err := conns[0].Exec(ctx, q); err != nil {
			return fmt.Errorf("analyze the loaded tables: %w", err)
		}
	}
	return setMeta(ctx, conns[0], metaIndexes, "1")
}

// analyzeStatement refreshes the planner's statistics after a bulk load, so the
// consistency check and the first transactions get good plans. InnoDB
// recomputes its statistics by itself.
func analyzeStatement(d driver.Dialect) string {
	switch d.Name() {
	case "postgres":
		return "ANALYZE " + strings.Join(allTables(), ", ")
	case "sqlite":
		return "ANALYZE"
	}
	return ""
}

// postLoadCheck runs every consistency condition and fails when one fails.
func (w *tpcc) postLoadCheck(ctx context.Context, env workload.PrepareEnv, log io.Writer) error {
	start := time.Now()
	fmt.Fprintln(log, "Checking consistency (all 12 conditions of clause 3.3.2)...")
	results, err := w.Check(ctx, env.Driver, workload.CheckOptions{All: true, Threads: max(env.Threads, 1), Log: log})
	if err != nil {
		return fmt.Errorf("post-load check: %w", err)
	}
	var failed []string
	for _, r := range results {
		if r.Skipped == "" && !r.Passed {
			msg := fmt.Sprintf("condition %d (%s): %d violations", r.ID, r.Name, r.Violations)
			if len(r.Examples) > 0 {
				msg += ", e.g. " + r.Examples[0]
			}
			failed = append(failed, msg)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("the loaded data failed the consistency check: %s; run 'fairbench check tpcc' for details", strings.Join(failed, "; "))
	}
	fmt.Fprintf(log, "Consistency check passed in %.1fs\n", time.Since(start).Seconds())
	return nil
}
