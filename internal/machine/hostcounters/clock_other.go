//go:build !linux

package hostcounters

import "time"

var start = time.Now()

// monotonicNs is the time since the process started by Go's monotonic clock
// (only Linux has the counters this package reads).
func monotonicNs() int64 { return int64(time.Since(start)) }
