package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// TestArm64BinaryUnderQemu cross-builds the static linux/arm64 binary, runs a short
// benchmark on the embedded default under qemu-aarch64-static, and checks that the
// result records the arm64 architecture.
func TestArm64BinaryUnderQemu(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-build and emulation skipped in -short mode")
	}
	if runtime.GOARCH == "arm64" {
		t.Skip("already on arm64: the other tests cover it")
	}
	qemu, err := exec.LookPath("qemu-aarch64-static")
	if err != nil {
		t.Fatal("qemu-aarch64-static not found: install Debian's qemu-user-static (scripts/test.sh does)")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "fairbench-arm64")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm64")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("cross-build failed: %v\n%s", err, out)
	}
	resultPath := filepath.Join(dir, "result.json")
	run := exec.Command(qemu, bin, "run", "oltp_point_select",
		"--sqlite-db", filepath.Join(dir, "fb.db"), "--table-size=1000",
		"--time=2", "--threads=2", "--output", resultPath)
	run.Dir = dir
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("arm64 run failed: %v\n%s", err, out)
	}
	raw, err := os.ReadFile(resultPath)
	if err != nil {
		t.Fatalf("no result written: %v\n%s", err, out)
	}
	var res struct {
		Status  string `json:"status"`
		Machine struct {
			Arch string `json:"arch"`
		} `json:"machine"`
		Totals struct {
			Counts struct {
				Events int64 `json:"events"`
			} `json:"counts"`
		} `json:"totals"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("result is not JSON: %v", err)
	}
	if res.Machine.Arch != "arm64" || res.Status != "complete" || res.Totals.Counts.Events == 0 {
		t.Fatalf("arm64 result: arch=%q status=%q events=%d\n%s", res.Machine.Arch, res.Status, res.Totals.Counts.Events, out)
	}
}
