package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/compat/importer"
)

// importLog and otherLog are captured sysbench 1.0.20 logs of one run each.
var (
	importLog = filepath.Join("..", "compat", "importer", "testdata", "sysbench-1.0.20-oltp_point_select-t4.log")
	otherLog  = filepath.Join("..", "compat", "importer", "testdata", "sysbench-1.0.20-oltp_read_write-t2.log")
)

// copyLog writes text to dir/name and returns its path; text "" is importLog's
// text, "other" otherLog's.
func copyLog(t *testing.T, dir, name, text string) string {
	t.Helper()
	if text == "" || text == "other" {
		from := importLog
		if text == "other" {
			from = otherLog
		}
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		text = string(b)
	}
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// dirFiles lists the names in dir (none when it does not exist).
func dirFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// Two logs of one name in one import get results of distinct names; before,
// the first was written and the second refused with "exists".
func TestImportLogsOfOneName(t *testing.T) {
	ctx := context.Background()
	src := t.TempDir()
	a := copyLog(t, src, "a/run.log", "")
	b := copyLog(t, src, "b/run.log", "other")
	out := filepath.Join(t.TempDir(), "out")
	r := runCLI(ctx, nil, "import", a, b, "--out", out)
	if r.code != ExitOK || !strings.Contains(r.stdout, "Imported 2 runs") {
		t.Fatalf("import a/run.log b/run.log: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if got := strings.Join(dirFiles(t, out), " "); got != "a_run-1.json b_run-1.json" {
		t.Errorf("--out holds %s, want a_run-1.json b_run-1.json", got)
	}
	if !strings.Contains(r.stdout, "another log is also named run") {
		t.Errorf("the output does not say why the names are longer:\n%s", r.stdout)
	}
	for _, f := range []string{"a_run-1.json", "b_run-1.json"} {
		if res := readResult(t, filepath.Join(out, f)); res.Options[importer.OptionImportedFrom] != "run.log" {
			t.Errorf("%s imported from %q", f, res.Options[importer.OptionImportedFrom])
		}
	}
}

// Whatever is wrong is found before anything is written, and the message says
// what happened: nothing was written, and which file is in the way.
func TestImportRefusesBeforeWriting(t *testing.T) {
	ctx := context.Background()
	notLog := filepath.Join("..", "compat", "importer", "testdata", "README.md")
	aFile := copyLog(t, t.TempDir(), "plain-file", "not a directory")
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, src, out string) []string // the import's arguments
		code  int
		want  []string // in stderr
		keep  []string // the files --out holds afterwards
	}{
		{"a file already there", func(t *testing.T, src, out string) []string {
			copyLog(t, out, "run-1.json", "{}")
			return []string{copyLog(t, src, "other.log", "other"), copyLog(t, src, "run.log", ""), "--out", out}
		}, ExitUsage, []string{"already holds run-1.json (from ", "never overwrites", "wrote nothing"}, []string{"run-1.json"}},
		{"a run imported before under another name", func(t *testing.T, src, out string) []string {
			a, b := copyLog(t, src, "a/run.log", ""), copyLog(t, src, "b/run.log", "other")
			if r := runCLI(ctx, nil, "import", a, b, "--out", out); r.code != ExitOK {
				t.Fatalf("first import: %d %s", r.code, r.stderr)
			}
			return []string{a, "--out", out} // would be run-1.json
		}, ExitUsage, []string{"already holds the run at line 1 of ", "(as a_run-1.json)", "count it twice"}, []string{"a_run-1.json", "b_run-1.json"}},
		{"two copies of one log", func(t *testing.T, src, out string) []string {
			return []string{copyLog(t, src, "a/run.log", ""), copyLog(t, src, "b/run.log", ""), "--out", out}
		}, ExitUsage, []string{"hold the same run", "copies of one log", "nothing was written"}, nil},
		{"one log twice", func(t *testing.T, src, out string) []string {
			log := copyLog(t, src, "run.log", "")
			link := filepath.Join(src, "link.log")
			if err := os.Symlink(log, link); err != nil {
				t.Fatal(err)
			}
			return []string{log, link, "--out", out}
		}, ExitUsage, []string{"are the same log", "count twice"}, nil},
		{"a bad log after a good one", func(t *testing.T, src, out string) []string {
			return []string{copyLog(t, src, "run.log", ""), notLog, "--out", out}
		}, ExitUsage, []string{"README.md", "nothing was written"}, nil},
		{"--out under a file, found before the logs are read", func(t *testing.T, src, out string) []string {
			return []string{notLog, "--out", filepath.Join(aFile, "out")}
		}, ExitUsage, []string{"--out", "cannot be created", "not a directory"}, nil},
		{"--out is a file", func(t *testing.T, src, out string) []string {
			return []string{notLog, "--out", aFile}
		}, ExitUsage, []string{"--out " + aFile + " is a regular file, not a directory"}, nil},
		{"--machine-ghz in MHz", func(t *testing.T, src, out string) []string {
			return []string{copyLog(t, src, "run.log", ""), "--machine-ghz", "2600", "--out", out}
		}, ExitUsage, []string{"--machine-ghz", "not MHz"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
			args := tc.setup(t, src, out)
			before := dirFiles(t, out)
			r := runCLI(ctx, nil, append([]string{"import"}, args...)...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\n%s%s", r.code, tc.code, r.stdout, r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
			if got := dirFiles(t, out); strings.Join(got, " ") != strings.Join(tc.keep, " ") {
				t.Errorf("--out holds %v after the refusal (before: %v), want %v", got, before, tc.keep)
			}
		})
	}
	// The file in the way is left as it was.
	src, out := t.TempDir(), t.TempDir()
	kept := copyLog(t, out, "run-1.json", "{}")
	runCLI(ctx, nil, "import", copyLog(t, src, "run.log", ""), "--out", out)
	if b, _ := os.ReadFile(kept); string(b) != "{}" {
		t.Errorf("an existing result was overwritten: %q", b)
	}
}

// An explicit --machine-ghz wins over the frequency in --cpu-model, and the
// label says where each figure came from from the result file to compare's
// output; results imported before schema 1.3 read the same. The log's
// distribution is sysbench 1.0's default, recorded as such.
func TestImportGHzAndDistributionEndToEnd(t *testing.T) {
	ctx := context.Background()
	src := t.TempDir()
	x86, arm := filepath.Join(t.TempDir(), "x86"), filepath.Join(t.TempDir(), "arm")
	r := runCLI(ctx, nil, "import", copyLog(t, src, "x86.log", ""), "--out", x86,
		"--arch", "amd64", "--cpu-model", "Intel(R) Xeon(R) Gold 6266C CPU @ 3.00GHz", "--machine-vcpus", "24", "--machine-ghz", "2.6")
	if r.code != ExitOK {
		t.Fatalf("import x86: %d %s", r.code, r.stderr)
	}
	r = runCLI(ctx, nil, "import", copyLog(t, src, "arm.log", ""), "--out", arm,
		"--arch", "arm64", "--cpu-model", "Kunpeng 920 @ 2.60GHz", "--machine-vcpus", "24")
	if r.code != ExitOK {
		t.Fatalf("import arm: %d %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "arm.log: the log shows no rand-spec-iter,rand-spec-pct,rand-spec-res,rand-type: recorded sysbench 1.0.20's defaults") ||
		!strings.Contains(r.stdout, "rand-type=special") {
		t.Errorf("import does not say which options are sysbench 1.0.20's defaults:\n%s", r.stdout)
	}
	res := readResult(t, filepath.Join(x86, "x86-1.json"))
	if res.Machine.GivenGHz != 2.6 || res.Machine.MHz != 0 || res.Machine.Source != "import" {
		t.Errorf("machine %+v: want given_ghz 2.6, no cpuinfo mhz, source import", res.Machine)
	}
	if res.Options["rand-type"] != "special" || !strings.Contains(res.Options[importer.OptionImportedDefaults], "rand-type") {
		t.Errorf("rand-type %q (defaults %q): sysbench 1.0.20 ran with special", res.Options["rand-type"], res.Options[importer.OptionImportedDefaults])
	}

	cmp := runCLI(ctx, nil, "compare", "x86="+x86, "arm="+arm)
	if cmp.code != ExitOK {
		t.Fatalf("compare: %d %s", cmp.code, cmp.stderr)
	}
	// The machine flags describe the machine under test (server_machines,
	// source flags): --machine-ghz is --server-ghz's alias.
	for _, want := range []string{"from server_machines (flags), 2.6 GHz (--server-ghz)", "from server_machines (flags), 2.6 GHz (cpu model)"} {
		if !strings.Contains(cmp.stdout, want) {
			t.Errorf("compare output lacks %q:\n%s", want, cmp.stdout)
		}
	}
	if strings.Contains(cmp.stdout, "cpuinfo MHz") || strings.Contains(cmp.stdout, "3 GHz") {
		t.Errorf("compare labels the flag's frequency as another's, or uses the model's:\n%s", cmp.stdout)
	}
	js := runCLI(ctx, nil, "compare", "--format", "json", "x86="+x86, "arm="+arm)
	if !strings.Contains(js.stdout, `"vcpus_source": "server_machines (flags)`) {
		t.Errorf("compare JSON does not say the vCPUs came from the import's flag:\n%s", js.stdout)
	}

	// A result imported before schema 1.3 kept --machine-ghz as mhz.
	path := filepath.Join(x86, "x86-1.json")
	var doc map[string]any
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	m := doc["machine"].(map[string]any)
	delete(m, "given_ghz")
	delete(m, "source")
	m["mhz"] = 2600
	delete(doc, "server_machines")
	doc["schema"] = "1.2"
	b, _ = json.Marshal(doc)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	old := runCLI(ctx, nil, "compare", "x86="+x86, "arm="+arm)
	if old.code != ExitOK || !strings.Contains(old.stdout, "2.6 GHz (import --machine-ghz)") {
		t.Errorf("compare of a schema 1.2 import: %d\n%s%s", old.code, old.stdout, old.stderr)
	}
}

// A log that does not say its sysbench version leaves the distribution
// unknown, with a warning printed and kept in the result.
func TestImportWarnsOfUnknownDistribution(t *testing.T) {
	ctx := context.Background()
	b, err := os.ReadFile(importLog)
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(string(b), "\n") // without "sysbench 1.0.20 (using …)"
	out := filepath.Join(t.TempDir(), "out")
	r := runCLI(ctx, nil, "import", copyLog(t, t.TempDir(), "run.log", body), "--out", out)
	if r.code != ExitOK {
		t.Fatalf("import: %d %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "fairbench: warning: run.log:") || !strings.Contains(r.stderr, "--set rand-type=") {
		t.Errorf("stderr does not warn of the unknown distribution:\n%s", r.stderr)
	}
	res := readResult(t, filepath.Join(out, "run-1.json"))
	if len(res.Warnings) != 1 || res.Options["rand-type"] != "" {
		t.Errorf("warnings %q, rand-type %q: want the warning kept and no distribution", res.Warnings, res.Options["rand-type"])
	}
}
