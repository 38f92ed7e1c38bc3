package servermachine

import (
	"context"
	"fmt"
	"io/fs"
	"net/netip"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/base/bytesize"
	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/machine/clientcpus"
	"github.com/fairbench/fairbench/internal/machine/cpuset"
	"github.com/fairbench/fairbench/internal/machine/procfs"
	"github.com/fairbench/fairbench/internal/machine/sysinfo"
	"github.com/fairbench/fairbench/internal/record/result"
)

// Target is where the load goes, as far as finding the server's machine
// needs it.
type Target struct {
	// Config is the connection (driver kind, hosts, ports, socket).
	Config driver.Config
	// ManagedPID is the process id of a server fairbench manages
	// (internal/machine/localserver), 0 otherwise.
	ManagedPID int
	// FoundPID is the server's process as an earlier search found it
	// (Env.ServerCPUs, for the client's CPUs), 0 otherwise: it is not
	// searched for again (a search reads every process's open files).
	FoundPID int
}

// Env is what Resolve reads; its zero value reads this machine. Tests give
// a fixture file system and a fixed fingerprint.
type Env struct {
	// FS is the root file system (proc/, sys/); nil means os.DirFS("/").
	FS fs.FS
	// LocalMachine fingerprints this machine; nil means sysinfo.LocalMachine.
	LocalMachine func() result.Machine
	// SelfPID is fairbench's own process id (the embedded SQLite server's);
	// 0 means os.Getpid().
	SelfPID int
}

// Resolve describes the machines of the server t reaches, from spec and from
// what this machine shows: see Env.Resolve.
func Resolve(ctx context.Context, spec Spec, t Target) ([]result.ServerMachine, []string, error) {
	return Env{}.Resolve(ctx, spec, t)
}

// Resolve describes the machines of the server t reaches:
//
//   - --server-machine files, when given, one machine each (source "file");
//   - otherwise, for a local server (a Unix socket, a loopback address, a
//     managed server, embedded SQLite), this machine (source "local") with the
//     server's process and the CPUs it may use, when they can be found;
//   - otherwise, when the --server-* flags describe it, a machine made of
//     them (source "flags");
//   - otherwise none, with a warning: a remote server's machine is unknown.
//
// The --server-* description flags override the fields of the single file or
// local machine, and a note and a warning say so; with several machines
// --server-role says which one they describe (a role no file has adds a
// machine of the flags). Warnings are for the user and the result's
// warnings; errors are the user's to fix (exit 2).
func (e Env) Resolve(ctx context.Context, spec Spec, t Target) ([]result.ServerMachine, []string, error) {
	if err := spec.Validate(); err != nil {
		return nil, nil, err
	}
	if e.FS == nil {
		e.FS = os.DirFS("/")
	}
	if e.LocalMachine == nil {
		e.LocalMachine = sysinfo.LocalMachine
	}
	if e.SelfPID == 0 {
		e.SelfPID = os.Getpid()
	}
	local, remote := IsLocal(t)
	if spec.PID != 0 && !local {
		return nil, nil, fieldErr("pid", "names a process of this machine, but the server %s is on another host: leave it out", remote)
	}
	var machines []result.ServerMachine
	var warnings []string
	switch {
	case len(spec.Files) > 0:
		if spec.PID != 0 {
			return nil, nil, fieldErr("pid", "the server's machine comes from --server-machine; --server-pid applies only to a machine fairbench reads itself: leave one out")
		}
		var err error
		if machines, err = readFiles(ctx, spec.Files); err != nil {
			return nil, nil, err
		}
	case local:
		m, w, err := e.localMachine(spec, t)
		if err != nil {
			return nil, nil, err
		}
		machines, warnings = append(machines, m), append(warnings, w...)
	case spec.Describes():
		// described below from the flags alone
	default:
		if spec.Role != "" {
			return nil, nil, fieldErr("role", "names a machine but nothing describes it: add --server-machine or --server-arch, --server-cpu-model, --server-vcpus…")
		}
		return nil, []string{fmt.Sprintf("the database server's machine is not known (remote server %s without --server-agent, --server-machine or --server-* flags): compare, cost and report will not scale by it", remote)}, nil
	}
	machines, w, err := applyFlags(machines, spec)
	if err != nil {
		return nil, nil, err
	}
	return machines, append(warnings, w...), nil
}

