package randgen

import "math"

// params are the validated parameters with sysbench's precomputed constants; every
// Source holds its own copy, so draws read no shared memory.
type params struct {
	kind        distKind
	iter        int     // --rand-spec-iter
	iterMult    float64 // 1/iter
	pctMult     float64 // pct/100
	pct2Mult    float64 // pct/200
	resMult     float64 // 100/(100-res); +Inf when res is 100
	paretoPower float64 // ln(h)/ln(1-h)
	zipfExp     float64 // θ
	zipfS       float64 // 2 - H⁻¹(H(2.5) - h(2))
	zipfHX1     float64 // H(1.5) - 1
}

// Factory makes Sources that share one validated Config. It is read-only after
// NewFactory and safe for concurrent use.
type Factory struct {
	cfg Config
	p   params
}

// NewFactory validates cfg and precomputes the constants of its distributions. The
// error names the offending flag and the accepted values. A Seed of 0 is accepted
// as an ordinary seed; resolve it first with ResolveSeed for a clock-based run.
func NewFactory(cfg Config) (*Factory, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	kind, _ := parseType(cfg.Type)
	e := cfg.ZipfianExp
	p := params{
		kind:        kind,
		iter:        cfg.SpecialIter,
		iterMult:    1 / float64(cfg.SpecialIter),
		pctMult:     float64(cfg.SpecialPct) / 100,
		pct2Mult:    float64(cfg.SpecialPct) / 200,
		resMult:     100 / (100 - float64(cfg.SpecialRes)),
		paretoPower: math.Log(cfg.ParetoH) / math.Log(1-cfg.ParetoH),
		zipfExp:     e,
		zipfS:       2 - zipfHIntegralInverse(zipfHIntegral(2.5, e)-zipfH(2, e), e),
		zipfHX1:     zipfHIntegral(1.5, e) - 1,
	}
	return &Factory{cfg: cfg, p: p}, nil
}

// Config returns the configuration the factory was made from (to record in results).
func (f *Factory) Config() Config { return f.cfg }

// Source returns the generator of stream n (worker n, loader n…). Its sequence
// depends only on (Config.Seed, stream): the same pair always gives the same
// draws, and different streams are independent. The Source belongs to one
// goroutine.
func (f *Factory) Source(stream uint64) *Source {
	s := &Source{p: f.p}
	s.seed(f.cfg.Seed, stream)
	return s
}
