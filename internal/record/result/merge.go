package result

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Part is one client result given to Merge, with the file it came from (used
// in messages and in MergedFrom).
type Part struct {
	File   string
	Result *Result
}

// MergeOptions tune Merge.
type MergeOptions struct {
	// Figures recomputes the workload's headline figures from the merged measured
	// phase (the workload's Summarizer); nil keeps no figures.
	Figures func(*Phase) []Figure
	// Warn, when set, receives what is worth knowing about the inputs but does not
	// stop the merge (clients that used the same seed).
	Warn func(string)
}

// PerClientOptions returns the options that may differ between the clients of one
// coordinated run; every other option must be equal. Connection options may
// differ because clients on different machines may reach the same server
// through different addresses, sockets or users (or different SQL nodes of one
// cluster); that they reached the same database is checked on Target.Database,
// Target.Path and the server's flavor and version instead.
func PerClientOptions() []string {
	return []string{
		"client-id", "threads", "rate", "rand-seed", "output", "format", "cpu-profile", "mem-profile", "percentile",
		"metrics-addr", "metrics-linger", "interval-histograms", // what each client serves and keeps
		"histogram", "verbosity", // what each client prints
		"connect-rate", // how fast each client connects, before the measured phase
		"start-at",     // compared as ClientInfo.StartAt, one instant however it was written
		"db-driver",    // compared as Target.Driver
		"mysql-host", "mysql-port", "mysql-socket", "mysql-user", "mysql-password",
		"mysql-ssl", "mysql-ssl-ca", "mysql-ssl-cert", "mysql-ssl-key",
		"pgsql-host", "pgsql-port", "pgsql-socket", "pgsql-user", "pgsql-password",
		"pgsql-ssl", "pgsql-ssl-ca", "pgsql-ssl-cert", "pgsql-ssl-key",
	}
}

// Merge combines the results of the N clients of one coordinated run (run
// --client-id=0..N-1 --clients=N --start-at=T) into the result of the whole, and
// refuses parts that do not belong together with an error that names the field
// and the files. The rules (docs/result-format.md, "Merged results"):
//
//   - counters, per-kind counts and threads are summed; rate is summed;
//   - latency histograms are merged bucket by bucket and every percentile any
//     part reported is recomputed from the merged histogram; min and max are exact;
//     avg is the summed latency over the summed events;
//   - Seconds of a phase is the mean of the parts' Seconds, and TPS and QPS are the
//     summed counts over it (the parts' windows are aligned by --start-at, so each
//     counted its events over about that long);
//   - intervals are placed on absolute time (the part's run start + at_s), snapped
//     to the nearest multiple of the interval length from the common start time,
//     and summed; when every part's intervals with events carry a histogram
//     (schema 1.2), those of a slot are merged and its percentiles recomputed
//     from them, otherwise the merged intervals have no percentiles (and Warn
//     says why when only some parts carry histograms);
//   - fairness is pooled over the threads of all parts;
//   - status is the worst; machine, server and target are the first part's, and
//     MergedFrom records every part's own;
//   - warnings are the parts' (named by client), but a shortfall of --rate is
//     judged on the summed rate and the merged phase (RateWarning);
//   - outages are merged (MergeOutages) and judged anew on the merged phase
//     (JudgeOutages): its warning replaces the clients' own, and an outage
//     that fails the whole fails the merged result; the merged intervals
//     that overlap a merged stall are marked (MarkStalls).
func Merge(parts []Part, opts MergeOptions) (*Result, error) {
	if len(parts) == 0 {
		return nil, errors.New("merge: no results given")
	}
	parts = slices.Clone(parts)
	if err := checkTogether(parts); err != nil {
		return nil, err
	}
	sort.SliceStable(parts, func(i, j int) bool { return parts[i].Result.Client.ID < parts[j].Result.Client.ID })
	warnSameSeed(parts, opts.Warn)

	first := parts[0].Result
	out := &Result{
		Schema:        SchemaVersion,
		Tool:          first.Tool,
		CommandLine:   nil,
		Workload:      first.Workload,
		Options:       mergedOptions(parts),
		Target:        first.Target,
		Machine:       first.Machine,
		Server:        first.Server,
		Status:        StatusComplete,
		Kinds:         slices.Clone(first.Kinds),
		ManagedServer: first.ManagedServer,
		Suite:         first.Suite,
		// The clients inspected one database before their runs.
		Data: slices.Clone(first.Data),
	}
	var errs []string
	for _, p := range parts {
		r := p.Result
		out.Threads += r.Threads
		out.Rate += r.Rate
		out.Status = worse(out.Status, r.Status)
		if r.Error != "" {
			errs = append(errs, fmt.Sprintf("client %d (%s): %s", r.Client.ID, p.File, r.Error))
		}
		if out.Start.IsZero() || r.Start.Before(out.Start) {
			out.Start = r.Start
		}
		if r.End.After(out.End) {
			out.End = r.End
		}
		if r.Suite == nil || first.Suite == nil || *r.Suite != *first.Suite {
			out.Suite = nil
		}
		out.MergedFrom = append(out.MergedFrom, MergedPart{
			File: p.File, ClientID: r.Client.ID, Status: r.Status, Error: r.Error, Seed: r.Seed,
			Threads: r.Threads, Rate: r.Rate, Start: r.Start, End: r.End, Seconds: r.Totals.Seconds,
			Events: r.Totals.Counts.Events, Target: r.Target, Machine: r.Machine, Observed: r.Observed,
		})
	}
	out.Error = strings.Join(errs, "; ")

	keys := percentileKeys(parts)
	totals := make([]*Phase, len(parts))
	threads := make([]int, len(parts))
	for i, p := range parts {
		totals[i] = &p.Result.Totals
		threads[i] = p.Result.Threads
	}
	var err error
	if out.Totals, err = mergePhase(parts, totals, threads, keys, first.Rate > 0); err != nil {
		return nil, fmt.Errorf("merge totals: %w", err)
	}
	if first.Warmup != nil {
		warm := make([]*Phase, len(parts))
		for i, p := range parts {
			warm[i] = p.Result.Warmup
		}
		w, err := mergePhase(parts, warm, threads, keys, first.Rate > 0)
		if err != nil {
			return nil, fmt.Errorf("merge warm-up: %w", err)
		}
		out.Warmup = &w
	}
	if out.Intervals, err = mergeIntervals(parts, opts.Warn); err != nil {
		return nil, err
	}
	if opts.Figures != nil {
		out.Figures = opts.Figures(&out.Totals)
	}
	results := make([]*Result, len(parts))
	for i, p := range parts {
		results[i] = p.Result
	}
	out.Scripts = mergeScripts(results)
	outages := make([][]Outage, len(parts))
	for i, p := range parts {
		outages[i] = p.Result.Outages
	}
	out.Outages = MergeOutages(outages...)
	// The merged intervals end at the common start (--start-at) plus at_s.
	MarkStalls(out.Intervals, parts[0].Result.Client.StartAt, out.Outages)
	mergeWarnings(out, parts)
	mergeServerMachines(out, parts)
	if failure, _ := JudgeOutages(out.Threads, out.Start, out.End, out.Outages); failure != "" && out.Status == StatusComplete {
		out.Status = StatusFailed
		out.Error = failure
	}
	return out, nil
}

// mergeServerMachines gives the merged result the server's machines as the
// first client that knew them described them (the clients measured one
// server; a client away from it may not know its machine), and warns when
// another client described them otherwise (roles, CPU models, vCPUs or CPU
// lists differ), naming both.
func mergeServerMachines(out *Result, parts []Part) {
	var from Part
	for _, p := range parts {
		if len(p.Result.ServerMachines) > 0 {
			from = p
			out.ServerMachines = slices.Clone(p.Result.ServerMachines)
			break
		}
	}
	if out.ServerMachines == nil {
		return
	}
	key := func(ms []ServerMachine) string {
		var b strings.Builder
		for _, m := range ms {
			fmt.Fprintf(&b, "%s: %s ×%d", m.Role, m.CPUModel, m.LogicalCPUs)
			if m.CPUList != "" {
				fmt.Fprintf(&b, " (CPUs %s)", m.CPUList)
			}
			b.WriteString("; ")
		}
		return strings.TrimSuffix(b.String(), "; ")
	}
	want := key(out.ServerMachines)
	for _, p := range parts {
		if got := key(p.Result.ServerMachines); got != "" && got != want {
			out.AddWarning(fmt.Sprintf("the clients describe the server's machines differently: client %d (%s) %s, client %d (%s) %s; the merged result keeps client %d's",
				from.Result.Client.ID, from.File, want, p.Result.Client.ID, p.File, got, from.Result.Client.ID))
		}
	}
}

// mergeWarnings gives the merged result the warnings and notes of its parts, each named
// by its client, except their --rate shortfalls and outages: whether the run
// kept up, and what the outages make of it, are judged anew on the summed
// rate, the merged outages and the merged measured phase (a client may fall
// short while the whole keeps up, and the reverse).
func mergeWarnings(out *Result, parts []Part) {
	for _, p := range parts {
		r := p.Result
		own := RateWarning(r.Rate, r.Totals)
		_, ownOutage := JudgeOutages(r.Threads, r.Start, r.End, r.Outages)
		for _, w := range r.Warnings {
			if w != own && w != ownOutage {
				out.AddWarning(fmt.Sprintf("client %d (%s): %s", r.Client.ID, p.File, w))
			}
		}
		for _, n := range r.Notes {
			out.AddNote(fmt.Sprintf("client %d (%s): %s", r.Client.ID, p.File, n))
		}
	}
	out.AddWarning(RateWarning(out.Rate, out.Totals))
	_, outage := JudgeOutages(out.Threads, out.Start, out.End, out.Outages)
	out.AddWarning(outage)
}

// checkTogether refuses parts that are not the clients of one coordinated run.
func checkTogether(parts []Part) error {
	for _, p := range parts {
		if p.Result == nil {
			return fmt.Errorf("merge: %s holds no result", p.File)
		}
		if p.Result.MergedFrom != nil {
			return fmt.Errorf("cannot merge %s: it is already a merged result; merge the client results it lists in merged_from", p.File)
		}
		if p.Result.Client == nil {
			return fmt.Errorf("cannot merge %s: it is not the result of a coordinated client; run each client with --client-id, --clients and --start-at", p.File)
		}
	}
	a := parts[0]
	type field struct {
		name string
		get  func(*Result) string
	}
	fields := []field{
		{"workload", func(r *Result) string { return r.Workload }},
		{"clients (--clients)", func(r *Result) string { return strconv.Itoa(r.Client.Of) }},
		{"start time (--start-at)", func(r *Result) string { return r.Client.StartAt.UTC().Format(time.RFC3339Nano) }},
		{"target driver", func(r *Result) string { return r.Target.Driver }},
		{"target database", func(r *Result) string { return r.Target.Database }},
		{"target SQLite file", func(r *Result) string { return r.Target.Path }},
		{"statement mode (ps_mode)", func(r *Result) string { return r.Target.PSMode }},
		{"dry run (--mysql-dry-run)", func(r *Result) string { return strconv.FormatBool(r.Target.DryRun) }},
		{"server", func(r *Result) string { return strings.TrimSpace(r.Server.Flavor + " " + r.Server.Version) }},
		{"open or closed loop (--rate)", func(r *Result) string {
			if r.Rate > 0 {
				return "open loop (--rate)"
			}
			return "closed loop"
		}},
		{"event kinds", func(r *Result) string { return strings.Join(r.Kinds, ",") }},
		{"scripts", func(r *Result) string { return ScriptsKey(r.Scripts) }},
		{"warm-up phase", func(r *Result) string { return strconv.FormatBool(r.Warmup != nil) }},
	}
	for _, f := range fields {
		want := f.get(a.Result)
		for _, b := range parts[1:] {
			if got := f.get(b.Result); got != want {
				return differs(f.name, want, a.File, got, b.File)
			}
		}
	}
	perClient := map[string]bool{}
	for _, name := range PerClientOptions() {
		perClient[name] = true
	}
	for _, b := range parts[1:] {
		names := slices.Sorted(maps.Keys(a.Result.Options))
		for name := range b.Result.Options {
			if _, ok := a.Result.Options[name]; !ok {
				names = append(names, name)
			}
		}
		for _, name := range names {
			if perClient[name] {
				continue
			}
			va, oka := a.Result.Options[name]
			vb, okb := b.Result.Options[name]
			if va != vb || oka != okb {
				return differs("option --"+name, showOption(va, oka), a.File, showOption(vb, okb), b.File)
			}
		}
	}

	n := a.Result.Client.Of
	if len(parts) != n {
		return fmt.Errorf("cannot merge: the run had %d clients (--clients=%d) but %d result(s) were given (%s): give one result per client id 0..%d",
			n, n, len(parts), fileList(parts), n-1)
	}
	byID := make(map[int]string, n)
	for _, p := range parts {
		id := p.Result.Client.ID
		if id < 0 || id >= n {
			return fmt.Errorf("cannot merge: client id %d of %s is outside 0..%d (--clients=%d)", id, p.File, n-1, n)
		}
		if other, dup := byID[id]; dup {
			return fmt.Errorf("cannot merge: client id %d appears twice, in %s and in %s: give one result per client id 0..%d", id, other, p.File, n-1)
		}
		byID[id] = p.File
	}

	for _, p := range parts {
		if p.Result.Totals.Counts.Events > 0 && p.Result.Totals.Latency.Histogram == nil {
			return fmt.Errorf("cannot merge %s: its measured phase has no latency histogram, so its percentiles cannot be merged exactly", p.File)
		}
	}

	// The measured windows must overlap, or the events were not concurrent.
	latestStart, earliestEnd := parts[0], parts[0]
	for _, p := range parts[1:] {
		if p.Result.Start.After(latestStart.Result.Start) {
			latestStart = p
		}
		if p.Result.End.Before(earliestEnd.Result.End) {
			earliestEnd = p
		}
	}
	if !earliestEnd.Result.End.After(latestStart.Result.Start) {
		return fmt.Errorf("cannot merge: the measured phases did not overlap: %s ended at %s, before %s started at %s",
			earliestEnd.File, earliestEnd.Result.End.UTC().Format(time.RFC3339Nano), latestStart.File, latestStart.Result.Start.UTC().Format(time.RFC3339Nano))
	}
	return nil
}

// differs is the refusal for a field whose values differ between two files.
func differs(field, va, fa, vb, fb string) error {
	return fmt.Errorf("cannot merge %s and %s: %s differs (%q in %s, %q in %s): merge only the client results of one coordinated run",
		fa, fb, field, va, fa, vb, fb)
}

func showOption(v string, ok bool) string {
	if !ok {
		return "(not set)"
	}
	return v
}

func fileList(parts []Part) string {
	names := make([]string, len(parts))
	for i, p := range parts {
		names[i] = p.File
	}
	return strings.Join(names, ", ")
}

// warnSameSeed warns about clients that drew the same random numbers.
func warnSameSeed(parts []Part, warn func(string)) {
	if warn == nil {
		return
	}
	seen := map[uint64]string{}
	for _, p := range parts {
		if other, ok := seen[p.Result.Seed]; ok {
			warn(fmt.Sprintf("%s and %s used the same --rand-seed %d, so their threads sent the same statements; give each client its own seed (or leave --rand-seed=0)",
				other, p.File, p.Result.Seed))
			continue
		}
		seen[p.Result.Seed] = p.File
	}
}

// mergedOptions keeps the common options, drops the per-client ones and records
// the summed threads and rate.
func mergedOptions(parts []Part) map[string]string {
	out := make(map[string]string, len(parts[0].Result.Options))
	for k, v := range parts[0].Result.Options {
		out[k] = v
	}
	for _, name := range PerClientOptions() {
		delete(out, name)
	}
	var threads int
	var rate float64
	for _, p := range parts {
		threads += p.Result.Threads
		rate += p.Result.Rate
	}
	out["threads"] = strconv.Itoa(threads)
	out["rate"] = strconv.FormatFloat(rate, 'f', -1, 64)
	if s, ok := parts[0].Result.Options["start-at"]; ok {
		out["start-at"] = s
	}
	return out
}

// worse returns the worse of two statuses: failed, then interrupted, then complete.
func worse(a, b Status) Status {
	rank := func(s Status) int {
		switch s {
		case StatusFailed:
			return 2
		case StatusInterrupted:
			return 1
		}
		return 0
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// percentileKeys is the union of the percentiles the parts reported, in order.
func percentileKeys(parts []Part) []string {
	set := map[string]float64{}
	for _, p := range parts {
		for k := range p.Result.Totals.Latency.Percentiles {
			if v, err := strconv.ParseFloat(k, 64); err == nil && v > 0 && v <= 100 {
				set[k] = v
			}
		}
	}
	return keysByValue(set)
}

// keysByValue returns the keys of set ordered by their values.
func keysByValue(set map[string]float64) []string {
	keys := slices.Collect(maps.Keys(set))
	sort.Slice(keys, func(i, j int) bool { return set[keys[i]] < set[keys[j]] })
	return keys
}

// mergePhase merges the same phase of every part. threads are the parts' thread
// counts (for the pooled fairness).
func mergePhase(parts []Part, phases []*Phase, threads []int, keys []string, rate bool) (Phase, error) {
	var out Phase
	for i, p := range phases {
		if p == nil {
			return out, fmt.Errorf("%s has no such phase", parts[i].File)
		}
		out.Seconds += p.Seconds
		addCounters(&out.Counts, &p.Counts)
	}
	out.Seconds /= float64(len(phases))
	if out.Seconds > 0 {
		out.TPS = float64(out.Counts.Events) / out.Seconds
		out.QPS = float64(out.Counts.Queries) / out.Seconds
	}
	lat := make([]latencyPart, len(phases))
	svc := make([]latencyPart, len(phases))
	for i, p := range phases {
		lat[i] = latencyPart{parts[i].File, &p.Latency, p.Counts.Events}
		svc[i] = latencyPart{parts[i].File, &p.Service, p.Counts.Events}
	}
	var err error
	if out.Latency, err = mergeLatency(lat, keys); err != nil {
		return out, fmt.Errorf("latency: %w", err)
	}
	if rate {
		if out.Service, err = mergeLatency(svc, keys); err != nil {
			return out, fmt.Errorf("service time: %w", err)
		}
	} else {
		// Without --rate the service time is the latency (and keeps no histogram).
		out.Service = out.Latency
		out.Service.Histogram = nil
	}
	out.Fairness = pooledFairness(phases, threads)

	if len(phases[0].Kinds) > 0 {
		out.Kinds = make([]KindPhase, len(phases[0].Kinds))
		for k := range out.Kinds {
			kl := make([]latencyPart, len(phases))
			kp := &out.Kinds[k]
			kp.Name = phases[0].Kinds[k].Name
			for i, p := range phases {
				if k >= len(p.Kinds) || p.Kinds[k].Name != kp.Name {
					return out, fmt.Errorf("%s and %s break their events down by different kinds", parts[0].File, parts[i].File)
				}
				from := &p.Kinds[k]
				kp.Events += from.Events
				kp.Rollbacks += from.Rollbacks
				kp.Retries += from.Retries
				kp.Retried += from.Retried
				kp.Errors = addErrorCounts(kp.Errors, from.Errors)
				kl[i] = latencyPart{parts[i].File, &from.Latency, from.Events}
			}
			if out.Seconds > 0 {
				kp.TPS = float64(kp.Events) / out.Seconds
			}
			if kp.Latency, err = mergeLatency(kl, keys); err != nil {
				return out, fmt.Errorf("kind %s: %w", kp.Name, err)
			}
		}
	}
	return out, nil
}

// addCounters adds from into to.
func addCounters(to, from *Counters) {
	to.Events += from.Events
	to.Queries += from.Queries
	to.Reads += from.Reads
	to.Writes += from.Writes
	to.Others += from.Others
	to.Reconnects += from.Reconnects
	to.Retries += from.Retries
	to.Retried += from.Retried
	to.Late += from.Late
	to.Skipped += from.Skipped
	to.Connects += from.Connects
	to.ConnectMs += from.ConnectMs
	to.Errors = addErrorCounts(to.Errors, from.Errors)
}

func addErrorCounts(to, from map[string]int64) map[string]int64 {
	for code, n := range from {
		if to == nil {
			to = make(map[string]int64, len(from))
		}
		to[code] += n
	}
	return to
}

// latencyPart is one part's latency summary with the number of events it covers.
type latencyPart struct {
	file  string
	l     *Latency
	count int64
}

// mergeLatency merges latency summaries. When every part with events has a
// histogram, the histograms are merged and the percentiles keys recomputed from
// the result; otherwise the merged summary has neither (percentiles cannot be
// combined exactly from percentiles).
func mergeLatency(ls []latencyPart, keys []string) (Latency, error) {
	var out Latency
	var count int64
	withHist := true
	for _, p := range ls {
		if p.count == 0 {
			continue
		}
		if count == 0 || p.l.MinMs < out.MinMs {
			out.MinMs = p.l.MinMs
		}
		out.MaxMs = math.Max(out.MaxMs, p.l.MaxMs)
		out.SumMs += p.l.SumMs
		count += p.count
		if p.l.Histogram == nil {
			withHist = false
		}
	}
	if count == 0 {
		out.Percentiles = map[string]float64{}
		for _, k := range keys {
			out.Percentiles[k] = 0
		}
		return out, nil
	}
	out.AvgMs = out.SumMs / float64(count)
	if !withHist {
		return out, nil
	}
	var merged *hdrhistogram.Histogram
	for _, p := range ls {
		if p.count == 0 || p.l.Histogram == nil {
			continue
		}
		h, err := p.l.Histogram.Decode()
		if err != nil {
			return out, fmt.Errorf("%s: %w", p.file, err)
		}
		if merged == nil {
			merged = hdrhistogram.New(h.LowestTrackableValue(), h.HighestTrackableValue(), int(h.SignificantFigures()))
		}
		if dropped := merged.Merge(h); dropped > 0 {
			return out, fmt.Errorf("%s: %d latencies outside the range of %s's histogram", p.file, dropped, ls[0].file)
		}
	}
	enc, err := EncodeHistogram(merged)
	if err != nil {
		return out, err
	}
	out.Histogram = enc
	out.Percentiles = make(map[string]float64, len(keys))
	for _, k := range keys {
		p, _ := strconv.ParseFloat(k, 64)
		out.Percentiles[k] = HistogramQuantileMs(merged, p/100, out.MinMs, out.MaxMs)
	}
	return out, nil
}

// HistogramQuantileMs returns the latency in milliseconds at quantile q in [0,1]
// of h (values in µs), by fairbench's one convention: the histogram's value at
// the quantile, kept within the exact minMs and maxMs, and q=1 is maxMs.
func HistogramQuantileMs(h *hdrhistogram.Histogram, q, minMs, maxMs float64) float64 {
	if h.TotalCount() == 0 {
		return 0
	}
	if q >= 1 {
		return maxMs
	}
	if q <= 0 {
		return minMs
	}
	v := float64(h.ValueAtQuantile(q*100)) / 1000
	return math.Min(math.Max(v, minMs), maxMs)
}

// pooledFairness is the mean and population standard deviation over the threads
// of all parts, from each part's mean and standard deviation.
func pooledFairness(phases []*Phase, threads []int) Fairness {
	var n, sumE, sqE, sumX, sqX float64
	for i, p := range phases {
		t := float64(threads[i])
		f := p.Fairness
		n += t
		sumE += t * f.EventsAvg
		sqE += t * (f.EventsStddev*f.EventsStddev + f.EventsAvg*f.EventsAvg)
		sumX += t * f.ExecSecAvg
		sqX += t * (f.ExecSecStddev*f.ExecSecStddev + f.ExecSecAvg*f.ExecSecAvg)
	}
	if n == 0 {
		return Fairness{}
	}
	me, mx := sumE/n, sumX/n
	return Fairness{
		EventsAvg: me, EventsStddev: math.Sqrt(math.Max(0, sqE/n-me*me)),
		ExecSecAvg: mx, ExecSecStddev: math.Sqrt(math.Max(0, sqX/n-mx*mx)),
	}
}

// mergeIntervals places every part's intervals on absolute time and sums those
// that end at the same point of a grid of the interval length, laid from the
// common start time. A part's run began (warm-up included) at Start minus its
// --warmup-time; an interval ends at that moment + at_s. When every part's
// intervals carry histograms, the histograms of a slot are merged and its
// percentiles recomputed; otherwise the merged intervals have none.
func mergeIntervals(parts []Part, warn func(string)) ([]Interval, error) {
	length := seriesLength(parts)
	if length <= 0 {
		return nil, nil
	}
	withHist := intervalHistograms(parts, warn)
	origin := parts[0].Result.Client.StartAt
	type key struct {
		slot   int64
		warmup bool
	}
	type bucket struct {
		iv      Interval
		seconds []float64 // per part
		hist    *hdrhistogram.Histogram
	}
	buckets := map[key]*bucket{}
	for i, p := range parts {
		r := p.Result
		warmup, err := warmupSeconds(r)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.File, err)
		}
		runStart := r.Start.Add(-time.Duration(warmup * float64(time.Second)))
		// A trailing sliver (results of older runs) is folded first, so that
		// it lands in the slot of its interval whatever the grid.
		for j, iv := range FoldTrailingSliver(r.Intervals) {
			end := runStart.Add(time.Duration(iv.At * float64(time.Second)))
			slot := int64(math.Round(end.Sub(origin).Seconds() / length))
			k := key{slot, iv.Warmup}
			b := buckets[k]
			if b == nil {
				b = &bucket{seconds: make([]float64, len(parts))}
				// At to the millisecond of the grid: 0.3, not 0.30000000000000004.
				at := math.Round(float64(slot)*length*1000) / 1000
				b.iv = Interval{At: at, Warmup: iv.Warmup, LatencyMs: map[string]float64{}}
				if len(r.Kinds) > 0 {
					b.iv.KindEvents = make([]int64, len(r.Kinds))
				}
				buckets[k] = b
			}
			if b.seconds[i] == 0 {
				b.iv.Threads += iv.Threads
			}
			b.seconds[i] += iv.Seconds
			// The lag is a mean over events: weighted by each part's events.
			if n := b.iv.Counts.Events + iv.Counts.Events; n > 0 {
				b.iv.LagMs = (b.iv.LagMs*float64(b.iv.Counts.Events) + iv.LagMs*float64(iv.Counts.Events)) / float64(n)
			}
			addCounters(&b.iv.Counts, &iv.Counts)
			b.iv.MaxMs = math.Max(b.iv.MaxMs, iv.MaxMs)
			if ol := iv.OpenLoop; ol != nil { // the clients' queues and threads in flight add up
				if b.iv.OpenLoop == nil {
					b.iv.OpenLoop = &OpenLoop{}
				}
				b.iv.OpenLoop.QueueLength += ol.QueueLength
				b.iv.OpenLoop.Concurrency += ol.Concurrency
			}
			for kind, n := range iv.KindEvents {
				if kind < len(b.iv.KindEvents) {
					b.iv.KindEvents[kind] += n
				}
			}
			if withHist && iv.Histogram != nil {
				if b.hist, err = addHistogram(b.hist, iv.Histogram); err != nil {
					return nil, fmt.Errorf("%s: interval %d (at %gs): %w", p.File, j+1, iv.At, err)
				}
			}
		}
	}
	keys := intervalPercentileKeys(parts)
	out := make([]Interval, 0, len(buckets))
	for _, b := range buckets {
		iv := b.iv
		iv.Seconds = slices.Max(b.seconds)
		if iv.Seconds > 0 {
			iv.TPS = float64(iv.Counts.Events) / iv.Seconds
			iv.QPS = float64(iv.Counts.Queries) / iv.Seconds
		}
		if withHist {
			if err := intervalPercentiles(&iv, b.hist, keys); err != nil {
				return nil, fmt.Errorf("merged interval at %gs: %w", iv.At, err)
			}
		}
		out = append(out, iv)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].At != out[j].At {
			return out[i].At < out[j].At
		}
		return out[i].Warmup && !out[j].Warmup
	})
	return out, nil
}

