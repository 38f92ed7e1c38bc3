// Package importer turns the text logs of sysbench 1.0.x and go-tpc 1.0.x
// (`tiup bench tpcc`) runs into fairbench result files, so that years of
// existing logs can be compared and costed beside fairbench's own results.
//
// A log may hold several runs (a shell loop over thread counts, outputs
// concatenated with cat): Parse returns one result per run, in the order of
// the log. A log tells less than a fairbench run records; what it lacks is
// left at its zero value and listed in the result's "imported-missing" option
// (see Parse), and what only the user knows (the machine, the server, the
// thread count of a go-tpc run…) comes in through Options.
package importer

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/base/lazyre"
	"github.com/fairbench/fairbench/internal/record/result"
)

// Format names the tool that wrote a log.
type Format string

// The formats Parse reads.
const (
	// FormatAuto detects the format of each run (see Detect); a log that holds
	// runs of both tools is read with both.
	FormatAuto Format = ""
	// FormatSysbench is the output of `sysbench <oltp test> run`, 1.0.x (and
	// later versions that print the same report).
	FormatSysbench Format = "sysbench"
	// FormatGoTPC is the output of `go-tpc tpcc run` (also run as `tiup bench
	// tpcc`) with the default plain --output.
	FormatGoTPC Format = "go-tpc"
)

// ParseFormat reads a format as a user writes it: "sysbench", "go-tpc" (or
// "gotpc", "tiup-bench"), or "auto" / "" for detection.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return FormatAuto, nil
	case "sysbench":
		return FormatSysbench, nil
	case "go-tpc", "gotpc", "tiup-bench", "tiup bench":
		return FormatGoTPC, nil
	}
	return "", fmt.Errorf("unknown log format %q: use sysbench, go-tpc or auto", s)
}

// Options is what the user knows about the runs of a log that the log does not
// say. Where the log says something, the log wins (the thread count sysbench
// prints, the workload of an echoed command line…).
type Options struct {
	// Format is the tool that wrote the log; FormatAuto detects it.
	Format Format
	// Machine is the client machine the log came from (arch, CPU model, cores,
	// frequency as GivenGHz, memory); the logs never say. A machine given here
	// is recorded with Source result.SourceImport.
	Machine result.Machine
	// ServerMachines are the machines the database server ran on (the
	// --server-* flags and --server-machine files of import), recorded as
	// each result's server_machines (schema 1.4).
	ServerMachines []result.ServerMachine
	// Server is the database server (flavor, version) when known.
	Server result.Server
	// Target is where the load went (driver, host…) when known.
	Target result.Target
	// Workload names the workload of the runs when the log does not:
	// "oltp_read_write"… sysbench logs do not name their Lua script unless the
	// command line is echoed in the log; without either, Parse infers the
	// four OLTP workloads with a distinctive default query mix (point_select,
	// read_only, read_write, write_only) and asks for the others. go-tpc runs
	// are always "tpcc".
	Workload string
	// Threads gives the thread count of runs whose log does not say it (go-tpc
	// never prints it; sysbench always does): one value for every run, or one
	// per run of the log, in order.
	Threads []int
	// ToolVersion is the tool's version when the log does not print it (go-tpc
	// prints none unless run through tiup, whose command line names it).
	ToolVersion string
	// Settings are further options of the runs that the log does not print
	// ("warehouses", "tables", "table-size", "rand-type", "time"…), by the
	// tool's flag names. They are recorded in each result's Options; an option
	// the log prints keeps the log's value.
	Settings map[string]string
	// Label is a free name for the source of the log ("x86 cluster 2021"); it
	// is recorded as the "label" option.
	Label string
	// KeepIncomplete keeps runs that have no complete final summary (the tool
	// stopped with an error, or the log is cut) as results with Status
	// "failed", Error saying why, their intervals and zero totals, instead of
	// failing the whole import.
	KeepIncomplete bool
}

// The options every imported result carries (in Result.Options), besides the
// tool's own options as the log shows them.
const (
	// OptionImportedFrom holds the name of the log, as given to Parse.
	OptionImportedFrom = "imported-from"
	// OptionImportedFormat holds the format the run was read as.
	OptionImportedFormat = "imported-format"
	// OptionImportedLine holds the line of the log where the run begins.
	OptionImportedLine = "imported-line"
	// OptionImportedMissing lists, comma-separated, what a fairbench result
	// holds that the log did not give (see Parse for the vocabulary).
	OptionImportedMissing = "imported-missing"
	// OptionImportedWorkload says where the workload name came from: "log",
	// "options" or "query mix" (inferred).
	OptionImportedWorkload = "imported-workload"
	// OptionImportedDefaults lists, comma-separated, the options the log does
	// not show whose values are the defaults of the tool's version (in
	// Tool.Version): a sysbench 1.0 log that echoes no command line ran with
	// --rand-type=special, a 1.1 log with uniform (see Parse).
	OptionImportedDefaults = "imported-defaults"
	// OptionImportedDerived lists, comma-separated, the options the log does
	// not show whose values were derived from its figures: a go-tpc run's
	// "warehouses" from its efficiency.
	OptionImportedDerived = "imported-derived"
	// OptionLabel holds Options.Label.
	OptionLabel = "label"
)

