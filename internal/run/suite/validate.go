package suite

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/targetspec"
	"github.com/fairbench/fairbench/internal/machine/clientcpus"
	"github.com/fairbench/fairbench/internal/machine/cpuset"
	"github.com/fairbench/fairbench/internal/machine/localserver"
	"github.com/fairbench/fairbench/internal/machine/machinewatch"
	"github.com/fairbench/fairbench/internal/machine/servermachine"
	"github.com/fairbench/fairbench/internal/run/runner"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/randgen"
)

// Env is what a suite reads from outside its plan.
type Env struct {
	// Registry holds the workloads a plan may name.
	Registry *workload.Registry
	// Getenv reads secrets named by password_env.
	Getenv func(string) string
	// CPUs is this machine's logical CPU count (threads: auto); 0 means runtime.NumCPU().
	CPUs int
	// Kube is where the agents of target.server_agent_service are found
	// (the zero value: the cluster of the pod the suite runs in).
	Kube machinewatch.KubeEnv
	// UsableCPUs returns the CPUs this process may pin a server to
	// (cpuset.Usable); server.cpus outside them is refused. nil: not checked
	// here (the server's start still checks).
	UsableCPUs func() (cpuset.Set, error)
	// Topology reads the machine's CPU topology, from which server.cpus_share
	// and matrix.server_cpus choose the server's CPUs (within UsableCPUs);
	// nil reads this machine's /sys (cpuset.ReadTopology).
	Topology func() (cpuset.Topology, error)
	// MemoryBytes is the memory the server profiles are sized for; 0 reads
	// this machine's (localserver).
	MemoryBytes int64
}

// Defaults of optional plan fields.
const (
	defaultThreadsMaxFactor = 4
	defaultRounds           = 1
	// maxThreads is the run command's bound on --threads.
	maxThreads = workload.MaxThreads
)

// defaultPercentiles are the run command's.
var defaultPercentiles = []float64{50, 90, 95, 99, 99.9}

// Validate checks the plan against the workloads and fills in defaults. Every
// mistake is reported with the file, the line and what to change; nothing
// touches a database. A plan without mistakes some of whose values this
// machine cannot run (matrix.server_cpus values, server profiles) is refused
// with an *ImpossibleError naming every one; the plan is then left without
// them, for SkipImpossible.
func (p *Plan) Validate(env Env) error {
	if env.CPUs <= 0 {
		env.CPUs = runtime.NumCPU()
	}
	p.registry = env.Registry
	p.memory = env.MemoryBytes
	p.impossible = nil
	checks := []func(Env) error{p.validateTarget, p.validateServer, p.validateMatrix, p.validateServerCPUSweep, p.validateClientCPUs, p.validateRun, p.validateSteps, p.validateData, p.validateClients, p.validateProfiles}
	for _, check := range checks {
		if err := check(env); err != nil {
			return err
		}
	}
	p.countImpossible()
	return p.impossibleError()
}

func (p *Plan) validateTarget(env Env) error {
	t := &p.Target
	if t.Password != "" {
		return p.errAt("target.password", "passwords never go in plan files: remove it and name an environment variable instead (password_env: MYSQL_PWD)")
	}
	if p.Server != nil {
		for key, set := range map[string]bool{"driver": t.Driver != "", "host": t.Host != "", "port": t.Port != "", "socket": t.Socket != "",
			"user": t.User != "", "db": t.DB != "", "sqlite_db": t.SQLiteDB != "", "password_env": t.PasswordEnv != ""} {
			if set {
				return p.errAt("target."+key, "the plan starts its own server (server:), which decides where to connect: remove target.%s", key)
			}
		}
	}
	parsed, err := p.machineSources(env.Getenv)
	if err != nil {
		return err
	}
	if sm := t.ServerMachine; sm != nil {
		if err := sm.Validate(); err != nil {
			return p.machineErr(err)
		}
		if len(parsed.Agents) > 0 || parsed.Kubernetes != nil {
			return p.errAt("target.server_machine", "target.server_agent and target.server_agent_service describe the server's machines themselves: remove server_machine or them")
		}
	}
	for i, v := range t.SessionVars {
		if strings.ContainsAny(v, "\r\n") {
			return p.errAt(fmt.Sprintf("target.session_vars[%d]", i), "%q spans several lines: give one NAME=VALUE per list item", v)
		}
	}
	// The parser also checks ignore_errors against the driver's codes.
	_, _, err = p.TargetConfig(env.Getenv)
	return err
}

