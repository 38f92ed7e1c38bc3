package randgen

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestDefaultConfigIsSysbenchDefaults(t *testing.T) {
	want := Config{Type: "uniform", ZipfianExp: 0.8, ParetoH: 0.2, SpecialIter: 12, SpecialPct: 1, SpecialRes: 75}
	if got := DefaultConfig(); got != want {
		t.Fatalf("DefaultConfig() = %+v, want %+v", got, want)
	}
	if _, err := NewFactory(DefaultConfig()); err != nil {
		t.Fatalf("defaults rejected: %v", err)
	}
}

func TestTypesAreAllAccepted(t *testing.T) {
	want := []string{"uniform", "gaussian", "special", "pareto", "zipfian"}
	if got := Types(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Types() = %v, want %v", got, want)
	}
	for _, typ := range Types() {
		cfg := DefaultConfig()
		cfg.Type = typ
		f, err := NewFactory(cfg)
		if err != nil {
			t.Errorf("type %q rejected: %v", typ, err)
			continue
		}
		if f.Config() != cfg {
			t.Errorf("Config() = %+v, want %+v", f.Config(), cfg)
		}
	}
	// Types returns a fresh slice: changing it changes nothing.
	Types()[0] = "bogus"
	if Types()[0] != "uniform" {
		t.Fatal("Types() shares its slice between calls")
	}
}

func TestNewFactoryValidation(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*Config)
		want   string // substring of the error; "" means valid
	}{
		{"defaults", func(*Config) {}, ""},
		{"unknown type", func(c *Config) { c.Type = "foo" },
			`unknown --rand-type "foo": use uniform, gaussian, special, pareto or zipfian`},
		{"empty type", func(c *Config) { c.Type = "" }, `unknown --rand-type ""`},
		{"type is case sensitive", func(c *Config) { c.Type = "Uniform" }, `unknown --rand-type "Uniform"`},
		{"iter zero", func(c *Config) { c.SpecialIter = 0 }, "--rand-spec-iter=0 is out of range: use an integer from 1 to 1000"},
		{"iter negative", func(c *Config) { c.SpecialIter = -3 }, "--rand-spec-iter=-3"},
		{"iter too big", func(c *Config) { c.SpecialIter = 1001 }, "--rand-spec-iter=1001"},
		{"iter one", func(c *Config) { c.SpecialIter = 1 }, ""},
		{"iter max", func(c *Config) { c.SpecialIter = 1000 }, ""},
		{"pct negative", func(c *Config) { c.SpecialPct = -1 }, "--rand-spec-pct=-1 is out of range: use a percentage from 0 to 100"},
		{"pct over 100", func(c *Config) { c.SpecialPct = 101 }, "--rand-spec-pct=101"},
		{"pct 0", func(c *Config) { c.SpecialPct = 0 }, ""},
		{"pct 100", func(c *Config) { c.SpecialPct = 100 }, ""},
		{"res negative", func(c *Config) { c.SpecialRes = -1 }, "--rand-spec-res=-1 is out of range: use a percentage from 0 to 100"},
		{"res over 100", func(c *Config) { c.SpecialRes = 150 }, "--rand-spec-res=150"},
		{"res 0", func(c *Config) { c.SpecialRes = 0 }, ""},
		{"res 100", func(c *Config) { c.SpecialRes = 100 }, ""},
		{"pareto h 0", func(c *Config) { c.ParetoH = 0 }, "--rand-pareto-h=0 is out of range: use a number strictly between 0 and 1"},
		{"pareto h 1", func(c *Config) { c.ParetoH = 1 }, "--rand-pareto-h=1"},
		{"pareto h negative", func(c *Config) { c.ParetoH = -0.2 }, "--rand-pareto-h=-0.2"},
		{"pareto h NaN", func(c *Config) { c.ParetoH = math.NaN() }, "--rand-pareto-h=NaN"},
		{"pareto h 0.5", func(c *Config) { c.ParetoH = 0.5 }, ""},
		{"zipf negative", func(c *Config) { c.ZipfianExp = -0.1 }, "--rand-zipfian-exp=-0.1 is out of range: use a finite number >= 0"},
		{"zipf NaN", func(c *Config) { c.ZipfianExp = math.NaN() }, "--rand-zipfian-exp=NaN"},
		{"zipf Inf", func(c *Config) { c.ZipfianExp = math.Inf(1) }, "--rand-zipfian-exp=+Inf"},
		{"zipf 0", func(c *Config) { c.ZipfianExp = 0 }, ""},
		{"zipf 1", func(c *Config) { c.ZipfianExp = 1 }, ""},
		{"zipf 3", func(c *Config) { c.ZipfianExp = 3 }, ""},
		{"seed 0 is an ordinary seed", func(c *Config) { c.Seed = 0 }, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tc.modify(&cfg)
			f, err := NewFactory(cfg)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("NewFactory(%+v) = %v, want success", cfg, err)
			case tc.want == "" && f == nil:
				t.Fatal("NewFactory returned a nil factory and no error")
			case tc.want != "" && err == nil:
				t.Fatalf("NewFactory(%+v) succeeded, want error containing %q", cfg, tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Fatalf("error %q does not contain %q", err, tc.want)
			case tc.want != "" && f != nil:
				t.Fatal("NewFactory returned a factory along with an error")
			}
		})
	}
}

func TestResolveSeed(t *testing.T) {
	at := func(tm time.Time) func() time.Time { return func() time.Time { return tm } }
	clock := time.Date(2025, 3, 4, 5, 6, 7, 890, time.UTC)
	tests := []struct {
		name string
		seed uint64
		now  func() time.Time
		want uint64
	}{
		{"explicit seed kept", 42, at(clock), 42},
		{"explicit max seed kept", math.MaxUint64, at(clock), math.MaxUint64},
		{"zero from the clock", 0, at(clock), uint64(clock.UnixNano())},
		{"clock at the epoch is not zero", 0, at(time.Unix(0, 0)), 1},
		{"clock before the epoch fits 63 bits", 0, at(time.Unix(-5, 0)), uint64(time.Unix(-5, 0).UnixNano()) & math.MaxInt64},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ResolveSeed(tc.seed, tc.now)
			if got != tc.want {
				t.Fatalf("ResolveSeed(%d) = %d, want %d", tc.seed, got, tc.want)
			}
			if got == 0 {
				t.Fatal("ResolveSeed returned 0")
			}
		})
	}
	if s := ResolveSeed(0, time.Now); s == 0 || s > math.MaxInt64 {
		t.Fatalf("ResolveSeed(0, time.Now) = %d, want 1..MaxInt64", s)
	}
}
