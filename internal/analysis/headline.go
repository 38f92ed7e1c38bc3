package analysis

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/record/result"
)

// The headline of a comparison is built by one stated rule (HeadlineRule):
// per section (workload) and per system against the baseline, the rows are
// walked in thread order and cut into spans of consecutive rows of one kind —
// differences shown by the rounds (the 95 % interval of the ratio excludes no
// change; Ratio) of one direction, differences the rounds could not tell
// (the interval holds no change), rows with too few rounds to tell, and rows
// that could not be tested (a round of zero, every round equal). A row where
// a side has no figure ends a span and belongs to none. Each span is told
// with its thread counts and its smallest and largest observed difference; a
// shown span with the weakest bound its intervals give and its largest p, a
// span that could not be told with its intervals and the smallest difference
// its rounds could have shown. "Could not tell" is never told as "no
// difference".

// HeadlineRule states the rule the headline follows, for a report's legend.
const HeadlineRule = "Headline rule: per workload, consecutive thread counts where the 95 % confidence interval of the ratio to the baseline (Welch's t test on the rounds' logarithms) excludes no change, in one direction, form one range, told with its smallest and largest observed difference, the weakest bound of its intervals and its largest p; consecutive counts whose intervals hold no change are told as \"could not tell\" with their intervals and the smallest difference the rounds could have shown — never as \"no difference\"; counts where a side has fewer than two rounds are told as too few rounds to tell, with the counts; a range with figures measured while other processes used more than 10 % of a machine is flagged §; a sweep of six or more counts with repeated rounds adds its fitted scalability model's reading (docs/scalability.md)."

// SpanKind is how a span of rows compares with the baseline.
type SpanKind int

// The span kinds.
const (
	// SpanShown: every row's interval excludes no change, every difference
	// of one direction.
	SpanShown SpanKind = iota
	// SpanCouldNotTell: every row tested, its interval holding no change.
	SpanCouldNotTell
	// SpanTooFew: a side of every row has fewer than two rounds.
	SpanTooFew
	// SpanNotTested: rows that have rounds enough but no interval (Reason).
	SpanNotTested
)

// Span is a run of consecutive rows of a section of one kind.
type Span struct {
	Kind SpanKind
	// From and To are the first and last thread counts; Rows the rows held.
	From, To, Rows int
	// Lo and Hi are the smallest and largest observed difference in % of
	// the cells' centers (Cell.Pct; signed, Lo ≤ Hi).
	Lo, Hi float64
	// CILo and CIHi are the lowest lower and highest upper bound of the
	// rows' intervals of the change in % (NaN for spans without intervals).
	CILo, CIHi float64
	// Bound is a shown span's weakest bound in %: the smallest change every
	// row's interval guarantees (the largest lower bound of the rows'
	// intervals when slower, the smallest when faster; signed). NaN
	// otherwise.
	Bound float64
	// MaxP is the largest p value of a tested span's rows (NaN otherwise).
	MaxP float64
	// Detectable is the largest of the rows' Ratio.Detectable, as a % (a
	// span that could not be told; NaN otherwise).
	Detectable float64
	// N and BaseN are the rounds of the system and of the baseline when
	// every row of the span has the same (-1 when they differ).
	N, BaseN int
	// Reason is a SpanNotTested span's Ratio.Reason.
	Reason string
	// Noisy counts the span's rows with a figure measured while other
	// processes used more than result.OtherProcessesLimitPct of a machine's
	// CPUs (Row.HasNoisy): the headline flags them.
	Noisy int
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
			out = append(out, Verdict{Group: rows[0].Key.Group(), System: i, Spans: spans(rows, i, c.Baseline)})
		}
	}
	return out
}

// rowKind is how a cell compares with the baseline under the headline rule.
// A shown difference whose observed % points the other way than its interval
// (possible only when the rounds are very skewed: the center is a mean or a
// median, the interval one of geometric means) is not claimed.
func rowKind(cl Cell) SpanKind {
	r := cl.Ratio
	switch {
	case r.Tested && r.Claimed && (r.Lo > 1) == (cl.Pct > 0) && cl.Pct != 0:
		return SpanShown
	case r.Tested:
		return SpanCouldNotTell
	case r.Reason == NotTestedTooFew || r.Reason == "":
		return SpanTooFew
	}
	return SpanNotTested
}

// Shown reports whether the cell's rounds show a difference from the
// baseline's under the headline rule (its interval excludes no change, and
// its observed difference points the same way).
func (cl Cell) Shown() bool { return rowKind(cl) == SpanShown }

