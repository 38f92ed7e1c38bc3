package ociimage

import (
	"bytes"
	"encoding/json"
	"fmt"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// plainIndex is an image index whose manifest descriptors have no
// artifactType. go-containerregistry sets it to the config's media type on
// every image descriptor (which OCI 1.1 allows), but tools built on
// containers/image before OCI 1.1 support (skopeo 1.9 in Debian 12, and the
// podman of the same age) drop the unknown field and so rewrite the index
// under another digest when they copy it; buildx leaves it out too. The images
// come from the wrapped index.
type plainIndex struct {
	base     v1.ImageIndex
	manifest *v1.IndexManifest
	raw      []byte
	digest   v1.Hash
}

// withoutArtifactTypes wraps idx as a plainIndex.
func withoutArtifactTypes(idx v1.ImageIndex) (*plainIndex, error) {
	m, err := idx.IndexManifest()
	if err != nil {
		return nil, fmt.Errorf("image index: %w", err)
	}
	for i := range m.Manifests {
		m.Manifests[i].ArtifactType = ""
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("image index: %w", err)
	}
	digest, _, err := v1.SHA256(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("image index: %w", err)
	}
	return &plainIndex{base: idx, manifest: m, raw: raw, digest: digest}, nil
}

// Digest returns the sha256 of RawManifest.
func (p *plainIndex) Digest() (v1.Hash, error) { return p.digest, nil }

// Size returns the length of RawManifest.
func (p *plainIndex) Size() (int64, error) { return int64(len(p.raw)), nil }

// IndexManifest returns a copy of the index manifest.
func (p *plainIndex) IndexManifest() (*v1.IndexManifest, error) { return p.manifest.DeepCopy(), nil }

// RawManifest returns the serialized index manifest.
func (p *plainIndex) RawManifest() ([]byte, error) { return p.raw, nil }

// MediaType returns the index's media type.
func (p *plainIndex) MediaType() (types.MediaType, error) { return p.base.MediaType() }

// Image returns the image with digest h.
func (p *plainIndex) Image(h v1.Hash) (v1.Image, error) { return p.base.Image(h) }

// ImageIndex returns the nested index with digest h (there is none).
func (p *plainIndex) ImageIndex(h v1.Hash) (v1.ImageIndex, error) { return p.base.ImageIndex(h) }
