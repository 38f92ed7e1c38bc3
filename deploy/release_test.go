// Package deploy_test checks how fairbench is shipped: `make release` (the
// versioned archives and their checksums), `make image` and the Dockerfile. The
// image cannot be built without a container engine, so the Dockerfile is parsed
// and its build step run directly.
package deploy_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"debug/elf"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// repoRoot is the module's root, where the Makefile and Dockerfile are.
const repoRoot = ".."

const testVersion = "v0.0.0-test"

// need skips nothing: a missing tool is a failure that says what to install.
func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s not found: install it (scripts/test.sh installs the test machine's tools)", tool)
		}
	}
}

func TestMakeRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two release binaries")
	}
	need(t, "make", "tar", "gzip", "sha256sum")
	dist := t.TempDir()
	release := exec.Command("make", "-C", repoRoot, "release", "VERSION="+testVersion, "DIST="+dist)
	if out, err := release.CombinedOutput(); err != nil {
		t.Fatalf("make release: %v\n%s", err, out)
	}

	sums, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	arches := []string{"amd64", "arm64"}
	for _, arch := range arches {
		name := "fairbench-" + testVersion + "-linux-" + arch + ".tar.gz"
		if !regexp.MustCompile(`(?m)^[0-9a-f]{64}  ` + regexp.QuoteMeta(name) + `$`).Match(sums) {
			t.Errorf("SHA256SUMS does not list %s:\n%s", name, sums)
		}
	}
	if n := bytes.Count(sums, []byte("\n")); n != len(arches) {
		t.Errorf("SHA256SUMS has %d lines, want %d:\n%s", n, len(arches), sums)
	}
	check := exec.Command("sha256sum", "--check", "--strict", "SHA256SUMS")
	check.Dir = dist
	if out, err := check.CombinedOutput(); err != nil {
		t.Fatalf("sha256sum --check: %v\n%s", err, out)
	}
	if entries, _ := os.ReadDir(dist); len(entries) != len(arches)+1 {
		t.Errorf("%s holds %d entries, want the archives and SHA256SUMS only (staging directories left behind?)", dist, len(entries))
	}

	for _, arch := range arches {
		t.Run(arch, func(t *testing.T) {
			top := "fairbench-" + testVersion + "-linux-" + arch
			bin := extract(t, filepath.Join(dist, top+".tar.gz"), top,
				[]string{"README.md", "docs/plans.md", "plans/quick.yaml", "deploy/kubernetes/job.yaml", "deploy/kubernetes/README.md"})
			checkStaticELF(t, bin, arch)
			var cmd *exec.Cmd
			switch {
			case arch == runtime.GOARCH:
				cmd = exec.Command(bin, "version")
			case arch == "arm64":
				need(t, "qemu-aarch64-static")
				cmd = exec.Command("qemu-aarch64-static", bin, "version")
			default:
				t.Skipf("cannot run a linux/%s binary on %s", arch, runtime.GOARCH)
			}
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("fairbench version: %v\n%s", err, out)
			}
			if !strings.HasPrefix(string(out), "fairbench "+testVersion+" ") || !strings.Contains(string(out), "linux/"+arch) {
				t.Errorf("fairbench version printed %q, want fairbench %s … linux/%s", out, testVersion, arch)
			}
		})
	}
}

// TestMakeReleaseRefusesABadVersion: a VERSION that cannot name a file stops
// make release before it builds anything.
func TestMakeReleaseRefusesABadVersion(t *testing.T) {
	need(t, "make")
	dist := t.TempDir()
	out, err := exec.Command("make", "-C", repoRoot, "release", "VERSION=feature/x", "DIST="+dist).CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || !strings.Contains(string(out), "cannot name an archive") {
		t.Fatalf("make release VERSION=feature/x: %v\n%s", err, out)
	}
	if entries, _ := os.ReadDir(dist); len(entries) != 0 {
		t.Errorf("a refused release left %d files in DIST", len(entries))
	}
}

// extract unpacks archive into a temporary directory, checks that everything
// is under top/ and that the listed files are there, and returns the binary.
func extract(t *testing.T, archive, top string, want []string) string {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", archive, err)
	}
	dir := t.TempDir()
	seen := map[string]bool{}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", archive, err)
		}
		rel, ok := strings.CutPrefix(strings.TrimSuffix(h.Name, "/"), top+"/")
		if !ok && h.Name != top+"/" {
			t.Fatalf("%s: %s is outside %s/", archive, h.Name, top)
		}
		if h.Uid != 0 || h.Gid != 0 {
			t.Errorf("%s: %s owned by %d:%d, want 0:0", archive, h.Name, h.Uid, h.Gid)
		}
		if strings.HasSuffix(rel, "_test.go") {
			t.Errorf("%s: test source %s in a release", archive, rel)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		seen[rel] = true
		if rel != "fairbench" {
			continue
		}
		if h.Mode&0o111 == 0 {
			t.Errorf("%s: the binary is not executable (mode %o)", archive, h.Mode)
		}
		out, err := os.OpenFile(filepath.Join(dir, "fairbench"), os.O_CREATE|os.O_WRONLY, 0o755)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, tr); err != nil {
			t.Fatal(err)
		}
		if err := out.Close(); err != nil {
			t.Fatal(err)
		}
	}
	for _, w := range append([]string{"fairbench"}, want...) {
		if !seen[w] {
			t.Errorf("%s lacks %s/%s", archive, top, w)
		}
	}
	return filepath.Join(dir, "fairbench")
}

// checkStaticELF checks that bin is a linux ELF for arch with no dynamic loader.
func checkStaticELF(t *testing.T, bin, arch string) {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatalf("%s: %v", bin, err)
	}
	defer f.Close()
	machine := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[arch]
	if f.Machine != machine {
		t.Errorf("binary is for %v, want %v", f.Machine, machine)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("binary has a dynamic loader (PT_INTERP): it must be static (CGO_ENABLED=0)")
		}
	}
}

// TestMakeImageCommand checks, without running it, the command `make image`
// would run: a multi-platform buildx build of the Dockerfile, tagged with
// IMAGE:VERSION, with the version passed to the build.
func TestMakeImageCommand(t *testing.T) {
	need(t, "make")
	out, err := exec.Command("make", "-s", "-n", "-C", repoRoot, "image", "VERSION="+testVersion, "COMMIT=abc1234").CombinedOutput()
	if err != nil {
		t.Fatalf("make -n image: %v\n%s", err, out)
	}
	cmd := strings.Join(strings.Fields(strings.ReplaceAll(string(out), "\\\n", " ")), " ")
	for _, want := range []string{
		"docker buildx build", "--platform linux/amd64,linux/arm64",
		"--build-arg VERSION=" + testVersion, "--build-arg COMMIT=abc1234",
		"-t ghcr.io/fairbench/fairbench:" + testVersion, "-f Dockerfile .",
	} {
		if !strings.Contains(cmd, want) {
			t.Errorf("make image runs %q, which lacks %q", cmd, want)
		}
	}
}
