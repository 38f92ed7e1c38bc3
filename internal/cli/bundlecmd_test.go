package cli

import (
	"archive/zip"
	"bytes"
	"context"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/record/bundle"
	"github.com/fairbench/fairbench/internal/record/suitedir"
)

// bundleOf writes a bundle of dir and returns its path.
func bundleOf(t *testing.T, dir, name string, extra ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), name)
	r := runCLI(context.Background(), nil, append([]string{"bundle", "create", dir, "-o", out}, extra...)...)
	if r.code != ExitOK || !strings.Contains(r.stdout, "wrote "+out) {
		t.Fatalf("bundle create %s: %d\n%s%s", dir, r.code, r.stdout, r.stderr)
	}
	return out
}

// placeholderOf is the name a bundle gives the client machine of its suite.
func placeholderOf(t *testing.T, path string) string {
	t.Helper()
	b, err := bundle.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	data, err := fs.ReadFile(b.FS(), suitedir.ManifestName)
	if err != nil {
		t.Fatal(err)
	}
	m, err := suitedir.ParseManifest(data, path)
	if err != nil {
		t.Fatal(err)
	}
	return m.Machine.Hostname
}

// A suite run here, bundled, reads as the directory did: compare, report and
// cost of the bundles say what they say of the directories, the sources and
// the redacted host name aside.
func TestBundleRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b := twoSuites(t)
	prices := filepath.Join("..", "..", "prices", "mysqlonarm-cpm-2020.yaml")
	// Named as the directories are, so that the systems' names are theirs.
	fa, fb := bundleOf(t, a, filepath.Base(a)+".fbz", "--prices", prices), bundleOf(t, b, filepath.Base(b)+".fbz")

	v := runCLI(ctx, nil, "bundle", "verify", fa)
	if v.code != ExitOK || !strings.HasSuffix(v.stdout, "ok\n") || !strings.Contains(v.stdout, "data/manifest.json") ||
		!strings.Contains(v.stdout, "prices.yaml") || !strings.Contains(v.stdout, "result schemas: ") {
		t.Fatalf("bundle verify: %d\n%s%s", v.code, v.stdout, v.stderr)
	}
	host, _ := suitedir.ReadManifest(a)
	norm := func(s, dir, fbz string) string {
		s = strings.ReplaceAll(s, dir, fbz)
		if h := host.Machine.Hostname; h != "" {
			p := placeholderOf(t, fbz)
			s = strings.ReplaceAll(s, "machine "+h+" (", "machine "+p+" (")
			s = strings.ReplaceAll(s, `"hostname": "`+h+`"`, `"hostname": "`+p+`"`)
		}
		return s
	}
	costArgs := []string{"--prices", prices, "--system", "arm=huawei-arm", "--system", "x86=huawei-x86"}
	for _, args := range [][]string{
		{"compare"},
		{"compare", "--format", "json"},
		{"report", "--format", "md"},
		{"report", "--format", "html"},
		append([]string{"cost"}, costArgs...),
	} {
		dirs := runCLI(ctx, nil, append(args, "arm="+a, "x86="+b)...)
		fbzs := runCLI(ctx, nil, append(args, "arm="+fa, "x86="+fb)...)
		if dirs.code != ExitOK || fbzs.code != ExitOK {
			t.Fatalf("%v: directories %d, bundles %d\n%s%s", args, dirs.code, fbzs.code, dirs.stderr, fbzs.stderr)
		}
		want := norm(norm(dirs.stdout, a, fa), b, fb)
		if want != fbzs.stdout {
			t.Errorf("%v of the bundles differs from the directories':\n%s", args, firstDiff(want, fbzs.stdout))
		}
	}
	// The bundled price sheet serves as --prices.
	withSheet := runCLI(ctx, nil, "cost", "--prices", fa, "--system", "arm=huawei-arm", "--system", "x86=huawei-x86", "arm="+fa, "x86="+fb)
	sheet := runCLI(ctx, nil, append(append([]string{"cost"}, costArgs...), "arm="+fa, "x86="+fb)...)
	if withSheet.code != ExitOK || withSheet.stdout != strings.Replace(sheet.stdout, prices, fa+"/prices.yaml", -1) && withSheet.stdout != sheet.stdout {
		t.Errorf("cost --prices BUNDLE: %d %s\n%s", withSheet.code, withSheet.stderr, firstDiff(sheet.stdout, withSheet.stdout))
	}
	if r := runCLI(ctx, nil, "cost", "--prices", fb, "arm="+fb); r.code == ExitOK || !strings.Contains(r.stderr, "holds no price sheet") {
		t.Errorf("cost --prices with a bundle without one: %d %s", r.code, r.stderr)
	}
	html := runCLI(ctx, nil, "report", "--format", "html", fa)
	if !strings.Contains(html.stdout, `-series"`) {
		t.Errorf("the report of a bundle has no time series (its result files were not read back)")
	}
}

