// Package oltp is the sysbench OLTP family (oltp_point_select … oltp_delete) as
// fairbench workloads. Tables, statements, event composition and parameter
// distributions follow sysbench's oltp_common.lua and the per-workload scripts,
// so sysbench can run on tables fairbench prepared and the other way round.
package oltp

import (
	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/workload"
)

// kind identifies one workload of the family.
type kind int

const (
	pointSelect kind = iota
	readOnly
	readWrite
	writeOnly
	updateIndex
	updateNonIndex
	insert
	deleteRows
)

// kinds lists the workloads in the order `fairbench list` shows them.
func kinds() []kind {
	return []kind{pointSelect, readOnly, readWrite, writeOnly, updateIndex, updateNonIndex, insert, deleteRows}
}

// name is what users type for k.
func (k kind) name() string {
	switch k {
	case pointSelect:
		return "oltp_point_select"
	case readOnly:
		return "oltp_read_only"
	case readWrite:
		return "oltp_read_write"
	case writeOnly:
		return "oltp_write_only"
	case updateIndex:
		return "oltp_update_index"
	case updateNonIndex:
		return "oltp_update_non_index"
	case insert:
		return "oltp_insert"
	case deleteRows:
		return "oltp_delete"
	}
	return "oltp_unknown"
}

// summary describes k in one line.
func (k kind) summary() string {
	switch k {
	case pointSelect:
		return "one primary-key SELECT per event, no transaction"
	case readOnly:
		return "transaction of 10 point SELECTs and 4 range SELECTs"
	case readWrite:
		return "oltp_read_only plus index/non-index UPDATE, DELETE and INSERT in one transaction"
	case writeOnly:
		return "transaction of index UPDATE, non-index UPDATE, DELETE and INSERT"
	case updateIndex:
		return "one autocommit UPDATE of the indexed column k"
	case updateNonIndex:
		return "one autocommit UPDATE of the non-indexed column c"
	case insert:
		return "one autocommit INSERT of a new row"
	case deleteRows:
		return "one autocommit DELETE by primary key"
	}
	return ""
}

// Specs returns the eight workloads of the sysbench OLTP family.
func Specs() []workload.Spec {
	ks := kinds()
	specs := make([]workload.Spec, 0, len(ks))
	for _, k := range ks {
		specs = append(specs, workload.Spec{
			Name:    k.name(),
			Summary: k.summary(),
			New:     func(fs *pflag.FlagSet) workload.Workload { return newOLTP(k, fs) },
		})
	}
	return specs
}

// rangeKind is one of the four range SELECTs, in the order an event runs them.
type rangeKind int

const (
	simpleRange rangeKind = iota
	sumRange
	orderRange
	distinctRange
	numRangeKinds
)

// String names the range select in error messages.
func (r rangeKind) String() string {
	switch r {
	case simpleRange:
		return "simple range select"
	case sumRange:
		return "sum range select"
	case orderRange:
		return "order range select"
	case distinctRange:
		return "distinct range select"
	}
	return "range select"
}

// plan is what one event of a workload runs, read from the options once.
type plan struct {
	trx bool // BEGIN … COMMIT around the event

	pointSelects int // -1: no point-select group
	ranges       bool
	rangeCounts  [numRangeKinds]int

	indexUpdates    int // -1: no group
	nonIndexUpdates int // -1: no group
	deleteInserts   int // -1: no group

	insertOnly bool // oltp_insert's single text INSERT
	deleteOnly bool // oltp_delete's single DELETE
}

// planFor returns the event body of k as the sysbench script of k runs it.
func planFor(k kind, o *Options) plan {
	p := plan{pointSelects: -1, indexUpdates: -1, nonIndexUpdates: -1, deleteInserts: -1}
	withRanges := func() {
		p.ranges = o.RangeSelects
		p.rangeCounts = [numRangeKinds]int{o.SimpleRanges, o.SumRanges, o.OrderRanges, o.DistinctRanges}
	}
	withWrites := func() {
		p.indexUpdates, p.nonIndexUpdates, p.deleteInserts = o.IndexUpdates, o.NonIndexUpdates, o.DeleteInserts
	}
	switch k {
	case pointSelect:
		p.pointSelects = 1 // oltp_point_select.lua overrides point_selects=1
	case readOnly:
		p.trx = !o.SkipTrx
		p.pointSelects = o.PointSelects
		withRanges()
	case readWrite:
		p.trx = !o.SkipTrx
		p.pointSelects = o.PointSelects
		withRanges()
		withWrites()
	case writeOnly:
		p.trx = !o.SkipTrx
		withWrites()
	case updateIndex:
		p.indexUpdates = o.IndexUpdates
	case updateNonIndex:
		p.nonIndexUpdates = o.NonIndexUpdates
	case insert:
		p.insertOnly = true
	case deleteRows:
		p.deleteOnly = true
	}
	return p
}

// statements reports how many statements one event of p runs.
func (p plan) statements() int {
	n := 0
	if p.trx {
		n += 2
	}
	n += max(p.pointSelects, 0)
	if p.ranges {
		for _, r := range p.rangeCounts {
			n += r
		}
	}
	n += max(p.indexUpdates, 0) + max(p.nonIndexUpdates, 0) + 2*max(p.deleteInserts, 0)
	if p.insertOnly || p.deleteOnly {
		n++
	}
	return n
}
