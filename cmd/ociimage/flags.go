package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/release/ociimage"
)

// config is the parsed command line and environment.
type config struct {
	opts    ociimage.Options
	out     string
	archive bool // out names an oci-archive (.tar), not a layout directory
	tag     string
}

// binaries is the repeatable --binary PLATFORM=PATH flag.
type binaries []ociimage.Binary

func (b *binaries) String() string {
	parts := make([]string, len(*b))
	for i, x := range *b {
		parts[i] = x.Platform.String() + "=" + x.Path
	}
	return strings.Join(parts, ",")
}

func (b *binaries) Set(s string) error {
	plat, path, ok := strings.Cut(s, "=")
	if !ok || path == "" {
		return fmt.Errorf("%q: give PLATFORM=PATH, e.g. linux/amd64=dist/fairbench-linux-amd64", s)
	}
	p, err := ociimage.ParsePlatform(plat)
	if err != nil {
		return err
	}
	*b = append(*b, ociimage.Binary{Platform: p, Path: path})
	return nil
}

const usage = `ociimage builds fairbench's multi-platform container image (the Dockerfile's image)
from static binaries, without a container engine, as an oci-archive (--out FILE.tar)
or an OCI image layout directory (--out DIR). make image-oci runs it.

  SOURCE_DATE_EPOCH=$(git log -1 --format=%ct) go run ./cmd/ociimage \
      --binary linux/amd64=bin/fairbench-linux-amd64 --binary linux/arm64=bin/fairbench-linux-arm64 \
      --version v1.2.3 --revision $(git rev-parse --short HEAD) \
      --tag ghcr.io/fairbench/fairbench:v1.2.3 --out dist/fairbench-v1.2.3-oci.tar

The image's creation time and file times come from SOURCE_DATE_EPOCH (Unix seconds;
1970-01-01 when unset), so the same inputs give the same digests.

Flags:
`

// parseFlags reads the command line and SOURCE_DATE_EPOCH. It returns
// flag.ErrHelp after printing the usage for -h.
func parseFlags(args []string, stderr io.Writer, getenv func(string) string) (*config, error) {
	c := &config{}
	var bins binaries
	fs := flag.NewFlagSet("ociimage", flag.ContinueOnError)
	// The flag package's own messages are dropped: the error is returned and
	// printed once, and the usage only for -h.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.Var(&bins, "binary", "the static fairbench binary for `PLATFORM=PATH`, PLATFORM linux/amd64 or linux/arm64 (repeat for each)")
	fs.StringVar(&c.opts.Version, "version", "", "the version the binaries were stamped with (required): label org.opencontainers.image.version")
	fs.StringVar(&c.opts.Revision, "revision", "", "the commit: label org.opencontainers.image.revision")
	fs.StringVar(&c.opts.Source, "source", ociimage.DefaultSource, "the repository URL: label org.opencontainers.image.source")
	fs.StringVar(&c.opts.CABundle, "ca-bundle", ociimage.DefaultCABundle, "the CA certificates to ship as "+ociimage.CABundlePath)
	fs.StringVar(&c.out, "out", "", "where to write: FILE.tar for an oci-archive, otherwise an OCI layout directory (required)")
	fs.StringVar(&c.tag, "tag", "", "the image's name in the output, `NAME:TAG`, e.g. ghcr.io/fairbench/fairbench:v1.2.3")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			io.WriteString(stderr, usage)
			fs.SetOutput(stderr)
			fs.PrintDefaults()
			return nil, err
		}
		return nil, fmt.Errorf("%w (ociimage -h lists the flags)", err)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q: every input is a flag (-h lists them)", fs.Arg(0))
	}
	switch {
	case len(bins) == 0:
		return nil, errors.New("no --binary: give --binary linux/amd64=PATH and/or --binary linux/arm64=PATH")
	case c.opts.Version == "":
		return nil, errors.New("no --version: give the version the binaries were stamped with, e.g. --version v1.2.3")
	case c.out == "":
		return nil, errors.New("no --out: give FILE.tar for an oci-archive or DIR for an OCI layout directory")
	}
	if err := ociimage.ValidateTag(c.tag); err != nil {
		return nil, fmt.Errorf("--tag: %w", err)
	}
	if parent := filepath.Dir(c.out); parent != "" {
		if info, err := os.Stat(parent); err != nil || !info.IsDir() {
			return nil, fmt.Errorf("--out %s: directory %s does not exist: create it first", c.out, parent)
		}
	}
	c.opts.Binaries = bins
	c.archive = strings.HasSuffix(c.out, ".tar")
	created, err := sourceDateEpoch(getenv("SOURCE_DATE_EPOCH"))
	if err != nil {
		return nil, err
	}
	c.opts.Created = created
	return c, nil
}

// sourceDateEpoch parses SOURCE_DATE_EPOCH; unset means the Unix epoch.
func sourceDateEpoch(v string) (time.Time, error) {
	if v == "" {
		return time.Unix(0, 0).UTC(), nil
	}
	s, err := strconv.ParseInt(v, 10, 64)
	if err != nil || s < 0 {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH=%q is not a Unix time in seconds: set it to e.g. $(git log -1 --format=%%ct), or unset it", v)
	}
	return time.Unix(s, 0).UTC(), nil
}
