package valuearena

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
)

func TestBoxesEqualOrdinaryInterfaces(t *testing.T) {
	var a Arena
	ints := []int64{0, 1, 255, 256, -1, math.MinInt64, math.MaxInt64, 123456789}
	for _, x := range ints {
		got := a.Int(x)
		if got != any(x) {
			t.Errorf("Int(%d) = %#v, want %#v", x, got, any(x))
		}
		if v, ok := got.(int64); !ok || v != x {
			t.Errorf("Int(%d).(int64) = %v, %v", x, v, ok)
		}
	}
	for _, x := range []float64{0, -0.5, 1e300, math.Inf(-1), 3000.25} {
		if got := a.Float(x); got != any(x) || fmt.Sprint(got) != fmt.Sprint(x) {
			t.Errorf("Float(%v) = %#v", x, got)
		}
	}
	for _, s := range []string{"", "x", strings.Repeat("abc", 1000)} {
		b := append(a.Buffer(len(s)), s...)
		if got := a.String(b); got != any(s) {
			t.Errorf("String(%q) = %#v", s, got)
		}
		if got := a.Box(s); got != any(s) {
			t.Errorf("Box(%q) = %#v", s, got)
		}
	}
	// fmt and type switches see the dynamic type.
	if s := fmt.Sprintf("%T %T %T", a.Int(1000), a.Float(1), a.Box("s")); s != "int64 float64 string" {
		t.Errorf("dynamic types %q", s)
	}
}

// TestValuesStayWhatTheyWere keeps every value past many later ones (as a
// multi-row INSERT does) through garbage collections, across block
// boundaries and strings that outgrew their buffer.
func TestValuesStayWhatTheyWere(t *testing.T) {
	var a Arena
	const n = 3*numberBlock + 7
	kept := make([]any, 0, 4*n)
	want := make([]any, 0, 4*n)
	for i := range n {
		x := int64(i)*7919 + 1000
		kept = append(kept, a.Int(x), a.Float(float64(i)/4))
		want = append(want, x, float64(i)/4)
		s := fmt.Sprintf("row-%d-%s", i, strings.Repeat("z", i%50))
		b := a.Buffer(4) // too small for most: append moves some of them
		b = append(b, s...)
		kept = append(kept, a.String(b))
		want = append(want, s)
		big := strings.Repeat("q", textBlock/3+i%5) // fills blocks quickly
		kept = append(kept, a.String(append(a.Buffer(len(big)), big...)))
		want = append(want, big)
		if i%1000 == 0 {
			runtime.GC()
		}
	}
	runtime.GC()
	for i := range kept {
		if kept[i] != want[i] {
			t.Fatalf("value %d is %v, want %v", i, kept[i], want[i])
		}
	}
}

func TestSteadyStateDoesNotAllocate(t *testing.T) {
	var a Arena
	s := strings.Repeat("a", 24)
	// Warm up so that a block is at hand, then count allocations per row of
	// an int, a float and a string: one block per numberBlock values at most.
	allocs := testing.AllocsPerRun(10000, func() {
		a.Int(100000)
		a.Float(2.5)
		a.String(append(a.Buffer(len(s)), s...))
	})
	if allocs > 0.01 {
		t.Errorf("%.3f allocations per row, want at most one per block", allocs)
	}
}

func BenchmarkStringRow(b *testing.B) {
	var a Arena
	s := strings.Repeat("a", 24)
	b.ReportAllocs()
	for b.Loop() {
		a.Int(100000)
		a.Float(2.5)
		a.String(append(a.Buffer(len(s)), s...))
	}
}
