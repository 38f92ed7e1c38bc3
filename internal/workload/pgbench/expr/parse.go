package expr

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// SyntaxError is a parse error: what was wrong or expected, at a 1-based
// column of the source (counted in bytes).
type SyntaxError struct {
	Col int
	Msg string
}

// Error implements error.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("column %d: %s", e.Col, e.Msg)
}

type tokKind uint8

const (
	tEOF tokKind = iota
	tInt
	tMaxIntPlusOne // 9223372036854775808, valid only after a unary minus
	tDouble
	tVar
	tIdent // a function name
	tOp    // operator or punctuation: text holds it
	tKeyword
)

type token struct {
	kind tokKind
	text string // operator text, upper-case keyword, variable or function name
	col  int
	ival int64
	fval float64
}

func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of expression"
	case tInt, tMaxIntPlusOne, tDouble:
		return "number " + t.text
	case tVar:
		return "variable :" + t.text
	case tIdent:
		return "function name " + t.text
	case tKeyword:
		return t.text
	}
	return fmt.Sprintf("%q", t.text)
}

var keywords = map[string]bool{
	"AND": true, "OR": true, "NOT": true, "IS": true, "ISNULL": true, "NOTNULL": true,
	"NULL": true, "TRUE": true, "FALSE": true, "CASE": true, "WHEN": true, "THEN": true,
	"ELSE": true, "END": true,
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentChar(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// lex splits src into tokens as pgbench's exprscan.l does.
func lex(src string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(src) {
		c := src[i]
		col := i + 1
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v':
			i++
		case isDigit(c) || (c == '.' && i+1 < len(src) && isDigit(src[i+1])):
			t, n, err := lexNumber(src[i:], col)
			if err != nil {
				return nil, err
			}
			toks = append(toks, t)
			i += n
		case c == ':':
			j := i + 1
			for j < len(src) && isIdentChar(src[j]) {
				j++
			}
			if j == i+1 {
				return nil, &SyntaxError{Col: col, Msg: "unexpected character \":\": expected a variable name after the colon"}
			}
			toks = append(toks, token{kind: tVar, text: src[i+1 : j], col: col})
			i = j
		case isIdentStart(c):
			j := i + 1
			for j < len(src) && isIdentChar(src[j]) {
				j++
			}
			word := src[i:j]
			if up := strings.ToUpper(word); keywords[up] {
				toks = append(toks, token{kind: tKeyword, text: up, col: col})
			} else {
				toks = append(toks, token{kind: tIdent, text: word, col: col})
			}
			i = j
		default:
			two := ""
			if i+1 < len(src) {
				two = src[i : i+2]
			}
			switch two {
			case "<>", "!=", "<=", ">=", "<<", ">>":
				if two == "!=" {
					two = "<>"
				}
				toks = append(toks, token{kind: tOp, text: two, col: col})
				i += 2
				continue
			}
			if strings.IndexByte("+-*/%()<>=,&|#~", c) < 0 {
				return nil, &SyntaxError{Col: col, Msg: fmt.Sprintf("unexpected character %q", rune(c))}
			}
			toks = append(toks, token{kind: tOp, text: string(c), col: col})
			i++
		}
	}
	return append(toks, token{kind: tEOF, col: len(src) + 1}), nil
}

// lexNumber reads an integer ({digit}+) or a double
// ({digit}+(.{digit}*)?([eE][-+]?{digit}+)? or .{digit}+([eE][-+]?{digit}+)?).
func lexNumber(s string, col int) (token, int, error) {
	j := 0
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	isDouble := false
	if j < len(s) && s[j] == '.' {
		isDouble = true
		j++
		for j < len(s) && isDigit(s[j]) {
			j++
		}
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			isDouble = true
			j = k
		}
	}
	text := s[:j]
	if isDouble {
		f, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsInf(f, 0) {
			return token{}, 0, &SyntaxError{Col: col, Msg: fmt.Sprintf("double constant overflow (%s)", text)}
		}
		return token{kind: tDouble, text: text, col: col, fval: f}, j, nil
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		if strings.TrimLeft(text, "0") == "9223372036854775808" {
			return token{kind: tMaxIntPlusOne, text: text, col: col}, j, nil
		}
		return token{}, 0, &SyntaxError{Col: col, Msg: fmt.Sprintf("bigint constant overflow (%s)", text)}
	}
	return token{kind: tInt, text: text, col: col, ival: n}, j, nil
}

