package analysis

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/record/bundle"
	"github.com/fairbench/fairbench/internal/record/result"
)

// writeBundle bundles a suite directory, or the result files of a
// directory, into dir/name.
func writeBundle(t *testing.T, name string, opts bundle.CreateOptions) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := bundle.Create(f, opts); err != nil {
		t.Fatal(err)
	}
	return p
}

// A bundle loads as the directory it was made of: the same samples, keys
// and rounds; its name is the bundle's and its files are named inside it.
func TestLoadBundleAsItsDirectory(t *testing.T) {
	x86 := filepath.Join("testdata", "cpusweep", "x86")
	files, err := filepath.Glob(filepath.Join(x86, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("fixtures: %v %v", files, err)
	}
	for _, tc := range []struct {
		name, dir string
		opts      bundle.CreateOptions
	}{
		{"suite", filepath.Join("testdata", "scaling", "threads"), bundle.CreateOptions{Suite: filepath.Join("testdata", "scaling", "threads")}},
		{"results", x86, bundle.CreateOptions{Results: files}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeBundle(t, "shared.fbz", tc.opts)
			want, err := Load(tc.dir, "")
			if err != nil {
				t.Fatal(err)
			}
			got, err := Load(p, "")
			if err != nil {
				t.Fatal(err)
			}
			if got.Name != "shared" || got.Source != p {
				t.Errorf("name %q source %q, want shared and %s", got.Name, got.Source, p)
			}
			// The client machine's host name is redacted in the bundle.
			if g, w := got.ServerSettings[diffClient], want.ServerSettings[diffClient]; g == w || !strings.HasPrefix(g, "host-") {
				t.Errorf("client machine %q in the bundle, %q in the directory: want its host name redacted", g, w)
			}
			delete(got.ServerSettings, diffClient)
			delete(want.ServerSettings, diffClient)
			if len(got.Samples) != len(want.Samples) || got.Label != want.Label || !reflect.DeepEqual(got.ServerSettings, want.ServerSettings) {
				t.Fatalf("%d samples labelled %q, want %d labelled %q", len(got.Samples), got.Label, len(want.Samples), want.Label)
			}
			read := ResultReader()
			for i, w := range want.Samples {
				g := got.Samples[i]
				if !strings.HasPrefix(g.File, p+string(filepath.Separator)) {
					t.Errorf("sample file %q is not named inside the bundle", g.File)
				}
				if res, err := read(g.File); err != nil || res.Totals.TPS != g.TPS {
					t.Errorf("reading %s back: %v", g.File, err)
				}
				g.File, w.File = "", ""
				if !reflect.DeepEqual(g, w) {
					t.Errorf("sample %d differs:\n got %+v\nwant %+v", i, g, w)
				}
			}
		})
	}
}

// Redaction keeps machines apart: a result of a machine like the others but
// for its host name is still another machine once bundled, as it is in its
// file; and the others remain one machine.
func TestBundleRedactionKeepsMachinesApart(t *testing.T) {
	x86, err := filepath.Glob(filepath.Join("testdata", "cpusweep", "x86", "*.json"))
	if err != nil || len(x86) == 0 {
		t.Fatal(err)
	}
	res, err := result.Read(x86[0])
	if err != nil {
		t.Fatal(err)
	}
	res.Machine.Hostname = "twin-db"
	for i := range res.ServerMachines {
		res.ServerMachines[i].Hostname = "twin-db"
	}
	twin := filepath.Join(t.TempDir(), "twin.json")
	if err := result.Write(twin, res); err != nil {
		t.Fatal(err)
	}
	p := writeBundle(t, "mixed.fbz", bundle.CreateOptions{Results: append(x86, twin)})
	if _, err := Load(p, ""); err == nil || !strings.Contains(err.Error(), "come from two machines") {
		t.Fatalf("Load of two machines' results = %v, want them refused as two machines", err)
	}
	if _, err := Load(writeBundle(t, "one.fbz", bundle.CreateOptions{Results: x86}), ""); err != nil {
		t.Fatalf("one machine's results: %v", err)
	}
}
