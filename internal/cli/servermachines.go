package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/machine/agent"
	"github.com/fairbench/fairbench/internal/machine/machinewatch"
	"github.com/fairbench/fairbench/internal/machine/placement"
	"github.com/fairbench/fairbench/internal/machine/servermachine"
)

// serverMachineGroup is the title of the flags that say which machines the
// database server runs on (run only).
const serverMachineGroup = "Server machine options"

// serverMachineFlags are --server-agent, --server-agent-token-env, the
// Kubernetes discovery flags and the --server-* description flags of `run`.
type serverMachineFlags struct {
	spec    servermachine.Spec
	sources machinewatch.Sources
}

// register adds the flags to fs.
func (f *serverMachineFlags) register(fs *pflag.FlagSet) {
	fs.Var(checkedValue{&f.sources.Agents, "[ROLE=]URL,...", func(v string) error { _, err := agent.ParseAgentList(v); return err }}, "server-agent", "read the database server's machine from the fairbench agent running there: URL, or ROLE=URL,… for a cluster (http://db1:9107); its counters are read during the run, and an agent that does not answer at the start refuses the run")
	fs.StringVar(&f.sources.TokenEnv, agent.TokenFlag[2:], "", "the environment variable holding the agents' token (as given to their --token-env); empty or unset is refused")
	fs.Var(checkedValue{&f.sources.Service, "NAME[:PORT]", func(v string) error { _, _, err := placement.ParseService(v); return err }},
		machinewatch.FlagName(machinewatch.KeyService)[2:],
		fmt.Sprintf("in Kubernetes: find the agents through their headless Service (fairbench-agent, port %d by default) and keep those on the nodes of the --server-pods; a failure refuses the run (the pod needs client-rbac.yaml's ServiceAccount)", placement.DefaultAgentPort))
	fs.Var(checkedValue{&f.sources.Pods, "SELECTOR", placement.CheckSelector}, machinewatch.FlagName(machinewatch.KeyPods)[2:],
		"with --server-agent-service: the label selector of the database pods (app.kubernetes.io/name=mariadb)")
	fs.Var(checkedValue{&f.sources.Namespace, "NS", placement.CheckNamespace}, machinewatch.FlagName(machinewatch.KeyNamespace)[2:],
		"the namespace of the --server-pods (default: the pod's own)")
	servermachine.RegisterFlags(fs, &f.spec, true)
}

// check refuses, before anything connects, sources that do not fit
// together or with the description flags.
func (f *serverMachineFlags) check(getenv func(string) string) (machinewatch.Parsed, error) {
	p, err := f.sources.Parse(getenv)
	if err != nil {
		return p, withCode(ExitUsage, err)
	}
	if len(p.Agents) > 0 || p.Kubernetes != nil {
		if err := machinewatch.CheckSpec(f.spec); err != nil {
			return p, withCode(ExitUsage, err)
		}
	}
	return p, nil
}

// watch describes the server's machines of cfg (machinewatch.Prepare; the
// server's process as the client-CPU check found it, foundPID, is not
// searched for again), after finding the agents through Kubernetes when
// asked (said on human):
// an agent that cannot be found or does not answer is a target error, a
// description that does not fit a usage error.
func (f *serverMachineFlags) watch(ctx context.Context, cfg driver.Config, foundPID int, getenv func(string) string, kube machinewatch.KubeEnv, human io.Writer) (*machinewatch.Watch, *machinewatch.Discovered, error) {
	p, err := f.check(getenv)
	if err != nil {
		return nil, nil, err
	}
	found, err := machinewatch.Discover(ctx, p, kube)
	if err != nil {
		return nil, nil, withCode(ExitTarget, err)
	}
	if found != nil {
		fmt.Fprintln(human, found.Summary())
	}
	w, err := machinewatch.Prepare(ctx, cfg, machinewatch.Options{Spec: f.spec, Agents: p.Agents, Discovered: found, Token: p.Token, FoundPID: foundPID})
	var te *machinewatch.TargetError
	switch {
	case errors.As(err, &te):
		return nil, nil, withCode(ExitTarget, err)
	case err != nil:
		return nil, nil, withCode(ExitUsage, err)
	}
	return w, found, nil
}

// record adds the sources to a result's options (the namespace discovery
// used when none was given) and returns them.
func (f *serverMachineFlags) record(opts map[string]string, found *machinewatch.Discovered) map[string]string {
	f.sources.Record(opts, found)
	return opts
}

// checkedValue is a string flag checked as it is set.
type checkedValue struct {
	s     *string
	typ   string
	check func(string) error
}

func (v checkedValue) String() string { return *v.s }
func (v checkedValue) Type() string   { return v.typ }
func (v checkedValue) Set(s string) error {
	if err := v.check(s); err != nil {
		return err
	}
	*v.s = s
	return nil
}

// refuseServerMachineFlags refuses, in a dry run, the options that describe
// or observe the database server's machine: a dry run has none, and
// records none.
func (inv *invocation) refuseServerMachineFlags(cfg driver.Config) error {
	if !cfg.DryRun {
		return nil
	}
	var given []string
	for _, g := range inv.groups {
		if g.title != serverMachineGroup {
			continue
		}
		g.fs.VisitAll(func(f *pflag.Flag) {
			if inv.command.Flags().Changed(f.Name) {
				given = append(given, "--"+f.Name)
			}
		})
	}
	if len(given) == 0 {
		return nil
	}
	verb := "describes"
	if len(given) > 1 {
		verb = "describe"
	}
	return fmt.Errorf("%s %s the database server's machine, which a dry run (--mysql-dry-run) does not have: leave %s out, or leave out --mysql-dry-run to measure a server",
		strings.Join(given, ", "), verb, map[bool]string{true: "them", false: "it"}[len(given) > 1])
}
