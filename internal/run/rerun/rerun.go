// Package rerun turns the plan a bundle recorded into the plan of a re-run
// on this machine: the same workloads, data sets, options, rounds and
// warm-ups, against the server the user names, a local server fairbench
// starts (--managed), or what the plan itself ran against (the embedded
// database, or a server the plan starts). What the re-run does differently
// from the bundle's run is said before anything runs (Plan.Notes); what it
// cannot do is refused with what to give instead.
//
// The plan is edited as YAML and parsed again by the suite, so that the
// suite directory's manifest records the plan as it ran.
package rerun

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/targetspec"
	"github.com/fairbench/fairbench/internal/record/suitedir"
)

// Options say how a bundle's plan is re-run here.
type Options struct {
	// Target are the target settings the user gave (run's target flags, as
	// targetspec reads them); empty keeps the bundle's target. A password
	// is given as PasswordEnv, never as text.
	Target targetspec.Settings
	// Managed starts a local server of the bundle's flavour when the plan
	// did not start one itself.
	Managed bool
	// Only keeps these values of the plan's matrix, each "KEY=V1,V2": KEY is
	// workloads, rand_types, threads, server_cpus or profiles.
	Only []string
	// AllowMixed lets Managed start a server for a plan that did not start
	// one: its rows differ from the bundle's by profile and transport, so
	// they can be compared only marked mixed.
	AllowMixed bool
}

// Recorded is what a bundle recorded of the suite it holds.
type Recorded struct {
	// Name names the bundle in messages ("arm-suite.fbz").
	Name string
	// Plan is the plan's text as the suite ran it.
	Plan []byte
	// Servers are the servers the suite ran against (the manifest's).
	Servers []suitedir.ServerRecord
	// Threads are the thread counts its cells ran, ascending.
	Threads []int
}

// Plan is the plan of a re-run.
type Plan struct {
	// Text is the plan to run, YAML.
	Text []byte
	// Notes say what the re-run does differently from the bundle's run.
	Notes []string
}

// methodKeys are the target keys that are part of the method (how each
// connection behaves), kept from the bundle's plan when the user names
// another server; the others say where the server is and how to log in.
var methodKeys = []string{"ps_mode", "isolation", "session_vars", "ignore_errors", "compression", "ssl_cipher"}

// driverBoundKeys are the method keys whose values are one driver's
// (error codes, MySQL protocol options): dropped when the re-run's driver
// is another.
var driverBoundKeys = []string{"ignore_errors", "compression", "ssl_cipher"}

