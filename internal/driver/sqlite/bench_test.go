package sqlite

import (
	"context"
	"strconv"
	"testing"
)

// BenchmarkPointSelect measures Stmt.Query of sysbench's point select; run with
// -benchmem to see allocs/op.
func BenchmarkPointSelect(b *testing.B) {
	cfg := sqliteTarget(b, true)
	setup := openDriver(b, cfg)
	loadSbtest(b, setup, connect(b, setup, 0), "sbtest1", 1000)
	for _, prepared := range []bool{true, false} {
		b.Run("prepared="+strconv.FormatBool(prepared), func(b *testing.B) {
			cfg.Prepared = prepared
			d := openDriver(b, cfg)
			c := connect(b, d, 0)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s, err := c.Prepare(ctx, "SELECT c FROM sbtest1 WHERE id=?")
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ids := make([]any, 1000)
			for i := range ids {
				ids[i] = int64(i + 1)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if n, err := s.Query(ctx, ids[i%len(ids)]); err != nil || n != 1 {
					b.Fatalf("Query = %d, %v", n, err)
				}
			}
		})
	}
}
