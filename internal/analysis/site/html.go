package site

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/base/outfile"
)

// IndexFile is the page's file name in the site's directory.
const IndexFile = "index.html"

// WriteDir writes the site into dir, which must exist: the page as
// dir/index.html and each operand's report as dir/reports/FILE.html. It
// returns the files written.
func (s *Site) WriteDir(dir string) ([]string, error) {
	var files []string
	for _, op := range s.Operands {
		path := filepath.Join(dir, ReportsDir, op.File)
		if err := outfile.Write(path, op.Report.WriteHTML); err != nil {
			return files, fmt.Errorf("the report of %s: %w", op.System.Label, err)
		}
		files = append(files, path)
	}
	path := filepath.Join(dir, IndexFile)
	if err := outfile.Write(path, s.WriteHTML); err != nil {
		return files, fmt.Errorf("the site's page: %w", err)
	}
	return append(files, path), nil
}

// WriteHTML writes the page: self-contained, its script and style inline
// and allowed by their hashes (ContentSecurityPolicy).
func (s *Site) WriteHTML(w io.Writer) error {
	var buf bytes.Buffer
	data := pageData{Site: s, CSP: ContentSecurityPolicy(), Style: template.CSS(pageStyle), Script: template.JS(pageScript),
		ConfidencePct: analysis.Confidence * 100, VagueMark: analysis.VagueMark, OutageMark: analysis.OutageMark, NoisyMark: analysis.NoisyMark}
	if err := page().Execute(&buf, data); err != nil {
		return fmt.Errorf("rendering the site's page: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// ContentSecurityPolicy is the page's policy: nothing loaded from anywhere
// (no script, style sheet, font, image, frame or connection) but its one
// inline script and one inline style sheet, allowed by their SHA-256
// hashes; no inline style attribute, no form, no base URL.
func ContentSecurityPolicy() string {
	return fmt.Sprintf("default-src 'none'; script-src '%s'; style-src '%s'; img-src data:; base-uri 'none'; form-action 'none'",
		hashOf(pageScript), hashOf(pageStyle))
}

// hashOf is a CSP hash source of an inline script's or style's text.
func hashOf(text string) string {
	sum := sha256.Sum256([]byte(text))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

type pageData struct {
	*Site
	CSP    string
	Style  template.CSS
	Script template.JS
	// ConfidencePct is the intervals' level in %; the marks are
	// analysis's.
	ConfidencePct                    float64
	VagueMark, OutageMark, NoisyMark string
}

// page is the page's template, parsed on first use.
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("site").Funcs(template.FuncMap{
		"num":      num,
		"figure":   analysis.FormatFigure,
		"interval": analysis.FormatInterval,
		"noInterval": func(c analysis.Cell) string {
			if c.Stats.N == 1 {
				return "1 round: no interval"
			}
			return c.Stats.NoInterval + ": no interval"
		},
		"caveat": func(c analysis.Cell) string {
			// A single round is said in place of the interval.
			if c.Stats.N < 2 {
				return ""
			}
			return analysis.FigureCaveat(c.Stats)
		},
		"wbr": func(s string) template.HTML {
			return template.HTML(strings.ReplaceAll(template.HTMLEscapeString(s), "/", "/<wbr>"))
		},
		"value": func(s *Site, r Row, name string) string { return s.Value(r, name) },
		"op":    func(s *Site, r Row) *Operand { return s.Operands[r.Operand] },
		"plural": func(n int, one, many string) string {
			if n == 1 {
				return one
			}
			return many
		},
	}).Parse(pageTemplate))
})

// num is a figure as a sort key: full precision, "" for none.
func num(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

const pageTemplate = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{{.CSP}}">
<meta name="color-scheme" content="light dark">
<title>{{.Title}}</title>
<style>{{.Style}}</style>
</head>
<body>
<header>
<h1>{{.Title}}</h1>
<p class="note">Every system of every operand, one row per workload row and thread count. A figure is the mean of its rounds, in tpmC for TPC-C and tps otherwise, with its {{.ConfidencePct}} % confidence interval (on the log scale: never below zero; {{.VagueMark}} marks one wider than the figure). Each operand's full report is linked from its name.</p>
</header>
<div id="filters" role="search" aria-label="filter the rows">
{{range .Filters}}<label>{{.Label}} <select name="{{.Name}}"><option value="">all</option>{{range .Values}}<option>{{.}}</option>{{end}}</select></label>
{{end}}</div>
<p id="count" aria-live="polite">{{len .Rows}} of {{len .Rows}} rows shown</p>
<div class="scroll results">
<table id="results">
<thead><tr>
<th><button type="button">system</button></th>
<th><button type="button">row</button></th>
<th data-type="num"><button type="button">threads</button></th>
<th data-type="num"><button type="button">throughput</button></th>
<th data-type="num"><button type="button">rounds</button></th>
<th data-type="num"><button type="button">price-performance</button></th>
<th><button type="button">machine</button></th>
<th><button type="button">cloud</button></th>
<th><button type="button">server</button></th>
<th><button type="button">operand</button></th>
</tr></thead>
<tbody>
{{range .Rows}}{{$op := op $.Site .}}<tr data-workload="{{value $.Site . "workload"}}" data-threads="{{.Key.Threads}}" data-flavor="{{value $.Site . "flavor"}}" data-arch="{{value $.Site . "arch"}}" data-cloud="{{value $.Site . "cloud"}}">
<td class="system">{{$op.System.Label}}</td>
<td class="row" data-label="row">{{wbr .Label}}</td>
<td class="n" data-label="threads" data-v="{{.Key.Threads}}">{{.Key.Threads}}</td>
<td class="n" data-label="throughput" data-g="{{.Metric.Unit}}" data-v="{{num .Cell.Value}}">{{figure .Cell.Value}} {{.Metric.Unit}}{{if .Cell.Outages}} <abbr title="a round's server went away during the run">{{$.OutageMark}}</abbr>{{end}}{{if .Cell.Noisy}} <abbr title="a round was measured while other processes were busy">{{$.NoisyMark}}</abbr>{{end}}{{if .Cell.Stats.NoInterval}}<span class="sub caveat">{{noInterval .Cell}}</span>{{else}}<span class="sub">[{{interval .Cell.Stats}}]</span>{{end}}{{with caveat .Cell}}<span class="sub caveat">{{.}}</span>{{end}}</td>
<td class="n" data-label="rounds" data-v="{{.Cell.Stats.N}}">{{.Cell.Stats.N}}</td>
<td class="n" data-label="price-performance" data-g="{{.PriceUnit}}" data-v="{{num .PricePerf}}">{{if .PriceUnit}}{{figure .PricePerf}}<span class="sub">{{.PriceUnit}}</span>{{else}}-{{end}}</td>
<td data-label="machine" title="{{$op.System.UnderTest.CPUModel}}">{{if $op.CPU}}{{$op.CPU}}{{else}}unknown{{end}}<span class="sub">{{$op.Arch}}{{if $op.VCPUs}} · {{$op.VCPUs}} vCPU{{plural $op.VCPUs "" "s"}}{{end}}</span></td>
<td data-label="cloud">{{$op.CloudShown}}{{if or $op.Region $op.InstanceType}}<span class="sub">{{$op.Region}}{{if and $op.Region $op.InstanceType}} · {{end}}{{$op.InstanceType}}</span>{{end}}</td>
<td class="server" data-label="server">{{$op.Flavor}}{{if $op.Version}}<span class="sub">{{$op.Version}}</span>{{end}}</td>
<td data-label="operand"><a href="{{$op.ReportPath}}" title="{{$op.System.Source}}">{{$op.System.Name}}</a></td>
</tr>
{{end}}</tbody>
</table>
</div>
<p class="note">Click a column's heading to sort by it (again for the other order); rows without a figure go last, and figures in different units (tpmC, tps) are sorted apart, a unit after the other. Price-performance is a system's cost over the price basis per unit of its figure in the row (lower is better), where the price sheet has the system. {{.OutageMark}}: a round's server went away during the run; {{.NoisyMark}}: a round was measured while other processes used much of a machine's CPUs (see the report).</p>
<h2>Operands</h2>
<div class="scroll">
<table id="operands">
<thead><tr><th>operand</th><th>system</th><th>server machine</th><th>server</th><th>runs</th><th>priced as</th></tr></thead>
<tbody>
{{range .Operands}}<tr><td><a href="{{.ReportPath}}">{{.System.Name}}</a></td><td>{{.System.Label}}</td><td>{{if .System.UnderTest.Known}}{{.System.UnderTest.Label}}{{else}}unknown{{end}}</td><td>{{.Flavor}} {{.Version}}</td><td>{{len .System.Samples}}{{if .System.Skipped}} ({{.System.Skipped}} skipped){{end}}</td><td>{{if .PriceSystem}}{{.PriceSystem}}{{else}}-{{end}}</td></tr>
{{end}}</tbody>
</table>
</div>
{{range .Operands}}{{$op := .}}{{range .System.Notes}}<p class="note">{{$op.System.Label}}: {{.}}</p>
{{end}}{{end}}{{range .Notes}}<p class="note">{{.}}</p>
{{end}}<footer class="note">Written by fairbench site. The page loads nothing: it works from a file, offline.</footer>
<script>{{.Script}}</script>
</body>
</html>
`

// pageStyle is the page's one style sheet (hashed into its policy: change
// it here only).
const pageStyle = `
:root { --fg: #222; --bg: #fff; --muted: #666; --rule: #ddd; --rule2: #eee; --head: #f4f7fb; --warn: #a65e00; --accent: #0072B2; }
@media screen and (prefers-color-scheme: dark) {
  :root { --fg: #e4e6e9; --bg: #15171a; --muted: #a9afb7; --rule: #3b4048; --rule2: #2a2e34; --head: #1d2530; --warn: #f2b861; --accent: #56B4E9; }
}
* { box-sizing: border-box; }
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 1.5rem auto; max-width: 100rem; padding: 0 1rem; color: var(--fg); background: var(--bg); }
h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; margin-top: 2rem; border-bottom: 1px solid var(--rule); }
h1, h2, p { overflow-wrap: break-word; }
a { color: var(--accent); }
.note { color: var(--muted); font-size: .9rem; max-width: 60rem; }
#filters { display: flex; flex-wrap: wrap; gap: .5rem 1rem; margin: 1rem 0 .5rem; }
#filters label { display: flex; flex-direction: column; font-size: .8rem; color: var(--muted); min-width: 8rem; flex: 0 1 12rem; }
#filters select { font: inherit; font-size: .95rem; color: var(--fg); background: var(--bg); border: 1px solid var(--rule); border-radius: 4px; padding: .25rem; margin-top: .15rem; max-width: 100%; }
#count { font-weight: 600; margin: .5rem 0; }
/* A table wider than the page scrolls in its own box: the page never does. */
.scroll { overflow-x: auto; max-width: 100%; border: 1px solid var(--rule2); }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; width: 100%; }
th, td { padding: .3rem .5rem; border-bottom: 1px solid var(--rule2); text-align: left; vertical-align: top; }
/* A row label breaks at its slashes, a server version anywhere; on a phone
   the other cells keep to their lines and the box scrolls. */
#results td.row { min-width: 12rem; max-width: 20rem; } #results td.server { min-width: 7rem; overflow-wrap: anywhere; }
th { background: var(--head); vertical-align: bottom; white-space: nowrap; }
td.n { text-align: right; white-space: nowrap; } th[data-type=num] { text-align: right; }
#results td:first-child, #results th:first-child { position: sticky; left: 0; background: var(--bg); }
#results th:first-child { background: var(--head); }
th button { font: inherit; font-weight: 600; color: inherit; background: none; border: 0; padding: 0; cursor: pointer; text-align: inherit; }
th[aria-sort=ascending] button::after { content: " ▲"; } th[aria-sort=descending] button::after { content: " ▼"; }
.sub { display: block; color: var(--muted); font-size: .8rem; }
.caveat { color: var(--warn); }
tr[hidden] { display: none; }
footer { margin: 2rem 0 1rem; }
@media screen and (max-width: 40rem) {
  body { margin: 1rem auto; padding: 0 .6rem; }
  h1 { font-size: 1.3rem; }
  #filters label { flex: 1 1 45%; min-width: 0; }
  th, td { padding: .25rem .4rem; font-size: .9rem; }
  /* A phone gets a card per row, its figures first, and the headings
     become a bar of sort buttons. */
  .scroll.results { overflow-x: visible; border: 0; }
  #results, #results thead, #results tbody, #results th, #results td { display: block; }
  #results thead tr { display: flex; flex-wrap: wrap; align-items: baseline; gap: .3rem; margin-bottom: .3rem; }
  #results thead tr::before { content: "sort by"; font-size: .8rem; color: var(--muted); }
  #results thead th, #results th:first-child { position: static; background: none; border: 1px solid var(--rule); border-radius: 4px; padding: .1rem .4rem; font-size: .8rem; text-align: left; }
  #results tbody tr { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: .3rem .6rem; border: 1px solid var(--rule2); border-radius: 6px; margin: 0 0 .5rem; padding: .5rem .6rem; }
  #results tbody tr[hidden] { display: none; }
  #results td, #results td.n, #results td:first-child { position: static; border: 0; padding: 0; text-align: left; white-space: normal; overflow-wrap: anywhere; min-width: 0; }
  #results td::before { content: attr(data-label); display: block; font-size: .7rem; color: var(--muted); }
  #results td.system, #results td.row { grid-column: 1 / -1; }
  #results td.system { font-weight: 600; }
}
`

// pageScript is the page's one script (hashed into its policy: change it
// here only): the filters hide the rows that do not match every chosen
// value and count those shown; a column's heading sorts the rows by it,
// numerically for figures (their data-v), rows without a figure last, and
// figures of different units (their data-g: tpmC and tps, prices per each)
// in groups by unit, never ranked against each other.
const pageScript = `
(() => {
  "use strict";
  const table = document.getElementById("results");
  const body = table.tBodies[0];
  const rows = Array.from(body.rows);
  const selects = Array.from(document.querySelectorAll("#filters select"));
  const count = document.getElementById("count");
  const apply = () => {
    let shown = 0;
    for (const r of rows) {
      const ok = selects.every((s) => s.value === "" || r.dataset[s.name] === s.value);
      r.hidden = !ok;
      if (ok) shown++;
    }
    count.textContent = shown + " of " + rows.length + " rows shown";
  };
  for (const s of selects) s.addEventListener("change", apply);
  const heads = Array.from(table.tHead.rows[0].cells);
  for (const th of heads) {
    th.querySelector("button").addEventListener("click", () => {
      const col = th.cellIndex, numeric = th.dataset.type === "num";
      const dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
      for (const h of heads) h.removeAttribute("aria-sort");
      th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
      const key = (r) => {
        const c = r.cells[col];
        if (!numeric) return c.textContent.trim();
        return c.dataset.v === "" ? NaN : Number(c.dataset.v);
      };
      const unit = (r) => r.cells[col].dataset.g || "";
      const sorted = rows.slice().sort((a, b) => {
        const g = unit(a).localeCompare(unit(b));
        if (numeric && g !== 0) return g;
        const x = key(a), y = key(b);
        if (!numeric) return x.localeCompare(y, undefined, {numeric: true}) * dir;
        if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) - Number.isNaN(y);
        return (x - y) * dir;
      });
      for (const r of sorted) body.appendChild(r);
    });
  }
  apply();
})();
`
