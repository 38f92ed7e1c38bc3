package ociimage

import (
	"crypto/sha256"
	"debug/elf"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/fairbench/fairbench/internal/release/ociimage/ocitest"
)

const testTag = "registry.example.com/you/fairbench:v0.0.0-tiny"

// tinyOptions are the options of an image of the tiny program.
func tinyOptions(t *testing.T) Options {
	return Options{
		Binaries: tinyBinaries(t),
		Version:  "v0.0.0-tiny",
		Revision: "abc1234",
		Created:  time.Unix(1700000000, 0).UTC(),
		CABundle: ocitest.CABundle(t, t.TempDir()),
	}
}

// checkTop checks the layout's index.json entry: the multi-platform index,
// named tag.
func checkTop(t *testing.T, desc v1.Descriptor, im *Image, tag string) {
	t.Helper()
	digest, err := im.Index.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if desc.MediaType != "application/vnd.oci.image.index.v1+json" || desc.Digest != digest {
		t.Errorf("index.json entry %s %s, want the image index %s", desc.MediaType, desc.Digest, digest)
	}
	wantAnn := map[string]string{"org.opencontainers.image.ref.name": tag, "io.containerd.image.name": tag}
	if tag == "" {
		wantAnn = nil
	}
	if !maps.Equal(desc.Annotations, wantAnn) {
		t.Errorf("index.json entry annotations %v, want %v", desc.Annotations, wantAnn)
	}
}

// TestTinyImage builds the image of two tiny static binaries, writes it both
// ways, reads it back, and runs the binaries it holds.
func TestTinyImage(t *testing.T) {
	o := tinyOptions(t)
	im, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	archive := filepath.Join(dir, "fairbench-oci.tar")
	if err := im.WriteArchive(archive, testTag); err != nil {
		t.Fatal(err)
	}
	layoutDir := filepath.Join(dir, "layout")
	if err := im.WriteLayout(layoutDir, testTag); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("%s holds %d entries, want the archive and the layout (temporary files left behind?)", dir, len(entries))
	}
	w := wantFrom(t, o)

	t.Run("archive", func(t *testing.T) {
		extracted, headers := ocitest.ExtractTar(t, archive)
		checkArchiveEntries(t, headers, o.Created)
		desc, idx := ocitest.ReadLayout(t, extracted)
		checkTop(t, desc, im, testTag)
		images := checkIndex(t, idx, w)
		for _, arch := range []string{"amd64", "arm64"} {
			t.Run("run "+arch, func(t *testing.T) {
				img := images[mustPlatform(t, "linux/"+arch).String()]
				if img == nil {
					t.Fatalf("no linux/%s image", arch)
				}
				out := runBinary(t, extractBinary(t, img), arch, "version")
				if want := "tiny linux/" + arch + " version\n"; out != want {
					t.Errorf("the image's binary printed %q, want %q", out, want)
				}
			})
		}
	})
	t.Run("layout", func(t *testing.T) {
		desc, idx := ocitest.ReadLayout(t, layoutDir)
		checkTop(t, desc, im, testTag)
		checkIndex(t, idx, w)
	})
}

// TestReproducible: the same inputs, in any order, give the same archive
// bytes; a changed input changes the digest.
func TestReproducible(t *testing.T) {
	o := tinyOptions(t)
	archiveSum := func(o Options, tag string) ([32]byte, v1.Hash) {
		t.Helper()
		im, err := Build(o)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "image.tar")
		if err := im.WriteArchive(path, tag); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		d, err := im.Index.Digest()
		if err != nil {
			t.Fatal(err)
		}
		return sha256.Sum256(data), d
	}
	sum, digest := archiveSum(o, testTag)

	reversed := o
	reversed.Binaries = slices.Clone(o.Binaries)
	slices.Reverse(reversed.Binaries)
	if sum2, digest2 := archiveSum(reversed, testTag); sum2 != sum || digest2 != digest {
		t.Errorf("the same inputs gave index %s and %s, archives %x and %x", digest, digest2, sum, sum2)
	}

	changes := map[string]func(*Options){
		"version": func(o *Options) { o.Version = "v0.0.1" },
		"created": func(o *Options) { o.Created = o.Created.Add(time.Second) },
		"binary":  func(o *Options) { o.Binaries = o.Binaries[:1] },
	}
	for name, change := range changes {
		c := o
		change(&c)
		if _, d := archiveSum(c, testTag); d == digest {
			t.Errorf("changing the %s kept the index digest %s", name, d)
		}
	}
	if sum3, digest3 := archiveSum(o, ""); digest3 != digest || sum3 == sum {
		t.Errorf("without a tag: index %s (want %s, the tag names it only in index.json), archive unchanged: %v", digest3, digest, sum3 == sum)
	}
}

