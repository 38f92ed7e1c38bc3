package tpcc

import (
	"context"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/base/syncbuf"
	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/open"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/randgen"
)

// testSeed makes every test load the same data.
const testSeed = 20240601

// newWorkload returns a validated tpcc workload parsed from args.
func newWorkload(t testing.TB, args ...string) *tpcc {
	t.Helper()
	fs := pflag.NewFlagSet("tpcc", pflag.ContinueOnError)
	w := newTPCC(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("parse %v: %v", args, err)
	}
	if err := w.Validate(); err != nil {
		t.Fatalf("validate %v: %v", args, err)
	}
	return w
}

// testFactory returns the random factory of the tests.
func testFactory(t testing.TB) *randgen.Factory {
	t.Helper()
	cfg := randgen.DefaultConfig()
	cfg.Seed = testSeed
	f, err := randgen.NewFactory(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// testPopulation returns generators like those of a load with the test seed.
func testPopulation(t testing.TB) *population {
	f := testFactory(t)
	return &population{rand: f, cLoad: chooseCLoad(f), now: time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)}
}

// openDriver opens cfg's driver and closes it when the test ends.
func openDriver(t testing.TB, cfg driver.Config) driver.Driver {
	t.Helper()
	drv, err := open.Driver(cfg)
	if err != nil {
		t.Fatalf("open %s: %v", cfg.Kind, err)
	}
	t.Cleanup(func() { drv.Close() })
	return drv
}

// connect opens one connection that is closed when the test ends.
func connect(t testing.TB, drv driver.Driver) driver.Conn {
	t.Helper()
	c, err := drv.Connect(context.Background(), 0)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// prepareEnv returns a PrepareEnv for drv with the test seed.
func prepareEnv(t testing.TB, drv driver.Driver, threads int, log *syncbuf.Buffer) workload.PrepareEnv {
	return workload.PrepareEnv{
		Driver:   drv,
		Threads:  threads,
		Rand:     testFactory(t),
		Log:      log,
		Progress: workload.NewProgress(0),
	}
}
