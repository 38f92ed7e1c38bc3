package pgbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/base/progress"
	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/open"
)

// DefaultSteps are the initialization steps pgbench -i runs without -I:
// drop, create, generate client-side, vacuum, primary keys.
const DefaultSteps = "dtgvp"

// allowedSteps are the step letters pgbench knows, in its own listing's order.
const allowedSteps = "dtgGvpf"

// InitOptions are pgbench -i's options. Start from DefaultInitOptions: the
// zero value is refused (pgbench refuses a scale or fill factor of 0 too).
type InitOptions struct {
	// Scale multiplies the rows: 1 branch, 10 tellers and 100000 accounts
	// per unit (-s).
	Scale int
	// Steps are the initialization steps to run, in order (-I): d drop, t
	// create tables, g generate client-side, G generate server-side, v
	// vacuum, p primary keys, f foreign keys; spaces are ignored.
	Steps string
	// FillFactor is how full (10..100 %) pgbench_accounts, _tellers and
	// _branches pages are filled (-F); only 100 on targets without a fill factor.
	FillFactor int
	// ForeignKeys adds step f when Steps lack it (--foreign-keys).
	ForeignKeys bool
	// Unlogged creates unlogged tables (--unlogged-tables; PostgreSQL only).
	Unlogged bool
	// Partitions splits pgbench_accounts into that many partitions (--partitions; 0: none).
	Partitions int
	// PartitionMethod is "range" or "hash" (--partition-method, any case);
	// "" is range when Partitions > 0.
	PartitionMethod string
	// Tablespace and IndexTablespace are where PostgreSQL puts the tables and
	// the primary keys (--tablespace, --index-tablespace); refused elsewhere.
	Tablespace      string
	IndexTablespace string
	// Quiet logs the generation's progress every 5 seconds instead of every
	// 100000 rows (-q).
	Quiet bool
}

// DefaultInitOptions are pgbench -i's defaults: scale 1, steps dtgvp, fill
// factor 100.
func DefaultInitOptions() InitOptions {
	return InitOptions{Scale: 1, Steps: DefaultSteps, FillFactor: 100}
}

// steps returns the step letters to run, in order: Steps without spaces,
// then f when ForeignKeys asks for it and Steps lack it, as pgbench does.
func (o InitOptions) steps() string {
	s := strings.ReplaceAll(o.Steps, " ", "")
	if o.ForeignKeys && !strings.Contains(s, "f") {
		s += "f"
	}
	return s
}

// partitionMethod is "range" or "hash" (or what the user gave, lower-cased).
func (o InitOptions) partitionMethod() string {
	if o.PartitionMethod == "" {
		return "range"
	}
	return strings.ToLower(o.PartitionMethod)
}

// Validate checks opts as pgbench does, with its wording, then against what
// the target of kind (driver.KindPgSQL, KindMySQL, KindSQLite) can do, before
// anything connects.
func (o InitOptions) Validate(kind string) error {
	d, err := open.Dialect(kind)
	if err != nil {
		return err
	}
	if err := o.validatePgbench(); err != nil {
		return err
	}
	return o.validateTarget(d)
}

// validatePgbench refuses what pgbench 15 refuses, with its messages.
func (o InitOptions) validatePgbench() error {
	if o.Scale < 1 || o.Scale > math.MaxInt32 {
		return fmt.Errorf("-s/--scale must be in range 1..%d", math.MaxInt32)
	}
	if o.FillFactor < 10 || o.FillFactor > 100 {
		return errors.New("-F/--fillfactor must be in range 10..100")
	}
	if o.Partitions < 0 || o.Partitions > math.MaxInt32 {
		return fmt.Errorf("--partitions must be in range 0..%d", math.MaxInt32)
	}
	if m := o.partitionMethod(); m != "range" && m != "hash" {
		return fmt.Errorf("invalid partition method, expecting \"range\" or \"hash\", got: \"%s\"", o.PartitionMethod)
	}
	if o.PartitionMethod != "" && o.Partitions == 0 {
		return errors.New("--partition-method requires greater than zero --partitions")
	}
	steps := o.steps()
	if steps == "" {
		return errors.New("no initialization steps specified")
	}
	for _, c := range steps {
		if !strings.ContainsRune(allowedSteps, c) {
			return fmt.Errorf("unrecognized initialization step \"%c\"; allowed step characters are: \"%s\"", c, allowedSteps)
		}
	}
	if strings.Contains(steps, "g") && strings.Contains(steps, "G") {
		return errors.New("-I/--init-steps: give only one of \"g\" (generate data client-side) and \"G\" (server-side): the second would truncate what the first loaded")
	}
	return nil
}