// Sources are the target's keys that name or find the agents describing
// the server's machines.
func (t *TargetSpec) Sources() machinewatch.Sources {
	return machinewatch.Sources{Agents: t.ServerAgent, TokenEnv: t.ServerAgentTokenEnv,
		Service: t.ServerAgentService, Pods: t.ServerPods, Namespace: t.ServerPodsNamespace}
}

// machineSources checks the target's agent keys (machinewatch.Sources),
// placing a mistake at its key.
func (p *Plan) machineSources(getenv func(string) string) (machinewatch.Parsed, error) {
	parsed, err := p.Target.Sources().Parse(getenv)
	var se *machinewatch.SourceError
	if errors.As(err, &se) {
		return parsed, p.errAt("target."+se.Key, "%s", se.Msg)
	}
	return parsed, err
}

// DiscoverAgents finds the agents of the target's server_agent_service
// (nil when it names none), before the suite runs anything: a failure is
// a target error.
func (p *Plan) DiscoverAgents(ctx context.Context, env Env) (*machinewatch.Discovered, error) {
	parsed, err := p.machineSources(env.Getenv)
	if err != nil {
		return nil, err
	}
	return machinewatch.Discover(ctx, parsed, env.Kube)
}

// machineWatch describes the server's machines of cfg as the plan's
// target.server_agent (or the agents found, DiscoverAgents) and
// target.server_machine say (managedPID: the server the plan started, 0
// for none).
func (p *Plan) machineWatch(ctx context.Context, cfg driver.Config, managedPID int, getenv func(string) string, found *machinewatch.Discovered) (*machinewatch.Watch, error) {
	parsed, err := p.machineSources(getenv)
	if err != nil {
		return nil, err
	}
	opts := machinewatch.Options{Agents: parsed.Agents, Discovered: found, Token: parsed.Token, ManagedPID: managedPID}
	if p.Target.ServerMachine != nil {
		opts.Spec = *p.Target.ServerMachine
	}
	w, err := machinewatch.Prepare(ctx, cfg, opts)
	var te *machinewatch.TargetError
	switch {
	case errors.As(err, &te):
		return nil, err
	case err != nil:
		return nil, p.machineErr(err)
	}
	return w, nil
}

// machineErr places an error of servermachine at its target.server_machine key.
func (p *Plan) machineErr(err error) error {
	var fe *servermachine.FieldError
	if errors.As(err, &fe) && fe.Key != "" {
		return p.errAt("target.server_machine."+fe.Key, "%s", fe.Msg)
	}
	return p.errAt("target.server_machine", "%v", err)
}

// TargetConfig turns the target into a driver configuration and the
// ignore-errors list, with the run command's parser of target settings
// (targetspec), so that a plan's target: keys and the run command's flags
// accept and refuse the same. A plan that starts its own server connects to
// it (filled in at run time); its driver is the server's.
func (p *Plan) TargetConfig(getenv func(string) string) (driver.Config, string, error) {
	cfg, ignore, err := targetspec.Parse(p.targetSettings(), targetspec.Plan, getenv)
	var te *targetspec.Error
	if errors.As(err, &te) {
		return cfg, ignore, p.errAt("target."+string(te.Key), "%s", te.Msg)
	}
	return cfg, ignore, err
}

