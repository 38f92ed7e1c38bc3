package gcballast

import (
	"errors"
	"runtime"
	"testing"
)

// While fn runs the ballast counts as live heap: the collector's goal is
// above it, so allocating a few megabytes triggers no collection.
func TestWithSpacesCollections(t *testing.T) {
	want := errors.New("fn's error")
	var before, after runtime.MemStats
	err := With(func() error {
		runtime.GC()
		runtime.ReadMemStats(&before)
		if before.NextGC < Bytes {
			t.Errorf("GC goal %d with the ballast held, want at least %d", before.NextGC, Bytes)
		}
		var sink [][]byte
		for range 64 {
			sink = append(sink, make([]byte, 64<<10)) // 4 MiB in all
		}
		runtime.KeepAlive(sink)
		runtime.ReadMemStats(&after)
		return want
	})
	if !errors.Is(err, want) {
		t.Fatalf("With returned %v, want fn's error", err)
	}
	if after.NumGC != before.NumGC {
		t.Errorf("%d collections while 4 MiB were allocated over the ballast, want 0", after.NumGC-before.NumGC)
	}
}

// A Hold inside another shares its ballast: the heap does not grow by a second
// one, and the ballast stays until the last holder lets it go.
func TestNestedHoldsShareOneBallast(t *testing.T) {
	var before, inner, after runtime.MemStats
	outer := Hold()
	runtime.GC()
	runtime.ReadMemStats(&before)
	release := Hold()
	runtime.ReadMemStats(&inner)
	if grown := int64(inner.HeapAlloc) - int64(before.HeapAlloc); grown >= Bytes/2 {
		t.Errorf("the heap grew by %d bytes at a nested Hold, want no second ballast", grown)
	}
	release()
	release() // a second call lets go of nothing more
	runtime.GC()
	runtime.ReadMemStats(&after)
	if after.HeapAlloc < Bytes {
		t.Errorf("heap %d bytes after the inner release, want the outer holder's ballast (%d) kept", after.HeapAlloc, Bytes)
	}
	outer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	if after.HeapAlloc >= Bytes {
		t.Errorf("heap %d bytes after the last release, want the ballast freed", after.HeapAlloc)
	}
}
