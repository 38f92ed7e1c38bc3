package cli

import (
	"context"
	"errors"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/agent"
	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/machinewatch"
	"github.com/fairbench/fairbench/internal/servermachine"
)

// serverMachineGroup is the title of the flags that say which machines the
// database server runs on (run only).
const serverMachineGroup = "Server machine options"

// serverMachineFlags are --server-agent, --server-agent-token-env and the
// --server-* description flags of `run`.
type serverMachineFlags struct {
	spec     servermachine.Spec
	agents   string
	tokenEnv string
}

// register adds the flags to fs.
func (f *serverMachineFlags) register(fs *pflag.FlagSet) {
	fs.Var(&agentsValue{&f.agents}, "server-agent", "read the database server's machine from the fairbench agent running there: URL, or ROLE=URL,… for a cluster (http://db1:9107); its counters are read during the run, and an agent that does not answer at the start refuses the run")
	fs.StringVar(&f.tokenEnv, agent.TokenFlag[2:], "", "the environment variable holding the agents' token (as given to their --token-env); empty or unset is refused")
	servermachine.RegisterFlags(fs, &f.spec, true)
}

// watch describes the server's machines of cfg (machinewatch.Prepare): an
// agent that does not answer is a target error, a description that does
// not fit a usage error.
func (f *serverMachineFlags) watch(ctx context.Context, cfg driver.Config, getenv func(string) string) (*machinewatch.Watch, error) {
	eps, token, err := machinewatch.Agents(f.agents, f.tokenEnv, getenv)
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	w, err := machinewatch.Prepare(ctx, cfg, machinewatch.Options{Spec: f.spec, Agents: eps, Token: token})
	var te *machinewatch.TargetError
	switch {
	case errors.As(err, &te):
		return nil, withCode(ExitTarget, err)
	case err != nil:
		return nil, withCode(ExitUsage, err)
	}
	return w, nil
}

// agentsValue is --server-agent: a list checked as it is set.
type agentsValue struct{ s *string }

func (v *agentsValue) String() string { return *v.s }
func (v *agentsValue) Type() string   { return "[ROLE=]URL,..." }
func (v *agentsValue) Set(s string) error {
	if _, err := agent.ParseAgentList(s); err != nil {
		return err
	}
	*v.s = s
	return nil
}