// firstDiff shows where two texts part.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return "want: " + al[i] + "\n got: " + bl[i]
		}
	}
	return "one is longer"
}

// Every command refuses a bundle with one byte of one member changed (the
// zip's CRC recomputed, so only the bundle's hashes can tell), naming it.
func TestTamperedBundleRefusedByEveryCommand(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _ := twoSuites(t)
	good := bundleOf(t, a, "arm.fbz")
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var victim string
	for _, f := range zr.File {
		if strings.HasPrefix(f.Name, "data/0") {
			victim = f.Name
			break
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.fbz")
	if err := os.WriteFile(bad, flipByte(t, zr, victim), 0o644); err != nil {
		t.Fatal(err)
	}
	prices := filepath.Join("..", "..", "prices", "mysqlonarm-cpm-2020.yaml")
	for _, args := range [][]string{
		{"bundle", "verify", bad},
		{"compare", bad},
		{"report", "--format", "md", bad},
		{"cost", "--prices", prices, "--system", "arm=huawei-arm", "arm=" + bad},
		{"rerun", bad},
		{"site", bad, "-o", filepath.Join(t.TempDir(), "site")},
	} {
		r := runCLI(ctx, nil, args...)
		if r.code == ExitOK || !strings.Contains(r.stderr, victim+": content changed") {
			t.Errorf("%v: %d, want refused naming %s:\n%s", args, r.code, victim, r.stderr)
		}
	}
	// A .fbz cut short is no zip, and says so, rather than "not a result".
	cut := filepath.Join(t.TempDir(), "cut.fbz")
	if err := os.WriteFile(cut, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runCLI(ctx, nil, "compare", cut); r.code == ExitOK || !strings.Contains(r.stderr, "not a zip archive") {
		t.Errorf("compare of a cut bundle: %d %s", r.code, r.stderr)
	}
}

// flipByte rewrites the archive with one byte of member name changed.
func flipByte(t *testing.T, zr *zip.Reader, name string) []byte {
	t.Helper()
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if f.Name == name {
			body[len(body)/2] ^= 0x20
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f.Name, Method: zip.Deflate, CRC32: crc32.ChecksumIEEE(body)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func TestBundleCreateRefuses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _ := twoSuites(t)
	dir := t.TempDir()
	exists := filepath.Join(dir, "exists.fbz")
	if err := os.WriteFile(exists, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain")
	running := filepath.Join(dir, "running")
	for _, d := range []string{plain, running} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	m, err := suitedir.ReadManifest(a)
	if err != nil {
		t.Fatal(err)
	}
	m.Status = suitedir.StatusRunning
	if err := m.Write(running); err != nil {
		t.Fatal(err)
	}
	for _, c := range m.Cells {
		data, err := os.ReadFile(filepath.Join(a, c.File))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(running, c.File), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := filepath.Join(dir, "old.json")
	if err := os.WriteFile(old, []byte(`{"schema":"0.3","workload":"oltp_read_write"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "new.fbz")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no output", []string{a}, ExitUsage, "-o NAME.fbz"},
		{"exists", []string{a, "-o", exists}, ExitUsage, "exists: give --force"},
		{"unwritable", []string{a, "-o", filepath.Join(exists, "x.fbz")}, ExitUsage, "cannot write"},
		{"missing", []string{filepath.Join(dir, "nothing"), "-o", out}, ExitUsage, "no such file or directory"},
		{"plain directory", []string{plain, "-o", out}, ExitUsage, "not a suite directory"},
		{"running suite", []string{running, "-o", out}, ExitFailed, "is running"},
		{"old schema", []string{old, "-o", out}, ExitFailed, "result schema 0.3 is older than this fairbench reads"},
		{"verify a non-bundle", nil, ExitFailed, "not a zip archive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"bundle", "create"}, tc.args...)
			if tc.args == nil {
				args = []string{"bundle", "verify", exists}
			}
			r := runCLI(ctx, nil, args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
				t.Fatalf("%v: %d %s, want %d %q", args, r.code, r.stderr, tc.code, tc.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Fatalf("%s was written", out)
			}
		})
	}
	if r := runCLI(ctx, nil, "bundle", "create", a, "-o", exists, "--force"); r.code != ExitOK || !bundle.IsBundle(exists) {
		t.Errorf("--force: %d %s", r.code, r.stderr)
	}
	if r := runCLI(ctx, nil, "bundle", "create", running, "-o", out, "--allow-incomplete"); r.code != ExitOK || !strings.Contains(r.stdout, "bundled incomplete") {
		t.Errorf("--allow-incomplete: %d %s%s", r.code, r.stdout, r.stderr)
	}
}
