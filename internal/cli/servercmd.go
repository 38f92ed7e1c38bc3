package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fairbench/fairbench/internal/base/bytesize"
	"github.com/fairbench/fairbench/internal/machine/cpuset"
	"github.com/fairbench/fairbench/internal/machine/localserver"
)

// serverParent is where the private server directories live by default.
const serverParent = "fairbench-data"

// serverCmdFlags are the options of the server subcommands.
type serverCmdFlags struct {
	flavor   string
	dir      string
	profile  string
	port     int
	dataSize string
	set      []string
	cpus     string
	dryRun   bool
}

// serverCommand is `fairbench server start|stop|status`.
func (a *App) serverCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "server",
		Short: "Start, stop and inspect a private database server with a generated configuration",
		Long: strings.TrimSpace(`
fairbench server runs a private MariaDB, MySQL or PostgreSQL server from the
binaries installed on this machine, with a configuration generated from a
profile, so that a benchmark can be repeated elsewhere with the same settings:

  cpu-bound  the buffer pool (shared_buffers) holds the whole data set (× 1.25)
  io-bound   the buffer pool holds about half the data set
  custom     only the settings given with --set

Everything lives in one directory (--dir): data, socket, generated config,
log and state. The server listens on 127.0.0.1 only and trusts local users.

  fairbench server start --flavor=mariadb --profile=cpu-bound --data-size=2GiB
  fairbench server start --flavor=postgres --profile=io-bound --data-size=8GiB --dry-run
  fairbench server start --flavor=mariadb --cpus=0-21   # every server thread on CPUs 0-21
  fairbench server status --flavor=mariadb
  fairbench server stop --flavor=mariadb`),
		Args: noSubcommand,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.serverStartCommand(), a.serverStopCommand(), a.serverStatusCommand())
	return cmd
}

// registerWhere adds --flavor and --dir.
func (f *serverCmdFlags) registerWhere(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.flavor, "flavor", "", "server: mariadb, mysql or postgres")
	cmd.Flags().StringVar(&f.dir, "dir", "", "the server's private directory (default "+serverParent+"/server-FLAVOR)")
}

func (a *App) serverStartCommand() *cobra.Command {
	f := &serverCmdFlags{}
	cmd := &cobra.Command{
		Use:   "start",
		Short: "Start a private server with a generated configuration (initialises its data on the first start)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts, err := f.startOptions()
			if err != nil {
				return err
			}
			if f.dryRun {
				return a.serverDryRun(opts)
			}
			return a.serverStart(cmd, opts)
		},
	}
	f.registerWhere(cmd)
	fs := cmd.Flags()
	fs.StringVar(&f.profile, "profile", string(localserver.ProfileCPUBound), "configuration profile: cpu-bound, io-bound or custom")
	fs.IntVar(&f.port, "port", 0, "TCP port on 127.0.0.1 (0: a free one, the previous one on a restart when still free)")
	fs.StringVar(&f.dataSize, "data-size", "1GiB", "size of the data set the profile is sized for (e.g. 2GiB, 500MB, 64M)")
	fs.StringArrayVar(&f.set, "set", nil, "a server setting by the server's own name, key=value (repeatable); overrides the profile's")
	fs.StringVar(&f.cpus, "cpus", "", "pin every thread of the server to these CPUs (a kernel CPU list such as 0-3,8); default: not pinned")
	fs.BoolVar(&f.dryRun, "dry-run", false, "print the generated configuration without starting anything")
	return cmd
}

