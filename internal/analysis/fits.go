package analysis

import (
	"errors"
	"fmt"
	"slices"

	"github.com/fairbench/fairbench/internal/analysis/usl"
)

// What a scalability model's N counts.
const (
	SweepThreads = "threads"
	SweepCPUs    = "server CPUs"
)

// ScaleFit is one system's Universal Scalability Law model of one sweep
// (docs/scalability.md): every round of every count, fitted by usl.Fit.
type ScaleFit struct {
	System string
	// Series names the by-CPUs series (CPUCurve.Mode); "" for a thread sweep
	// or a section's only kind.
	Series string
	// Points counts the sweep's distinct counts, Rounds its rounds.
	Points, Rounds int
	// Noisy counts the sweep's counts with rounds measured while other
	// processes used more than result.OtherProcessesLimitPct of a machine
	// (Cell.Noisy): the headline flags the model NoisyMark.
	Noisy int
	// Model is the fit; nil when the sweep cannot carry one, and NoModel
	// says why.
	Model   *usl.Model
	NoModel string
}

// ScaleSection is how the systems scale over one sweep of one key group:
// thread counts (Over SweepThreads; Group has no thread count) or server CPU
// sets (SweepCPUs; Group has neither CPUs nor threads).
type ScaleSection struct {
	Group Key
	Over  string
	Fits  []ScaleFit
	// Contrasts compare each system's model with the baseline's of the same
	// series, and each of a system's series with its first (usl.Contrast),
	// where both have a model.
	Contrasts []string
}

// Unit is what the section's counts are called in readings: "threads" or
// "CPUs".
func (s ScaleSection) Unit() string {
	if s.Over == SweepCPUs {
		return "CPUs"
	}
	return "threads"
}

// ScaleSectionTitle names a scalability section: "oltp_read_only (uniform,
// 1x10000): scalability by threads".
func ScaleSectionTitle(s ScaleSection) string {
	return sectionTitle(s.Group) + ": scalability by " + s.Over
}

// fitSweep fits the rounds of a sweep: counts[i] units measured rounds[i].
func fitSweep(system, series string, counts []int, rounds [][]float64, confidence float64) ScaleFit {
	f := ScaleFit{System: system, Series: series}
	var obs []usl.Observation
	for i, n := range counts {
		if len(rounds[i]) == 0 {
			continue
		}
		f.Points++
		for _, x := range rounds[i] {
			obs = append(obs, usl.Observation{N: float64(n), X: x})
		}
	}
	f.Rounds = len(obs)
	m, err := usl.Fit(obs, usl.Options{Confidence: confidence})
	var nm *usl.NoModel
	switch {
	case errors.As(err, &nm):
		f.NoModel = nm.Reason
	case err != nil:
		f.NoModel = err.Error()
	default:
		f.Model = m
	}
	return f
}

// scaling fits a model to every sweep of c: each section's thread counts
// (when it has two or more) per system, and each by-CPUs curve. Latency
// metrics have none: the model is of throughput.
func (c *Comparison) scaling() []ScaleSection {
	if c.Metric.LowerIsBetter {
		return nil
	}
	conf := c.confidence()
	var out []ScaleSection
	for _, rows := range c.Sections() {
		if len(rows) < 2 || slices.ContainsFunc(rows, func(r Row) bool { return len(r.Mixed) > 0 }) {
			continue
		}
		sec := ScaleSection{Group: rows[0].Key.Group(), Over: SweepThreads}
		for i, s := range c.Systems {
			counts := make([]int, len(rows))
			rounds := make([][]float64, len(rows))
			noisy := 0
			for j, r := range rows {
				counts[j], rounds[j] = r.Key.Threads, r.Cells[i].Stats.Values
				if r.Cells[i].Noisy > 0 {
					noisy++
				}
			}
			if f := fitSweep(s.Label, "", counts, rounds, conf); f.Points > 1 {
				f.Noisy = noisy
				sec.Fits = append(sec.Fits, f)
			}
		}
		if len(sec.Fits) > 0 {
			c.contrast(&sec)
			out = append(out, sec)
		}
	}
	for _, cs := range c.ByCPUs {
		sec := ScaleSection{Group: cs.Group, Over: SweepCPUs}
		for _, cv := range cs.Curves {
			if len(cv.Points) < 2 {
				continue
			}
			counts := make([]int, len(cv.Points))
			rounds := make([][]float64, len(cv.Points))
			for j, p := range cv.Points {
				counts[j], rounds[j] = p.CPUs, p.Stats.Values
			}
			f := fitSweep(cv.System, cv.Mode, counts, rounds, conf)
			for _, p := range cv.Points {
				if c.noisyCell(cs.Group, p, cv.System) {
					f.Noisy++
				}
			}
			sec.Fits = append(sec.Fits, f)
		}
		if len(sec.Fits) > 0 {
			c.contrast(&sec)
			out = append(out, sec)
		}
	}
	return out
}

// contrast compares each system's model with the baseline's of the same
// series, and each series of a system with its first (one per core against
// with SMT siblings).
func (c *Comparison) contrast(sec *ScaleSection) {
	base := c.BaselineSystem().Label
	for _, bf := range sec.Fits {
		if bf.System != base || bf.Model == nil {
			continue
		}
		for _, f := range sec.Fits {
			if f.System == base || f.Series != bf.Series || f.Model == nil {
				continue
			}
			who := f.System + " against " + base
			if f.Series != "" {
				who += " (" + f.Series + ")"
			}
			sec.Contrasts = append(sec.Contrasts, fmt.Sprintf("%s: %s.", who, usl.Contrast(f.Model, bf.Model, f.System, base, sec.Unit())))
		}
	}
	// Within a system, each other series against its first with a model:
	// seed 002's question, what SMT siblings (or spreading) change.
	for _, s := range c.Systems {
		var first *ScaleFit
		for i := range sec.Fits {
			f := &sec.Fits[i]
			if f.System != s.Label || f.Model == nil {
				continue
			}
			if first == nil {
				first = f
				continue
			}
			sec.Contrasts = append(sec.Contrasts, fmt.Sprintf("%s against %s: %s.", f.Label(), first.Label(),
				usl.Contrast(f.Model, first.Model, f.Label(), first.Label(), sec.Unit())))
		}
	}
}

// scaleFitOf returns system's model of the thread sweep of key k's group.
func (c *Comparison) scaleFitOf(k Key, system string) *usl.Model {
	g := k.Group()
	for _, s := range c.Scaling {
		if s.Over != SweepThreads || s.Group != g {
			continue
		}
		for _, f := range s.Fits {
			if f.System == system {
				return f.Model
			}
		}
	}
	return nil
}

// noisyCell reports whether system's cell of by-CPUs point p (its set and
// best thread count in key group g) holds a round from a busy machine.
func (c *Comparison) noisyCell(g Key, p CPUPoint, system string) bool {
	i := slices.IndexFunc(c.Systems, func(s *System) bool { return s.Label == system })
	for _, r := range c.Rows {
		k := r.Key.Group()
		k.CPUs = ""
		if k == g && r.Key.CPUs == p.Set && r.Key.Threads == p.Threads && i >= 0 {
			return r.Cells[i].Noisy > 0
		}
	}
	return false
}