// spans cuts rows into the spans of system i against the baseline base.
func spans(rows []Row, i, base int) []Span {
	var out []Span
	open := false // whether the last span may grow (the previous row joined it)
	for _, r := range rows {
		cl := r.Cells[i]
		if cl.Stats.N == 0 || math.IsNaN(cl.Pct) {
			open = false
			continue
		}
		kind := rowKind(cl)
		rt := cl.Ratio
		noisy := cl.Noisy > 0 || r.Cells[base].Noisy > 0
		lo, hi := math.NaN(), math.NaN()
		if rt.Tested {
			lo, hi = rt.Pct()
		}
		bound := math.NaN()
		if kind == SpanShown {
			bound = lo
			if rt.Hi < 1 {
				bound = hi
			}
		}
		p, det := math.NaN(), math.NaN()
		if rt.Tested {
			p, det = rt.P, rt.Detectable*100
		}
		if n := len(out); open && out[n-1].Kind == kind && (kind != SpanShown || (out[n-1].Lo < 0) == (cl.Pct < 0)) &&
			(kind != SpanNotTested || out[n-1].Reason == rt.Reason) {
			s := &out[n-1]
			s.To, s.Rows = r.Key.Threads, s.Rows+1
			s.Lo, s.Hi = math.Min(s.Lo, cl.Pct), math.Max(s.Hi, cl.Pct)
			s.CILo, s.CIHi = minNum(s.CILo, lo), maxNum(s.CIHi, hi)
			s.MaxP, s.Detectable = maxNum(s.MaxP, p), maxNum(s.Detectable, det)
			if kind == SpanShown {
				if bound > 0 {
					s.Bound = math.Min(s.Bound, bound)
				} else {
					s.Bound = math.Max(s.Bound, bound)
				}
			}
			if s.N != rt.N || s.BaseN != rt.BaseN {
				s.N, s.BaseN = -1, -1
			}
			if noisy {
				s.Noisy++
			}
			continue
		}
		out = append(out, Span{Kind: kind, From: r.Key.Threads, To: r.Key.Threads, Rows: 1, Lo: cl.Pct, Hi: cl.Pct,
			CILo: lo, CIHi: hi, Bound: bound, MaxP: p, Detectable: det, N: rt.N, BaseN: rt.BaseN, Reason: rt.Reason})
		if noisy {
			out[len(out)-1].Noisy = 1
		}
		open = true
	}
	return out
}

// minNum and maxNum are math.Min and math.Max that ignore a NaN operand.
func minNum(a, b float64) float64 {
	switch {
	case math.IsNaN(a):
		return b
	case math.IsNaN(b):
		return a
	}
	return math.Min(a, b)
}

func maxNum(a, b float64) float64 {
	switch {
	case math.IsNaN(a):
		return b
	case math.IsNaN(b):
		return a
	}
	return math.Max(a, b)
}

// Headline is the verdict of c in sentences, one per section and system
// other than the baseline: "oltp_read_write: ARM is 27–38 % slower than x86
// at 64–256 threads (95 % confidence: at least 21 % slower at each; p ≤
// 0.004); could not tell at 1–32 threads (ARM −8 % to +2 % against x86; 95 %
// intervals −19 % to +12 %: these rounds could show only a difference beyond
// about ±14 %)." Then one sentence per sweep with a scalability model
// (ScalingHeadline). A comparison of one system without a model has no
// headline.
func Headline(c *Comparison) []string {
	var out []string
	for _, v := range Verdicts(c) {
		out = append(out, v.Sentence(c))
	}
	return append(out, c.ScalingHeadline()...)
}

// HeadlineCaption introduces the headline in every rendering.
const HeadlineCaption = "Headline"

