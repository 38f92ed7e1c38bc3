package bundle

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"testing/fstest"
)

// Bundle is a bundle read and verified by Open: its members are held in
// memory, every hash checked.
type Bundle struct {
	path     string
	manifest *Manifest
	files    map[string][]byte // member name → content, bundle.json included
	fsys     fs.FS             // the data/ tree, made once
}

// Open reads the bundle at path and verifies it (Read): a bundle that is not
// exactly what its bundle.json records is refused, naming the member and what
// changed.
func Open(path string) (*Bundle, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open bundle: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("open bundle: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("open bundle %s: not a regular file", path)
	}
	b, err := Read(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", path, err)
	}
	b.path = path
	return b, nil
}

// Read reads and verifies a bundle of size bytes from r. It refuses, before
// trusting anything in it: more than MaxMembers members, names that are
// absolute, hold "..", ".", backslashes or empty elements, or lie outside
// data/ and the known members, duplicate names (also in another case),
// directories, links or any non-regular mode, encrypted members, methods
// other than store and deflate, a member beyond MaxMemberBytes or all beyond
// MaxTotalBytes (counted on the bytes decompressed, not the sizes claimed).
// Then it checks bundle.json's schema, that the members are exactly those it
// lists with their sizes and SHA-256, and the whole hash.
func Read(r io.ReaderAt, size int64) (*Bundle, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) { // (GODEBUG zipinsecurepath=0) checkName names the path
		return nil, fmt.Errorf("not a fairbench bundle (not a zip archive: %v): give a file written by fairbench bundle create", err)
	}
	if len(zr.File) > MaxMembers {
		return nil, fmt.Errorf("the archive has %d members, more than a bundle may hold (%d): refused", len(zr.File), MaxMembers)
	}
	files := make(map[string][]byte, len(zr.File))
	folded := map[string]string{}
	var total int64
	for _, f := range zr.File {
		if err := checkEntry(f, folded); err != nil {
			return nil, err
		}
		data, err := readEntry(f, MaxTotalBytes-total)
		if err != nil {
			return nil, err
		}
		total += int64(len(data))
		files[f.Name] = data
	}
	m, err := decodeManifest(files[ManifestName])
	if err != nil {
		return nil, err
	}
	if err := verify(m, files); err != nil {
		return nil, err
	}
	return &Bundle{manifest: m, files: files}, nil
}

// checkEntry refuses a member whose name, mode or method a bundle never has;
// folded holds the names seen, in lower case.
func checkEntry(f *zip.File, folded map[string]string) error {
	if err := checkName(f.Name); err != nil {
		return err
	}
	if other, dup := folded[strings.ToLower(f.Name)]; dup {
		return fmt.Errorf("%s: the archive holds the name twice (also as %s): refused", f.Name, other)
	}
	folded[strings.ToLower(f.Name)] = f.Name
	if m := f.Mode(); !m.IsRegular() {
		return fmt.Errorf("%s: a %s, not a regular file: a bundle holds only files; refused", f.Name, modeKind(m))
	}
	if f.Flags&0x1 != 0 {
		return fmt.Errorf("%s: encrypted: a bundle is never encrypted; refused", f.Name)
	}
	if f.Method != zip.Store && f.Method != zip.Deflate {
		return fmt.Errorf("%s: compression method %d: a bundle uses store or deflate only; refused", f.Name, f.Method)
	}
	if f.UncompressedSize64 > MaxMemberBytes {
		return fmt.Errorf("%s: %d bytes, more than a member may hold (%d): refused", f.Name, f.UncompressedSize64, MaxMemberBytes)
	}
	return nil
}

// checkName accepts the names a bundle may hold: bundle.json, README.md,
// prices.yaml and clean relative paths under data/.
func checkName(name string) error {
	switch {
	case len(name) > MaxNameBytes:
		return fmt.Errorf("a member name of %d bytes (at most %d): refused", len(name), MaxNameBytes)
	case name == ManifestName || name == ReadmeName || name == PricesName:
		return nil
	case strings.ContainsAny(name, "\\\x00:"):
		return fmt.Errorf("%q: a member name with a backslash, NUL or colon: refused", name)
	case !fs.ValidPath(name) || path.IsAbs(name):
		return fmt.Errorf("%q: not a clean relative path (absolute, \"..\", \".\" or an empty element): refused", name)
	case !strings.HasPrefix(name, DataDir+"/"):
		return fmt.Errorf("%q: outside %s/ and not a known member (%s, %s, %s): refused", name, DataDir, ManifestName, ReadmeName, PricesName)
	}
	return nil
}

