package ociimage

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/release/ociimage/ocitest"
)

// TestFairbenchImage builds the image from real fairbench binaries, compiled
// as `make release` does, with the host's CA bundle, and runs `fairbench
// version` from each platform's layer.
func TestFairbenchImage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds fairbench for two architectures")
	}
	const version, commit = "v0.0.0-oci", "abc1234"
	ldflags := "-s -w -X main.version=" + version + " -X main.commit=" + commit
	o := Options{
		Binaries: []Binary{
			{Platform: mustPlatform(t, "linux/amd64"), Path: goBuild(t, "./cmd/fairbench", "amd64", ldflags)},
			{Platform: mustPlatform(t, "linux/arm64"), Path: goBuild(t, "./cmd/fairbench", "arm64", ldflags)},
		},
		Version:  version,
		Revision: commit,
		Created:  time.Unix(1712345678, 0).UTC(),
		CABundle: DefaultCABundle,
	}
	im, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(t.TempDir(), "fairbench-"+version+"-oci.tar")
	if err := im.WriteArchive(archive, "ghcr.io/fairbench/fairbench:"+version); err != nil {
		t.Fatal(err)
	}
	extracted, headers := ocitest.ExtractTar(t, archive)
	checkArchiveEntries(t, headers, o.Created)
	desc, idx := ocitest.ReadLayout(t, extracted)
	checkTop(t, desc, im, "ghcr.io/fairbench/fairbench:"+version)
	images := checkIndex(t, idx, wantFrom(t, o))
	for _, arch := range []string{"amd64", "arm64"} {
		t.Run("fairbench version "+arch, func(t *testing.T) {
			img := images[mustPlatform(t, "linux/"+arch).String()]
			if img == nil {
				t.Fatalf("no linux/%s image", arch)
			}
			out := runBinary(t, extractBinary(t, img), arch, "version")
			if !strings.HasPrefix(out, "fairbench "+version+" ("+commit+") ") || !strings.Contains(out, "linux/"+arch) {
				t.Errorf("fairbench version printed %q, want fairbench %s (%s) … linux/%s", out, version, commit, arch)
			}
		})
	}
}
