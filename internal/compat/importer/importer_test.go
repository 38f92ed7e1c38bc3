package importer

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/record/result"
)

// fixture returns the text of testdata files, concatenated.
func fixture(t *testing.T, files ...string) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.Bytes()
}

// importText parses text and round-trips every result through the result file
// encoding, as `fairbench import` writes them and every later command reads them.
func importText(t *testing.T, text []byte, name string, opts Options) []*result.Result {
	t.Helper()
	rs, err := Parse(bytes.NewReader(text), name, opts)
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	out := make([]*result.Result, len(rs))
	for i, r := range rs {
		var b bytes.Buffer
		if err := result.Encode(&b, r); err != nil {
			t.Fatalf("Encode: %v", err)
		}
		d, err := result.Decode(&b)
		if err != nil {
			t.Fatalf("Decode: %v", err)
		}
		checkValid(t, d)
		out[i] = d
	}
	return out
}

// importFiles imports the concatenation of testdata files.
func importFiles(t *testing.T, opts Options, files ...string) []*result.Result {
	t.Helper()
	return importText(t, fixture(t, files...), files[0], opts)
}

// checkValid asserts what every imported result must hold to be a fairbench result.
func checkValid(t *testing.T, r *result.Result) {
	t.Helper()
	if r.Schema != result.SchemaVersion {
		t.Errorf("schema %q, want %q", r.Schema, result.SchemaVersion)
	}
	if r.Tool.Name != "sysbench" && r.Tool.Name != "go-tpc" {
		t.Errorf("tool %q", r.Tool.Name)
	}
	if r.Workload == "" && r.Status != result.StatusFailed {
		t.Error("no workload")
	}
	if r.Threads <= 0 {
		t.Errorf("threads %d", r.Threads)
	}
	if r.Options["threads"] != fmt.Sprint(r.Threads) {
		t.Errorf("options threads %q, threads %d", r.Options["threads"], r.Threads)
	}
	for _, k := range []string{OptionImportedFrom, OptionImportedFormat, OptionImportedLine, OptionImportedWorkload} {
		if r.Options[k] == "" {
			t.Errorf("option %s missing", k)
		}
	}
	for i, iv := range r.Intervals {
		if iv.Threads <= 0 || iv.Seconds <= 0 || iv.At <= 0 {
			t.Errorf("interval %d: %+v", i, iv)
		}
		if len(iv.KindEvents) > 0 && len(iv.KindEvents) != len(r.Kinds) {
			t.Errorf("interval %d: %d kind counts for %d kinds", i, len(iv.KindEvents), len(r.Kinds))
		}
	}
	if len(r.Totals.Kinds) > 0 && len(r.Totals.Kinds) != len(r.Kinds) {
		t.Errorf("%d kind phases for %d kinds", len(r.Totals.Kinds), len(r.Kinds))
	}
}

// f2 prints v as the logs print it with two decimals.
func f2(v float64) string { return fmt.Sprintf("%.2f", v) }

// f1 prints v with go-tpc's one decimal.
func f1(v float64) string { return fmt.Sprintf("%.1f", v) }

func missing(r *result.Result) map[string]bool {
	m := map[string]bool{}
	for _, s := range strings.Split(r.Options[OptionImportedMissing], ",") {
		m[s] = true
	}
	return m
}

func TestDetect(t *testing.T) {
	cases := []struct {
		file string
		want Format
	}{
		{"sysbench-1.0.20-oltp_read_write-t2.log", FormatSysbench},
		{"sysbench-1.0.20-prepare.log", FormatSysbench},
		{"sysbench-1.0.20-fatal.log", FormatSysbench},
		{"go-tpc-1.0.12-run-t2.log", FormatGoTPC},
		{"go-tpc-1.0.8-seed003.log", FormatGoTPC},
		{"go-tpc-1.0.12-run-table.log", FormatGoTPC},
	}
	for _, c := range cases {
		if got := Detect(fixture(t, c.file)); got != c.want {
			t.Errorf("Detect(%s) = %q, want %q", c.file, got, c.want)
		}
	}
	for _, text := range []string{"", "hello\nworld\n", `{"schema": "1.1"}`} {
		if got := Detect([]byte(text)); got != FormatAuto {
			t.Errorf("Detect(%q) = %q, want none", text, got)
		}
	}
	// A log of both tools: the first run decides.
	if got := Detect(fixture(t, "go-tpc-1.0.12-run-t2.log", "sysbench-1.0.20-oltp_read_write-t2.log")); got != FormatGoTPC {
		t.Errorf("Detect(go-tpc + sysbench) = %q", got)
	}
}

