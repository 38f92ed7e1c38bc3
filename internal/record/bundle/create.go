package bundle

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/record/suitedir"
)

// CreateOptions say what Create bundles: a suite directory (Suite) or
// result files (Results), one of the two.
type CreateOptions struct {
	// Suite is a suite directory (the --out of fairbench suite run).
	Suite string
	// Results are result files.
	Results []string
	// Prices is a price sheet's text, bundled as prices.yaml (nil: none).
	Prices []byte
	// KeepHosts keeps host names and addresses (users and secrets are
	// redacted all the same).
	KeepHosts bool
	// AllowIncomplete bundles a suite that did not complete, or results
	// that did not, marking the suite incomplete; without it they are
	// refused.
	AllowIncomplete bool
	// Tool is the fairbench writing the bundle.
	Tool result.Tool
	// Now is the creation time (zero: time.Now).
	Now time.Time
}

// input is one file to bundle, before redaction.
type input struct {
	member string // name in the bundle
	from   string // the path it was read from, for messages
	data   []byte
	json   bool
}

// Create writes a bundle of what opts names to w, redacted (see
// docs/bundles.md), and returns its manifest. It reads and checks every
// input before writing anything: a suite that did not complete (unless
// AllowIncomplete), a cell's missing result file, a file that is not a
// fairbench result or whose result schema this fairbench cannot read are
// refused, naming the file.
func Create(w io.Writer, opts CreateOptions) (*Manifest, error) {
	if (opts.Suite == "") == (len(opts.Results) == 0) {
		return nil, errors.New("bundle create: give one suite directory or result files")
	}
	var (
		inputs []input
		m      = &Manifest{Schema: Schema, Tool: opts.Tool, Created: opts.Now.UTC()}
		err    error
	)
	if m.Created.IsZero() {
		m.Created = time.Now().UTC().Truncate(time.Second)
	}
	if opts.Suite != "" {
		m.Kind = KindSuite
		inputs, err = suiteInputs(opts.Suite, opts.AllowIncomplete)
	} else {
		m.Kind = KindResults
		inputs, err = resultInputs(opts.Results, opts.AllowIncomplete)
	}
	if err != nil {
		return nil, err
	}
	if opts.Prices != nil {
		inputs = append(inputs, input{member: PricesName, from: "the price sheet", data: opts.Prices})
	}
	red := newRedactor(opts.KeepHosts)
	members, err := redactInputs(red, inputs)
	if err != nil {
		return nil, err
	}
	m.Redacted, m.KeptHosts = red.counts(), opts.KeepHosts
	if err := describe(m, opts, members); err != nil {
		return nil, err
	}
	members[ReadmeName] = readme(m, members)
	for name, data := range members {
		m.Members = append(m.Members, Member{Name: name, Size: int64(len(data)), SHA256: hashOf(data)})
	}
	sort.Slice(m.Members, func(i, j int) bool { return m.Members[i].Name < m.Members[j].Name })
	m.SHA256 = WholeHash(m.Members)
	if err := writeZip(w, m, members); err != nil {
		return nil, fmt.Errorf("bundle create: writing: %w", err)
	}
	return m, nil
}

// suiteInputs reads a suite directory: its manifest and the files its cells
// name.
func suiteInputs(dir string, allowIncomplete bool) ([]input, error) {
	sm, err := suitedir.ReadManifest(dir)
	if err != nil {
		return nil, fmt.Errorf("bundle create: %w", err)
	}
	if sm.Status != suitedir.StatusComplete && !allowIncomplete {
		return nil, fmt.Errorf("bundle create: the suite in %s is %s (%s): resume it with fairbench suite run until it completes, or give --allow-incomplete to bundle it as it is (marked incomplete)",
			dir, sm.Status, cellCounts(sm.Counts()))
	}
	raw, err := os.ReadFile(filepath.Join(dir, suitedir.ManifestName))
	if err != nil {
		return nil, fmt.Errorf("bundle create: %w", err)
	}
	inputs := []input{{member: DataDir + "/" + suitedir.ManifestName, from: filepath.Join(dir, suitedir.ManifestName), data: raw, json: true}}
	seen := map[string]bool{}
	for _, c := range sm.Cells {
		files := []string{c.File}
		for _, a := range c.Attempts {
			files = append(files, a.File)
		}
		for i, f := range files {
			if f == "" || seen[f] {
				continue
			}
			seen[f] = true
			in, err := resultInput(dir, f, c.Status == suitedir.StatusComplete && i == 0)
			if err != nil {
				return nil, fmt.Errorf("bundle create: cell %s: %w", c.ID, err)
			}
			if in != nil {
				inputs = append(inputs, *in)
			}
		}
	}
	return inputs, nil
}

