package cli

import (
	"fmt"
	"net"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fairbench/fairbench/internal/machine/agent"
	"github.com/fairbench/fairbench/internal/machine/hostcounters"
	"github.com/fairbench/fairbench/internal/machine/placement"
)

// agentCommand is `fairbench agent`.
func (a *App) agentCommand() *cobra.Command {
	var (
		listen, tokenEnv, process    string
		cloudMetadata, cloudEndpoint string
		pid                          int
	)
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Serve this machine's fingerprint and counters over HTTP (read-only), for runs against a server here",
		Long: strings.TrimSpace(`
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
give no instance type. What could not be read is said in the fingerprint's note.`),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if listen == "" {
				return usageErrorf("--listen ADDR is required (e.g. 127.0.0.1:9107, or the database host's address on the network fairbench runs from)")
			}
			if _, _, err := net.SplitHostPort(listen); err != nil {
				return usageErrorf("--listen %q: want HOST:PORT: %v", listen, err)
			}
			if pid != 0 && process != "" {
				return usageErrorf("give --pid or --process, not both")
			}
			if pid < 0 {
				return usageErrorf("--pid %d: want a process ID", pid)
			}
			provider, err := placement.ParseProvider(cloudMetadata)
			if err != nil {
				return usageErrorf("--cloud-metadata: %v", err)
			}
			var token string
			if tokenEnv != "" {
				if token = a.Getenv(tokenEnv); token == "" {
					return usageErrorf("--token-env %s: that environment variable is empty or unset; put the token in it", tokenEnv)
				}
			}
			if err := a.connecting(); err != nil {
				return err
			}
			if process != "" {
				found, err := hostcounters.FindProcess(os.DirFS("/"), process)
				if err != nil {
					return usageErrorf("--process: %v", err)
				}
				pid = found
			}
			ctx := cmd.Context()
			labels := agent.PlacementLabels(placement.LookupConfig{
				Cloud:    provider,
				Metadata: placement.MetadataConfig{Endpoint: cloudEndpoint},
				Getenv:   a.Getenv,
				// The API server of the node's labels: the pod's own cluster,
				// unless a test points it elsewhere.
				InCluster: a.Kubernetes.InCluster,
			})
			srv, err := agent.NewServer(ctx, agent.Options{Token: token, PID: pid, Labels: labels})
			if err != nil {
				return withCode(ExitFailed, fmt.Errorf("agent: %w", err))
			}
			ln, err := net.Listen("tcp", listen)
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
		},
	}
	f := cmd.Flags()
	f.StringVar(&listen, "listen", "", "HOST:PORT to listen on (required; port 0 picks a free one)")
	f.StringVar(&tokenEnv, "token-env", "", "name of the environment variable holding the bearer token every request must carry")
	f.IntVar(&pid, "pid", 0, "the database server's process ID: its counters and CPU list are served")
	f.StringVar(&process, "process", "", "the database server's process name (/proc/PID/comm: mariadbd, mysqld, postgres); refused when several unrelated processes have it")
	f.StringVar(&cloudMetadata, "cloud-metadata", string(placement.ProviderOff), "ask the cloud's instance metadata service for the instance type, region and zone: off, auto, aws, gcp or azure (Kubernetes node labels come first)")
	f.StringVar(&cloudEndpoint, "cloud-metadata-endpoint", "", "base URL of the instance metadata service (tests; default "+placement.DefaultMetadataEndpoint+")")
	_ = f.MarkHidden("cloud-metadata-endpoint")
	return cmd
}
