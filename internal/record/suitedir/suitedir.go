// Package suitedir is the record of a suite directory: its manifest (the plan
// as run, the machine and servers, every step and every cell with its status,
// result file and headline figures). Suites write it; merge, compare and
// report read it without touching a database.
package suitedir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/base/outfile"
	"github.com/fairbench/fairbench/internal/record/result"
)

// ManifestName is the manifest's file name inside a suite directory.
const ManifestName = "manifest.json"

// ManifestSchema is the manifest layout's version.
const ManifestSchema = "1.0"

// Suite and cell states.
const (
	StatusPending     = "pending"
	StatusRunning     = "running"
	StatusComplete    = "complete"
	StatusFailed      = "failed"
	StatusInterrupted = "interrupted"
)

// Manifest records a suite: the plan as run, where it ran, every step and
// every cell with its status and result file. It is rewritten atomically after
// every step, so an interrupted suite can resume from it.
type Manifest struct {
	Schema string      `json:"schema"`
	Tool   result.Tool `json:"tool"`
	Plan   PlanRecord  `json:"plan"`
	Status string      `json:"status"`
	// Created is when the suite started; Updated when the manifest was last written.
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// Machine is the client machine.
	Machine result.Machine `json:"machine"`
	// Servers are the servers the cells ran against, one per profile.
	Servers []ServerRecord `json:"servers,omitempty"`
	// Steps are the steps outside cells (prepare, warm-ups, server starts) in order.
	Steps []StepRecord `json:"steps,omitempty"`
	// Cells are the matrix in run order.
	Cells []CellRecord `json:"cells"`
	// Skipped are the plan's values this machine could not run, whose
	// cells were left out of Cells (suite run --skip-impossible).
	Skipped []SkippedValue `json:"skipped,omitempty"`
	// Sessions counts the times the suite was started (1 + resumes).
	Sessions int `json:"sessions"`
	// Client is this directory's place among the plan's coordinated clients
	// (plans with clients:).
	Client *ClientRecord `json:"client,omitempty"`
	// Merged, in a directory written by fairbench merge, lists the client
	// suites it was merged from.
	Merged *MergedRecord `json:"merged,omitempty"`
}

// SkippedValue is a value of the plan that the machine could not run, and
// whose cells the suite left out.
type SkippedValue struct {
	// Key is the plan's key ("matrix.server_cpus[3]", "server.profiles[0]")
	// and Value its value there ("8", "cpu-bound").
	Key   string `json:"key"`
	Value string `json:"value"`
	// Reason says why the machine could not run it.
	Reason string `json:"reason"`
	// Cells counts the cells left out for it (a cell of two such values is
	// counted with its profile).
	Cells int `json:"cells"`
}

// ClientRecord is a coordinated client's place in its run, and its clock
// against the database server's.
type ClientRecord struct {
	ID int `json:"id"` // --client-id; 0 is the leader
	Of int `json:"of"` // clients.count
	// RunID is the latest session's --run-id; RunIDs every session's, in order.
	RunID  string   `json:"run_id"`
	RunIDs []string `json:"run_ids"`
	// WaitSeconds is clients.wait.
	WaitSeconds float64 `json:"wait_s"`
	// ClockOffsetMs is the database server's clock minus this client's, as last
	// measured (the round-trip midpoint of the sample with the shortest round
	// trip, ClockRTTMs). Cells start at a moment of the server's clock.
	ClockOffsetMs float64 `json:"clock_offset_ms"`
	ClockRTTMs    float64 `json:"clock_rtt_ms"`
}

// MergedRecord says which client suites a merged suite was made of.
type MergedRecord struct {
	RunID   string        `json:"run_id"`
	Clients int           `json:"clients"`
	From    []MergedSuite `json:"from"`
}

// MergedSuite is one client suite directory given to fairbench merge.
type MergedSuite struct {
	Dir      string `json:"dir"`
	ClientID int    `json:"client_id"`
	Hostname string `json:"hostname,omitempty"`
	Status   string `json:"status"`
}

// PlanRecord is the plan as it was run.
type PlanRecord struct {
	Name  string  `json:"name"`
	File  string  `json:"file"`
	Hash  string  `json:"hash"` // SHA-256 of the file
	Scale float64 `json:"scale"`
	Text  string  `json:"text"`
}

// ServerRecord is the server fingerprint under one profile.
type ServerRecord struct {
	Profile string                `json:"profile,omitempty"`
	Server  result.Server         `json:"server"`
	Managed *result.ManagedServer `json:"managed,omitempty"`
}

// StepRecord is one step outside the cells.
type StepRecord struct {
	Name    string    `json:"name"` // "prepare", "checksum warm-up", "query warm-up", "server start"
	Profile string    `json:"profile,omitempty"`
	Dataset int       `json:"dataset"`
	Start   time.Time `json:"start"`
	Seconds float64   `json:"seconds"`
	Detail  string    `json:"detail,omitempty"`
	Error   string    `json:"error,omitempty"`
}

