// Package gcballast spaces out Go's garbage collections while a phase runs
// that allocates many short-lived values over a small live heap.
package gcballast

import "runtime"

// Bytes is the size of the ballast With holds.
const Bytes = 64 << 20

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

// Hold allocates a ballast (see With) and returns the function that lets it
// go: a caller holds it from Hold to release.
func Hold() (release func()) {
	ballast := make([]byte, Bytes)
	return func() { runtime.KeepAlive(ballast) }
}
