package oltp

import (
	"context"

	"github.com/fairbench/fairbench/internal/base/valuearena"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/randgen"
)

// Batch sizes of the loader. A table is cut into about targetBatches batches so
// that even one table is loaded in parallel, within these bounds.
const (
	minBatchRows  = 256
	maxBatchRows  = 10000
	targetBatches = 32
)

// batch is a contiguous id range of one table, loaded by one BulkInsert.
type batch struct {
	table       int   // 1-based table number
	index       int   // batch number within the table
	first, last int64 // ids, inclusive
}

// stream is the random stream of the batch: it depends on (table, batch index)
// alone, so the data is the same for a seed whatever the number of loaders.
// Bit 62 keeps loader streams apart from the small stream numbers of workers.
func (b batch) stream() uint64 {
	return 1<<62 | uint64(b.table)<<32 | uint64(b.index)
}

// batchRows returns the rows per batch for tables of size rows; it depends on the
// table size only.
func batchRows(rows int64) int64 {
	return min(max((rows+targetBatches-1)/targetBatches, minBatchRows), maxBatchRows)
}

// planBatches cuts tables × rows into batches, table by table in id order. It
// stops with ctx's error when ctx ends: its length is set by the flags.
func planBatches(ctx context.Context, tables int, rows int64) ([]batch, error) {
	if rows <= 0 {
		return nil, nil
	}
	size := batchRows(rows)
	perTable := int((rows + size - 1) / size)
	out := make([]batch, 0, tables*perTable)
	for t := 1; t <= tables; t++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for i := range perTable {
			first := int64(i)*size + 1
			out = append(out, batch{table: t, index: i, first: first, last: min(first+size-1, rows)})
		}
	}
	return out, nil
}

// rowSource yields the rows of one batch: id, then k = Default(1, table-size),
// c and pad from sysbench's templates (drawn c, pad, k, as oltp_common.lua does).
type rowSource struct {
	rng       *randgen.Source
	next      int64
	last      int64
	tableSize int64
	box       valuearena.Arena
	values    []any
}

// newRowSource returns the rows with ids first..last drawn from rng.
func newRowSource(rng *randgen.Source, first, last, tableSize int64) *rowSource {
	return &rowSource{
		rng:       rng,
		next:      first,
		last:      last,
		tableSize: tableSize,
		values:    make([]any, 4),
	}
}

// Next generates the next row.
func (r *rowSource) Next() bool {
	if r.next > r.last {
		return false
	}
	// One string for c and pad, boxed from the arena: a driver may keep
	// values past Next, and arena values stay what they were.
	buf := r.rng.String(r.box.Buffer(len(cTemplate)+len(padTemplate)), cTemplate)
	buf = r.rng.String(buf, padTemplate)
	cPad := r.box.Text(buf)
	r.values[0] = r.box.Int(r.next)
	r.values[1] = r.box.Int(r.rng.Default(1, r.tableSize))
	r.values[2] = r.box.Box(cPad[:len(cTemplate)])
	r.values[3] = r.box.Box(cPad[len(cTemplate):])
	r.next++
	return true
}

// Values returns the current row; the slice is reused by the next call to Next.
func (r *rowSource) Values() ([]any, error) { return r.values, nil }

// Err is always nil: generating rows cannot fail.
func (r *rowSource) Err() error { return nil }

// planJobs groups the batches into the loaders' jobs: each job is a run of
// consecutive batches of one table, loaded as one stream. Tables are split into
// just enough jobs to keep every loader busy, and jobs alternate between tables,
// so that loaders append to different tables in id order instead of splitting
// the same B-tree. The batches, and so the data, do not depend on loaders.
// A table is never split into more jobs than it has batches, whatever the
// number of loaders, and the plan stops with ctx's error when ctx ends.
func planJobs(ctx context.Context, batches []batch, tables, loaders int) ([][]batch, error) {
	if len(batches) == 0 {
		return nil, nil
	}
	perTable := make([][]batch, tables)
	most := 0 // batches of the largest table
	for _, b := range batches {
		perTable[b.table-1] = append(perTable[b.table-1], b)
		most = max(most, len(perTable[b.table-1]))
	}
	split := max(1, min(loaders/tables+min(loaders%tables, 1), most))
	chunks := make([][][]batch, tables)
	for t, bs := range perTable {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n := min(split, len(bs))
		for i := range n {
			chunks[t] = append(chunks[t], bs[i*len(bs)/n:(i+1)*len(bs)/n])
		}
	}
	var jobs [][]batch
	for i := range split {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for t := range chunks {
			if i < len(chunks[t]) {
				jobs = append(jobs, chunks[t][i])
			}
		}
	}
	return jobs, nil
}

// jobSource yields the rows of a job's batches one after the other, each batch
// drawn from its own stream.
type jobSource struct {
	batches   []batch
	rand      func(stream uint64) *randgen.Source
	tableSize int64
	progress  *workload.Progress
	cur       *rowSource
	rows      int64 // rows yielded so far
	reported  int64 // rows already added to progress
}

// progressStep is how many rows a job generates between progress updates.
const progressStep = 4096

// Next moves to the next row, opening the next batch when one is used up.
func (j *jobSource) Next() bool {
	for {
		if j.cur != nil && j.cur.Next() {
			j.rows++
			if j.rows-j.reported >= progressStep {
				j.progress.Add(j.rows - j.reported)
				j.reported = j.rows
			}
			return true
		}
		if len(j.batches) == 0 {
			return false
		}
		b := j.batches[0]
		j.batches = j.batches[1:]
		j.cur = newRowSource(j.rand(b.stream()), b.first, b.last, j.tableSize)
	}
}

// Values returns the current row; the slice is reused by the next call to Next.
func (j *jobSource) Values() ([]any, error) { return j.cur.Values() }

// Err is always nil: generating rows cannot fail.
func (j *jobSource) Err() error { return nil }
