// Package outfile writes the files a user names on the command line (--output,
// merge -o, suite directories, profiles, reports, CSV) without destroying what
// the name points at, and without losing the output of a long run.
//
// The rules, one place for every writer:
//
//   - A regular file (or a name that does not exist yet) is written into a
//     temporary file ".NAME.tmp-*" in its directory, synced, and renamed over
//     NAME on Commit: a reader sees the old file or the whole new one.
//   - A symbolic link is followed (through every link) and its target is
//     replaced that way; the temporary file lives in the target's directory.
//   - A character device (/dev/null) or a FIFO is written in place, without a
//     rename, so that the node stays what it was.
//   - An open file of a process reached through /proc (/dev/stdout is a link
//     to /proc/self/fd/1: a pipe, a terminal or a file the shell redirected
//     to) is written in place too, a regular file appended to.
//   - Anything else (a directory, a socket, a block device) is refused.
//
// Create opens the temporary file at once, so that a command opens it after
// validating its command line and before connecting: a run of hours never ends
// in "cannot write" and a lost result. A temporary file left behind by a killed
// process (SIGKILL) is removed the next time that NAME is written: each writer
// holds an exclusive flock on its temporary file, so a file nobody holds is
// stale.
package outfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxLinks bounds the symbolic links followed, as the kernel's ELOOP does.
const maxLinks = 40

// newFileMode is the mode of a file that did not exist before.
const newFileMode fs.FileMode = 0o644

// File is one output file being written; Write to it, then Commit (or Abort).
type File struct {
	name     string // the path as the user gave it
	target   string // name with every symbolic link followed
	inPlace  bool   // a FIFO or character device, written without rename
	f        *os.File
	mode     fs.FileMode // the mode the committed file gets
	madeDirs []string    // directories Create made, deepest first (removed by Abort)
	done     bool
}

// Create prepares path for writing under the rules of the package: it follows
// symbolic links, refuses what cannot be written, removes stale temporary
// files of the same name, creates missing directories and the temporary file
// (or opens a character device in place; a FIFO is opened at the first write,
// so that a reader need not be there yet).
func Create(path string) (*File, error) {
	if strings.TrimSpace(path) == "" {
		return nil, errors.New("no file name given")
	}
	target, info, fdLink, err := resolve(path)
	if err != nil {
		return nil, err
	}
	of := &File{name: path, target: target, mode: newFileMode}
	if info != nil {
		switch m := info.Mode(); {
		case fdLink && m.IsRegular():
			// An open file of a process (/dev/stdout redirected to a file):
			// appended to, as the shell's redirection would be.
			of.inPlace = true
			f, err := os.OpenFile(target, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", describe(path, target), err)
			}
			of.f = f
			return of, nil
		case m.IsRegular():
			of.mode = m.Perm()
		case m&fs.ModeNamedPipe != 0:
			of.inPlace = true
			return of, nil
		case m&fs.ModeCharDevice != 0:
			of.inPlace = true
			f, err := os.OpenFile(target, os.O_WRONLY, 0)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", describe(path, target), err)
			}
			of.f = f
			return of, nil
		default:
			return nil, refuse(path, target, m)
		}
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	if err := CheckDir(dir); err != nil {
		return nil, err
	}
	if of.madeDirs, err = mkdirAll(dir); err != nil {
		return nil, fmt.Errorf("create the directory of %s: %w", path, err)
	}
	removeStale(dir, base)
	if of.f, err = createTemp(dir, base); err != nil {
		of.removeDirs()
		return nil, fmt.Errorf("%s: cannot write in %s: %w", path, dir, err)
	}
	return of, nil
}

// Write writes p to the temporary file (or the device in place).
func (f *File) Write(p []byte) (int, error) {
	if f.done {
		return 0, fmt.Errorf("%s: write after commit or abort", f.name)
	}
	if f.f == nil { // a FIFO: opened now, blocking until a reader is there
		h, err := os.OpenFile(f.target, os.O_WRONLY, 0)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", describe(f.name, f.target), err)
		}
		f.f = h
	}
	return f.f.Write(p)
}

