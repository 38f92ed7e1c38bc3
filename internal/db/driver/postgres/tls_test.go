package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/drivertest"
	"github.com/fairbench/fairbench/internal/machine/sysinfo"
	"github.com/fairbench/fairbench/internal/testing/testdb/tlsserver"
)

// TestTLSModesAgainstTLSServer runs every --pgsql-ssl mode against a private
// PostgreSQL with TLS on, whose pg_hba.conf rejects plain connections and asks
// one account for a client certificate. A connection that succeeds must really
// be encrypted; one that fails must say why.
func TestTLSModesAgainstTLSServer(t *testing.T) {
	certs := tlsserver.NewCerts(t)
	srv := tlsserver.StartPostgreSQL(t, certs)
	client := &certs.Client
	wrongHost := &certs.WrongHost
	cases := []drivertest.TLSCase{
		{Name: "off is refused by hostnossl reject", Mode: driver.SSLOff, WantErr: []string{"no encryption", "--pgsql-ssl"}},
		{Name: "on uses TLS", Mode: driver.SSLOn},
		{Name: "required", Mode: driver.SSLRequired},
		// As in libpq, required with a CA verifies the chain (verify-ca).
		{Name: "required with a CA verifies it", Mode: driver.SSLRequired, CA: certs.OtherCA,
			WantErr: []string{"certificate signed by unknown authority"}},
		{Name: "verify-ca with the right CA", Mode: driver.SSLVerifyCA, CA: certs.CA},
		{Name: "verify-ca ignores the host name", Mode: driver.SSLVerifyCA, CA: certs.CA, Serve: wrongHost},
		{Name: "verify-ca with a wrong CA", Mode: driver.SSLVerifyCA, CA: certs.OtherCA,
			WantErr: []string{"certificate signed by unknown authority"}},
		{Name: "verify-full by IP", Mode: driver.SSLVerifyFull, CA: certs.CA},
		{Name: "verify-full by name", Host: "localhost", Mode: driver.SSLVerifyFull, CA: certs.CA},
		{Name: "verify-full with a wrong CA", Mode: driver.SSLVerifyFull, CA: certs.OtherCA,
			WantErr: []string{"certificate signed by unknown authority"}},
		{Name: "verify-full host mismatch by IP", Mode: driver.SSLVerifyFull, CA: certs.CA, Serve: wrongHost,
			WantErr: []string{"certificate is valid for " + tlsserver.WrongHostIP, "not 127.0.0.1"}},
		{Name: "verify-full host mismatch by name", Host: "localhost", Mode: driver.SSLVerifyFull, CA: certs.CA, Serve: wrongHost,
			WantErr: []string{"certificate is valid for " + tlsserver.WrongHostName, "not localhost"}},
		{Name: "client certificate accepted", User: tlsserver.UserCert, Mode: driver.SSLRequired, Client: client},
		{Name: "client certificate with verify-full", User: tlsserver.UserCert, Mode: driver.SSLVerifyFull, CA: certs.CA, Client: client},
		{Name: "client certificate missing", User: tlsserver.UserCert, Mode: driver.SSLVerifyFull, CA: certs.CA,
			WantErr: []string{"client certificate"}},
	}
	drivertest.TLSModes(t, srv, New, cases, func(t *testing.T, c driver.Conn) {
		// What the result records as target.tls (sysinfo.DetectTLS).
		tls := sysinfo.DetectTLS(context.Background(), driver.KindPgSQL, c)
		if tls == nil || !tls.Used || !strings.HasPrefix(tls.Version, "TLSv1.") || tls.Cipher == "" {
			t.Fatalf("DetectTLS = %+v, want used with a TLSv1.x version and a cipher: the session is not encrypted", tls)
		}
	})
}