// startOptions validates the start flags.
func (f *serverCmdFlags) startOptions() (localserver.Options, error) {
	var opts localserver.Options
	flavor, err := localserver.ParseFlavor(f.flavor)
	if err != nil {
		return opts, usageErrorf("--flavor: %v", err)
	}
	profile, err := localserver.ParseProfile(f.profile)
	if err != nil {
		return opts, usageErrorf("--profile: %v", err)
	}
	data, err := bytesize.Parse(f.dataSize)
	if err != nil {
		return opts, usageErrorf("--data-size: %v", err)
	}
	if data <= 0 {
		return opts, usageErrorf("--data-size %q: give the size of the data set, for example 2GiB", f.dataSize)
	}
	if f.port < 0 || f.port > 65535 {
		return opts, usageErrorf("--port %d: give a port from 1 to 65535, or 0 for a free one", f.port)
	}
	settings := map[string]string{}
	for _, kv := range f.set {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return opts, usageErrorf("--set %q: give key=value, for example --set innodb_buffer_pool_size=4G", kv)
		}
		settings[strings.TrimSpace(k)] = v
	}
	var cpus cpuset.Set
	if f.cpus != "" {
		if cpus, err = cpuset.Parse(f.cpus); err != nil {
			return opts, usageErrorf("--cpus: %v", err)
		}
		if err := cpuset.CheckUsable(os.DirFS("/"), os.Getpid(), cpus, "--cpus"); err != nil {
			return opts, withCode(ExitUsage, err)
		}
	}
	opts = localserver.Options{Flavor: flavor, Profile: profile, Dir: f.dir, Port: f.port, DataBytes: data, Settings: settings, CPUs: cpus}
	if opts.Dir == "" {
		opts.Dir = defaultServerDir(flavor)
	}
	if _, err := localserver.Generate(opts); err != nil {
		return opts, withCode(ExitUsage, err)
	}
	return opts, nil
}

// defaultServerDir is the --dir of a flavor when none is given.
func defaultServerDir(f localserver.Flavor) string {
	return filepath.Join(serverParent, "server-"+string(f))
}

// serverDryRun prints the configuration start would write.
func (a *App) serverDryRun(opts localserver.Options) error {
	ms, err := localserver.Generate(opts)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	dir, _ := filepath.Abs(opts.Dir)
	fmt.Fprintf(a.Stdout, "Dry run: the %s server in %s would start with this configuration (nothing was started or written):\n\n", ms.Flavor, dir)
	fmt.Fprint(a.Stdout, ms.Config)
	if ms.CPUList != "" {
		fmt.Fprintf(a.Stdout, "\nEvery thread of the server would run on CPUs %s.\n", ms.CPUList)
	}
	return nil
}

// serverStart starts the server and says how to reach it.
func (a *App) serverStart(cmd *cobra.Command, opts localserver.Options) error {
	if err := a.connecting(); err != nil {
		return err
	}
	srv, err := localserver.Start(cmd.Context(), opts)
	if err != nil {
		return withCode(ExitTarget, fmt.Errorf("start the %s server: %w", opts.Flavor, err))
	}
	w := a.Stdout
	fmt.Fprintf(w, "Configuration (%s):\n\n%s\n", srv.ConfigFile, srv.Managed.Config)
	for _, n := range srv.Notes {
		fmt.Fprintf(a.Stderr, "fairbench: note: %s\n", n)
	}
	pinned := ""
	if !srv.CPUs.IsEmpty() {
		pinned = ", pinned to CPUs " + srv.CPUs.String()
	}
	fmt.Fprintf(w, "Started the %s server in %s (pid %d, port %d on 127.0.0.1, profile %s%s): %s\n",
		srv.Flavor, srv.Dir, srv.PID, srv.Port, srv.Profile, pinned, srv.Version)
	printConnect(w, srv)
	fmt.Fprintf(w, "Stop it with: fairbench server stop --dir=%s\n", srv.Dir)
	return nil
}

// printConnect prints the fairbench flags that reach srv.
func printConnect(w io.Writer, srv *localserver.Server) {
	socket, tcp := srv.ConnectFlags()
	fmt.Fprintf(w, "Connect fairbench with:\n  %s\nor over TCP:\n  %s\n", strings.Join(socket, " "), strings.Join(tcp, " "))
}

// state finds the server directory of --dir/--flavor and reads its state.
func (f *serverCmdFlags) state(ctx context.Context) (string, localserver.State, error) {
	dir, err := f.existingDir()
	if err != nil {
		return "", localserver.State{}, err
	}
	st, err := localserver.Status(ctx, dir)
	if err != nil {
		return "", localserver.State{}, serverStateError(err)
	}
	return dir, st, nil
}

