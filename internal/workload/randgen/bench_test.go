package randgen

import "testing"

// benchmarkDefault measures one Default(1, tableSize) draw of the given type,
// the per-query cost in the OLTP workloads; it must report 0 allocs/op.
func benchmarkDefault(b *testing.B, typ string) {
	s := mustFactory(b, seededConfig(typ)).Source(0)
	b.ReportAllocs()
	for b.Loop() {
		s.Default(1, 10000)
	}
}

func BenchmarkDefault_Uniform(b *testing.B)  { benchmarkDefault(b, TypeUniform) }
func BenchmarkDefault_Gaussian(b *testing.B) { benchmarkDefault(b, TypeGaussian) }
func BenchmarkDefault_Special(b *testing.B)  { benchmarkDefault(b, TypeSpecial) }
func BenchmarkDefault_Pareto(b *testing.B)   { benchmarkDefault(b, TypePareto) }
func BenchmarkDefault_Zipfian(b *testing.B)  { benchmarkDefault(b, TypeZipfian) }

// BenchmarkString measures one sysbench 'c' column (ten groups of 11 digits).
func BenchmarkString(b *testing.B) {
	s := mustFactory(b, seededConfig(TypeUniform)).Source(0)
	const c = "###########-###########-###########-###########-###########-" +
		"###########-###########-###########-###########-###########"
	buf := make([]byte, 0, len(c))
	b.ReportAllocs()
	for b.Loop() {
		buf = s.String(buf[:0], c)
	}
}
