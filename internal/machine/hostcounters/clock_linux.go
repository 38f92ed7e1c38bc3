package hostcounters

import "golang.org/x/sys/unix"

// monotonicNs reads CLOCK_MONOTONIC.
func monotonicNs() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return 0
	}
	return ts.Nano()
}
