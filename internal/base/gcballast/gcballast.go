// Package gcballast spaces out Go's garbage collections while a phase runs
// that allocates many short-lived values over a small live heap.
package gcballast

import "sync"

// Bytes is the size of the ballast With holds.
const Bytes = 64 << 20

// The one ballast of the process and how many hold it: holders share it, so
// that a phase that holds it while the whole command holds it already (see
// cmd/fairbench) allocates nothing — a second ballast would push the heap past
// the collector's goal and start the very collection it is meant to spare.
var (
	mu      sync.Mutex
	holders int
	ballast []byte
)

// With runs fn while holding a ballast: memory that is allocated but never
// written. The collector runs whenever the heap doubles, so with a live heap
// of a few megabytes it would run every few megabytes allocated; the ballast
// counts as live heap and spaces the collections out to one per ~64 MB
// allocated. Its pages are never touched, so it costs address space, not
// memory (nor resident set), and unlike debug.SetGCPercent it changes no
// process-wide setting.
func With(fn func() error) error {
	defer Hold()()
	return fn()
}

// Hold holds the ballast (see With), allocating it unless it is held
// already, and returns the function that lets it go: the ballast is freed
// when its last holder lets it go. Calling release more than once has no
// further effect.
func Hold() (release func()) {
	mu.Lock()
	if holders == 0 {
		ballast = make([]byte, Bytes)
	}
	holders++
	mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			mu.Lock()
			if holders--; holders == 0 {
				ballast = nil
			}
			mu.Unlock()
		})
	}
}
