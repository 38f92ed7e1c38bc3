package tlsserver

import (
	"crypto/tls"
	"crypto/x509"
	"os"
	"strings"
	"testing"
)

// TestNewCertsChains checks what the tests of the drivers rely on: which
// certificate verifies for which host against which CA.
func TestNewCertsChains(t *testing.T) {
	c := NewCerts(t)
	cases := []struct {
		name    string
		pair    KeyPair
		ca      string
		host    string // "" verifies the chain only
		usage   x509.ExtKeyUsage
		wantErr string
	}{
		{"server for 127.0.0.1", c.Server, c.CA, "127.0.0.1", x509.ExtKeyUsageServerAuth, ""},
		{"server for ::1", c.Server, c.CA, "::1", x509.ExtKeyUsageServerAuth, ""},
		{"server for localhost", c.Server, c.CA, "localhost", x509.ExtKeyUsageServerAuth, ""},
		{"server against the other CA", c.Server, c.OtherCA, "", x509.ExtKeyUsageServerAuth, "unknown authority"},
		{"wrong host chain is valid", c.WrongHost, c.CA, "", x509.ExtKeyUsageServerAuth, ""},
		{"wrong host for 127.0.0.1", c.WrongHost, c.CA, "127.0.0.1", x509.ExtKeyUsageServerAuth, "not 127.0.0.1"},
		{"wrong host for localhost", c.WrongHost, c.CA, "localhost", x509.ExtKeyUsageServerAuth, "not localhost"},
		{"client", c.Client, c.CA, "", x509.ExtKeyUsageClientAuth, ""},
		{"client is no server", c.Client, c.CA, "", x509.ExtKeyUsageServerAuth, "incompatible key usage"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pair, err := tls.LoadX509KeyPair(tc.pair.Cert, tc.pair.Key)
			if err != nil {
				t.Fatalf("load key pair: %v", err)
			}
			leaf, err := x509.ParseCertificate(pair.Certificate[0])
			if err != nil {
				t.Fatal(err)
			}
			pem, err := os.ReadFile(tc.ca)
			if err != nil {
				t.Fatal(err)
			}
			roots := x509.NewCertPool()
			if !roots.AppendCertsFromPEM(pem) {
				t.Fatalf("%s holds no certificate", tc.ca)
			}
			_, err = leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: tc.host, KeyUsages: []x509.ExtKeyUsage{tc.usage}})
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("Verify: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("Verify = %v, want an error saying %q", err, tc.wantErr)
			}
		})
	}
	st, err := os.Stat(c.Server.Key)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("server key %s has mode %v, want 0600 (servers refuse readable keys)", c.Server.Key, st.Mode().Perm())
	}
}
