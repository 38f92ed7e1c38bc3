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
