package bundle

import (
	"archive/zip"
	"bytes"
	"io/fs"
	"testing"

	"github.com/fairbench/fairbench/internal/record/suitedir"
)

// FuzzOpen reads arbitrary bytes as a bundle: Read never panics, and what it
// accepts is whole (every member listed, its hash as recorded, the whole hash
// right) with a data tree that can be walked.
func FuzzOpen(f *testing.F) {
	dir := f.TempDir()
	writeSuiteTB(f, dir, suitedir.StatusComplete)
	var good bytes.Buffer
	if _, err := Create(&good, CreateOptions{Suite: dir, Prices: []byte("systems: []\n")}); err != nil {
		f.Fatal(err)
	}
	f.Add(good.Bytes())
	var small bytes.Buffer
	zw := zip.NewWriter(&small)
	w, _ := zw.Create(ManifestName)
	_, _ = w.Write([]byte(`{"schema":"1.0","members":[],"sha256":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}`))
	_ = zw.Close()
	f.Add(small.Bytes())
	f.Add([]byte("PK\x03\x04"))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := Read(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		m := b.Manifest()
		if m == nil || WholeHash(m.Members) != m.SHA256 {
			t.Fatalf("accepted a bundle whose whole hash does not match: %+v", m)
		}
		for _, mb := range m.Members {
			if got := hashOf(b.files[mb.Name]); got != mb.SHA256 {
				t.Fatalf("%s: accepted with hash %s, recorded %s", mb.Name, got, mb.SHA256)
			}
		}
		if err := fs.WalkDir(b.FS(), ".", func(string, fs.DirEntry, error) error { return nil }); err != nil {
			t.Fatalf("the data tree does not walk: %v", err)
		}
	})
}
