package kubernetes_test

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/fairbench/fairbench/internal/base/syncbuf"
	"github.com/fairbench/fairbench/internal/cli"
	"github.com/fairbench/fairbench/internal/run/suite"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/oltp"
	"github.com/fairbench/fairbench/internal/workload/tpcc"
)

// Names the README and the manifests share.
const (
	runJob     = "fairbench-run"
	prepareJob = "fairbench-prepare"
	suiteJob   = "fairbench-suite"
	planMap    = "fairbench-plan"
	planKey    = "plan.yaml"
)

// fairbenchContainer returns the container named fairbench of a Job.
func fairbenchContainer(t *testing.T, j *batchv1.Job) *corev1.Container {
	t.Helper()
	for i := range j.Spec.Template.Spec.Containers {
		if c := &j.Spec.Template.Spec.Containers[i]; c.Name == "fairbench" {
			return c
		}
	}
	t.Fatalf("Job %s has no container named fairbench", j.Name)
	return nil
}

// job returns the Job name of the manifests.
func (m manifests) job(t *testing.T, name string) *batchv1.Job {
	t.Helper()
	j, ok := m.jobs[name]
	if !ok {
		t.Fatalf("no Job %s in the manifests", name)
	}
	return j
}

// flagValues returns the --name=value arguments by name; a flag given twice is an error.
func flagValues(t *testing.T, args []string) map[string]string {
	t.Helper()
	flags := map[string]string{}
	for _, a := range args {
		name, value, ok := strings.Cut(a, "=")
		if !strings.HasPrefix(a, "--") {
			continue
		}
		if !ok {
			value = "true"
		}
		if _, dup := flags[name]; dup {
			t.Errorf("%s is given twice in %q", name, args)
		}
		flags[name] = value
	}
	return flags
}

func envValue(c *corev1.Container, name string) (corev1.EnvVar, bool) {
	for _, e := range c.Env {
		if e.Name == name {
			return e, true
		}
	}
	return corev1.EnvVar{}, false
}

// mountOf returns the container's mount whose path holds file, and the pod volume mounted there.
func mountOf(t *testing.T, spec *corev1.PodSpec, c *corev1.Container, file string) (corev1.VolumeMount, corev1.Volume) {
	t.Helper()
	for _, vm := range c.VolumeMounts {
		if strings.HasPrefix(file, strings.TrimSuffix(vm.MountPath, "/")+"/") {
			for _, v := range spec.Volumes {
				if v.Name == vm.Name {
					return vm, v
				}
			}
		}
	}
	t.Fatalf("container %s: %s is on no mounted volume (the root file system is read-only)", c.Name, file)
	return corev1.VolumeMount{}, corev1.Volume{}
}

func TestRunJobIsOneIndexedPodPerClient(t *testing.T) {
	m := loadManifests(t)
	j := m.job(t, runJob)
	s := j.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		t.Fatalf("completionMode %v, want Indexed: the completion index is the client id", s.CompletionMode)
	}
	if s.Completions == nil || s.Parallelism == nil || *s.Completions != *s.Parallelism {
		t.Fatalf("completions %v and parallelism %v must be equal: every client runs at once", s.Completions, s.Parallelism)
	}
	if *s.Completions < 2 {
		t.Errorf("completions %d: the example should show several clients", *s.Completions)
	}
	if s.BackoffLimit == nil || *s.BackoffLimit != 0 {
		t.Errorf("backoffLimit %v, want 0: a retried client would start after the others", s.BackoffLimit)
	}
	c := fairbenchContainer(t, j)
	if len(c.Args) == 0 || c.Args[0] != "run" {
		t.Fatalf("args %q must start with run", c.Args)
	}
	flags := flagValues(t, c.Args)
	want := map[string]string{
		"--client-id": "$(JOB_COMPLETION_INDEX)",
		"--clients":   strconv.Itoa(int(*s.Completions)),
		"--start-at":  "$(START_AT)",
	}
	for name, v := range want {
		if flags[name] != v {
			t.Errorf("%s=%q, want %q", name, flags[name], v)
		}
	}
	startAt, ok := envValue(c, "START_AT")
	if !ok || startAt.Value != startAtPlaceholder {
		t.Errorf("env START_AT = %q, want the placeholder %q that the apply command replaces", startAt.Value, startAtPlaceholder)
	}
	out := flags["--output"]
	if !strings.Contains(out, "$(JOB_COMPLETION_INDEX)") {
		t.Errorf("--output=%q: each client needs its own file: put $(JOB_COMPLETION_INDEX) in it", out)
	}
	vm, v := mountOf(t, &j.Spec.Template.Spec, c, out)
	if v.PersistentVolumeClaim == nil || vm.ReadOnly {
		t.Errorf("--output=%q is on volume %s, want the writable results claim", out, v.Name)
	}
	if _, ok := envValue(c, "MYSQL_PWD"); !ok {
		if _, ok := envValue(c, "PGPASSWORD"); !ok {
			t.Errorf("the password must come from the Secret through MYSQL_PWD or PGPASSWORD")
		}
	}
}

