// Package ociimage assembles fairbench's multi-platform container image from
// per-architecture static binaries, without a container engine: the image the
// Dockerfile's final stage describes (see rootfs.go), written as an OCI image
// layout directory or as an oci-archive tar.
//
// Each platform gets one gzip layer holding the Dockerfile's files (the CA
// bundle, /tmp 1777, /work owned by 65532, /usr/local/bin/fairbench; no
// /etc/passwd, like the Dockerfile's image) and a config with the Dockerfile's
// USER, WORKDIR, ENTRYPOINT, CMD and BuildKit's default PATH, plus
// org.opencontainers.image.* labels, which are also the index's annotations.
// The output is reproducible: tar entries have a fixed order, numeric owners
// and one time (Options.Created, from SOURCE_DATE_EPOCH in cmd/ociimage), gzip
// headers carry no time, and platforms are sorted, so the same binaries, CA
// bundle and metadata give the same digests (with the same Go toolchain, whose
// compress/flate makes the gzip bytes).
//
// The layout's index.json has one entry, the multi-platform image index,
// named by the tag when one is given (org.opencontainers.image.ref.name and
// io.containerd.image.name, both the full NAME:TAG). Which tools read which
// output (checked with skopeo 1.9, podman 4.3 and crane 0.22; docker from the
// moby sources):
//
//   - oci-archive (WriteArchive): skopeo, as oci-archive:FILE (push with
//     `skopeo copy --all --preserve-digests oci-archive:FILE docker://REF`,
//     which keeps the digests ociimage prints); `podman load -i FILE` (loads
//     the host's platform under the tag); `docker load -i FILE` only with the
//     containerd image store (the default of Docker Engine 29 and Docker
//     Desktop 4.34 fresh installs): the classic store's loader requires a
//     docker-save manifest.json, which an OCI archive does not have, so there
//     use `skopeo copy oci-archive:FILE docker-daemon:REF`. crane does not
//     read it (crane push takes a docker-save tarball or a layout directory).
//   - OCI layout directory (WriteLayout, or the archive unpacked):
//     `crane push DIR REF` (pushes the multi-platform index, since index.json
//     has one entry) and skopeo as oci:DIR.
package ociimage
