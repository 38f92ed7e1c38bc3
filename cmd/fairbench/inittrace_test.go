package main

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// maxInitAllocs bounds the allocations of the initialisation of each of
// fairbench's own packages: every command (`fairbench version` as much as a
// run) pays for all of them before main, so tables, regular expressions
// (lazyre), templates and big maps are built on first use instead. A few
// small maps and slices of names fit.
const maxInitAllocs = 128

// lazyInits are packages whose initialisation once built a table or
// compiled expressions at start (thousands of allocations between them): their
// own budget is smaller, so that the change that makes one eager again fails
// here by name.
var lazyInits = map[string]int{
	"github.com/fairbench/fairbench/internal/workload/tpcc/txn": 16, // C_LAST boxed, the statements' texts
	"github.com/fairbench/fairbench/internal/record/bundle":     32, // the redactor's expressions (its maps of names fit)
	"github.com/fairbench/fairbench/internal/analysis/site":     16, // the clouds' expressions
}

// initLine is a line of GODEBUG=inittrace=1: "init PKG @T ms, C ms clock, B
// bytes, N allocs".
var initLine = regexp.MustCompile(`^init (\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)

// TestInitsStayLazy starts this test binary (which links every package of
// fairbench's, as the fairbench binary does) with GODEBUG=inittrace=1 and
// no test to run, and checks the allocations of each of fairbench's own
// packages' initialisation: counts, not times, so that the machine's speed
// does not matter.
func TestInitsStayLazy(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	godebug := "inittrace=1"
	if g := os.Getenv("GODEBUG"); g != "" {
		godebug = g + "," + godebug
	}
	cmd.Env = append(os.Environ(), "GODEBUG="+godebug)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s -test.run=^$: %v\n%s", os.Args[0], err, out)
	}
	seen := 0
	for _, line := range strings.Split(string(out), "\n") {
		m := initLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil || !strings.HasPrefix(m[1], "github.com/fairbench/fairbench/internal/") {
			continue
		}
		seen++
		allocs, _ := strconv.Atoi(m[3])
		limit, named := lazyInits[m[1]]
		if !named {
			limit = maxInitAllocs
		}
		if allocs > limit {
			t.Errorf("init of %s made %s allocations (%s bytes), more than %d: build its tables, expressions and maps on first use (sync.OnceValue, lazyre)", m[1], m[3], m[2], limit)
		}
	}
	if seen == 0 {
		t.Fatalf("no init line of a fairbench package in the trace:\n%s", out)
	}
}
