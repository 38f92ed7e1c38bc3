package workload

import (
	"fmt"
	"math"
	"time"
)

// Upper bounds of the count options, shared by the command line and suite
// plans so that both refuse the same values with the same words. They keep
// every size a count sets (connections, slices, open files, ids, durations)
// far from overflow; each is far above any real benchmark.
const (
	// MaxThreads bounds --threads of every command and a plan's thread counts.
	MaxThreads = 65536
	// MaxTables bounds --tables (sbtest1..sbtestN).
	MaxTables = 65536
	// MaxTableSize bounds --table-size: the id column is a 32-bit INTEGER.
	MaxTableSize = math.MaxInt32
	// MaxWarehouses bounds --warehouses: every TPC-C id stays inside its
	// INTEGER column and the load plan stays small.
	MaxWarehouses = 100000
	// MaxDuration bounds --time and --warmup-time (and a plan's times).
	MaxDuration = 30 * 24 * time.Hour
	// MaxEvents bounds --events.
	MaxEvents = 1_000_000_000_000
	// MaxClients bounds --clients and a plan's clients.count (coordinated
	// clients, each a process with its own result).
	MaxClients = 1024
	// MaxRate bounds --rate (events per second of the open-loop schedule):
	// one event per nanosecond, the schedule's resolution.
	MaxRate = 1e9
)

// MaxSeconds is MaxDuration in whole seconds, the unit of --time.
const MaxSeconds = int64(MaxDuration / time.Second)

// CheckCount refuses a count option outside 1..max (or 0..max when zero is
// allowed, as "no limit"). flag is the option's name with its dashes
// ("--threads"); what says what it counts ("threads").
func CheckCount(flag string, n, lo, maxN int64, what string) error {
	if n < lo || n > maxN {
		return fmt.Errorf("%s=%d: give %d to %d %s", flag, n, lo, maxN, what)
	}
	return nil
}
