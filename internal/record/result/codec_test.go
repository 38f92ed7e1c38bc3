package result

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/fairbench/fairbench/internal/base/outfile/outfiletest"
	"github.com/fairbench/fairbench/internal/testing/golden"
)

// goldenHistogram is the V2 encoding of a histogram (1 µs .. 1 h, 3 digits) holding
// 850, 1200, 1200, 2300 and 15000 µs. It is a literal so that the golden file does
// not depend on the compressor's exact output.
const goldenHistogram = "HISTFAAAADF42pJpmSzMwMDAwwABzFCaEURcm7yEwf4DRGAxL9NOVpaZ/EzLtZkAAQAA//+ejAeF"

// sample returns a fully populated result with fixed values.
func sample() *Result {
	start := time.Date(2024, 3, 1, 12, 0, 10, 0, time.UTC)
	hist := &Histogram{Unit: HistogramUnit, Encoding: HistogramEncoding, Data: goldenHistogram}
	latency := Latency{
		MinMs: 0.85, AvgMs: 4.11, MaxMs: 15.0, SumMs: 20.55,
		Percentiles: map[string]float64{"95": 15.0, "99": 15.0, "99.9": 15.0},
		Histogram:   hist,
	}
	counts := Counters{
		Events: 5, Queries: 90, Reads: 70, Writes: 15, Others: 5, Reconnects: 1,
		Errors: map[string]int64{"1213": 2},
	}
	return &Result{
		Schema:      SchemaVersion,
		Tool:        Tool{Name: "fairbench", Version: "0.1.0", Commit: "abc1234", Go: "go1.26.8"},
		CommandLine: []string{"fairbench", "run", "oltp_read_write", "--threads=2", "--mysql-password=***"},
		Workload:    "oltp_read_write",
		Options:     map[string]string{"tables": "1", "table-size": "10000", "threads": "2", "mysql-password": "***"},
		Seed:        42,
		Target: Target{
			Driver: "mysql", Hosts: []string{"127.0.0.1"}, Ports: []int{3306},
			Database: "sbtest", SSL: "off", PSMode: "prepared",
		},
		Machine: Machine{
			Arch: "arm64", CPUModel: "AWS Graviton2 (ARM Neoverse-N1)", Vendor: "ARM",
			Implementer: "0x41", Part: "0xd0c", Core: "Neoverse-N1",
			SystemVendor: "Amazon EC2", Product: "m6g.xlarge",
			LogicalCPUs: 4, Cores: 4, Sockets: 1, ThreadsPerCore: 1,
			MHz: 0, MaxMHz: 2500, MinMHz: 2500, CurMHz: 2500, BogoMIPS: 243.75,
			Features:    []string{"asimd", "lse", "crc32", "aes", "sha2"},
			MemoryBytes: 16 << 30, Kernel: "6.1.0-18-arm64", OS: "Debian GNU/Linux 12 (bookworm)",
			Hostname: "bench1", Virtualization: "kvm", GoVersion: "go1.26.8",
		},
		Server: Server{
			Flavor: "MariaDB", Version: "10.11.6-MariaDB-0+deb12u1", VersionComment: "Debian 12",
			Variables: map[string]string{"innodb_buffer_pool_size": "134217728", "sync_binlog": "0"},
		},
		ServerMachines: []ServerMachine{{
			Machine: Machine{
				Arch: "arm64", CPUModel: "AWS Graviton2 (ARM Neoverse-N1)", LogicalCPUs: 8, Cores: 8,
				MaxMHz: 2500, MemoryBytes: 32 << 30, CPUList: "0-5",
				InstanceType: "m6g.2xlarge", Region: "us-east-1", Zone: "us-east-1a",
			},
			Role: RoleServer, Source: ServerSourceAgent,
			Agent: "http://10.0.0.5:9901", PID: 812, Process: "mariadbd",
		}},
		Status:  StatusInterrupted,
		Error:   "",
		Start:   start,
		End:     start.Add(20 * time.Second),
		Threads: 2,
		Rate:    100,
		Warmup: &Phase{
			Seconds: 10, Counts: counts, TPS: 0.5, QPS: 9,
			Latency: latency, Service: latency,
			Fairness: Fairness{EventsAvg: 2.5, EventsStddev: 0.5, ExecSecAvg: 9.9, ExecSecStddev: 0.1},
		},
		Totals: Phase{
			Seconds: 20, Counts: counts, TPS: 0.25, QPS: 4.5,
			Latency: latency, Service: latency,
			Fairness: Fairness{EventsAvg: 2.5, EventsStddev: 0.5, ExecSecAvg: 19.9, ExecSecStddev: 0.1},
		},
		Intervals: []Interval{
			{At: 10, Seconds: 10, Warmup: true, Threads: 2, Counts: counts, TPS: 0.5, QPS: 9,
				LatencyMs: map[string]float64{"95": 15.0}, MaxMs: 15.0},
			{At: 20, Seconds: 10, Threads: 2, Counts: counts, TPS: 0.5, QPS: 9,
				LatencyMs: map[string]float64{"95": 2.3}, MaxMs: 2.3, Histogram: hist},
		},
	}
}

