// Package script reads pgbench's (PostgreSQL 15) script files and built-in
// scripts and runs them, one client at a time: SQL commands with :variable
// parameters, \set expressions (package expr), \if chains, \sleep, \gset and
// \aset. It never talks to a database: Client.Run hands every SQL command to
// an Executor, so the workload that owns the connections decides how a
// command is sent and timed.
//
// What differs from pgbench, on purpose:
//   - a :name in SQL becomes a parameter (a ? placeholder, fairbench's
//     drivers' form), as pgbench's -M extended and -M prepared modes do; the
//     text substitution of its default -M simple mode is not mirrored, so a
//     variable inside a quoted string is refused by Check rather than pasted
//     into the string;
//   - \setshell, \shell, \startpipeline, \endpipeline and \; (several queries
//     in one command) are refused at parse time, saying why;
//   - a -D value written as a quoted SQL literal ('abc') is unquoted, since a
//     parameter carries the string itself;
//   - what fairbench's drivers' ? placeholders cannot carry is refused at
//     parse time: a ? outside quotes, \' in an E'…' string, a dollar-quoted
//     string holding a quote or a ?; so is what the server would reject
//     anyway (psql's :'x', a ( never closed), and an invalid \set name or
//     \gset prefix, which pgbench finds only when the command runs.
package script

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/workload/pgbench/expr"
)

// Error is an error in a script, at a 1-based line and column of its file
// (the column counts bytes). Parse, Check and Client.Run return it; a run-time
// error wraps its cause, so errors.Is(err, expr.ErrEval) holds for an
// expression's evaluation error.
type Error struct {
	File         string
	Line, Column int
	Msg          string
	err          error
}

// Error implements error: file:line:column: message.
func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
}

// Unwrap returns the cause of a run-time error, if any.
func (e *Error) Unwrap() error { return e.err }

// Kind is what a Command does.
type Kind uint8

// The kinds of command.
const (
	KindSQL   Kind = iota // an SQL command, sent through the Executor
	KindSet               // \set Var Expr
	KindSleep             // \sleep
	KindIf                // \if Expr
	KindElif              // \elif Expr
	KindElse              // \else
	KindEndif             // \endif
)

// Store says what an SQL command does with its result.
type Store uint8

// The ways of storing a result into variables.
const (
	StoreNone Store = iota // results are discarded
	StoreGset              // \gset: exactly one row, each column into Prefix+column
	StoreAset              // \aset: the last row, if any, each column into Prefix+column
)

// Ref is one use of a variable in a command, where it is written.
type Ref struct {
	Name         string
	Line, Column int
}

// Command is one command of a script.
type Command struct {
	Kind Kind
	// Line and Column locate the command's first character in its file.
	Line, Column int
	// Text is the command as written, its whitespace runs (outside quotes)
	// made one space and its -- comments dropped: what per-statement reports
	// show.
	Text string

	// SQL is an SQL command's text with every :variable replaced by ?,
	// without the terminating semicolon.
	SQL string
	// Params are the variables whose values are the ? parameters, in order.
	Params []string
	// Store and Prefix are an SQL command's \gset or \aset, if any.
	Store  Store
	Prefix string

	// Var and Expr are \set's variable and expression; Expr is also the
	// condition of \if and \elif.
	Var  string
	Expr expr.Expr

	// SleepVar is the variable \sleep :name reads; when empty, SleepCount
	// is the literal count. SleepUnit is the unit (time.Second by default).
	SleepVar   string
	SleepCount int64
	SleepUnit  time.Duration

	// Next is, for \if and \elif, the index of the chain's next \elif,
	// \else or \endif: where to go when the condition is false. End is, for
	// \if, \elif and \else, the index of the chain's \endif.
	Next, End int

	// Reads are the variables the command reads, where they are written.
	Reads []Ref

	params []int     // local variable numbers of Params
	reads  []readVar // expression variables, deduplicated, with local numbers
	setVar int       // local number of Var
	sleepV int       // local number of SleepVar
	quoted []Ref     // :names inside quoted strings (not parameters)
}

type readVar struct {
	name  string
	local int
	ref   Ref
}

// Script is one parsed script file or built-in script.
type Script struct {
	// Name is the file's path or the built-in script's name.
	Name string
	// Text is the script exactly as read.
	Text string
	// Hash is the hex SHA-256 of Text: results record it so that runs of
	// different scripts are never compared.
	Hash string
	// Weight is the script's share of the transactions (FILE@W); Parse and
	// Builtin set 1.
	Weight int
	// Commands are the script's commands in order.
	Commands []Command

	names    []string       // local variable numbers → names
	numbers  map[string]int // names → local numbers
	prefixes []string       // \gset and \aset prefixes
}

func newScript(name, text string) *Script {
	sum := sha256.Sum256([]byte(text))
	return &Script{Name: name, Text: text, Hash: hex.EncodeToString(sum[:]), Weight: 1, numbers: map[string]int{}}
}

// local returns the local number of variable name, numbering it if new.
func (s *Script) local(name string) int {
	if n, ok := s.numbers[name]; ok {
		return n
	}
	s.numbers[name] = len(s.names)
	s.names = append(s.names, name)
	return len(s.names) - 1
}

