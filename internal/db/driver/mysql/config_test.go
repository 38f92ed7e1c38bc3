package mysql

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/drivertest"
	"github.com/fairbench/fairbench/internal/testing/testdb"
)

func TestTLSConfig(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		cfg      driver.Config
		wantNil  bool
		wantErr  string
		insecure bool
	}{
		{"default is off", driver.Config{}, true, "", false},
		{"off", driver.Config{SSL: driver.SSLOff}, true, "", false},
		{"on skips verification", driver.Config{SSL: driver.SSLOn}, false, "", true},
		{"required skips verification", driver.Config{SSL: driver.SSLRequired}, false, "", true},
		{"verify-ca needs a CA", driver.Config{SSL: driver.SSLVerifyCA}, false, "needs --mysql-ssl-ca", false},
		{"verify-full needs a CA", driver.Config{SSL: driver.SSLVerifyFull}, false, "needs --mysql-ssl-ca", false},
		{"CA must be PEM", driver.Config{SSL: driver.SSLVerifyFull, SSLCA: notPEM}, false, "holds no PEM certificate", false},
		{"CA must exist", driver.Config{SSL: driver.SSLVerifyCA, SSLCA: filepath.Join(dir, "missing.pem")}, false, "read TLS CA file", false},
		{"cert needs key", driver.Config{SSL: driver.SSLRequired, SSLCert: notPEM}, false, "both --mysql-ssl-cert and --mysql-ssl-key", false},
		{"unknown mode", driver.Config{SSL: "sometimes"}, false, "unknown ssl mode", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tlsConfig(tc.cfg)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (got == nil) != tc.wantNil {
				t.Fatalf("tls config = %v, want nil: %v", got, tc.wantNil)
			}
			if got != nil && got.InsecureSkipVerify != tc.insecure {
				t.Errorf("InsecureSkipVerify = %v, want %v", got.InsecureSkipVerify, tc.insecure)
			}
		})
	}
}

// TestTLSAgainstServer checks the policies against the test server: "on"
// connects whether or not the server offers TLS, "required" either gets TLS or
// fails with an error that says so.
func TestTLSAgainstServer(t *testing.T) {
	ctx := context.Background()
	cfg := testdb.MySQL(t)
	cfg.SSL = driver.SSLOn
	d := openDriver(t, cfg)
	c := drivertest.Connect(t, d, 0)
	rows, err := c.QueryStrings(ctx, "SHOW VARIABLES LIKE 'have_ssl'")
	if err != nil {
		t.Fatal(err)
	}
	serverTLS := len(rows) == 1 && rows[0][1] == "YES"

	cfg.SSL = driver.SSLRequired
	d = openDriver(t, cfg)
	c, err = d.Connect(ctx, 0)
	if !serverTLS {
		if err == nil || !strings.Contains(err.Error(), "does not offer TLS") {
			t.Fatalf("required TLS against a server without it: %v, want an error that says so", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	status, err := c.QueryStrings(ctx, "SHOW SESSION STATUS LIKE 'Ssl_cipher'")
	if err != nil || len(status) != 1 || status[0][1] == "" {
		t.Fatalf("Ssl_cipher = %q, %v; want a cipher", status, err)
	}
}
