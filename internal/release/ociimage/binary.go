package ociimage

import (
	"bytes"
	"debug/buildinfo"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"io/fs"
)

// CheckBinary checks that path is an executable the image can run on p: a
// linux ELF executable for p's architecture (the ELF header's machine field)
// with no dynamic loader, since the image has no C library. Its errors say how
// to build a binary that fits.
func CheckBinary(path string, p Platform) error {
	a, ok := arches[p.Architecture]
	if !ok || p.OS != "linux" {
		return fmt.Errorf("platform %s: fairbench images are linux/amd64 and linux/arm64", p)
	}
	build := fmt.Sprintf("CGO_ENABLED=0 GOOS=linux GOARCH=%s go build -o %s ./cmd/fairbench", p.Architecture, path)
	f, err := elf.Open(path)
	if err != nil {
		var format *elf.FormatError
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("binary for %s: %s does not exist: build it first (%s; make image-oci does)", p, path, build)
		case errors.As(err, &format):
			return fmt.Errorf("binary for %s: %s is not a linux executable (%v): give the fairbench binary built with %s", p, path, err, build)
		}
		return fmt.Errorf("binary for %s: %w", p, err)
	}
	defer f.Close()
	if f.Type != elf.ET_EXEC && f.Type != elf.ET_DYN {
		return fmt.Errorf("binary for %s: %s is an ELF %v, not an executable: build it with %s", p, path, f.Type, build)
	}
	if f.Machine != a.machine {
		return fmt.Errorf("binary for %s: %s is a %s binary (ELF machine %v), not %s: build it with %s",
			p, path, goarchOf(f.Machine), f.Machine, p, build)
	}
	for _, prog := range f.Progs {
		if prog.Type != elf.PT_INTERP {
			continue
		}
		interp, _ := io.ReadAll(io.LimitReader(prog.Open(), 4096))
		return fmt.Errorf("binary for %s: %s is dynamically linked (it needs the loader %s), but the image has no C library: build it static with %s",
			p, path, bytes.TrimRight(interp, "\x00"), build)
	}
	// A Go binary also says which GOOS it was built for (another OS's ELF
	// binaries look the same to the checks above).
	if info, err := buildinfo.ReadFile(path); err == nil {
		for _, s := range info.Settings {
			if s.Key == "GOOS" && s.Value != "linux" {
				return fmt.Errorf("binary for %s: %s is a Go binary for GOOS=%s: build it with %s", p, path, s.Value, build)
			}
		}
	}
	return nil
}
