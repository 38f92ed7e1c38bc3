package oltp

import "github.com/fairbench/fairbench/internal/workload"

// The options of what one event runs, by the groups of statements they shape.
var (
	pointOptions = []string{"point-selects"}
	rangeOptions = []string{"range-selects", "range-size", "simple-ranges", "sum-ranges", "order-ranges", "distinct-ranges"}
	writeOptions = []string{"index-updates", "non-index-updates", "delete-inserts"}
)

// IgnoredOptions names the options that shape statements k's events never run
// (as in sysbench's script of k, which accepts and ignores them): every
// workload registers the family's options, so that one option set serves all
// of them as in sysbench, and one given to a workload that ignores it is named
// in a note and the result's warnings rather than kept as if it had shaped
// the figures.
func (w *oltp) IgnoredOptions() map[string]string {
	unused := map[string]string{}
	add := func(why string, groups ...[]string) {
		for _, g := range groups {
			for _, name := range g {
				unused[name] = why
			}
		}
	}
	defaults := DefaultOptions()
	p := planFor(w.kind, &defaults)
	name := w.kind.name()
	switch {
	case w.kind == pointSelect:
		add(name+" runs one point SELECT per event", pointOptions, rangeOptions, writeOptions)
	case p.pointSelects < 0 && !p.ranges && p.indexUpdates < 0 && p.nonIndexUpdates < 0 && p.deleteInserts < 0:
		add(name+" runs "+w.kind.summary()+" per event", pointOptions, rangeOptions, writeOptions)
	default:
		if p.pointSelects < 0 {
			add(name+" runs no point SELECT", pointOptions)
		}
		if !p.ranges {
			add(name+" runs no range SELECT", rangeOptions)
		}
		if p.indexUpdates < 0 && p.nonIndexUpdates < 0 && p.deleteInserts < 0 {
			add(name+" writes nothing", writeOptions)
		} else {
			if p.indexUpdates < 0 {
				add(name+" runs no index UPDATE", []string{"index-updates"})
			}
			if p.nonIndexUpdates < 0 {
				add(name+" runs no non-index UPDATE", []string{"non-index-updates"})
			}
			if p.deleteInserts < 0 {
				add(name+" runs no DELETE/INSERT pair", []string{"delete-inserts"})
			}
		}
	}
	if !p.trx {
		add(name+" runs its statement in autocommit mode already", []string{"skip-trx"})
	}
	return unused
}

// compile-time check that oltp says which options it ignores.
var _ workload.OptionNotes = (*oltp)(nil)
