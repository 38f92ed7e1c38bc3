package report

import (
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/fairbench/fairbench/internal/analysis"
)

// WriteText writes the report as plain text: the headline, the comparison's
// tables (analysis.WriteText), the scalability and the cost tables.
func (r *Report) WriteText(w io.Writer) error {
	if err := analysis.WriteHeadlineText(w, r.Headline); err != nil {
		return err
	}
	if err := analysis.WriteText(w, r.Comparison); err != nil {
		return err
	}
	if err := WriteScaling(w, r.Scaling, false); err != nil {
		return err
	}
	if err := WriteCPUScaling(w, r.Comparison.ByCPUs, false); err != nil {
		return err
	}
	if c := r.Cost; c != nil && c.Text != "" {
		if _, err := fmt.Fprintf(w, "\n%s\n\n%s", c.Heading(), c.Text); err != nil {
			return err
		}
	}
	return nil
}

// WriteMarkdown writes the report as Markdown that renders on GitHub: the
// headline, the comparison's tables, and — when images is not "" — each
// section's charts as images images/ID.png (a path relative to the Markdown
// file, where WritePNGs wrote them), then scalability (with the core-scaling
// charts) and cost.
func (r *Report) WriteMarkdown(w io.Writer, images string) error {
	if err := analysis.WriteHeadlineMarkdown(w, r.Headline); err != nil {
		return err
	}
	img := func(charts []*Chart) string {
		if images == "" {
			return ""
		}
		var s strings.Builder
		for _, c := range charts {
			fmt.Fprintf(&s, "![%s](%s)\n", analysis.MarkdownProse(c.Title), path.Join(images, c.ID+".png"))
			if c.Caption != "" {
				fmt.Fprintf(&s, "\n<sub>%s</sub>\n", analysis.MarkdownProse(c.Caption))
			}
		}
		return s.String()
	}
	if r.Overview != nil && images != "" {
		if _, err := io.WriteString(w, img([]*Chart{r.Overview})+"\n"); err != nil {
			return err
		}
	}
	if err := analysis.WriteMarkdownWith(w, r.Comparison, func(ref analysis.SectionRef) string {
		switch ref.Kind {
		case analysis.SectionRows:
			return img(r.Sections[ref.Index].Charts) + limitsMarkdown(r.Sections[ref.Index].Limits)
		case analysis.SectionCPUs:
			for _, cs := range r.CPUSections {
				if cs.CPUSection.Group == r.Comparison.ByCPUs[ref.Index].Group {
					return img([]*Chart{cs.Chart})
				}
			}
		case analysis.SectionScaling:
			if v := r.scaleView(r.Comparison.Scaling[ref.Index]); v != nil && v.Chart != nil {
				return img([]*Chart{v.Chart})
			}
		}
		return ""
	}); err != nil {
		return err
	}
	if err := WriteScaling(w, r.Scaling, true); err != nil {
		return err
	}
	if err := WriteCPUScaling(w, r.Comparison.ByCPUs, true); err != nil {
		return err
	}
	if c := r.Cost; c != nil {
		var s strings.Builder
		fmt.Fprintf(&s, "\n## %s\n\n", analysis.MarkdownProse(c.Heading()))
		if c.Source != "" {
			fmt.Fprintf(&s, "Prices: %s\n\n", analysis.MarkdownProse(c.Source))
		}
		if x := img(r.CostCharts); x != "" {
			s.WriteString(x + "\n")
		}
		if c.Markdown != "" {
			s.WriteString(c.Markdown)
		} else if c.Text != "" {
			s.WriteString("```\n" + c.Text + "```\n")
		}
		if _, err := io.WriteString(w, s.String()); err != nil {
			return err
		}
	}
	return nil
}

// Heading is the cost section's heading: Title, or a default.
func (c *CostSection) Heading() string {
	if c.Title == "" {
		return "Cost and price-performance"
	}
	return c.Title
}
