// Package setup is the set-up around one measured run (measure.Run), in one
// place for `fairbench run` and for every cell of `fairbench suite run`: the
// runner configuration (RunnerConfig), the random numbers (Rand), the data
// set read before the run (InspectData), the options a result records under
// the run command's names (Options), and the start of coordinated clients on
// the database server's clock (Start). Opening the target, with its error
// policy, is measure.Open's.
//
// Each caller reads its own language into these — the run command its
// flags, a suite its plan — and says its own mistakes in it; what follows
// from the values is decided here.
package setup

import (
	"context"
	"errors"
	"time"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/run/measure"
	"github.com/fairbench/fairbench/internal/run/runner"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/randgen"
)

// RunnerConfig completes what a run is asked to do (cfg, read from the run
// command's flags or a plan's run: section) with the target's error policy
// (measure.Target.Ignore). A coordinated client keeps interval histograms,
// so that merging the clients' results gives the merged intervals exact
// percentiles.
func RunnerConfig(cfg runner.Config, ignore driver.ErrorPolicy, coordinated bool) runner.Config {
	cfg.Ignore = ignore
	cfg.IntervalHistograms = cfg.IntervalHistograms || coordinated
	return cfg
}

// NoClient is Rand's client for a process that is not one of several
// coordinated clients, and for the steps around the runs (loading), which
// keep the seed as given.
const NoClient = -1

// Rand builds the random numbers of cfg: its seed as given, or one from the
// clock (now) when it is 0 (randgen.ResolveSeed). Coordinated client client
// (NoClient: none) derives its own seed from that one (randgen.ClientSeed),
// so that clients given one seed, or started at one moment, do not send the
// same statements; the seed used is Factory.Config().Seed.
func Rand(cfg randgen.Config, client int, now func() time.Time) (*randgen.Factory, error) {
	cfg.Seed = randgen.ResolveSeed(cfg.Seed, now)
	if client != NoClient {
		cfg.Seed = randgen.ClientSeed(cfg.Seed, client)
	}
	// NewFactory's errors name the --rand-* flag and the values it takes,
	// which a plan's keys share: they are returned as they are.
	return randgen.NewFactory(cfg)
}

// ErrInterrupted is InspectData's error when the run was interrupted (the
// context ended) while it read the data set: nothing was run.
var ErrInterrupted = errors.New("interrupted while reading the data set")

// InspectData asks wl what data t holds (workload.InspectData), once, before
// a measured run: the report goes to the result; data other than the data
// set describes is an error, which the caller places (the command, the
// cell). A dry run reaches no server and has no data set: nothing is read
// and an empty report returned. An interruption is ErrInterrupted.
func InspectData(ctx context.Context, t *measure.Target, wl workload.Workload) (workload.DataReport, error) {
	if t.Config.DryRun {
		return workload.DataReport{}, nil
	}
	rep, err := workload.InspectData(ctx, t.Driver, wl)
	if err != nil && (ctx.Err() != nil || errors.Is(err, context.Canceled)) {
		return rep, ErrInterrupted
	}
	return rep, err
}
