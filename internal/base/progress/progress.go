// Package progress tells a user how far a long step has come: a counter that
// loaders and readers add to from many goroutines, one renderer of the line
// ("loaded 1200/5000 rows (24.0%), 350 rows/s, ETA 10.9s"), and a display that
// redraws that line in place on a terminal (or prints it now and then
// otherwise) and clears it before any log line is written, so that log lines
// and the progress line never run into each other.
package progress

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Counter counts units done towards a total; safe for concurrent use. The
// zero value is not usable: create one with NewCounter.
type Counter struct {
	done, total atomic.Int64
	// finished is when done first reached a known total (ns since started;
	// 0: not yet): the rate and elapsed time stop there, so that a line
	// redrawn while a step finishes (indexes, checks) keeps the load's rate.
	finished atomic.Int64
	started  time.Time
	now      func() time.Time
}

// NewCounter starts counting towards total (0: not known yet) on the wall clock.
func NewCounter(total int64) *Counter {
	return NewCounterClock(total, time.Now)
}

// NewCounterClock starts counting towards total with now as the clock (tests
// inject one to see the rate and the ETA without depending on machine speed).
func NewCounterClock(total int64, now func() time.Time) *Counter {
	c := &Counter{started: now(), now: now}
	c.total.Store(total)
	return c
}

// SetTotal sets the number of units expected. A nil Counter ignores it.
func (c *Counter) SetTotal(n int64) {
	if c != nil {
		c.total.Store(n)
	}
}

// AddTotal adds n to the number of units expected. A nil Counter ignores it.
func (c *Counter) AddTotal(n int64) {
	if c != nil {
		c.total.Add(n)
	}
}

// Add records n more units done. A nil Counter ignores it.
func (c *Counter) Add(n int64) {
	if c == nil {
		return
	}
	if done, total := c.done.Add(n), c.total.Load(); total > 0 && done >= total && c.finished.Load() == 0 {
		c.finished.CompareAndSwap(0, max(int64(c.now().Sub(c.started)), 1))
	}
}

// Done returns the units done so far.
func (c *Counter) Done() int64 { return c.done.Load() }

// Snapshot returns units done, the total and the time since the start (until
// the total was reached, once it was).
func (c *Counter) Snapshot() (done, total int64, elapsed time.Duration) {
	if f := c.finished.Load(); f > 0 {
		return c.done.Load(), c.total.Load(), time.Duration(f)
	}
	return c.done.Load(), c.total.Load(), c.now().Sub(c.started)
}

// Line renders the counter's state with the package's Line.
func (c *Counter) Line(label string, u Unit) string {
	done, total, elapsed := c.Snapshot()
	return Line(label, u, done, total, elapsed)
}

// Unit says what a line counts and how its figures are written.
type Unit int

// The units a line can count.
const (
	Rows Unit = iota
	Tables
	Connections
	Bytes
	// Seconds is a step bounded by time (a query warm-up): done and total are
	// seconds, and the line shows elapsed of total with no rate.
	Seconds
)

func (u Unit) name() string {
	return [...]string{"rows", "tables", "connections", "B", "s"}[u]
}

// amount writes n units: bytes in KiB/MiB/GiB, the rest as integers.
func (u Unit) amount(n float64) string {
	if u != Bytes {
		return fmt.Sprintf("%.0f", n)
	}
	for _, s := range []struct {
		name string
		size float64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= s.size {
			return fmt.Sprintf("%.1f %s", n/s.size, s.name)
		}
	}
	return fmt.Sprintf("%.0f B", n)
}

