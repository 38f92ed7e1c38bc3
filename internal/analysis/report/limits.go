package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/record/result"
)

// Limit is what limited the runs of one cell of a section: its thread
// count, its system and, for each round, the verdict of the run and its
// notes on how it was measured.
type Limit struct {
	Threads int
	System  string
	Rounds  []LimitRound
}

// LimitRound is one run of a cell: its round, its verdict (result.Observed)
// and its notes.
type LimitRound struct {
	Round          int
	Bound, Verdict string
	// Notes are the run's note that the client shared the server's CPUs,
	// and that other processes used much of a machine.
	Notes []string
}

// limitsOf lists what limited each cell of rows, by thread count then
// system; nil when no run of them recorded a verdict.
func limitsOf(c *analysis.Comparison, rows []analysis.Row) []Limit {
	var out []Limit
	seen := false
	for _, row := range rows {
		for i, cl := range row.Cells {
			if len(cl.Rounds) == 0 {
				continue
			}
			l := Limit{Threads: row.Key.Threads, System: c.Systems[i].Label}
			for _, smp := range cl.Rounds {
				lr := LimitRound{Round: smp.Round, Bound: smp.Bound, Verdict: smp.Verdict}
				seen = seen || smp.Verdict != ""
				if smp.Noisy() {
					lr.Notes = append(lr.Notes, fmt.Sprintf("%s other processes used %.0f %% of a machine's CPUs", analysis.NoisyMark, *smp.OtherProcessesPct))
				}
				if smp.SharedCPUs != "" {
					lr.Notes = append(lr.Notes, smp.SharedCPUs)
				}
				l.Rounds = append(l.Rounds, lr)
			}
			out = append(out, l)
		}
	}
	if !seen {
		return nil
	}
	return out
}

// boundNames are the words of each result.Observed.Bound in a summary.
var boundNames = map[string]string{
	result.BoundCommit:  "commit-bound (log flushes)",
	result.BoundCPU:     "CPU-bound",
	result.BoundIO:      "IO-bound",
	result.BoundNeither: "neither CPU- nor IO-bound",
	result.BoundUnknown: "not judged",
}

// LimitSummary says in one line what limited the runs of limits: "CPU-bound
// in 4 of 6 runs, commit-bound (log flushes) in 2; 2 runs shared the
// server's CPUs; 1 run on a busy machine (§)".
func LimitSummary(limits []Limit) string {
	counts := map[string]int{}
	var order []string
	runs, shared, noisy := 0, 0, 0
	for _, l := range limits {
		for _, lr := range l.Rounds {
			runs++
			b := lr.Bound
			if lr.Verdict == "" {
				b = "not observed"
			} else if name, ok := boundNames[b]; ok {
				b = name
			}
			if counts[b] == 0 {
				order = append(order, b)
			}
			counts[b]++
			if slices.ContainsFunc(lr.Notes, func(n string) bool { return strings.Contains(n, result.SharedCPUsNote) }) {
				shared++
			}
			if slices.ContainsFunc(lr.Notes, func(n string) bool { return strings.HasPrefix(n, analysis.NoisyMark) }) {
				noisy++
			}
		}
	}
	slices.SortStableFunc(order, func(a, b string) int { return counts[b] - counts[a] })
	var parts []string
	for i, b := range order {
		if i == 0 {
			parts = append(parts, fmt.Sprintf("%s in %d of %d runs", b, counts[b], runs))
		} else {
			parts = append(parts, fmt.Sprintf("%s in %d", b, counts[b]))
		}
	}
	s := strings.Join(parts, ", ")
	if shared > 0 {
		s += fmt.Sprintf("; %s shared the server's CPUs", plural(shared, "run"))
	}
	if noisy > 0 {
		s += fmt.Sprintf("; %s measured while other processes used more than %d %% of a machine's CPUs (%s)", plural(noisy, "run"), result.OtherProcessesLimitPct, analysis.NoisyMark)
	}
	return s
}

// plural is "1 run", "3 runs".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// RoundLines are the rounds' lines of a cell (roundLine).
func (l Limit) RoundLines() []string {
	var out []string
	for _, lr := range l.Rounds {
		out = append(out, roundLine(lr, len(l.Rounds) > 1))
	}
	return out
}

// roundLine is one round's verdict with its notes, prefixed by its round
// when the cell has several: "r2: CPU-bound: … (the client shared …)".
func roundLine(lr LimitRound, several bool) string {
	s := lr.Verdict
	if s == "" {
		s = "not observed"
	}
	if len(lr.Notes) > 0 {
		s += " (" + strings.Join(lr.Notes, "; ") + ")"
	}
	if several {
		s = "r" + strconv.Itoa(lr.Round) + ": " + s
	}
	return s
}

// limitsMarkdown is a section's "What limited the runs" block in Markdown:
// the summary, then a table of each cell's rounds; "" without verdicts.
func limitsMarkdown(limits []Limit) string {
	if limits == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n**%s:** %s\n\n| threads | system | what limited the run |\n|---:|---|---|\n", limitsCaption, analysis.MarkdownProse(LimitSummary(limits)))
	for _, l := range limits {
		var lines []string
		for _, line := range l.RoundLines() {
			lines = append(lines, analysis.MarkdownProse(line))
		}
		fmt.Fprintf(&b, "| %d | %s | %s |\n", l.Threads, analysis.MarkdownProse(l.System), strings.ReplaceAll(strings.Join(lines, "<br>"), "|", `\|`))
	}
	return b.String()
}

// limitsCaption heads the verdicts of a section in every rendering.
const limitsCaption = "What limited the runs"
