// Package cpuset is fairbench's one place for CPU lists: parsing and printing
// the kernel's list syntax ("0-3,8,10-11"), set arithmetic, the CPUs this
// machine has online and a process may use (affinity narrowed by its cgroup's
// cpuset), the CPU topology from sysfs, choosing a CPU set from it (Select),
// and running a program pinned to a set (Exec, ExecIfAsked).
//
// Everything that reads the machine takes an fs.FS rooted at "/" (os.DirFS("/")
// in production), so tests read fixture trees instead.
package cpuset

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// MaxCPU bounds the CPU ids Parse accepts: ids are below MaxCPU.
const MaxCPU = 1 << 16

// Set is a set of CPU ids. The zero value is the empty set; a Set is never
// changed after it is made, so copies may share it.
type Set struct {
	ids []int // sorted, unique
}

// Of returns the set of the given CPU ids (in any order, repeats allowed).
// Ids outside 0…MaxCPU-1 panic: Of is for ids a program already holds; user
// input goes through Parse.
func Of(ids ...int) Set {
	s := slices.Clone(ids)
	for _, id := range s {
		if id < 0 || id >= MaxCPU {
			panic(fmt.Sprintf("cpuset.Of: CPU id %d out of range", id))
		}
	}
	slices.Sort(s)
	return Set{ids: slices.Compact(s)}
}

// Range returns the CPUs lo…hi (inclusive); empty when hi < lo.
func Range(lo, hi int) Set {
	var ids []int
	for id := lo; id <= hi; id++ {
		ids = append(ids, id)
	}
	return Of(ids...)
}

// Parse reads a CPU list in the kernel's syntax: comma-separated ids and
// inclusive ranges ("0-3,8,10-11"), in any order, overlapping or not;
// surrounding white space (a file's newline) is ignored. The empty list is
// the empty set (the kernel writes it for "none"); callers that need CPUs
// check IsEmpty. Ids must be below MaxCPU. The error names the bad part.
func Parse(list string) (Set, error) {
	list = strings.TrimSpace(list)
	if list == "" {
		return Set{}, nil
	}
	// A bitmap, not a list of ids: "0-65535,0-65535,…" stays cheap.
	var bits []bool
	for _, part := range strings.Split(list, ",") {
		p := strings.TrimSpace(part)
		if p == "" {
			return Set{}, fmt.Errorf("CPU list %q: empty entry between commas", list)
		}
		lo, hi, isRange := strings.Cut(p, "-")
		a, err := parseID(list, p, lo)
		if err != nil {
			return Set{}, err
		}
		b := a
		if isRange {
			if b, err = parseID(list, p, hi); err != nil {
				return Set{}, err
			}
			if b < a {
				return Set{}, fmt.Errorf("CPU list %q: range %q runs backwards (write %d-%d)", list, p, b, a)
			}
		}
		if b >= len(bits) {
			bits = append(bits, make([]bool, b+1-len(bits))...)
		}
		for id := a; id <= b; id++ {
			bits[id] = true
		}
	}
	var ids []int
	for id, on := range bits {
		if on {
			ids = append(ids, id)
		}
	}
	return Set{ids: ids}, nil
}

// MustParse is Parse for lists known to be good (tests, constants); it panics on an error.
func MustParse(list string) Set {
	s, err := Parse(list)
	if err != nil {
		panic(err)
	}
	return s
}

// parseID reads one CPU id of the entry part of list.
func parseID(list, part, s string) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, fmt.Errorf("CPU list %q: %q is not a CPU id or a range of them (write ids and ranges such as 0-3,8)", list, part)
	}
	if len(s) > 6 {
		return 0, fmt.Errorf("CPU list %q: CPU id %s in %q is too large (ids are below %d)", list, s, part, MaxCPU)
	}
	id, err := strconv.Atoi(s)
	if err != nil || id >= MaxCPU {
		return 0, fmt.Errorf("CPU list %q: CPU id %s in %q is too large (ids are below %d)", list, s, part, MaxCPU)
	}
	return id, nil
}

// String writes the set in the kernel's canonical list syntax: ascending,
// runs of two or more consecutive ids as ranges ("0-3,8,10-11"); "" for the
// empty set. Parse(s.String()) equals s.
func (s Set) String() string {
	var b strings.Builder
	for i := 0; i < len(s.ids); {
		j := i
		for j+1 < len(s.ids) && s.ids[j+1] == s.ids[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(s.ids[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(s.ids[j]))
		}
		i = j + 1
	}
	return b.String()
}

// MarshalText writes the canonical list, so a Set is a string in JSON and YAML.
func (s Set) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText parses a CPU list (see Parse).
func (s *Set) UnmarshalText(text []byte) error {
	p, err := Parse(string(text))
	if err != nil {
		return err
	}
	*s = p
	return nil
}

// Len is the number of CPUs in the set.
func (s Set) Len() int { return len(s.ids) }

// IsEmpty reports whether the set has no CPUs.
func (s Set) IsEmpty() bool { return len(s.ids) == 0 }

// CPUs returns the ids in ascending order (a copy).
func (s Set) CPUs() []int { return slices.Clone(s.ids) }

// Contains reports whether cpu is in the set.
func (s Set) Contains(cpu int) bool {
	_, ok := slices.BinarySearch(s.ids, cpu)
	return ok
}

// Equal reports whether both sets hold the same CPUs.
func (s Set) Equal(t Set) bool { return slices.Equal(s.ids, t.ids) }

// Intersect returns the CPUs in both sets.
func (s Set) Intersect(t Set) Set {
	var out []int
	for _, id := range s.ids {
		if t.Contains(id) {
			out = append(out, id)
		}
	}
	return Set{ids: out}
}

// Union returns the CPUs in either set.
func (s Set) Union(t Set) Set { return Of(append(s.CPUs(), t.ids...)...) }

// Minus returns the CPUs of s that are not in t.
func (s Set) Minus(t Set) Set {
	var out []int
	for _, id := range s.ids {
		if !t.Contains(id) {
			out = append(out, id)
		}
	}
	return Set{ids: out}
}

// Overlaps reports whether the sets share a CPU.
func (s Set) Overlaps(t Set) bool {
	for _, id := range s.ids {
		if t.Contains(id) {
			return true
		}
	}
	return false
}

// SubsetOf reports whether every CPU of s is in t.
func (s Set) SubsetOf(t Set) bool { return s.Minus(t).IsEmpty() }
