// Package analysis turns result files into answers: it loads the results of one
// system (a result file, a directory of result files or a suite directory), sums
// up the rounds of each cell (mean, standard deviation, confidence interval…),
// compares systems against a baseline with a significance test and the
// normalisations of the seeds (frequency scaling, per vCPU, per unit of compute
// power), and describes how each system scales with threads. It renders
// comparisons as text, Markdown, CSV and JSON.
//
// Analysis reads results only; it never talks to a database.
//
// Statistics use golang.org/x/perf/benchmath, the library behind benchstat:
// the mean and its confidence interval come from benchmath.AssumeNormal
// (Student's t), the median from benchmath.AssumeNothing, and the significance
// of a difference from benchmath.AssumeNothing.Compare (the two-sided
// Mann-Whitney U test, exact for small samples), as benchstat does.
package analysis

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/record/result"
)

// Key identifies a cell of a system's results: what ran and with how many
// threads. Rounds of the same cell share a key.
type Key struct {
	Workload string `json:"workload"`            // "oltp_read_write", "tpcc"
	RandType string `json:"rand_type,omitempty"` // "uniform", "zipfian"; "" when unknown
	Profile  string `json:"profile,omitempty"`   // server profile of a suite; "" without one
	Data     string `json:"data,omitempty"`      // data set label: "4x100000", "w10"
	// Options are the run options that shape what was measured and differ
	// from their defaults ("rate=5000 point-selects=1"; see shapingOptions),
	// UnknownOptions last when a result does not say them; "" for the
	// defaults.
	Options string `json:"options,omitempty"`
	// CPUs is the server's CPU set when it could use only some of its
	// machine's CPUs ("cpus=4", "cpus=4:one-per-core"; see cpus.go), "" when
	// it could use them all.
	CPUs    string `json:"server_cpus,omitempty"`
	Threads int    `json:"threads"`
}

// Group returns the key without its thread count: the series a thread sweep
// belongs to.
func (k Key) Group() Key {
	k.Threads = 0
	return k
}

// String names the key as "workload/rand type/profile/data/options/CPU
// set/tN", leaving out the parts that are empty (and the thread count when
// it is 0).
func (k Key) String() string {
	var parts []string
	for _, p := range []string{k.Workload, k.RandType, k.Profile, k.Data, k.Options, k.CPUs} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if k.Threads > 0 {
		parts = append(parts, "t"+strconv.Itoa(k.Threads))
	}
	return strings.Join(parts, "/")
}

// less orders keys by workload, rand type, profile, data, options, CPU set
// (by its count) and then threads.
func (k Key) less(o Key) bool {
	if k.Workload != o.Workload {
		return k.Workload < o.Workload
	}
	if k.RandType != o.RandType {
		return k.RandType < o.RandType
	}
	if k.Profile != o.Profile {
		return k.Profile < o.Profile
	}
	if k.Data != o.Data {
		return k.Data < o.Data
	}
	if k.Options != o.Options {
		return k.Options < o.Options
	}
	if k.CPUs != o.CPUs {
		return cpuSetLess(k.CPUs, o.CPUs)
	}
	return k.Threads < o.Threads
}

// Sample is the figures of one run (one round of one cell).
type Sample struct {
	Key   Key `json:"key"`
	Round int `json:"round"` // from 1
	// TPS and QPS are the measured phase's rates (Totals.TPS, Totals.QPS).
	TPS float64 `json:"tps"`
	QPS float64 `json:"qps"`
	// Figures are the workload's headline figures by name ("tpmC", "tpmTotal",
	// "efficiency").
	Figures map[string]float64 `json:"figures,omitempty"`
	// LatencyMs are the measured phase's latency percentiles in milliseconds,
	// keyed by the percentile as written ("95", "99.9").
	LatencyMs map[string]float64 `json:"latency_ms,omitempty"`
	// File is the result file the sample came from ("" for results given in
	// memory).
	File string `json:"file,omitempty"`
	// Outages counts the spans during which the run's server went away
	// (result.Outages) and OutageSeconds their time within the measured
	// phase: a complete run with an outage (short, every thread
	// reconnected) has figures that include it, and comparisons mark them.
	Outages       int     `json:"outages,omitempty"`
	OutageSeconds float64 `json:"outage_s,omitempty"`
	// OtherProcessesPct is the largest share of an observed machine's CPUs
	// that processes other than the client and the server used during the
	// run (result.Observed.OtherProcesses; of a merged result, the largest
	// of its clients'); absent in results without it. Above
	// result.OtherProcessesLimitPct comparisons mark the cell (NoisyMark).
	OtherProcessesPct *float64 `json:"other_processes_pct,omitempty"`
	// Bound and Verdict are what limited the run (result.Observed; of a
	// merged result, its first client's); empty when not observed.
	Bound   string `json:"bound,omitempty"`
	Verdict string `json:"verdict,omitempty"`
	// SharedCPUs is the run's note that the client shared the server's CPUs
	// (result.SharedCPUsNote), "" when it did not.
	SharedCPUs string `json:"shared_cpus,omitempty"`
	// DryRun is true for a dry run's figures (result.Target.DryRun): the
	// client's alone, never compared with a server's (dryRunMix).
	DryRun bool `json:"dry_run,omitempty"`
}

