// Package lazyre compiles a regular expression on first use instead of at
// program start: every fairbench command starts the whole binary, and the
// packages' expressions (the log importer's, the Kubernetes name syntaxes)
// cost a run ~2 ms of CPU before its first query when compiled in init.
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr the first time it is called
// (panicking, as regexp.MustCompile does, if expr is not valid) and returns
// the same *regexp.Regexp every time. It is safe for concurrent use.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
