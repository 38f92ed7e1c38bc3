package main

import (
	"bytes"
	"debug/elf"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/release/ociimage/ocitest"
)

// inputs are valid inputs for the command: header-only static ELF files
// (enough for ociimage, which reads headers) and a CA bundle.
type inputs struct {
	dir, amd64, arm64, dynamic, ca string
}

func newInputs(t *testing.T) inputs {
	dir := t.TempDir()
	return inputs{
		dir:     dir,
		amd64:   ocitest.FakeELF(t, dir, "fairbench-linux-amd64", elf.EM_X86_64, elf.ET_EXEC, false),
		arm64:   ocitest.FakeELF(t, dir, "fairbench-linux-arm64", elf.EM_AARCH64, elf.ET_EXEC, false),
		dynamic: ocitest.FakeELF(t, dir, "fairbench-dynamic", elf.EM_X86_64, elf.ET_EXEC, true),
		ca:      ocitest.CABundle(t, dir),
	}
}

// runCmd runs the command in-process with SOURCE_DATE_EPOCH=env.
func runCmd(args []string, sourceDateEpoch string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	getenv := func(k string) string {
		if k == "SOURCE_DATE_EPOCH" {
			return sourceDateEpoch
		}
		return ""
	}
	code = run(args, &out, &errb, getenv)
	return code, out.String(), errb.String()
}

func TestFlagErrors(t *testing.T) {
	in := newInputs(t)
	out := filepath.Join(in.dir, "image.tar")
	base := func(extra ...string) []string {
		return append([]string{"--version", "v1.2.3", "--ca-bundle", in.ca, "--out", out}, extra...)
	}
	tests := []struct {
		name  string
		args  []string
		epoch string
		code  int
		want  []string
	}{
		{"no binary", base(), "", exitUsage, []string{"no --binary", "--binary linux/amd64=PATH"}},
		{"binary without path", base("--binary", "linux/amd64"), "", exitUsage, []string{"PLATFORM=PATH", "linux/amd64=dist/fairbench-linux-amd64"}},
		{"bad platform", base("--binary", "linux/s390x="+in.amd64), "", exitUsage, []string{"unsupported architecture", "linux/amd64 and linux/arm64"}},
		{"not linux", base("--binary", "darwin/arm64="+in.arm64), "", exitUsage, []string{"linux only"}},
		{"no version", []string{"--binary", "linux/amd64=" + in.amd64, "--out", out}, "", exitUsage, []string{"no --version", "--version v1.2.3"}},
		{"no out", []string{"--binary", "linux/amd64=" + in.amd64, "--version", "v1"}, "", exitUsage, []string{"no --out", "FILE.tar", "DIR"}},
		{"out in a missing directory", []string{"--binary", "linux/amd64=" + in.amd64, "--version", "v1", "--out", filepath.Join(in.dir, "nope", "x.tar")}, "", exitUsage,
			[]string{"does not exist", "create it first"}},
		{"bad tag", base("--binary", "linux/amd64="+in.amd64, "--tag", "Fairbench"), "", exitUsage, []string{"--tag", "NAME:TAG", "ghcr.io/fairbench/fairbench:v1.2.3"}},
		{"bad SOURCE_DATE_EPOCH", base("--binary", "linux/amd64="+in.amd64), "yesterday", exitUsage, []string{"SOURCE_DATE_EPOCH", "git log -1 --format=%ct"}},
		{"unknown flag", base("--platform", "linux/amd64"), "", exitUsage, []string{"-platform", "ociimage -h"}},
		{"argument", base("--binary", "linux/amd64="+in.amd64, "extra"), "", exitUsage, []string{`unexpected argument "extra"`}},
		{"missing binary", base("--binary", "linux/amd64="+filepath.Join(in.dir, "nope")), "", exitError, []string{"does not exist", "make image-oci"}},
		{"wrong architecture", base("--binary", "linux/arm64="+in.amd64), "", exitError, []string{"is a linux/amd64 binary", "not linux/arm64/v8", "GOARCH=arm64"}},
		{"dynamic", base("--binary", "linux/amd64="+in.dynamic), "", exitError, []string{"dynamically linked", "CGO_ENABLED=0"}},
		{"twice one platform", base("--binary", "linux/amd64="+in.amd64, "--binary", "linux/amd64="+in.amd64), "", exitError, []string{"two binaries for linux/amd64"}},
		{"missing CA bundle", append(base("--binary", "linux/amd64="+in.amd64), "--ca-bundle", filepath.Join(in.dir, "none.crt")), "", exitError, []string{"CA bundle", "--ca-bundle FILE"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(tt.args, tt.epoch)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr %q", code, tt.code, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if !strings.HasPrefix(stderr, "ociimage: ") || strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr %q, want one line starting ociimage:", stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a failed run wrote %s", out)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	code, stdout, stderr := runCmd([]string{"-h"}, "")
	if code != exitOK || stdout != "" {
		t.Errorf("-h: exit %d, stdout %q", code, stdout)
	}
	for _, w := range []string{"make image-oci", "SOURCE_DATE_EPOCH", "-binary PLATFORM=PATH", "-tag NAME:TAG", "-ca-bundle", "-revision"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("usage lacks %q:\n%s", w, stderr)
		}
	}
}

// TestWritesArchiveAndLayout: --out FILE.tar writes an oci-archive, any other
// --out an OCI layout directory; both hold the two platforms under the tag,
// and the command prints the digests it wrote.
func TestWritesArchiveAndLayout(t *testing.T) {
	in := newInputs(t)
	const tag = "registry.example.com/you/fairbench:v1.2.3"
	for _, tt := range []struct{ out, kind, hint string }{
		{filepath.Join(in.dir, "image.tar"), "oci-archive", "skopeo copy --all --preserve-digests oci-archive:"},
		{filepath.Join(in.dir, "layout"), "OCI layout directory", "crane push "},
	} {
		t.Run(tt.kind, func(t *testing.T) {
			code, stdout, stderr := runCmd([]string{
				"--binary", "linux/arm64=" + in.arm64, "--binary", "linux/amd64=" + in.amd64,
				"--version", "v1.2.3", "--revision", "abc1234", "--ca-bundle", in.ca, "--tag", tag, "--out", tt.out,
			}, "1700000000")
			if code != exitOK || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			dir := tt.out
			if strings.HasSuffix(tt.out, ".tar") {
				dir, _ = ocitest.ExtractTar(t, tt.out)
			}
			desc, idx := ocitest.ReadLayout(t, dir)
			if desc.Annotations["org.opencontainers.image.ref.name"] != tag {
				t.Errorf("index.json annotations %v, want the tag %s", desc.Annotations, tag)
			}
			m, err := idx.IndexManifest()
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Manifests) != 2 || m.Manifests[0].Platform.Architecture != "amd64" || m.Manifests[1].Platform.Architecture != "arm64" {
				t.Fatalf("index manifests %+v, want amd64 then arm64", m.Manifests)
			}
			if m.Annotations["org.opencontainers.image.created"] != "2023-11-14T22:13:20Z" || m.Annotations["org.opencontainers.image.revision"] != "abc1234" {
				t.Errorf("index annotations %v, want created from SOURCE_DATE_EPOCH and the revision", m.Annotations)
			}
			for _, w := range []string{
				"wrote " + tt.out + " (" + tt.kind + "): " + tag + " " + desc.Digest.String() + "\n",
				"  linux/amd64 " + m.Manifests[0].Digest.String() + "\n",
				"  linux/arm64/v8 " + m.Manifests[1].Digest.String() + "\n",
				tt.hint,
			} {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
		})
	}
}
