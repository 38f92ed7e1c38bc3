package analysis

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/record/result"
)

// Run options that shape what a run measures. Two runs that differ in one of
// them do not measure the same thing even on the same workload, data set,
// distribution and profile: an open-loop run at --rate 5000 is not a round of
// a closed-loop run, and oltp_read_write with --point-selects 1 is another
// transaction. Such runs are filed under different keys (Key.Options), so
// that one system's are never pooled as rounds of one row and the systems'
// differ like a data set does (see match.go).
//
// shapingOptions is the one list of them, per workload family. The names are
// the run command's flags (and the tools' of the same name: the OLTP options
// are sysbench's, with sysbench's defaults); def is the value every run
// without the option had: fairbench's default, which is the tool's. Options
// of one client or of the report only (--report-interval, --percentile,
// --metrics-addr, --client-id, --rand-seed, --time, --warmup-time…) and
// options of the data set (--tables, --table-size, --warehouses: Key.Data)
// are not in it. TestShapingOptionsAreTheWorkloadsFlags checks every entry
// against the flags the workloads register.
var shapingOptions = []shapingOption{
	// Every workload.
	{name: "rate", def: "0", norm: normNumber, loggedBy: "sysbench"},
	{name: "db-ps-mode", def: "auto", norm: normPSMode},
	{name: "latency-limit", def: "0", norm: normNumber, fairbenchOnly: true},
	{name: "connect-per-event", def: "off", norm: normBool, fairbenchOnly: true},
	// The statements of an OLTP event (oltp/specs.go planFor; sysbench's
	// oltp_common.lua), for the workloads that run them.
	{name: "point-selects", def: "10", norm: normNumber, workloads: oltpReads},
	{name: "range-selects", def: "on", norm: normBool, workloads: oltpReads},
	{name: "simple-ranges", def: "1", norm: normNumber, workloads: oltpReads},
	{name: "sum-ranges", def: "1", norm: normNumber, workloads: oltpReads},
	{name: "order-ranges", def: "1", norm: normNumber, workloads: oltpReads},
	{name: "distinct-ranges", def: "1", norm: normNumber, workloads: oltpReads},
	{name: "range-size", def: "100", norm: normNumber, workloads: oltpReads},
	{name: "index-updates", def: "1", norm: normNumber, workloads: []string{"oltp_read_write", "oltp_write_only", "oltp_update_index"}},
	{name: "non-index-updates", def: "1", norm: normNumber, workloads: []string{"oltp_read_write", "oltp_write_only", "oltp_update_non_index"}},
	{name: "delete-inserts", def: "1", norm: normNumber, workloads: []string{"oltp_read_write", "oltp_write_only"}},
	{name: "skip-trx", def: "off", norm: normBool, workloads: []string{"oltp_read_only", "oltp_read_write", "oltp_write_only"}},
	{name: "auto-inc", def: "on", norm: normBool, workloads: []string{"oltp_insert"}},
	// The parameters of the distribution in Key.RandType, for the OLTP
	// workloads (tpcc draws by the spec).
	{name: "rand-zipfian-exp", def: "0.8", norm: normNumber, workloads: oltpAll, randTypes: []string{"zipfian"}},
	{name: "rand-pareto-h", def: "0.2", norm: normNumber, workloads: oltpAll, randTypes: []string{"pareto"}},
	{name: "rand-spec-iter", def: "12", norm: normNumber, workloads: oltpAll, randTypes: []string{"special", "gaussian"}},
	{name: "rand-spec-pct", def: "1", norm: normNumber, workloads: oltpAll, randTypes: []string{"special"}},
	{name: "rand-spec-res", def: "75", norm: normNumber, workloads: oltpAll, randTypes: []string{"special"}},
	// TPC-C: keying and think times, and the transaction mix.
	{name: "wait", def: "off", norm: normBool, workloads: []string{"tpcc"}},
	{name: "mix", def: "45:43:4:4:4", norm: normMix, workloads: []string{"tpcc"}},
	// pgbench's scripts (their text and weights are Key.Options' scripts=…
	// item): the variables given to them, retries and how statements are
	// sent (pgbench -M; "" follows db-ps-mode).
	{name: "define", def: "[]", norm: strings.TrimSpace, workloads: pgbenchAll},
	{name: "max-tries", def: "1", norm: normNumber, workloads: pgbenchAll},
	{name: "query-mode", def: "", norm: strings.TrimSpace, workloads: pgbenchAll},
}