// Name returns the path as it was given to Create.
func (f *File) Name() string { return f.name }

// Commit makes the written content the file: the temporary file is synced and
// renamed over the target, or the device is closed. On an error the temporary
// file is removed and the old file is left as it was.
func (f *File) Commit() (err error) {
	if f.done {
		return fmt.Errorf("%s: already committed or aborted", f.name)
	}
	if f.inPlace {
		if f.f == nil { // nothing was written to the FIFO: open it once so the reader sees an end
			if _, err := f.Write(nil); err != nil {
				f.done = true
				return err
			}
		}
		f.done = true
		if err := f.f.Close(); err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
		return nil
	}
	defer func() {
		if err != nil {
			f.Abort()
		}
	}()
	if err := f.f.Chmod(f.mode); err != nil {
		return fmt.Errorf("%s: %w", f.name, err)
	}
	if err := f.f.Sync(); err != nil {
		return fmt.Errorf("%s: sync: %w", f.name, err)
	}
	// Renamed while the lock is held, so that no other writer takes the
	// temporary file for a stale one.
	if err := os.Rename(f.f.Name(), f.target); err != nil {
		return fmt.Errorf("%s: %w", f.name, err)
	}
	f.done = true
	cerr := f.f.Close()
	syncDir(filepath.Dir(f.target))
	if cerr != nil {
		return fmt.Errorf("%s: %w", f.name, cerr)
	}
	return nil
}

// Abort drops what was written: the temporary file is removed, and so are the
// directories Create made if they are still empty; the target is left as it
// was. It does nothing after Commit, so `defer f.Abort()` is safe.
func (f *File) Abort() {
	if f == nil || f.done {
		return
	}
	f.done = true
	if f.f == nil {
		return
	}
	if f.inPlace {
		f.f.Close()
		return
	}
	os.Remove(f.f.Name())
	f.f.Close()
	f.removeDirs()
}

// Write writes the file at path through write under the rules of the package
// (Create, write, Commit).
func Write(path string, write func(io.Writer) error) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Abort()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Commit()
}

// Check says whether path could be written under the rules of the package,
// without creating anything: what Create would refuse is refused, and the
// nearest existing directory must be a directory this process may write in.
func Check(path string) error {
	if strings.TrimSpace(path) == "" {
		return errors.New("no file name given")
	}
	target, info, fdLink, err := resolve(path)
	if err != nil {
		return err
	}
	if info != nil {
		switch m := info.Mode(); {
		case m.IsRegular() && !fdLink:
		case m.IsRegular() || m&(fs.ModeNamedPipe|fs.ModeCharDevice) != 0:
			return access(target, path)
		default:
			return refuse(path, target, m)
		}
	}
	return CheckDir(filepath.Dir(target))
}

// CheckDir says whether dir is, or could be created as, a directory this
// process may write in, without creating anything.
func CheckDir(dir string) error {
	for d := dir; ; d = filepath.Dir(d) {
		info, err := os.Stat(d)
		if err == nil {
			if !info.IsDir() {
				if d == dir {
					return fmt.Errorf("%s is %s, not a directory: name a directory (it is created if missing)", dir, kind(info.Mode()))
				}
				return fmt.Errorf("%s cannot be created: %s is %s, not a directory", dir, d, kind(info.Mode()))
			}
			return access(d, dir)
		}
		if !missing(err) {
			return fmt.Errorf("%s: %w", dir, err)
		}
		if p := filepath.Dir(d); p == d {
			return fmt.Errorf("%s: %w", dir, err)
		}
	}
}

// Dir is a directory an output goes into, made by MakeDir.
type Dir struct {
	made []string // the directories MakeDir created, deepest first
}

// MakeDir makes sure path is a directory this process can write into,
// creating it and its missing parents; Discard removes what it created.
func MakeDir(path string) (*Dir, error) {
	if err := CheckDir(path); err != nil {
		return nil, err
	}
	made, err := mkdirAll(path)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot create the directory: %w", path, err)
	}
	return &Dir{made: made}, nil
}

