package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// tpccLoad is the SQLite database that `fairbench prepare tpcc
// --warehouses=1 --threads=2` loads, once for the package, in dir, which
// TestMain removes.
var tpccLoad struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// preparedTPCC returns a SQLite target of the test's own that holds one
// warehouse of TPC-C, as `fairbench prepare tpcc --warehouses=1 --threads=2`
// loads it: a copy of the package's one load. The tests that only need the
// data loaded (to run, check or refuse it) take it: a load costs seconds of
// CPU, a copy a fraction of one. The tests of prepare itself (its output,
// the files it writes, the embedded default loading before a run) still
// prepare.
func preparedTPCC(t *testing.T) driver.Config {
	t.Helper()
	tpccLoad.once.Do(func() {
		dir, err := os.MkdirTemp("", "fairbench-cli-tpcc-")
		if err != nil {
			tpccLoad.err = err
			return
		}
		tpccLoad.dir = dir
		path := filepath.Join(dir, "tpcc.db")
		if r := runCLI(context.Background(), nil, "prepare", "tpcc", "--warehouses=1", "--threads=2", "--sqlite-db="+path); r.code != ExitOK {
			tpccLoad.err = fmt.Errorf("prepare tpcc --warehouses=1: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			return
		}
		tpccLoad.path = path
	})
	if tpccLoad.err != nil {
		t.Fatal(tpccLoad.err)
	}
	cfg := testdb.SQLite(t)
	if err := copyFile(tpccLoad.path, cfg.Path); err != nil {
		t.Fatalf("copy the prepared tpcc database: %v", err)
	}
	return cfg
}

// copyFile copies the file at from to a new file at to.
func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return fmt.Errorf("copy %s to %s: %w", from, to, err)
	}
	return dst.Close()
}
