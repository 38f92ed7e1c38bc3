package mysql

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"

	mysqldrv "github.com/go-sql-driver/mysql"

	sqldriver "database/sql/driver"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/netconn"
)

// endpoint is one server address with its ready connector.
type endpoint struct {
	network   string // "tcp" or "unix"
	addr      string // host:port or socket path
	connector sqldriver.Connector
}

// netConnSlot receives the network connection a Connect call dials, so that the
// deadline watcher can close it while a call is blocked on the server.
type netConnSlot struct{ conn net.Conn }

type netConnSlotKey struct{}

// dialNetConn dials like go-sql-driver does (with TCP keep-alive) and records
// the connection in the slot carried by ctx.
func dialNetConn(ctx context.Context, network, addr string) (net.Conn, error) {
	// Blocking reads wake the worker's thread directly instead of through the
	// network poller: less client CPU per query (see package netconn).
	nc, err := netconn.Dial(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	if slot, ok := ctx.Value(netConnSlotKey{}).(*netConnSlot); ok {
		slot.conn = nc
	}
	return nc, nil
}

// buildEndpoints returns one endpoint per distinct address that Config.Endpoint
// hands out, so that connection n uses endpoints[n%len(endpoints)].
func buildEndpoints(cfg driver.Config, tlsCfg *tls.Config) ([]endpoint, error) {
	count := 1
	switch {
	case cfg.Socket != "":
	case len(cfg.Hosts) > 0:
		count = len(cfg.Hosts)
	case len(cfg.Ports) > 0:
		count = len(cfg.Ports)
	}
	eps := make([]endpoint, count)
	for i := range eps {
		ep := endpoint{network: "unix", addr: cfg.Socket}
		if cfg.Socket == "" {
			host, port := cfg.Endpoint(i)
			if host == "" {
				host = "127.0.0.1"
			}
			if port == 0 {
				port = 3306
			}
			ep.network, ep.addr = "tcp", net.JoinHostPort(host, strconv.Itoa(port))
		}
		mc := mysqldrv.NewConfig()
		mc.User, mc.Passwd, mc.DBName = cfg.User, cfg.Password, cfg.Database
		mc.Net, mc.Addr = ep.network, ep.addr
		mc.Timeout = cfg.Timeout()
		mc.DialFunc = dialNetConn
		// Interpolation only applies to Conn.Exec/Query with arguments and to
		// unprepared statements; prepared statements always use the binary protocol.
		mc.InterpolateParams = true
		// Liveness checks cost a syscall before each pooled use; a worker owns
		// its connection and the runner reconnects on loss instead.
		mc.CheckConnLiveness = false
		mc.Logger = &mysqldrv.NopLogger{}
		if err := mc.Apply(mysqldrv.EnableCompression(cfg.Compression)); err != nil {
			return nil, fmt.Errorf("mysql: --mysql-compression: %w", err)
		}
		if tlsCfg != nil && ep.network == "tcp" {
			t := tlsCfg.Clone()
			if cfg.SSL == driver.SSLVerifyFull {
				t.ServerName, _, _ = net.SplitHostPort(ep.addr)
			}
			mc.TLS = t
			mc.AllowFallbackToPlaintext = cfg.SSL == driver.SSLOn
		}
		conn, err := mysqldrv.NewConnector(mc)
		if err != nil {
			return nil, fmt.Errorf("mysql: configure connection to %s: %w", ep.addr, err)
		}
		ep.connector = conn
		eps[i] = ep
	}
	return eps, nil
}

// tlsConfig turns the SSL settings into a TLS configuration; nil means plain TCP.
func tlsConfig(cfg driver.Config) (*tls.Config, error) {
	mode := cfg.SSL
	if mode == "" {
		mode = driver.SSLOff
	}
	if mode == driver.SSLOff {
		if cfg.SSLCipher != "" {
			return nil, errors.New("mysql: --mysql-ssl-cipher needs TLS: add --mysql-ssl=required (or on, verify-ca, verify-full)")
		}
		return nil, nil
	}
	t := &tls.Config{MinVersion: tls.VersionTLS12}
	if cfg.SSLCipher != "" {
		suites, err := CipherSuites(cfg.SSLCipher)
		if err != nil {
			return nil, fmt.Errorf("mysql: %w", err)
		}
		// The list can only hold under TLS 1.2: Go chooses TLS 1.3's suite itself.
		t.CipherSuites, t.MaxVersion = suites, tls.VersionTLS12
	}
	if cfg.SSLCert != "" || cfg.SSLKey != "" {
		if cfg.SSLCert == "" || cfg.SSLKey == "" {
			return nil, errors.New("mysql: TLS client certificate needs both --mysql-ssl-cert and --mysql-ssl-key")
		}
		pair, err := tls.LoadX509KeyPair(cfg.SSLCert, cfg.SSLKey)
		if err != nil {
			return nil, fmt.Errorf("mysql: load TLS client certificate %s / key %s: %w", cfg.SSLCert, cfg.SSLKey, err)
		}
		t.Certificates = []tls.Certificate{pair}
	}
	var roots *x509.CertPool
	if cfg.SSLCA != "" {
		pem, err := os.ReadFile(cfg.SSLCA)
		if err != nil {
			return nil, fmt.Errorf("mysql: read TLS CA file: %w", err)
		}
		roots = x509.NewCertPool()
		if !roots.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("mysql: TLS CA file %s holds no PEM certificate", cfg.SSLCA)
		}
	}
	switch mode {
	case driver.SSLOn, driver.SSLRequired:
		t.InsecureSkipVerify = true
	case driver.SSLVerifyCA:
		if roots == nil {
			return nil, errors.New("mysql: --mysql-ssl=verify-ca needs --mysql-ssl-ca")
		}
		// Verify the chain but not the host name.
		t.InsecureSkipVerify = true
		t.VerifyPeerCertificate = verifyChain(roots)
	case driver.SSLVerifyFull:
		if roots == nil {
			return nil, errors.New("mysql: --mysql-ssl=verify-full needs --mysql-ssl-ca")
		}
		t.RootCAs = roots
	default:
		return nil, fmt.Errorf("mysql: unknown ssl mode %q: use off, on, required, verify-ca or verify-full", mode)
	}
	return t, nil
}

// verifyChain checks the server's certificate chain against roots, ignoring the
// host name (verify-ca).
func verifyChain(roots *x509.CertPool) func([][]byte, [][]*x509.Certificate) error {
	return func(raw [][]byte, _ [][]*x509.Certificate) error {
		if len(raw) == 0 {
			return errors.New("mysql: server sent no TLS certificate")
		}
		certs := make([]*x509.Certificate, len(raw))
		for i, b := range raw {
			c, err := x509.ParseCertificate(b)
			if err != nil {
				return fmt.Errorf("mysql: parse server certificate: %w", err)
			}
			certs[i] = c
		}
		inter := x509.NewCertPool()
		for _, c := range certs[1:] {
			inter.AddCert(c)
		}
		if _, err := certs[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter}); err != nil {
			return fmt.Errorf("mysql: server certificate not signed by --mysql-ssl-ca: %w", err)
		}
		return nil
	}
}