var (
	oltpReads  = []string{"oltp_read_only", "oltp_read_write"}
	pgbenchAll = []string{"pgbench", "pgbench-tpcb-like", "pgbench-simple-update", "pgbench-select-only"}
	oltpAll    = []string{"oltp_point_select", "oltp_read_only", "oltp_read_write", "oltp_write_only",
		"oltp_update_index", "oltp_update_non_index", "oltp_insert", "oltp_delete"}
)

// UnknownOptions is the item of Key.Options of a result that does not say
// the shaping options it ran with: a log imported without its command line.
const UnknownOptions = "options-unknown"

// shapingOption is one entry of shapingOptions.
type shapingOption struct {
	name string
	def  string
	// norm gives a value's canonical form ("on" for "true", "5000" for
	// "5000.0"), so that spellings of one value match.
	norm func(string) string
	// workloads are the workloads the option applies to; nil: every one.
	workloads []string
	// randTypes are the distributions the option applies to; nil: every one.
	randTypes []string
	// loggedBy names the imported log format that prints the option whenever
	// it is not the default (sysbench prints "Target transaction rate"), so
	// that such a log without it ran the default.
	loggedBy string
	// fairbenchOnly marks an option the tools whose logs are imported do not
	// have (--latency-limit): a log ran without it, at the default.
	fairbenchOnly bool
}

func (o shapingOption) applies(workload, randType string) bool {
	return (o.workloads == nil || slices.Contains(o.workloads, workload)) &&
		(o.randTypes == nil || slices.Contains(o.randTypes, randType))
}

// shapeOf is Key.Options of a result: "name=value" for every shaping option
// of its workload whose value is not the default, in shapingOptions order and
// separated by spaces, and UnknownOptions last when the result does not say
// some of them ("" for a run with the defaults).
//
// A run of fairbench records every option; an imported log records what it
// shows and its echoed command line, on which an option left out had the
// tool's default. An imported log without its command line does not say the
// options it did not print (give them to import with --set NAME=VALUE).
func shapeOf(res *result.Result, randType string) string {
	format := res.Options["imported-format"]
	var items []string
	unknown := false
	for _, o := range shapingOptions {
		if !o.applies(res.Workload, randType) {
			continue
		}
		v, ok := res.Options[o.name]
		switch {
		case ok && strings.TrimSpace(v) != "":
		case o.name == "rate" && res.Rate > 0:
			v = strconv.FormatFloat(res.Rate, 'f', -1, 64)
		case o.name == "db-ps-mode" && res.Target.PSMode != "":
			v = res.Target.PSMode
		case defaultsApply(res) || o.loggedBy == format || o.fairbenchOnly:
			v = o.def
		default:
			unknown = true
			continue
		}
		if v = o.norm(v); v != o.norm(o.def) {
			items = append(items, o.name+"="+v)
		}
	}
	if k := result.ScriptsKey(res.Scripts); k != "" {
		// The scripts a scripted workload ran: name, weight and text hash.
		items = append(items, "scripts="+k)
	}
	if res.Target.TransportOf() == result.TransportSocket { // TCP, the usual way, is left unsaid
		items = append(items, "transport="+result.TransportSocket)
	}
	items = append(items, sessionItems(res)...)
	if unknown {
		items = append(items, UnknownOptions)
	}
	return strings.Join(items, " ")
}

// defaultsApply reports whether an option a result does not record had its
// default: always for a run of fairbench (it records every option), for an
// imported log only when the log echoed the command line (an option left off
// it had the tool's default).
func defaultsApply(res *result.Result) bool {
	_, imported := res.Options["imported-format"]
	return !imported || len(res.CommandLine) > 0
}

// sessionItems are the Key.Options items of how the run's connections were
// set up, each of which changes the figures: the transaction isolation level
// (--isolation-level, as the server read it back, else as asked), each
// session variable (--session-var, "var:NAME=VALUE" with the value the server
// reported), MySQL protocol compression (--mysql-compression) and the TLS 1.2
// cipher list (--mysql-ssl-cipher). What was not set — the server's
// default, and everything in results written before they were recorded — is
// left unsaid, as the defaults of shapingOptions are.
func sessionItems(res *result.Result) []string {
	var items []string
	t := res.Target
	iso := res.Options["isolation-level"]
	if t.Session != nil && t.Session.Isolation != "" {
		iso = t.Session.Isolation
	}
	if iso = normIsolation(iso); iso != "" {
		items = append(items, "isolation="+iso)
	}
	if t.Session != nil {
		for _, name := range slices.Sorted(maps.Keys(t.Session.Variables)) {
			items = append(items, varPrefix+strings.ToLower(name)+"="+itemValue(t.Session.Variables[name]))
		}
	}
	if t.Compression {
		items = append(items, "compression=on")
	}
	if t.SSLCipher != "" {
		items = append(items, "ssl-cipher="+normCiphers(t.SSLCipher))
	}
	return items
}

