package pgbenchout

import (
	"fmt"
	"io"
	"strings"
)

// initSteps are pgbench 15's -I steps: the line each prints as it begins
// and its name in the closing "done in" line.
var initSteps = map[byte]struct{ start, name string }{
	'd': {"dropping old tables...", "drop tables"},
	't': {"creating tables...", "create tables"},
	'g': {"generating data (client-side)...", "client-side generate"},
	'G': {"generating data (server-side)...", "server-side generate"},
	'v': {"vacuuming...", "vacuum"},
	'p': {"creating primary keys...", "primary keys"},
	'f': {"creating foreign keys...", "foreign keys"},
}

// WriteInitStep prints the line pgbench prints (on stderr) as init step
// begins ('d', 't', 'g', 'G', 'v', 'p' or 'f'); for 't', partitions > 0
// adds "creating N partitions...". An unknown step prints nothing.
func WriteInitStep(w io.Writer, step byte, partitions int) {
	s, ok := initSteps[step]
	if !ok {
		return
	}
	fmt.Fprintln(w, s.start)
	if step == 't' && partitions > 0 {
		fmt.Fprintf(w, "creating %d partitions...\n", partitions)
	}
}

// InitProgress is one line of client-side data generation ('g'): rows of
// pgbench_accounts done out of total, seconds elapsed and the estimate of
// those remaining. pgbench prints one every 100,000 rows, or with -q one
// every 5 seconds and one at the end.
type InitProgress struct {
	Done, Total        int64
	Elapsed, Remaining float64
}

// WriteInitProgress prints p as pgbench does; on a terminal (tty) the line
// ends with a carriage return so the next overwrites it, and the last
// (Done == Total) is followed by a newline.
func WriteInitProgress(w io.Writer, p InitProgress, tty bool) {
	pct := int64(0)
	if p.Total > 0 {
		pct = p.Done * 100 / p.Total
	}
	eol := "\n"
	if tty {
		eol = "\r"
		if p.Done == p.Total {
			eol = "\r\n"
		}
	}
	fmt.Fprintf(w, "%d of %d tuples (%d%%) done (elapsed %.2f s, remaining %.2f s)%s", p.Done, p.Total, pct, p.Elapsed, p.Remaining, eol)
}

// InitTiming is how long one init step took.
type InitTiming struct {
	Step    byte
	Seconds float64
}

// WriteInitDone prints pgbench's closing line of -i: the whole time, then
// each step's, in the order they ran ("done in 1.13 s (drop tables 0.00 s,
// create tables 0.10 s, …).").
func WriteInitDone(w io.Writer, totalSeconds float64, steps []InitTiming) {
	parts := make([]string, 0, len(steps))
	for _, s := range steps {
		if st, ok := initSteps[s.Step]; ok {
			parts = append(parts, fmt.Sprintf("%s %.2f s", st.name, s.Seconds))
		}
	}
	fmt.Fprintf(w, "done in %.2f s (%s).\n", totalSeconds, strings.Join(parts, ", "))
}