// validateTarget refuses what the dialect cannot do, saying what to change.
func (o InitOptions) validateTarget(d driver.Dialect) error {
	name := d.Name()
	if o.Unlogged && !d.Supports(driver.FeatureUnlogged) {
		return fmt.Errorf("--unlogged-tables: %s has no unlogged tables: leave the option out", name)
	}
	if o.FillFactor != 100 && !d.Supports(driver.FeatureFillFactor) {
		return fmt.Errorf("-F/--fillfactor %d: %s has no per-table fill factor: leave it at 100", o.FillFactor, name)
	}
	if (o.Tablespace != "" || o.IndexTablespace != "") && !d.Supports(driver.FeatureTablespaces) {
		return fmt.Errorf("--tablespace/--index-tablespace are PostgreSQL's: %s has none; leave them out", name)
	}
	if o.Partitions > 0 {
		feature := driver.FeatureRangePartitions
		if o.partitionMethod() == "hash" {
			feature = driver.FeatureHashPartitions
		}
		if !d.Supports(feature) {
			return fmt.Errorf("--partitions=%d --partition-method=%s: %s has no %s partitions; leave --partitions out",
				o.Partitions, o.partitionMethod(), name, o.partitionMethod())
		}
	}
	if strings.Contains(o.steps(), "f") {
		if !d.Supports(driver.FeatureForeignKeys) {
			return fmt.Errorf("foreign keys (-I f, --foreign-keys): %s cannot add them to existing tables; leave \"f\" out of -I/--init-steps", name)
		}
		if o.Partitions > 0 && !d.Supports(driver.FeaturePartitionedForeignKeys) {
			return fmt.Errorf("foreign keys (-I f, --foreign-keys) with --partitions: %s has no foreign keys on partitioned tables; drop one of the two", name)
		}
	}
	return nil
}

// StepTiming is how long one initialization step took.
type StepTiming struct {
	// Step is the step's letter (d, t, g, G, v, p, f).
	Step byte
	// Name is the step as pgbench's final line names it ("primary keys").
	Name     string
	Duration time.Duration
}

// Timings are how long Init took, in all and per step in the order run.
type Timings struct {
	Total time.Duration
	Steps []StepTiming
}

// String is pgbench 15's final line: "done in 1.23 s (drop tables 0.01 s,
// create tables 0.00 s, …).".
func (t Timings) String() string {
	parts := make([]string, len(t.Steps))
	for i, s := range t.Steps {
		parts[i] = fmt.Sprintf("%s %.2f s", s.Name, s.Duration.Seconds())
	}
	return fmt.Sprintf("done in %.2f s (%s).", t.Total.Seconds(), strings.Join(parts, ", "))
}

// stepNames are the steps as pgbench's final line names them.
var stepNames = map[byte]string{
	'd': "drop tables",
	't': "create tables",
	'g': "client-side generate",
	'G': "server-side generate",
	'v': "vacuum",
	'p': "primary keys",
	'f': "foreign keys",
}

