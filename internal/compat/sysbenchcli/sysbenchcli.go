// Package sysbenchcli reads a sysbench command line, as scripts and runbooks
// write it, and turns it into the fairbench command that runs the same
// workload with the same options: the order `[options] TESTNAME [options]
// prepare|run|cleanup|help` (TESTNAME also as a path to sysbench's Lua script,
// or as --test=TESTNAME), one option set for every command (an option of
// another command is accepted and named as ignored), underscore spellings,
// the Lua boolean spellings, sysbench 0.5's option names and a --config-file.
// It only rewrites arguments; fairbench's commands do the rest.
package sysbenchcli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/base/suggest"
)

// Catalog is what the caller knows of fairbench's commands.
type Catalog struct {
	// Tests are the workloads that are sysbench tests (the OLTP family).
	Tests []string
	// Workloads are all workloads; one that is not a sysbench test (tpcc)
	// as the first word is left to fairbench's own order.
	Workloads []string
	// Commands are fairbench's commands (run, prepare, suite, …): a first
	// word among them is fairbench's order.
	Commands []string
	// Flags returns the flags of `fairbench PHASE TEST`, nil when there is
	// no such command.
	Flags func(phase, test string) *pflag.FlagSet
	// ReadFile reads a --config-file.
	ReadFile func(name string) ([]byte, error)
	// Suggest returns the commands near a mistyped one (cobra's
	// SuggestionsFor); nil suggests none.
	Suggest func(word string) []string
}

// Phases are fairbench's workload commands, in the order notes name them.
var Phases = []string{"prepare", "run", "cleanup", "warmup", "check"}

// sysbenchCommands maps a sysbench command to fairbench's (prewarm is
// sysbench's name for reading the tables into the cache).
var sysbenchCommands = map[string]string{
	"prepare": "prepare", "run": "run", "cleanup": "cleanup", "help": "help",
	"prewarm": "warmup", "warmup": "warmup", "check": "check",
}

// otherTests are sysbench's tests fairbench does not run.
var otherTests = map[string]bool{
	"fileio": true, "cpu": true, "memory": true, "threads": true, "mutex": true,
	"bulk_insert": true, "select_random_points": true, "select_random_ranges": true,
}

// Command is a command line resolved to fairbench's order.
type Command struct {
	// Sysbench is true for sysbench's order, false for fairbench's own
	// (`fairbench run TEST …`) whose options were read the same way.
	Sysbench bool
	// Phase is the fairbench command (prepare, run, cleanup, warmup,
	// check), "help" for a test's help.
	Phase string
	// Test is the workload.
	Test string
	// Args are fairbench's arguments: PHASE TEST --option=value…
	Args []string
	// Ignored are the options given that another command of the test takes
	// and this one does not, in the order given; they are not in Args.
	Ignored []Ignored
	// Notes say what was read differently from how it was written (an
	// older name, an option with no effect, a default that differs from
	// sysbench's), one line each; IgnoredNote is the line of Ignored.
	Notes []string
}

// Ignored is an option left out of Args because this command does not take it.
type Ignored struct {
	Name  string // the modern name, without "--"
	Value string // as given; "" when given alone
	Of    string // the commands that take it: "run", "prepare, run"
}

// String is "--name=value", or "--name" when given alone.
func (ig Ignored) String() string {
	if ig.Value == "" {
		return "--" + ig.Name
	}
	return "--" + ig.Name + "=" + ig.Value
}

// token is one option or word of the command line.
type token struct {
	word     string // a word that is not an option (a test, a command)
	name     string // an option's name as written, without dashes
	value    string
	hasValue bool
	short    bool // -o FILE
}

