package kubernetes_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/cli"
	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// TestReadmeFlowAgainstMariaDB follows the README on the real MariaDB with the
// manifests' own command lines (data and time scaled down): the prepare Job,
// every pod of the Indexed run Job at one START_AT, the results on the
// "volume", then merge and report as documented; and it cuts each client's
// result out of its interleaved log as the logs route documents.
func TestReadmeFlowAgainstMariaDB(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs clients against MariaDB")
	}
	m := loadManifests(t)
	readmeDocuments(t, `sed -n '/^{$/,/^}$/p'`, "fairbench merge ./run-$START_AT/client-*.json -o run-$START_AT.json", "fairbench report before=")
	cfg := testdb.MySQL(t)
	getenv := passwordFrom(cfg)
	dir := t.TempDir()
	small := map[string]string{
		"--mysql-host": cfg.Hosts[0], "--mysql-port": strconv.Itoa(cfg.Ports[0]),
		"--mysql-user": cfg.User, "--mysql-db": cfg.Database,
		"--tables": "2", "--table-size": "1000", "--threads": "2",
	}

	prep := fairbenchContainer(t, m.job(t, prepareJob))
	if r := runFairbench(t, getenv, localArgs(prep.Args, containerVars(prep, nil), dir, small)); r.code != cli.ExitOK {
		t.Fatalf("prepare Job: exit %d\n%s", r.code, r.out)
	}

	// Two runs, as when two databases or node types are compared; each one is
	// every pod of the Job and its own results directory.
	first := runJobOnce(t, m, dir, small, getenv)
	second := runJobOnce(t, m, dir, small, getenv)
	if first == second {
		t.Fatalf("both runs wrote %s", first)
	}
	report := filepath.Join(dir, "report.html")
	if r := runFairbench(t, getenv, []string{"report", "a=" + first, "b=" + second, "--format", "html", "--out", report}); r.code != cli.ExitOK {
		t.Fatalf("report: exit %d\n%s", r.code, r.out)
	}
	if html, err := os.ReadFile(report); err != nil || !bytes.Contains(html, []byte("<html")) {
		t.Errorf("report.html: %v, %d bytes", err, len(html))
	}
}

// runJobOnce runs every pod of the run Job at one START_AT, checks the result
// files on the volume and the ones cut from the logs, merges them as the README
// does and returns the merged file.
func runJobOnce(t *testing.T, m manifests, dir string, small map[string]string, getenv func(string) string) string {
	t.Helper()
	job := m.job(t, runJob)
	run := fairbenchContainer(t, job)
	clients := int(*job.Spec.Completions)
	startAt := strconv.FormatInt(time.Now().Add(4*time.Second).Unix(), 10)
	timed := map[string]string{"--time": "2", "--warmup-time": "0", "--report-interval": "1", "--format": "json"}
	for k, v := range small {
		timed[k] = v
	}
	runs := make([]fairbenchRun, clients)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			vars := containerVars(run, map[string]string{"JOB_COMPLETION_INDEX": strconv.Itoa(i), "START_AT": startAt})
			runs[i] = runFairbench(t, getenv, localArgs(run.Args, vars, dir, timed))
		}()
	}
	wg.Wait()

	results := filepath.Join(dir, "results", "run-"+startAt)
	var files []string
	for i, r := range runs {
		if r.code != cli.ExitOK {
			t.Fatalf("client %d: exit %d\n%s", i, r.code, r.out)
		}
		file := filepath.Join(results, "client-"+strconv.Itoa(i)+".json")
		files = append(files, file)
		onVolume, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("client %d wrote no result where the README collects it: %v", i, err)
		}
		if !jsonEqual(t, onVolume, cutResult(r.out)) {
			t.Errorf("client %d: the document cut from the log differs from the result file\nlog:\n%s", i, r.out)
		}
	}
	merged := filepath.Join(dir, "run-"+startAt+".json")
	r := runFairbench(t, getenv, append(append([]string{"merge"}, files...), "-o", merged))
	if r.code != cli.ExitOK {
		t.Fatalf("merge: exit %d\n%s", r.code, r.out)
	}
	if want := strconv.Itoa(clients) + " clients"; !strings.Contains(r.out, want) {
		t.Errorf("merge output lacks %q:\n%s", want, r.out)
	}
	return merged
}

// readmeDocuments fails the test when README.md no longer gives one of the
// commands the test follows.
func readmeDocuments(t *testing.T, commands ...string) {
	t.Helper()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range commands {
		if !bytes.Contains(readme, []byte(cmd)) {
			t.Errorf("README.md no longer documents %q, which this test follows", cmd)
		}
	}
}

// passwordFrom is the environment of the pods: MYSQL_PWD from the Secret,
// here the test server's password.
func passwordFrom(cfg driver.Config) func(string) string {
	return func(k string) string {
		if k == "MYSQL_PWD" {
			return cfg.Password
		}
		return ""
	}
}

// cutResult is the README's sed -n '/^{$/,/^}$/p': the lines from one holding
// only "{" to the next holding only "}".
func cutResult(log string) []byte {
	var out bytes.Buffer
	in := false
	for _, line := range strings.Split(log, "\n") {
		if line == "{" {
			in = true
		}
		if in {
			out.WriteString(line + "\n")
		}
		if in && line == "}" {
			in = false
		}
	}
	return out.Bytes()
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("result file: %v", err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Errorf("the document cut from the log is not JSON: %v", err)
		return false
	}
	ja, _ := json.Marshal(va)
	jb, _ := json.Marshal(vb)
	return bytes.Equal(ja, jb)
}
