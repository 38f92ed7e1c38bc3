package main

import (
	"fmt"
	"io"

	"github.com/fairbench/fairbench/internal/release/ociimage"
)

// build builds the image, writes it and prints its digests and how to use it.
func build(c *config, stdout io.Writer) error {
	im, err := ociimage.Build(c.opts)
	if err != nil {
		return err
	}
	kind := "OCI layout directory"
	if c.archive {
		kind = "oci-archive"
		err = im.WriteArchive(c.out, c.tag)
	} else {
		err = im.WriteLayout(c.out, c.tag)
	}
	if err != nil {
		return err
	}
	digest, err := im.Index.Digest()
	if err != nil {
		return fmt.Errorf("image index digest: %w", err)
	}
	manifest, err := im.Index.IndexManifest()
	if err != nil {
		return fmt.Errorf("image index: %w", err)
	}
	name := c.tag
	if name == "" {
		name = "(no --tag)"
	}
	fmt.Fprintf(stdout, "wrote %s (%s): %s %s\n", c.out, kind, name, digest)
	for _, m := range manifest.Manifests {
		fmt.Fprintf(stdout, "  %s %s\n", m.Platform, m.Digest)
	}
	ref := c.tag
	if ref == "" {
		ref = "REGISTRY/fairbench:TAG"
	}
	if c.archive {
		fmt.Fprintf(stdout, "push:  skopeo copy --all --preserve-digests oci-archive:%s docker://%s\n", c.out, ref)
		fmt.Fprintf(stdout, "load:  podman load -i %s; docker load -i %s (containerd image store only, else: skopeo copy oci-archive:%s docker-daemon:%s)\n",
			c.out, c.out, c.out, ref)
	} else {
		fmt.Fprintf(stdout, "push:  crane push %s %s; or skopeo copy --all --preserve-digests oci:%s docker://%s\n", c.out, ref, c.out, ref)
	}
	return nil
}
