// Package randgen provides seeded random number generators with sysbench's
// distributions (src/sb_rand.c): uniform, gaussian, special, pareto and zipfian,
// plus TPC-C's NURand.
//
// A Factory holds the validated configuration; each worker or loader takes its
// own Source (one stream per goroutine, no shared state, no locks, no allocation
// per draw), so a run repeats exactly from its seed:
//
//	f, err := randgen.NewFactory(cfg) // cfg.Seed = randgen.ResolveSeed(flagSeed, time.Now)
//	rng := f.Source(uint64(worker))
//	id := rng.Default(1, tableSize)
//	c := rng.String(buf[:0], "###########-###########")
package randgen
