package script

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/fairbench/fairbench/internal/base/valuearena"
	"github.com/fairbench/fairbench/internal/workload/pgbench/expr"
)

// Row is what an Executor returns for an SQL command. For a command without
// \gset or \aset (Store is StoreNone) the zero Row will do: the Client reads
// nothing of it.
type Row struct {
	// Rows is how many rows the query returned: \gset needs exactly one,
	// \aset stores nothing when there are none.
	Rows int
	// Columns are the result's column names and Values the last row's
	// values: string, []byte, int64 (or another integer type), float64,
	// bool or nil for NULL (stored as an empty string, as pgbench does);
	// anything else is stored as its fmt.Sprint text.
	Columns []string
	Values  []any
}

// Executor runs a script's SQL commands and sleeps for a Client.
type Executor interface {
	// SQL runs cmd, the i-th command of the script, with args as the values
	// of its ? parameters (int64, float64, string or nil). args is reused
	// by the next call: copy it to keep it. When cmd.Store is not
	// StoreNone, the Row must describe the result.
	SQL(ctx context.Context, i int, cmd *Command, args []any) (Row, error)
	// Sleep waits d (positive) or until ctx is done.
	Sleep(ctx context.Context, d time.Duration) error
}

// ClientConfig is what a Client needs.
type ClientConfig struct {
	// ID is the client's number, from 0: :client_id and its random seed.
	ID int
	// Clients is the number of clients of the run (> ID): pgbench draws
	// :default_seed after every client's seed, so it depends on it.
	Clients int
	// Seed is the run's random seed (pgbench's --random-seed).
	Seed uint64
	// Scale is :scale.
	Scale int64
	// Defines are the -D variables (see ParseDefine); they win over the
	// automatic variables.
	Defines map[string]Value
	// Scripts are the scripts the client may run (Run refuses others).
	Scripts []*Script
}

// slot is one variable of a client.
type slot struct {
	set    bool
	isText bool
	text   string
	val    expr.Value // typed value; for text, its interpretation once conv is convOK
	conv   uint8      // for text: convNone, convOK or convBad
	arg    any        // the SQL parameter, once argOK
	argOK  bool
}

const (
	convNone uint8 = iota
	convOK
	convBad
)

// storeCache remembers, for a \gset or \aset command, the slots of the
// columns it stored last time.
type storeCache struct {
	cols  []string
	slots []int
}

// Client is one client's state: its variables, its random generator and
// what it reuses from one run to the next. It is not safe for concurrent
// use: each worker has its own.
type Client struct {
	cfg     ClientConfig
	slotOf  [][]int // per script of cfg.Scripts: local variable number → slot
	index   map[string]int
	names   []string
	slots   []slot
	prng    *expr.PRNG
	mark    expr.PRNG
	chooser *Chooser
	env     expr.Env
	cur     []readVar // the reads of the expression being evaluated
	curMap  []int
	args    []any
	stores  map[*Command]*storeCache
	arena   valuearena.Arena // boxes the variables' SQL parameters: no allocation per \set
}

// seedDraws returns the first n numbers of pgbench's base random sequence
// for seed (its pg_prng_seed(&base_random_sequence, seed)).
func seedDraws(seed uint64, n int) []uint64 {
	base := expr.NewPRNG(seed)
	out := make([]uint64, n)
	for i := range out {
		out[i] = base.Uint64()
	}
	return out
}

// NewClient returns client cfg.ID, seeded as pgbench 15 seeds it under
// --random-seed=cfg.Seed: the base sequence seeded with Seed gives each
// client's generator in client order, then :default_seed (unless defined),
// then each thread's three generators (script choice, throttling,
// sampling). It sets :client_id, :scale, :random_seed and :default_seed
// unless cfg.Defines has them. It panics when cfg.Clients <= cfg.ID.
func NewClient(cfg ClientConfig) *Client {
	if cfg.ID < 0 || cfg.Clients <= cfg.ID {
		panic(fmt.Sprintf("script.NewClient: client %d of %d", cfg.ID, cfg.Clients))
	}
	c := &Client{cfg: cfg, index: map[string]int{}, stores: map[*Command]*storeCache{}}
	draws := seedDraws(cfg.Seed, cfg.Clients+1)
	c.prng = expr.NewPRNG(draws[cfg.ID])
	c.mark = *c.prng
	for _, s := range cfg.Scripts {
		m := make([]int, len(s.names))
		for l, name := range s.names {
			m[l] = c.slotFor(name)
		}
		c.slotOf = append(c.slotOf, m)
	}
	for name, v := range cfg.Defines {
		c.setValue(c.slotFor(name), v)
	}
	auto := map[string]int64{
		"client_id":    int64(cfg.ID),
		"scale":        cfg.Scale,
		"random_seed":  int64(cfg.Seed),
		"default_seed": int64(draws[cfg.Clients]),
	}
	for _, name := range Automatic {
		if _, ok := cfg.Defines[name]; !ok {
			c.setValue(c.slotFor(name), TypedValue(expr.IntValue(auto[name])))
		}
	}
	c.env = expr.Env{Lookup: c.lookup, Rand: c.prng}
	c.chooser = NewChooser(cfg, cfg.ID)
	return c
}

