package cpuset

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// The hidden pinned-exec mode. A Go program cannot pin all of its own threads
// (the runtime has started some before main), and a child that os/exec starts
// inherits the mask of whichever thread forked it. So Command starts this
// very binary with PinEnv set; its init (ExecIfAsked) pins its only thread
// that matters — the one calling execve — and execs the real program, whose
// threads all inherit the mask.
const (
	// PinEnv holds the CPU list of the pinned-exec mode; os.Args[1:] is the
	// program to exec and its argv.
	PinEnv = "FAIRBENCH_PIN_EXEC"
	// pinCredEnv holds "uid:gid" to switch to after pinning (a PostgreSQL
	// server started by root runs as the postgres user).
	pinCredEnv = "FAIRBENCH_PIN_EXEC_CRED"
)

// maxAffinityCPU bounds the CPUs a mask can hold (unix.CPUSet: CPU_SETSIZE).
const maxAffinityCPU = 1024

func init() { ExecIfAsked() }

// ExecIfAsked runs the pinned-exec mode when PinEnv is set and returns
// otherwise. It runs from this package's init, so every binary that links
// the package (fairbench, and the test binaries of packages that start
// pinned programs) has the mode before main or TestMain starts. On success it
// does not return (the process becomes the program); on failure it writes the
// reason to stderr and exits 127, as a shell does for a program it cannot run.
func ExecIfAsked() {
	list, ok := os.LookupEnv(PinEnv)
	if !ok {
		return
	}
	cred := os.Getenv(pinCredEnv)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, PinEnv+"=") && !strings.HasPrefix(kv, pinCredEnv+"=") {
			env = append(env, kv)
		}
	}
	if err := pinnedExec(list, cred, os.Args[1:], env); err != nil {
		fmt.Fprintf(os.Stderr, "fairbench: pinned start (%s is set): %v\n", PinEnv, err)
		os.Exit(127)
	}
}

// pinnedExec pins the calling thread to list, switches to cred when given,
// and execs argv with the environment env.
func pinnedExec(list, cred string, argv, env []string) error {
	if len(argv) == 0 {
		return fmt.Errorf("%s is set but no program was given", PinEnv)
	}
	set, err := Parse(list)
	if err != nil {
		return err
	}
	mask, err := set.mask()
	if err != nil {
		return err
	}
	// The mask is per thread: keep this goroutine on the thread that is
	// pinned and then calls execve.
	runtime.LockOSThread()
	if err := unix.SchedSetaffinity(0, &mask); err != nil {
		return fmt.Errorf("pin to CPUs %s: %w", set, err)
	}
	if cred != "" {
		if err := switchUser(cred); err != nil {
			return err
		}
	}
	if err := syscall.Exec(argv[0], argv, env); err != nil {
		return fmt.Errorf("exec %s: %w", argv[0], err)
	}
	return nil
}

// switchUser sets the group and user ids of "uid:gid" (on every thread).
func switchUser(cred string) error {
	u, g, ok := strings.Cut(cred, ":")
	uid, err1 := strconv.Atoi(u)
	gid, err2 := strconv.Atoi(g)
	if !ok || err1 != nil || err2 != nil {
		return fmt.Errorf("%s=%q: want uid:gid", pinCredEnv, cred)
	}
	if err := syscall.Setgid(gid); err != nil {
		return fmt.Errorf("switch to group %d: %w", gid, err)
	}
	if err := syscall.Setuid(uid); err != nil {
		return fmt.Errorf("switch to user %d: %w", uid, err)
	}
	return nil
}

// mask converts the set to an affinity mask.
func (s Set) mask() (unix.CPUSet, error) {
	var m unix.CPUSet
	if s.IsEmpty() {
		return m, fmt.Errorf("no CPUs to pin to")
	}
	for _, id := range s.ids {
		if id >= maxAffinityCPU {
			return m, fmt.Errorf("CPU %d: fairbench pins to CPUs below %d", id, maxAffinityCPU)
		}
		m.Set(id)
	}
	return m, nil
}

// Command returns a command that runs prog with args pinned to set: this
// binary in its pinned-exec mode, which sets the mask and execs prog, so the
// pid is prog's and every thread it ever starts inherits the mask. cred,
// when not nil, is the user and group prog runs as (the switch happens after
// pinning; the helper itself starts as the caller). ctx kills the process
// as for exec.CommandContext. Set Dir, Stdout,
// SysProcAttr and so on as for any command — but not SysProcAttr.Credential:
// pass cred instead. Env is the caller's environment (without ClientEnv) plus the mode's
// variables.
func Command(ctx context.Context, set Set, cred *syscall.Credential, prog string, args ...string) (*exec.Cmd, error) {
	if _, err := set.mask(); err != nil {
		return nil, err
	}
	// The helper execs prog as given, without a $PATH search.
	path, err := exec.LookPath(prog)
	if err != nil {
		return nil, fmt.Errorf("start %s pinned to CPUs %s: %w", prog, set, err)
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find this program to start %s pinned to CPUs %s: %w", prog, set, err)
	}
	cmd := exec.CommandContext(ctx, self, append([]string{path}, args...)...)
	// A pinned client's mark is its own, not the programs it starts.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, ClientEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, PinEnv+"="+set.String())
	if cred != nil {
		cmd.Env = append(cmd.Env, pinCredEnv+"="+strconv.Itoa(int(cred.Uid))+":"+strconv.Itoa(int(cred.Gid)))
	}
	return cmd, nil
}

// Usable returns the CPUs process pid may be pinned to: the online CPUs it
// is allowed (Online ∩ Effective). For this very process, when it is a
// fairbench re-executed under --client-cpus (PinnedClient), it is what the
// process before the re-execution could use: the client's mask narrows the
// client, not the servers it starts nor the CPUs it checks lists against.
func Usable(fsys fs.FS, pid int) (Set, error) {
	if pid == os.Getpid() {
		if before, ok := beforeClient(); ok {
			return before, nil
		}
	}
	online, err := Online(fsys)
	if err != nil {
		return Set{}, err
	}
	eff, err := Effective(fsys, pid)
	if err != nil {
		return Set{}, err
	}
	return online.Intersect(eff), nil
}

// CheckUsable refuses a set that is empty or holds a CPU that is offline or
// outside what process pid may use (its affinity and cgroup cpuset); the
// error names the CPUs that may be used. what names the set for the message
// ("--cpus", "server cpus").
func CheckUsable(fsys fs.FS, pid int, want Set, what string) error {
	if want.IsEmpty() {
		return fmt.Errorf("%s: no CPUs given (write a list such as 0-3,8)", what)
	}
	usable, err := Usable(fsys, pid)
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, want, err)
	}
	if bad := want.Minus(usable); !bad.IsEmpty() {
		online, _ := Online(fsys)
		return fmt.Errorf("%s %s: CPU %s not usable here: this process may use CPUs %s (online: %s; its affinity and cgroup cpuset allow the rest)",
			what, want, bad, usable, online)
	}
	return nil
}
