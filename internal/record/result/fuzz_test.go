package result

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecode decodes result files (the goldens and mutations of them): no
// input panics, and a decoded result encodes again and decodes to a result
// that encodes the same.
func FuzzDecode(f *testing.F) {
	addResultSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Decode(bytes.NewReader(data))
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		var b1 bytes.Buffer
		if err := Encode(&b1, r); err != nil {
			return // a decoded value the encoder refuses (NaN) is refused, not written
		}
		r2, err := Decode(bytes.NewReader(b1.Bytes()))
		if err != nil {
			t.Fatalf("a result fairbench wrote does not decode: %v\n%s", err, b1.Bytes())
		}
		var b2 bytes.Buffer
		if err := Encode(&b2, r2); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b1.Bytes(), b2.Bytes()) {
			t.Fatalf("encode/decode is not stable:\n%s\n%s", b1.Bytes(), b2.Bytes())
		}
	})
}

// FuzzMerge merges two decoded results (a mutated one with a golden
// coordinated client): no input panics, and a merge either refuses with a
// message or gives a result that encodes.
func FuzzMerge(f *testing.F) {
	addResultSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Decode(bytes.NewReader(data))
		if err != nil {
			return
		}
		other := clientResult(t, clientSpec{id: 1, of: 2, seed: 2, n: 100, seconds: 3, perThread: []int64{100}, busy: []float64{2.9}})
		for _, parts := range [][]Part{
			{{File: "fuzz.json", Result: r}},
			{{File: "fuzz.json", Result: r}, {File: "c1.json", Result: other}},
		} {
			m, err := Merge(parts, MergeOptions{Warn: func(string) {}})
			if err != nil {
				if err.Error() == "" {
					t.Fatal("empty error message")
				}
				continue
			}
			var b bytes.Buffer
			_ = Encode(&b, m) // may refuse NaN from the input, must not panic
		}
	})
}

// addResultSeeds adds the result goldens and a constructed client result.
func addResultSeeds(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.json")
	if len(files) == 0 {
		f.Fatal("no results in testdata")
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	var b bytes.Buffer
	c := clientResult(f, clientSpec{id: 0, of: 2, seed: 1, n: 100, seconds: 3, perThread: []int64{100}, busy: []float64{2.9}})
	if err := Encode(&b, c); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
}
