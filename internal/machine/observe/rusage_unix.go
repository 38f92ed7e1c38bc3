//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package observe

import (
	"fmt"
	"runtime"
	"syscall"
	"time"
)

// selfUsage returns the CPU time and largest resident set of this process.
func selfUsage() (cpuUsage, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return cpuUsage{}, fmt.Errorf("client CPU use: getrusage: %w", err)
	}
	rss := int64(ru.Maxrss)
	if runtime.GOOS != "darwin" { // darwin reports bytes, the others KiB
		rss *= 1024
	}
	return cpuUsage{
		user:   time.Duration(ru.Utime.Nano()),
		system: time.Duration(ru.Stime.Nano()),
		maxRSS: rss,
	}, nil
}