// slotFor returns the slot of variable name, adding it if new.
func (c *Client) slotFor(name string) int {
	if k, ok := c.index[name]; ok {
		return k
	}
	c.index[name] = len(c.slots)
	c.slots = append(c.slots, slot{})
	c.names = append(c.names, name)
	return len(c.slots) - 1
}

func (c *Client) setValue(k int, v Value) {
	s := &c.slots[k]
	if v.IsText {
		*s = slot{set: true, isText: true, text: v.Text}
		return
	}
	c.setTyped(k, v.Typed)
}

func (c *Client) setTyped(k int, v expr.Value) {
	c.slots[k] = slot{set: true, val: v, arg: paramOf(v, &c.arena), argOK: true}
}

// Var returns the value of variable name, or ok false when it is not set.
func (c *Client) Var(name string) (v Value, ok bool) {
	k, found := c.index[name]
	if !found || !c.slots[k].set {
		return Value{}, false
	}
	s := &c.slots[k]
	if s.isText {
		return TextValue(s.text), true
	}
	return TypedValue(s.val), true
}

// Mark remembers the random generator's state: call it when a transaction
// starts. Rewind restores it, for a retry of that transaction (pgbench
// --max-tries): as in pgbench 15, only the random state goes back, the
// variables keep what the failed try set.
func (c *Client) Mark() { c.mark = *c.prng }

// Rewind restores the random generator's state saved by the last Mark
// (or NewClient).
func (c *Client) Rewind() { *c.prng = c.mark }

// Choose returns the index in the Scripts of the script to run next, drawn
// by weight as pgbench's chooseScript does. Its generator is seeded as
// pgbench's thread number ID, so the sequence equals pgbench's when each
// client has its own thread (-j equal to -c); with fewer threads than
// clients, pgbench's clients share their thread's sequence in an order that
// depends on timing: use a Chooser per thread to draw from the same numbers.
func (c *Client) Choose() int { return c.chooser.Choose() }

// Chooser draws which script runs next, with a thread's generator.
type Chooser struct {
	prng    *expr.PRNG
	weights []int64
	total   int64
}

// NewChooser returns the script chooser of pgbench's thread number thread
// (from 0) under --random-seed=cfg.Seed, for a run of cfg.Clients clients;
// it uses cfg.Scripts' weights and cfg.Defines (a defined :default_seed is
// not drawn, which moves the threads' seeds).
func NewChooser(cfg ClientConfig, thread int) *Chooser {
	n := cfg.Clients
	if _, ok := cfg.Defines["default_seed"]; !ok {
		n++
	}
	n += 3 * thread
	draws := seedDraws(cfg.Seed, n+1)
	ch := &Chooser{prng: expr.NewPRNG(draws[n])}
	for _, s := range cfg.Scripts {
		ch.weights = append(ch.weights, int64(s.Weight))
		ch.total += int64(s.Weight)
	}
	return ch
}

// Choose returns the index of the next script (0 when there is one).
func (ch *Chooser) Choose() int {
	if len(ch.weights) <= 1 || ch.total <= 0 {
		return 0
	}
	w := ch.prng.Uniform(0, ch.total-1)
	i := 0
	for {
		w -= ch.weights[i]
		i++
		if w < 0 || i == len(ch.weights) {
			return i - 1
		}
	}
}

// lookup is the expression environment's Lookup: the current command's
// variables, resolved beforehand by resolve.
func (c *Client) lookup(name string) (expr.Value, bool) {
	for i := range c.cur {
		if c.cur[i].name == name {
			s := &c.slots[c.curMap[c.cur[i].local]]
			return s.val, s.set
		}
	}
	k, ok := c.index[name]
	if !ok || !c.slots[k].set || (c.slots[k].isText && c.slots[k].conv != convOK) {
		return expr.Value{}, false
	}
	return c.slots[k].val, true
}

