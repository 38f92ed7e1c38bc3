package suite

import (
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/record/suitedir"
)

// TestCellLineSaysWhatTheFiguresHide: a cell's live line shows reconnects,
// ignored errors and warnings when there were any, and no p95 figure when the
// run did not measure it (instead of "p95 0.000 ms").
func TestCellLineSaysWhatTheFiguresHide(t *testing.T) {
	cases := []struct {
		name      string
		summary   suitedir.Summary
		want, not []string
	}{
		{"clean", suitedir.Summary{TPS: 100, QPS: 2000, P95Ms: 1.5},
			[]string{"p95    1.500 ms"}, []string{"reconnects", "ignored errors", "warnings", " - ms", "server away"}},
		{"no p95", suitedir.Summary{TPS: 100, QPS: 2000},
			[]string{"p95        - ms"}, []string{"0.000 ms"}},
		{"faults", suitedir.Summary{TPS: 100, QPS: 2000, P95Ms: 2, Reconnects: 3, IgnoredErrors: 41, Warnings: 1},
			[]string{"reconnects 3", "ignored errors 41", "warnings 1 (in the result file)"}, nil},
		{"outage", suitedir.Summary{TPS: 100, QPS: 2000, P95Ms: 2, Reconnects: 2, Warnings: 1, Outages: 1, OutageSeconds: 1.25},
			[]string{"reconnects 2", "server away 1.2s (1 outage(s))"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := c.summary
			line := cellLine(suitedir.CellRecord{Status: suitedir.StatusComplete, Summary: &s, Seconds: 3})
			for _, w := range c.want {
				if !strings.Contains(line, w) {
					t.Errorf("line %q lacks %q", line, w)
				}
			}
			for _, w := range c.not {
				if strings.Contains(line, w) {
					t.Errorf("line %q has %q", line, w)
				}
			}
		})
	}
}

// TestStepRandType: the steps that all of a data set's cells share draw from
// the plan's one distribution, and with several from the default (uniform),
// never from whichever the plan lists first, and say which.
func TestStepRandType(t *testing.T) {
	for _, c := range []struct {
		rts       []string
		want, why string
	}{
		{[]string{"zipfian"}, "zipfian", "the plan's rand type"},
		{[]string{"zipfian", "uniform"}, "uniform", "the default: the plan's cells use zipfian, uniform"},
		{[]string{"special", "pareto"}, "uniform", "the default: the plan's cells use special, pareto"},
	} {
		s := &session{plan: &Plan{Matrix: Matrix{RandTypes: c.rts}}}
		if got, why := s.stepRandType(); got != c.want || why != c.why {
			t.Errorf("%v: stepRandType() = %q, %q; want %q, %q", c.rts, got, why, c.want, c.why)
		}
	}
}

// TestTablesMarkOutages: a complete cell whose server went away shows its
// figure marked, the median over rounds it enters is marked too, and a legend
// says what the mark means; tables without such a cell have neither.
func TestTablesMarkOutages(t *testing.T) {
	cell := func(round int, tps float64, outages int) suitedir.CellRecord {
		return suitedir.CellRecord{Cell: suitedir.Cell{Workload: "oltp_read_write", Threads: 4, Round: round, Data: "d"},
			Status: suitedir.StatusComplete, Summary: &suitedir.Summary{TPS: tps, Outages: outages, OutageSeconds: 0.5 * float64(outages)}}
	}
	var b strings.Builder
	WriteTables(&b, &suitedir.Manifest{Cells: []suitedir.CellRecord{cell(1, 100, 0), cell(2, 90, 1), cell(3, 110, 0)}})
	out := b.String()
	for _, want := range []string{"100\n", "90.0" + OutageMark, "mean of 3 rounds", "100" + OutageMark, OutageMark + " the server went away or stopped answering during this cell"} {
		if !strings.Contains(out, want) {
			t.Errorf("tables lack %q:\n%s", want, out)
		}
	}
	b.Reset()
	WriteTables(&b, &suitedir.Manifest{Cells: []suitedir.CellRecord{cell(1, 100, 0)}})
	if strings.Contains(b.String(), OutageMark) {
		t.Errorf("tables without an outage carry its mark:\n%s", b.String())
	}
}
