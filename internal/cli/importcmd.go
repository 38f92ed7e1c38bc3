package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/importer"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/sysinfo"
)

// importFlags describe the logs being imported: what the logs do not say.
type importFlags struct {
	format, workload, label, threads string
	arch, cpuModel                   string
	vcpus                            int
	ghz, memoryGiB                   float64
	flavor, version                  string
	set                              []string
	out                              string
}

func (f *importFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.format, "log-format", "auto", "the logs' format: sysbench, go-tpc or auto")
	fs.StringVar(&f.workload, "workload", "", "workload when the log does not name it (oltp_read_write, tpcc, …)")
	fs.StringVar(&f.threads, "log-threads", "", "thread counts when the log does not say (go-tpc): one for all runs, or one per run in order, e.g. 150,300,500")
	fs.StringVar(&f.arch, "arch", "", "the machine the log came from: architecture (arm64, amd64)")
	fs.StringVar(&f.cpuModel, "cpu-model", "", "the machine's CPU model, e.g. \"Kunpeng 920\"")
	fs.IntVar(&f.vcpus, "machine-vcpus", 0, "the machine's logical CPUs")
	fs.Float64Var(&f.ghz, "machine-ghz", 0, "the machine's CPU frequency in GHz")
	fs.Float64Var(&f.memoryGiB, "memory-gib", 0, "the machine's memory in GiB")
	fs.StringVar(&f.flavor, "server-flavor", "", "the database server: MySQL, MariaDB, TiDB, PostgreSQL, …")
	fs.StringVar(&f.version, "server-version", "", "the server's version")
	fs.StringArrayVar(&f.set, "set", nil, "an option the log does not print, as the run command names it: --set warehouses=10 --set tables=16")
}

// options builds the importer's options.
func (f *importFlags) options() (importer.Options, error) {
	format, err := importer.ParseFormat(f.format)
	if err != nil {
		return importer.Options{}, fmt.Errorf("--log-format: %w", err)
	}
	opts := importer.Options{
		Format: format, Workload: f.workload, Label: f.label,
		Machine: sysinfo.Machine{Arch: f.arch, CPUModel: f.cpuModel, LogicalCPUs: f.vcpus, GivenGHz: f.ghz, MemoryBytes: int64(f.memoryGiB * (1 << 30))},
		Server:  sysinfo.Server{Flavor: f.flavor, Version: f.version},
	}
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
machine, the server, options). The directory is then an operand of compare, cost and
report:

  fairbench import old/arm-*.log --out arm-2020 --arch arm64 --cpu-model "Kunpeng 920" --machine-vcpus 24 --machine-ghz 2.6
  fairbench compare arm=arm-2020 x86=x86-2020`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("import needs log files: fairbench import LOG… --out DIR")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.out == "" {
				return usageErrorf("import needs --out DIR for the result files")
			}
			opts, err := f.options()
			if err != nil {
				return withCode(ExitUsage, err)
			}
			// Read every log before writing anything, so that a bad log leaves no half import.
			type parsed struct {
				log     string
				results []*result.Result
			}
			var all []parsed
			for _, log := range args {
				results, err := importer.ParseFile(log, opts)
				if err != nil {
					return withCode(ExitUsage, fmt.Errorf("%w (--log-threads, --workload and --set supply what a log does not say)", err))
				}
				all = append(all, parsed{log, results})
			}
			n := 0
			for _, p := range all {
				base := strings.TrimSuffix(filepath.Base(p.log), filepath.Ext(p.log))
				for i, res := range p.results {
					path := filepath.Join(f.out, fmt.Sprintf("%s-%d.json", base, i+1))
					if _, err := os.Stat(path); err == nil {
						return withCode(ExitUsage, fmt.Errorf("%s exists: import into an empty --out directory", path))
					}
					if err := result.Write(path, res); err != nil {
						return withCode(ExitFailed, err)
					}
					n++
					fmt.Fprintf(a.Stdout, "%s: %s, %d threads, %.2f tps → %s\n", p.log, res.Workload, res.Threads, res.Totals.TPS, path)
				}
			}
			fmt.Fprintf(a.Stdout, "Imported %d runs into %s\n", n, f.out)
			return nil
		},
	}
	f.register(cmd.Flags())
	cmd.Flags().StringVar(&f.label, "label", "", "a label stored with the results")
	cmd.Flags().StringVarP(&f.out, "out", "o", "", "directory for the result files (one per run)")
	return cmd
}
