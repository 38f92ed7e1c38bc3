// Command fairbench runs fair, reproducible OLTP benchmarks. See README.md.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"

	"github.com/fairbench/fairbench/internal/base/gcballast"
	"github.com/fairbench/fairbench/internal/cli"
)

// version and commit are stamped by the linker (see Makefile).
var (
	version = "dev"
	commit  = ""
)

func main() {
	// The command's start (the command tree, probes, connections) allocates
	// a few megabytes: without a ballast the collector runs at 4 MB, and
	// again when the run takes its own ballast — about 10 ms of CPU per
	// run, taken from the server measured (perf stat of one-event runs,
	// GOGC=off against the default). The run shares this one (gcballast).
	// Not for the agent, which serves for days on the server's machine:
	// there resident memory counts more than a collection now and then.
	release := func() {}
	if len(os.Args) < 2 || os.Args[1] != "agent" {
		release = gcballast.Hold()
	}
	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		cancel() // first Ctrl-C: stop, write the partial result
		<-sig
		os.Exit(cli.ExitInterrupted) // second: leave at once
	}()
	self, _ := os.Executable() // run again pinned by --client-cpus; empty: refused
	app := &cli.App{
		Stdout:  os.Stdout,
		Stderr:  os.Stderr,
		Getenv:  os.Getenv,
		Version: version,
		Commit:  commit,
		Self:    self,
		IsTerminal: func(w io.Writer) bool {
			f, ok := w.(*os.File)
			return ok && term.IsTerminal(int(f.Fd()))
		},
	}
	code := app.Execute(ctx, os.Args[1:])
	release()
	os.Exit(code)
}
