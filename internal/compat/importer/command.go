package importer

import (
	"path"
	"strings"

	"github.com/fairbench/fairbench/internal/base/lazyre"
	"github.com/fairbench/fairbench/internal/compat/gotpccli"
	"github.com/fairbench/fairbench/internal/compat/sysbenchcli"
)

// command is a tool's command line echoed in a log: by the shell (`$ sysbench …`,
// `+ go-tpc …` with set -x) or by tiup ("Starting component `bench`: …/tiup-bench
// tpcc … run").
type command struct {
	format  Format
	version string   // the tool's version when the command names it (tiup's path)
	argv    []string // from the program on, secrets redacted
	action  string   // run, prepare, cleanup, check
	test    string   // sysbench: the test (workload) name; go-tpc: the subcommand ("tpcc")
	options map[string]string
}

// secretOptions are sysbench's options whose values are never recorded (go-tpc's
// password is gotpccli's to redact).
var secretOptions = map[string]bool{"mysql-password": true, "pgsql-password": true}

var (
	tiupVersionRe = lazyre.New(`/bench/v(\d+\.\d+\.\d+[^/]*)/`)
	actions       = map[string]bool{"run": true, "prepare": true, "cleanup": true, "check": true}
)

// parseCommand finds a sysbench or go-tpc command line in l.
func parseCommand(l string) (*command, bool) {
	fields := strings.Fields(l)
	for i, f := range fields {
		f = strings.Trim(f, "`'\"")
		base := path.Base(f)
		var c *command
		var args []string
		switch {
		case base == "sysbench":
			c, args = &command{format: FormatSysbench}, fields[i+1:]
		case base == "go-tpc" || base == "tiup-bench":
			c, args = &command{format: FormatGoTPC}, fields[i+1:]
		case base == "tiup" && i+1 < len(fields) && fields[i+1] == "bench":
			c, args = &command{format: FormatGoTPC}, fields[i+2:]
		default:
			continue
		}
		if m := tiupVersionRe().FindStringSubmatch(f); m != nil {
			c.version = m[1]
		}
		prog := fields[i : len(fields)-len(args)]
		for j, a := range args {
			if strings.ContainsAny(a[:1], "|&;>") || strings.Contains(a, ">") {
				args = args[:j] // the shell's redirections and pipes
				break
			}
		}
		if c.parseArgs(args) {
			c.argv = append(append([]string(nil), prog...), c.argv...)
			return c, true
		}
		return nil, false
	}
	return nil, false
}

// parseArgs reads the arguments after the program; it reports false when they
// name no action (run, prepare…), as on sysbench's own version line. go-tpc's
// are read with go-tpc's flags (gotpccli.Read), sysbench's with sysbench's
// names (sysbenchcli.Canonical: underscores, sysbench 0.5's names, --test).
func (c *command) parseArgs(args []string) bool {
	if c.format == FormatGoTPC {
		unquoted := make([]string, len(args))
		for i, a := range args {
			unquoted[i] = strings.Trim(a, "'\"")
		}
		o, err := gotpccli.Read(unquoted)
		if err != nil {
			return false // not a line go-tpc would have run
		}
		c.options, c.action, c.test, c.argv = o.Values, o.Action, o.Workload, o.Redacted
		return c.action != ""
	}
	c.options = map[string]string{}
	out := make([]string, 0, len(args))
	var positional []string
	for i := 0; i < len(args); i++ {
		a := strings.Trim(args[i], "'\"")
		out = append(out, args[i])
		if !strings.HasPrefix(a, "-") || a == "-" {
			positional = append(positional, a)
			continue
		}
		raw, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		name, _ := sysbenchcli.Canonical(raw)
		switch {
		case secretOptions[name] && hasValue:
			out[len(out)-1] = a[:len(a)-len(value)] + "***"
			value = "***"
		case secretOptions[name] && i+1 < len(args): // --mysql-password secret
			out = append(out, "***")
			i++
			value = "***"
		case !hasValue:
			value = "on"
		}
		if name == "test" {
			positional = append([]string{value}, positional...)
			continue
		}
		c.options[name] = value
	}
	c.argv = out
	for _, p := range positional {
		switch {
		case actions[p]:
			c.action = p
		case c.test == "":
			c.test = strings.TrimSuffix(path.Base(p), ".lua")
		}
	}
	return c.action != ""
}

// dataOptions are the options that describe the data set, which a prepare
// command gives to the runs after it.
var dataOptions = []string{"tables", "table-size", "warehouses", "parts"}

// commands tracks the command lines of one tool seen so far in a log.
type commands struct {
	format  Format
	run     *command // the last run command, for the next run
	prepare *command // the last prepare command
}

// see records c when it is a command of this format.
func (cs *commands) see(c *command) {
	if c == nil || c.format != cs.format {
		return
	}
	switch c.action {
	case "run":
		cs.run = c
	case "prepare":
		cs.prepare = c
	}
}

// take returns the run command for the run that starts now (nil when none was
// echoed) and the options the commands give it; the run command is used once.
func (cs *commands) take() (*command, map[string]string) {
	opts := map[string]string{}
	if cs.prepare != nil {
		for _, k := range dataOptions {
			if v, ok := cs.prepare.options[k]; ok {
				opts[k] = v
			}
		}
	}
	c := cs.run
	cs.run = nil
	if c != nil {
		for k, v := range c.options {
			opts[k] = v
		}
	}
	return c, opts
}
