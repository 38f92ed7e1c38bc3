package ociimage

import (
	"debug/elf"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/release/ociimage/ocitest"
)

func TestParsePlatform(t *testing.T) {
	tests := []struct {
		in      string
		want    Platform
		wantErr string
	}{
		{in: "linux/amd64", want: Platform{"linux", "amd64", ""}},
		{in: "linux/arm64", want: Platform{"linux", "arm64", "v8"}},
		{in: "linux/arm64/v8", want: Platform{"linux", "arm64", "v8"}},
		{in: "linux/arm64/v7", wantErr: "linux/arm64 images have variant v8"},
		{in: "linux/amd64/v3", wantErr: "linux/amd64 images have no variant"},
		{in: "linux/amd64/", wantErr: "no variant"},
		{in: "windows/amd64", wantErr: "linux only"},
		{in: "linux/riscv64", wantErr: "unsupported architecture"},
		{in: "amd64", wantErr: "give os/arch"},
		{in: "", wantErr: "give os/arch"},
		{in: "linux/arm64/v8/x", wantErr: "give os/arch"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParsePlatform(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParsePlatform(%q) = %v, %v; want an error with %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParsePlatform(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
			if s := got.String(); s != tt.in && s != tt.in+"/v8" {
				t.Errorf("String() = %q", s)
			}
		})
	}
}

func TestCheckBinary(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "script")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho fairbench\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		path     string
		platform string
		wantErr  []string // empty: no error
	}{
		{"static amd64", ocitest.FakeELF(t, dir, "a", elf.EM_X86_64, elf.ET_EXEC, false), "linux/amd64", nil},
		{"static arm64", ocitest.FakeELF(t, dir, "b", elf.EM_AARCH64, elf.ET_EXEC, false), "linux/arm64", nil},
		{"static PIE", ocitest.FakeELF(t, dir, "c", elf.EM_AARCH64, elf.ET_DYN, false), "linux/arm64", nil},
		{"arm64 as amd64", ocitest.FakeELF(t, dir, "d", elf.EM_AARCH64, elf.ET_EXEC, false), "linux/amd64",
			[]string{"is a linux/arm64 binary (ELF machine EM_AARCH64), not linux/amd64", "GOARCH=amd64"}},
		{"another machine", ocitest.FakeELF(t, dir, "e", elf.EM_RISCV, elf.ET_EXEC, false), "linux/arm64",
			[]string{"is a EM_RISCV binary", "GOARCH=arm64"}},
		{"dynamic", ocitest.FakeELF(t, dir, "f", elf.EM_AARCH64, elf.ET_EXEC, true), "linux/arm64",
			[]string{"dynamically linked", ocitest.Interp, "CGO_ENABLED=0"}},
		{"object file", ocitest.FakeELF(t, dir, "g", elf.EM_X86_64, elf.ET_REL, false), "linux/amd64",
			[]string{"ELF ET_REL, not an executable"}},
		{"shell script", script, "linux/amd64", []string{"not a linux executable", "CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build"}},
		{"missing", filepath.Join(dir, "nope"), "linux/amd64", []string{"does not exist", "build it first"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckBinary(tt.path, mustPlatform(t, tt.platform))
			if len(tt.wantErr) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatal("CheckBinary accepted it")
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestValidateTag(t *testing.T) {
	for tag, valid := range map[string]bool{
		"":                                      true,
		"ghcr.io/fairbench/fairbench:v1.2.3":    true,
		"localhost:5000/fairbench:latest":       true,
		"fairbench:v1.2.3-4-gabc1234-dirty":     true,
		"registry.example.com/a/b/c:x_y":        true,
		"ghcr.io/fairbench/fairbench":           false, // no tag
		"ghcr.io/FairBench/fairbench:v1":        false, // upper-case name
		"ghcr.io/fairbench/fairbench:-v1":       false,
		"ghcr.io/fairbench/fairbench:v1 ":       false,
		"ghcr.io/fairbench/fairbench@sha256:":   false,
		":v1":                                   false,
		"fairbench:" + strings.Repeat("x", 129): false,
		strings.Repeat("a", 256) + ":v1":        false,
	} {
		if err := ValidateTag(tag); (err == nil) != valid {
			t.Errorf("ValidateTag(%q) = %v, want valid=%v", tag, err, valid)
		}
	}
}
