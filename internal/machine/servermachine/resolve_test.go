package servermachine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/record/result"
)

var here = result.Machine{Arch: "amd64", CPUModel: "Intel(R) Xeon(R) Gold 6266C CPU @ 3.00GHz", Vendor: "Intel", LogicalCPUs: 4, Cores: 2, MemoryBytes: 8 << 30, Hostname: "client"}

// writeMachine writes m as `fairbench sysinfo --format json` does.
func writeMachine(t *testing.T, dir, name string, m any) string {
	t.Helper()
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestResolve(t *testing.T) {
	dir := t.TempDir()
	arm := result.Machine{Arch: "arm64", CPUModel: "HiSilicon Kunpeng 920 (TaiShan v110)", Core: "TaiShan v110", LogicalCPUs: 64, Hostname: "db1"}
	armFile := writeMachine(t, dir, "arm.json", arm)
	kvFile := writeMachine(t, dir, "kv.json", result.ServerMachine{Machine: result.Machine{Arch: "arm64", LogicalCPUs: 16}, Role: "tikv", Source: "agent", PID: 7})
	env := Env{FS: fixture(), LocalMachine: func() result.Machine { return here }, SelfPID: 300}
	mysqlTCP := func(host string, port int) Target {
		return Target{Config: driver.Config{Kind: driver.KindMySQL, Hosts: []string{host}, Ports: []int{port}}}
	}
	local := func(pid int, proc, cpus string) result.ServerMachine {
		m := result.ServerMachine{Machine: here, Role: result.RoleServer, Source: result.ServerSourceLocal, PID: pid, Process: proc}
		m.CPUList = cpus
		return m
	}
	fromFile := func(m result.Machine, role, file string) result.ServerMachine {
		return result.ServerMachine{Machine: m, Role: role, Source: result.ServerSourceFile, File: file}
	}
	overridden := local(100, "mariadbd", "2-3")
	overridden.LogicalCPUs, overridden.GivenGHz, overridden.InstanceType = 8, 2.6, "m6g.2xlarge"
	overridden.Note = "given by the user, over what was read: --server-vcpus 8 (read: 4), --server-ghz 2.6, --server-instance-type m6g.2xlarge"
	armGiven := fromFile(arm, result.RoleServer, armFile)
	armGiven.GivenGHz, armGiven.Note = 2.6, "given by the user, over what was read: --server-ghz 2.6"
	kv := fromFile(result.Machine{Arch: "arm64", LogicalCPUs: 16}, "tikv", kvFile)
	kv.PID = 7

	for _, tc := range []struct {
		name     string
		spec     Spec
		target   Target
		want     []result.ServerMachine
		warnings []string
		err      string
	}{
		{"unix socket", Spec{}, Target{Config: driver.Config{Kind: driver.KindMySQL, Socket: "/var/run/mysqld/mysqld.sock"}}, []result.ServerMachine{local(100, "mariadbd", "2-3")}, nil, ""},
		{"postgres socket directory", Spec{}, Target{Config: driver.Config{Kind: driver.KindPgSQL, Socket: "/run/postgresql"}}, []result.ServerMachine{local(200, "postgres", "")}, nil, ""},
		{"loopback port", Spec{}, mysqlTCP("127.0.0.1", 3306), []result.ServerMachine{local(100, "mariadbd", "2-3")}, nil, ""},
		{"localhost, default port", Spec{}, Target{Config: driver.Config{Kind: driver.KindPgSQL, Hosts: []string{"localhost"}}}, []result.ServerMachine{local(200, "postgres", "")}, nil, ""},
		{"managed server", Spec{}, Target{Config: driver.Config{Kind: driver.KindMySQL, Hosts: []string{"127.0.0.1"}, Ports: []int{4000}}, ManagedPID: 100}, []result.ServerMachine{local(100, "mariadbd", "2-3")}, nil, ""},
		// Port 7777 is held by nothing: the process found before is used, not searched for.
		{"found before", Spec{}, Target{Config: driver.Config{Kind: driver.KindMySQL, Hosts: []string{"127.0.0.1"}, Ports: []int{7777}}, FoundPID: 100}, []result.ServerMachine{local(100, "mariadbd", "2-3")}, nil, ""},
		{"embedded sqlite", Spec{}, Target{Config: driver.Config{Kind: driver.KindSQLite, Path: "x.db"}}, []result.ServerMachine{local(300, "fairbench", "0-1")}, nil, ""},
		{"--server-pid", Spec{PID: 200}, mysqlTCP("::1", 9999), []result.ServerMachine{local(200, "postgres", "")}, nil, ""},
		{"--server-pid of no process", Spec{PID: 4242}, mysqlTCP("127.0.0.1", 3306), nil, nil, "--server-pid: no process 4242"},
		{"nothing listens", Spec{}, mysqlTCP("127.0.0.1", 7777), []result.ServerMachine{func() result.ServerMachine {
			m := local(0, "", "")
			m.Note = "no process of this machine holds TCP port 7777 (a server in another network namespace or container?); name it with --server-pid"
			return m
		}()}, []string{"TCP port 7777 (a server in another network namespace or container?); name it with --server-pid; the CPUs the server may use are taken to be all of this machine's"}, ""},
		{"a forwarded port", Spec{}, mysqlTCP("127.0.0.1", 13306), []result.ServerMachine{func() result.ServerMachine {
			m := local(0, "", "")
			m.Note = "docker-proxy (pid 400) forwards the server's port into a container or VM: the server's own process is not visible here; its CPUs are unknown (name it with --server-pid if it runs on this machine)"
			return m
		}()}, []string{"docker-proxy (pid 400) forwards"}, ""},
		{"remote, undescribed", Spec{}, mysqlTCP("db1.example.com", 3306), nil,
			[]string{"the database server's machine is not known (remote server db1.example.com without --server-agent, --server-machine or --server-* flags): compare, cost and report will not scale by it"}, ""},
		{"remote among loopback hosts", Spec{}, Target{Config: driver.Config{Kind: driver.KindMySQL, Hosts: []string{"127.0.0.1", "10.0.0.9"}}}, nil, []string{"remote server 10.0.0.9"}, ""},
		{"remote with --server-pid", Spec{PID: 100}, mysqlTCP("db1", 3306), nil, nil, "--server-pid: names a process of this machine, but the server db1 is on another host"},
		{"remote from flags", Spec{Arch: "aarch64", CPUModel: "Kunpeng 920", VCPUs: 64, GHz: 2.6, Memory: "256GiB", Region: "cn-north-4"}, mysqlTCP("db1", 3306),
			[]result.ServerMachine{{Machine: result.Machine{Arch: "arm64", CPUModel: "Kunpeng 920", LogicalCPUs: 64, GivenGHz: 2.6, MemoryBytes: 256 << 30, Region: "cn-north-4"}, Role: result.RoleServer, Source: result.ServerSourceFlags}}, nil, ""},
		{"remote from a file", Spec{Files: []FileRef{{File: armFile}}}, mysqlTCP("db1", 3306), []result.ServerMachine{fromFile(arm, result.RoleServer, armFile)}, nil, ""},
		{"a file wins over local detection", Spec{Files: []FileRef{{File: armFile}}}, mysqlTCP("127.0.0.1", 3306), []result.ServerMachine{fromFile(arm, result.RoleServer, armFile)}, nil, ""},
		{"flags override a file", Spec{Files: []FileRef{{File: armFile}}, GHz: 2.6}, mysqlTCP("db1", 3306), []result.ServerMachine{armGiven}, []string{"the server machine (" + armFile + ") is described by --server-ghz 2.6 instead of what fairbench read (file)"}, ""},
		{"flags override local detection", Spec{VCPUs: 8, GHz: 2.6, InstanceType: "m6g.2xlarge"}, mysqlTCP("127.0.0.1", 3306), []result.ServerMachine{overridden}, []string{"--server-vcpus 8 (read: 4)"}, ""},
		{"cluster of files", Spec{Files: []FileRef{{Role: "tidb", File: armFile}, {File: kvFile}}}, mysqlTCP("tidb", 4000),
			[]result.ServerMachine{fromFile(arm, "tidb", armFile), kv}, nil, ""},
		{"cluster plus a machine from flags", Spec{Files: []FileRef{{Role: "tidb", File: armFile}, {File: kvFile}}, Role: "pd", VCPUs: 4}, mysqlTCP("tidb", 4000),
			[]result.ServerMachine{fromFile(arm, "tidb", armFile), kv, {Machine: result.Machine{LogicalCPUs: 4}, Role: "pd", Source: result.ServerSourceFlags}}, nil, ""},
		{"cluster: flags need a role", Spec{Files: []FileRef{{Role: "tidb", File: armFile}, {File: kvFile}}, VCPUs: 4}, mysqlTCP("tidb", 4000), nil, nil, "--server-role: is needed: there are 2 server machines"},
		{"cluster: a file without a role", Spec{Files: []FileRef{{File: armFile}, {File: kvFile}}}, mysqlTCP("tidb", 4000), nil, nil, "with several machines give each its role"},
		{"cluster: one role twice", Spec{Files: []FileRef{{Role: "tikv", File: armFile}, {File: kvFile}}}, mysqlTCP("tidb", 4000), nil, nil, "both have the role tikv"},
		{"a file and --server-pid", Spec{Files: []FileRef{{File: armFile}}, PID: 100}, mysqlTCP("127.0.0.1", 3306), nil, nil, "--server-pid: the server's machine comes from --server-machine"},
		{"missing file", Spec{Files: []FileRef{{File: filepath.Join(dir, "none.json")}}}, mysqlTCP("db1", 3306), nil, nil, "--server-machine: open"},
		{"role without flags, with a file", Spec{Files: []FileRef{{File: armFile}}, Role: "tidb"}, mysqlTCP("db1", 3306), nil, nil, "--server-role: tidb names the machine the --server-* flags describe, but no --server-arch"},
		{"role alone, remote", Spec{Role: "tidb"}, mysqlTCP("db1", 3306), nil, nil, "--server-role: names a machine but nothing describes it"},
		{"bad vcpus", Spec{VCPUs: 70000}, mysqlTCP("db1", 3306), nil, nil, "--server-vcpus: 70000"},
		{"MHz for GHz", Spec{GHz: 2600}, mysqlTCP("db1", 3306), nil, nil, "give GHz, not MHz (2.6)"},
		{"memory without a unit", Spec{Memory: "64"}, mysqlTCP("db1", 3306), nil, nil, "give a unit, e.g. 64GiB"},
		{"unknown arch", Spec{Arch: "sparc"}, mysqlTCP("db1", 3306), nil, nil, `--server-arch: unknown architecture "sparc"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, warnings, err := env.Resolve(context.Background(), tc.spec, tc.target)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				gb, _ := json.MarshalIndent(got, "", " ")
				wb, _ := json.MarshalIndent(tc.want, "", " ")
				t.Fatalf("machines\n%s\nwant\n%s", gb, wb)
			}
			if len(warnings) != len(tc.warnings) {
				t.Fatalf("warnings %q, want %d containing %q", warnings, len(tc.warnings), tc.warnings)
			}
			for i, w := range tc.warnings {
				if !strings.Contains(warnings[i], w) {
					t.Errorf("warning %q lacks %q", warnings[i], w)
				}
			}
		})
	}
}

func TestIsLoopback(t *testing.T) {
	for h, want := range map[string]bool{
		"localhost": true, "LOCALHOST.": true, "127.0.0.1": true, "127.1.2.3": true, "::1": true, "[::1]": true,
		"::ffff:127.0.0.1": true, "": true, "db.localhost": true,
		"10.0.0.1": false, "db1": false, "::": false, "0.0.0.0": false, "localhost.example.com": false,
	} {
		if got := IsLoopback(h); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", h, got, want)
		}
	}
}

func TestIsLocal(t *testing.T) {
	for _, tc := range []struct {
		cfg    driver.Config
		local  bool
		remote string
	}{
		{driver.Config{Kind: driver.KindSQLite}, true, ""},
		{driver.Config{Kind: driver.KindMySQL, Socket: "/run/mysqld/mysqld.sock", Hosts: []string{"db1"}}, true, ""},
		{driver.Config{Kind: driver.KindMySQL, Hosts: []string{"127.0.0.1", "localhost"}}, true, ""},
		{driver.Config{Kind: driver.KindMySQL, Hosts: []string{"127.0.0.1", "db2"}}, false, "db2"},
		{driver.Config{Kind: driver.KindPgSQL, Hosts: []string{"/tmp", "::1"}}, true, ""},
		{driver.Config{Kind: driver.KindPgSQL, Hosts: []string{"/tmp", "db2"}}, false, "db2"},
		{driver.Config{Kind: driver.KindMySQL, Hosts: []string{"/tmp"}}, false, "/tmp"}, // MySQL names no socket by host
	} {
		if local, remote := IsLocal(Target{Config: tc.cfg}); local != tc.local || remote != tc.remote {
			t.Errorf("IsLocal(%+v) = %v, %q, want %v, %q", tc.cfg, local, remote, tc.local, tc.remote)
		}
	}
}

// TestResolveRealServer describes the shared MariaDB of the development
// machine: this machine, with mariadbd's process.
func TestResolveRealServer(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("reading other users' /proc/*/fd needs root")
	}
	if _, err := os.Stat("/run/mysqld/mysqld.sock"); err != nil {
		t.Skipf("no MariaDB here: %v", err)
	}
	got, warnings, err := Resolve(context.Background(), Spec{}, Target{Config: driver.Config{Kind: driver.KindMySQL, Socket: "/run/mysqld/mysqld.sock"}})
	if err != nil || len(warnings) > 0 || len(got) != 1 {
		t.Fatalf("Resolve = %+v, %q, %v", got, warnings, err)
	}
	m := got[0]
	if m.Source != result.ServerSourceLocal || m.Role != result.RoleServer || m.PID <= 0 || (m.Process != "mariadbd" && m.Process != "mysqld") || m.LogicalCPUs <= 0 {
		t.Fatalf("machine %+v", m)
	}
}

func TestDescribe(t *testing.T) {
	file := writeMachine(t, t.TempDir(), "db.json", here)
	for _, tc := range []struct {
		name string
		spec Spec
		want []result.ServerMachine
		err  string
	}{
		{"nothing", Spec{}, nil, ""},
		{"flags", Spec{Arch: "arm64", VCPUs: 24, GHz: 2.6}, []result.ServerMachine{{Machine: result.Machine{Arch: "arm64", LogicalCPUs: 24, GivenGHz: 2.6}, Role: result.RoleServer, Source: result.ServerSourceFlags}}, ""},
		{"file", Spec{Files: []FileRef{{Role: "tidb", File: file}}}, []result.ServerMachine{{Machine: here, Role: "tidb", Source: result.ServerSourceFile, File: file}}, ""},
		{"pid", Spec{PID: 1}, nil, "--server-pid: applies only"},
		{"role alone", Spec{Role: "tidb"}, nil, "--server-role: names a machine but nothing describes it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := Describe(context.Background(), tc.spec)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

// TestServerCPUsNamesTheProcess: the client-CPU check's search returns the
// server's process, which Resolve then takes as FoundPID instead of searching
// again; a server not found leaves it 0.
func TestServerCPUsNamesTheProcess(t *testing.T) {
	env := Env{FS: fixture(), LocalMachine: func() result.Machine { return here }, SelfPID: 300}
	for _, tc := range []struct {
		name   string
		target Target
		pid    int
	}{
		{"unix socket", Target{Config: driver.Config{Kind: driver.KindMySQL, Socket: "/var/run/mysqld/mysqld.sock"}}, 100},
		{"loopback port", Target{Config: driver.Config{Kind: driver.KindPgSQL, Hosts: []string{"localhost"}}}, 200},
		{"nothing listens", Target{Config: driver.Config{Kind: driver.KindMySQL, Hosts: []string{"127.0.0.1"}, Ports: []int{7777}}}, 0},
		{"remote", Target{Config: driver.Config{Kind: driver.KindMySQL, Hosts: []string{"db1"}}}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, err := env.ServerCPUs(Spec{}, tc.target)
			if err != nil || srv.PID != tc.pid {
				t.Fatalf("ServerCPUs: PID %d, %v; want %d", srv.PID, err, tc.pid)
			}
		})
	}
}
