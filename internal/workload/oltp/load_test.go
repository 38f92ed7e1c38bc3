package oltp

import (
	"context"
	"errors"
	"math"
	"regexp"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/workload/randgen"
)

// The value shapes of sysbench's get_c_value and get_pad_value.
var (
	cPattern   = regexp.MustCompile(`^[0-9]{11}(-[0-9]{11}){9}$`)
	padPattern = regexp.MustCompile(`^[0-9]{11}(-[0-9]{11}){4}$`)
)

func testFactory(t testing.TB, seed uint64) *randgen.Factory {
	t.Helper()
	cfg := randgen.DefaultConfig()
	cfg.Seed = seed
	f, err := randgen.NewFactory(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestTemplates(t *testing.T) {
	if len(cTemplate) != 119 || len(padTemplate) != 59 {
		t.Fatalf("template lengths %d/%d, want 119/59", len(cTemplate), len(padTemplate))
	}
	rng := testFactory(t, 1).Source(0)
	if c := rng.String(nil, cTemplate); !cPattern.Match(c) {
		t.Errorf("c = %q does not match %v", c, cPattern)
	}
	if p := rng.String(nil, padTemplate); !padPattern.Match(p) {
		t.Errorf("pad = %q does not match %v", p, padPattern)
	}
}

func TestPlanBatchesCoverEveryIDOnce(t *testing.T) {
	cases := []struct {
		tables int
		rows   int64
	}{{1, 1}, {2, 1000}, {3, 10000}, {1, 255}, {1, 257}, {2, 1_000_001}}
	for _, c := range cases {
		batches := mustBatches(t, c.tables, c.rows)
		next := make(map[int]int64)
		seen := make(map[uint64]bool)
		for _, b := range batches {
			if b.first != next[b.table]+1 || b.last < b.first || b.last-b.first+1 > maxBatchRows {
				t.Fatalf("%+v: batch %+v does not continue at id %d", c, b, next[b.table]+1)
			}
			next[b.table] = b.last
			if seen[b.stream()] {
				t.Fatalf("%+v: stream %x used twice", c, b.stream())
			}
			seen[b.stream()] = true
		}
		for tn := 1; tn <= c.tables; tn++ {
			if next[tn] != c.rows {
				t.Errorf("%+v: table %d loaded up to id %d, want %d", c, tn, next[tn], c.rows)
			}
		}
	}
	if mustBatches(t, 2, 0) != nil {
		t.Error("planBatches with 0 rows returned batches")
	}
	if n := len(mustBatches(t, 1, 10000)); n < 2 {
		t.Errorf("a 10000-row table is cut into %d batches, want several so one table loads in parallel", n)
	}
}

func TestRowSourceShapesAndDeterminism(t *testing.T) {
	f := testFactory(t, 42)
	b := batch{table: 2, index: 3, first: 769, last: 1000}
	read := func() [][]any {
		src := newRowSource(f.Source(b.stream()), b.first, b.last, 1000)
		var rows [][]any
		for src.Next() {
			v, err := src.Values()
			if err != nil {
				t.Fatal(err)
			}
			rows = append(rows, append([]any(nil), v...))
		}
		if src.Err() != nil {
			t.Fatal(src.Err())
		}
		return rows
	}
	a, again := read(), read()
	if len(a) != 232 {
		t.Fatalf("%d rows, want 232", len(a))
	}
	for i, r := range a {
		if r[0].(int64) != b.first+int64(i) {
			t.Fatalf("row %d id %v, want %d", i, r[0], b.first+int64(i))
		}
		if k := r[1].(int64); k < 1 || k > 1000 {
			t.Fatalf("row %d k = %d outside 1..1000", i, k)
		}
		if !cPattern.MatchString(r[2].(string)) || !padPattern.MatchString(r[3].(string)) {
			t.Fatalf("row %d c/pad shapes wrong: %q %q", i, r[2], r[3])
		}
		for j := range r {
			if r[j] != again[i][j] {
				t.Fatalf("row %d column %d differs between two reads of the same batch", i, j)
			}
		}
	}
}

func TestUniqueIDsDoNotRepeat(t *testing.T) {
	var u uniqueIDs
	u.seed(0xfeedface12345678)
	u.seed(1) // ignored: the first seed counts
	seen := make(map[int64]bool, 100000)
	for range 100000 {
		id := u.id()
		if id < -1<<31 || id > 1<<31-1 {
			t.Fatalf("id %d outside the INT range", id)
		}
		if seen[id] {
			t.Fatalf("id %d repeated", id)
		}
		seen[id] = true
	}
	// permuteQPR is a bijection: no two inputs around the prime's edges collide.
	out := make(map[uint32]uint32)
	for _, x := range []uint32{0, 1, 2, 2147483645, 2147483646, 2147483647, 4294967290, 4294967291, 4294967295} {
		y := permuteQPR(x)
		if prev, dup := out[y]; dup {
			t.Errorf("permuteQPR(%d) = permuteQPR(%d) = %d", x, prev, y)
		}
		out[y] = x
	}
}

func TestPlanJobs(t *testing.T) {
	cases := []struct {
		tables  int
		rows    int64
		loaders int
		jobs    int
	}{
		{tables: 4, rows: 100000, loaders: 4, jobs: 4}, // a stream per table
		{tables: 4, rows: 100000, loaders: 1, jobs: 4}, // one loader, still per table
		{tables: 1, rows: 100000, loaders: 4, jobs: 4}, // one table split four ways
		{tables: 3, rows: 100000, loaders: 4, jobs: 6}, // split in two to keep four busy
		{tables: 2, rows: 500, loaders: 8, jobs: 4},    // split no finer than the batches
		{tables: 16, rows: 1000, loaders: 2, jobs: 16}, // more tables than loaders
		// A huge loader count is cut to the batches at once (it used to
		// loop loaders/tables times: minutes of 100 % CPU at --threads=2^62).
		{tables: 2, rows: 100000, loaders: math.MaxInt, jobs: 64},
		{tables: 3, rows: 100000, loaders: math.MaxInt - 1, jobs: 96},
	}
	for _, tc := range cases {
		batches := mustBatches(t, tc.tables, tc.rows)
		jobs, err := planJobs(context.Background(), batches, tc.tables, tc.loaders)
		if err != nil {
			t.Fatal(err)
		}
		if len(jobs) != tc.jobs {
			t.Errorf("%+v: %d jobs, want %d", tc, len(jobs), tc.jobs)
		}
		seen := map[batch]bool{}
		for i, job := range jobs {
			for k, b := range job {
				if b.table != job[0].table || (k > 0 && b.first != job[k-1].last+1) {
					t.Fatalf("%+v: job %d is not a contiguous run of one table: %v", tc, i, job)
				}
				if seen[b] {
					t.Fatalf("%+v: batch %v in two jobs", tc, b)
				}
				seen[b] = true
			}
			// Neighbouring jobs load different tables whenever there are several.
			if i > 0 && tc.tables > 1 && jobs[i-1][0].table == job[0].table {
				t.Errorf("%+v: jobs %d and %d both load table %d", tc, i-1, i, job[0].table)
			}
		}
		if len(seen) != len(batches) {
			t.Errorf("%+v: jobs cover %d of %d batches", tc, len(seen), len(batches))
		}
	}
}

func mustBatches(t *testing.T, tables int, rows int64) []batch {
	t.Helper()
	b, err := planBatches(context.Background(), tables, rows)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A prepare whose plan is long stops at Ctrl-C: planBatches and planJobs
// return the context's error promptly instead of finishing the plan.
func TestPlanStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if _, err := planBatches(ctx, 1024, 1_000_000); !errors.Is(err, context.Canceled) {
		t.Errorf("planBatches after Ctrl-C: err = %v, want context.Canceled", err)
	}
	batches := mustBatches(t, 64, 100000)
	if _, err := planJobs(ctx, batches, 64, 65536); !errors.Is(err, context.Canceled) {
		t.Errorf("planJobs after Ctrl-C: err = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("cancelled plans took %s to return", d)
	}
}

// BenchmarkRowSource measures the client's cost of generating one sbtest row
// for a bulk load (ns and allocations per row), without a database.
func BenchmarkRowSource(b *testing.B) {
	f := testFactory(b, 42)
	b.ReportAllocs()
	src := newRowSource(f.Source(1), 1, math.MaxInt64, 100000)
	for b.Loop() {
		src.Next()
	}
}