// ErrorCodeUnknown is the error code under which imported errors are counted:
// the logs count errors without saying which they were.
const ErrorCodeUnknown = "unknown"

// ErrNotLog is wrapped by the errors of Parse for input that is not a log of a
// run of a known tool.
var ErrNotLog = errors.New("not a sysbench or go-tpc log")

// ParseError is an error at one line of a log.
type ParseError struct {
	Name string // the log's name, as given to Parse
	Line int    // from 1
	Msg  string
}

// Error returns "name:line: message".
func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d: %s", e.Name, e.Line, e.Msg)
}

// ParseFile reads the log at path (see Parse); the results name the file by
// its base name.
func ParseFile(path string, opts Options) ([]*result.Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	defer f.Close()
	return Parse(f, filepath.Base(path), opts)
}

// Parse reads the runs of one log and returns them as fairbench results, in
// the order of the log. name names the log in errors and in each result's
// "imported-from" option.
//
// Every result has Schema result.SchemaVersion, Tool {Name: "sysbench" or
// "go-tpc", Version from the log or opts.ToolVersion}, Status "complete"
// (sysbench: "failed" with Error when the run printed a FATAL error yet a
// summary; go-tpc: "interrupted" when it was stopped by a signal), Threads,
// Totals, Intervals, and Options holding the tool's options the log shows
// (header lines, an echoed command line), opts.Settings, and the import's
// provenance: "imported-from", "imported-format", "imported-line",
// "imported-workload", "imported-missing" and, when they apply,
// "imported-defaults" and "imported-derived". An option that shapes the
// figures but that neither the log nor opts.Settings gives is the default of
// the tool's version, listed in "imported-defaults": a sysbench run's
// --rand-type is "special" in 1.0.x and "uniform" from 1.1 (with the
// distribution's parameters, --rand-spec-iter…). When the version, and so
// that default, is unknown, the option is left out, listed in
// "imported-missing", and Warnings says so. CommandLine is the tool's
// command line when the log echoes it (`$ sysbench …`, `+ go-tpc …`, tiup's
// "Starting component `bench`: …"), secrets redacted; otherwise empty. Start
// and End are zero: neither tool prints when it ran.
//
// "imported-missing" lists what the log did not give, out of: start-end,
// seed, histogram (latency histogram; a sysbench --histogram=on log gives one,
// rebuilt from its ~1.8% buckets), service (service time apart from latency,
// for rate-limited runs), percentiles (of a sysbench run with checkpoints),
// interval-max (per-interval maximum latency), interval-percentiles,
// total-percentiles (go-tpc: over all transactions), min-latency and, in older
// go-tpc such as 1.0.8, max-latency (go-tpc), queries (go-tpc counts no statements),
// rollbacks (go-tpc counts New-Order's rollbacks as successes), error-codes
// (errors are counted under ErrorCodeUnknown), fairness (go-tpc; sysbench with
// checkpoints: fairness-stddev), tool-version, machine, server and target
// (when opts does not give them). Beyond that list: sysbench's interval
// counts are its printed rates × the interval, rounded to whole events; go-tpc
// prints latencies with one decimal from a histogram of one significant
// digit; a go-tpc run's warehouse count, when neither the log nor
// opts.Settings gives it, is derived from its efficiency when that leaves no
// doubt (and listed in "imported-derived").
//
// Errors name the log and the line: an empty log, input that is not a log
// (wrapping ErrNotLog), a run whose summary is cut or missing (unless
// opts.KeepIncomplete), a run whose thread count or workload neither the log
// nor opts gives.
func Parse(r io.Reader, name string, opts Options) ([]*result.Result, error) {
	if name == "" {
		name = "<input>"
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: read log: %w", name, err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%s: the log is empty: pass the saved output of a sysbench or go-tpc run", name)
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return nil, fmt.Errorf("%s: %w: the file is binary, not a text log", name, ErrNotLog)
	}
	for _, t := range opts.Threads {
		if t <= 0 {
			return nil, fmt.Errorf("thread count %d: give thread counts of 1 or more", t)
		}
	}
	lines := splitLines(data)
	formats := []Format{opts.Format}
	if opts.Format == FormatAuto {
		formats = detectAll(lines)
		if len(formats) == 0 {
			return nil, fmt.Errorf("%s: %w: %s", name, ErrNotLog, notLogHint(data))
		}
	}
	var runs []*run
	for _, f := range formats {
		var rs []*run
		switch f {
		case FormatSysbench:
			rs, err = parseSysbench(name, lines, opts)
		case FormatGoTPC:
			rs, err = parseGoTPC(name, lines, opts)
		default:
			return nil, fmt.Errorf("unknown log format %q: use sysbench, go-tpc or auto", f)
		}
		if err != nil {
			return nil, err
		}
		runs = append(runs, rs...)
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("%s: %w: %s", name, ErrNotLog, noRunHint(formats[0]))
	}
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].line < runs[j].line })
	if n := len(opts.Threads); n > 1 && n != len(runs) {
		return nil, fmt.Errorf("%s: %d thread counts given but the log holds %d runs: give one for all runs or one per run", name, n, len(runs))
	}
	out := make([]*result.Result, 0, len(runs))
	for i, rn := range runs {
		res, err := rn.finish(name, i, opts)
		if err != nil {
			return nil, err
		}
		out = append(out, res)
	}
	return out, nil
}

