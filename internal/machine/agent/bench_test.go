package agent

import (
	"context"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/fairbench/fairbench/internal/record/result"
)

// BenchmarkCounters measures one GET /v1/counters in process (with --pid of
// the test process), without the network.
func BenchmarkCounters(b *testing.B) {
	s, err := NewServer(context.Background(), Options{PID: os.Getpid(), Machine: func() result.Machine { return result.Machine{} }})
	if err != nil {
		b.Fatal(err)
	}
	req := httptest.NewRequest("GET", PathCounters, nil)
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
	}
}
