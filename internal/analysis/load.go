package analysis

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/base/lazyre"
	"github.com/fairbench/fairbench/internal/record/bundle"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/record/suitedir"
)

// Load reads one operand: a result file, a suite directory (manifest.json and
// one result file per cell), a directory of result files without a
// manifest, read with its subdirectories (suite directories among them are
// read as suites), or a bundle (bundle.IsBundle), read as the directory it
// holds once bundle.Open has verified it (a bundle whose content changed is
// refused, naming the member). A bundle's files are named as if it were that
// directory ("runs.fbz/0001-….json"; ResultReader reads them).
// Only complete runs are kept; the others are counted in System.Skipped and
// told in System.Notes. label names the system; "" derives it from the machine
// (or, lacking a fingerprint, the file or directory name).
//
// All results of an operand must come from one machine and one server
// (flavour and version); otherwise Load fails naming both.
func Load(path, label string) (*System, error) {
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("load %s: no such file or directory: give a result file, a suite directory or a directory of result files", path)
	}
	if err != nil {
		return nil, fmt.Errorf("load %s: %w: give a result file, a suite directory or a directory of result files", path, err)
	}
	var (
		runs    []run
		skipped []string // statuses of what was left out
		notes   []string
	)
	switch {
	case !info.IsDir() && (bundle.IsBundle(path) || strings.EqualFold(filepath.Ext(path), bundle.Ext)):
		// A damaged .fbz is opened too, for bundle.Open's precise error.
		if runs, skipped, notes, err = loadBundle(path); err != nil {
			return nil, err
		}
	case !info.IsDir():
		res, err := result.Read(path)
		if err != nil {
			return nil, fmt.Errorf("load: %w", err)
		}
		if runs, skipped, err = addResult(runs, skipped, res, path, nil); err != nil {
			return nil, fmt.Errorf("load: %w", err)
		}
	default:
		if runs, skipped, notes, err = loadTree(os.DirFS(path), path); err != nil {
			return nil, err
		}
	}
	sys, err := newSystem(label, runs, skipped)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	sys.Source = path
	sys.Name = filepath.Base(filepath.Clean(path))
	if !info.IsDir() {
		sys.Name = strings.TrimSuffix(sys.Name, filepath.Ext(sys.Name))
	}
	if sys.Label == "" {
		sys.Label, sys.LabelDerived = sys.Name, true
	}
	sys.Notes = append(notes, sys.Notes...)
	return sys, nil
}

// FromResults makes an operand of results held in memory (an imported log, a
// run just finished). Incomplete results are skipped and counted as Load does;
// a result without a suite round gets the next round of its key in input order.
func FromResults(label string, results []*result.Result) (*System, error) {
	var runs []run
	var skipped []string
	for i, res := range results {
		if res == nil {
			return nil, fmt.Errorf("result %d is nil", i+1)
		}
		var err error
		if runs, skipped, err = addResult(runs, skipped, res, "", nil); err != nil {
			return nil, fmt.Errorf("result %d: %w", i+1, err)
		}
	}
	sys, err := newSystem(label, runs, skipped)
	if err != nil {
		return nil, err
	}
	if sys.Label == "" {
		return nil, errors.New("cannot name the system: its results carry no machine fingerprint; give a label")
	}
	return sys, nil
}

// run is one complete result with the key it is filed under.
type run struct {
	res   *result.Result
	key   Key
	round int // 0 = assign in order
	file  string
}

// addResult files res under its own key (or the suite cell's, when cell is
// given), or counts it as skipped when it did not complete. A complete
// result with a figure no run can measure (checkFigures) is refused.
func addResult(runs []run, skipped []string, res *result.Result, file string, cell *suitedir.CellRecord) ([]run, []string, error) {
	if res.Status != result.StatusComplete {
		status := string(res.Status)
		if status == "" {
			status = "unknown"
		}
		return runs, append(skipped, status), nil
	}
	if err := checkFigures(res); err != nil {
		if file != "" {
			return nil, nil, fmt.Errorf("%s: %w", file, err)
		}
		return nil, nil, err
	}
	r := run{res: res, file: file, key: resultKey(res)}
	if res.Suite != nil {
		r.round = res.Suite.Round
	}
	if cell != nil {
		r.key = Key{Workload: cell.Workload, RandType: cell.RandType, Profile: cell.Profile, Data: cell.Data, Threads: cell.Threads,
			Options: shapeOf(res, cell.RandType), CPUs: cpuSetOf(res)}
		if r.key.CPUs == "" && cell.ServerCPUs > 0 {
			// A manifest's sweep cell whose result lost its set.
			r.key.CPUs = cpuSetLabel(cell.ServerCPUs, cell.SMT, "")
		}
		r.round = cell.Round
	}
	return append(runs, r), skipped, nil
}

