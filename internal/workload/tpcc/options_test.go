package tpcc

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/record/result"
)

func TestValidate(t *testing.T) {
	cases := []struct {
		args    []string
		wantErr string // "" = valid
	}{
		{nil, ""},
		{[]string{"--warehouses=2", "--parts=4", "--mix=10/10/1/1/1", "--wait"}, ""},
		{[]string{"--warehouses=0"}, "--warehouses=0"},
		{[]string{"--parts=0"}, "--parts=0"},
		{[]string{"--mix=1,2,3"}, "--mix"},
		{[]string{"--mix=0,0,0,0,0"}, "--mix"},
		{[]string{"--mix=a,1,1,1,1"}, "--mix"},
		{[]string{"--mix=-1,1,1,1,1"}, "--mix"},
	}
	for _, c := range cases {
		fs := pflag.NewFlagSet("tpcc", pflag.ContinueOnError)
		w := newTPCC(fs)
		if err := fs.Parse(c.args); err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		err := w.Validate()
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("%v: %v", c.args, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%v: error %v, want one naming %s", c.args, err, c.wantErr)
		}
	}
	w := newWorkload(t)
	if w.opts.Warehouses != 10 || w.opts.mix != [5]int{45, 43, 4, 4, 4} || w.opts.Wait || w.opts.Parts != 1 {
		t.Errorf("defaults: %+v", w.opts)
	}
	for _, name := range []string{"check-all", "threads"} {
		fs := pflag.NewFlagSet("tpcc", pflag.ContinueOnError)
		newTPCC(fs)
		if fs.Lookup(name) != nil {
			t.Errorf("tpcc registers --%s, which belongs to the CLI", name)
		}
	}
}

func TestFigures(t *testing.T) {
	w := newWorkload(t, "--warehouses=10")
	p := &result.Phase{Seconds: 30, Kinds: []result.KindPhase{
		{Name: "new_order", Events: 643, Rollbacks: 7},
		{Name: "payment", Events: 600},
		{Name: "order_status", Events: 57},
	}}
	got := map[string]float64{}
	for _, f := range w.Figures(p) {
		got[f.Name] = f.Value
	}
	want := map[string]float64{"tpmC": 1286, "tpmTotal": 2600, "efficiency": 1000}
	for name, v := range want {
		if d := got[name] - v; d > 1e-6 || d < -1e-6 {
			t.Errorf("%s = %v, want %v", name, got[name], v)
		}
	}
}
