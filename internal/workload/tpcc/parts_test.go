package tpcc

import (
	"context"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/base/syncbuf"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// TestWarehousePartsCoverEveryTable: every warehouse table is in exactly one
// part, so loading every part loads the whole warehouse.
func TestWarehousePartsCoverEveryTable(t *testing.T) {
	seen := map[string]int{}
	names := map[string]bool{}
	for _, p := range warehouseParts() {
		if names[p.name] || p.name == "" || strings.Contains(p.name, metaPartSep) {
			t.Errorf("part name %q is empty, repeated or holds %q", p.name, metaPartSep)
		}
		names[p.name] = true
		for _, table := range p.tables {
			seen[table]++
			if warehouseColumn(table) == "" {
				t.Errorf("%s has no warehouse column", table)
			}
		}
	}
	for _, table := range warehouseTables() {
		if seen[table.name] != 1 {
			t.Errorf("%s is in %d parts, want 1", table.name, seen[table.name])
		}
	}
	if len(seen) != len(warehouseTables()) {
		t.Errorf("parts hold %d tables, want the %d warehouse tables", len(seen), len(warehouseTables()))
	}
	// The longest marker must fit tpcc_meta.name (VARCHAR(32)).
	for _, p := range warehouseParts() {
		if m := partMarker(maxWarehouses, p.name); len(m) > 32 {
			t.Errorf("marker %q is longer than 32 characters", m)
		}
	}
}

func TestPlanJobs(t *testing.T) {
	all := everyPart
	cases := []struct {
		name       string
		warehouses []int
		pending    func(int) []int
		item       bool
		window     int
		want       []loadJob
	}{
		{"one loader: warehouse after warehouse, item last", []int{1, 2}, all, true, 1,
			[]loadJob{{1, 0}, {1, 1}, {1, 2}, {2, 0}, {2, 1}, {2, 2}, {0, 0}}},
		{"window of 2: longest parts of both warehouses first", []int{1, 2, 3}, all, true, 2,
			[]loadJob{{1, 0}, {2, 0}, {1, 1}, {2, 1}, {1, 2}, {2, 2}, {3, 0}, {3, 1}, {3, 2}, {0, 0}}},
		{"item only", nil, all, true, 2, []loadJob{{0, 0}}},
		{"resume: only the pending parts", []int{2, 5}, func(w int) []int {
			if w == 2 {
				return []int{1}
			}
			return []int{0, 2}
		}, false, 4, []loadJob{{5, 0}, {2, 1}, {5, 2}}},
		{"nothing left", nil, all, false, 1, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := planJobs(c.warehouses, c.pending, c.item, c.window); !reflect.DeepEqual(got, c.want) {
				t.Errorf("planJobs = %v, want %v", got, c.want)
			}
		})
	}
}

// TestJobQueue: a loader gets the first pending job whose tables no other
// loader fills, and only when there is none the first pending job.
func TestJobQueue(t *testing.T) {
	// 2 warehouses, window 2: order_line 1 and 2, stock 1 and 2, customer 1 and 2, item.
	jobs := planJobs([]int{1, 2}, everyPart, true, 2)
	ol1, ol2, st1, st2, cu1, cu2, item := jobs[0], jobs[1], jobs[2], jobs[3], jobs[4], jobs[5], jobs[6]
	type step struct {
		done loadJob // finished before the take; zero: none
		want loadJob
	}
	none := loadJob{warehouse: -1}
	cases := []struct {
		name  string
		steps []step
	}{
		{"four loaders start on four different tables, the fifth doubles up on the longest",
			[]step{{none, ol1}, {none, st1}, {none, cu1}, {none, item}, {none, ol2}}},
		{"a finished table is taken up again before a busy one",
			[]step{{none, ol1}, {none, st1}, {none, cu1}, {none, item}, {st1, st2}, {item, ol2}, {cu1, cu2}}},
		{"one loader: the plan's order", []step{{none, ol1}, {ol1, ol2}, {ol2, st1}, {st1, st2}, {st2, cu1}, {cu1, cu2}, {cu2, item}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := newJobQueue(jobs)
			for i, s := range c.steps {
				if s.done != none {
					q.done(s.done)
				}
				got, ok := q.take()
				if !ok || got != s.want {
					t.Fatalf("take %d = %v, %v; want %v", i+1, got, ok, s.want)
				}
			}
		})
	}
	q := newJobQueue(jobs)
	for range jobs {
		if _, ok := q.take(); !ok {
			t.Fatal("the queue ran out before handing out every job")
		}
	}
	if j, ok := q.take(); ok {
		t.Errorf("take after the last job = %v, want none", j)
	}
}

