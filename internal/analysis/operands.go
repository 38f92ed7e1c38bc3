package analysis

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// LoadSystems reads the systems of compare's, report's and cost's operands:
// PATH or LABEL=PATH, each read by load (nil: Load). Operands given the
// same label are one system (their runs pooled by Combine; the same path
// given twice is read once); unlabelled operands are a system each. Derived
// labels that two systems share are told apart (DisambiguateLabels).
func LoadSystems(operands []string, load func(path, label string) (*System, error)) ([]*System, error) {
	if load == nil {
		load = Load
	}
	type group struct {
		label string
		paths []string
		parts []*System
	}
	var groups []*group
	byLabel := map[string]*group{}
	for _, arg := range operands {
		label, path := "", arg
		if l, p, ok := strings.Cut(arg, "="); ok && !strings.ContainsRune(l, os.PathSeparator) {
			label, path = l, p
		}
		g := byLabel[label]
		if label == "" || g == nil {
			g = &group{label: label}
			groups = append(groups, g)
			if label != "" {
				byLabel[label] = g
			}
		}
		if slices.ContainsFunc(g.paths, func(p string) bool { return samePath(p, path) }) {
			continue
		}
		s, err := load(path, label)
		if err != nil {
			return nil, err
		}
		g.paths, g.parts = append(g.paths, path), append(g.parts, s)
	}
	var systems []*System
	for _, g := range groups {
		s := g.parts[0]
		if len(g.parts) > 1 {
			var err error
			if s, err = Combine(g.label, g.parts); err != nil {
				return nil, err
			}
		}
		systems = append(systems, s)
	}
	DisambiguateLabels(systems)
	return systems, nil
}

// samePath reports whether a and b name the same file or directory.
func samePath(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}