// checkFigures refuses a result whose figures no run can have measured: a
// throughput, latency or workload figure that is negative, not a number or
// infinite (a hand-edited or damaged file). JSON cannot hold NaN or
// infinities, but a file written by other tools or edited by hand can hold
// a negative figure, and a mean with it would be made up.
func checkFigures(res *result.Result) error {
	bad := func(name string, v float64) error {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s is %g, which no run measures: the file was edited or damaged; fix or remove it", name, v)
		}
		return nil
	}
	t := res.Totals
	for _, f := range []struct {
		name string
		v    float64
	}{{"totals.tps", t.TPS}, {"totals.qps", t.QPS}, {"totals.seconds", t.Seconds}} {
		if err := bad(f.name, f.v); err != nil {
			return err
		}
	}
	for _, k := range sortedKeys(t.Latency.Percentiles) {
		if err := bad("totals.latency.percentiles["+k+"]", t.Latency.Percentiles[k]); err != nil {
			return err
		}
	}
	for _, f := range res.Figures {
		if err := bad("figure "+f.Name, f.Value); err != nil {
			return err
		}
	}
	return nil
}

// resultKey derives a key from a result alone: rand type and data set from its
// options (named as a suite names them), profile from its suite cell or
// managed server, the options that shape what it measured (shapeOf), the
// server's CPU set (cpuSetOf).
func resultKey(res *result.Result) Key {
	k := Key{Workload: res.Workload, RandType: res.Options["rand-type"], Threads: res.Threads, Data: dataLabel(res)}
	k.Options = shapeOf(res, k.RandType)
	k.CPUs = cpuSetOf(res)
	switch {
	case res.Suite != nil && res.Suite.Profile != "":
		k.Profile = res.Suite.Profile
	case res.ManagedServer != nil:
		k.Profile = res.ManagedServer.Profile
	}
	return k
}

// dataLabel names a data set from a result's options as a suite does: "w10"
// for warehouses, "4x100000" for tables × rows, "" when the options say
// neither. A count the result does not say is its default (sysbench's and
// fairbench's: 1 table of 10000 rows) only when the defaults are known to
// apply (defaultsApply); otherwise it is "?" ("?x100000": a log imported
// without its command line), so that the row matches no other.
func dataLabel(res *result.Result) string {
	opts := res.Options
	if w, _ := strconv.Atoi(opts["warehouses"]); w > 0 {
		return "w" + strconv.Itoa(w)
	}
	if s, _ := strconv.Atoi(opts["scale"]); s > 0 && strings.HasPrefix(res.Workload, "pgbench") {
		return "s" + strconv.Itoa(s) // pgbench's scale factor
	}
	_, hasT := opts["tables"]
	_, hasS := opts["table-size"]
	if !hasT && !hasS {
		return ""
	}
	count := func(name, def string) string {
		v, ok := opts[name]
		if !ok && defaultsApply(res) {
			v = def
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 {
			return "?"
		}
		return strconv.Itoa(n)
	}
	return count("tables", "1") + "x" + count("table-size", "10000")
}

// loadBundle reads a bundle (bundle.Open: refused when a member changed) as
// the directory it holds: its files are named as if the bundle were that
// directory ("runs.fbz/0001-….json"; ReadResult reads them).
func loadBundle(path string) ([]run, []string, []string, error) {
	b, err := bundle.Open(path)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("load: %w", err)
	}
	return loadTree(b.FS(), path)
}

// loadTree reads the suite directory, or the directory of result files,
// that fsys holds; display names it in messages and sample file names.
func loadTree(fsys fs.FS, display string) (runs []run, skipped, notes []string, err error) {
	if _, err := fs.Stat(fsys, suitedir.ManifestName); err == nil {
		runs, skipped, err = loadSuite(fsys, ".", display)
		return runs, skipped, nil, err
	}
	var ignored []string
	runs, skipped, ignored, err = loadResultDir(fsys, display)
	if err != nil {
		return nil, nil, nil, err
	}
	if len(ignored) > 0 {
		notes = append(notes, fmt.Sprintf("ignored %d file(s) that are not fairbench results: %s", len(ignored), strings.Join(ignored, ", ")))
	}
	return runs, skipped, notes, nil
}

// readResultFS reads the result file name of fsys, naming it display in
// errors as result.Read names its path.
func readResultFS(fsys fs.FS, name, display string) (*result.Result, error) {
	f, err := fsys.Open(name)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			pe.Path = display
		}
		return nil, fmt.Errorf("read result: %w", err)
	}
	defer f.Close()
	res, err := result.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", display, err)
	}
	return res, nil
}

