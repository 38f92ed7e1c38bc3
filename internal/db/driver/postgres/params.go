package postgres

import "fmt"

// params encodes statement arguments as text into one reusable buffer, so that
// binding a statement allocates nothing once the buffers have grown.
type params struct {
	buf    []byte
	ends   []int // end of each value in buf; -1 for NULL
	values [][]byte
}

// encode returns args as text parameter values for pgconn. The result is valid
// until the next call.
func (p *params) encode(args []any) ([][]byte, error) {
	if p.buf == nil {
		p.buf = make([]byte, 0, 256) // never nil: a nil value would be sent as NULL
	}
	p.buf, p.ends = p.buf[:0], p.ends[:0]
	for i, a := range args {
		var null bool
		var err error
		p.buf, null, err = appendParam(p.buf, a)
		if err != nil {
			return nil, fmt.Errorf("argument %d: %w", i+1, err)
		}
		if null {
			p.ends = append(p.ends, -1)
		} else {
			p.ends = append(p.ends, len(p.buf))
		}
	}
	p.values = p.values[:0]
	start := 0
	for _, end := range p.ends {
		if end < 0 {
			p.values = append(p.values, nil)
			continue
		}
		p.values = append(p.values, p.buf[start:end:end])
		start = end
	}
	return p.values, nil
}

// interpolate appends the statement cut into parts with args written as SQL
// literals between them.
func interpolate(b []byte, parts []string, args []any, escapeBackslash bool) ([]byte, error) {
	if len(args) != len(parts)-1 {
		return b, fmt.Errorf("%d '?' placeholders but %d arguments were given", len(parts)-1, len(args))
	}
	b = append(b, parts[0]...)
	for i, a := range args {
		var err error
		if b, err = appendLiteral(b, a, escapeBackslash); err != nil {
			return b, fmt.Errorf("argument %d: %w", i+1, err)
		}
		b = append(b, parts[i+1]...)
	}
	return b, nil
}
