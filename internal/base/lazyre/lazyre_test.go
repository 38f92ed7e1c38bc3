package lazyre

import "testing"

func TestNewCompilesOnceOnFirstUse(t *testing.T) {
	re := New(`^a(b+)$`)
	first := re()
	if m := first.FindStringSubmatch("abbb"); len(m) != 2 || m[1] != "bbb" {
		t.Fatalf("match %q, want [abbb bbb]", m)
	}
	if re() != first {
		t.Error("a second call compiled the expression again")
	}
	bad := New(`(`)
	defer func() {
		if recover() == nil {
			t.Error("an invalid expression did not panic on first use")
		}
	}()
	bad()
}
