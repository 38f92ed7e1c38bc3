package txn

import (
	"sync"

	"github.com/fairbench/fairbench/internal/workload/randgen"
)

// The population's sizes (clause 1.2 and 4.3) that the inputs range over.
const (
	districtsPerWarehouse = 10
	customersPerDistrict  = 3000
	items                 = 100000
	stockLevelOrders      = 20 // orders Stock-Level looks back at (clause 2.8.2.2)
)

// runConstants are the C values of NURand for the measurement run (clause 2.1.6).
type runConstants struct {
	cLast, cID, olIID int64
}

// lastDeltaOK reports whether delta = |C_run − C_load| for C_LAST is allowed by
// clause 2.1.6.1: within [65, 119] and neither 96 nor 112.
func lastDeltaOK(delta int64) bool {
	return delta >= 65 && delta <= 119 && delta != 96 && delta != 112
}

// newRunConstants derives the run's C values from C_LOAD. They depend only on
// cLoad, so every worker of a run uses the same ones without sharing state.
// C_run for C_LAST keeps the distance to C_LOAD that clause 2.1.6.1 demands;
// C_ID and OL_I_ID may take any value in their ranges.
func newRunConstants(cLoad int64) runConstants {
	h := mix64(uint64(cLoad) + 0x9e3779b97f4a7c15)
	var valid []int64
	for d := int64(65); d <= 119; d++ {
		if lastDeltaOK(d) {
			valid = append(valid, d)
		}
	}
	delta := valid[h%uint64(len(valid))]
	cLast := cLoad + delta
	if cLast > 255 {
		cLast = cLoad - delta // cLoad ≥ 137 here, so this is ≥ 18
	}
	h = mix64(h)
	cID := int64(h % 1024)
	h = mix64(h)
	olIID := int64(h % 8192)
	return runConstants{cLast: cLast, cID: cID, olIID: olIID}
}

// mix64 is splitmix64's finaliser: a fixed scrambling of x.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// syllables make up customer last names (clause 4.3.2.3).
var syllables = [10]string{"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}

// LastName returns the last name of number n (0..999): the syllables of its
// three digits (clause 4.3.2.3).
func LastName(n int) string {
	return syllables[n/100] + syllables[n/10%10] + syllables[n%10]
}

// boxedLastNames holds C_LAST of every number 0..999 boxed once as a statement
// argument. It is shared by all workers and only read: one table instead of
// one per terminal (1,000 terminals each boxing their own took ~27 MB). It
// is built on the first transaction that needs it, not at program start
// (2,000 allocations every fairbench command paid).
var boxedLastNames = sync.OnceValue(func() *[1000]any {
	var t [1000]any
	for n := range t {
		t[n] = LastName(n)
	}
	return &t
})

// sizes are the population's cardinalities that inputs are drawn from; the
// spec's (clause 4.3) unless a test shrinks them.
type sizes struct {
	customers int64 // per district
	items     int64
	lastNames int64 // distinct C_LAST numbers
}

// specSizes are the cardinalities of clause 4.3.
var specSizes = sizes{customers: customersPerDistrict, items: items, lastNames: 1000}

// customerID draws C_ID = NURand(1023, 1, 3000) (clause 2.4.1.2 and others).
func (w *Worker) customerID() int64 {
	return w.rng.NURand(1023, w.runC.cID, 1, w.size.customers)
}

// lastNameNumber draws the number of a C_LAST, NURand(255, 0, 999) (clause 2.5.1.2).
func (w *Worker) lastNameNumber() int64 {
	return w.rng.NURand(255, w.runC.cLast, 0, w.size.lastNames-1)
}

// itemID draws OL_I_ID = NURand(8191, 1, 100000) (clause 2.4.1.5).
func (w *Worker) itemID() int64 {
	return w.rng.NURand(8191, w.runC.olIID, 1, w.size.items)
}

// otherWarehouse draws a warehouse other than home uniformly; with one
// warehouse it returns home.
func otherWarehouse(rng *randgen.Source, home, warehouses int64) int64 {
	if warehouses < 2 {
		return home
	}
	w := rng.Uniform(1, warehouses-1)
	if w >= home {
		w++
	}
	return w
}

// middle returns the 0-based index of the customer that clause 2.5.2.2 picks
// from n customers sorted by C_FIRST: position ceil(n/2), 1-based.
func middle(n int) int {
	return (n+1)/2 - 1
}