// Translate reads args (without the program name). It returns nil and no
// error when args are not for it (fairbench's other commands, no arguments,
// --help alone, a workload that is not a sysbench test), else the command in
// fairbench's order, or an error that says what was wrong and what to write.
func Translate(args []string, cat Catalog) (*Command, error) {
	if len(cat.Tests) == 0 {
		return nil, nil
	}
	// The union of the phases' flags is only needed for an option written
	// without "=" (--threads 4): building it costs every command's start-up
	// five flag sets, so it is built when first asked for.
	union := sync.OnceValue(func() *pflag.FlagSet { return unionFlags(cat) })
	toks, err := tokenize(args, union, cat.ReadFile, 0)
	if err != nil {
		return nil, err
	}
	if toks == nil {
		return nil, nil
	}
	var words []string
	testOpt := ""
	for _, t := range toks {
		switch {
		case t.word != "":
			words = append(words, t.word)
		case canonicalOf(t) == "test":
			testOpt = t.value
		}
	}
	if testOpt == "" {
		if len(words) == 0 {
			return nil, nil
		}
		if contains(cat.Commands, words[0]) {
			if len(words) < 2 || !contains(Phases, words[0]) || !contains(cat.Tests, words[1]) {
				return nil, nil
			}
			c := &Command{Phase: words[0], Test: words[1]}
			return c, c.options(toks, words[2:], cat)
		}
		if contains(cat.Workloads, words[0]) && !contains(cat.Tests, words[0]) {
			return nil, nil
		}
		if err := strayValue(toks, words[0], union); err != nil {
			return nil, err
		}
		if err := unknownCommand(words, cat); err != nil {
			return nil, err
		}
	}
	c := &Command{Sysbench: true}
	testWord, cmdWords := testOpt, words
	if testOpt == "" {
		testWord, cmdWords = words[0], words[1:]
	}
	if c.Test, err = resolveTest(testWord, cat); err != nil {
		return nil, err
	}
	if len(cmdWords) == 0 {
		return nil, fmt.Errorf("sysbench's order needs a command after the test: fairbench [options] %s [options] prepare|run|cleanup|prewarm|help", c.Test)
	}
	phase, ok := sysbenchCommands[cmdWords[0]]
	if !ok {
		if err := strayValue(toks, cmdWords[0], union); err != nil {
			return nil, err
		}
		hint := ""
		if near := suggest.Nearest(cmdWords[0], sortedKeys(sysbenchCommands)); near != "" {
			hint = fmt.Sprintf(" (did you mean %q?)", near)
		}
		return nil, fmt.Errorf("unknown command %q for %s%s: give prepare, run, cleanup, prewarm or help, as in 'fairbench [options] %s [options] run'", cmdWords[0], c.Test, hint, c.Test)
	}
	c.Phase = phase
	return c, c.options(toks, cmdWords[1:], cat)
}

// unknownCommand returns the error for a first word that is neither a
// fairbench command nor a workload, when the command line does not read as
// sysbench's order: "unknown command "runn"; did you mean "run"?". It returns
// nil when the word is a sysbench test, its script, one of sysbench's other
// tests or a test's name mistyped, or when a sysbench command follows it
// ("oltp_rw run"): resolveTest then says what to write.
func unknownCommand(words []string, cat Catalog) error {
	word := words[0]
	name := strings.TrimSuffix(path.Base(word), ".lua")
	if contains(cat.Tests, name) || strings.HasSuffix(word, ".lua") || strings.Contains(word, "/") ||
		name == "oltp" || name == "parallel_prepare" || otherTests[name] || suggest.Nearest(name, cat.Tests) != "" {
		return nil
	}
	var near []string
	if cat.Suggest != nil && word != "" {
		near = cat.Suggest(word)
	}
	if len(near) > 0 {
		return fmt.Errorf("unknown command %q; did you mean %s?", word, suggest.Quoted(near))
	}
	for _, w := range words[1:] {
		if _, ok := sysbenchCommands[w]; ok {
			return nil
		}
	}
	return fmt.Errorf("unknown command %q: 'fairbench --help' lists the commands (a sysbench command line is written fairbench [options] TESTNAME [options] run)", word)
}

// strayValue returns the unknown-flag error of an option written without
// "=" right before word, when no command of any test takes it: word is then
// its value (--thread 2), which the option, not being known, could not take.
// nil when word follows no such option.
func strayValue(toks []token, word string, union func() *pflag.FlagSet) error {
	for i, t := range toks {
		if t.word != word {
			continue
		}
		if i == 0 {
			return nil
		}
		o := toks[i-1]
		if o.word != "" || o.short || o.hasValue {
			return nil
		}
		name, _ := Canonical(o.name)
		if known(name, union) {
			return nil
		}
		return errors.New(suggest.UnknownFlag(name, suggest.FlagNames(union())))
	}
	return nil
}

