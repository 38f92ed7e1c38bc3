// Package clientcpus decides the CPUs of the client — fairbench itself — for
// run --client-cpus and a plan's run.client_cpus: a CPU list, or "rest" (the
// usable CPUs the server was not given), checked before anything starts
// against the CPUs this process may use and against the database server's,
// so that client and server share no CPU unless the user allows it. The
// pinning itself is cpuset.ExecSelfPinned's.
package clientcpus

import (
	"fmt"
	"strings"

	"github.com/fairbench/fairbench/internal/machine/cpuset"
)

// Rest is the value that gives the client the usable CPUs the server's are not.
const Rest = "rest"

// Spec is the client's CPUs as asked. The zero value is an unpinned client.
type Spec struct {
	// List is the CPU list given; empty with Rest.
	List cpuset.Set
	// Rest asks for the usable CPUs the server's are not.
	Rest bool
}

// Parse reads a CPU list in the kernel's syntax ("0-3,8") or "rest"; ""
// (or white space) is the zero Spec.
func Parse(s string) (Spec, error) {
	t := strings.TrimSpace(s)
	switch {
	case t == "":
		return Spec{}, nil
	case strings.EqualFold(t, Rest):
		return Spec{Rest: true}, nil
	}
	set, err := cpuset.Parse(t)
	if err != nil {
		return Spec{}, fmt.Errorf("%w, or rest (the usable CPUs the server is not pinned to)", err)
	}
	return Spec{List: set}, nil
}

// IsZero reports whether the client is left unpinned.
func (s Spec) IsZero() bool { return !s.Rest && s.List.IsEmpty() }

// String is the spec as Parse reads it: the list, "rest", or "".
func (s Spec) String() string {
	if s.Rest {
		return Rest
	}
	return s.List.String()
}

// Server is what is known of the CPUs the database server may use.
type Server struct {
	// Local is true for a server with a process of its own on this machine
	// (a managed server, a Unix socket, a loopback address); false for a
	// remote server and for the embedded database, which is the client.
	Local bool
	// CPUs are the CPUs it may use; empty when not known.
	CPUs cpuset.Set
	// What names where CPUs came from ("the managed server's server.cpus",
	// "mariadbd (pid 812)"); when CPUs is empty, why they are not known.
	What string
	// PID is the server's process found on this machine (0: none), so that
	// describing the server's machine later need not search /proc again.
	PID int
}

// Known reports whether the server's CPUs are known.
func (s Server) Known() bool { return !s.CPUs.IsEmpty() }

// Decision is the client's CPUs, as Resolve decided them.
type Decision struct {
	// CPUs is the set to pin the client to; empty: unpinned.
	CPUs cpuset.Set
	// Shared is not empty when the client may run on the local server's
	// CPUs: the advice (AdviceUnpinned, AdviceAllowed) the result's warning
	// ends with, after the client's share of the machine.
	Shared string
	// Warnings are for the output and the result: a local server whose
	// CPUs are not known, so that the overlap could not be checked.
	Warnings []string
}

// Resolve decides the client's CPUs of spec and checks them: every CPU
// usable (usable: what this process may use), and none of the server's
// unless allowOverlap. what names the setting in messages ("--client-cpus").
func Resolve(spec Spec, usable cpuset.Set, srv Server, allowOverlap bool, what string) (Decision, error) {
	if spec.IsZero() {
		if srv.Local {
			return Decision{Shared: AdviceUnpinned}, nil
		}
		return Decision{}, nil
	}
	client := spec.List
	if spec.Rest {
		if !srv.Local || !srv.Known() {
			return Decision{}, fmt.Errorf("%s rest gives the client the CPUs the server does not use, but %s: give a CPU list", what, restUnknown(srv))
		}
		client = usable.Minus(srv.CPUs)
		if client.IsEmpty() {
			return Decision{}, fmt.Errorf("%s rest: the server (%s) may use every usable CPU (%s), none is left for the client: pin the server to fewer", what, srv.What, usable)
		}
	}
	if bad := client.Minus(usable); !bad.IsEmpty() {
		return Decision{}, fmt.Errorf("%s %s: CPU %s not usable here: this process may use CPUs %s (the online CPUs its affinity and cgroup cpuset allow)", what, client, bad, usable)
	}
	d := Decision{CPUs: client}
	shared := client.Intersect(srv.CPUs)
	switch {
	case !srv.Local:
	case !srv.Known():
		d.Warnings = []string{fmt.Sprintf("the CPUs of the local database server are not known (%s): whether the client's CPUs %s overlap them was not checked", srv.What, client)}
	case shared.IsEmpty():
	case allowOverlap:
		d.Shared = AdviceAllowed
	default:
		return Decision{}, fmt.Errorf("%s %s: CPU %s is also the database server's (%s may use CPUs %s), so the client would take CPU from the server it measures: give the client other CPUs (rest takes the ones left), pin the server apart (server --cpus, a plan's server.cpus), or allow the overlap (--allow-cpu-overlap, a plan's run.allow_cpu_overlap)",
			what, client, shared, srv.What, srv.CPUs)
	}
	return d, nil
}

// restUnknown says why "rest" has nothing to subtract.
func restUnknown(srv Server) string {
	if !srv.Local {
		return "the server does not run on this machine"
	}
	return "the server's CPUs are not known (" + srv.What + ")"
}

// Advice of Decision.Shared, for the note of a client that shared the
// local server's CPUs.
const (
	// AdviceUnpinned is for a client left unpinned.
	AdviceUnpinned = "pin them apart with --client-cpus and server --cpus"
	// AdviceAllowed is for an overlap the user allowed.
	AdviceAllowed = "allowed by --allow-cpu-overlap"
)
