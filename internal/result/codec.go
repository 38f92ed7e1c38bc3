package result

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrNotResult is wrapped by the errors of Decode and Read for input that is not a
// fairbench result file at all.
var ErrNotResult = errors.New("not a fairbench result")

// Encode writes r as indented JSON. A Result whose Schema is empty is written with
// SchemaVersion (r itself is not changed).
func Encode(w io.Writer, r *Result) error {
	if r == nil {
		return errors.New("encode result: nil result")
	}
	if r.Schema == "" {
		c := *r
		c.Schema = SchemaVersion
		r = &c
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("encode result: %w", err)
	}
	return nil
}

// Decode reads one result. It accepts every minor version of the schema's major
// (fields it does not know are ignored) and refuses another major, and input
// without a "schema" field, with a message that says what to do.
func Decode(rd io.Reader) (*Result, error) {
	data, err := io.ReadAll(rd)
	if err != nil {
		return nil, fmt.Errorf("read result: %w", err)
	}
	var head struct {
		Schema *string `json:"schema"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("%w: the file is not a JSON object (%v)", ErrNotResult, err)
	}
	if head.Schema == nil || *head.Schema == "" {
		return nil, fmt.Errorf("%w: the file has no \"schema\" field; pass a file written by fairbench run", ErrNotResult)
	}
	if err := checkSchema(*head.Schema); err != nil {
		return nil, err
	}
	var r Result
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("decode result (schema %s): %w", *head.Schema, err)
	}
	return &r, nil
}

// checkSchema accepts a schema version with the same major as SchemaVersion.
func checkSchema(schema string) error {
	major, ok := schemaMajor(schema)
	if !ok {
		return fmt.Errorf("%w: unreadable schema version %q", ErrNotResult, schema)
	}
	own, _ := schemaMajor(SchemaVersion)
	switch {
	case major > own:
		return fmt.Errorf("result schema %s is newer than this fairbench reads (%d.x): upgrade fairbench", schema, own)
	case major < own:
		return fmt.Errorf("result schema %s is older than this fairbench reads (%d.x): use the fairbench release that wrote it", schema, own)
	}
	return nil
}

// schemaMajor returns the major number of a "major.minor" version.
func schemaMajor(schema string) (int, bool) {
	majorText, _, _ := strings.Cut(schema, ".")
	major, err := strconv.Atoi(majorText)
	return major, err == nil && major >= 0
}

// Read reads the result file at path.
func Read(path string) (*Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read result: %w", err)
	}
	defer f.Close()
	r, err := Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// Write writes r to path atomically (see WriteAtomic).
func Write(path string, r *Result) error {
	if err := WriteAtomic(path, func(w io.Writer) error { return Encode(w, r) }); err != nil {
		return fmt.Errorf("write result: %w", err)
	}
	return nil
}

// WriteAtomic writes a file through write: into a temporary file in the same
// directory, synced, then renamed over path, so that a reader sees the old file
// or the whole new one and a crash never leaves half a file. Missing
// directories are created.
func WriteAtomic(path string, write func(io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create directory for %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("%s: sync: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	syncDir(dir)
	return nil
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
