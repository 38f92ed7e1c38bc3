package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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
		RunE: func(cmd *cobra.Command, args []string) error {
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
			plan, err := planImport(args, opts, f.out)
			if err != nil {
				out.Discard()
				return withCode(ExitUsage, err)
			}
			for _, n := range plan.notes {
				fmt.Fprintf(a.Stdout, "%s\n", n)
			}
			for _, w := range append(machineWarnings, plan.warnings...) {
				fmt.Fprintf(a.Stderr, "fairbench: warning: %s\n", w)
			}
			if err := plan.write(); err != nil {
				out.Discard()
				return withCode(ExitFailed, err)
			}
			for _, r := range plan.runs {
				fmt.Fprintf(a.Stdout, "%s: %s, %d threads, %.2f tps → %s\n", r.log, r.res.Workload, r.res.Threads, r.res.Totals.TPS, r.path)
			}
			fmt.Fprintf(a.Stdout, "Imported %d runs into %s\n", len(plan.runs), f.out)
			return nil
		},
	}
	f.register(cmd.Flags())
	cmd.Flags().StringVar(&f.label, "label", "", "a label stored with the results")
	cmd.Flags().StringVarP(&f.out, "out", "o", "", "directory for the result files (one per run)")
	return cmd
}

// importedRun is one run of a log and the file it goes to.
type importedRun struct {
	log, path string
	res       *result.Result
}

// importPlan is everything an import writes, read and named before any of it
// is written.
type importPlan struct {
	runs     []importedRun
	notes    []string // how results were named apart
	warnings []string // from the results, each once
}

// planImport reads every log and names every result file in outDir. It
// refuses a log given twice, results whose names it cannot tell apart and a
// file already there: import never overwrites a result.
func planImport(logs []string, opts importer.Options, outDir string) (*importPlan, error) {
	stats := make([]os.FileInfo, len(logs))
	for i, log := range logs {
		st, err := os.Stat(log)
		if err != nil {
			return nil, fmt.Errorf("import: %w", err)
		}
		for j := range i {
			if os.SameFile(stats[j], st) {
				return nil, fmt.Errorf("%s and %s are the same log: give each log once (its runs would count twice); nothing was written", logs[j], log)
			}
		}
		stats[i] = st
	}
	p := &importPlan{}
	seen := map[string]bool{}
	parsed := make([][]*result.Result, len(logs))
	for i, log := range logs {
		results, err := importer.ParseFile(log, opts)
		if err != nil {
			return nil, fmt.Errorf("%w (--log-threads, --workload and --set supply what a log does not say); nothing was written", err)
		}
		parsed[i] = results
		p.notes = append(p.notes, defaultsNotes(log, results)...)
		for _, res := range results {
			for _, w := range res.Warnings {
				if !seen[w] {
					seen[w] = true
					p.warnings = append(p.warnings, w)
				}
			}
		}
	}
	stems, notes, err := resultStems(logs)
	if err != nil {
		return nil, err
	}
	p.notes = append(p.notes, notes...)
	var exist []string
	for i, results := range parsed {
		for j, res := range results {
			path := filepath.Join(outDir, fmt.Sprintf("%s-%d.json", stems[i], j+1))
			if _, err := os.Lstat(path); err == nil {
				exist = append(exist, fmt.Sprintf("%s (from %s)", filepath.Base(path), logs[i]))
			}
			p.runs = append(p.runs, importedRun{log: logs[i], path: path, res: res})
		}
	}
	if len(exist) > 0 {
		return nil, fmt.Errorf("--out %s already holds %s: import never overwrites a result file, and wrote nothing; remove those files or import into another --out directory",
			outDir, listSome(exist, 3))
	}
	if err := p.refuseDuplicates(outDir); err != nil {
		return nil, err
	}
	return p, nil
}

