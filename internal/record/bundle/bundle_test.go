package bundle

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/json"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/record/suitedir"
)

// The secrets and names the fixture carries; none may appear in a bundle.
const (
	password   = "hunter2Secret"
	token      = "tok3nValue"
	clientHost = "alice-laptop.corp.example"
	dbHost     = "db7.corp.example"
	otherHost  = "db9.corp.example"
	dbIP       = "10.1.2.3"
	agentIP    = "192.168.44.5"
	v6         = "fe80::1234:5678:9abc"
	userName   = "alicebench"
	urlUser    = "bobagent"
)

var leaks = []string{password, token, clientHost, dbHost, otherHost, dbIP, agentIP, v6, userName, urlUser, "alice-laptop"}

// secretResult is a complete result whose command line, options, target,
// machines, warnings and settings carry every leak.
func secretResult(threads, round int, host, serverHost string) *result.Result {
	return &result.Result{
		Schema: result.SchemaVersion, Tool: result.Tool{Name: "fairbench", Version: "test"},
		CommandLine: []string{"fairbench", "run", "oltp_read_only", "--mysql-host=" + serverHost, "--mysql-user", userName,
			"--mysql-password", password, "--server-agent=http://" + urlUser + ":" + token + "@" + agentIP + ":9901",
			"--session-var=wsrep_provider_options=gmcast.listen_addr=tcp://" + dbIP + ":4567"},
		Workload: "oltp_read_only",
		Options: map[string]string{"mysql-host": serverHost, "mysql-user": userName, "mysql-password": password,
			"dsn": userName + ":" + password + "@tcp(" + serverHost + ":3306)/sbtest", "rand-type": "uniform", "tables": "1", "table-size": "1000",
			"note": "PGPASSWORD=" + password + " token: " + token},
		Target:  result.Target{Driver: "mysql", Hosts: []string{serverHost}, Ports: []int{3306}, Database: "sbtest", PSMode: "prepared"},
		Machine: result.Machine{Arch: "amd64", CPUModel: "Test CPU", LogicalCPUs: 8, Hostname: host},
		Server: result.Server{Flavor: "MariaDB", Version: "10.11.6-MariaDB",
			Variables: map[string]string{"wsrep_node_address": v6, "bind_address": dbIP, "report_host": serverHost}},
		ServerMachines: []result.ServerMachine{{Machine: result.Machine{Arch: "amd64", CPUModel: "Server CPU", LogicalCPUs: 16, Hostname: serverHost},
			Role: result.RoleServer, Source: result.ServerSourceAgent, Agent: "http://" + agentIP + ":9901"}},
		Status:   result.StatusComplete,
		Warnings: []string{"the server " + serverHost + " (" + dbIP + ") answered slowly; home /home/" + userName + "/x"},
		Threads:  threads,
		Suite:    &result.SuiteCell{Round: round},
		Totals:   result.Phase{Seconds: 10, TPS: float64(100 * threads), QPS: float64(1000 * threads), Latency: result.Latency{Percentiles: map[string]float64{"95": 1.5}}},
	}
}

// writeSuite writes a suite directory of four complete cells with status.
func writeSuite(t *testing.T, dir string, status string) { writeSuiteTB(t, dir, status) }

func writeSuiteTB(t testing.TB, dir string, status string) {
	t.Helper()
	m := &suitedir.Manifest{Schema: suitedir.ManifestSchema, Tool: result.Tool{Name: "fairbench", Version: "test"},
		Plan: suitedir.PlanRecord{Name: "secrets", File: "/home/" + userName + "/plans/p.yaml",
			Text: "target:\n  driver: mysql\n  host: " + dbHost + "\n  user: " + userName + "\n  password_env: DB_PW\n# password: " + password + "\n"},
		Status: status, Machine: result.Machine{Arch: "amd64", Hostname: clientHost}}
	i := 0
	for _, threads := range []int{1, 2} {
		for round := 1; round <= 2; round++ {
			i++
			c := suitedir.Cell{Index: i, ID: "uniform/r" + string(rune('0'+round)) + "/oltp_read_only/t" + string(rune('0'+threads)),
				Workload: "oltp_read_only", RandType: "uniform", Data: "1x1000", Threads: threads, Round: round}
			res := secretResult(threads, round, clientHost, dbHost)
			if err := result.Write(filepath.Join(dir, c.FileName()), res); err != nil {
				t.Fatal(err)
			}
			m.Cells = append(m.Cells, suitedir.CellRecord{Cell: c, Status: suitedir.StatusComplete, File: c.FileName(), Summary: suitedir.Summarize(res)})
		}
	}
	if err := m.Write(dir); err != nil {
		t.Fatal(err)
	}
}