// Discard removes the directories MakeDir created, when they are still empty
// (an output that was not written after all).
func (d *Dir) Discard() {
	for _, p := range d.made {
		if os.Remove(p) != nil {
			return
		}
	}
	d.made = nil
}

// missing says err is that a path does not exist (or cannot: a part of it is
// a file).
func missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// access says whether this process may write at path (named as given).
func access(path, given string) error {
	if err := syscall.Access(path, 2 /* W_OK */); err != nil {
		return fmt.Errorf("%s: cannot write there: %w", describe(given, path), &fs.PathError{Op: "access", Path: path, Err: err})
	}
	return nil
}

// resolve follows the symbolic links of path to the file it names: its path
// and its information, or nil information when it does not exist yet (a
// dangling link names the file to create). A link under /proc (/dev/stdout
// leads to /proc/self/fd/1) names an open file of a process, which may be a
// pipe or a deleted file that no path reaches: it is not read but followed by
// the kernel, and fdLink says so (the file is then written in place).
func resolve(path string) (target string, info fs.FileInfo, fdLink bool, err error) {
	cur := path
	for i := 0; ; i++ {
		info, err := os.Lstat(cur)
		switch {
		case missing(err):
			return cur, nil, false, nil
		case err != nil:
			return "", nil, false, err
		case info.Mode()&fs.ModeSymlink == 0:
			return cur, info, false, nil
		}
		if abs, _ := filepath.Abs(cur); strings.HasPrefix(abs, "/proc/") {
			info, err := os.Stat(cur)
			if err != nil {
				return "", nil, false, fmt.Errorf("%s: %w", path, err)
			}
			return cur, info, true, nil
		}
		if i == maxLinks {
			return "", nil, false, fmt.Errorf("%s: more than %d symbolic links to follow (a loop?)", path, maxLinks)
		}
		link, err := os.Readlink(cur)
		if err != nil {
			return "", nil, false, err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(cur), link)
		}
		cur = link
	}
}

// describe names path, and the file it leads to when that differs.
func describe(path, target string) string {
	if filepath.Clean(path) == filepath.Clean(target) {
		return path
	}
	return fmt.Sprintf("%s (a symbolic link to %s)", path, target)
}

// refuse is the error for a path that names what cannot be written.
func refuse(path, target string, m fs.FileMode) error {
	return fmt.Errorf("%s is %s, not a file: name a file to write (a regular file, a symbolic link to one, a FIFO or a character device such as /dev/null)",
		describe(path, target), kind(m))
}

// kind names what a non-regular file is.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0 && m&fs.ModeCharDevice == 0:
		return "a block device"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file"
}

// tmpPrefix is the start of the temporary files of base.
func tmpPrefix(base string) string { return "." + base + ".tmp-" }

// createTemp creates and locks a temporary file for base in dir. The lock is
// taken after the file exists, so a concurrent removeStale may remove the file
// in between: then it is created again.
func createTemp(dir, base string) (*os.File, error) {
	for {
		f, err := os.CreateTemp(dir, tmpPrefix(base)+"*")
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			os.Remove(f.Name())
			return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
		}
		held, err1 := f.Stat()
		named, err2 := os.Stat(f.Name())
		if err1 == nil && err2 == nil && os.SameFile(held, named) {
			return f, nil
		}
		f.Close()
	}
}

// removeStale removes the temporary files of base in dir that no process
// holds: those a killed writer left behind. Failures are ignored: a stale
// file is only untidy.
func removeStale(dir, base string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	prefix := tmpPrefix(base)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) || !e.Type().IsRegular() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			os.Remove(p)
		}
		f.Close()
	}
}

// mkdirAll creates dir and its missing parents and returns the ones it made,
// deepest first.
func mkdirAll(dir string) ([]string, error) {
	var missing []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if len(missing) == 0 {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return missing, nil
}

// removeDirs removes the directories Create made, if they are empty.
func (f *File) removeDirs() {
	d := Dir{made: f.madeDirs}
	d.Discard()
	f.madeDirs = nil
}

// syncDir makes a rename in dir durable where the platform allows; failures are
// ignored because the file itself is already complete.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	d.Sync()
	d.Close()
}