func TestParseFormat(t *testing.T) {
	cases := map[string]Format{"": FormatAuto, "auto": FormatAuto, "sysbench": FormatSysbench,
		"SysBench": FormatSysbench, "go-tpc": FormatGoTPC, "gotpc": FormatGoTPC, "tiup-bench": FormatGoTPC}
	for in, want := range cases {
		got, err := ParseFormat(in)
		if err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseFormat("hammerdb"); err == nil || !strings.Contains(err.Error(), "use sysbench, go-tpc or auto") {
		t.Errorf("ParseFormat(hammerdb) error = %v", err)
	}
}

func TestOptionsAreRecorded(t *testing.T) {
	opts := Options{
		Machine:     result.Machine{Arch: "arm64", CPUModel: "Neoverse-N1", LogicalCPUs: 8, MaxMHz: 2500, MemoryBytes: 16 << 30},
		Server:      result.Server{Flavor: "TiDB", Version: "v4.0.10"},
		Target:      result.Target{Driver: "mysql", Hosts: []string{"tidb"}, Ports: []int{4000}},
		Label:       "EKS arm64",
		ToolVersion: "1.0.8",
		Threads:     []int{150},
		Settings:    map[string]string{"warehouses": "10", "threads": "99"},
	}
	r := importFiles(t, opts, "go-tpc-1.0.8-seed003.log")[0]
	if r.Machine.CPUModel != "Neoverse-N1" || r.Machine.MaxMHz != 2500 || r.Server.Flavor != "TiDB" || r.Target.Ports[0] != 4000 {
		t.Errorf("machine/server/target not recorded: %+v %+v %+v", r.Machine, r.Server, r.Target)
	}
	if r.Tool.Version != "1.0.8" {
		t.Errorf("tool version %q", r.Tool.Version)
	}
	if r.Options[OptionLabel] != "EKS arm64" || r.Options["warehouses"] != "10" {
		t.Errorf("options %v", r.Options)
	}
	if r.Threads != 150 || r.Options["threads"] != "150" {
		t.Errorf("threads %d, option %q: the thread count wins over a setting", r.Threads, r.Options["threads"])
	}
	m := missing(r)
	for _, k := range []string{"machine", "server", "target", "tool-version"} {
		if m[k] {
			t.Errorf("%s listed as missing although given: %s", k, r.Options[OptionImportedMissing])
		}
	}
	if !m["start-end"] || !m["histogram"] {
		t.Errorf("missing %q", r.Options[OptionImportedMissing])
	}
}

func TestMixedLog(t *testing.T) {
	text := fixture(t, "sysbench-1.0.20-oltp_read_write-t2.log", "go-tpc-1.0.12-run-t2.log")
	rs := importText(t, text, "mixed.log", Options{Threads: []int{2}})
	if len(rs) != 2 || rs[0].Tool.Name != "sysbench" || rs[1].Tool.Name != "go-tpc" {
		t.Fatalf("got %d results: %v", len(rs), toolNames(rs))
	}
	// A format given reads only that tool's runs.
	rs = importText(t, text, "mixed.log", Options{Format: FormatGoTPC, Threads: []int{2}})
	if len(rs) != 1 || rs[0].Tool.Name != "go-tpc" {
		t.Fatalf("with go-tpc format: %v", toolNames(rs))
	}
}

func toolNames(rs []*result.Result) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Tool.Name+"/"+r.Workload)
	}
	return out
}

