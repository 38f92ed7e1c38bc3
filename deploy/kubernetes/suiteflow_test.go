package kubernetes_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/fairbench/fairbench/internal/cli"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

// TestSuiteReadmeFlowAgainstMariaDB follows the README's "A whole plan from N
// clients" on the real MariaDB: the ConfigMap's plan (pointed at a test
// database, data and times scaled down), every pod of the Indexed suite Job
// with one RUN_ID and the manifest's own command line, then merge, status and
// report of the merged directory as documented.
func TestSuiteReadmeFlowAgainstMariaDB(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs a suite from several clients against MariaDB")
	}
	m := loadManifests(t)
	readmeDocuments(t,
		`sed "s/`+startAtPlaceholder+`/$RUN_ID/" suite-job.yaml | kubectl apply -f -`,
		"fairbench merge ./suite-$RUN_ID/client-* -o suite-$RUN_ID-merged",
		"fairbench suite status suite-$RUN_ID-merged",
		"fairbench report suite-$RUN_ID-merged")
	cfg := testdb.MySQL(t)
	getenv := passwordFrom(cfg)
	dir := t.TempDir()
	target := map[string]any{"host": cfg.Hosts[0], "port": cfg.Ports[0], "user": cfg.User, "db": cfg.Database}
	if cfg.Password == "" {
		target["password_env"] = nil // the test server's user has none
	}
	writeSmallPlan(t, m, dir, target)

	job := m.job(t, suiteJob)
	c := fairbenchContainer(t, job)
	clients := int(*job.Spec.Completions)
	runID := strconv.FormatInt(time.Now().Unix(), 10)
	runs := make([]fairbenchRun, clients)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(i) * 300 * time.Millisecond) // pods start apart
			vars := containerVars(c, map[string]string{"JOB_COMPLETION_INDEX": strconv.Itoa(i), "RUN_ID": runID})
			runs[i] = runFairbench(t, getenv, localArgs(c.Args, vars, dir, nil))
		}()
	}
	wg.Wait()
	var parts []string
	for i, r := range runs {
		if r.code != cli.ExitOK {
			t.Fatalf("client %d: exit %d\n%s", i, r.code, r.out)
		}
		part := filepath.Join(dir, "results", "suite-"+runID, "client-"+strconv.Itoa(i))
		if _, err := os.Stat(filepath.Join(part, "manifest.json")); err != nil {
			t.Fatalf("client %d wrote no suite directory where the README collects it: %v\n%s", i, err, r.out)
		}
		parts = append(parts, part)
	}

	merged := filepath.Join(dir, "suite-"+runID+"-merged")
	if r := runFairbench(t, getenv, append(append([]string{"merge"}, parts...), "-o", merged)); r.code != cli.ExitOK {
		t.Fatalf("merge: exit %d\n%s", r.code, r.out)
	}
	status := runFairbench(t, getenv, []string{"suite", "status", merged})
	if status.code != cli.ExitOK {
		t.Fatalf("suite status of the merged directory: exit %d\n%s", status.code, status.out)
	}
	report := filepath.Join(dir, "report.html")
	if r := runFairbench(t, getenv, []string{"report", merged, "--format", "html", "--out", report}); r.code != cli.ExitOK {
		t.Fatalf("report: exit %d\n%s", r.code, r.out)
	}
	if html, err := os.ReadFile(report); err != nil || !bytes.Contains(html, []byte("<html")) {
		t.Errorf("report.html: %v, %d bytes", err, len(html))
	}
}

// writeSmallPlan writes the ConfigMap's plan where the suite Job reads it
// (under dir), with target settings replaced by target (nil removes one) and the data, times
// and thread counts scaled down so that the whole suite takes seconds.
func writeSmallPlan(t *testing.T, m manifests, dir string, target map[string]any) {
	t.Helper()
	var plan map[string]any
	if err := yaml.Unmarshal([]byte(m.configMaps[planMap].Data[planKey]), &plan); err != nil {
		t.Fatal(err)
	}
	section := func(name string) map[string]any {
		s, ok := plan[name].(map[string]any)
		if !ok {
			t.Fatalf("the ConfigMap's plan has no %s: section", name)
		}
		return s
	}
	for k, v := range target {
		if v == nil {
			delete(section("target"), k)
		} else {
			section("target")[k] = v
		}
	}
	section("data")["tables"], section("data")["table_size"] = 2, 500
	section("matrix")["threads"] = []int{1, 2}
	run := section("run")
	// Cells of 2 s: the clients' measured phases must overlap to merge, and
	// a loaded machine once started one client's 1-s cell 0.3 s after the
	// other's ended.
	run["time"], run["warmup_time"], run["report_interval"] = 2, 0, 1
	section("steps")["changeover_sleep"] = 0
	section("clients")["wait"] = "1m"
	text, err := yaml.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	planFile := filepath.Join(dir, "plan", planKey)
	if err := os.MkdirAll(filepath.Dir(planFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(planFile, text, 0o644); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(text), "sqlite") {
		t.Fatalf("the scaled plan must keep the server target:\n%s", text)
	}
}