// resolve checks that every variable cmd's expression reads is set and, if
// text, reads as a value, and makes them the current ones for lookup.
func (c *Client) resolve(s *Script, cmd *Command, m []int) error {
	for i := range cmd.reads {
		r := &cmd.reads[i]
		sl := &c.slots[m[r.local]]
		if !sl.set {
			return c.runError(s, cmd, fmt.Sprintf("undefined variable %q: nothing set it before this command (a \\gset that returned no row? set it with \\set or -D %s=…)", r.name, r.name), nil)
		}
		if sl.isText && sl.conv == convNone {
			if v, ok := interpret(sl.text); ok {
				sl.val, sl.conv = v, convOK
			} else {
				sl.conv = convBad
			}
		}
		if sl.isText && sl.conv == convBad {
			return c.runError(s, cmd, fmt.Sprintf("malformed variable %q value: %q (an expression needs NULL, a boolean, an integer or a double; a string is usable only in SQL)", r.name, sl.text), nil)
		}
	}
	c.cur, c.curMap = cmd.reads, m
	return nil
}

func (c *Client) runError(s *Script, cmd *Command, msg string, cause error) error {
	return &Error{File: s.Name, Line: cmd.Line, Column: cmd.Column, Msg: cmd.Text + ": " + msg, err: cause}
}

// eval evaluates cmd's expression.
func (c *Client) eval(s *Script, cmd *Command, m []int) (expr.Value, error) {
	if err := c.resolve(s, cmd, m); err != nil {
		return expr.Value{}, err
	}
	v, err := expr.Eval(cmd.Expr, c.env)
	c.cur = nil
	if err != nil {
		return v, c.runError(s, cmd, err.Error(), err)
	}
	return v, nil
}

// scriptIndex returns the index of s in the client's scripts.
func (c *Client) scriptIndex(s *Script) int {
	for i, t := range c.cfg.Scripts {
		if t == s {
			return i
		}
	}
	return -1
}

// Run runs one pass (one transaction) of s, which must be one of the
// client's Scripts: meta-commands itself, SQL commands through exec. An
// error of the script (an expression's, an unset or malformed variable, a
// \gset without exactly one row) is an *Error naming the command; an error
// of exec is returned as exec returned it, so that its caller can tell a
// serialization failure or a deadlock (to retry after Rewind) from others.
func (c *Client) Run(ctx context.Context, s *Script, exec Executor) error {
	si := c.scriptIndex(s)
	if si < 0 {
		return fmt.Errorf("script %s is not one of the client's scripts: give it in ClientConfig.Scripts", s.Name)
	}
	m := c.slotOf[si]
	cmds := s.Commands
	timer, _ := exec.(MetaTimer)
	for pc := 0; pc < len(cmds); {
		cmd := &cmds[pc]
		if timer != nil && cmd.Kind != KindSQL {
			i, start := pc, time.Now()
			if err := c.meta(ctx, s, &pc, m, exec); err != nil {
				return err
			}
			timer.Meta(i, start, time.Now())
			continue
		}
		if cmd.Kind != KindSQL {
			if err := c.meta(ctx, s, &pc, m, exec); err != nil {
				return err
			}
			continue
		}
		if err := c.sql(ctx, s, pc, cmd, m, exec); err != nil {
			return err
		}
		pc++
	}
	return nil
}

// MetaTimer is implemented by Executors that time the meta-commands too
// (pgbench -r lists every command): Run calls Meta after meta-command i of
// the script ran, with when it started and ended.
type MetaTimer interface {
	Meta(i int, start, end time.Time)
}

// meta runs the meta-command at *pc and moves *pc to the next command.
func (c *Client) meta(ctx context.Context, s *Script, pc *int, m []int, exec Executor) error {
	cmds := s.Commands
	cmd := &cmds[*pc]
	switch cmd.Kind {
	case KindSet:
		v, err := c.eval(s, cmd, m)
		if err != nil {
			return err
		}
		c.setTyped(m[cmd.setVar], v)
		*pc++
	case KindSleep:
		d, err := c.sleepFor(s, cmd, m)
		if err != nil {
			return err
		}
		if d > 0 {
			if err := exec.Sleep(ctx, d); err != nil {
				return err
			}
		}
		*pc++
	case KindElif:
		// Reached by running to the end of a true branch.
		*pc = cmd.End
	case KindIf:
		for {
			v, err := c.eval(s, cmd, m)
			if err != nil {
				return err
			}
			if expr.Truth(v) {
				*pc++
				return nil
			}
			*pc = cmd.Next
			cmd = &cmds[*pc]
			if cmd.Kind != KindElif {
				*pc++ // into the \else branch, or past the \endif
				return nil
			}
		}
	case KindElse:
		*pc = cmd.End
	case KindEndif:
		*pc++
	}
	return nil
}