func (a *App) serverStopCommand() *cobra.Command {
	f := &serverCmdFlags{}
	cmd := &cobra.Command{
		Use:   "stop",
		Short: "Stop a private server cleanly and wait until it has exited",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, st, err := f.state(cmd.Context())
			if err != nil {
				return err
			}
			if !st.Running {
				fmt.Fprintf(a.Stdout, "The %s server in %s is not running: nothing to stop.\n", st.Flavor, st.Dir)
				return nil
			}
			if err := localserver.Stop(cmd.Context(), dir); err != nil {
				return withCode(ExitTarget, fmt.Errorf("stop the %s server in %s: %w", st.Flavor, st.Dir, err))
			}
			fmt.Fprintf(a.Stdout, "Stopped the %s server in %s (pid %d).\n", st.Flavor, st.Dir, st.PID)
			return nil
		},
	}
	f.registerWhere(cmd)
	return cmd
}

func (a *App) serverStatusCommand() *cobra.Command {
	f := &serverCmdFlags{}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show whether a private server runs, where, and with which settings",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, st, err := f.state(cmd.Context())
			if err != nil {
				return err
			}
			printStatus(a.Stdout, st)
			return nil
		},
	}
	f.registerWhere(cmd)
	return cmd
}

// serverStateError gives a state error its exit code: a directory without a
// server is bad input.
func serverStateError(err error) error {
	if errors.Is(err, localserver.ErrNoServer) {
		return withCode(ExitUsage, err)
	}
	return withCode(ExitTarget, err)
}

// existingDir resolves the directory of stop and status: --dir, else the
// default of --flavor, else the one server under fairbench-data/.
func (f *serverCmdFlags) existingDir() (string, error) {
	if f.dir != "" {
		return f.dir, nil
	}
	if f.flavor != "" {
		flavor, err := localserver.ParseFlavor(f.flavor)
		if err != nil {
			return "", usageErrorf("--flavor: %v", err)
		}
		return defaultServerDir(flavor), nil
	}
	dirs, err := localserver.FindServers(serverParent)
	if err != nil {
		return "", withCode(ExitUsage, err)
	}
	switch len(dirs) {
	case 0:
		return "", usageErrorf("no server found under %s/: name it with --dir (or --flavor for the default directory)", serverParent)
	case 1:
		return dirs[0], nil
	}
	return "", usageErrorf("several servers under %s/ (%s): choose one with --dir or --flavor", serverParent, strings.Join(dirs, ", "))
}

// printStatus writes what Status found.
func printStatus(w io.Writer, st localserver.State) {
	state := "stopped"
	switch {
	case st.Running:
		state = fmt.Sprintf("running (pid %d)", st.PID)
	case !st.StoppedAt.IsZero():
		state = "stopped since " + st.StoppedAt.Local().Format(time.DateTime)
	}
	fmt.Fprintf(w, "The %s server in %s is %s.\n", st.Flavor, st.Dir, state)
	row := func(k, format string, args ...any) { fmt.Fprintf(w, "  %-9s %s\n", k, fmt.Sprintf(format, args...)) }
	row("version", "%s", st.Version)
	profile := string(st.Profile)
	if st.Managed.DataBytes > 0 && st.Profile != localserver.ProfileCustom {
		profile += ", sized for " + bytesize.Format(st.Managed.DataBytes) + " of data"
	}
	row("profile", "%s", profile)
	row("port", "%d on 127.0.0.1", st.Port)
	if !st.CPUs.IsEmpty() {
		row("cpus", "%s (every thread pinned)", st.CPUs)
	} else {
		row("cpus", "not pinned")
	}
	row("socket", "%s", st.Socket)
	row("config", "%s", st.ConfigFile)
	row("log", "%s", st.LogFile)
	if !st.StartedAt.IsZero() {
		row("started", "%s", st.StartedAt.Local().Format(time.DateTime))
	}
	keys := make([]string, 0, len(st.Managed.Settings))
	for k := range st.Managed.Settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		label := ""
		if i == 0 {
			label = "settings"
		}
		row(label, "%s = %s", k, st.Managed.Settings[k])
	}
	for _, n := range st.Notes {
		row("note", "%s", n)
	}
	if st.Running {
		printConnect(w, &st.Server)
	}
}
