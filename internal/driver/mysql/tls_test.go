package mysql

import (
	"context"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/testdb/tlsserver"
)

// TestTLSModesAgainstTLSServer runs every --mysql-ssl mode against a private
// MariaDB with TLS on, whose accounts require TLS (REQUIRE SSL) or a client
// certificate (REQUIRE X509). A connection that succeeds must really be
// encrypted; one that fails must say why.
func TestTLSModesAgainstTLSServer(t *testing.T) {
	certs := tlsserver.NewCerts(t)
	srv := tlsserver.StartMariaDB(t, certs)
	client := &certs.Client
	wrongHost := &certs.WrongHost
	cases := []struct {
		name    string
		user    string
		host    string // "" connects to 127.0.0.1
		mode    driver.SSLMode
		ca      string
		client  *tlsserver.KeyPair
		serve   *tlsserver.KeyPair // the server's certificate; nil: certs.Server
		wantErr []string           // parts of the error; none: connects over TLS
	}{
		{name: "off is refused by REQUIRE SSL", mode: driver.SSLOff, wantErr: []string{"Access denied", "--mysql-ssl"}},
		{name: "on uses TLS", mode: driver.SSLOn},
		{name: "required", mode: driver.SSLRequired},
		{name: "required ignores an untrusted certificate", mode: driver.SSLRequired, ca: certs.OtherCA},
		{name: "verify-ca with the right CA", mode: driver.SSLVerifyCA, ca: certs.CA},
		{name: "verify-ca ignores the host name", mode: driver.SSLVerifyCA, ca: certs.CA, serve: wrongHost},
		{name: "verify-ca with a wrong CA", mode: driver.SSLVerifyCA, ca: certs.OtherCA,
			wantErr: []string{"not signed by --mysql-ssl-ca", "certificate signed by unknown authority"}},
		{name: "verify-full by IP", mode: driver.SSLVerifyFull, ca: certs.CA},
		{name: "verify-full by name", host: "localhost", mode: driver.SSLVerifyFull, ca: certs.CA},
		{name: "verify-full with a wrong CA", mode: driver.SSLVerifyFull, ca: certs.OtherCA,
			wantErr: []string{"certificate signed by unknown authority"}},
		{name: "verify-full host mismatch by IP", mode: driver.SSLVerifyFull, ca: certs.CA, serve: wrongHost,
			wantErr: []string{"certificate is valid for " + tlsserver.WrongHostIP, "not 127.0.0.1"}},
		{name: "verify-full host mismatch by name", host: "localhost", mode: driver.SSLVerifyFull, ca: certs.CA, serve: wrongHost,
			wantErr: []string{"certificate is valid for " + tlsserver.WrongHostName, "not localhost"}},
		{name: "client certificate accepted", user: tlsserver.UserCert, mode: driver.SSLRequired, client: client},
		{name: "client certificate with verify-full", user: tlsserver.UserCert, mode: driver.SSLVerifyFull, ca: certs.CA, client: client},
		{name: "client certificate missing", user: tlsserver.UserCert, mode: driver.SSLVerifyFull, ca: certs.CA,
			wantErr: []string{"Access denied"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.serve != nil {
				srv.ServeCert(t, *tc.serve)
			}
			user := tc.user
			if user == "" {
				user = tlsserver.UserTLS
			}
			cfg := srv.Config(user)
			if tc.host != "" {
				cfg.Hosts = []string{tc.host}
			}
			cfg.SSL, cfg.SSLCA = tc.mode, tc.ca
			if tc.client != nil {
				cfg.SSLCert, cfg.SSLKey = tc.client.Cert, tc.client.Key
			}
			d, err := New(cfg)
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			defer d.Close()
			ctx := context.Background()
			c, err := d.Connect(ctx, 0)
			if len(tc.wantErr) > 0 {
				if err == nil {
					c.Close()
					t.Fatalf("Connect succeeded, want an error saying %q", tc.wantErr)
				}
				t.Logf("Connect: %v", err)
				for _, want := range tc.wantErr {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("Connect error %q does not say %q", err, want)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			defer c.Close()
			rows, err := c.QueryStrings(ctx, "SHOW SESSION STATUS LIKE 'Ssl_cipher'")
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 1 || len(rows[0]) != 2 || rows[0][1] == "" {
				t.Fatalf("Ssl_cipher = %q, want a cipher: the session is not encrypted", rows)
			}
		})
	}
}
