// Command fairbench runs fair, reproducible OLTP benchmarks. See README.md.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"

	"github.com/fairbench/fairbench/internal/cli"
)

// version and commit are stamped by the linker (see Makefile).
var (
	version = "dev"
	commit  = ""
)

func main() {
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
	os.Exit(app.Execute(ctx, os.Args[1:]))
}