// Init initializes pgbench's data set on db as pgbench -i does: it checks
// opts (Validate), then runs opts' steps in order on one connection, logging
// pgbench's lines to log ("dropping old tables...", the generation's
// progress, "done in …"), counting the generated accounts rows on prog (which
// may be nil) and returning how long each step took. A cancelled ctx stops a
// load in progress.
func Init(ctx context.Context, db driver.Driver, opts InitOptions, log io.Writer, prog *progress.Counter) (Timings, error) {
	if log == nil {
		log = io.Discard
	}
	if err := opts.Validate(db.Kind()); err != nil {
		return Timings{}, err
	}
	conn, err := db.Connect(ctx, 0)
	if err != nil {
		return Timings{}, fmt.Errorf("pgbench init: connect: %w", err)
	}
	defer conn.Close()
	in := &initializer{conn: conn, d: db.Dialect(), opts: opts, log: log, prog: prog}
	var t Timings
	start := time.Now()
	for _, step := range []byte(opts.steps()) {
		stepStart := time.Now()
		if err := in.run(ctx, step); err != nil {
			return t, fmt.Errorf("pgbench init, step %c (%s): %w", step, stepNames[step], err)
		}
		t.Steps = append(t.Steps, StepTiming{Step: step, Name: stepNames[step], Duration: time.Since(stepStart)})
	}
	t.Total = time.Since(start)
	fmt.Fprintln(log, t.String())
	return t, nil
}

// initializer runs the steps of one Init on one connection.
type initializer struct {
	conn driver.Conn
	d    driver.Dialect
	opts InitOptions
	log  io.Writer
	prog *progress.Counter
}

// run runs one step.
func (in *initializer) run(ctx context.Context, step byte) error {
	switch step {
	case 'd':
		fmt.Fprintln(in.log, "dropping old tables...")
		return Drop(ctx, in.conn, in.d)
	case 't':
		fmt.Fprintln(in.log, "creating tables...")
		return in.createTables(ctx)
	case 'g':
		fmt.Fprintln(in.log, "generating data (client-side)...")
		return in.generateClientSide(ctx)
	case 'G':
		fmt.Fprintln(in.log, "generating data (server-side)...")
		return in.generateServerSide(ctx)
	case 'v':
		fmt.Fprintln(in.log, "vacuuming...")
		return in.vacuum(ctx)
	case 'p':
		fmt.Fprintln(in.log, "creating primary keys...")
		return in.primaryKeys(ctx)
	case 'f':
		fmt.Fprintln(in.log, "creating foreign keys...")
		return in.foreignKeys(ctx)
	}
	return fmt.Errorf("unknown step %q", step)
}

// exec runs statements in order, naming the failing one.
func (in *initializer) exec(ctx context.Context, stmts ...string) error {
	for _, s := range stmts {
		if _, err := in.conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

// createTables creates the four tables (and the partitions of pgbench_accounts).
func (in *initializer) createTables(ctx context.Context) error {
	for _, t := range schemaTables(in.opts) {
		if err := in.exec(ctx, in.d.CreateTable(t)...); err != nil {
			return err
		}
	}
	if in.opts.Partitions > 0 {
		fmt.Fprintf(in.log, "creating %d partitions...\n", in.opts.Partitions)
	}
	return nil
}

// vacuum runs the dialect's vacuum and analyze on the four tables, in pgbench's order.
func (in *initializer) vacuum(ctx context.Context) error {
	for _, t := range []string{Branches, Tellers, Accounts, History} {
		q := in.d.VacuumAnalyze(t)
		if _, err := in.conn.Query(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// primaryKeys adds the primary keys of branches, tellers and accounts.
func (in *initializer) primaryKeys(ctx context.Context) error {
	for _, k := range primaryKeys(in.opts.IndexTablespace) {
		if err := in.exec(ctx, in.d.AddPrimaryKey(k.table, k.index)); err != nil {
			return err
		}
	}
	return nil
}

// foreignKeys adds pgbench's five foreign keys.
func (in *initializer) foreignKeys(ctx context.Context) error {
	for _, f := range foreignKeys() {
		if err := in.exec(ctx, in.d.AddForeignKey(f.table, f.fk)); err != nil {
			return err
		}
	}
	return nil
}
