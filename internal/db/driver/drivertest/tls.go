package drivertest

import (
	"context"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/testing/testdb/tlsserver"
)

// TLSServer is a private database server with TLS on, as package tlsserver
// starts them (tlsserver.MariaDB, tlsserver.PostgreSQL).
type TLSServer interface {
	// Config returns a Config that reaches the server as user.
	Config(user string) driver.Config
	// ServeCert makes the server present pair until the test ends.
	ServeCert(t testing.TB, pair tlsserver.KeyPair)
}

// TLSCase is one connection attempt of TLSModes.
type TLSCase struct {
	Name    string
	User    string // "": tlsserver.UserTLS
	Host    string // "" connects to 127.0.0.1
	Mode    driver.SSLMode
	CA      string
	Client  *tlsserver.KeyPair // the client's certificate; nil: none
	Serve   *tlsserver.KeyPair // the server's certificate; nil: certs.Server
	WantErr []string           // parts of the error; none: connects over TLS
}

// TLSModes runs every case as a subtest: it makes a driver with newDriver for
// srv's Config with the case's user, host, mode, CA and client certificate, and
// connects. A case with WantErr must fail to connect with an error that says
// every part of it; any other must connect, and encrypted must then check on
// the connection that the session is really encrypted.
func TLSModes[D driver.Driver](t *testing.T, srv TLSServer, newDriver func(driver.Config) (D, error), cases []TLSCase, encrypted func(t *testing.T, c driver.Conn)) {
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			if tc.Serve != nil {
				srv.ServeCert(t, *tc.Serve)
			}
			user := tc.User
			if user == "" {
				user = tlsserver.UserTLS
			}
			cfg := srv.Config(user)
			if tc.Host != "" {
				cfg.Hosts = []string{tc.Host}
			}
			cfg.SSL, cfg.SSLCA = tc.Mode, tc.CA
			if tc.Client != nil {
				cfg.SSLCert, cfg.SSLKey = tc.Client.Cert, tc.Client.Key
			}
			d := Open(t, newDriver, cfg)
			c, err := d.Connect(context.Background(), 0)
			if len(tc.WantErr) > 0 {
				if err == nil {
					c.Close()
					t.Fatalf("Connect succeeded, want an error saying %q", tc.WantErr)
				}
				t.Logf("Connect: %v", err)
				for _, want := range tc.WantErr {
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
			encrypted(t, c)
		})
	}
}
