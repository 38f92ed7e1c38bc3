package mysql

import (
	"context"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/drivertest"
	"github.com/fairbench/fairbench/internal/machine/sysinfo"
	"github.com/fairbench/fairbench/internal/testing/testdb"
	"github.com/fairbench/fairbench/internal/testing/testdb/tlsserver"
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
	cases := []drivertest.TLSCase{
		{Name: "off is refused by REQUIRE SSL", Mode: driver.SSLOff, WantErr: []string{"Access denied", "--mysql-ssl"}},
		{Name: "on uses TLS", Mode: driver.SSLOn},
		{Name: "required", Mode: driver.SSLRequired},
		{Name: "required ignores an untrusted certificate", Mode: driver.SSLRequired, CA: certs.OtherCA},
		{Name: "verify-ca with the right CA", Mode: driver.SSLVerifyCA, CA: certs.CA},
		{Name: "verify-ca ignores the host name", Mode: driver.SSLVerifyCA, CA: certs.CA, Serve: wrongHost},
		{Name: "verify-ca with a wrong CA", Mode: driver.SSLVerifyCA, CA: certs.OtherCA,
			WantErr: []string{"not signed by --mysql-ssl-ca", "certificate signed by unknown authority"}},
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
			WantErr: []string{"Access denied"}},
	}
	drivertest.TLSModes(t, srv, New, cases, func(t *testing.T, c driver.Conn) {
		// What the result records as target.tls (sysinfo.DetectTLS).
		tls := sysinfo.DetectTLS(context.Background(), driver.KindMySQL, c)
		if tls == nil || !tls.Used || !strings.HasPrefix(tls.Version, "TLSv1.") || tls.Cipher == "" {
			t.Fatalf("DetectTLS = %+v, want used with a TLSv1.x version and a cipher: the session is not encrypted", tls)
		}
	})
}

// TestOnWithoutTLSFallsBackToPlainText connects with --mysql-ssl=on to the
// shared server: without TLS on it (have_ssl not YES) the connection succeeds
// in plain text, and DetectTLS, which the result's target.tls records, says
// so; with TLS on it says TLS was used.
func TestOnWithoutTLSFallsBackToPlainText(t *testing.T) {
	testdb.SkipShort(t, "MariaDB")
	cfg := testdb.MySQLServer()
	cfg.SSL = driver.SSLOn
	d := drivertest.Open(t, New, cfg)
	c, err := d.Connect(context.Background(), 0)
	if err != nil {
		t.Fatalf("Connect with ssl=on: %v", err)
	}
	defer c.Close()
	rows, err := c.QueryStrings(context.Background(), "SELECT @@have_ssl")
	if err != nil {
		t.Fatal(err)
	}
	offered := len(rows) == 1 && rows[0][0] == "YES"
	tls := sysinfo.DetectTLS(context.Background(), driver.KindMySQL, c)
	if tls == nil || tls.Used != offered || tls.Note != "" {
		t.Fatalf("DetectTLS = %+v, want used=%v (have_ssl %q)", tls, offered, rows)
	}
	if !offered && (tls.Version != "" || tls.Cipher != "") {
		t.Fatalf("DetectTLS = %+v: a plain connection with a TLS version or cipher", tls)
	}
}
