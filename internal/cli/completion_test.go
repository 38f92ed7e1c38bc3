package cli

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestCompletion asks the shell-completion entry point (what `fairbench
// completion bash` scripts call) for flag values, workload names and plan files.
func TestCompletion(t *testing.T) {
	tests := []struct {
		args      []string
		want      []string
		directive string
	}{
		{[]string{"run", "oltp_read_write", "--rand-type", ""}, []string{"uniform", "gaussian", "special", "pareto", "zipfian"}, ":4"},
		{[]string{"run", "oltp_read_write", "--rand-type", "pa"}, []string{"pareto"}, ":4"},
		{[]string{"prepare", "tpcc", "--db-driver", ""}, []string{"mysql", "pgsql", "sqlite"}, ":4"},
		{[]string{"run", "oltp_point_select", "--mysql-ssl", "ver"}, []string{"verify-ca", "verify-full"}, ":4"},
		{[]string{"compare", "--format", ""}, []string{"text", "md", "csv", "json"}, ":4"},
		{[]string{"report", "--format", "h"}, []string{"html"}, ":4"},
		{[]string{"run", "oltp_read_write", "--format", ""}, []string{"text", "json"}, ":4"},
		{[]string{"suite", "status", "--format", ""}, []string{"text", "json"}, ":4"},
		{[]string{"run", "oltp_rea"}, []string{"oltp_read_only", "oltp_read_write"}, ":4"},
		{[]string{"suite", "run", ""}, []string{"yaml", "yml"}, ":8"},
	}
	for _, tc := range tests {
		r := runCLI(context.Background(), nil, append([]string{"__complete"}, tc.args...)...)
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		if r.code != ExitOK || len(lines) == 0 {
			t.Errorf("%v: exit %d\n%s%s", tc.args, r.code, r.stdout, r.stderr)
			continue
		}
		directive := lines[len(lines)-1]
		var got []string
		for _, l := range lines[:len(lines)-1] {
			got = append(got, strings.SplitN(l, "\t", 2)[0])
		}
		if !slices.Equal(got, tc.want) || directive != tc.directive {
			t.Errorf("%v: got %v %s, want %v %s", tc.args, got, directive, tc.want, tc.directive)
		}
	}
}

// TestFormatCompletionsMatchTheFlags checks that every --format flag has its
// completion values and that each value is one its usage names, so that the
// list above cannot drift from what a command accepts.
func TestFormatCompletionsMatchTheFlags(t *testing.T) {
	root := (&App{Workloads: DefaultWorkloads()}).rootCommand()
	seen := map[string]bool{}
	var walk func(*cobra.Command)
	walk = func(cmd *cobra.Command) {
		if f := cmd.Flags().Lookup("format"); f != nil {
			key := commandKey(cmd)
			vals, ok := formatValues[key]
			seen[key] = true
			if !ok {
				t.Errorf("%s has --format but no completion values in formatValues", cmd.CommandPath())
			}
			for _, v := range vals {
				if !strings.Contains(f.Usage, v) {
					t.Errorf("%s --format: completion value %q is not in its usage %q", cmd.CommandPath(), v, f.Usage)
				}
			}
		}
		for _, c := range cmd.Commands() {
			walk(c)
		}
	}
	walk(root)
	for key := range formatValues {
		if !seen[key] {
			t.Errorf("formatValues has %q, which has no --format flag", key)
		}
	}
}

// TestJSONFormats checks --format json of version and list, and the refusal
// of a format neither knows.
func TestJSONFormats(t *testing.T) {
	ctx := context.Background()
	v := runCLI(ctx, nil, "version", "--format", "json")
	var info versionInfo
	if err := json.Unmarshal([]byte(v.stdout), &info); v.code != ExitOK || err != nil || info.Version != "test" || info.Go == "" || info.Arch == "" {
		t.Errorf("version --format json: %d %v %+v\n%s", v.code, err, info, v.stderr)
	}
	l := runCLI(ctx, nil, "list", "--format", "json")
	var wls []workloadInfo
	if err := json.Unmarshal([]byte(l.stdout), &wls); l.code != ExitOK || err != nil {
		t.Fatalf("list --format json: %d %v\n%s", l.code, err, l.stderr)
	}
	i := slices.IndexFunc(wls, func(w workloadInfo) bool { return w.Name == "oltp_read_write" })
	if i < 0 || !slices.ContainsFunc(wls[i].Options, func(o optionInfo) bool { return o.Name == "table-size" && o.Default == "10000" }) {
		t.Errorf("list --format json lacks oltp_read_write's --table-size 10000: %+v", wls)
	}
	for _, cmd := range [][]string{{"version"}, {"list"}, {"suite", "status", t.TempDir()}} {
		r := runCLI(ctx, nil, append(cmd, "--format", "yaml")...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, `--format "yaml": use text or json`) {
			t.Errorf("%v --format yaml: %d %s", cmd, r.code, r.stderr)
		}
	}
}
