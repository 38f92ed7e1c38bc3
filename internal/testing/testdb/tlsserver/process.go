package tlsserver

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/base/procutil"
)

// pollEvery is how often a starting server is asked whether it is up.
const pollEvery = 50 * time.Millisecond

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	port, err := procutil.FreePort()
	if err != nil {
		t.Fatalf("tlsserver: %v", err)
	}
	return port
}

// findBinary returns the first executable among paths, or name found in $PATH;
// it fails the test with the Debian package to install when there is none.
func findBinary(t testing.TB, name, debianPackage string, paths ...string) string {
	t.Helper()
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	t.Fatalf("tlsserver: %s not found (looked in %s and $PATH): install the Debian package %s "+
		"(apt-get install %s; scripts/test.sh does this)", name, strings.Join(paths, ", "), debianPackage, debianPackage)
	return ""
}

// copyFile copies src over dst and gives dst the permissions mode.
func copyFile(src, dst string, mode os.FileMode) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	if err := os.WriteFile(dst, data, mode); err != nil {
		return fmt.Errorf("copy %s to %s: %w", src, dst, err)
	}
	if err := os.Chmod(dst, mode); err != nil {
		return fmt.Errorf("copy %s to %s: %w", src, dst, err)
	}
	return nil
}
