package placement

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/machine/placement/placementtest"
)

func TestCloudMetadata(t *testing.T) {
	aws := func(f *placementtest.Cloud) http.HandlerFunc { return f.AWS }
	gcp := func(f *placementtest.Cloud) http.HandlerFunc { return f.GCP }
	azure := func(f *placementtest.Cloud) http.HandlerFunc { return f.Azure }
	tests := []struct {
		name      string
		server    func(*placementtest.Cloud) http.HandlerFunc
		provider  Provider
		want      Placement
		wantPaths []string // exactly the requests made; nil for auto (three clouds asked)
	}{
		{"aws", aws, ProviderAWS, Placement{InstanceType: "c7g.2xlarge", Region: "eu-west-1", Zone: "eu-west-1b", Source: SourceAWS},
			[]string{"PUT /latest/api/token", "GET /latest/meta-data/instance-type", "GET /latest/meta-data/placement/region", "GET /latest/meta-data/placement/availability-zone"}},
		{"gcp", gcp, ProviderGCP, Placement{InstanceType: "e2-standard-4", Region: "us-central1", Zone: "us-central1-a", Source: SourceGCP},
			[]string{"GET /computeMetadata/v1/instance/machine-type", "GET /computeMetadata/v1/instance/zone"}},
		{"azure", azure, ProviderAzure, Placement{InstanceType: "Standard_D4ps_v5", Region: "westeurope", Zone: "2", Source: SourceAzure},
			[]string{"GET /metadata/instance/compute?api-version=2021-02-01"}},
		{"auto finds aws", aws, ProviderAuto, Placement{InstanceType: "c7g.2xlarge", Region: "eu-west-1", Zone: "eu-west-1b", Source: SourceAWS}, nil},
		{"auto finds gcp", gcp, ProviderAuto, Placement{InstanceType: "e2-standard-4", Region: "us-central1", Zone: "us-central1-a", Source: SourceGCP}, nil},
		{"auto finds azure", azure, ProviderAuto, Placement{InstanceType: "Standard_D4ps_v5", Region: "westeurope", Zone: "2", Source: SourceAzure}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, url := placementtest.StartCloud(t, tt.server)
			got, err := CloudMetadata(context.Background(), tt.provider, MetadataConfig{Endpoint: url, Timeout: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if tt.wantPaths != nil && !slices.Equal(f.Seen(), tt.wantPaths) {
				t.Errorf("requests %q, want exactly %q", f.Seen(), tt.wantPaths)
			}
			for _, p := range f.Seen() {
				if strings.Contains(p, "credentials") || strings.Contains(p, "token?") || strings.Contains(p, "identity") {
					t.Errorf("asked for credentials: %s", p)
				}
			}
		})
	}
}

func TestCloudMetadataWrongCloud(t *testing.T) {
	// A GCP lookup against an AWS server, and the reverse, fail rather than
	// take a 404 page or another cloud's answer for a machine type.
	_, awsURL := placementtest.StartCloud(t, func(f *placementtest.Cloud) http.HandlerFunc { return f.AWS })
	_, gcpURL := placementtest.StartCloud(t, func(f *placementtest.Cloud) http.HandlerFunc { return f.GCP })
	for _, tt := range []struct {
		p   Provider
		url string
	}{{ProviderGCP, awsURL}, {ProviderAzure, awsURL}, {ProviderAWS, gcpURL}} {
		if got, err := CloudMetadata(context.Background(), tt.p, MetadataConfig{Endpoint: tt.url, Timeout: 10 * time.Second}); err == nil {
			t.Errorf("%s against another cloud's server: got %+v, want an error", tt.p, got)
		}
	}
	// A web server that answers 200 to everything without Google's header.
	any200 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("<html>")) }))
	defer any200.Close()
	if got, err := CloudMetadata(context.Background(), ProviderGCP, MetadataConfig{Endpoint: any200.URL, Timeout: 10 * time.Second}); err == nil ||
		!strings.Contains(err.Error(), "Metadata-Flavor") {
		t.Errorf("a page without Metadata-Flavor: got %+v, %v", got, err)
	}
	_, err := CloudMetadata(context.Background(), ProviderAuto, MetadataConfig{Endpoint: any200.URL, Timeout: 10 * time.Second})
	if err == nil {
		t.Fatal("auto against a plain web server found a cloud")
	}
	for _, want := range []string{"aws:", "gcp:", "azure:"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("auto's error %q does not say why %s failed", err, want)
		}
	}
}

