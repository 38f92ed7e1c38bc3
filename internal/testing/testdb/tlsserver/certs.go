package tlsserver

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// WrongHostName and WrongHostIP are the only names in Certs.WrongHost: no test
// connects to them (192.0.2.0/24 is reserved for documentation).
const (
	WrongHostName = "wrong-host.invalid"
	WrongHostIP   = "192.0.2.1"
)

// KeyPair names the PEM files of a certificate and its private key.
type KeyPair struct {
	Cert string
	Key  string
}

// Certs are the PEM files of a throw-away PKI, all in Dir.
type Certs struct {
	Dir string
	// CA signed Server, WrongHost and Client.
	CA string
	// OtherCA is an unrelated CA: verifying a server against it must fail.
	OtherCA string
	// Server is valid for 127.0.0.1, ::1 and localhost.
	Server KeyPair
	// WrongHost is signed by CA but valid only for WrongHostName and
	// WrongHostIP, so host name verification against 127.0.0.1 or localhost fails.
	WrongHost KeyPair
	// Client is a client certificate with common name UserCert.
	Client KeyPair
}

// NewCerts generates a CA, the server and client certificates signed by it, and
// an unrelated second CA into a temporary directory of t.
func NewCerts(t testing.TB) *Certs {
	t.Helper()
	c, err := writeCerts(t.TempDir())
	if err != nil {
		t.Fatalf("tlsserver: generate certificates: %v", err)
	}
	return c
}

// writeCerts generates every file of Certs into dir.
func writeCerts(dir string) (*Certs, error) {
	c := &Certs{
		Dir:       dir,
		CA:        filepath.Join(dir, "ca.pem"),
		OtherCA:   filepath.Join(dir, "other-ca.pem"),
		Server:    KeyPair{filepath.Join(dir, "server.pem"), filepath.Join(dir, "server-key.pem")},
		WrongHost: KeyPair{filepath.Join(dir, "wrong-host.pem"), filepath.Join(dir, "wrong-host-key.pem")},
		Client:    KeyPair{filepath.Join(dir, "client.pem"), filepath.Join(dir, "client-key.pem")},
	}
	ca, err := newCA("fairbench test CA", c.CA)
	if err != nil {
		return nil, err
	}
	if _, err := newCA("fairbench unrelated CA", c.OtherCA); err != nil {
		return nil, err
	}
	server := leafTemplate("localhost", x509.ExtKeyUsageServerAuth)
	server.DNSNames = []string{"localhost"}
	server.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
	if err := ca.issue(server, c.Server); err != nil {
		return nil, err
	}
	wrong := leafTemplate(WrongHostName, x509.ExtKeyUsageServerAuth)
	wrong.DNSNames = []string{WrongHostName}
	wrong.IPAddresses = []net.IP{net.ParseIP(WrongHostIP)}
	if err := ca.issue(wrong, c.WrongHost); err != nil {
		return nil, err
	}
	if err := ca.issue(leafTemplate(UserCert, x509.ExtKeyUsageClientAuth), c.Client); err != nil {
		return nil, err
	}
	return c, nil
}

// issuer is a CA that signs certificates.
type issuer struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

// newCA creates a self-signed CA and writes its certificate to certFile.
func newCA(name, certFile string) (*issuer, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("CA key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: name, Organization: []string{"fairbench tests"}},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(7 * 24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("sign CA %q: %w", name, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("parse CA %q: %w", name, err)
	}
	if err := writePEM(certFile, "CERTIFICATE", der, 0o644); err != nil {
		return nil, err
	}
	return &issuer{cert: cert, key: key}, nil
}

// leafTemplate returns the template of an end-entity certificate.
func leafTemplate(commonName string, usage x509.ExtKeyUsage) *x509.Certificate {
	return &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: commonName, Organization: []string{"fairbench tests"}},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(7 * 24 * time.Hour),
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:           []x509.ExtKeyUsage{usage},
	}
}

// issue signs tmpl with a fresh key and writes certificate and key to pair.
func (ca *issuer) issue(tmpl *x509.Certificate, pair KeyPair) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("key for %q: %w", tmpl.Subject.CommonName, err)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return fmt.Errorf("sign %q: %w", tmpl.Subject.CommonName, err)
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return fmt.Errorf("encode key of %q: %w", tmpl.Subject.CommonName, err)
	}
	if err := writePEM(pair.Cert, "CERTIFICATE", der, 0o644); err != nil {
		return err
	}
	return writePEM(pair.Key, "PRIVATE KEY", pkcs8, 0o600)
}

// serial returns a random certificate serial number.
func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		panic(fmt.Sprintf("tlsserver: random serial: %v", err))
	}
	return n
}

// writePEM writes one PEM block to path with the given permissions.
func writePEM(path, blockType string, der []byte, mode os.FileMode) error {
	data := pem.EncodeToMemory(&pem.Block{Type: blockType, Bytes: der})
	if err := os.WriteFile(path, data, mode); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// certDER returns the DER bytes of the first certificate in a PEM file.
func certDER(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read certificate: %w", err)
	}
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "CERTIFICATE" {
		return nil, fmt.Errorf("%s holds no PEM certificate", path)
	}
	return block.Bytes, nil
}
