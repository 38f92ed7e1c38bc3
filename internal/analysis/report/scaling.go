package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/fairbench/fairbench/internal/analysis"
)

// WriteScaling prints how each system scales with threads: per curve the
// speed-up and efficiency at every thread count, the peak and where
// throughput stops growing (analysis.Curve: at or before the peak).
// markdown selects a pipe table.
func WriteScaling(w io.Writer, curves []analysis.Curve, markdown bool) error {
	if len(curves) == 0 {
		return nil
	}
	header := []string{"system", "workload", "threads", "value", "speed-up", "efficiency", "gain"}
	var rows [][]string
	vague := false
	for _, c := range curves {
		for _, p := range c.Points {
			gain := "-"
			if !math.IsNaN(p.Gain) {
				gain = fmt.Sprintf("%+.0f%%", p.Gain*100)
			}
			speedUp, eff := fmt.Sprintf("%.2f×", p.SpeedUp), fmt.Sprintf("%.0f%%", p.Efficiency*100)
			if p.Vague {
				vague = true
				speedUp, eff, gain = speedUp+" "+analysis.VagueMark, eff+" "+analysis.VagueMark, gain+" "+analysis.VagueMark
			}
			mark := ""
			switch {
			case p.Threads == c.PeakThreads && c.Saturated && p.Threads == c.KneeThreads:
				mark = " (peak, stops growing)"
			case p.Threads == c.PeakThreads:
				mark = " (peak)"
			case c.Saturated && p.Threads == c.KneeThreads:
				mark = fmt.Sprintf(" (stops growing; peak at %d, %s)", c.PeakThreads, c.PeakOverKnee())
			}
			rows = append(rows, []string{c.System, c.Group.String(), fmt.Sprintf("%d%s", p.Threads, mark), num(p.Value),
				speedUp, eff, gain})
		}
	}
	fmt.Fprintf(w, "\nScalability (speed-up and efficiency relative to the smallest thread count; %s)\n\n", stopsGrowingRule(curves))
	if err := writeTable(w, header, rows, markdown); err != nil {
		return err
	}
	if vague {
		fmt.Fprintf(w, "\n%s: a figure it rests on has a 95 %% interval wider than itself: the speed-up, efficiency or gain tells nothing (run more rounds).\n", analysis.VagueMark)
	}
	return nil
}

// stopsGrowingRule says where throughput stops growing and how that relates
// to the peak (analysis.Curve), for under or over a scalability table.
func stopsGrowingRule(curves []analysis.Curve) string {
	return fmt.Sprintf("throughput stops growing at the smallest thread count that no larger one beats by %.0f%% or more; the peak, the highest figure, is never before it", curves[0].MinGain*100)
}

// WriteCPUScaling prints how each system scales with the server's CPUs (the
// by-CPUs sections of a comparison): per series the throughput at each CPU
// set's best thread count, speed-up and per-CPU efficiency, an efficiency
// above 100 % marked analysis.SuperlinearMark with its caveat below.
func WriteCPUScaling(w io.Writer, sections []analysis.CPUSection, markdown bool) error {
	if len(sections) == 0 {
		return nil
	}
	header := []string{"system", "workload", "series", "CPUs", "threads", "value", "speed-up", "efficiency per CPU"}
	var rows [][]string
	var caveats []string
	vague := false
	for _, cs := range sections {
		for _, cv := range cs.Curves {
			for _, p := range cv.Points {
				eff, speedUp := fmt.Sprintf("%.0f%%", p.Efficiency*100), fmt.Sprintf("%.2f×", p.SpeedUp)
				if p.Vague {
					vague = true
					eff, speedUp = eff+" "+analysis.VagueMark, speedUp+" "+analysis.VagueMark
				}
				if p.Caveat != "" {
					eff += " " + analysis.SuperlinearMark
					caveats = append(caveats, fmt.Sprintf("%s %s %s at %d CPUs: %s", analysis.SuperlinearMark, cv.System, cs.Group, p.CPUs, p.Caveat))
				}
				rows = append(rows, []string{cv.System, cs.Group.String(), orDash(cv.Mode), fmt.Sprint(p.CPUs), fmt.Sprint(p.Threads), num(p.Value),
					speedUp, eff})
			}
		}
	}
	fmt.Fprintf(w, "\nScalability by server CPUs (each set at its best thread count; speed-up relative to the series' smallest set; efficiency per CPU = speed-up ÷ (CPUs ÷ smallest CPUs))\n\n")
	if err := writeTable(w, header, rows, markdown); err != nil {
		return err
	}
	if len(caveats) > 0 {
		fmt.Fprintf(w, "\n%s\n", strings.Join(caveats, "\n"))
	}
	if vague {
		fmt.Fprintf(w, "\n%s: the set's 95 %% interval, or the smallest set's, is wider than its figure: the speed-up and efficiency tell nothing (run more rounds).\n", analysis.VagueMark)
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// writeTable writes a pipe table (markdown) or aligned columns.
func writeTable(w io.Writer, header []string, rows [][]string, markdown bool) error {
	if markdown {
		fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(header, " | "), strings.Repeat("---|", len(header)))
		for _, r := range rows {
			fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}