func create(t *testing.T, opts CreateOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := Create(&buf, opts); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func read(t *testing.T, data []byte) *Bundle {
	t.Helper()
	b, err := Read(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRedactionLeavesNoSecretInAnyMember(t *testing.T) {
	dir := t.TempDir()
	writeSuite(t, dir, suitedir.StatusComplete)
	prices := []byte("source: https://" + urlUser + ":" + password + "@prices.example/x\nsystems: []\n")
	data := create(t, CreateOptions{Suite: dir, Prices: prices, Tool: result.Tool{Name: "fairbench", Version: "test"}})
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if len(zr.File) < 7 {
		t.Fatalf("%d members, want bundle.json, README.md, prices.yaml, manifest.json and 4 results", len(zr.File))
	}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(rc)
		rc.Close()
		for _, leak := range leaks {
			if bytes.Contains(body, []byte(leak)) {
				t.Errorf("%s holds %q", f.Name, leak)
			}
		}
	}
	b := read(t, data)
	m := b.Manifest()
	for _, kind := range []string{RedactedHost, RedactedIP, RedactedUser, RedactedSecret} {
		if m.Redacted[kind] == 0 {
			t.Errorf("redacted %v: no %s counted", m.Redacted, kind)
		}
	}
	if !strings.Contains(m.Plan, "host: host-") || !strings.Contains(m.Plan, "password_env: DB_PW") {
		t.Errorf("plan text %q: want the host replaced and the environment variable's name kept", m.Plan)
	}
}

func TestRedactionKeepsMachinesApart(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	c := filepath.Join(dir, "c.json")
	must(t, result.Write(a, secretResult(1, 1, clientHost, dbHost)))
	must(t, result.Write(b, secretResult(2, 1, clientHost, dbHost)))
	must(t, result.Write(c, secretResult(1, 1, "other-client", otherHost)))
	bd := read(t, create(t, CreateOptions{Results: []string{a, b, c}}))
	res := map[string]*result.Result{}
	for _, name := range []string{"a.json", "b.json", "c.json"} {
		f, err := bd.FS().Open(name)
		must(t, err)
		r, err := result.Decode(f)
		must(t, err)
		res[name] = r
	}
	ra, rb, rc := res["a.json"], res["b.json"], res["c.json"]
	if ra.Machine.Hostname != rb.Machine.Hostname || ra.ServerMachines[0].Hostname != rb.ServerMachines[0].Hostname || ra.Target.Hosts[0] != rb.Target.Hosts[0] {
		t.Errorf("one machine split: %q/%q, %q/%q", ra.Machine.Hostname, rb.Machine.Hostname, ra.ServerMachines[0].Hostname, rb.ServerMachines[0].Hostname)
	}
	if ra.Machine.Hostname == rc.Machine.Hostname || ra.ServerMachines[0].Hostname == rc.ServerMachines[0].Hostname {
		t.Errorf("two machines merged: %q and %q", ra.ServerMachines[0].Hostname, rc.ServerMachines[0].Hostname)
	}
	if !strings.HasPrefix(ra.Machine.Hostname, "host-") || ra.Target.Hosts[0] != ra.ServerMachines[0].Hostname {
		t.Errorf("client %q, target %q, server %q: want placeholders, the server's the same in target and machine", ra.Machine.Hostname, ra.Target.Hosts[0], ra.ServerMachines[0].Hostname)
	}
	if got := bd.Manifest().Runs; len(got) != 3 || len(got[0].CommandLine) == 0 {
		t.Errorf("runs %+v: want three with command lines", got)
	}
}

func TestKeepHostsAndLoopback(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.json")
	res := secretResult(1, 1, clientHost, dbHost)
	res.Target.Hosts = []string{"127.0.0.1"}
	must(t, result.Write(p, res))
	for _, keep := range []bool{false, true} {
		bd := read(t, create(t, CreateOptions{Results: []string{p}, KeepHosts: keep}))
		body, err := readFS(bd, "r.json")
		must(t, err)
		if !strings.Contains(body, `"127.0.0.1"`) {
			t.Errorf("keep=%v: the loopback target was replaced", keep)
		}
		if got := strings.Contains(body, clientHost) && strings.Contains(body, dbIP); got != keep {
			t.Errorf("keep=%v: host names and addresses kept = %v", keep, got)
		}
		if strings.Contains(body, password) || strings.Contains(body, userName) {
			t.Errorf("keep=%v: a password or user name is left", keep)
		}
	}
}

func readFS(b *Bundle, name string) (string, error) {
	f, err := b.FS().Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	body, err := io.ReadAll(f)
	return string(body), err
}

func TestCreateRefuses(t *testing.T) {
	dir := t.TempDir()
	running := filepath.Join(dir, "running")
	must(t, os.Mkdir(running, 0o755))
	writeSuite(t, running, suitedir.StatusRunning)
	old := filepath.Join(dir, "old.json")
	must(t, os.WriteFile(old, []byte(`{"schema":"0.9","workload":"x"}`), 0o644))
	failed := filepath.Join(dir, "failed.json")
	res := secretResult(1, 1, clientHost, dbHost)
	res.Status = result.StatusFailed
	must(t, result.Write(failed, res))
	for _, tc := range []struct {
		name string
		opts CreateOptions
		want string
	}{
		{"running suite", CreateOptions{Suite: running}, "is running"},
		{"old schema", CreateOptions{Results: []string{old}}, "result schema 0.9 is older"},
		{"failed result", CreateOptions{Results: []string{failed}}, "the run is failed"},
		{"nothing", CreateOptions{}, "give one suite directory or result files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Create(io.Discard, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	var buf bytes.Buffer
	if _, err := Create(&buf, CreateOptions{Suite: running, AllowIncomplete: true}); err != nil {
		t.Fatal(err)
	}
	if s := read(t, buf.Bytes()).Manifest().Suite; s == nil || !s.Incomplete {
		t.Errorf("suite %+v: want it marked incomplete", s)
	}
}

// rewrite copies a bundle, passing each member's name and content through
// change, with the zip's own CRCs recomputed (so only the bundle's hashes
// can tell).
func rewrite(t *testing.T, data []byte, change func(name string, body []byte) (string, []byte)) []byte {
	return rewriteAdding(t, data, change, nil)
}

// rewriteAdding is rewrite that adds the members of extra at the end.
func rewriteAdding(t *testing.T, data []byte, change func(name string, body []byte) (string, []byte), extra map[string][]byte) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	must(t, err)
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, f := range zr.File {
		rc, err := f.Open()
		must(t, err)
		body, err := io.ReadAll(rc)
		must(t, err)
		name, body := change(f.Name, body)
		if body == nil {
			continue
		}
		h := &zip.FileHeader{Name: name, Method: zip.Deflate, CRC32: crc32.ChecksumIEEE(body)}
		w, err := zw.CreateHeader(h)
		must(t, err)
		_, err = w.Write(body)
		must(t, err)
	}
	for name, body := range extra {
		writeMember(t, zw, &zip.FileHeader{Name: name}, body)
	}
	must(t, zw.Close())
	return out.Bytes()
}

func TestTamperingIsRefusedNamingTheMember(t *testing.T) {
	dir := t.TempDir()
	writeSuite(t, dir, suitedir.StatusComplete)
	data := create(t, CreateOptions{Suite: dir, Prices: []byte("systems: []\n")})
	for _, mb := range read(t, data).Manifest().Members {
		t.Run(mb.Name, func(t *testing.T) {
			bad := rewrite(t, data, func(name string, body []byte) (string, []byte) {
				if name == mb.Name {
					body = append([]byte(nil), body...)
					body[len(body)/2] ^= 0x01
				}
				return name, body
			})
			_, err := Read(bytes.NewReader(bad), int64(len(bad)))
			if err == nil || !strings.Contains(err.Error(), mb.Name+": content changed") {
				t.Fatalf("err = %v, want %s named as changed", err, mb.Name)
			}
		})
	}
	for _, tc := range []struct {
		name   string
		change func(string, []byte) (string, []byte)
		want   string
	}{
		{"missing", func(n string, b []byte) (string, []byte) {
			if n == ReadmeName {
				return n, nil
			}
			return n, b
		}, "README.md: member missing"},
		{"added", nil, "data/extra.json: member added"},
		{"whole hash", func(n string, b []byte) (string, []byte) {
			if n == ManifestName {
				var m Manifest
				must(t, json.Unmarshal(b, &m))
				m.SHA256 = strings.Repeat("0", 64)
				b, _ = json.Marshal(m)
			}
			return n, b
		}, "whole hash changed"},
		{"newer schema", func(n string, b []byte) (string, []byte) {
			if n == ManifestName {
				b = bytes.Replace(b, []byte(`"schema": "`+Schema+`"`), []byte(`"schema": "2.0"`), 1)
			}
			return n, b
		}, "bundle schema 2.0 is newer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var bad []byte
			if tc.change != nil {
				bad = rewrite(t, data, tc.change)
			} else {
				bad = rewriteAdding(t, data, func(n string, b []byte) (string, []byte) { return n, b }, map[string][]byte{DataDir + "/extra.json": []byte("{}")})
			}
			_, err := Read(bytes.NewReader(bad), int64(len(bad)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestHostileArchives(t *testing.T) {
	good := func(w *zip.Writer) {
		writeMember(t, w, &zip.FileHeader{Name: ManifestName}, []byte(`{"schema":"1.0"}`))
	}
	link := &zip.FileHeader{Name: DataDir + "/link.json"}
	link.SetMode(os.ModeSymlink | 0o777)
	dir := &zip.FileHeader{Name: DataDir + "/sub/"}
	dir.SetMode(os.ModeDir | 0o755)
	for _, tc := range []struct {
		name  string
		build func(w *zip.Writer)
		want  string
	}{
		{"not zip", nil, "not a zip archive"},
		{"no manifest", func(w *zip.Writer) { writeMember(t, w, &zip.FileHeader{Name: DataDir + "/a.json"}, []byte("{}")) }, "has no bundle.json"},
		{"absolute", func(w *zip.Writer) { writeMember(t, w, &zip.FileHeader{Name: "/etc/passwd"}, nil) }, "not a clean relative path"},
		{"dot dot", func(w *zip.Writer) { writeMember(t, w, &zip.FileHeader{Name: DataDir + "/../../x"}, nil) }, "not a clean relative path"},
		{"backslash", func(w *zip.Writer) { writeMember(t, w, &zip.FileHeader{Name: DataDir + `\..\x`}, nil) }, "backslash"},
		{"outside data", func(w *zip.Writer) { writeMember(t, w, &zip.FileHeader{Name: "other.txt"}, nil) }, "outside data/"},
		{"symlink", func(w *zip.Writer) { writeMember(t, w, link, []byte("/etc/passwd")) }, "symbolic link"},
		{"directory", func(w *zip.Writer) { writeMember(t, w, dir, nil) }, "not a clean relative path"},
		{"duplicate", func(w *zip.Writer) { good(w); good(w) }, "holds the name twice"},
		{"case duplicate", func(w *zip.Writer) {
			writeMember(t, w, &zip.FileHeader{Name: DataDir + "/A.json"}, nil)
			writeMember(t, w, &zip.FileHeader{Name: DataDir + "/a.json"}, nil)
		}, "holds the name twice"},
		{"method", func(w *zip.Writer) {
			w.RegisterCompressor(99, func(out io.Writer) (io.WriteCloser, error) { return nopCloser{out}, nil })
			writeMember(t, w, &zip.FileHeader{Name: ManifestName, Method: 99}, []byte("{}"))
		}, "compression method 99"},
		{"encrypted", func(w *zip.Writer) { writeMember(t, w, &zip.FileHeader{Name: ManifestName, Flags: 0x1}, []byte("{}")) }, "encrypted"},
		{"bomb", func(w *zip.Writer) {
			writeMember(t, w, &zip.FileHeader{Name: DataDir + "/bomb.json", Method: zip.Deflate}, make([]byte, MaxMemberBytes+1))
		}, "more than a member may hold"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if tc.build == nil {
				buf.WriteString("PK\x03\x04 not really")
			} else {
				zw := zip.NewWriter(&buf)
				tc.build(zw)
				must(t, zw.Close())
			}
			_, err := Read(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// A bomb whose header lies about its size is caught on the bytes read.
func TestLyingSizeIsCaught(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	body := make([]byte, MaxMemberBytes+10)
	h := &zip.FileHeader{Name: DataDir + "/lie.json", Method: zip.Deflate, CRC32: crc32.ChecksumIEEE(body), UncompressedSize64: 10}
	w, err := zw.CreateRaw(h)
	must(t, err)
	var comp bytes.Buffer
	cw, err := flate.NewWriter(&comp, flate.BestSpeed)
	must(t, err)
	_, _ = cw.Write(body)
	must(t, cw.Close())
	h.CompressedSize64 = uint64(comp.Len())
	_, err = w.Write(comp.Bytes())
	must(t, err)
	must(t, zw.Close())
	_, err = Read(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err == nil {
		t.Fatal("a member that decompresses beyond its claimed size was read")
	}
}

func TestIsBundle(t *testing.T) {
	dir := t.TempDir()
	writeSuite(t, dir, suitedir.StatusComplete)
	p := filepath.Join(t.TempDir(), "x.data")
	must(t, os.WriteFile(p, create(t, CreateOptions{Suite: dir}), 0o644))
	if !IsBundle(p) {
		t.Error("a bundle without the .fbz extension is not recognized")
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	writeMember(t, zw, &zip.FileHeader{Name: "x.txt"}, []byte("x"))
	must(t, zw.Close())
	other := filepath.Join(t.TempDir(), "other.fbz")
	must(t, os.WriteFile(other, buf.Bytes(), 0o644))
	if IsBundle(other) || IsBundle(filepath.Join(dir, suitedir.ManifestName)) || IsBundle(dir) {
		t.Error("a zip without bundle.json, a JSON file or a directory is taken for a bundle")
	}
	b, err := Open(p)
	must(t, err)
	if _, err := b.FS().Open(suitedir.ManifestName); err != nil {
		t.Errorf("the data tree has no suite manifest: %v", err)
	}
	if !strings.Contains(string(b.Readme()), "fairbench bundle verify") {
		t.Errorf("README without how to verify:\n%s", b.Readme())
	}
}

func TestWholeHashIsOfSortedLines(t *testing.T) {
	ms := []Member{{Name: "b", SHA256: "22"}, {Name: "a", SHA256: "11"}}
	want := hashOf([]byte("11  a\n22  b\n"))
	if got := WholeHash(ms); got != want {
		t.Errorf("WholeHash = %s, want %s", got, want)
	}
}

func TestCreatedIsRecorded(t *testing.T) {
	dir := t.TempDir()
	writeSuite(t, dir, suitedir.StatusComplete)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	m := read(t, create(t, CreateOptions{Suite: dir, Now: at})).Manifest()
	if !m.Created.Equal(at) || m.Kind != KindSuite || m.Suite.Name != "secrets" || len(m.ResultSchemas) != 1 {
		t.Errorf("manifest %+v", m)
	}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

func writeMember(t *testing.T, w *zip.Writer, h *zip.FileHeader, body []byte) {
	t.Helper()
	f, err := w.CreateHeader(h)
	must(t, err)
	_, err = f.Write(body)
	must(t, err)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