// Precedence levels, lowest first, as in pgbench's exprparse.y.
const (
	precOr = iota + 1
	precAnd
	precNot
	precIs // IS, ISNULL, NOTNULL: postfix
	precCmp
	precBit
	precAdd
	precMul
	precUnary
)

type parser struct {
	toks []token
	pos  int
	// depth bounds recursion so that a hostile input cannot exhaust the stack.
	depth int
}

const maxDepth = 1000

// Parse parses one pgbench expression, the right-hand side of \set.
// A one-argument hash, hash_fnv1a or hash_murmur2 and a two-argument permute
// get the variable :default_seed as their seed argument, as in pgbench.
func Parse(src string) (Expr, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, fmt.Errorf("parse expression: %w", err)
	}
	p := &parser{toks: toks}
	e, err := p.expr(0)
	if err == nil && p.peek().kind != tEOF {
		err = p.unexpected("an operator or the end of the expression")
	}
	if err != nil {
		return nil, fmt.Errorf("parse expression: %w", err)
	}
	return e, nil
}

func (p *parser) peek() token { return p.toks[p.pos] }

func (p *parser) next() token {
	t := p.toks[p.pos]
	if t.kind != tEOF {
		p.pos++
	}
	return t
}

func (p *parser) isOp(text string) bool {
	t := p.peek()
	return t.kind == tOp && t.text == text
}

func (p *parser) isKeyword(word string) bool {
	t := p.peek()
	return t.kind == tKeyword && t.text == word
}

func (p *parser) unexpected(expected string) error {
	t := p.peek()
	return &SyntaxError{Col: t.col, Msg: fmt.Sprintf("syntax error: expected %s, found %s", expected, t.describe())}
}

func (p *parser) expectKeyword(word string) error {
	if !p.isKeyword(word) {
		return p.unexpected(word)
	}
	p.next()
	return nil
}

// infix returns the function and precedence of a binary operator token.
func infix(t token) (Func, int, bool) {
	if t.kind == tKeyword {
		switch t.text {
		case "OR":
			return FuncOr, precOr, true
		case "AND":
			return FuncAnd, precAnd, true
		}
		return 0, 0, false
	}
	if t.kind != tOp {
		return 0, 0, false
	}
	switch t.text {
	case "=":
		return FuncEq, precCmp, true
	case "<>":
		return FuncNe, precCmp, true
	case "<", ">":
		return FuncLt, precCmp, true
	case "<=", ">=":
		return FuncLe, precCmp, true
	case "&":
		return FuncBitAnd, precBit, true
	case "|":
		return FuncBitOr, precBit, true
	case "#":
		return FuncBitXor, precBit, true
	case "<<":
		return FuncLShift, precBit, true
	case ">>":
		return FuncRShift, precBit, true
	case "+":
		return FuncAdd, precAdd, true
	case "-":
		return FuncSub, precAdd, true
	case "*":
		return FuncMul, precMul, true
	case "/":
		return FuncDiv, precMul, true
	case "%":
		return FuncMod, precMul, true
	}
	return 0, 0, false
}