// Describe describes the server's machines from spec alone, reading no
// machine: the --server-machine files, with the --server-* flags over them,
// or a machine of the flags. It is for what fairbench cannot see (`fairbench
// import` of old logs): no machine and no warning when spec says nothing.
func Describe(ctx context.Context, spec Spec) ([]result.ServerMachine, []string, error) {
	if err := spec.Validate(); err != nil {
		return nil, nil, err
	}
	if spec.PID != 0 {
		return nil, nil, fieldErr("pid", "applies only to a server fairbench reaches on this machine")
	}
	machines, err := readFiles(ctx, spec.Files)
	if err != nil {
		return nil, nil, err
	}
	if len(machines) == 0 && !spec.Describes() {
		if spec.Role != "" {
			return nil, nil, fieldErr("role", "names a machine but nothing describes it: add --server-machine or --server-arch, --server-cpu-model, --server-vcpus…")
		}
		return nil, nil, nil
	}
	return applyFlags(machines, spec)
}

// readFiles reads the --server-machine files and gives each machine its role.
func readFiles(ctx context.Context, refs []FileRef) ([]result.ServerMachine, error) {
	var machines []result.ServerMachine
	for _, ref := range refs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		m, err := ReadFile(ref.File)
		if err != nil {
			return nil, err
		}
		if ref.Role != "" {
			m.Role = ref.Role
		}
		if m.Role == "" {
			if len(refs) > 1 {
				return nil, fieldErr("files", "%s: with several machines give each its role: ROLE=FILE (tidb=%s)", ref.File, ref.File)
			}
			m.Role = result.RoleServer
		}
		for _, prev := range machines {
			if prev.Role == m.Role {
				return nil, fieldErr("files", "%s and %s both have the role %s: give each machine its own role (ROLE=FILE)", prev.File, ref.File, m.Role)
			}
		}
		machines = append(machines, m)
	}
	return machines, nil
}

// IsLocal reports whether t's server runs on this machine: embedded SQLite,
// a Unix socket, a managed server or loopback hosts only ("localhost",
// 127.0.0.0/8, ::1; for PostgreSQL also a socket directory, "/tmp"). When
// it is not, remote is the first host that is not.
func IsLocal(t Target) (local bool, remote string) {
	c := t.Config
	if c.Kind == driver.KindSQLite || c.Socket != "" || t.ManagedPID > 0 {
		return true, ""
	}
	for _, h := range c.Hosts {
		if !IsLoopback(h) && !(c.Kind == driver.KindPgSQL && strings.HasPrefix(h, "/")) { // a socket directory
			return false, h
		}
	}
	return true, ""
}

// IsLoopback reports whether a host name or address is this machine's
// loopback: "localhost", 127.0.0.0/8 or ::1 (with or without brackets).
func IsLoopback(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(strings.TrimSpace(host), "."))
	if h == "" || h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	addr, err := netip.ParseAddr(strings.Trim(h, "[]"))
	return err == nil && addr.Unmap().IsLoopback()
}

// localMachine fingerprints this machine and finds the server's process on it.
func (e Env) localMachine(spec Spec, t Target) (result.ServerMachine, []string, error) {
	m := result.ServerMachine{Machine: e.LocalMachine(), Role: spec.Role, Source: result.ServerSourceLocal}
	m.Machine.Source = ""
	if m.Role == "" {
		m.Role = result.RoleServer
	}
	p, findErr, err := e.serverProcess(spec, t)
	if err != nil {
		return m, nil, err
	}
	if findErr != nil {
		m.Note = findErr.Error()
		return m, []string{m.Note + "; the CPUs the server may use are taken to be all of this machine's"}, nil
	}
	m.PID, m.Process = p.PID, p.Comm
	list, err := cpuset.ProcessList(e.FS, p.PID)
	if err != nil {
		m.Note = fmt.Sprintf("the CPUs server process %d may use could not be read: %v", p.PID, err)
		return m, []string{m.Note + "; they are taken to be all of this machine's"}, nil
	}
	m.CPUList = list
	return m, nil, nil
}

