package cli

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/machine/servermachine"
	"github.com/fairbench/fairbench/internal/machine/sysinfo"
	"github.com/fairbench/fairbench/internal/record/result"
)

// sysinfo --format json is exactly what --server-machine reads: read back, it
// is this machine.
func TestSysinfoCommand(t *testing.T) {
	ctx := context.Background()
	r := runCLI(ctx, nil, "sysinfo", "--format", "json")
	if r.code != ExitOK {
		t.Fatalf("sysinfo: %d %s", r.code, r.stderr)
	}
	got, err := servermachine.ParseMachine([]byte(r.stdout))
	if err != nil {
		t.Fatalf("--server-machine cannot read sysinfo's output: %v\n%s", err, r.stdout)
	}
	want := sysinfo.LocalMachine()
	type key struct {
		Arch, CPUModel, Vendor, Core, Kernel, OS, Hostname, Virtualization string
		LogicalCPUs, Cores, Sockets                                        int
		MemoryBytes                                                        int64
		Features                                                           []string
	}
	keyOf := func(m result.Machine) key {
		return key{m.Arch, m.CPUModel, m.Vendor, m.Core, m.Kernel, m.OS, m.Hostname, m.Virtualization, m.LogicalCPUs, m.Cores, m.Sockets, m.MemoryBytes, m.Features}
	}
	if !reflect.DeepEqual(keyOf(got.Machine), keyOf(want)) || got.LogicalCPUs <= 0 || got.Arch == "" {
		t.Errorf("read back %+v\nwant %+v", keyOf(got.Machine), keyOf(want))
	}

	text := runCLI(ctx, nil, "sysinfo")
	for _, w := range []string{"Architecture:   " + want.Arch, "CPUs:", "Memory:"} {
		if text.code != ExitOK || !strings.Contains(text.stdout, w) {
			t.Errorf("sysinfo text lacks %q: %d\n%s%s", w, text.code, text.stdout, text.stderr)
		}
	}
	if bad := runCLI(ctx, nil, "sysinfo", "--format", "yaml"); bad.code != ExitUsage || !strings.Contains(bad.stderr, "use text or json") {
		t.Errorf("sysinfo --format yaml: %d %s", bad.code, bad.stderr)
	}
}

// import's machine flags describe the machine under test: server_machines
// (source flags or file), and machine as before for older readers; the older
// flag names are aliases.
func TestImportServerMachines(t *testing.T) {
	ctx := context.Background()
	src := t.TempDir()
	machineFile := filepath.Join(src, "db1.json")
	if err := os.WriteFile(machineFile, []byte(`{"arch":"aarch64","cpu_model":"HiSilicon Kunpeng 920","logical_cpus":64,"hostname":"db1"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	kunpeng := result.Machine{Arch: "arm64", CPUModel: "Kunpeng 920", LogicalCPUs: 24, GivenGHz: 2.6, MemoryBytes: 64 << 30}
	fromFlags := func(m result.Machine) []result.ServerMachine {
		return []result.ServerMachine{{Machine: m, Role: result.RoleServer, Source: result.ServerSourceFlags}}
	}
	withCloud := kunpeng
	withCloud.InstanceType, withCloud.Region = "kc1.6xlarge.2", "cn-north-4"
	fileGHz := result.ServerMachine{Machine: result.Machine{Arch: "arm64", CPUModel: "HiSilicon Kunpeng 920", LogicalCPUs: 64, Hostname: "db1", GivenGHz: 2.6},
		Role: result.RoleServer, Source: result.ServerSourceFile, File: machineFile, Note: "given by the user, over what was read: --server-ghz 2.6"}
	for _, tc := range []struct {
		name    string
		flags   []string
		code    int
		want    []result.ServerMachine
		stderr  []string
		machine *result.Machine // the result's machine when not the single server machine's
	}{
		{"--server-* flags", []string{"--server-arch", "aarch64", "--server-cpu-model", "Kunpeng 920", "--server-vcpus", "24", "--server-ghz", "2.6", "--server-memory", "64GiB",
			"--server-instance-type", "kc1.6xlarge.2", "--server-region", "cn-north-4"}, ExitOK, fromFlags(withCloud), nil, nil},
		{"older names", []string{"--arch", "arm64", "--cpu-model", "Kunpeng 920", "--machine-vcpus", "24", "--machine-ghz", "2.6", "--memory-gib", "64"}, ExitOK, fromFlags(kunpeng), nil, nil},
		{"a file and a flag over it", []string{"--server-machine", machineFile, "--server-ghz", "2.6"}, ExitOK, []result.ServerMachine{fileGHz},
			[]string{"warning: the server machine (" + machineFile + ") is described by --server-ghz 2.6 instead of what fairbench read (file)"}, nil},
		{"nothing said", nil, ExitOK, nil, nil, &result.Machine{}},
		{"an older name with its new one", []string{"--arch", "arm64", "--server-arch", "arm64"}, ExitUsage, nil, []string{"--arch and --server-arch are one flag (--arch is its older name): give one"}, nil},
		{"older name, MHz", []string{"--machine-ghz", "2600"}, ExitUsage, nil, []string{"--machine-ghz: 2600 GHz is not a CPU frequency: give GHz, not MHz (2.6)"}, nil},
		{"older name, no memory", []string{"--memory-gib", "0"}, ExitUsage, nil, []string{"--memory-gib: 0: give the machine's memory in GiB"}, nil},
		{"memory without a unit", []string{"--server-memory", "64"}, ExitUsage, nil, []string{`--server-memory: "64" is 64 bytes`, "give a unit"}, nil},
		{"a log for a machine", []string{"--server-machine", importLog}, ExitUsage, nil, []string{"--server-machine " + importLog + ": not the output of `fairbench sysinfo --format json`"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			r := runCLI(ctx, nil, append([]string{"import", copyLog(t, src, "run.log", ""), "--out", out}, tc.flags...)...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d: %s", r.code, tc.code, r.stderr)
			}
			for _, w := range tc.stderr {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
			if tc.code != ExitOK {
				return
			}
			res := readResult(t, filepath.Join(out, "run-1.json"))
			if !reflect.DeepEqual(res.ServerMachines, tc.want) {
				t.Errorf("server_machines %+v\nwant %+v", res.ServerMachines, tc.want)
			}
			want := tc.machine
			if want == nil {
				m := tc.want[0].Machine
				m.Source = result.SourceImport
				want = &m
			}
			if !reflect.DeepEqual(res.Machine, *want) {
				t.Errorf("machine %+v\nwant %+v", res.Machine, *want)
			}
		})
	}
}
