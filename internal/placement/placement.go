// Package placement finds where a machine runs — its instance type, region,
// zone and architecture — from the Kubernetes node it is scheduled on (the
// node's labels, read through the API server with the pod's service account)
// or from the cloud's instance metadata service (AWS IMDSv2, GCP, Azure), and
// finds the fairbench agents that run on a database's nodes.
//
// It speaks to both with net/http and encoding/json only: client-go would add
// tens of megabytes of dependencies to the static binary for three GET
// requests. It reads only the fields named here — never credentials — and
// every request has a deadline, so that a missing API or metadata service
// costs at most that deadline.
package placement

import (
	"fmt"
	"io"
	"strings"
	"unicode"
)

// Placement says where a machine runs. Any field may be empty when its
// source does not know it.
type Placement struct {
	// InstanceType is the cloud's name of the machine's size: "m6g.large",
	// "e2-standard-4", "Standard_D4s_v5".
	InstanceType string `json:"instance_type,omitempty"`
	Region       string `json:"region,omitempty"` // "us-east-1", "us-central1", "westeurope"
	Zone         string `json:"zone,omitempty"`   // "us-east-1a", "us-central1-a", "1"
	// Arch is the node's kubernetes.io/arch label (amd64, arm64); the cloud
	// metadata services do not give it.
	Arch string `json:"arch,omitempty"`
	// Node is the Kubernetes node's name when the placement came from its labels.
	Node string `json:"node,omitempty"`
	// Source is where the placement came from: one of the Source* values.
	Source string `json:"source"`
}

// The values of Placement.Source.
const (
	SourceKubernetes = "kubernetes node labels"
	SourceAWS        = "aws instance metadata"
	SourceGCP        = "gcp instance metadata"
	SourceAzure      = "azure instance metadata"
)

// maxBody bounds what is read of any response: the documents read here are
// a few kilobytes at most.
const maxBody = 1 << 20

// maxValue bounds one value taken from a response (an instance type, a zone).
const maxValue = 256

// readBody reads at most maxBody bytes of a response body.
func readBody(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxBody+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxBody {
		return nil, fmt.Errorf("response larger than %d bytes", maxBody)
	}
	return b, nil
}

// cleanValue trims a value read from a service and refuses one that cannot
// be a name (control characters, too long), so nothing odd reaches a result
// file.
func cleanValue(what, v string) (string, error) {
	v = strings.TrimSpace(v)
	if len(v) > maxValue {
		return "", fmt.Errorf("%s is %d bytes long, more than a name can be", what, len(v))
	}
	for _, r := range v {
		if !unicode.IsPrint(r) || r == unicode.ReplacementChar {
			return "", fmt.Errorf("%s %q holds a character that cannot be in a name", what, v)
		}
	}
	return v, nil
}
