package ociimage

import (
	"debug/elf"
	"fmt"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// Platform is an image platform: linux with a Go architecture name and, for
// arm64, the variant (always "v8").
type Platform struct {
	OS           string // "linux"
	Architecture string // GOARCH: "amd64", "arm64"
	Variant      string // "v8" for arm64, "" otherwise
}

// String returns the platform as os/arch[/variant], the form --binary and
// docker --platform take.
func (p Platform) String() string {
	s := p.OS + "/" + p.Architecture
	if p.Variant != "" {
		s += "/" + p.Variant
	}
	return s
}

// v1 returns the platform as go-containerregistry's descriptor platform.
func (p Platform) v1() *v1.Platform {
	return &v1.Platform{OS: p.OS, Architecture: p.Architecture, Variant: p.Variant}
}

// arch describes one architecture the image can be built for.
type arch struct {
	machine elf.Machine // the ELF header's e_machine of its binaries
	variant string      // the only variant accepted, also the default
}

// arches are the architectures fairbench ships (make release's ARCHES).
var arches = map[string]arch{
	"amd64": {machine: elf.EM_X86_64},
	"arm64": {machine: elf.EM_AARCH64, variant: "v8"},
}

// ParsePlatform parses os/arch[/variant] (linux/amd64, linux/arm64,
// linux/arm64/v8); arm64 without a variant is v8.
func ParsePlatform(s string) (Platform, error) {
	parts := strings.Split(s, "/")
	if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || parts[1] == "" {
		return Platform{}, fmt.Errorf("platform %q: give os/arch, e.g. linux/amd64 or linux/arm64", s)
	}
	p := Platform{OS: parts[0], Architecture: parts[1]}
	if p.OS != "linux" {
		return Platform{}, fmt.Errorf("platform %q: the image is linux only (linux/amd64, linux/arm64)", s)
	}
	a, ok := arches[p.Architecture]
	if !ok {
		return Platform{}, fmt.Errorf("platform %q: unsupported architecture %q: fairbench images are linux/amd64 and linux/arm64", s, p.Architecture)
	}
	p.Variant = a.variant
	if len(parts) == 3 && (parts[2] == "" || parts[2] != a.variant) {
		want := "no variant"
		if a.variant != "" {
			want = "variant " + a.variant
		}
		return Platform{}, fmt.Errorf("platform %q: linux/%s images have %s", s, p.Architecture, want)
	}
	return p, nil
}

// goarchOf returns the Go architecture of an ELF machine, for error messages.
func goarchOf(m elf.Machine) string {
	for name, a := range arches {
		if a.machine == m {
			return "linux/" + name
		}
	}
	return m.String()
}