// expr parses an expression whose binary and postfix operators all have a
// precedence of at least minPrec (precedence climbing).
func (p *parser) expr(minPrec int) (Expr, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, &SyntaxError{Col: p.peek().col, Msg: "expression nested too deeply"}
	}
	left, err := p.prefix()
	if err != nil {
		return nil, err
	}
	lastCmp := false // comparisons do not associate: a < b < c is an error
	for {
		t := p.peek()
		if t.kind == tKeyword && (t.text == "IS" || t.text == "ISNULL" || t.text == "NOTNULL") {
			if precIs < minPrec {
				return left, nil
			}
			if left, err = p.postfixIs(left); err != nil {
				return nil, err
			}
			lastCmp = false
			continue
		}
		fn, prec, ok := infix(t)
		if !ok || prec < minPrec {
			return left, nil
		}
		if prec == precCmp && lastCmp {
			return nil, &SyntaxError{Col: t.col, Msg: fmt.Sprintf("syntax error: comparison operators do not associate; parenthesise before %q", t.text)}
		}
		p.next()
		right, err := p.expr(prec + 1)
		if err != nil {
			return nil, err
		}
		args := []Expr{left, right}
		if t.text == ">" || t.text == ">=" {
			args = []Expr{right, left}
		}
		left = &Call{Func: fn, Args: args, Col: left.Column()}
		lastCmp = prec == precCmp
	}
}

// postfixIs parses IS [NOT] NULL|TRUE|FALSE, ISNULL and NOTNULL after left.
func (p *parser) postfixIs(left Expr) (Expr, error) {
	t := p.next()
	isNull := func() Expr {
		return &Call{Func: FuncIs, Args: []Expr{left, &Const{Col: t.col}}, Col: left.Column()}
	}
	not := func(e Expr) Expr { return &Call{Func: FuncNot, Args: []Expr{e}, Col: left.Column()} }
	switch t.text {
	case "ISNULL":
		return isNull(), nil
	case "NOTNULL":
		return not(isNull()), nil
	}
	negate := false
	if p.isKeyword("NOT") {
		p.next()
		negate = true
	}
	v := p.peek()
	var c *Const
	switch {
	case v.kind == tKeyword && v.text == "NULL":
		c = &Const{Col: v.col}
	case v.kind == tKeyword && (v.text == "TRUE" || v.text == "FALSE"):
		c = &Const{Val: BoolValue(v.text == "TRUE"), Col: v.col}
	default:
		return nil, p.unexpected("NULL, TRUE or FALSE after IS")
	}
	p.next()
	var e Expr = &Call{Func: FuncIs, Args: []Expr{left, c}, Col: left.Column()}
	if negate {
		e = not(e)
	}
	return e, nil
}

// prefix parses a primary expression or a prefix operator and its operand.
func (p *parser) prefix() (Expr, error) {
	t := p.next()
	switch t.kind {
	case tInt:
		return &Const{Val: IntValue(t.ival), Col: t.col}, nil
	case tDouble:
		return &Const{Val: DoubleValue(t.fval), Col: t.col}, nil
	case tMaxIntPlusOne:
		return nil, &SyntaxError{Col: t.col, Msg: "syntax error: 9223372036854775808 is out of bigint range unless negated"}
	case tVar:
		return &Var{Name: t.text, Col: t.col}, nil
	case tIdent:
		return p.call(t)
	case tKeyword:
		switch t.text {
		case "NULL":
			return &Const{Col: t.col}, nil
		case "TRUE", "FALSE":
			return &Const{Val: BoolValue(t.text == "TRUE"), Col: t.col}, nil
		case "NOT":
			e, err := p.expr(precNot + 1)
			if err != nil {
				return nil, err
			}
			return &Call{Func: FuncNot, Args: []Expr{e}, Col: t.col}, nil
		case "CASE":
			return p.caseExpr(t)
		}
	case tOp:
		switch t.text {
		case "(":
			e, err := p.expr(0)
			if err != nil {
				return nil, err
			}
			if !p.isOp(")") {
				return nil, p.unexpected(`")"`)
			}
			p.next()
			return e, nil
		case "+":
			return p.expr(precUnary)
		case "-":
			if n := p.peek(); n.kind == tMaxIntPlusOne {
				p.next()
				return &Const{Val: IntValue(math.MinInt64), Col: t.col}, nil
			}
			e, err := p.expr(precUnary)
			if err != nil {
				return nil, err
			}
			return &Call{Func: FuncSub, Args: []Expr{&Const{Val: IntValue(0), Col: t.col}, e}, Col: t.col}, nil
		case "~":
			// pgbench gives ~ the precedence of the bitwise operators.
			e, err := p.expr(precBit + 1)
			if err != nil {
				return nil, err
			}
			return &Call{Func: FuncBitXor, Args: []Expr{&Const{Val: IntValue(-1), Col: t.col}, e}, Col: t.col}, nil
		}
	}
	if t.kind != tEOF {
		p.pos--
	}
	return nil, p.unexpected("an operand (number, :variable, function call, TRUE, FALSE, NULL, CASE, NOT, unary operator or \"(\")")
}

