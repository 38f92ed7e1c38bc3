package importer

import (
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"
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

// secretOptions are the options whose values are never recorded.
var secretOptions = map[string]bool{
	"password": true, "mysql-password": true, "pgsql-password": true, "p": true,
}

// goTPCShort maps go-tpc's one-letter flags to their long names.
var goTPCShort = map[string]string{
	"T": "threads", "H": "host", "P": "port", "U": "user", "p": "password",
	"D": "db", "d": "driver", "S": "statusPort", "t": "acThreads",
}

// goTPCBool are go-tpc's flags that take no value.
var goTPCBool = map[string]bool{
	"dropdata": true, "ignore-error": true, "silence": true, "wait": true,
	"check-all": true, "no-check": true, "help": true, "h": true, "enable-plan-replayer": true,
}

// goTPCDurations are go-tpc's options given as Go durations, recorded in seconds
// as fairbench records its own.
var goTPCDurations = map[string]bool{"time": true, "interval": true}

var (
	tiupVersionRe = regexp.MustCompile(`/bench/v(\d+\.\d+\.\d+[^/]*)/`)
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
		if m := tiupVersionRe.FindStringSubmatch(f); m != nil {
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
// name no action (run, prepare…), as on sysbench's own version line.
func (c *command) parseArgs(args []string) bool {
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
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		prefix := a[:len(a)-len(value)] // the token up to its value
		if c.format == FormatGoTPC {
			if !strings.HasPrefix(a, "--") && len(name) > 1 && !hasValue {
				name, value, hasValue = name[:1], name[1:], true // -T4
				prefix = a[:2]
			}
			if long, ok := goTPCShort[name]; ok {
				name = long
			}
			if !hasValue && !goTPCBool[name] && i+1 < len(args) {
				i++
				value, hasValue = strings.Trim(args[i], "'\""), true
				if secretOptions[name] {
					out = append(out, "***")
				} else {
					out = append(out, args[i])
				}
			}
		}
		if secretOptions[name] && hasValue && out[len(out)-1] != "***" {
			out[len(out)-1] = prefix + "***"
		}
		if !hasValue {
			value = "on"
		}
		if secretOptions[name] {
			value = "***"
		}
		if c.format == FormatGoTPC && goTPCDurations[name] {
			if d, err := time.ParseDuration(value); err == nil {
				value = strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
			}
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