// System is one operand of a comparison: the results of one machine and server.
type System struct {
	// Label names the system in tables. Load and FromResults derive it from the
	// machine ("arm64 Neoverse-N1 ×4") or the file name when none is given.
	Label string `json:"label"`
	// LabelDerived is true when Label was derived rather than given.
	LabelDerived bool `json:"label_derived,omitempty"`
	// Name is the base name of the file or directory the system was loaded from
	// ("" for results given in memory).
	Name string `json:"name,omitempty"`
	// Source is the path the system was loaded from.
	Source string `json:"source,omitempty"`

	// Machine is the client machine's fingerprint and Server the server's, from
	// the first result (all results of a system come from one machine).
	Machine result.Machine `json:"machine"`
	Server  result.Server  `json:"server"`
	// UnderTest is the machine under test (MachineUnderTest of the first
	// result): the database server's machine, which the frequency, vCPUs
	// and label come from.
	UnderTest UnderTest `json:"under_test"`
	// ServerSettings are what the results record of the server machine,
	// server and settings, by the row names of Differences; Varies for a
	// value that differs between the system's results.
	ServerSettings map[string]string `json:"server_settings,omitempty"`

	// GHz is the machine under test's CPU frequency used for frequency
	// scaling and compute power (0 = unknown); GHzSource says where it came
	// from: the place (UnderTest.From, "server_machines (agent)", "machine
	// (loopback target)"…) and how it was read ("import --machine-ghz",
	// "--server-ghz", "cpu model" — the nominal frequency in the model name,
	// "@ 3.00GHz" —, "cpufreq max", "cpuinfo MHz", "cpufreq current"), as
	// "server_machines (agent): cpufreq max", or "--ghz" (compare's, cost's or
	// report's --ghz).
	GHz       float64 `json:"ghz"`
	GHzSource string  `json:"ghz_source,omitempty"`
	// VCPUs is the number of logical CPUs of the machine under test, summed
	// over its machines (0 = unknown); VCPUsSource is where it came from
	// (UnderTest.VCPUsSource) or "--vcpus".
	VCPUs       int    `json:"vcpus"`
	VCPUsSource string `json:"vcpus_source,omitempty"`

	// Samples are the complete runs, in the order they were read.
	Samples []Sample `json:"samples"`
	// Skipped counts the cells or results left out because they did not
	// complete (pending, running, failed, interrupted); SkippedByStatus breaks
	// that down by status.
	Skipped         int            `json:"skipped"`
	SkippedByStatus map[string]int `json:"skipped_by_status,omitempty"`
	// Notes says what a user should know about how the system was loaded.
	Notes []string `json:"notes,omitempty"`
}

// ComputePower is vCPUs × GHz (seed 004: x86 64 × 3.0 = 192), or 0 when either
// is unknown.
func (s *System) ComputePower() float64 {
	if s.GHz <= 0 || s.VCPUs <= 0 {
		return 0
	}
	return s.GHz * float64(s.VCPUs)
}

// Keys returns the distinct keys of the system's samples, sorted.
func (s *System) Keys() []Key {
	seen := map[Key]bool{}
	var keys []Key
	for _, smp := range s.Samples {
		if !seen[smp.Key] {
			seen[smp.Key] = true
			keys = append(keys, smp.Key)
		}
	}
	sortKeys(keys)
	return keys
}

// Values returns metric m of every round of cell k, in the order the samples
// were read; rounds without the metric are left out.
func (s *System) Values(k Key, m Metric) []float64 {
	var out []float64
	for _, smp := range s.Samples {
		if smp.Key != k {
			continue
		}
		if v, ok := m.Value(smp); ok {
			out = append(out, v)
		}
	}
	return out
}

// Metric is the figure a comparison or scalability analysis looks at.
type Metric struct {
	// Name is the canonical name: "tps", "qps", "tpmc" or "p" and a latency
	// percentile ("p95", "p99.9").
	Name string `json:"name"`
	// Unit labels values in tables: "tps", "qps", "tpmC", "p95 ms".
	Unit string `json:"unit"`
	// LowerIsBetter is true for latencies.
	LowerIsBetter bool `json:"lower_is_better"`
	// percentile is the latency percentile key ("95") for latency metrics.
	percentile string
}

// The throughput metrics.
var (
	MetricTPS  = Metric{Name: "tps", Unit: "tps"}
	MetricQPS  = Metric{Name: "qps", Unit: "qps"}
	MetricTpmC = Metric{Name: "tpmc", Unit: "tpmC"}
)

// ParseMetric parses a metric name: tps, qps, tpmc (any case), or p and a
// latency percentile as the run recorded it (p95, p99, p99.9).
func ParseMetric(name string) (Metric, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	switch n {
	case "tps":
		return MetricTPS, nil
	case "qps":
		return MetricQPS, nil
	case "tpmc":
		return MetricTpmC, nil
	}
	if pct, ok := strings.CutPrefix(n, "p"); ok && pct != "" {
		v, err := strconv.ParseFloat(pct, 64)
		if err == nil && v > 0 && v < 100 {
			return LatencyMetric(pct), nil
		}
	}
	return Metric{}, fmt.Errorf("unknown metric %q: use tps, qps, tpmc or a latency percentile such as p95 or p99", name)
}

// LatencyMetric is the latency percentile metric for percentile key pct ("95",
// "99.9"), lower is better.
func LatencyMetric(pct string) Metric {
	return Metric{Name: "p" + pct, Unit: "p" + pct + " ms", LowerIsBetter: true, percentile: pct}
}

// Value returns the metric's value in sample s, and whether s has it.
func (m Metric) Value(s Sample) (float64, bool) {
	var v float64
	var ok bool
	switch {
	case m.percentile != "":
		v, ok = s.LatencyMs[m.percentile]
	case m.Name == "tps":
		v, ok = s.TPS, true
	case m.Name == "qps":
		v, ok = s.QPS, true
	case m.Name == "tpmc":
		v, ok = s.Figures["tpmC"]
	}
	if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}
