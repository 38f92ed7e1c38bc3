package deploy_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// instruction is one Dockerfile instruction with its continuation lines joined.
type instruction struct {
	line int    // first line
	cmd  string // upper case: FROM, RUN, COPY, …
	args string
}

// stage is one FROM and the instructions under it.
type stage struct {
	from  instruction
	image string // the FROM image
	name  string // AS name
	body  []instruction
}

// dockerfile is a parsed Dockerfile: the ARGs before the first FROM and the stages.
type dockerfile struct {
	globalArgs map[string]string
	stages     []stage
}

// parseDockerfile reads the instructions of a Dockerfile: comments and blank
// lines dropped, lines ending in a backslash joined.
func parseDockerfile(text string) (*dockerfile, error) {
	d := &dockerfile{globalArgs: map[string]string{}}
	var cur strings.Builder
	start := 0
	flush := func() error {
		s := strings.TrimSpace(cur.String())
		cur.Reset()
		if s == "" {
			return nil
		}
		cmd, args, _ := strings.Cut(s, " ")
		in := instruction{line: start, cmd: strings.ToUpper(cmd), args: strings.TrimSpace(args)}
		switch {
		case in.cmd == "FROM":
			f := strings.Fields(in.args)
			f = slices.DeleteFunc(f, func(s string) bool { return strings.HasPrefix(s, "--") })
			st := stage{from: in}
			if len(f) > 0 {
				st.image = f[0]
			}
			if len(f) == 3 && strings.EqualFold(f[1], "AS") {
				st.name = f[2]
			}
			d.stages = append(d.stages, st)
		case len(d.stages) == 0 && in.cmd == "ARG":
			name, value, _ := strings.Cut(in.args, "=")
			d.globalArgs[name] = value
		case len(d.stages) == 0:
			return fmt.Errorf("line %d: %s before the first FROM", in.line, in.cmd)
		default:
			st := &d.stages[len(d.stages)-1]
			st.body = append(st.body, in)
		}
		return nil
	}
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") || (trimmed == "" && cur.Len() == 0) {
			continue
		}
		if cur.Len() == 0 {
			start = i + 1
		}
		if body, ok := strings.CutSuffix(trimmed, `\`); ok {
			cur.WriteString(body + " ")
			continue
		}
		cur.WriteString(trimmed)
		if err := flush(); err != nil {
			return nil, err
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return d, nil
}

// all returns the stage's instructions of one kind.
func (s stage) all(cmd string) []instruction {
	var out []instruction
	for _, in := range s.body {
		if in.cmd == cmd {
			out = append(out, in)
		}
	}
	return out
}

// declares reports whether the stage declares ARG name (which a stage must do
// to see a build argument, even a predefined one such as TARGETARCH).
func (s stage) declares(name string) bool {
	for _, in := range s.all("ARG") {
		for _, a := range strings.Fields(in.args) {
			if n, _, _ := strings.Cut(a, "="); n == name {
				return true
			}
		}
	}
	return false
}

func readDockerfile(t *testing.T) *dockerfile {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(repoRoot, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := parseDockerfile(string(text))
	if err != nil {
		t.Fatalf("Dockerfile: %v", err)
	}
	if len(d.stages) < 2 {
		t.Fatalf("Dockerfile has %d stages, want a builder and a minimal final stage", len(d.stages))
	}
	return d
}

// goBuild returns the builder stage's RUN that builds fairbench.
func goBuild(t *testing.T, s stage) instruction {
	t.Helper()
	for _, in := range s.all("RUN") {
		if strings.Contains(in.args, "go build") {
			return in
		}
	}
	t.Fatalf("stage %s has no RUN … go build", s.name)
	return instruction{}
}

func TestDockerfileBuilder(t *testing.T) {
	d := readDockerfile(t)
	b := d.stages[0]
	if !strings.Contains(b.from.args, "--platform=$BUILDPLATFORM") {
		t.Errorf("line %d: the builder should run on $BUILDPLATFORM and cross-compile (no emulation): %s", b.from.line, b.from.args)
	}
	goMod, err := os.ReadFile(filepath.Join(repoRoot, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goVersion := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(goMod)
	if goVersion == nil {
		t.Fatal("go.mod has no go directive")
	}
	image := strings.ReplaceAll(b.image, "${GO_VERSION}", d.globalArgs["GO_VERSION"])
	if image != "golang:"+string(goVersion[1]) && !strings.HasPrefix(image, "golang:"+string(goVersion[1])+"-") &&
		!strings.HasPrefix(image, "golang:"+string(goVersion[1])+".") {
		t.Errorf("builder image %s, want golang:%s (go.mod's go version)", image, goVersion[1])
	}
	for _, arg := range []string{"TARGETOS", "TARGETARCH", "VERSION", "COMMIT"} {
		if !b.declares(arg) {
			t.Errorf("the builder stage does not declare ARG %s: without it ${%s} is empty inside the stage", arg, arg)
		}
	}
	run := goBuild(t, b)
	for _, want := range []string{"CGO_ENABLED=0", "GOOS=${TARGETOS}", "GOARCH=${TARGETARCH}", "-trimpath",
		"-X main.version=${VERSION}", "-X main.commit=${COMMIT}", "./cmd/fairbench"} {
		if !strings.Contains(run.args, want) {
			t.Errorf("line %d: the go build lacks %q: %s", run.line, want, run.args)
		}
	}
}

func TestDockerfileFinalStage(t *testing.T) {
	d := readDockerfile(t)
	final := d.stages[len(d.stages)-1]
	if final.image != "scratch" && !strings.HasPrefix(final.image, "gcr.io/distroless/static") {
		t.Errorf("final stage FROM %s, want scratch or gcr.io/distroless/static", final.image)
	}
	users := final.all("USER")
	if len(users) == 0 {
		t.Fatal("the final stage sets no USER: the image would run as root")
	}
	uid, _, _ := strings.Cut(users[len(users)-1].args, ":")
	if !regexp.MustCompile(`^[1-9][0-9]*$`).MatchString(uid) {
		t.Errorf("USER %s: give a numeric non-zero uid, so that Kubernetes' runAsNonRoot can verify it", users[len(users)-1].args)
	}
	entry := final.all("ENTRYPOINT")
	if len(entry) != 1 {
		t.Fatalf("%d ENTRYPOINTs in the final stage, want 1", len(entry))
	}
	var argv []string
	if err := json.Unmarshal([]byte(entry[0].args), &argv); err != nil || len(argv) == 0 {
		t.Fatalf("ENTRYPOINT %s: use the exec form [\"/path/fairbench\"] (there is no shell in the image)", entry[0].args)
	}
	built := goBuildOutput(t, goBuild(t, d.stages[0]))
	copies := map[string]string{} // destination → source, from the builder
	for _, c := range final.all("COPY") {
		f := strings.Fields(c.args)
		if len(f) >= 3 && slices.Contains(f, "--from="+d.stages[0].name) {
			copies[f[len(f)-1]] = f[len(f)-2]
		}
	}
	if copies[argv[0]] != built {
		t.Errorf("ENTRYPOINT %s is not the binary the builder writes (%s); copies into the final stage: %v", argv[0], built, copies)
	}
	if _, ok := copies["/etc/ssl/certs/ca-certificates.crt"]; !ok && final.image == "scratch" {
		t.Errorf("the final stage has no /etc/ssl/certs/ca-certificates.crt: TLS to databases with verify-full would fail")
	}
	if _, ok := copies["/tmp"]; !ok && final.image == "scratch" {
		t.Errorf("the final stage has no /tmp")
	}
}

// goBuildOutput returns the -o path of a go build command.
func goBuildOutput(t *testing.T, run instruction) string {
	t.Helper()
	m := regexp.MustCompile(`-o\s+(\S+)`).FindStringSubmatch(run.args)
	if m == nil {
		t.Fatalf("line %d: go build without -o", run.line)
	}
	return m[1]
}

func TestDockerignoreKeepsTheSources(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(repoRoot, ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(text), "\n") {
		p := strings.TrimSpace(line)
		if p == "" || strings.HasPrefix(p, "#") {
			continue
		}
		for _, needed := range []string{"go.mod", "go.sum", "cmd/fairbench/main.go", "internal/cli/app.go"} {
			if ok, _ := filepath.Match(p, needed); ok || p == "*" || strings.HasPrefix(needed, strings.TrimSuffix(p, "/")+"/") {
				t.Errorf(".dockerignore pattern %q excludes %s, which the build needs", p, needed)
			}
		}
	}
}

// TestDockerfileBuildStepRuns runs the builder stage's go build command here,
// with the build arguments buildx would give, since there is no container
// engine to run the whole build: the command must produce a static binary
// that prints the stamped version.
func TestDockerfileBuildStepRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	d := readDockerfile(t)
	run := goBuild(t, d.stages[0])
	dir := t.TempDir()
	bin := filepath.Join(dir, "fairbench")
	cmdline := strings.Replace(run.args, goBuildOutput(t, run), bin, 1)
	if i := strings.Index(cmdline, "&&"); i >= 0 {
		cmdline = cmdline[:i] // only the build
	}
	build := exec.Command("sh", "-c", cmdline)
	build.Dir = repoRoot
	build.Env = append(os.Environ(), "TARGETOS=linux", "TARGETARCH="+runtime.GOARCH, "VERSION=v0.0.0-image", "COMMIT=abc1234")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("the Dockerfile's build step (%s): %v\n%s", cmdline, err, out)
	}
	checkStaticELF(t, bin, runtime.GOARCH)
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("fairbench version: %v\n%s", err, out)
	}
	if !strings.HasPrefix(string(out), "fairbench v0.0.0-image (abc1234) ") {
		t.Errorf("fairbench version printed %q, want the stamped v0.0.0-image (abc1234)", out)
	}
}