// intervalHistograms reports whether every interval with events of every part
// carries a histogram. When only some parts' do, warn (if set) says which
// part lacks them and that the merged intervals have no percentiles.
func intervalHistograms(parts []Part, warn func(string)) bool {
	var with, without []string
	for _, p := range parts {
		has, lacks := false, false
		for _, iv := range p.Result.Intervals {
			switch {
			case iv.Histogram != nil:
				has = true
			case iv.Counts.Events > 0:
				lacks = true
			}
		}
		switch {
		case lacks:
			without = append(without, p.File)
		case has:
			with = append(with, p.File)
		}
	}
	if len(without) > 0 && len(with) > 0 && warn != nil {
		warn(fmt.Sprintf("the merged intervals have no percentiles: the intervals of %s carry no latency histograms, unlike those of %s (results of schema 1.2 keep them for runs with --clients or --interval-histograms); run every client with the same fairbench",
			strings.Join(without, ", "), strings.Join(with, ", ")))
	}
	return len(without) == 0
}

// addHistogram decodes h and adds it to into, which it creates on first use.
func addHistogram(into *hdrhistogram.Histogram, h *Histogram) (*hdrhistogram.Histogram, error) {
	d, err := h.Decode()
	if err != nil {
		return into, err
	}
	if into == nil {
		into = hdrhistogram.New(d.LowestTrackableValue(), d.HighestTrackableValue(), int(d.SignificantFigures()))
	}
	if dropped := into.Merge(d); dropped > 0 {
		return into, fmt.Errorf("%d latencies outside the range of the first histogram of the slot", dropped)
	}
	return into, nil
}

