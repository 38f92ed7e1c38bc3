package analysis

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/record/suitedir"
)

// writeSuite writes a suite directory as 'fairbench suite run' leaves it: a
// result file per finished cell and the manifest. Cells of round 2 at 16
// threads did not complete: one failed (its result file is kept), one is
// still pending.
func writeSuite(t *testing.T, dir string) {
	t.Helper()
	m := suitedir.Manifest{Schema: suitedir.ManifestSchema, Tool: result.Tool{Name: "fairbench", Version: "test"},
		Plan: suitedir.PlanRecord{Name: "arm-vs-x86"}, Status: suitedir.StatusInterrupted, Machine: n1Machine}
	index := 0
	for round := 1; round <= 2; round++ {
		for _, wl := range []string{"oltp_point_select", "oltp_read_write"} {
			for _, threads := range []int{1, 16} {
				index++
				cell := suitedir.Cell{Index: index, Profile: "cpu-bound", Dataset: 0, Data: "8x50000", Workload: wl, RandType: "zipfian",
					Threads: threads, Round: round}
				cell.ID = fmt.Sprintf("cpu-bound/zipfian/r%d/%s/t%d", round, wl, threads)
				rec := suitedir.CellRecord{Cell: cell, Status: suitedir.StatusComplete}
				status := result.StatusComplete
				switch {
				case round == 2 && threads == 16 && wl == "oltp_point_select":
					rec.Status, status = suitedir.StatusFailed, result.StatusFailed
				case round == 2 && threads == 16:
					rec.Status = suitedir.StatusPending
				}
				if rec.Status != suitedir.StatusPending {
					rec.File = fmt.Sprintf("%04d-%s.json", index, strings.ReplaceAll(cell.ID, "/", "-"))
					// The result's own options say 4x100000 (the plan's
					// defaults): the manifest's cell is what counts.
					res := fakeRun{machine: n1Machine, server: mariadb, workload: wl, threads: threads, status: status,
						tps: float64(100*threads + round), qps: float64(2000*threads + round), p95: 1.5, p99: 2.5,
						suite: &result.SuiteCell{Plan: "arm-vs-x86", Cell: cell.ID, Index: index, Round: round, Profile: "cpu-bound"}}.build()
					if err := result.Write(filepath.Join(dir, rec.File), res); err != nil {
						t.Fatal(err)
					}
				}
				m.Cells = append(m.Cells, rec)
			}
		}
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, suitedir.ManifestName), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadSuiteDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "graviton2")
	writeSuite(t, dir)
	sys, err := Load(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(sys.Samples) != 6 || sys.Skipped != 2 || !reflect.DeepEqual(sys.SkippedByStatus, map[string]int{"failed": 1, "pending": 1}) {
		t.Fatalf("samples %d, skipped %d %v; want 6 samples, 2 skipped (1 failed, 1 pending)", len(sys.Samples), sys.Skipped, sys.SkippedByStatus)
	}
	if want := "skipped 2 of 8 runs that did not complete (1 failed, 1 pending)"; !slices.Contains(sys.Notes, want) {
		t.Errorf("notes %q lack %q", sys.Notes, want)
	}
	if sys.Label != "arm64 Neoverse-N1 ×4" || !sys.LabelDerived || sys.Name != "graviton2" || sys.Source != dir {
		t.Errorf("label %q (derived %v), name %q, source %q", sys.Label, sys.LabelDerived, sys.Name, sys.Source)
	}
	if sys.GHz != 2.5 || sys.GHzSource != "machine (loopback target): cpufreq max" || sys.VCPUs != 4 || sys.ComputePower() != 10 {
		t.Errorf("GHz %v (%s), vCPUs %d, compute power %v; want 2.5 (cpufreq max), 4, 10", sys.GHz, sys.GHzSource, sys.VCPUs, sys.ComputePower())
	}
	if sys.Server.Flavor != "MariaDB" || sys.Machine.Hostname != "bench1" {
		t.Errorf("server %+v machine %+v", sys.Server, sys.Machine)
	}
	// The key comes from the manifest's cell: its data set label, not the
	// result's options.
	k := Key{Workload: "oltp_read_write", RandType: "zipfian", Profile: "cpu-bound", Data: "8x50000", Threads: 1}
	if got := sys.Values(k, MetricTPS); !reflect.DeepEqual(got, []float64{101, 102}) {
		t.Errorf("tps of %s = %v, want [101 102]", k, got)
	}
	if got := sys.Values(k, LatencyMetric("99")); !reflect.DeepEqual(got, []float64{2.5, 2.5}) {
		t.Errorf("p99 of %s = %v, want [2.5 2.5]", k, got)
	}
	var rounds []int
	for _, s := range sys.Samples {
		if s.Key == k {
			rounds = append(rounds, s.Round)
			if !strings.HasPrefix(s.File, dir) {
				t.Errorf("sample file %q is not in the suite directory", s.File)
			}
		}
	}
	if !reflect.DeepEqual(rounds, []int{1, 2}) {
		t.Errorf("rounds %v, want [1 2]", rounds)
	}
	if keys := sys.Keys(); len(keys) != 4 || keys[0].Workload != "oltp_point_select" || keys[0].Threads != 1 {
		t.Errorf("keys %v, want 4 sorted keys", keys)
	}
}

func TestLoadSingleResultFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x86-run.json")
	if err := result.Write(path, fakeRun{machine: x86Machine, server: mysql8, threads: 8, tps: 920, qps: 18400}.build()); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		label, want string
		derived     bool
	}{{"", "amd64 Intel Xeon Gold 6266C ×24", true}, {"x86", "x86", false}} {
		sys, err := Load(path, tt.label)
		if err != nil {
			t.Fatal(err)
		}
		if sys.Label != tt.want || sys.LabelDerived != tt.derived || sys.Name != "x86-run" {
			t.Errorf("label %q (derived %v), name %q; want %q (%v), x86-run", sys.Label, sys.LabelDerived, sys.Name, tt.want, tt.derived)
		}
		want := Sample{Key: Key{Workload: "oltp_read_write", RandType: "uniform", Data: "4x100000", Threads: 8},
			Round: 1, TPS: 920, QPS: 18400, File: path}
		if len(sys.Samples) != 1 || !reflect.DeepEqual(sys.Samples[0], want) {
			t.Errorf("samples %+v, want [%+v]", sys.Samples, want)
		}
		// The nominal frequency in the model name wins over cpufreq's turbo
		// maximum, as the seeds scale by 3.0 GHz for this CPU.
		if sys.GHz != 3 || sys.GHzSource != "machine (loopback target): cpu model" || sys.VCPUs != 24 {
			t.Errorf("GHz %v (%s), vCPUs %d; want 3 (cpu model), 24", sys.GHz, sys.GHzSource, sys.VCPUs)
		}
	}
}

