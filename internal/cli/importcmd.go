package cli

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/base/outfile"
	"github.com/fairbench/fairbench/internal/compat/importer"
	"github.com/fairbench/fairbench/internal/machine/servermachine"
	"github.com/fairbench/fairbench/internal/record/result"
)

// importFlags describe the logs being imported: what the logs do not say.
type importFlags struct {
	format, workload, label, threads string
	// server describes the machine under test (--server-*, --server-machine).
	server servermachine.Spec
	// The older names of --server-arch, --server-cpu-model, --server-vcpus,
	// --server-ghz and --server-memory (in GiB).
	arch, cpuModel  string
	vcpus           int
	ghz, memoryGiB  float64
	flavor, version string
	set             []string
	out             string
}

// importAliases are import's older machine flags and the --server-* flags
// they stand for: a log says nothing about a client, and the machine people
// described to import was the machine under test.
var importAliases = [][2]string{
	{"arch", "server-arch"}, {"cpu-model", "server-cpu-model"}, {"machine-vcpus", "server-vcpus"},
	{"machine-ghz", "server-ghz"}, {"memory-gib", "server-memory"},
}

func (f *importFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.format, "log-format", "auto", "the logs' format: sysbench, go-tpc or auto")
	fs.StringVar(&f.workload, "workload", "", "workload when the log does not name it (oltp_read_write, tpcc, …)")
	fs.StringVar(&f.threads, "log-threads", "", "thread counts when the log does not say (go-tpc): one for all runs, or one per run in order, e.g. 150,300,500")
	servermachine.RegisterFlags(fs, &f.server, false)
	fs.StringVar(&f.arch, "arch", "", "the older name of --server-arch")
	fs.StringVar(&f.cpuModel, "cpu-model", "", "the older name of --server-cpu-model")
	fs.IntVar(&f.vcpus, "machine-vcpus", 0, "the older name of --server-vcpus")
	fs.Float64Var(&f.ghz, "machine-ghz", 0, "the older name of --server-ghz")
	fs.Float64Var(&f.memoryGiB, "memory-gib", 0, "the older name of --server-memory, in GiB")
	for _, a := range importAliases {
		_ = fs.MarkHidden(a[0])
	}
	fs.StringVar(&f.flavor, "server-flavor", "", "the database server: MySQL, MariaDB, TiDB, PostgreSQL, …")
	fs.StringVar(&f.version, "server-version", "", "the server's version")
	fs.StringArrayVar(&f.set, "set", nil, "an option the log does not print, as the run command names it: --set warehouses=10 --set tables=16")
}

// mergeAliases moves the values of the older flags into f.server, refusing
// an older flag given with its --server-* name.
func (f *importFlags) mergeAliases(fs *pflag.FlagSet) error {
	for _, a := range importAliases {
		old, name := a[0], a[1]
		if !fs.Changed(old) {
			continue
		}
		if fs.Changed(name) {
			return fmt.Errorf("--%s and --%s are one flag (--%s is its older name): give one", old, name, old)
		}
		var err error
		switch old {
		case "arch":
			f.server.Arch, err = servermachine.NormalizeArch(f.arch)
		case "cpu-model":
			f.server.CPUModel = f.cpuModel
		case "machine-vcpus":
			if f.vcpus < 1 || f.vcpus > 65536 {
				err = fmt.Errorf("%d: give the machine's logical CPUs, 1 to 65536", f.vcpus)
			}
			f.server.VCPUs = f.vcpus
		case "machine-ghz":
			err = servermachine.CheckGHz(f.ghz)
			f.server.GHz = f.ghz
		case "memory-gib":
			if !(f.memoryGiB > 0) {
				err = fmt.Errorf("%g: give the machine's memory in GiB", f.memoryGiB)
			}
			f.server.Memory = strconv.FormatFloat(f.memoryGiB, 'g', -1, 64) + "GiB"
		}
		if err != nil {
			return fmt.Errorf("--%s: %w", old, err)
		}
	}
	return nil
}

// options builds the importer's options; fs is the command's flag set, to
// tell which machine flags were given.
func (f *importFlags) options(ctx context.Context, fs *pflag.FlagSet) (importer.Options, []string, error) {
	format, err := importer.ParseFormat(f.format)
	if err != nil {
		return importer.Options{}, nil, fmt.Errorf("--log-format: %w", err)
	}
	if err := f.mergeAliases(fs); err != nil {
		return importer.Options{}, nil, err
	}
	machines, warnings, err := servermachine.Describe(ctx, f.server)
	if err != nil {
		return importer.Options{}, nil, err
	}
	opts := importer.Options{
		Format: format, Workload: f.workload, Label: f.label,
		Machine:        importMachine(f.server, machines),
		ServerMachines: machines,
		Server:         result.Server{Flavor: f.flavor, Version: f.version},
	}
	opts, err = f.moreOptions(opts)
	return opts, warnings, err
}

