package suite

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzPlan parses and validates plans (the repository's plans and mutations of
// them): no input panics, a refusal is a located PlanError or names the file,
// and a plan that validates expands and prints its dry run.
func FuzzPlan(f *testing.F) {
	files, err := filepath.Glob("../../../plans/*.yaml")
	if err != nil || len(files) == 0 {
		f.Fatalf("no plans in plans/: %v", err)
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"", "[]", "name: x\n", "matrix:\n  threads: [0, -1]\n",
		"matrix:\n  threads: 1..99999999999\n", "run:\n  time: 1e400\n",
		"target:\n  mysql_host: h\n  pgsql_host: h\n", "data: [{workload: tpcc, warehouses: 0}]\n",
		"&a [*a]\n", "matrix: {threads: \"4..1\"}\n",
		"server: {flavor: mariadb}\ndata: {tables: 1, table_size: 1000}\nmatrix: {workloads: [oltp_point_select], threads: [1], server_cpus: [1, 65, 99]}\nrun: {time: 1}\n",
		"target:\n  driver: mysql\n  isolation: read-committed\n  session_vars: [a=1, \"b=x\\ny\"]\n  compression: on\n  ssl_cipher: x\n",
	} {
		f.Add([]byte(s))
	}
	env := fixtureEnv(intelSys, "") // server CPU sets are chosen from a fixture machine, not this one
	f.Fuzz(func(t *testing.T, text []byte) {
		p, err := ParsePlan("fuzz.yaml", text)
		if err != nil {
			checkPlanError(t, err)
			return
		}
		// Values the fixture cannot run are refused naming the plan; the
		// cells without them are run as --skip-impossible would.
		if err := p.SkipImpossible(p.Validate(env)); err != nil {
			checkPlanError(t, err)
			return
		}
		if err := p.Scale(0.5); err != nil {
			checkPlanError(t, err)
			return
		}
		p.Expand()
		var b bytes.Buffer
		if err := DryRun(&b, p); err != nil {
			t.Logf("dry run refused: %v", err)
		}
	})
}

// checkPlanError fails unless err says which plan it is about.
func checkPlanError(t *testing.T, err error) {
	t.Helper()
	var pe *PlanError
	if !errors.As(err, &pe) && !bytes.Contains([]byte(err.Error()), []byte("fuzz.yaml")) {
		t.Logf("error not located in the plan: %v", err)
	}
	if err.Error() == "" {
		t.Fatal("empty error message")
	}
}