// sql runs SQL command cmd, the i-th of s, through exec.
func (c *Client) sql(ctx context.Context, s *Script, i int, cmd *Command, m []int, exec Executor) error {
	args := c.args[:0]
	for k, l := range cmd.params {
		sl := &c.slots[m[l]]
		if !sl.set {
			return c.runError(s, cmd, fmt.Sprintf("undefined variable %q: nothing set it before this command (a \\gset that returned no row? set it with \\set or -D %s=…)", cmd.Params[k], cmd.Params[k]), nil)
		}
		if !sl.argOK {
			sl.arg, sl.argOK = paramOfText(sl.text), true
		}
		args = append(args, sl.arg)
	}
	c.args = args
	row, err := exec.SQL(ctx, i, cmd, args)
	clear(args) // keep no reference to the values past the call
	if err != nil {
		return err
	}
	switch cmd.Store {
	case StoreGset:
		if row.Rows != 1 {
			return c.runError(s, cmd, fmt.Sprintf("\\gset expected one row, got %d (use \\aset to accept none or several)", row.Rows), nil)
		}
	case StoreAset:
		if row.Rows == 0 {
			return nil
		}
	default:
		return nil
	}
	return c.store(s, cmd, row)
}

// store sets the variables of a \gset or \aset from row.
func (c *Client) store(s *Script, cmd *Command, row Row) error {
	if len(row.Values) != len(row.Columns) {
		return fmt.Errorf("executor returned %d values for %d columns for %s", len(row.Values), len(row.Columns), cmd.Text)
	}
	sc := c.stores[cmd]
	if sc == nil || !equalStrings(sc.cols, row.Columns) {
		sc = &storeCache{cols: append([]string(nil), row.Columns...)}
		for _, col := range row.Columns {
			name := cmd.Prefix + col
			if !validVarName(name) {
				return c.runError(s, cmd, fmt.Sprintf("cannot store column %q into a variable: %q is not a valid variable name (name the column with AS, or give a prefix)", col, name), nil)
			}
			sc.slots = append(sc.slots, c.slotFor(name))
		}
		c.stores[cmd] = sc
	}
	for k, v := range row.Values {
		c.storeValue(sc.slots[k], v)
	}
	return nil
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// storeValue sets slot k from a value of a result.
func (c *Client) storeValue(k int, v any) {
	switch v := v.(type) {
	case nil:
		c.setValue(k, TextValue(""))
	case string:
		c.setValue(k, TextValue(v))
	case []byte:
		c.setValue(k, TextValue(string(v)))
	case int64:
		c.slots[k] = slot{set: true, val: expr.IntValue(v), arg: v, argOK: true}
	case int:
		c.setTyped(k, expr.IntValue(int64(v)))
	case int32:
		c.setTyped(k, expr.IntValue(int64(v)))
	case int16:
		c.setTyped(k, expr.IntValue(int64(v)))
	case float64:
		c.setTyped(k, expr.DoubleValue(v))
	case float32:
		c.setTyped(k, expr.DoubleValue(float64(v)))
	case bool:
		c.setTyped(k, expr.BoolValue(v))
	default:
		c.setValue(k, TextValue(fmt.Sprint(v)))
	}
}

// sleepFor returns how long \sleep cmd waits: its count (a literal, or the
// variable read as C's atoi reads pgbench's text form) times its unit.
func (c *Client) sleepFor(s *Script, cmd *Command, m []int) (time.Duration, error) {
	n := cmd.SleepCount
	if cmd.SleepVar != "" {
		sl := &c.slots[m[cmd.sleepV]]
		if !sl.set {
			return 0, c.runError(s, cmd, fmt.Sprintf("undefined variable %q", cmd.SleepVar), nil)
		}
		switch {
		case sl.isText:
			n = atoi(sl.text)
		case sl.val.Kind == expr.Int:
			n = sl.val.I
		default:
			n = atoi(Value{Typed: sl.val}.String())
		}
	}
	const maxMicros = int64(1<<63-1) / int64(time.Microsecond)
	us := n * int64(cmd.SleepUnit/time.Microsecond)
	if n != 0 && (us/n != int64(cmd.SleepUnit/time.Microsecond) || us > maxMicros || us < -maxMicros) {
		return 0, c.runError(s, cmd, "sleep time out of range", nil)
	}
	return time.Duration(us) * time.Microsecond, nil
}

// atoi reads a leading integer as C's atoi does: spaces, a sign, digits;
// 0 when there are none.
func atoi(s string) int64 {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	j := i
	if j < len(s) && (s[j] == '+' || s[j] == '-') {
		j++
	}
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	n, err := strconv.ParseInt(s[i:j], 10, 64)
	if err != nil {
		return 0
	}
	return n
}