// serverProcess finds the process of the local server t reaches: the
// --server-pid process, fairbench itself for embedded SQLite, the managed
// server, or the process holding the socket or the port. findErr says why
// it was not found (a note, not a failure); err is the user's to fix.
func (e Env) serverProcess(spec Spec, t Target) (p Process, findErr, err error) {
	c := t.Config
	switch {
	case spec.PID != 0:
		if _, err := fs.Stat(e.FS, procfs.Dir(spec.PID)); err != nil {
			return p, nil, fieldErr("pid", "no process %d runs on this machine", spec.PID)
		}
		p = Process{PID: spec.PID, Comm: procfs.Comm(e.FS, spec.PID)}
	case c.Kind == driver.KindSQLite:
		p = Process{PID: e.SelfPID, Comm: procfs.Comm(e.FS, e.SelfPID)}
	case t.ManagedPID > 0:
		p = Process{PID: t.ManagedPID, Comm: procfs.Comm(e.FS, t.ManagedPID)}
	case t.FoundPID > 0:
		p = Process{PID: t.FoundPID, Comm: procfs.Comm(e.FS, t.FoundPID)}
	case c.Socket != "":
		p, findErr = FindUnixSocketProcess(e.FS, socketPath(c))
	default:
		p, findErr = FindTCPListener(e.FS, serverPort(c))
	}
	if findErr == nil && forwarders[p.Comm] {
		findErr = fmt.Errorf("%s (pid %d) forwards the server's port into a container or VM: the server's own process is not visible here; its CPUs are unknown (name it with --server-pid if it runs on this machine)", p.Comm, p.PID)
		p = Process{}
	}
	return p, findErr, nil
}

// ServerCPUs says what is known of the CPUs of the server t reaches, for
// the client's CPUs (clientcpus.Resolve): for a local server with a process
// of its own, the online CPUs that process may use (cpuset.Usable), the
// process found as Resolve finds it; a remote server and embedded SQLite
// (the client itself) are not Local. A process that cannot be found or read
// leaves the CPUs unknown, What saying why; err is the user's to fix (a
// --server-pid of no process).
func (e Env) ServerCPUs(spec Spec, t Target) (clientcpus.Server, error) {
	if e.FS == nil {
		e.FS = os.DirFS("/")
	}
	if local, _ := IsLocal(t); !local || t.Config.Kind == driver.KindSQLite {
		return clientcpus.Server{}, nil
	}
	p, findErr, err := e.serverProcess(spec, t)
	if err != nil {
		return clientcpus.Server{}, err
	}
	if findErr != nil {
		return clientcpus.Server{Local: true, What: findErr.Error()}, nil
	}
	what := fmt.Sprintf("%s (pid %d)", cmpOr(p.Comm, "the server process"), p.PID)
	cpus, err := cpuset.Usable(e.FS, p.PID)
	if err != nil {
		return clientcpus.Server{Local: true, What: fmt.Sprintf("the CPUs %s may use could not be read: %v", what, err)}, nil
	}
	return clientcpus.Server{Local: true, CPUs: cpus, What: what, PID: p.PID}, nil
}

// cmpOr is s, or def when s is empty.
func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// forwarders are processes that listen for a server in a container or VM
// and forward its connections: holding the port, they are not the server.
var forwarders = map[string]bool{"docker-proxy": true, "rootlessport": true, "slirp4netns": true, "pasta": true, "pasta.avx2": true, "gvproxy": true, "vpnkit": true, "qemu-system-x86": true, "qemu-system-aar": true}

// socketPath is the Unix socket file of c: PostgreSQL's socket may be given
// as its directory, whose file is .s.PGSQL.PORT.
func socketPath(c driver.Config) string {
	p := path.Clean(c.Socket)
	if c.Kind == driver.KindPgSQL && !strings.HasPrefix(path.Base(p), ".s.PGSQL.") {
		return path.Join(p, ".s.PGSQL."+strconv.Itoa(serverPort(c)))
	}
	return p
}

