package sysinfo

import (
	"strconv"
	"strings"
)

// MemTotal returns MemTotal of a /proc/meminfo text in bytes, or 0.
func MemTotal(meminfo string) int64 {
	for _, line := range strings.Split(meminfo, "\n") {
		rest, ok := strings.CutPrefix(line, "MemTotal:")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			return 0
		}
		n, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0
		}
		if len(fields) > 1 && strings.EqualFold(fields[1], "kB") {
			n *= 1024
		}
		return n
	}
	return 0
}

// prettyName returns PRETTY_NAME of an os-release file, falling back to NAME VERSION.
func prettyName(osRelease string) string {
	values := map[string]string{}
	for _, line := range strings.Split(osRelease, "\n") {
		key, value, ok := strings.Cut(strings.TrimSpace(line), "=")
		if !ok {
			continue
		}
		if unquoted, err := strconv.Unquote(value); err == nil {
			value = unquoted
		} else {
			value = strings.Trim(value, `'"`)
		}
		values[key] = value
	}
	if v := values["PRETTY_NAME"]; v != "" {
		return v
	}
	return strings.TrimSpace(values["NAME"] + " " + values["VERSION"])
}
