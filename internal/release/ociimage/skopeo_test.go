package ociimage

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/v1/layout"

	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// skopeo runs skopeo with a private temporary directory and returns its
// standard output.
func skopeo(t *testing.T, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("skopeo", args...)
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("skopeo %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return out
}

// TestSkopeoReadsTheArchive: skopeo (containers/image, not
// go-containerregistry) sees the same index and configs, and copies the
// multi-platform image without changing its digest, as a push with
// `skopeo copy --all --preserve-digests` does.
func TestSkopeoReadsTheArchive(t *testing.T) {
	testdb.SkipShort(t, "skopeo")
	if _, err := exec.LookPath("skopeo"); err != nil {
		t.Skip("skopeo not found: it is the independent reader of the archive here (apt-get install skopeo; scripts/test.sh installs it)")
	}
	im, err := Build(tinyOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(t.TempDir(), "image.tar")
	if err := im.WriteArchive(archive, testTag); err != nil {
		t.Fatal(err)
	}
	src := "oci-archive:" + archive
	raw, err := im.Index.RawManifest()
	if err != nil {
		t.Fatal(err)
	}
	if got := skopeo(t, "inspect", "--raw", src); !bytes.Equal(got, raw) {
		t.Errorf("skopeo inspect --raw:\n%s\nwant the index:\n%s", got, raw)
	}
	if got := skopeo(t, "inspect", "--raw", src+":"+testTag); !bytes.Equal(got, raw) {
		t.Errorf("skopeo does not find the index by the tag %s:\n%s", testTag, got)
	}
	manifest, err := im.Index.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range manifest.Manifests {
		args := []string{"inspect", "--config", "--raw", "--override-os", d.Platform.OS, "--override-arch", d.Platform.Architecture}
		if d.Platform.Variant != "" {
			args = append(args, "--override-variant", d.Platform.Variant)
		}
		img, err := im.Index.Image(d.Digest)
		if err != nil {
			t.Fatal(err)
		}
		want, err := img.RawConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		if got := skopeo(t, append(args, src)...); !bytes.Equal(got, want) {
			t.Errorf("%s: skopeo inspect --config:\n%s\nwant:\n%s", d.Platform, got, want)
		}
	}

	dir := filepath.Join(t.TempDir(), "copy")
	skopeo(t, "--insecure-policy", "copy", "--quiet", "--all", "--preserve-digests", src, "oci:"+dir+":copy")
	top, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := top.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	digest, _ := im.Index.Digest()
	if len(m.Manifests) != 1 || m.Manifests[0].Digest != digest {
		t.Errorf("skopeo copy --all wrote %+v, want the index %s", m.Manifests, digest)
	}
}
