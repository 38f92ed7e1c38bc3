package sysinfo

import (
	"strconv"
	"strings"
)

// cpuBlock is one "processor" paragraph of /proc/cpuinfo, keys lower-cased.
type cpuBlock map[string]string

// cpuInfo is /proc/cpuinfo split into its per-processor paragraphs. Paragraphs
// without a "processor" key (the trailing "Hardware"/"Serial" one on some ARM
// kernels) are kept in extra.
type cpuInfo struct {
	cpus  []cpuBlock
	extra cpuBlock
}

// parseCPUInfo splits the text of /proc/cpuinfo into paragraphs of "key : value".
func parseCPUInfo(text string) cpuInfo {
	var info cpuInfo
	info.extra = cpuBlock{}
	block := cpuBlock{}
	flush := func() {
		if len(block) == 0 {
			return
		}
		if _, ok := block["processor"]; ok {
			info.cpus = append(info.cpus, block)
		} else {
			for k, v := range block {
				info.extra[k] = v
			}
		}
		block = cpuBlock{}
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		key = strings.ToLower(strings.TrimSpace(key))
		// A second "processor" line without a blank line between starts a new CPU.
		if _, seen := block[key]; seen && key == "processor" {
			flush()
		}
		block[key] = strings.TrimSpace(value)
	}
	flush()
	return info
}

// first returns the first non-empty value of key over the CPUs, then the extra paragraph.
func (c cpuInfo) first(key string) string {
	for _, b := range c.cpus {
		if v := b[key]; v != "" {
			return v
		}
	}
	return c.extra[key]
}

// average returns the mean of the numeric values of key over the CPUs that have it.
func (c cpuInfo) average(key string) float64 {
	var sum float64
	n := 0
	for _, b := range c.cpus {
		if v, err := strconv.ParseFloat(b[key], 64); err == nil {
			sum += v
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// distinct returns the number of distinct non-empty values of key over the CPUs.
func (c cpuInfo) distinct(key string) int {
	seen := map[string]bool{}
	for _, b := range c.cpus {
		if v, ok := b[key]; ok && v != "" {
			seen[v] = true
		}
	}
	return len(seen)
}

// cores counts distinct (physical id, core id) pairs, or 0 when cpuinfo has no core ids.
func (c cpuInfo) cores() int {
	seen := map[[2]string]bool{}
	for _, b := range c.cpus {
		core, ok := b["core id"]
		if !ok {
			return 0
		}
		seen[[2]string{b["physical id"], core}] = true
	}
	return len(seen)
}

// flags returns the feature words of the first CPU ("flags" on x86, "features" on ARM).
func (c cpuInfo) flags() map[string]bool {
	words := c.first("flags")
	if words == "" {
		words = c.first("features")
	}
	set := map[string]bool{}
	for _, w := range strings.Fields(words) {
		set[w] = true
	}
	return set
}

// notableFeatures picks the features worth recording from a flag set, in a fixed
// order that reads sse4_2 popcnt avx avx2 avx512f aes sha_ni on x86 and
// asimd lse crc32 aes sha2 sve sve2 on arm64.
// arm64 spells LSE atomics "atomics"; it is recorded as "lse".
func notableFeatures(flags map[string]bool) []string {
	type feature struct{ flag, name string }
	candidates := []feature{
		{"asimd", "asimd"}, {"sse4_2", "sse4_2"}, {"popcnt", "popcnt"}, {"avx", "avx"},
		{"avx2", "avx2"}, {"avx512f", "avx512f"}, {"atomics", "lse"}, {"crc32", "crc32"},
		{"aes", "aes"}, {"sha_ni", "sha_ni"}, {"sha2", "sha2"}, {"sve", "sve"}, {"sve2", "sve2"},
	}
	var out []string
	for _, f := range candidates {
		if flags[f.flag] {
			out = append(out, f.name)
		}
	}
	return out
}

// x86Vendor turns a cpuinfo vendor_id into the vendor's common name.
func x86Vendor(vendorID string) string {
	switch vendorID {
	case "GenuineIntel":
		return "Intel"
	case "AuthenticAMD":
		return "AMD"
	case "HygonGenuine":
		return "Hygon"
	case "CentaurHauls":
		return "Centaur"
	case "Shanghai":
		return "Zhaoxin"
	}
	return vendorID
}