// call parses name(args…) once the name has been read.
func (p *parser) call(name token) (Expr, error) {
	fn, ok := funcByName[strings.ToLower(name.text)]
	if !ok {
		return nil, &SyntaxError{Col: name.col, Msg: fmt.Sprintf("unexpected function name %q", name.text)}
	}
	if !p.isOp("(") {
		return nil, p.unexpected(fmt.Sprintf(`"(" after function name %s`, name.text))
	}
	p.next()
	var args []Expr
	if p.isOp(")") {
		p.next()
	} else {
		for {
			a, err := p.expr(0)
			if err != nil {
				return nil, err
			}
			args = append(args, a)
			if p.isOp(",") {
				p.next()
				continue
			}
			if !p.isOp(")") {
				return nil, p.unexpected(`"," or ")" in the arguments of ` + name.text)
			}
			p.next()
			break
		}
	}
	info := funcs[fn]
	if len(args) < info.minArgs || (info.maxArgs >= 0 && len(args) > info.maxArgs) {
		return nil, &SyntaxError{Col: name.col, Msg: fmt.Sprintf("unexpected number of arguments (%s): %s takes %s, got %d",
			name.text, name.text, arity(info), len(args))}
	}
	switch {
	case (fn == FuncHashFNV1a || fn == FuncHashMurmur2) && len(args) == 1,
		fn == FuncPermute && len(args) == 2:
		args = append(args, &Var{Name: DefaultSeedVar, Col: name.col})
	}
	return &Call{Func: fn, Args: args, Col: name.col}, nil
}

func arity(info funcInfo) string {
	switch {
	case info.maxArgs < 0:
		return fmt.Sprintf("at least %d argument(s)", info.minArgs)
	case info.minArgs == info.maxArgs:
		return fmt.Sprintf("%d argument(s)", info.minArgs)
	}
	return fmt.Sprintf("%d to %d arguments", info.minArgs, info.maxArgs)
}

// caseExpr parses the rest of CASE WHEN c THEN r … [ELSE e] END.
func (p *parser) caseExpr(kw token) (Expr, error) {
	c := &Case{Col: kw.col}
	if !p.isKeyword("WHEN") {
		return nil, p.unexpected("WHEN after CASE")
	}
	for p.isKeyword("WHEN") {
		p.next()
		cond, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		if err := p.expectKeyword("THEN"); err != nil {
			return nil, err
		}
		then, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		c.Whens = append(c.Whens, When{Cond: cond, Then: then})
	}
	if p.isKeyword("ELSE") {
		p.next()
		e, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		c.Else = e
	}
	if !p.isKeyword("END") {
		return nil, p.unexpected("WHEN, ELSE or END in CASE")
	}
	p.next()
	return c, nil
}

// ErrSyntax is matched by every *SyntaxError through errors.Is.
var ErrSyntax = errors.New("syntax error")

// Is lets errors.Is(err, ErrSyntax) recognise a SyntaxError.
func (e *SyntaxError) Is(target error) bool { return target == ErrSyntax }
