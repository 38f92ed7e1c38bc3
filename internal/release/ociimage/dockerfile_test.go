package ociimage

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// dockerInstruction is one Dockerfile instruction, continuation lines joined.
type dockerInstruction struct{ cmd, args string }

// readDockerfile returns the module's Dockerfile as instructions, comments dropped.
func readDockerfile(t *testing.T) []dockerInstruction {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(moduleRoot, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	var out []dockerInstruction
	var cur strings.Builder
	for _, line := range strings.Split(string(text), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "#") || (line == "" && cur.Len() == 0) {
			continue
		}
		if body, ok := strings.CutSuffix(line, `\`); ok {
			cur.WriteString(body + " ")
			continue
		}
		cur.WriteString(line)
		cmd, args, _ := strings.Cut(cur.String(), " ")
		out = append(out, dockerInstruction{strings.ToUpper(cmd), strings.TrimSpace(args)})
		cur.Reset()
	}
	return out
}

// TestMatchesDockerfile keeps the image in step with the Dockerfile's final
// stage: the same files (and the modes and owners the builder gives them),
// USER, WORKDIR, ENTRYPOINT and CMD, LABELs only among this package's labels,
// and nothing else. When the Dockerfile changes, change rootfs.go and this
// package's config with it.
func TestMatchesDockerfile(t *testing.T) {
	all := readDockerfile(t)
	last := -1
	for i, in := range all {
		if in.cmd == "FROM" {
			last = i
		}
	}
	if last < 0 || all[last].args != "scratch" {
		t.Fatalf("the Dockerfile's final stage is not FROM scratch: rootfs.go assumes an empty base")
	}
	var builder strings.Builder
	for _, in := range all[:last] {
		builder.WriteString(in.args + "\n")
	}
	copies := map[string]string{} // destination → builder path
	for _, in := range all[last+1:] {
		switch in.cmd {
		case "COPY":
			f := strings.Fields(in.args)
			if len(f) != 3 || !strings.HasPrefix(f[0], "--from=") {
				t.Errorf("COPY %s: expected COPY --from=STAGE SRC DEST", in.args)
				continue
			}
			copies[f[2]] = f[1]
		case "USER":
			if in.args != User {
				t.Errorf("Dockerfile USER %s, the image's %s", in.args, User)
			}
		case "WORKDIR":
			if in.args != WorkingDir {
				t.Errorf("Dockerfile WORKDIR %s, the image's %s", in.args, WorkingDir)
			}
		case "ENTRYPOINT", "CMD":
			var argv []string
			if err := json.Unmarshal([]byte(in.args), &argv); err != nil {
				t.Errorf("%s %s: %v", in.cmd, in.args, err)
			}
			want := map[string][]string{"ENTRYPOINT": entrypoint(), "CMD": cmd()}[in.cmd]
			if !slices.Equal(argv, want) {
				t.Errorf("Dockerfile %s %q, the image's %q", in.cmd, argv, want)
			}
		case "ARG":
			// Build arguments for LABELs change nothing in the image by themselves.
		case "LABEL":
			labels := Options{Version: "v", Revision: "r"}.labels(time.Unix(0, 0))
			for _, kv := range strings.Fields(in.args) {
				if k, _, ok := strings.Cut(kv, "="); ok && labels[strings.Trim(k, `"`)] == "" {
					t.Errorf("the Dockerfile sets LABEL %s, which the image built by this package lacks", k)
				}
			}
		default:
			t.Errorf("the Dockerfile's final stage has %s %s, which the image built by this package lacks", in.cmd, in.args)
		}
	}
	dests := slices.Sorted(maps.Keys(copies))
	if want := []string{CABundlePath, BinaryPath, "/tmp", WorkingDir}; !slices.Equal(dests, slices.Sorted(slices.Values(want))) {
		t.Errorf("the final stage copies into %v, rootfs.go holds %v", dests, want)
	}
	// /tmp and /work keep the builder's modes and owners through COPY --from.
	for _, want := range []string{"chmod 1777 " + copies["/tmp"], fmt.Sprintf("chown %d:%d %s", UID, GID, copies[WorkingDir])} {
		if !strings.Contains(builder.String(), want) {
			t.Errorf("the builder no longer runs %q, which rootfs.go mirrors", want)
		}
	}
}