// intervalPercentiles sets the percentiles keys of a merged interval from its
// merged histogram (nil when the slot had no events), capped at its exact
// maximum, and keeps the histogram.
func intervalPercentiles(iv *Interval, h *hdrhistogram.Histogram, keys []string) error {
	for _, k := range keys {
		p, _ := strconv.ParseFloat(k, 64)
		iv.LatencyMs[k] = 0
		if h != nil {
			iv.LatencyMs[k] = HistogramQuantileMs(h, p/100, 0, iv.MaxMs)
		}
	}
	if h == nil || h.TotalCount() == 0 {
		return nil
	}
	enc, err := EncodeHistogram(h)
	if err != nil {
		return err
	}
	iv.Histogram = enc
	return nil
}

// intervalPercentileKeys is the union of the percentiles the parts' intervals
// reported, in order.
func intervalPercentileKeys(parts []Part) []string {
	set := map[string]float64{}
	for _, p := range parts {
		for _, iv := range p.Result.Intervals {
			for k := range iv.LatencyMs {
				if v, err := strconv.ParseFloat(k, 64); err == nil && v > 0 && v <= 100 {
					set[k] = v
				}
			}
		}
	}
	return keysByValue(set)
}

// seriesLength is the length of the parts' intervals: the median of their
// lengths, to the millisecond (the last interval and the one at the end of the
// warm-up may be shorter).
func seriesLength(parts []Part) float64 {
	var lengths []float64
	for _, p := range parts {
		for _, iv := range p.Result.Intervals {
			lengths = append(lengths, math.Round(iv.Seconds*1000)/1000)
		}
	}
	if len(lengths) == 0 {
		return 0
	}
	sort.Float64s(lengths)
	return lengths[len(lengths)/2]
}

// warmupSeconds is the run's --warm-up time, from its options.
func warmupSeconds(r *Result) (float64, error) {
	v, ok := r.Options["warmup-time"]
	if !ok || v == "" {
		return 0, nil
	}
	s, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, fmt.Errorf("option warmup-time %q is not a number", v)
	}
	return s, nil
}
