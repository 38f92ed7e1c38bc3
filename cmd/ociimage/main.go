// Command ociimage builds fairbench's multi-platform container image from the
// static binaries `make release` builds, without a container engine: the same
// image as the Dockerfile's, written as an oci-archive or an OCI image layout
// directory (see internal/release/ociimage for the image and which tools read which
// output). `make image-oci` runs it; `ociimage -h` lists the flags.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1 // the image could not be built or written
	exitUsage = 2 // a flag or the environment is wrong
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
}

// run builds the image the flags describe and reports what it wrote.
func run(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	c, err := parseFlags(args, stderr, getenv)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "ociimage: %v\n", err)
		return exitUsage
	}
	if err := build(c, stdout); err != nil {
		fmt.Fprintf(stderr, "ociimage: %v\n", err)
		return exitError
	}
	return exitOK
}
