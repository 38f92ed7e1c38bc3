package servermachine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/fairbench/fairbench/internal/machine/cpuset"
	"github.com/fairbench/fairbench/internal/record/result"
)

// ReadFile reads a --server-machine file: see ParseMachine.
func ReadFile(path string) (result.ServerMachine, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return result.ServerMachine{}, fmt.Errorf("--server-machine: %w", err)
	}
	m, err := ParseMachine(b)
	if err != nil {
		return m, fmt.Errorf("--server-machine %s: %w", path, err)
	}
	m.File = path
	return m, nil
}

// ParseMachine decodes a machine description: the output of `fairbench
// sysinfo --format json` (a result.Machine) or a result.ServerMachine (one
// element of a result's server_machines). Decoding is strict: an unknown
// field, a second document or a value of the wrong type is an error naming
// it. The machine gets Source ServerSourceFile; its Role is the file's, if
// any.
func ParseMachine(data []byte) (result.ServerMachine, error) {
	var m result.ServerMachine
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		var probe map[string]json.RawMessage
		if json.Unmarshal(data, &probe) == nil && probe["schema"] != nil && probe["workload"] != nil {
			return m, errors.New("this is a result file, not a machine: run `fairbench sysinfo --format json > FILE` on the database host and give that FILE")
		}
		if errors.Is(err, io.EOF) {
			return m, errors.New("the file is empty: it should hold the output of `fairbench sysinfo --format json` run on the database host")
		}
		return m, fmt.Errorf("not the output of `fairbench sysinfo --format json`: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return m, errors.New("more follows the machine's JSON object: give one machine per file")
	}
	if m.Arch == "" && m.CPUModel == "" && m.LogicalCPUs == 0 {
		return m, errors.New("the file describes no machine (no arch, cpu_model or logical_cpus): it should hold the output of `fairbench sysinfo --format json` run on the database host")
	}
	if m.Arch != "" {
		a, err := NormalizeArch(m.Arch)
		if err != nil {
			return m, fmt.Errorf("arch: %w", err)
		}
		m.Arch = a
	}
	switch {
	case m.LogicalCPUs < 0 || m.LogicalCPUs > 65536:
		return m, fmt.Errorf("logical_cpus %d: a machine has 1 to 65536", m.LogicalCPUs)
	case m.Cores < 0 || m.Sockets < 0 || m.ThreadsPerCore < 0 || m.MemoryBytes < 0 || m.PID < 0:
		return m, errors.New("a count (cores, sockets, threads_per_core, memory_bytes, pid) is negative")
	case m.MHz < 0 || m.MaxMHz < 0 || m.MinMHz < 0 || m.CurMHz < 0 || m.BogoMIPS < 0:
		return m, errors.New("a frequency (mhz, max_mhz, min_mhz, cur_mhz, bogomips) is negative")
	}
	if m.GivenGHz != 0 {
		if err := CheckGHz(m.GivenGHz); err != nil {
			return m, fmt.Errorf("given_ghz: %w", err)
		}
	}
	if m.CPUList != "" {
		if _, err := cpuset.Parse(m.CPUList); err != nil {
			return m, fmt.Errorf("cpu_list: %w", err)
		}
	}
	if m.Role != "" && !roleRE().MatchString(m.Role) {
		return m, fmt.Errorf("role %q: a role is a short lower-case name such as server, tidb, tikv, pd", m.Role)
	}
	m.Source, m.Agent, m.File = result.ServerSourceFile, "", ""
	return m, nil
}
