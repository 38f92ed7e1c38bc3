package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/release/ociimage/ocitest"
)

// repoRoot is where the Makefile is.
const repoRoot = "../.."

func needMake(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("make"); err != nil {
		t.Fatal("make not found: install it (scripts/test.sh's machine has it)")
	}
}

// TestMakeImageOCI runs `make image-oci`, which builds the release binaries
// and runs this command on them, and reads the archive back.
func TestMakeImageOCI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds fairbench for two architectures")
	}
	needMake(t)
	const version = "v0.0.0-ocitest"
	dist := t.TempDir()
	out, err := exec.Command("make", "-C", repoRoot, "image-oci", "VERSION="+version, "DIST="+dist, "COMMIT=abc1234").CombinedOutput()
	if err != nil {
		t.Fatalf("make image-oci: %v\n%s", err, out)
	}
	archive := filepath.Join(dist, "fairbench-"+version+"-oci.tar")
	if entries, _ := os.ReadDir(dist); len(entries) != 1 {
		t.Errorf("%s holds %d entries, want the archive only (build directory left behind?)", dist, len(entries))
	}
	dir, _ := ocitest.ExtractTar(t, archive)
	desc, idx := ocitest.ReadLayout(t, dir)
	if tag := "ghcr.io/fairbench/fairbench:" + version; desc.Annotations["org.opencontainers.image.ref.name"] != tag {
		t.Errorf("index.json annotations %v, want the tag %s", desc.Annotations, tag)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if m.Annotations["org.opencontainers.image.version"] != version || m.Annotations["org.opencontainers.image.revision"] != "abc1234" {
		t.Errorf("index annotations %v, want version %s revision abc1234", m.Annotations, version)
	}
	var platforms []string
	for _, d := range m.Manifests {
		platforms = append(platforms, d.Platform.String())
		if d.Platform.Architecture != runtime.GOARCH || runtime.GOOS != "linux" {
			continue
		}
		img, err := idx.Image(d.Digest)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := ocitest.LayerFile(t, img, "usr/local/bin/fairbench")
		bin := filepath.Join(t.TempDir(), "fairbench")
		if err := os.WriteFile(bin, data, 0o755); err != nil {
			t.Fatal(err)
		}
		got, err := exec.Command(bin, "version").CombinedOutput()
		if err != nil || !strings.HasPrefix(string(got), "fairbench "+version+" (abc1234) ") {
			t.Errorf("the image's fairbench version: %v, %q; want the stamped %s (abc1234)", err, got, version)
		}
	}
	if strings.Join(platforms, " ") != "linux/amd64 linux/arm64/v8" {
		t.Errorf("platforms %v, want linux/amd64 and linux/arm64/v8", platforms)
	}
}

// TestMakeImageOCIRefusesABadVersion: a VERSION that cannot name a file
// stops make image-oci before it builds anything.
func TestMakeImageOCIRefusesABadVersion(t *testing.T) {
	needMake(t)
	dist := t.TempDir()
	out, err := exec.Command("make", "-C", repoRoot, "image-oci", "VERSION=feature/x", "DIST="+dist).CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || !strings.Contains(string(out), "cannot name an archive") {
		t.Fatalf("make image-oci VERSION=feature/x: %v\n%s", err, out)
	}
	if entries, _ := os.ReadDir(dist); len(entries) != 0 {
		t.Errorf("a refused make image-oci left %d files in DIST", len(entries))
	}
}
