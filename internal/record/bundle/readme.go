package bundle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/record/suitedir"
)

// readme writes README.md: what the bundle holds, on which systems, the
// headline figures, and how to verify and re-run it. It is made from the
// redacted members.
func readme(m *Manifest, members map[string][]byte) []byte {
	var b bytes.Buffer
	title := "results"
	if m.Suite != nil {
		title = "suite " + m.Suite.Name
	}
	fmt.Fprintf(&b, "# fairbench bundle: %s\n\n", title)
	fmt.Fprintf(&b, "Written %s by %s %s (bundle schema %s; result schema %s).\n\n",
		m.Created.Format("2006-01-02 15:04 UTC"), orUnknown(m.Tool.Name), orUnknown(m.Tool.Version), m.Schema, strings.Join(m.ResultSchemas, ", "))
	results := bundledResults(members)
	if m.Suite != nil {
		fmt.Fprintf(&b, "A suite directory under `data/` (status %s; %s).", m.Suite.Status, cellCounts(m.Suite.Cells))
		if m.Suite.Incomplete {
			b.WriteString(" **The suite had not completed when it was bundled.**")
		}
		b.WriteString(" Its plan is in `bundle.json` (`plan`) and `data/manifest.json`.\n\n")
	} else {
		fmt.Fprintf(&b, "%d result file(s) under `data/`, with their command lines in `bundle.json` (`runs`).\n\n", len(results))
	}
	writeSystems(&b, results)
	if m.Suite != nil {
		var sm suitedir.Manifest
		if json.Unmarshal(members[DataDir+"/"+suitedir.ManifestName], &sm) == nil {
			writeSuiteFigures(&b, &sm)
		}
	} else {
		writeResultFigures(&b, m, members)
	}
	b.WriteString("## Verify, compare, re-run\n\n```\n")
	b.WriteString("fairbench bundle verify NAME.fbz     # every member's SHA-256 and the whole hash\n")
	b.WriteString("fairbench compare NAME.fbz           # or report, cost: a bundle is an operand like a directory\n")
	b.WriteString("fairbench rerun NAME.fbz [target]    # run the same plan on your machine, side by side\n```\n\n")
	fmt.Fprintf(&b, "Whole hash (SHA-256 of the sorted `sha256  name` lines of the members): see `bundle.json`.\n\n")
	writeRedactions(&b, m)
	return b.Bytes()
}

// bundledResults decodes the result members (skipping what does not read).
func bundledResults(members map[string][]byte) []*result.Result {
	var out []*result.Result
	for _, name := range slices.Sorted(maps.Keys(members)) {
		if !strings.HasPrefix(name, DataDir+"/") || path.Base(name) == suitedir.ManifestName {
			continue
		}
		if res, err := result.Decode(bytes.NewReader(members[name])); err == nil {
			out = append(out, res)
		}
	}
	return out
}

// writeSystems lists the machines, servers, workloads and thread counts.
func writeSystems(b *bytes.Buffer, results []*result.Result) {
	var clients, servers, serverMachines, workloads []string
	var threads []int
	for _, r := range results {
		clients = appendNew(clients, machineText(r.Machine))
		servers = appendNew(servers, strings.TrimSpace(r.Server.Flavor+" "+r.Server.Version))
		for _, sm := range r.ServerMachines {
			serverMachines = appendNew(serverMachines, sm.Role+": "+machineText(sm.Machine))
		}
		workloads = appendNew(workloads, r.Workload)
		if !slices.Contains(threads, r.Threads) {
			threads = append(threads, r.Threads)
		}
	}
	slices.Sort(threads)
	ts := make([]string, len(threads))
	for i, t := range threads {
		ts[i] = strconv.Itoa(t)
	}
	b.WriteString("## Systems\n\n")
	fmt.Fprintf(b, "- Client machine: %s\n", orUnknown(strings.Join(clients, "; ")))
	if len(serverMachines) > 0 {
		fmt.Fprintf(b, "- Server machines: %s\n", strings.Join(serverMachines, "; "))
	}
	fmt.Fprintf(b, "- Server: %s\n", orUnknown(strings.Join(servers, "; ")))
	fmt.Fprintf(b, "- Workloads: %s\n", orUnknown(strings.Join(workloads, ", ")))
	fmt.Fprintf(b, "- Threads: %s\n\n", orUnknown(strings.Join(ts, ", ")))
}

