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

	"github.com/fairbench/fairbench/internal/base/lazyre"
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

// maxValue bounds one value taken from a response (an instance type, a
// zone): a Kubernetes label value's limit.
const maxValue = 63

// labelValue is the syntax of a Kubernetes label value. Every instance type,
// region and zone of the three clouds fits it (they are node labels in
// Kubernetes), so a value that does not is not one of them: an error page,
// another service's answer.
var labelValue = lazyre.New(`^(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?)?$`)

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

// cleanValue trims a value read from a service and refuses one that is not
// a Kubernetes label value (at most 63 letters, digits, '-', '_', '.'), so
// nothing odd reaches a result file.
func cleanValue(what, v string) (string, error) {
	v = strings.TrimSpace(v)
	if len(v) > maxValue {
		return "", fmt.Errorf("%s is %d bytes long: not an instance type, region or zone (at most %d)", what, len(v), maxValue)
	}
	if !labelValue().MatchString(v) {
		return "", fmt.Errorf("%s %q is not an instance type, region or zone (letters, digits, '-', '_', '.')", what, v)
	}
	return v, nil
}
