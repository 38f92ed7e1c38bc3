package script

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/base/suggest"
	"github.com/fairbench/fairbench/internal/workload/pgbench/expr"
)

// metaCommands are the meta-command names pgbench 15 knows, for the "did
// you mean" of an unknown one.
var metaCommands = []string{"set", "sleep", "if", "elif", "else", "endif", "gset", "aset",
	"setshell", "shell", "startpipeline", "endpipeline"}

type parser struct {
	file, src  string
	i          int
	lineStarts []int
	s          *Script
	ifs        [][]int // open \if chains: the indexes of their \if, \elif and \else
}

// Parse parses a pgbench 15 script: SQL commands, each ended by a semicolon
// outside quotes, comments and parentheses (or by a meta-command, or the end
// of the file), and meta-commands, from a backslash to the end of the line (a
// backslash just before the newline continues it). file names the script in
// errors and becomes its Name. Every error is an *Error.
func Parse(file, text string) (*Script, error) {
	p := &parser{file: file, src: text, s: newScript(file, text), lineStarts: []int{0}}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			p.lineStarts = append(p.lineStarts, i+1)
		}
	}
	for p.i < len(p.src) {
		if err := p.sqlCommand(); err != nil {
			return nil, err
		}
		if p.i < len(p.src) && p.src[p.i] == '\\' {
			if err := p.metaCommand(); err != nil {
				return nil, err
			}
		}
	}
	if len(p.ifs) > 0 {
		c := &p.s.Commands[p.ifs[len(p.ifs)-1][0]]
		return nil, &Error{File: file, Line: c.Line, Column: c.Column, Msg: "\\if without matching \\endif: close it with \\endif"}
	}
	if len(p.s.Commands) == 0 {
		return nil, p.errAt(0, "empty command list: the script has no SQL command nor meta-command")
	}
	return p.s, nil
}

// position returns the 1-based line and column of byte offset off.
func (p *parser) position(off int) (int, int) {
	line := sort.Search(len(p.lineStarts), func(k int) bool { return p.lineStarts[k] > off })
	return line, off - p.lineStarts[line-1] + 1
}