// known reports whether option name (modern) is one the translation reads:
// a flag of some command of the tests, or one of sysbench's it names.
func known(name string, union func() *pflag.FlagSet) bool {
	switch name {
	case "test", "config-file", "help", "version":
		return true
	}
	_, noEff := noEffect[name]
	_, ref := refused[name]
	return noEff || ref || union().Lookup(name) != nil
}

// resolveTest names the workload a test word stands for: a test name, a
// path to its Lua script, or an error listing the forms.
func resolveTest(word string, cat Catalog) (string, error) {
	name := strings.TrimSuffix(path.Base(word), ".lua")
	switch {
	case contains(cat.Tests, name):
		return name, nil
	case name == "oltp" || name == "parallel_prepare":
		return "", fmt.Errorf("%q is sysbench 0.5's script, which fairbench does not run as such: sysbench 1.0 replaced oltp.lua by oltp_read_write (--oltp-read-only=on: oltp_read_only); write fairbench [options] oltp_read_write [options] run", word)
	case otherTests[name]:
		return "", fmt.Errorf("sysbench's %s test is not one fairbench runs; its sysbench tests are %s", name, strings.Join(cat.Tests, ", "))
	}
	if near := suggest.Nearest(name, cat.Tests); near != "" {
		return "", fmt.Errorf("%q is not a sysbench test; did you mean %q? (fairbench's sysbench tests are %s)", word, near, strings.Join(cat.Tests, ", "))
	}
	return "", fmt.Errorf("%q is neither a fairbench command nor a sysbench test; write one of:\n"+
		"  fairbench run WORKLOAD [options]                      (fairbench's order; also prepare, cleanup, warmup, check)\n"+
		"  fairbench [options] TESTNAME [options] prepare|run|cleanup|prewarm|help   (sysbench's order)\n"+
		"  fairbench [options] /usr/share/sysbench/TESTNAME.lua [options] run      (the test as its Lua script)\n"+
		"  fairbench --test=TESTNAME [options] run                (sysbench 0.5/1.0's --test)\n"+
		"TESTNAME is one of %s; 'fairbench --help' lists the commands", word, strings.Join(cat.Tests, ", "))
}

