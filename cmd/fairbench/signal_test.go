package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// buildBinary builds fairbench for this machine into a temporary directory.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "fairbench")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// TestCtrlCWritesPartialResult sends SIGINT to a real run: it must exit 130 and
// leave a result marked interrupted with what it measured.
func TestCtrlCWritesPartialResult(t *testing.T) {
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
