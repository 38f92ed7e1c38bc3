// Package servermachine describes the machines a database server ran on
// (result.Result.ServerMachines): found on this machine when the server is
// local (a Unix socket, a loopback address, a server fairbench manages), read
// from `fairbench sysinfo --format json` files of the database hosts
// (--server-machine), or given with the --server-* flags. The agent and
// Kubernetes sources live elsewhere.
package servermachine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/base/bytesize"
	"github.com/fairbench/fairbench/internal/base/lazyre"
)

// Spec is what the user said about the server's machines: the --server-*
// flags of run, suite and import, or the same keys in a plan (yaml tags). The
// zero Spec says nothing: the machine is then found when the server is local.
type Spec struct {
	// Files are `fairbench sysinfo --format json` outputs of the database
	// hosts (--server-machine [ROLE=]FILE,…), one machine each.
	Files []FileRef `yaml:"files"`
	// Role is the part of the database the machine described by the other
	// fields runs (--server-role; default RoleServer). With several machines
	// it names the one the fields describe.
	Role string `yaml:"role"`
	// Arch, CPUModel, VCPUs, GHz and Memory describe the machine
	// (--server-arch, --server-cpu-model, --server-vcpus, --server-ghz,
	// --server-memory); they override the fields of a machine found locally
	// or read from a file. Memory is a size: "64GiB", "64G", bytes.
	Arch     string  `yaml:"arch"`
	CPUModel string  `yaml:"cpu_model"`
	VCPUs    int     `yaml:"vcpus"`
	GHz      float64 `yaml:"ghz"`
	Memory   string  `yaml:"memory"`
	// InstanceType, Region and Zone place it in a cloud (--server-instance-type,
	// --server-region, --server-zone).
	InstanceType string `yaml:"instance_type"`
	Region       string `yaml:"region"`
	Zone         string `yaml:"zone"`
	// PID names the local server's process (--server-pid) when fairbench
	// cannot find it by its socket or port.
	PID int `yaml:"pid"`

	memoryBytes int64 // Memory parsed by Validate
}

// FileRef is one --server-machine file with the role of its machine ("" for
// the file's own role, or RoleServer).
type FileRef struct {
	Role string `yaml:"role"`
	File string `yaml:"file"`
}

// FieldError is an invalid value of Spec: Flag names it as a flag
// ("--server-vcpus"), Key as a plan key ("vcpus"), so that each caller can
// point at what the user wrote. Error uses the flag.
type FieldError struct {
	Flag, Key string
	Msg       string
}

func (e *FieldError) Error() string { return e.Flag + ": " + e.Msg }

// The fields of Spec as flags (without "--") and plan keys.
var fieldNames = map[string]string{
	"files": "server-machine", "role": "server-role", "arch": "server-arch", "cpu_model": "server-cpu-model",
	"vcpus": "server-vcpus", "ghz": "server-ghz", "memory": "server-memory", "instance_type": "server-instance-type",
	"region": "server-region", "zone": "server-zone", "pid": "server-pid",
}

func fieldErr(key, format string, args ...any) error {
	return &FieldError{Flag: "--" + fieldNames[key], Key: key, Msg: fmt.Sprintf(format, args...)}
}

// roleRE is what a role may be: a short lower-case name ("server", "tikv").
var roleRE = lazyre.New(`^[a-z][a-z0-9_-]{0,31}$`)

// ParseFileRefs parses --server-machine's value: [ROLE=]FILE[,[ROLE=]FILE…].
// A ROLE is a short lower-case name; text before "=" that is not one (it
// holds a "/" or a dot, say) is part of the file's name.
func ParseFileRefs(s string) ([]FileRef, error) {
	var refs []FileRef
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		ref := FileRef{File: part}
		if role, file, ok := strings.Cut(part, "="); ok && roleRE().MatchString(role) {
			ref = FileRef{Role: role, File: file}
		}
		if ref.File == "" {
			return nil, fieldErr("files", "%q names no file: write [ROLE=]FILE, e.g. tikv=tikv-1.json", part)
		}
		refs = append(refs, ref)
	}
	return refs, nil
}

// archNames maps the names people and uname give architectures to GOARCH.
var archNames = map[string]string{
	"amd64": "amd64", "x86_64": "amd64", "x64": "amd64", "x86-64": "amd64",
	"arm64": "arm64", "aarch64": "arm64", "armv8": "arm64",
	"386": "386", "i386": "386", "i686": "386", "x86": "386",
	"arm": "arm", "armv7": "arm", "armv7l": "arm", "armhf": "arm",
	"ppc64le": "ppc64le", "ppc64": "ppc64", "s390x": "s390x",
	"riscv64": "riscv64", "loong64": "loong64", "loongarch64": "loong64",
	"mips64le": "mips64le", "mips64": "mips64",
}