// options builds Args from the option tokens for c.Phase and c.Test; extra
// are words left after the command, refused.
func (c *Command) options(toks []token, extra []string, cat Catalog) error {
	if len(extra) > 0 {
		if err := strayValue(toks, extra[0], func() *pflag.FlagSet { return unionFlags(cat) }); err != nil {
			return err
		}
		return fmt.Errorf("unexpected %q after the command: options are written --name=value", extra[0])
	}
	phase := c.Phase
	help := phase == "help"
	for _, t := range toks {
		if n := canonicalOf(t); n == "help" || (t.short && t.name == "h") {
			help = true
		}
	}
	if help {
		if phase == "help" {
			phase = "run"
		}
		c.Phase = "help"
		c.Args = []string{phase, c.Test, "--help"}
		return nil
	}
	fs := cat.Flags(phase, c.Test)
	if fs == nil {
		return fmt.Errorf("%s has no %s command", c.Test, phase)
	}
	c.Args = []string{phase, c.Test}
	var renamed [][2]string
	var noEff []string
	given := map[string]bool{}
	for _, t := range toks {
		if t.word != "" {
			continue
		}
		if t.short {
			f := fs.ShorthandLookup(t.name)
			if f == nil {
				return fmt.Errorf("unknown shorthand flag: -%s: %s %s does not take it ('fairbench %s help' lists the options)", t.name, phase, c.Test, c.Test)
			}
			c.Args = append(c.Args, "-"+t.name)
			if t.hasValue {
				c.Args = append(c.Args, t.value)
			}
			continue
		}
		name, alias := Canonical(t.name)
		given[name] = true
		if alias {
			renamed = append(renamed, [2]string{strings.ReplaceAll(t.name, "_", "-"), name})
		}
		if name == "test" || name == "config-file" {
			continue
		}
		if why, ok := refused[name]; ok {
			if switches[name] && t.hasValue && onOff[strings.ToLower(strings.TrimSpace(t.value))] == "false" {
				continue // turned off, as it is by default
			}
			if def, ok := defaultValues[name]; ok && strings.EqualFold(strings.TrimSpace(t.value), def) {
				noEff = append(noEff, fmt.Sprintf("--%s=%s (sysbench's default)", name, def))
				continue
			}
			return fmt.Errorf("--%s is not supported: %s", name, why)
		}
		if why, ok := noEffect[name]; ok {
			noEff = append(noEff, fmt.Sprintf("--%s (%s)", name, why))
			continue
		}
		f := fs.Lookup(name)
		if f == nil {
			of := takenBy(cat, c.Test, name)
			if of == "" {
				var names []string
				for _, p := range Phases {
					names = append(names, suggest.FlagNames(cat.Flags(p, c.Test))...)
				}
				if suggest.Nearest(name, names) != "" {
					return errors.New(suggest.UnknownFlag(name, names))
				}
				return fmt.Errorf("unknown flag --%s: neither sysbench's %s nor fairbench takes it ('fairbench %s help' lists the options)", t.name, c.Test, c.Test)
			}
			c.Ignored = append(c.Ignored, Ignored{Name: name, Value: t.value, Of: of})
			continue
		}
		if !t.hasValue && f.Value.Type() != "bool" && f.NoOptDefVal == "" && !switches[name] {
			return errors.New(suggest.NeedsValue(f))
		}
		c.Args = append(c.Args, "--"+name+"="+flagValue(f, t))
	}
	if len(renamed) > 0 {
		c.Notes = append(c.Notes, aliasNote(renamed))
	}
	if len(noEff) > 0 {
		c.Notes = append(c.Notes, "accepted with no effect: "+strings.Join(noEff, ", "))
	}
	if c.Sysbench && phase == "run" && !given["rand-type"] {
		c.Notes = append(c.Notes, "--rand-type not given: fairbench's default, uniform (sysbench 1.0's is special, 1.1's uniform); give --rand-type=special to run as sysbench 1.0 does")
	}
	return nil
}

// IgnoredNote is the one line naming the options this command ignores, ""
// when none.
func (c *Command) IgnoredNote() string {
	if len(c.Ignored) == 0 {
		return ""
	}
	names := make([]string, len(c.Ignored))
	for i, ig := range c.Ignored {
		names[i] = fmt.Sprintf("%s (%s)", ig.String(), ig.Of)
	}
	return fmt.Sprintf("%s ignores %s: options of other commands, accepted as sysbench accepts one option set for every command",
		c.Phase, strings.Join(names, ", "))
}

// flagValue is the value written for option token t of flag f: sysbench's
// boolean spellings become true/false for a boolean flag, a switch given
// alone is on, and a flag with a value of its own when alone
// (--forced-shutdown: 5%) takes that.
func flagValue(f *pflag.Flag, t token) string {
	isBool := f.Value.Type() == "bool"
	if !t.hasValue {
		switch {
		case isBool:
			return "true"
		case f.NoOptDefVal != "":
			return f.NoOptDefVal
		}
		return "on"
	}
	if b, ok := onOff[strings.ToLower(strings.TrimSpace(t.value))]; ok && isBool {
		return b
	}
	return t.value
}

// takenBy names the commands of test that take option name, "" for none.
func takenBy(cat Catalog, test, name string) string {
	var of []string
	for _, p := range Phases {
		if fs := cat.Flags(p, test); fs != nil && fs.Lookup(name) != nil {
			of = append(of, p)
		}
	}
	return strings.Join(of, ", ")
}

// unionFlags are the flags of every command of the first test (the sysbench
// tests share their options), to tell an option's value from a word.
func unionFlags(cat Catalog) *pflag.FlagSet {
	u := pflag.NewFlagSet("union", pflag.ContinueOnError)
	for _, p := range Phases {
		if fs := cat.Flags(p, cat.Tests[0]); fs != nil {
			fs.VisitAll(func(f *pflag.Flag) {
				if u.Lookup(f.Name) == nil {
					u.AddFlag(f)
				}
			})
		}
	}
	return u
}

