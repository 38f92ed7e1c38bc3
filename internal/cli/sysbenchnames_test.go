package cli

import "github.com/fairbench/fairbench/internal/compat/sysbenchout"

// The names the sysbench layout tests (sysbench_layout_test.go,
// golden_test.go) use for sysbench's formats, which live in
// compat/sysbenchout; the run command uses the others (human.go).
const sbHistSlots = sysbenchout.HistogramSlots

func intervalLabel(at float64) string { return sysbenchout.IntervalLabel(at) }
func sbSlot(ms float64) int           { return sysbenchout.Slot(ms) }
func sbSlotMs(i int) float64          { return sysbenchout.SlotMs(i) }
