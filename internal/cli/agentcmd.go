package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/machine/agent"
	"github.com/fairbench/fairbench/internal/machine/hostcounters"
	"github.com/fairbench/fairbench/internal/machine/placement"
)

// agentFlags are the options of `fairbench agent`.
type agentFlags struct {
	listen, tokenEnv, process    string
	cloudMetadata, cloudEndpoint string
	pid                          int
}

func (f *agentFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.listen, "listen", "", "HOST:PORT to listen on (required; port 0 picks a free one)")
	fs.StringVar(&f.tokenEnv, "token-env", "", "name of the environment variable holding the bearer token every request must carry")
	fs.IntVar(&f.pid, "pid", 0, "the database server's process ID: its counters and CPU list are served")
	fs.StringVar(&f.process, "process", "", "the database server's process name (/proc/PID/comm: mariadbd, mysqld, postgres); refused when several unrelated processes have it")
	fs.StringVar(&f.cloudMetadata, "cloud-metadata", string(placement.ProviderOff), "ask the cloud's instance metadata service for the instance type, region and zone: off, auto, aws, gcp or azure (Kubernetes node labels come first)")
	fs.StringVar(&f.cloudEndpoint, "cloud-metadata-endpoint", "", "base URL of the instance metadata service (tests; default "+placement.DefaultMetadataEndpoint+")")
	_ = fs.MarkHidden("cloud-metadata-endpoint")
}

// check validates the flags, and returns the token (read from --token-env
// with getenv) and the cloud of --cloud-metadata.
func (f *agentFlags) check(getenv func(string) string) (token string, provider placement.Provider, err error) {
	if f.listen == "" {
		return "", "", usageErrorf("--listen ADDR is required (e.g. 127.0.0.1:9107, or the database host's address on the network fairbench runs from)")
	}
	if _, _, err := net.SplitHostPort(f.listen); err != nil {
		return "", "", usageErrorf("--listen %q: want HOST:PORT: %v", f.listen, err)
	}
	if f.pid != 0 && f.process != "" {
		return "", "", usageErrorf("give --pid or --process, not both")
	}
	if f.pid < 0 {
		return "", "", usageErrorf("--pid %d: want a process ID", f.pid)
	}
	if provider, err = placement.ParseProvider(f.cloudMetadata); err != nil {
		return "", "", usageErrorf("--cloud-metadata: %v", err)
	}
	if f.tokenEnv != "" {
		if token = getenv(f.tokenEnv); token == "" {
			return "", "", usageErrorf("--token-env %s: that environment variable is empty or unset; put the token in it", f.tokenEnv)
		}
	}
	return token, provider, nil
}

// agentHelp is the agent command's long help.
const agentHelp = `
fairbench agent runs on the database server's machine and serves, read-only:

  GET /v1/machine   the machine's fingerprint (CPU model, cores, memory…),
                    and with --pid/--process the server process and its CPUs
  GET /v1/counters  CPU time per CPU, disk and network traffic, memory, and
                    the server process's CPU time, IO and memory

so that fairbench, on another machine, can record the machine under test and
what it did during a run. The agent executes nothing and writes nothing; it
reads /proc and /sys and answers on the address given, nothing else. See
docs/agent.md.

  fairbench agent --listen 127.0.0.1:9107 --process mariadbd
  AGENT_TOKEN=… fairbench agent --listen 10.0.0.5:9107 --token-env AGENT_TOKEN --pid 4242

With --token-env every request needs "Authorization: Bearer TOKEN". Listening
beyond loopback without a token is allowed, with a warning. Stop it with
Ctrl-C or SIGTERM.

At start the agent places the machine: when NODE_NAME is set (the DaemonSet
sets it from spec.nodeName) it reads that Kubernetes node's labels (instance
type, region, zone, arch) with the pod's service account; with
--cloud-metadata it asks the cloud's instance metadata service when the labels
give no instance type. What could not be read is said in the fingerprint's note.`

// agentCommand is `fairbench agent`.
func (a *App) agentCommand() *cobra.Command {
	f := &agentFlags{}
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Serve this machine's fingerprint and counters over HTTP (read-only), for runs against a server here",
		Long:  strings.TrimSpace(agentHelp),
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return a.agent(cmd.Context(), f) },
	}
	f.register(cmd.Flags())
	return cmd
}

// agent serves the agent's API until ctx ends or serving fails.
func (a *App) agent(ctx context.Context, f *agentFlags) error {
	token, provider, err := f.check(a.Getenv)
	if err != nil {
		return err
	}
	if err := a.connecting(); err != nil {
		return err
	}
	pid := f.pid
	if f.process != "" {
		found, err := hostcounters.FindProcess(os.DirFS("/"), f.process)
		if err != nil {
			return usageErrorf("--process: %v", err)
		}
		pid = found
	}
	labels := agent.PlacementLabels(placement.LookupConfig{
		Cloud:    provider,
		Metadata: placement.MetadataConfig{Endpoint: f.cloudEndpoint},
		Getenv:   a.Getenv,
		// The API server of the node's labels: the pod's own cluster,
		// unless a test points it elsewhere.
		InCluster: a.Kubernetes.InCluster,
	})
	srv, err := agent.NewServer(ctx, agent.Options{Token: token, PID: pid, Labels: labels})
	if err != nil {
		return withCode(ExitFailed, fmt.Errorf("agent: %w", err))
	}
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return withCode(ExitFailed, fmt.Errorf("agent: %w", err))
	}
	fmt.Fprintf(a.Stdout, "fairbench agent: serving GET %s and %s on http://%s (read-only)", agent.PathMachine, agent.PathCounters, ln.Addr())
	if pid > 0 {
		fmt.Fprintf(a.Stdout, ", process %d", pid)
	}
	fmt.Fprintln(a.Stdout)
	if token == "" && !agent.IsLoopback(ln.Addr()) {
		fmt.Fprintf(a.Stderr, "fairbench agent: warning: listening on %s without a token: anyone who reaches the port can read this machine's description and counters (use --token-env NAME)\n", ln.Addr())
	}
	return withCode(ExitFailed, srv.Serve(ctx, ln))
}