// loadSuite reads the complete cells of the suite directory dir of fsys
// (display names it).
func loadSuite(fsys fs.FS, dir, display string) ([]run, []string, error) {
	data, err := fs.ReadFile(fsys, path.Join(dir, suitedir.ManifestName))
	if err != nil {
		return nil, nil, fmt.Errorf("load: reading the suite manifest: %w", err)
	}
	m, err := suitedir.ParseManifest(data, filepath.Join(display, suitedir.ManifestName))
	if err != nil {
		return nil, nil, fmt.Errorf("load: %w", err)
	}
	if c := m.Client; c != nil && c.Of > 1 && m.Merged == nil {
		return nil, nil, fmt.Errorf("load %s: the suite directory holds client %d's share of %d coordinated clients, not the system's throughput: merge every client's directory first with fairbench merge CLIENT-DIRS… -o DIR and compare the merged directory", display, c.ID, c.Of)
	}
	var runs []run
	var skipped []string
	for i := range m.Cells {
		c := &m.Cells[i]
		if c.Status != suitedir.StatusComplete {
			skipped = append(skipped, c.Status)
			continue
		}
		if c.File == "" {
			return nil, nil, fmt.Errorf("load %s: cell %s is complete but names no result file: the manifest is damaged; resume the suite to run the cell again", display, c.ID)
		}
		file := filepath.Join(display, c.File)
		res, err := readResultFS(fsys, path.Join(dir, filepath.ToSlash(c.File)), file)
		if err != nil {
			return nil, nil, fmt.Errorf("load %s: cell %s: %w", display, c.ID, err)
		}
		if runs, skipped, err = addResult(runs, skipped, res, file, c); err != nil {
			return nil, nil, fmt.Errorf("load %s: cell %s: %w", display, c.ID, err)
		}
	}
	return runs, skipped, nil
}

// loadResultDir reads every *.json result file in fsys and its
// subdirectories, and every suite directory (one with a manifest) among them
// as a suite; display names fsys in messages. Files that are not fairbench
// results are ignored (and named by their path under it); hidden files and
// directories (temporaries of atomic writes) are not read.
func loadResultDir(fsys fs.FS, display string) (runs []run, skipped, ignored []string, err error) {
	err = fs.WalkDir(fsys, ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name, shown := e.Name(), filepath.Join(display, filepath.FromSlash(p))
		if p != "." && strings.HasPrefix(name, ".") {
			if e.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if e.IsDir() {
			if _, err := fs.Stat(fsys, path.Join(p, suitedir.ManifestName)); p != "." && err == nil {
				r, s, err := loadSuite(fsys, p, shown)
				if err != nil {
					return err
				}
				runs, skipped = append(runs, r...), append(skipped, s...)
				return fs.SkipDir
			}
			return nil
		}
		if !strings.EqualFold(path.Ext(name), ".json") {
			return nil
		}
		res, err := readResultFS(fsys, p, shown)
		if errors.Is(err, result.ErrNotResult) {
			ignored = append(ignored, filepath.FromSlash(p))
			return nil
		}
		if err != nil {
			return err
		}
		runs, skipped, err = addResult(runs, skipped, res, shown, nil)
		return err
	})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("load %s: %w", display, err)
	}
	if len(runs) == 0 && len(skipped) == 0 {
		return nil, nil, nil, fmt.Errorf("load %s: the directory and its subdirectories hold no fairbench result files (*.json) and no %s: give a result file, a suite directory or a directory of results", display, suitedir.ManifestName)
	}
	return runs, skipped, ignored, nil
}

