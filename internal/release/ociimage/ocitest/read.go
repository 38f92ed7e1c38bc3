package ocitest

import (
	"archive/tar"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// ExtractTar unpacks the tar file into a new directory and returns it with
// the headers in archive order.
func ExtractTar(t testing.TB, path string) (string, []*tar.Header) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dir := t.TempDir()
	var headers []*tar.Header
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		headers = append(headers, h)
		dst := filepath.Join(dir, filepath.FromSlash(h.Name))
		if h.Typeflag == tar.TypeDir {
			if err := os.MkdirAll(dst, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, headers
}

// ReadLayout reads an OCI layout directory the way crane does: index.json
// must have one entry, the multi-platform index, which it returns with the
// entry's descriptor.
func ReadLayout(t testing.TB, dir string) (v1.Descriptor, v1.ImageIndex) {
	t.Helper()
	top, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatalf("reading the OCI layout: %v", err)
	}
	m, err := top.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Manifests) != 1 {
		t.Fatalf("index.json has %d entries, want 1 (the multi-platform index)", len(m.Manifests))
	}
	idx, err := top.ImageIndex(m.Manifests[0].Digest)
	if err != nil {
		t.Fatalf("the multi-platform index: %v", err)
	}
	return m.Manifests[0], idx
}

// LayerFile returns the contents and header of the file name (relative, as
// "usr/local/bin/fairbench") in the image's only layer.
func LayerFile(t testing.TB, img v1.Image, name string) ([]byte, *tar.Header) {
	t.Helper()
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	if len(layers) != 1 {
		t.Fatalf("%d layers, want 1", len(layers))
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			t.Fatalf("the layer has no %s", name)
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Name == name {
			data, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			return data, h
		}
	}
}
