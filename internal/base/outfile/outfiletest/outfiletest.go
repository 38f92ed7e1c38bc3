// Package outfiletest makes the special files the tests of output paths write
// onto: device nodes (made with mknod in a test's own directory, never
// /dev) and FIFOs with a reader.
package outfiletest

import (
	"io"
	"os"
	"syscall"
	"testing"
)

// Mknod makes a device node at path (S_IFCHR or S_IFBLK, major, minor) or
// skips the test where that is not allowed (not root, or a container without
// CAP_MKNOD); a character device that cannot be opened (a nodev mount) skips
// too.
func Mknod(t testing.TB, path string, kind uint32, major, minor int) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mknod needs root")
	}
	dev := (major << 8) | (minor & 0xff) | ((minor &^ 0xff) << 12)
	if err := syscall.Mknod(path, kind|0o666, dev); err != nil {
		t.Skipf("mknod %s: %v", path, err)
	}
	if kind == syscall.S_IFCHR {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			t.Skipf("the device node %s cannot be opened here: %v", path, err)
		}
		f.Close()
	}
}

// NullDevice makes a null device (character device 1,3, as /dev/null) at path.
func NullDevice(t testing.TB, path string) { Mknod(t, path, syscall.S_IFCHR, 1, 3) }

// FIFO makes a FIFO at path and starts a reader: the returned function waits
// for the writer to close it and returns what was read.
func FIFO(t testing.TB, path string) (read func() string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatalf("mkfifo %s: %v", path, err)
	}
	got := make(chan string, 1)
	go func() {
		r, err := os.Open(path)
		if err != nil {
			got <- "open: " + err.Error()
			return
		}
		defer r.Close()
		b, _ := io.ReadAll(r)
		got <- string(b)
	}()
	return func() string { return <-got }
}