// refuseDuplicates refuses a run given twice — in two copies of a log, or
// already in --out under another name (the log imported before beside logs of
// its name): compare would count it twice. A run is known by its log's name,
// its line there, its workload, threads, events and duration.
func (p *importPlan) refuseDuplicates(outDir string) error {
	type runID struct {
		from, line, workload string
		threads              int
		events               int64
		seconds              float64
	}
	id := func(r *result.Result) runID {
		return runID{r.Options[importer.OptionImportedFrom], r.Options[importer.OptionImportedLine], r.Workload,
			r.Threads, r.Totals.Counts.Events, r.Totals.Seconds}
	}
	planned := map[runID]importedRun{}
	for _, r := range p.runs {
		if first, ok := planned[id(r.res)]; ok {
			return fmt.Errorf("%s and %s hold the same run (line %s, %s, %d threads, %d events): they are copies of one log; give it once, and nothing was written",
				first.log, r.log, r.res.Options[importer.OptionImportedLine], r.res.Workload, r.res.Threads, r.res.Totals.Counts.Events)
		}
		planned[id(r.res)] = r
	}
	files, _ := filepath.Glob(filepath.Join(outDir, "*.json"))
	held := map[runID]string{}
	for _, f := range files {
		if r, err := result.Read(f); err == nil && r.Options[importer.OptionImportedFrom] != "" {
			held[id(r)] = filepath.Base(f)
		}
	}
	var dup []string
	for _, r := range p.runs {
		if f, ok := held[id(r.res)]; ok {
			dup = append(dup, fmt.Sprintf("the run at line %s of %s (as %s)", r.res.Options[importer.OptionImportedLine], r.log, f))
		}
	}
	if len(dup) > 0 {
		return fmt.Errorf("--out %s already holds %s: importing it again would count it twice, and nothing was written; import only the new logs, or into another --out directory",
			outDir, listSome(dup, 3))
	}
	return nil
}

// write writes every result; when one cannot be written it removes those
// written before it, so that an import is whole or not at all.
func (p *importPlan) write() error {
	for i, r := range p.runs {
		if err := result.Write(r.path, r.res); err != nil {
			var left []string
			for _, w := range p.runs[:i] {
				if rmErr := os.Remove(w.path); rmErr != nil {
					left = append(left, w.path)
				}
			}
			if len(left) > 0 {
				return fmt.Errorf("%w; removing the results written before it failed: %s remain", err, listSome(left, 3))
			}
			return fmt.Errorf("%w; removed the %d results written before it, so nothing was imported", err, i)
		}
	}
	return nil
}

// resultStems names the result files of each log: the log's name without its
// extension ("run" for a/run.log, giving run-1.json, run-2.json…). Logs that
// share a name are told apart by as many of their directories as it takes
// ("a_run", "b_run"), or by their extension; notes say so.
func resultStems(logs []string) ([]string, []string, error) {
	comps := make([][]string, len(logs))
	files := make([]string, len(logs))
	for i, log := range logs {
		abs, err := filepath.Abs(log)
		if err != nil {
			abs = filepath.Clean(log)
		}
		dir, file := filepath.Split(abs)
		for _, c := range strings.Split(filepath.ToSlash(dir), "/") {
			if c != "" {
				comps[i] = append(comps[i], c)
			}
		}
		comps[i] = append(comps[i], strings.TrimSuffix(file, filepath.Ext(file)))
		files[i] = file
	}
	level := make([]int, len(logs))
	stem := func(i int) string {
		c := comps[i]
		if level[i] <= len(c) {
			return strings.Join(c[len(c)-level[i]:], "_")
		}
		return strings.Join(append(c[:len(c)-1:len(c)-1], files[i]), "_") // with the extension
	}
	for i := range level {
		level[i] = 1
	}
	for {
		byStem := map[string][]int{}
		for i := range logs {
			byStem[stem(i)] = append(byStem[stem(i)], i)
		}
		moved := false
		for s, group := range byStem {
			if len(group) < 2 {
				continue
			}
			groupMoved := false
			for _, i := range group {
				if level[i] <= len(comps[i]) {
					level[i]++
					groupMoved = true
				}
			}
			moved = moved || groupMoved
			if !groupMoved {
				return nil, nil, fmt.Errorf("%s and %s would both be named %s-N.json: rename one of the logs; nothing was written", logs[group[0]], logs[group[1]], s)
			}
		}
		if !moved {
			break
		}
	}
	out := make([]string, len(logs))
	var notes []string
	for i := range logs {
		out[i] = stem(i)
		if level[i] > 1 {
			base := strings.TrimSuffix(files[i], filepath.Ext(files[i]))
			notes = append(notes, fmt.Sprintf("%s: another log is also named %s, so its results are named %s-N.json", logs[i], base, out[i]))
		}
	}
	return out, notes, nil
}

// defaultsNotes says, once per log, which options were recorded as the
// defaults of the tool's version because the log does not show them.
func defaultsNotes(log string, results []*result.Result) []string {
	var notes []string
	seen := map[string]bool{}
	for _, res := range results {
		names := res.Options[importer.OptionImportedDefaults]
		if names == "" {
			continue
		}
		var vals []string
		for _, k := range strings.Split(names, ",") {
			vals = append(vals, k+"="+res.Options[k])
		}
		n := fmt.Sprintf("%s: the log shows no %s: recorded %s %s's defaults, %s", log, names, res.Tool.Name, res.Tool.Version, strings.Join(vals, " "))
		if !seen[n] {
			seen[n] = true
			notes = append(notes, n)
		}
	}
	return notes
}

// listSome lists the first n items and how many more there are.
func listSome(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}
