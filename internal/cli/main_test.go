package cli

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// TestMain fails the package when a test left the embedded default's
// database in the source tree: every test names its own --sqlite-db (or
// another target), because a command run without one writes
// DefaultSQLitePath relative to the working directory — here, the package.
// It removes the suites twoSuites ran and the TPC-C load preparedTPCC made
// for the package.
//
// Under -short (make unit) it runs 4 parallel tests per CPU (see
// testdb.ShortParallel): those tests then run on SQLite or against no
// server, and mostly wait (on --time, a --rate, a server that does not
// answer, the metrics' linger) rather than compute. Without -short the
// default stands, because the parallel tests share the machine's servers and
// some start their clients at a --start-at a few seconds ahead.
func TestMain(m *testing.M) {
	flag.Parse()
	if err := testdb.ShortParallel(4); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	_, before := os.Stat(DefaultSQLitePath)
	code := m.Run()
	if suites.dir != "" {
		os.RemoveAll(suites.dir)
	}
	if tpccLoad.dir != "" {
		os.RemoveAll(tpccLoad.dir)
	}
	if _, err := os.Stat(DefaultSQLitePath); err == nil && before != nil {
		fmt.Fprintf(os.Stderr, "a test wrote %s into the source tree: give it --sqlite-db in a temporary directory\n", DefaultSQLitePath)
		os.RemoveAll("fairbench-data")
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}
