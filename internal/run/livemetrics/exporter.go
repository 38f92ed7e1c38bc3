// Package livemetrics serves a run's figures as Prometheus metrics while it runs
// (--metrics-addr), so that the Grafana dashboards TiDB and PMM users already
// watch can show the benchmark's load next to the server's own metrics.
//
// The exporter is fed once per reporting interval (runner.Deps.OnIntervalHistogram
// → ObserveInterval, or runner.Deps.OnInterval → Observe without the latency
// histogram), never on the per-event path, and has its own registry: nothing is
// registered in client_golang's global default registry. A Server serves it
// (Exporter.Start) and keeps answering for Server.Linger after the run ends,
// so that the last scrape sees the final figures and phase "done".
//
// Metrics (every fairbench_ metric carries the constant Labels given to New;
// the per-run ones also carry workload):
//
//	fairbench_events_total{workload,kind}            counter; kind="" for single-kind workloads
//	fairbench_queries_total{workload,type}           counter; type = read | write | other
//	fairbench_errors_total{workload,code}            counter of ignored errors by code
//	fairbench_reconnects_total{workload}             counter
//	fairbench_tps{workload}                          gauge, events/s of the last interval
//	fairbench_qps{workload}                          gauge, queries/s of the last interval
//	fairbench_threads{workload}                      gauge
//	fairbench_interval_latency_seconds{workload,quantile}
//	                                                 gauge, the last interval's percentiles
//	                                                 (quantile="1" is the interval's maximum)
//	fairbench_event_latency_seconds{workload}        histogram of event latency (from the intended
//	                                                 start), fed by ObserveInterval; absent until then
//	fairbench_phase{phase}                           gauge, 1 for the current phase, 0 for the others seen
//	fairbench_suite_cell{cell}                       gauge, 1-based index of the running suite cell
//	fairbench_suite_cells                            gauge, number of cells of the suite
//
// Counters include warm-up intervals (the server did that work too); the phase
// gauge tells warm-up and measured phase apart.
package livemetrics

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"

	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/run/metrics"
)

// The phases of a run, as fairbench_phase names them. Suite steps use their own
// names ("prepare", "checksum warm-up", "sleep"…).
const (
	PhaseIdle       = "idle"       // nothing running yet
	PhaseConnecting = "connecting" // opening the connections of a run
	PhaseWarmup     = "warmup"     // the warm-up phase of a run
	PhaseMeasure    = "measure"    // the measured phase of a run
	PhaseDone       = "done"       // the run or the suite ended
)

// Labels are constant labels put on every fairbench_ metric, so that several
// fairbench processes can feed one Prometheus. Empty fields are left out.
type Labels struct {
	// Target is the driver kind: "mysql", "pgsql" or "sqlite".
	Target string
	// Plan is the suite plan's name; empty for a single run.
	Plan string
	// Server names the database the load goes to, without credentials
	// ("10.0.0.5:4000"), to match the server's own dashboards.
	Server string
}

func (l Labels) constLabels() prometheus.Labels {
	out := prometheus.Labels{}
	for name, v := range map[string]string{"target": l.Target, "plan": l.Plan, "server": l.Server} {
		if v != "" {
			out[name] = v
		}
	}
	return out
}

// Exporter holds the live metrics of a run or suite and serves them over HTTP.
// Its methods are safe for concurrent use.
type Exporter struct {
	reg *prometheus.Registry

	events     *prometheus.CounterVec
	queries    *prometheus.CounterVec
	errors     *prometheus.CounterVec
	reconnects *prometheus.CounterVec
	tps        *prometheus.GaugeVec
	qps        *prometheus.GaugeVec
	threads    *prometheus.GaugeVec
	latency    *prometheus.GaugeVec
	phase      *prometheus.GaugeVec
	suiteCell  *prometheus.GaugeVec
	suiteCells prometheus.Gauge
	hist       *histogramCollector

	// mu guards the fields below and makes every scrape consistent: updates
	// hold it for writing, a gather for reading, so that a scrape sees whole
	// intervals (fairbench_events_total and the histogram's _count agree).
	mu       sync.RWMutex
	workload string
	kinds    []string
	curPhase string
	cellID   string
	hasCell  bool
	// bounds are LatencyBounds and +Inf, boundsUs the finite ones in µs, cum
	// the cumulative counts of one interval: buffers reused by ObserveInterval.
	bounds   []float64
	boundsUs []int64
	cum      []uint64
}