// newSystem assembles a system from complete runs, checking they come from
// one machine and server.
func newSystem(label string, runs []run, skipped []string) (*System, error) {
	if len(runs) == 0 {
		what := "no results"
		if len(skipped) > 0 {
			what = fmt.Sprintf("no complete results (%s)", statusList(countStatuses(skipped)))
		}
		return nil, fmt.Errorf("%s to analyse: finish or resume the runs first", what)
	}
	if err := clientShares(runs); err != nil {
		return nil, err
	}
	var dry, served []string
	for _, r := range runs {
		name := r.file
		if name == "" {
			name = sourceName(r)
		}
		if r.res.Target.DryRun {
			dry = append(dry, name)
		} else {
			served = append(served, name)
		}
	}
	if err := dryRunMix(dry, served); err != nil {
		return nil, err
	}
	first := runs[0]
	sys := &System{Label: label, Machine: first.res.Machine, Server: first.res.Server, UnderTest: MachineUnderTest(first.res)}
	nextRound := map[Key]int{}
	for _, r := range runs {
		if ut := MachineUnderTest(r.res); judgedID(ut, r.res.Machine) != judgedID(sys.UnderTest, sys.Machine) {
			return nil, fmt.Errorf("the results come from two machines, %s in %s and %s in %s: compare them as separate operands",
				describeJudged(sys.UnderTest, sys.Machine), sourceName(first), describeJudged(ut, r.res.Machine), sourceName(r))
		}
		if serverID(r.res.Server) != serverID(first.res.Server) {
			return nil, fmt.Errorf("the results come from two servers, %s in %s and %s in %s: compare them as separate operands",
				serverID(first.res.Server), sourceName(first), serverID(r.res.Server), sourceName(r))
		}
		round := r.round
		if round <= 0 {
			round = nextRound[r.key] + 1
		}
		nextRound[r.key] = max(nextRound[r.key], round)
		sys.Samples = append(sys.Samples, sampleOf(r, round))
	}
	if len(skipped) > 0 {
		sys.Skipped = len(skipped)
		sys.SkippedByStatus = countStatuses(skipped)
		sys.Notes = append(sys.Notes, fmt.Sprintf("skipped %d of %d runs that did not complete (%s)",
			len(skipped), len(skipped)+len(runs), statusList(sys.SkippedByStatus)))
	}
	if err := sameGivenGHz(runs); err != nil {
		return nil, err
	}
	sys.GHz, sys.GHzSource = sys.UnderTest.GHz, sys.UnderTest.GHzSource
	sys.UnderTest.VCPUs, sys.UnderTest.VCPUsSource = systemVCPUs(runs)
	sys.VCPUs, sys.VCPUsSource = sys.UnderTest.VCPUs, sys.UnderTest.VCPUsSource
	sys.Notes = append(sys.Notes, sys.UnderTest.Notes...)
	sys.ServerSettings = settingsOf(runs)
	if sys.Label == "" {
		sys.Label = sys.UnderTest.Label
		if !sys.UnderTest.Known {
			sys.Label = serverLabel(sys.Server)
		}
		sys.LabelDerived = true
	}
	return sys, nil
}

// systemVCPUs is the vCPU count of a system's rows without a server CPU
// set: that of its first result whose server could use every CPU, else (all
// its results ran on sets, whose rows count their own CPUs) its machine's.
func systemVCPUs(runs []run) (int, string) {
	ref := runs[0]
	if i := slices.IndexFunc(runs, func(r run) bool { return !restrictedCPUs(r.res) }); i >= 0 {
		ref = runs[i]
	}
	u := MachineUnderTest(ref.res)
	if !restrictedCPUs(ref.res) {
		return u.VCPUs, u.VCPUsSource
	}
	if n := wholeVCPUs(u); n > 0 {
		return n, u.From + ": logical_cpus; a server CPU set's rows count its CPUs"
	}
	return u.VCPUs, u.VCPUsSource
}

// clientShares refuses the results of one of several coordinated clients
// (run --client-id --clients): each holds that client's share of the load,
// not the system's throughput, and only fairbench merge makes the whole of
// them. A merged result (MergedFrom set) is the whole.
func clientShares(runs []run) error {
	var files []string
	var of int
	for _, r := range runs {
		if c := r.res.Client; c != nil && c.Of > 1 && len(r.res.MergedFrom) == 0 {
			name := r.file
			if name == "" {
				name = fmt.Sprintf("the result of client %d of %d (%s)", c.ID, c.Of, r.key)
			}
			files = append(files, name)
			of = c.Of
		}
	}
	if len(files) == 0 {
		return nil
	}
	verb := "are each"
	if len(files) == 1 {
		verb = "is"
	}
	return fmt.Errorf("%s %s the share of one of %d coordinated clients (run --client-id --clients), not the system's throughput: combine every client's results first with fairbench merge CLIENT-RESULTS… -o merged.json and compare the merged result",
		strings.Join(files, ", "), verb, of)
}

