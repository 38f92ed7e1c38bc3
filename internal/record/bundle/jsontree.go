package bundle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// node is a JSON value that keeps its object keys in order, so that a
// redacted file reads as the original did.
type node struct {
	kind  byte // '{' object, '[' array, 's' string, 'n' number, 'l' literal (true, false, null)
	keys  []string
	items []*node // object values (with keys) or array elements
	text  string  // string value, number text or literal
}

// parseJSON reads one JSON document into a tree.
func parseJSON(data []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := parseValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("data after the JSON value")
	}
	return n, nil
}

const maxDepth = 200

func parseValue(dec *json.Decoder, depth int) (*node, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nested deeper than %d", maxDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		n := &node{kind: byte(t)}
		for dec.More() {
			if t == '{' {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, k.(string))
			}
			v, err := parseValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			n.items = append(n.items, v)
		}
		_, err := dec.Token() // the closing delimiter
		return n, err
	case string:
		return &node{kind: 's', text: t}, nil
	case json.Number:
		return &node{kind: 'n', text: t.String()}, nil
	case bool:
		return &node{kind: 'l', text: fmt.Sprint(t)}, nil
	default:
		return &node{kind: 'l', text: "null"}, nil
	}
}

// encode writes the tree as indented JSON (two spaces, as fairbench writes
// its files), ending with a newline.
func (n *node) encode() []byte {
	var b bytes.Buffer
	n.write(&b, 0)
	b.WriteByte('\n')
	return b.Bytes()
}

func (n *node) write(b *bytes.Buffer, depth int) {
	switch n.kind {
	case 's':
		b.Write(quote(n.text))
	case 'n', 'l':
		b.WriteString(n.text)
	default:
		closing := byte('}')
		if n.kind == '[' {
			closing = ']'
		}
		b.WriteByte(n.kind)
		if len(n.items) == 0 {
			b.WriteByte(closing)
			return
		}
		indent := strings.Repeat("  ", depth+1)
		for i, v := range n.items {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString("\n" + indent)
			if n.kind == '{' {
				b.Write(quote(n.keys[i]))
				b.WriteString(": ")
			}
			v.write(b, depth+1)
		}
		b.WriteString("\n" + strings.Repeat("  ", depth))
		b.WriteByte(closing)
	}
}

// quote is s as a JSON string, without HTML escaping (as result.Encode).
func quote(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
