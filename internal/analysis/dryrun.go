package analysis

import (
	"fmt"
	"strings"
)

// Dry runs (--mysql-dry-run, result.Target.DryRun) measure the client alone:
// no server was contacted. Their figures are never put beside those of runs
// against a server — not as rounds of one system, not as systems of one
// comparison, not even with --allow-mixed — while dry runs together are
// compared as any runs are (the client's cost on two machines). This is the
// one check of that rule; Load (newSystem), Combine and Compare (which
// compare, report and cost go through) call it.

// dryRunMix refuses a set of figures of which some come from dry runs (dry)
// and some from runs against a server (served), each named as the user can
// find it (a file, or a system's label and file).
func dryRunMix(dry, served []string) error {
	if len(dry) == 0 || len(served) == 0 {
		return nil
	}
	return fmt.Errorf("%s %s (--mysql-dry-run: no server was contacted, the figures measure the client alone) but %s %s: "+
		"their figures cannot be compared; compare dry runs only with dry runs (the client's cost on several machines) and runs against a server with each other — leave one kind out of the operands, or choose rows with --workload",
		someOf(dry), plural(len(dry), "is a dry run", "are dry runs"), someOf(served), plural(len(served), "is a run against a server", "are runs against a server"))
}

// someOf names up to three of names, with how many more.
func someOf(names []string) string {
	const shown = 3
	if len(names) <= shown {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:shown], ", "), len(names)-shown)
}

// plural is one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// dryRunMixOf is dryRunMix of the samples of systems that keep selects
// (nil: all), each named by its file (the system's label for results given
// in memory).
func dryRunMixOf(systems []*System, keep func(Sample) bool) error {
	var dry, served []string
	for _, s := range systems {
		for _, smp := range s.Samples {
			if keep != nil && !keep(smp) {
				continue
			}
			name := smp.File
			if name == "" {
				name = s.Label
			}
			if smp.DryRun {
				dry = appendNew(dry, name)
			} else {
				served = appendNew(served, name)
			}
		}
	}
	return dryRunMix(dry, served)
}
