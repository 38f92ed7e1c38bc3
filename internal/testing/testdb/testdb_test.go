package testdb

import (
	"flag"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
)

func TestDatabasesAreCreatedAndNamedUniquely(t *testing.T) {
	a, b := MySQL(t), MySQL(t)
	if a.Database == b.Database || a.Database == "" {
		t.Fatalf("mysql databases not unique: %q %q", a.Database, b.Database)
	}
	p := PgSQL(t)
	if p.Database == "" {
		t.Fatal("postgres database not named")
	}
}

// skipRecorder is a testing.TB whose Skipf records the reason and ends the
// goroutine, as testing's does.
type skipRecorder struct {
	testing.TB
	reason string
}

func (r *skipRecorder) Skipf(format string, args ...any) {
	r.reason = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// TestSkipShort: under -short SkipShort skips, naming what the test needs;
// without it, it lets the test go on.
func TestSkipShort(t *testing.T) {
	r := &skipRecorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		SkipShort(r, "MariaDB")
	}()
	<-done
	want := ""
	if testing.Short() {
		want = "needs MariaDB (-short)"
	}
	if r.reason != want {
		t.Errorf("SkipShort (short %v) skipped with %q, want %q", testing.Short(), r.reason, want)
	}
}

// TestAllTargets: All gives the three targets, or under -short the SQLite
// one only.
func TestAllTargets(t *testing.T) {
	want := []string{driver.KindMySQL, driver.KindPgSQL, driver.KindSQLite}
	if testing.Short() {
		want = []string{driver.KindSQLite}
	}
	if got := slices.Sorted(maps.Keys(All(t))); !slices.Equal(got, want) {
		t.Errorf("All (short %v) = %v, want %v", testing.Short(), got, want)
	}
}

// TestShortParallel: under -short, without -parallel on the command line,
// ShortParallel sets it to its count per CPU; otherwise it leaves it.
func TestShortParallel(t *testing.T) {
	f := flag.Lookup("test.parallel")
	before := f.Value.String()
	t.Cleanup(func() { _ = f.Value.Set(before) })
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if err := ShortParallel(3); err != nil {
		t.Fatal(err)
	}
	want := before
	if testing.Short() && !given {
		want = strconv.Itoa(3 * runtime.GOMAXPROCS(0))
	}
	if got := f.Value.String(); got != want {
		t.Errorf("-test.parallel (short %v, given %v) = %s, want %s", testing.Short(), given, got, want)
	}
}
