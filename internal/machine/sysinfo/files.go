package sysinfo

import (
	"io/fs"
	"strconv"
	"strings"
)

// readText returns the trimmed content of a file of fsys, or "" when it cannot be read.
// Paths are fs.FS paths: relative to the root, without a leading slash.
func readText(fsys fs.FS, path string) string {
	b, err := fs.ReadFile(fsys, path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// exists reports whether path can be opened in fsys.
func exists(fsys fs.FS, path string) bool {
	_, err := fs.Stat(fsys, path)
	return err == nil
}

// readInt returns the integer in a file, and false when it is missing or not a number.
func readInt(fsys fs.FS, path string) (int64, bool) {
	s := readText(fsys, path)
	if s == "" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// parseHex parses "0x41" or "41" as a hexadecimal number.
func parseHex(s string) (uint64, bool) {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if s == "" {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 16, 64)
	return n, err == nil
}