// Detect returns the format of the first run in text, or FormatAuto ("") when
// text holds no sysbench or go-tpc output.
func Detect(text []byte) Format {
	f, _ := firstFormat(splitLines(text))
	return f
}

// detectAll returns the formats found in lines, the first found first.
func detectAll(lines []string) []Format {
	first, ok := firstFormat(lines)
	if !ok {
		return nil
	}
	out := []Format{first}
	for _, l := range lines {
		if f, ok := lineFormat(l); ok && f != first {
			return append(out, f)
		}
	}
	return out
}

func firstFormat(lines []string) (Format, bool) {
	for _, l := range lines {
		if f, ok := lineFormat(l); ok {
			return f, true
		}
	}
	return FormatAuto, false
}

// lineFormat says whether l is a line only one of the tools prints.
func lineFormat(l string) (Format, bool) {
	switch {
	case sbVersionRe().MatchString(l), sbOldVersionRe().MatchString(l), strings.Contains(l, sbRunning), sbReportRe().MatchString(l), strings.Contains(l, sbSQLStats):
		return FormatSysbench, true
	case gtLineRe().MatchString(l), gtTpmCRe().MatchString(l), gtTableRe().MatchString(l):
		return FormatGoTPC, true
	}
	return FormatAuto, false
}

func notLogHint(data []byte) string {
	t := bytes.TrimSpace(data)
	if bytes.HasPrefix(t, []byte("{")) && bytes.Contains(t, []byte(`"schema"`)) {
		return "this looks like a fairbench result file already; import takes the text output of sysbench or go-tpc"
	}
	return "found no sysbench report (\"SQL statistics:\", \"[ 10s ] thds: …\") and no go-tpc report (\"[Summary] NEW_ORDER - Takes(s): …\", \"tpmC: …\"); pass the saved output of `sysbench <test> run` or `go-tpc tpcc run`"
}

func noRunHint(f Format) string {
	switch f {
	case FormatSysbench:
		return "found no sysbench run (\"Running the test with following options:\" and a summary from \"SQL statistics:\" to \"Threads fairness:\"); is this the output of `sysbench <test> run`, 1.0 or later?"
	case FormatGoTPC:
		return "found no go-tpc run (\"[Summary] NEW_ORDER - Takes(s): …\" lines and \"tpmC: …\"); is this the output of `go-tpc tpcc run` with the default --output plain?"
	}
	return "found no complete run"
}

// ansiRe matches terminal colour sequences (tiup colours its messages).
var ansiRe = lazyre.New("\x1b\\[[0-9;]*[A-Za-z]")

// splitLines splits text into lines without line ends or colour sequences.
func splitLines(text []byte) []string {
	s := string(text)
	if strings.Contains(s, "\x1b[") {
		s = ansiRe().ReplaceAllString(s, "")
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, "\r")
	}
	return lines
}

// run is one run found in a log, with what the log said; finish adds what the
// options say.
type run struct {
	format Format
	line   int // where the run begins, from 1
	res    *result.Result
	// version is the tool's version as the log gives it ("" when it does not).
	version, commit string
	// options are the tool's options the log shows.
	options map[string]string
	// cmd is the tool's command line echoed in the log (redacted), if any.
	cmd []string
	// missing lists what the log did not give (see Parse).
	missing []string
	// infer guesses the workload from the figures ("" when it cannot).
	infer func(*result.Result) string
	// defaults gives the options the tool's version applies when neither the
	// log nor the user gives them (given holds those given); nil when none
	// matter.
	defaults func(version string, given map[string]string) versionDefaults
	// derived lists the options derived from the figures (see
	// OptionImportedDerived).
	derived []string
}

// versionDefaults are the defaults of a tool's version that shape a run's
// figures.
type versionDefaults struct {
	// values are the options the version applies by default.
	values map[string]string
	// unknown are the options whose defaults are unknown for this version
	// (they join "imported-missing"), and warning says why and what to do.
	unknown []string
	warning string
}

