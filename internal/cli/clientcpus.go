package cli

import (
	"errors"
	"fmt"
	"os"
	"runtime"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/machine/clientcpus"
	"github.com/fairbench/fairbench/internal/machine/cpuset"
)

// clientCPUFlags are --client-cpus and --allow-cpu-overlap of run and suite run.
type clientCPUFlags struct {
	spec         clientcpus.Spec
	allowOverlap bool
}

// register adds the flags to fs.
func (f *clientCPUFlags) register(fs *pflag.FlagSet, rest string) {
	fs.Var(&clientCPUsValue{&f.spec}, "client-cpus", "pin every thread of fairbench itself to these CPUs (a kernel CPU list such as 2-3), or rest: "+rest+"; fairbench runs itself again pinned. CPUs the database server on this machine may use are refused (see --allow-cpu-overlap); default: not pinned")
	fs.BoolVar(&f.allowOverlap, "allow-cpu-overlap", false, "let --client-cpus share CPUs with the database server on this machine (recorded; the result warns with the client's share of the machine)")
}

// clientCPUsValue is --client-cpus: a CPU list or rest, parsed as it is set.
type clientCPUsValue struct{ s *clientcpus.Spec }

func (v *clientCPUsValue) String() string { return v.s.String() }
func (v *clientCPUsValue) Type() string   { return "LIST|rest" }
func (v *clientCPUsValue) Set(s string) error {
	spec, err := clientcpus.Parse(s)
	if err == nil && spec.IsZero() {
		err = errors.New("no CPUs given: write a CPU list such as 2-3, or rest")
	}
	if err != nil {
		return err
	}
	*v.s = spec
	return nil
}

// pinClient decides the client's CPUs (clientcpus.Resolve against srv, the
// database server's, and the CPUs this process may use) before anything
// starts, and refuses what cannot be (exit 2). When the client is to be
// pinned and this process is not the pinned one yet, it becomes this
// fairbench again, with the same arguments, pinned (cpuset.ExecSelfPinned),
// and does not return; should that fail, ran is true with the error.
func (a *App) pinClient(spec clientcpus.Spec, srv clientcpus.Server, allowOverlap bool, what string) (d clientcpus.Decision, ran bool, err error) {
	var usable cpuset.Set
	if !spec.IsZero() {
		if usable, err = cpuset.Usable(os.DirFS("/"), os.Getpid()); err != nil {
			return d, false, usageErrorf("%s: cannot tell which CPUs this process may use: %v", what, err)
		}
	}
	if d, err = clientcpus.Resolve(spec, usable, srv, allowOverlap, what); err != nil {
		return d, false, withCode(ExitUsage, err)
	}
	if d.CPUs.IsEmpty() {
		return d, false, nil
	}
	pinned, ok, err := cpuset.PinnedClient()
	switch {
	case err != nil:
		return d, false, withCode(ExitUsage, err)
	case ok && !pinned.CPUs.Equal(d.CPUs):
		return d, false, usageErrorf("%s: this fairbench was run again pinned to CPUs %s, but now asks for %s: run it without %s set", what, pinned.CPUs, d.CPUs, cpuset.ClientEnv)
	case ok:
		return d, false, nil // the pinned run: go on
	case a.Self == "":
		return d, false, usageErrorf("%s: this fairbench cannot run itself again pinned (its own path is not known)", what)
	}
	// Nothing is open yet (no file, no connection, no listener): the
	// process becomes the pinned run, with its id, so its exit code and the
	// signals sent to it are the run's own.
	err = cpuset.ExecSelfPinned(a.Self, d.CPUs, usable, a.argv)
	return d, true, withCode(ExitFailed, err)
}

// describeClientCPUs is the output's line for a pinned client ("" for one
// not pinned).
func describeClientCPUs(d clientcpus.Decision) string {
	if d.CPUs.IsEmpty() {
		return ""
	}
	return fmt.Sprintf("Client: every thread of fairbench on CPUs %s.\n", d.CPUs)
}

// machineCPUs is the number of CPUs fairbench sizes things by (threads:
// auto, loaders): runtime.NumCPU, or in a pinned client the CPUs the
// process before the pinning could use, not the client's few.
func machineCPUs() int {
	if c, ok, _ := cpuset.PinnedClient(); ok {
		return c.Before.Len()
	}
	return runtime.NumCPU()
}
