package driver

import (
	"fmt"
	"sort"
	"strings"
)

// ErrorPolicy says which server error codes are ignored: the event is rolled back,
// counted under its code and run again, as sysbench does with --mysql-ignore-errors.
type ErrorPolicy struct {
	All   bool
	Codes map[string]bool
}

// ParseErrorPolicy reads an --*-ignore-errors value: "all", "none", or a comma list
// of codes, each (upper-cased) passed to check when check is not nil: the
// driver's test of its code format (open.ErrorCodeCheck), so that a code no
// error of the driver can carry is refused rather than silently never
// matching. An empty value means the driver's defaults.
func ParseErrorPolicy(spec string, defaults []string, check func(code string) error) (ErrorPolicy, error) {
	spec = strings.TrimSpace(spec)
	switch strings.ToLower(spec) {
	case "":
		return codesPolicy(defaults), nil
	case "all":
		return ErrorPolicy{All: true}, nil
	case "none":
		return ErrorPolicy{}, nil
	}
	var codes []string
	for _, c := range strings.Split(spec, ",") {
		c = strings.TrimSpace(c)
		if c == "" {
			return ErrorPolicy{}, fmt.Errorf("empty error code in %q: give a comma list like 1213,1205, or all, or none", spec)
		}
		c = strings.ToUpper(c)
		if check != nil {
			if err := check(c); err != nil {
				return ErrorPolicy{}, fmt.Errorf("%w; or all, or none", err)
			}
		}
		codes = append(codes, c)
	}
	return codesPolicy(codes), nil
}

func codesPolicy(codes []string) ErrorPolicy {
	p := ErrorPolicy{Codes: make(map[string]bool, len(codes))}
	for _, c := range codes {
		p.Codes[strings.ToUpper(c)] = true
	}
	return p
}

// Ignores reports whether an error with code is ignored.
func (p ErrorPolicy) Ignores(code string) bool {
	return p.All || (code != "" && p.Codes[strings.ToUpper(code)])
}

// String renders the policy as the flag would spell it.
func (p ErrorPolicy) String() string {
	if p.All {
		return "all"
	}
	if len(p.Codes) == 0 {
		return "none"
	}
	codes := make([]string, 0, len(p.Codes))
	for c := range p.Codes {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	return strings.Join(codes, ",")
}
