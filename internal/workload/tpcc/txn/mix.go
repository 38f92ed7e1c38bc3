package txn

import "github.com/fairbench/fairbench/internal/workload/randgen"

// mixTable draws transactions by weight: bounds[k] is the sum of the weights
// of kinds 0..k.
type mixTable struct {
	bounds [numKinds]int64
}

// newMixTable builds the table of weights (validated: none negative, total > 0).
func newMixTable(weights [numKinds]int) mixTable {
	var m mixTable
	var sum int64
	for k, w := range weights {
		sum += int64(w)
		m.bounds[k] = sum
	}
	return m
}

// draw returns the kind of the next transaction.
func (m *mixTable) draw(rng *randgen.Source) int {
	x := rng.Uniform(1, m.bounds[numKinds-1])
	for k, b := range m.bounds {
		if x <= b {
			return k
		}
	}
	return numKinds - 1
}
