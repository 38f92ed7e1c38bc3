package cpuset

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Pinning fairbench itself (run --client-cpus). RunSelfPinned re-executes
// this binary through the pinned-exec mode (Command), so that every thread of
// the new process — the Go runtime's included — has the client's mask, and
// sets ClientEnv in it. The re-executed process sees ClientEnv (PinnedClient)
// and does not re-execute again; its Usable is still the CPUs the first
// process could use, so that the servers it starts and the checks it makes
// are not narrowed to the client's CPUs.

// ClientEnv marks a fairbench re-executed pinned to the client's CPUs:
// "CLIENT;BEFORE", the client's CPU list and the CPUs the process that
// re-executed it could use.
const ClientEnv = "FAIRBENCH_CLIENT_CPUS"

// Client is the pinning of a re-executed fairbench (ClientEnv).
type Client struct {
	// CPUs is the set every thread of this process is pinned to.
	CPUs Set
	// Before is what the process that re-executed it could use (Usable):
	// the CPUs it may give to the servers it starts.
	Before Set
}

// PinnedClient reports whether this process is a fairbench re-executed by
// RunSelfPinned, and its pinning. A ClientEnv that does not parse, or that
// names a mask this process does not have (the variable was inherited or set
// by hand), is an error: the caller must not take itself for pinned.
func PinnedClient() (Client, bool, error) {
	v, ok := os.LookupEnv(ClientEnv)
	if !ok {
		return Client{}, false, nil
	}
	c, err := parseClientEnv(v)
	if err != nil {
		return Client{}, false, fmt.Errorf("%s=%q: %w (it is set by fairbench for the process it re-executes under --client-cpus: unset it)", ClientEnv, v, err)
	}
	var mask unix.CPUSet
	if err := unix.SchedGetaffinity(0, &mask); err != nil {
		return Client{}, false, fmt.Errorf("%s is set but this process's CPUs cannot be read: %w", ClientEnv, err)
	}
	if own := fromMask(&mask); !own.Equal(c.CPUs) {
		return Client{}, false, fmt.Errorf("%s says this process runs on CPUs %s, but it may run on %s: it was not started by fairbench --client-cpus (unset %s)",
			ClientEnv, c.CPUs, own, ClientEnv)
	}
	return c, true, nil
}

// parseClientEnv reads "CLIENT;BEFORE".
func parseClientEnv(v string) (Client, error) {
	client, before, ok := strings.Cut(v, ";")
	if !ok {
		return Client{}, errors.New("want CLIENT-CPUS;USABLE-CPUS")
	}
	var c Client
	var err error
	if c.CPUs, err = Parse(client); err != nil {
		return Client{}, err
	}
	if c.Before, err = Parse(before); err != nil {
		return Client{}, err
	}
	if c.CPUs.IsEmpty() || c.Before.IsEmpty() {
		return Client{}, errors.New("no CPUs")
	}
	return c, nil
}

// beforeClient returns Client.Before of this process when it is a pinned
// client: Usable of this process.
func beforeClient() (Set, bool) {
	c, ok, err := PinnedClient()
	if err != nil || !ok {
		return Set{}, false
	}
	return c.Before, true
}

// Stdio are the standard streams of a process RunSelfPinned starts.
type Stdio struct {
	In       io.Reader
	Out, Err io.Writer
}

// RunSelfPinned runs the fairbench binary self with args pinned to set (every
// thread of it: see Command), marked with ClientEnv (usable is what this
// process may use, Client.Before there), waits for it and returns its exit
// code: its own, or 128+N when signal N ended it, as a shell reports it.
//
// The child runs in a process group of its own, so that a Ctrl-C at the
// terminal reaches it once, from here: cancelling ctx sends it the signal
// that context.Cause(ctx) holds (a SignalCause; SIGINT otherwise) — each
// cancellation once. It gets SIGTERM should this process die first (a
// second Ctrl-C ends fairbench at once: the child, signalled twice, too).
func RunSelfPinned(ctx context.Context, self string, set, usable Set, args []string, stdio Stdio) (int, error) {
	cmd, err := Command(context.Background(), set, nil, self, args...)
	if err != nil {
		return 0, err
	}
	cmd.Env = append(cmd.Env, ClientEnv+"="+set.String()+";"+usable.String())
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdio.In, stdio.Out, stdio.Err
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	// Pdeathsig fires when the thread that forked the child ends: keep this
	// goroutine on one thread until the child is waited for.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("re-execute fairbench pinned to CPUs %s: %w", set, err)
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			sig := syscall.SIGINT
			var sc SignalCause
			if errors.As(context.Cause(ctx), &sc) {
				sig = sc.Signal
			}
			_ = cmd.Process.Signal(sig)
		case <-done:
		}
	}()
	err = cmd.Wait()
	close(done)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal()), nil
		}
		return ee.ExitCode(), nil
	}
	if err != nil {
		return 0, fmt.Errorf("fairbench pinned to CPUs %s: %w", set, err)
	}
	return 0, nil
}

// SignalCause is the cause of a context cancelled by a signal
// (context.WithCancelCause): RunSelfPinned passes that signal on.
type SignalCause struct{ Signal syscall.Signal }

func (s SignalCause) Error() string { return "interrupted by " + s.Signal.String() }

// fromMask is the set of CPUs in an affinity mask.
func fromMask(m *unix.CPUSet) Set {
	var ids []int
	for id := 0; id < maxAffinityCPU; id++ {
		if m.IsSet(id) {
			ids = append(ids, id)
		}
	}
	return Set{ids: ids}
}