func TestLoadResultDirectoryWithoutManifest(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, r fakeRun) {
		t.Helper()
		if err := result.Write(filepath.Join(dir, name), r.build()); err != nil {
			t.Fatal(err)
		}
	}
	base := fakeRun{machine: n1Machine, server: mariadb, workload: "tpcc", threads: 4, warehouses: 10, tpmC: 5000}
	r1, r2, r3, bad := base, base, base, base
	r2.tpmC, r3.threads, bad.status = 5100, 8, result.StatusInterrupted
	write("a.json", r1)
	write("b.json", r2)
	write("c.json", r3)
	write("d.json", bad)
	if err := os.WriteFile(filepath.Join(dir, "prices.json"), []byte(`{"x86": 1.2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".a.json.tmp-123"), []byte(`garbage`), 0o644); err != nil {
		t.Fatal(err)
	}
	sys, err := Load(dir, "graviton")
	if err != nil {
		t.Fatal(err)
	}
	if len(sys.Samples) != 3 || sys.Skipped != 1 || sys.SkippedByStatus["interrupted"] != 1 {
		t.Fatalf("samples %d, skipped %d %v; want 3 and 1 interrupted", len(sys.Samples), sys.Skipped, sys.SkippedByStatus)
	}
	if want := "ignored 1 file(s) that are not fairbench results: prices.json"; !slices.Contains(sys.Notes, want) {
		t.Errorf("notes %q lack %q", sys.Notes, want)
	}
	k := Key{Workload: "tpcc", RandType: "uniform", Data: "w10", Threads: 4}
	if got := sys.Values(k, MetricTpmC); !reflect.DeepEqual(got, []float64{5000, 5100}) {
		t.Errorf("tpmC of %s = %v, want [5000 5100] (keys %v)", k, got, sys.Keys())
	}
	var rounds []int
	for _, s := range sys.Samples {
		rounds = append(rounds, s.Round)
	}
	if !reflect.DeepEqual(rounds, []int{1, 2, 1}) {
		t.Errorf("rounds %v, want [1 2 1]: files of one key are its rounds in name order", rounds)
	}
}

func TestLoadResultDirectoryRecursively(t *testing.T) {
	root := t.TempDir()
	write := func(rel string, r fakeRun) {
		t.Helper()
		path := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := result.Write(path, r.build()); err != nil {
			t.Fatal(err)
		}
	}
	base := fakeRun{machine: n1Machine, server: mariadb, workload: "tpcc", threads: 4, warehouses: 10, tpmC: 5000}
	w100 := base
	w100.warehouses, w100.tpmC = 100, 9000
	write("w10/run1/result.json", base)
	write("w100/result.json", w100)
	write(".trash/old.json", w100) // hidden: not read
	writeSuite(t, filepath.Join(root, "suites", "cpu-bound"))
	if err := os.WriteFile(filepath.Join(root, "w10", "notes.json"), []byte(`{"a": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	sys, err := Load(root, "arm")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []Key{
		{Workload: "tpcc", RandType: "uniform", Data: "w10", Threads: 4},
		{Workload: "tpcc", RandType: "uniform", Data: "w100", Threads: 4},
		// From the suite's manifest, not its result files' options.
		{Workload: "oltp_read_write", RandType: "zipfian", Profile: "cpu-bound", Data: "8x50000", Threads: 1},
	} {
		if len(sys.Values(k, MetricTPS)) == 0 {
			t.Errorf("no run of %s read from the subdirectories (keys %v)", k, sys.Keys())
		}
	}
	if len(sys.Samples) != 2+6 || sys.Skipped != 2 {
		t.Errorf("%d samples, %d skipped; want 8 (2 results, 6 suite cells) and the suite's 2", len(sys.Samples), sys.Skipped)
	}
	if want := "ignored 1 file(s) that are not fairbench results: " + filepath.Join("w10", "notes.json"); !slices.Contains(sys.Notes, want) {
		t.Errorf("notes %q lack %q", sys.Notes, want)
	}
}

func TestCombine(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for i, tps := range []float64{100, 110, 120} {
		path := filepath.Join(dir, fmt.Sprintf("r%d.json", i))
		if err := result.Write(path, fakeRun{machine: n1Machine, server: mariadb, threads: 4, tps: tps}.build()); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	load := func(p string) *System {
		t.Helper()
		s, err := Load(p, "arm")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	// The directory holds all three files; r1 and r2 also come alone: each
	// file counts once, and the rounds stay distinct.
	sys, err := Combine("arm", []*System{load(paths[1]), load(dir), load(paths[2])})
	if err != nil {
		t.Fatal(err)
	}
	k := Key{Workload: "oltp_read_write", RandType: "uniform", Data: "4x100000", Threads: 4}
	got := sys.Values(k, MetricTPS)
	slices.Sort(got)
	if !reflect.DeepEqual(got, []float64{100, 110, 120}) || sys.Label != "arm" || sys.LabelDerived {
		t.Errorf("combined tps %v label %q (derived %v); want [100 110 120], arm", got, sys.Label, sys.LabelDerived)
	}
	var rounds []int
	for _, s := range sys.Samples {
		rounds = append(rounds, s.Round)
	}
	slices.Sort(rounds)
	if !reflect.DeepEqual(rounds, []int{1, 2, 3}) {
		t.Errorf("rounds %v, want 1, 2, 3", rounds)
	}
	other := filepath.Join(t.TempDir(), "x86.json")
	if err := result.Write(other, fakeRun{machine: x86Machine, server: mariadb, threads: 4, tps: 1}.build()); err != nil {
		t.Fatal(err)
	}
	if _, err := Combine("arm", []*System{load(paths[0]), load(other)}); err == nil || !strings.Contains(err.Error(), "come from two machines") {
		t.Errorf("combining two machines: %v", err)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) string // returns the path to load
		want  []string                              // substrings of the error
	}{{
		name: "results from two machines",
		setup: func(t *testing.T, dir string) string {
			writeResult(t, filepath.Join(dir, "1.json"), fakeRun{machine: n1Machine, server: mariadb, threads: 1, tps: 1})
			writeResult(t, filepath.Join(dir, "2.json"), fakeRun{machine: x86Machine, server: mariadb, threads: 2, tps: 1})
			return dir
		},
		want: []string{"two machines", "bench1 (arm64 Neoverse-N1 ×4)", "1.json", "x86-bench (amd64 Intel Xeon Gold 6266C ×24)", "2.json", "separate operands"},
	}, {
		name: "results from two servers",
		setup: func(t *testing.T, dir string) string {
			writeResult(t, filepath.Join(dir, "1.json"), fakeRun{machine: n1Machine, server: mariadb, threads: 1, tps: 1})
			writeResult(t, filepath.Join(dir, "2.json"), fakeRun{machine: n1Machine, server: mysql8, threads: 2, tps: 1})
			return dir
		},
		want: []string{"two servers", "MariaDB 10.11.6-MariaDB", "MySQL 8.0.19"},
	}, {
		name: "a single incomplete result",
		setup: func(t *testing.T, dir string) string {
			path := filepath.Join(dir, "1.json")
			writeResult(t, path, fakeRun{machine: n1Machine, server: mariadb, threads: 1, status: result.StatusFailed})
			return path
		},
		want: []string{"no complete results (1 failed)", "finish or resume"},
	}, {
		name:  "a directory without results",
		setup: func(t *testing.T, dir string) string { return dir },
		want:  []string{"no fairbench result files", "manifest.json"},
	}, {
		name:  "a missing path",
		setup: func(t *testing.T, dir string) string { return filepath.Join(dir, "nope") },
		want:  []string{"nope", "give a result file, a suite directory or a directory of result files"},
	}, {
		name: "a file that is not a result",
		setup: func(t *testing.T, dir string) string {
			path := filepath.Join(dir, "prices.json")
			if err := os.WriteFile(path, []byte(`{"x86": 1}`), 0o644); err != nil {
				t.Fatal(err)
			}
			return path
		},
		want: []string{"prices.json", "not a fairbench result"},
	}, {
		name: "a negative throughput in a hand-edited result",
		setup: func(t *testing.T, dir string) string {
			writeResult(t, filepath.Join(dir, "1.json"), fakeRun{machine: n1Machine, server: mariadb, threads: 1, tps: 100})
			writeResult(t, filepath.Join(dir, "2.json"), fakeRun{machine: n1Machine, server: mariadb, threads: 1, tps: -5})
			return dir
		},
		want: []string{"2.json", "totals.tps is -5", "edited or damaged"},
	}, {
		name: "a negative latency percentile",
		setup: func(t *testing.T, dir string) string {
			path := filepath.Join(dir, "1.json")
			writeResult(t, path, fakeRun{machine: n1Machine, server: mariadb, threads: 1, tps: 100, p95: -1.1, p99: 3})
			return path
		},
		want: []string{"1.json", "totals.latency.percentiles[95] is -1.1"},
	}, {
		name: "an infinite throughput (JSON cannot hold it: the decoder refuses it)",
		setup: func(t *testing.T, dir string) string {
			path := filepath.Join(dir, "1.json")
			writeResult(t, path, fakeRun{machine: n1Machine, server: mariadb, threads: 1, tps: 100})
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			b = []byte(strings.Replace(string(b), `"tps": 100`, `"tps": 1e999`, 1))
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			return path
		},
		want: []string{"1.json", "1e999"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(tt.setup(t, t.TempDir()), "")
			if err == nil {
				t.Fatal("Load did not fail")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func writeResult(t *testing.T, path string, r fakeRun) {
	t.Helper()
	if err := result.Write(path, r.build()); err != nil {
		t.Fatal(err)
	}
}

func TestFromResults(t *testing.T) {
	suiteRound := fakeRun{machine: n1Machine, server: mariadb, threads: 4, tps: 30, suite: &result.SuiteCell{Round: 3, Profile: "io-bound"}}
	plain := fakeRun{machine: n1Machine, server: mariadb, threads: 4, tps: 10}
	sys, err := FromResults("", []*result.Result{plain.build(), plain.build(), suiteRound.build(), fakeRun{status: result.StatusInterrupted}.build()})
	if err != nil {
		t.Fatal(err)
	}
	if sys.Label != "arm64 Neoverse-N1 ×4" || sys.Skipped != 1 || len(sys.Samples) != 3 {
		t.Fatalf("label %q, skipped %d, samples %d", sys.Label, sys.Skipped, len(sys.Samples))
	}
	var got []string
	for _, s := range sys.Samples {
		got = append(got, fmt.Sprintf("%s r%d", s.Key, s.Round))
	}
	want := []string{"oltp_read_write/uniform/4x100000/t4 r1", "oltp_read_write/uniform/4x100000/t4 r2", "oltp_read_write/uniform/io-bound/4x100000/t4 r3"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("samples %q, want %q", got, want)
	}
	if _, err := FromResults("", []*result.Result{fakeRun{threads: 1}.build()}); err == nil || !strings.Contains(err.Error(), "give a label") {
		t.Errorf("results without a machine and no label: error %v, want one asking for a label", err)
	}
	if _, err := FromResults("x", nil); err == nil {
		t.Error("FromResults without results did not fail")
	}
}

func TestParseGHz(t *testing.T) {
	tests := []struct {
		in   string
		want map[string]float64
		err  string
	}{
		{in: "arm=2.6,x86=3.0", want: map[string]float64{"arm": 2.6, "x86": 3}},
		{in: " arm = 2.6 , x86=3 ", want: map[string]float64{"arm": 2.6, "x86": 3}},
		{in: "", want: map[string]float64{}},
		{in: "arm2.6", err: `"arm2.6": want label=GHz, as in arm=2.6,x86=3.0`},
		{in: "=2.6", err: "the label before = is empty"},
		{in: "arm=", err: "the value after = is empty"},
		{in: "arm=fast", err: `arm: "fast" is not a number of GHz`},
		{in: "arm=0", err: "arm: the frequency must be a number of GHz above 0, not 0"},
		{in: "arm=-1", err: "above 0"},
		{in: "arm=NaN", err: "above 0"},
		{in: "arm=2600", err: "arm: 2600 GHz is not a CPU frequency: give GHz, not MHz (2.6)"},
		{in: "arm=2.6,arm=2.5", err: "arm is given twice"},
		{in: "arm=2.6,,x86=3", err: "empty item"},
	}
	for _, tt := range tests {
		got, err := ParseGHz(tt.in)
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("ParseGHz(%q) error %v, want one containing %q", tt.in, err, tt.err)
		case tt.err == "" && (err != nil || !reflect.DeepEqual(got, tt.want)):
			t.Errorf("ParseGHz(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestParseVCPUs(t *testing.T) {
	got, err := ParseVCPUs("arm=24,x86=64")
	if err != nil || !reflect.DeepEqual(got, map[string]int{"arm": 24, "x86": 64}) {
		t.Errorf("ParseVCPUs = %v, %v", got, err)
	}
	for _, bad := range []string{"arm=2.5", "arm=0", "arm"} {
		if _, err := ParseVCPUs(bad); err == nil {
			t.Errorf("ParseVCPUs(%q) did not fail", bad)
		}
	}
}

func TestApplyOverridesAndLabels(t *testing.T) {
	a := &System{Label: "arm64 Neoverse-N1 ×4", LabelDerived: true, Name: "graviton2", GHz: 2.5, GHzSource: "cpufreq max", VCPUs: 4}
	b := &System{Label: "arm64 Neoverse-N1 ×4", LabelDerived: true, Name: "graviton2-tuned", GHz: 2.5, VCPUs: 4}
	c := &System{Label: "x86", Name: "run1"}
	systems := []*System{a, b, c}
	DisambiguateLabels(systems)
	if a.Label != "graviton2" || b.Label != "graviton2-tuned" || c.Label != "x86" {
		t.Fatalf("labels %q %q %q", a.Label, b.Label, c.Label)
	}
	if err := ApplyGHz(systems, map[string]float64{"GRAVITON2": 2.6, "x86": 3}); err != nil {
		t.Fatal(err)
	}
	if a.GHz != 2.6 || a.GHzSource != "--ghz" || c.GHz != 3 || b.GHz != 2.5 {
		t.Errorf("GHz %v (%s), %v, %v", a.GHz, a.GHzSource, b.GHz, c.GHz)
	}
	if err := ApplyVCPUs(systems, map[string]int{"run1": 24}); err != nil || c.VCPUs != 24 || c.VCPUsSource != "--vcpus" {
		t.Errorf("ApplyVCPUs by file name: %v, vCPUs %d (%s)", err, c.VCPUs, c.VCPUsSource)
	}
	err := ApplyGHz(systems, map[string]float64{"arm": 2.6})
	if err == nil || !strings.Contains(err.Error(), `"arm": no system has that label: the labels are "graviton2", "graviton2-tuned", "x86"`) {
		t.Errorf("unknown label: error %v", err)
	}
	// Labels that stay equal get numbered.
	d := &System{Label: "same"}
	e := &System{Label: "same"}
	DisambiguateLabels([]*System{d, e})
	if d.Label != "same" || e.Label != "same#2" {
		t.Errorf("labels %q %q, want same, same#2", d.Label, e.Label)
	}
}

func TestMachineGHzAndLabel(t *testing.T) {
	tests := []struct {
		name   string
		m      func() (ghz float64, source, label string)
		ghz    float64
		source string
		label  string
	}{
		{"x86 nominal", func() (float64, string, string) {
			g, s := machineGHz(x86Machine, false)
			return g, s, machineLabel(x86Machine)
		}, 3, "cpu model", "amd64 Intel Xeon Gold 6266C ×24"},
		{"arm cpufreq", func() (float64, string, string) {
			g, s := machineGHz(n1Machine, false)
			return g, s, machineLabel(n1Machine)
		}, 2.5, "cpufreq max", "arm64 Neoverse-N1 ×4"},
		{"cpuinfo only", func() (float64, string, string) {
			m := armMachine
			m.MHz = 2600
			g, s := machineGHz(m, false)
			return g, s, machineLabel(m)
		}, 2.6, "cpuinfo MHz", "arm64 TaiShan-v110 ×24"},
		{"nothing known", func() (float64, string, string) {
			g, s := machineGHz(armMachine, false)
			return g, s, machineLabel(result.Machine{})
		}, 0, "", ""},
	}
	for _, tt := range tests {
		g, s, l := tt.m()
		if g != tt.ghz || s != tt.source || l != tt.label {
			t.Errorf("%s: %v %q %q, want %v %q %q", tt.name, g, s, l, tt.ghz, tt.source, tt.label)
		}
	}
}

// A frequency a user gave at import wins over the model name's, and every
// source says where its figure came from; results imported before schema 1.3
// (the flag's value in mhz) read the same.
func TestMachineGHzSources(t *testing.T) {
	imported := func(m result.Machine) result.Machine {
		m.Source = result.SourceImport
		return m
	}
	withGiven := imported(x86Machine)
	withGiven.GivenGHz = 2.6
	legacy := x86Machine // schema 1.2 import: --machine-ghz 2.6 written as mhz
	legacy.MHz = 2600
	for _, tc := range []struct {
		name         string
		m            result.Machine
		legacyImport bool
		ghz          float64
		source       string
		vcpus        int
		vcpusSource  string
	}{
		{"flag beats model name", withGiven, false, 2.6, "import --machine-ghz", 24, "import --machine-vcpus"},
		{"model name given to import", imported(x86Machine), false, 3, "cpu model given to import --cpu-model", 24, "import --machine-vcpus"},
		{"fingerprinted model name", x86Machine, false, 3, "cpu model", 24, "machine"},
		{"pre-1.3 import keeps its flag", legacy, true, 2.6, "import --machine-ghz", 24, "import --machine-vcpus"},
		{"pre-1.3 import without the flag", x86Machine, true, 3, "cpu model given to import --cpu-model", 24, "import --machine-vcpus"},
		{"cpuinfo of a run is cpuinfo", legacy, false, 3, "cpu model", 24, "machine"},
	} {
		g, s := machineGHz(tc.m, tc.legacyImport)
		v, vs := machineVCPUs(tc.m, tc.legacyImport)
		if g != tc.ghz || s != tc.source || v != tc.vcpus || vs != tc.vcpusSource {
			t.Errorf("%s: %v GHz (%s), %d vCPUs (%s); want %v (%s), %d (%s)", tc.name, g, s, v, vs, tc.ghz, tc.source, tc.vcpus, tc.vcpusSource)
		}
	}
}

// Results of one machine imported with two frequencies are refused rather
// than scaled by the first one's.
func TestTwoGivenFrequenciesRefused(t *testing.T) {
	m := x86Machine
	m.Source, m.GivenGHz = result.SourceImport, 2.6
	other := m
	other.GivenGHz = 3.1
	_, err := FromResults("x86", []*result.Result{
		fakeRun{machine: m, threads: 1}.build(), fakeRun{machine: other, threads: 2}.build(),
	})
	if err == nil || !strings.Contains(err.Error(), "2.6 GHz") || !strings.Contains(err.Error(), "3.1 GHz") || !strings.Contains(err.Error(), "--machine-ghz") {
		t.Errorf("error %v: want a refusal naming both frequencies", err)
	}
	sys, err := FromResults("x86", []*result.Result{fakeRun{machine: m, threads: 1}.build(), fakeRun{machine: m, threads: 2}.build()})
	if err != nil || sys.GHz != 2.6 {
		t.Errorf("one frequency: %v, %v GHz", err, sys)
	}
}

// TestSampleOfObserved: a sample keeps the largest other processes' share
// of its result (a merged result's clients' included), its verdict and the
// note that the client shared the server's CPUs; an older result without
// the share is not noisy.
func TestSampleOfObserved(t *testing.T) {
	pct := func(f float64) *float64 { return &f }
	base := result.Result{Workload: "oltp_read_write", Threads: 4, Totals: result.Phase{TPS: 100}}
	old := base
	old.Observed = &result.Observed{Seconds: 10, Bound: result.BoundCPU, Verdict: "CPU-bound: machine CPUs 96% busy, iowait 0%",
		Machine: &result.ObservedMachine{CPUs: 2, BusyPct: 96}}
	noisy := base
	noisy.Observed = &result.Observed{Seconds: 10, Bound: result.BoundCommit, Verdict: "commit-bound (log flushes): 1.00 log flushes per transaction",
		Machine:        &result.ObservedMachine{CPUs: 2, OtherProcessesPct: pct(4)},
		ServerMachines: []result.ObservedServerMachine{{Role: "server", Source: "agent", CPU: &result.ObservedMachine{CPUs: 8, OtherProcessesPct: pct(35)}}}}
	noisy.Notes = []string{"dry run? no", result.SharedCPUsNote + " and used 9% of the machine: pin them apart"}
	merged := base
	merged.MergedFrom = []result.MergedPart{{Observed: &result.Observed{Verdict: "neither: CPUs 30% busy", Machine: &result.ObservedMachine{OtherProcessesPct: pct(3)}}},
		{Observed: &result.Observed{Machine: &result.ObservedMachine{OtherProcessesPct: pct(12.5)}}}}
	for _, tc := range []struct {
		name    string
		res     result.Result
		pct     string
		noisy   bool
		verdict string
		shared  bool
	}{
		{"older result", old, "absent", false, "CPU-bound: machine CPUs 96% busy, iowait 0%", false},
		{"server machine busy", noisy, "35", true, "commit-bound (log flushes): 1.00 log flushes per transaction", true},
		{"merged", merged, "12.5", true, "neither: CPUs 30% busy", false},
	} {
		s := sampleOf(run{res: &tc.res}, 1)
		got := "absent"
		if s.OtherProcessesPct != nil {
			got = fmt.Sprint(*s.OtherProcessesPct)
		}
		if got != tc.pct || s.Noisy() != tc.noisy || s.Verdict != tc.verdict || (s.SharedCPUs != "") != tc.shared {
			t.Errorf("%s: other processes %s, noisy %v, verdict %q, shared %q", tc.name, got, s.Noisy(), s.Verdict, s.SharedCPUs)
		}
	}
}
