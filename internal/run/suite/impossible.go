package suite

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/fairbench/fairbench/internal/machine/localserver"
	"github.com/fairbench/fairbench/internal/record/suitedir"
)

// A plan may be right and still ask for what this machine cannot give: a
// matrix.server_cpus value larger than the CPUs this process may use, a
// server profile whose buffer pool does not fit in its memory. Validate
// collects every such value (not only the first) and refuses the plan with
// an *ImpossibleError naming them all; the plan is then left without them,
// so that a caller that chooses to drop their cells (suite run
// --skip-impossible) runs, estimates and records the rest.

// SkipFlag is the option of `suite run` that drops the cells this machine
// cannot run.
const SkipFlag = "--skip-impossible"

// impossible is one value of a plan this machine cannot run, and the cells
// of the whole matrix it takes.
type impossible struct {
	err   *PlanError // the key, its line and why
	value string     // the value as the plan gives it ("4", "cpu-bound")
	cells int
}

// record is what the manifest keeps of it.
func (im impossible) record() suitedir.SkippedValue {
	return suitedir.SkippedValue{Key: im.err.Path, Value: im.value, Reason: im.err.Msg, Cells: im.cells}
}

// ImpossibleError refuses a plan some of whose values this machine cannot
// run, naming every one of them with its line and why, and how many cells
// they take.
type ImpossibleError struct {
	// File is the plan file.
	File string
	// Values are the values, each a *PlanError (key, line, why).
	Values []*PlanError
	// Dropped is how many of the plan's Total cells the values take;
	// Total − Dropped cells could run without them.
	Dropped, Total int
}

func (e *ImpossibleError) Error() string {
	var b strings.Builder
	noun := "values"
	if len(e.Values) == 1 {
		noun = "value"
	}
	fmt.Fprintf(&b, "%s: %d %s of the plan cannot run on this machine:\n", e.File, len(e.Values), noun)
	for _, v := range e.Values {
		fmt.Fprintf(&b, "  %v\n", v)
	}
	if e.Dropped == e.Total {
		fmt.Fprintf(&b, "they take all %d of the plan's cells, so nothing of it can run here: change the plan, or run it on a larger machine", e.Total)
		return b.String()
	}
	fmt.Fprintf(&b, "they take %d of the plan's %d cells: give %s to run the other %d without them (the suite directory records what was left out), or change the plan",
		e.Dropped, e.Total, SkipFlag, e.Total-e.Dropped)
	return b.String()
}

// Skippable reports whether cells would be left to run without the values.
func (e *ImpossibleError) Skippable() bool { return e.Dropped < e.Total }

// impossibleError is the refusal of the plan's impossible values, nil when
// there are none.
func (p *Plan) impossibleError() error {
	if len(p.impossible) == 0 {
		return nil
	}
	e := &ImpossibleError{File: p.source.file, Total: p.matrixSize(len(p.allProfiles()), p.allSets())}
	e.Dropped = e.Total - len(p.Expand())
	for _, im := range p.impossible {
		e.Values = append(e.Values, im.err)
	}
	return e
}

// SkipImpossible accepts the refusal err of Validate when it is an
// *ImpossibleError with cells left to run: the plan runs without the values
// it names (Skipped says which), and SkipImpossible returns nil. Any other
// error is returned as it is.
func (p *Plan) SkipImpossible(err error) error {
	var ie *ImpossibleError
	if errors.As(err, &ie) && ie.Skippable() {
		return nil
	}
	return err
}

// Skipped are the values the plan runs without (SkipImpossible), as the
// manifest records them; nil when it runs whole.
func (p *Plan) Skipped() []suitedir.SkippedValue {
	var out []suitedir.SkippedValue
	for _, im := range p.impossible {
		out = append(out, im.record())
	}
	return out
}

// writeSkipped prints the values a plan runs without, for the dry run and
// the start of a run; nothing when there are none.
func writeSkipped(w io.Writer, skipped []suitedir.SkippedValue) {
	if len(skipped) == 0 {
		return
	}
	n := 0
	for _, s := range skipped {
		n += s.Cells
	}
	fmt.Fprintf(w, "Skipped (%s): the values below cannot run on this machine; their cells are left out of the suite, %d in all:\n", SkipFlag, n)
	for _, s := range skipped {
		fmt.Fprintf(w, "  %s = %s (%d cells): %s\n", s.Key, s.Value, s.Cells, s.Reason)
	}
}

// allProfiles are the plan's profiles, those this machine cannot run
// included ("" without a server).
func (p *Plan) allProfiles() []string {
	if p.Server == nil {
		return []string{""}
	}
	return p.Server.Profiles
}

// allSets is the number of server CPU sets of the plan's sweep, those this
// machine cannot give included (1 without a sweep).
func (p *Plan) allSets() int {
	if p.sweep == nil {
		return 1
	}
	return len(p.sweep.sets) + p.sweep.dropped
}

// matrixSize is the number of cells of profiles × data sets × sets ×
// distributions × rounds × workloads × thread counts.
func (p *Plan) matrixSize(profiles, sets int) int {
	m := &p.Matrix
	return profiles * len(p.Data) * sets * len(m.RandTypes) * m.Rounds * len(m.Workloads) * len(m.threadCounts())
}

// validateProfiles generates each server profile's configuration for the
// data set: a profile this machine's memory cannot hold is impossible here
// (its cells can be skipped), any other failure is a mistake of the plan.
func (p *Plan) validateProfiles(env Env) error {
	s := p.Server
	if s == nil {
		return nil
	}
	s.impossible = nil
	var bad []impossible
	for i, prof := range s.Profiles {
		_, err := p.generate(prof)
		var room *localserver.RoomError
		switch {
		case errors.As(err, &room):
			key := fmt.Sprintf("server.profiles[%d]", i)
			if !p.given("server.profiles") {
				key = "server.profiles"
			}
			s.impossible = append(s.impossible, prof)
			bad = append(bad, impossible{err: p.errAt(key, "%s", room.Msg).(*PlanError), value: prof})
		case err != nil:
			return p.errAt("server", "profile %s: %v", prof, err)
		}
	}
	p.impossible = append(p.impossible, bad...)
	return nil
}

// countImpossible sets the cells each impossible value takes and orders
// the values as the plan gives them. A cell of an impossible profile on an
// impossible CPU set is counted with its profile, so that the counts add up
// to the cells left out.
func (p *Plan) countImpossible() {
	perSet := p.matrixSize(1, 1)
	for i := range p.impossible {
		im := &p.impossible[i]
		if strings.HasPrefix(im.err.Path, "server.profiles") {
			im.cells = p.allSets() * perSet
		} else {
			im.cells = len(p.profiles()) * perSet
		}
	}
	slices.SortStableFunc(p.impossible, func(a, b impossible) int { return a.err.Line - b.err.Line })
}

// profileRuns reports whether this machine can run profile prof.
func (s *ServerSpec) profileRuns(prof string) bool { return !slices.Contains(s.impossible, prof) }
