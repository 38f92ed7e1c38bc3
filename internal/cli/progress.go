package cli

import (
	"context"
	"io"

	"github.com/fairbench/fairbench/internal/base/progress"
)

// showProgress draws line() on w until stop is called: redrawn in place on a
// terminal, a line every 10 s otherwise. Text written to log meanwhile clears
// the line first, so the two never run together.
func (inv *invocation) showProgress(ctx context.Context, w io.Writer, line func() string) (log io.Writer, stop func()) {
	d := progress.New(w, inv.app.IsTerminal(w))
	return d, d.Start(ctx, line)
}