// sampleOf extracts the figures of a run.
func sampleOf(r run, round int) Sample {
	s := Sample{Key: r.key, Round: round, TPS: r.res.Totals.TPS, QPS: r.res.Totals.QPS, File: r.file,
		Outages: len(r.res.Outages), OutageSeconds: result.OutageSeconds(r.res.Start, r.res.End, r.res.Outages),
		DryRun: r.res.Target.DryRun}
	observed := []*result.Observed{r.res.Observed}
	for _, m := range r.res.MergedFrom {
		observed = append(observed, m.Observed)
	}
	for _, o := range observed {
		if pct, _, ok := o.OtherProcesses(); ok && (s.OtherProcessesPct == nil || pct > *s.OtherProcessesPct) {
			s.OtherProcessesPct = &pct
		}
		if o != nil && s.Verdict == "" {
			s.Bound, s.Verdict = o.Bound, o.Verdict
		}
	}
	if i := slices.IndexFunc(r.res.Notes, func(n string) bool { return strings.Contains(n, result.SharedCPUsNote) }); i >= 0 {
		s.SharedCPUs = r.res.Notes[i]
	}
	if len(r.res.Figures) > 0 {
		s.Figures = map[string]float64{}
		for _, f := range r.res.Figures {
			s.Figures[f.Name] = f.Value
		}
	}
	if p := r.res.Totals.Latency.Percentiles; len(p) > 0 {
		s.LatencyMs = make(map[string]float64, len(p))
		for k, v := range p {
			s.LatencyMs[k] = v
		}
	}
	return s
}

func sourceName(r run) string {
	if r.file != "" {
		return filepath.Base(r.file)
	}
	return "the run " + r.key.String()
}

func countStatuses(statuses []string) map[string]int {
	out := map[string]int{}
	for _, s := range statuses {
		out[s]++
	}
	return out
}