// TestSuiteJobIsOneIndexedPodPerClient checks the suite Job against the plan
// it runs: one pod per coordinated client, as many as the plan's clients.count,
// each with its completion index as --client-id, one --run-id set at apply
// time, and its own suite directory under that run id.
func TestSuiteJobIsOneIndexedPodPerClient(t *testing.T) {
	m := loadManifests(t)
	j := m.job(t, suiteJob)
	s := j.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		t.Fatalf("completionMode %v, want Indexed: the completion index is the client id", s.CompletionMode)
	}
	if s.Completions == nil || s.Parallelism == nil || *s.Completions != *s.Parallelism {
		t.Fatalf("completions %v and parallelism %v must be equal: the clients meet before every cell", s.Completions, s.Parallelism)
	}
	p, err := suite.ParsePlan("configmap-plan.yaml:"+planKey, []byte(m.configMaps[planMap].Data[planKey]))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.ClientCount(); got != int(*s.Completions) {
		t.Errorf("the plan's clients.count is %d and the Job's completions %d: they must be one number", got, *s.Completions)
	}
	if s.BackoffLimit == nil || *s.BackoffLimit != 0 {
		t.Errorf("backoffLimit %v, want 0: a retried client could not meet the others again", s.BackoffLimit)
	}
	c := fairbenchContainer(t, j)
	flags := flagValues(t, c.Args)
	want := map[string]string{"--client-id": "$(JOB_COMPLETION_INDEX)", "--run-id": "$(RUN_ID)"}
	for name, v := range want {
		if flags[name] != v {
			t.Errorf("%s=%q, want %q", name, flags[name], v)
		}
	}
	if runID, ok := envValue(c, "RUN_ID"); !ok || runID.Value != startAtPlaceholder {
		t.Errorf("env RUN_ID = %q, want the placeholder %q that the apply command replaces", runID.Value, startAtPlaceholder)
	}
	out := flags["--out"]
	for _, ref := range []string{"$(RUN_ID)", "$(JOB_COMPLETION_INDEX)"} {
		if !strings.Contains(out, ref) {
			t.Errorf("--out=%q: put %s in it (a directory per launch and per client)", out, ref)
		}
	}
}