func TestBuildErrors(t *testing.T) {
	dir := t.TempDir()
	ca := ocitest.CABundle(t, dir)
	amd64 := mustPlatform(t, "linux/amd64")
	arm64 := mustPlatform(t, "linux/arm64")
	static := ocitest.FakeELF(t, dir, "static-amd64", elf.EM_X86_64, elf.ET_EXEC, false)
	dynamic := ocitest.FakeELF(t, dir, "dynamic-amd64", elf.EM_X86_64, elf.ET_EXEC, true)
	noCerts := filepath.Join(dir, "empty.crt")
	if err := os.WriteFile(noCerts, []byte("# nothing\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ok := Options{Binaries: []Binary{{amd64, static}}, Version: "v1", CABundle: ca}
	tests := []struct {
		name   string
		change func(*Options)
		want   []string
	}{
		{"no binaries", func(o *Options) { o.Binaries = nil }, []string{"no binaries", "linux/amd64="}},
		{"no version", func(o *Options) { o.Version = "" }, []string{"no version", "v1.2.3"}},
		{"two for one platform", func(o *Options) { o.Binaries = append(o.Binaries, Binary{amd64, dynamic}) }, []string{"two binaries for linux/amd64", "one per platform"}},
		{"missing binary", func(o *Options) { o.Binaries = []Binary{{amd64, filepath.Join(dir, "nope")}} }, []string{"does not exist", "GOARCH=amd64", "make image-oci"}},
		{"wrong architecture", func(o *Options) { o.Binaries = []Binary{{arm64, static}} }, []string{"is a linux/amd64 binary", "not linux/arm64/v8", "GOARCH=arm64"}},
		{"dynamic", func(o *Options) { o.Binaries = []Binary{{amd64, dynamic}} }, []string{"dynamically linked", ocitest.Interp, "CGO_ENABLED=0"}},
		{"missing CA bundle", func(o *Options) { o.CABundle = filepath.Join(dir, "nope.crt") }, []string{"CA bundle", "does not exist", "ca-certificates", "--ca-bundle"}},
		{"CA bundle without certificates", func(o *Options) { o.CABundle = noCerts }, []string{"no PEM certificates"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := ok
			tt.change(&o)
			_, err := Build(o)
			if err == nil {
				t.Fatal("Build succeeded")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
	if _, err := Build(ok); err != nil {
		t.Errorf("the valid options failed: %v", err)
	}
}

func TestWriteLayoutRefusesANonEmptyDirectory(t *testing.T) {
	dir := t.TempDir()
	bin := ocitest.FakeELF(t, dir, "fairbench", elf.EM_X86_64, elf.ET_EXEC, false)
	im, err := Build(Options{Binaries: []Binary{{mustPlatform(t, "linux/amd64"), bin}}, Version: "v1", CABundle: ocitest.CABundle(t, dir)})
	if err != nil {
		t.Fatal(err)
	}
	err = im.WriteLayout(dir, "")
	if err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("WriteLayout into a non-empty directory: %v, want a refusal", err)
	}
	if err := im.WriteArchive(filepath.Join(dir, "x.tar"), "Bad Tag"); err == nil || !strings.Contains(err.Error(), "NAME:TAG") {
		t.Errorf("WriteArchive with a bad tag: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.tar")); err == nil {
		t.Error("a refused WriteArchive left a file")
	}
}
