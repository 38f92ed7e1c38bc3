package analysis

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The headline of a comparison is built by one stated rule (HeadlineRule):
// per section (workload) and per system against the baseline, the rows are
// walked in thread order and cut into spans of consecutive rows of one kind —
// significant differences of one sign, differences that are not significant,
// and cells resting on a single round (no test possible). A row where a side
// has no figure ends a span and belongs to none. Each span is told with its
// thread counts and its smallest and largest difference; a significant span
// with its largest p value.

// HeadlineRule states the rule the headline follows, for a report's legend.
const HeadlineRule = "Headline rule: per workload, consecutive thread counts whose differences are significant (p < α) and of one sign form one range, told with its smallest and largest difference and its largest p; consecutive counts without a significant difference form a \"no significant difference\" range; counts where a side ran a single round are named as such (no test possible)."

// SpanKind is how a span of rows compares with the baseline.
type SpanKind int

// The span kinds.
const (
	// SpanSignificant: every row tested, p < α, every difference of one sign.
	SpanSignificant SpanKind = iota
	// SpanNotSignificant: every row tested, p ≥ α.
	SpanNotSignificant
	// SpanSingleRound: a side of every row has fewer than two rounds.
	SpanSingleRound
)

// Span is a run of consecutive rows of a section of one kind.
type Span struct {
	Kind SpanKind
	// From and To are the first and last thread counts; Rows the rows held.
	From, To, Rows int
	// Lo and Hi are the smallest and largest difference in % (signed, Lo ≤ Hi).
	Lo, Hi float64
	// MaxP is the largest p value of a tested span's rows (NaN otherwise).
	MaxP float64
}

// Verdict is one system against the baseline in one section.
type Verdict struct {
	// Group is the section's key (threads 0); System indexes Comparison.Systems.
	Group  Key
	System int
	Spans  []Span
}

// Verdicts applies the headline rule to c: one verdict per section and system
// other than the baseline, in section order. A verdict without spans has no
// row where both sides have figures.
func Verdicts(c *Comparison) []Verdict {
	var out []Verdict
	for _, rows := range c.Sections() {
		for _, i := range c.others() {
			out = append(out, Verdict{Group: rows[0].Key.Group(), System: i, Spans: spans(rows, i)})
		}
	}
	return out
}

// spans cuts rows into the spans of system i.
func spans(rows []Row, i int) []Span {
	var out []Span
	open := false // whether the last span may grow (the previous row joined it)
	for _, r := range rows {
		cl := r.Cells[i]
		if cl.Stats.N == 0 || math.IsNaN(cl.Pct) {
			open = false
			continue
		}
		kind := SpanSingleRound
		switch {
		case cl.Significance.Tested && cl.Significance.Significant:
			kind = SpanSignificant
		case cl.Significance.Tested:
			kind = SpanNotSignificant
		}
		p := math.NaN()
		if cl.Significance.Tested {
			p = cl.Significance.P
		}
		if n := len(out); open && out[n-1].Kind == kind && (kind != SpanSignificant || (out[n-1].Lo < 0) == (cl.Pct < 0)) {
			s := &out[n-1]
			s.To, s.Rows = r.Key.Threads, s.Rows+1
			s.Lo, s.Hi = math.Min(s.Lo, cl.Pct), math.Max(s.Hi, cl.Pct)
			if !math.IsNaN(p) {
				s.MaxP = math.Max(s.MaxP, p)
			}
			continue
		}
		out = append(out, Span{Kind: kind, From: r.Key.Threads, To: r.Key.Threads, Rows: 1, Lo: cl.Pct, Hi: cl.Pct, MaxP: p})
		open = true
	}
	return out
}

// Headline is the verdict of c in sentences, one per section and system
// other than the baseline: "oltp_read_write: ARM is 27–38 % slower than x86
// at 64–256 threads (significant, p ≤ 0.029); no significant difference at
// 1–32 threads (ARM −8 % to +2 % against x86)." A comparison of one system
// has no headline.
func Headline(c *Comparison) []string {
	var out []string
	for _, v := range Verdicts(c) {
		out = append(out, v.Sentence(c))
	}
	return out
}

