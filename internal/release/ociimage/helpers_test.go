package ociimage

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// moduleRoot is the module's root, where go build runs.
const moduleRoot = "../../.."

// builds caches the binaries the tests compile, in a directory that lives as
// long as the test binary: the tiny program and fairbench, per architecture.
var builds struct {
	sync.Mutex
	dir  string
	done map[string]string // "pkg arch ldflags" → binary
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ociimage-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	builds.dir, builds.done = dir, map[string]string{}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// goBuild builds the package pkg (relative to the module root) for
// linux/arch with CGO_ENABLED=0, -trimpath and ldflags, once per test run, and
// returns the binary.
func goBuild(t *testing.T, pkg, arch, ldflags string) string {
	t.Helper()
	builds.Lock()
	defer builds.Unlock()
	key := pkg + " " + arch + " " + ldflags
	if bin, ok := builds.done[key]; ok {
		return bin
	}
	bin := filepath.Join(builds.dir, fmt.Sprintf("%s-%s-%d", filepath.Base(pkg), arch, len(builds.done)))
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", ldflags, "-o", bin, pkg)
	cmd.Dir = moduleRoot
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("GOARCH=%s go build %s: %v\n%s", arch, pkg, err, out)
	}
	builds.done[key] = bin
	return bin
}

// tinyBinaries builds the tiny test program for amd64 and arm64.
func tinyBinaries(t *testing.T) []Binary {
	t.Helper()
	return []Binary{
		{Platform: mustPlatform(t, "linux/amd64"), Path: goBuild(t, "./internal/release/ociimage/testdata/tiny", "amd64", "-s -w")},
		{Platform: mustPlatform(t, "linux/arm64"), Path: goBuild(t, "./internal/release/ociimage/testdata/tiny", "arm64", "-s -w")},
	}
}

func mustPlatform(t *testing.T, s string) Platform {
	t.Helper()
	p, err := ParsePlatform(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// qemu names the user-mode emulators of qemu-user-static by GOARCH.
var qemu = map[string]string{"amd64": "qemu-x86_64-static", "arm64": "qemu-aarch64-static"}

// runBinary runs a linux/arch binary, natively or under qemu-user-static, and
// returns its output; it skips the test when neither can run it.
func runBinary(t *testing.T, bin, arch string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	if arch != runtime.GOARCH || runtime.GOOS != "linux" {
		testdb.SkipShort(t, qemu[arch])
		emu, err := exec.LookPath(qemu[arch])
		if err != nil {
			t.Skipf("cannot run a linux/%s binary on %s/%s: %s not found (install qemu-user-static; scripts/test.sh does)",
				arch, runtime.GOOS, runtime.GOARCH, qemu[arch])
		}
		cmd = exec.Command(emu, append([]string{bin}, args...)...)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// layerFile is one entry of an image layer.
type layerFile struct {
	hdr  *tar.Header
	data []byte
}

// layerFiles returns the entries of the image's only layer, in order, after
// checking the layer's media type and that its gzip header has no time.
func layerFiles(t *testing.T, img v1.Image) []layerFile {
	t.Helper()
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	if len(layers) != 1 {
		t.Fatalf("%d layers, want 1", len(layers))
	}
	if mt, _ := layers[0].MediaType(); mt != "application/vnd.oci.image.layer.v1.tar+gzip" {
		t.Errorf("layer media type %s, want the OCI gzip layer", mt)
	}
	zr, err := layers[0].Compressed()
	if err != nil {
		t.Fatal(err)
	}
	head := make([]byte, 10)
	_, err = io.ReadFull(zr, head)
	zr.Close()
	if err != nil || !bytes.Equal(head[:2], []byte{0x1f, 0x8b}) || !bytes.Equal(head[4:8], []byte{0, 0, 0, 0}) {
		t.Errorf("layer gzip header % x: want gzip with MTIME 0 (%v)", head, err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	var files []layerFile
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, layerFile{hdr: h, data: data})
	}
}
