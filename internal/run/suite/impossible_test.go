package suite

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestImpossibleValuesNamedAtOnce: a plan with several server_cpus values the
// machine cannot give is refused naming every one (with its line, the CPUs
// this process may use and how many cells they take), and suggests the
// option that drops them; with it, the plan runs, estimates and dry-runs
// the other cells only, and says what it left out.
func TestImpossibleValuesNamedAtOnce(t *testing.T) {
	text := "server: {flavor: mariadb}\n" + fixtureOK + "  server_cpus: [1, 4, 2, 8, 16]\nrun: {time: 1}\n"
	p, err := validOn(text, fixtureEnv(vmSys, ""))
	var ie *ImpossibleError
	if !errors.As(err, &ie) {
		t.Fatalf("validate: %v, want an *ImpossibleError", err)
	}
	perSet := 4 // 2 workloads × 2 thread counts
	if len(ie.Values) != 3 || ie.Total != 5*perSet || ie.Dropped != 3*perSet || !ie.Skippable() {
		t.Errorf("refusal: %d values, %d of %d cells dropped, skippable %v; want 3, %d of %d, true", len(ie.Values), ie.Dropped, ie.Total, ie.Skippable(), 3*perSet, 5*perSet)
	}
	msg := err.Error()
	for _, want := range []string{
		"3 values of the plan cannot run on this machine",
		"plan.yaml:6: matrix.server_cpus[1]: 4 CPUs asked for",
		"plan.yaml:6: matrix.server_cpus[3]: 8 CPUs asked for",
		"plan.yaml:6: matrix.server_cpus[4]: 16 CPUs asked for",
		"this process may use CPUs 0-1",
		fmt.Sprintf("they take %d of the plan's %d cells: give %s to run the other %d", 3*perSet, 5*perSet, SkipFlag, 2*perSet),
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("refusal lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "server_cpus[0]") || strings.Contains(msg, "server_cpus[2]") {
		t.Errorf("refusal names a value the machine can give:\n%s", msg)
	}

	if err := p.SkipImpossible(err); err != nil {
		t.Fatalf("skip: %v", err)
	}
	cells := p.Expand()
	if len(cells) != 2*perSet {
		t.Fatalf("%d cells without the impossible values, want %d", len(cells), 2*perSet)
	}
	for _, c := range cells {
		if c.ServerCPUs != 1 && c.ServerCPUs != 2 {
			t.Errorf("cell %s on server_cpus %d, which this machine cannot give", c.ID, c.ServerCPUs)
		}
	}
	if e := p.estimate(cells); e.Cells != 2*perSet {
		t.Errorf("the estimate counts %d cells, want %d", e.Cells, 2*perSet)
	}
	skipped := p.Skipped()
	if len(skipped) != 3 || skipped[0].Key != "matrix.server_cpus[1]" || skipped[0].Value != "4" || skipped[0].Cells != perSet || skipped[2].Value != "16" {
		t.Errorf("skipped: %+v", skipped)
	}
	var out bytes.Buffer
	if err := DryRun(&out, p); err != nil {
		t.Fatal(err)
	}
	dry := out.String()
	for _, want := range []string{
		"Skipped (" + SkipFlag + "): the values below cannot run on this machine; their cells are left out of the suite, 12 in all:",
		"matrix.server_cpus[1] = 4 (4 cells): 4 CPUs asked for",
		"matrix.server_cpus[4] = 16 (4 cells)",
		"8 cells × (0s warm-up + 1s measured)",
	} {
		if !strings.Contains(dry, want) {
			t.Errorf("dry run lacks %q:\n%s", want, dry)
		}
	}
	if strings.Contains(dry, "c4 (") || strings.Contains(dry, "c16 ") {
		t.Errorf("dry run lists a cell of a skipped value:\n%s", dry)
	}
}

// TestImpossibleProfilesAndSets: a profile this machine's memory cannot hold
// is impossible like a CPU set it cannot give — both are named at once, the
// cells each takes add up to the cells left out — and a plan nothing of
// which can run is refused without the option that would leave nothing.
func TestImpossibleProfilesAndSets(t *testing.T) {
	env := fixtureEnv(vmSys, "")
	env.MemoryBytes = 1 << 30 // 1 GiB: a cpu-bound buffer pool for ~1.8 GiB of rows does not fit
	big := "server: {flavor: mariadb, profiles: [cpu-bound, io-bound]}\ndata: {tables: 8, table_size: 1000000}\nmatrix:\n  workloads: [oltp_point_select]\n  threads: [1, 4]\n  server_cpus: [1, 4]\nrun: {time: 1}\n"
	p, err := validOn(big, env)
	var ie *ImpossibleError
	if !errors.As(err, &ie) {
		t.Fatalf("validate: %v, want an *ImpossibleError", err)
	}
	msg := err.Error()
	for _, want := range []string{"2 values", "plan.yaml:1: server.profiles[0]: profile cpu-bound needs a buffer pool of", "matrix.server_cpus[1]: 4 CPUs asked for"} {
		if !strings.Contains(msg, want) {
			t.Errorf("refusal lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "io-bound needs") {
		t.Errorf("refusal names the io-bound profile, which fits:\n%s", msg)
	}
	// 2 profiles × 2 sets × 2 thread counts; io-bound on 1 CPU runs.
	if ie.Total != 8 || ie.Dropped != 6 {
		t.Errorf("%d of %d cells dropped, want 6 of 8", ie.Dropped, ie.Total)
	}
	if err := p.SkipImpossible(err); err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, s := range p.Skipped() {
		sum += s.Cells
	}
	cells := p.Expand()
	if sum != ie.Dropped || len(cells) != 2 || cells[0].Profile != "io-bound" || cells[0].ServerCPUs != 1 {
		t.Errorf("skipped values take %d cells (want %d); left %+v", sum, ie.Dropped, cells)
	}

	none := "server: {flavor: mariadb}\n" + fixtureOK + "  server_cpus: [4, 8]\nrun: {time: 1}\n"
	p, err = validOn(none, fixtureEnv(vmSys, ""))
	if !errors.As(err, &ie) || ie.Skippable() || p.SkipImpossible(err) == nil {
		t.Fatalf("a plan none of whose sets this machine can give: %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "matrix.server_cpus[0]") || !strings.Contains(msg, "matrix.server_cpus[1]") ||
		!strings.Contains(msg, "nothing of it can run here") || strings.Contains(msg, SkipFlag) {
		t.Errorf("refusal:\n%s", msg)
	}
}

// TestPossiblePlanRunsWhole: a plan the machine can run is not refused and
// skips nothing.
func TestPossiblePlanRunsWhole(t *testing.T) {
	p, err := validOn("server: {flavor: mariadb}\n"+fixtureOK+"  server_cpus: [1, 2]\nrun: {time: 1}\n", fixtureEnv(vmSys, ""))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Skipped()) != 0 || len(p.Expand()) != 8 {
		t.Errorf("skipped %v, %d cells; want none skipped, 8 cells", p.Skipped(), len(p.Expand()))
	}
}

// TestDryRunResolvesClientRest: the dry run prints the client's CPU list
// that client_cpus: rest gives on this machine, never "rest" alone.
func TestDryRunResolvesClientRest(t *testing.T) {
	for _, c := range []struct {
		name, server, want string
	}{
		{"share", "server: {flavor: mariadb, cpus_share: 0.5}\n", "Client: every thread of fairbench on CPUs 1 (client_cpus: rest"},
		{"sweep", "server: {flavor: mariadb}\n", "Client: every thread of fairbench on CPUs 2-3 (client_cpus: rest"},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := c.server + fixtureOK + "run: {time: 1, client_cpus: rest}\n"
			usable := ""
			if c.name == "sweep" {
				text = c.server + fixtureOK + "  server_cpus: [1, 2]\nrun: {time: 1, client_cpus: rest}\n"
				usable = "0-3"
			}
			sys := vmSys
			if usable != "" {
				sys = intelSys
			}
			p, err := validOn(text, fixtureEnv(sys, usable))
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := DryRun(&out, p); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), c.want) || strings.Contains(out.String(), "CPUs rest") {
				t.Errorf("dry run:\n%s\nwant %q", out.String(), c.want)
			}
		})
	}
}