// serverPort is the port of the first endpoint, or the driver's default.
func serverPort(c driver.Config) int {
	if _, port := c.Endpoint(0); port > 0 {
		return port
	}
	if c.Kind == driver.KindPgSQL {
		return 5432
	}
	return 3306
}

// applyFlags applies the --server-* description to machines: see Resolve.
func applyFlags(machines []result.ServerMachine, spec Spec) ([]result.ServerMachine, []string, error) {
	if !spec.Describes() {
		if spec.Role != "" && len(machines) > 0 && machines[0].Source == result.ServerSourceFile {
			if len(machines) > 1 || machines[0].Role != spec.Role {
				return nil, nil, fieldErr("role", "%s names the machine the --server-* flags describe, but no --server-arch, --server-cpu-model, --server-vcpus… is given; give a file's role as ROLE=FILE", spec.Role)
			}
		}
		return machines, nil, nil
	}
	i := -1
	switch {
	case len(machines) == 1 && (spec.Role == "" || spec.Role == machines[0].Role):
		i = 0
	case len(machines) > 1 && spec.Role == "":
		return nil, nil, fieldErr("role", "is needed: there are %d server machines, and the --server-* flags describe one of them; say which (--server-role %s)", len(machines), machines[0].Role)
	default:
		for j, m := range machines {
			if m.Role == spec.Role {
				i = j
			}
		}
	}
	if i < 0 {
		role := spec.Role
		if role == "" {
			role = result.RoleServer
		}
		m := result.ServerMachine{Role: role, Source: result.ServerSourceFlags}
		override(&m.Machine, spec)
		return append(machines, m), nil, nil
	}
	m := &machines[i]
	changed := override(&m.Machine, spec)
	if len(changed) == 0 {
		return machines, nil, nil
	}
	note := "given by the user, over what was read: " + strings.Join(changed, ", ")
	if m.Note != "" {
		note = m.Note + "; " + note
	}
	m.Note = note
	what := "the " + m.Role + " machine"
	if m.File != "" {
		what += " (" + m.File + ")"
	}
	return machines, []string{fmt.Sprintf("%s is described by %s instead of what fairbench read (%s)", what, strings.Join(changed, ", "), m.Source)}, nil
}

// override sets the fields of m the spec gives and lists them as "--flag
// value" with what they replace.
func override(m *result.Machine, s Spec) []string {
	var changed []string
	say := func(flag, v, was string) {
		c := "--server-" + flag + " " + v
		if was != "" && was != "0" && was != v {
			c += " (read: " + was + ")"
		}
		changed = append(changed, c)
	}
	if s.Arch != "" {
		say("arch", s.Arch, m.Arch)
		m.Arch = s.Arch
	}
	if s.CPUModel != "" {
		say("cpu-model", strconv.Quote(s.CPUModel), strconvQuoteIf(m.CPUModel))
		// The core, vendor and MIDR describe the CPU that was read, not the one given.
		m.CPUModel, m.Core, m.Vendor, m.Implementer, m.Part = s.CPUModel, "", "", "", ""
	}
	if s.VCPUs != 0 {
		say("vcpus", strconv.Itoa(s.VCPUs), strconv.Itoa(m.LogicalCPUs))
		m.LogicalCPUs = s.VCPUs
	}
	if s.GHz != 0 {
		say("ghz", strconv.FormatFloat(s.GHz, 'g', -1, 64), "")
		m.GivenGHz = s.GHz
	}
	if s.memoryBytes != 0 {
		was := ""
		if m.MemoryBytes > 0 {
			was = bytesize.Format(m.MemoryBytes)
		}
		say("memory", bytesize.Format(s.memoryBytes), was)
		m.MemoryBytes = s.memoryBytes
	}
	for _, f := range []struct {
		flag  string
		v     string
		field *string
	}{{"instance-type", s.InstanceType, &m.InstanceType}, {"region", s.Region, &m.Region}, {"zone", s.Zone, &m.Zone}} {
		if f.v != "" {
			say(f.flag, f.v, *f.field)
			*f.field = f.v
		}
	}
	return changed
}

func strconvQuoteIf(s string) string {
	if s == "" {
		return ""
	}
	return strconv.Quote(s)
}