// Uses returns the variables the script reads (in SQL, \sleep or an
// expression, including the :default_seed of a one-argument hash), sorted.
func (s *Script) Uses() []string {
	seen := map[string]bool{}
	for i := range s.Commands {
		for _, r := range s.Commands[i].Reads {
			seen[r.Name] = true
		}
	}
	return sortedKeys(seen)
}

// Sets returns the variables the script's \set commands set, sorted. A
// \gset or \aset may set any variable whose name starts with its prefix:
// see StorePrefixes.
func (s *Script) Sets() []string {
	seen := map[string]bool{}
	for i := range s.Commands {
		if s.Commands[i].Kind == KindSet {
			seen[s.Commands[i].Var] = true
		}
	}
	return sortedKeys(seen)
}

// StorePrefixes returns the prefixes of the script's \gset and \aset
// commands ("" when one has none), sorted: such a command may set any
// variable whose name starts with its prefix.
func (s *Script) StorePrefixes() []string {
	seen := map[string]bool{}
	for _, p := range s.prefixes {
		seen[p] = true
	}
	return sortedKeys(seen)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// checkConstant evaluates the expression of a \set, \if or \elif that
// reads no variable and draws no random number: its value is known before
// the run, and so is the error it would stop the run with (a division by
// zero, an integer overflow, a type error), which is refused here.
func checkConstant(s *Script, c *Command) error {
	if c.Expr == nil || !constant(c.Expr) {
		return nil
	}
	if _, err := expr.Eval(c.Expr, expr.Env{Lookup: func(string) (expr.Value, bool) { return expr.Value{}, false }}); err != nil {
		return &Error{File: s.Name, Line: c.Line, Column: c.Column, Msg: fmt.Sprintf("%s: %v (the expression is constant: it would fail in every transaction)", c.Text, err), err: err}
	}
	return nil
}

// constant reports whether e reads no variable, draws no random number and
// prints nothing (debug): its value is the same in every transaction.
func constant(e expr.Expr) bool {
	switch e := e.(type) {
	case *expr.Const:
		return true
	case *expr.Call:
		switch e.Func {
		case expr.FuncRandom, expr.FuncRandomExponential, expr.FuncRandomGaussian, expr.FuncRandomZipfian, expr.FuncDebug:
			return false
		}
		for _, a := range e.Args {
			if !constant(a) {
				return false
			}
		}
		return true
	case *expr.Case:
		for _, w := range e.Whens {
			if !constant(w.Cond) || !constant(w.Then) {
				return false
			}
		}
		return e.Else == nil || constant(e.Else)
	}
	return false
}

// Automatic are the variables pgbench sets itself unless -D sets them.
var Automatic = []string{"client_id", "default_seed", "random_seed", "scale"}

func isAutomatic(name string) bool {
	for _, a := range Automatic {
		if a == name {
			return true
		}
	}
	return false
}

// Check verifies, before anything connects, that every variable a script
// reads is set by some script (a \set, or a \gset or \aset whose prefix it
// starts with, since their columns are known only at run time), is one of
// the Automatic variables, or is defined (defined(name) reports a -D). It
// also refuses a :name inside a quoted string that names such a variable
// (pgbench's simple mode would paste the value into the string; a parameter
// cannot go there), and a total weight of zero. The error is an *Error at
// the first offending use.
func Check(scripts []*Script, defined func(name string) bool) error {
	if len(scripts) == 0 {
		return fmt.Errorf("no script to run: give a built-in script (-b) or a script file (-f)")
	}
	sets := map[string]bool{}
	var prefixes []string
	total := int64(0)
	for _, s := range scripts {
		for _, n := range s.Sets() {
			sets[n] = true
		}
		prefixes = append(prefixes, s.prefixes...)
		total += int64(s.Weight)
	}
	known := func(name string) bool {
		if sets[name] || isAutomatic(name) || (defined != nil && defined(name)) {
			return true
		}
		for _, p := range prefixes {
			if strings.HasPrefix(name, p) {
				return true
			}
		}
		return false
	}
	for _, s := range scripts {
		for i := range s.Commands {
			c := &s.Commands[i]
			for _, r := range c.Reads {
				if !known(r.Name) {
					return &Error{File: s.Name, Line: r.Line, Column: r.Column,
						Msg: fmt.Sprintf("variable %s is used but never set (set it with \\set or -D %s=…)", r.Name, r.Name)}
				}
			}
			for _, r := range c.quoted {
				if known(r.Name) {
					return &Error{File: s.Name, Line: r.Line, Column: r.Column,
						Msg: fmt.Sprintf(":%s is inside a quoted string: pgbench's simple mode would paste its value there, but fairbench sends variables as parameters, which cannot go inside a string; write it outside the quotes (for example '…' || :%s || '…')", r.Name, r.Name)}
				}
			}
			if err := checkConstant(s, c); err != nil {
				return err
			}
		}
	}
	if total <= 0 {
		return fmt.Errorf("total script weight must not be zero: give at least one script a weight above 0 (NAME@W)")
	}
	return nil
}
