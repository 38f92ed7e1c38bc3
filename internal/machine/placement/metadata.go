package placement

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"
)

// Provider names a cloud instance metadata service, or none.
type Provider string

// The providers ParseProvider accepts.
const (
	ProviderOff   Provider = "off"   // do not ask (the default: no request is made)
	ProviderAuto  Provider = "auto"  // ask AWS, GCP and Azure at once and take the one that answers
	ProviderAWS   Provider = "aws"   // AWS IMDSv2
	ProviderGCP   Provider = "gcp"   // Google Compute Engine metadata server
	ProviderAzure Provider = "azure" // Azure Instance Metadata Service
)

// Providers lists the accepted values, for flag help and errors.
var Providers = []Provider{ProviderOff, ProviderAuto, ProviderAWS, ProviderGCP, ProviderAzure}

// ParseProvider parses a --cloud-metadata value (case-insensitive).
func ParseProvider(s string) (Provider, error) {
	p := Provider(strings.ToLower(strings.TrimSpace(s)))
	for _, known := range Providers {
		if p == known {
			return p, nil
		}
	}
	names := make([]string, len(Providers))
	for i, known := range Providers {
		names[i] = string(known)
	}
	return "", fmt.Errorf("cloud metadata provider %q: want one of %s", s, strings.Join(names, ", "))
}

// DefaultMetadataEndpoint is the link-local address every one of the three
// clouds serves its instance metadata on.
const DefaultMetadataEndpoint = "http://169.254.169.254"

// DefaultMetadataTimeout bounds all the requests of one lookup together: a
// machine outside a cloud (or a pod that the node's IMDS hop limit keeps out)
// costs at most this.
const DefaultMetadataTimeout = time.Second

// awsTokenTTL is the lifetime asked for the IMDSv2 session token, in
// seconds: the lookup needs it for three requests.
const awsTokenTTL = "60"

// MetadataConfig says where the metadata service is. Zero fields take the
// defaults; tests point Endpoint at a fake server on loopback.
type MetadataConfig struct {
	Endpoint string        // base URL, DefaultMetadataEndpoint when empty
	Timeout  time.Duration // for the whole lookup, DefaultMetadataTimeout when 0
}

// CloudMetadata asks the instance metadata service of provider for the
// machine's instance type, region and zone. It reads only those fields. With
// ProviderOff it makes no request and returns an empty Placement; with
// ProviderAuto it asks all three clouds at once and takes the first of AWS,
// GCP, Azure that answers.
func CloudMetadata(ctx context.Context, provider Provider, cfg MetadataConfig) (Placement, error) {
	if provider == ProviderOff || provider == "" {
		return Placement{}, nil
	}
	endpoint := strings.TrimRight(cfg.Endpoint, "/")
	if endpoint == "" {
		endpoint = DefaultMetadataEndpoint
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultMetadataTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	m := &metadataClient{endpoint: endpoint, client: &http.Client{Transport: &http.Transport{
		Proxy:             nil, // a link-local address is never reached through a proxy
		DialContext:       (&net.Dialer{Timeout: timeout}).DialContext,
		DisableKeepAlives: true,
	}}}
	lookups := map[Provider]func(context.Context) (Placement, error){
		ProviderAWS: m.aws, ProviderGCP: m.gcp, ProviderAzure: m.azure,
	}
	if provider != ProviderAuto {
		lookup, ok := lookups[provider]
		if !ok {
			return Placement{}, fmt.Errorf("unknown cloud metadata provider %q", provider)
		}
		p, err := lookup(ctx)
		if err != nil {
			return Placement{}, fmt.Errorf("%s instance metadata at %s: %w", provider, endpoint, err)
		}
		return p, nil
	}
	order := []Provider{ProviderAWS, ProviderGCP, ProviderAzure}
	type answer struct {
		p   Placement
		err error
	}
	answers := make([]chan answer, len(order))
	for i, prov := range order {
		answers[i] = make(chan answer, 1)
		go func() {
			p, err := lookups[prov](ctx)
			answers[i] <- answer{p, err}
		}()
	}
	var errs []error
	for i, prov := range order {
		a := <-answers[i]
		if a.err == nil {
			return a.p, nil
		}
		errs = append(errs, fmt.Errorf("%s: %w", prov, a.err))
	}
	return Placement{}, fmt.Errorf("no cloud instance metadata at %s: %w", endpoint, errors.Join(errs...))
}

// metadataClient makes the requests of one lookup.
type metadataClient struct {
	endpoint string
	client   *http.Client
}

// do sends a request with headers and returns the body of a 200 answer.
// wantHeader, when set, is a response header the real service always sends
// ("Metadata-Flavor: Google"), so that another cloud's server or a captive
// web page is not taken for it.
func (m *metadataClient) do(ctx context.Context, method, path string, headers map[string]string, wantHeader [2]string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, method, m.endpoint+path, nil)
	if err != nil {
		return "", err
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := m.client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := readBody(resp.Body)
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", method, path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s %s: %s", method, path, resp.Status)
	}
	if wantHeader[0] != "" && resp.Header.Get(wantHeader[0]) != wantHeader[1] {
		return "", fmt.Errorf("%s %s: the answer lacks the header %s: %s", method, path, wantHeader[0], wantHeader[1])
	}
	return string(body), nil
}