func TestCloudMetadataOffMakesNoRequest(t *testing.T) {
	f, url := placementtest.StartCloud(t, func(f *placementtest.Cloud) http.HandlerFunc { return f.AWS })
	for _, p := range []Provider{ProviderOff, ""} {
		got, err := CloudMetadata(context.Background(), p, MetadataConfig{Endpoint: url})
		if err != nil || got != (Placement{}) {
			t.Errorf("%q: got %+v, %v; want nothing", p, got, err)
		}
	}
	if seen := f.Seen(); len(seen) != 0 {
		t.Errorf("off made requests: %q", seen)
	}
}

func TestCloudMetadataGivesUpAtItsDeadline(t *testing.T) {
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer hang.Close()
	defer close(release)
	for _, p := range []Provider{ProviderAWS, ProviderAuto} {
		_, err := CloudMetadata(context.Background(), p, MetadataConfig{Endpoint: hang.URL, Timeout: 50 * time.Millisecond})
		if err == nil || !strings.Contains(err.Error(), "deadline exceeded") {
			t.Errorf("%s against a server that never answers: err = %v, want a deadline", p, err)
		}
	}
}

func TestParseProvider(t *testing.T) {
	for in, want := range map[string]Provider{"off": ProviderOff, "AWS": ProviderAWS, " gcp ": ProviderGCP, "azure": ProviderAzure, "auto": ProviderAuto} {
		if got, err := ParseProvider(in); err != nil || got != want {
			t.Errorf("ParseProvider(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "ec2", "aws,gcp"} {
		if _, err := ParseProvider(in); err == nil || !strings.Contains(err.Error(), "off, auto, aws, gcp, azure") {
			t.Errorf("ParseProvider(%q): err = %v, want one listing the choices", in, err)
		}
	}
}

func TestGCPAndAzureDocuments(t *testing.T) {
	tests := []struct {
		name            string
		got             func() (Placement, error)
		want            Placement
		wantErrContains string
	}{
		{"gcp zone without region part", func() (Placement, error) { return gcpPlacement("e2-micro", "zones/local") },
			Placement{InstanceType: "e2-micro", Zone: "local", Source: SourceGCP}, ""},
		{"gcp empty machine type", func() (Placement, error) { return gcpPlacement("projects/1/machineTypes/", "zones/a-b") }, Placement{}, "names no machine type"},
		{"azure no zone", func() (Placement, error) {
			return azurePlacement([]byte(`{"vmSize":"Standard_B2s","location":"eastus","zone":""}`))
		},
			Placement{InstanceType: "Standard_B2s", Region: "eastus", Source: SourceAzure}, ""},
		{"azure no vmSize", func() (Placement, error) { return azurePlacement([]byte(`{"location":"eastus"}`)) }, Placement{}, "no vmSize"},
		{"azure not JSON", func() (Placement, error) { return azurePlacement([]byte(`<html>`)) }, Placement{}, "decoding"},
		{"azure control character", func() (Placement, error) { return azurePlacement([]byte(`{"vmSize":"a\u0007b"}`)) }, Placement{}, "is not an instance type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.got()
			if tt.wantErrContains != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErrContains) {
					t.Errorf("got %+v, %v; want an error saying %q", got, err, tt.wantErrContains)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

// FuzzMetadataDocuments feeds arbitrary metadata answers to the GCP and
// Azure parsers: they must not panic, and what they accept must be Kubernetes label
// values, with a GCP region that prefixes its zone.
func FuzzMetadataDocuments(f *testing.F) {
	f.Add("projects/1/machineTypes/e2-standard-4", "projects/1/zones/us-central1-a", []byte(`{"vmSize":"Standard_D4s_v5","location":"westeurope","zone":"1"}`))
	f.Add("", "", []byte(`{}`))
	f.Add("/", "-", []byte(`null`))
	f.Add("a/b\x00c", "zones/\u00e9-1", []byte(`{"vmSize":"\u2028"}`))
	f.Fuzz(func(t *testing.T, machineType, zone string, azure []byte) {
		check := func(p Placement) {
			for _, v := range []string{p.InstanceType, p.Region, p.Zone} {
				if len(v) > maxValue || strings.IndexFunc(v, func(r rune) bool {
					return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.')
				}) >= 0 {
					t.Fatalf("accepted %q", v)
				}
			}
		}
		if p, err := gcpPlacement(machineType, zone); err == nil {
			check(p)
			if p.InstanceType == "" || !strings.HasPrefix(p.Zone, p.Region) || strings.Contains(p.Zone, "/") {
				t.Fatalf("gcp %q %q → %+v", machineType, zone, p)
			}
		}
		if p, err := azurePlacement(azure); err == nil {
			check(p)
			if p.InstanceType == "" {
				t.Fatalf("azure %q → no instance type", azure)
			}
		}
	})
}
