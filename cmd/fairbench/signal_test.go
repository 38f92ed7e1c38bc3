package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// built is the fairbench binary buildBinary builds once for the package, in
// dir, which TestMain removes.
var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// buildBinary builds fairbench for this machine into a temporary directory,
// once for the package; the tests only run it. It builds as the release does
// (CGO_ENABLED=0, -trimpath; the Makefile's ldflags only change the link), so
// that it compiles nothing that scripts/test.sh's prewarm, `make release` and
// the image tests have not already compiled: without -trimpath every package
// was compiled once more, for this build alone.
func buildBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "fairbench-bin-")
		if err != nil {
			built.err = err
			return
		}
		built.dir = dir
		bin := filepath.Join(dir, "fairbench")
		build := exec.Command("go", "build", "-trimpath", "-o", bin, ".")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("build: %w\n%s", err, out)
			return
		}
		built.bin = bin
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

// TestCtrlCWritesPartialResult sends SIGINT to a real run: it must exit 130 and
// leave a result marked interrupted with what it measured.
func TestCtrlCWritesPartialResult(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	logPath := filepath.Join(dir, "out.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	cmd := exec.Command(bin, "run", "oltp_point_select", "--sqlite-db", filepath.Join(dir, "fb.db"),
		"--table-size=500", "--time=300", "--report-interval=1", "--output", out)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	output := func() string { b, _ := os.ReadFile(logPath); return string(b) }
	// Interrupt once the first interval line shows the run is measuring.
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(output(), "[ 1s ]") {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no interval line within a minute:\n%s", output())
		}
		time.Sleep(50 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v, want code 130\n%s", err, output())
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("no partial result: %v", err)
	}
	var res struct {
		Status string `json:"status"`
		Totals struct {
			Counts struct {
				Events int64 `json:"events"`
			} `json:"counts"`
		} `json:"totals"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	if res.Status != "interrupted" || res.Totals.Counts.Events == 0 {
		t.Fatalf("status %q events %d", res.Status, res.Totals.Counts.Events)
	}
}

// TestCtrlCFinishesSuiteManifest sends SIGINT to a real suite in its first
// cell: it must exit 130 with the manifest marked interrupted, the partial
// cell's result kept and the next cell left pending for --resume.
func TestCtrlCFinishesSuiteManifest(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.yaml")
	text := "target: {sqlite_db: " + filepath.Join(dir, "fb.db") + "}\n" +
		"data: {tables: 1, table_size: 500}\nmatrix: {workloads: [oltp_point_select], threads: [1, 2]}\nrun: {time: 60}\n"
	if err := os.WriteFile(plan, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	suiteDir := filepath.Join(dir, "suite")
	cmd := exec.Command(bin, "suite", "run", plan, "--out", suiteDir)
	logPath := filepath.Join(dir, "out.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	output := func() string { b, _ := os.ReadFile(logPath); return string(b) }
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(output(), "[1/2]") {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the suite did not start its first cell:\n%s", output())
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(1500 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v, want code 130\n%s", err, output())
	}
	if !strings.Contains(output(), "--resume") {
		t.Errorf("no hint how to resume:\n%s", output())
	}
	var m struct {
		Status string `json:"status"`
		Cells  []struct {
			Status string `json:"status"`
			File   string `json:"file"`
		} `json:"cells"`
	}
	raw, err := os.ReadFile(filepath.Join(suiteDir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if m.Status != "interrupted" || m.Cells[0].Status != "interrupted" || m.Cells[1].Status != "pending" {
		t.Fatalf("manifest: %+v", m)
	}
	if _, err := os.Stat(filepath.Join(suiteDir, m.Cells[0].File)); err != nil {
		t.Errorf("the partial cell's result is missing: %v", err)
	}
}
