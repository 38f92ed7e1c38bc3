package expr

import "testing"

// TestPRNGMatchesPgbench checks the generators against pgbench 15: with
// --random-seed=1, client 0's function generator is seeded with the first
// number of the base generator, and
//
//	\set a debug(random(1, 1000000000))              -- twice
//	\set a debug(random_exponential(1, 1000, 2.5))
//	\set a debug(random_gaussian(1, 1000, 2.5))
//	\set a debug(random_zipfian(1, 1000, 1.5))
//
// printed these values.
func TestPRNGMatchesPgbench(t *testing.T) {
	base := NewPRNG(1)
	p := NewPRNG(base.Uint64())
	got := []int64{
		p.Uniform(1, 1000000000),
		p.Uniform(1, 1000000000),
		p.Exponential(1, 1000, 2.5),
		p.Gaussian(1, 1000, 2.5),
		p.Zipfian(1, 1000, 1.5),
	}
	want := []int64{844374174, 687107981, 6, 759, 3}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("draws = %v, want pgbench's %v", got, want)
		}
	}
}

func TestPRNGRanges(t *testing.T) {
	p := NewPRNG(42)
	seen := map[int64]bool{}
	for i := 0; i < 2000; i++ {
		u := p.Uniform(-3, 3)
		if u < -3 || u > 3 {
			t.Fatalf("Uniform(-3, 3) = %d", u)
		}
		seen[u] = true
		for name, v := range map[string]int64{
			"Exponential": p.Exponential(10, 20, 0.5),
			"Gaussian":    p.Gaussian(10, 20, 2.0),
			"Zipfian":     p.Zipfian(10, 20, 1.001),
		} {
			if v < 10 || v > 20 {
				t.Fatalf("%s(10, 20) = %d", name, v)
			}
		}
	}
	if len(seen) != 7 {
		t.Errorf("Uniform(-3, 3) drew %d distinct values in 2000 draws, want 7", len(seen))
	}
	if v := p.Uniform(5, 5); v != 5 {
		t.Errorf("Uniform(5, 5) = %d", v)
	}
	if v := p.Uniform(minInt64, minInt64+1); v != minInt64 && v != minInt64+1 {
		t.Errorf("Uniform at the bottom of the range = %d", v)
	}
}

const minInt64 = -1 << 63

// TestPermuteIsPermutation checks that permute maps [0, size) onto itself.
func TestPermuteIsPermutation(t *testing.T) {
	for _, size := range []int64{1, 2, 3, 7, 64, 100, 1000} {
		seen := make([]bool, size)
		for i := int64(0); i < size; i++ {
			v := Permute(i, size, 99)
			if v < 0 || v >= size || seen[v] {
				t.Fatalf("Permute(%d, %d, 99) = %d: out of range or repeated", i, size, v)
			}
			seen[v] = true
			if w := Permute(i+size, size, 99); w != v {
				t.Fatalf("Permute(%d, %d) = %d, but %d for i+size", i, size, v, w)
			}
		}
	}
}
