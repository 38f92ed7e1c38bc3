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
	fs.StringVar(&f.agents, "server-agent", "", "read the database server's machine from `fairbench agent` running there: [ROLE=]URL,… (http://db1:9107); its counters are read during the run")
	fs.StringVar(&f.tokenEnv, agent.TokenFlag[2:], "", "the environment variable holding the agents' token (their --token-env)")
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
