package cpuset

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// Pinning fairbench itself (run --client-cpus). ExecSelfPinned re-executes
// this binary in place as the pinned-exec mode execs its program, so that
// every thread of the new image — the Go runtime's included — has the
// client's mask, and sets ClientEnv in it. The re-executed process sees ClientEnv (PinnedClient)
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
// ExecSelfPinned, and its pinning. A ClientEnv that does not parse, or that
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

// ExecSelfPinned replaces this process with the fairbench binary self run
// with args, pinned to set, marked with ClientEnv (usable is what this
// process may use: Client.Before there). The calling thread sets its mask
// and execs, as the pinned-exec mode does, so every thread of the new image
// has the mask, and it keeps this process's id: signals sent to it, and its
// exit code, are the pinned run's own. On success it does not return.
func ExecSelfPinned(self string, set, usable Set, args []string) error {
	env := append(os.Environ(), ClientEnv+"="+set.String()+";"+usable.String())
	if err := pinnedExec(set.String(), "", append([]string{self}, args...), env); err != nil {
		return fmt.Errorf("run fairbench again pinned to CPUs %s: %w", set, err)
	}
	return nil
}

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