// Prepare edits rec's plan for a re-run with opts.
func Prepare(rec Recorded, opts Options) (*Plan, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(rec.Plan, &doc); err != nil {
		return nil, fmt.Errorf("%s: the plan it holds is not YAML: %w", rec.Name, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: the plan it holds is not a YAML mapping", rec.Name)
	}
	root := doc.Content[0]
	e := editor{rec: rec, root: root}
	if err := e.target(opts); err != nil {
		return nil, err
	}
	if err := e.threadsAsRun(rec.Threads); err != nil {
		return nil, err
	}
	if err := e.only(opts.Only); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# the plan of %s, re-run by fairbench rerun\n", rec.Name)
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, fmt.Errorf("%s: writing the re-run's plan: %w", rec.Name, err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("%s: writing the re-run's plan: %w", rec.Name, err)
	}
	return &Plan{Text: buf.Bytes(), Notes: e.notes}, nil
}

// editor edits one plan's YAML tree.
type editor struct {
	rec   Recorded
	root  *yaml.Node
	notes []string
}

func (e *editor) note(format string, args ...any) {
	e.notes = append(e.notes, fmt.Sprintf(format, args...))
}

// target points the plan at the re-run's server.
func (e *editor) target(opts Options) error {
	_, server := lookup(e.root, "server")
	recorded := e.recordedServer()
	switch {
	case opts.Managed && len(opts.Target) > 0:
		return errors.New("give either the target options of your server or --managed, not both")
	case len(opts.Target) > 0:
		return e.userTarget(opts.Target, server != nil, recorded)
	case opts.Managed && server != nil:
		e.ownPaths(server) // the plan starts its own server: that is what --managed asks
		return nil
	case opts.Managed:
		return e.managed(recorded, opts.AllowMixed)
	case server != nil:
		e.ownPaths(server)
		return nil
	}
	if kind := e.plannedDriver(); kind != driver.KindSQLite {
		return fmt.Errorf("%s ran against a %s server (%s) that this machine cannot reach as recorded: give the target options of yours as run takes them (--%s-host, --%s-port or --%s-socket, --%s-user, --%s-db; the password in %s), or --managed to start a local %s",
			e.rec.Name, kind, recorded, kind, kind, kind, kind, kind, targetspec.DefaultPasswordEnv(kind), recordedFlavorOr(e.rec.Servers, "server"))
	}
	e.ownPaths(nil)
	return nil
}

// ownPaths drops the paths the bundle's plan wrote to on its author's
// machine — the embedded database's file, the started server's directory —
// so that a re-run writes only where fairbench's defaults (under the
// working directory) or the user's options say.
func (e *editor) ownPaths(server *yaml.Node) {
	if t := mapping(e.root, "target"); t != nil {
		if _, p := lookup(t, "sqlite_db"); p != nil && p.Value != "" {
			deleteKey(t, "sqlite_db")
			e.note("the bundle's plan kept its database in %s; this re-run uses fairbench's default %s (give --sqlite-db to choose)", p.Value, targetspec.DefaultSQLitePath)
		}
	}
	if server != nil && server.Kind == yaml.MappingNode {
		if _, d := lookup(server, "dir"); d != nil && d.Value != "" {
			deleteKey(server, "dir")
			e.note("the bundle's plan started its server in %s; this re-run starts it in fairbench's default directory (fairbench-data/suite-FLAVOR under the working directory)", d.Value)
		}
	}
}

// plannedDriver is the driver kind of the plan's target.
func (e *editor) plannedDriver() string {
	_, t := lookup(e.root, "target")
	_, d := lookup(t, "driver")
	if d == nil || d.Value == "" {
		return driver.KindSQLite
	}
	kind, ok := targetspec.ParseDriver(d.Value)
	if !ok {
		return d.Value
	}
	return kind
}

// recordedServer names the server the bundle ran against: "MariaDB 10.11.6".
func (e *editor) recordedServer() string {
	var names []string
	for _, s := range e.rec.Servers {
		n := strings.TrimSpace(s.Server.Flavor + " " + s.Server.Version)
		if n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return "not recorded"
	}
	return strings.Join(names, ", ")
}

// userTarget replaces the plan's target with the user's, keeping the
// method's keys (those of another driver dropped, with a note).
func (e *editor) userTarget(given targetspec.Settings, planServer bool, recorded string) error {
	if planServer {
		if _, sweep := lookup(mapping(e.root, "matrix"), "server_cpus"); sweep != nil {
			return fmt.Errorf("%s sweeps the CPUs of a server its plan starts (matrix.server_cpus): a server you name cannot be restarted on other CPUs; re-run with --managed", e.rec.Name)
		}
		e.note("the bundle's plan started its own %s (%s); this re-run goes to the server you named, with its own settings (the report's \"what differs\" lists them)", recordedFlavorOr(e.rec.Servers, "server"), recorded)
		deleteKey(e.root, "server")
	}
	old := e.plannedDriver()
	_, oldTarget := lookup(e.root, "target")
	t := &yaml.Node{Kind: yaml.MappingNode}
	kind, _ := targetspec.ParseDriver(given[targetspec.Driver])
	for _, k := range targetspec.Keys {
		v, ok := given[k]
		// A password is never written into a plan (password_env names
		// where it is); plans have no dry run.
		if !ok || slices.Contains(methodKeys, string(k)) || k == targetspec.Password || k == targetspec.DryRun {
			continue
		}
		set(t, string(k), v)
	}
	for _, k := range methodKeys {
		if v, ok := given[targetspec.Key(k)]; ok {
			setValue(t, k, k == "session_vars", v)
			continue
		}
		_, kept := lookup(oldTarget, k)
		switch {
		case kept == nil:
		case kind != old && slices.Contains(driverBoundKeys, k):
			e.note("target.%s of the bundle's plan is %s's, and this re-run uses %s: left out", k, old, kind)
		default:
			setNode(t, k, kept)
		}
	}
	if kind != old && !planServer {
		e.note("the bundle ran against %s (driver %s); this re-run against a %s server", recorded, old, kind)
	}
	setNode(e.root, "target", t)
	return nil
}

// managed makes the plan start a local server of the bundle's flavour.
func (e *editor) managed(recorded string, allowMixed bool) error {
	flavor := ""
	for _, s := range e.rec.Servers {
		if f := managedFlavor(s.Server.Flavor); f != "" {
			flavor = f
			break
		}
	}
	if flavor == "" {
		if e.plannedDriver() == driver.KindSQLite {
			return fmt.Errorf("%s ran on the embedded SQLite database: there is no server to start; re-run without --managed", e.rec.Name)
		}
		return fmt.Errorf("%s ran against %s, a flavour fairbench cannot start (it starts mariadb, mysql and postgres): give the target options of such a server instead of --managed", e.rec.Name, recorded)
	}
	if !allowMixed {
		return fmt.Errorf("%s ran against %s, which its plan did not start: a server fairbench starts runs with a profile (cpu-bound) and is reached over its Unix socket, and both are part of every row's key, so no row would be compared with the bundle's; give the target options of a server like the bundle's, or --allow-mixed with --managed to run it and compare rows marked † mixed",
			e.rec.Name, recorded)
	}
	_, oldTarget := lookup(e.root, "target")
	t := &yaml.Node{Kind: yaml.MappingNode}
	for _, k := range methodKeys {
		if _, v := lookup(oldTarget, k); v != nil {
			setNode(t, k, v)
		}
	}
	setNode(e.root, "target", t)
	s := &yaml.Node{Kind: yaml.MappingNode}
	set(s, "flavor", flavor)
	setNode(e.root, "server", s)
	e.note("the bundle ran against %s, which its plan did not start; --managed starts a local %s with fairbench's cpu-bound profile: its settings are that profile's, not the bundle server's (the report's \"what differs\" lists them)", recorded, flavor)
	return nil
}

// managedFlavor is the local server flavour of a recorded server's flavour,
// "" when fairbench cannot start it.
func managedFlavor(recorded string) string {
	switch strings.ToLower(recorded) {
	case "mariadb":
		return "mariadb"
	case "mysql":
		return "mysql"
	case "postgresql", "postgres":
		return "postgres"
	}
	return ""
}

// recordedFlavorOr names the first recorded server flavour, or def.
func recordedFlavorOr(servers []suitedir.ServerRecord, def string) string {
	for _, s := range servers {
		if s.Server.Flavor != "" {
			return s.Server.Flavor
		}
	}
	return def
}