// WriteHeadlineText writes headline lines (Headline, and a cost's claims)
// as plain text with the rule under them; nothing without lines. compare
// and report write their headlines with it.
func WriteHeadlineText(w io.Writer, lines []string) error {
	if len(lines) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString(HeadlineCaption + ":\n")
	for _, h := range lines {
		fmt.Fprintf(&b, "  - %s\n", h)
	}
	fmt.Fprintf(&b, "  (%s)\n\n", HeadlineRule)
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteHeadlineMarkdown writes headline lines as Markdown: a bold caption,
// a list, and the rule in small print; nothing without lines.
func WriteHeadlineMarkdown(w io.Writer, lines []string) error {
	if len(lines) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("**" + HeadlineCaption + ":**\n\n")
	for _, h := range lines {
		fmt.Fprintf(&b, "- %s\n", MarkdownProse(h))
	}
	fmt.Fprintf(&b, "\n<sub>%s</sub>\n\n", MarkdownProse(HeadlineRule))
	_, err := io.WriteString(w, b.String())
	return err
}

// MarkdownProse keeps prose from turning into Markdown emphasis, links or a
// broken line.
func MarkdownProse(s string) string {
	return strings.NewReplacer("*", `\*`, "\n", " ", "[", `\[`, "]", `\]`).Replace(s)
}

// Sentence tells the verdict as one sentence, led by the section's name.
func (v Verdict) Sentence(c *Comparison) string {
	sys, base := c.Systems[v.System].Label, c.BaselineSystem().Label
	if len(v.Spans) == 0 {
		return fmt.Sprintf("%s: no thread count has figures of both %s and %s.", RowLabel(v.Group), sys, base)
	}
	var parts []string
	for _, s := range v.Spans {
		parts = append(parts, c.SpanPhrase(s, sys, base))
	}
	return RowLabel(v.Group) + ": " + strings.Join(parts, "; ") + "."
}

// SpanPhrase tells one span of sys against base, as the headline does, and
// flags a span with figures from a busy machine.
func (c *Comparison) SpanPhrase(s Span, sys, base string) string {
	phrase := c.spanPhrase(s, sys, base)
	switch {
	case s.Noisy == 0:
		return phrase
	case s.Noisy == s.Rows:
		return phrase + fmt.Sprintf(" — %s measured while other processes used more than %d %% of the machine, so the figures may be low", NoisyMark, result.OtherProcessesLimitPct)
	}
	return phrase + fmt.Sprintf(" — %s %d of these %d thread counts measured while other processes used more than %d %% of the machine, so their figures may be low", NoisyMark, s.Noisy, s.Rows, result.OtherProcessesLimitPct)
}

// spanPhrase is SpanPhrase without the busy-machine flag.
func (c *Comparison) spanPhrase(s Span, sys, base string) string {
	at := threadRange(s.From, s.To)
	conf := fmt.Sprintf("%g %%", c.confidence()*100)
	switch s.Kind {
	case SpanShown:
		return fmt.Sprintf("%s at %s (%s confidence: %s at each; %s)", c.direction(sys, base, s.Lo, s.Hi), at, conf, c.atLeast(s.Bound), pBound(s))
	case SpanCouldNotTell:
		return fmt.Sprintf("could not tell at %s (%s; %s intervals %s: these rounds could show only a difference beyond about ±%s %%)",
			at, spread(sys, base, s.Lo, s.Hi), conf, IntervalPct(s.CILo, s.CIHi), fmtPctFine(s.Detectable))
	case SpanTooFew:
		counts := "fewer than two rounds on a side"
		if s.N >= 0 {
			counts = roundCounts(sys, base, s.N, s.BaseN)
		}
		return fmt.Sprintf("too few rounds to tell at %s (%s): %s, not tested", at, counts, c.untested(sys, base, s.Lo, s.Hi))
	}
	why := s.Reason
	if why == NotTestedNoSpread {
		why += ": no spread to judge a difference by"
	}
	return fmt.Sprintf("not tested at %s (%s): %s", at, why, c.untested(sys, base, s.Lo, s.Hi))
}

// confidence is the comparison's confidence level (Confidence when unset).
func (c *Comparison) confidence() float64 {
	if c.Confidence > 0 {
		return c.Confidence
	}
	return Confidence
}

// atLeast tells a shown span's weakest bound: "at least 21 % slower".
func (c *Comparison) atLeast(bound float64) string {
	up := bound > 0
	word := map[bool]string{true: "faster", false: "slower"}[up]
	if c.Metric.LowerIsBetter {
		word = map[bool]string{true: "higher", false: "lower"}[up]
	}
	return fmt.Sprintf("at least %s %% %s", fmtPctFine(math.Abs(bound)), word)
}

// IntervalPct prints an interval of a change in % as every headline does:
// "−19 % to +12 %", "+0.4 % to +1.2 %".
func IntervalPct(lo, hi float64) string {
	l, h := pctPair(lo, hi)
	return l + " % to " + h + " %"
}

// pctPair prints the bounds of an interval of a change in % with their
// signs: one decimal when both are below 10 in size ("−4.1", "+0.4"), whole
// numbers otherwise ("−5", "+289"), and a bound that would round to zero
// with two significant digits ("+0.004").
func pctPair(lo, hi float64) (string, string) {
	if math.Abs(lo) < 9.95 && math.Abs(hi) < 9.95 {
		return signed(fmtSmallPct(lo)), signed(fmtSmallPct(hi))
	}
	whole := func(v float64) string {
		if math.Abs(v) < 0.5 {
			return signed(fmtSmallPct(v))
		}
		return signed(fmtPct(v))
	}
	return whole(lo), whole(hi)
}

// fmtSmallPct prints a percentage below 10 with one decimal, or with two
// significant digits when one decimal would round it to zero: a bound of
// +0.004 % is not "0".
func fmtSmallPct(v float64) string {
	if a := math.Abs(v); a > 0 && a < 0.05 {
		return strconv.FormatFloat(v, 'g', 2, 64)
	}
	return fmtFixed(v, 1)
}

// fmtPctFine prints a percentage as a whole number from 10 up and with one
// decimal below, so that a narrow interval keeps its width: "0.8", "14".
func fmtPctFine(v float64) string {
	if math.Abs(v) < 9.95 {
		return fmtSmallPct(v)
	}
	return fmtPct(v)
}

// signed puts a sign before a printed number: "+0.8", "−14", "0".
func signed(s string) string {
	switch {
	case strings.Trim(s, "0.") == "":
		return "0"
	case strings.HasPrefix(s, "-"):
		return "−" + s[1:]
	}
	return "+" + s
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