// varPrefix starts the Key.Options item of a session variable.
const varPrefix = "var:"

// normIsolation writes an isolation level as --isolation-level does
// (driver.ParseIsolation: "read-committed" for MySQL's "READ-COMMITTED" and
// PostgreSQL's "read committed"); "" for none, and a level it does not know
// as the server wrote it.
func normIsolation(s string) string {
	if level, err := driver.ParseIsolation(s); err == nil {
		return level
	}
	return itemValue(strings.ToLower(s))
}

// normCiphers writes a cipher list in one order and case, so that spellings
// of one list match.
func normCiphers(s string) string {
	list := strings.FieldsFunc(strings.ToUpper(s), func(r rune) bool { return r == ':' || r == ',' || r == ' ' })
	slices.Sort(list)
	return strings.Join(slices.Compact(list), ":")
}

// itemValue keeps a value within one Key.Options item: items are separated
// by spaces and systems' sets by ", ", so white space becomes "_".
func itemValue(v string) string {
	if v == "" {
		return "''"
	}
	return strings.Join(strings.Fields(v), "_")
}

// optionDefault is the default of shaping option name as describeOptions
// names it for a system that did not set it.
func optionDefault(name string) string {
	for _, o := range shapingOptions {
		if o.name == name {
			return o.norm(o.def)
		}
	}
	switch {
	case name == "transport":
		return result.TransportTCP
	case name == "compression":
		return "off"
	case name == "ssl-cipher":
		return "default"
	case name == "isolation", strings.HasPrefix(name, varPrefix):
		return "server-default"
	}
	return ""
}

// describeOptions says what each system's Key.Options values are, option by
// option: each option set by any of them is named with every system's value
// ("rate=0" for a system that ran the default), so that a refusal names the
// option and both values. vals are the systems' values as match gathers them
// (comma-separated when a system ran several).
func describeOptions(vals []SystemValue) []SystemValue {
	var names []string
	for _, sv := range vals {
		for _, set := range strings.Split(sv.Value, ", ") {
			for _, item := range strings.Fields(set) {
				if n, _, ok := strings.Cut(item, "="); ok && !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
		}
	}
	out := make([]SystemValue, len(vals))
	for i, sv := range vals {
		var sets []string
		for _, set := range strings.Split(sv.Value, ", ") {
			own := map[string]string{}
			unknown := false
			for _, item := range strings.Fields(set) {
				if n, v, ok := strings.Cut(item, "="); ok {
					own[n] = v
				} else if item == UnknownOptions {
					unknown = true
				}
			}
			var parts []string
			for _, n := range names {
				v, ok := own[n]
				if !ok {
					v = optionDefault(n)
				}
				parts = append(parts, n+"="+v)
			}
			if unknown {
				parts = append(parts, "others unknown (an imported log without its command line: give them with import --set NAME=VALUE)")
			}
			if len(parts) == 0 {
				parts = []string{"the defaults"}
			}
			sets = append(sets, strings.Join(parts, " "))
		}
		out[i] = SystemValue{System: sv.System, Value: strings.Join(sets, ", ")}
	}
	return out
}

// normNumber writes a number without trailing zeros ("5000" for "5000.0").
func normNumber(s string) string {
	s = strings.TrimSpace(s)
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strings.ToLower(s)
}

// normBool writes a sysbench or Go boolean as on or off.
func normBool(s string) string {
	switch s = strings.ToLower(strings.TrimSpace(s)); s {
	case "on", "yes", "true", "1", "t":
		return "on"
	case "off", "no", "false", "0", "f":
		return "off"
	}
	return s
}

// normPSMode writes a statement mode as --db-ps-mode does: auto (prepared
// statements, also recorded as "prepared") or disable.
func normPSMode(s string) string {
	switch s = strings.ToLower(strings.TrimSpace(s)); s {
	case "auto", "prepared":
		return "auto"
	}
	return s
}

// normMix writes a TPC-C mix with colons ("45:43:4:4:4"), however its weights
// were separated (the run command takes commas or slashes), so that it reads
// alike in row labels and section titles.
func normMix(s string) string {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '/' || r == ':' })
	for i, f := range fields {
		fields[i] = normNumber(f)
	}
	return strings.Join(fields, ":")
}