func TestJobWindow(t *testing.T) {
	for loaders, want := range map[int]int{0: 1, 1: 1, 3: 1, 4: 2, 6: 2, 16: 6} {
		if got := jobWindow(loaders); got != want {
			t.Errorf("jobWindow(%d) = %d, want %d", loaders, got, want)
		}
	}
}

func TestWarehouseTracker(t *testing.T) {
	jobs := planJobs([]int{1, 2}, func(w int) []int {
		if w == 1 {
			return []int{0, 1, 2}
		}
		return []int{2} // warehouse 2 resumes with one part
	}, true, 1)
	tr := newWarehouseTracker(jobs)
	steps := []struct {
		finish      bool // start otherwise
		w           int
		wantFlagged bool // first (start) or last (finish)
	}{
		{false, 1, true}, {false, 1, false}, {false, 2, true}, {true, 1, false},
		{false, 1, false}, {true, 2, true}, {true, 1, false}, {true, 1, true},
	}
	for i, s := range steps {
		var got bool
		if s.finish {
			got, _ = tr.finish(s.w)
		} else {
			got = tr.start(s.w)
		}
		if got != s.wantFlagged {
			t.Errorf("step %d (finish=%v, warehouse %d) = %v, want %v", i, s.finish, s.w, got, s.wantFlagged)
		}
	}
}

func TestPendingParts(t *testing.T) {
	m := &loadMeta{warehouses: 3, loaded: map[int]bool{1: true},
		parts: map[int]map[string]bool{2: {"stock": true, "customer": true}}}
	cases := []struct {
		w    int
		want []int
	}{{1, nil}, {2, []int{0}}, {3, []int{0, 1, 2}}} // part 0 is order_line
	for _, c := range cases {
		if got := m.pendingParts(c.w); !reflect.DeepEqual(got, c.want) {
			t.Errorf("pendingParts(%d) = %v, want %v", c.w, got, c.want)
		}
	}
	if got := m.unloaded(); !reflect.DeepEqual(got, []int{2, 3}) {
		t.Errorf("unloaded = %v, want [2 3]", got)
	}
}

// TestMetaPartMarkersRoundTrip writes part markers to tpcc_meta and reads them
// back; a warehouse marker wins over stale part markers of the same warehouse.
func TestMetaPartMarkersRoundTrip(t *testing.T) {
	ctx := context.Background()
	drv := openDriver(t, testdb.SQLite(t))
	c := connect(t, drv)
	if err := createTable(ctx, c, drv.Dialect(), tableDef(tMeta), &syncbuf.Buffer{}); err != nil {
		t.Fatal(err)
	}
	in := &loadMeta{warehouses: 12, cLoad: 7, seed: 9, item: true, loaded: map[int]bool{1: true},
		parts: map[int]map[string]bool{2: {"stock": true}, 12: {"order_line": true, "customer": true}}}
	for _, r := range in.rows() {
		if err := setMeta(ctx, c, r[0], r[1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := setMeta(ctx, c, partMarker(1, "stock"), "1"); err != nil { // stale
		t.Fatal(err)
	}
	out, err := readMeta(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out, in) {
		t.Errorf("readMeta = %+v, want %+v", out, in)
	}
	var names []string
	for _, r := range in.rows() {
		names = append(names, r[0])
	}
	if !sort.StringsAreSorted(names) || !strings.Contains(strings.Join(names, " "), "loaded_w_12.customer") {
		t.Errorf("rows() = %v, want sorted names with loaded_w_12.customer", names)
	}
}
