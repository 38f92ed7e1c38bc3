package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/open"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// cancelWhenLoaded cancels the returned context once table (on cfg) holds
// ids up to maxID, polling from a goroutine.
func cancelWhenLoaded(t *testing.T, cfg driver.Config, table string, maxID int) context.Context {
	t.Helper()
	drv, err := open.Driver(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	want := fmt.Sprint(maxID)
	go func() {
		defer drv.Close()
		deadline := time.Now().Add(2 * time.Minute)
		for time.Now().Before(deadline) && ctx.Err() == nil {
			if conn, err := drv.Connect(ctx, 0); err == nil {
				rows, err := conn.QueryStrings(ctx, "SELECT COALESCE(MAX(id), 0) FROM "+table)
				conn.Close()
				if err == nil && len(rows) == 1 && rows[0][0] == want {
					cancel()
					return
				}
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	return ctx
}

// TestRunRefusesAnInterruptedPrepare interrupts a prepare of 2 tables (one
// loader: sbtest1, then sbtest2) once sbtest1 is loaded, on each target (on
// SQLite, run's own load of the embedded database): the interrupted command
// names the prepare that loads the tables again; a run on them is refused
// (exit 3) with that command before any thread starts, however complete
// sbtest1 looks; cleanup removes the tables and their mark; a complete
// prepare runs.
func TestRunRefusesAnInterruptedPrepare(t *testing.T) {
	const size = 50000
	data := []string{"--tables=2", fmt.Sprintf("--table-size=%d", size)}
	for kind, cfg := range testdb.All(t) {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			tgt := targetArgs(cfg)
			reload := fmt.Sprintf("fairbench prepare oltp_read_write --tables=2 --table-size=%d --replace", size)

			ctx := cancelWhenLoaded(t, cfg, "sbtest1", size)
			first := join([]string{"prepare", "oltp_read_write", "--threads=1"}, data, tgt)
			if kind == driver.KindSQLite {
				first = join([]string{"run", "oltp_read_write", "--events=10"}, data, tgt)
			}
			r := runCLI(ctx, nil, first...)
			if r.code != ExitInterrupted || !strings.Contains(r.stderr, "'fairbench prepare oltp_read_write ") || !strings.Contains(r.stderr, "--tables=2 --replace'") ||
				!strings.Contains(r.stderr, "--table-size=50000") || strings.Contains(r.stderr, "fairbench run") {
				t.Fatalf("interrupted %s: exit %d, want %d naming the prepare that loads the tables again\n%s%s", first[0], r.code, ExitInterrupted, r.stdout, r.stderr)
			}

			out := filepath.Join(t.TempDir(), "r.json")
			run := join([]string{"run", "oltp_read_write", "--events=10", "--output=" + out}, data, tgt)
			r = runCLI(context.Background(), nil, run...)
			if r.code != ExitTarget || strings.Contains(r.stdout, "Threads started") {
				t.Fatalf("run on an interrupted load: exit %d, want %d before any thread starts\n%s%s", r.code, ExitTarget, r.stdout, r.stderr)
			}
			for _, want := range []string{"did not finish", "fairbench_oltp_load", reload} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("refusal lacks %q:\n%s", want, r.stderr)
				}
			}

			if r := runCLI(context.Background(), nil, join([]string{"cleanup", "oltp_read_write"}, data, tgt)...); r.code != ExitOK ||
				!strings.Contains(r.stdout, "Dropping table 'fairbench_oltp_load'") {
				t.Errorf("cleanup: exit %d, want the mark dropped\n%s%s", r.code, r.stdout, r.stderr)
			}
			if r := runCLI(context.Background(), nil, join([]string{"prepare", "oltp_read_write", "--threads=2"}, data, tgt)...); r.code != ExitOK {
				t.Fatalf("prepare: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			if r := runCLI(context.Background(), nil, run...); r.code != ExitOK || strings.Contains(r.stdout, "Warning") {
				t.Errorf("run on a complete load: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
		})
	}
}

// TestMissingTablesAreSummarised: a run asking for far more tables than the
// database holds says how many are missing and names a few, in a message of
// bounded length (it listed every missing table).
func TestMissingTablesAreSummarised(t *testing.T) {
	cfg := testdb.MySQL(t)
	tgt := targetArgs(cfg)
	if r := runCLI(context.Background(), nil, join([]string{"prepare", "oltp_point_select", "--tables=2", "--table-size=100"}, tgt)...); r.code != ExitOK {
		t.Fatalf("prepare: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r := runCLI(context.Background(), nil, join([]string{"run", "oltp_point_select", "--tables=65536", "--table-size=100", "--events=10"}, tgt)...)
	want := "lacks tables sbtest1…sbtest65536: 65,534 missing; first: sbtest3, sbtest4, sbtest5, sbtest6, sbtest7, …, which oltp_point_select needs"
	if r.code != ExitTarget || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "fairbench prepare oltp_point_select") {
		t.Errorf("exit %d, want %d saying %q\n%s", r.code, ExitTarget, want, r.stderr)
	}
	if len(r.stderr) > 2048 {
		t.Errorf("the message is %d bytes long, want a summary under 2 KB", len(r.stderr))
	}
}

// TestRunRefusesAnIncompleteTPCCLoad pins what tpcc_meta already did: a
// warehouse whose load did not finish (its marker absent) is refused by run
// (exit 3) with the prepare that finishes the load, before any thread starts.
func TestRunRefusesAnIncompleteTPCCLoad(t *testing.T) {
	t.Parallel()
	cfg := preparedTPCC(t)
	tgt := targetArgs(cfg)
	drv, err := open.Driver(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer drv.Close()
	conn, err := drv.Connect(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(context.Background(), "DELETE FROM tpcc_meta WHERE name = 'loaded_w_1'")
	conn.Close()
	if err != nil {
		t.Fatal(err)
	}
	r := runCLI(context.Background(), nil, join([]string{"run", "tpcc", "--events=10"}, tgt)...)
	if r.code != ExitTarget || strings.Contains(r.stdout, "Threads started") ||
		!strings.Contains(r.stderr, "the tpcc load is incomplete (warehouses 1 are not loaded)") || !strings.Contains(r.stderr, "'fairbench prepare tpcc --warehouses=1' again") {
		t.Errorf("run on an incomplete tpcc load: exit %d, want %d with the prepare that finishes it\n%s%s", r.code, ExitTarget, r.stdout, r.stderr)
	}
}
