package cli

import (
	"context"
	"io"

	"github.com/fairbench/fairbench/internal/progress"
)

// startProgress shows p's "loaded" line on w until stop is called (redrawn in
// place on a terminal, a line every 10 s otherwise). Log lines written to log
// meanwhile clear the line first.
func (inv *invocation) startProgress(ctx context.Context, w io.Writer, label string, p *progress.Counter, u progress.Unit) (log io.Writer, stop func()) {
	d := progress.New(w, inv.app.IsTerminal(w))
	return d, d.Start(ctx, func() string { return p.Line(label, u) })
}