// targetSettings are the target: keys the plan gives (an empty value is
// one left out).
func (p *Plan) targetSettings() targetspec.Settings {
	t := &p.Target
	s := targetspec.Settings{}
	for key, value := range map[targetspec.Key]string{
		targetspec.Driver: t.Driver, targetspec.PSMode: t.PSMode, targetspec.Host: t.Host, targetspec.Port: t.Port,
		targetspec.Socket: t.Socket, targetspec.User: t.User, targetspec.PasswordEnv: t.PasswordEnv, targetspec.DB: t.DB,
		targetspec.SSL: t.SSL, targetspec.SSLCA: t.SSLCA, targetspec.SSLCert: t.SSLCert, targetspec.SSLKey: t.SSLKey,
		targetspec.IgnoreErrors: t.IgnoreErrors, targetspec.SQLiteDB: t.SQLiteDB,
		targetspec.SSLCipher: t.SSLCipher, targetspec.Compression: t.Compression, targetspec.Isolation: t.Isolation,
		targetspec.SessionVars: strings.Join(t.SessionVars, "\n"),
	} {
		if value != "" {
			s[key] = value
		}
	}
	if p.Server != nil {
		s[targetspec.Driver] = driver.KindMySQL
		if p.Server.Flavor == string(localserver.FlavorPostgres) {
			s[targetspec.Driver] = driver.KindPgSQL
		}
	}
	return s
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func (p *Plan) validateServer(env Env) error {
	s := p.Server
	if s == nil {
		return nil
	}
	if _, err := localserver.ParseFlavor(s.Flavor); err != nil {
		return p.errAt("server.flavor", "%v", err)
	}
	if len(s.Profiles) == 0 {
		s.Profiles = []string{string(localserver.ProfileCPUBound)}
	}
	for i, name := range s.Profiles {
		if _, err := localserver.ParseProfile(name); err != nil {
			return p.errAt(fmt.Sprintf("server.profiles[%d]", i), "%v", err)
		}
		if slices.Index(s.Profiles, name) != i {
			return p.errAt(fmt.Sprintf("server.profiles[%d]", i), "profile %q is listed twice", name)
		}
	}
	if s.Port < 0 || s.Port > 65535 {
		return p.errAt("server.port", "port %d: give 1 to 65535, or 0 for a free port", s.Port)
	}
	if s.Dir == "" {
		s.Dir = filepath.Join("fairbench-data", "suite-"+s.Flavor)
	}
	return p.validateServerCPUs(env)
}

// validateServerCPUs parses server.cpus and checks it against the CPUs this
// process may use, or chooses the set of server.cpus_share.
func (p *Plan) validateServerCPUs(env Env) error {
	s := p.Server
	s.cpus = cpuset.Set{}
	if s.CPUs == "" && !p.given("server.cpus") || p.given("server.cpus_share") {
		return p.validateCPUsShare(env)
	}
	set, err := cpuset.Parse(s.CPUs)
	if err != nil {
		return p.errAt("server.cpus", "%v", err)
	}
	if set.IsEmpty() {
		return p.errAt("server.cpus", "no CPUs given: write a CPU list such as 0-3,8, or leave cpus out for an unpinned server")
	}
	if env.UsableCPUs != nil {
		usable, err := env.UsableCPUs()
		if err != nil {
			return p.errAt("server.cpus", "cannot tell which CPUs this process may use: %v", err)
		}
		if bad := set.Minus(usable); !bad.IsEmpty() {
			return p.errAt("server.cpus", "CPU list %s: CPU %s not usable here: this process may use CPUs %s (the online CPUs its affinity and cgroup cpuset allow)", set, bad, usable)
		}
	}
	s.cpus = set
	return nil
}

// validateClientCPUs parses run.client_cpus and, for a plan that starts its
// own server, checks it against the server's CPUs (ManagedServerCPUs) and
// the CPUs this process may use; a target the plan does not start is
// checked when the suite runs (clientcpus.Resolve with its process's CPUs).
func (p *Plan) validateClientCPUs(env Env) error {
	r := &p.Run
	spec, err := clientcpus.Parse(r.ClientCPUs)
	if err != nil {
		return p.errAt("run.client_cpus", "%v", err)
	}
	if spec.IsZero() && p.given("run.client_cpus") {
		return p.errAt("run.client_cpus", "no CPUs given: write a CPU list such as 2-3, or rest, or leave client_cpus out for an unpinned client")
	}
	r.clientCPUs = spec
	r.clientResolved = cpuset.Set{}
	if spec.IsZero() || p.Server == nil || env.UsableCPUs == nil || p.sweep != nil && len(p.sweep.sets) == 0 {
		return nil // (a sweep none of whose sets this machine can give is refused for that)
	}
	usable, err := env.UsableCPUs()
	if err != nil {
		return p.errAt("run.client_cpus", "cannot tell which CPUs this process may use: %v", err)
	}
	d, err := clientcpus.Resolve(spec, usable, p.ManagedServerCPUs(usable), r.AllowCPUOverlap, "client CPUs")
	if err != nil {
		return p.errAt("run.client_cpus", "%v", err)
	}
	r.clientResolved = d.CPUs
	return nil
}

// ManagedServerCPUs is what the plan says of its server's CPUs, for the
// client's (clientcpus.Resolve): server.cpus or cpus_share, every set of a
// server_cpus sweep together, or every usable CPU for a server not pinned;
// not Local for a plan that starts no server.
func (p *Plan) ManagedServerCPUs(usable cpuset.Set) clientcpus.Server {
	switch {
	case p.Server == nil:
		return clientcpus.Server{}
	case p.sweep != nil:
		var all cpuset.Set
		for _, ss := range p.sweep.sets {
			all = all.Union(ss.cpus)
		}
		return clientcpus.Server{Local: true, CPUs: all, What: "the plan's server over its server_cpus sweep (every set together)"}
	case p.Server.CPUSet().IsEmpty():
		return clientcpus.Server{Local: true, CPUs: usable, What: "the plan's unpinned server (no server.cpus)"}
	}
	key := "server.cpus"
	if p.Server.CPUsShare != 0 {
		key = "server.cpus_share"
	}
	return clientcpus.Server{Local: true, CPUs: p.Server.CPUSet(), What: "the plan's server (" + key + ")"}
}

func (p *Plan) validateMatrix(env Env) error {
	m := &p.Matrix
	if len(m.Workloads) == 0 {
		return p.errAt("matrix", "matrix.workloads is empty: name at least one workload (%s)", strings.Join(env.Registry.Names(), ", "))
	}
	for i, w := range m.Workloads {
		if _, err := env.Registry.Lookup(w); err != nil {
			return p.errAt(fmt.Sprintf("matrix.workloads[%d]", i), "%v", err)
		}
		if slices.Index(m.Workloads, w) != i {
			return p.errAt(fmt.Sprintf("matrix.workloads[%d]", i), "workload %q is listed twice", w)
		}
	}
	if len(m.RandTypes) == 0 {
		m.RandTypes = []string{randgen.DefaultConfig().Type}
	}
	for i, rt := range m.RandTypes {
		if !slices.Contains(randgen.Types(), rt) {
			return p.errAt(fmt.Sprintf("matrix.rand_types[%d]", i), "unknown distribution %q: use %s", rt, strings.Join(randgen.Types(), ", "))
		}
		if slices.Index(m.RandTypes, rt) != i {
			return p.errAt(fmt.Sprintf("matrix.rand_types[%d]", i), "distribution %q is listed twice", rt)
		}
	}
	if !slices.Equal(m.RandTypes, []string{randgen.DefaultConfig().Type}) {
		// A workload that ignores the distribution would run the same cells
		// under different labels, recorded as if the distribution had mattered.
		for _, name := range m.Workloads {
			spec, _ := env.Registry.Lookup(name)
			if why, ok := workload.Unused(spec.New(pflag.NewFlagSet(name, pflag.ContinueOnError)), "rand-type"); ok {
				return p.errAt("matrix.rand_types", "rand_types do not apply to %s (%s): run %s in a plan of its own, with the default rand_types [%s]",
					name, why, name, randgen.DefaultConfig().Type)
			}
		}
	}
	if m.ThreadsMaxFactor == 0 {
		m.ThreadsMaxFactor = defaultThreadsMaxFactor
	}
	if m.TargetCPUs == 0 {
		m.TargetCPUs = env.CPUs
	}
	if m.ThreadsMaxFactor < 0 || m.TargetCPUs < 0 {
		return p.errAt("matrix", "threads_max_factor and target_cpus must be positive")
	}
	if m.Threads.Auto && (m.ThreadsMaxFactor > maxThreads || m.TargetCPUs > maxThreads || m.ThreadsMaxFactor*m.TargetCPUs > maxThreads) {
		return p.errAt("matrix", "threads: auto would go up to threads_max_factor %d × target_cpus %d threads, more than %d: lower one of them",
			m.ThreadsMaxFactor, m.TargetCPUs, maxThreads)
	}
	switch {
	case m.Threads.Auto:
	case len(m.Threads.Counts) == 0:
		return p.errAt("matrix", "matrix.threads is missing: give thread counts ([1, 2, 4, 8]) or auto (1, 2, 4, … up to %d × the target's CPUs)", m.ThreadsMaxFactor)
	default:
		for i, c := range m.Threads.Counts {
			if c < 1 || c > maxThreads {
				return p.errAt(fmt.Sprintf("matrix.threads[%d]", i), "thread count %d: give 1 to %d", c, maxThreads)
			}
			if slices.Index(m.Threads.Counts, c) != i {
				return p.errAt(fmt.Sprintf("matrix.threads[%d]", i), "thread count %d is listed twice", c)
			}
		}
	}
	if m.Rounds == 0 {
		m.Rounds = defaultRounds
	}
	if m.Rounds < 0 || m.Rounds > 1000 {
		return p.errAt("matrix.rounds", "rounds %d: give 1 to 1000", m.Rounds)
	}
	return nil
}

// threadCounts expands the matrix's thread counts.
func (m *Matrix) threadCounts() []int {
	if !m.Threads.Auto {
		return m.Threads.Counts
	}
	limit := m.ThreadsMaxFactor * m.TargetCPUs
	var out []int
	for t := 1; t <= limit; t *= 2 {
		out = append(out, t)
	}
	return out
}

func (p *Plan) validateRun(Env) error {
	r := &p.Run
	if r.Time <= 0 {
		return p.errAt("run.time", "run.time is missing: give each cell's measured time (time: 300 or time: 5m)")
	}
	// An explicit 0 would silently become the default: refuse it instead.
	if r.ReportInterval == 0 && p.given("run.report_interval") {
		return p.errAt("run.report_interval", "run.report_interval is 0: a suite keeps each cell's interval series, so give their length (report_interval: 1), or leave the key out for 1 s")
	}
	if r.ReconnectTimeout == 0 && p.given("run.reconnect_timeout") {
		return p.errAt("run.reconnect_timeout", "run.reconnect_timeout is 0: give how long a thread may try to replace a lost connection (reconnect_timeout: 30s), or leave the key out for 30 s")
	}
	if p.given("run.forced_shutdown") {
		drain, err := runner.ParseForcedShutdown(r.ForcedShutdown, r.Time.D())
		if err != nil {
			return p.errAt("run.forced_shutdown", "forced_shutdown %s", err)
		}
		r.drain = drain
	}
	if r.ReportInterval == 0 {
		r.ReportInterval = Seconds(1e9)
	}
	if len(r.Percentiles) == 0 {
		r.Percentiles = defaultPercentiles
	}
	for i, pc := range r.Percentiles {
		if !(pc > 0 && pc <= 100) {
			return p.errAt(fmt.Sprintf("run.percentiles[%d]", i), "percentile %v: give values in (0,100], e.g. 95 or 99.9", pc)
		}
	}
	if !(r.Rate >= 0 && r.Rate <= workload.MaxRate) {
		return p.errAt("run.rate", "rate %v: give 0 (closed loop) to %g events per second", r.Rate, float64(workload.MaxRate))
	}
	if !(r.ConnectRate >= 0 && !math.IsInf(r.ConnectRate, 1)) {
		return p.errAt("run.connect_rate", "connect_rate %v: give how many connections a cell may open per second (connect_rate: 50), or 0 (the default) to open them as fast as 16 at a time allow", r.ConnectRate)
	}
	if r.Jobs < 0 {
		return p.errAt("run.jobs", "jobs %d: give how many OS threads a cell's connections share (jobs: 4, as pgbench -j 4), or 0 (the default) for one per connection", r.Jobs)
	}
	if r.RandZipfianExp < 0 {
		return p.errAt("run.rand_zipfian_exp", "the zipfian exponent must not be negative")
	}
	return nil
}

func (p *Plan) validateSteps(env Env) error {
	s := &p.Steps
	s.Prepare = cmpOr(s.Prepare, PrepareReuse)
	if !slices.Contains([]string{PrepareReuse, PrepareReplace, PrepareSkip}, s.Prepare) {
		return p.errAt("steps.prepare", "unknown prepare %q: use reuse (load unless matching data is there), replace or skip", s.Prepare)
	}
	s.Changeover = cmpOr(s.Changeover, ChangeoverTestCase)
	if s.Changeover != ChangeoverTestCase && s.Changeover != ChangeoverCell {
		return p.errAt("steps.changeover", "unknown changeover %q: use test_case (sleep when the workload changes) or cell (sleep before every cell)", s.Changeover)
	}
	s.OnFailure = cmpOr(s.OnFailure, OnFailureContinue)
	if s.OnFailure != OnFailureContinue && s.OnFailure != OnFailureStop {
		return p.errAt("steps.on_failure", "unknown on_failure %q: use continue or stop", s.OnFailure)
	}
	if q := s.QueryWarmup; q != nil {
		if _, err := env.Registry.Lookup(q.Workload); err != nil {
			return p.errAt("steps.query_warmup.workload", "%v", err)
		}
		if q.Threads == 0 {
			q.Threads = 1
		}
		if q.Threads < 0 || q.Threads > maxThreads {
			return p.errAt("steps.query_warmup.threads", "threads %d: give 1 to %d", q.Threads, maxThreads)
		}
		if q.Time <= 0 {
			return p.errAt("steps.query_warmup.time", "give the query warm-up's duration (time: 600 or time: 10m)")
		}
	}
	for i, a := range s.BetweenCells {
		n := 0
		for _, set := range []bool{a.PurgeBinaryLogs, a.DropCaches, a.SQL != ""} {
			if set {
				n++
			}
		}
		if n != 1 {
			return p.errAt(fmt.Sprintf("steps.between_cells[%d]", i), "give exactly one action per entry: purge_binary_logs: true, drop_caches: true or sql: \"...\"")
		}
		if a.PurgeBinaryLogs && p.kind() != driver.KindMySQL {
			return p.errAt(fmt.Sprintf("steps.between_cells[%d]", i), "purge_binary_logs applies to MySQL-protocol servers only")
		}
	}
	return nil
}

// kind is the driver kind the plan connects with.
func (p *Plan) kind() string {
	cfg, _, _ := p.TargetConfig(func(string) string { return "" })
	return cfg.Kind
}

func (p *Plan) validateData(env Env) error {
	if len(p.Data) == 0 {
		return p.errAt("data", "data is missing: give the data set (tables and table_size for the sysbench workloads, warehouses for tpcc, scale for pgbench's)")
	}
	for i, d := range p.Data {
		path := "data"
		if len(p.Data) > 1 {
			path = fmt.Sprintf("data[%d]", i)
		}
		if d.PrepareThreads < 0 || d.PrepareThreads > maxThreads {
			return p.errAt(path+".prepare_threads", "prepare_threads %d: give 1 to %d (or leave it out for this machine's CPUs)", d.PrepareThreads, maxThreads)
		}
		for _, name := range p.Matrix.Workloads {
			if _, _, err := p.newWorkload(env.Registry, name, d); err != nil {
				return p.errAt(path, "%s: %v", name, err)
			}
		}
		if q := p.Steps.QueryWarmup; q != nil {
			if _, _, err := p.newWorkload(env.Registry, q.Workload, d); err != nil {
				return p.errAt("steps.query_warmup", "%s: %v", q.Workload, err)
			}
		}
	}
	return nil
}

// workloadOptions renders a data set as workload flags.
func workloadOptions(d Data) map[string]string {
	opts := map[string]string{}
	for k, v := range d.Options {
		opts[strings.ReplaceAll(k, "_", "-")] = v
	}
	if d.Tables > 0 {
		opts["tables"] = strconv.Itoa(d.Tables)
	}
	if d.TableSize > 0 {
		opts["table-size"] = strconv.Itoa(d.TableSize)
	}
	if d.Warehouses > 0 {
		opts["warehouses"] = strconv.Itoa(d.Warehouses)
	}
	if d.Scale > 0 {
		opts["scale"] = strconv.Itoa(d.Scale)
	}
	return opts
}

// newWorkload configures workload name for data set d; fs holds its options.
func (p *Plan) newWorkload(reg *workload.Registry, name string, d Data) (wl workload.Workload, fs *pflag.FlagSet, err error) {
	spec, err := reg.Lookup(name)
	if err != nil {
		return nil, nil, err
	}
	fs = pflag.NewFlagSet(name, pflag.ContinueOnError)
	wl = spec.New(fs)
	opts := workloadOptions(d)
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if fs.Lookup(k) == nil {
			var known []string
			fs.VisitAll(func(f *pflag.Flag) { known = append(known, strings.ReplaceAll(f.Name, "-", "_")) })
			return nil, nil, fmt.Errorf("%s has no option %q (its options: %s)", name, strings.ReplaceAll(k, "-", "_"), strings.Join(known, ", "))
		}
		if err := fs.Set(k, opts[k]); err != nil {
			return nil, nil, fmt.Errorf("option %s: %v", strings.ReplaceAll(k, "-", "_"), err)
		}
	}
	if err := wl.Validate(); err != nil {
		return nil, nil, err
	}
	return wl, fs, nil
}
