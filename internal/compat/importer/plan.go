package importer

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fairbench/fairbench/internal/record/result"
)

// Run is one run of a log and the result file it goes to.
type Run struct {
	// Log is the log's path, as given to NewPlan.
	Log string
	// Path is the result file's path, in the plan's directory.
	Path string
	// Result is the run, as Parse read it.
	Result *result.Result
}

// Plan is everything an import writes into a directory, read and named
// before any of it is written (NewPlan), then written whole or not at all
// (Write).
type Plan struct {
	// Runs are the runs of every log, in the order of the logs and of their
	// runs in each.
	Runs []Run
	// Notes say how results were named apart and which options were
	// recorded as the defaults of the tool's version, one line each.
	Notes []string
	// Warnings are the results' warnings, each once.
	Warnings []string
}

// NewPlan reads every log and names every result file in outDir: the log's
// name without its extension, then -1.json, -2.json… for its runs (see
// resultStems for logs of one name). It refuses a log given twice, results
// whose names it cannot tell apart, a file already there and a run outDir
// already holds: an import never overwrites or repeats a result. Its
// errors name the import command's flags (--out, --log-threads…).
func NewPlan(logs []string, opts Options, outDir string) (*Plan, error) {
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
	p := &Plan{}
	seen := map[string]bool{}
	parsed := make([][]*result.Result, len(logs))
	for i, log := range logs {
		results, err := ParseFile(log, opts)
		if err != nil {
			return nil, fmt.Errorf("%w (--log-threads, --workload and --set supply what a log does not say); nothing was written", err)
		}
		parsed[i] = results
		p.Notes = append(p.Notes, defaultsNotes(log, results)...)
		for _, res := range results {
			for _, w := range res.Warnings {
				if !seen[w] {
					seen[w] = true
					p.Warnings = append(p.Warnings, w)
				}
			}
		}
	}
	stems, notes, err := resultStems(logs)
	if err != nil {
		return nil, err
	}
	p.Notes = append(p.Notes, notes...)
	var exist []string
	for i, results := range parsed {
		for j, res := range results {
			path := filepath.Join(outDir, fmt.Sprintf("%s-%d.json", stems[i], j+1))
			if _, err := os.Lstat(path); err == nil {
				exist = append(exist, fmt.Sprintf("%s (from %s)", filepath.Base(path), logs[i]))
			}
			p.Runs = append(p.Runs, Run{Log: logs[i], Path: path, Result: res})
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
func (p *Plan) refuseDuplicates(outDir string) error {
	type runID struct {
		from, line, workload string
		threads              int
		events               int64
		seconds              float64
	}
	id := func(r *result.Result) runID {
		return runID{r.Options[OptionImportedFrom], r.Options[OptionImportedLine], r.Workload,
			r.Threads, r.Totals.Counts.Events, r.Totals.Seconds}
	}
	planned := map[runID]Run{}
	for _, r := range p.Runs {
		if first, ok := planned[id(r.Result)]; ok {
			return fmt.Errorf("%s and %s hold the same run (line %s, %s, %d threads, %d events): they are copies of one log; give it once, and nothing was written",
				first.Log, r.Log, r.Result.Options[OptionImportedLine], r.Result.Workload, r.Result.Threads, r.Result.Totals.Counts.Events)
		}
		planned[id(r.Result)] = r
	}
	files, _ := filepath.Glob(filepath.Join(outDir, "*.json"))
	held := map[runID]string{}
	for _, f := range files {
		if r, err := result.Read(f); err == nil && r.Options[OptionImportedFrom] != "" {
			held[id(r)] = filepath.Base(f)
		}
	}
	var dup []string
	for _, r := range p.Runs {
		if f, ok := held[id(r.Result)]; ok {
			dup = append(dup, fmt.Sprintf("the run at line %s of %s (as %s)", r.Result.Options[OptionImportedLine], r.Log, f))
		}
	}
	if len(dup) > 0 {
		return fmt.Errorf("--out %s already holds %s: importing it again would count it twice, and nothing was written; import only the new logs, or into another --out directory",
			outDir, listSome(dup, 3))
	}
	return nil
}

// Write writes every result; when one cannot be written it removes those
// written before it, so that an import is whole or not at all.
func (p *Plan) Write() error {
	for i, r := range p.Runs {
		if err := result.Write(r.Path, r.Result); err != nil {
			var left []string
			for _, w := range p.Runs[:i] {
				if rmErr := os.Remove(w.Path); rmErr != nil {
					left = append(left, w.Path)
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
		names := res.Options[OptionImportedDefaults]
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
