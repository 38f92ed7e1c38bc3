// Package bundle is the record of results people share: one file NAME.fbz, a
// zip archive that holds a suite directory (its manifest.json and every cell's
// result file) or single result files, under data/, with a manifest of
// content hashes (bundle.json), a human summary (README.md) and the price
// sheet when one was given (prices.yaml). See docs/bundles.md.
//
// Create writes a bundle, redacting host names, addresses, user names and
// secrets by default. Open reads one and verifies it whole: every member's
// SHA-256, the whole hash, the schema, and the archive's shape (a hostile
// archive is refused, never extracted); every command that reads a bundle
// goes through Open, so a bundle whose content changed is refused by all of
// them with the member named.
//
// Readers (compare, report, cost, site, rerun) use:
//
//	b, err := bundle.Open(path)
//	b.Manifest()   // what it holds: kind, plan text, command lines, tool, redactions
//	b.FS()         // the data/ tree: manifest.json and result files, as in the directory
//	b.Prices()     // the price sheet, if one was bundled
package bundle

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/record/result"
)

// Schema is the bundle layout's version ("major.minor"): Open reads every
// minor of its major and refuses another major.
const Schema = "1.0"

// Ext is a bundle file's extension.
const Ext = ".fbz"

// The members of a bundle besides the data.
const (
	ManifestName = "bundle.json" // the manifest (Manifest)
	ReadmeName   = "README.md"   // the human summary
	PricesName   = "prices.yaml" // the price sheet, when one was given
	DataDir      = "data"        // the suite directory or result files
)

// Limits of what Open reads: a bundle beyond them is refused, whatever its
// archive claims.
const (
	// MaxMembers is the most members (files) a bundle may hold.
	MaxMembers = 20000
	// MaxMemberBytes is the largest member, uncompressed.
	MaxMemberBytes = 64 << 20
	// MaxTotalBytes is the most all members may hold together, uncompressed.
	MaxTotalBytes = 1 << 30
	// MaxManifestBytes is the largest bundle.json.
	MaxManifestBytes = 16 << 20
	// MaxNameBytes is the longest member name.
	MaxNameBytes = 512
)

// The kinds of bundle (Manifest.Kind).
const (
	KindSuite   = "suite"   // a suite directory under data/
	KindResults = "results" // single result files under data/
)

// Manifest is bundle.json: what a bundle holds and the hashes that prove it
// unchanged.
type Manifest struct {
	// Schema is the bundle layout's version (Schema).
	Schema string `json:"schema"`
	// Tool is the fairbench that wrote the bundle.
	Tool result.Tool `json:"tool"`
	// Created is when the bundle was written (UTC).
	Created time.Time `json:"created"`
	// Kind is KindSuite or KindResults.
	Kind string `json:"kind"`
	// Suite describes the bundled suite (KindSuite).
	Suite *SuiteInfo `json:"suite,omitempty"`
	// Plan is the plan's text as the suite ran it (KindSuite; redacted).
	Plan string `json:"plan,omitempty"`
	// Runs are the bundled results of KindResults with their recorded
	// command lines (redacted), in the order given.
	Runs []Run `json:"runs,omitempty"`
	// ResultSchemas are the result-schema versions of the bundled results,
	// sorted, each once.
	ResultSchemas []string `json:"result_schemas"`
	// Redacted counts what Create replaced, by kind (host, ip, user,
	// secret); never the values. KeptHosts says --keep-hosts kept host
	// names and addresses.
	Redacted  map[string]int `json:"redacted,omitempty"`
	KeptHosts bool           `json:"kept_hosts,omitempty"`
	// Members are every member but bundle.json, sorted by name.
	Members []Member `json:"members"`
	// SHA256 is the whole hash: WholeHash(Members).
	SHA256 string `json:"sha256"`
}

// SuiteInfo is the bundled suite's name and state.
type SuiteInfo struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	// Cells counts the cells by status.
	Cells map[string]int `json:"cells"`
	// Incomplete is set when the suite had not completed and the bundle was
	// made anyway (bundle create --allow-incomplete).
	Incomplete bool `json:"incomplete,omitempty"`
}

// Run is one bundled result of a KindResults bundle.
type Run struct {
	// File is the member's name under data/.
	File        string   `json:"file"`
	Workload    string   `json:"workload"`
	Threads     int      `json:"threads"`
	Status      string   `json:"status"`
	CommandLine []string `json:"command_line,omitempty"`
}

// Member is one file of a bundle with its size and SHA-256 (hex).
type Member struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// WholeHash is a bundle's whole hash: the SHA-256 (hex) of the lines
// "SHA256  NAME\n" (the member's hex hash, two spaces, its name: the format
// of sha256sum) of every member, sorted by name. `sha256sum` over the
// extracted members, sorted, gives the same lines.
func WholeHash(members []Member) string {
	sorted := append([]Member(nil), members...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	h := sha256.New()
	for _, m := range sorted {
		fmt.Fprintf(h, "%s  %s\n", m.SHA256, m.Name)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// hashOf is the hex SHA-256 of b.
func hashOf(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// checkSchema accepts a bundle schema of Schema's major.
func checkSchema(v string) error {
	major, _, _ := strings.Cut(v, ".")
	n, err := strconv.Atoi(major)
	own, _, _ := strings.Cut(Schema, ".")
	ownN, _ := strconv.Atoi(own)
	switch {
	case v == "" || err != nil:
		return fmt.Errorf("%s: unreadable bundle schema %q: the bundle is damaged", ManifestName, v)
	case n > ownN:
		return fmt.Errorf("bundle schema %s is newer than this fairbench reads (%d.x): upgrade fairbench", v, ownN)
	case n < ownN:
		return fmt.Errorf("bundle schema %s is older than this fairbench reads (%d.x): use the fairbench release that wrote it", v, ownN)
	}
	return nil
}
