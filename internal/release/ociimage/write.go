package ociimage

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
)

// tagPattern is the Docker reference grammar (distribution/reference) for
// NAME:TAG, without IPv6 hosts and digests.
var tagPattern = func() *regexp.Regexp {
	domainComponent := `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`
	domain := domainComponent + `(?:\.` + domainComponent + `)*(?::[0-9]+)?`
	pathComponent := `[a-z0-9]+(?:(?:[_.]|__|-+)[a-z0-9]+)*`
	name := `(?:` + domain + `/)?` + pathComponent + `(?:/` + pathComponent + `)*`
	return regexp.MustCompile(`^` + name + `:[\w][\w.-]{0,127}$`)
}()

// ValidateTag checks that tag is an image reference NAME:TAG, such as
// ghcr.io/fairbench/fairbench:v1.2.3; the empty tag (no name) is valid too.
func ValidateTag(tag string) error {
	if tag == "" || tagPattern.MatchString(tag) && strings.LastIndexByte(tag, ':') <= 255 { // names are at most 255 characters
		return nil
	}
	return fmt.Errorf("tag %q is not an image reference NAME:TAG such as ghcr.io/fairbench/fairbench:v1.2.3 (a lower-case name; a tag of letters, digits, '_', '.' and '-')", tag)
}

// top wraps the multi-platform index in the layout's top-level index
// (index.json), one entry named tag when tag is not empty: containerd (docker
// load) and podman read io.containerd.image.name first, skopeo and crane
// org.opencontainers.image.ref.name.
func (im *Image) top(tag string) (v1.ImageIndex, error) {
	if err := ValidateTag(tag); err != nil {
		return nil, err
	}
	var ann map[string]string
	if tag != "" {
		ann = map[string]string{"org.opencontainers.image.ref.name": tag, "io.containerd.image.name": tag}
	}
	return mutate.AppendManifests(empty.Index, mutate.IndexAddendum{Add: im.Index, Descriptor: v1.Descriptor{Annotations: ann}}), nil
}

// WriteLayout writes the image as an OCI image layout directory dir (which
// must not exist or be empty), the form crane push and skopeo's oci: read.
func (im *Image) WriteLayout(dir, tag string) error {
	top, err := im.top(tag)
	if err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("OCI layout directory: %w", err)
	}
	if len(entries) > 0 {
		return fmt.Errorf("OCI layout directory %s exists and is not empty: remove it or give another", dir)
	}
	if _, err := layout.Write(dir, top); err != nil {
		return fmt.Errorf("writing the OCI layout %s: %w", dir, err)
	}
	return nil
}

// WriteArchive writes the image as an oci-archive: a tar of the OCI layout
// (oci-layout, index.json, blobs/sha256/…) in name order, every entry owned by
// 0:0 at im.Created, so that the same image gives the same file. The file is
// replaced atomically.
func (im *Image) WriteArchive(path, tag string) (err error) {
	parent := filepath.Dir(path)
	dir, err := os.MkdirTemp(parent, ".ociimage-*")
	if err != nil {
		return fmt.Errorf("OCI archive: %w", err)
	}
	defer os.RemoveAll(dir)
	if err := im.WriteLayout(dir, tag); err != nil {
		return err
	}
	f, err := os.CreateTemp(parent, filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("OCI archive: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err := tarDir(f, dir, im.Created); err != nil {
		return fmt.Errorf("writing the OCI archive %s: %w", path, err)
	}
	if err := f.Chmod(0o644); err != nil {
		return fmt.Errorf("OCI archive: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing the OCI archive %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("OCI archive: %w", err)
	}
	return nil
}

// tarDir writes the tree under dir to w in lexical order, every entry owned
// by 0:0 at mtime.
func tarDir(w io.Writer, dir string, mtime time.Time) error {
	tw := tar.NewWriter(w)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		h := &tar.Header{Name: filepath.ToSlash(rel), Mode: 0o644, ModTime: mtime, Typeflag: tar.TypeReg, Format: tar.FormatUSTAR}
		if d.IsDir() {
			h.Name, h.Mode, h.Typeflag = h.Name+"/", 0o755, tar.TypeDir
			return tw.WriteHeader(h)
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file", rel)
		}
		src, err := os.Open(p)
		if err != nil {
			return err
		}
		defer src.Close()
		info, err := src.Stat()
		if err != nil {
			return err
		}
		h.Size = info.Size()
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		_, err = io.Copy(tw, src)
		return err
	})
	if err != nil {
		return err
	}
	return tw.Close()
}