// CellRecord is one cell's state.
type CellRecord struct {
	Cell
	Status  string    `json:"status"`
	File    string    `json:"file,omitempty"` // result file, relative to the directory
	Start   time.Time `json:"start,omitzero"`
	Seconds float64   `json:"seconds,omitempty"` // wall time the cell took, sleeps excluded
	Error   string    `json:"error,omitempty"`
	Summary *Summary  `json:"summary,omitempty"`
	// Attempts are earlier runs of the cell that did not complete, kept under
	// their own file names.
	Attempts []Attempt `json:"attempts,omitempty"`
	// StartAt is the moment the coordinated clients were told to start the
	// cell, in the database server's clock; ClockOffsetMs is this client's
	// offset to that clock when it waited for it (coordinated clients only).
	StartAt       time.Time `json:"start_at,omitzero"`
	ClockOffsetMs float64   `json:"clock_offset_ms,omitempty"`
	// Clients is the number of client results a merged cell sums (merged
	// suites only; Threads is then their total).
	Clients int `json:"clients,omitempty"`
}

// Cell is one run of the matrix: one workload, distribution, thread count and
// round, under one server profile and data set.
type Cell struct {
	Index    int    `json:"index"`             // position in the matrix, from 1
	ID       string `json:"id"`                // "cpu-bound/d1/uniform/r1/oltp_read_write/t16"
	Profile  string `json:"profile,omitempty"` // server profile, when the plan owns a server
	Dataset  int    `json:"dataset"`           // index into Plan.Data
	Data     string `json:"data"`              // the data set's label: "4x100000", "w10"
	Workload string `json:"workload"`
	RandType string `json:"rand_type"`
	Threads  int    `json:"threads"`
	Round    int    `json:"round"` // from 1
	// ServerCPUs and SMT are the cell's value of a plan's server_cpus sweep
	// (logical CPUs with smt "all", cores with "one-per-core"); 0 and "" when
	// the plan does not sweep server CPUs.
	ServerCPUs int    `json:"server_cpus,omitempty"`
	SMT        string `json:"smt,omitempty"`
}

// FileName is the cell's result file name inside the suite directory.
func (c Cell) FileName() string {
	return fmt.Sprintf("%04d-%s.json", c.Index, strings.NewReplacer("/", "-", " ", "_", "#", "_").Replace(c.ID))
}

// Attempt is an earlier run of a cell that did not complete, or, among
// coordinated clients, one run again with the others.
type Attempt struct {
	Status string `json:"status"`
	File   string `json:"file"`
	Error  string `json:"error,omitempty"`
}

// Summary holds a cell's headline figures, for tables without reading results.
type Summary struct {
	TPS   float64 `json:"tps"`
	QPS   float64 `json:"qps"`
	P95Ms float64 `json:"p95_ms,omitempty"` // 0 when the run's percentiles left out 95
	TpmC  float64 `json:"tpmc,omitempty"`
	// Reconnects and IgnoredErrors are the measured phase's lost connections
	// that were re-opened and its errors ignored by the error policy: events
	// that did not count, which a cell's figures alone do not show.
	Reconnects    int64 `json:"reconnects,omitempty"`
	IgnoredErrors int64 `json:"ignored_errors,omitempty"`
	// Warnings counts the result's warnings (what ran differed from what was
	// asked, or a figure needs a caveat); the cell's result file has them.
	Warnings int `json:"warnings,omitempty"`
	// Outages counts the spans during which the server was away (threads
	// without a connection) and OutageSeconds their time within the measured
	// phase (result.Outages): a complete cell with an outage has figures
	// that include it, and the tables mark it.
	Outages       int     `json:"outages,omitempty"`
	OutageSeconds float64 `json:"outage_seconds,omitempty"`
}

// ReadManifest reads the manifest of the suite directory dir.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s is not a suite directory (it has no %s): give the --out directory of a 'fairbench suite run'", dir, ManifestName)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the suite manifest: %w", err)
	}
	return ParseManifest(b, filepath.Join(dir, ManifestName))
}

// ParseManifest reads a suite manifest's bytes; name names the file in
// errors. ReadManifest reads a directory's; loaders of other file systems (a
// bundle's) read the bytes and call it.
func ParseManifest(b []byte, name string) (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: not a suite manifest: %w", name, err)
	}
	return &m, nil
}

// Write saves the manifest in the suite directory dir atomically (temporary
// file, fsync, rename).
func (m *Manifest) Write(dir string) error {
	m.Updated = time.Now().UTC()
	return outfile.Write(filepath.Join(dir, ManifestName), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(m)
	})
}

// Counts returns how many cells are in each state.
func (m *Manifest) Counts() map[string]int {
	out := map[string]int{}
	for _, c := range m.Cells {
		out[c.Status]++
	}
	return out
}

// Summarize extracts a cell's headline figures from its result.
func Summarize(res *result.Result) *Summary {
	s := &Summary{TPS: res.Totals.TPS, QPS: res.Totals.QPS,
		Reconnects: res.Totals.Counts.Reconnects, IgnoredErrors: res.Totals.Counts.ErrorCount(),
		Warnings: len(res.Warnings),
		Outages:  len(res.Outages), OutageSeconds: result.OutageSeconds(res.Start, res.End, res.Outages)}
	if v, ok := res.Totals.Latency.Percentiles["95"]; ok {
		s.P95Ms = v
	}
	for _, f := range res.Figures {
		if f.Name == "tpmC" {
			s.TpmC = f.Value
		}
	}
	return s
}

// Value returns the figure named metric: "tpmC", "qps", otherwise TPS.
func (s *Summary) Value(metric string) float64 {
	switch metric {
	case "tpmC":
		return s.TpmC
	case "qps":
		return s.QPS
	}
	return s.TPS
}
