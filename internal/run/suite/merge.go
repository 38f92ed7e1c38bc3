package suite

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/record/suitedir"
)

// MergeOptions tune MergeDirs.
type MergeOptions struct {
	// Figures returns the workload's figure function for a cell, configured
	// with the options its first result records; nil (or a nil function)
	// keeps no figures. An error is passed to Warn.
	Figures func(first *result.Result) (func(*result.Phase) []result.Figure, error)
	// Warn, when set, receives what is worth knowing but does not stop the
	// merge (clients that used the same seed).
	Warn func(string)
	// Tool and CommandLine are recorded in the merged manifest and results.
	Tool        result.Tool
	CommandLine []string
}

// clientDir is one client's suite directory.
type clientDir struct {
	dir string
	m   *suitedir.Manifest
}

// MergeDirs merges the suite directories of the coordinated clients of one
// run (suite run --client-id 0..N-1 --run-id R of one plan) into out, cell by
// cell: a cell complete in every directory becomes one merged result
// (result.Merge: counters summed, histograms pooled, threads the clients'
// sum); the other cells stay unmerged, their status and error saying why. out
// gets the merged results under the cells' file names and a manifest, so that
// compare, report and suite status read it like any suite directory.
//
// Directories that do not belong together (another plan, scale or run id, a
// client missing or given twice) are refused with an error naming what
// differs; nothing is written then.
func MergeDirs(dirs []string, out string, opts MergeOptions) (*suitedir.Manifest, error) {
	parts, err := readClientDirs(dirs)
	if err != nil {
		return nil, err
	}
	if err := checkMergeOut(out, dirs); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("creating the merged suite directory: %w", err)
	}
	first := parts[0].m
	now := time.Now().UTC()
	m := &suitedir.Manifest{
		Schema: suitedir.ManifestSchema, Tool: opts.Tool, Plan: first.Plan, Created: now,
		Machine: first.Machine, Servers: first.Servers, Steps: first.Steps, Sessions: first.Sessions, Skipped: first.Skipped,
		Merged: &suitedir.MergedRecord{RunID: first.Client.RunID, Clients: len(parts)},
	}
	for _, p := range parts {
		m.Merged.From = append(m.Merged.From, suitedir.MergedSuite{Dir: p.dir, ClientID: p.m.Client.ID, Hostname: p.m.Machine.Hostname, Status: p.m.Status})
	}
	for i := range first.Cells {
		m.Cells = append(m.Cells, mergeCell(parts, i, out, opts))
	}
	m.Status = suitedir.StatusComplete
	if m.Counts()[suitedir.StatusComplete] != len(m.Cells) {
		m.Status = suitedir.StatusFailed
	}
	if err := m.Write(out); err != nil {
		return m, fmt.Errorf("writing the merged manifest: %w", err)
	}
	return m, nil
}

// readClientDirs reads the client directories, sorted by client id, and
// refuses directories that are not the clients of one run.
func readClientDirs(dirs []string) ([]clientDir, error) {
	var parts []clientDir
	for _, d := range dirs {
		m, err := suitedir.ReadManifest(d)
		if err != nil {
			return nil, err
		}
		switch {
		case m.Merged != nil:
			return nil, fmt.Errorf("cannot merge %s: it is a merged suite already; merge the client directories it lists (%s)", d, mergedDirs(m))
		case m.Client == nil:
			return nil, fmt.Errorf("cannot merge %s: it is not the directory of a coordinated client (its plan %s has no clients: section); "+
				"merge the directories of 'suite run --client-id I --run-id R' of a plan with clients:, or result files of 'run --clients'", d, m.Plan.Name)
		}
		parts = append(parts, clientDir{dir: d, m: m})
	}
	a := parts[0]
	for _, b := range parts[1:] {
		if err := sameRun(a, b); err != nil {
			return nil, err
		}
	}
	n := a.m.Client.Of
	if len(parts) != n {
		return nil, fmt.Errorf("cannot merge: run %s had %d clients (clients.count) but %d director%s given (%s): give one per client id 0..%d",
			a.m.Client.RunID, n, len(parts), plural(len(parts), "y was", "ies were"), strings.Join(dirs, ", "), n-1)
	}
	sort.SliceStable(parts, func(i, j int) bool { return parts[i].m.Client.ID < parts[j].m.Client.ID })
	for i, p := range parts {
		if p.m.Client.ID != i {
			other := ""
			if i > 0 && parts[i-1].m.Client.ID == p.m.Client.ID {
				other = fmt.Sprintf(" (client %d is both %s and %s)", p.m.Client.ID, parts[i-1].dir, p.dir)
			}
			return nil, fmt.Errorf("cannot merge: client %d of run %s is missing%s: give one directory per client id 0..%d", i, a.m.Client.RunID, other, n-1)
		}
	}
	return parts, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func mergedDirs(m *suitedir.Manifest) string {
	var ds []string
	for _, f := range m.Merged.From {
		ds = append(ds, f.Dir)
	}
	return strings.Join(ds, ", ")
}

// sameRun refuses two client directories of different plans or runs.
func sameRun(a, b clientDir) error {
	differs := func(what, va, vb string) error {
		return fmt.Errorf("cannot merge %s and %s: %s differs (%s in %s, %s in %s): merge the directories of the clients of one run",
			a.dir, b.dir, what, va, a.dir, vb, b.dir)
	}
	switch {
	case a.m.Plan.Hash != b.m.Plan.Hash:
		return differs("the plan", fmt.Sprintf("%s, SHA-256 %.12s…", a.m.Plan.Name, a.m.Plan.Hash), fmt.Sprintf("%s, SHA-256 %.12s…", b.m.Plan.Name, b.m.Plan.Hash))
	case a.m.Plan.Scale != b.m.Plan.Scale:
		return differs("--scale", fmt.Sprint(a.m.Plan.Scale), fmt.Sprint(b.m.Plan.Scale))
	case a.m.Client.RunID != b.m.Client.RunID:
		return differs("the run (--run-id)", a.m.Client.RunID, b.m.Client.RunID)
	case a.m.Client.Of != b.m.Client.Of:
		return differs("the number of clients", fmt.Sprint(a.m.Client.Of), fmt.Sprint(b.m.Client.Of))
	case len(a.m.Cells) != len(b.m.Cells):
		return differs("the number of cells", fmt.Sprint(len(a.m.Cells)), fmt.Sprint(len(b.m.Cells)))
	}
	for i := range a.m.Cells {
		if a.m.Cells[i].ID != b.m.Cells[i].ID {
			return differs(fmt.Sprintf("cell %d", i+1), a.m.Cells[i].ID, b.m.Cells[i].ID)
		}
	}
	return nil
}

// checkMergeOut refuses an output directory that is one of the inputs or
// holds anything already.
func checkMergeOut(out string, dirs []string) error {
	absOut, _ := filepath.Abs(out)
	for _, d := range dirs {
		if absD, _ := filepath.Abs(d); absD == absOut {
			return fmt.Errorf("-o %s is one of the client directories: give a new directory for the merged suite", out)
		}
	}
	entries, err := os.ReadDir(out)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("-o %s: %w", out, err)
	case len(entries) > 0:
		return fmt.Errorf("-o %s is not empty: give a new directory for the merged suite", out)
	}
	return nil
}