func machineText(m result.Machine) string {
	parts := []string{}
	for _, s := range []string{m.Hostname, m.Arch, m.CPUModel, m.InstanceType} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	if m.LogicalCPUs > 0 {
		parts = append(parts, fmt.Sprintf("%d logical CPUs", m.LogicalCPUs))
	}
	if len(parts) == 0 {
		return "unknown"
	}
	return strings.Join(parts, ", ")
}

func appendNew(list []string, v string) []string {
	if v == "" || slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}

// writeSuiteFigures writes the mean throughput of each cell's complete
// rounds, from the suite manifest's summaries.
func writeSuiteFigures(b *bytes.Buffer, sm *suitedir.Manifest) {
	type agg struct {
		tps, tpmc float64
		rounds    int
	}
	var order []string
	rows := map[string]*agg{}
	for _, c := range sm.Cells {
		if c.Status != suitedir.StatusComplete || c.Summary == nil {
			continue
		}
		key := strings.Join([]string{c.Profile, c.Workload, c.RandType, c.Data, strconv.Itoa(c.Threads)}, " | ")
		a := rows[key]
		if a == nil {
			a = &agg{}
			rows[key] = a
			order = append(order, key)
		}
		a.tps += c.Summary.TPS
		a.tpmc += c.Summary.TpmC
		a.rounds++
	}
	if len(order) == 0 {
		return
	}
	b.WriteString("## Headline figures\n\nMeans over the complete rounds (from `data/manifest.json`; `fairbench report` gives intervals).\n\n")
	b.WriteString("| profile | workload | distribution | data | threads | rounds | tps | tpmC |\n|---|---|---|---|---:|---:|---:|---:|\n")
	for _, key := range order {
		a := rows[key]
		tpmc := "-"
		if a.tpmc > 0 {
			tpmc = fmt.Sprintf("%.1f", a.tpmc/float64(a.rounds))
		}
		fmt.Fprintf(b, "| %s | %d | %.1f | %s |\n", key, a.rounds, a.tps/float64(a.rounds), tpmc)
	}
	b.WriteString("\n")
}

// writeResultFigures writes each bundled result's throughput.
func writeResultFigures(b *bytes.Buffer, m *Manifest, members map[string][]byte) {
	b.WriteString("## Headline figures\n\n| file | workload | threads | status | tps |\n|---|---|---:|---|---:|\n")
	for _, r := range m.Runs {
		tps := "-"
		if res, err := result.Decode(bytes.NewReader(members[DataDir+"/"+r.File])); err == nil {
			tps = fmt.Sprintf("%.1f", res.Totals.TPS)
		}
		fmt.Fprintf(b, "| %s | %s | %d | %s | %s |\n", r.File, r.Workload, r.Threads, r.Status, tps)
	}
	b.WriteString("\n")
}

// writeRedactions says what was redacted (counts, never values).
func writeRedactions(b *bytes.Buffer, m *Manifest) {
	b.WriteString("## Redaction\n\n")
	if m.KeptHosts {
		b.WriteString("Host names and addresses were kept (--keep-hosts). ")
	}
	if len(m.Redacted) == 0 {
		b.WriteString("Nothing needed redacting.\n")
		return
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m.Redacted)) {
		parts = append(parts, fmt.Sprintf("%d %s", m.Redacted[k], k))
	}
	fmt.Fprintf(b, "Replaced by placeholders (host-N, ip-N, user-N, %s): %s. The same name has the same placeholder in every file.\n", Redacted, strings.Join(parts, ", "))
}