// New returns an exporter whose metrics carry labels, in phase "idle".
func New(labels Labels) *Exporter {
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	own := prometheus.WrapRegistererWith(labels.constLabels(), reg)
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "fairbench_" + name, Help: help}, labels)
		own.MustRegister(c)
		return c
	}
	gauge := func(name, help string, labels ...string) *prometheus.GaugeVec {
		g := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "fairbench_" + name, Help: help}, labels)
		own.MustRegister(g)
		return g
	}
	e := &Exporter{
		reg:        reg,
		events:     counter("events_total", "Events (transactions) completed, warm-up included; by kind for multi-kind workloads.", "workload", "kind"),
		queries:    counter("queries_total", "Queries run, as sysbench counts them: read, write or other.", "workload", "type"),
		errors:     counter("errors_total", "Ignored errors (--ignore-errors) by database error code.", "workload", "code"),
		reconnects: counter("reconnects_total", "Connections replaced after a lost connection.", "workload"),
		tps:        gauge("tps", "Events per second over the last reporting interval.", "workload"),
		qps:        gauge("qps", "Queries per second over the last reporting interval.", "workload"),
		threads:    gauge("threads", "Threads (connections) of the running workload.", "workload"),
		latency: gauge("interval_latency_seconds",
			"Event latency percentiles over the last reporting interval (from the intended start); quantile 1 is the maximum.",
			"workload", "quantile"),
		phase:     gauge("phase", "1 for the current phase of the run or suite, 0 for the other phases seen.", "phase"),
		suiteCell: gauge("suite_cell", "1-based index of the suite cell running, labelled with its id.", "cell"),
		suiteCells: prometheus.NewGauge(prometheus.GaugeOpts{Name: "fairbench_suite_cells",
			Help: "Number of cells of the suite."}),
		hist: newHistogramCollector(),
	}
	finite := LatencyBounds()
	e.bounds = append(finite, math.Inf(1))
	e.boundsUs = micros(finite)
	e.cum = make([]uint64, len(e.bounds))
	own.MustRegister(e.suiteCells, e.hist)
	e.setPhaseLocked(PhaseIdle)
	return e
}

// Handler serves the metrics in the Prometheus exposition formats. Each
// scrape sees whole intervals: none half applied.
func (e *Exporter) Handler() http.Handler {
	return promhttp.HandlerFor(prometheus.GathererFunc(e.gather), promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// gather collects every metric between two updates.
func (e *Exporter) gather() ([]*dto.MetricFamily, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.reg.Gather()
}

// StartRun says a run (or a suite cell) begins: it drops the gauges of the
// previous run, sets the workload label and the threads, and enters phase
// "connecting". kinds names the event kinds of a multi-kind workload (in the
// order of result.Interval.KindEvents); nil for single-kind workloads.
// Counters keep counting across runs, per workload.
func (e *Exporter) StartRun(workload string, threads int, kinds []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.workload = workload
	e.kinds = append([]string(nil), kinds...)
	e.tps.Reset()
	e.qps.Reset()
	e.threads.Reset()
	e.latency.Reset()
	e.threads.WithLabelValues(workload).Set(float64(threads))
	e.tps.WithLabelValues(workload).Set(0)
	e.qps.WithLabelValues(workload).Set(0)
	e.reconnects.WithLabelValues(workload) // present at 0 from the start
	e.setPhaseLocked(PhaseConnecting)
}

// Observe adds one reporting interval of the current run: counters grow by the
// interval's counts and the gauges take its rates and percentiles. The first
// interval moves the phase from "connecting" to "warmup" or "measure", and the
// first measured one from "warmup" to "measure"; other phases are left alone.
func (e *Exporter) Observe(iv result.Interval) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.observeLocked(iv)
}

// ObserveInterval is Observe plus the interval's latency distribution, added
// to fairbench_event_latency_seconds in the buckets of LatencyBounds, with
// lat's exact count and sum; a scrape sees both or neither. lat is the
// runner's (runner.Deps.OnIntervalHistogram hands it; values in µs): it is
// only read, during the call, and the buffers are the exporter's own, so an
// interval costs about 20 scans of its histogram per bucket and no
// allocation. A nil lat makes it Observe. Feed every interval of a run through
// it, warm-up included, as the counters count them, so that the histogram's
// _count equals fairbench_events_total of the workload.
func (e *Exporter) ObserveInterval(iv result.Interval, lat *metrics.Latency) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.observeLocked(iv)
	if lat == nil || lat.Hist == nil {
		return nil
	}
	cumulativeCounts(lat.Hist, e.boundsUs, e.cum)
	e.cum[len(e.cum)-1] = uint64(lat.Hist.TotalCount())
	return e.hist.add(e.workload, e.bounds, e.cum, lat.Sum.Seconds())
}