// sedFirst applies sed's s/old/new/ (without g): the first match on each line.
func sedFirst(text []byte, old, new string) []byte {
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(text))
	for sc.Scan() {
		out.WriteString(strings.Replace(sc.Text(), old, new, 1))
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// TestApplyCommandSetsTheStartTime checks the documented apply command: the
// placeholder is in exactly one value, the README and job.yaml give the same
// command, and the substituted manifest still decodes with the time in START_AT.
func TestApplyCommandSetsTheStartTime(t *testing.T) {
	text, err := os.ReadFile("job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	uses := 0
	for _, line := range strings.Split(string(text), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			uses += strings.Count(line, startAtPlaceholder)
		}
	}
	if uses != 1 {
		t.Fatalf("job.yaml uses %s %d times outside comments, want once (env START_AT)", startAtPlaceholder, uses)
	}
	command := `sed "s/` + startAtPlaceholder + `/$START_AT/" job.yaml | kubectl apply -f -`
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for file, doc := range map[string][]byte{"README.md": readme, "job.yaml": text} {
		if !bytes.Contains(doc, []byte(command)) {
			t.Errorf("%s does not give the apply command %q", file, command)
		}
		if !bytes.Contains(doc, []byte(`START_AT=$(( $(date +%s) + `)) {
			t.Errorf("%s does not show how START_AT is computed", file)
		}
	}
	at := strconv.FormatInt(time.Date(2030, 1, 2, 3, 4, 0, 0, time.UTC).Unix(), 10)
	obj, err := decode(document{file: "job.yaml (applied)", n: 1, text: sedFirst(text, startAtPlaceholder, at)})
	if err != nil {
		t.Fatal(err)
	}
	c := fairbenchContainer(t, obj.(*batchv1.Job))
	if e, _ := envValue(c, "START_AT"); e.Value != at {
		t.Errorf("after the apply command START_AT = %q, want %q", e.Value, at)
	}
}

func registry() *workload.Registry {
	return workload.NewRegistry(append(oltp.Specs(), tpcc.Specs()...)...)
}

// TestPlanConfigMapIsAValidPlan parses and validates the ConfigMap's plan with
// the real workloads, and checks that the suite Job mounts it where its command
// reads it and passes the password variable the plan names.
func TestPlanConfigMapIsAValidPlan(t *testing.T) {
	m := loadManifests(t)
	cm, ok := m.configMaps[planMap]
	if !ok {
		t.Fatalf("no ConfigMap %s", planMap)
	}
	text, ok := cm.Data[planKey]
	if !ok {
		t.Fatalf("ConfigMap %s has no %s", planMap, planKey)
	}
	p, err := suite.ParsePlan("configmap-plan.yaml:"+planKey, []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	pwEnv := p.Target.PasswordEnv
	if pwEnv == "" {
		t.Fatal("the plan's target names no password_env: the password comes from the Secret through the environment")
	}
	env := suite.Env{Registry: registry(), CPUs: 4, Getenv: func(k string) string {
		if k == pwEnv {
			return "from-the-secret"
		}
		return ""
	}}
	if err := p.Validate(env); err != nil {
		t.Fatal(err)
	}
	if p.Server != nil || p.Target.Driver == "" || p.Target.Driver == "sqlite" {
		t.Errorf("the plan must target the cluster's database service, not the embedded SQLite or a server of its own")
	}

	j := m.job(t, suiteJob)
	c := fairbenchContainer(t, j)
	if len(c.Args) < 3 || c.Args[0] != "suite" || c.Args[1] != "run" {
		t.Fatalf("suite Job args %q, want suite run PLAN …", c.Args)
	}
	vm, v := mountOf(t, &j.Spec.Template.Spec, c, c.Args[2])
	if v.ConfigMap == nil || v.ConfigMap.Name != planMap {
		t.Fatalf("%s is on volume %s, not the ConfigMap %s", c.Args[2], v.Name, planMap)
	}
	rel := strings.TrimPrefix(c.Args[2], strings.TrimSuffix(vm.MountPath, "/")+"/")
	found := false
	for _, item := range v.ConfigMap.Items {
		found = found || (item.Path == rel && item.Key == planKey)
	}
	if !found && !(len(v.ConfigMap.Items) == 0 && rel == planKey) {
		t.Errorf("the ConfigMap volume does not put %s at %s", planKey, c.Args[2])
	}
	if e, ok := envValue(c, pwEnv); !ok || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
		t.Errorf("the suite Job must set %s (the plan's password_env) from the Secret", pwEnv)
	}
	out := flagValues(t, c.Args)["--out"]
	if _, v := mountOf(t, &j.Spec.Template.Spec, c, out); v.PersistentVolumeClaim == nil {
		t.Errorf("--out=%s is not on the results claim", out)
	}
}

// makefileImage is the IMAGE the Makefile builds.
func makefileImage(t *testing.T) string {
	t.Helper()
	text, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	match := regexp.MustCompile(`(?m)^IMAGE\s*\?=\s*(\S+)\s*$`).FindSubmatch(text)
	if match == nil {
		t.Fatal("the Makefile sets no IMAGE ?= …")
	}
	return string(match[1])
}

func TestJobsUseTheImageMakeBuilds(t *testing.T) {
	m := loadManifests(t)
	image := makefileImage(t)
	for _, j := range m.jobs {
		c := fairbenchContainer(t, j)
		repo, tag, _ := strings.Cut(c.Image, ":")
		if repo != image || tag == "" {
			t.Errorf("Job %s runs image %q, want %s:TAG (the Makefile's IMAGE)", j.Name, c.Image, image)
		}
		if len(c.Command) > 0 {
			t.Errorf("Job %s overrides the image's entrypoint (fairbench) with %q: give only args", j.Name, c.Command)
		}
	}
}

// TestJobCommandsAreAcceptedByFairbench runs each Job's command line through
// the real CLI in-process, with the Kubernetes variables expanded, the paths
// moved to a temporary directory and the database pointed at a closed port: a
// flag or value fairbench does not accept exits 2, while a good command line
// gets as far as connecting (exit 3) — or, for the suite, through a dry run.
func TestJobCommandsAreAcceptedByFairbench(t *testing.T) {
	m := loadManifests(t)
	dir := t.TempDir()
	writePlan(t, m, dir)
	closedPort := map[string]string{"--mysql-host": "127.0.0.1", "--mysql-port": "1"}
	tests := []struct {
		job      string
		set      map[string]string
		extra    []string
		wantCode int
	}{
		{prepareJob, closedPort, nil, cli.ExitTarget},
		{runJob, closedPort, nil, cli.ExitTarget},
		{suiteJob, nil, []string{"--dry-run"}, cli.ExitOK}, // the plan names the target
	}
	for _, tt := range tests {
		t.Run(tt.job, func(t *testing.T) {
			c := fairbenchContainer(t, m.job(t, tt.job))
			vars := containerVars(c, map[string]string{
				"JOB_COMPLETION_INDEX": "0",
				"START_AT":             strconv.FormatInt(time.Now().Add(2*time.Second).Unix(), 10),
				"RUN_ID":               "1795323600",
			})
			args := append(localArgs(c.Args, vars, dir, tt.set), tt.extra...)
			r := runFairbench(t, nil, args)
			if r.code != tt.wantCode {
				t.Errorf("fairbench %s: exit %d, want %d\n%s", strings.Join(args, " "), r.code, tt.wantCode, r.out)
			}
		})
	}
}

// writePlan puts the ConfigMap's plan where the suite Job's command reads it, under dir.
func writePlan(t *testing.T, m manifests, dir string) {
	t.Helper()
	planFile := filepath.Join(dir, "plan", planKey)
	if err := os.MkdirAll(filepath.Dir(planFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(planFile, []byte(m.configMaps[planMap].Data[planKey]), 0o644); err != nil {
		t.Fatal(err)
	}
}

// containerVars are the variables Kubernetes would expand in the container's
// args: its literal env values, then the ones given (the Job controller's, the
// downward API's, the apply command's).
func containerVars(c *corev1.Container, given map[string]string) map[string]string {
	vars := map[string]string{}
	for _, e := range c.Env {
		if e.Value != "" {
			vars[e.Name] = e.Value
		}
	}
	for k, v := range given {
		vars[k] = v
	}
	return vars
}

// localArgs expands $(VAR) as Kubernetes does, moves the container's /results
// and /plan under dir, and gives the flags in set their values (replacing the
// manifest's, or added).
func localArgs(args []string, vars map[string]string, dir string, set map[string]string) []string {
	var out []string
	done := map[string]bool{}
	for _, a := range args {
		a = varRef.ReplaceAllStringFunc(a, func(ref string) string {
			if v, ok := vars[varRef.FindStringSubmatch(ref)[1]]; ok {
				return v
			}
			return ref
		})
		name, value, hasValue := strings.Cut(a, "=")
		if !hasValue {
			name, value = "", a
		}
		for _, mount := range []string{"/results/", "/plan/"} {
			if strings.HasPrefix(value, mount) {
				value = filepath.Join(dir, value)
			}
		}
		if v, ok := set[name]; ok {
			value, done[name] = v, true
		}
		if name == "" {
			out = append(out, value)
		} else {
			out = append(out, name+"="+value)
		}
	}
	for name, v := range set {
		if !done[name] {
			out = append(out, name+"="+v)
		}
	}
	return out
}

// fairbenchRun is an in-process fairbench invocation: its exit code and its
// "log" (standard output and standard error interleaved, as kubectl logs shows them).
type fairbenchRun struct {
	code int
	out  string
}

func runFairbench(t *testing.T, getenv func(string) string, args []string) fairbenchRun {
	t.Helper()
	if getenv == nil {
		getenv = func(k string) string {
			if slices.Contains(passwordVars, k) {
				return "from-the-secret"
			}
			return ""
		}
	}
	var log syncbuf.Buffer
	app := &cli.App{Stdout: &log, Stderr: &log, Version: "test", Getenv: getenv}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	code := app.Execute(ctx, args)
	return fairbenchRun{code: code, out: log.String()}
}

// TestCollectPodMountsTheResults checks that the pod used for kubectl cp reads
// the results claim where the Jobs write, and has tar (not the fairbench image).
func TestCollectPodMountsTheResults(t *testing.T) {
	m := loadManifests(t)
	p, ok := m.pods["fairbench-collect"]
	if !ok {
		t.Fatal("no Pod fairbench-collect")
	}
	if len(p.Spec.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(p.Spec.Containers))
	}
	c := &p.Spec.Containers[0]
	if strings.HasPrefix(c.Image, makefileImage(t)+":") {
		t.Errorf("the collect pod needs tar for kubectl cp; the fairbench image has only the binary")
	}
	out := path.Dir(flagValues(t, fairbenchContainer(t, m.job(t, runJob)).Args)["--output"])
	_, runVol := mountOf(t, &m.jobs[runJob].Spec.Template.Spec, fairbenchContainer(t, m.jobs[runJob]), out+"/x")
	vm, v := mountOf(t, &p.Spec, c, out+"/x")
	if v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != runVol.PersistentVolumeClaim.ClaimName {
		t.Errorf("the collect pod mounts %s at %s, not the run Job's claim", v.Name, vm.MountPath)
	}
	if !vm.ReadOnly {
		t.Errorf("the collect pod should mount the results read-only")
	}
}
