package mysql

import (
	"context"
	"crypto/tls"
	"slices"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/drivertest"
	"github.com/fairbench/fairbench/internal/machine/sysinfo"
	"github.com/fairbench/fairbench/internal/testing/testdb"
	"github.com/fairbench/fairbench/internal/testing/testdb/tlsserver"
)

func TestCipherSuites(t *testing.T) {
	for _, c := range []struct {
		list string
		want []uint16
		err  string
	}{
		{"ECDHE-RSA-AES128-GCM-SHA256", []uint16{tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256}, ""},
		{"ecdhe-ecdsa-aes256-gcm-sha384:AES128-SHA", []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, tls.TLS_RSA_WITH_AES_128_CBC_SHA}, ""},
		{"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, ECDHE-ECDSA-CHACHA20-POLY1305", []uint16{tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256}, ""},
		{"TLS_AES_256_GCM_SHA384", nil, "a TLS 1.3 cipher suite, which cannot be chosen"},
		{"DHE-RSA-AES256-SHA", nil, "not a TLS 1.2 cipher suite fairbench's TLS implements; give one of AES128-GCM-SHA256"},
		{"::", nil, "names no cipher suite"},
	} {
		got, err := CipherSuites(c.list)
		if !slices.Equal(got, c.want) || (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("CipherSuites(%q) = %v, %v; want %v, %q", c.list, got, err, c.want, c.err)
		}
	}
}

// TestCipherChosen: against a private MariaDB with TLS (an ECDSA
// certificate), --mysql-ssl-cipher picks the suite the server reports for
// the session, under TLS 1.2; a suite the certificate cannot serve fails the
// handshake.
func TestCipherChosen(t *testing.T) {
	certs := tlsserver.NewCerts(t)
	srv := tlsserver.StartMariaDB(t, certs)
	for _, cipher := range []string{"ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384"} {
		cfg := srv.Config(tlsserver.UserTLS)
		cfg.SSL, cfg.SSLCipher = driver.SSLRequired, cipher
		c := drivertest.Connect(t, drivertest.Open(t, New, cfg), 0)
		got := sysinfo.DetectTLS(context.Background(), driver.KindMySQL, c)
		if got == nil || !got.Used || got.Version != "TLSv1.2" || got.Cipher != cipher {
			t.Errorf("--mysql-ssl-cipher=%s: the server reports %+v", cipher, got)
		}
	}
	cfg := srv.Config(tlsserver.UserTLS)
	cfg.SSL, cfg.SSLCipher = driver.SSLRequired, "ECDHE-RSA-AES128-GCM-SHA256"
	if c, err := drivertest.Open(t, New, cfg).Connect(context.Background(), 0); err == nil {
		c.Close()
		t.Error("an RSA suite with an ECDSA certificate connected")
	}
}

// TestCompression: --mysql-compression=on gives a compressed session, as the
// server reports it, and statements work over it.
func TestCompression(t *testing.T) {
	for _, on := range []bool{false, true} {
		cfg := testdb.MySQL(t)
		cfg.Compression = on
		c := drivertest.Connect(t, openDriver(t, cfg), 0)
		rows, err := c.QueryStrings(context.Background(), "SHOW SESSION STATUS LIKE 'Compression'")
		if err != nil || len(rows) != 1 {
			t.Fatalf("SHOW SESSION STATUS: %v %v", rows, err)
		}
		if want := map[bool]string{true: "ON", false: "OFF"}[on]; rows[0][1] != want {
			t.Errorf("compression %v: the server reports Compression %s", on, rows[0][1])
		}
		if n, err := c.Query(context.Background(), "SELECT seq FROM information_schema.columns a, (SELECT 1 seq) b LIMIT 500"); err != nil || n == 0 {
			t.Errorf("compression %v: query: %d rows, %v", on, n, err)
		}
	}
}
