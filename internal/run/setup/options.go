package setup

import (
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/targetspec"
	"github.com/fairbench/fairbench/internal/machine/clientcpus"
	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/run/runner"
	"github.com/fairbench/fairbench/internal/workload/randgen"
)

// Options are the options a result records (result.Result.Options): each
// under the run command's flag name, with its value as that flag prints it,
// so that a suite's cells and single runs read alike (compare, cost and
// merge match runs by them). The run command records every flag it has
// (AddFlags); a suite's cell records what its plan gives under the same
// names (AddRun, AddRand, AddSession); both record the client's CPUs
// (AddClientCPUs). measure.Run adds "ignore-errors", the policy the run used.
type Options map[string]string

// flagName is the run command's name of a target setting, without its
// dashes ("isolation-level").
func flagName(key targetspec.Key, kind string) string {
	return strings.TrimPrefix(targetspec.Flags.Name(key, kind), "--")
}

// Secrets are the options whose values never appear in output or results:
// the passwords of the target's flags.
func Secrets() []string {
	return []string{flagName(targetspec.Password, driver.KindMySQL), flagName(targetspec.Password, driver.KindPgSQL)}
}

// Secret reports whether name is one of Secrets.
func Secret(name string) bool { return slices.Contains(Secrets(), name) }

// AddFlags records every flag of fs as parsed (not --help), a secret one
// (Secret) given a value as "***".
func (o Options) AddFlags(fs *pflag.FlagSet) {
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Name == "help" {
			return
		}
		v := f.Value.String()
		if Secret(f.Name) && v != "" {
			v = "***"
		}
		o[f.Name] = v
	})
}

// AddRun records what cfg asks of a run as the run command's flags give it:
// --threads, --time and --warmup-time (in seconds), --rate, --connect-rate,
// --connect-per-event, --jobs and --percentile.
func (o Options) AddRun(cfg runner.Config) {
	o["threads"] = strconv.Itoa(cfg.Threads)
	o["time"] = number(cfg.Duration.Seconds())
	o["warmup-time"] = number(cfg.Warmup.Seconds())
	o["rate"] = number(cfg.Rate)
	o["connect-rate"] = number(cfg.ConnectRate)
	o["connect-per-event"] = strconv.FormatBool(cfg.ConnectPerEvent)
	o["jobs"] = strconv.Itoa(cfg.Jobs)
	pcts := make([]string, len(cfg.Percentiles))
	for i, p := range cfg.Percentiles {
		pcts[i] = result.PercentileKey(p)
	}
	o["percentile"] = strings.Join(pcts, ",")
}

// number writes a number as the result's options do: in full, without an
// exponent.
func number(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// AddRand records the distribution and the seed used (--rand-type,
// --rand-seed) of cfg, as Rand resolved it.
func (o Options) AddRand(cfg randgen.Config) {
	o["rand-type"] = cfg.Type
	o["rand-seed"] = strconv.FormatUint(cfg.Seed, 10)
}

// AddClientCPUs records the CPUs the client was pinned to (--client-cpus:
// the list decided, "rest" resolved; empty when unpinned) and whether they
// could share the server's (--allow-cpu-overlap).
func (o Options) AddClientCPUs(d clientcpus.Decision, allowOverlap bool) {
	o["client-cpus"] = d.CPUs.String()
	o["allow-cpu-overlap"] = strconv.FormatBool(allowOverlap)
}

// AddSession records the session set-up asked of every connection, as the
// run command's --isolation-level and --session-var print it ("[a=1,b=2]");
// what the server made of it is in the result's target.session.
func (o Options) AddSession(isolation string, vars []string) {
	fs := pflag.NewFlagSet("session", pflag.ContinueOnError)
	fs.String(flagName(targetspec.Isolation, ""), isolation, "")
	fs.StringArray(flagName(targetspec.SessionVars, ""), vars, "")
	o.AddFlags(fs)
}