// canonicalOf is the modern name of option token t ("" for a word).
func canonicalOf(t token) string {
	if t.word != "" || t.short {
		return ""
	}
	n, _ := Canonical(t.name)
	return n
}

// maxConfigDepth bounds config files naming config files.
const maxConfigDepth = 4

// tokenize splits args into words and options; nil when args hold "--" (left
// to fairbench's parser). A --config-file's options come first, so that the
// command line's own win.
func tokenize(args []string, union func() *pflag.FlagSet, readFile func(string) ([]byte, error), depth int) ([]token, error) {
	var toks, fromFiles []token
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return nil, nil
		case !strings.HasPrefix(a, "-") || a == "-":
			toks = append(toks, token{word: a})
			continue
		case !strings.HasPrefix(a, "--"):
			t := token{name: a[1:], short: true}
			if len(t.name) > 1 {
				t.name, t.value, t.hasValue = t.name[:1], strings.TrimPrefix(t.name[1:], "="), true
			} else if f := union().ShorthandLookup(t.name); f != nil && f.NoOptDefVal == "" && i+1 < len(args) {
				i++
				t.value, t.hasValue = args[i], true
			}
			toks = append(toks, t)
			continue
		}
		t := token{}
		t.name, t.value, t.hasValue = strings.Cut(a[2:], "=")
		if t.name == "" {
			return nil, fmt.Errorf("%q is not an option: write --name=value", a)
		}
		name, _ := Canonical(t.name)
		if !t.hasValue && takesValue(name, union) && i+1 < len(args) {
			i++
			t.value, t.hasValue = args[i], true
		}
		if name == "config-file" {
			if !t.hasValue || t.value == "" {
				return nil, fmt.Errorf("--config-file needs a file: --config-file=FILE")
			}
			opts, err := readConfig(t.value, union, readFile, depth)
			if err != nil {
				return nil, err
			}
			fromFiles = append(fromFiles, opts...)
		}
		toks = append(toks, t)
	}
	return append(fromFiles, toks...), nil
}

// takesValue reports whether option name (modern) reads the next word as its
// value when written without "=": fairbench's flags that are not switches.
func takesValue(name string, union func() *pflag.FlagSet) bool {
	if switches[name] {
		return false
	}
	switch name {
	case "test", "config-file", "thread-stack-size", "verbosity", "report-checkpoints", "pgsql-variant":
		return true
	}
	f := union().Lookup(name)
	return f != nil && f.NoOptDefVal == ""
}

// readConfig reads sysbench's --config-file: one option a line, written
// name=value (or name alone, a switch), with or without leading dashes;
// blank lines and lines starting with # are skipped.
func readConfig(file string, union func() *pflag.FlagSet, readFile func(string) ([]byte, error), depth int) ([]token, error) {
	if depth >= maxConfigDepth {
		return nil, fmt.Errorf("--config-file %s: config files nest more than %d deep", file, maxConfigDepth)
	}
	if readFile == nil {
		return nil, fmt.Errorf("--config-file %s: no files can be read here", file)
	}
	raw, err := readFile(file)
	if err != nil {
		return nil, fmt.Errorf("--config-file: %w", err)
	}
	var args []string
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(line, "-"), "=")
		name = strings.TrimSpace(name)
		if name == "" || strings.ContainsAny(name, " \t") {
			return nil, fmt.Errorf("--config-file %s line %d: %q is not name=value", file, n, line)
		}
		opt := "--" + name
		if hasValue {
			opt += "=" + strings.TrimSpace(value)
		}
		args = append(args, opt)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--config-file %s: %w", file, err)
	}
	toks, err := tokenize(args, union, readFile, depth+1)
	if err != nil {
		return nil, err
	}
	for _, t := range toks {
		if t.word != "" {
			return nil, fmt.Errorf("--config-file %s: %q is not an option", file, t.word)
		}
	}
	return toks, nil
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
