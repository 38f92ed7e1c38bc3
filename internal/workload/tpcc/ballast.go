package tpcc

import "runtime"

// gcBallastBytes is the size of the ballast a load holds (see withGCBallast).
const gcBallastBytes = 64 << 20

// withGCBallast runs fn while holding a ballast: memory that is allocated but
// never written. A load allocates hundreds of megabytes of short-lived row
// values while its live heap stays at a few megabytes, so Go's collector (which
// runs whenever the heap doubles) would run every few megabytes; the ballast
// counts as live heap and spaces the collections out to one per ~64 MB
// allocated. Its pages are never touched, so it costs address space, not
// memory, and unlike debug.SetGCPercent it changes no process-wide setting.
func withGCBallast(fn func() error) error {
	ballast := make([]byte, gcBallastBytes)
	err := fn()
	runtime.KeepAlive(ballast)
	return err
}