// statusList renders counts as "1 failed, 2 pending", sorted by status.
func statusList(counts map[string]int) string {
	names := make([]string, 0, len(counts))
	for s := range counts {
		names = append(names, s)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, s := range names {
		parts[i] = fmt.Sprintf("%d %s", counts[s], s)
	}
	return strings.Join(parts, ", ")
}

// machineID is what identifies a machine across runs: the fields that do not
// change from one run to the next (frequencies and kernel may).
func machineID(m result.Machine) string {
	return strings.Join([]string{m.Hostname, m.Arch, m.CPUModel, m.Core, m.SystemVendor, m.Product, strconv.Itoa(m.LogicalCPUs)}, "\x00")
}

// serverID is the server's flavour and version.
func serverID(s result.Server) string {
	id := strings.TrimSpace(s.Flavor + " " + s.Version)
	if id == "" {
		return "an unknown server"
	}
	return id
}

// DescribeMachine names a machine for messages and the run header: "bench1 (arm64 Neoverse-N1 ×4)".
func DescribeMachine(m result.Machine) string {
	desc := machineLabel(m)
	switch {
	case desc == "" && m.Hostname == "":
		return "an unknown machine"
	case desc == "":
		return m.Hostname
	case m.Hostname == "":
		return desc
	}
	return m.Hostname + " (" + desc + ")"
}

// machineLabel derives a system label from a machine: architecture, CPU and
// logical CPU count ("arm64 Neoverse-N1 ×4", "amd64 Intel Xeon Gold 6266C ×24"),
// or "" when the fingerprint is empty.
func machineLabel(m result.Machine) string {
	var parts []string
	if m.Arch != "" {
		parts = append(parts, m.Arch)
	}
	if cpu := shortCPU(m); cpu != "" {
		parts = append(parts, cpu)
	}
	if len(parts) == 0 {
		return ""
	}
	if m.LogicalCPUs > 0 {
		parts = append(parts, "×"+strconv.Itoa(m.LogicalCPUs))
	}
	return strings.Join(parts, " ")
}

var (
	cpuNoise   = lazyre.New(`\((R|TM|tm|r)\)|\bCPU\b|\bProcessor\b|@.*$`)
	spaces     = lazyre.New(`\s+`)
	nominalGHz = lazyre.New(`@\s*([0-9]+(?:\.[0-9]+)?)\s*GHz`)
)

// shortCPU names the CPU briefly: the arm64 core when known, else the model
// without trademarks and the "@ 3.00GHz" suffix.
func shortCPU(m result.Machine) string {
	if m.Core != "" {
		return m.Core
	}
	return strings.TrimSpace(spaces().ReplaceAllString(cpuNoise().ReplaceAllString(m.CPUModel, " "), " "))
}

// The sources of a system's frequency (System.GHzSource) and vCPU count
// (System.VCPUsSource), as compare, cost and report print them.
const (
	ghzFromFlag          = "import --machine-ghz"
	ghzFromModel         = "cpu model"
	ghzFromImportedModel = "cpu model given to import --cpu-model"
	ghzFromMaxMHz        = "cpufreq max"
	ghzFromMHz           = "cpuinfo MHz"
	ghzFromCurMHz        = "cpufreq current"
	ghzFromOverride      = "--ghz"
	vcpusFromOverride    = "--vcpus"
	vcpusFromMachine     = "machine"
	vcpusFromFlag        = "import --machine-vcpus"
)

// machineGHz finds a machine's CPU frequency and says where it came from: the
// frequency a user gave (import --machine-ghz) first, then the nominal
// frequency in the model name (the figure the seeds scale by: "Intel Xeon Gold
// 6266C CPU @ 3.00GHz"), then the cpufreq maximum, then the average MHz of
// /proc/cpuinfo, then the current cpufreq frequency. A result imported before
// schema 1.3 kept --machine-ghz in MHz: legacyImport says the machine is such
// a result's, whose MHz is then the flag's and comes first.
func machineGHz(m result.Machine, legacyImport bool) (float64, string) {
	if m.GivenGHz > 0 {
		return m.GivenGHz, ghzFromFlag
	}
	if legacyImport && m.Source == "" && m.MHz > 0 {
		return m.MHz / 1000, ghzFromFlag
	}
	if sub := nominalGHz().FindStringSubmatch(m.CPUModel); sub != nil {
		if v, err := strconv.ParseFloat(sub[1], 64); err == nil && v > 0 {
			if m.Source == result.SourceImport || legacyImport {
				return v, ghzFromImportedModel
			}
			return v, ghzFromModel
		}
	}
	for _, c := range []struct {
		mhz    float64
		source string
	}{{m.MaxMHz, ghzFromMaxMHz}, {m.MHz, ghzFromMHz}, {m.CurMHz, ghzFromCurMHz}} {
		if c.mhz > 0 {
			return c.mhz / 1000, c.source
		}
	}
	return 0, ""
}

// Combine pools the systems given under one label (compare arm=A arm=B) into
// one system labelled label: their runs together, a run read from the same
// file twice (a directory and a file in it) counted once, and rounds of the
// same cell numbered on where they would collide. The systems must come from
// one machine and server; otherwise Combine fails naming both.
func Combine(label string, parts []*System) (*System, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("%s: no results to combine", label)
	}
	if err := dryRunMixOf(parts, nil); err != nil {
		return nil, err
	}
	first := parts[0]
	out := &System{Label: label, Name: first.Name, Machine: first.Machine, Server: first.Server, UnderTest: first.UnderTest,
		GHz: first.GHz, GHzSource: first.GHzSource, VCPUs: first.VCPUs, VCPUsSource: first.VCPUsSource}
	var sources []string
	seenFile := map[string]bool{}
	rounds := map[Key]map[int]bool{}
	next := map[Key]int{}
	for _, p := range parts {
		if judgedID(p.UnderTest, p.Machine) != judgedID(first.UnderTest, first.Machine) {
			return nil, fmt.Errorf("%s=%s and %s=%s come from two machines, %s and %s: give them different labels to compare them",
				label, first.Source, label, p.Source, describeJudged(first.UnderTest, first.Machine), describeJudged(p.UnderTest, p.Machine))
		}
		if serverID(p.Server) != serverID(first.Server) {
			return nil, fmt.Errorf("%s=%s and %s=%s come from two servers, %s and %s: give them different labels to compare them",
				label, first.Source, label, p.Source, serverID(first.Server), serverID(p.Server))
		}
		if p.GHz != first.GHz || p.VCPUs != first.VCPUs {
			// One system has one frequency and one CPU count: taking the
			// first part's would scale the others by a figure they contradict.
			return nil, fmt.Errorf("%s=%s and %s=%s record %s and %s: give them different labels, or the same --ghz/--vcpus for both",
				label, first.Source, label, p.Source, computeOf(first), computeOf(p))
		}
		sources = append(sources, p.Source)
		for _, smp := range p.Samples {
			if smp.File != "" {
				id := smp.File
				if abs, err := filepath.Abs(smp.File); err == nil {
					id = abs
				}
				if seenFile[id] {
					continue
				}
				seenFile[id] = true
			}
			if rounds[smp.Key] == nil {
				rounds[smp.Key] = map[int]bool{}
			}
			if rounds[smp.Key][smp.Round] {
				smp.Round = next[smp.Key] + 1
			}
			rounds[smp.Key][smp.Round] = true
			next[smp.Key] = max(next[smp.Key], smp.Round)
			out.Samples = append(out.Samples, smp)
		}
		out.ServerSettings = mergeSettings(out.ServerSettings, p.ServerSettings, len(sources) == 1)
		out.Skipped += p.Skipped
		for st, n := range p.SkippedByStatus {
			if out.SkippedByStatus == nil {
				out.SkippedByStatus = map[string]int{}
			}
			out.SkippedByStatus[st] += n
		}
		for _, n := range p.Notes {
			out.Notes = append(out.Notes, p.Source+": "+n)
		}
	}
	out.Source = strings.Join(sources, ", ")
	return out, nil
}