// NormalizeArch returns the GOARCH name of an architecture ("x86_64" →
// "amd64", "aarch64" → "arm64"), or an error naming the known ones.
func NormalizeArch(s string) (string, error) {
	if a, ok := archNames[strings.ToLower(strings.TrimSpace(s))]; ok {
		return a, nil
	}
	return "", fmt.Errorf("unknown architecture %q: give amd64 (x86_64), arm64 (aarch64), 386, arm, ppc64le, s390x, riscv64, loong64 or mips64le", s)
}

// Describes reports whether the spec describes a machine with its fields
// (not only files or a PID).
func (s *Spec) Describes() bool {
	return s.Arch != "" || s.CPUModel != "" || s.VCPUs != 0 || s.GHz != 0 || s.Memory != "" ||
		s.InstanceType != "" || s.Region != "" || s.Zone != ""
}

// IsZero reports whether the spec says nothing.
func (s *Spec) IsZero() bool {
	return len(s.Files) == 0 && s.Role == "" && !s.Describes() && s.PID == 0
}

// Validate checks the values and normalises them: Arch to its GOARCH name,
// Memory parsed. Errors are *FieldError.
func (s *Spec) Validate() error {
	roles := map[string]string{}
	for _, f := range s.Files {
		if f.File == "" {
			return fieldErr("files", "an entry names no file: write [ROLE=]FILE")
		}
		if f.Role != "" && !roleRE().MatchString(f.Role) {
			return fieldErr("files", "role %q: a role is a short lower-case name such as server, tidb, tikv, pd", f.Role)
		}
		if f.Role != "" {
			if prev, dup := roles[f.Role]; dup {
				return fieldErr("files", "%s and %s both have the role %s: give each machine its own role (tikv-1=…, tikv-2=…)", prev, f.File, f.Role)
			}
			roles[f.Role] = f.File
		}
	}
	if s.Role != "" && !roleRE().MatchString(s.Role) {
		return fieldErr("role", "%q: a role is a short lower-case name such as server, tidb, tikv, pd", s.Role)
	}
	if s.Arch != "" {
		a, err := NormalizeArch(s.Arch)
		if err != nil {
			return fieldErr("arch", "%v", err)
		}
		s.Arch = a
	}
	if s.VCPUs != 0 && (s.VCPUs < 1 || s.VCPUs > 65536) {
		return fieldErr("vcpus", "%d: give the machine's logical CPUs, 1 to 65536", s.VCPUs)
	}
	if s.GHz != 0 {
		if err := CheckGHz(s.GHz); err != nil {
			return fieldErr("ghz", "%v", err)
		}
	}
	s.memoryBytes = 0
	if s.Memory != "" {
		n, err := ParseMemory(s.Memory)
		if err != nil {
			return fieldErr("memory", "%v", err)
		}
		s.memoryBytes = n
	}
	if s.PID < 0 {
		return fieldErr("pid", "%d is not a process id", s.PID)
	}
	return nil
}

// CheckGHz accepts a CPU frequency of 0.1 to 10 GHz and says when a figure
// looks like MHz.
func CheckGHz(v float64) error {
	text := strconv.FormatFloat(v, 'g', -1, 64)
	switch {
	case v >= 100 && v <= 10000:
		return fmt.Errorf("%s GHz is not a CPU frequency: give GHz, not MHz (%g)", text, v/1000)
	case !(v >= 0.1 && v <= 10):
		return fmt.Errorf("%s: give the CPU frequency in GHz, 0.1 to 10", text)
	}
	return nil
}

// ParseMemory parses a memory size ("64GiB", "64G", "512MiB", bytes) with
// localserver.ParseBytes, refusing sizes under 16 MiB: a bare "64" is 64
// bytes, never what was meant.
func ParseMemory(s string) (int64, error) {
	n, err := bytesize.Parse(s)
	if err != nil {
		return 0, err
	}
	if n < 16<<20 {
		return 0, fmt.Errorf("%q is %d bytes, too little for a server's memory: give a unit, e.g. 64GiB", s, n)
	}
	return n, nil
}

// MemoryBytes is Memory in bytes once Validate has run (0 when not given).
func (s *Spec) MemoryBytes() int64 { return s.memoryBytes }
