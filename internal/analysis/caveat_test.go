package analysis

import "testing"

// TestCaveatNote: figures resting on one round and rounds varying by more
// than 10 % are named per system, consecutive thread counts as one range
// (the largest CV told); a CV of exactly 10 % or less is no caveat.
func TestCaveatNote(t *testing.T) {
	one := Describe([]float64{100})
	calm := Describe([]float64{100, 102, 98})
	cv := func(c float64) Stats { return Stats{N: 3, Mean: 100, CV: c} }
	systems := []*System{{Label: "ARM"}, {Label: "x86"}}
	row := func(threads int, arm, x86 Stats) Row {
		return Row{Key: Key{Workload: "w", Threads: threads}, Cells: []Cell{{Stats: arm}, {Stats: x86}}}
	}
	for _, tc := range []struct {
		name string
		rows []Row
		want string
	}{
		{"none", []Row{row(1, calm, calm), row(2, calm, cv(0.10))}, ""},
		{"one round, ranges", []Row{row(1, one, calm), row(2, one, calm), row(4, calm, calm), row(8, one, one)},
			"Caveat — figures resting on one round (no spread known, no test possible): ARM at 1–2 threads, 8 threads; x86 at 8 threads."},
		{"noisy, largest CV of a range", []Row{row(1, cv(0.12), calm), row(2, cv(0.31), calm), row(4, calm, cv(0.104)), row(8, one, cv(0.2))},
			"Caveat — figures resting on one round (no spread known, no test possible): ARM at 8 threads; and rounds varying by more than 10 % (coefficient of variation): ARM at 1–2 threads (CV up to 31 %); x86 at 4–8 threads (CV up to 20 %)."},
		{"no figure", []Row{row(1, Describe(nil), calm)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := caveatNote(systems, tc.rows); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
	for st, want := range map[*Stats]string{&one: "one round", &calm: "", {N: 4, CV: 0.127}: "CV 13 %"} {
		if got := FigureCaveat(*st); got != want {
			t.Errorf("FigureCaveat(%+v) = %q, want %q", *st, got, want)
		}
	}
}
