// Package golden compares what a test rendered with a golden file and, when
// the test binary is run with -update, rewrites the file instead. Every
// package's tests use it, so the flag and the message are the same
// everywhere: go test ./internal/PKG -run TEST -update.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ with what the tests render")

// Updating reports whether the test binary was run with -update.
func Updating() bool { return *update }

// Check compares got with the golden file at path (e.g.
// testdata/summary.golden), or writes got there, creating its directory,
// under -update. A difference fails the test with both texts.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run 'go test -run %s -update' in the package to create it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (rerun with -update if the change is intended)\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}