// importMachine is the imported results' machine, as import recorded it
// before server_machines, for older readers: the single server machine, or
// with several the fields the flags give.
func importMachine(s servermachine.Spec, machines []result.ServerMachine) result.Machine {
	m := result.Machine{Arch: s.Arch, CPUModel: s.CPUModel, LogicalCPUs: s.VCPUs, GivenGHz: s.GHz, MemoryBytes: s.MemoryBytes(),
		InstanceType: s.InstanceType, Region: s.Region, Zone: s.Zone}
	if len(machines) == 1 {
		m = machines[0].Machine
	}
	if !reflect.ValueOf(m).IsZero() {
		m.Source = result.SourceImport
	}
	return m
}

// moreOptions adds the thread counts and --set options to opts.
func (f *importFlags) moreOptions(opts importer.Options) (importer.Options, error) {
	for _, p := range strings.Split(f.threads, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return opts, fmt.Errorf("--log-threads %q: give thread counts, e.g. 150,300", f.threads)
		}
		opts.Threads = append(opts.Threads, n)
	}
	for _, kv := range f.set {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return opts, fmt.Errorf("--set %q: write NAME=VALUE, e.g. --set warehouses=10", kv)
		}
		if opts.Settings == nil {
			opts.Settings = map[string]string{}
		}
		opts.Settings[k] = v
	}
	return opts, nil
}

// importCommand is `fairbench import LOG…`.
func (a *App) importCommand() *cobra.Command {
	f := &importFlags{}
	cmd := &cobra.Command{
		Use:   "import LOG… --out DIR [flags]",
		Short: "Turn sysbench and go-tpc text logs into result files, to compare and cost them with fairbench's own",
		Long: `import reads sysbench 1.0 and go-tpc (tpcc) output — a log may hold several runs — and
writes one fairbench result file per run into --out, recording what the log says
(threads, tps, qps, latency, tpmC, intervals) and, from flags, what it does not (the
machine, the server, options). The files are named after the logs (run.log →
run-1.json…; logs of one name get their directories: a_run-1.json, b_run-1.json).
Every log is read and every file named before any is written; an existing file is
never overwritten. The directory is then an operand of compare, cost and report:

  fairbench import old/arm-*.log --out arm-2020 --server-arch arm64 --server-cpu-model "Kunpeng 920" --server-vcpus 24 --server-ghz 2.6
  fairbench compare arm=arm-2020 x86=x86-2020

The machine described with --server-* (or --server-machine FILE, the output of
"fairbench sysinfo --format json" on the database host) is the machine under
test: it is recorded as the results' server_machines, and as their machine for
older readers. --arch, --cpu-model, --machine-vcpus, --machine-ghz and
--memory-gib are the older names of --server-arch, --server-cpu-model,
--server-vcpus, --server-ghz and --server-memory (in GiB), and still work.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("import needs log files: fairbench import LOG… --out DIR")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return a.importLogs(cmd, args, f) },
	}
	f.register(cmd.Flags())
	cmd.Flags().StringVar(&f.label, "label", "", "a label stored with the results")
	cmd.Flags().StringVarP(&f.out, "out", "o", "", "directory for the result files (one per run)")
	return cmd
}

// importLogs is the work of import: the options from the flags, then the
// plan (importer.NewPlan), then its notes and the files written.
func (a *App) importLogs(cmd *cobra.Command, args []string, f *importFlags) error {
	if f.out == "" {
		return usageErrorf("import needs --out DIR for the result files")
	}
	opts, machineWarnings, err := f.options(cmd.Context(), cmd.Flags())
	if err != nil {
		return withCode(ExitUsage, err)
	}
	// A directory that cannot take the results is said before any log is read.
	out, err := outfile.MakeDir(f.out)
	if err != nil {
		return withCode(ExitUsage, fmt.Errorf("--out %w", err))
	}
	// Read, name and check every result before writing any: a bad log, two
	// logs of one name or a file already there leave nothing behind.
	plan, err := importer.NewPlan(args, opts, f.out)
	if err != nil {
		out.Discard()
		return withCode(ExitUsage, err)
	}
	for _, n := range plan.Notes {
		fmt.Fprintf(a.Stdout, "%s\n", n)
	}
	for _, w := range append(machineWarnings, plan.Warnings...) {
		fmt.Fprintf(a.Stderr, "fairbench: warning: %s\n", w)
	}
	if err := plan.Write(); err != nil {
		out.Discard()
		return withCode(ExitFailed, err)
	}
	for _, r := range plan.Runs {
		fmt.Fprintf(a.Stdout, "%s: %s, %d threads, %.2f tps → %s\n", r.Log, r.Result.Workload, r.Result.Threads, r.Result.Totals.TPS, r.Path)
	}
	fmt.Fprintf(a.Stdout, "Imported %d runs into %s\n", len(plan.Runs), f.out)
	return nil
}
