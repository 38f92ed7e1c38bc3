package outfile

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/base/outfile/outfiletest"
)

// writeString writes s to path through Write.
func writeString(path, s string) error {
	return Write(path, func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	})
}

// entries lists the names in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// noTemp fails when dir holds a temporary file of the package.
func noTemp(t *testing.T, dir string) {
	t.Helper()
	for _, n := range entries(t, dir) {
		if strings.Contains(n, ".tmp-") {
			t.Errorf("%s holds the temporary file %s", dir, n)
		}
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// mknod makes a device node or skips the test (see outfiletest.Mknod).
func mknod(t *testing.T, path string, kind uint32, major, minor int) {
	t.Helper()
	outfiletest.Mknod(t, path, kind, major, minor)
}

func TestWriteRegular(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "deeper", "out.json")
	if err := writeString(path, "new"); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, path); got != "new" {
		t.Errorf("content %q, want %q", got, "new")
	}
	info, _ := os.Stat(path)
	if info.Mode().Perm() != newFileMode {
		t.Errorf("a new file has mode %v, want %v", info.Mode().Perm(), newFileMode)
	}
	noTemp(t, filepath.Dir(path))

	// An existing file is replaced (a new inode: readers see old or new) and
	// keeps its mode.
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(path)
	if err := writeString(path, "newer"); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(path)
	if got := readString(t, path); got != "newer" {
		t.Errorf("content %q, want %q", got, "newer")
	}
	if os.SameFile(before, after) {
		t.Error("the file was rewritten in place, not replaced by a rename")
	}
	if after.Mode().Perm() != 0o600 {
		t.Errorf("replacing a 0600 file made it %v", after.Mode().Perm())
	}
}

func TestSymlinkTargetReplaced(t *testing.T) {
	for _, tc := range []struct {
		name     string
		exists   bool // the target exists
		relative bool // the link is relative
		chain    bool // a link to a link
	}{
		{name: "absolute link", exists: true},
		{name: "relative link", exists: true, relative: true},
		{name: "link to a link", exists: true, chain: true},
		{name: "dangling link", exists: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			linkDir, targetDir := t.TempDir(), t.TempDir()
			target := filepath.Join(targetDir, "real.json")
			if tc.exists {
				if err := os.WriteFile(target, []byte("old"), 0o640); err != nil {
					t.Fatal(err)
				}
			}
			dest := target
			if tc.relative {
				rel, err := filepath.Rel(linkDir, target)
				if err != nil {
					t.Fatal(err)
				}
				dest = rel
			}
			if tc.chain {
				mid := filepath.Join(targetDir, "mid.json")
				if err := os.Symlink(target, mid); err != nil {
					t.Fatal(err)
				}
				dest = mid
			}
			link := filepath.Join(linkDir, "out.json")
			if err := os.Symlink(dest, link); err != nil {
				t.Fatal(err)
			}
			if err := writeString(link, "new"); err != nil {
				t.Fatal(err)
			}
			li, err := os.Lstat(link)
			if err != nil || li.Mode()&fs.ModeSymlink == 0 {
				t.Fatalf("the symbolic link %s was replaced (%v, %v)", link, li.Mode(), err)
			}
			if got, _ := os.Readlink(link); got != dest {
				t.Errorf("the link now points at %q, want %q", got, dest)
			}
			if got := readString(t, target); got != "new" {
				t.Errorf("the target holds %q, want %q", got, "new")
			}
			if tc.exists {
				if info, _ := os.Stat(target); info.Mode().Perm() != 0o640 {
					t.Errorf("the target's mode became %v, want 0640", info.Mode().Perm())
				}
			}
			noTemp(t, linkDir)
			noTemp(t, targetDir)
		})
	}
}