// mergeCell merges cell i of every client, writes the merged result into out
// and returns its record; a cell that does not merge keeps the worst status of
// the clients' and an error that says why.
func mergeCell(parts []clientDir, i int, out string, opts MergeOptions) suitedir.CellRecord {
	first := parts[0].m.Cells[i]
	rec := suitedir.CellRecord{Cell: first.Cell, Clients: len(parts), StartAt: first.StartAt}
	var why []string
	status := suitedir.StatusComplete
	for _, p := range parts {
		c := p.m.Cells[i]
		if c.Status == suitedir.StatusComplete {
			continue
		}
		st := c.Status
		if st == suitedir.StatusRunning {
			st = suitedir.StatusInterrupted // the client stopped mid-cell
		}
		status = worseStatus(status, st)
		text := fmt.Sprintf("client %d: %s", p.m.Client.ID, c.Status)
		if c.Error != "" {
			text += " (" + c.Error + ")"
		}
		why = append(why, text)
	}
	if len(why) > 0 {
		rec.Status, rec.Error = status, "not merged: "+strings.Join(why, "; ")
		return rec
	}
	merged, seconds, err := mergeResults(parts, i, opts)
	if err == nil {
		rec.File = first.File
		err = result.Write(filepath.Join(out, rec.File), merged)
	}
	if err != nil {
		rec.Status, rec.Error, rec.File = suitedir.StatusFailed, "not merged: "+err.Error(), ""
		return rec
	}
	rec.Status, rec.Threads, rec.Start, rec.Seconds = suitedir.StatusComplete, merged.Threads, merged.Start, seconds
	rec.Summary = suitedir.Summarize(merged)
	return rec
}

// mergeResults reads cell i's result of every client and merges them; seconds
// is the longest wall time a client's cell took.
func mergeResults(parts []clientDir, i int, opts MergeOptions) (*result.Result, float64, error) {
	in := make([]result.Part, len(parts))
	var seconds float64
	for j, p := range parts {
		c := p.m.Cells[i]
		file := filepath.Join(p.dir, c.File)
		r, err := result.Read(file)
		if err != nil {
			return nil, 0, err
		}
		in[j] = result.Part{File: file, Result: r}
		seconds = max(seconds, c.Seconds)
	}
	mo := result.MergeOptions{Warn: opts.Warn}
	if opts.Figures != nil {
		fig, err := opts.Figures(in[0].Result)
		if err != nil && opts.Warn != nil {
			opts.Warn(fmt.Sprintf("cell %s: %v", parts[0].m.Cells[i].ID, err))
		}
		mo.Figures = fig
	}
	merged, err := result.Merge(in, mo)
	if err != nil {
		return nil, 0, err
	}
	merged.Tool, merged.CommandLine = opts.Tool, slices.Clone(opts.CommandLine)
	return merged, seconds, nil
}

// worseStatus is the worse of two cell states for a cell that did not merge.
func worseStatus(a, b string) string {
	rank := map[string]int{suitedir.StatusComplete: 0, suitedir.StatusPending: 1, suitedir.StatusInterrupted: 2, suitedir.StatusFailed: 3}
	if rank[b] > rank[a] {
		return b
	}
	return a
}