// computeOf describes a system's frequency and CPU count with their sources.
func computeOf(s *System) string {
	return fmt.Sprintf("%g GHz (%s), %d vCPUs (%s)", s.GHz, orUnknown(s.GHzSource), s.VCPUs, orUnknown(s.VCPUsSource))
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// machineVCPUs is a machine's logical CPU count and where it came from (0, ""
// when unknown).
func machineVCPUs(m result.Machine, legacyImport bool) (int, string) {
	switch {
	case m.LogicalCPUs <= 0:
		return 0, ""
	case m.Source == result.SourceImport || legacyImport:
		return m.LogicalCPUs, vcpusFromFlag
	}
	return m.LogicalCPUs, vcpusFromMachine
}

// sameGivenGHz refuses results of one machine that a user gave two
// frequencies (import --machine-ghz): the system has one frequency, and taking
// the first would scale by a figure the other results contradict.
func sameGivenGHz(runs []run) error {
	for _, r := range runs[1:] {
		a, b := runs[0].res.Machine.GivenGHz, r.res.Machine.GivenGHz
		if a != b {
			return fmt.Errorf("the results were imported with two frequencies, %s in %s and %s in %s (import --machine-ghz): import them again with one, or compare them as separate operands",
				givenGHz(a), sourceName(runs[0]), givenGHz(b), sourceName(r))
		}
	}
	return nil
}

func givenGHz(v float64) string {
	if v == 0 {
		return "none"
	}
	return strconv.FormatFloat(v, 'g', -1, 64) + " GHz"
}

// importedResult says whether res was written by `fairbench import` (its
// machine, when given, came from the import's flags).
func importedResult(res *result.Result) bool {
	return res.Options["imported-format"] != ""
}

// DisambiguateLabels makes the labels of systems distinct before they are
// compared: a derived label shared with another system gets what tells the
// system apart appended ("MariaDB 10.11 (innodb_flush_log_at_trx_commit=2)",
// the first of its Differences with the others that no other has), else is
// replaced by the system's file or directory name, and labels still shared
// get "#2", "#3"… appended. Given labels are kept when they are already
// distinct (operands given the same label are one system: see Combine).
func DisambiguateLabels(systems []*System) {
	count := func() map[string]int {
		n := map[string]int{}
		for _, s := range systems {
			n[s.Label]++
		}
		return n
	}
	groups := map[string][]int{}
	for i, s := range systems {
		groups[s.Label] = append(groups[s.Label], i)
	}
	newLabels := make([]string, len(systems))
	for i, s := range systems {
		newLabels[i] = s.Label
		if g := groups[s.Label]; len(g) > 1 && s.LabelDerived {
			if what := distinguishing(systems, g, i); what != "" {
				newLabels[i] = s.Label + " (" + what + ")"
			} else if s.Name != "" {
				newLabels[i] = s.Name
			}
		}
	}
	for i, s := range systems {
		s.Label = newLabels[i]
	}
	n := count()
	seen := map[string]int{}
	for _, s := range systems {
		if n[s.Label] > 1 {
			seen[s.Label]++
			if seen[s.Label] > 1 {
				s.Label = fmt.Sprintf("%s#%d", s.Label, seen[s.Label])
			}
		}
	}
}

// mergeSettings pools the settings of two parts of one system: a value they
// disagree on, or that one does not record, is Varies. first says a is
// empty because b is the first part.
func mergeSettings(a, b map[string]string, first bool) map[string]string {
	if first {
		out := make(map[string]string, len(b))
		for k, v := range b {
			out[k] = v
		}
		return out
	}
	for k, v := range b {
		if old, ok := a[k]; !ok || old != v {
			a[k] = Varies
		}
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			a[k] = Varies
		}
	}
	return a
}