func TestSymlinkTempInTargetDir(t *testing.T) {
	linkDir, targetDir := t.TempDir(), t.TempDir()
	target := filepath.Join(targetDir, "real.json")
	link := filepath.Join(linkDir, "out.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	f, err := Create(link)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	var inTarget bool
	for _, n := range entries(t, targetDir) {
		inTarget = inTarget || strings.HasPrefix(n, ".real.json.tmp-")
	}
	if !inTarget {
		t.Errorf("no temporary file in the target's directory: %v", entries(t, targetDir))
	}
	if got := entries(t, linkDir); len(got) != 1 {
		t.Errorf("the link's directory holds %v, want only the link", got)
	}
}

func TestSymlinkLoopRefused(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.Symlink(b, a)
	os.Symlink(a, b)
	err := writeString(a, "x")
	if err == nil || !strings.Contains(err.Error(), "symbolic links") {
		t.Fatalf("a link loop: err = %v, want one naming the symbolic links", err)
	}
}

func TestFIFOWrittenInPlace(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	read := outfiletest.FIFO(t, fifo)
	if err := writeString(fifo, "through the pipe"); err != nil {
		t.Fatal(err)
	}
	if s := read(); s != "through the pipe" {
		t.Errorf("the reader got %q", s)
	}
	info, err := os.Lstat(fifo)
	if err != nil || info.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("%s is no longer a FIFO: %v %v", fifo, info.Mode(), err)
	}
	if got := entries(t, dir); len(got) != 1 {
		t.Errorf("the directory holds %v, want only the FIFO", got)
	}
}

func TestCharDeviceWrittenInPlace(t *testing.T) {
	dir := t.TempDir()
	null := filepath.Join(dir, "null")
	mknod(t, null, syscall.S_IFCHR, 1, 3) // the null device
	before, _ := os.Lstat(null)
	link := filepath.Join(dir, "link-to-null")
	if err := os.Symlink(null, link); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{null, link} {
		if err := writeString(path, "discarded"); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		after, err := os.Lstat(null)
		if err != nil || after.Mode()&fs.ModeCharDevice == 0 || !os.SameFile(before, after) {
			t.Fatalf("writing %s replaced the device node: mode %v, err %v", path, after.Mode(), err)
		}
	}
	if got := entries(t, dir); len(got) != 2 {
		t.Errorf("the directory holds %v, want the node and the link", got)
	}
}

func TestRefused(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		make       func(t *testing.T, path string)
	}{
		{"directory", "is a directory", func(t *testing.T, p string) {
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{"socket", "is a socket", func(t *testing.T, p string) {
			l, err := net.Listen("unix", p)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
		}},
		{"block device", "is a block device", func(t *testing.T, p string) {
			mknod(t, p, syscall.S_IFBLK, 7, 0) // a loop device number; never opened
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "x")
			tc.make(t, path)
			before, _ := os.Lstat(path)
			for _, link := range []bool{false, true} {
				p := path
				if link {
					p = filepath.Join(dir, "link")
					if err := os.Symlink(path, p); err != nil {
						t.Fatal(err)
					}
				}
				err := writeString(p, "x")
				if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "name a file") {
					t.Errorf("%s: err = %v, want %q and what to do", p, err, tc.want)
				}
				if err := Check(p); err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("Check(%s) = %v, want %q", p, err, tc.want)
				}
			}
			after, err := os.Lstat(path)
			if err != nil || !os.SameFile(before, after) || after.Mode() != before.Mode() {
				t.Errorf("the %s was changed: %v", tc.name, err)
			}
			noTemp(t, dir)
		})
	}
}

func TestStaleTempRemoved(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	// What a SIGKILLed writer leaves: a temporary file nobody holds.
	stale := filepath.Join(dir, ".out.json.tmp-123456")
	if err := os.WriteFile(stale, []byte("half"), 0o600); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, ".other.json.tmp-42") // another name's: not ours to remove
	if err := os.WriteFile(other, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// A writer still running holds its temporary file: it stays.
	running, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale %s is still there (%v)", stale, err)
	}
	if err := writeString(path, "second"); err != nil {
		t.Fatal(err)
	}
	io.WriteString(running, "first")
	if err := running.Commit(); err != nil {
		t.Fatalf("the running writer lost its temporary file: %v", err)
	}
	if got := readString(t, path); got != "first" {
		t.Errorf("content %q, want the last committed", got)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another name's temporary file was removed: %v", err)
	}
	if got := strings.Join(entries(t, dir), " "); got != ".other.json.tmp-42 out.json" {
		t.Errorf("the directory holds %s, want only the other name's file and the result", got)
	}
}

func TestAbortLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "kept.json")
	if err := os.WriteFile(existing, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{existing, filepath.Join(dir, "a", "b", "new.json")} {
		f, err := Create(path)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(f, "partial")
		f.Abort()
		f.Abort() // twice is harmless
		if err := f.Commit(); err == nil {
			t.Error("Commit after Abort succeeded")
		}
	}
	if got := readString(t, existing); got != "old" {
		t.Errorf("Abort changed the existing file: %q", got)
	}
	if got := entries(t, dir); len(got) != 1 {
		t.Errorf("after Abort the directory holds %v, want only the old file", got)
	}
}

func TestCheckCreatesNothing(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, want string // want "" = accepted
	}{
		{filepath.Join(dir, "new", "out.json"), ""},
		{file, ""},
		{filepath.Join(file, "out.json"), "not a directory"},
		{"", "no file name"},
	} {
		err := Check(tc.path)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("Check(%q) = %v, want accepted", tc.path, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("Check(%q) = %v, want %q", tc.path, err, tc.want)
		}
	}
	if err := CheckDir(file); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("CheckDir(a file) = %v", err)
	}
	if got := entries(t, dir); len(got) != 1 {
		t.Errorf("Check created %v", got)
	}
}

// TestOpenFileOfTheProcess: -o /dev/stdout leads through /proc/self/fd/1 to
// a pipe or a redirected file, which no readlink of the link reaches: it is
// written in place (a file appended to). The link is made in a temp dir to
// /proc/self/fd/N of the test's own pipe and file, never /dev.
func TestOpenFileOfTheProcess(t *testing.T) {
	dir := t.TempDir()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := make(chan string, 1)
	go func() { b, _ := io.ReadAll(r); got <- string(b) }()
	stdout := filepath.Join(dir, "stdout")
	if err := os.Symlink(fmt.Sprintf("/proc/self/fd/%d", w.Fd()), stdout); err != nil {
		t.Fatal(err)
	}
	if err := writeString(stdout, "through the pipe"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if s := <-got; s != "through the pipe" {
		t.Errorf("the pipe's reader got %q", s)
	}

	redirected := filepath.Join(dir, "redirected.txt")
	f, err := os.Create(redirected)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	io.WriteString(f, "human output\n")
	before, _ := os.Stat(redirected)
	if err := writeString(fmt.Sprintf("/proc/self/fd/%d", f.Fd()), "result\n"); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(redirected)
	if got := readString(t, redirected); got != "human output\nresult\n" || !os.SameFile(before, after) {
		t.Errorf("the redirected file holds %q (same file: %v), want the result appended in place", got, os.SameFile(before, after))
	}
	if got := entries(t, dir); len(got) != 2 {
		t.Errorf("the directory holds %v", got)
	}
}

// TestStaleTempOfKilledProcess: a process SIGKILLed while it writes leaves its
// temporary file; the next write of that name removes it. The writer is this
// test binary run again (TestHelperWriter), killed once its temporary file
// exists.
func TestStaleTempOfKilledProcess(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWriter$")
	cmd.Env = append(os.Environ(), "OUTFILE_HELPER_PATH="+path)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "created") {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the helper said %q (%v)", line, err)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	left := entries(t, dir)
	if len(left) != 1 || !strings.HasPrefix(left[0], ".out.json.tmp-") {
		t.Fatalf("after SIGKILL the directory holds %v, want the writer's temporary file", left)
	}
	if err := writeString(path, "next"); err != nil {
		t.Fatal(err)
	}
	if got := entries(t, dir); len(got) != 1 || got[0] != "out.json" {
		t.Errorf("after the next write the directory holds %v, want only out.json", got)
	}
}

// TestHelperWriter is the writer TestStaleTempOfKilledProcess kills: it
// creates the output file, says so and waits.
func TestHelperWriter(t *testing.T) {
	path := os.Getenv("OUTFILE_HELPER_PATH")
	if path == "" {
		t.Skip("run by TestStaleTempOfKilledProcess")
	}
	f, err := Create(path)
	if err != nil {
		fmt.Println("error", err)
		return
	}
	io.WriteString(f, "half")
	fmt.Println("created")
	time.Sleep(time.Minute)
}
