package result

import (
	"strconv"
	"strings"
)

// Script is one script of a scripted workload (pgbench's built-in scripts
// and script files; schema 1.7): what ran, so that two results are compared
// only when they ran the same text.
type Script struct {
	// Name is the file as given or the built-in's name ("tpcb-like").
	Name string `json:"name"`
	// Builtin is set for pgbench's built-in scripts.
	Builtin bool `json:"builtin,omitempty"`
	// Weight is the script's share in the choice of each transaction's script.
	Weight int `json:"weight"`
	// SHA256 is the hex SHA-256 of Text.
	SHA256 string `json:"sha256"`
	// Text is the script exactly as read.
	Text string `json:"text"`
	// Statements are per-command figures of the measured phase in script
	// order (pgbench -r, --report-per-command); omitted otherwise.
	Statements []Statement `json:"statements,omitempty"`
}

// Statement is one command of a script with what it did in the measured
// phase.
type Statement struct {
	// Line is the command's first line in the script (1-based).
	Line int `json:"line"`
	// Text is the command as written, on one line.
	Text string `json:"text"`
	// Count is how many times it ran (to completion or to an error).
	Count int64 `json:"count"`
	// AvgMs is its mean latency in milliseconds over Count.
	AvgMs float64 `json:"avg_ms"`
	// Failures counts the runs that ended in a serialization or deadlock
	// failure; Retries the transactions re-run after one of its failures.
	Failures int64 `json:"failures,omitempty"`
	Retries  int64 `json:"retries,omitempty"`
}

// ScriptsKey is the scripts of r as one comparable string
// ("tpcb-like@1#9f86d081884c,…": name, weight and the first 12 hex digits of
// each text's hash), "" for results of workloads without scripts.
func ScriptsKey(scripts []Script) string {
	parts := make([]string, len(scripts))
	for i, s := range scripts {
		h := s.SHA256
		if len(h) > 12 {
			h = h[:12]
		}
		parts[i] = s.Name + "@" + strconv.Itoa(s.Weight) + "#" + h
	}
	return strings.Join(parts, ",")
}

// mergeScripts adds the statements' figures of the clients' scripts, which
// Merge has checked are the same scripts; statements are kept only when
// every client recorded them.
func mergeScripts(parts []*Result) []Script {
	if len(parts) == 0 || len(parts[0].Scripts) == 0 {
		return nil
	}
	out := make([]Script, len(parts[0].Scripts))
	for i, s := range parts[0].Scripts {
		out[i] = s
		out[i].Statements = nil
		all := true
		for _, p := range parts {
			if i >= len(p.Scripts) || len(p.Scripts[i].Statements) != len(s.Statements) {
				all = false
			}
		}
		if !all || len(s.Statements) == 0 {
			continue
		}
		sts := make([]Statement, len(s.Statements))
		for j := range sts {
			sts[j] = Statement{Line: s.Statements[j].Line, Text: s.Statements[j].Text}
			var sumMs float64
			for _, p := range parts {
				st := p.Scripts[i].Statements[j]
				sts[j].Count += st.Count
				sts[j].Failures += st.Failures
				sts[j].Retries += st.Retries
				sumMs += st.AvgMs * float64(st.Count)
			}
			if sts[j].Count > 0 {
				sts[j].AvgMs = sumMs / float64(sts[j].Count)
			}
		}
		out[i].Statements = sts
	}
	return out
}
