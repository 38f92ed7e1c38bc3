package analysis

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/fairbench/fairbench/internal/analysis/usl"
	"github.com/fairbench/fairbench/internal/record/result"
)

// csvHeader is the header line of WriteCSV: one record per row and system.
var csvHeader = []string{
	"workload", "rand_type", "profile", "data", "threads", "metric", "unit", "system", "baseline",
	"n", "value", "mean", "stddev", "cv", "ci_lo", "ci_hi", "min", "median", "max",
	"pct", "fscaled", "pct_fscaled", "per_vcpu", "per_ghz_vcpu", "pct_per_ghz_vcpu",
	"ratio", "ratio_lo", "ratio_hi", "p_value", "tested", "claimed", "reason", "detectable", "df",
	"mw_p", "mw_powered", "mw_significant", "vague", "mixed", "options", "outage_runs",
}

// csvCPUHeader are the columns WriteCSV appends when a row has a server CPU
// set.
var csvCPUHeader = []string{"server_cpus", "cpus", "cpu_best", "cpu_speedup", "cpu_efficiency"}

// WriteCSV renders c as CSV: a header line (workload, rand_type, profile,
// data, threads, metric, unit, system, baseline, n, value, mean, stddev, cv,
// ci_lo, ci_hi, min, median, max, pct, fscaled, pct_fscaled, per_vcpu,
// per_ghz_vcpu, pct_per_ghz_vcpu, ratio, ratio_lo, ratio_hi, p_value,
// tested, claimed, reason, detectable, df, mw_p, mw_powered, mw_significant,
// vague, mixed, options, outage_runs, server_cpus, cpus, cpu_best,
// cpu_speedup, cpu_efficiency), then one record per row and system with every number at full
// precision. ratio..df are the system's Ratio to the baseline (WelchLog:
// the ratio of geometric means, its confidence interval, p, whether the
// interval excludes no change, why it was not tested, the smallest change
// the rounds could show as a fraction, the degrees of freedom); mw_ the
// Mann-Whitney second opinion (Significance); vague is true when the cell's
// interval is wider than its mean (Stats.Vague); empty fields are figures that do not apply (NaN) or a system
// without the cell (n = 0). mixed is empty for a row of figures of the same
// thing and says what a mixed row puts together otherwise ("data set: x86
// w10, arm w100"; see Row.Mixed); options are the row's run options that
// differ from the defaults (Key.Options, "rate=5000"), empty for the defaults;
// outage_runs counts the system's rounds of the cell whose server went away
// during the run (Cell.Outages). When a row has a server CPU set, five
// columns follow (csvCPUHeader; a comparison without sets keeps the
// header it always had): server_cpus is the row's set (Key.CPUs,
// "cpus=4:one-per-core"; empty when the server could use every CPU) and cpus
// its count; on the record of a set's best thread count (Comparison.ByCPUs)
// cpu_best is true and cpu_speedup and cpu_efficiency are its CPUPoint's
// figures. When a thread sweep has a scalability model, the csvModelHeader
// columns follow.
func WriteCSV(w io.Writer, c *Comparison) error {
	cw := csv.NewWriter(w)
	sets := c.hasCPUSets()
	header := csvHeader
	if sets {
		header = append(slices.Clip(header), csvCPUHeader...)
	}
	models := slices.ContainsFunc(c.Scaling, func(s ScaleSection) bool {
		return s.Over == SweepThreads && slices.ContainsFunc(s.Fits, func(f ScaleFit) bool { return f.Model != nil })
	})
	if models {
		header = append(slices.Clip(header), csvModelHeader...)
	}
	if err := cw.Write(header); err != nil {
		return fmt.Errorf("write CSV: %w", err)
	}
	for _, r := range c.Rows {
		for i, cl := range r.Cells {
			st := cl.Stats
			sig, rt := cl.Significance, cl.Ratio
			rec := []string{
				r.Key.Workload, r.Key.RandType, r.Key.Profile, r.Key.Data, strconv.Itoa(r.Key.Threads),
				c.Metric.Name, c.Metric.Unit, c.Systems[i].Label, strconv.FormatBool(i == c.Baseline),
				strconv.Itoa(st.N), csvNum(cl.Value), csvNum(st.Mean), csvNum(st.StdDev), csvNum(st.CV),
				csvNum(st.CILo), csvNum(st.CIHi), csvNum(st.Min), csvNum(st.Median), csvNum(st.Max),
				csvNum(cl.Pct), csvNum(cl.FScaled), csvNum(cl.PctFScaled),
				csvNum(cl.PerVCPU), csvNum(cl.PerGHzVCPU), csvNum(cl.PctPerGHzVCPU),
				csvNum(rt.Estimate), csvNum(rt.Lo), csvNum(rt.Hi), csvNum(rt.P), strconv.FormatBool(rt.Tested), strconv.FormatBool(rt.Claimed),
				rt.Reason, csvNum(rt.Detectable), csvNum(rt.DF),
				csvNum(sig.P), strconv.FormatBool(sig.Powered), strconv.FormatBool(sig.Significant), strconv.FormatBool(st.Vague()),
				MixedString(r.Mixed), r.Key.Options,
				strconv.Itoa(cl.Outages),
			}
			if sets {
				rec = append(rec, r.Key.CPUs, "", "false", "", "")
				if n, _ := parseCPUSet(r.Key.CPUs); n > 0 {
					rec[len(rec)-4] = strconv.Itoa(n)
				}
				if p, ok := c.cpuPointOf(r.Key, c.Systems[i].Label); ok {
					rec[len(rec)-3], rec[len(rec)-2], rec[len(rec)-1] = "true", csvNum(p.SpeedUp), csvNum(p.Efficiency)
				}
			}
			if models {
				rec = append(rec, modelColumns(c.scaleFitOf(r.Key, c.Systems[i].Label), r.Key.Threads, cl.Value)...)
			}
			if err := cw.Write(rec); err != nil {
				return fmt.Errorf("write CSV: %w", err)
			}
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write CSV: %w", err)
	}
	return nil
}

// csvModelHeader are the columns a CSV gains when a thread sweep has a
// scalability model: the system's model of the row's section at the row's
// thread count (usl_fitted, usl_residual = value ÷ fitted − 1) and its
// parameters, repeated on each of its rows; empty without a model.
var csvModelHeader = []string{"usl_fitted", "usl_residual", "usl_sigma", "usl_kappa", "usl_lambda", "usl_peak"}

// modelColumns are csvModelHeader's cells for a row of m's sweep.
func modelColumns(m *usl.Model, threads int, value float64) []string {
	if m == nil {
		return make([]string, len(csvModelHeader))
	}
	fitted := m.X(float64(threads))
	peak := ""
	if m.Peak != nil {
		peak = csvNum(m.Peak.Value)
	}
	return []string{csvNum(fitted), csvNum(value/fitted - 1), csvNum(m.Sigma.Value), csvNum(m.Kappa.Value), csvNum(m.Lambda.Value), peak}
}

func csvNum(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// JSONSchema is the version of WriteJSON's document layout (1.1: differences,
// under_test; 1.2: rows' server_cpus and by_cpus; 2.0: a cell's ratio with
// its interval is the claim, significance is the Mann-Whitney second
// opinion without its "~" mark, intervals are on the log scale; 2.1:
// scaling, the scalability models).
const JSONSchema = "2.1"

// JSONDocument is what WriteJSON writes: the comparison with every number.
// Figures that do not apply (NaN in Go) are null.
type JSONDocument struct {
	Schema     string  `json:"schema"`
	Metric     Metric  `json:"metric"`
	Center     Center  `json:"center"`
	Alpha      float64 `json:"alpha"`
	Confidence float64 `json:"confidence"`
	Baseline   string  `json:"baseline"`
	Scaled     bool    `json:"scaled"`
	PerCompute bool    `json:"per_compute"`
	// Differences is what differs between the systems (server machines,
	// server, settings); its rows are empty when nothing recorded differs.
	Differences Differences  `json:"differences"`
	Systems     []JSONSystem `json:"systems"`
	Rows        []JSONRow    `json:"rows"`
	// ByCPUs is throughput by server CPUs (Comparison.ByCPUs, 1.2); absent
	// when no system ran several CPU sets.
	ByCPUs []JSONCPUSection `json:"by_cpus,omitempty"`
	// Scaling holds the scalability models of the sweeps (Comparison.Scaling,
	// 2.1); absent when nothing was swept.
	Scaling []JSONScaleSection `json:"scaling,omitempty"`
	Notes   []string           `json:"notes,omitempty"`
	// Headline is the comparison's verdict in sentences (Headline) and
	// HeadlineRule the rule it follows; absent with one system.
	Headline     []string `json:"headline,omitempty"`
	HeadlineRule string   `json:"headline_rule,omitempty"`
}

// JSONScaleSection is one sweep's scalability models (ScaleSection).
type JSONScaleSection struct {
	Group     Key            `json:"group"`
	Over      string         `json:"over"`
	Model     string         `json:"model"`
	Fits      []JSONScaleFit `json:"fits"`
	Contrasts []string       `json:"contrasts,omitempty"`
}

// JSONScaleFit is one system's model of a sweep (ScaleFit): the parameters
// with their intervals, or the reason there is none.
type JSONScaleFit struct {
	System  string `json:"system"`
	Series  string `json:"series,omitempty"`
	Points  int    `json:"points"`
	Rounds  int    `json:"rounds"`
	NoModel string `json:"no_model,omitempty"`
	// The model (absent with NoModel): see usl.Model.
	Sigma      *usl.Param    `json:"sigma,omitempty"`
	Kappa      *usl.Param    `json:"kappa,omitempty"`
	Lambda     *usl.Param    `json:"lambda,omitempty"`
	Peak       *usl.Estimate `json:"peak,omitempty"`
	PeakX      *usl.Estimate `json:"peak_x,omitempty"`
	PeakBeyond bool          `json:"peak_beyond_sweep,omitempty"`
	Ceiling    *usl.Estimate `json:"ceiling,omitempty"`
	Near       *float64      `json:"near_ceiling_from,omitempty"`
	R2         *float64      `json:"r2,omitempty"`
	RSE        *float64      `json:"rse_log,omitempty"`
	LackOfFitP *float64      `json:"lack_of_fit_p,omitempty"`
	Misfit     bool          `json:"misfit,omitempty"`
	Rough      string        `json:"rough,omitempty"`
	DF         int           `json:"df,omitempty"`
	Confidence float64       `json:"confidence,omitempty"`
	Measured   []usl.Point   `json:"measured,omitempty"`
	Reading    string        `json:"reading,omitempty"`
}

// JSONCPUSection is one by-CPUs section (CPUSection).
type JSONCPUSection struct {
	Group  Key            `json:"group"`
	Curves []JSONCPUCurve `json:"curves"`
}

// JSONCPUCurve is one system's series of CPU sets (CPUCurve).
type JSONCPUCurve struct {
	System    string         `json:"system"`
	SMT       string         `json:"smt,omitempty"`
	Placement string         `json:"placement,omitempty"`
	Mode      string         `json:"mode,omitempty"`
	BaseCPUs  int            `json:"base_cpus"`
	Points    []JSONCPUPoint `json:"points"`
}

// JSONCPUPoint is one CPU set of a curve (CPUPoint): the figures of its best
// thread count.
type JSONCPUPoint struct {
	Set        string   `json:"server_cpus"`
	CPUs       int      `json:"cpus"`
	Threads    int      `json:"threads"`
	N          int      `json:"n"`
	Value      *float64 `json:"value"`
	CILo       *float64 `json:"ci_lo"`
	CIHi       *float64 `json:"ci_hi"`
	SpeedUp    *float64 `json:"speedup"`
	Efficiency *float64 `json:"efficiency"`
	// Vague is true when the speed-up and efficiency rest on an interval
	// wider than its figure (CPUPoint.Vague).
	Vague      bool   `json:"vague,omitempty"`
	Caveat     string `json:"caveat,omitempty"`
	OutageRuns int    `json:"outage_runs,omitempty"`
}

// JSONSystem describes one operand.
type JSONSystem struct {
	Label   string         `json:"label"`
	Name    string         `json:"name,omitempty"`
	Source  string         `json:"source,omitempty"`
	Machine result.Machine `json:"machine"`
	// UnderTest is the machine under test the figures judge (the server's).
	UnderTest       UnderTest      `json:"under_test"`
	Server          result.Server  `json:"server"`
	GHz             *float64       `json:"ghz"`
	GHzSource       string         `json:"ghz_source,omitempty"`
	VCPUs           *int           `json:"vcpus"`
	VCPUsSource     string         `json:"vcpus_source,omitempty"`
	ComputePower    *float64       `json:"compute_power"`
	Runs            int            `json:"runs"`
	Skipped         int            `json:"skipped"`
	SkippedByStatus map[string]int `json:"skipped_by_status,omitempty"`
	Notes           []string       `json:"notes,omitempty"`
}

// JSONRow is one key with one entry per system, in Systems order.
type JSONRow struct {
	Key
	Systems []JSONCell `json:"systems"`
	// Mixed is what a mixed row puts together (Row.Mixed); absent otherwise.
	Mixed []MixedPart `json:"mixed,omitempty"`
}

// JSONCell is one system's figures for one key.
type JSONCell struct {
	System string    `json:"system"`
	N      int       `json:"n"`
	Values []float64 `json:"values"`
	Value  *float64  `json:"value"`
	Mean   *float64  `json:"mean"`
	StdDev *float64  `json:"stddev"`
	CV     *float64  `json:"cv"`
	CILo   *float64  `json:"ci_lo"`
	CIHi   *float64  `json:"ci_hi"`
	// NoInterval says why ci_lo and ci_hi are null (Stats.NoInterval);
	// Vague is true when the interval is wider than the mean.
	NoInterval    string   `json:"no_interval,omitempty"`
	Vague         bool     `json:"vague,omitempty"`
	Min           *float64 `json:"min"`
	Median        *float64 `json:"median"`
	Max           *float64 `json:"max"`
	Pct           *float64 `json:"pct"`
	FScaled       *float64 `json:"fscaled"`
	PctFScaled    *float64 `json:"pct_fscaled"`
	PerVCPU       *float64 `json:"per_vcpu"`
	PerGHzVCPU    *float64 `json:"per_ghz_vcpu"`
	PctPerGHzVCPU *float64 `json:"pct_per_ghz_vcpu"`
	// Ratio is the comparison with the baseline (Cell.Ratio) and
	// Significance the Mann-Whitney second opinion; both null for the
	// baseline.
	Ratio        *JSONRatio        `json:"ratio"`
	Significance *JSONSignificance `json:"significance"`
	// OutageRuns counts the rounds whose server went away during the run
	// (Cell.Outages); absent when none did.
	OutageRuns int `json:"outage_runs,omitempty"`
}

// JSONRatio is a cell's Ratio: the ratio of its geometric mean to the
// baseline's with its confidence interval, by Method.
type JSONRatio struct {
	Method     string   `json:"method"`
	N          int      `json:"n"`
	BaseN      int      `json:"baseline_n"`
	Tested     bool     `json:"tested"`
	Reason     string   `json:"reason,omitempty"`
	Estimate   *float64 `json:"estimate"`
	Lo         *float64 `json:"lo"`
	Hi         *float64 `json:"hi"`
	Confidence float64  `json:"confidence"`
	T          *float64 `json:"t"`
	DF         *float64 `json:"df"`
	P          *float64 `json:"p"`
	Alpha      float64  `json:"alpha"`
	Claimed    bool     `json:"claimed"`
	Detectable *float64 `json:"detectable"`
}

// JSONSignificance is the Mann-Whitney U test's outcome (Significance).
type JSONSignificance struct {
	Method      string   `json:"method"`
	Tested      bool     `json:"tested"`
	Powered     bool     `json:"powered"`
	P           *float64 `json:"p"`
	Alpha       float64  `json:"alpha"`
	Significant bool     `json:"significant"`
	Reason      string   `json:"reason,omitempty"`
	Warnings    []string `json:"warnings,omitempty"`
}

// JSON returns the document WriteJSON writes.
func (c *Comparison) JSON() JSONDocument {
	d := JSONDocument{
		Schema: JSONSchema, Metric: c.Metric, Center: c.Center, Alpha: c.Alpha, Confidence: c.Confidence,
		Baseline: c.BaselineSystem().Label, Scaled: c.Scaled, PerCompute: c.PerCompute, Notes: c.Notes,
		Differences: c.Differences, Headline: Headline(c),
	}
	if len(d.Headline) > 0 {
		d.HeadlineRule = HeadlineRule
	}
	for _, s := range c.Systems {
		js := JSONSystem{
			Label: s.Label, Name: s.Name, Source: s.Source, Machine: s.Machine, UnderTest: s.UnderTest, Server: s.Server,
			GHz: jnum(s.GHz), GHzSource: s.GHzSource, VCPUsSource: s.VCPUsSource,
			Runs: len(s.Samples), Skipped: s.Skipped, SkippedByStatus: s.SkippedByStatus, Notes: s.Notes,
		}
		if s.GHz <= 0 {
			js.GHz = nil
		}
		if s.VCPUs > 0 {
			v := s.VCPUs
			js.VCPUs = &v
		}
		if cp := s.ComputePower(); cp > 0 {
			js.ComputePower = jnum(cp)
		}
		d.Systems = append(d.Systems, js)
	}
	for _, r := range c.Rows {
		jr := JSONRow{Key: r.Key, Mixed: r.Mixed}
		for i, cl := range r.Cells {
			st := cl.Stats
			jc := JSONCell{
				System: c.Systems[i].Label, N: st.N, Values: st.Values, OutageRuns: cl.Outages,
				Value: jnum(cl.Value), Mean: jnum(st.Mean), StdDev: jnum(st.StdDev), CV: jnum(st.CV),
				CILo: jnum(st.CILo), CIHi: jnum(st.CIHi), NoInterval: st.NoInterval, Vague: st.Vague(),
				Min: jnum(st.Min), Median: jnum(st.Median), Max: jnum(st.Max),
				Pct: jnum(cl.Pct), FScaled: jnum(cl.FScaled), PctFScaled: jnum(cl.PctFScaled),
				PerVCPU: jnum(cl.PerVCPU), PerGHzVCPU: jnum(cl.PerGHzVCPU), PctPerGHzVCPU: jnum(cl.PctPerGHzVCPU),
			}
			if jc.Values == nil {
				jc.Values = []float64{}
			}
			if i != c.Baseline {
				s, rt := cl.Significance, cl.Ratio
				jc.Ratio = &JSONRatio{Method: MethodWelchLog, N: rt.N, BaseN: rt.BaseN, Tested: rt.Tested, Reason: rt.Reason,
					Estimate: jnum(rt.Estimate), Lo: jnum(rt.Lo), Hi: jnum(rt.Hi), Confidence: rt.Confidence,
					T: jnum(rt.T), DF: jnum(rt.DF), P: jnum(rt.P), Alpha: rt.Alpha, Claimed: rt.Claimed, Detectable: jnum(rt.Detectable)}
				jc.Significance = &JSONSignificance{Method: "two-sided Mann-Whitney U test", Tested: s.Tested, Powered: s.Powered,
					P: jnum(s.P), Alpha: s.Alpha, Significant: s.Significant, Reason: s.Reason, Warnings: s.Warnings}
			}
			jr.Systems = append(jr.Systems, jc)
		}
		d.Rows = append(d.Rows, jr)
	}
	for _, ss := range c.Scaling {
		js := JSONScaleSection{Group: ss.Group, Over: ss.Over, Model: ModelFormula, Contrasts: ss.Contrasts}
		for _, f := range ss.Fits {
			jf := JSONScaleFit{System: f.System, Series: f.Series, Points: f.Points, Rounds: f.Rounds, NoModel: f.NoModel}
			if m := f.Model; m != nil {
				jf.Sigma, jf.Kappa, jf.Lambda = &m.Sigma, &m.Kappa, &m.Lambda
				jf.Peak, jf.PeakX, jf.PeakBeyond, jf.Ceiling = m.Peak, m.PeakX, m.PeakBeyond, m.Ceiling
				if m.Ceiling != nil {
					jf.Near = jnum(m.Near)
				}
				jf.R2, jf.RSE, jf.DF, jf.Confidence = jnum(m.R2), jnum(m.RSE), m.DF, m.Confidence
				jf.LackOfFitP, jf.Misfit, jf.Rough = jnum(m.LackOfFitP), m.Misfit, m.Rough
				jf.Measured, jf.Reading = m.Points, m.Reading(ss.Unit(), c.Metric.Unit)
			}
			js.Fits = append(js.Fits, jf)
		}
		d.Scaling = append(d.Scaling, js)
	}
	for _, cs := range c.ByCPUs {
		js := JSONCPUSection{Group: cs.Group}
		for _, cv := range cs.Curves {
			jc := JSONCPUCurve{System: cv.System, SMT: cv.SMT, Placement: cv.Placement, Mode: cv.Mode, BaseCPUs: cv.BaseCPUs}
			for _, p := range cv.Points {
				jc.Points = append(jc.Points, JSONCPUPoint{Set: p.Set, CPUs: p.CPUs, Threads: p.Threads, N: p.Stats.N,
					Value: jnum(p.Value), CILo: jnum(p.Stats.CILo), CIHi: jnum(p.Stats.CIHi),
					SpeedUp: jnum(p.SpeedUp), Efficiency: jnum(p.Efficiency), Vague: p.Vague, Caveat: p.Caveat, OutageRuns: p.Outages})
			}
			js.Curves = append(js.Curves, jc)
		}
		d.ByCPUs = append(d.ByCPUs, js)
	}
	return d
}

// WriteJSON renders c as an indented JSON document (JSONDocument).
func WriteJSON(w io.Writer, c *Comparison) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c.JSON()); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	return nil
}

// jnum is v for JSON: nil for NaN and infinities.
func jnum(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}
