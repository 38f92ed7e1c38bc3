// Package valuearena boxes the values of generated rows into interfaces from
// large blocks of memory, so that a bulk load's row source allocates once per
// few thousand values instead of once per value.
//
// Converting an int64, float64 or string to an interface (a row of
// driver.RowSource is a []any) allocates a box for every value that is not a
// small integer or a constant; a string additionally allocates its bytes. A
// TPC-C stock row took 14 allocations that way, and on a small machine every
// cycle the loader spends is taken from the server it loads. An Arena carves
// the boxes and the string bytes out of blocks instead. Every value it returns
// is immutable and stays valid for as long as it is referenced (a consumer may
// keep it past the next row, as the SQLite driver's multi-row INSERTs do): an
// arena only moves forward and never writes memory it has handed out; the
// garbage collector frees a block once no value refers into it.
package valuearena

import "unsafe"

// Block sizes: how many values (or string bytes) one allocation holds.
const (
	numberBlock = 1024
	stringBlock = 1024
	textBlock   = 64 << 10
)

// Arena boxes values for one goroutine; it is not safe for concurrent use.
// The zero value is ready to use.
type Arena struct {
	ints   []int64
	floats []float64
	strs   []string
	text   []byte // the string bytes; text[len(text):] is unused
}

// eface is the layout of an empty interface in the Go runtime (runtime.eface):
// the type's descriptor and a pointer to the value, for every type that is not
// pointer-shaped. The types boxed here (int64, float64, string) never are.
type eface struct {
	typ, data unsafe.Pointer
}

// typeOf returns the type word of an interface holding v's type.
func typeOf(v any) unsafe.Pointer { return (*eface)(unsafe.Pointer(&v)).typ }

var (
	int64Type   = typeOf(int64(0))
	float64Type = typeOf(float64(0))
	stringType  = typeOf("")
)

// box returns the interface of type typ whose value is at data.
func box(typ, data unsafe.Pointer) (v any) {
	e := (*eface)(unsafe.Pointer(&v))
	e.typ, e.data = typ, data
	return v
}

// Int returns x as an interface holding an int64.
func (a *Arena) Int(x int64) any {
	if uint64(x) < 256 {
		return x // the runtime boxes these without allocating
	}
	if len(a.ints) == cap(a.ints) {
		a.ints = make([]int64, 0, numberBlock)
	}
	a.ints = append(a.ints, x)
	return box(int64Type, unsafe.Pointer(&a.ints[len(a.ints)-1]))
}

// Float returns x as an interface holding a float64.
func (a *Arena) Float(x float64) any {
	if len(a.floats) == cap(a.floats) {
		a.floats = make([]float64, 0, numberBlock)
	}
	a.floats = append(a.floats, x)
	return box(float64Type, unsafe.Pointer(&a.floats[len(a.floats)-1]))
}

// Buffer returns an empty slice with room for at least n bytes, where the
// caller appends the bytes of the next string before passing the result to
// String. Nothing else may be done with the arena in between.
func (a *Arena) Buffer(n int) []byte {
	if cap(a.text)-len(a.text) < n {
		a.text = make([]byte, 0, max(textBlock, n))
	}
	return a.text[len(a.text):len(a.text)]
}

// String returns b, the slice Buffer returned with the string's bytes
// appended, as an interface holding a string (see Text).
func (a *Arena) String(b []byte) any {
	if len(b) == 0 {
		return ""
	}
	return a.Box(a.Text(b))
}

// Text returns b, the slice Buffer returned with the string's bytes appended,
// as a string. The bytes become the string's and are never written again: b
// must not be used afterwards. When b outgrew Buffer's room (append moved it),
// the string keeps b's new array.
func (a *Arena) Text(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if rest := a.text[len(a.text):cap(a.text)]; len(rest) > 0 && unsafe.SliceData(rest) == unsafe.SliceData(b) {
		a.text = a.text[:len(a.text)+len(b)]
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// Box returns s as an interface holding a string, without copying its bytes:
// for substrings of a string already built (one allocation for several
// columns) and for strings that are not constants.
func (a *Arena) Box(s string) any {
	if len(a.strs) == cap(a.strs) {
		a.strs = make([]string, 0, stringBlock)
	}
	a.strs = append(a.strs, s)
	return box(stringType, unsafe.Pointer(&a.strs[len(a.strs)-1]))
}