// resultInput reads the result file rel of a suite directory; a missing
// file is an error when required, else skipped (nil).
func resultInput(dir, rel string, required bool) (*input, error) {
	slash := filepath.ToSlash(rel)
	if !fs.ValidPath(slash) || strings.Contains(slash, "\\") {
		return nil, fmt.Errorf("the manifest names the result file %q, outside the suite directory: the manifest is damaged", rel)
	}
	p := filepath.Join(dir, rel)
	data, err := os.ReadFile(p)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !required:
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading its result file: %w", err)
	}
	if _, err := result.Decode(bytes.NewReader(data)); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return &input{member: DataDir + "/" + slash, from: p, data: data, json: true}, nil
}

// resultInputs reads result files given one by one.
func resultInputs(paths []string, allowIncomplete bool) ([]input, error) {
	var inputs []input
	names := map[string]string{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("bundle create: %w", err)
		}
		res, err := result.Decode(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("bundle create: %s: %w", p, err)
		}
		if res.Status != result.StatusComplete && !allowIncomplete {
			return nil, fmt.Errorf("bundle create: %s: the run is %s: give complete results, or --allow-incomplete to bundle it anyway (compare skips it)", p, orUnknown(string(res.Status)))
		}
		base := filepath.Base(p)
		if other, dup := names[base]; dup {
			return nil, fmt.Errorf("bundle create: %s and %s have the same name, %s: a bundle keeps the file names; rename one", other, p, base)
		}
		names[base] = p
		inputs = append(inputs, input{member: DataDir + "/" + base, from: p, data: data, json: true})
	}
	return inputs, nil
}

// redactInputs redacts every input in two passes: the first finds the host
// and user names under keys in every file, the second replaces them
// wherever they appear. A redacted result must still read as one.
func redactInputs(red *redactor, inputs []input) (map[string][]byte, error) {
	redact := func(in input) ([]byte, error) {
		if !in.json {
			return []byte(red.text(string(in.data), "")), nil
		}
		tree, err := parseJSON(in.data)
		if err != nil {
			return nil, fmt.Errorf("bundle create: %s: not JSON: %w", in.from, err)
		}
		red.walk(tree, "")
		return tree.encode(), nil
	}
	for _, in := range inputs {
		if _, err := redact(in); err != nil {
			return nil, err
		}
	}
	red.secrets = 0 // counted on the second pass
	out := map[string][]byte{}
	for _, in := range inputs {
		data, err := redact(in)
		if err != nil {
			return nil, err
		}
		if in.json && in.member != DataDir+"/"+suitedir.ManifestName {
			if _, err := result.Decode(bytes.NewReader(data)); err != nil {
				return nil, fmt.Errorf("bundle create: %s: the redacted result does not read (%v): bundle it with --keep-hosts, and report this", in.from, err)
			}
		}
		out[in.member] = data
	}
	return out, nil
}

// describe fills what the manifest says of the content, from the redacted
// members.
func describe(m *Manifest, opts CreateOptions, members map[string][]byte) error {
	schemas := map[string]bool{}
	for name, data := range members {
		if !strings.HasPrefix(name, DataDir+"/") || path.Base(name) == suitedir.ManifestName {
			continue
		}
		res, err := result.Decode(bytes.NewReader(data))
		if err != nil {
			return fmt.Errorf("bundle create: %s: %w", name, err)
		}
		schemas[res.Schema] = true
		if m.Kind == KindResults {
			m.Runs = append(m.Runs, Run{File: strings.TrimPrefix(name, DataDir+"/"), Workload: res.Workload, Threads: res.Threads,
				Status: string(res.Status), CommandLine: res.CommandLine})
		}
	}
	m.ResultSchemas = slices.Sorted(maps.Keys(schemas))
	sort.Slice(m.Runs, func(i, j int) bool { return m.Runs[i].File < m.Runs[j].File })
	if m.Kind != KindSuite {
		return nil
	}
	var sm suitedir.Manifest
	if err := json.Unmarshal(members[DataDir+"/"+suitedir.ManifestName], &sm); err != nil {
		return fmt.Errorf("bundle create: the suite manifest: %w", err)
	}
	m.Plan = sm.Plan.Text
	name := sm.Plan.Name
	if name == "" {
		name = filepath.Base(filepath.Clean(opts.Suite))
	}
	m.Suite = &SuiteInfo{Name: name, Status: sm.Status, Cells: sm.Counts(), Incomplete: sm.Status != suitedir.StatusComplete}
	return nil
}

// writeZip writes the archive: bundle.json first, then the members by name.
func writeZip(w io.Writer, m *Manifest, members map[string][]byte) error {
	zw := zip.NewWriter(w)
	head, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	add := func(name string, data []byte) error {
		h := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: m.Created}
		h.SetMode(0o644)
		f, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		return err
	}
	if err := add(ManifestName, append(head, '\n')); err != nil {
		return err
	}
	for _, mb := range m.Members {
		if err := add(mb.Name, members[mb.Name]); err != nil {
			return err
		}
	}
	return zw.Close()
}

func cellCounts(c map[string]int) string {
	var parts []string
	total := 0
	for _, st := range slices.Sorted(maps.Keys(c)) {
		parts = append(parts, fmt.Sprintf("%d %s", c[st], st))
		total += c[st]
	}
	return fmt.Sprintf("%d cells: %s", total, strings.Join(parts, ", "))
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
