package tpcc

import (
	"slices"
	"sync"
	"time"
)

// warehousePart is a share of one warehouse's rows that one loader loads as
// one job. A warehouse is split so that a few warehouses keep every loader
// busy; each part is recorded in tpcc_meta when it is loaded, so an
// interrupted prepare reloads only the parts that were not.
type warehousePart struct {
	name   string   // tpcc_meta marker suffix: loaded_w_<n>.<name>
	tables []string // the tables of the part, in load order
}

// warehouseParts returns the parts of a warehouse, longest to load first (on
// MariaDB with 4 loaders: order_line 2.4 s, stock 1.9 s, the rest 1.4 s), so
// that the longest jobs start first.
func warehouseParts() []warehousePart {
	return []warehousePart{
		{"order_line", []string{tOrderLine}},
		{"stock", []string{tStock}},
		{"customer", []string{tWarehouse, tDistrict, tCustomer, tHistory, tOrders, tNewOrder}},
	}
}

// warehouseColumn returns the column of table that holds the warehouse id.
func warehouseColumn(table string) string {
	for _, t := range warehouseTables() {
		if t.name == table {
			return t.wCol
		}
	}
	panic("tpcc: " + table + " is not a warehouse table")
}

// everyPart returns the indexes of every warehouse part (for any warehouse).
func everyPart(int) []int {
	ps := make([]int, len(warehouseParts()))
	for i := range ps {
		ps[i] = i
	}
	return ps
}

// jobWindow returns the warehouses whose parts a load with loaders
// connections interleaves: enough for every loader to start a long job.
func jobWindow(loaders int) int {
	parts := len(warehouseParts())
	return (max(loaders, 1) + parts - 1) / parts
}

// loadJob is one job of a load: a part of a warehouse, or the item table
// (warehouse 0).
type loadJob struct {
	warehouse int
	part      int // index into warehouseParts
}

// item reports whether the job loads the item table.
func (j loadJob) item() bool { return j.warehouse == 0 }

// tables identifies the tables the job fills: the part's index, or -1 for the
// item table. Jobs of different warehouses fill the same tables when their
// parts are equal.
func (j loadJob) tables() int {
	if j.item() {
		return -1
	}
	return j.part
}

// planJobs lists the jobs that load the pending parts of warehouses and,
// when item is true, the item table, in the order a jobQueue prefers them.
// pending(w) returns the parts of warehouse w still to load. Warehouses are
// taken in order, in groups of window: the jobs of a group are ordered longest
// part first, so the long jobs start early and a group ends with short ones
// instead of one loader running a long job alone at the end; groups keep the
// number of partly loaded warehouses small. Item comes last: it is the
// shortest job, so it fills a loader that would otherwise wait for the others.
func planJobs(warehouses []int, pending func(w int) []int, item bool, window int) []loadJob {
	window = max(window, 1)
	var jobs []loadJob
	for len(warehouses) > 0 {
		group := warehouses[:min(window, len(warehouses))]
		warehouses = warehouses[len(group):]
		start := len(jobs)
		for _, w := range group {
			for _, p := range pending(w) {
				jobs = append(jobs, loadJob{warehouse: w, part: p})
			}
		}
		slices.SortStableFunc(jobs[start:], func(a, b loadJob) int { return a.part - b.part })
	}
	if item {
		jobs = append(jobs, loadJob{})
	}
	return jobs
}

// warehouseTracker follows the parts of each warehouse through a parallel
// load: it tells the loader that starts a warehouse's first part (to log the
// start) and the one that finishes its last part (to mark the warehouse
// loaded). Its methods are called once per job, not per row.
type warehouseTracker struct {
	mu      sync.Mutex
	left    map[int]int       // parts of the warehouse not finished yet
	started map[int]time.Time // when the warehouse's first part started
}

// newWarehouseTracker tracks the warehouses of jobs.
func newWarehouseTracker(jobs []loadJob) *warehouseTracker {
	t := &warehouseTracker{left: map[int]int{}, started: map[int]time.Time{}}
	for _, j := range jobs {
		if !j.item() {
			t.left[j.warehouse]++
		}
	}
	return t
}

// start records that a part of warehouse w starts and reports whether it is
// the warehouse's first.
func (t *warehouseTracker) start(w int) (first bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.started[w]; ok {
		return false
	}
	t.started[w] = time.Now()
	return true
}

// finish records that a part of warehouse w is loaded and reports whether it
// was the warehouse's last, with the time since the warehouse's first part
// started.
func (t *warehouseTracker) finish(w int) (last bool, took time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.left[w]--
	if t.left[w] > 0 {
		return false, 0
	}
	return true, time.Since(t.started[w])
}

// jobQueue hands the jobs of a load to the loaders. A loader gets the first
// pending job (in planJobs' order) whose tables no other loader is filling,
// and only when every pending job's tables are being filled, the first
// pending job. Two loads appending to the same table contend for its index
// latches: handing out the plain list (which starts order_line and stock of
// two warehouses together) cost MariaDB 5-8 % more CPU and the load 4-7 %
// more time with 2 and 4 warehouses and 4 loaders. Its methods are called once
// per job, not per row.
type jobQueue struct {
	mu      sync.Mutex
	pending []loadJob   // jobs not handed out yet, in planJobs' order
	filling map[int]int // loaders filling each loadJob.tables
}

// newJobQueue returns a queue of jobs (planJobs' list).
func newJobQueue(jobs []loadJob) *jobQueue {
	return &jobQueue{pending: slices.Clone(jobs), filling: map[int]int{}}
}

// take returns the next job for a loader, false when none is left. The loader
// calls done with it when it has finished it (or failed).
func (q *jobQueue) take() (loadJob, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.pending) == 0 {
		return loadJob{}, false
	}
	i := slices.IndexFunc(q.pending, func(j loadJob) bool { return q.filling[j.tables()] == 0 })
	if i < 0 {
		i = 0
	}
	j := q.pending[i]
	q.pending = slices.Delete(q.pending, i, i+1)
	q.filling[j.tables()]++
	return j, true
}

// done records that a loader has finished job j.
func (q *jobQueue) done(j loadJob) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.filling[j.tables()]--
}