// finish completes the i-th run of the log with opts and returns its result.
func (rn *run) finish(name string, i int, opts Options) (*result.Result, error) {
	res := rn.res
	res.Schema = result.SchemaVersion
	res.Tool = result.Tool{Name: string(rn.format), Version: rn.version, Commit: rn.commit}
	missing := append([]string(nil), rn.missing...)
	if res.Tool.Version == "" {
		res.Tool.Version = opts.ToolVersion
		if res.Tool.Version == "" {
			missing = append(missing, "tool-version")
		}
	}
	res.CommandLine = rn.cmd
	res.Machine, res.Server, res.Target = opts.Machine, opts.Server, opts.Target
	res.ServerMachines = slices.Clone(opts.ServerMachines)
	if !reflect.ValueOf(res.Machine).IsZero() && res.Machine.Source == "" {
		res.Machine.Source = result.SourceImport // the user's word, not a fingerprint
	}
	for _, given := range []struct {
		what string
		v    any
	}{{"machine", opts.Machine}, {"server", opts.Server}, {"target", opts.Target}} {
		if reflect.ValueOf(given.v).IsZero() {
			missing = append(missing, given.what)
		}
	}
	if res.Status == "" {
		res.Status = result.StatusComplete
	}

	o := make(map[string]string, len(rn.options)+len(opts.Settings)+8)
	for k, v := range opts.Settings {
		o[k] = v
	}
	for k, v := range rn.options {
		o[k] = v
	}

	if res.Threads == 0 {
		switch len(opts.Threads) {
		case 0:
			return nil, &ParseError{Name: name, Line: rn.line, Msg: fmt.Sprintf("the %s log does not say how many threads this run used: give the thread count (one for all runs, or one per run in order)", rn.format)}
		case 1:
			res.Threads = opts.Threads[0]
		default:
			res.Threads = opts.Threads[i]
		}
	}
	for j := range res.Intervals {
		if res.Intervals[j].Threads == 0 {
			res.Intervals[j].Threads = res.Threads
		}
	}
	o["threads"] = strconv.Itoa(res.Threads)

	workloadFrom := "log"
	if res.Workload == "" {
		switch {
		case opts.Workload != "":
			res.Workload, workloadFrom = opts.Workload, "options"
		case rn.infer != nil && rn.infer(res) != "":
			res.Workload, workloadFrom = rn.infer(res), "query mix"
		case res.Status == result.StatusFailed:
			workloadFrom = "unknown" // a failed run is kept for what it is
		default:
			return nil, &ParseError{Name: name, Line: rn.line, Msg: "the log does not name the workload of this run and its query mix matches no default sysbench OLTP workload: give the workload (e.g. oltp_read_write)"}
		}
	}

	var defaulted, warnings []string
	if rn.defaults != nil {
		d := rn.defaults(res.Tool.Version, o)
		for k, v := range d.values {
			if _, given := o[k]; !given {
				o[k] = v
				defaulted = append(defaulted, k)
			}
		}
		missing = append(missing, d.unknown...)
		if d.warning != "" {
			warnings = append(warnings, fmt.Sprintf("%s:%d: %s", name, rn.line, d.warning))
		}
	}
	sort.Strings(defaulted)
	if len(defaulted) > 0 {
		o[OptionImportedDefaults] = strings.Join(defaulted, ",")
	}
	if len(rn.derived) > 0 {
		o[OptionImportedDerived] = strings.Join(rn.derived, ",")
	}
	res.Warnings = append(res.Warnings, warnings...)

	o[OptionImportedFrom] = name
	o[OptionImportedFormat] = string(rn.format)
	o[OptionImportedLine] = strconv.Itoa(rn.line)
	o[OptionImportedWorkload] = workloadFrom
	if len(missing) > 0 {
		o[OptionImportedMissing] = strings.Join(missing, ",")
	}
	if opts.Label != "" {
		o[OptionLabel] = opts.Label
	}
	res.Options = o
	return res, nil
}

// incomplete handles a run without a complete summary: an error, or with
// KeepIncomplete a failed result.
func incomplete(name string, rn *run, line int, why string, opts Options) (*run, error) {
	if !opts.KeepIncomplete {
		return nil, &ParseError{Name: name, Line: line, Msg: why}
	}
	rn.res.Status = result.StatusFailed
	rn.res.Error = why
	return rn, nil
}

// parseFloat reads a number the tools print; "nan" and "inf" read as 0.
func parseFloat(s string) float64 {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || v != v || v > 1e300 || v < -1e300 {
		return 0
	}
	return v
}

func parseInt(s string) int64 {
	v, _ := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	return v
}

// formatNumber writes v as a user would: no exponent, no trailing zeros.
func formatNumber(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
}