func (p *parser) errAt(off int, format string, a ...any) *Error {
	line, col := p.position(off)
	return &Error{File: p.file, Line: line, Column: col, Msg: fmt.Sprintf(format, a...)}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// isVarStart and isVarChar are pgbench's variable name characters (bytes
// with the high bit set included, for UTF-8 names).
func isVarStart(c byte) bool {
	return c >= 0x80 || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isVarChar(c byte) bool { return isVarStart(c) || (c >= '0' && c <= '9') }

// isIdentChar is a character of an SQL identifier or keyword (PostgreSQL
// allows $ after the first).
func isIdentChar(c byte) bool { return isVarChar(c) || c == '$' }

func validVarName(name string) bool {
	if name == "" || !isVarStart(name[0]) {
		return false
	}
	for i := 1; i < len(name); i++ {
		if !isVarChar(name[i]) {
			return false
		}
	}
	return true
}

// sqlBuilder accumulates an SQL command: its SQL (with ? parameters) and its
// Text (with the :names), whitespace runs made one space.
type sqlBuilder struct {
	sql, text  strings.Builder
	space      bool // whitespace seen since the last content
	content    bool // something other than comments seen
	start      int  // offset of the first character, -1 before
	lastIdent  bool // the last byte written is an identifier character
	params     []string
	reads      []Ref
	quotedRefs []Ref
}

func (b *sqlBuilder) write(s string, sqlForm string, off int) {
	if b.start < 0 {
		b.start = off
	}
	if b.space && b.text.Len() > 0 {
		b.sql.WriteByte(' ')
		b.text.WriteByte(' ')
	}
	b.space = false
	b.sql.WriteString(sqlForm)
	b.text.WriteString(s)
	b.lastIdent = isIdentChar(s[len(s)-1])
}

// sqlCommand scans an SQL command from p.i up to its semicolon (consumed),
// a backslash starting a meta-command (not consumed) or the end of the file,
// and appends it unless it is empty.
func (p *parser) sqlCommand() error {
	src := p.src
	b := &sqlBuilder{start: -1}
	depth, open := 0, 0
scan:
	for p.i < len(src) {
		c := src[p.i]
		next := byte(0)
		if p.i+1 < len(src) {
			next = src[p.i+1]
		}
		switch {
		case isSpace(c):
			b.space, b.lastIdent = true, false
			p.i++
		case c == '-' && next == '-':
			for p.i < len(src) && src[p.i] != '\n' {
				p.i++
			}
			b.space, b.lastIdent = true, false
		case c == '/' && next == '*':
			end, err := p.blockComment(p.i)
			if err != nil {
				return err
			}
			b.write(src[p.i:end], src[p.i:end], p.i)
			b.lastIdent = false
			p.i = end
		case c == '\'':
			escapes := b.lastIdent && p.i > 0 && (src[p.i-1] == 'e' || src[p.i-1] == 'E') &&
				(p.i < 2 || !isIdentChar(src[p.i-2]))
			end, err := p.quoted(p.i, '\'', escapes, b)
			if err != nil {
				return err
			}
			b.write(src[p.i:end], src[p.i:end], p.i)
			b.content = true
			p.i = end
		case c == '"':
			end, err := p.quoted(p.i, '"', false, nil)
			if err != nil {
				return err
			}
			b.write(src[p.i:end], src[p.i:end], p.i)
			b.content = true
			p.i = end
		case c == '$' && !b.lastIdent:
			end, ok, err := p.dollarQuoted(p.i)
			if err != nil {
				return err
			}
			if !ok {
				end = p.i + 1
			}
			b.write(src[p.i:end], src[p.i:end], p.i)
			b.content = true
			p.i = end
		case c == ':' && next == ':':
			end := p.i
			for end < len(src) && src[end] == ':' {
				end++
			}
			b.write(src[p.i:end], src[p.i:end], p.i)
			b.content = true
			p.i = end
		case c == ':' && isVarStart(next):
			end := p.i + 1
			for end < len(src) && isVarChar(src[end]) {
				end++
			}
			name := src[p.i+1 : end]
			line, col := p.position(p.i)
			b.params = append(b.params, name)
			b.reads = append(b.reads, Ref{Name: name, Line: line, Column: col})
			b.write(src[p.i:end], "?", p.i)
			b.content = true
			p.i = end
		case c == ':' && (next == '\'' || next == '"'):
			return p.errAt(p.i, "%s is psql's quoting of a variable, which pgbench does not substitute (the server would get it as written): write :name, which fairbench sends as a parameter", src[p.i:p.i+2]+"name"+string(next))
		case c == '?':
			return p.errAt(p.i, "? outside quotes: fairbench's drivers take ? as a parameter placeholder; write a variable as :name, and a PostgreSQL ? operator as its function (jsonb_exists and the like)")
		case c == '(':
			if depth == 0 {
				open = p.i
			}
			depth++
			b.write("(", "(", p.i)
			b.content = true
			p.i++
		case c == ')':
			if depth > 0 {
				depth--
			}
			b.write(")", ")", p.i)
			b.content = true
			p.i++
		case c == ';' && depth == 0:
			if b.start < 0 {
				b.start = p.i
			}
			p.i++
			break scan
		case c == '\\':
			if next == ';' {
				return p.errAt(p.i, "\\; (several queries sent as one) is not supported: end each query with ; so that each is a command of its own")
			}
			break scan
		default:
			end := p.i + 1
			for end < len(src) && isIdentChar(src[end]) && isIdentChar(c) {
				end++
			}
			b.write(src[p.i:end], src[p.i:end], p.i)
			b.content = true
			p.i = end
		}
	}
	if !b.content {
		return nil
	}
	if depth > 0 {
		return p.errAt(open, "unbalanced parentheses: this ( is never closed, so no ; after it ends the command (pgbench would send the rest as one query)")
	}
	line, col := p.position(b.start)
	s := p.s
	cmd := Command{Kind: KindSQL, Line: line, Column: col, Text: b.text.String(), SQL: b.sql.String(),
		Params: b.params, Reads: b.reads, quoted: b.quotedRefs}
	for _, name := range b.params {
		cmd.params = append(cmd.params, s.local(name))
	}
	s.Commands = append(s.Commands, cmd)
	return nil
}

// blockComment returns the end of the (nested, as PostgreSQL nests them)
// /* comment starting at off.
func (p *parser) blockComment(off int) (int, error) {
	depth := 0
	for i := off; i+1 < len(p.src); i++ {
		switch {
		case p.src[i] == '/' && p.src[i+1] == '*':
			depth++
			i++
		case p.src[i] == '*' && p.src[i+1] == '/':
			depth--
			i++
			if depth == 0 {
				return i + 1, nil
			}
		}
	}
	return 0, p.errAt(off, "unterminated /* comment: close it with */")
}

// quoted returns the end of the quoted string or identifier starting at off
// (a doubled quote is a quote; with escapes, as in E'…', a backslash escapes
// the next character). For a string, the :names it holds are noted in b.
func (p *parser) quoted(off int, q byte, escapes bool, b *sqlBuilder) (int, error) {
	src := p.src
	for i := off + 1; i < len(src); i++ {
		switch c := src[i]; {
		case escapes && c == '\\':
			if i+1 < len(src) && src[i+1] == '\'' {
				return 0, p.errAt(i, "\\' in an E'…' string is not supported (fairbench's drivers would take it for the end of the string when looking for ? placeholders): write the quote doubled, ''")
			}
			i++
		case c == q:
			if i+1 < len(src) && src[i+1] == q {
				i++
				continue
			}
			return i + 1, nil
		case b != nil && c == ':' && i+1 < len(src) && isVarStart(src[i+1]) && src[i-1] != ':':
			end := i + 1
			for end < len(src) && isVarChar(src[end]) {
				end++
			}
			line, col := p.position(i)
			b.quotedRefs = append(b.quotedRefs, Ref{Name: src[i+1 : end], Line: line, Column: col})
		}
	}
	what := "quoted string"
	if q == '"' {
		what = "quoted identifier"
	}
	return 0, p.errAt(off, "unterminated %s: close it with %c", what, q)
}

// dollarQuoted returns the end of the dollar-quoted string starting at off,
// or ok false when the $ does not start one. fairbench's drivers look for ?
// placeholders knowing '…' and "…" but not $$…$$, so a body holding a quote
// or a ? is refused.
func (p *parser) dollarQuoted(off int) (end int, ok bool, err error) {
	src := p.src
	i := off + 1
	if i < len(src) && isVarStart(src[i]) {
		for i < len(src) && isVarChar(src[i]) {
			i++
		}
	}
	if i >= len(src) || src[i] != '$' {
		return 0, false, nil
	}
	tag := src[off : i+1]
	k := strings.Index(src[i+1:], tag)
	if k < 0 {
		return 0, false, p.errAt(off, "unterminated dollar-quoted string: close it with %s", tag)
	}
	body := src[i+1 : i+1+k]
	if strings.ContainsAny(body, "'\"?") {
		return 0, false, p.errAt(off, "a dollar-quoted string holding ', \" or ? is not supported (fairbench's drivers would take them for quotes or placeholders): use a '…' string")
	}
	return i + 1 + k + len(tag), true, nil
}

// metaCommand parses the meta-command at p.i (a backslash) up to the end of
// its line, continuation lines included.
func (p *parser) metaCommand() error {
	src := p.src
	start := p.i
	// The line, with each backslash-newline continuation blanked out so that
	// offsets in it are offsets in src.
	var line []byte
	i := start
	for i < len(src) && src[i] != '\n' {
		if src[i] == '\\' && i > start {
			if i+1 < len(src) && src[i+1] == '\n' {
				line = append(line, ' ', ' ')
				i += 2
				continue
			}
			if i+2 < len(src) && src[i+1] == '\r' && src[i+2] == '\n' {
				line = append(line, ' ', ' ', ' ')
				i += 3
				continue
			}
		}
		line = append(line, src[i])
		i++
	}
	p.i = i
	if p.i < len(src) {
		p.i++ // the newline
	}
	text := strings.TrimRight(string(line), " \t\r\f\v")
	n := 1
	for n < len(text) && isVarChar(text[n]) {
		n++
	}
	name := strings.ToLower(text[1:n]) // pgbench matches them ignoring case
	rest := text[n:]
	line0, col0 := p.position(start)
	cmd := Command{Line: line0, Column: col0, Text: normalizeSpace(text)}
	words := strings.Fields(rest)
	// wordOff returns the offset in src of the k-th word of rest.
	wordOff := func(k int) int {
		off := n
		for j := 0; j <= k; j++ {
			for off < len(text) && isSpace(text[off]) {
				off++
			}
			if j == k {
				break
			}
			for off < len(text) && !isSpace(text[off]) {
				off++
			}
		}
		return start + off
	}
	s := p.s
	switch name {
	case "set":
		if len(words) == 0 {
			return p.errAt(start, "\\set: missing argument: write \\set NAME EXPRESSION")
		}
		if !validVarName(words[0]) {
			return p.errAt(wordOff(0), "\\set: invalid variable name %q: a name is letters, digits and _, not starting with a digit", words[0])
		}
		exprOff := wordOff(0) - start + len(words[0])
		e, err := p.expression(text[exprOff:], start+exprOff, "\\set")
		if err != nil {
			return err
		}
		cmd.Kind, cmd.Var, cmd.Expr = KindSet, words[0], e
		cmd.setVar = s.local(words[0])
		p.exprReads(&cmd, e, start+exprOff)
	case "if", "elif":
		e, err := p.expression(rest, start+n, "\\"+name)
		if err != nil {
			return err
		}
		cmd.Kind, cmd.Expr = KindIf, e
		if name == "elif" {
			cmd.Kind = KindElif
		}
		p.exprReads(&cmd, e, start+n)
	case "else", "endif":
		if len(words) > 0 {
			return p.errAt(wordOff(0), "\\%s: unexpected argument %q: it takes none", name, words[0])
		}
		cmd.Kind = KindElse
		if name == "endif" {
			cmd.Kind = KindEndif
		}
	case "sleep":
		if err := p.sleep(&cmd, words, wordOff, start); err != nil {
			return err
		}
	case "gset", "aset":
		return p.store(name, words, wordOff, start)
	case "setshell", "shell":
		return p.errAt(start, "\\%s is not supported: fairbench does not run shell commands from a benchmark script; compute the value with \\set, or run the command before the benchmark and pass its output with -D NAME=VALUE", name)
	case "startpipeline", "endpipeline":
		return p.errAt(start, "\\%s is not supported: fairbench does not run pgbench's pipeline mode; remove \\startpipeline and \\endpipeline to send the commands one by one", name)
	default:
		msg := fmt.Sprintf("unknown meta-command \\%s", name)
		if name == "" {
			msg = "a backslash must start a meta-command (\\set, \\sleep, \\if, \\gset …)"
		} else if near := suggest.Nearest(name, metaCommands); near != "" {
			msg += fmt.Sprintf(" (did you mean \\%s?)", near)
		} else {
			msg += ": pgbench's are \\" + strings.Join(metaCommands, ", \\")
		}
		return p.errAt(start, "%s", msg)
	}
	s.Commands = append(s.Commands, cmd)
	return p.conditional(start)
}

// expression parses src, at offset off of the file, as the expression of
// what (\set, \if or \elif), locating a syntax error in the file.
func (p *parser) expression(src string, off int, what string) (expr.Expr, error) {
	e, err := expr.Parse(src)
	if err != nil {
		var se *expr.SyntaxError
		if errors.As(err, &se) {
			at := off + se.Col - 1
			if at > off+len(src) {
				at = off + len(src)
			}
			return nil, p.errAt(at, "syntax error in %s: %s", what, strings.TrimPrefix(se.Msg, "syntax error: "))
		}
		return nil, p.errAt(off, "%s: %v", what, err)
	}
	return e, nil
}

// exprReads notes the variables expression e (at offset off) reads.
func (p *parser) exprReads(cmd *Command, e expr.Expr, off int) {
	var walk func(e expr.Expr)
	walk = func(e expr.Expr) {
		switch e := e.(type) {
		case *expr.Var:
			line, col := p.position(off + e.Col - 1)
			r := Ref{Name: e.Name, Line: line, Column: col}
			cmd.Reads = append(cmd.Reads, r)
			for _, rv := range cmd.reads {
				if rv.name == e.Name {
					return
				}
			}
			cmd.reads = append(cmd.reads, readVar{name: e.Name, local: p.s.local(e.Name), ref: r})
		case *expr.Call:
			for _, a := range e.Args {
				walk(a)
			}
		case *expr.Case:
			for _, w := range e.Whens {
				walk(w.Cond)
				walk(w.Then)
			}
			if e.Else != nil {
				walk(e.Else)
			}
		}
	}
	walk(e)
}

// sleep parses \sleep's arguments as pgbench does: a count (an integer, or
// :variable) and an optional unit (us, ms or s, also glued to the count).
func (p *parser) sleep(cmd *Command, words []string, wordOff func(int) int, start int) error {
	cmd.Kind, cmd.SleepUnit = KindSleep, time.Second
	if len(words) == 0 {
		return p.errAt(start, "\\sleep: missing argument: write \\sleep N [us|ms|s] or \\sleep :variable [us|ms|s]")
	}
	if len(words) > 2 {
		return p.errAt(wordOff(2), "\\sleep: too many arguments: write \\sleep N [us|ms|s]")
	}
	count, unit := words[0], ""
	if len(words) == 2 {
		unit = words[1]
	}
	if strings.HasPrefix(count, ":") {
		if !validVarName(count[1:]) {
			return p.errAt(wordOff(0), "\\sleep: invalid variable name %q", count[1:])
		}
		cmd.SleepVar = count[1:]
		cmd.sleepV = p.s.local(cmd.SleepVar)
		line, col := p.position(wordOff(0))
		cmd.Reads = append(cmd.Reads, Ref{Name: cmd.SleepVar, Line: line, Column: col})
	} else {
		j := 0
		if j < len(count) && (count[j] == '+' || count[j] == '-') {
			j++
		}
		digits := j
		for j < len(count) && count[j] >= '0' && count[j] <= '9' {
			j++
		}
		if j == digits || (j < len(count) && len(words) == 2) {
			return p.errAt(wordOff(0), "\\sleep: invalid sleep time %q, must be an integer", count)
		}
		if j < len(count) {
			unit = count[j:]
		}
		v, err := strconv.ParseInt(count[:j], 10, 64)
		if err != nil {
			return p.errAt(wordOff(0), "\\sleep: sleep time %q is out of range", count[:j])
		}
		cmd.SleepCount = v
	}
	switch strings.ToLower(unit) {
	case "", "s":
	case "ms":
		cmd.SleepUnit = time.Millisecond
	case "us":
		cmd.SleepUnit = time.Microsecond
	default:
		off := wordOff(len(words) - 1)
		if len(words) == 1 {
			off += len(count) - len(unit)
		}
		return p.errAt(off, "\\sleep: unrecognized time unit %q, must be us, ms or s", unit)
	}
	return nil
}

// store attaches \gset or \aset to the SQL command just before it.
func (p *parser) store(name string, words []string, wordOff func(int) int, start int) error {
	if len(words) > 1 {
		return p.errAt(wordOff(1), "\\%s: too many arguments: write \\%s [PREFIX]", name, name)
	}
	cmds := p.s.Commands
	if len(cmds) == 0 || cmds[len(cmds)-1].Kind != KindSQL || cmds[len(cmds)-1].Store != StoreNone {
		return p.errAt(start, "\\%s must follow an SQL command (it stores that command's result): put it right after the query, instead of its semicolon or on the next line", name)
	}
	prefix := ""
	if len(words) == 1 {
		prefix = words[0]
		if !validVarName(prefix) {
			return p.errAt(wordOff(0), "\\%s: invalid prefix %q: the variables are named prefix+column, so it must be letters, digits and _, not starting with a digit", name, prefix)
		}
	}
	cmd := &cmds[len(cmds)-1]
	cmd.Store, cmd.Prefix = StoreGset, prefix
	if name == "aset" {
		cmd.Store = StoreAset
	}
	cmd.Text += " \\" + name
	if prefix != "" {
		cmd.Text += " " + prefix
	}
	p.s.prefixes = append(p.s.prefixes, prefix)
	return nil
}

// conditional links the command just appended into its \if chain.
func (p *parser) conditional(start int) error {
	cmds := p.s.Commands
	k := len(cmds) - 1
	c := &cmds[k]
	switch c.Kind {
	case KindIf:
		p.ifs = append(p.ifs, []int{k})
	case KindElif, KindElse:
		if len(p.ifs) == 0 {
			return p.errAt(start, "\\%s without matching \\if", kindName(c.Kind))
		}
		chain := p.ifs[len(p.ifs)-1]
		last := chain[len(chain)-1]
		if cmds[last].Kind == KindElse {
			return p.errAt(start, "\\%s after \\else: the \\else must be the chain's last branch", kindName(c.Kind))
		}
		cmds[last].Next = k
		p.ifs[len(p.ifs)-1] = append(chain, k)
	case KindEndif:
		if len(p.ifs) == 0 {
			return p.errAt(start, "\\endif without matching \\if")
		}
		chain := p.ifs[len(p.ifs)-1]
		p.ifs = p.ifs[:len(p.ifs)-1]
		last := chain[len(chain)-1]
		if cmds[last].Kind != KindElse {
			cmds[last].Next = k
		}
		for _, b := range chain {
			cmds[b].End = k
		}
	}
	return nil
}

func kindName(k Kind) string {
	return [...]string{"SQL", "set", "sleep", "if", "elif", "else", "endif"}[k]
}

// normalizeSpace makes each whitespace run of a meta-command one space.
func normalizeSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