// readEntry reads one member through a limit: at most MaxMemberBytes and
// room bytes, whatever its header claims.
func readEntry(f *zip.File, room int64) ([]byte, error) {
	limit := min(int64(MaxMemberBytes), room)
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: unreadable (%v): the bundle is damaged", f.Name, err)
	}
	if int64(len(data)) > limit {
		if limit < MaxMemberBytes {
			return nil, fmt.Errorf("%s: the members hold more than a bundle may (%d bytes): refused", f.Name, MaxTotalBytes)
		}
		return nil, fmt.Errorf("%s: decompresses to more than a member may hold (%d bytes): refused", f.Name, MaxMemberBytes)
	}
	return data, nil
}

// decodeManifest reads bundle.json and checks its schema.
func decodeManifest(data []byte) (*Manifest, error) {
	if data == nil {
		return nil, fmt.Errorf("not a fairbench bundle: the archive has no %s; give a file written by fairbench bundle create", ManifestName)
	}
	if len(data) > MaxManifestBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than a manifest may hold (%d): refused", ManifestName, len(data), MaxManifestBytes)
	}
	var head struct {
		Schema string `json:"schema"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("%s: not JSON (%v): the bundle is damaged", ManifestName, err)
	}
	if err := checkSchema(head.Schema); err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %v: the bundle is damaged", ManifestName, err)
	}
	return &m, nil
}

// verify checks that files are exactly the members m lists, each with its
// recorded size and hash, and the whole hash.
func verify(m *Manifest, files map[string][]byte) error {
	listed := map[string]bool{ManifestName: true}
	for _, mb := range m.Members {
		if mb.Name == ManifestName || listed[mb.Name] {
			return fmt.Errorf("%s: lists %s twice: the bundle is damaged", ManifestName, mb.Name)
		}
		if err := checkName(mb.Name); err != nil {
			return fmt.Errorf("%s: %w", ManifestName, err)
		}
		listed[mb.Name] = true
		data, ok := files[mb.Name]
		if !ok {
			return fmt.Errorf("%s: member missing (recorded in %s, not in the archive): the bundle was changed", mb.Name, ManifestName)
		}
		if got := hashOf(data); got != mb.SHA256 || int64(len(data)) != mb.Size {
			return fmt.Errorf("%s: content changed (sha256 %s recorded, %s now; %d bytes recorded, %d now): the bundle was changed", mb.Name, short(mb.SHA256), short(got), mb.Size, len(data))
		}
	}
	var added []string
	for name := range files {
		if !listed[name] {
			added = append(added, name)
		}
	}
	if len(added) > 0 {
		slices.Sort(added)
		return fmt.Errorf("%s: member added (not recorded in %s): the bundle was changed", strings.Join(added, ", "), ManifestName)
	}
	if got := WholeHash(m.Members); got != m.SHA256 {
		return fmt.Errorf("%s: the whole hash changed (sha256 %s recorded, %s of the members now): the bundle was changed", ManifestName, short(m.SHA256), short(got))
	}
	return nil
}

// short abbreviates a hex hash for messages.
func short(h string) string {
	if len(h) > 16 {
		return h[:16] + "…"
	}
	return h
}

func modeKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m.IsDir():
		return "directory"
	}
	return "special file (" + m.Type().String() + ")"
}

// Path is the file the bundle was opened from ("" from Read).
func (b *Bundle) Path() string { return b.path }

// Manifest is the bundle's bundle.json.
func (b *Bundle) Manifest() *Manifest { return b.manifest }

// FS is the data/ tree as a file system: a suite bundle's manifest.json and
// result files where the suite directory had them, or the bundled result
// files. Loaders read it as they read a directory (os.DirFS).
func (b *Bundle) FS() fs.FS {
	if b.fsys != nil {
		return b.fsys
	}
	m := fstest.MapFS{}
	for name, data := range b.files {
		if rel, ok := strings.CutPrefix(name, DataDir+"/"); ok {
			m[rel] = &fstest.MapFile{Data: data, Mode: 0o444}
		}
	}
	b.fsys = m
	return m
}

// Prices is the bundled price sheet (prices.yaml), if one was given.
func (b *Bundle) Prices() ([]byte, bool) {
	data, ok := b.files[PricesName]
	return data, ok
}

// Readme is the bundle's README.md.
func (b *Bundle) Readme() []byte { return b.files[ReadmeName] }

// IsBundle reports whether path is a bundle by its content: a zip archive
// (its magic number) that holds bundle.json. It does not verify it (Open
// does).
func IsBundle(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	magic := make([]byte, 4)
	if _, err := io.ReadFull(f, magic); err != nil || !bytes.Equal(magic, []byte("PK\x03\x04")) {
		return false
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	zr, err := zip.NewReader(f, st.Size())
	if err != nil {
		return false
	}
	return slices.ContainsFunc(zr.File, func(f *zip.File) bool { return f.Name == ManifestName })
}