// observeLocked is Observe with e.mu held.
func (e *Exporter) observeLocked(iv result.Interval) {
	wl := e.workload
	if len(iv.KindEvents) > 0 {
		for i, n := range iv.KindEvents {
			e.events.WithLabelValues(wl, e.kindName(i)).Add(float64(n))
		}
	} else {
		e.events.WithLabelValues(wl, "").Add(float64(iv.Counts.Events))
	}
	e.queries.WithLabelValues(wl, "read").Add(float64(iv.Counts.Reads))
	e.queries.WithLabelValues(wl, "write").Add(float64(iv.Counts.Writes))
	e.queries.WithLabelValues(wl, "other").Add(float64(iv.Counts.Others))
	for code, n := range iv.Counts.Errors {
		e.errors.WithLabelValues(wl, code).Add(float64(n))
	}
	e.reconnects.WithLabelValues(wl).Add(float64(iv.Counts.Reconnects))
	e.tps.WithLabelValues(wl).Set(iv.TPS)
	e.qps.WithLabelValues(wl).Set(iv.QPS)
	if iv.Threads > 0 {
		e.threads.WithLabelValues(wl).Set(float64(iv.Threads))
	}
	for key, v := range iv.LatencyMs {
		if q, ok := quantileLabel(key); ok {
			e.latency.WithLabelValues(wl, q).Set(v / 1000)
		}
	}
	e.latency.WithLabelValues(wl, "1").Set(iv.MaxMs / 1000)

	switch {
	case iv.Warmup && e.curPhase == PhaseConnecting:
		e.setPhaseLocked(PhaseWarmup)
	case !iv.Warmup && (e.curPhase == PhaseConnecting || e.curPhase == PhaseWarmup):
		e.setPhaseLocked(PhaseMeasure)
	}
}

// kindName names kind i of the current run (its index when StartRun had no name for it).
func (e *Exporter) kindName(i int) string {
	if i < len(e.kinds) {
		return e.kinds[i]
	}
	return strconv.Itoa(i)
}

// quantileLabel turns a percentile key of result.Interval.LatencyMs ("95",
// "99.9") into a Prometheus quantile ("0.95", "0.999").
func quantileLabel(key string) (string, bool) {
	p, err := strconv.ParseFloat(key, 64)
	if err != nil || !(p > 0 && p <= 100) {
		return "", false
	}
	return strconv.FormatFloat(p/100, 'g', 12, 64), true
}

// SetPhase makes phase the current one: fairbench_phase{phase} becomes 1 and the
// phases seen before 0. Use the Phase constants for a run, the step's name for
// a suite step ("prepare", "checksum warm-up", "sleep"…).
func (e *Exporter) SetPhase(phase string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.setPhaseLocked(phase)
}

func (e *Exporter) setPhaseLocked(phase string) {
	e.phase.WithLabelValues(phase).Set(1)
	if e.curPhase != "" && e.curPhase != phase {
		e.phase.WithLabelValues(e.curPhase).Set(0)
	}
	e.curPhase = phase
}

// SetSuiteProgress says that cell (1-based) of cells, called id, is running.
func (e *Exporter) SetSuiteProgress(cell, cells int, id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.suiteCell.WithLabelValues(id).Set(float64(cell))
	if e.hasCell && e.cellID != id {
		e.suiteCell.DeleteLabelValues(e.cellID)
	}
	e.cellID, e.hasCell = id, true
	e.suiteCells.Set(float64(cells))
}

// ObserveHistogram adds one interval's latency distribution of the current
// run to fairbench_event_latency_seconds, a true Prometheus histogram that
// quantiles can be computed from across any time range. ObserveInterval feeds
// it from the runner's histograms; this is for distributions from elsewhere,
// and does not touch the counters. bounds are the upper bounds of the buckets
// in seconds, increasing (a last +Inf is allowed), and must be the same on
// every call of a workload (ObserveInterval uses LatencyBounds);
// cumulativeCounts[i] counts the interval's events whose latency was <=
// bounds[i], so it never decreases and its last value is the interval's event
// count (make the last bound +Inf, or above the interval's maximum). sum is
// the interval's total latency in seconds. Until it is first called the
// histogram is absent; the percentile gauges fed by Observe are there from the
// first interval.
func (e *Exporter) ObserveHistogram(bounds []float64, cumulativeCounts []uint64, sum float64) error {
	if err := checkHistogram(bounds, cumulativeCounts, sum); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.hist.add(e.workload, bounds, cumulativeCounts, sum)
}

func checkHistogram(bounds []float64, counts []uint64, sum float64) error {
	if len(bounds) == 0 || len(bounds) != len(counts) {
		return fmt.Errorf("latency histogram: %d bounds and %d counts: give one cumulative count per bound", len(bounds), len(counts))
	}
	for i := range bounds {
		if math.IsNaN(bounds[i]) || (i > 0 && !(bounds[i] > bounds[i-1])) {
			return fmt.Errorf("latency histogram: bound %d (%v) does not increase: bounds must be sorted and distinct", i, bounds[i])
		}
		if i > 0 && counts[i] < counts[i-1] {
			return fmt.Errorf("latency histogram: count %d (%d) is below count %d (%d): counts must be cumulative", i, counts[i], i-1, counts[i-1])
		}
	}
	if math.IsNaN(sum) || sum < 0 {
		return fmt.Errorf("latency histogram: sum %v must be a non-negative number of seconds", sum)
	}
	return nil
}
