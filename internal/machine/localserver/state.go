package localserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/fairbench/fairbench/internal/base/procutil"
	"github.com/fairbench/fairbench/internal/machine/cpuset"
	"github.com/fairbench/fairbench/internal/record/result"
)

// ErrNoServer is wrapped by the errors of Stop and Status for a directory
// that holds no server fairbench started.
var ErrNoServer = errors.New("no fairbench server")

// stateFormat is the version of the state file layout.
const stateFormat = 1

// stateFile is what Start writes into the private directory and Stop and
// Status read back.
type stateFile struct {
	Format    int                  `json:"format"`
	Flavor    Flavor               `json:"flavor"`
	Profile   Profile              `json:"profile"`
	Port      int                  `json:"port"`
	Socket    string               `json:"socket"`
	PID       int                  `json:"pid"`
	Daemon    string               `json:"daemon"`
	Version   string               `json:"version"`
	StartedAt time.Time            `json:"started_at"`
	StoppedAt *time.Time           `json:"stopped_at,omitempty"`
	Notes     []string             `json:"notes,omitempty"`
	Managed   result.ManagedServer `json:"managed"`
}

// State is what Status finds in a private directory.
type State struct {
	// Server describes the server as last started; PID is the running
	// process, or the last one when the server is stopped.
	Server
	// Running reports whether the server process is alive.
	Running bool
	// StartedAt is when fairbench last started the server.
	StartedAt time.Time
	// StoppedAt is when fairbench last stopped it (zero when it did not, or
	// when the server was started again since).
	StoppedAt time.Time
}

// readState reads the state file of l; the error wraps ErrNoServer when
// there is none.
func readState(l layout) (*stateFile, error) {
	data, err := os.ReadFile(l.state())
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w in %s (no %s): start one with fairbench server start --dir=%s", ErrNoServer, l.dir, stateFileName, l.dir)
	}
	if err != nil {
		return nil, fmt.Errorf("read the server state: %w", err)
	}
	var st stateFile
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("read the server state %s: %w (remove the file if the server is stopped)", l.state(), err)
	}
	if st.Format != stateFormat {
		return nil, fmt.Errorf("server state %s has format %d, this fairbench reads %d: use the fairbench that started the server", l.state(), st.Format, stateFormat)
	}
	if _, err := ParseFlavor(string(st.Flavor)); err != nil {
		return nil, fmt.Errorf("server state %s: %w", l.state(), err)
	}
	return &st, nil
}

// writeState writes the state file atomically.
func writeState(l layout, st *stateFile) error {
	st.Format = stateFormat
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("encode the server state: %w", err)
	}
	tmp, err := os.CreateTemp(l.dir, stateFileName+".*")
	if err != nil {
		return fmt.Errorf("write the server state: %w", err)
	}
	_, err = tmp.Write(append(data, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), l.state())
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write the server state %s: %w", l.state(), err)
	}
	return nil
}

// runningPID returns the pid of the server running in l, or 0: the pid file
// the server writes, else the process Start launched.
func runningPID(l layout, st *stateFile) int {
	pidFile := l.pidFile()
	if st.Flavor == FlavorPostgres {
		pidFile = filepath.Join(l.data(), "postmaster.pid")
	}
	for _, pid := range []int{readPIDFile(pidFile), st.PID} {
		if processRunning(pid, l.dir) {
			return pid
		}
	}
	return 0
}

// server rebuilds the Server that st describes.
func (st *stateFile) server(l layout) Server {
	// A list this state file holds was written by Start from a parsed set.
	cpus, _ := cpuset.Parse(st.Managed.CPUList)
	return Server{
		Flavor: st.Flavor, Profile: st.Profile, Dir: l.dir, Port: st.Port, Socket: st.Socket,
		PID: st.PID, Version: st.Version, ConfigFile: l.config(st.Flavor), LogFile: l.log(st.Flavor),
		Managed: st.Managed, Notes: st.Notes, CPUs: cpus,
	}
}

// Status reports the server in dir: whether it runs, its pid, port, socket,
// flavor, profile and generated settings. The error wraps ErrNoServer when
// dir holds no server fairbench started.
func Status(ctx context.Context, dir string) (State, error) {
	abs, err := absDir(dir)
	if err != nil {
		return State{}, err
	}
	l := layout{dir: abs}
	st, err := readState(l)
	if err != nil {
		return State{}, err
	}
	s := State{Server: st.server(l), StartedAt: st.StartedAt}
	if st.StoppedAt != nil {
		s.StoppedAt = *st.StoppedAt
	}
	if pid := runningPID(l, st); pid > 0 {
		s.Running, s.PID = true, pid
	}
	return s, ctx.Err()
}

// Stop shuts the server in dir down cleanly and waits until its process has
// exited: SIGTERM for MariaDB and MySQL (a normal shutdown that flushes the
// buffer pool), SIGINT for PostgreSQL (the "fast" mode of pg_ctl stop:
// sessions are ended, a checkpoint is written). Stopping a stopped server is
// not an error; a directory without a server is (it wraps ErrNoServer).
func Stop(ctx context.Context, dir string) error {
	abs, err := absDir(dir)
	if err != nil {
		return err
	}
	l := layout{dir: abs}
	st, err := readState(l)
	if err != nil {
		return err
	}
	pid := runningPID(l, st)
	if pid == 0 {
		return nil
	}
	if err := stopProcess(ctx, st.Flavor, pid, l); err != nil {
		return err
	}
	now := time.Now().UTC()
	st.StoppedAt = &now
	return writeState(l, st)
}

// stopProcess signals the server pid for a clean shutdown and waits for it.
func stopProcess(ctx context.Context, f Flavor, pid int, l layout) error {
	ctx, cancel := context.WithTimeout(ctx, stopTimeout)
	defer cancel()
	sig := syscall.SIGTERM
	if f == FlavorPostgres {
		sig = syscall.SIGINT
	}
	if err := syscall.Kill(pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("stop the %s server (pid %d): %w", f, pid, err)
	}
	if err := waitGone(ctx, pid, l.dir); err != nil {
		return fmt.Errorf("the %s server (pid %d) did not stop: %w: it may still be flushing a large buffer pool; "+
			"run stop again to keep waiting, or kill -9 %d (the next start then runs crash recovery)\n%s",
			f, pid, err, pid, procutil.LogTail(l.log(f)))
	}
	return nil
}

// killProcess ends a server that failed to start: a clean stop for a
// moment, then SIGKILL.
func killProcess(f Flavor, pid int, l layout) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := stopProcess(ctx, f, pid, l); err == nil {
		return
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	ctx2, cancel2 := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel2()
	_ = waitGone(ctx2, pid, l.dir)
}

// FindServers returns the directories directly under parent that hold a
// server fairbench started (a state file), sorted; none when parent is missing.
func FindServers(parent string) ([]string, error) {
	matches, err := filepath.Glob(filepath.Join(parent, "*", stateFileName))
	if err != nil {
		return nil, fmt.Errorf("look for servers in %s: %w", parent, err)
	}
	dirs := make([]string, 0, len(matches))
	for _, m := range matches {
		dirs = append(dirs, filepath.Dir(m))
	}
	return dirs, nil
}