// Sentence tells the verdict as one sentence, led by the section's name.
func (v Verdict) Sentence(c *Comparison) string {
	sys, base := c.Systems[v.System].Label, c.BaselineSystem().Label
	if len(v.Spans) == 0 {
		return fmt.Sprintf("%s: no thread count has figures of both %s and %s.", RowLabel(v.Group), sys, base)
	}
	var parts []string
	for _, s := range v.Spans {
		at := threadRange(s.From, s.To)
		switch s.Kind {
		case SpanSignificant:
			parts = append(parts, fmt.Sprintf("%s at %s (significant, %s)", c.direction(sys, base, s.Lo, s.Hi), at, pBound(s)))
		case SpanNotSignificant:
			parts = append(parts, fmt.Sprintf("no significant difference at %s (%s, p ≥ %g)", at, spread(sys, base, s.Lo, s.Hi), c.Alpha))
		default:
			what := "a single round"
			if s.Rows > 1 {
				what = "single rounds"
			}
			parts = append(parts, fmt.Sprintf("%s rests on %s at %s, not tested: %s", c.Metric.Unit, what, at, c.untested(sys, base, s.Lo, s.Hi)))
		}
	}
	return RowLabel(v.Group) + ": " + strings.Join(parts, "; ") + "."
}

// direction says how sys compares with base over a range of differences of
// one sign: "ARM is 27–38 % slower than x86".
func (c *Comparison) direction(sys, base string, lo, hi float64) string {
	size := pctRange(math.Abs(lo), math.Abs(hi))
	up := lo >= 0
	if c.Metric.LowerIsBetter {
		word := map[bool]string{true: "higher", false: "lower"}[up]
		return fmt.Sprintf("%s's %s is %s %% %s than %s's", sys, c.Metric.Unit, size, word, base)
	}
	word := map[bool]string{true: "faster", false: "slower"}[up]
	return fmt.Sprintf("%s is %s %% %s than %s", sys, size, word, base)
}

// spread tells a range of differences without a claim of direction: "ARM
// −8 % to +2 % against x86", "ARM +5 % against x86".
func spread(sys, base string, lo, hi float64) string {
	l, h := signedPct(lo), signedPct(hi)
	switch {
	case l == "0" && h == "0":
		return fmt.Sprintf("%s within 0.5 %% of %s", sys, base)
	case l == h:
		return fmt.Sprintf("%s %s %% against %s", sys, l, base)
	}
	return fmt.Sprintf("%s %s %% to %s %% against %s", sys, l, h, base)
}

// untested tells the differences of single-round cells: their direction
// when they keep one sign, else their spread.
func (c *Comparison) untested(sys, base string, lo, hi float64) string {
	if l, h := signedPct(lo), signedPct(hi); (lo < 0) == (hi < 0) && l != "0" && h != "0" {
		return c.direction(sys, base, lo, hi)
	}
	return spread(sys, base, lo, hi)
}

// pctRange prints magnitudes a ≤ b (in either order) as "27–38" or "12"
// when they round alike.
func pctRange(a, b float64) string {
	a, b = math.Min(a, b), math.Max(a, b)
	x, y := fmtPct(a), fmtPct(b)
	if x == y {
		return x
	}
	return x + "–" + y
}

// signedPct prints a whole percentage with its sign: "+2", "−8", "0".
func signedPct(v float64) string {
	s := fmtPct(v)
	switch {
	case s == "0":
		return s
	case strings.HasPrefix(s, "-"):
		return "−" + s[1:]
	}
	return "+" + s
}

// threadRange prints "64–256 threads" or "64 threads".
func threadRange(from, to int) string {
	if from == to {
		if from == 1 {
			return "1 thread"
		}
		return strconv.Itoa(from) + " threads"
	}
	return strconv.Itoa(from) + "–" + strconv.Itoa(to) + " threads"
}

// pBound states a significant span's certainty by its largest p value.
func pBound(s Span) string {
	switch {
	case s.MaxP < 0.001:
		return "p < 0.001"
	case s.Rows == 1:
		return "p = " + fmtP(s.MaxP)
	}
	return "p ≤ " + fmtP(s.MaxP)
}

func fmtP(p float64) string { return strconv.FormatFloat(p, 'f', 3, 64) }
