package randgen

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Names of the distributions, as --rand-type spells them.
const (
	TypeUniform  = "uniform"
	TypeGaussian = "gaussian"
	TypeSpecial  = "special"
	TypePareto   = "pareto"
	TypeZipfian  = "zipfian"
)

// Bounds of the --rand-spec-iter option: at least one term, and few enough that a
// single draw stays cheap.
const (
	minSpecialIter = 1
	maxSpecialIter = 1000
)

// Config selects the default distribution and its parameters (sysbench flag names
// in the comments). Seed is the resolved seed: never 0 once a run has started.
type Config struct {
	Type        string  // --rand-type: uniform|gaussian|special|pareto|zipfian
	Seed        uint64  // --rand-seed (0 is resolved from the clock by the caller, see ResolveSeed)
	ZipfianExp  float64 // --rand-zipfian-exp, default 0.8
	ParetoH     float64 // --rand-pareto-h, default 0.2
	SpecialIter int     // --rand-spec-iter, default 12 (also gaussian's iterations)
	SpecialPct  int     // --rand-spec-pct, default 1
	SpecialRes  int     // --rand-spec-res, default 75
}

// DefaultConfig returns sysbench's defaults for every parameter, with fairbench's
// default distribution (uniform) and an unresolved seed (0).
func DefaultConfig() Config {
	return Config{
		Type:        TypeUniform,
		Seed:        0,
		ZipfianExp:  0.8,
		ParetoH:     0.2,
		SpecialIter: 12,
		SpecialPct:  1,
		SpecialRes:  75,
	}
}

// Types returns the valid --rand-type names, in sysbench's order.
func Types() []string {
	return []string{TypeUniform, TypeGaussian, TypeSpecial, TypePareto, TypeZipfian}
}

// distKind is the configured distribution as a small integer, so Default switches
// on it without comparing strings.
type distKind uint8

const (
	kindUniform distKind = iota
	kindGaussian
	kindSpecial
	kindPareto
	kindZipfian
)

// parseType maps a --rand-type name to its kind.
func parseType(name string) (distKind, error) {
	switch name {
	case TypeUniform:
		return kindUniform, nil
	case TypeGaussian:
		return kindGaussian, nil
	case TypeSpecial:
		return kindSpecial, nil
	case TypePareto:
		return kindPareto, nil
	case TypeZipfian:
		return kindZipfian, nil
	}
	return 0, fmt.Errorf("unknown --rand-type %q: use %s", name, typeList())
}

// typeList spells Types() as "uniform, gaussian, special, pareto or zipfian".
func typeList() string {
	t := Types()
	return strings.Join(t[:len(t)-1], ", ") + " or " + t[len(t)-1]
}

// validate checks every parameter, not only those of the selected type, because
// the exported per-distribution methods use them all.
func (c Config) validate() error {
	if _, err := parseType(c.Type); err != nil {
		return err
	}
	if c.SpecialIter < minSpecialIter || c.SpecialIter > maxSpecialIter {
		return fmt.Errorf("--rand-spec-iter=%d is out of range: use an integer from %d to %d (default 12)",
			c.SpecialIter, minSpecialIter, maxSpecialIter)
	}
	if c.SpecialPct < 0 || c.SpecialPct > 100 {
		return fmt.Errorf("--rand-spec-pct=%d is out of range: use a percentage from 0 to 100 (default 1)", c.SpecialPct)
	}
	if c.SpecialRes < 0 || c.SpecialRes > 100 {
		return fmt.Errorf("--rand-spec-res=%d is out of range: use a percentage from 0 to 100 (default 75)", c.SpecialRes)
	}
	if math.IsNaN(c.ParetoH) || c.ParetoH <= 0 || c.ParetoH >= 1 {
		return fmt.Errorf("--rand-pareto-h=%v is out of range: use a number strictly between 0 and 1 (default 0.2)", c.ParetoH)
	}
	if math.IsNaN(c.ZipfianExp) || math.IsInf(c.ZipfianExp, 0) || c.ZipfianExp < 0 {
		return fmt.Errorf("--rand-zipfian-exp=%v is out of range: use a finite number >= 0 (default 0.8)", c.ZipfianExp)
	}
	return nil
}

// ResolveSeed returns seed unchanged when it is not 0, and otherwise a seed taken
// from the clock now() (nanoseconds since the epoch, kept to 63 bits so it fits a
// signed flag). The result is never 0, so it can be recorded and passed back as
// --rand-seed to repeat the run.
func ResolveSeed(seed uint64, now func() time.Time) uint64 {
	if seed != 0 {
		return seed
	}
	s := uint64(now().UnixNano()) & math.MaxInt64
	if s == 0 {
		s = 1
	}
	return s
}

// ClientSeed derives the seed of client id from the seed all clients were
// given, so that coordinated clients draw different numbers; client 0 keeps
// the seed as given. The result is never 0 (which would mean "from the clock").
func ClientSeed(seed uint64, id int) uint64 {
	if id == 0 {
		return seed
	}
	// splitmix64 of the seed and the id: well spread, cheap, repeatable.
	z := seed + uint64(id)*0x9E3779B97F4A7C15
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	z ^= z >> 31
	if z&math.MaxInt64 == 0 {
		return 1
	}
	return z & math.MaxInt64
}