func TestGoldenJSON(t *testing.T) {
	var buf bytes.Buffer
	if err := Encode(&buf, sample()); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "result.golden.json"), buf.Bytes())
}

// TestOlderMinorStillLoads reads a file written with schema 1.1 (before the
// interval histograms of 1.2): it loads whole, its intervals without histograms.
func TestOlderMinorStillLoads(t *testing.T) {
	got, err := Read(filepath.Join("testdata", "result-1.1.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := sample()
	want.Schema = "1.1"
	want.ServerMachines = nil // schema 1.4
	for i := range want.Intervals {
		want.Intervals[i].Histogram = nil
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("schema 1.1 file read as\n %+v\nwant\n %+v", got, want)
	}
}

func TestGoldenHistogramHoldsItsValues(t *testing.T) {
	h, err := sample().Totals.Latency.Histogram.Decode()
	if err != nil {
		t.Fatal(err)
	}
	want := hdrhistogram.New(1, 3_600_000_000, 3)
	for _, v := range []int64{850, 1200, 1200, 2300, 15000} {
		if err := want.RecordValue(v); err != nil {
			t.Fatal(err)
		}
	}
	sameCounts(t, h, want)
}

func TestWriteThenReadIsEqual(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "results", "run1")
	path := filepath.Join(dir, "result.json")
	want := sample()
	if err := Write(path, want); err != nil {
		t.Fatal(err)
	}
	// Overwriting replaces the file whole.
	want.Status, want.Error = StatusFailed, "Error 1213: Deadlock found"
	if err := Write(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Read after Write:\n got  %+v\n want %+v", got, want)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "result.json" {
		t.Errorf("directory holds %v, want only result.json (no temporary files)", entries)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o644 {
		t.Errorf("mode = %v, want 0644", info.Mode().Perm())
	}
}

func TestWriteFailsCleanly(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A directory where the result should go: the rename fails.
	target := filepath.Join(dir, "taken")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target, "inside"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(target, sample()); err == nil {
		t.Error("Write over a non-empty directory succeeded")
	}
	if err := Write(filepath.Join(blocker, "r.json"), sample()); err == nil {
		t.Error("Write below a regular file succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("directory holds %d entries after failed writes, want 2 (no temporary files)", len(entries))
	}
}

func TestEncodeFillsSchemaWithoutChangingTheResult(t *testing.T) {
	r := sample()
	r.Schema = ""
	var buf bytes.Buffer
	if err := Encode(&buf, r); err != nil {
		t.Fatal(err)
	}
	if r.Schema != "" {
		t.Error("Encode changed its argument")
	}
	got, err := Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got.Schema != SchemaVersion {
		t.Errorf("Schema = %q, want %q", got.Schema, SchemaVersion)
	}
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name      string
		input     string
		wantErr   string // empty: must succeed
		notResult bool
	}{
		{"newer minor with unknown fields", `{"schema":"1.7","workload":"oltp_insert","future":{"x":1},"totals":{"tps":12.5,"new_metric":3}}`, "", false},
		{"no schema", `{"workload":"oltp_insert"}`, `no "schema" field`, true},
		{"empty schema", `{"schema":""}`, `no "schema" field`, true},
		{"newer major", `{"schema":"2.0","totals":"changed shape"}`, "upgrade fairbench", false},
		{"older major", `{"schema":"0.9"}`, "older than this fairbench", false},
		{"garbage schema", `{"schema":"v-one"}`, "unreadable schema version", true},
		{"not JSON", `sysbench 1.0.20 (using bundled LuaJIT)`, "not a JSON object", true},
		{"JSON array", `[1,2]`, "not a JSON object", true},
		{"wrong field type", `{"schema":"1.0","threads":"many"}`, "decode result", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Decode(strings.NewReader(tt.input))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if r.Workload != "oltp_insert" || r.Totals.TPS != 12.5 {
					t.Errorf("decoded %+v", r)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
			}
			if errors.Is(err, ErrNotResult) != tt.notResult {
				t.Errorf("errors.Is(err, ErrNotResult) = %v, want %v", !tt.notResult, tt.notResult)
			}
		})
	}
}

func TestReadNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notes.json")
	if err := os.WriteFile(path, []byte(`{"hello":"world"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Read(path)
	if err == nil || !strings.Contains(err.Error(), path) || !errors.Is(err, ErrNotResult) {
		t.Errorf("Read error = %v, want ErrNotResult naming %s", err, path)
	}
	if _, err := Read(filepath.Join(t.TempDir(), "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Read of a missing file = %v, want os.ErrNotExist", err)
	}
}

// TestWriteOntoSpecialFiles: a result written onto a symbolic link replaces
// the link's target, onto a FIFO or a character device goes through it in
// place, and onto a directory is refused; the node itself is never replaced
// (the atomic rename once turned /dev/null into a regular file).
func TestWriteOntoSpecialFiles(t *testing.T) {
	for _, tc := range []struct {
		name string
		// make creates the node at path and returns what the test reads back
		// ("" when nothing is to be read).
		make    func(t *testing.T, path string) (read func() string)
		refused string // the error must contain this; "" = written
		mode    os.FileMode
	}{
		{name: "symlink", mode: os.ModeSymlink, make: func(t *testing.T, p string) func() string {
			target := filepath.Join(t.TempDir(), "real.json")
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			return func() string { b, _ := os.ReadFile(target); return string(b) }
		}},
		{name: "FIFO", mode: os.ModeNamedPipe, make: func(t *testing.T, p string) func() string {
			return outfiletest.FIFO(t, p)
		}},
		{name: "character device", mode: os.ModeDevice | os.ModeCharDevice, make: func(t *testing.T, p string) func() string {
			outfiletest.NullDevice(t, p)
			return nil
		}},
		{name: "directory", mode: os.ModeDir, refused: "is a directory", make: func(t *testing.T, p string) func() string {
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "out.json")
			read := tc.make(t, path)
			before, _ := os.Lstat(path)
			err := Write(path, sample())
			switch {
			case tc.refused != "" && (err == nil || !strings.Contains(err.Error(), tc.refused)):
				t.Fatalf("err = %v, want %q", err, tc.refused)
			case tc.refused == "" && err != nil:
				t.Fatal(err)
			}
			after, err := os.Lstat(path)
			if err != nil || after.Mode().Type() != tc.mode.Type() || !os.SameFile(before, after) {
				t.Fatalf("%s was replaced: mode %v (want %v), err %v", path, after.Mode().Type(), tc.mode.Type(), err)
			}
			if read != nil {
				if _, err := Decode(strings.NewReader(read())); err != nil {
					t.Errorf("what went through %s is not the result: %v", tc.name, err)
				}
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("the directory holds %d entries, want only %s", len(entries), tc.name)
			}
		})
	}
}

// TestWriteRemovesStaleTemp: a temporary file a SIGKILLed writer left
// behind is removed the next time that name is written.
func TestWriteRemovesStaleTemp(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, ".out.json.tmp-3141592")
	if err := os.WriteFile(stale, []byte("{\"half"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(filepath.Join(dir, "out.json"), sample()); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "out.json" {
		t.Errorf("the directory holds %v, want only out.json", entries)
	}
}