// aws reads the instance type, region and availability zone through IMDSv2:
// a session token first (PUT), then one GET per field with it.
func (m *metadataClient) aws(ctx context.Context) (Placement, error) {
	token, err := m.do(ctx, http.MethodPut, "/latest/api/token",
		map[string]string{"X-aws-ec2-metadata-token-ttl-seconds": awsTokenTTL}, [2]string{})
	if err != nil {
		return Placement{}, fmt.Errorf("IMDSv2 session token (in a pod, the node's hop limit may keep it out: use the node's labels): %w", err)
	}
	h := map[string]string{"X-aws-ec2-metadata-token": strings.TrimSpace(token)}
	p := Placement{Source: SourceAWS}
	for _, f := range []struct {
		path string
		dst  *string
	}{
		{"/latest/meta-data/instance-type", &p.InstanceType},
		{"/latest/meta-data/placement/region", &p.Region},
		{"/latest/meta-data/placement/availability-zone", &p.Zone},
	} {
		v, err := m.do(ctx, http.MethodGet, f.path, h, [2]string{})
		if err != nil {
			return Placement{}, err
		}
		if *f.dst, err = cleanValue(f.path, v); err != nil {
			return Placement{}, err
		}
	}
	if p.InstanceType == "" {
		return Placement{}, errors.New("empty instance type")
	}
	return p, nil
}

// gcp reads the machine type and zone from the Compute Engine metadata server.
func (m *metadataClient) gcp(ctx context.Context) (Placement, error) {
	h := map[string]string{"Metadata-Flavor": "Google"}
	want := [2]string{"Metadata-Flavor", "Google"}
	machineType, err := m.do(ctx, http.MethodGet, "/computeMetadata/v1/instance/machine-type", h, want)
	if err != nil {
		return Placement{}, err
	}
	zone, err := m.do(ctx, http.MethodGet, "/computeMetadata/v1/instance/zone", h, want)
	if err != nil {
		return Placement{}, err
	}
	return gcpPlacement(machineType, zone)
}

// gcpPlacement makes a Placement of the metadata server's machine-type
// ("projects/123/machineTypes/e2-standard-4") and zone
// ("projects/123/zones/us-central1-a"): their last path elements, and the
// region is the zone without its last "-x".
func gcpPlacement(machineType, zone string) (Placement, error) {
	p := Placement{Source: SourceGCP}
	var err error
	if p.InstanceType, err = cleanValue("machine-type", lastElement(machineType)); err != nil {
		return Placement{}, err
	}
	if p.Zone, err = cleanValue("zone", lastElement(zone)); err != nil {
		return Placement{}, err
	}
	if p.InstanceType == "" {
		return Placement{}, fmt.Errorf("machine-type %q names no machine type", machineType)
	}
	if i := strings.LastIndexByte(p.Zone, '-'); i > 0 {
		p.Region = p.Zone[:i]
	}
	return p, nil
}

// lastElement returns what follows the last "/" of a path.
func lastElement(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndexByte(s, '/')+1:]
}

// azureCompute is the part of Azure's compute metadata read here.
type azureCompute struct {
	VMSize   string `json:"vmSize"`
	Location string `json:"location"`
	Zone     string `json:"zone"`
}

// azure reads the VM size, location and zone from the Azure Instance
// Metadata Service's compute document.
func (m *metadataClient) azure(ctx context.Context) (Placement, error) {
	body, err := m.do(ctx, http.MethodGet, "/metadata/instance/compute?api-version=2021-02-01",
		map[string]string{"Metadata": "true"}, [2]string{})
	if err != nil {
		return Placement{}, err
	}
	return azurePlacement([]byte(body))
}

// azurePlacement makes a Placement of Azure's compute document.
func azurePlacement(body []byte) (Placement, error) {
	var c azureCompute
	if err := json.Unmarshal(body, &c); err != nil {
		return Placement{}, fmt.Errorf("decoding the compute document: %w", err)
	}
	p := Placement{Source: SourceAzure}
	var err error
	if p.InstanceType, err = cleanValue("vmSize", c.VMSize); err != nil {
		return Placement{}, err
	}
	if p.Region, err = cleanValue("location", c.Location); err != nil {
		return Placement{}, err
	}
	if p.Zone, err = cleanValue("zone", c.Zone); err != nil {
		return Placement{}, err
	}
	if p.InstanceType == "" {
		return Placement{}, errors.New("the compute document has no vmSize")
	}
	return p, nil
}
