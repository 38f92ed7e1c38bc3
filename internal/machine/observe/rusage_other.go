//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package observe

import (
	"fmt"
	"runtime"
)

// selfUsage is not available on this system.
func selfUsage() (cpuUsage, error) {
	return cpuUsage{}, fmt.Errorf("client CPU use: getrusage is not available on %s", runtime.GOOS)
}
