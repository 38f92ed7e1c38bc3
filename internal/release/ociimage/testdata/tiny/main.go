// Command tiny is the small static program the ociimage tests put in images
// in place of fairbench: it prints its platform and arguments.
package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"
)

func main() {
	fmt.Printf("tiny %s/%s %s\n", runtime.GOOS, runtime.GOARCH, strings.Join(os.Args[1:], " "))
}
