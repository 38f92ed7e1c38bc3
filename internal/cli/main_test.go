package cli

import (
	"fmt"
	"os"
	"testing"
)

// TestMain fails the package when a test left the embedded default's
// database in the source tree: every test names its own --sqlite-db (or
// another target), because a command run without one writes
// DefaultSQLitePath relative to the working directory — here, the package.
func TestMain(m *testing.M) {
	_, before := os.Stat(DefaultSQLitePath)
	code := m.Run()
	if _, err := os.Stat(DefaultSQLitePath); err == nil && before != nil {
		fmt.Fprintf(os.Stderr, "a test wrote %s into the source tree: give it --sqlite-db in a temporary directory\n", DefaultSQLitePath)
		os.RemoveAll("fairbench-data")
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}