// ParseGHz parses frequency overrides such as "arm=2.6,x86=3.0": a
// comma-separated list of label=GHz. An empty string gives an empty map.
func ParseGHz(s string) (map[string]float64, error) {
	out := map[string]float64{}
	err := parseLabelValues(s, "GHz", "arm=2.6,x86=3.0", func(label, text string) error {
		v, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return fmt.Errorf("%q is not a number of GHz", text)
		}
		if err := CheckGHz(v); err != nil {
			return err
		}
		out[label] = v
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// CheckGHz says what is wrong with v as a CPU frequency in GHz: not above 0,
// or a figure in MHz (above 20).
func CheckGHz(v float64) error {
	text := strconv.FormatFloat(v, 'g', -1, 64)
	switch {
	case !(v > 0) || v > 1e6:
		return fmt.Errorf("the frequency must be a number of GHz above 0, not %s", text)
	case v > 20:
		return fmt.Errorf("%s GHz is not a CPU frequency: give GHz, not MHz (%g)", text, v/1000)
	}
	return nil
}

// ParseVCPUs parses vCPU overrides such as "arm=24,x86=24": a comma-separated
// list of label=count. An empty string gives an empty map.
func ParseVCPUs(s string) (map[string]int, error) {
	out := map[string]int{}
	err := parseLabelValues(s, "vCPUs", "arm=24,x86=24", func(label, text string) error {
		v, err := strconv.Atoi(text)
		if err != nil || v <= 0 {
			return fmt.Errorf("%q is not a whole number of vCPUs above 0", text)
		}
		out[label] = v
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// parseLabelValues splits "a=1,b=2" and hands each pair to set.
func parseLabelValues(s, what, example string, set func(label, value string) error) error {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	seen := map[string]bool{}
	for item := range strings.SplitSeq(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return fmt.Errorf("%q has an empty item: separate label=%s pairs by single commas, as in %s", s, what, example)
		}
		label, value, ok := strings.Cut(item, "=")
		label, value = strings.TrimSpace(label), strings.TrimSpace(value)
		switch {
		case !ok:
			return fmt.Errorf("%q: want label=%s, as in %s", item, what, example)
		case label == "":
			return fmt.Errorf("%q: the label before = is empty: name the system, as in %s", item, example)
		case value == "":
			return fmt.Errorf("%q: the value after = is empty: give the %s, as in %s", item, what, example)
		case seen[label]:
			return fmt.Errorf("%q: %s is given twice: give each label once", s, label)
		}
		seen[label] = true
		if err := set(label, value); err != nil {
			return fmt.Errorf("%s: %w", label, err)
		}
	}
	return nil
}

// ApplyGHz sets the frequency of the systems named in ghz (by label, or by
// file or directory name; case does not matter), marking the source
// "override" (compare's, cost's and report's --ghz). A name that matches no system is an error that lists the
// labels.
func ApplyGHz(systems []*System, ghz map[string]float64) error {
	for name, v := range ghz {
		s, err := findSystem(systems, name)
		if err != nil {
			return fmt.Errorf("frequency for %w", err)
		}
		s.GHz, s.GHzSource = v, ghzFromOverride
	}
	return nil
}

// ApplyVCPUs sets the vCPU count of the systems named in vcpus, as ApplyGHz
// does for frequencies.
func ApplyVCPUs(systems []*System, vcpus map[string]int) error {
	for name, v := range vcpus {
		s, err := findSystem(systems, name)
		if err != nil {
			return fmt.Errorf("vCPUs for %w", err)
		}
		s.VCPUs, s.VCPUsSource = v, vcpusFromOverride
	}
	return nil
}

// findSystem finds the system named name: its label exactly, else its label or
// file name in any case.
func findSystem(systems []*System, name string) (*System, error) {
	for _, s := range systems {
		if s.Label == name {
			return s, nil
		}
	}
	var found *System
	for _, s := range systems {
		if strings.EqualFold(s.Label, name) || (s.Name != "" && strings.EqualFold(s.Name, name)) {
			if found != nil && found != s {
				return nil, fmt.Errorf("%q: it names more than one system (%q and %q): use the full label", name, found.Label, s.Label)
			}
			found = s
		}
	}
	if found == nil {
		labels := make([]string, len(systems))
		for i, s := range systems {
			labels[i] = strconv.Quote(s.Label)
		}
		return nil, fmt.Errorf("%q: no system has that label: the labels are %s", name, strings.Join(labels, ", "))
	}
	return found, nil
}

// ResultReader returns a reader of samples' result files (Sample.File): a
// file, or a file of a bundle as Load names it ("runs.fbz/0001-….json").
// Each bundle is opened, and so verified, once per reader.
func ResultReader() func(file string) (*result.Result, error) {
	opened := map[string]*bundle.Bundle{}
	return func(file string) (*result.Result, error) {
		if _, err := os.Stat(file); err == nil {
			return result.Read(file)
		}
		for dir := filepath.Dir(file); dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
			b, ok := opened[dir]
			if !ok {
				if st, err := os.Stat(dir); err != nil || st.IsDir() || !bundle.IsBundle(dir) {
					continue
				}
				var err error
				if b, err = bundle.Open(dir); err != nil {
					return nil, err
				}
				opened[dir] = b
			}
			rel, err := filepath.Rel(dir, file)
			if err != nil {
				return nil, err
			}
			return readResultFS(b.FS(), filepath.ToSlash(rel), file)
		}
		return result.Read(file)
	}
}
