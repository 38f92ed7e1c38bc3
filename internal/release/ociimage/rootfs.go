package ociimage

import (
	"archive/tar"
	"bytes"
	"fmt"
	"time"
)

// The Dockerfile's final stage (FROM scratch), which the image reproduces:
// the same files, owners and modes, and the same USER, WORKDIR, ENTRYPOINT and
// CMD. TestMatchesDockerfile keeps the two in step.
const (
	// BinaryPath is where the image holds fairbench, its ENTRYPOINT.
	BinaryPath = "/usr/local/bin/fairbench"
	// CABundlePath is where the image holds the CA certificates for TLS to databases.
	CABundlePath = "/etc/ssl/certs/ca-certificates.crt"
	// WorkingDir is the image's WORKDIR, owned by the runtime user.
	WorkingDir = "/work"
	// UID and GID are the numeric non-root runtime user, so that Kubernetes'
	// runAsNonRoot can verify it; the image has no /etc/passwd, like the Dockerfile's.
	UID, GID = 65532, 65532
	// User is the image config's User.
	User = "65532:65532"
	// DefaultPathEnv is the PATH BuildKit gives an image built FROM scratch.
	DefaultPathEnv = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	// DefaultCABundle is the host's CA bundle (Debian's ca-certificates), the
	// file the Dockerfile copies from its golang builder image.
	DefaultCABundle = "/etc/ssl/certs/ca-certificates.crt"
)

// entrypoint and cmd are the Dockerfile's ENTRYPOINT and CMD.
func entrypoint() []string { return []string{BinaryPath} }
func cmd() []string        { return []string{"--help"} }

// entry is one file or directory of the layer.
type entry struct {
	name     string // relative, directories end in "/"
	mode     int64  // permission bits, with the sticky bit for /tmp
	uid, gid int
	data     []byte // regular files only
}

// rootfs lists the layer's entries in the order they are written: every
// directory before what it holds, sorted by name. The parents the Dockerfile's
// COPY creates are root-owned 0755; /tmp (1777, root) and /work (0755, 65532)
// keep the builder's modes and owners, as COPY --from does.
func rootfs(binary, caBundle []byte) []entry {
	dir := func(name string) entry { return entry{name: name, mode: 0o755} }
	return []entry{
		dir("etc/"),
		dir("etc/ssl/"),
		dir("etc/ssl/certs/"),
		{name: CABundlePath[1:], mode: 0o644, data: caBundle},
		{name: "tmp/", mode: 0o1777},
		dir("usr/"),
		dir("usr/local/"),
		dir("usr/local/bin/"),
		{name: BinaryPath[1:], mode: 0o755, data: binary},
		{name: WorkingDir[1:] + "/", mode: 0o755, uid: UID, gid: GID},
	}
}

// layerTar writes entries as an uncompressed tar with every time set to mtime
// and numeric owners only, so that the same entries give the same bytes.
func layerTar(entries []entry, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{
			Name:     e.name,
			Mode:     e.mode,
			Uid:      e.uid,
			Gid:      e.gid,
			ModTime:  mtime,
			Typeflag: tar.TypeReg,
			Size:     int64(len(e.data)),
			Format:   tar.FormatUSTAR,
		}
		if e.name[len(e.name)-1] == '/' {
			h.Typeflag, h.Size = tar.TypeDir, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, fmt.Errorf("layer entry %s: %w", e.name, err)
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, fmt.Errorf("layer entry %s: %w", e.name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("layer: %w", err)
	}
	return buf.Bytes(), nil
}
