// Package agent is `fairbench agent`, a read-only HTTP service that runs on a
// database server's machine and serves its fingerprint and counters, and the
// client fairbench uses to read them. See docs/agent.md for the API.
package agent

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/fairbench/fairbench/internal/machine/cpuset"
	"github.com/fairbench/fairbench/internal/machine/hostcounters"
	"github.com/fairbench/fairbench/internal/machine/sysinfo"
	"github.com/fairbench/fairbench/internal/record/result"
)

// APIVersion is the version of the agent's HTTP API: the paths start with
// "/v1" and every response carries it in the APIHeader header.
const APIVersion = "1"

// APIHeader is the response header holding APIVersion.
const APIHeader = "Fairbench-Agent-Api"

// The paths the agent serves.
const (
	PathMachine  = "/v1/machine"
	PathCounters = "/v1/counters"
)

// Labels place the machine in a cloud and a cluster; a Labels provider
// (Kubernetes node labels, cloud instance metadata: see placement.Lookup)
// fills them when the agent starts. Empty fields are unknown.
type Labels struct {
	InstanceType, Region, Zone string
	// Node is the Kubernetes node's name.
	Node string
	// Arch is the node's architecture label (amd64, arm64): it fills the
	// fingerprint's arch only where that is empty.
	Arch string
	// Notes say what could not be read, one sentence each; they go into
	// the fingerprint's Note.
	Notes []string
}

// Options configure a Server.
type Options struct {
	// Token, when not empty, is required as "Authorization: Bearer TOKEN".
	Token string
	// PID is the database server's process (0: none): its counters are in
	// every snapshot, its name and CPU list in the fingerprint.
	PID int
	// FS is the file system the counters are read from; nil: os.DirFS("/").
	FS fs.FS
	// Machine fingerprints the machine; nil: sysinfo.LocalMachine.
	Machine func() result.Machine
	// Labels, when set, is called once at start; what it returns fills
	// InstanceType, Region, Zone and Node (and Arch when empty). Its notes
	// and an error go into the fingerprint's Note.
	Labels func(context.Context) (Labels, error)
}

// Server serves the API. Its fingerprint is taken once, by NewServer.
type Server struct {
	token   []byte
	pid     int
	fsys    fs.FS
	reader  *hostcounters.Reader
	machine []byte // the fingerprint's JSON

	pool sync.Pool // *bytes.Buffer for the counters' JSON
}

// NewServer takes the machine's fingerprint and returns a Server for it. It
// fails when PID is given but that process cannot be read.
func NewServer(ctx context.Context, opts Options) (*Server, error) {
	s := &Server{token: []byte(opts.Token), pid: opts.PID, fsys: opts.FS}
	if s.fsys == nil {
		s.fsys = os.DirFS("/")
	}
	fingerprint := opts.Machine
	if fingerprint == nil {
		fingerprint = sysinfo.LocalMachine
	}
	m := result.ServerMachine{Machine: fingerprint(), Role: result.RoleServer, Source: result.ServerSourceAgent}
	var notes []string
	if opts.PID > 0 {
		snap, err := hostcounters.Read(s.fsys, opts.PID)
		if err != nil {
			return nil, err
		}
		if snap.Process == nil {
			return nil, fmt.Errorf("process %d cannot be read: is it running? (%v)", opts.PID, snap.Notes)
		}
		m.PID, m.Process = opts.PID, snap.Process.Name
		list, err := cpuset.ProcessList(s.fsys, opts.PID)
		if err != nil {
			notes = append(notes, fmt.Sprintf("the CPUs process %d may use are unknown: %v", opts.PID, err))
		}
		m.CPUList = list
	}
	if opts.Labels != nil {
		l, err := opts.Labels(ctx)
		if err != nil {
			notes = append(notes, "instance type, region and zone: "+err.Error())
		}
		notes = append(notes, l.Notes...)
		m.InstanceType, m.Region, m.Zone, m.Node = l.InstanceType, l.Region, l.Zone, l.Node
		if m.Arch == "" {
			m.Arch = l.Arch
		}
	}
	for i, n := range notes {
		if i > 0 || m.Note != "" {
			m.Note += "; "
		}
		m.Note += n
	}
	var err error
	if s.machine, err = json.Marshal(m); err != nil {
		return nil, fmt.Errorf("agent: encoding the fingerprint: %w", err)
	}
	s.reader = hostcounters.NewReader(s.fsys, s.pid)
	s.pool.New = func() any { return new(bytes.Buffer) }
	return s, nil
}

// ServeHTTP answers GET /v1/machine and GET /v1/counters; 401 without the
// token (when one is set), 405 for another method, 404 for another path.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set(APIHeader, APIVersion)
	h.Set("Cache-Control", "no-store")
	if len(s.token) > 0 && !s.authorized(r) {
		h.Set("WWW-Authenticate", `Bearer realm="fairbench agent"`)
		http.Error(w, "a bearer token is required (Authorization: Bearer TOKEN)", http.StatusUnauthorized)
		return
	}
	if r.URL.Path != PathMachine && r.URL.Path != PathCounters {
		http.Error(w, "not found: the agent serves GET "+PathMachine+" and GET "+PathCounters, http.StatusNotFound)
		return
	}
	if r.Method != http.MethodGet {
		h.Set("Allow", http.MethodGet)
		http.Error(w, "only GET is served", http.StatusMethodNotAllowed)
		return
	}
	h.Set("Content-Type", "application/json")
	if r.URL.Path == PathMachine {
		w.Write(s.machine)
		return
	}
	snap, err := s.reader.Read()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	buf := s.pool.Get().(*bytes.Buffer)
	buf.Reset()
	defer s.pool.Put(buf)
	if err := json.NewEncoder(buf).Encode(snap); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Write(buf.Bytes())
}

// authorized compares the bearer token in constant time.
func (s *Server) authorized(r *http.Request) bool {
	auth := r.Header.Get("Authorization")
	const prefix = "Bearer "
	if len(auth) < len(prefix) || auth[:len(prefix)] != prefix {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(auth[len(prefix):]), s.token) == 1
}

// Serve answers on ln until ctx is cancelled, then shuts down gracefully
// (requests in flight get 5 s to finish).
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    16 << 10,
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("agent: %w", err)
	case <-ctx.Done():
	}
	shutCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := srv.Shutdown(shutCtx)
	if e := <-done; !errors.Is(e, http.ErrServerClosed) && err == nil {
		err = e
	}
	if err != nil {
		return fmt.Errorf("agent: shutting down: %w", err)
	}
	return nil
}

// IsLoopback reports whether addr (a listener's address) is reachable from
// this machine only.
func IsLoopback(addr net.Addr) bool {
	tcp, ok := addr.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}
