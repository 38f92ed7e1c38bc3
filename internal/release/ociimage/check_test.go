package ociimage

import (
	"archive/tar"
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// want is what an image built from some binaries must hold.
type want struct {
	version, revision string
	created           time.Time
	ca                []byte
	binaries          map[string][]byte // platform (linux/arm64/v8) → the binary's bytes
}

func wantFrom(t *testing.T, o Options) want {
	t.Helper()
	w := want{version: o.Version, revision: o.Revision, created: o.Created, binaries: map[string][]byte{}}
	var err error
	if w.ca, err = os.ReadFile(o.CABundle); err != nil {
		t.Fatal(err)
	}
	for _, b := range o.Binaries {
		if w.binaries[b.Platform.String()], err = os.ReadFile(b.Path); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func (w want) labels() map[string]string {
	l := map[string]string{
		"org.opencontainers.image.title":   "fairbench",
		"org.opencontainers.image.version": w.version,
		"org.opencontainers.image.source":  DefaultSource,
		"org.opencontainers.image.created": w.created.UTC().Format(time.RFC3339),
	}
	if w.revision != "" {
		l["org.opencontainers.image.revision"] = w.revision
	}
	return l
}

// checkIndex checks the multi-platform index and every image in it, and
// returns the images by platform.
func checkIndex(t *testing.T, idx v1.ImageIndex, w want) map[string]v1.Image {
	t.Helper()
	if mt, _ := idx.MediaType(); mt != "application/vnd.oci.image.index.v1+json" {
		t.Errorf("index media type %s, want the OCI image index", mt)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(m.Annotations, w.labels()) {
		t.Errorf("index annotations %v, want %v", m.Annotations, w.labels())
	}
	var platforms []string
	images := map[string]v1.Image{}
	for _, d := range m.Manifests {
		if d.Platform == nil {
			t.Fatalf("manifest %s has no platform", d.Digest)
		}
		p := Platform{OS: d.Platform.OS, Architecture: d.Platform.Architecture, Variant: d.Platform.Variant}.String()
		platforms = append(platforms, p)
		if d.MediaType != "application/vnd.oci.image.manifest.v1+json" || d.ArtifactType != "" {
			t.Errorf("%s: descriptor media type %s, artifactType %q: want an OCI image manifest without artifactType", p, d.MediaType, d.ArtifactType)
		}
		img, err := idx.Image(d.Digest)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		images[p] = img
		t.Run(p, func(t *testing.T) { checkImage(t, img, d.Platform, w, w.binaries[p]) })
	}
	wantPlatforms := slices.Sorted(maps.Keys(w.binaries))
	if !slices.Equal(platforms, wantPlatforms) {
		t.Errorf("index platforms %v, want %v in this order", platforms, wantPlatforms)
	}
	return images
}

// checkImage checks one platform's config and layer.
func checkImage(t *testing.T, img v1.Image, p *v1.Platform, w want, binary []byte) {
	if mt, _ := img.MediaType(); mt != "application/vnd.oci.image.manifest.v1+json" {
		t.Errorf("manifest media type %s", mt)
	}
	m, err := img.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	if m.Config.MediaType != "application/vnd.oci.image.config.v1+json" {
		t.Errorf("config media type %s", m.Config.MediaType)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cf.OS != p.OS || cf.Architecture != p.Architecture || cf.Variant != p.Variant {
		t.Errorf("config platform %s/%s/%s, index says %s/%s/%s", cf.OS, cf.Architecture, cf.Variant, p.OS, p.Architecture, p.Variant)
	}
	if p.Architecture == "arm64" && p.Variant != "v8" {
		t.Errorf("arm64 variant %q, want v8", p.Variant)
	}
	if !cf.Created.Equal(w.created) {
		t.Errorf("created %v, want %v (SOURCE_DATE_EPOCH)", cf.Created.Time, w.created)
	}
	c := cf.Config
	if c.User != "65532:65532" || c.WorkingDir != "/work" ||
		!slices.Equal(c.Entrypoint, []string{"/usr/local/bin/fairbench"}) || !slices.Equal(c.Cmd, []string{"--help"}) ||
		!slices.Equal(c.Env, []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}) {
		t.Errorf("config User %q WorkingDir %q Entrypoint %q Cmd %q Env %q: want the Dockerfile's", c.User, c.WorkingDir, c.Entrypoint, c.Cmd, c.Env)
	}
	if !maps.Equal(c.Labels, w.labels()) {
		t.Errorf("labels %v, want %v", c.Labels, w.labels())
	}
	if len(cf.History) != 1 || !cf.History[0].Created.Equal(w.created) {
		t.Errorf("history %+v, want one entry at %v", cf.History, w.created)
	}
	checkLayer(t, layerFiles(t, img), w, binary)
}

// checkLayer checks the layer's entries against the Dockerfile's final stage.
func checkLayer(t *testing.T, files []layerFile, w want, binary []byte) {
	t.Helper()
	// Each entry as "name type mode uid:gid", the type as tar's flag ('5' directory, '0' file).
	wantMeta := []string{
		"etc/ 5 0755 0:0",
		"etc/ssl/ 5 0755 0:0",
		"etc/ssl/certs/ 5 0755 0:0",
		"etc/ssl/certs/ca-certificates.crt 0 0644 0:0",
		"tmp/ 5 01777 0:0",
		"usr/ 5 0755 0:0",
		"usr/local/ 5 0755 0:0",
		"usr/local/bin/ 5 0755 0:0",
		"usr/local/bin/fairbench 0 0755 0:0",
		"work/ 5 0755 65532:65532",
	}
	var got []string
	for _, f := range files {
		h := f.hdr
		got = append(got, fmt.Sprintf("%s %c %#o %d:%d", h.Name, h.Typeflag, h.Mode, h.Uid, h.Gid))
		if !h.ModTime.Equal(w.created) || h.Uname != "" || h.Gname != "" {
			t.Errorf("layer %s: time %v owner names %q:%q, want %v and numeric owners only", h.Name, h.ModTime, h.Uname, h.Gname, w.created)
		}
		switch h.Name {
		case "usr/local/bin/fairbench":
			if !bytes.Equal(f.data, binary) {
				t.Errorf("layer %s: %d bytes differ from the binary's %d", h.Name, len(f.data), len(binary))
			}
		case "etc/ssl/certs/ca-certificates.crt":
			if !bytes.Equal(f.data, w.ca) {
				t.Errorf("layer %s differs from the CA bundle", h.Name)
			}
		}
	}
	if !slices.Equal(got, wantMeta) {
		t.Errorf("layer entries:\n%s\nwant the Dockerfile's final stage (no /etc/passwd):\n%s", strings.Join(got, "\n"), strings.Join(wantMeta, "\n"))
	}
}

// extractBinary writes the layer's fairbench to a new executable file.
func extractBinary(t *testing.T, img v1.Image) string {
	t.Helper()
	for _, f := range layerFiles(t, img) {
		if f.hdr.Name == BinaryPath[1:] {
			path := filepath.Join(t.TempDir(), "fairbench")
			if err := os.WriteFile(path, f.data, os.FileMode(f.hdr.Mode).Perm()); err != nil {
				t.Fatal(err)
			}
			return path
		}
	}
	t.Fatalf("the layer has no %s", BinaryPath)
	return ""
}

// checkArchiveEntries checks that an oci-archive's entries are in name order,
// owned by 0:0 at created, and hold the OCI layout.
func checkArchiveEntries(t *testing.T, headers []*tar.Header, created time.Time) {
	t.Helper()
	var names []string
	for _, h := range headers {
		names = append(names, h.Name)
		if h.Uid != 0 || h.Gid != 0 || !h.ModTime.Equal(created) {
			t.Errorf("archive entry %s: owner %d:%d time %v, want 0:0 at %v", h.Name, h.Uid, h.Gid, h.ModTime, created)
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("archive entries are not in name order: %v", names)
	}
	for _, n := range []string{"oci-layout", "index.json", "blobs/", "blobs/sha256/"} {
		if !slices.Contains(names, n) {
			t.Errorf("archive lacks %s: %v", n, names)
		}
	}
}