// Line renders what label has done: "label done/total unit (pct%), rate
// unit/s, ETA d" when the total is known, "label done unit (rate unit/s)"
// when not. The ETA is the rest at the rate so far: "?" before anything is
// done, "0s" once all is.
func Line(label string, u Unit, done, total int64, elapsed time.Duration) string {
	if u == Seconds {
		d := time.Duration(done) * time.Second
		if total <= 0 {
			return fmt.Sprintf("%s %s", label, Duration(d))
		}
		left := max(time.Duration(total-done)*time.Second, 0)
		return fmt.Sprintf("%s %s of %s (%.1f%%), ETA %s", label, Duration(d), Duration(time.Duration(total)*time.Second),
			100*float64(done)/float64(total), Duration(left))
	}
	rate := 0.0
	if elapsed > 0 {
		rate = float64(done) / elapsed.Seconds()
	}
	per := fmt.Sprintf("%.0f %s/s", rate, u.name())
	switch {
	case u == Bytes:
		per = u.amount(rate) + "/s"
	case rate < 10:
		per = fmt.Sprintf("%.1f %s/s", rate, u.name())
	}
	count := func(n int64) string {
		if u == Bytes {
			return u.amount(float64(n))
		}
		return u.amount(float64(n)) + " " + u.name()
	}
	if total <= 0 {
		return fmt.Sprintf("%s %s (%s)", label, count(done), per)
	}
	amount := fmt.Sprintf("%s/%s", u.amount(float64(done)), count(total))
	if u == Bytes {
		amount = fmt.Sprintf("%s of %s", u.amount(float64(done)), u.amount(float64(total)))
	}
	return fmt.Sprintf("%s %s (%.1f%%), %s, ETA %s", label, amount, 100*float64(done)/float64(total), per, ETA(done, total, elapsed))
}

// ETA is how long the rest of total takes at the rate done/elapsed: "?"
// while nothing is done, "0s" once all is.
func ETA(done, total int64, elapsed time.Duration) string {
	switch {
	case done >= total:
		return "0s"
	case done <= 0 || elapsed <= 0:
		return "?"
	}
	secs := float64(total-done) * elapsed.Seconds() / float64(done)
	return Duration(time.Duration(secs * float64(time.Second)))
}

// Duration writes d for a human: tenths of a second under 10 s ("3.4s"),
// whole seconds above ("1m05s" as Go writes it: "1m5s").
func Duration(d time.Duration) string {
	if d < 10*time.Second {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}

// Display draws one progress line on W and writes log lines through Write,
// clearing the line first, so the two never run together. Set its fields
// before use; its methods are safe for concurrent use.
type Display struct {
	W io.Writer
	// Terminal redraws the line in place ("\r\033[K"); otherwise each line is
	// printed on its own, every Every.
	Terminal bool
	// Every is how often Start redraws (default: 500 ms on a terminal, 10 s
	// otherwise).
	Every time.Duration
	// Indent goes before every line Show and Println write.
	Indent string

	mu    sync.Mutex
	drawn bool // a line is drawn in place and not cleared
}

// New returns a display on w; terminal says whether w redraws in place.
func New(w io.Writer, terminal bool) *Display {
	return &Display{W: w, Terminal: terminal}
}

// clearSeq erases the line the cursor is on and returns to its start.
const clearSeq = "\r\033[K"

// Write writes log text, clearing the progress line first when one is drawn.
func (d *Display) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.clearLocked()
	return d.W.Write(p)
}

// Println writes line as a line of its own (indented), clearing the drawn
// line first.
func (d *Display) Println(line string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.clearLocked()
	fmt.Fprintln(d.W, d.Indent+line)
}

// Show draws line: in place on a terminal, as a line of its own otherwise.
// An empty line draws nothing (a step with nothing to show yet).
func (d *Display) Show(line string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	line = strings.TrimRight(line, "\n")
	if line == "" {
		return
	}
	line = d.Indent + line
	if d.Terminal {
		fmt.Fprint(d.W, clearSeq+line)
		d.drawn = true
		return
	}
	fmt.Fprintln(d.W, line)
}

// Clear erases the drawn line, if any.
func (d *Display) Clear() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.clearLocked()
}

func (d *Display) clearLocked() {
	if d.drawn {
		fmt.Fprint(d.W, clearSeq)
		d.drawn = false
	}
}

func (d *Display) every() time.Duration {
	switch {
	case d.Every > 0:
		return d.Every
	case d.Terminal:
		return 500 * time.Millisecond
	}
	return 10 * time.Second
}

// Start shows line() every d.Every until stop is called or ctx ends; stop
// waits for the drawing to end and clears the line.
func (d *Display) Start(ctx context.Context, line func() string) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(d.every())
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				d.Show(line())
			}
		}
	}()
	return func() {
		cancel()
		<-done
		d.Clear()
	}
}
