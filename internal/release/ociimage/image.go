package ociimage

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// DefaultSource is the org.opencontainers.image.source label when Options.Source is empty.
const DefaultSource = "https://github.com/fairbench/fairbench"

// Binary is the fairbench binary for one platform.
type Binary struct {
	Platform Platform
	Path     string
}

// Options say what goes into the image.
type Options struct {
	Binaries []Binary // one static binary per platform, at least one
	Version  string   // required: org.opencontainers.image.version
	Revision string   // the commit: org.opencontainers.image.revision, omitted when empty
	Source   string   // org.opencontainers.image.source; DefaultSource when empty
	// Created is the image's creation time and every file's time in the
	// layer (take it from SOURCE_DATE_EPOCH); the Unix epoch when zero.
	Created  time.Time
	CABundle string // the CA bundle file to ship; DefaultCABundle when empty
}

// Image is a built multi-platform image, ready to write.
type Image struct {
	// Index is the multi-platform image index: one image manifest per platform.
	Index v1.ImageIndex
	// Created is the creation time, also the time of the files WriteArchive writes.
	Created time.Time
}

// Build assembles the multi-platform image index: for each binary, in
// platform order, one image with one layer (see rootfs) and the Dockerfile's
// config. The same options and file contents give the same digests.
func Build(o Options) (*Image, error) {
	if len(o.Binaries) == 0 {
		return nil, errors.New("no binaries: give at least one, e.g. linux/amd64=dist/fairbench-linux-amd64")
	}
	if o.Version == "" {
		return nil, errors.New("no version: give the version the binaries were stamped with, e.g. v1.2.3")
	}
	bins := slices.Clone(o.Binaries)
	slices.SortFunc(bins, func(a, b Binary) int { return strings.Compare(a.Platform.String(), b.Platform.String()) })
	for i := 1; i < len(bins); i++ {
		if bins[i].Platform == bins[i-1].Platform {
			return nil, fmt.Errorf("two binaries for %s (%s and %s): give one per platform", bins[i].Platform, bins[i-1].Path, bins[i].Path)
		}
	}
	ca, err := readCABundle(o.CABundle)
	if err != nil {
		return nil, err
	}
	created := o.Created
	if created.IsZero() {
		created = time.Unix(0, 0)
	}
	created = created.UTC().Truncate(time.Second)
	labels := o.labels(created)

	adds := make([]mutate.IndexAddendum, 0, len(bins))
	for _, b := range bins {
		img, err := platformImage(b, ca, created, labels)
		if err != nil {
			return nil, err
		}
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: b.Platform.v1()}})
	}
	idx := mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex), adds...)
	annotated, ok := mutate.Annotations(idx, maps.Clone(labels)).(v1.ImageIndex)
	if !ok {
		return nil, errors.New("annotating the image index: unexpected type") // cannot happen: Annotations keeps an index an index
	}
	plain, err := withoutArtifactTypes(annotated)
	if err != nil {
		return nil, err
	}
	return &Image{Index: plain, Created: created}, nil
}

// labels are the org.opencontainers.image.* labels of every image config,
// also the index's annotations.
func (o Options) labels(created time.Time) map[string]string {
	source := o.Source
	if source == "" {
		source = DefaultSource
	}
	l := map[string]string{
		"org.opencontainers.image.title":   "fairbench",
		"org.opencontainers.image.version": o.Version,
		"org.opencontainers.image.source":  source,
		"org.opencontainers.image.created": created.Format(time.RFC3339),
	}
	if o.Revision != "" {
		l["org.opencontainers.image.revision"] = o.Revision
	}
	return l
}

// readCABundle reads the CA bundle and checks that it holds certificates.
func readCABundle(path string) ([]byte, error) {
	if path == "" {
		path = DefaultCABundle
	}
	ca, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("CA bundle %s does not exist: install the ca-certificates package or give another bundle (--ca-bundle FILE)", path)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the CA bundle: %w", err)
	}
	if !bytes.Contains(ca, []byte("-----BEGIN CERTIFICATE-----")) {
		return nil, fmt.Errorf("CA bundle %s holds no PEM certificates: give a bundle such as Debian's /etc/ssl/certs/ca-certificates.crt", path)
	}
	return ca, nil
}

// platformImage builds one platform's image: its layer, then its config.
func platformImage(b Binary, ca []byte, created time.Time, labels map[string]string) (v1.Image, error) {
	if err := CheckBinary(b.Path, b.Platform); err != nil {
		return nil, err
	}
	bin, err := os.ReadFile(b.Path)
	if err != nil {
		return nil, fmt.Errorf("binary for %s: %w", b.Platform, err)
	}
	raw, err := layerTar(rootfs(bin, ca), created)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Platform, err)
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(raw)), nil },
		tarball.WithMediaType(types.OCILayer), tarball.WithCompressionLevel(gzip.DefaultCompression), tarball.WithCompressedCaching)
	if err != nil {
		return nil, fmt.Errorf("%s layer: %w", b.Platform, err)
	}
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{
		Layer:     layer,
		MediaType: types.OCILayer,
		History: v1.History{
			Created:   v1.Time{Time: created},
			CreatedBy: "fairbench ociimage: the Dockerfile's final stage (CA bundle, /tmp, /work, " + BinaryPath + ")",
		},
	})
	if err != nil {
		return nil, fmt.Errorf("%s image: %w", b.Platform, err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("%s config: %w", b.Platform, err)
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Variant = b.Platform.OS, b.Platform.Architecture, b.Platform.Variant
	cf.Created = v1.Time{Time: created}
	cf.Config = v1.Config{
		User:       User,
		Env:        []string{DefaultPathEnv},
		Entrypoint: entrypoint(),
		Cmd:        cmd(),
		WorkingDir: WorkingDir,
		Labels:     labels,
	}
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, fmt.Errorf("%s config: %w", b.Platform, err)
	}
	return img, nil
}
