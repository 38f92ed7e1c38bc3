package suite

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// TestMain runs 4 parallel tests per CPU under -short (make unit; see
// testdb.ShortParallel): the suites those tests run are on SQLite, in cells
// of a fixed time.
func TestMain(m *testing.M) {
	flag.Parse()
	if err := testdb.ShortParallel(4); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}
