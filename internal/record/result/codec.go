package result

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/base/outfile"
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

// Write writes r to path under the rules of package outfile: a regular file
// is replaced atomically, a symbolic link's target is, a FIFO or character
// device is written in place, anything else is refused.
func Write(path string, r *Result) error {
	if err := outfile.Write(path, func(w io.Writer) error { return Encode(w, r) }); err != nil {
		return fmt.Errorf("write result: %w", err)
	}
	return nil
}

// WriteTo encodes r into f, an output file created early (outfile.Create, so
// that a bad path is refused before a long run), and commits it; on an error
// f is aborted.
func WriteTo(f *outfile.File, r *Result) error {
	if err := Encode(f, r); err != nil {
		f.Abort()
		return fmt.Errorf("write result: %s: %w", f.Name(), err)
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("write result: %w", err)
	}
	return nil
}
