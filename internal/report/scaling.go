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
// throughput stops growing. markdown selects a pipe table.
func WriteScaling(w io.Writer, curves []analysis.Curve, markdown bool) error {
	if len(curves) == 0 {
		return nil
	}
	header := []string{"system", "workload", "threads", "value", "speed-up", "efficiency", "gain"}
	var rows [][]string
	for _, c := range curves {
		for _, p := range c.Points {
			gain := "-"
			if !math.IsNaN(p.Gain) {
				gain = fmt.Sprintf("%+.0f%%", p.Gain*100)
			}
			mark := ""
			switch {
			case p.Threads == c.PeakThreads:
				mark = " (peak)"
			case c.Saturated && p.Threads == c.KneeThreads:
				mark = " (stops growing)"
			}
			rows = append(rows, []string{c.System, c.Group.String(), fmt.Sprintf("%d%s", p.Threads, mark), num(p.Value),
				fmt.Sprintf("%.2f×", p.SpeedUp), fmt.Sprintf("%.0f%%", p.Efficiency*100), gain})
		}
	}
	fmt.Fprintf(w, "\nScalability (speed-up and efficiency relative to the smallest thread count; throughput stops growing where the next step gains less than %.0f%%)\n\n", curves[0].MinGain*100)
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