func TestBadInput(t *testing.T) {
	rw := string(fixture(t, "sysbench-1.0.20-oltp_read_write-t2.log"))
	gt := string(fixture(t, "go-tpc-1.0.12-run-t2.log"))
	cut := func(text, before string) string { return text[:strings.Index(text, before)] }
	lineOf := func(text, s string) int { return strings.Count(text[:strings.Index(text, s)], "\n") + 1 }

	cases := []struct {
		name, text string
		opts       Options
		notLog     bool
		line       int      // the line the error names (0: none)
		want       []string // in the message
	}{
		{name: "empty.log", text: "", want: []string{"empty.log: the log is empty"}},
		{name: "blank.log", text: "\n  \n", want: []string{"blank.log: the log is empty"}},
		{name: "binary.log", text: "\x00\x01ELF", notLog: true, want: []string{"binary.log:", "binary"}},
		{name: "notes.txt", text: "we ran sysbench yesterday\nit was fast\n", notLog: true,
			want: []string{"notes.txt:", "found no sysbench report", "go-tpc"}},
		{name: "r.json", text: `{"schema": "1.1", "tool": {"name": "fairbench"}}`, notLog: true,
			want: []string{"r.json:", "already", "fairbench result"}},
		{name: "prepare.log", text: string(fixture(t, "sysbench-1.0.20-prepare.log")), notLog: true,
			want: []string{"prepare.log:", "found no sysbench run"}},
		{name: "cut-latency.log", text: cut(rw, "         max:"), line: lineOf(rw, "SQL statistics:"),
			want: []string{"cut-latency.log:", "is cut", `"max:"`, `"sum:"`, "the log ends at line"}},
		{name: "cut-intervals.log", text: cut(rw, "SQL statistics:"), line: 1,
			want: []string{"cut-intervals.log:1:", "has no summary", "the log ends"}},
		{name: "cut-then-run.log", text: cut(rw, "General statistics:") + rw, line: lineOf(rw, "SQL statistics:"),
			want: []string{"is cut", `"total time:"`, "a new sysbench output begins at line"}},
		{name: "fatal.log", text: string(fixture(t, "sysbench-1.0.20-fatal.log")), line: 1,
			want: []string{"fatal.log:1:", "FATAL", "1146", "doesn't exist"}},
		{name: "old.log", text: "sysbench 0.5:  multi-threaded system evaluation benchmark\n", line: 1,
			want: []string{"old.log:1:", "sysbench 0.5 logs are not supported"}},
		{name: "gotpc-no-tpmc.log", text: cut(gt, "tpmC:"), opts: Options{Threads: []int{2}}, line: 2,
			want: []string{"gotpc-no-tpmc.log:2:", "[Summary]", "tpmC", "cut"}},
		{name: "gotpc-no-summary.log", text: cut(gt, "Finished"), opts: Options{Threads: []int{2}}, line: 2,
			want: []string{"gotpc-no-summary.log:2:", "no [Summary] lines"}},
		{name: "gotpc-table.log", text: string(fixture(t, "go-tpc-1.0.12-run-table.log")), notLog: true,
			want: []string{"--output plain"}},
		{name: "gotpc-threads.log", text: gt, line: 2,
			want: []string{"gotpc-threads.log:2:", "does not say how many threads", "give the thread count"}},
		{name: "threads-count.log", text: gt + gt, opts: Options{Threads: []int{1, 2, 4}},
			want: []string{"3 thread counts given but the log holds 2 runs"}},
		{name: "wrong-format.log", text: gt, opts: Options{Format: FormatSysbench}, notLog: true,
			want: []string{"found no sysbench run"}},
		{name: "odd-mix.log", text: strings.Replace(rw, "write:                           15105", "write:                           30105", 1), line: 1,
			want: []string{"does not name the workload", "give the workload"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(c.text), c.name, c.opts)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if errors.Is(err, ErrNotLog) != c.notLog {
				t.Errorf("errors.Is(ErrNotLog) = %v, want %v: %v", !c.notLog, c.notLog, err)
			}
			var pe *ParseError
			if c.line > 0 {
				if !errors.As(err, &pe) || pe.Line != c.line || pe.Name != c.name {
					t.Errorf("error %v: want a ParseError at %s:%d", err, c.name, c.line)
				}
			}
		})
	}
}

func TestBadThreadOption(t *testing.T) {
	_, err := Parse(strings.NewReader("x"), "x.log", Options{Threads: []int{0}})
	if err == nil || !strings.Contains(err.Error(), "1 or more") {
		t.Errorf("error %v", err)
	}
}

func TestParseFile(t *testing.T) {
	rs, err := ParseFile(filepath.Join("testdata", "sysbench-1.0.20-oltp_point_select-t4.log"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || rs[0].Options[OptionImportedFrom] != "sysbench-1.0.20-oltp_point_select-t4.log" {
		t.Errorf("results %v", rs)
	}
	if _, err := ParseFile(filepath.Join(t.TempDir(), "nope.log"), Options{}); err == nil || !strings.Contains(err.Error(), "nope.log") {
		t.Errorf("missing file: %v", err)
	}
}
